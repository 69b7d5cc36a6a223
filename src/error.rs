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

    #[error("{}: more than {limit} bytes arrived from this pipe; save it to a file first", path.display())]
    TooLarge { path: PathBuf, limit: u64 },

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
