//! Jumps: to a record number, to a byte offset, to the next damaged frame, to a search match.
//!
//! These are the moves a user makes from outside information ("record 56", TensorFlow's
//! "corrupted record at 5630", a feature name), so each one also says in the status line what it
//! found there.

use super::app::{App, Prompt};
use super::hexview;
use super::keymap::PromptKind;
use crate::damage;

/// Parses a number typed in a prompt: decimal, or hexadecimal with `0x`.
pub fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim().replace('_', "");
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

impl App {
    pub(super) fn submit(&mut self, prompt: Prompt) {
        match prompt.kind {
            PromptKind::Record => match parse_number(&prompt.text) {
                Some(n) => self.go_to_record(usize::try_from(n).unwrap_or(usize::MAX)),
                None => self.message = format!("not a record number: {:?}", prompt.text),
            },
            PromptKind::Offset => match parse_number(&prompt.text) {
                Some(n) => self.go_to_offset(n),
                None => self.message = format!("not a byte offset: {:?}", prompt.text),
            },
            PromptKind::Search => {
                if prompt.text.is_empty() {
                    return;
                }
                self.search = Some(prompt.text);
                self.search_step(true);
            }
        }
    }

    /// Selects record `n` (0-based), or says why it cannot.
    pub fn go_to_record(&mut self, n: usize) {
        let count = self.frame_count();
        let indexing = self.file().is_some_and(|f| f.indexing);
        if n < count {
            self.message = format!("record {n}");
            self.select_frame(n);
        } else if indexing {
            self.set_pending(n);
            self.message = format!("record {n} is not indexed yet; it will be selected when found");
        } else {
            self.message = format!(
                "no record {n}: the file has {count} records (0..{})",
                count.saturating_sub(1)
            );
        }
    }

    /// Selects the frame whose region holds byte `offset`, puts the cursor there and says what it is.
    pub fn go_to_offset(&mut self, offset: u64) {
        let Some(file) = self.file() else {
            return;
        };
        let data = file.data();
        let len = data.len() as u64;
        if offset >= len {
            self.message = format!("offset {offset} is past the end of the file ({len} bytes)");
            return;
        }
        let Some(frame) = file.index().frame_containing(data, offset) else {
            self.message = if file.indexing {
                format!(
                    "offset {offset} is not indexed yet ({} of {len} bytes scanned)",
                    file.index().scanned()
                )
            } else {
                format!("offset {offset} is in no frame")
            };
            return;
        };
        let is_last = file.input.is_last(frame.index);
        let problem = damage::describe(&frame, data, is_last);
        self.select_frame(frame.index);
        self.set_cursor(offset);
        let what = self
            .token_under_cursor()
            .map(|t| hexview::explain(data_of(self), t))
            .unwrap_or_default();
        self.message = if problem.is_empty() {
            format!(
                "offset {offset} is in record {} (frame at {}): {what}",
                frame.index, frame.offset
            )
        } else {
            format!(
                "offset {offset} is in damaged record {} (frame at {}): {problem}",
                frame.index, frame.offset
            )
        };
    }

    /// Selects the next (or previous) frame that is not intact.
    pub fn next_damaged(&mut self, forward: bool) {
        let Some(file) = self.file() else {
            return;
        };
        let at = file.selected;
        let data = file.data();
        let index = file.index();
        let damaged = |i: &usize| index.get(data, *i).is_some_and(|f| !f.status.is_intact());
        let found = if forward {
            (at.saturating_add(1)..index.len()).find(damaged)
        } else {
            (0..at).rev().find(damaged)
        };
        match found {
            Some(i) => self.select_frame(i),
            None => {
                let more = if forward && file.indexing {
                    " (indexing continues)"
                } else {
                    ""
                };
                let total = index.damaged_count();
                let dir = if forward { "after" } else { "before" };
                self.message =
                    format!("no damaged frame {dir} record {at}{more}; {total} damaged in all");
            }
        }
    }

    /// Moves to the next (or previous) occurrence of the search text in a feature name or a string
    /// or bytes value, wrapping around the file.
    pub fn search_step(&mut self, forward: bool) {
        let Some(needle) = self.search.clone().filter(|s| !s.is_empty()) else {
            self.message = "no search yet: press / to search".into();
            return;
        };
        let Some(file) = self.file() else {
            return;
        };
        let data = file.data();
        let needle_bytes = needle.as_bytes();
        let start = self.view.cursor;
        let mut tried = 0usize;
        let mut from = start;
        let hit = loop {
            let Some(hit) = find(data, needle_bytes, from, start, forward) else {
                break None;
            };
            tried += 1;
            if self.is_text_hit(hit) || tried > 10_000 {
                break Some(hit).filter(|h| self.is_text_hit(*h));
            }
            from = hit;
        };
        match hit {
            Some(hit) => {
                let Some(frame) = self
                    .file()
                    .and_then(|f| f.index().frame_containing(f.data(), hit))
                else {
                    self.message =
                        format!("{needle:?} found at offset {hit}, which is not indexed yet");
                    return;
                };
                self.select_frame(frame.index);
                self.set_cursor(hit);
                let label = self
                    .view
                    .tree
                    .nodes
                    .get(self.view.node)
                    .map(|n| n.label.clone())
                    .unwrap_or_default();
                self.message = format!(
                    "{needle:?} at offset {hit}, record {} ({label})",
                    frame.index
                );
            }
            None => self.message = format!("{needle:?} not found in any feature name or value"),
        }
    }

    /// Whether a search hit at `offset` lies in string or bytes data (names and values).
    fn is_text_hit(&self, offset: u64) -> bool {
        let Some(file) = self.file() else {
            return false;
        };
        let data = file.data();
        let Some(frame) = file.index().frame_containing(data, offset) else {
            return true;
        };
        let decoded = frame.payload(data).map(|p| file.input.decoder.decode(p));
        let tokens = crate::annotate::frame_tokens(data, &frame, decoded.as_ref());
        tokens
            .iter()
            .find(|t| t.start <= offset && offset < t.end)
            .is_some_and(|t| t.role == crate::annotate::Role::Data)
    }

    fn set_pending(&mut self, n: usize) {
        self.pending_record = Some(n);
    }
}

fn data_of(app: &App) -> &[u8] {
    app.file().map_or(&[], |f| f.data())
}

/// The next occurrence of `needle` strictly after `from` (or before, backwards), wrapping around
/// the file once and stopping when the search comes back to `origin`.
fn find(data: &[u8], needle: &[u8], from: u64, origin: u64, forward: bool) -> Option<u64> {
    if needle.is_empty() || needle.len() > data.len() {
        return None;
    }
    let last_start = data.len() - needle.len();
    let from = usize::try_from(from).ok()?.min(data.len());
    let origin = usize::try_from(origin).ok()?.min(data.len());
    let matches = |i: &usize| {
        i.checked_add(needle.len())
            .and_then(|end| data.get(*i..end))
            == Some(needle)
    };
    let hit = if forward {
        let wrapped_past = from < origin;
        let first = ((from + 1)..=last_start).find(matches);
        match first {
            Some(h) if !(wrapped_past && h > origin) => Some(h),
            Some(_) => None,
            None if wrapped_past => None,
            None => (0..=origin.min(last_start)).find(matches),
        }
    } else {
        let wrapped_past = from > origin;
        let first = (0..from.min(last_start + 1)).rev().find(matches);
        match first {
            Some(h) if !(wrapped_past && h < origin) => Some(h),
            Some(_) => None,
            None if wrapped_past => None,
            None => (origin..=last_start).rev().find(matches),
        }
    };
    hit.map(|h| h as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_in_decimal_and_hex() {
        assert_eq!(parse_number("5630"), Some(5630));
        assert_eq!(parse_number(" 0x10 "), Some(16));
        assert_eq!(parse_number("1_000"), Some(1000));
        assert_eq!(parse_number("ten"), None);
    }

    #[test]
    fn find_wraps_once() {
        let data = b"ab..ab..ab";
        assert_eq!(find(data, b"ab", 0, 0, true), Some(4));
        assert_eq!(find(data, b"ab", 8, 8, true), Some(0));
        assert_eq!(find(data, b"ab", 4, 4, false), Some(0));
        assert_eq!(find(data, b"ab", 0, 0, false), Some(8));
        assert_eq!(find(data, b"zz", 0, 0, true), None);
    }
}
