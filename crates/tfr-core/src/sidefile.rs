//! Small files read whole beside the inputs: a dataset's `dataset_info.json`, `features.json`
//! and class-label files.
//!
//! Such a file is someone else's, and may be anything a name can point at: a named pipe that
//! never sends a byte (reading it would hang the command before it shows anything), a link to
//! `/dev/zero` (reading it would fill memory), a sparse file of gigabytes. So it is read only
//! when it is a regular file, asked after opening it without blocking (a pipe put in its place
//! between a look and the open cannot hang the read), and only up to a stated size: past it the
//! file is reported as too large and the command goes on without it.

use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// The most bytes read of one metadata file (8 MiB): far above what tensorflow-datasets writes
/// (a `dataset_info.json` of ten thousand shards is under 1 MiB, ImageNet-21k's labels 0.3 MiB).
pub const METADATA_LIMIT: u64 = 8 << 20;

/// Why a side file was not read.
#[derive(Debug)]
pub enum Unread {
    /// Not a regular file: what it is instead (`a named pipe`, `a directory`, ...).
    NotRegular(&'static str),
    /// Larger than the limit (`len` as the file says, or more than read).
    TooLarge {
        len: u64,
        limit: u64,
    },
    Io(std::io::Error),
}

impl Unread {
    /// Whether the file is not there, which a side file may well be.
    pub fn is_missing(&self) -> bool {
        matches!(self, Unread::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unread::NotRegular(kind) => write!(f, "{kind}, not a regular file"),
            Unread::TooLarge { len, limit } => write!(
                f,
                "too large: {len} bytes, more than the {} read of such a file",
                size_text(*limit)
            ),
            Unread::Io(e) => write!(f, "{e}"),
        }
    }
}

/// `8 MiB` for a whole number of mebibytes, else the bytes.
pub fn size_text(bytes: u64) -> String {
    match bytes % (1 << 20) {
        0 if bytes > 0 => format!("{} MiB", bytes >> 20),
        _ => crate::words::plural(bytes, "byte"),
    }
}

/// What a file is, for a message about one that is not a regular file.
pub fn kind_of(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
    }
    if kind.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// A side file's bytes, and which file they came from.
#[derive(Debug)]
pub struct SideFile {
    pub bytes: Vec<u8>,
    /// Device and inode (on Unix), so that several names of one file are read once.
    pub id: Option<(u64, u64)>,
}

/// Opens `path` for reading without blocking (a named pipe opens at once, with or without a
/// writer) and without making a terminal the controlling one.
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}

/// The file's identity, as [`SideFile::id`].
pub fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Opens `path` if it is a regular file, without blocking: the file and what fstat says of it.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), Unread> {
    // What the name points at now: a device or a pipe is not even opened (opening some devices
    // does something).
    let before = std::fs::metadata(path).map_err(Unread::Io)?;
    if !before.is_file() {
        return Err(Unread::NotRegular(kind_of(&before)));
    }
    let file = open_nonblocking(path).map_err(Unread::Io)?;
    // What was opened, which is what is read: the name may point elsewhere by now.
    let meta = file.metadata().map_err(Unread::Io)?;
    if !meta.is_file() {
        return Err(Unread::NotRegular(kind_of(&meta)));
    }
    Ok((file, meta))
}

/// Reads `path` whole when it is a regular file of at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> Result<SideFile, Unread> {
    if let Some(remote) = crate::source::remote::claiming(path) {
        return match remote.read_start(path, limit) {
            Ok(Some((_, len))) if len > limit => Err(Unread::TooLarge { len, limit }),
            Ok(Some((bytes, _))) => Ok(SideFile { bytes, id: None }),
            Ok(None) => Err(Unread::Io(std::io::ErrorKind::NotFound.into())),
            Err(message) => Err(Unread::Io(std::io::Error::other(message))),
        };
    }
    let (file, meta) = open_regular(path)?;
    if meta.len() > limit {
        return Err(Unread::TooLarge {
            len: meta.len(),
            limit,
        });
    }
    // The file may grow after fstat: never more than one byte past the limit is read.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    let read = bytes.len() as u64;
    if read > limit {
        return Err(Unread::TooLarge { len: read, limit });
    }
    Ok(SideFile {
        bytes,
        id: identity(&meta),
    })
}

/// [`read`], with `None` for a file that is not there.
pub fn read_if_there(path: &Path, limit: u64) -> Option<Result<SideFile, Unread>> {
    match read(path, limit) {
        Err(why) if why.is_missing() => None,
        read => Some(read),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("m.json");
        std::fs::write(&path, b"0123456789").unwrap_or_else(|e| panic!("{e}"));
        let read_with = |limit| read(&path, limit);
        assert_eq!(
            read_with(10).map(|f| f.bytes).ok(),
            Some(b"0123456789".to_vec())
        );
        assert_eq!(
            read_with(9).err().map(|e| e.to_string()),
            Some("too large: 10 bytes, more than the 9 bytes read of such a file".into())
        );
        assert_eq!(
            read(dir.path(), 10).err().map(|e| e.to_string()),
            Some("a directory, not a regular file".into())
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn devices_are_not_read() {
        let message = read(Path::new("/dev/zero"), METADATA_LIMIT)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            message.as_deref(),
            Some("a character device, not a regular file")
        );
    }
}
