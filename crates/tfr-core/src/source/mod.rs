//! Read-only access to an input's bytes, memory-mapped so that a 10 GiB shard opens instantly and
//! its payloads stay in the page cache instead of the heap.
//!
//! A regular file is mapped as it is. A stream with no file of its own to map (what arrives
//! through a pipe, or the decompressed stream of a GZIP or ZLIB file) is first written to an
//! unlinked temporary file in `$TMPDIR`, under the same size limit, and that file is mapped, so
//! anonymous memory stays small whatever the stream's size. The file an input came from stays
//! open, so it can be asked (fstat) whether it shrank, grew or was rewritten since, and every
//! mapping is guarded ([`guard`]) so that a file cut short underneath us reads as zeros instead of
//! killing the process with SIGBUS; [`Source::check_unchanged`] says whether that happened before
//! anything computed from those bytes is shown. This module holds the crate's only `unsafe` code.

#[cfg(unix)]
mod guard;
mod spill;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::SystemTime;

use crate::compress::{self, Compressed, Compression, Mode, Options, Stopped, StreamProblemKind};
use crate::error::{Error, Result};
use crate::span::FileOffset;
use spill::Spill;

/// Bytes of an input: a guarded read-only map, or a vector (tests, and empty inputs).
enum Bytes {
    Mapped(Mapping),
    Owned(Vec<u8>),
}

/// A read-only map and its registration with the SIGBUS guard.
struct Mapping {
    // Declared before `map` so it is dropped first: the registration must end before the pages
    // are unmapped, or the handler could map zeros over whatever reuses the addresses.
    guard: Option<Guard>,
    map: memmap2::Mmap,
}

#[cfg(unix)]
use guard::Guard;

/// Without SIGBUS there is nothing to guard against.
#[cfg(not(unix))]
struct Guard;

#[cfg(not(unix))]
impl Guard {
    fn faulted(&self) -> bool {
        false
    }
}

/// The file an input was read from, as it was when read.
struct Origin {
    file: File,
    len: u64,
    modified: Option<SystemTime>,
    /// True when the source's bytes are this file's own pages (not a decompressed copy).
    mapped: bool,
}

/// How the file behind a source differs from what was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    /// Longer than when it was read (a shard still being written); what was read still holds.
    Grew {
        from: u64,
        to: u64,
    },
    /// Shorter than when it was read: bytes past the new end now read as zeros.
    Shrank {
        from: u64,
        to: u64,
    },
    /// Same length but written since (or cut short and grown back): what was read is stale.
    Rewritten,
}

/// The bytes of one input, never written to.
pub struct Source {
    path: PathBuf,
    bytes: Bytes,
    origin: Option<Origin>,
    /// Set when `bytes` are the decompressed stream of a compressed file.
    compression: Option<Compressed>,
}

impl Source {
    /// Opens `path` read-only and maps it, as it is (no decompression).
    ///
    /// What cannot be mapped (a pipe) is copied to a temporary file first, up to the default
    /// limit of [`compress::DEFAULT_LIMIT`] bytes.
    pub fn open(path: &Path) -> Result<Source> {
        let options = Options {
            mode: Mode::None,
            ..Options::default()
        };
        Source::open_with(path, &options)
    }

    /// Opens `path`, decompressing it when `options` ask for it or detect compression.
    ///
    /// `options.limit` bounds both a decompressed stream and what is read from a pipe. With
    /// [`Mode::Auto`], bytes that merely look compressed but yield nothing but a corrupt-data
    /// error are read as plain, so their damage is shown frame by frame.
    pub fn open_with(path: &Path, options: &Options) -> Result<Source> {
        let raw = open_raw(path, options.limit)?;
        match compress::choose(raw.bytes(), options.mode) {
            None => Ok(raw),
            Some(compression) => decompressed(raw, compression, options),
        }
    }

    /// A source over bytes already in memory (tests).
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Source {
        Source {
            path: path.into(),
            bytes: Bytes::Owned(bytes),
            origin: None,
            compression: None,
        }
    }

    /// How the file was compressed, when `bytes` are its decompressed stream.
    pub fn compression(&self) -> Option<&Compressed> {
        self.compression.as_ref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(mapping) => &mapping.map,
            Bytes::Owned(vec) => vec,
        }
    }

    pub fn len(&self) -> u64 {
        self.bytes().len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }

    /// Fails when the bytes read may not be the file's any more: it shrank below what was
    /// mapped, or a read went past its end (and saw zeros). A file that only grew is fine: the
    /// part mapped is still what it was.
    ///
    /// Callers check this after computing and before printing, so nothing computed from zeros
    /// is ever shown.
    pub fn check_unchanged(&self) -> Result<()> {
        if !self.origin.as_ref().is_some_and(|o| o.mapped) {
            return Ok(());
        }
        match self.change() {
            Change::Shrank { from, to } => Err(Error::Shrank {
                path: self.path.clone(),
                from,
                to,
            }),
            Change::Rewritten if self.faulted() => Err(Error::CutShort {
                path: self.path.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// How the file behind this source differs from what was read (one fstat; cheap enough to
    /// ask before every redraw). Pipes never change: what was read is all there is.
    pub fn change(&self) -> Change {
        let Some(origin) = &self.origin else {
            return Change::Unchanged;
        };
        let Ok(meta) = origin.file.metadata() else {
            return Change::Unchanged;
        };
        let (from, to) = (origin.len, meta.len());
        if to < from {
            Change::Shrank { from, to }
        } else if self.faulted() || meta.modified().ok() != origin.modified && to == from {
            Change::Rewritten
        } else if to > from {
            Change::Grew { from, to }
        } else {
            Change::Unchanged
        }
    }

    /// Whether a read of the mapped bytes went past the end of the file and saw zeros.
    fn faulted(&self) -> bool {
        match &self.bytes {
            Bytes::Mapped(mapping) => mapping.guard.as_ref().is_some_and(Guard::faulted),
            Bytes::Owned(_) => false,
        }
    }
}

/// Opens `path` and maps its bytes as they are; a pipe is copied to a temporary file first.
fn open_raw(path: &Path, limit: u64) -> Result<Source> {
    raise_open_file_limit();
    let io_err = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let file = File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if meta.is_dir() {
        return Err(Error::IsDirectory {
            path: path.to_path_buf(),
        });
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
    if meta.is_file() && meta.len() > 0 {
        if let Ok(map) = map_read_only(&file) {
            let mapping = guarded(map).map_err(io_err)?;
            let origin = Origin {
                len: mapping.map.len() as u64,
                modified: meta.modified().ok(),
                mapped: true,
                file,
            };
            return Ok(Source {
                path: path.to_path_buf(),
                bytes: Bytes::Mapped(mapping),
                origin: Some(origin),
                compression: None,
            });
        }
    }
    // A pipe, or a file that could not be mapped: copy it, up to the limit, since nothing
    // bounds what a pipe may send.
    let mut spill = Spill::new().map_err(|e| Error::Spill {
        path: path.to_path_buf(),
        source: e,
    })?;
    let copied = spill.copy_from(&file, limit).map_err(io_err)?;
    if copied > limit {
        return Err(Error::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(Source {
        path: path.to_path_buf(),
        bytes: spilled(spill, path)?,
        origin: None,
        compression: None,
    })
}

/// The decompressed stream of `raw`, spilled to a temporary file and mapped.
fn decompressed(raw: Source, compression: Compression, options: &Options) -> Result<Source> {
    let path = raw.path.clone();
    let spill_err = |e| Error::Spill {
        path: path.clone(),
        source: e,
    };
    let mut spill = Spill::new().map_err(spill_err)?;
    let data = raw.bytes();
    let outcome = compress::decompress_into(data, compression, options.limit, &mut spill);
    // Decoding read the compressed file: had it shrunk meanwhile, part of the output came from
    // zeros and is no use.
    raw.check_unchanged()?;
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(Stopped::Limit(e)) => {
            return Err(Error::Decompress {
                path,
                offset: FileOffset(e.compressed_offset),
                message: e.to_string(),
            });
        }
        Err(Stopped::Write(e)) => return Err(spill_err(e)),
    };
    let unreadable = outcome.len == 0
        && outcome
            .problem
            .as_ref()
            .is_some_and(|p| p.kind == StreamProblemKind::Corrupt);
    if options.mode == Mode::Auto && unreadable {
        return Ok(raw);
    }
    if unreadable && compress::sniff(data) != Some(compression) {
        // The user forced a compression the file does not start with: a wrong option, not damage.
        return Err(Error::Decompress {
            path,
            offset: FileOffset(0),
            message: format!(
                "not a {} stream (its first bytes say otherwise); try --compression auto or none",
                compression.tensorflow_name()
            ),
        });
    }
    let info = Compressed {
        compression,
        compressed_len: raw.len(),
        problem: outcome.problem,
        ignored: outcome.ignored,
    };
    let origin = raw.origin.map(|origin| Origin {
        mapped: false,
        ..origin
    });
    Ok(Source {
        bytes: spilled(spill, &path)?,
        path,
        origin,
        compression: Some(info),
    })
}

/// Maps what was written to `spill`.
fn spilled(spill: Spill, path: &Path) -> Result<Bytes> {
    let spill_err = |e| Error::Spill {
        path: path.to_path_buf(),
        source: e,
    };
    let Some(file) = spill.finish().map_err(spill_err)? else {
        return Ok(Bytes::Owned(Vec::new()));
    };
    let map = map_read_only(&file).map_err(spill_err)?;
    Ok(Bytes::Mapped(guarded(map).map_err(spill_err)?))
}

#[allow(unsafe_code)]
fn map_read_only(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and this process never writes the file. Another process may
    // truncate it while it is mapped; reading a page past the new end then raises SIGBUS, which
    // the guard that `guarded` registers turns into zero pages and a flag that
    // `check_unchanged` reports. Every map made here goes straight to `guarded`.
    unsafe { memmap2::Mmap::map(file) }
}

/// Registers `map` with the SIGBUS guard; refused when the guard has no room for it.
fn guarded(map: memmap2::Mmap) -> std::io::Result<Mapping> {
    #[cfg(unix)]
    let guard = match guard::protect(map.as_ptr(), map.len()) {
        Some(guard) => Some(guard),
        None if map.is_empty() => None,
        None => {
            return Err(std::io::Error::other(format!(
                "cannot guard its memory map: at most {} inputs can be open at once",
                guard::SLOTS
            )));
        }
    };
    #[cfg(not(unix))]
    let guard = Some(Guard);
    #[cfg(unix)]
    {
        // Frames are usually read front to back; a failed hint is harmless.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Ok(Mapping { guard, map })
}

/// Every open input keeps its file open (to notice it change), so a session over a thousand
/// shards needs more descriptors than the usual soft limit of 1024: raise it to the hard limit.
#[allow(unsafe_code)]
fn raise_open_file_limit() {
    static RAISE: Once = Once::new();
    RAISE.call_once(|| {
        #[cfg(unix)]
        // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
        unsafe {
            let mut limit: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0
                && limit.rlim_cur < limit.rlim_max
            {
                limit.rlim_cur = limit.rlim_max;
                // Refused (macOS caps it lower): the soft limit stays as it was.
                let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_file(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("input.tfrecord");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    #[test]
    fn a_file_cut_short_while_mapped_reads_zeros_and_says_it_shrank() {
        let page = 4096;
        let bytes: Vec<u8> = (0..16 * page).map(|i| (i % 251 + 1) as u8).collect();
        let (_dir, path) = temp_file(&bytes);
        let source = Source::open(&path).unwrap();
        assert_eq!(source.bytes(), bytes.as_slice());
        assert!(source.check_unchanged().is_ok());

        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(2 * page as u64)
            .unwrap();
        let data = source.bytes();
        // Past the new end: without the guard this read is a SIGBUS.
        assert_eq!(std::hint::black_box(data[10 * page]), 0);
        assert!(data[10 * page..].iter().all(|&b| b == 0));
        assert_eq!(data[page], bytes[page], "bytes before the cut are kept");
        assert!(source.faulted());
        assert_eq!(
            source.change(),
            Change::Shrank {
                from: 16 * page as u64,
                to: 2 * page as u64
            }
        );
        let err = source.check_unchanged().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} shrank from {} to {} bytes while being read",
                path.display(),
                16 * page,
                2 * page
            )
        );
    }

    #[test]
    fn growth_is_noticed_but_not_an_error() {
        let (_dir, path) = temp_file(&[7; 100]);
        let source = Source::open(&path).unwrap();
        assert_eq!(source.change(), Change::Unchanged);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(&[8; 50]).unwrap();
        assert_eq!(source.change(), Change::Grew { from: 100, to: 150 });
        assert!(source.check_unchanged().is_ok());
        assert_eq!(source.len(), 100);
    }

    #[test]
    fn a_rewrite_of_the_same_length_is_noticed() {
        let (_dir, path) = temp_file(&[7; 100]);
        let source = Source::open(&path).unwrap();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        file.set_modified(later).unwrap();
        assert_eq!(source.change(), Change::Rewritten);
    }

    #[test]
    fn a_decompressed_stream_is_mapped_from_a_temporary_file() {
        let plain: Vec<u8> = (0..300_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&plain).unwrap();
        let (_dir, path) = temp_file(&enc.finish().unwrap());
        let source = Source::open_with(&path, &Options::default()).unwrap();
        assert!(matches!(source.bytes, Bytes::Mapped(_)));
        assert!(source.bytes() == plain.as_slice());
        let info = source.compression().unwrap();
        assert_eq!(info.compression, Compression::Gzip);
        assert_eq!(info.problem, None);
        // A compressed file that shrinks later changes nothing already decompressed.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(10)
            .unwrap();
        assert!(source.check_unchanged().is_ok());
        assert!(matches!(source.change(), Change::Shrank { .. }));
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_spilled_and_bounded() {
        use std::process::Command;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let feed = |n: usize| {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut w = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
                let _ = w.write_all(&vec![5u8; n]);
            })
        };
        let writer = feed(100_000);
        let options = Options {
            mode: Mode::None,
            limit: 100_000,
        };
        let source = Source::open_with(&fifo, &options).unwrap();
        writer.join().unwrap();
        assert_eq!(source.len(), 100_000, "exactly the limit is allowed");
        assert!(matches!(source.bytes, Bytes::Mapped(_)));
        assert_eq!(source.change(), Change::Unchanged);

        let writer = feed(100_001);
        let err = Source::open_with(&fifo, &options).err().unwrap();
        writer.join().unwrap();
        assert!(
            matches!(err, Error::TooLarge { limit: 100_000, .. }),
            "{err}"
        );
    }

    #[test]
    fn empty_files_open_without_a_map() {
        let (_dir, path) = temp_file(b"");
        let source = Source::open(&path).unwrap();
        assert!(source.is_empty());
        assert!(source.check_unchanged().is_ok());
    }
}
