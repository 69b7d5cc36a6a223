//! Merging partials: every partial's header and contents are read first (the summaries are not),
//! the files of all of them put in the order one pass over all of them reads them (by path, as a
//! directory or a pattern finds them, each split's shards in number order, see
//! [`crate::dataset::Dataset::regroup`]), and their summaries then read one at a time and folded
//! into their splits in that order, so that no more than one file's summary is in memory besides
//! the splits'. When a partial's files are not one run in that order (partials of interleaved
//! shards), its summaries are read where they come, a seek each.
//!
//! A partial is a file ([`merge`]) or bytes held in memory under a name ([`merge_sources`]): the
//! Python package's partials cross process boundaries as bytes.
//!
//! Every length read is capped and checked against the file before anything is allocated for it;
//! a partial that is cut short, is not one, or was made with other parameters is an error naming
//! it.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::{Contents, FileEntry, Header, Note, Span, adopt, file_result};
use crate::dataset::Dataset;
use crate::escape::path_for_terminal;
use crate::stats::Stats;
use crate::stats::run::{Fold, Outcome, Plan};

/// The longest header line read.
const HEADER_CAP: u64 = 64 * 1024;
/// The longest contents line read: some 300 bytes a file, for millions of files.
pub const CONTENTS_CAP: u64 = 1 << 30;
/// The longest file summary read. A summary holds at most [`crate::stats::MAX_FEATURES`]
/// features of bounded sketches; the largest real ones are tens of megabytes.
pub const SUMMARY_CAP: u64 = 1 << 30;

/// Why partials could not be merged: the partial, and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path_for_terminal(path))]
pub struct PartialError {
    pub path: PathBuf,
    pub message: String,
}

fn error(path: &Path, message: impl Into<String>) -> PartialError {
    PartialError {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// What merging partials found: what one pass over all their files finds.
#[derive(Debug)]
pub struct Merged {
    pub outcome: Outcome,
    /// The files, in the order read (the report names a file by its place here).
    pub files: Vec<PathBuf>,
    /// The dataset's problems: those of the partials' metadata, then those the shards' names
    /// show over all the files.
    pub problems: Vec<String>,
    /// What the runs said before reading, each once, in the order of the files.
    pub notes: Vec<Note>,
}

/// A partial to merge: a file, or a partial's bytes held in memory and the name messages give it.
#[derive(Debug, Clone, Copy)]
pub enum PartialSource<'a> {
    File(&'a Path),
    Bytes { name: &'a Path, bytes: &'a [u8] },
}

/// What a partial is read through: a buffered file or the bytes themselves.
trait PartReader: BufRead + Seek {}
impl<T: BufRead + Seek> PartReader for T {}

impl<'a> PartialSource<'a> {
    fn name(&self) -> &'a Path {
        match *self {
            PartialSource::File(path) => path,
            PartialSource::Bytes { name, .. } => name,
        }
    }

    /// A reader at its start, and its size.
    fn open(&self) -> std::io::Result<(Box<dyn PartReader + 'a>, u64)> {
        match *self {
            PartialSource::File(path) => {
                // A regular file only, opened without blocking: a named pipe put in its place
                // would otherwise hang the merge.
                let (file, meta) = crate::sidefile::open_regular(path)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                let size = meta.len();
                Ok((Box::new(BufReader::new(file)), size))
            }
            PartialSource::Bytes { bytes, .. } => {
                Ok((Box::new(Cursor::new(bytes)), bytes.len() as u64))
            }
        }
    }
}

/// One partial, its contents read.
struct Part<'a> {
    path: PathBuf,
    source: PartialSource<'a>,
    contents: Contents,
    /// Where its summaries start.
    body: u64,
}

/// Reads one line of at most `cap` bytes (its newline included).
fn line(reader: &mut impl BufRead, cap: u64, what: &str) -> Result<Vec<u8>, String> {
    let mut line = Vec::new();
    reader
        .take(cap)
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    match line.last() {
        Some(b'\n') => Ok(line),
        _ if line.len() as u64 >= cap => Err(format!("its {what} is longer than {cap} bytes")),
        _ => Err(format!("cut short in its {what}")),
    }
}

/// Whether a header line is this build's, or why not.
fn check_header(bytes: &[u8]) -> Result<(), String> {
    let not_one = || format!("not a {} (its first line is no header)", super::FORMAT);
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| not_one())?;
    if value.get("format").and_then(|f| f.as_str()) != Some(super::FORMAT) {
        return Err(not_one());
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(super::VERSION) => {}
        Some(v) => {
            return Err(format!(
                "written in format version {v}; this tfr-inspect reads version {}",
                super::VERSION
            ));
        }
        None => return Err("its header has no format version".into()),
    }
    let header: Header = serde_json::from_value(value.clone())
        .map_err(|e| format!("its header cannot be read: {e}"))?;
    let ours = Header::current();
    if header != ours {
        let theirs = serde_json::to_value(&header).unwrap_or_default();
        let mine = serde_json::to_value(&ours).unwrap_or_default();
        let differ: Vec<String> = match (theirs.as_object(), mine.as_object()) {
            (Some(t), Some(m)) => m
                .iter()
                .filter(|(k, v)| t.get(*k) != Some(*v))
                .map(|(k, v)| format!("{k} {} (here {v})", t.get(k).unwrap_or(&v.clone())))
                .collect(),
            _ => Vec::new(),
        };
        return Err(format!(
            "made with other parameters, so its summaries do not merge with these: {}",
            differ.join(", ")
        ));
    }
    Ok(())
}

/// Reads a partial's header and contents (not its summaries), checking that every summary it
/// points to lies within it.
fn open_part(source: PartialSource<'_>) -> Result<Part<'_>, PartialError> {
    let path = source.name();
    let (mut reader, size) = source.open().map_err(|e| error(path, e.to_string()))?;
    let header = line(&mut reader, HEADER_CAP, "header").map_err(|m| error(path, m))?;
    check_header(&header).map_err(|m| error(path, m))?;
    let contents_line =
        line(&mut reader, CONTENTS_CAP, "list of files").map_err(|m| error(path, m))?;
    let contents: Contents = serde_json::from_slice(&contents_line)
        .map_err(|e| error(path, format!("its list of files cannot be read: {e}")))?;
    let body = (header.len() + contents_line.len()) as u64;
    let room = size.saturating_sub(body);
    for entry in &contents.files {
        if let Some(Span { offset, len }) = entry.summary {
            if offset.checked_add(len).is_none_or(|end| end > room) || len > SUMMARY_CAP {
                return Err(error(
                    path,
                    format!(
                        "the summary of {} lies past its end (cut short?)",
                        path_for_terminal(&entry.path.to_path())
                    ),
                ));
            }
        }
    }
    Ok(Part {
        path: path.to_path_buf(),
        source,
        contents,
        body,
    })
}

/// Reads the summary at `span` of `part` through `reader`.
fn load(reader: &mut dyn PartReader, part: &Part<'_>, span: Span) -> Result<Stats, String> {
    let start = part.body.saturating_add(span.offset);
    reader
        .seek(SeekFrom::Start(start))
        .map_err(|e| e.to_string())?;
    // The length is checked against the file already; `take` bounds it again should the file
    // have shrunk since.
    let mut bytes = Vec::new();
    reader
        .take(span.len)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 != span.len || bytes.last() != Some(&b'\n') {
        return Err("a summary is cut short".into());
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("a summary cannot be read: {e}"))
}

/// Merges the partials `paths` into what one pass over all their files finds.
pub fn merge(paths: &[PathBuf]) -> Result<Merged, PartialError> {
    let sources: Vec<PartialSource<'_>> = paths.iter().map(|p| PartialSource::File(p)).collect();
    merge_sources(&sources)
}

/// Merges the partials `sources` (files or bytes) into what one pass over all their files finds,
/// whatever their order.
pub fn merge_sources(sources: &[PartialSource<'_>]) -> Result<Merged, PartialError> {
    let parts: Vec<Part<'_>> = sources
        .iter()
        .map(|s| open_part(*s))
        .collect::<Result<_, _>>()?;
    // Every file, once: by path, its partial and its place there.
    let mut where_is: HashMap<PathBuf, (usize, usize)> = HashMap::new();
    for (p, part) in parts.iter().enumerate() {
        for (f, entry) in part.contents.files.iter().enumerate() {
            let file = entry.path.to_path();
            if let Some((other, _)) = where_is.insert(file.clone(), (p, f)) {
                let other = parts.get(other).map_or(Path::new(""), |o| o.path.as_path());
                return Err(error(
                    &part.path,
                    format!(
                        "{} is summarised in {} too; each file must be in one partial",
                        path_for_terminal(&file),
                        path_for_terminal(other)
                    ),
                ));
            }
        }
    }
    let entry_of = |file: &Path| {
        let &(p, f) = where_is.get(file)?;
        let part = parts.get(p)?;
        Some((p, part, part.contents.files.get(f)?))
    };
    let mut files: Vec<PathBuf> = where_is.keys().cloned().collect();
    files.sort();
    let split_name = |file: &Path| entry_of(file).and_then(|(_, _, e)| e.split.clone());
    let dataset = Dataset::regroup(files, &split_name);
    let mut roots: Vec<PathBuf> = parts
        .iter()
        .flat_map(|p| p.contents.roots.iter().map(|r| r.to_path()))
        .collect();
    roots.sort();
    roots.dedup();
    let plan = Plan::without_specs(&dataset).with_dirs(&roots);

    let mut fold = Fold::new(plan.groups.len());
    let mut open: Option<(usize, Box<dyn PartReader + '_>)> = None;
    for (member, file) in plan.files.iter().enumerate() {
        let Some((p, part, entry)) = entry_of(file) else {
            continue;
        };
        let stats = match entry.summary {
            Some(span) => Some(summary(&mut open, p, part, entry, span, &plan, member)?),
            None => None,
        };
        if let Some(&group) = plan.group_of.get(member) {
            fold.add(group, file, file_result(entry, stats));
        }
    }
    let outcome = fold.finish(&plan.groups);
    Ok(Merged {
        outcome,
        problems: problems(&parts, &plan, &dataset, &entry_of),
        notes: notes(&parts, &plan, &entry_of),
        files: plan.files,
    })
}

/// The summary of `entry` of partial `part` (number `p`), read through the partial open in
/// `open` (opened when another is), made member `member`'s.
fn summary<'a>(
    open: &mut Option<(usize, Box<dyn PartReader + 'a>)>,
    p: usize,
    part: &Part<'a>,
    entry: &FileEntry,
    span: Span,
    plan: &Plan,
    member: usize,
) -> Result<Stats, PartialError> {
    let fail = |m: String| {
        error(
            &part.path,
            format!("{} (of {})", m, path_for_terminal(&entry.path.to_path())),
        )
    };
    if open.as_ref().is_none_or(|(at, _)| *at != p) {
        let (reader, _) = part.source.open().map_err(|e| fail(e.to_string()))?;
        *open = Some((p, reader));
    }
    let Some((_, reader)) = open.as_mut() else {
        return Err(fail("not open".into()));
    };
    let stats = load(reader.as_mut(), part, span).map_err(fail)?;
    let run = plan.runs.get(member).map_or(".", String::as_str);
    adopt(stats, member, run).map_err(fail)
}

type EntryOf<'a> = dyn Fn(&Path) -> Option<(usize, &'a Part<'a>, &'a FileEntry)> + 'a;

/// The partials in the order of their first file read.
fn in_file_order<'a>(
    parts: &'a [Part<'a>],
    plan: &Plan,
    entry_of: &EntryOf<'a>,
) -> Vec<&'a Part<'a>> {
    let mut order: Vec<usize> = Vec::new();
    let mut seen = vec![false; parts.len()];
    for file in &plan.files {
        if let Some((p, _, _)) = entry_of(file) {
            if let Some(seen @ false) = seen.get_mut(p).map(|s| &mut *s) {
                *seen = true;
                order.push(p);
            }
        }
    }
    // Partials of no file at all, last, as given.
    order.extend((0..parts.len()).filter(|p| {
        parts
            .get(*p)
            .is_some_and(|part| part.contents.files.is_empty())
    }));
    order.iter().filter_map(|p| parts.get(*p)).collect()
}

/// The dataset's problems over all the files: each partial's from its metadata (once each),
/// then those the names of all the shards show.
fn problems<'a>(
    parts: &'a [Part<'a>],
    plan: &Plan,
    dataset: &Dataset,
    entry_of: &EntryOf<'a>,
) -> Vec<String> {
    let mut problems: Vec<String> = Vec::new();
    let mut said: HashSet<&str> = HashSet::new();
    for part in in_file_order(parts, plan, entry_of) {
        for problem in &part.contents.problems {
            if !problem.from_names && said.insert(&problem.text) {
                problems.push(problem.text.clone());
            }
        }
    }
    problems.extend(dataset.problems.iter().map(|p| p.to_string()));
    problems
}

/// Each partial's notes, each once.
fn notes<'a>(parts: &'a [Part<'a>], plan: &Plan, entry_of: &EntryOf<'a>) -> Vec<Note> {
    let mut notes: Vec<Note> = Vec::new();
    let mut said: HashSet<&Note> = HashSet::new();
    for part in in_file_order(parts, plan, entry_of) {
        for note in &part.contents.notes {
            if said.insert(note) {
                notes.push(note.clone());
            }
        }
    }
    notes
}
