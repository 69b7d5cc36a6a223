//! Typed errors of the core. Each says which file and, where it applies, which byte.
//!
//! Messages name files and quote text from them, and they end up on a terminal: every file name
//! and quoted text goes through [`crate::escape`] so a crafted name cannot send escape sequences.
//!
//! A message says what is wrong, never which option of a front end would help: the variants carry
//! the facts (the limit, the compression, the names known) so that the application can add its
//! own hint.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::compress::Compression;
use crate::escape::{for_terminal, path_for_terminal};
use crate::span::FileOffset;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a stream could not be stored in its temporary file, with the advice that fits the cause:
/// a larger disk only when the disk (or a quota, or a file size limit) is what ran out.
fn spill_message(path: &std::path::Path, source: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let dir = std::env::temp_dir();
    let advice = match source.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => {
            " (set TMPDIR to a larger disk)"
        }
        _ => "",
    };
    format!(
        "{}: cannot store its stream in a temporary file in {}{advice}: {source}",
        path_for_terminal(path),
        path_for_terminal(&dir)
    )
}

/// "FILE: record N: cannot read bytes A..B at byte A: why".
fn read_message(path: &Path, record: Option<usize>, error: &crate::bytes::ReadError) -> String {
    let record = record.map(|r| format!("record {r}: ")).unwrap_or_default();
    format!(
        "{}: {record}cannot read at byte {}: {}",
        path_for_terminal(path),
        error.range().start,
        for_terminal(&error.to_string())
    )
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path_for_terminal(path))]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{}: is a directory, not a TFRecord file", path_for_terminal(path))]
    IsDirectory { path: PathBuf },

    #[error(
        "{}: is a device or socket, not a TFRecord file",
        path_for_terminal(path)
    )]
    NotAFile { path: PathBuf },

    /// A pipe sent more than the limit on what is read into a temporary file.
    #[error(
        "{}: more than {limit} bytes arrived from this pipe; save it to a file first",
        path_for_terminal(path)
    )]
    TooLarge { path: PathBuf, limit: u64 },

    /// A stream that cannot be mapped as it is (a pipe, a decompressed stream) could not be
    /// written to its temporary file.
    #[error("{}", spill_message(path, source))]
    Spill {
        path: PathBuf,
        source: std::io::Error,
    },

    /// The file was truncated while it was mapped: bytes past its new end read as zeros.
    #[error(
        "{} shrank from {from} to {to} bytes while being read",
        path_for_terminal(path)
    )]
    Shrank { path: PathBuf, from: u64, to: u64 },

    /// A read went past the end of the file while it was mapped, and the file has grown back
    /// since: it was rewritten while being read.
    #[error(
        "{} was cut short and rewritten while being read",
        path_for_terminal(path)
    )]
    CutShort { path: PathBuf },

    /// Bytes of the stream could not be read (a ranged source that failed or refused a read).
    #[error("{}", read_message(path, *record, error))]
    Read {
        path: PathBuf,
        record: Option<usize>,
        error: crate::bytes::ReadError,
    },

    #[error(
        "{}: record {index} does not exist (the file has {count} frame{})",
        path_for_terminal(path),
        if *count == 1 { "" } else { "s" }
    )]
    NoSuchRecord {
        path: PathBuf,
        index: usize,
        count: usize,
    },

    /// A compressed input that cannot be read as asked; `offset` is in the compressed file.
    #[error("{}: {problem} (at byte {offset})", path_for_terminal(path))]
    Decompress {
        path: PathBuf,
        offset: FileOffset,
        problem: DecompressProblem,
    },

    #[error("{}: {}", path_for_terminal(path), for_terminal(message))]
    Schema { path: PathBuf, message: String },

    /// An input named by URL that could not be read; the message names the URL.
    #[error("{}", for_terminal(message))]
    Remote { path: PathBuf, message: String },

    /// The user's .proto files define several top-level messages and none was named.
    #[error(
        "{}: defines several messages; name the payload type, one of: {}",
        path_for_terminal(path),
        for_terminal(&names.join(", "))
    )]
    SeveralMessages { path: PathBuf, names: Vec<String> },

    /// The message type asked for is in no schema; `path` is the first .proto file given, if any.
    #[error("{}{}", path_prefix(path.as_ref()), no_such_message(name, known))]
    NoSuchMessage {
        path: Option<PathBuf>,
        name: String,
        known: Vec<String>,
    },
}

/// Why a compressed input cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecompressProblem {
    /// The decompressed stream would pass the limit on its size.
    OverLimit {
        compression: Compression,
        limit: u64,
    },
    /// The compression asked for is not the one the file starts with.
    NotThisCompression(Compression),
}

impl fmt::Display for DecompressProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecompressProblem::OverLimit { compression, limit } => write!(
                f,
                "decompressed {} stream exceeds the limit of {limit} bytes",
                compression.tensorflow_name()
            ),
            DecompressProblem::NotThisCompression(compression) => write!(
                f,
                "not a {} stream (its first bytes say otherwise)",
                compression.tensorflow_name()
            ),
        }
    }
}

/// `path: ` before a message, or nothing without a path.
fn path_prefix(path: Option<&PathBuf>) -> String {
    path.map(|p| format!("{}: ", path_for_terminal(p)))
        .unwrap_or_default()
}

/// The message of [`Error::NoSuchMessage`] after its path.
fn no_such_message(name: &str, known: &[String]) -> String {
    let offered = known.join(", ");
    let text = match known {
        [_] | [_, _] => format!("no message named `{name}`; did you mean {offered}?"),
        _ => format!("no message named `{name}`; known: {offered}"),
    };
    for_terminal(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_file_is_blamed_on_the_disk_only_when_the_disk_is_the_cause() {
        let spill = |source| {
            Error::Spill {
                path: PathBuf::from("in.gz"),
                source,
            }
            .to_string()
        };
        let full = spill(std::io::Error::from(std::io::ErrorKind::StorageFull));
        assert!(full.contains("(set TMPDIR to a larger disk)"), "{full}");
        #[cfg(unix)]
        {
            let many = spill(std::io::Error::from_raw_os_error(libc::EMFILE));
            assert!(!many.contains("TMPDIR"), "{many}");
            assert!(
                many.ends_with("Too many open files (os error 24)"),
                "{many}"
            );
        }
    }
}
