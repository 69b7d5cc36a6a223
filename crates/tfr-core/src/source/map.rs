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
    /// The mapped file, for [`ByteSource::copy_into`] (`None` when it could not be shared).
    file: Option<File>,
}

impl Mapping {
    /// Maps `file` read-only and registers the map with the guard; refused when the guard has
    /// no room for it.
    pub fn new(file: &File) -> std::io::Result<Mapping> {
        let mut mapping = guarded(map_read_only(file)?)?;
        mapping.file = file.try_clone().ok();
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

    /// Reads the file rather than the map: one pass over every byte through the map faults in a
    /// page table entry per page and tears them all down at the end, which costs more than
    /// copying the bytes out of the page cache into a buffer the reader keeps in its cache. A
    /// file cut short underneath gives a short read here instead of zeros.
    #[cfg(unix)]
    fn copy_into(&self, at: u64, buf: &mut [u8]) -> usize {
        use std::os::unix::fs::FileExt;
        let Some(file) = &self.file else {
            return crate::bytes::copy_read(self, at, buf);
        };
        // Only the mapped length: bytes a growing file gained since are not the source's.
        let wanted = self.len().saturating_sub(at).min(buf.len() as u64) as usize;
        let mut done = 0;
        while let Some(rest) = buf.get_mut(done..wanted).filter(|rest| !rest.is_empty()) {
            match file.read_at(rest, at + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        done
    }

    fn faulted(&self) -> bool {
        self.guard.as_ref().is_some_and(Guard::faulted)
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
