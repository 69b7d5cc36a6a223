//! Jumps: to a record number, to a byte offset, to the next damaged frame (search matches are
//! `searching.rs`'s).
//!
//! These are the moves a user makes from outside information ("record 56", TensorFlow's
//! "corrupted record at 5630", a feature name), so each one also says in the status line what it
//! found there.

use super::{App, Prompt};
use crate::tui::hexview;
use crate::tui::keymap::PromptKind;
use tfr_core::bytes::ByteSource;
use tfr_core::damage;
use tfr_core::record_number::RecordNumber;
use tfr_core::span::FileOffset;
use tfr_core::words::{parse_number, plural};

impl App {
    pub(super) fn submit(&mut self, prompt: Prompt) {
        match prompt.kind {
            PromptKind::Record => match parse_number(&prompt.text) {
                Ok(n) => self.go_to_record(usize::try_from(n).unwrap_or(usize::MAX)),
                Err(_) if prompt.text.trim().starts_with('-') => {
                    // The number after the sign is read as any other (`-1_000`, `-0x10`).
                    let back = prompt.text.trim().strip_prefix('-').map(parse_number);
                    match back {
                        Some(Ok(back)) if back > 0 => {
                            self.go_to_record_from_end(usize::try_from(back).unwrap_or(usize::MAX))
                        }
                        _ => {
                            self.message =
                                format!("not a record number (-1 is the last): {:?}", prompt.text)
                        }
                    }
                }
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
                self.start_search(prompt.text);
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

    /// Selects the record `back` from the end (`-1` is the last), as `show -n -1` counts; or says
    /// why it cannot (the end is not known while the file is indexed).
    pub fn go_to_record_from_end(&mut self, back: usize) {
        let count = self.frame_count();
        if self.file().is_some_and(|f| f.indexing) {
            self.message = format!(
                "record -{back} counts from the end, which is not known yet: {} indexed so far",
                plural(count, "record")
            );
            return;
        }
        match RecordNumber::FromEnd(back).resolve(count) {
            Some(n) => self.go_to_record(n),
            None => {
                let range = match count {
                    0 => String::new(),
                    _ => format!(" (-{count}..-1)"),
                };
                self.message = format!(
                    "no record -{back}: the file has {}{range}",
                    plural(count, "record")
                )
            }
        }
    }

    /// Selects the frame whose region holds byte `offset`, puts the cursor there and says what it is.
    pub fn go_to_offset(&mut self, offset: u64) {
        let Some(file) = self.file() else {
            return;
        };
        let data = file.data();
        let len = data.len();
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

    fn set_pending(&mut self, n: usize) {
        self.pending_record = Some(n);
    }
}

fn data_of(app: &App) -> &dyn ByteSource {
    app.file().map_or(&[], |f| f.data())
}
