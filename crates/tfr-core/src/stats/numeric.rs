//! Numbers in constant space: count, min, max, mean and standard deviation (Welford, merged with
//! Chan's formula), zeros, NaN and infinities, and a quantile sketch of the finite values
//! ([`Quantiles`]); a value-per-record counter; and an equal-width histogram over a range fixed
//! once every split is summarised (derived from the sketch), so that splits share their buckets.

use super::quantiles::Quantiles;

/// Buckets of every histogram.
pub const BUCKETS: usize = 10;

/// Summary of finite and non-finite numbers.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Numeric {
    /// Finite values.
    pub count: u64,
    #[serde(with = "super::wire::bits")]
    pub min: f64,
    #[serde(with = "super::wire::bits")]
    pub max: f64,
    #[serde(with = "super::wire::bits")]
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    #[serde(with = "super::wire::bits")]
    m2: f64,
    pub zeros: u64,
    pub nan: u64,
    pub pos_inf: u64,
    pub neg_inf: u64,
    /// The exact range of int64 values, which f64 cannot hold past 2^53.
    pub int_range: Option<(i64, i64)>,
    /// Some value was an integer `int_range` cannot hold (a uint64 past `i64::MAX`).
    pub beyond_int: bool,
    /// The finite values' quantile sketch.
    pub quantiles: Quantiles,
    /// Some value was a float (not added as an integer).
    pub any_float: bool,
}

impl Numeric {
    /// Adds a float.
    pub fn add(&mut self, value: f64) {
        self.any_float = true;
        self.add_value(value);
    }

    /// Whether every value was an integer (so the sketch can name integers exactly).
    pub fn integral(&self) -> bool {
        !self.any_float
    }

    fn add_value(&mut self, value: f64) {
        if value.is_nan() {
            self.nan += 1;
            return;
        }
        if value.is_infinite() {
            if value > 0.0 {
                self.pos_inf += 1;
            } else {
                self.neg_inf += 1;
            }
            return;
        }
        if value == 0.0 {
            self.zeros += 1;
        }
        if self.count == 0 {
            self.min = value;
            self.max = value;
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.count += 1;
        self.quantiles.add(value);
        let delta = value - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (value - self.mean);
    }

    pub fn add_int(&mut self, value: i64) {
        self.int_range = Some(match self.int_range {
            Some((lo, hi)) => (lo.min(value), hi.max(value)),
            None => (value, value),
        });
        self.add_value(value as f64);
    }

    /// An unsigned 64-bit value: past `i64::MAX` it is kept as the double nearest it, and the
    /// range is then given as doubles (see [`Numeric::beyond_int`]).
    pub fn add_uint(&mut self, value: u64) {
        match i64::try_from(value) {
            Ok(v) => self.add_int(v),
            Err(_) => {
                self.beyond_int = true;
                self.add_value(value as f64);
            }
        }
    }

    pub fn merge(&mut self, other: &Numeric) {
        self.zeros = self.zeros.saturating_add(other.zeros);
        self.nan = self.nan.saturating_add(other.nan);
        self.pos_inf = self.pos_inf.saturating_add(other.pos_inf);
        self.neg_inf = self.neg_inf.saturating_add(other.neg_inf);
        self.beyond_int |= other.beyond_int;
        self.any_float |= other.any_float;
        self.quantiles.merge(&other.quantiles);
        self.int_range = match (self.int_range, other.int_range) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (a, b) => a.or(b),
        };
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            self.count = other.count;
            self.min = other.min;
            self.max = other.max;
            self.mean = other.mean;
            self.m2 = other.m2;
            return;
        }
        let n = self.count.saturating_add(other.count) as f64;
        let delta = other.mean - self.mean;
        self.mean += delta * other.count as f64 / n;
        self.m2 += other.m2 + delta * delta * self.count as f64 * other.count as f64 / n;
        self.count = self.count.saturating_add(other.count);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The population standard deviation (as numpy's `std` and TFDV give it).
    pub fn std(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            (self.m2 / self.count as f64).max(0.0).sqrt()
        }
    }

    /// The range, when there is a finite value.
    pub fn range(&self) -> Option<(f64, f64)> {
        (self.count > 0).then_some((self.min, self.max))
    }
}

/// Per-record counts (values per record, steps per record): min, max and their sum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PerRecord {
    pub records: u64,
    pub min: u64,
    pub max: u64,
    pub sum: u64,
}

impl PerRecord {
    pub fn add(&mut self, n: u64) {
        if self.records == 0 {
            self.min = n;
            self.max = n;
        } else {
            self.min = self.min.min(n);
            self.max = self.max.max(n);
        }
        self.records += 1;
        self.sum = self.sum.saturating_add(n);
    }

    pub fn merge(&mut self, other: &PerRecord) {
        if other.records == 0 {
            return;
        }
        if self.records == 0 {
            *self = *other;
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.records = self.records.saturating_add(other.records);
        self.sum = self.sum.saturating_add(other.sum);
    }

    pub fn mean(&self) -> f64 {
        if self.records == 0 {
            0.0
        } else {
            self.sum as f64 / self.records as f64
        }
    }
}

/// Equal-width buckets over `[low, high]`; the last bucket includes `high`.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    pub low: f64,
    pub high: f64,
    pub counts: [u64; BUCKETS],
}

impl Histogram {
    pub fn new(low: f64, high: f64) -> Histogram {
        Histogram {
            low,
            high,
            counts: [0; BUCKETS],
        }
    }

    /// Counts a finite value (others are counted by [`Numeric`] alone).
    pub fn add(&mut self, value: f64) {
        self.add_n(value, 1);
    }

    /// Counts `n` times a finite value.
    pub fn add_n(&mut self, value: f64, n: u64) {
        if !value.is_finite() || value < self.low || value > self.high {
            return;
        }
        let width = self.high - self.low;
        let bucket = if width > 0.0 {
            (((value - self.low) / width) * BUCKETS as f64).floor() as usize
        } else {
            0
        };
        if let Some(count) = self.counts.get_mut(bucket.min(BUCKETS - 1)) {
            *count = count.saturating_add(n);
        }
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a = a.saturating_add(b);
        }
    }

    /// The values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().fold(0, |sum, n| sum.saturating_add(*n))
    }

    /// The largest difference in the share of values per bucket between two histograms over
    /// the same range (the L-infinity distance TFDV compares splits with).
    pub fn distance(&self, other: &Histogram) -> f64 {
        let total = |h: &Histogram| h.total().max(1) as f64;
        let (a, b) = (total(self), total(other));
        self.counts
            .iter()
            .zip(other.counts)
            .map(|(x, y)| (*x as f64 / a - y as f64 / b).abs())
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_halves_equal_the_whole() {
        let values: Vec<f64> = (0..100).map(|i| (i as f64 * 0.37).sin() * 10.0).collect();
        let mut whole = Numeric::default();
        values.iter().for_each(|v| whole.add(*v));
        let (mut a, mut b) = (Numeric::default(), Numeric::default());
        values[..30].iter().for_each(|v| a.add(*v));
        values[30..].iter().for_each(|v| b.add(*v));
        a.merge(&b);
        assert_eq!(a.count, whole.count);
        assert!((a.mean - whole.mean).abs() < 1e-12);
        assert!((a.std() - whole.std()).abs() < 1e-12);
        assert_eq!((a.min, a.max), (whole.min, whole.max));
    }

    #[test]
    fn non_finite_values_are_counted_apart() {
        let mut n = Numeric::default();
        for v in [1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, 3.0] {
            n.add(v);
        }
        assert_eq!(
            (n.count, n.nan, n.pos_inf, n.neg_inf, n.zeros),
            (3, 1, 1, 1, 1)
        );
        assert_eq!(n.range(), Some((0.0, 3.0)));
        assert!((n.mean - 4.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn histogram_buckets_are_equal_width_with_the_top_inclusive() {
        let mut h = Histogram::new(0.0, 10.0);
        for v in [0.0, 0.99, 1.0, 5.5, 9.99, 10.0, 11.0] {
            h.add(v);
        }
        assert_eq!(h.counts, [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]);
        let mut flat = Histogram::new(3.0, 3.0);
        flat.add(3.0);
        assert_eq!(flat.counts[0], 1);
        assert!((h.distance(&h) - 0.0).abs() < 1e-12);
    }
}
