//! The open files as a dataset: `:` takes a split-wide record number (`train 1234`, `train:1234`)
//! and finds the shard and record it is, and `c`/`C` go on to the next file's damaged frames when
//! the current file has no more.

use super::App;
use tfr_core::dataset::Dataset;
use tfr_core::dataset::numbering::Numbering;

impl App {
    /// Jumps to split-wide record `text` (`NAME N` or `NAME:N`); false when `text` is not of that
    /// form, so the caller can say what it expected.
    pub(super) fn go_to_dataset_record(&mut self, text: &str) -> bool {
        let Some((name, number)) = text
            .trim()
            .rsplit_once([' ', ':'])
            .map(|(name, n)| (name.trim(), n.trim()))
        else {
            return false;
        };
        let Ok(number) = tfr_core::words::parse_number(number) else {
            return false;
        };
        let paths: Vec<std::path::PathBuf> = (0..self.files.len())
            .filter_map(|i| self.path(i).map(std::path::Path::to_path_buf))
            .collect();
        let dataset = Dataset::resolve(&paths);
        let Some(split) = dataset.splits.iter().position(|s| s.name.raw() == name) else {
            let names: Vec<String> = dataset.splits.iter().map(|s| s.name.to_string()).collect();
            self.message = match names.is_empty() {
                true => "the open files are no shard set: no split numbers".into(),
                false => format!(
                    "no split \"{}\"; the splits are {}",
                    tfr_core::escape::for_terminal(name),
                    names.join(", ")
                ),
            };
            return true;
        };
        // Counts from the indexes as far as they are built; a shard still indexing counts what
        // it has so far.
        let file_of = |path: &std::path::Path| paths.iter().position(|p| p == path);
        let counts: Vec<u64> = dataset
            .members
            .iter()
            .map(|m| {
                file_of(&m.path)
                    .and_then(|i| self.files.get(i))
                    .map_or(0, |f| f.index().len() as u64)
            })
            .collect();
        let numbering = Numbering::new(&dataset, &counts);
        let Some((member, record)) = numbering.locate(split, number) else {
            let total: u64 = counts
                .iter()
                .zip(&dataset.members)
                .filter(|(_, m)| m.shard.is_some_and(|(s, _)| s == split))
                .map(|(c, _)| c)
                .sum();
            self.message = format!("{name} has {total} records; there is no record {number}");
            return true;
        };
        let Some(file) = dataset.members.get(member).and_then(|m| file_of(&m.path)) else {
            return true;
        };
        if !self.show_file(file) {
            return true;
        }
        self.select_frame(usize::try_from(record).unwrap_or(usize::MAX));
        if let Some(place) = numbering.describe(&dataset, member, record) {
            self.message = place;
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
