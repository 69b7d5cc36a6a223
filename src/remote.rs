//! Inputs named by URL, for the core: `tfr-remote`'s [`Remotes`] installed by `main`, with the
//! command line's own way of showing whole reads (notes on stderr, a progress bar on a terminal).

use crate::cli::progress::Progress;

pub use tfr_remote::inputs::{ANNOUNCE_ABOVE, Remotes, announcement};
use tfr_remote::inputs::{FetchBar, Watch};

/// Notes on stderr, and a progress bar for each fetch when stderr is a terminal.
pub struct Shown {
    pub progress: bool,
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
        eprintln!("{text}");
    }

    fn fetching(&self, what: &str, total: u64) -> Box<dyn FetchBar + '_> {
        Box::new(Bar(Progress::bytes(what, total, self.progress)))
    }
}
