//! Huge pages for a large buffer about to be written in one go.

use std::mem::MaybeUninit;

/// Below this a buffer is not worth the call: a huge page is 2 MiB.
const WORTH_ASKING: usize = 4 << 20;

/// Asks the kernel to back `buffer` with huge pages where it can. The index of a file of
/// millions of small frames is tens of megabytes written at once, on one thread: with 4 KiB pages
/// that is a fault for every 512 entries, with huge pages one for every 262,144. A hint only:
/// nothing changes where it is not honoured, and the contents are not touched.
pub fn prefer_huge_pages<T>(buffer: &mut [MaybeUninit<T>]) {
    let bytes = std::mem::size_of_val(buffer);
    if bytes < WORTH_ASKING {
        return;
    }
    advise(buffer.as_mut_ptr().cast::<u8>() as usize, bytes);
}

/// The whole 4 KiB pages inside `bytes` bytes at `address` (madvise takes whole pages), as
/// start and length.
fn whole_pages(address: usize, bytes: usize) -> Option<(usize, usize)> {
    const PAGE: usize = 4096;
    let start = address.checked_next_multiple_of(PAGE)?;
    let end = address.checked_add(bytes)? / PAGE * PAGE;
    (end > start).then_some((start, end - start))
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise(address: usize, bytes: usize) {
    if let Some((start, len)) = whole_pages(address, bytes) {
        // SAFETY: the range lies inside memory this process owns (the buffer), and
        // MADV_HUGEPAGE changes only how the kernel backs it, never what it holds. A failure
        // (huge pages switched off) leaves everything as it was.
        unsafe {
            libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_address: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_pages_inside_the_buffer_are_advised() {
        assert_eq!(whole_pages(4096, 8192), Some((4096, 8192)));
        assert_eq!(whole_pages(4097, 8192), Some((8192, 4096)));
        assert_eq!(whole_pages(16, 4096 * 3), Some((4096, 8192)));
        assert_eq!(whole_pages(100, 4000), None);
        assert_eq!(whole_pages(usize::MAX - 10, 100), None);
    }

    #[test]
    fn a_buffer_asked_for_huge_pages_keeps_what_it_holds() {
        let mut buffer: Vec<u64> = (0..10).collect();
        buffer.reserve(1 << 20);
        prefer_huge_pages(buffer.spare_capacity_mut());
        assert_eq!(buffer, (0..10).collect::<Vec<u64>>());
        buffer.extend(10..(1 << 20));
        assert_eq!(buffer[(1 << 20) - 1], (1 << 20) - 1);
    }
}
