//! The read interface under the frame index and payload access: whatever holds a stream's bytes
//! answers for a range of them.
//!
//! A memory map, a buffer in memory (a test's bytes, an emptied input) and, later, ranged reads
//! from object storage (behind a cache that keeps what it fetched) all serve the same two
//! questions: how long is the stream, and what are the bytes of this range. The frame index and
//! [`crate::frame::Frame::payload`] ask nothing else, so they work over any of them; a plain
//! `&[u8]` is a byte source too, which is what tests hand them.
//!
//! A read can fail, and says why with a [`ReadError`]: past the end of the stream, more than the
//! source serves at once (ask for less), or bytes that exist but could not be had (a fetch that
//! failed). Nothing above the frame layer asks for a whole stream as one slice; [`whole`], which
//! the frame layer's fast paths use for a mapped file, fails for a source that cannot serve it,
//! instead of answering with nothing.

use std::sync::Arc;

use crate::span::{FileOffset, FileRange};

/// Why a [`ByteSource`] did not serve a range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The range passes the end of the stream.
    #[error("bytes {range} pass the end of the stream ({len} bytes)")]
    OutOfRange { range: FileRange, len: u64 },
    /// The source serves no range this long at once (a ranged reader): shorter ones it may.
    #[error("bytes {range} are more than this source reads at once ({limit} bytes)")]
    TooLarge { range: FileRange, limit: u64 },
    /// The bytes are in the stream but could not be had (a fetch that failed, an object
    /// rewritten since it was opened).
    #[error("bytes {range} could not be read: {reason}")]
    Unavailable { range: FileRange, reason: Arc<str> },
}

impl ReadError {
    /// The range asked for.
    pub fn range(&self) -> FileRange {
        match self {
            ReadError::OutOfRange { range, .. }
            | ReadError::TooLarge { range, .. }
            | ReadError::Unavailable { range, .. } => *range,
        }
    }
}

/// `range` of `bytes`, or the error saying it passes their end.
#[inline]
fn slice_of(bytes: &[u8], range: FileRange) -> Result<&[u8], ReadError> {
    match range.slice(bytes) {
        Some(slice) => Ok(slice),
        None => Err(ReadError::OutOfRange {
            range,
            len: bytes.len() as u64,
        }),
    }
}

/// Read-only bytes of one stream, read by range.
pub trait ByteSource: Send + Sync {
    /// How many bytes the stream has.
    fn len(&self) -> u64;

    /// The bytes of `range`, or why they cannot be had.
    fn read(&self, range: FileRange) -> Result<&[u8], ReadError>;

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

    /// The first read that failed although its range lies in the stream
    /// ([`ReadError::Unavailable`]): the frame layer takes bytes it cannot read for bytes that
    /// are not there, so a command asks this (through [`crate::source::Source::check_unchanged`])
    /// before it shows what it computed.
    fn failure(&self) -> Option<ReadError> {
        None
    }

    /// Remembers that the payload of record `record` could not be read (`error`): the caller
    /// that needed it goes on without it, and the command reports the first such read
    /// ([`crate::source::Source::check_unchanged`]) instead of taking the record for one
    /// without a payload. Only a source a command checks remembers it.
    fn note_unread(&self, _record: usize, _error: &ReadError) {}

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
    fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
        slice_of(self, range)
    }
}

impl ByteSource for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }

    #[inline]
    fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
        slice_of(self, range)
    }
}

impl<const N: usize> ByteSource for [u8; N] {
    fn len(&self) -> u64 {
        N as u64
    }

    #[inline]
    fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
        slice_of(self, range)
    }
}

/// A byte source behind a pointer (`&T`, `Arc<T>`) answers as the source it points to, hints
/// included.
macro_rules! forward_byte_source {
    ($($pointer:ty),*) => {$(
        impl<T: ByteSource + ?Sized> ByteSource for $pointer {
            fn len(&self) -> u64 {
                (**self).len()
            }

            #[inline]
            fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
                (**self).read(range)
            }

            fn copy_into(&self, at: u64, buf: &mut [u8]) -> usize {
                (**self).copy_into(at, buf)
            }

            fn faulted(&self) -> bool {
                (**self).faulted()
            }

            fn failure(&self) -> Option<ReadError> {
                (**self).failure()
            }

            fn note_unread(&self, record: usize, error: &ReadError) {
                (**self).note_unread(record, error)
            }

            fn will_walk(&self, range: FileRange) {
                (**self).will_walk(range)
            }

            fn walked(&self, range: FileRange) {
                (**self).walked(range)
            }
        }
    )*};
}

forward_byte_source!(&T, Arc<T>);

/// [`ByteSource::copy_into`] by copying what [`ByteSource::read`] serves. A source that serves
/// only bounded ranges (ranged reads) is asked for as much as it says it serves, or half as much
/// until it answers; a read that fails otherwise copies nothing.
pub fn copy_read<S: ByteSource + ?Sized>(source: &S, at: u64, buf: &mut [u8]) -> usize {
    let mut wanted = source.len().saturating_sub(at).min(buf.len() as u64);
    while wanted > 0 {
        let range = FileRange::new(FileOffset(at), FileOffset(at + wanted));
        match source.read(range) {
            Ok(bytes) => {
                let Some(to) = buf.get_mut(..bytes.len()) else {
                    return 0;
                };
                to.copy_from_slice(bytes);
                return bytes.len();
            }
            Err(ReadError::TooLarge { limit, .. }) if limit > 0 && limit < wanted => wanted = limit,
            Err(ReadError::TooLarge { .. }) => wanted /= 2,
            Err(_) => return 0,
        }
    }
    0
}

/// All of `source`'s bytes as one slice, for the frame layer's paths over a mapped file; a source
/// that cannot serve them at once says so ([`ReadError::TooLarge`]) rather than answering with
/// nothing.
pub fn whole<S: ByteSource + ?Sized>(source: &S) -> Result<&[u8], ReadError> {
    source.read(FileRange::new(FileOffset::ZERO, FileOffset(source.len())))
}

/// `len` bytes from `at` (fewer where the stream ends first): what a view shows of a stretch
/// that may run past the end.
pub fn read_up_to<S: ByteSource + ?Sized>(
    source: &S,
    at: FileOffset,
    len: u64,
) -> Result<&[u8], ReadError> {
    let end = at.0.saturating_add(len).min(source.len()).max(at.0);
    source.read(FileRange::new(at, FileOffset(end)))
}

/// Bytes a piece of [`pieces`] holds at most: small enough for any ranged reader to serve.
pub const PIECE: u64 = 4 << 10;

/// The bytes of `range`, [`PIECE`] bytes at a time (the last piece shorter), each as the source
/// serves it: how a view walks a stretch of any length without asking for it at once.
pub fn pieces<S: ByteSource + ?Sized>(
    source: &S,
    range: FileRange,
) -> impl Iterator<Item = Result<&[u8], ReadError>> {
    let starts = (range.start.0..range.end.0).step_by(PIECE as usize);
    starts.map(move |at| {
        source.read(FileRange::new(
            FileOffset(at),
            range.end.min(FileOffset(at.saturating_add(PIECE))),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{Ranged, ReadCounts};

    #[test]
    fn slices_and_buffers_answer_for_ranges_inside_them() {
        let bytes = b"0123456789".to_vec();
        let range = FileRange::new(FileOffset(3), FileOffset(6));
        assert_eq!(bytes.read(range), Ok(&b"345"[..]));
        assert_eq!(bytes.as_slice().read(range), Ok(&b"345"[..]));
        assert_eq!(ByteSource::len(&&bytes), 10);
        let past = FileRange::new(FileOffset(8), FileOffset(11));
        assert_eq!(
            bytes.read(past),
            Err(ReadError::OutOfRange {
                range: past,
                len: 10
            })
        );
        assert_eq!(whole(&bytes), Ok(&b"0123456789"[..]));
        assert_eq!(read_up_to(&bytes, FileOffset(7), 100), Ok(&b"789"[..]));
        assert!(
            read_up_to(&bytes, FileOffset(12), 100).is_err(),
            "starts past the end"
        );
        assert!(!bytes.faulted());
        assert_eq!(bytes.failure(), None);
    }

    #[test]
    fn the_frame_index_and_payloads_need_only_ranged_reads() {
        let payloads: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; 100]).collect();
        let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        let mut bytes = crate::crafted::encode_records(&refs);
        bytes[3 * 116 + 20] ^= 1; // damage one payload: the resync reads ranges too
        let counts = ReadCounts::leaked();
        let ranged = Ranged::new(bytes.clone(), 256, counts);
        let all = FileRange::new(FileOffset::ZERO, FileOffset(ranged.len()));
        assert_eq!(
            whole(&ranged),
            Err(ReadError::TooLarge {
                range: all,
                limit: 256
            })
        );
        let index = crate::frame::FrameIndex::build(&ranged);
        let plain = crate::frame::FrameIndex::build(&bytes);
        let frames: Vec<_> = index.frames(&ranged).collect();
        assert_eq!(frames, plain.frames(&bytes).collect::<Vec<_>>());
        assert_eq!(index.damaged_count(), 1);
        assert_eq!(frames[7].payload(&ranged), Some(&payloads[7][..]));
        assert!(counts.bytes() > 0);
        // A copy asks for what the source says it serves.
        let mut buf = vec![0; 4096];
        let before = counts.reads();
        let copied = ranged.copy_into(10, &mut buf);
        assert_eq!(copied, 256);
        assert_eq!(buf[..copied], bytes[10..10 + copied]);
        assert_eq!(counts.reads(), before + 1);
    }

    #[test]
    fn a_failed_read_is_remembered_and_copies_nothing() {
        let bytes = crate::crafted::encode_records(&[b"abc", b"def"]);
        let bad = FileRange::new(FileOffset(20), FileOffset(21));
        let ranged = Ranged::new(bytes, 1 << 10, ReadCounts::leaked()).failing(bad);
        assert_eq!(ranged.failure(), None);
        let mut buf = [0; 64];
        assert_eq!(ranged.copy_into(0, &mut buf), 0);
        let Some(ReadError::Unavailable { range, reason }) = ranged.failure() else {
            panic!("no failure remembered");
        };
        assert_eq!(range.start, FileOffset(0));
        assert!(reason.contains("changed"), "{reason}");
        // Reads elsewhere still answer.
        assert_eq!(
            ranged.read(FileRange::new(FileOffset(0), FileOffset(8))),
            Ok(&3u64.to_le_bytes()[..])
        );
    }
}
