//! Huge pages for a large buffer about to be written in one go.

/// A transparent huge page: only whole, aligned ones inside a buffer can back it.
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back `buffer` (not written yet, or zeroed memory not yet touched) with huge
/// pages where it can. The index of a file of millions of small frames is tens of megabytes
/// written at once: with 4 KiB pages that is a fault for every 512 entries, with huge pages one
/// for every 262,144. A hint only: nothing changes where it is not honoured, and the contents are
/// not touched. Returns whether the kernel took the hint (false for a buffer holding no whole
/// huge page).
pub fn prefer_huge_pages<T>(buffer: &mut [T]) -> bool {
    let bytes = std::mem::size_of_val(buffer);
    match whole_pages(buffer.as_mut_ptr().cast::<u8>() as usize, bytes, HUGE_PAGE) {
        Some((start, len)) => advise(start, len),
        None => false,
    }
}

/// Asks the kernel to fill in, in one call, the pages of `buffer` (reserved room about to be
/// written entry by entry), instead of one page fault for every 4 KiB written. The contents are
/// not touched. Returns whether the kernel did it (false before Linux 5.14, or for a buffer
/// holding no whole page).
pub fn fault_in_for_writing<T>(buffer: &mut [T]) -> bool {
    let bytes = std::mem::size_of_val(buffer);
    match whole_pages(buffer.as_mut_ptr().cast::<u8>() as usize, bytes, PAGE) {
        Some((start, len)) => populate_write(start, len),
        None => false,
    }
}

/// The smallest page size: the whole pages of a buffer are the ones the kernel can fill in.
const PAGE: usize = 4096;

/// The whole, aligned pages of `page` bytes inside `bytes` bytes at `address`, as start and
/// length.
fn whole_pages(address: usize, bytes: usize, page: usize) -> Option<(usize, usize)> {
    let start = address.checked_next_multiple_of(page)?;
    let end = address.checked_add(bytes)? / page * page;
    Some((start, end.checked_sub(start).filter(|len| *len > 0)?))
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise(start: usize, len: usize) -> bool {
    // SAFETY: the range lies inside memory this process owns (the caller's buffer), and
    // MADV_HUGEPAGE changes only how the kernel backs it, never what it holds. A failure (a
    // kernel without huge pages) leaves everything as it was.
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE) == 0 }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn populate_write(start: usize, len: usize) -> bool {
    // SAFETY: the range lies inside memory this process owns (the caller's buffer), and
    // MADV_POPULATE_WRITE only faults its pages in, writable, leaving what they hold as it was.
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn populate_write(_start: usize, _len: usize) -> bool {
    false
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _len: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_aligned_huge_pages_inside_the_buffer_are_advised() {
        let huge = HUGE_PAGE;
        assert_eq!(
            whole_pages(huge, 2 * huge, HUGE_PAGE),
            Some((huge, 2 * huge))
        );
        assert_eq!(
            whole_pages(huge + 1, 2 * huge, HUGE_PAGE),
            Some((2 * huge, huge))
        );
        assert_eq!(whole_pages(16, 3 * huge, HUGE_PAGE), Some((huge, 2 * huge)));
        assert_eq!(whole_pages(100, huge, HUGE_PAGE), None);
        assert_eq!(whole_pages(usize::MAX - 10, 100, HUGE_PAGE), None);
        let mut small: Vec<u64> = Vec::with_capacity(1000);
        assert!(!prefer_huge_pages(small.spare_capacity_mut()));
    }

    /// Reserved room is filled in by one call (Linux 5.14 and later), and what the buffer holds
    /// stays as it was; room holding no whole page is left alone.
    #[cfg(target_os = "linux")]
    #[test]
    fn reserved_room_is_faulted_in_and_the_buffer_keeps_its_entries() {
        let mut buffer: Vec<u64> = (0..10).collect();
        buffer.reserve(1 << 20);
        assert!(fault_in_for_writing(buffer.spare_capacity_mut()));
        assert_eq!(buffer, (0..10).collect::<Vec<u64>>());
        buffer.extend(10..1000);
        assert_eq!(buffer.iter().sum::<u64>(), 999 * 1000 / 2);
        let mut small = [0u8; 100];
        assert!(!fault_in_for_writing(&mut small[1..50]));
    }

    /// Where the kernel takes the hint, the advised range is marked for huge pages (`hg` in its
    /// VmFlags), and the buffer keeps what it holds.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_kernel_marks_the_buffer_for_huge_pages() {
        let mut buffer: Vec<u64> = (0..10).collect();
        buffer.reserve(4 << 20);
        let taken = prefer_huge_pages(buffer.spare_capacity_mut());
        // Kernels without huge pages refuse the hint, and some sandboxes show no VmFlags.
        let flags = vm_flags_at(buffer.as_ptr() as usize + 3 * HUGE_PAGE);
        if taken && !flags.is_empty() {
            assert!(flags.contains(&"hg".to_string()), "{flags:?}");
        }
        assert_eq!(buffer, (0..10).collect::<Vec<u64>>());
    }

    /// The VmFlags of the mapping holding `address`, from /proc/self/smaps.
    #[cfg(target_os = "linux")]
    fn vm_flags_at(address: usize) -> Vec<String> {
        super::super::smaps_field(address, "VmFlags:")
            .map(|flags| flags.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default()
    }
}
