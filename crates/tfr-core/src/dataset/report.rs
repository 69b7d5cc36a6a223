//! What a command found in each member of a dataset, and the summary it ends with: per split its
//! shards, records and damaged frames, then the dataset's problems and verdict, as text or JSON.

use std::collections::HashSet;
use std::io::{self, Write};

use crate::escape::path_for_terminal;
use crate::frame::FrameIndex;
use crate::jsonformat::Json;
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

    /// One line per split, one per problem, one per skipped file (when `skipped` is asked for:
    /// `list` names them on standard error instead), and the verdict.
    pub fn write_text(&self, out: &mut dyn Write, skipped: bool) -> io::Result<()> {
        let mut lines = Vec::new();
        // The splits a problem concerns, found once.
        let troubled: HashSet<&str> = self.problems.iter().filter_map(Problem::split).collect();
        for (i, split) in self.dataset.splits.iter().enumerate() {
            let agrees = split.info.is_some() && !troubled.contains(split.name.raw());
            lines.push(self.split_line(split.name.raw(), Some(i), agrees));
        }
        let (loose, _, _) = self.split_total(None);
        if loose > 0 {
            lines.push(self.split_line("other files", None, false));
        }
        lines.extend(self.snapshots.iter().map(|c| c.line.clone()));
        for line in lines {
            writeln!(out, "{line}")?;
        }
        for problem in &self.problems {
            writeln!(out, "{problem}")?;
        }
        if skipped {
            for file in &self.dataset.skipped {
                writeln!(
                    out,
                    "{}: skipped: {}",
                    path_for_terminal(&file.path),
                    file.reason
                )?;
            }
        }
        let (mut members, mut frames, mut damaged) = (0u64, 0u64, 0u64);
        for tally in self.tallies.iter().flatten() {
            frames += tally.frames;
            damaged += tally.damaged;
        }
        members += self.dataset.members.len() as u64;
        let not_read = match self.not_read() {
            0 => String::new(),
            n => format!(
                "; {} not read (named on standard error)",
                plural(n, "input")
            ),
        };
        writeln!(
            out,
            "dataset: {}: {}, {}, {}, {damaged} damaged, {}{not_read}",
            self.verdict().word(),
            plural(self.dataset.splits.len() as u64, "split"),
            plural(members, "file"),
            plural(frames, "frame"),
            plural(self.problems.len() as u64, "dataset problem"),
        )
    }

    /// The line of split `split` (`None`: the members that are no shard); `agrees` when it has
    /// `dataset_info.json` and no problem concerns it.
    fn split_line(&self, name: &str, split: Option<usize>, agrees: bool) -> String {
        let (members, unreadable, total) = self.split_total(split);
        let noun = if split.is_some() { "shard" } else { "file" };
        let mut line = format!(
            "{}: {}, {}, {} intact, {} damaged, {} of records",
            crate::escape::for_terminal(name),
            plural(members, noun),
            plural(total.frames, "frame"),
            total.intact,
            total.damaged,
            plural(total.payload_bytes, "byte"),
        );
        if unreadable > 0 {
            line.push_str(&format!(", {unreadable} unreadable"));
        }
        // What was not read cannot be said to agree.
        if agrees && unreadable == 0 {
            line.push_str("; agrees with dataset_info.json");
        }
        line
    }

    /// The summary as one JSON object: splits, problems, skipped files and the verdict.
    pub fn to_json(&self) -> Json {
        let number = |n: u64| Json::Literal(n.to_string());
        let split_json = |name: &str, split: Option<usize>| {
            let (members, unreadable, total) = self.split_total(split);
            let mut members_json = vec![
                ("name".to_string(), Json::String(name.to_string())),
                ("files".into(), number(members)),
                ("unreadable".into(), number(unreadable)),
                ("frames".into(), number(total.frames)),
                ("intact".into(), number(total.intact)),
                ("damaged".into(), number(total.damaged)),
                ("payload_bytes".into(), number(total.payload_bytes)),
            ];
            if let Some(s) = split.and_then(|i| self.dataset.splits.get(i)) {
                members_json.push((
                    "shards_named".into(),
                    s.set.total().map_or(Json::Null, number),
                ));
                members_json.push((
                    "dataset_info".into(),
                    s.info.as_ref().map_or(Json::Null, |(path, _)| {
                        Json::String(crate::escape::path_for_json(path))
                    }),
                ));
            }
            Json::Object(members_json)
        };
        let mut splits: Vec<Json> = self
            .dataset
            .splits
            .iter()
            .enumerate()
            .map(|(i, s)| split_json(s.name.raw(), Some(i)))
            .collect();
        if self.split_total(None).0 > 0 {
            splits.push(split_json("other files", None));
        }
        let problems = self.problems.iter().map(|p| {
            Json::Object(vec![
                ("kind".into(), Json::String(p.kind().into())),
                (
                    "split".into(),
                    p.split().map_or(Json::Null, |s| Json::String(s.into())),
                ),
                ("problem".into(), Json::String(p.to_string())),
            ])
        });
        let skipped = self.dataset.skipped.iter().map(|s| {
            Json::Object(vec![
                (
                    "file".into(),
                    Json::String(crate::escape::path_for_json(&s.path)),
                ),
                ("reason".into(), Json::String(s.reason.clone())),
            ])
        });
        Json::Object(vec![(
            "dataset".into(),
            Json::Object(vec![
                ("ok".into(), Json::Literal(self.ok().to_string())),
                (
                    "verdict".into(),
                    Json::String(self.verdict().word().to_ascii_lowercase()),
                ),
                ("not_read".into(), number(self.not_read())),
                ("splits".into(), Json::Array(splits)),
                ("problems".into(), Json::Array(problems.collect())),
                ("skipped".into(), Json::Array(skipped.collect())),
                (
                    "snapshots".into(),
                    Json::Array(self.snapshots.iter().map(|c| c.json.clone()).collect()),
                ),
            ]),
        )])
    }
}
