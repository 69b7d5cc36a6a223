//! Read-only access to a file's bytes: memory-mapped when possible, read into memory otherwise.
//!
//! Mapping lets a 10 GiB shard be opened instantly and keeps payloads in the page cache instead of
//! the heap. This module holds the crate's only `unsafe` block.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

/// The bytes of one input file, never written to.
pub struct Source {
    path: PathBuf,
    bytes: Bytes,
    /// Set when `bytes` are the decompressed stream of a compressed file.
    compression: Option<crate::compress::Compressed>,
}

/// The most bytes read from an input that cannot be memory-mapped (a pipe).
const MAX_UNMAPPED: u64 = 8 << 30;

impl Source {
    /// Opens `path` read-only and maps it.
    ///
    /// Files that cannot be mapped (pipes, some special files) are read into memory instead.
    pub fn open(path: &Path) -> Result<Source> {
        let io_err = |e: std::io::Error| Error::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let meta = std::fs::metadata(path).map_err(io_err)?;
        if meta.is_dir() {
            return Err(Error::IsDirectory {
                path: path.to_path_buf(),
            });
        }
        let mut file = File::open(path).map_err(io_err)?;
        if meta.is_file() && meta.len() > 0 {
            if let Ok(map) = map_read_only(&file) {
                return Ok(Source {
                    path: path.to_path_buf(),
                    bytes: Bytes::Mapped(map),
                    compression: None,
                });
            }
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let kind = meta.file_type();
            if kind.is_char_device() || kind.is_block_device() || kind.is_socket() {
                return Err(Error::NotAFile {
                    path: path.to_path_buf(),
                });
            }
        }
        // A pipe, or a file that could not be mapped: read it, up to a limit, since nothing
        // bounds what a pipe may send.
        let mut buf = Vec::new();
        (&mut file)
            .take(MAX_UNMAPPED + 1)
            .read_to_end(&mut buf)
            .map_err(io_err)?;
        if buf.len() as u64 > MAX_UNMAPPED {
            return Err(Error::TooLarge {
                path: path.to_path_buf(),
                limit: MAX_UNMAPPED,
            });
        }
        Ok(Source {
            path: path.to_path_buf(),
            bytes: Bytes::Owned(buf),
            compression: None,
        })
    }

    /// Opens `path`, decompressing it when `options` ask for it or detect compression.
    pub fn open_with(path: &Path, options: &crate::compress::Options) -> Result<Source> {
        crate::compress::open(path, options)
    }

    /// The decompressed stream of a compressed file.
    pub fn decompressed(
        path: impl Into<PathBuf>,
        bytes: Vec<u8>,
        info: crate::compress::Compressed,
    ) -> Source {
        Source {
            path: path.into(),
            bytes: Bytes::Owned(bytes),
            compression: Some(info),
        }
    }

    /// How the file was compressed, when `bytes` are its decompressed stream.
    pub fn compression(&self) -> Option<&crate::compress::Compressed> {
        self.compression.as_ref()
    }

    /// A source over bytes already in memory (decompressed streams, tests).
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Source {
        Source {
            path: path.into(),
            bytes: Bytes::Owned(bytes),
            compression: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(map) => map,
            Bytes::Owned(vec) => vec,
        }
    }

    pub fn len(&self) -> u64 {
        self.bytes().len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }
}

#[allow(unsafe_code)]
fn map_read_only(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and this process never writes the file. Another process
    // truncating the file while it is mapped could raise SIGBUS; that is the accepted trade of every
    // mmap-based reader (ripgrep makes the same one), and a plain read is used when mapping fails.
    let map = unsafe { memmap2::Mmap::map(file)? };
    #[cfg(unix)]
    {
        // Frames are usually read front to back; a failed hint is harmless.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Ok(map)
}
