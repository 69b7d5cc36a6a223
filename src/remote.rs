//! Inputs named by URL, for the core: `tfr-remote`'s [`Remotes`] installed by `main`, with the
//! command line's own way of showing whole reads (notes through [`Notes`], a progress bar on a
//! terminal the inspector has not taken).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::messages::Notes;
use crate::cli::progress::Progress;

pub use tfr_remote::inputs::{ANNOUNCE_ABOVE, Remotes, announcement};
use tfr_remote::inputs::{FetchBar, Watch};

/// Set while the inspector draws on the terminal: a fetch then draws no bar on standard error,
/// which would land on the inspector's screen.
static SCREEN_TAKEN: AtomicBool = AtomicBool::new(false);

/// Says whether the inspector has the terminal (from entering its screen until leaving it).
pub fn screen_taken(taken: bool) {
    SCREEN_TAKEN.store(taken, Ordering::SeqCst);
}

/// Notes through [`Notes`], and a progress bar for each fetch when stderr is a terminal and the
/// inspector has not taken it.
pub struct Shown {
    /// Whether fetches draw a progress bar on stderr (a terminal).
    progress: bool,
    /// Where notes go (standard error).
    notes: Notes,
}

impl Shown {
    /// Notes on standard error; bars when `progress` (stderr is a terminal).
    pub fn new(progress: bool) -> Shown {
        Shown {
            progress,
            notes: Notes::stderr(),
        }
    }

    /// With notes said to `notes` instead of standard error.
    pub fn noting(self, notes: Notes) -> Shown {
        Shown { notes, ..self }
    }
}

struct Bar(Progress);

impl FetchBar for Bar {
    fn set(&self, done: u64) {
        self.0.set(done);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish();
    }
}

impl Watch for Shown {
    fn note(&self, text: &str) {
        self.notes.note(&text);
    }

    fn fetching(&self, what: &str, total: u64) -> Box<dyn FetchBar + '_> {
        let drawn = self.progress && !SCREEN_TAKEN.load(Ordering::SeqCst);
        Box::new(Bar(Progress::bytes(what, total, drawn)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_before_a_large_read_is_said_through_the_notes() {
        let buffer = crate::cli::messages::tests::Shared::default();
        let shown = Shown::new(false).noting(Notes::to(buffer.clone()));
        let note = announcement("gs://b/big", 1, 12 << 30).unwrap();
        shown.note(&note);
        assert_eq!(
            buffer.text(),
            "gs://b/big: note: reading 12884901888 bytes (12.0 GiB) from 1 object (--max-bytes \
             stops a read before a limit)\n"
        );
    }
}
