//! How much work the frame scan may spend resynchronising after damage, and what it left
//! unchecked when that budget ran out.
//!
//! After damage the scan tries every byte offset as a frame start. A candidate with a valid header
//! CRC costs a CRC over its whole declared payload, so a crafted file packed with valid headers that
//! declare large lengths would cost time quadratic in its size. The budget caps that work; once it
//! is spent, candidates are passed over without checking their payload. That must never be silent:
//! the byte ranges those candidates cover are kept (merged, and bounded in number) so every command
//! can say which bytes were not searched, and a thorough scan can search them without a budget.

use crate::span::FileRange;

/// The payload bytes a resync may CRC for candidates that fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResyncBudget {
    /// `base` bytes plus `per_scanned_byte` times the bytes scanned so far; past it the scan becomes
    /// selective, and past twice it checks no more candidates.
    Limited { base: u64, per_scanned_byte: u64 },
    /// Every candidate is checked: nothing is left unverified, but each candidate costs a CRC over
    /// its declared length, so a crafted file can take time quadratic in its size.
    Unlimited,
}

impl ResyncBudget {
    /// 64 MiB plus four times the bytes scanned: only a crafted file gets near it.
    pub const DEFAULT: ResyncBudget = ResyncBudget::Limited {
        base: 64 << 20,
        per_scanned_byte: 4,
    };

    /// The work allowed once `scanned` bytes have been scanned (`None` when unlimited).
    pub fn at(self, scanned: u64) -> Option<u64> {
        match self {
            ResyncBudget::Limited {
                base,
                per_scanned_byte,
            } => Some(base.saturating_add(scanned.saturating_mul(per_scanned_byte))),
            ResyncBudget::Unlimited => None,
        }
    }
}

impl Default for ResyncBudget {
    fn default() -> ResyncBudget {
        ResyncBudget::DEFAULT
    }
}

/// At most this many separate ranges are kept; past it a new range is merged into the last one, so
/// the list stays small whatever the file holds (the merged range may then include checked bytes).
const MAX_RANGES: usize = 1024;

/// Sorted, disjoint byte ranges of the stream that hold frame candidates the scan did not check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnverifiedRanges {
    ranges: Vec<FileRange>,
}

impl UnverifiedRanges {
    /// Records a candidate frame `[start, end)` passed over unchecked. Candidates arrive in
    /// increasing `start` order, so merging with the last range keeps the list sorted and disjoint.
    pub fn add(&mut self, range: FileRange) {
        if range.is_empty() {
            return;
        }
        let full = self.ranges.len() >= MAX_RANGES;
        match self.ranges.last_mut() {
            Some(last) if range.start <= last.end || full => {
                last.end = last.end.max(range.end);
            }
            _ => self.ranges.push(range),
        }
    }

    pub fn ranges(&self) -> &[FileRange] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Bytes covered by the ranges.
    pub fn bytes(&self) -> u64 {
        self.ranges.iter().map(FileRange::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileOffset;

    #[test]
    fn the_default_budget_grows_with_the_bytes_scanned() {
        assert_eq!(ResyncBudget::DEFAULT.at(0), Some(64 << 20));
        assert_eq!(
            ResyncBudget::DEFAULT.at(1 << 20),
            Some((64 << 20) + (4 << 20))
        );
        assert_eq!(ResyncBudget::DEFAULT.at(u64::MAX), Some(u64::MAX));
        assert_eq!(ResyncBudget::Unlimited.at(5), None);
    }

    fn range(start: u64, end: u64) -> FileRange {
        FileRange::new(FileOffset(start), FileOffset(end))
    }

    #[test]
    fn overlapping_and_touching_ranges_merge() {
        let mut unverified = UnverifiedRanges::default();
        unverified.add(range(10, 20));
        unverified.add(range(15, 30));
        unverified.add(range(30, 40));
        unverified.add(range(50, 50));
        unverified.add(range(60, 70));
        assert_eq!(unverified.ranges(), &[range(10, 40), range(60, 70)]);
        assert_eq!(unverified.bytes(), 40);
    }

    #[test]
    fn the_number_of_ranges_is_bounded() {
        let mut unverified = UnverifiedRanges::default();
        for i in 0..10 * MAX_RANGES as u64 {
            unverified.add(range(i * 100, i * 100 + 10));
        }
        assert_eq!(unverified.ranges().len(), MAX_RANGES);
        let last = unverified.ranges().last().unwrap();
        assert_eq!(
            last.end,
            FileOffset((10 * MAX_RANGES as u64 - 1) * 100 + 10)
        );
    }
}
