//! Inputs named by URL (`gs://…`, `s3://…`): the core reads no network, so the application
//! registers, once, what fetches them; the core asks it wherever a path could be a URL (opening,
//! expanding a prefix or pattern, sniffing, reading a side file) and reads what it returns as it
//! reads local bytes.
//!
//! An object is either fetched whole before it is read (every command), or fetched as it is read
//! ([`ReadOptions::on_demand`](super::ReadOptions), the inspector): then [`OnDemand`] serves it,
//! fetching the parts a read touches before answering, so the first screen needs the first part
//! only. Bytes that could not be fetched are [`ReadError::Unavailable`], never zeros.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::map::Mapping;
use crate::bytes::{ByteSource, ReadError};
use crate::span::FileRange;

/// What the application provides to read inputs named by URL. Errors are messages that already
/// name the URL.
pub trait RemoteInputs: Send + Sync {
    /// Whether `path` is a URL this reader serves.
    fn claims(&self, path: &Path) -> bool;
    /// Whether the URL names a prefix or a pattern (many objects) rather than one object.
    fn names_many(&self, path: &Path) -> bool;
    /// The objects a prefix or pattern URL names, in order.
    fn expand(&self, path: &Path) -> Result<Vec<PathBuf>, String>;
    /// The object's bytes, whole, in a file of their own (at most `limit` bytes, else an error).
    fn fetch(&self, path: &Path, limit: u64) -> Result<Option<File>, String>;
    /// The object opened (its first part fetched) but not read further: its other parts are
    /// fetched as they are read (at most `limit` bytes, else an error).
    fn open(&self, path: &Path, limit: u64) -> Result<Arc<dyn RemoteObject>, String>;
    /// Up to `limit` bytes from the start of the object, and the object's size; `None` when
    /// there is no such object.
    fn read_start(&self, path: &Path, limit: u64) -> Result<Option<(Vec<u8>, u64)>, String>;
    /// The object's size, with none of its bytes (a listing's answer, or one HEAD request):
    /// what [`batches`] plans the disk of a pass over many objects with.
    fn size(&self, path: &Path) -> Result<u64, String>;
}

/// One object whose bytes arrive in a file of their own as they are asked for.
pub trait RemoteObject: Send + Sync {
    /// The object's size.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The ETag every part is pinned to, when the store gave one: with the URL and the size,
    /// what names these bytes.
    fn etag(&self) -> Option<&str>;
    /// Its first bytes (what opening fetched), to tell whether it is compressed.
    fn head(&self) -> &[u8];
    /// The file the bytes land in, as long as the object; only bytes [`RemoteObject::fetch`]
    /// returned for are there.
    fn file(&self) -> &File;
    /// Fetches the bytes of `range` not fetched yet, returning once they are in the file.
    fn fetch(&self, range: Range<u64>) -> Result<(), String>;
    /// Fetches the rest of the object and returns its file (a compressed object, decompressed
    /// front to back).
    fn fetch_all(&self) -> Result<&File, String>;
    /// How many bytes are in the file so far.
    fn fetched(&self) -> u64;
    /// The bytes one request fetches: the most one read of an [`OnDemand`] source serves, so
    /// that nothing takes a larger object as one slice (which would fetch all of it before
    /// answering), while an object of one part is read as one.
    fn part_size(&self) -> u64;
}

static REMOTE: OnceLock<Box<dyn RemoteInputs>> = OnceLock::new();

/// Registers what reads URLs (the first registration wins).
pub fn register(remote: Box<dyn RemoteInputs>) {
    let _ = REMOTE.set(remote);
}

/// The registered reader, when it claims `path`.
pub fn claiming(path: &Path) -> Option<&'static dyn RemoteInputs> {
    REMOTE.get().map(|r| r.as_ref()).filter(|r| r.claims(path))
}

/// The most bytes of objects fetched whole that a pass over many files holds open at once
/// (see [`batches`]); an object larger than this is opened on its own.
pub const REMOTE_AT_ONCE: u64 = 4 << 30;

/// Consecutive runs of `paths` to open at once, in order: at most `max_files` paths each, and
/// objects named by URL of at most `max_bytes` together (an object larger than that is a run of
/// its own). A command fetches such an object whole into a temporary file that lives as long as
/// the object is open, so this bounds the disk a pass over many objects takes. Local files count
/// nothing against `max_bytes`: they are mapped where they lie.
///
/// Sizes come from [`RemoteInputs::size`] (asked in parallel); an object whose size cannot be
/// had is taken as `max_bytes`, so it is opened on its own and fails there with its own error.
pub fn batches(paths: &[PathBuf], max_files: usize, max_bytes: u64) -> Vec<Range<usize>> {
    use rayon::prelude::*;
    if paths.len() <= 1 {
        // One file is its own batch: no size need be asked.
        return (!paths.is_empty())
            .then_some(0..paths.len())
            .into_iter()
            .collect();
    }
    let sizes: Vec<u64> = paths
        .par_iter()
        .map(|path| match claiming(path) {
            Some(remote) => remote.size(path).unwrap_or(max_bytes),
            None => 0,
        })
        .collect();
    runs_of(&sizes, max_files.max(1), max_bytes)
}

/// The runs [`batches`] cuts files of `sizes` (0 for a local file) into.
fn runs_of(sizes: &[u64], max_files: usize, max_bytes: u64) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    let mut bytes = 0u64;
    for (i, &size) in sizes.iter().enumerate() {
        let held = bytes.saturating_add(size);
        if i > start && (i - start >= max_files || held > max_bytes) {
            runs.push(start..i);
            start = i;
            bytes = size;
        } else {
            bytes = held;
        }
    }
    if start < sizes.len() {
        runs.push(start..sizes.len());
    }
    runs
}

/// Temporary files holding objects fetched whole (or their decompressed streams): how many and
/// how many bytes are alive now, and the most at once since [`Spills::reset_peak`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spills {
    pub files: u64,
    pub bytes: u64,
    pub peak_files: u64,
    pub peak_bytes: u64,
}

static SPILLS: Mutex<Spills> = Mutex::new(Spills {
    files: 0,
    bytes: 0,
    peak_files: 0,
    peak_bytes: 0,
});

impl Spills {
    /// The count now: what tests of a pass over many objects read to show its disk bounded.
    pub fn now() -> Spills {
        *SPILLS.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the peaks again from what is alive now.
    pub fn reset_peak() {
        let mut spills = SPILLS.lock().unwrap_or_else(|e| e.into_inner());
        spills.peak_files = spills.files;
        spills.peak_bytes = spills.bytes;
    }
}

/// One temporary file of an object's bytes, counted in [`Spills`] while it lives.
pub(crate) struct SpillHeld(u64);

impl SpillHeld {
    pub(crate) fn new(bytes: u64) -> SpillHeld {
        let mut spills = SPILLS.lock().unwrap_or_else(|e| e.into_inner());
        spills.files = spills.files.saturating_add(1);
        spills.bytes = spills.bytes.saturating_add(bytes);
        spills.peak_files = spills.peak_files.max(spills.files);
        spills.peak_bytes = spills.peak_bytes.max(spills.bytes);
        SpillHeld(bytes)
    }
}

impl Drop for SpillHeld {
    fn drop(&mut self) {
        let mut spills = SPILLS.lock().unwrap_or_else(|e| e.into_inner());
        spills.files = spills.files.saturating_sub(1);
        spills.bytes = spills.bytes.saturating_sub(self.0);
    }
}

/// An object's bytes, fetched as they are read, mapped from the file they land in.
pub struct OnDemand {
    object: Arc<dyn RemoteObject>,
    map: Mapping,
    /// Every byte is fetched: reads need not ask the object any more.
    complete: AtomicBool,
    /// The first read whose bytes could not be fetched.
    failed: OnceLock<ReadError>,
}

impl OnDemand {
    /// Maps `object`'s file; the object must not be empty (an empty file cannot be mapped).
    pub fn new(object: Arc<dyn RemoteObject>) -> std::io::Result<OnDemand> {
        let map = Mapping::new(object.file())?;
        Ok(OnDemand {
            object,
            map,
            complete: AtomicBool::new(false),
            failed: OnceLock::new(),
        })
    }
}

impl ByteSource for OnDemand {
    fn len(&self) -> u64 {
        self.object.len()
    }

    fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
        let len = self.object.len();
        if range.end.0 > len {
            return Err(ReadError::OutOfRange { range, len });
        }
        let limit = self.object.part_size().max(1);
        if range.len() > limit {
            return Err(ReadError::TooLarge { range, limit });
        }
        if !self.complete.load(Ordering::Acquire) {
            if let Err(reason) = self.object.fetch(range.start.0..range.end.0) {
                let error = ReadError::Unavailable {
                    range,
                    reason: reason.into(),
                };
                let _ = self.failed.set(error.clone());
                return Err(error);
            }
            if range.end.0 == len && self.object.fetched() == len {
                self.complete.store(true, Ordering::Release);
            }
        }
        self.map.read(range)
    }

    fn faulted(&self) -> bool {
        self.map.faulted()
    }

    fn failure(&self) -> Option<ReadError> {
        self.failed.get().cloned()
    }

    fn will_walk(&self, range: FileRange) {
        self.map.will_walk(range)
    }

    fn walked(&self, range: FileRange) {
        self.map.walked(range)
    }
}

/// Objects for the core's own tests: `fake://` and a local path names that file as an object,
/// fetched whole by copying it into a temporary file (as a store's bytes would arrive).
#[cfg(test)]
#[allow(clippy::disallowed_methods)]
pub(crate) mod fake {
    use super::*;
    use std::io::{Read, Seek};

    pub(crate) const SCHEME: &str = "fake://";

    struct Fake;

    fn local(path: &Path) -> Result<PathBuf, String> {
        path.to_str()
            .and_then(|p| p.strip_prefix(SCHEME))
            .map(PathBuf::from)
            .ok_or_else(|| format!("{}: not fake", path.display()))
    }

    impl RemoteInputs for Fake {
        fn claims(&self, path: &Path) -> bool {
            path.to_str().is_some_and(|p| p.starts_with(SCHEME))
        }
        fn names_many(&self, _: &Path) -> bool {
            false
        }
        fn expand(&self, path: &Path) -> Result<Vec<PathBuf>, String> {
            Ok(vec![path.to_path_buf()])
        }
        fn fetch(&self, path: &Path, limit: u64) -> Result<Option<File>, String> {
            let mut from = File::open(local(path)?).map_err(|e| e.to_string())?;
            let mut spill = tempfile::tempfile().map_err(|e| e.to_string())?;
            let copied = std::io::copy(&mut (&mut from).take(limit), &mut spill)
                .map_err(|e| e.to_string())?;
            spill.rewind().map_err(|e| e.to_string())?;
            Ok((copied > 0).then_some(spill))
        }
        fn open(&self, path: &Path, _: u64) -> Result<Arc<dyn RemoteObject>, String> {
            Err(format!("{}: not served on demand", path.display()))
        }
        fn read_start(&self, path: &Path, limit: u64) -> Result<Option<(Vec<u8>, u64)>, String> {
            let bytes = std::fs::read(local(path)?).map_err(|e| e.to_string())?;
            let len = bytes.len() as u64;
            Ok(Some((
                bytes.into_iter().take(limit as usize).collect(),
                len,
            )))
        }
        fn size(&self, path: &Path) -> Result<u64, String> {
            let meta = std::fs::metadata(local(path)?).map_err(|e| e.to_string())?;
            Ok(meta.len())
        }
    }

    /// Registers the fake objects (once per test process).
    pub(crate) fn install() {
        register(Box::new(Fake));
    }

    /// `path` as a fake object's URL.
    pub(crate) fn url(path: &Path) -> PathBuf {
        PathBuf::from(format!("{SCHEME}{}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileOffset;
    use std::os::unix::fs::FileExt;
    use std::sync::Mutex;

    /// An object of `len` bytes in parts of `part`, "fetched" by writing each part's bytes when
    /// first asked for; parts from `failing` on cannot be fetched.
    struct Fake {
        file: File,
        len: u64,
        part: u64,
        failing: u64,
        fetches: Mutex<Vec<u64>>,
    }

    fn byte(at: u64) -> u8 {
        (at % 253) as u8
    }

    impl RemoteObject for Fake {
        fn len(&self) -> u64 {
            self.len
        }
        fn head(&self) -> &[u8] {
            &[]
        }
        fn etag(&self) -> Option<&str> {
            None
        }
        fn file(&self) -> &File {
            &self.file
        }
        fn fetch(&self, range: Range<u64>) -> Result<(), String> {
            let mut fetches = self.fetches.lock().unwrap();
            for part in range.start / self.part..range.end.div_ceil(self.part) {
                if part >= self.failing {
                    return Err("x: part 2 could not be fetched".into());
                }
                if !fetches.contains(&part) {
                    let start = part * self.part;
                    let end = (start + self.part).min(self.len);
                    let bytes: Vec<u8> = (start..end).map(byte).collect();
                    self.file.write_all_at(&bytes, start).unwrap();
                    fetches.push(part);
                }
            }
            Ok(())
        }
        fn fetch_all(&self) -> Result<&File, String> {
            self.fetch(0..self.len).map(|()| &self.file)
        }
        fn fetched(&self) -> u64 {
            let parts = self.fetches.lock().unwrap();
            parts
                .iter()
                .map(|p| (p * self.part + self.part).min(self.len) - p * self.part)
                .sum()
        }
        fn part_size(&self) -> u64 {
            self.part
        }
    }

    fn fake(len: u64, part: u64, failing: u64) -> Arc<Fake> {
        let file = tempfile::tempfile().unwrap();
        file.set_len(len).unwrap();
        Arc::new(Fake {
            file,
            len,
            part,
            failing,
            fetches: Mutex::new(Vec::new()),
        })
    }

    fn range(start: u64, end: u64) -> FileRange {
        FileRange::new(FileOffset(start), FileOffset(end))
    }

    #[test]
    fn reads_fetch_the_parts_they_touch_and_serve_them_from_the_file() {
        let object = fake(10_000, 1000, u64::MAX);
        let source = OnDemand::new(object.clone()).unwrap();
        assert_eq!(source.len(), 10_000);
        let bytes = source.read(range(1990, 2010)).unwrap();
        assert!(bytes.iter().zip(1990..).all(|(b, at)| *b == byte(at)));
        assert_eq!(*object.fetches.lock().unwrap(), [1, 2]);
        // A read longer than a part is refused, not served by fetching everything; the walk
        // then asks for less.
        assert!(matches!(
            source.read(range(0, 1001)),
            Err(ReadError::TooLarge { limit: 1000, .. })
        ));
        assert!(crate::bytes::whole(&source).is_err());
        assert!(matches!(
            source.read(range(9990, 10_001)),
            Err(ReadError::OutOfRange { len: 10_000, .. })
        ));
        // Every frame found, reading part by part.
        let mut copy = vec![0; 10_000];
        let mut at = 0;
        while at < 10_000 {
            at += source.copy_into(at as u64, &mut copy[at..]);
        }
        assert!(copy.iter().zip(0..).all(|(b, at)| *b == byte(at)));
        assert_eq!(object.fetched(), 10_000);
        assert_eq!(source.failure(), None);
    }

    #[test]
    fn bytes_that_cannot_be_fetched_are_unavailable_never_zeros() {
        let object = fake(10_000, 1000, 2);
        let source = OnDemand::new(object).unwrap();
        assert!(source.read(range(0, 100)).is_ok());
        let error = source.read(range(2500, 2600)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "bytes 2500..2600 could not be read: x: part 2 could not be fetched"
        );
        assert_eq!(source.failure(), Some(error));
    }

    #[test]
    fn runs_hold_at_most_the_files_and_the_bytes_allowed() {
        // Local files (0) fill runs by count only.
        assert_eq!(runs_of(&[0; 7], 3, 10), [0..3, 3..6, 6..7]);
        // Objects by bytes: 4 + 5 fit in 10, 4 + 5 + 2 do not; one larger than 10 is alone.
        assert_eq!(
            runs_of(&[4, 5, 2, 30, 1, 0, 0, 9], 100, 10),
            [0..2, 2..3, 3..4, 4..8]
        );
        assert_eq!(runs_of(&[], 3, 10), Vec::<Range<usize>>::new());
        assert_eq!(runs_of(&[u64::MAX, u64::MAX], 3, 10), [0..1, 1..2]);
    }
}
