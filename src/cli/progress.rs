//! A progress bar on standard error for long runs of `list`, `show`, `verify` and `stats`.
//!
//! It appears only when standard error is a terminal (as the settled environment says), and only
//! once the work has run for a moment (quick runs draw nothing). `list` and `show` draw it only when their own output goes elsewhere
//! (a file or a pipe): on a terminal, the scrolling rows are progress enough and a bar would be
//! drawn between them. It is cleared before anything else is printed to the terminal.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before the bar appears.
const DELAY: Duration = Duration::from_millis(400);

/// A byte-counting progress bar, drawn on stderr once the work has run for `DELAY`.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// A bar for `verb` over `total` bytes; drawn only when `on` (see [`super::env::Env::progress`]).
    pub fn bytes(verb: &str, total: u64, on: bool) -> Progress {
        Progress::drawn_if(
            on,
            verb,
            total,
            "{wide_bar} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
    }

    /// A bar for `verb` over `total` steps (chunks of records).
    pub fn steps(verb: &str, total: u64, on: bool) -> Progress {
        Progress::drawn_if(on, verb, total, "{wide_bar} {percent}% eta {eta}")
    }

    /// A bar that counts and draws itself (once due) when `on`, and does nothing otherwise.
    fn drawn_if(on: bool, verb: &str, total: u64, fields: &str) -> Progress {
        let bar = on.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            let template = format!("{verb} {fields}");
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// Sets the total (the steps of work, once known).
    pub fn set_total(&self, total: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(total);
        }
    }

    /// Adds `bytes` to the total (a file opened in the meantime).
    pub fn grow(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc_length(bytes);
        }
    }

    /// Counts `bytes` more done.
    pub fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            self.show_when_due(bar);
            bar.inc(bytes);
        }
    }

    /// Sets how many bytes are done.
    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            self.show_when_due(bar);
            bar.set_position(done);
        }
    }

    fn show_when_due(&self, bar: &ProgressBar) {
        if !self.shown.load(Ordering::Relaxed) && self.start.elapsed() >= DELAY {
            self.shown.store(true, Ordering::Relaxed);
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Clears the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wanted_bar_counts_and_one_not_wanted_has_nothing_to_draw() {
        let bar = |on| Progress::drawn_if(on, "list", 100, "{wide_bar}");
        let progress = bar(true);
        progress.grow(10);
        progress.advance(5);
        progress.advance(5);
        let counted = progress.bar.as_ref().unwrap();
        assert_eq!((counted.position(), counted.length()), (10, Some(110)));
        progress.set(50);
        progress.set_total(60);
        assert_eq!((counted.position(), counted.length()), (50, Some(60)));
        progress.finish();
        assert!(counted.is_finished());

        let progress = bar(false);
        progress.grow(10);
        progress.advance(5);
        progress.set(50);
        progress.finish();
        assert!(progress.bar.is_none());
    }
}
