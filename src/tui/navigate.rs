//! Jumps: to a record number, to a byte offset, to the next damaged frame, to a search match.
//!
//! These are the moves a user makes from outside information ("record 56", TensorFlow's
//! "corrupted record at 5630", a feature name), so each one also says in the status line what it
//! found there.

use std::ops::Range;

use super::app::{App, Prompt};
use super::hexview;
use super::keymap::PromptKind;
use crate::damage;
use crate::span::FileOffset;

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
        self.search_job = Some(SearchJob {
            needle: needle.into_bytes(),
            forward,
            origin,
            next: if forward {
                origin.saturating_add(1)
            } else {
                origin
            },
            wrapped: false,
            covered: 0,
            len,
        });
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
        let needle = String::from_utf8_lossy(&job.needle).into_owned();
        match outcome {
            Slice::Hit(hit) => self.show_hit(&needle, hit),
            Slice::More => {
                let direction = if job.forward { "forward" } else { "backward" };
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

/// Bytes of the file one search slice looks at (it also stops early at a match).
pub const SEARCH_SLICE: u64 = 8 << 20;

/// A search in progress: what it looks for and how far it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchJob {
    needle: Vec<u8>,
    forward: bool,
    /// The cursor when the search started; the scan ends when it comes back here.
    origin: u64,
    /// Forward: the first start position not yet looked at; backward: one past the last.
    next: u64,
    /// Whether the scan passed the end (forward) or the start (backward) of the file.
    wrapped: bool,
    /// Bytes looked at so far, for the progress report.
    covered: u64,
    len: u64,
}

/// What one slice of a search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slice {
    Hit(u64),
    /// Nothing yet; more of the file to scan.
    More,
    /// The whole file was scanned without a match.
    Done,
}

impl SearchJob {
    fn percent(&self) -> u64 {
        (self.covered.saturating_mul(100) / self.len.max(1)).min(99)
    }

    /// Start positions the current pass may still look at: forward `next..end`, backward
    /// `start..next`.
    fn pass(&self, data_len: u64) -> std::ops::Range<u64> {
        let last_start = data_len.saturating_sub(self.needle.len() as u64);
        match (self.forward, self.wrapped) {
            (true, false) => self.next..last_start + 1,
            // The second pass comes back to the origin itself (the only match may be there).
            (true, true) => self.next..(self.origin.min(last_start) + 1).max(self.next),
            (false, false) => 0..self.next.min(last_start + 1),
            (false, true) => self.origin.min(self.next)..self.next,
        }
    }

    /// Looks at up to `budget` start positions, returning the first match `accept` takes.
    fn slice(&mut self, data: &[u8], budget: u64, mut accept: impl FnMut(u64) -> bool) -> Slice {
        let data_len = data.len() as u64;
        if self.needle.is_empty() || self.needle.len() as u64 > data_len {
            return Slice::Done;
        }
        let mut left = budget;
        loop {
            let pass = self.pass(data_len);
            if pass.is_empty() {
                if self.wrapped {
                    return Slice::Done;
                }
                self.wrapped = true;
                self.next = if self.forward { 0 } else { data_len };
                continue;
            }
            if left == 0 {
                return Slice::More;
            }
            let window = if self.forward {
                pass.start..pass.end.min(pass.start.saturating_add(left))
            } else {
                pass.end.saturating_sub(left).max(pass.start)..pass.end
            };
            let found = find_in(data, &self.needle, window.clone(), self.forward);
            let looked = match found {
                Some(hit) if self.forward => hit + 1 - window.start,
                Some(hit) => window.end - hit,
                None => window.end - window.start,
            };
            left = left.saturating_sub(looked);
            self.covered = self.covered.saturating_add(looked);
            match found {
                Some(hit) => {
                    self.next = if self.forward { hit + 1 } else { hit };
                    if accept(hit) {
                        return Slice::Hit(hit);
                    }
                }
                None => {
                    self.next = if self.forward {
                        window.end
                    } else {
                        window.start
                    }
                }
            }
        }
    }
}

/// The first (forward) or last (backward) match of `needle` starting in `starts`.
fn find_in(data: &[u8], needle: &[u8], starts: std::ops::Range<u64>, forward: bool) -> Option<u64> {
    let first = *needle.first()?;
    let lo = usize::try_from(starts.start).ok()?;
    let hi = usize::try_from(starts.end).ok()?;
    let matches = |i: &usize| {
        data.get(*i) == Some(&first)
            && i.checked_add(needle.len())
                .and_then(|end| data.get(*i..end))
                == Some(needle)
    };
    let hit = if forward {
        (lo..hi).find(matches)
    } else {
        (lo..hi).rev().find(matches)
    };
    hit.map(|h| h as u64)
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
        if payload.len() > super::decoding::INLINE_BYTES {
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

    fn run(job: &mut SearchJob, data: &[u8], budget: u64) -> Vec<Slice> {
        let mut out = Vec::new();
        loop {
            let r = job.slice(data, budget, |_| true);
            out.push(r);
            if r != Slice::More {
                return out;
            }
        }
    }

    fn job(needle: &[u8], origin: u64, forward: bool, len: usize) -> SearchJob {
        SearchJob {
            needle: needle.to_vec(),
            forward,
            origin,
            next: if forward { origin + 1 } else { origin },
            wrapped: false,
            covered: 0,
            len: len as u64,
        }
    }

    #[test]
    fn search_wraps_once_in_either_direction() {
        let data = b"ab..ab..ab";
        let first = |needle: &[u8], origin, forward| {
            job(needle, origin, forward, data.len()).slice(data, u64::MAX, |_| true)
        };
        assert_eq!(first(b"ab", 0, true), Slice::Hit(4));
        assert_eq!(first(b"ab", 8, true), Slice::Hit(0));
        assert_eq!(first(b"ab", 4, false), Slice::Hit(0));
        assert_eq!(first(b"ab", 0, false), Slice::Hit(8));
        assert_eq!(first(b"zz", 0, true), Slice::Done);
        // The only match is found again from itself.
        assert_eq!(first(b"..ab..ab", 2, true), Slice::Hit(2));
    }

    #[test]
    fn a_small_budget_splits_the_scan_and_still_finds_every_match() {
        let mut data = vec![b'.'; 1000];
        data[700..702].copy_from_slice(b"ab");
        let mut j = job(b"ab", 10, true, data.len());
        let slices = run(&mut j, &data, 100);
        assert_eq!(slices.last(), Some(&Slice::Hit(700)));
        assert_eq!(slices.len(), 7, "{slices:?}");
        // Rejected matches (not in text) are skipped, and the scan ends where it began.
        let mut j = job(b"ab", 10, false, data.len());
        let mut seen = Vec::new();
        loop {
            match j.slice(&data, 64, |h| {
                seen.push(h);
                false
            }) {
                Slice::More => continue,
                other => {
                    assert_eq!(other, Slice::Done);
                    break;
                }
            }
        }
        assert_eq!(seen, [700]);
        assert!(j.covered >= 990 && j.covered <= 1000, "{}", j.covered);
    }
}
