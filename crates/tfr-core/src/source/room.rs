//! Room reserved in a buffer, faulted in before it is written.

/// What the room is cut to: a multiple of the page sizes of common systems (4, 16 and 64 KiB),
/// so that the range asked for lies inside the room whatever the page size.
const WHOLE: usize = 64 << 10;

/// Asks the kernel to fault in, in one call, the pages of `room` (reserved room of a buffer
/// about to be written entry by entry) instead of taking a page fault for every page written.
/// Only the whole 64 KiB blocks inside `room` are asked for, and what they hold is not changed.
/// Returns whether the kernel did it: not before Linux 5.14, nor on other systems, nor for room
/// that holds no whole block.
pub fn fault_in_for_writing<T>(room: &mut [T]) -> bool {
    let bytes = std::mem::size_of_val(room);
    match whole_blocks(room.as_mut_ptr().cast::<u8>() as usize, bytes) {
        Some((start, len)) => populate_write(start, len),
        None => false,
    }
}

/// The whole, aligned [`WHOLE`] blocks inside `bytes` bytes at `address`, as start and length.
fn whole_blocks(address: usize, bytes: usize) -> Option<(usize, usize)> {
    let start = address.checked_next_multiple_of(WHOLE)?;
    let end = address.checked_add(bytes)? / WHOLE * WHOLE;
    Some((start, end.checked_sub(start).filter(|len| *len > 0)?))
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn populate_write(start: usize, len: usize) -> bool {
    // SAFETY: the range lies inside memory this process owns (the caller's room, cut inwards to
    // whole blocks of a multiple of the page size), and MADV_POPULATE_WRITE only faults its
    // pages in, writable, leaving what they hold as it was. A kernel without it refuses it.
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn populate_write(_start: usize, _len: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_aligned_blocks_inside_the_room_are_asked_for() {
        assert_eq!(whole_blocks(WHOLE, 2 * WHOLE), Some((WHOLE, 2 * WHOLE)));
        assert_eq!(whole_blocks(WHOLE + 1, 2 * WHOLE), Some((2 * WHOLE, WHOLE)));
        assert_eq!(whole_blocks(16, 3 * WHOLE), Some((WHOLE, 2 * WHOLE)));
        assert_eq!(whole_blocks(4096, WHOLE), None);
        assert_eq!(whole_blocks(100, WHOLE), None);
        assert_eq!(whole_blocks(usize::MAX - 10, 100), None);
        let mut small = [0u8; 100];
        assert!(!fault_in_for_writing(&mut small[1..50]));
    }

    /// Where the kernel does it (Linux 5.14 and later), the room's pages are resident after the
    /// one call, before anything is written to them, and keep what they held.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_room_is_resident_after_one_call_and_keeps_what_it_held() {
        let room_bytes = 4 << 20;
        let mut map = memmap2::MmapMut::map_anon(room_bytes + WHOLE).unwrap();
        // Without huge pages (one write would make 2 MiB resident), and so in a mapping of its
        // own in smaps, not merged with the allocator's next to it.
        map.advise(memmap2::Advice::NoHugePage).unwrap();
        let skip = (map.as_ptr() as usize).next_multiple_of(WHOLE) - map.as_ptr() as usize;
        let room = &mut map[skip..skip + room_bytes];
        room[5 * WHOLE + 7] = 42;
        let at = room.as_ptr() as usize;
        let resident = || {
            super::super::smaps_field(at, "Rss:")
                .and_then(|rss| rss.trim_end_matches(" kB").parse::<u64>().ok())
        };
        // Some sandboxes show no smaps: nothing to look at there.
        let Some(before) = resident() else { return };
        assert!(before <= 64, "{before} kB resident before");
        if !fault_in_for_writing(room) {
            return;
        }
        assert_eq!(resident(), Some(room_bytes as u64 >> 10));
        assert_eq!(map[skip + 5 * WHOLE + 7], 42);
        assert_eq!(map.iter().map(|b| u64::from(*b)).sum::<u64>(), 42);
    }
}
