//! Text written for map keys, kept per thread for the next record's same keys.
//!
//! The records of a file usually share their map keys (an Example's feature names), and writing
//! a key checks and escapes each of its characters. Comparing the key with the one written at the
//! same place of a map before, and copying the text written for it then, costs less. Kept per
//! thread (records are rendered on every core), for the first `PLACES` entries of a map and
//! keys of at most `KEY_BYTES` bytes, so that what is kept stays under some tens of kilobytes
//! (a key's text is at most six bytes for each of its bytes, as `\u0001` in JSON).

use std::cell::RefCell;
use std::thread::LocalKey;

/// The places in a map whose keys are kept.
const PLACES: usize = 64;
/// The longest key kept.
const KEY_BYTES: usize = 64;

/// For each place of a map, the key last written there and the text written for it.
#[derive(Default)]
pub struct KeyTexts(RefCell<Vec<(Vec<u8>, String)>>);

impl KeyTexts {
    pub const fn new() -> KeyTexts {
        KeyTexts(RefCell::new(Vec::new()))
    }

    /// Appends the text of `key`, the `place`-th entry of its map: the text kept for it when the
    /// key at that place was the same, else what `write` appends (which is then kept). `write`
    /// must append the same text for the same key.
    fn write(
        &self,
        place: usize,
        key: &[u8],
        out: &mut String,
        write: impl FnOnce(&[u8], &mut String),
    ) {
        if let Ok(kept) = self.0.try_borrow() {
            if let Some((kept_key, text)) = kept.get(place) {
                if kept_key.as_slice() == key {
                    out.push_str(text);
                    return;
                }
            }
        }
        let start = out.len();
        write(key, out);
        if place >= PLACES || key.len() > KEY_BYTES {
            return;
        }
        let Ok(mut kept) = self.0.try_borrow_mut() else {
            return;
        };
        if kept.len() <= place {
            kept.resize_with(place + 1, Default::default);
        }
        if let Some((kept_key, text)) = kept.get_mut(place) {
            kept_key.clear();
            kept_key.extend_from_slice(key);
            text.clear();
            text.push_str(out.get(start..).unwrap_or_default());
        }
    }
}

/// `KeyTexts::write` with this thread's `texts`; straight through `write` while the thread
/// exits and they are gone.
pub fn write_key(
    texts: &'static LocalKey<KeyTexts>,
    place: usize,
    key: &[u8],
    out: &mut String,
    write: impl FnOnce(&[u8], &mut String),
) {
    let mut write = Some(write);
    let _ = texts.try_with(|texts| {
        if let Some(write) = write.take() {
            texts.write(place, key, out, write);
        }
    });
    if let Some(write) = write {
        write(key, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static TEXTS: KeyTexts = const { KeyTexts::new() };
    }

    /// Writes `keys` as one map's, counting the keys `write` was asked for.
    fn written(keys: &[&[u8]], asked: &mut usize) -> String {
        let mut out = String::new();
        for (place, key) in keys.iter().enumerate() {
            write_key(&TEXTS, place, key, &mut out, |key, out| {
                *asked += 1;
                out.push('<');
                out.push_str(&String::from_utf8_lossy(key));
                out.push('>');
            });
        }
        out
    }

    #[test]
    fn a_key_at_the_same_place_reuses_its_text_and_any_other_is_written_again() {
        let mut asked = 0;
        assert_eq!(written(&[b"a", b"bb"], &mut asked), "<a><bb>");
        assert_eq!(asked, 2);
        // The same keys at the same places: nothing is written anew.
        assert_eq!(written(&[b"a", b"bb"], &mut asked), "<a><bb>");
        assert_eq!(asked, 2);
        // A key that changed, or moved to another place, is written again; the others are not.
        assert_eq!(written(&[b"a", b"c", b"bb"], &mut asked), "<a><c><bb>");
        assert_eq!(asked, 4);
        // A key of the same length, or a prefix of the one kept, is another key.
        assert_eq!(written(&[b"z", b"c"], &mut asked), "<z><c>");
        assert_eq!(asked, 5);
        assert_eq!(written(&[b"", b"c"], &mut asked), "<><c>");
        assert_eq!(asked, 6);
        // Keys too long or too far into a map are written every time.
        let long = [b'x'; KEY_BYTES + 1];
        written(&[&long], &mut asked);
        written(&[&long], &mut asked);
        assert_eq!(asked, 8);
        let far: Vec<&[u8]> = vec![b"k"; PLACES + 1];
        written(&far, &mut asked);
        let before = asked;
        written(&far, &mut asked);
        assert_eq!(asked - before, 1, "only the place past the kept ones");
    }
}
