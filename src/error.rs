//! Typed errors of the core. Each says which file and, where it applies, which byte.

use std::path::PathBuf;

use crate::span::FileOffset;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{}: is a directory, not a TFRecord file", path.display())]
    IsDirectory { path: PathBuf },

    #[error("{}: is a device or socket, not a TFRecord file", path.display())]
    NotAFile { path: PathBuf },

    #[error("{}: more than {limit} bytes arrived from this pipe; save it to a file first (or raise --max-decompressed)", path.display())]
    TooLarge { path: PathBuf, limit: u64 },

    /// A stream that cannot be mapped as it is (a pipe, a decompressed stream) could not be
    /// written to its temporary file.
    #[error("{}: cannot store its stream in a temporary file in {} (set TMPDIR to a larger disk): {source}", path.display(), std::env::temp_dir().display())]
    Spill {
        path: PathBuf,
        source: std::io::Error,
    },

    /// The file was truncated while it was mapped: bytes past its new end read as zeros.
    #[error("{} shrank from {from} to {to} bytes while being read", path.display())]
    Shrank { path: PathBuf, from: u64, to: u64 },

    /// A read went past the end of the file while it was mapped, and the file has grown back
    /// since: it was rewritten while being read.
    #[error("{} was cut short and rewritten while being read", path.display())]
    CutShort { path: PathBuf },

    #[error("{}: record {index} does not exist (the file has {count} frames)", path.display())]
    NoSuchRecord {
        path: PathBuf,
        index: usize,
        count: usize,
    },

    #[error("{}: {message} (at byte {offset})", path.display())]
    Decompress {
        path: PathBuf,
        offset: FileOffset,
        message: String,
    },

    #[error("{}: {message}", path.display())]
    Schema { path: PathBuf, message: String },
}
