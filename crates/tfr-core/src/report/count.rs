//! `count`'s result: how many records each file holds, read from its frame index alone (both
//! CRCs of every frame checked, no payload decoded), and the sums per split and in all.
//!
//! The number is the intact records: what a reader gets from the file and what `salvage` writes.
//! Damaged frames are not counted, but counted apart, so that a count is never taken for a
//! clean one: any damage, in a frame, a compressed stream or the dataset's names and metadata,
//! makes the report not `ok`.

use std::path::PathBuf;

use serde::Serialize;

use super::Progress;
use super::verify::{FileVerdict, Problem, VerifyOptions, VerifyReport};
use crate::dataset::report::{ProblemText, SplitPlace};
use crate::dataset::{Dataset, Summary, Tally};
use crate::error::Error;
use crate::input::OpenOptions;
use crate::resync::ResyncBudget;

/// What one file holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileCount {
    /// Intact records.
    pub records: u64,
    /// Damaged frames, plus one for a damaged compressed stream: not counted in `records`.
    pub damaged: u64,
    /// Frames found, intact or not.
    pub frames: u64,
    /// Bytes of the file (of its decompressed stream, when compressed).
    pub bytes: u64,
    /// The damage, each with where it is, for the messages that name it.
    #[serde(skip)]
    pub problems: Vec<Problem>,
    #[serde(skip)]
    pub tally: Tally,
}

impl FileCount {
    /// The count in `verify`'s verdict on a file.
    pub fn of(verdict: FileVerdict) -> FileCount {
        FileCount {
            records: verdict.tally.intact,
            damaged: verdict.tally.damaged,
            frames: verdict.tally.frames,
            bytes: verdict.bytes,
            problems: verdict.problems,
            tally: verdict.tally,
        }
    }
}

/// Files, files that could not be read, records and damage, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Sum {
    pub files: u64,
    /// Files (and arguments) that could not be read: their records are not in `records`.
    pub not_read: u64,
    pub records: u64,
    pub damaged: u64,
}

impl Sum {
    fn add(&mut self, count: Option<&FileCount>) {
        self.files += 1;
        match count {
            Some(c) => {
                self.records = self.records.saturating_add(c.records);
                self.damaged = self.damaged.saturating_add(c.damaged);
            }
            None => self.not_read += 1,
        }
    }
}

/// A split's sum (or that of the files that are no shard, named `other files`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SplitSum {
    #[serde(rename = "split")]
    pub name: String,
    /// Whether it is a split by its files' names, rather than the files that are none.
    #[serde(skip)]
    pub named: bool,
    #[serde(flatten)]
    pub sum: Sum,
}

/// The counts of a run's files, in the order given, and their sums.
#[derive(Debug)]
pub struct CountReport {
    /// Each file's count, or the error that kept it from being counted.
    pub files: Vec<Result<FileCount, Error>>,
    /// Per split of a dataset, then `other files` when some are no shard (none when no file
    /// is a shard).
    pub splits: Vec<SplitSum>,
    pub total: Sum,
    /// What is wrong with the dataset's names and metadata (a missing shard, a count that
    /// `dataset_info.json` disagrees with).
    pub problems: Vec<ProblemText>,
}

impl CountReport {
    /// Counts the records of the members of `dataset`, one file per core.
    pub fn count(dataset: &Dataset, open: &OpenOptions, progress: &dyn Progress) -> CountReport {
        let paths: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
        let options = VerifyOptions {
            budget: ResyncBudget::DEFAULT,
            images: false,
        };
        let checked = VerifyReport::check(&paths, open, options, progress);
        let files = checked
            .files
            .into_iter()
            .map(|v| v.map(FileCount::of))
            .collect();
        CountReport::of(dataset, files)
    }

    /// The report on `files`, the counts of `dataset`'s members in order.
    pub fn of(dataset: &Dataset, files: Vec<Result<FileCount, Error>>) -> CountReport {
        let tallies: Vec<Option<Tally>> = files
            .iter()
            .map(|f| f.as_ref().ok().map(|c| c.tally))
            .collect();
        let summary = Summary::new(dataset, &tallies);
        let mut total = Sum::default();
        for file in &files {
            total.add(file.as_ref().ok());
        }
        // Arguments that named nothing readable were not read either.
        total.not_read = total.not_read.saturating_add(dataset.errors.len() as u64);
        let report = summary.report();
        // Splits only when the files are shards: a directory of loose files has its total.
        let splits = match dataset.is_dataset && !dataset.splits.is_empty() {
            false => Vec::new(),
            true => report
                .dataset
                .splits
                .into_iter()
                .map(|s| SplitSum {
                    name: s.name,
                    named: s.named.is_some(),
                    sum: Sum {
                        files: s.files,
                        not_read: s.unreadable,
                        records: s.intact,
                        damaged: s.damaged,
                    },
                })
                .collect(),
        };
        CountReport {
            files,
            splits,
            total,
            problems: report.dataset.problems,
        }
    }

    /// No damage anywhere: in a frame, a stream, or the dataset's names and metadata.
    pub fn ok(&self) -> bool {
        self.total.damaged == 0 && self.problems.is_empty()
    }

    /// The last line of `--json`.
    pub fn total_line(&self) -> TotalLine<'_> {
        TotalLine {
            kind: "total",
            ok: self.ok(),
            sum: self.total,
            problems: &self.problems,
        }
    }
}

/// One file's line of `count --json`: its name and place, then its count or why it has none.
#[derive(Debug, Serialize)]
pub struct FileLine<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The file's name, escaped for JSON.
    pub file: String,
    #[serde(flatten)]
    pub place: Option<SplitPlace>,
    #[serde(flatten)]
    pub outcome: Outcome<'a>,
}

/// A file's count, or why it has none.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome<'a> {
    Counted(&'a FileCount),
    Unusable { error: String },
}

/// A split's line of `count --json`.
#[derive(Debug, Serialize)]
pub struct SplitLine<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(flatten)]
    pub split: &'a SplitSum,
}

impl<'a> SplitLine<'a> {
    pub fn of(split: &'a SplitSum) -> SplitLine<'a> {
        SplitLine {
            kind: "split",
            split,
        }
    }
}

/// The last line of `count --json`: the sums over every file, and what is wrong besides.
#[derive(Debug, Serialize)]
pub struct TotalLine<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub ok: bool,
    #[serde(flatten)]
    pub sum: Sum,
    pub problems: &'a [ProblemText],
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;

    fn open() -> OpenOptions {
        OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto))
    }

    fn records(n: usize) -> Vec<u8> {
        let mut bytes = Vec::new();
        for i in 0..n {
            crate::frame::write_record(format!("record {i}").as_bytes(), &mut bytes).unwrap();
        }
        bytes
    }

    #[test]
    fn files_are_counted_and_damaged_frames_are_counted_apart() {
        let dir = tempfile::tempdir().unwrap();
        let clean = dir.path().join("clean.tfrecord");
        std::fs::write(&clean, records(7)).unwrap();
        let mut bytes = records(5);
        let last = bytes.len() - 1;
        bytes[last] ^= 0x40;
        let damaged = dir.path().join("damaged.tfrecord");
        std::fs::write(&damaged, bytes).unwrap();
        let empty = dir.path().join("empty.tfrecord");
        std::fs::write(&empty, b"").unwrap();
        let missing = dir.path().join("missing.tfrecord");

        let dataset = Dataset::resolve(&[clean, damaged, empty, missing]);
        let report = CountReport::count(&dataset, &open(), &());
        let counts: Vec<Option<(u64, u64)>> = report
            .files
            .iter()
            .map(|f| f.as_ref().ok().map(|c| (c.records, c.damaged)))
            .collect();
        // A missing file is a member that could not be read.
        assert_eq!(counts, vec![Some((7, 0)), Some((4, 1)), Some((0, 0)), None]);
        assert_eq!(
            report.total,
            Sum {
                files: 4,
                not_read: 1,
                records: 11,
                damaged: 1
            }
        );
        assert!(!report.ok());
        assert!(report.splits.is_empty());
        let damaged = report.files[1].as_ref().unwrap();
        assert_eq!(damaged.problems.len(), 1);
        assert_eq!(damaged.problems[0].index, Some(4));
        assert_eq!(
            crate::pyjson::to_string(&report.total_line()).unwrap(),
            "{\"damaged\": 1, \"files\": 4, \"not_read\": 1, \"ok\": false, \"problems\": [], \
             \"records\": 11, \"type\": \"total\"}"
        );
    }

    #[test]
    fn shards_are_summed_per_split_and_a_missing_one_is_a_problem() {
        let dir = tempfile::tempdir().unwrap();
        for (name, n) in [
            ("data-train.tfrecord-00000-of-00003", 3),
            ("data-train.tfrecord-00002-of-00003", 4),
            ("data-test.tfrecord-00000-of-00001", 2),
        ] {
            std::fs::write(dir.path().join(name), records(n)).unwrap();
        }
        let dataset = Dataset::resolve(&[dir.path().to_path_buf()]);
        let report = CountReport::count(&dataset, &open(), &());
        let splits: Vec<(&str, u64, u64)> = report
            .splits
            .iter()
            .map(|s| (s.name.as_str(), s.sum.files, s.sum.records))
            .collect();
        assert_eq!(splits, vec![("test", 1, 2), ("train", 2, 7)]);
        assert_eq!(report.total.records, 9);
        assert_eq!(report.total.damaged, 0);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(
            report.problems[0]
                .problem
                .contains("shard 00001 of 00003 missing"),
            "{:?}",
            report.problems
        );
        assert!(!report.ok());
        assert_eq!(
            crate::pyjson::to_string(&SplitLine::of(&report.splits[1])).unwrap(),
            "{\"damaged\": 0, \"files\": 2, \"not_read\": 0, \"records\": 7, \"split\": \
             \"train\", \"type\": \"split\"}"
        );
    }
}
