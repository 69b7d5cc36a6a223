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

impl fmt::Display for FileOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FileOffset {
    /// The file offset of a payload position, given where the payload starts.
    pub fn offset_by(self, delta: usize) -> FileOffset {
        FileOffset(self.0.saturating_add(delta as u64))
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

    /// The same span moved by `delta` bytes (used when a nested payload is walked on its own).
    pub fn shifted(&self, delta: usize) -> Span {
        Span::new(self.start + delta, self.end + delta)
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}
