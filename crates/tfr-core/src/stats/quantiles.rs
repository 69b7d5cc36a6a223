//! A mergeable quantile sketch (DDSketch, with the log-linear index of its "linearly
//! interpolated" mapping): each finite value is counted in a bin named by its sign, its binary
//! exponent and the top [`SUB_BITS`] bits of its mantissa, so a bin's values are within
//! [`RELATIVE_ERROR`] of its midpoint (for normal numbers; the subnormals, below 2.2e-308, share
//! bins of a fixed width). The bin of a value comes from its bits alone (no
//! logarithm), so sketches made on any machine agree, and merging adds counts bin by bin: merges
//! are exact, associative and commutative.
//!
//! At most [`MAX_BINS`] bins are kept per sign; past that the bins of the smallest magnitudes are
//! folded into the smallest kept one (DDSketch's "collapsing lowest" store), which keeps merges
//! associative and commutative but puts those values at that bin's midpoint. It takes values
//! spanning more than 2^64 (1.8e19) in magnitude on one side of zero to get there.
//!
//! Quantiles and the equal-width histograms of the report are derived from the sketch: each
//! bin's count goes to the bucket holding its midpoint, so only values within
//! [`RELATIVE_ERROR`] of a bucket edge may be counted in the neighbouring bucket.

use std::collections::BTreeMap;

use super::numeric::Histogram;

/// Mantissa bits naming a bin within a power of two: 2^6 = 64 bins per octave.
pub const SUB_BITS: u32 = 6;
/// Bins kept per sign.
pub const MAX_BINS: usize = 4096;
/// The largest relative distance between a value and the midpoint of its bin: half a bin's
/// width over the smallest value in it, 2^-(SUB_BITS+1).
pub const RELATIVE_ERROR: f64 = 1.0 / 128.0;

/// Bits of an f64 below those naming its bin.
const SHIFT: u32 = 52 - SUB_BITS;

/// Counts of finite values by bin.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Quantiles {
    /// Bins of positive values, by the top bits of the value's magnitude.
    positive: BTreeMap<u32, u64>,
    /// Bins of negative values, by the top bits of the value's magnitude.
    negative: BTreeMap<u32, u64>,
    /// Zeros (of either sign).
    zeros: u64,
}

/// The bin of a positive finite magnitude: its bits past the sign, shifted. IEEE 754 orders
/// positive doubles as their bits, so bins are in the order of their values.
fn bin(magnitude: f64) -> u32 {
    u32::try_from(magnitude.to_bits() >> SHIFT).unwrap_or(u32::MAX)
}

/// The midpoint of a bin (the value whose mantissa is the bin's, then a one, then zeros).
fn midpoint(bin: u32) -> f64 {
    f64::from_bits((u64::from(bin) << SHIFT) | (1 << (SHIFT - 1)))
}

/// The value a bin stands for: the one integer in it when the values are integers and the bin is
/// at most 1 wide (magnitudes below 2^(SUB_BITS+1) = 128), so small integers are exact; its midpoint
/// otherwise.
fn representative(bin: u32, integral: bool) -> f64 {
    let mid = midpoint(bin);
    if integral {
        let low = f64::from_bits(u64::from(bin) << SHIFT);
        let high = f64::from_bits(u64::from(bin).saturating_add(1) << SHIFT);
        if high - low <= 1.0 && low.ceil() < high {
            return low.ceil();
        }
    }
    mid
}

/// Folds the bins of the smallest magnitudes into the smallest of the [`MAX_BINS`] kept.
fn collapse(bins: &mut BTreeMap<u32, u64>) {
    while bins.len() > MAX_BINS {
        let (Some((_, low)), Some(next)) = (bins.pop_first(), bins.first_entry()) else {
            return;
        };
        *next.into_mut() += low;
    }
}

impl Quantiles {
    /// Counts a value; NaN and infinities are not counted (they are counted apart).
    pub fn add(&mut self, value: f64) {
        if !value.is_finite() {
            return;
        }
        if value == 0.0 {
            self.zeros += 1;
            return;
        }
        let bins = if value > 0.0 {
            &mut self.positive
        } else {
            &mut self.negative
        };
        *bins.entry(bin(value.abs())).or_insert(0) += 1;
        if bins.len() > MAX_BINS {
            collapse(bins);
        }
    }

    pub fn merge(&mut self, other: &Quantiles) {
        self.zeros = self.zeros.saturating_add(other.zeros);
        for (ours, theirs) in [
            (&mut self.positive, &other.positive),
            (&mut self.negative, &other.negative),
        ] {
            for (bin, n) in theirs {
                let count = ours.entry(*bin).or_insert(0);
                *count = count.saturating_add(*n);
            }
            collapse(ours);
        }
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.positive
            .values()
            .chain(self.negative.values())
            .fold(self.zeros, |sum, n| sum.saturating_add(*n))
    }

    /// Whether it holds no more bins than a sketch keeps (as one read from a partial must).
    pub fn within_bounds(&self) -> bool {
        self.positive.len() <= MAX_BINS && self.negative.len() <= MAX_BINS
    }

    /// Every bin as the value it stands for ([`representative`]) and its count, in ascending
    /// order of value.
    fn ascending(&self, integral: bool) -> impl Iterator<Item = (f64, u64)> + '_ {
        let negative = self
            .negative
            .iter()
            .rev()
            .map(move |(b, n)| (-representative(*b, integral), *n));
        let zeros = (self.zeros > 0).then_some((0.0, self.zeros));
        let positive = self
            .positive
            .iter()
            .map(move |(b, n)| (representative(*b, integral), *n));
        negative.chain(zeros).chain(positive)
    }

    /// The value of rank `ceil(q * n)` (the nearest-rank quantile, the least value at or below
    /// which a share `q` of the values lie), as its bin's midpoint clamped to `[min, max]` (the
    /// exact range), so within [`RELATIVE_ERROR`] of the true one (exact for integers of
    /// magnitude below 128 when `integral` says every value was one); `None` when there is
    /// none.
    pub fn quantile(&self, q: f64, (min, max): (f64, f64), integral: bool) -> Option<f64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0u64;
        for (value, count) in self.ascending(integral) {
            seen = seen.saturating_add(count);
            if seen >= rank {
                return Some(value.clamp(min, max));
            }
        }
        Some(max)
    }

    /// The equal-width histogram over `[low, high]`: each bin's count in the bucket of the value
    /// it stands for (clamped to the range; see [`Quantiles::quantile`] for `integral`).
    pub fn histogram(&self, (low, high): (f64, f64), integral: bool) -> Histogram {
        let mut histogram = Histogram::new(low, high);
        for (value, count) in self.ascending(integral) {
            histogram.add_n(value.clamp(low, high), count);
        }
        histogram
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch(values: &[f64]) -> Quantiles {
        let mut q = Quantiles::default();
        values.iter().for_each(|v| q.add(*v));
        q
    }

    /// A deterministic spread of values over several orders of magnitude, both signs.
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
                let v = (unit * 12.0 - 4.0).exp();
                if x & 1 == 0 { v } else { -v / 3.0 }
            })
            .collect()
    }

    #[test]
    fn quantiles_are_within_the_stated_relative_error() {
        let mut all = values(20_000, 7);
        all.extend([0.0, -0.0, 0.0]);
        let q = sketch(&all);
        let mut sorted = all.clone();
        sorted.sort_by(f64::total_cmp);
        let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
        for p in [0.0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1.0] {
            let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            let truth = sorted[rank - 1];
            let got = q.quantile(p, (min, max), false).unwrap_or(f64::NAN);
            assert!(
                (got - truth).abs() <= truth.abs() * RELATIVE_ERROR,
                "p{p}: {got} vs {truth}"
            );
        }
        assert_eq!(q.quantile(0.0, (min, max), false), Some(min));
        assert_eq!(q.quantile(1.0, (min, max), false), Some(max));
        assert_eq!(Quantiles::default().quantile(0.5, (0.0, 1.0), false), None);
    }

    #[test]
    fn bins_are_named_by_bits_and_hold_values_near_their_midpoint() {
        for v in [
            1.0,
            1.015625,
            3.5,
            1e-300,
            f64::MIN_POSITIVE,
            1e300,
            f64::MAX,
            0.1,
        ] {
            let m = midpoint(bin(v));
            assert!((m - v).abs() <= v * RELATIVE_ERROR, "{v}: {m}");
        }
        // 1 and 1 + 1/64 are the first values of neighbouring bins.
        assert_eq!(bin(1.0) + 1, bin(1.015625));
        assert_eq!(bin(1.015624), bin(1.0));
    }

    #[test]
    fn merges_in_any_grouping_and_order_equal_one_pass() {
        let all = values(5_000, 3);
        let whole = sketch(&all);
        let parts: Vec<Quantiles> = all.chunks(700).map(sketch).collect();
        let mut forward = Quantiles::default();
        parts.iter().for_each(|p| forward.merge(p));
        let mut backward = Quantiles::default();
        parts.iter().rev().for_each(|p| backward.merge(p));
        let mut pairs = Quantiles::default();
        for pair in parts.chunks(2) {
            let mut inner = pair[0].clone();
            pair.iter().skip(1).for_each(|p| inner.merge(p));
            pairs.merge(&inner);
        }
        assert_eq!(forward, whole);
        assert_eq!(backward, whole);
        assert_eq!(pairs, whole);
    }

    #[test]
    fn collapsing_keeps_the_largest_bins_and_stays_associative() {
        // 2^70 .. 2^-70: far more than MAX_BINS bins.
        let all: Vec<f64> = (0..9000)
            .map(|i| 2f64.powf(70.0 - i as f64 / 64.0))
            .collect();
        let whole = sketch(&all);
        assert_eq!(whole.positive.len(), MAX_BINS);
        assert_eq!(whole.count(), 9000);
        let (a, b, c) = (
            sketch(&all[..3000]),
            sketch(&all[3000..6000]),
            sketch(&all[6000..]),
        );
        let mut left = a.clone();
        left.merge(&b);
        left.merge(&c);
        let mut right = c.clone();
        right.merge(&b);
        right.merge(&a);
        assert_eq!(left, whole);
        assert_eq!(right, whole);
        let max = all[0];
        let top = whole.quantile(1.0, (0.0, max), false).unwrap_or(0.0);
        assert_eq!(top, max);
        let p99 = whole.quantile(0.99, (0.0, max), false).unwrap_or(0.0);
        // The 8910th of 9000 in ascending order.
        assert!((p99 - all[90]).abs() <= all[90] * RELATIVE_ERROR, "{p99}");
    }

    #[test]
    fn small_integers_are_exact() {
        let all: Vec<f64> = (-70..70).map(f64::from).collect();
        let q = sketch(&all);
        for (p, want) in [(0.5, -1.0), (0.25, -36.0), (0.75, 34.0), (0.01, -69.0)] {
            assert_eq!(q.quantile(p, (-70.0, 69.0), true), Some(want));
        }
        // Integers up to 127 have a bin each; past that they are estimates.
        let p99 = q.quantile(0.99, (-70.0, 69.0), true).unwrap_or(0.0);
        assert!((p99 - 68.0).abs() <= 68.0 * RELATIVE_ERROR, "{p99}");
        let h = q.histogram((-70.0, 69.0), true);
        let mut exact = Histogram::new(-70.0, 69.0);
        all.iter().for_each(|v| exact.add(*v));
        assert_eq!(h.counts, exact.counts);
    }

    #[test]
    fn histograms_count_every_value_and_miss_only_near_edges() {
        let all: Vec<f64> = (0..1000).map(|i| i as f64 / 10.0).collect();
        let h = sketch(&all).histogram((0.0, 99.9), false);
        assert_eq!(h.counts.iter().sum::<u64>(), 1000);
        let mut exact = Histogram::new(0.0, 99.9);
        all.iter().for_each(|v| exact.add(*v));
        for (got, want) in h.counts.iter().zip(exact.counts) {
            // Values within 1/128 of an edge (at most 80 of the 100 between 9.99 and 19.98).
            assert!(
                got.abs_diff(want) <= 2 * 8,
                "{:?} vs {:?}",
                h.counts,
                exact.counts
            );
        }
    }
}
