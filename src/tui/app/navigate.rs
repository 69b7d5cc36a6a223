//! Jumps: to a record number, to a byte offset, to the next damaged frame, to a search match.
//!
//! These are the moves a user makes from outside information ("record 56", TensorFlow's
//! "corrupted record at 5630", a feature name), so each one also says in the status line what it
//! found there.

use std::ops::Range;

use super::{App, Prompt};
use crate::damage;
use crate::span::FileOffset;
use crate::tui::decoding::INLINE_BYTES;
use crate::tui::hexview;
use crate::tui::keymap::PromptKind;
use crate::tui::search::{SEARCH_SLICE, SearchJob, Slice};
use crate::words::{parse_number, plural};

impl App {
    pub(super) fn submit(&mut self, prompt: Prompt) {
        match prompt.kind {
            PromptKind::Record => match parse_number(&prompt.text) {
                Ok(n) => self.go_to_record(usize::try_from(n).unwrap_or(usize::MAX)),
                Err(_) if self.go_to_dataset_record(&prompt.text) => {}
                Err(_) => {
                    self.message = format!(
                        "not a record number (N, or a split's: train 1234): {:?}",
                        prompt.text
                    )
                }
            },
            PromptKind::Offset => match parse_number(&prompt.text) {
                Ok(n) => self.go_to_offset(n),
                Err(_) => self.message = format!("not a byte offset: {:?}", prompt.text),
            },
            PromptKind::Answer => self.answer(&prompt.text),
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
                "no record {n}: the file has {} (0..{})",
                plural(count, "record"),
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
        let Some(frame) = file.index().frame_containing(data, FileOffset(offset)) else {
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
            .map(|t| hexview::explain(data_of(self), &t, &self.meaning(&t)))
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
        let more = if forward && file.indexing {
            " (indexing continues)"
        } else {
            ""
        };
        let total = index.damaged_count();
        match found {
            Some(i) => self.select_frame(i),
            None if self.go_to_damaged_in_other_file(forward) => {}
            None => {
                let dir = if forward { "after" } else { "before" };
                self.message =
                    format!("no damaged frame {dir} record {at}{more}; {total} damaged in all");
            }
        }
    }

    /// Starts looking for the next (or previous) occurrence of the search text in a feature name
    /// or a string or bytes value, wrapping around the file. The scan runs in slices of
    /// [`SEARCH_SLICE`] bytes so that a key press never freezes the screen; the run loop continues
    /// it ([`App::search_continue`]) while no key is waiting, and the status line says how far it is.
    pub fn search_step(&mut self, forward: bool) {
        let Some(needle) = self.search.clone().filter(|s| !s.is_empty()) else {
            self.message = "no search yet: press / to search".into();
            return;
        };
        let Some(file) = self.file() else {
            return;
        };
        let len = file.data().len() as u64;
        let origin = self.view.cursor;
        self.search_job = Some(SearchJob::new(needle.into_bytes(), forward, origin, len));
        self.search_continue();
    }

    /// Whether a search is still scanning.
    pub fn searching(&self) -> bool {
        self.search_job.is_some()
    }

    /// Scans the next slice of the running search.
    pub fn search_continue(&mut self) {
        let Some(mut job) = self.search_job.take() else {
            return;
        };
        let Some(file) = self.file() else {
            return;
        };
        let mut checker = TextHits::default();
        let outcome = job.slice(file.data(), SEARCH_SLICE, |hit| checker.is_text(self, hit));
        let needle = String::from_utf8_lossy(job.needle()).into_owned();
        match outcome {
            Slice::Hit(hit) => self.show_hit(&needle, hit),
            Slice::More => {
                let direction = if job.forward() { "forward" } else { "backward" };
                self.message = format!(
                    "searching {needle:?} {direction}… {}% (any key works meanwhile; Esc stops)",
                    job.percent()
                );
                self.search_job = Some(job);
            }
            Slice::Done => {
                self.message = format!(
                    "{needle:?} not found in any feature name or value (whole file searched)"
                );
            }
        }
    }

    /// Selects the match at `hit` and names the feature it is in: `image/class/text[0]`.
    fn show_hit(&mut self, needle: &str, hit: u64) {
        let Some(frame) = self
            .file()
            .and_then(|f| f.index().frame_containing(f.data(), FileOffset(hit)))
        else {
            self.message = format!("{needle:?} found at offset {hit}, which is not indexed yet");
            return;
        };
        self.select_frame(frame.index);
        self.set_cursor(hit);
        let tree = &self.view.tree;
        let node = self.view.node;
        let mut chain: Vec<&str> = std::iter::once(node)
            .chain(tree.ancestors(node))
            .filter_map(|n| tree.nodes.get(n))
            .filter(|n| n.depth >= 2)
            .map(|n| n.label.as_str())
            .collect();
        chain.reverse();
        let mut name = String::new();
        for label in chain {
            if !name.is_empty() && !label.starts_with('[') {
                name.push(' ');
            }
            name.push_str(label);
        }
        let what = if name.is_empty() {
            String::new()
        } else {
            format!(", {name}")
        };
        self.message = format!("{needle:?} at offset {hit}: record {}{what}", frame.index);
    }

    fn set_pending(&mut self, n: usize) {
        self.pending_record = Some(n);
    }
}

fn data_of(app: &App) -> &[u8] {
    app.file().map_or(&[], |f| f.data())
}

/// Decides whether a match lies in string or bytes data (names and values), decoding each frame
/// once per slice however many matches it holds.
#[derive(Default)]
struct TextHits {
    frame: Option<(usize, crate::payload::Decoded)>,
}

impl TextHits {
    fn is_text(&mut self, app: &App, offset: u64) -> bool {
        let Some(file) = app.file() else {
            return false;
        };
        let data = file.data();
        let Some(frame) = file.index().frame_containing(data, FileOffset(offset)) else {
            // Not indexed yet: say where it is rather than skip it.
            return true;
        };
        let Some((payload, range)) = frame
            .payload(data)
            .zip(frame.payload_range().map(Range::from))
        else {
            return false;
        };
        if payload.len() > INLINE_BYTES {
            // Too large to decode between two keys: the match is shown for the reader to judge.
            return range.contains(&offset);
        }
        let decoder = file.input.decoder();
        let cached = self.frame.as_ref().is_some_and(|(i, _)| *i == frame.index);
        if !cached {
            self.frame = Some((frame.index, decoder.decode(payload)));
        }
        self.frame.as_ref().is_some_and(|(_, decoded)| {
            crate::annotate::PayloadTokens::new(decoded, payload, decoder.table(), range.start)
                .token_at(offset)
                .is_some_and(|t| t.role == crate::annotate::Role::Data)
        })
    }
}
