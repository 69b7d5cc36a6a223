//! The read interface under the frame index and payload access: whatever holds a stream's bytes
//! answers for a range of them.
//!
//! A memory map, a buffer in memory (a test's bytes, an emptied input) and, later, ranged reads
//! from object storage (behind a cache that keeps what it fetched) all serve the same two
//! questions: how long is the stream, and what are the bytes of this range. The frame index and
//! [`crate::frame::Frame::payload`] ask nothing else, so they work over any of them; a plain
//! `&[u8]` is a byte source too, which is what tests and most views hand them.

use crate::span::{FileOffset, FileRange};

/// Read-only bytes of one stream, read by range.
pub trait ByteSource: Send + Sync {
    /// How many bytes the stream has.
    fn len(&self) -> u64;

    /// The bytes of `range`, or `None` when it does not lie inside the stream.
    fn read(&self, range: FileRange) -> Option<&[u8]>;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies the bytes from `at` into `buf`, as many as fit and the stream has, and returns how
    /// many (fewer than asked is allowed: ask again for the rest): how a walk over every byte
    /// reads a source that cannot serve them all at once.
    fn copy_into(&self, at: u64, buf: &mut [u8]) -> usize {
        copy_read(self, at, buf)
    }

    /// Whether a read saw bytes that are not the stream's any more (a mapped file cut short
    /// underneath reads as zeros): nothing computed from what was read may be trusted then.
    fn faulted(&self) -> bool {
        false
    }

    /// Says that `range` is about to be read through once, front to back (a part of `verify`'s
    /// walk over every byte). A mapped file fills in the range's page-table entries in one call
    /// instead of taking a fault every few pages. A hint: nothing else changes.
    fn will_walk(&self, _range: FileRange) {}

    /// Says that `range` was read through and will not be read again soon. A mapped file drops
    /// the range's page-table entries, so that a walk over all of it neither keeps the whole file
    /// mapped in (resident) nor leaves a million entries to tear down on one core at exit. A
    /// hint: the bytes read the same afterwards.
    fn walked(&self, _range: FileRange) {}
}

impl ByteSource for [u8] {
    fn len(&self) -> u64 {
        self.len() as u64
    }

    #[inline]
    fn read(&self, range: FileRange) -> Option<&[u8]> {
        range.slice(self)
    }
}

impl ByteSource for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }

    #[inline]
    fn read(&self, range: FileRange) -> Option<&[u8]> {
        range.slice(self)
    }
}

impl<const N: usize> ByteSource for [u8; N] {
    fn len(&self) -> u64 {
        N as u64
    }

    #[inline]
    fn read(&self, range: FileRange) -> Option<&[u8]> {
        range.slice(self)
    }
}

impl<T: ByteSource + ?Sized> ByteSource for &T {
    fn len(&self) -> u64 {
        (**self).len()
    }

    fn read(&self, range: FileRange) -> Option<&[u8]> {
        (**self).read(range)
    }

    fn copy_into(&self, at: u64, buf: &mut [u8]) -> usize {
        (**self).copy_into(at, buf)
    }

    fn faulted(&self) -> bool {
        (**self).faulted()
    }

    fn will_walk(&self, range: FileRange) {
        (**self).will_walk(range)
    }

    fn walked(&self, range: FileRange) {
        (**self).walked(range)
    }
}

/// [`ByteSource::copy_into`] by copying what [`ByteSource::read`] serves. A source that serves
/// only bounded ranges (ranged reads) is asked for half as much until it answers.
pub fn copy_read<S: ByteSource + ?Sized>(source: &S, at: u64, buf: &mut [u8]) -> usize {
    let mut wanted = source.len().saturating_sub(at).min(buf.len() as u64);
    while wanted > 0 {
        let range = FileRange::new(FileOffset(at), FileOffset(at + wanted));
        if let (Some(bytes), Some(to)) = (source.read(range), buf.get_mut(..wanted as usize)) {
            if bytes.len() == to.len() {
                to.copy_from_slice(bytes);
                return bytes.len();
            }
        }
        wanted /= 2;
    }
    0
}

/// All of `source`'s bytes as one slice (empty when the source cannot serve them at once).
pub fn whole<S: ByteSource + ?Sized>(source: &S) -> &[u8] {
    source
        .read(FileRange::new(FileOffset::ZERO, FileOffset(source.len())))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_and_buffers_answer_for_ranges_inside_them() {
        let bytes = b"0123456789".to_vec();
        let range = FileRange::new(FileOffset(3), FileOffset(6));
        assert_eq!(bytes.read(range), Some(&b"345"[..]));
        assert_eq!(bytes.as_slice().read(range), Some(&b"345"[..]));
        assert_eq!(ByteSource::len(&&bytes), 10);
        assert_eq!(
            bytes.read(FileRange::new(FileOffset(8), FileOffset(11))),
            None
        );
        assert_eq!(whole(&bytes), b"0123456789");
        assert!(!bytes.faulted());
    }

    /// A stand-in for ranged reads from object storage: it serves no read larger than a window,
    /// and counts what it served.
    struct Ranged {
        bytes: Vec<u8>,
        window: u64,
        served: std::sync::atomic::AtomicU64,
    }

    impl ByteSource for Ranged {
        fn len(&self) -> u64 {
            self.bytes.len() as u64
        }

        fn read(&self, range: FileRange) -> Option<&[u8]> {
            if range.len() > self.window {
                return None;
            }
            let slice = range.slice(&self.bytes)?;
            self.served
                .fetch_add(slice.len() as u64, std::sync::atomic::Ordering::Relaxed);
            Some(slice)
        }
    }

    #[test]
    fn the_frame_index_and_payloads_need_only_ranged_reads() {
        let payloads: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; 100]).collect();
        let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        let mut bytes = crate::crafted::encode_records(&refs);
        bytes[3 * 116 + 20] ^= 1; // damage one payload: the resync reads ranges too
        let ranged = Ranged {
            bytes: bytes.clone(),
            window: 256,
            served: Default::default(),
        };
        assert!(
            ranged
                .read(FileRange::new(FileOffset::ZERO, FileOffset(ranged.len())))
                .is_none()
        );
        let index = crate::frame::FrameIndex::build(&ranged);
        let plain = crate::frame::FrameIndex::build(&bytes);
        let frames: Vec<_> = index.frames(&ranged).collect();
        assert_eq!(frames, plain.frames(&bytes).collect::<Vec<_>>());
        assert_eq!(index.damaged_count(), 1);
        assert_eq!(frames[7].payload(&ranged), Some(&payloads[7][..]));
        assert!(ranged.served.load(std::sync::atomic::Ordering::Relaxed) > 0);
        // A copy asks for less until the ranged reader answers.
        let mut buf = vec![0; 4096];
        let copied = ranged.copy_into(10, &mut buf);
        assert!((1..=256).contains(&copied));
        assert_eq!(buf[..copied], bytes[10..10 + copied]);
    }
}
