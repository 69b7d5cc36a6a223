//! A search of the inspector (`/`): the records of one file that hold the needle, found on a
//! worker thread (every core, in file order) so that the screen never waits, and the hits kept
//! as record numbers so that `n` and `N` step through them without scanning again.
//!
//! This is the search's state and its worker; which record to show next and what to say about
//! it is the inspector's (`app/searching.rs`). What counts as a hit is the core's
//! ([`tfr_core::search`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};

use tfr_core::bytes::ByteSource;
use tfr_core::frame::FrameIndex;
use tfr_core::payload::Decoder;
use tfr_core::search::{Finished, HIT_CAP, Needle, SearchProgress, search_frames};

/// Files up to this many bytes are searched at once on the UI thread: that takes milliseconds,
/// and the result is there with the key press that asked for it.
pub const SEARCH_INLINE_BYTES: u64 = 8 << 20;

/// Bytes the index is extended by between two looks at the cancel flag.
const INDEX_STEP: u64 = 64 << 20;

/// What the worker hands back.
enum Report {
    /// The hits of the next frames, and the frame number the search has covered up to.
    Wave(Vec<u64>, usize),
    /// The frame count of the file, once the worker's index is complete.
    Records(usize),
    Finished(Finished),
}

/// Where a search is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Running,
    /// Every record was looked at.
    Done,
    /// [`HIT_CAP`] records matched; the search stopped there.
    Capped,
}

/// One search of one file: the needle, the records that hold it so far, and the worker.
pub struct SearchRun {
    pub needle: String,
    /// The file searched and its generation (a reopened file is searched afresh).
    pub file: usize,
    pub generation: u64,
    /// Records holding a hit, in file order.
    pub hits: Vec<u64>,
    /// Records before this one have all been looked at.
    pub covered: usize,
    /// The file's record count, once known.
    pub records: Option<usize>,
    pub phase: Phase,
    shared: Arc<Shared>,
    reports: Option<Receiver<Report>>,
}

#[derive(Default)]
struct Shared {
    progress: SearchProgress,
    /// Records the worker knows of (its index may still be growing).
    known: AtomicU64,
}

/// What the search needs of the file, owned so that the worker can take it along.
pub struct Target {
    pub bytes: Arc<dyn ByteSource>,
    pub index: FrameIndex,
    pub decoder: Decoder,
    pub file: usize,
    pub generation: u64,
}

impl SearchRun {
    /// Searches `target` for `needle`: at once when the file is small (`inline` bytes or
    /// fewer), else on a worker thread whose findings [`SearchRun::poll`] takes.
    pub fn start(needle: &str, target: Target, inline: u64) -> SearchRun {
        let shared = Arc::new(Shared::default());
        let mut run = SearchRun {
            needle: needle.to_string(),
            file: target.file,
            generation: target.generation,
            hits: Vec::new(),
            covered: 0,
            records: None,
            phase: Phase::Running,
            shared: Arc::clone(&shared),
            reports: None,
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let needle = Needle::new(needle);
        let small = target.bytes.len() <= inline;
        let work = move || {
            let Target {
                bytes,
                mut index,
                decoder,
                ..
            } = target;
            let data = bytes.as_ref();
            let cancelled = || shared.progress.cancel.load(Ordering::Relaxed);
            shared.known.store(index.len() as u64, Ordering::Relaxed);
            while !index.is_complete() {
                if cancelled() {
                    return;
                }
                index.scan(data, INDEX_STEP);
                shared.known.store(index.len() as u64, Ordering::Relaxed);
            }
            let _ = tx.send(Report::Records(index.len()));
            let finished = search_frames(
                data,
                &index,
                0..index.len(),
                &decoder,
                &needle,
                &shared.progress,
                |hits, covered| {
                    // Nobody listens once the search was replaced or stopped.
                    let _ = tx.send(Report::Wave(hits, covered));
                },
            );
            let _ = tx.send(Report::Finished(finished));
        };
        run.reports = Some(rx);
        if small {
            work();
            run.poll();
        } else {
            // Its findings are taken on the next turn of the run loop, never here, so that a
            // search is "running" until the inspector has looked.
            std::thread::spawn(work);
        }
        run
    }

    /// Takes what the worker found since the last call; true when anything changed (always
    /// while it runs: the progress moved).
    pub fn poll(&mut self) -> bool {
        let mut changed = false;
        while let Some(reports) = &self.reports {
            match reports.try_recv() {
                Ok(report) => self.take(report),
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Disconnected) => self.stopped(),
            }
            changed = true;
        }
        changed
    }

    /// Waits until the worker has finished (tests and scripted runs).
    pub fn wait(&mut self) {
        while let Some(reports) = &self.reports {
            match reports.recv() {
                Ok(report) => self.take(report),
                Err(_) => self.stopped(),
            }
        }
    }

    fn take(&mut self, report: Report) {
        match report {
            Report::Wave(hits, covered) => {
                self.hits.extend(hits);
                self.covered = covered;
            }
            Report::Records(n) => self.records = Some(n),
            Report::Finished(finished) => {
                self.phase = match finished {
                    Finished::Capped => Phase::Capped,
                    Finished::Done | Finished::Cancelled => Phase::Done,
                };
                if finished == Finished::Done {
                    self.covered = self.records.unwrap_or(self.covered);
                }
                self.reports = None;
            }
        }
    }

    /// The worker ended without a last word: what it found stands.
    fn stopped(&mut self) {
        self.phase = Phase::Done;
        self.reports = None;
    }

    pub fn running(&self) -> bool {
        self.phase == Phase::Running
    }

    /// Tells the worker to stop; it does within one chunk of frames per core.
    pub fn cancel(&mut self) {
        self.shared.progress.cancel.store(true, Ordering::Relaxed);
        self.reports = None;
        self.phase = Phase::Done;
    }

    /// How far the search is, in percent of the records (99 until it ends).
    pub fn percent(&self) -> u64 {
        let examined = self.shared.progress.examined.load(Ordering::Relaxed);
        let known = self.shared.known.load(Ordering::Relaxed).max(1);
        tfr_core::words::percent_done(examined, known).min(99)
    }

    /// "2,341 records", "at least 1,000,000 records", "12 records so far".
    pub fn count_text(&self) -> String {
        let n = self.hits.len();
        let noun = tfr_core::words::noun_for(n, "record");
        match self.phase {
            Phase::Running => format!(
                "{} {noun} so far, {}% searched",
                grouped(n as u64),
                self.percent()
            ),
            Phase::Capped if n >= HIT_CAP => format!("at least {} {noun}", grouped(n as u64)),
            _ => format!("{} {noun}", grouped(n as u64)),
        }
    }

    /// The hit to show after record `from` (or at it, with `at_too`) going forward, or before it
    /// going backward, wrapping around the file: `Ok(position in hits)`, `Err(true)` while the
    /// worker may still find it, `Err(false)` when there is none.
    pub fn next(&self, from: usize, forward: bool, at_too: bool) -> Result<usize, bool> {
        let from = from as u64;
        if forward {
            let first = if at_too {
                self.hits.partition_point(|h| *h < from)
            } else {
                self.hits.partition_point(|h| *h <= from)
            };
            if first < self.hits.len() {
                return Ok(first);
            }
            if self.running() {
                return Err(true);
            }
            return if self.hits.is_empty() {
                Err(false)
            } else {
                Ok(0)
            };
        }
        // Backward: the hits before `from` are all known once the scan has passed it.
        let passed = self.covered as u64 > from || !self.running();
        if !passed {
            return Err(true);
        }
        let before = if at_too {
            self.hits.partition_point(|h| *h <= from)
        } else {
            self.hits.partition_point(|h| *h < from)
        };
        if before > 0 {
            return Ok(before - 1);
        }
        if self.running() {
            return Err(true);
        }
        self.hits.len().checked_sub(1).ok_or(false)
    }
}

impl Drop for SearchRun {
    fn drop(&mut self) {
        // A search replaced by another, or by a reopened file, stops its worker.
        self.shared.progress.cancel.store(true, Ordering::Relaxed);
    }
}

/// `2,341`: digits grouped by thousands.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(hits: &[u64], covered: usize, phase: Phase) -> SearchRun {
        SearchRun {
            needle: "x".into(),
            file: 0,
            generation: 0,
            hits: hits.to_vec(),
            covered,
            records: Some(100),
            phase,
            shared: Arc::default(),
            reports: None,
        }
    }

    #[test]
    fn steps_wrap_around_the_file_once_the_search_is_done() {
        let run = run_with(&[3, 10, 40], 100, Phase::Done);
        assert_eq!(run.next(0, true, true), Ok(0));
        assert_eq!(run.next(3, true, true), Ok(0));
        assert_eq!(run.next(3, true, false), Ok(1));
        assert_eq!(run.next(40, true, false), Ok(0), "wraps to the first");
        assert_eq!(run.next(10, false, false), Ok(0));
        assert_eq!(run.next(3, false, false), Ok(2), "wraps to the last");
        assert_eq!(
            run_with(&[], 100, Phase::Done).next(5, true, true),
            Err(false)
        );
    }

    #[test]
    fn steps_wait_for_the_worker_where_it_has_not_looked_yet() {
        let run = run_with(&[3], 20, Phase::Running);
        assert_eq!(run.next(0, true, false), Ok(0));
        assert_eq!(
            run.next(3, true, false),
            Err(true),
            "more may come after 20"
        );
        assert_eq!(run.next(10, false, false), Ok(0));
        assert_eq!(
            run.next(50, false, false),
            Err(true),
            "21..50 not looked at yet"
        );
    }

    #[test]
    fn counts_are_grouped_and_say_when_they_are_partial() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(2341), "2,341");
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(run_with(&[1], 0, Phase::Done).count_text(), "1 record");
        assert_eq!(
            run_with(&[1, 2], 0, Phase::Running).count_text(),
            "2 records so far, 0% searched"
        );
    }
}
