//! Guarded read-only memory maps: the byte source of a regular file and of a spilled stream.
//!
//! Mapping is the crate's one `unsafe` operation on file contents. Every map made here is
//! registered with the SIGBUS guard ([`super::guard`]) before anyone reads it, so a file cut
//! short underneath reads as zeros and says so ([`ByteSource::faulted`]) instead of killing the
//! process.

use std::fs::File;

use crate::bytes::ByteSource;
use crate::span::FileRange;

#[cfg(unix)]
use super::guard::{self, Guard};

/// Without SIGBUS there is nothing to guard against.
#[cfg(not(unix))]
struct Guard;

#[cfg(not(unix))]
impl Guard {
    fn faulted(&self) -> bool {
        false
    }
}

/// A read-only map and its registration with the SIGBUS guard.
pub struct Mapping {
    // Declared before `map` so it is dropped first: the registration must end before the pages
    // are unmapped, or the handler could map zeros over whatever reuses the addresses.
    guard: Option<Guard>,
    map: memmap2::Mmap,
    /// The mapped file, kept to answer [`ByteSource::copy_into`] by reading it, when the map is
    /// its only holder (a spilled stream's file; a regular file is read through its source).
    file: Option<File>,
}

impl Mapping {
    /// Maps `file` read-only and registers the map with the guard; refused when the guard has
    /// no room for it.
    pub fn new(file: &File) -> std::io::Result<Mapping> {
        guarded(map_read_only(file)?)
    }

    /// [`Mapping::new`], keeping `file` to read from.
    pub fn owning(file: File) -> std::io::Result<Mapping> {
        let mut mapping = Mapping::new(&file)?;
        mapping.file = Some(file);
        Ok(mapping)
    }
}

impl ByteSource for Mapping {
    fn len(&self) -> u64 {
        self.map.len() as u64
    }

    fn read(&self, range: FileRange) -> Option<&[u8]> {
        range.slice(&self.map)
    }

    fn copy_into(&self, at: u64, buf: &mut [u8]) -> usize {
        self.file
            .as_ref()
            .and_then(|file| read_at(file, self.len(), at, buf))
            .unwrap_or_else(|| crate::bytes::copy_read(self, at, buf))
    }

    fn faulted(&self) -> bool {
        self.guard.as_ref().is_some_and(Guard::faulted)
    }
}

/// Reads the bytes of `file` from `at` into `buf`, no further than `len` (the mapped length: bytes
/// a growing file gained since are not the source's), and returns how many; `None` where files
/// cannot be read at an offset. One pass over every byte through a map faults in a page-table
/// entry per page and tears them all down at the end, which costs more than copying the bytes
/// out of the page cache into a buffer the reader keeps in its cache. A file cut short
/// underneath gives a short read here instead of zeros.
pub(super) fn read_at(file: &File, len: u64, at: u64, buf: &mut [u8]) -> Option<usize> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let wanted = len.saturating_sub(at).min(buf.len() as u64) as usize;
        let mut done = 0;
        while let Some(rest) = buf.get_mut(done..wanted).filter(|rest| !rest.is_empty()) {
            match file.read_at(rest, at + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        Some(done)
    }
    #[cfg(not(unix))]
    {
        let _ = (file, len, at, buf);
        None
    }
}

#[allow(unsafe_code)]
fn map_read_only(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and this process never writes the file. Another process may
    // truncate it while it is mapped; reading a page past the new end then raises SIGBUS, which
    // the guard that `guarded` registers turns into zero pages and a flag that
    // `Source::check_unchanged` reports. Every map made here goes straight to `guarded`.
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
    Ok(Mapping {
        guard,
        map,
        file: None,
    })
}
