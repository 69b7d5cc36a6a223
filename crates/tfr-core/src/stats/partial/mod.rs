//! Partial statistics: what one pass found of some files, written so that partials of the parts
//! of a dataset, made anywhere, merge into the statistics of the whole ([`merge()`]), exactly as one
//! pass over all of it finds them.
//!
//! A partial (`.tfrstats`) is JSON Lines, three parts:
//! 1. a [`Header`]: the format and its version, the hash and the sketches' parameters (merging
//!    partials whose headers differ is refused);
//! 2. the [`Contents`]: per file, in the order it was read, what the report says of it (its
//!    path, its split, why it could not be read, how it changed) and where its summary is; and
//!    what the run found of the inputs as a whole (dataset problems, unusable arguments, notes);
//! 3. one line per file that has records: its summary ([`Stats`], its chunks merged in order).
//!
//! Per-file summaries are what make merges exact: one pass folds each file's summary into its
//! split's in dataset order ([`super::run::Fold`]), and a merge folds the same summaries in the
//! same order, whatever files went into which partial. Doubles are kept as their bits
//! ([`super::wire`]), so the folds are of the same numbers.

pub mod merge;

use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::run::{self, FileResult, Fold, Outcome, Plan};
use super::{MAX_FEATURES, Stats, events, quantiles, sketch};
use crate::payload::Decoder;
use crate::source::ReadOptions;

pub use merge::{Merged, PartialError, PartialSource, merge, merge_sources};

/// What a partial's first line says it is.
pub const FORMAT: &str = "tfr-inspect stats partial";
/// The version of the format this build writes and reads. 2: a TensorBoard summary value without
/// data is counted with its run's other events, not as a value of its tag.
pub const VERSION: u32 = 2;
/// The hash of values and names, as the header names it.
pub const HASH: &str = "xxh3-64 seed 0";

/// A partial's first line: what it is, and every parameter the summaries depend on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub format: String,
    pub version: u32,
    /// The hash of values, names and tags ([`sketch::hash`]).
    pub hash: String,
    /// HyperLogLog precision: 2^precision registers.
    pub hll_precision: u32,
    /// Distinct values counted exactly before the estimate.
    pub exact_distinct: usize,
    /// Misra-Gries counters of the most frequent values (twice as many held before a purge).
    pub frequent_slots: usize,
    /// Bytes of a frequent value kept to show it.
    pub frequent_sample_bytes: usize,
    /// Features (and event tags and runs) summarised before the rest are folded.
    pub max_features: usize,
    /// Records summarised as one chunk (a file's chunks are merged in order).
    pub chunk_records: usize,
    pub ddsketch: SketchParameters,
}

/// The quantile sketch's parameters ([`quantiles`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SketchParameters {
    /// How a value's bin is found: `log-linear` (sign, binary exponent, top mantissa bits).
    pub mapping: String,
    /// Mantissa bits naming a bin within a power of two.
    pub sub_bits: u32,
    /// Bins kept per sign before the smallest magnitudes collapse.
    pub max_bins_per_sign: usize,
    pub relative_error: f64,
}

impl Header {
    /// The header of the partials this build writes.
    pub fn current() -> Header {
        Header {
            format: FORMAT.into(),
            version: VERSION,
            hash: HASH.into(),
            hll_precision: sketch::HLL_BITS,
            exact_distinct: sketch::EXACT_DISTINCT,
            frequent_slots: sketch::FREQUENT_SLOTS,
            frequent_sample_bytes: sketch::SAMPLE_BYTES,
            max_features: MAX_FEATURES,
            chunk_records: run::CHUNK,
            ddsketch: SketchParameters {
                mapping: "log-linear".into(),
                sub_bits: quantiles::SUB_BITS,
                max_bins_per_sign: quantiles::MAX_BINS,
                relative_error: quantiles::RELATIVE_ERROR,
            },
        }
    }
}

/// A path as written: its text when it is UTF-8, its bytes otherwise (on Unix, where a name is
/// any bytes), so that a merge names the very file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathText {
    Utf8(String),
    Bytes(Vec<u8>),
}

impl PathText {
    pub fn of(path: &Path) -> PathText {
        match path.to_str() {
            Some(text) => PathText::Utf8(text.to_string()),
            None => PathText::Bytes(path_bytes(path)),
        }
    }

    pub fn to_path(&self) -> PathBuf {
        match self {
            PathText::Utf8(text) => PathBuf::from(text),
            PathText::Bytes(bytes) => path_from_bytes(bytes),
        }
    }
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Where a file's summary is: its line's offset past the contents line, and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub offset: u64,
    pub len: u64,
}

/// What a partial says of one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    pub path: PathText,
    /// The split it is a shard of, by the name the run found for it.
    pub split: Option<String>,
    pub unreadable: Option<String>,
    pub changed: Option<String>,
    pub damaged_stream: Option<String>,
    /// Its summary, when it has records.
    pub summary: Option<Span>,
}

/// A dataset problem, and whether the shards' names alone show it (a merge finds those again
/// over all the files, since a part of a dataset misses the shards of the other parts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemEntry {
    pub text: String,
    pub from_names: bool,
}

/// A note of the run: `unusable` when it made the run's status 2.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Note {
    pub text: String,
    pub unusable: bool,
}

/// A partial's second line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contents {
    pub files: Vec<FileEntry>,
    /// The directories given, under which event files' runs are named.
    pub roots: Vec<PathText>,
    pub problems: Vec<ProblemEntry>,
    /// What was said before the files were read, in order: arguments that could not be used,
    /// files set aside, `features.json` notes.
    pub notes: Vec<Note>,
}

/// What the run that writes a partial found besides the files' figures.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// Per file of the plan, the split it is a shard of.
    pub splits: Vec<Option<String>>,
    /// The directories given.
    pub roots: Vec<PathBuf>,
    pub problems: Vec<ProblemEntry>,
    pub notes: Vec<Note>,
}

impl Facts {
    /// What a run over `dataset` as `plan` reads it says before reading the files, for a merge
    /// to say again: arguments that could not be used, files set aside, `features.json` notes.
    pub fn notes_of(dataset: &crate::dataset::Dataset, plan: &Plan) -> Vec<Note> {
        let unusable = |text: String| Note {
            text,
            unusable: true,
        };
        let mut notes: Vec<Note> = dataset.errors.iter().cloned().map(unusable).collect();
        for set in &dataset.snapshots {
            notes.extend(set.snapshot.notes.iter().map(|n| unusable(n.to_string())));
        }
        notes.extend(dataset.skipped.iter().map(|file| Note {
            text: format!(
                "{}: skipped: {}",
                crate::escape::path_for_terminal(&file.path),
                file.reason
            ),
            unusable: false,
        }));
        notes.extend(plan.spec_notes.iter().map(|note| match note {
            run::SpecNote::Unusable(note) => unusable(format!("{note}; figures made without it")),
            run::SpecNote::Note(note) => Note {
                text: note.to_string(),
                unusable: false,
            },
        }));
        notes
    }

    /// The facts of `dataset` as `plan` reads it, with `notes` said already; `roots` are the
    /// arguments (those that are directories are kept).
    pub fn of(dataset: &crate::dataset::Dataset, roots: &[PathBuf], notes: Vec<Note>) -> Facts {
        let from_names: Vec<String> = dataset
            .splits
            .iter()
            .flat_map(|s| s.set.problems(s.name.raw()))
            .map(|p| p.to_string())
            .collect();
        Facts {
            splits: dataset
                .members
                .iter()
                .map(|m| {
                    let (split, _) = m.shard?;
                    Some(dataset.splits.get(split)?.name.raw().to_string())
                })
                .collect(),
            roots: roots.iter().filter(|r| r.is_dir()).cloned().collect(),
            problems: dataset
                .problems
                .iter()
                .map(|p| {
                    let text = p.to_string();
                    let from_names = from_names.contains(&text);
                    ProblemEntry { text, from_names }
                })
                .collect(),
            notes,
        }
    }
}

/// Counts the bytes written through it.
struct Counted<W> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written = self.written.saturating_add(n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Summarises the files of `plan` in one pass (as [`run::compute_observed`] does) and writes
/// their partial to `out`; returns the outcome one pass over them gives, for the run's messages
/// and status. The summaries go to an unnamed temporary file while the files are read (the
/// contents line, written before them, is known only at the end), so memory holds one file's
/// summary at a time.
pub fn write(
    plan: &Plan,
    facts: &Facts,
    (decoder, read): (&Decoder, &ReadOptions),
    progress: &(dyn Fn(u64, u64) + Sync),
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut spill = Counted {
        inner: BufWriter::new(tempfile::tempfile()?),
        written: 0,
    };
    let mut files = Vec::with_capacity(plan.files.len());
    let mut fold = Fold::new(plan.groups.len());
    let mut failed: Option<io::Error> = None;
    run::each_file(plan, decoder, read, progress, |file, result| {
        let summary = match (&result.stats, &failed) {
            (Some(stats), None) => {
                let offset = spill.written;
                let written = serde_json::to_writer(&mut spill, stats)
                    .map_err(io::Error::from)
                    .and_then(|_| spill.write_all(b"\n"));
                match written {
                    Ok(()) => Some(Span {
                        offset,
                        len: spill.written - offset,
                    }),
                    Err(e) => {
                        failed = Some(e);
                        None
                    }
                }
            }
            _ => None,
        };
        let path = plan.files.get(file).cloned().unwrap_or_default();
        files.push(FileEntry {
            path: PathText::of(&path),
            split: facts.splits.get(file).cloned().flatten(),
            unreadable: result.unreadable.clone(),
            changed: result.changed.clone(),
            damaged_stream: result.damaged_stream.clone(),
            summary,
        });
        if let Some(&group) = plan.group_of.get(file) {
            fold.add(group, &path, result);
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let contents = Contents {
        files,
        roots: facts.roots.iter().map(|r| PathText::of(r)).collect(),
        problems: facts.problems.clone(),
        notes: facts.notes.clone(),
    };
    serde_json::to_writer(&mut *out, &Header::current())?;
    out.write_all(b"\n")?;
    serde_json::to_writer(&mut *out, &contents)?;
    out.write_all(b"\n")?;
    let mut spill = spill.inner.into_inner().map_err(|e| e.into_error())?;
    spill.rewind()?;
    io::copy(&mut spill, out)?;
    Ok(fold.finish(&plan.groups))
}

/// Checks what a summary read from a partial holds against what a summary can hold, and makes
/// it the summary of member `member` of run `run`: a file's figures name the file they came from
/// by its place among the files read, and its events are under its run, and both depend on
/// every file merged.
fn adopt(mut stats: Stats, member: usize, run: &str) -> Result<Stats, String> {
    if stats.features.len() > MAX_FEATURES {
        return Err(format!("more than {MAX_FEATURES} features"));
    }
    let bounded = stats
        .features
        .values()
        .all(|f| f.numeric.quantiles.within_bounds() && f.bytes.lengths.quantiles.within_bounds());
    if !bounded {
        return Err("a quantile sketch with more bins than a sketch keeps".into());
    }
    // One file's events are of one run.
    if stats.events.runs.len() > 1 {
        return Err("events of more than one run in one file".into());
    }
    if stats
        .events
        .runs
        .values()
        .any(|r| r.tags.len() > events::MAX_TAGS)
    {
        return Err(format!("more than {} tags in a run", events::MAX_TAGS));
    }
    for feature in stats.features.values_mut() {
        for first in feature.first_in.iter_mut().flatten() {
            *first = member;
        }
    }
    if let Some((name, _)) = stats.events.runs.first_key_value() {
        if name != run {
            let runs = std::mem::take(&mut stats.events.runs);
            stats.events.runs = runs.into_values().map(|r| (run.to_string(), r)).collect();
        }
    }
    Ok(stats)
}

/// A [`FileResult`] from what a partial says of a file and its summary.
fn file_result(entry: &FileEntry, stats: Option<Stats>) -> FileResult {
    FileResult {
        stats,
        unreadable: entry.unreadable.clone(),
        changed: entry.changed.clone(),
        damaged_stream: entry.damaged_stream.clone(),
    }
}

#[cfg(test)]
mod tests;
