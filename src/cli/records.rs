//! The one loop `list` and `show` print records with: frames are indexed as output proceeds (so
//! the first record prints at once), each batch is rendered on every core, the file is asked
//! whether it changed under the rendering, and only then is the batch handed over in order.

use std::io;

use crate::error::Error;
use crate::frame::Frame;
use crate::input::Input;
use crate::payload::Decoder;

/// The first batch is small so that output starts at once; later ones keep every core busy.
const FIRST_BATCH: usize = 64;
const BATCH: usize = 4096;

/// How the rendering of a range of records ended.
pub enum Outcome {
    /// Every frame of the range that exists was handed over; `next` is the first one that was not
    /// (the range's end, or the file's frame count when the range reached past it).
    Done { next: usize },
    /// The file changed under the rendering (it shrank or was rewritten): nothing of the batch
    /// rendered from those bytes was handed over.
    Changed(Error),
}

/// Renders records `start..end` (to the last frame when `end` is `None`) with `render`, on every
/// core, and hands the results to `emit` in record order.
pub fn render_in_order<T: Send>(
    input: &mut Input,
    start: usize,
    end: Option<usize>,
    render: impl Fn(&Input, &Decoder, Frame) -> T + Sync,
    mut emit: impl FnMut(&Input, T) -> io::Result<()>,
) -> io::Result<Outcome> {
    let workers = input.worker_decoders();
    // Long runs to a file or a pipe show their progress on stderr when it is a terminal.
    let progress = super::progress::Progress::bytes("reading", input.source.len(), true);
    let mut next = start;
    loop {
        let size = if next == start { FIRST_BATCH } else { BATCH };
        let frames = input.batch(next, end, size);
        if frames.is_empty() {
            return Ok(match input.check_unchanged() {
                Ok(()) => Outcome::Done { next },
                Err(e) => Outcome::Changed(e),
            });
        }
        next += frames.len();
        if let Some(last) = frames.last() {
            progress.set(last.region().end.0);
        }
        let rendered = input.map_frames(frames, &workers, &render);
        // Outcome from the mapped bytes: if the file shrank meanwhile, some were zeros.
        if let Err(e) = input.check_unchanged() {
            return Ok(Outcome::Changed(e));
        }
        for item in rendered {
            emit(input, item)?;
        }
    }
}
