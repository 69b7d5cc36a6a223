//! Finding bytes in a file without freezing the screen: a search scans in slices, wrapping around
//! the file once, and can be continued between two key presses.
//!
//! This is only the scanning; deciding whether a match is in a name or a value, and showing it,
//! is the inspector's (`App::search_step`).

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
pub enum Slice {
    Hit(u64),
    /// Nothing yet; more of the file to scan.
    More,
    /// The whole file was scanned without a match.
    Done,
}

impl SearchJob {
    /// A search for `needle` in `len` bytes from the cursor at `origin`: forward it starts after
    /// the cursor, backward at it.
    pub fn new(needle: Vec<u8>, forward: bool, origin: u64, len: u64) -> SearchJob {
        SearchJob {
            needle,
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
        }
    }

    pub fn needle(&self) -> &[u8] {
        &self.needle
    }

    pub fn forward(&self) -> bool {
        self.forward
    }

    /// How much of the file was looked at, in percent (99 until the scan ends).
    pub fn percent(&self) -> u64 {
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
    pub fn slice(
        &mut self,
        data: &[u8],
        budget: u64,
        mut accept: impl FnMut(u64) -> bool,
    ) -> Slice {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        SearchJob::new(needle.to_vec(), forward, origin, len as u64)
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
