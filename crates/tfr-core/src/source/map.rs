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
}

impl Mapping {
    /// Maps `file` read-only and registers the map with the guard; refused when the guard has
    /// no room for it.
    pub fn new(file: &File) -> std::io::Result<Mapping> {
        guarded(map_read_only(file)?)
    }
}

impl ByteSource for Mapping {
    fn len(&self) -> u64 {
        self.map.len() as u64
    }

    fn read(&self, range: FileRange) -> Option<&[u8]> {
        range.slice(&self.map)
    }

    fn faulted(&self) -> bool {
        self.guard.as_ref().is_some_and(Guard::faulted)
    }

    /// A pass over every byte through a map would otherwise take a page fault every few pages
    /// and leave every page's entry to be torn down when the map goes.
    fn will_walk(&self, range: FileRange) {
        #[cfg(target_os = "linux")]
        advise(&self.map, range, Pages::Touched, libc::MADV_POPULATE_READ);
        #[cfg(not(target_os = "linux"))]
        let _ = range;
    }

    /// The page the range ends in is kept: the walk may go on there (and the walk of the range
    /// after it lets go of it).
    fn walked(&self, range: FileRange) {
        #[cfg(target_os = "linux")]
        advise(&self.map, range, Pages::Before, libc::MADV_DONTNEED);
        #[cfg(not(target_os = "linux"))]
        let _ = range;
    }
}

/// Which pages of a byte range advice is about.
#[cfg(target_os = "linux")]
enum Pages {
    /// Every page holding some of its bytes.
    Touched,
    /// The pages from the one it starts in to the one it ends in, that one excluded.
    Before,
}

/// Gives the kernel `advice` about the pages of `map` that hold `range`. A refusal (a kernel too
/// old for the advice, pages past the end of a file cut short) changes nothing and is ignored.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise(map: &memmap2::Mmap, range: FileRange, pages: Pages, advice: libc::c_int) {
    let Some(bytes) = range.slice(map).filter(|bytes| !bytes.is_empty()) else {
        return;
    };
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let Some(page) = usize::try_from(page).ok().filter(|p| p.is_power_of_two()) else {
        return;
    };
    // The map starts on a page boundary, so pages are counted from its start. madvise wants a
    // page-aligned start and rounds the length up to whole pages, so an unaligned `end` stands
    // for the end of the page it falls in.
    let start = bytes.as_ptr() as usize - map.as_ptr() as usize;
    let end = start + bytes.len();
    let (first, last) = match pages {
        Pages::Touched => (start / page * page, end),
        Pages::Before => (start / page * page, end / page * page),
    };
    let Some(pages) = map.get(first..last).filter(|pages| !pages.is_empty()) else {
        return;
    };
    // SAFETY: the pages lie inside this live, read-only, shared map of a file. MADV_POPULATE_READ
    // only faults them in as reading them would (where a read would raise SIGBUS, past the end
    // of a file cut short, it fails instead). MADV_DONTNEED on a shared map of a file only drops
    // page-table entries: the next read faults the same pages of the file back in, so every
    // slice of the map reads the same bytes afterwards, and pages the SIGBUS guard replaced read
    // as zeros again. Only `Mapping` calls this, never on memory of its own, which MADV_DONTNEED
    // would zero.
    unsafe {
        libc::madvise(pages.as_ptr() as *mut libc::c_void, pages.len(), advice);
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
    Ok(Mapping { guard, map })
}
