//! Files that change while the inspector shows them.
//!
//! A shard can be cut short by a writer that reopens it, rewritten in place, or still growing
//! while a job writes it. The run loop asks [`App::watch_files`] before every redraw (one fstat
//! per file): a file that shrank or was rewritten is reopened and indexed again at once, since
//! every verdict about its old bytes may now be wrong; a file that grew keeps its index (the
//! bytes it covers are unchanged) with a notice offering `R` to index the new frames, and the
//! verdict on its last frame is marked as not final meanwhile.

use super::{App, FileView};
use crate::hint::UserMessage;
use crate::tui::framelist::RowText;
use tfr_core::frame::Frame;
use tfr_core::input::Input;
use tfr_core::source::Change;

/// What the list and status line add to the last frame's verdict while the file has grown past
/// the index.
pub const NOT_FINAL: &str = "file grew since: R re-indexes";

impl App {
    /// Looks at every open file (one fstat each) and reacts to changes; true when the screen
    /// must be redrawn. Files reopened here are queued for background indexing
    /// ([`App::take_index_jobs`]).
    pub fn watch_files(&mut self) -> bool {
        let mut changed = false;
        for file in 0..self.files.len() {
            let Some(view) = self.files.get(file) else {
                continue;
            };
            let name = view.input.name();
            match view.input.source.change() {
                Change::Unchanged => {}
                Change::Grew { from, to } => {
                    if view.grew != Some((from, to)) {
                        if let Some(view) = self.files.get_mut(file) {
                            view.grew = Some((from, to));
                        }
                        self.rows.clear();
                        changed = true;
                    }
                }
                Change::Shrank { from, to } => {
                    let note = format!("{name} shrank from {from} to {to} bytes; re-indexed");
                    self.reopen(file, note);
                    changed = true;
                }
                Change::Rewritten => {
                    self.reopen(file, format!("{name} was rewritten; re-indexed"));
                    changed = true;
                }
            }
        }
        changed
    }

    /// `R`: reads the current file again from disk and indexes it anew.
    pub(super) fn reindex_current(&mut self) {
        let Some(view) = self.file() else {
            return;
        };
        let name = view.input.name();
        let note = match view.grew {
            Some((from, to)) => format!("{name} grew from {from} to {to} bytes; re-indexed"),
            None => format!("{name} re-indexed"),
        };
        self.reopen(self.current, note);
    }

    /// Files reopened since the last call, to be indexed in the background.
    pub fn take_index_jobs(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.index_jobs)
    }

    /// Replaces file `file`'s input by a fresh reading of it, keeping the selected record
    /// number where it still exists, and says `note` in the status line.
    pub fn reopen(&mut self, file: usize, note: String) {
        let Some(view) = self.files.get(file) else {
            return;
        };
        if !view.open {
            // Not shown, so nothing stale is on screen: its index starts again, in the background.
            self.defer_again(file);
            return;
        }
        let path = view.input.source.path().to_path_buf();
        let (input, note) = match super::open_input(&path, &self.open, self.index_cache.as_ref()) {
            Ok(input) => (input, note),
            Err(e) => {
                // Nothing readable is left: show no frames rather than stale ones.
                let empty = Input::emptied(path, &self.open);
                (
                    empty,
                    format!("cannot read the file again: {}", e.user_message()),
                )
            }
        };
        let Some(view) = self.files.get_mut(file) else {
            return;
        };
        let selected = view.selected;
        view.input = input;
        view.indexing = !view.input.index.is_complete();
        view.generation += 1;
        view.grew = None;
        // Rows described by a background decoding were read from the bytes now replaced.
        self.large_rows.retain(|&(f, _), _| f != file);
        view.selected = selected.min(view.input.index.len().saturating_sub(1));
        let indexing = view.indexing;
        let still_there = selected < view.input.index.len();
        if indexing {
            self.index_jobs.push(file);
        }
        if file == self.current {
            self.stop_search();
            self.rows.clear();
            self.select_frame(selected);
            if !still_there && indexing {
                self.pending_record = Some(selected);
            }
        }
        self.message = note;
    }

    /// The notice for a file that grew since it was indexed.
    pub(super) fn growth_notice(&self) -> Option<String> {
        let view = self.file()?;
        let (from, to) = view.grew?;
        Some(format!(
            "{} grew from {from} to {to} bytes since it was indexed: R indexes the new frames",
            view.input.name()
        ))
    }
}

/// `row` for the list, marked as not final when it is the damaged last frame of a file that has
/// grown since it was indexed (a truncated last record is usually one still being written).
pub fn mark_unfinal(view: &FileView, frame: &Frame, mut row: RowText) -> RowText {
    if is_unfinal(view, frame) {
        row.summary = format!("{NOT_FINAL}; {}", row.summary);
    }
    row
}

/// Whether `frame`'s verdict may change once the file's new bytes are indexed.
pub fn is_unfinal(view: &FileView, frame: &Frame) -> bool {
    view.grew.is_some() && !frame.status.is_intact() && view.input.is_last(frame.index)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::tui::keymap::Action;
    use tfr_core::input::OpenOptions;
    use tfr_core::payload::{Decoder, Reading};
    use tfr_core::schema::Schema;

    fn shard(records: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..records {
            tfr_core::frame::write_record(format!("record {i:04}").as_bytes(), &mut out).unwrap();
        }
        out
    }

    fn open(path: &Path) -> App {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let mut app = App::open(&[path.to_path_buf()], &OpenOptions::new(decoder)).unwrap();
        app.index_now();
        app
    }

    fn temp_shard(records: usize) -> (tempfile::TempDir, PathBuf, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shard.tfrecord");
        let bytes = shard(records);
        std::fs::write(&path, &bytes).unwrap();
        (dir, path, bytes)
    }

    #[test]
    fn a_file_that_shrank_is_read_again_keeping_the_record() {
        let (_dir, path, bytes) = temp_shard(100);
        let mut app = open(&path);
        app.select_frame(20);
        assert!(!app.watch_files());
        let frame = bytes.len() / 100;
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len((frame * 40) as u64).unwrap();

        assert!(app.watch_files());
        assert_eq!(
            app.message,
            format!(
                "{} shrank from {} to {} bytes; re-indexed",
                path.display(),
                bytes.len(),
                frame * 40
            )
        );
        assert_eq!(app.take_index_jobs(), Vec::<usize>::new());
        assert_eq!(app.frame_count(), 40);
        assert_eq!(app.selected(), 20);
        assert_eq!(app.files[0].generation, 1);
        assert_eq!(app.status(), crate::status::Status::Clean);
        assert!(!app.watch_files(), "the new reading is the baseline");
    }

    #[test]
    fn a_selection_past_the_new_end_moves_to_the_last_record() {
        let (_dir, path, bytes) = temp_shard(100);
        let mut app = open(&path);
        app.select_frame(90);
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        // Cut inside frame 10: frames 0..10 intact, then a truncated one.
        file.set_len((bytes.len() / 100 * 10 + 5) as u64).unwrap();
        app.watch_files();
        app.index_now();
        assert_eq!(app.frame_count(), 11);
        assert_eq!(app.selected(), 10);
        assert_eq!(app.status(), crate::status::Status::Damage);
    }

    #[test]
    fn growth_is_offered_to_r_and_the_last_verdict_is_not_final() {
        let (_dir, path, bytes) = temp_shard(10);
        // A writer mid-record: the last frame is cut.
        let cut = bytes.len() - 3;
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let mut app = open(&path);
        assert_eq!(app.frame_count(), 10);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(&bytes[cut..]).unwrap();
        file.write_all(&shard(5)).unwrap();

        assert!(app.watch_files());
        let notices = app.notices();
        assert!(
            notices
                .iter()
                .any(|n| n.contains("grew from") && n.contains("R indexes the new frames")),
            "{notices:?}"
        );
        app.select_frame(9);
        app.refresh();
        let row = app.rows.get(&9).unwrap();
        assert!(row.summary.starts_with(NOT_FINAL), "{}", row.summary);
        assert!(app.message.contains(NOT_FINAL), "{}", app.message);
        assert_eq!(app.frame_count(), 10, "the index is kept until R");

        app.update(Action::Reindex);
        app.index_now();
        assert_eq!(app.frame_count(), 15);
        assert_eq!(app.status(), crate::status::Status::Clean);
        assert!(app.message.contains("re-indexed"), "{}", app.message);
        assert!(app.notices().is_empty());
        assert_eq!(app.selected(), 9);
    }

    #[test]
    fn a_file_rewritten_in_place_is_read_again() {
        let (_dir, path, bytes) = temp_shard(10);
        let mut app = open(&path);
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::fs::write(&path, vec![0xee; bytes.len()]).unwrap();
        file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
            .unwrap();
        assert!(app.watch_files());
        assert!(
            app.message.contains("was rewritten; re-indexed"),
            "{}",
            app.message
        );
        app.index_now();
        assert_eq!(app.status(), crate::status::Status::Damage);
    }
}
