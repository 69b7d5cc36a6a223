//! Byte ranges with a meaning attached to which buffer they index.
//!
//! Two kinds of positions exist in this tool: offsets into the file (a TFRecord may be gigabytes, so
//! they are `u64`) and positions inside one record's payload (a slice in memory). Keeping them as
//! distinct types means a payload position is never printed or compared as a file offset by mistake.

use std::fmt;
use std::ops::Range;

/// A byte offset into the (decompressed) TFRecord stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FileOffset(pub u64);

/// The number, honouring width and alignment (`{:>12}`) like any integer.
impl fmt::Display for FileOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FileOffset {
    /// The start of the stream.
    pub const ZERO: FileOffset = FileOffset(0);

    /// The file offset of a payload position, given where the payload starts.
    pub fn offset_by(self, delta: usize) -> FileOffset {
        FileOffset(self.0.saturating_add(delta as u64))
    }

    /// `len` bytes further on, or `None` past `u64::MAX`.
    pub fn checked_add(self, len: u64) -> Option<FileOffset> {
        self.0.checked_add(len).map(FileOffset)
    }

    /// `len` bytes further on, stopping at `u64::MAX`.
    pub fn saturating_add(self, len: u64) -> FileOffset {
        FileOffset(self.0.saturating_add(len))
    }

    /// How many bytes lie from `earlier` to here (zero when `earlier` is not earlier).
    pub fn distance_from(self, earlier: FileOffset) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The offset as an index into bytes held in memory, when it fits in `usize`.
    #[inline]
    pub fn to_usize(self) -> Option<usize> {
        usize::try_from(self.0).ok()
    }
}

/// A half-open range `[start, end)` of offsets into the (decompressed) TFRecord stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FileRange {
    pub start: FileOffset,
    pub end: FileOffset,
}

impl FileRange {
    /// The range `[start, end)`; an `end` before `start` makes an empty range at `start`.
    #[inline]
    pub fn new(start: FileOffset, end: FileOffset) -> FileRange {
        FileRange {
            start,
            end: end.max(start),
        }
    }

    /// The `len` bytes from `start`, or `None` when they would pass `u64::MAX`.
    pub fn at(start: FileOffset, len: u64) -> Option<FileRange> {
        Some(FileRange::new(start, start.checked_add(len)?))
    }

    pub fn len(&self) -> u64 {
        self.end.distance_from(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.start >= self.end
    }

    pub fn contains(&self, offset: FileOffset) -> bool {
        self.start <= offset && offset < self.end
    }

    /// Whether the two ranges share a byte.
    pub fn overlaps(&self, other: &FileRange) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// The range as indices into bytes held in memory, when both ends fit in `usize`.
    #[inline]
    pub fn to_usize(&self) -> Option<Range<usize>> {
        Some(self.start.to_usize()?..self.end.to_usize()?)
    }

    /// The bytes this range covers, or `None` if it does not lie inside `bytes`.
    #[inline]
    pub fn slice<'a>(&self, bytes: &'a [u8]) -> Option<&'a [u8]> {
        bytes.get(self.to_usize()?)
    }
}

/// The plain numbers, for code that indexes by `u64` ranges (the inspector's rows).
impl From<FileRange> for Range<u64> {
    fn from(range: FileRange) -> Range<u64> {
        range.start.0..range.end.0
    }
}

impl fmt::Display for FileRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A half-open range `[start, end)` of positions inside one payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        debug_assert!(start <= end);
        Span { start, end }
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub fn contains(&self, pos: usize) -> bool {
        self.start <= pos && pos < self.end
    }

    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    /// The bytes this span covers, or `None` if it does not lie inside `bytes`.
    pub fn slice<'a>(&self, bytes: &'a [u8]) -> Option<&'a [u8]> {
        bytes.get(self.start..self.end)
    }

    /// Where this payload span lies in the file, given the file offset the payload starts at.
    pub fn in_file(&self, base: FileOffset) -> FileRange {
        FileRange::new(base.offset_by(self.start), base.offset_by(self.end))
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_measure_and_slice_without_panics() {
        let range = FileRange::at(FileOffset(2), 3).unwrap();
        assert_eq!(range, FileRange::new(FileOffset(2), FileOffset(5)));
        assert_eq!(range.len(), 3);
        assert!(range.contains(FileOffset(4)) && !range.contains(FileOffset(5)));
        assert_eq!(range.slice(b"abcdefg"), Some(&b"cde"[..]));
        assert_eq!(range.slice(b"abcd"), None);
        assert_eq!(range.to_string(), "2..5");
        assert!(FileRange::at(FileOffset(u64::MAX), 1).is_none());
        assert!(FileRange::new(FileOffset(9), FileOffset(4)).is_empty());
        assert!(range.overlaps(&FileRange::new(FileOffset(4), FileOffset(9))));
        assert!(!range.overlaps(&FileRange::new(FileOffset(5), FileOffset(9))));
    }

    #[test]
    fn offsets_add_and_measure_in_bytes() {
        assert_eq!(FileOffset(10).checked_add(6), Some(FileOffset(16)));
        assert_eq!(FileOffset(u64::MAX).checked_add(1), None);
        assert_eq!(FileOffset(16).distance_from(FileOffset(10)), 6);
        assert_eq!(FileOffset(10).distance_from(FileOffset(16)), 0);
        assert_eq!(
            format!("{:>5}|{:<3}|", FileOffset(42), FileOffset(7)),
            "   42|7  |"
        );
        assert_eq!(
            Span::new(1, 4).in_file(FileOffset(12)).to_string(),
            "13..16"
        );
    }
}
