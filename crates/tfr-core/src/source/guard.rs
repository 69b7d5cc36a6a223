//! Survival of a mapped file that shrinks underneath us.
//!
//! Reading a page of a memory map that lies past the end of its file raises SIGBUS, and the
//! default action kills the process: a writer that truncates a shard (reopening it with
//! `O_TRUNC`) while it is being verified or inspected would take the tool down with it, leaving
//! the terminal raw. This module installs one process-wide SIGBUS handler and keeps a lock-free
//! registry of the live mappings. When the faulting address lies in a registered mapping, the
//! handler maps anonymous zero pages over the rest of that mapping and returns, so the read is
//! retried and sees zeros; the mapping's `faulted` flag records that its bytes can no longer be
//! trusted, and the owner checks it before showing anything computed from them. A fault anywhere
//! else is not ours: the previous action is restored and the signal raised again, so real bugs
//! still crash.
//!
//! The registry is a fixed array because a signal handler may not allocate or take locks. Each
//! slot is a small seqlock: writers make `seq` odd while they change the slot, and the handler
//! ignores a slot whose `seq` was odd or moved while it read it. A slot that holds the faulting
//! address cannot be changing, because its owner is in the middle of reading it.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Once, OnceLock};

/// The most mappings guarded at once (one per open input).
pub const SLOTS: usize = 4096;

struct Slot {
    /// Claimed by a registration; only the claimant writes the other fields.
    owned: AtomicBool,
    /// Odd while the slot is being written.
    seq: AtomicUsize,
    /// First address of the mapping; 0 when the slot holds none.
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            owned: AtomicBool::new(false),
            seq: AtomicUsize::new(0),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
        }
    }

    /// Changes the slot's mapping, with `seq` odd meanwhile.
    fn publish(&self, start: usize, len: usize) {
        self.seq.fetch_add(1, SeqCst);
        self.start.store(start, SeqCst);
        self.len.store(len, SeqCst);
        self.faulted.store(false, SeqCst);
        self.seq.fetch_add(1, SeqCst);
    }

    /// The slot's mapping as `start..end`, unless it is empty or changing.
    fn range(&self) -> Option<(usize, usize)> {
        let before = self.seq.load(SeqCst);
        let start = self.start.load(SeqCst);
        let len = self.len.load(SeqCst);
        let after = self.seq.load(SeqCst);
        if before % 2 == 1 || before != after || start == 0 {
            return None;
        }
        Some((start, start.saturating_add(len)))
    }
}

static REGISTRY: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];
/// Where the next registration starts looking for a free slot.
static NEXT_FREE: AtomicUsize = AtomicUsize::new(0);
/// The system page size, read once before the handler can run (sysconf is not signal-safe).
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(0);
static INSTALL: Once = Once::new();
/// The SIGBUS action before ours, restored for faults that are not ours.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A registered mapping; dropping it removes the registration (do that before unmapping).
pub struct Guard {
    slot: usize,
}

impl Guard {
    /// Whether a read of this mapping hit a page past the end of its file (and read zeros).
    pub fn faulted(&self) -> bool {
        REGISTRY
            .get(self.slot)
            .is_some_and(|s| s.faulted.load(SeqCst))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(slot) = REGISTRY.get(self.slot) {
            slot.publish(0, 0);
            slot.owned.store(false, SeqCst);
        }
    }
}

/// Registers the mapping `start..start + len`, installing the handler on first use.
///
/// `None` when the handler cannot be installed or every slot is taken.
pub fn protect(start: *const u8, len: usize) -> Option<Guard> {
    INSTALL.call_once(install);
    if !INSTALLED.load(SeqCst) || start.is_null() || len == 0 {
        return None;
    }
    let first = NEXT_FREE.load(SeqCst);
    let slot = (0..SLOTS).map(|i| (first + i) % SLOTS).find(|&i| {
        REGISTRY.get(i).is_some_and(|s| {
            s.owned
                .compare_exchange(false, true, SeqCst, SeqCst)
                .is_ok()
        })
    })?;
    NEXT_FREE.store((slot + 1) % SLOTS, SeqCst);
    REGISTRY.get(slot)?.publish(start as usize, len);
    Some(Guard { slot })
}

#[allow(unsafe_code)]
fn install() {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let Ok(page) = usize::try_from(page) else {
        return;
    };
    if !page.is_power_of_two() {
        return;
    }
    PAGE_SIZE.store(page, SeqCst);
    // SAFETY: the sigaction structs are plain data, zeroed then filled in; `on_sigbus` has the
    // signature SA_SIGINFO requires and only does async-signal-safe work (atomic loads and
    // stores, mmap, sigaction, raise). The previous action is read and kept before ours is
    // installed, so the handler always finds it.
    unsafe {
        let mut previous: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) != 0 {
            return;
        }
        let _ = PREVIOUS.set(previous);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) == 0 {
            INSTALLED.store(true, SeqCst);
        }
    }
}

/// The registered mapping holding `addr`, as (slot, end of the mapping).
fn owner_of(addr: usize) -> Option<(&'static Slot, usize)> {
    REGISTRY.iter().find_map(|slot| {
        let (start, end) = slot.range()?;
        (start <= addr && addr < end).then_some((slot, end))
    })
}

#[allow(unsafe_code)]
extern "C" fn on_sigbus(_signal: libc::c_int, info: *mut libc::siginfo_t, _context: *mut c_void) {
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let addr = unsafe { fault_address(info) };
    let page = PAGE_SIZE.load(SeqCst);
    if let Some((slot, end)) = owner_of(addr).filter(|_| page > 0) {
        let first = addr & !(page - 1);
        // SAFETY: first..end lies inside a live mapping this process made read-only and whose
        // owner is reading it (so it cannot be unmapped meanwhile); replacing those pages with
        // private zero pages changes what they read as, nothing else. MAP_FIXED never reaches
        // outside the range given.
        let mapped = unsafe {
            libc::mmap(
                first as *mut c_void,
                end - first,
                libc::PROT_READ,
                libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if mapped != libc::MAP_FAILED {
            slot.faulted.store(true, SeqCst);
            return;
        }
    }
    // SAFETY: restoring the action that was there before ours (or the default) and raising the
    // signal again, blocked until this handler returns, ends the process as it would have ended
    // without us, or hands the fault to whoever handled it before.
    unsafe {
        match PREVIOUS.get() {
            Some(previous) => libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut()),
            None => {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
                0
            }
        };
        libc::raise(libc::SIGBUS);
    }
}

#[allow(unsafe_code)]
#[cfg(any(target_os = "linux", target_os = "android"))]
/// # Safety
/// `info` must be the siginfo_t the kernel passed to an SA_SIGINFO handler.
unsafe fn fault_address(info: *mut libc::siginfo_t) -> usize {
    // SAFETY: as the caller promises; si_addr is set for SIGBUS.
    unsafe { (*info).si_addr() as usize }
}

#[allow(unsafe_code)]
#[cfg(not(any(target_os = "linux", target_os = "android")))]
/// # Safety
/// `info` must be the siginfo_t the kernel passed to an SA_SIGINFO handler.
unsafe fn fault_address(info: *mut libc::siginfo_t) -> usize {
    // SAFETY: as the caller promises; si_addr is set for SIGBUS.
    unsafe { (*info).si_addr as usize }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_taken_and_given_back() {
        let data = [1u8; 64];
        let guard = protect(data.as_ptr(), data.len()).unwrap();
        let slot = REGISTRY.get(guard.slot).unwrap();
        assert_eq!(
            slot.range(),
            Some((data.as_ptr() as usize, data.as_ptr() as usize + 64))
        );
        assert!(owner_of(data.as_ptr() as usize + 63).is_some());
        assert!(!guard.faulted());
        let index = guard.slot;
        drop(guard);
        assert_eq!(REGISTRY.get(index).unwrap().range(), None);
        assert!(owner_of(data.as_ptr() as usize).is_none());
    }

    #[test]
    fn a_slot_being_written_is_ignored() {
        let slot = Slot::new();
        slot.publish(4096, 100);
        assert_eq!(slot.range(), Some((4096, 4196)));
        slot.seq.fetch_add(1, SeqCst);
        assert_eq!(slot.range(), None);
    }
}
