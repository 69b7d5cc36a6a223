//! Read-only access to an input's bytes, memory-mapped so that a 10 GiB shard opens instantly and
//! its payloads stay in the page cache instead of the heap.
//!
//! A [`Source`] is an input's name, its bytes behind the [`ByteSource`] read interface, and the
//! file they came from. A regular file is mapped as it is (`map`). A stream with no file of its
//! own to map (what arrives through a pipe, or the decompressed stream of a GZIP or ZLIB file) is
//! first written to an unlinked temporary file in `$TMPDIR` (`spill`), under the same size
//! limit, and that file is mapped, so anonymous memory stays small whatever the stream's size
//! (`open`). The file an input came from stays open, so it can be asked (fstat) whether it
//! shrank, grew or was rewritten since, and every mapping is guarded (`guard`) so that a file
//! cut short underneath us reads as zeros instead of killing the process with SIGBUS;
//! [`Source::check_unchanged`] says whether that happened before anything computed from those
//! bytes is shown. The `unsafe` code this needs (mapping, the guard, and hints: the kernel's for
//! a mapped range walked once ([`ByteSource::will_walk`]) and for room reserved in a buffer
//! ([`fault_in_for_writing`]), the processor's for bytes about to be read ([`prefetch`])) is all
//! here.

#[cfg(unix)]
mod guard;
pub mod lines;
mod map;
mod open;
mod prefetch;
pub mod remote;
mod room;
mod spill;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::bytes::{ByteSource, ReadError};
use crate::compress::Compressed;
use crate::error::{Error, Result};
use crate::span::FileRange;
pub use open::{ReadOptions, ServeThrough, choose};
pub use prefetch::prefetch;
pub use remote::{OnDemand, RemoteObject};
pub use room::fault_in_for_writing;

/// The file an input was read from, as it was when read.
struct Origin {
    file: File,
    len: u64,
    modified: Option<SystemTime>,
    /// True when the source's bytes are this file's own pages (not a decompressed copy).
    mapped: bool,
}

/// A file's length and modification time when it was read (see [`Source::stamp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
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
    /// Shared, so that a worker thread can read them while the source stays where it is.
    bytes: Arc<dyn ByteSource>,
    origin: Option<Origin>,
    /// Set when `bytes` are the decompressed stream of a compressed file.
    compression: Option<Compressed>,
    /// Set when `bytes` are an object's, fetched as they are read.
    on_demand: Option<Arc<dyn remote::RemoteObject>>,
    /// The first payload that could not be read, by record ([`ByteSource::note_unread`]).
    unread: std::sync::OnceLock<(usize, ReadError)>,
    /// Set when `bytes` are an object's fetched whole: its temporary file, counted while open.
    spill: Option<remote::SpillHeld>,
}

/// How much of an object read on demand has been fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fetched {
    pub bytes: u64,
    pub len: u64,
}

impl Source {
    /// Opens `path` read-only and maps it, decompressing it when `options` ask for it or detect
    /// compression.
    ///
    /// `options.limit` bounds both a decompressed stream and what is read from a pipe (which is
    /// copied to a temporary file first). With [`crate::compress::Mode::Auto`], bytes that merely
    /// look compressed but yield nothing but a corrupt-data error are read as plain, so their
    /// damage is shown frame by frame.
    pub fn open(path: &Path, options: &ReadOptions) -> Result<Source> {
        open::open(path, options)
    }

    /// A source named `path` over `bytes` from anywhere (a buffer, or a reader of one's own),
    /// with no file behind it to watch.
    pub fn new(path: impl Into<PathBuf>, bytes: Box<dyn ByteSource>) -> Source {
        Source {
            path: path.into(),
            bytes: Arc::from(bytes),
            origin: None,
            compression: None,
            on_demand: None,
            unread: std::sync::OnceLock::new(),
            spill: None,
        }
    }

    fn over(path: &Path, bytes: Box<dyn ByteSource>, origin: Option<Origin>) -> Source {
        Source {
            origin,
            ..Source::new(path, bytes)
        }
    }

    fn into_origin(self) -> Option<Origin> {
        self.origin
    }

    /// How much of the object has been fetched, when its bytes are fetched as they are read
    /// ([`ReadOptions::on_demand`]).
    pub fn fetched(&self) -> Option<Fetched> {
        self.on_demand.as_ref().map(|o| Fetched {
            bytes: o.fetched(),
            len: o.len(),
        })
    }

    /// The ETag of the object read on demand, when its store gave one.
    pub fn etag(&self) -> Option<&str> {
        self.on_demand.as_ref().and_then(|o| o.etag())
    }

    /// How the file was compressed, when `bytes` are its decompressed stream.
    pub fn compression(&self) -> Option<&Compressed> {
        self.compression.as_ref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes, for a thread of their own: they stay mapped until the last holder lets go.
    pub fn shared_bytes(&self) -> Arc<dyn ByteSource> {
        Arc::clone(&self.bytes)
    }

    pub fn len(&self) -> u64 {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The error for a read of this source that failed, naming the file, the record whose bytes
    /// were read (when one was) and the offset.
    pub fn read_error(&self, record: Option<usize>, error: ReadError) -> Error {
        Error::Read {
            path: self.path.clone(),
            record,
            error,
        }
    }

    /// What tells a later opening of the same path whether it reads the same file: its length
    /// and modification time as read. `None` for bytes that cannot be read again (a pipe's).
    pub fn stamp(&self) -> Option<Stamp> {
        self.origin.as_ref().map(|o| Stamp {
            len: o.len,
            modified: o.modified,
        })
    }

    /// Fails when the bytes read may not be the file's any more: it shrank below what was
    /// mapped, or a read went past its end (and saw zeros). A file that only grew is fine: the
    /// part mapped is still what it was.
    ///
    /// Callers check this after computing and before printing, so nothing computed from zeros
    /// is ever shown. It fails too when a read of bytes inside the stream failed
    /// ([`ByteSource::failure`]): what was computed took them for bytes that are not there.
    pub fn check_unchanged(&self) -> Result<()> {
        if let Some((record, error)) = self.unread.get() {
            return Err(self.read_error(Some(*record), error.clone()));
        }
        if let Some(error) = self.failure() {
            return Err(Error::Read {
                path: self.path.clone(),
                record: None,
                error,
            });
        }
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
}

impl ByteSource for Source {
    fn len(&self) -> u64 {
        self.bytes.len()
    }

    #[inline]
    fn read(&self, range: FileRange) -> std::result::Result<&[u8], ReadError> {
        self.bytes.read(range)
    }

    fn failure(&self) -> Option<ReadError> {
        self.bytes.failure()
    }

    fn note_unread(&self, record: usize, error: &ReadError) {
        let _ = self.unread.set((record, error.clone()));
    }

    fn copy_into(&self, at: u64, buf: &mut [u8]) -> usize {
        self.bytes.copy_into(at, buf)
    }

    /// Whether a read of the mapped bytes went past the end of the file and saw zeros.
    fn faulted(&self) -> bool {
        self.bytes.faulted()
    }

    fn will_walk(&self, range: FileRange) {
        self.bytes.will_walk(range)
    }

    fn walked(&self, range: FileRange) {
        self.bytes.walked(range)
    }
}

/// The value of `field` (e.g. `"Rss:"`) for the mapping that holds `at`, from /proc/self/smaps
/// (`None` where that is not shown, as in some sandboxes).
#[cfg(all(test, target_os = "linux"))]
fn smaps_field(at: usize, field: &str) -> Option<String> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    for line in smaps.lines() {
        let range = line
            .split_whitespace()
            .next()
            .and_then(|r| r.split_once('-'));
        let bounds = range.map(|(start, end)| {
            (
                usize::from_str_radix(start, 16),
                usize::from_str_radix(end, 16),
            )
        });
        if let Some((Ok(start), Ok(end))) = bounds {
            inside = start <= at && at < end;
        } else if let Some(value) = line.strip_prefix(field).filter(|_| inside) {
            return Some(value.trim().to_string());
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::compress::Compression;
    use std::io::Write;

    /// Every byte of `source`, which these tests open from files small enough to read at once.
    fn whole_of(source: &Source) -> &[u8] {
        crate::bytes::whole(source).unwrap()
    }

    /// Whether `bytes` lie in a mapping of a file rather than in anonymous memory.
    #[cfg(target_os = "linux")]
    fn file_backed(bytes: &[u8]) -> bool {
        let at = bytes.as_ptr() as usize;
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        maps.lines().any(|line| {
            // address perms offset dev inode [path]
            let mut fields = line.split_whitespace();
            let range = fields.next().and_then(|r| r.split_once('-'));
            let Some((start, end)) = range else {
                return false;
            };
            let start = usize::from_str_radix(start, 16).unwrap();
            let end = usize::from_str_radix(end, 16).unwrap();
            start <= at && at < end && fields.nth(3).is_some_and(|inode| inode != "0")
        })
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn memory_of_our_own_is_not_taken_for_a_file_mapping() {
        assert!(!file_backed(&vec![1u8; 1 << 20]));
    }

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
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
        assert_eq!(whole_of(&source), bytes.as_slice());
        assert!(source.check_unchanged().is_ok());

        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(2 * page as u64)
            .unwrap();
        let data = whole_of(&source);
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

    /// The resident size, in KiB, of the mapping that holds `at` (`None` where it is not shown).
    #[cfg(target_os = "linux")]
    fn resident_kib(at: usize) -> Option<u64> {
        let kib = super::smaps_field(at, "Rss:")?;
        kib.trim_end_matches("kB").trim().parse().ok()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn pages_let_go_after_a_walk_leave_the_process_and_read_the_same() {
        use crate::span::FileOffset;
        // Whole pages (of 4, 16 or 64 KiB): letting go of all of it drops every one.
        let bytes: Vec<u8> = (0..64 * 4096).map(|i| (i % 251) as u8).collect();
        let (_dir, path) = temp_file(&bytes);
        let mapped = Source::open(&path, &ReadOptions::as_is()).unwrap();
        let memory = Source::new("memory", Box::new(bytes.clone()));
        let all = FileRange::new(FileOffset::ZERO, FileOffset(bytes.len() as u64));
        let inside = FileRange::new(FileOffset(5_000), FileOffset(70_000));
        for source in [&mapped, &memory] {
            for range in [inside, all] {
                source.will_walk(range);
                assert!(whole_of(source) == bytes.as_slice());
                source.walked(range);
                assert!(
                    whole_of(source) == bytes.as_slice(),
                    "the bytes read the same"
                );
            }
        }
        // Read in whole, the map is resident; let go, it is not, until it is read again.
        let at = whole_of(&mapped).as_ptr() as usize;
        let Some(before) = resident_kib(at) else {
            eprintln!("no Rss in /proc/self/smaps here: residency not checked");
            return;
        };
        assert!(before * 1024 >= bytes.len() as u64, "{before} KiB");
        // A range that ends in the page it starts in lets go of none: the walk may go on there.
        mapped.walked(FileRange::new(FileOffset(5_000), FileOffset(6_000)));
        assert_eq!(resident_kib(at), Some(before));
        mapped.walked(all);
        assert_eq!(resident_kib(at), Some(0));
        assert!(whole_of(&mapped) == bytes.as_slice());
        assert_eq!(resident_kib(at), Some(before));
    }

    #[test]
    fn growth_is_noticed_but_not_an_error() {
        let (_dir, path) = temp_file(&[7; 100]);
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
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
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
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
        let source = Source::open(&path, &ReadOptions::default()).unwrap();
        // Spilled to a temporary file and mapped, not held in anonymous memory.
        #[cfg(target_os = "linux")]
        assert!(file_backed(whole_of(&source)));
        assert!(whole_of(&source) == plain.as_slice());
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
        let options = ReadOptions {
            limit: 100_000,
            ..ReadOptions::as_is()
        };
        let source = Source::open(&fifo, &options).unwrap();
        writer.join().unwrap();
        assert_eq!(source.len(), 100_000, "exactly the limit is allowed");
        // Spilled to a temporary file and mapped, not held in anonymous memory.
        #[cfg(target_os = "linux")]
        assert!(file_backed(whole_of(&source)));
        assert_eq!(source.change(), Change::Unchanged);

        let writer = feed(100_001);
        let err = Source::open(&fifo, &options).err().unwrap();
        writer.join().unwrap();
        assert!(
            matches!(err, Error::TooLarge { limit: 100_000, .. }),
            "{err}"
        );
    }

    #[test]
    fn empty_files_open_without_a_map() {
        let (_dir, path) = temp_file(b"");
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
        assert!(source.is_empty());
        assert!(source.check_unchanged().is_ok());
    }
}
