//! Guarded read-only memory maps: the byte source of a regular file and of a spilled stream.
//!
//! Mapping is the crate's one `unsafe` operation on file contents. Every map made here is
//! registered with the SIGBUS guard ([`super::guard`]) before anyone reads it, so a file cut
//! short underneath reads as zeros and says so ([`ByteSource::faulted`]) instead of killing the
//! process.

use std::fs::File;

use crate::bytes::{ByteSource, ReadError};
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

    #[inline]
    fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
        ByteSource::read(&self.map[..], range)
    }

    fn faulted(&self) -> bool {
        self.guard.as_ref().is_some_and(Guard::faulted)
    }

    /// A pass over every byte through a map would otherwise take a page fault every few pages
    /// and leave every page's entry to be torn down when the map goes.
    fn will_walk(&self, range: FileRange) {
        #[cfg(target_os = "linux")]
        if let Some((offset, len)) = pages(&self.map, range, Pages::Touched) {
            // A refusal (a kernel older than 5.14, pages past the end of a file cut short)
            // changes nothing.
            let _ = self
                .map
                .advise_range(memmap2::Advice::PopulateRead, offset, len);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = range;
    }

    /// The page the range ends in is kept: the walk may go on there (and the walk of the range
    /// after it lets go of it).
    #[allow(unsafe_code)]
    fn walked(&self, range: FileRange) {
        #[cfg(target_os = "linux")]
        if let Some((offset, len)) = pages(&self.map, range, Pages::Before) {
            // SAFETY: MADV_DONTNEED on a shared, read-only map of a file only drops page-table
            // entries: the next read faults the same pages of the file back in, so every slice
            // of the map (borrowed or not) reads the same bytes afterwards, and pages the SIGBUS
            // guard replaced read as zeros again. Only `Mapping` does this, never to memory of
            // its own, which MADV_DONTNEED would zero. A refusal changes nothing.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len)
            };
        }
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

/// The offset and length in `map` to advise about `pages` of `range`; `None` when there are
/// none. memmap2 moves the start back to its page and the kernel rounds the length up to whole
/// pages, so for [`Pages::Before`] the end is moved back to the start of its page here.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn pages(map: &memmap2::Mmap, range: FileRange, pages: Pages) -> Option<(usize, usize)> {
    let start = usize::try_from(range.start.0).ok()?;
    let end = usize::try_from(range.end.0).ok()?.min(map.len());
    let end = match pages {
        Pages::Touched => end,
        Pages::Before => {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let page = usize::try_from(page).ok().filter(|p| p.is_power_of_two())?;
            // The map starts on a page boundary, so its pages are counted from its start.
            end / page * page
        }
    };
    let len = end.checked_sub(start).filter(|len| *len > 0)?;
    Some((start, len))
}

#[allow(unsafe_code)]
fn map_read_only(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and this process never writes the file. Another process may
    // truncate it while it is mapped; reading a page past the new end then raises SIGBUS, which
    // the guard that `guarded` registers turns into zero pages and a flag that
    // `Source::check_unchanged` reports. Every map made here goes straight to `guarded`.
    unsafe { memmap2::Mmap::map(file) }
}

/// Why a map was refused: the guard's registry is full (one slot per open input).
#[derive(Debug)]
pub struct GuardFull;

impl std::fmt::Display for GuardFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(unix)]
        let most = guard::SLOTS;
        #[cfg(not(unix))]
        let most = 0;
        write!(
            f,
            "not opened: {most} inputs are open already, the most this process maps at once"
        )
    }
}

impl std::error::Error for GuardFull {}

/// Whether `error` is a map refused for [`GuardFull`].
pub fn is_guard_full(error: &std::io::Error) -> bool {
    error.get_ref().is_some_and(|e| e.is::<GuardFull>())
}

/// Registers `map` with the SIGBUS guard; refused when the guard has no room for it.
fn guarded(map: memmap2::Mmap) -> std::io::Result<Mapping> {
    #[cfg(unix)]
    let guard = match guard::protect(map.as_ptr(), map.len()) {
        Some(guard) => Some(guard),
        None if map.is_empty() => None,
        None => return Err(std::io::Error::other(GuardFull)),
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
