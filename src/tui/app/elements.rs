//! Which element and component of a `tf.data` snapshot a record is, for the frame list and the
//! tree: a shard's record `i` is component `i % n` of element `i / n`. A record that is not the
//! component its place makes it (another dtype, damaged) and records past the last whole
//! element of a shard indexed to its end say so instead.

use super::FileView;
use crate::tui::decoding;
use tfr_core::dataset::snapshot::element::{self, Placed};
use tfr_core::frame::Frame;

/// `element 1's pair[0]`, `element 1's pair[0]? record 7 is float32[], but …`, or `past the
/// last whole element`; `None` for a file that is no grouped snapshot shard.
pub fn place_text(file: &FileView, frame: &Frame) -> Option<String> {
    let snapshot = file.snapshot.as_deref()?;
    let n = snapshot.components();
    let index = file.index();
    if index.is_complete() && frame.index >= index.len() / n.max(1) * n {
        return Some(format!(
            "past the last whole element ({} of {n} components: the shard ends inside an element)",
            index.len() % n.max(1)
        ));
    }
    let data = file.data();
    // A payload too large to decode between two keys is placed by its index alone.
    let payload = frame
        .payload(data)
        .filter(|p| p.len() <= decoding::INLINE_BYTES);
    let decoder = file.input.decoder();
    let decoded = payload.map(|p| (p, decoder.decode(p)));
    let placed = match (&decoded, frame.payload(data)) {
        (Some((p, d)), _) => element::place(snapshot, decoder, frame, Some((p, d)))?,
        (None, Some(_)) if frame.status.is_intact() => {
            let (element, component) = snapshot.place(frame.index)?;
            return Some(element::whose(element, &component.path));
        }
        (None, _) => element::place(snapshot, decoder, frame, None)?,
    };
    Some(describe(&placed))
}

fn describe(placed: &Placed) -> String {
    let whose = element::whose(placed.element, &placed.path);
    match &placed.value {
        Ok(_) => whose,
        Err(why) => format!("{whose}? {}", tfr_core::escape::for_terminal(why)),
    }
}
