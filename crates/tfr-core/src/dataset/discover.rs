//! Finding the TFRecord files among the arguments: a directory is searched (recursively) for
//! files whose first bytes are a valid frame header, a GZIP/ZLIB header or a first SNAPPY block
//! that decodes to one, whatever their names;
//! a glob (`[0-9]`, `{a,b}`, `**`) is matched against the paths under its literal part. Files that
//! are not TFRecord files are set aside with the reason, never judged as damaged ones.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::compress;
use crate::frame::{HEADER_LEN, Header};
use crate::sidefile::{self, Unread};

use super::Skipped;
use super::shards::ShardName;

/// How deep a directory is searched, so a link loop or a deep tree cannot stall a command.
const MAX_DEPTH: usize = 32;

/// Extensions TFRecord files are commonly given.
const TFRECORD_EXTENSIONS: [&str; 6] =
    ["tfrecord", "tfrecords", "tfrec", "record", "records", "tfr"];

/// What a file's first bytes (and, when they say nothing, its name) tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    /// A valid first frame header, a compression header, or nothing at all in a file named as
    /// a TFRecord file.
    TfRecord,
    /// Named as a TFRecord file (a shard name or extension), but its first bytes are no frame:
    /// a damaged TFRecord file, to be judged.
    Damaged,
    /// Not a TFRecord file (metadata, labels, anything else).
    Other(&'static str),
}

/// Whether `path`'s name says it is a TFRecord file.
pub fn named_as_tfrecord(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let bare = ["gz", "gzip", "zz", "zlib"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext).and_then(|n| n.strip_suffix('.')))
        .unwrap_or(name);
    ShardName::parse(bare).is_some()
        || Path::new(bare)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| TFRECORD_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Judges a file by its first bytes, falling back on its name. Only a regular file is opened
/// (without blocking, and asked again once open): a named pipe is not read here, since a pipe's
/// bytes can be read only once and the command that reads it needs them.
///
/// A frame header or a GZIP/ZLIB magic shows in the first 12 bytes; a SNAPPY file shows only in
/// its whole first block, which is read when its length field is plausible (at most about
/// 1.2 MB: see [`compress::snappy_first_block_span`]).
pub fn sniff(path: &Path) -> Result<Sniff, Unread> {
    if let Some(remote) = crate::source::remote::claiming(path) {
        let unread = |m: String| Unread::Io(std::io::Error::other(m));
        let start = |n| match remote.read_start(path, n) {
            Ok(Some((head, _))) => Ok(head),
            Ok(None) => Err(Unread::Io(std::io::ErrorKind::NotFound.into())),
            Err(m) => Err(unread(m)),
        };
        let mut head = start(HEADER_LEN)?;
        let plain = Header::read(&head, crate::span::FileOffset(0)).is_some_and(|h| h.crc_ok());
        if !plain && compress::sniff(&head).is_none() {
            if let Some(span) = compress::snappy_first_block_span(&head) {
                head = start(span as u64)?;
            }
        }
        return Ok(sniff_bytes(&head, named_as_tfrecord(path)));
    }
    let (file, _) = sidefile::open_regular(path)?;
    let mut file = std::io::BufReader::new(file);
    let mut head = Vec::with_capacity(HEADER_LEN as usize);
    (&mut file)
        .take(HEADER_LEN)
        .read_to_end(&mut head)
        .map_err(Unread::Io)?;
    let plain = Header::read(&head, crate::span::FileOffset(0)).is_some_and(|h| h.crc_ok());
    if !plain && compress::sniff(&head).is_none() {
        if let Some(span) = compress::snappy_first_block_span(&head) {
            let more = (span as u64).saturating_sub(head.len() as u64);
            file.take(more).read_to_end(&mut head).map_err(Unread::Io)?;
        }
    }
    Ok(sniff_bytes(&head, named_as_tfrecord(path)))
}

/// Why a file is set aside when its first bytes are no frame and no compression header.
pub const NOT_TFRECORD: &str =
    "not a TFRecord file (no valid first frame, no GZIP, ZLIB or SNAPPY header)";

/// Why an empty file whose name does not say TFRecord is set aside.
pub const EMPTY: &str = "empty";

/// Whether `reason` (a [`super::Skipped`] one) is only that the file is no TFRecord file, as
/// most files beside a dataset's shards are: such files are counted, the others (metadata,
/// pipes, links) named.
pub fn is_plain_skip(reason: &str) -> bool {
    reason == NOT_TFRECORD || reason == EMPTY
}

/// [`sniff`] on the first bytes of a file and what its name says.
pub fn sniff_bytes(head: &[u8], named: bool) -> Sniff {
    if Header::read(head, crate::span::FileOffset(0)).is_some_and(|h| h.crc_ok())
        || compress::sniff(head).is_some()
    {
        return Sniff::TfRecord;
    }
    match (named, head.is_empty()) {
        (true, true) => Sniff::TfRecord,
        (true, false) => Sniff::Damaged,
        (false, true) => Sniff::Other(EMPTY),
        (false, false) => Sniff::Other(NOT_TFRECORD),
    }
}

/// What searching a directory found: the regular files under it, depth first in name order,
/// and every path it passed over with why.
#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<PathBuf>,
    /// Entries that are not searched for TFRecord files: not regular files, links to directories.
    pub skipped: Vec<Skipped>,
    /// Directories that could not be searched (unreadable, or deeper than `MAX_DEPTH`).
    pub errors: Vec<String>,
}

/// Searches `dir`. Links to files are followed; links to directories are not (named as
/// skipped): a directory named as an argument is searched whether or not it is a link, as a glob
/// pattern's literal part is, but one met while searching must be a directory of its own.
pub fn walk(dir: &Path) -> std::io::Result<Walk> {
    let mut walk = Walk::default();
    let entries = std::fs::read_dir(dir)?;
    walk_into(dir, entries, MAX_DEPTH, &mut walk);
    Ok(walk)
}

fn walk_into(dir: &Path, entries: std::fs::ReadDir, depth: usize, walk: &mut Walk) {
    let mut paths = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(e) => walk.errors.push(format!(
                "{}: an entry cannot be listed: {e}",
                crate::escape::path_for_terminal(dir)
            )),
        }
    }
    paths.sort();
    let skip = |walk: &mut Walk, path: PathBuf, reason: String| {
        walk.skipped.push(Skipped { path, reason });
    };
    for path in paths {
        // Gone since it was listed: nothing to name.
        let Ok(link) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if link.is_dir() {
            let shown = crate::escape::path_for_terminal(&path);
            if depth == 0 {
                walk.errors.push(format!(
                    "{shown}: not searched: more than {MAX_DEPTH} directory levels deep (name it to search it)"
                ));
                continue;
            }
            match std::fs::read_dir(&path) {
                Ok(entries) => walk_into(&path, entries, depth - 1, walk),
                Err(e) => walk
                    .errors
                    .push(format!("{shown}: cannot be searched: {e}")),
            }
            continue;
        }
        let target = match std::fs::metadata(&path) {
            Ok(target) => target,
            Err(e) => {
                skip(walk, path, format!("a link that cannot be followed ({e})"));
                continue;
            }
        };
        if target.is_file() {
            walk.files.push(path);
        } else if target.is_dir() {
            skip(
                walk,
                path,
                "a link to a directory, not followed (name it to search it)".into(),
            );
        } else {
            skip(
                walk,
                path,
                format!("{}, not a regular file", sidefile::kind_of(&target)),
            );
        }
    }
}

/// Whether an argument is a glob pattern rather than a name.
pub fn is_pattern(arg: &Path) -> bool {
    arg.to_str()
        .is_some_and(|s| s.contains(['*', '?', '[', '{']))
}

/// How deeply `{…}` alternatives may nest in a pattern. Each level nests the regular expression
/// the pattern becomes, whose parser stops at a nesting limit of its own; real patterns use one
/// or two levels.
pub const MAX_GLOB_NESTING: usize = 16;

/// How deeply `{…}` alternatives nest in `text` (a `\` escapes the character after it).
fn brace_nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Compiles `text` to a matcher: an error, never a panic, when it is malformed, nested deeper
/// than [`MAX_GLOB_NESTING`], or too large for the regular expression engine.
fn matcher(text: &str) -> Result<globset::GlobSet, String> {
    let nesting = brace_nesting(text);
    if nesting > MAX_GLOB_NESTING {
        return Err(format!(
            "{{…}} nested {nesting} levels deep (at most {MAX_GLOB_NESTING})"
        ));
    }
    let glob = globset::GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| e.kind().to_string())?;
    // A set, not `Glob::compile_matcher`: that panics when the regular expression fails to
    // compile, where a set returns the error.
    globset::GlobSetBuilder::new()
        .add(glob)
        .build()
        .map_err(|e| match e.kind() {
            globset::ErrorKind::Regex(_) => "too large or complex to match".to_string(),
            kind => kind.to_string(),
        })
}

/// The paths `pattern` matches (files and directories), in name order; an error when the
/// pattern is malformed. Matching is per path component: `*` never crosses a `/`, `**` does.
pub fn expand_glob(pattern: &Path) -> Result<Vec<PathBuf>, String> {
    let text = pattern.to_str().ok_or("not valid UTF-8")?;
    let matcher = matcher(text)?;
    // The literal leading components are walked from; the rest is matched.
    let mut base = PathBuf::new();
    let mut rest = 0usize;
    let mut recursive = false;
    for component in pattern.components() {
        let literal = component
            .as_os_str()
            .to_str()
            .is_some_and(|c| !is_pattern(Path::new(c)));
        if rest == 0 && literal {
            base.push(component);
        } else {
            rest += 1;
            recursive |= component.as_os_str() == "**";
        }
    }
    let depth = if recursive { MAX_DEPTH } else { rest };
    let start = if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base.clone()
    };
    let mut found = Vec::new();
    collect_matches(&start, &base, depth, &matcher, &mut found);
    found.sort();
    found.dedup();
    Ok(found)
}

/// Walks `dir` (shown relative to how the pattern began, `shown`) to `depth` levels, keeping
/// the paths `matcher` accepts.
fn collect_matches(
    dir: &Path,
    shown: &Path,
    depth: usize,
    matcher: &globset::GlobSet,
    found: &mut Vec<PathBuf>,
) {
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = shown.join(entry.file_name());
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if matcher.is_match(clean(&path)) {
            found.push(path.clone());
        }
        if is_dir {
            collect_matches(&entry.path(), &path, depth - 1, matcher, found);
        }
    }
}

/// `path` without `./` components, as a pattern spells it.
fn clean(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn touch(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn record() -> Vec<u8> {
        let mut out = Vec::new();
        crate::frame::write_record(b"abc", &mut out).unwrap();
        out
    }

    #[test]
    fn content_decides_and_the_name_only_breaks_ties() {
        assert_eq!(sniff_bytes(&record(), false), Sniff::TfRecord);
        assert_eq!(sniff_bytes(&[0x1f, 0x8b, 0x08, 0], false), Sniff::TfRecord);
        assert_eq!(
            sniff_bytes(b"{\n  \"name\": 1", false),
            Sniff::Other(
                "not a TFRecord file (no valid first frame, no GZIP, ZLIB or SNAPPY header)",
            )
        );
        assert_eq!(sniff_bytes(b"{\n  \"name\": 1", true), Sniff::Damaged);
        assert_eq!(sniff_bytes(b"", true), Sniff::TfRecord);
        assert_eq!(sniff_bytes(b"", false), Sniff::Other("empty"));
        assert!(named_as_tfrecord(Path::new("d/train-00000-of-00002")));
        assert!(named_as_tfrecord(Path::new("d/train-00000-of-00002.gz")));
        assert!(named_as_tfrecord(Path::new("x.TFRecord")));
        assert!(!named_as_tfrecord(Path::new("dataset_info.json")));
    }

    #[test]
    fn a_snappy_file_is_known_by_its_whole_first_block() {
        let dir = tempfile::tempdir().unwrap();
        let mut stream = Vec::new();
        for payload in [&b"a payload long enough to take the first block past 12 bytes"[..]; 3] {
            crate::frame::write_record(payload, &mut stream).unwrap();
        }
        let block = snap::raw::Encoder::new().compress_vec(&stream).unwrap();
        let mut packed = (block.len() as u32).to_be_bytes().to_vec();
        packed.extend_from_slice(&block);
        assert!(packed.len() > HEADER_LEN as usize * 4);
        let path = touch(dir.path(), "unnamed", &packed);
        assert_eq!(sniff(&path).unwrap(), Sniff::TfRecord);
        // The first block cut short is not enough to tell.
        let path = touch(dir.path(), "cut", &packed[..packed.len() - 1]);
        assert!(matches!(sniff(&path).unwrap(), Sniff::Other(_)));
    }

    #[test]
    fn a_directory_is_walked_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "b", b"");
        touch(dir.path(), "a/z", b"");
        touch(dir.path(), "a/y", b"");
        let found: Vec<PathBuf> = walk(dir.path())
            .unwrap()
            .files
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(found, ["a/y", "a/z", "b"].map(PathBuf::from));
    }

    #[test]
    fn globs_match_classes_alternatives_and_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "t-00000-of-00002",
            "t-00001-of-00002",
            "v-00000-of-00001",
            "sub/deep/t-9",
        ] {
            touch(dir.path(), name, b"");
        }
        let names = |pattern: &str| -> Vec<String> {
            expand_glob(&dir.path().join(pattern))
                .unwrap()
                .iter()
                .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            names("t-0000[0-9]-of-*"),
            ["t-00000-of-00002", "t-00001-of-00002"]
        );
        assert_eq!(
            names("{t,v}-00000-*"),
            ["t-00000-of-00002", "v-00000-of-00001"]
        );
        assert_eq!(names("**/t-9"), ["sub/deep/t-9"]);
        assert_eq!(names("*/t-9"), Vec::<String>::new());
        assert!(names("nothing*").is_empty());
        assert!(expand_glob(&dir.path().join("[unclosed")).is_err());
    }

    #[test]
    fn deeply_nested_or_huge_patterns_are_errors_not_panics() {
        // 126 levels of `{a,…}` made globset's regular expression fail to compile, and
        // `compile_matcher` panicked on that.
        let deep = |n: usize| format!("{}b{}", "{a,".repeat(n), "}".repeat(n));
        let err = expand_glob(Path::new(&deep(126))).unwrap_err();
        assert_eq!(err, "{…} nested 126 levels deep (at most 16)");
        assert_eq!(brace_nesting(&deep(MAX_GLOB_NESTING)), MAX_GLOB_NESTING);
        assert!(expand_glob(Path::new(&deep(MAX_GLOB_NESTING))).is_ok());
        // Escaped braces do not nest.
        assert_eq!(brace_nesting(r"\{\{\{{a,b}"), 1);
    }
}
