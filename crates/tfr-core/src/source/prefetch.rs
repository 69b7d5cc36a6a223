//! Cache lines asked for ahead of a walk through memory.

/// Bytes in a cache line: the unit a prefetch fetches.
const LINE: usize = 64;

/// Asks the processor to start fetching the cache lines of `bytes[from..from + len]` (what of it
/// there is) into its caches, without waiting for them. A walk through a mapped file reads pages
/// in turn; the processor's own prefetcher follows a stream only inside a page, so every new
/// page would otherwise start with a wait on memory. Every line is asked for: one line a frame
/// measured 1.15x the time on 250 B records. A hint: nothing is read, nothing changes.
#[inline]
pub fn prefetch(bytes: &[u8], from: usize, len: usize) {
    let end = from.saturating_add(len).min(bytes.len());
    let mut at = from;
    while let Some(line) = bytes.get(at..).filter(|_| at < end) {
        prefetch_line(line);
        at += LINE;
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
#[allow(unsafe_code)]
fn prefetch_line(line: &[u8]) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: a prefetch reads nothing and cannot fault; the pointer is into a live slice anyway.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn prefetch_line(_line: &[u8]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_past_the_bytes_are_cut_short_or_skipped() {
        let bytes = vec![1u8; 1000];
        prefetch(&bytes, 0, 1000);
        prefetch(&bytes, 900, 4096);
        prefetch(&bytes, 1000, 64);
        prefetch(&bytes, usize::MAX, usize::MAX);
        prefetch(&[], 0, 64);
        assert_eq!(bytes, vec![1u8; 1000]);
    }
}
