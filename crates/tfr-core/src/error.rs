//! Typed errors of the core. Each says which file and, where it applies, which byte.
//!
//! Messages name files and quote text from them, and they end up on a terminal: every file name
//! and quoted text goes through [`crate::escape`] so a crafted name cannot send escape sequences.

use std::path::PathBuf;

use crate::escape::{for_terminal, path_for_terminal};
use crate::span::FileOffset;

pub type Result<T, E = Error> = std::result::Result<T, E>;

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

    #[error(
        "{}: more than {limit} bytes arrived from this pipe; save it to a file first (or raise --max-decompressed)",
        path_for_terminal(path)
    )]
    TooLarge { path: PathBuf, limit: u64 },

    /// A stream that cannot be mapped as it is (a pipe, a decompressed stream) could not be
    /// written to its temporary file.
    #[error("{}: cannot store its stream in a temporary file in {} (set TMPDIR to a larger disk): {source}", path_for_terminal(path), std::env::temp_dir().display())]
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

    #[error(
        "{}: record {index} does not exist (the file has {count} frames)",
        path_for_terminal(path)
    )]
    NoSuchRecord {
        path: PathBuf,
        index: usize,
        count: usize,
    },

    #[error(
        "{}: {} (at byte {offset})",
        path_for_terminal(path),
        for_terminal(message)
    )]
    Decompress {
        path: PathBuf,
        offset: FileOffset,
        message: String,
    },

    #[error("{}: {}", path_for_terminal(path), for_terminal(message))]
    Schema { path: PathBuf, message: String },
}
