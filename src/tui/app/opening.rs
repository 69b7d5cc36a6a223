//! Files opened as they are needed, a bounded number at a time.
//!
//! Each open input holds a descriptor and a memory map guarded against SIGBUS, and both are
//! limited (a few thousand maps, often 1024 descriptors): an inspector over ten thousand shards
//! must not open them all. The first [`MAX_OPEN`] files are opened at start, as any smaller set
//! is; the others when they are first shown (or their frames are needed: a damaged frame to go
//! to, a split-wide record number to count to). When more than [`MAX_OPEN`] are open, the one
//! shown least recently is closed: its frame index stays, with the file's length and time, and
//! is used again when it is reopened unchanged.

use std::io::Read;
use std::path::Path;

use super::{App, FileView};
use crate::hint::UserMessage;
use tfr_core::frame::{FrameIndex, HEADER_LEN};
use tfr_core::input::{Input, OpenOptions};
use tfr_core::source::Stamp;

/// Files open at once in the inspector.
pub const MAX_OPEN: usize = 64;

impl App {
    /// Opens file `file` unless it is open, closing the file shown least recently when too many
    /// are; false when it cannot be opened (the reason is then in the status line and among the
    /// inputs not opened).
    pub(super) fn ensure_open(&mut self, file: usize) -> bool {
        self.clock += 1;
        let clock = self.clock;
        let Some(view) = self.files.get_mut(file) else {
            return false;
        };
        view.used = clock;
        if view.open {
            return true;
        }
        let path = view.input.source.path().to_path_buf();
        let mut input = match super::open_input(&path, &self.open, self.index_cache.as_ref()) {
            Ok(input) => input,
            Err(e) => {
                let message = e.user_message();
                self.message = format!("cannot open: {message}");
                if !self.open_errors.contains(&message) {
                    self.open_errors.push(message);
                }
                return false;
            }
        };
        // Its frames as indexed before it was closed, when it is the same file still.
        let kept = std::mem::replace(&mut view.input, Input::emptied(path, &self.open));
        let same = view.closed_as.is_some() && input.source.stamp() == view.closed_as;
        if same && kept.index.scanned() >= input.index.scanned() {
            input.index = kept.index;
        }
        view.input = input;
        view.open = true;
        view.closed_as = None;
        view.generation += 1;
        view.indexing = !view.input.index.is_complete();
        if view.indexing {
            self.index_jobs.push(file);
        }
        view.selected = view.selected.min(view.input.index.len().saturating_sub(1));
        self.close_least_used(file);
        true
    }

    /// Starts closed file `file`'s index again, as a file not opened yet ([`deferred`]).
    pub(super) fn defer_again(&mut self, file: usize) {
        let Some(view) = self.files.get_mut(file) else {
            return;
        };
        let (input, stamp) = deferred(view.input.source.path(), &self.open);
        view.input = input;
        view.closed_as = stamp;
        view.generation += 1;
        view.indexing = stamp.is_some();
        if view.indexing {
            self.index_jobs.push(file);
        }
    }

    /// Closes open files, the least recently shown first, until at most [`MAX_OPEN`] are open;
    /// never `keep` nor the current file.
    fn close_least_used(&mut self, keep: usize) {
        while self.files.iter().filter(|f| f.open).count() > MAX_OPEN {
            let current = self.current;
            let Some((oldest, _)) = self
                .files
                .iter()
                .enumerate()
                // A pipe cannot be read again: it stays open.
                .filter(|(i, f)| {
                    f.open && *i != keep && *i != current && f.input.source.stamp().is_some()
                })
                .min_by_key(|(_, f)| f.used)
            else {
                return;
            };
            if let Some(view) = self.files.get_mut(oldest) {
                close(view, &self.open);
            }
            self.large_rows.retain(|&(f, _), _| f != oldest);
        }
    }
}

/// A file not opened yet: no bytes, and, for a plain regular file, an empty index of its length
/// that the background indexer fills as it does the open files' (it reads the file itself, one
/// file at a time), so that damage and record counts are known for every file. The stamp is
/// that file's, to keep the index when the file is opened unchanged.
pub(super) fn deferred(path: &Path, options: &OpenOptions) -> (Input, Option<Stamp>) {
    let mut input = Input::emptied(path.to_path_buf(), options);
    let Ok((file, meta)) = tfr_core::sidefile::open_regular(path) else {
        return (input, None);
    };
    let mut head = Vec::new();
    if file.take(HEADER_LEN).read_to_end(&mut head).is_err() {
        return (input, None);
    }
    // A compressed file is indexed in its decompressed stream, once opened.
    if meta.len() == 0 || tfr_core::source::choose(&head, options.read.mode).is_some() {
        return (input, None);
    }
    input.index = FrameIndex::new(meta.len());
    let stamp = Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
    };
    (input, Some(stamp))
}

/// Lets go of `view`'s bytes (its map and descriptor), keeping its frame index and what tells
/// whether the file is the same when it is opened again.
fn close(view: &mut FileView, options: &tfr_core::input::OpenOptions) {
    let path = view.input.source.path().to_path_buf();
    view.closed_as = view.input.source.stamp();
    let open = std::mem::replace(&mut view.input, Input::emptied(path, options));
    view.input.index = open.index;
    view.open = false;
    // Reports of an indexer still scanning it are dropped; it is indexed on when reopened.
    view.generation += 1;
    view.indexing = false;
}
