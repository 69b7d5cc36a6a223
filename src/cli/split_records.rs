//! Records of a split named by split-wide numbers (`show DIR -n train:1234`, `--range
//! train:10..20`): the inputs resolved into a dataset, the split's shards counted as far as the
//! numbers need ([`tfr_core::dataset::numbering::find`], as the inspector's `:` counts them), and
//! the stretch of each shard the numbers cover, for `show`, `hex` and `images` to open and print.

use std::path::{Path, PathBuf};

use super::Messages;
use super::argv::SplitChoice;
use tfr_core::dataset::Dataset;
use tfr_core::dataset::numbering::{self, Counted, Found, NumberError};
use tfr_core::error::Error;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::record_number::{RecordNumber, SplitNumber};

/// The records of one shard that the numbers cover. The shard is opened when it is printed
/// ([`Piece::open`]), not with the others: a range over thousands of shards would otherwise hold
/// a file descriptor and a map for each at once.
pub struct Piece {
    pub path: PathBuf,
    /// The file's records `start..end`.
    pub start: usize,
    pub end: usize,
    /// The split-wide number of record `start`.
    pub first: u64,
    /// `train record 1234 = shard 00002 record 17` (or `records A..B = … records C..D`), and
    /// the file.
    pub place: String,
}

/// What each member held once counted, so that each is read once; the inputs themselves are not
/// kept (a split of a thousand shards would hold every index at once), and the shards printed
/// are opened again.
struct Opened<'a> {
    dataset: &'a Dataset,
    open: &'a OpenOptions,
    counts: Vec<Option<Counted>>,
}

impl Opened<'_> {
    /// Counts member `member`: opens it and indexes all of it (frame headers only).
    fn count(&mut self, member: usize) -> Result<Counted, Error> {
        if let Some(Some(counted)) = self.counts.get(member) {
            return Ok(*counted);
        }
        let mut input = Input::open(self.path(member), self.open)?;
        input.settle_all();
        let counted = Counted::of_index(&input.index, input.data());
        if let Some(slot) = self.counts.get_mut(member) {
            *slot = Some(counted);
        }
        Ok(counted)
    }

    fn path(&self, member: usize) -> &Path {
        let member = self.dataset.members.get(member);
        member.map_or(Path::new(""), |m| m.path.as_path())
    }

    fn find(&mut self, split: &str, number: RecordNumber) -> Result<Found, String> {
        let wanted = SplitNumber {
            split: split.to_string(),
            number,
        };
        let dataset = self.dataset;
        let found = numbering::find(dataset, &wanted, |m| self.count(m)).map_err(|e| match e {
            NumberError::NoSplits => format!(
                "{wanted}: the inputs are no shard set (no `NAME-00000-of-00002` names): a \
                 split-wide number needs a directory or the shard files of a split"
            ),
            e => e.to_string(),
        })?;
        if let Some((member, frame)) = found.across {
            let name = self.path_shown(member);
            return Err(format!(
                "{name}: frame {} at byte {} cannot be delimited ({}): {wanted} is counted \
                 across it, so which record it names is uncertain (`tfr-inspect list {name}` \
                 numbers that file's frames)",
                frame.index,
                frame.offset,
                frame.status.name().replace('_', " ")
            ));
        }
        Ok(found)
    }

    fn path_shown(&self, member: usize) -> String {
        self.dataset
            .members
            .get(member)
            .map(|m| tfr_core::escape::path_for_terminal(&m.path))
            .unwrap_or_default()
    }
}

/// The pieces of the shards that `choice` covers among `files`, in order; `None` once why there
/// are none is said through `messages`.
pub fn pieces(
    files: &[PathBuf],
    choice: &SplitChoice,
    open: &OpenOptions,
    messages: &Messages,
) -> Option<Vec<Piece>> {
    let dataset = Dataset::resolve(files);
    for error in &dataset.errors {
        messages.unusable(error);
    }
    let mut opened = Opened {
        dataset: &dataset,
        open,
        counts: vec![None; dataset.members.len()],
    };
    let stretches = match span(&mut opened, choice, messages) {
        Ok(stretches) => stretches,
        Err(e) => {
            messages.unusable(&e);
            return None;
        }
    };
    let pieces = stretches
        .into_iter()
        .map(|(member, start, end, first, place)| {
            let path = opened.path(member).to_path_buf();
            let place = format!("{place}: {}", tfr_core::escape::path_for_terminal(&path));
            Piece {
                path,
                start,
                end,
                first,
                place,
            }
        });
    Some(pieces.collect())
}

impl Piece {
    /// Opens the shard, or says through `messages` why it cannot be (it changed since it was
    /// counted, or the process has reached a limit: open files, maps, a remote read).
    pub fn open(&self, open: &OpenOptions, messages: &Messages) -> Option<Input> {
        messages.usable(Input::open(&self.path, open))
    }

    /// [`Piece::open`] for a command that prints the pieces one after another (`show`, `hex`):
    /// a shard that cannot be opened is followed by `<place>: not shown`, so that the records it
    /// holds are named, and the caller goes on to the next.
    pub fn open_to_print(&self, open: &OpenOptions, messages: &Messages) -> Option<Input> {
        let input = self.open(open, messages);
        if input.is_none() {
            messages.note(&format_args!("{}: not shown", self.place));
        }
        input
    }
}

/// Per member covered: its records `start..end`, the split-wide number of `start`, and where
/// they are in words.
type Stretch = (usize, usize, usize, u64, String);

fn span(
    opened: &mut Opened,
    choice: &SplitChoice,
    messages: &Messages,
) -> Result<Vec<Stretch>, String> {
    let first = opened.find(&choice.split, choice.start)?;
    let record = |found: &Found| usize::try_from(found.record).unwrap_or(usize::MAX);
    if choice.single {
        let at = record(&first);
        let stretch = (
            first.member,
            at,
            at.saturating_add(1),
            first.number,
            first.place,
        );
        return Ok(vec![stretch]);
    }
    // The last record taken: the one before the end, or the split's last.
    let last_number = match choice.end {
        None => Some(RecordNumber::FromEnd(1)),
        Some(RecordNumber::FromStart(end)) => end.checked_sub(1).map(RecordNumber::FromStart),
        Some(RecordNumber::FromEnd(back)) => back.checked_add(1).map(RecordNumber::FromEnd),
    };
    let last = match last_number.map(|n| opened.find(&choice.split, n)) {
        Some(Ok(last)) if last.number >= first.number => last,
        // Past the split's end: as a range past a file's end, what exists is shown and the rest
        // named.
        Some(Err(e)) if matches!(choice.end, Some(RecordNumber::FromStart(_))) => {
            let last = opened.find(&choice.split, RecordNumber::FromEnd(1))?;
            // Only a range past the split's end goes on; anything else in its way is said.
            let wanted = last_number.and_then(|n| n.resolve(0)).unwrap_or(0) as u64;
            if wanted <= last.number {
                return Err(e);
            }
            // Its records are numbered from the start: counted across nothing undelimited.
            let at = usize::try_from(last.number).unwrap_or(usize::MAX);
            let last = opened.find(&choice.split, RecordNumber::FromStart(at))?;
            messages.note(&format_args!(
                "{choice}: records {}..{} do not exist ({} has {})",
                last.number.saturating_add(1),
                choice.end.map_or(String::new(), |e| e.to_string()),
                tfr_core::escape::for_terminal(&choice.split),
                tfr_core::words::plural(last.number.saturating_add(1), "record")
            ));
            last
        }
        Some(Err(e)) => return Err(e),
        _ => {
            return Err(format!(
                "--range {choice} selects no record (it ends before its start {})",
                first.number
            ));
        }
    };
    let dataset = opened.dataset;
    let mut stretches = Vec::new();
    let mut number = first.number;
    for member in first.member..=last.member {
        let Some((split, shard)) = dataset.members.get(member).and_then(|m| m.shard) else {
            continue;
        };
        if split != first.split {
            continue;
        }
        let frames = opened.count(member).map_err(|e| e.to_string())?.frames;
        let start = if member == first.member {
            first.record
        } else {
            0
        };
        let end = if member == last.member {
            last.record.saturating_add(1)
        } else {
            frames
        };
        if end <= start {
            continue;
        }
        let after = number.saturating_add(end - start);
        let set = &dataset.splits.get(split).map(|s| &s.set);
        let place = format!(
            "{} records {number}..{after} = shard {} records {start}..{end}",
            tfr_core::escape::for_terminal(&choice.split),
            set.map_or_else(|| shard.to_string(), |s| s.number_text(shard)),
        );
        let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        stretches.push((member, to_usize(start), to_usize(end), number, place));
        number = after;
    }
    Ok(stretches)
}

/// Why plain record numbers (or none) cannot choose among `files` (several files, a directory
/// or a pattern): the splits there are named, with the form that would.
pub fn plain_refused(command: &str, files: &[PathBuf]) -> String {
    let dataset = Dataset::resolve(files);
    let first = dataset
        .splits
        .first()
        .map_or_else(|| "train".to_string(), |s| s.name.to_string());
    let splits: Vec<String> = dataset.splits.iter().map(|s| s.name.to_string()).collect();
    if dataset.members.is_empty() && !dataset.errors.is_empty() {
        // Nothing to choose from: why (`DIR: is a directory with no TFRecord file in it`).
        return dataset.errors.join("; ");
    }
    match (splits.is_empty(), dataset.members.as_slice()) {
        (true, [only]) => format!(
            "{command} takes one file (its record numbers are its own): give it by its path, {}",
            tfr_core::escape::path_for_terminal(&only.path)
        ),
        (true, _) => format!(
            "{command} takes one file (its record numbers are its own); these inputs are no \
             shard set, so give one of them"
        ),
        (false, _) => format!(
            "{command} over {} takes a split-wide number, as `-n {first}:0` or `--range \
             {first}:0..10`: record numbers count within a split (the splits: {})",
            match files.iter().any(|f| f.is_dir()) {
                true => "a directory",
                false => "several files",
            },
            splits.join(", ")
        ),
    }
}

/// Whether `files` name one file to read as it is (not a directory or a pattern).
pub fn one_file(files: &[PathBuf]) -> Option<&Path> {
    match files {
        [file] if !file.is_dir() => Some(file.as_path()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::messages::tests::Shared;
    use crate::status::Status;
    use tfr_core::payload::{Decoder, Reading};
    use tfr_core::schema::Schema;

    fn shard(path: &Path, records: usize) {
        let mut out = Vec::new();
        for i in 0..records {
            tfr_core::frame::write_record(format!("record {i}").as_bytes(), &mut out).unwrap();
        }
        std::fs::write(path, out).unwrap();
    }

    /// A shard counted and then gone before it is printed: its piece is said not shown, by
    /// the records it held, and the other shard still opens.
    #[test]
    fn a_shard_gone_after_counting_is_said_not_shown() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("train-00000-of-00002");
        let second = dir.path().join("train-00001-of-00002");
        shard(&first, 3);
        shard(&second, 4);
        let open = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
        let choice = SplitChoice {
            split: "train".to_string(),
            start: RecordNumber::FromStart(1),
            end: Some(RecordNumber::FromStart(6)),
            single: false,
        };
        let said = Shared::default();
        let messages = Messages::to(said.clone());
        let pieces = pieces(&[dir.path().to_path_buf()], &choice, &open, &messages).unwrap();
        let spans: Vec<_> = pieces.iter().map(|p| (p.start, p.end, p.first)).collect();
        assert_eq!(spans, [(1, 3, 1), (0, 3, 3)]);
        assert_eq!(said.text(), "");

        std::fs::remove_file(&second).unwrap();
        assert!(pieces[0].open_to_print(&open, &messages).is_some());
        assert!(pieces[1].open_to_print(&open, &messages).is_none());
        let text = said.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].contains("train-00001-of-00002"), "{text}");
        assert_eq!(lines[1], format!("{}: not shown", pieces[1].place));
        assert!(
            pieces[1].place.starts_with("train records 3..6 = "),
            "{text}"
        );
        assert_eq!(messages.status(), Status::Unusable);
    }
}
