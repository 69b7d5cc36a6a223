//! What a command found in each member of a dataset, and the summary it ends with: per split its
//! shards, records and damaged frames, then the dataset's problems and verdict, as text or JSON.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

use crate::escape::path_for_terminal;
use crate::frame::FrameIndex;
use crate::words::plural;

use super::{Dataset, Problem, ShardCount};

/// What one member holds, counted from its frame index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub frames: u64,
    pub intact: u64,
    /// Damaged frames, plus one for a damaged compressed stream.
    pub damaged: u64,
    /// Bytes of the intact records' payloads (what `numBytes` counts).
    pub payload_bytes: u64,
    /// How the member is compressed (`None`: it is not).
    pub compression: Option<crate::compress::Compression>,
}

impl Tally {
    /// Counts a fully scanned index; `stream_damaged` when the compressed stream is.
    pub fn of(index: &FrameIndex, stream_damaged: bool) -> Tally {
        Tally {
            frames: index.len() as u64,
            intact: (index.len() - index.damaged_count()) as u64,
            damaged: index.damaged_count() as u64 + u64::from(stream_damaged),
            payload_bytes: index.intact_payload_bytes(),
            compression: None,
        }
    }
}

/// What a dataset's summary concludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    Damaged,
    /// No damage in what was read, but not everything could be read.
    Incomplete,
}

impl Verdict {
    /// The word the summary line says (`OK`, `DAMAGED`, `INCOMPLETE`).
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "OK",
            Verdict::Damaged => "DAMAGED",
            Verdict::Incomplete => "INCOMPLETE",
        }
    }
}

/// The end of a command over a dataset: the problems found and the summary lines.
pub struct Summary<'d> {
    dataset: &'d Dataset,
    tallies: &'d [Option<Tally>],
    /// Problems of the names and metadata, and of the counts.
    pub problems: Vec<Problem>,
    /// Per split, then for the members that are no shard: members, unreadable members, and the
    /// sum of their tallies (summed in one pass, however many splits there are).
    totals: Vec<SplitTotal>,
    loose: SplitTotal,
    /// What each tf.data snapshot's shards hold, against its metadata.
    snapshots: Vec<super::snapshot::count::Counted>,
}

/// Members, unreadable members, and the sum of the tallies of one split.
type SplitTotal = (u64, u64, Tally);

impl<'d> Summary<'d> {
    /// Checks the counted members (`tallies`, one per member; `None` when one could not be read)
    /// against the dataset's metadata.
    pub fn new(dataset: &'d Dataset, tallies: &'d [Option<Tally>]) -> Summary<'d> {
        let counts: Vec<Option<ShardCount>> = dataset
            .members
            .iter()
            .zip(tallies)
            .map(|(m, t)| {
                let (_, number) = m.shard?;
                let t = (*t)?;
                Some(ShardCount {
                    path: m.path.clone(),
                    number,
                    records: t.intact,
                    payload_bytes: t.payload_bytes,
                })
            })
            .collect();
        let mut problems = dataset.problems.clone();
        problems.extend(dataset.check_counts(&counts));
        let snapshots: Vec<super::snapshot::count::Counted> = dataset
            .snapshots
            .iter()
            .map(|set| super::snapshot::count::count(set, &dataset.members, tallies))
            .collect();
        problems.extend(snapshots.iter().flat_map(|c| c.problems.iter().cloned()));
        let mut totals = vec![SplitTotal::default(); dataset.splits.len()];
        let mut loose = SplitTotal::default();
        for (member, tally) in dataset.members.iter().zip(tallies) {
            let split = member.shard.and_then(|(s, _)| totals.get_mut(s));
            let (members, unreadable, total) = split.unwrap_or(&mut loose);
            *members += 1;
            match tally {
                Some(t) => {
                    total.frames += t.frames;
                    total.intact += t.intact;
                    total.damaged += t.damaged;
                    total.payload_bytes = total.payload_bytes.saturating_add(t.payload_bytes);
                }
                None => *unreadable += 1,
            }
        }
        Summary {
            dataset,
            tallies,
            problems,
            totals,
            loose,
            snapshots,
        }
    }

    /// Whether nothing is wrong: no problem and no damaged or unreadable member.
    pub fn ok(&self) -> bool {
        self.verdict() == Verdict::Ok
    }

    /// Inputs that were not read: members that could not be, and arguments (or directories met
    /// while searching them) that could not be used.
    pub fn not_read(&self) -> u64 {
        let members = self.tallies.iter().filter(|t| t.is_none()).count();
        (members + self.dataset.errors.len()) as u64
    }

    /// Damage found (a problem or a damaged frame) is damage, whatever was not read; with none,
    /// inputs not read leave the check incomplete.
    pub fn verdict(&self) -> Verdict {
        let damaged = self.tallies.iter().flatten().any(|t| t.damaged > 0);
        if !self.problems.is_empty() || damaged {
            Verdict::Damaged
        } else if self.not_read() > 0 {
            Verdict::Incomplete
        } else {
            Verdict::Ok
        }
    }

    /// The tallies of split `split` (`None`: the members that are no shard): members, unreadable
    /// members, and the sum.
    fn split_total(&self, split: Option<usize>) -> SplitTotal {
        match split {
            Some(i) => self.totals.get(i).copied().unwrap_or_default(),
            None => self.loose,
        }
    }

    /// The summary as data: per split its counts, the problems, skipped files, snapshots and the
    /// verdict.
    pub fn report(&self) -> DatasetReport {
        let split = |name: &str, split: Option<usize>| {
            let (files, unreadable, total) = self.split_total(split);
            let named = split
                .and_then(|i| self.dataset.splits.get(i))
                .map(|s| NamedSplit {
                    shards_named: s.set.total(),
                    dataset_info: s.info.as_ref().map(|(path, _)| path.clone()),
                    promised: s.info.as_ref().map(|(_, info)| Promised {
                        shard_lengths: info.shard_lengths.clone(),
                        num_bytes: info.num_bytes,
                    }),
                });
            SplitCount {
                name: name.to_string(),
                files,
                unreadable,
                frames: total.frames,
                intact: total.intact,
                damaged: total.damaged,
                payload_bytes: total.payload_bytes,
                named,
            }
        };
        let mut splits: Vec<SplitCount> = self
            .dataset
            .splits
            .iter()
            .enumerate()
            .map(|(i, s)| split(s.name.raw(), Some(i)))
            .collect();
        if self.split_total(None).0 > 0 {
            splits.push(split("other files", None));
        }
        let problems = self.problems.iter().map(|p| ProblemText {
            kind: p.kind(),
            split: p.split().map(str::to_string),
            problem: p.to_string(),
        });
        DatasetReport {
            dataset: DatasetFigures {
                ok: self.ok(),
                verdict: self.verdict(),
                not_read: self.not_read(),
                splits,
                problems: problems.collect(),
                skipped: self.dataset.skipped.clone(),
                snapshots: self.snapshots.iter().map(|c| c.figures.clone()).collect(),
                snapshot_lines: self.snapshots.iter().map(|c| c.line.clone()).collect(),
            },
        }
    }
}

/// What a command over a dataset concludes, as `--json` prints it: `{"dataset": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetReport {
    pub dataset: DatasetFigures,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetFigures {
    pub ok: bool,
    pub verdict: Verdict,
    /// Members that could not be read, and arguments that could not be used.
    pub not_read: u64,
    /// Each split, then `other files` (the members that are no shard) when there are any.
    pub splits: Vec<SplitCount>,
    pub problems: Vec<ProblemText>,
    pub skipped: Vec<super::Skipped>,
    pub snapshots: Vec<super::snapshot::count::SnapshotCount>,
    /// Each snapshot's line of the text summary, worded where it was counted.
    #[serde(skip)]
    pub snapshot_lines: Vec<String>,
}

/// The members of a split (or of no split) and the sum of their tallies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitCount {
    pub name: String,
    pub files: u64,
    pub unreadable: u64,
    pub frames: u64,
    pub intact: u64,
    pub damaged: u64,
    pub payload_bytes: u64,
    /// What a split has beside its members (`None` for `other files`).
    #[serde(flatten)]
    pub named: Option<NamedSplit>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedSplit {
    /// The shard count its names give (`-of-NNNNN`).
    pub shards_named: Option<u64>,
    /// The `dataset_info.json` that describes it.
    #[serde(serialize_with = "lossy_optional_path")]
    pub dataset_info: Option<PathBuf>,
    /// What that `dataset_info.json` promises of it, so that a merge of verdicts made apart
    /// (`verify --merge`) checks the whole split against it.
    #[serde(flatten)]
    pub promised: Option<Promised>,
}

/// What `dataset_info.json` promises of a split: records per shard, and its payload bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Promised {
    #[serde(rename = "dataset_info_shard_lengths")]
    pub shard_lengths: Vec<u64>,
    #[serde(rename = "dataset_info_num_bytes")]
    pub num_bytes: Option<u64>,
}

/// Where a member lies in its split (`verify --json` gives it per member).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SplitPlace {
    pub split: String,
    /// The shard's number as its name writes it (`00001`), for a shard.
    pub shard: Option<String>,
    /// The split-wide number of its first record; `None` (null) when a shard of its split before
    /// it is missing, there twice or unreadable, so that its records have no split-wide numbers.
    pub split_first_record: Option<u64>,
}

/// A problem of the dataset: its kind, the split it concerns, and its words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProblemText {
    pub kind: &'static str,
    pub split: Option<String>,
    pub problem: String,
}

impl Serialize for Verdict {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Verdict::Ok => "ok",
            Verdict::Damaged => "damaged",
            Verdict::Incomplete => "incomplete",
        })
    }
}

/// A path in a report, as JSON gives paths ([`crate::escape::path_for_json`]).
pub fn lossy_path<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::escape::path_for_json(path))
}

fn lossy_optional_path<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => lossy_path(path, s),
        None => s.serialize_none(),
    }
}

/// How the text summary names the files a dataset's search set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkippedLines {
    /// Not at all (`list` says them on standard error instead).
    Omitted,
    /// One line saying how many are no TFRecord file (a directory of a dataset may hold
    /// thousands of them); the others (metadata, pipes, links) named one per line.
    Counted,
    /// One line per file, with why it was set aside.
    Listed,
}

/// The lines that say which files were set aside, [`SkippedLines::Counted`]: `FILE: skipped:
/// why` for each one set aside for a reason of its own (metadata, a pipe, a link), then one line
/// counting those that are only no TFRecord file: `2 other files skipped (not TFRecord);
/// --verbose lists them`.
pub fn skipped_counted(skipped: &[super::Skipped]) -> Vec<String> {
    skipped_lines(skipped, |plain, them| {
        format!(
            "{} skipped (not TFRecord); --verbose lists {them}",
            plural(plain.len() as u64, "other file")
        )
    })
}

/// [`skipped_counted`] for the commands without `--verbose`: the line counting the files that are
/// only no TFRecord file names the first `shown` of them (`5 other files skipped (not TFRecord):
/// a.txt, b.txt, c.txt, …`), and a lone one is named with its reason.
pub fn skipped_briefly(skipped: &[super::Skipped], shown: usize) -> Vec<String> {
    skipped_lines(skipped, |plain, _| match plain {
        [one] => skipped_line(one),
        _ => {
            let named: Vec<_> = plain
                .iter()
                .take(shown)
                .map(|s| path_for_terminal(&s.path))
                .collect();
            let more = if plain.len() > shown { ", …" } else { "" };
            format!(
                "{} skipped (not TFRecord): {}{more}",
                plural(plain.len() as u64, "other file"),
                named.join(", ")
            )
        }
    })
}

/// A line per file set aside for a reason of its own, then `count`'s line for those that are
/// only no TFRecord file (given them, and "it" or "them"), when there are any.
fn skipped_lines(
    skipped: &[super::Skipped],
    count: impl FnOnce(&[&super::Skipped], &str) -> String,
) -> Vec<String> {
    let (plain, named): (Vec<_>, Vec<_>) = skipped
        .iter()
        .partition(|s| super::discover::is_plain_skip(&s.reason));
    let mut lines: Vec<String> = named.into_iter().map(skipped_line).collect();
    let them = match plain.len() {
        0 => return lines,
        1 => "it",
        _ => "them",
    };
    lines.push(count(&plain, them));
    lines
}

/// `FILE: skipped: why`.
pub fn skipped_line(file: &super::Skipped) -> String {
    format!(
        "{}: skipped: {}",
        path_for_terminal(&file.path),
        file.reason
    )
}

impl DatasetReport {
    /// One line per split, one per problem, the skipped files as `skipped` says, and the
    /// verdict.
    pub fn write_text(&self, out: &mut dyn Write, skipped: SkippedLines) -> io::Result<()> {
        let d = &self.dataset;
        // The splits a problem concerns, found once.
        let troubled: HashSet<&str> = d
            .problems
            .iter()
            .filter_map(|p| p.split.as_deref())
            .collect();
        for split in &d.splits {
            writeln!(out, "{}", split_line(split, &troubled))?;
        }
        for line in &d.snapshot_lines {
            writeln!(out, "{line}")?;
        }
        for problem in &d.problems {
            writeln!(out, "{}", problem.problem)?;
        }
        match skipped {
            SkippedLines::Omitted => {}
            SkippedLines::Counted => {
                for line in skipped_counted(&d.skipped) {
                    writeln!(out, "{line}")?;
                }
            }
            SkippedLines::Listed => {
                for file in &d.skipped {
                    writeln!(out, "{}", skipped_line(file))?;
                }
            }
        }
        let sum = |f: fn(&SplitCount) -> u64| d.splits.iter().map(f).sum::<u64>();
        let not_read = match d.not_read {
            0 => String::new(),
            n => format!(
                "; {} not read (named on standard error)",
                plural(n, "input")
            ),
        };
        writeln!(
            out,
            "dataset: {}: {}, {}, {}, {} damaged, {}{not_read}",
            d.verdict.word(),
            plural(
                d.splits.iter().filter(|s| s.named.is_some()).count() as u64,
                "split"
            ),
            plural(sum(|s| s.files), "file"),
            plural(sum(|s| s.frames), "frame"),
            sum(|s| s.damaged),
            plural(d.problems.len() as u64, "dataset problem"),
        )
    }
}

/// The line of a split (or of the members that are no shard): it agrees when it has
/// `dataset_info.json`, no problem concerns it and every member was read.
fn split_line(split: &SplitCount, troubled: &HashSet<&str>) -> String {
    let noun = if split.named.is_some() {
        "shard"
    } else {
        "file"
    };
    let mut line = format!(
        "{}: {}, {}, {} intact, {} damaged, {} of records",
        crate::escape::for_terminal(&split.name),
        plural(split.files, noun),
        plural(split.frames, "frame"),
        split.intact,
        split.damaged,
        plural(split.payload_bytes, "byte"),
    );
    if split.unreadable > 0 {
        line.push_str(&format!(", {} unreadable", split.unreadable));
    }
    let described = split
        .named
        .as_ref()
        .is_some_and(|n| n.dataset_info.is_some());
    // What was not read cannot be said to agree.
    if described && !troubled.contains(split.name.as_str()) && split.unreadable == 0 {
        line.push_str("; agrees with dataset_info.json");
    }
    line
}
