//! The open files as a dataset: `:` takes a split-wide record number (`train 1234`, `train:1234`,
//! `train:-1`) and finds the shard and record it is, as `show -n train:1234` does, and `c`/`C`
//! go on to the next file's damaged frames when the current file has no more.

use super::App;
use tfr_core::dataset::Dataset;
use tfr_core::dataset::numbering::{self, Counted, NumberError};
use tfr_core::record_number::SplitNumber;

impl App {
    /// Jumps to split-wide record `text` (`NAME N`, `NAME:N`, `NAME:-1`); false when `text` is
    /// not of that form, so the caller can say what it expected.
    pub(super) fn go_to_dataset_record(&mut self, text: &str) -> bool {
        let Some(wanted) = SplitNumber::parse(text) else {
            return false;
        };
        let paths: Vec<std::path::PathBuf> = (0..self.files.len())
            .filter_map(|i| self.path(i).map(std::path::Path::to_path_buf))
            .collect();
        let dataset = Dataset::resolve(&paths);
        let file_of = |path: &std::path::Path| paths.iter().position(|p| p == path);
        // Counts from the indexes as far as they are built; a shard still indexing counts what
        // it has so far.
        let count = |member: usize| -> Result<Counted, std::convert::Infallible> {
            let file = dataset.members.get(member).and_then(|m| file_of(&m.path));
            Ok(file
                .and_then(|i| self.files.get(i))
                .map(|f| Counted::of_index(f.index(), f.data()))
                .unwrap_or_default())
        };
        let found = match numbering::find(&dataset, &wanted, count) {
            Ok(found) => found,
            Err(NumberError::NoSplits) => {
                self.message = "the open files are no shard set: no split numbers".into();
                return true;
            }
            Err(e) => {
                self.message = e.to_string();
                return true;
            }
        };
        let Some(file) = dataset
            .members
            .get(found.member)
            .and_then(|m| file_of(&m.path))
        else {
            return true;
        };
        if !self.show_file(file) {
            return true;
        }
        self.select_frame(usize::try_from(found.record).unwrap_or(usize::MAX));
        self.message = found.place;
        // The inspector goes there all the same: the list shows what the count crossed.
        if let Some((member, frame)) = found.across {
            let name = dataset
                .members
                .get(member)
                .map(|m| tfr_core::escape::path_for_terminal(&m.path))
                .unwrap_or_default();
            self.message.push_str(&format!(
                " (counted across frame {} at byte {} of {name}, {}: uncertain)",
                frame.index,
                frame.offset,
                frame.status.name()
            ));
        }
        true
    }

    /// The first (or, backwards, the last) damaged frame of the files after (or before) the
    /// current one, wrapping around: the file and the frame. A closed file whose index holds
    /// damage is opened to find it.
    pub(super) fn damaged_in_other_files(&mut self, forward: bool) -> Option<(usize, usize)> {
        let (n, current) = (self.files.len(), self.current);
        (1..n).find_map(|step| {
            let file = if forward {
                (current + step) % n
            } else {
                (current + n - step) % n
            };
            if self.files.get(file)?.index().damaged_count() == 0 || !self.ensure_open(file) {
                return None;
            }
            let view = self.files.get(file)?;
            let mut damaged = view.index().damaged_frames(view.data());
            let frame = if forward {
                damaged.next()
            } else {
                damaged.last()
            }?;
            Some((file, frame.index))
        })
    }

    /// Makes file `file` the current one, opening it when it is not (false when it cannot be).
    fn show_file(&mut self, file: usize) -> bool {
        if file == self.current || file >= self.files.len() {
            return true;
        }
        if !self.ensure_open(file) {
            return false;
        }
        self.current = file;
        self.rows.clear();
        true
    }

    /// Goes to a damaged frame in another file, saying which.
    pub(super) fn go_to_damaged_in_other_file(&mut self, forward: bool) -> bool {
        let Some((file, frame)) = self.damaged_in_other_files(forward) else {
            return false;
        };
        if !self.show_file(file) {
            return true;
        }
        self.select_frame(frame);
        let name = self.file().map(|f| f.input.name()).unwrap_or_default();
        self.message = format!(
            "damaged frame {frame} in file {} of {}: {name}",
            file + 1,
            self.files.len()
        );
        true
    }
}
