//! `verify --merge`: the `verify --json` outputs of parts of a dataset, checked apart (a shard or
//! a few per machine), merged into what one `verify` over all their files says.
//!
//! Each file's line is read back as its verdict and what the text output says of it; the files
//! are put in the order one run over all of them checks them (by path, each split's shards in
//! number order, see [`Dataset::regroup`]), whatever the order of the parts or of their lines, so
//! that split-wide record numbers, the shard set's completeness and the counts of
//! `dataset_info.json` are judged over the whole. What only a part's run could see (metadata that
//! could not be read, splits its directory's metadata lists without shards, files set aside,
//! arguments that could not be used) comes from the parts' `{"dataset": …}` lines.
//!
//! Every line read is capped; a part that is not `verify --json` output, that lacks what a merge
//! needs (made by an older tfr-inspect), or that disagrees with another part is an error naming it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::verify::{DATASET_LINE, FILE_LINE, Said, SaidProblem};
use crate::compress::Compression;
use crate::dataset::tfds::SplitInfo;
use crate::dataset::{Dataset, Problem, Skipped, Tally};
use crate::escape::path_for_terminal;

/// The longest line read: a file's verdict with many problems, or a dataset's summary.
pub const LINE_CAP: u64 = 1 << 30;

/// Why parts could not be merged: the part, and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path_for_terminal(path))]
pub struct MergeError {
    pub path: PathBuf,
    pub message: String,
}

fn error(path: &Path, message: impl Into<String>) -> MergeError {
    MergeError {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// One file's verdict as a part gave it.
#[derive(Debug, Clone)]
pub struct MergedFile {
    pub path: PathBuf,
    /// What the text output says of it and its tally, or why it could not be checked.
    pub outcome: Result<(Said, Tally), String>,
    /// Its `--json` object without its name and place (a merge places it anew).
    pub json: Map<String, Value>,
}

/// A merged file's line of `verify --json`: its name and its place in the whole dataset, then
/// its verdict as its part gave it.
#[derive(Debug, serde::Serialize)]
pub struct Line<'a> {
    /// Always [`FILE_LINE`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub file: String,
    #[serde(flatten)]
    pub place: Option<crate::dataset::report::SplitPlace>,
    #[serde(flatten)]
    pub verdict: &'a Map<String, Value>,
}

/// What merging parts found: what one `verify` over all their files finds.
#[derive(Debug)]
pub struct Merged {
    /// The files' dataset, rebuilt from their paths, with the metadata the parts read.
    pub dataset: Dataset,
    /// One per member of `dataset`, in its order.
    pub files: Vec<MergedFile>,
    /// Per part whose run could not use some of its arguments, a sentence saying how many (they
    /// were named where it was checked); each is one of the dataset's `errors`.
    pub unusable_inputs: Vec<String>,
}

/// A file's line of `verify --json`, as far as a merge reads it.
#[derive(Debug, Deserialize)]
struct FileIn {
    file: String,
    split: Option<String>,
    error: Option<String>,
    ok: Option<bool>,
    frames: Option<u64>,
    intact: Option<u64>,
    damaged: Option<u64>,
    bytes: Option<u64>,
    payload_bytes: Option<u64>,
    #[serde(default)]
    problems: Vec<ProblemIn>,
    #[serde(default)]
    notes: Vec<String>,
    compression: Option<String>,
    compressed_bytes: Option<u64>,
    images_undecodable: Option<u64>,
    images_not_decoded: Option<Vec<Value>>,
}

#[derive(Debug, Deserialize)]
struct ProblemIn {
    index: Option<usize>,
    skipped: (u64, u64),
    problem: String,
}

/// A run's `{"dataset": …}` line, as far as a merge reads it.
#[derive(Debug, Deserialize)]
struct DatasetIn {
    not_read: u64,
    problems: Vec<ProblemTextIn>,
    skipped: Vec<SkippedIn>,
    snapshots: Vec<Value>,
    splits: Vec<SplitIn>,
}

#[derive(Debug, Deserialize)]
struct ProblemTextIn {
    kind: String,
    split: Option<String>,
    problem: String,
}

#[derive(Debug, Deserialize)]
struct SkippedIn {
    file: String,
    reason: String,
}

#[derive(Debug, Deserialize)]
struct SplitIn {
    name: String,
    dataset_info: Option<String>,
    dataset_info_shard_lengths: Option<Vec<u64>>,
    dataset_info_num_bytes: Option<u64>,
}

/// The most arguments parts may say their runs could not use, in all.
const MAX_UNUSABLE: u64 = 1 << 16;

/// The problems a merge carries from the parts as they worded them: those found from what only
/// their runs read (the rest are found again over the whole).
const CARRIED: [&str; 2] = ["metadata_unreadable", "split_missing"];

/// Reads one line of at most `cap` bytes; `None` at the end.
fn line(reader: &mut impl BufRead, cap: u64) -> Result<Option<Vec<u8>>, String> {
    let mut line = Vec::new();
    reader
        .take(cap)
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    if line.is_empty() {
        return Ok(None);
    }
    match line.last() {
        Some(b'\n') => Ok(Some(line)),
        _ if line.len() as u64 >= cap => Err(format!("a line is longer than {cap} bytes")),
        // The last line of a file written without a final newline.
        _ => Ok(Some(line)),
    }
}

/// What one part says.
#[derive(Default)]
struct Part {
    files: Vec<MergedFile>,
    /// Per file, the split it is a shard of.
    splits: Vec<Option<String>>,
    dataset: Option<DatasetIn>,
}

fn read_part(path: &Path) -> Result<Part, MergeError> {
    // A regular file only, opened without blocking (a named pipe would hang the merge).
    let (file, _) = crate::sidefile::open_regular(path).map_err(|e| error(path, e.to_string()))?;
    read_lines(path, BufReader::new(file))
}

/// Reads the lines of one part, named `path` in errors, from `reader`.
fn read_lines(path: &Path, mut reader: impl BufRead) -> Result<Part, MergeError> {
    let mut part = Part::default();
    let mut number = 0u64;
    while let Some(bytes) = line(&mut reader, LINE_CAP).map_err(|m| error(path, m))? {
        number += 1;
        let at = |m: String| error(path, format!("line {number}: {m}"));
        if part.dataset.is_some() {
            return Err(at("a line after the dataset's summary".into()));
        }
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| at(format!("not a line of `verify --json`: {e}")))?;
        let Value::Object(mut object) = value else {
            return Err(at("not a line of `verify --json` (no JSON object)".into()));
        };
        // A line's `type` says what it is; lines written before it was (none has one) are
        // told apart by their `dataset` key.
        let dataset_line = match object.remove("type") {
            None => object.contains_key("dataset"),
            Some(Value::String(kind)) if kind == DATASET_LINE => true,
            Some(Value::String(kind)) if kind == FILE_LINE => false,
            Some(_) => {
                return Err(at(format!(
                    "not a line of `verify --json` (its `type` is neither \"{FILE_LINE}\" nor \"{DATASET_LINE}\")"
                )));
            }
        };
        if dataset_line {
            let dataset = object
                .remove("dataset")
                .ok_or_else(|| at("a dataset's summary without its `dataset`".into()))?;
            let dataset: DatasetIn = serde_json::from_value(dataset)
                .map_err(|e| at(format!("its dataset summary cannot be read: {e}")))?;
            part.dataset = Some(dataset);
            continue;
        }
        let line: FileIn = serde_json::from_value(Value::Object(object.clone()))
            .map_err(|e| at(format!("not a line of `verify --json`: {e}")))?;
        for key in ["file", "split", "shard", "split_first_record"] {
            object.remove(key);
        }
        let outcome = match &line.error {
            Some(e) => Err(e.clone()),
            None => Ok(checked(&line, &mut object).map_err(at)?),
        };
        part.splits.push(line.split.clone());
        part.files.push(MergedFile {
            path: PathBuf::from(&line.file),
            outcome,
            json: object,
        });
    }
    if part.files.is_empty() {
        return Err(error(path, "holds no file's verdict of `verify --json`"));
    }
    Ok(part)
}

/// A checked file's verdict and tally from its line; its compression ratio is computed again
/// from the sizes, as the check computed it, so that its JSON is the check's to the bit.
fn checked(line: &FileIn, object: &mut Map<String, Value>) -> Result<(Said, Tally), String> {
    let missing = |what: &str| {
        format!("no `{what}` in a file's verdict (made by a tfr-inspect that cannot be merged?)")
    };
    let ok = line.ok.ok_or_else(|| missing("ok"))?;
    let frames = line.frames.ok_or_else(|| missing("frames"))?;
    let intact = line.intact.ok_or_else(|| missing("intact"))?;
    let damaged = line.damaged.ok_or_else(|| missing("damaged"))?;
    let bytes = line.bytes.ok_or_else(|| missing("bytes"))?;
    let payload_bytes = line.payload_bytes.ok_or_else(|| missing("payload_bytes"))?;
    let compression = match (&line.compression, line.compressed_bytes) {
        (None, _) => None,
        (Some(name), Some(on_disk)) => {
            let kind = match name.as_str() {
                "gzip" => Compression::Gzip,
                "zlib" => Compression::Zlib,
                "snappy" => Compression::Snappy,
                other => return Err(format!("unknown compression {other:?}")),
            };
            let ratio = match on_disk {
                0 => 0.0,
                n => bytes as f64 / n as f64,
            };
            object.insert("ratio".into(), Value::from(ratio));
            Some((kind, on_disk))
        }
        (Some(_), None) => return Err(missing("compressed_bytes")),
    };
    let images = match (line.images_undecodable, &line.images_not_decoded) {
        (Some(undecodable), Some(not_decoded)) => Some((undecodable, not_decoded.len() as u64)),
        _ => None,
    };
    let problems: Vec<SaidProblem> = line
        .problems
        .iter()
        .map(|p| SaidProblem {
            index: p.index,
            start: p.skipped.0,
            // Worded where it was checked; escaped again, as any text read is.
            description: crate::escape::for_terminal(&p.problem).into_owned(),
        })
        .collect();
    // A problem of no frame is the compressed stream's: damage of its own in the tally.
    let stream_damaged = problems.iter().any(|p| p.index.is_none());
    let tally = Tally {
        frames,
        intact: frames.saturating_sub(damaged),
        damaged: damaged.saturating_add(u64::from(stream_damaged)),
        payload_bytes,
        compression: compression.map(|(kind, _)| kind),
    };
    let said = Said {
        ok,
        frames,
        intact,
        damaged,
        bytes,
        problems,
        notes: line
            .notes
            .iter()
            .map(|n| crate::escape::for_terminal(n).into_owned())
            .collect(),
        compression,
        images,
    };
    Ok((said, tally))
}

/// Merges the `verify --json` outputs `paths` into what one `verify` over all their files
/// finds.
pub fn merge(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut parts = Vec::with_capacity(paths.len());
    for path in paths {
        parts.push((path.as_path(), read_part(path)?));
    }
    merge_parts(paths, parts)
}

/// Merges parts already at hand, each a name (what errors and sentences call it, as a part's
/// path is called) and a reader of its `verify --json` text: what a pipeline gathered from its
/// workers, say. What one `verify` over all their files finds, as [`merge`] finds it.
pub fn merge_readers<R: BufRead>(parts: Vec<(PathBuf, R)>) -> Result<Merged, MergeError> {
    let mut names = Vec::with_capacity(parts.len());
    let mut read = Vec::with_capacity(parts.len());
    for (name, reader) in parts {
        read.push(read_lines(&name, reader)?);
        names.push(name);
    }
    let parts = names.iter().map(PathBuf::as_path).zip(read).collect();
    merge_parts(&names, parts)
}

fn merge_parts(paths: &[PathBuf], mut parts: Vec<(&Path, Part)>) -> Result<Merged, MergeError> {
    // Each file once, with the part it came from and its split.
    let mut by_path: HashMap<PathBuf, (usize, MergedFile, Option<String>)> = HashMap::new();
    let mut images: Option<(bool, &Path)> = None;
    for (i, (path, part)) in parts.iter_mut().enumerate() {
        let files = std::mem::take(&mut part.files);
        for (file, split) in files.into_iter().zip(part.splits.drain(..)) {
            if let Ok((said, _)) = &file.outcome {
                let with_images = said.images.is_some();
                match images {
                    None => images = Some((with_images, path)),
                    Some((first, other)) if first != with_images => {
                        return Err(error(
                            path,
                            format!(
                                "checked {} --images, and {} {}: their verdicts do not merge",
                                if with_images { "with" } else { "without" },
                                path_for_terminal(other),
                                if first { "with" } else { "without" },
                            ),
                        ));
                    }
                    Some(_) => {}
                }
            }
            if let Some((other, _, _)) = by_path.get(&file.path) {
                let other = parts_path(paths, *other);
                return Err(error(
                    path,
                    format!(
                        "{} is checked here and in {} too",
                        path_for_terminal(&file.path),
                        path_for_terminal(other)
                    ),
                ));
            }
            by_path.insert(file.path.clone(), (i, file, split));
        }
    }
    let mut files: Vec<PathBuf> = by_path.keys().cloned().collect();
    files.sort();
    let split_name = |p: &Path| by_path.get(p).and_then(|(_, _, split)| split.clone());
    let mut dataset = Dataset::regroup(files, &split_name);
    let names_problems = std::mem::take(&mut dataset.problems);
    let infos = split_infos(&parts)?;
    for split in &mut dataset.splits {
        if let Some((info_path, promised)) = infos.get(split.name.raw()) {
            split.info = Some((
                PathBuf::from(info_path),
                SplitInfo {
                    name: split.name.raw().to_string(),
                    file_prefix: None,
                    shard_lengths: promised.0.clone(),
                    num_bytes: promised.1,
                },
            ));
        }
    }
    // As one run finds them: the metadata's, then the names', then the splits listed unfound.
    let carried = carried_problems(&parts)?;
    let (metadata, missing): (Vec<Problem>, Vec<Problem>) = carried
        .into_iter()
        .partition(|p| p.kind() == "metadata_unreadable");
    dataset.problems = metadata;
    dataset.problems.extend(names_problems);
    dataset.problems.extend(missing);
    let mut skipped: BTreeMap<String, String> = BTreeMap::new();
    let mut unusable_inputs: Vec<String> = Vec::new();
    for (_, part) in &parts {
        let Some(summary) = &part.dataset else {
            continue;
        };
        dataset.is_dataset = true;
        for s in &summary.skipped {
            let reason = crate::escape::for_terminal(&s.reason).into_owned();
            skipped.entry(s.file.clone()).or_insert(reason);
        }
    }
    // Per part, the arguments its run could not use: inputs it did not read, less its files
    // that could not be read (counted in one pass over the files).
    let mut unreadable = vec![0u64; parts.len()];
    for (from, file, _) in by_path.values() {
        if let (Some(count), Err(_)) = (unreadable.get_mut(*from), &file.outcome) {
            *count += 1;
        }
    }
    for ((path, part), unreadable) in parts.iter().zip(unreadable) {
        let Some(summary) = &part.dataset else {
            continue;
        };
        let count = summary.not_read.saturating_sub(unreadable);
        if count == 0 {
            continue;
        }
        let total = dataset.errors.len() as u64 + count;
        if total > MAX_UNUSABLE {
            return Err(error(
                path,
                format!(
                    "says {count} inputs were not read; more than {MAX_UNUSABLE} in all are not merged"
                ),
            ));
        }
        let text = format!(
            "{}: {} could not be used where it was checked",
            path_for_terminal(path),
            crate::words::plural(count, "argument")
        );
        unusable_inputs.push(text.clone());
        dataset.errors.extend((0..count).map(|_| text.clone()));
    }
    dataset.skipped = skipped
        .into_iter()
        .map(|(file, reason)| Skipped {
            path: PathBuf::from(file),
            reason,
        })
        .collect();
    let mut files = Vec::with_capacity(dataset.members.len());
    for member in &dataset.members {
        if let Some((_, file, _)) = by_path.remove(&member.path) {
            files.push(file);
        }
    }
    Ok(Merged {
        dataset,
        files,
        unusable_inputs,
    })
}

fn parts_path(paths: &[PathBuf], i: usize) -> &Path {
    paths.get(i).map_or(Path::new(""), PathBuf::as_path)
}

/// What shard lengths and bytes a split's `dataset_info.json` promises.
type Promise = (Vec<u64>, Option<u64>);

/// Per split named by a part's summary, the `dataset_info.json` it was checked against and what
/// that promises; parts that disagree do not merge.
fn split_infos(parts: &[(&Path, Part)]) -> Result<HashMap<String, (String, Promise)>, MergeError> {
    let mut infos: HashMap<String, (String, Promise, &Path)> = HashMap::new();
    for (path, part) in parts {
        let Some(summary) = &part.dataset else {
            continue;
        };
        for split in &summary.splits {
            let Some(info) = &split.dataset_info else {
                continue;
            };
            let Some(lengths) = &split.dataset_info_shard_lengths else {
                return Err(error(
                    path,
                    format!(
                        "split {} names {} but not what it promises (made by a tfr-inspect that cannot be merged?)",
                        crate::escape::for_terminal(&split.name),
                        crate::escape::for_terminal(info)
                    ),
                ));
            };
            let promise = (lengths.clone(), split.dataset_info_num_bytes);
            match infos.get(&split.name) {
                Some((known, before, other)) if (known, before) != (info, &promise) => {
                    return Err(error(
                        path,
                        format!(
                            "split {} was checked against another dataset_info.json in {}",
                            crate::escape::for_terminal(&split.name),
                            path_for_terminal(other)
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    infos.insert(split.name.clone(), (info.clone(), promise, path));
                }
            }
        }
    }
    Ok(infos
        .into_iter()
        .map(|(name, (info, promise, _))| (name, (info, promise)))
        .collect())
}

/// The problems the parts found that a merge cannot find again, each once, in the order of the
/// parts' paths; a tf.data snapshot's summary is not merged.
fn carried_problems(parts: &[(&Path, Part)]) -> Result<Vec<Problem>, MergeError> {
    let mut ordered: Vec<&(&Path, Part)> = parts.iter().collect();
    ordered.sort_by_key(|(path, _)| path.to_path_buf());
    let mut problems: Vec<Problem> = Vec::new();
    let mut said: HashSet<String> = HashSet::new();
    for (path, part) in ordered {
        let Some(summary) = &part.dataset else {
            continue;
        };
        if !summary.snapshots.is_empty() {
            return Err(error(
                path,
                "checks a tf.data snapshot, whose verdicts are not merged (verify it in one run)",
            ));
        }
        for p in &summary.problems {
            let Some(kind) = CARRIED.iter().find(|k| **k == p.kind) else {
                continue;
            };
            let problem = Problem::Reported {
                kind,
                split: p.split.clone(),
                text: crate::escape::for_terminal(&p.problem).into_owned(),
            };
            if said.insert(problem.to_string()) {
                problems.push(problem);
            }
        }
    }
    Ok(problems)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
#[path = "verify_merge_tests.rs"]
mod tests;
