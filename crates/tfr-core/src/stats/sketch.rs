//! Bounded summaries of the values of a bytes feature: how many distinct values (exact up to
//! [`EXACT_DISTINCT`], then a HyperLogLog estimate) and the most frequent ones (exact while at most
//! [`FREQUENT_SLOTS`] values were seen, then Misra-Gries lower bounds). Both merge, so shards are
//! summarised apart and combined.

use std::collections::{HashMap, HashSet};

use super::wire::Hash;

/// Distinct values counted exactly (by 64-bit hash) before switching to an estimate.
pub const EXACT_DISTINCT: usize = 4096;
/// HyperLogLog precision: 2^12 registers, a standard error of about 1.6%.
pub const HLL_BITS: u32 = 12;
/// Values whose counts are kept; more make the counts lower bounds.
pub const FREQUENT_SLOTS: usize = 1024;
/// How much of a value is kept to show it.
pub const SAMPLE_BYTES: usize = 64;

/// A value's 64-bit hash: XXH3 (64 bits, seed 0), a specified algorithm, so that sketches made on
/// other machines or by other builds merge with these (the standard library's hasher may change
/// between Rust releases).
pub fn hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Distinct values: exact hashes up to a bound, then HyperLogLog registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distinct {
    Exact(HashSet<u64>),
    Estimated(Vec<u8>),
}

impl Default for Distinct {
    fn default() -> Distinct {
        Distinct::Exact(HashSet::new())
    }
}

impl Distinct {
    pub fn insert(&mut self, hash: u64) {
        match self {
            Distinct::Exact(set) => {
                set.insert(hash);
                if set.len() > EXACT_DISTINCT {
                    let registers = to_registers(set);
                    *self = Distinct::Estimated(registers);
                }
            }
            Distinct::Estimated(registers) => add_to_registers(registers, hash),
        }
    }

    pub fn merge(&mut self, other: &Distinct) {
        match other {
            Distinct::Exact(set) => set.iter().for_each(|h| self.insert(*h)),
            Distinct::Estimated(theirs) => {
                if let Distinct::Exact(set) = self {
                    *self = Distinct::Estimated(to_registers(set));
                }
                if let Distinct::Estimated(ours) = self {
                    for (a, b) in ours.iter_mut().zip(theirs) {
                        *a = (*a).max(*b);
                    }
                }
            }
        }
    }

    /// The count, and whether it is exact.
    pub fn count(&self) -> (u64, bool) {
        match self {
            Distinct::Exact(set) => (set.len() as u64, true),
            Distinct::Estimated(registers) => (estimate(registers), false),
        }
    }
}

fn to_registers(set: &HashSet<u64>) -> Vec<u8> {
    let mut registers = vec![0u8; 1 << HLL_BITS];
    set.iter()
        .for_each(|h| add_to_registers(&mut registers, *h));
    registers
}

fn add_to_registers(registers: &mut [u8], hash: u64) {
    let index = usize::try_from(hash >> (64 - HLL_BITS)).unwrap_or(0);
    let rest = (hash << HLL_BITS) | (1 << (HLL_BITS - 1));
    let rank = u8::try_from(rest.leading_zeros() + 1).unwrap_or(u8::MAX);
    if let Some(register) = registers.get_mut(index) {
        *register = (*register).max(rank);
    }
}

fn estimate(registers: &[u8]) -> u64 {
    let m = registers.len() as f64;
    let sum: f64 = registers.iter().map(|r| 2f64.powi(-i32::from(*r))).sum();
    let raw = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
    let zeros = registers.iter().filter(|r| **r == 0).count();
    let estimate = if raw <= 2.5 * m && zeros > 0 {
        m * (m / zeros as f64).ln()
    } else {
        raw
    };
    estimate.round() as u64
}

/// The most frequent values with their counts (Misra-Gries with an amortised purge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frequent {
    /// Per value hash: its count and its first bytes.
    counts: HashMap<u64, (u64, Vec<u8>)>,
    /// Whether counts were ever purged, making them lower bounds.
    pub approximate: bool,
}

impl Frequent {
    pub fn insert(&mut self, hash: u64, value: &[u8]) {
        let entry = self
            .counts
            .entry(hash)
            .or_insert_with(|| (0, value.get(..SAMPLE_BYTES).unwrap_or(value).to_vec()));
        entry.0 += 1;
        if self.counts.len() >= 2 * FREQUENT_SLOTS {
            self.purge();
        }
    }

    /// Keeps the [`FREQUENT_SLOTS`] largest counts, less the next largest one.
    fn purge(&mut self) {
        if self.counts.len() <= FREQUENT_SLOTS {
            return;
        }
        let mut counts: Vec<u64> = self.counts.values().map(|(c, _)| *c).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let cut = counts.get(FREQUENT_SLOTS).copied().unwrap_or(0);
        self.counts.retain(|_, (count, _)| {
            *count = count.saturating_sub(cut);
            *count > 0
        });
        self.approximate = true;
    }

    pub fn merge(&mut self, other: &Frequent) {
        for (hash, (count, sample)) in &other.counts {
            let entry = self
                .counts
                .entry(*hash)
                .or_insert_with(|| (0, sample.clone()));
            entry.0 = entry.0.saturating_add(*count);
        }
        self.approximate |= other.approximate;
        self.purge();
    }

    /// The `n` most frequent values, most frequent first (ties in byte order).
    pub fn top(&self, n: usize) -> Vec<(&[u8], u64)> {
        let mut all: Vec<(&[u8], u64)> = self
            .counts
            .values()
            .map(|(count, sample)| (sample.as_slice(), *count))
            .collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        all.truncate(n);
        all
    }

    /// Relative frequency of each kept value, by hash (for comparing splits).
    pub fn frequencies(&self, total: u64) -> HashMap<u64, f64> {
        self.counts
            .iter()
            .map(|(h, (c, _))| (*h, *c as f64 / total.max(1) as f64))
            .collect()
    }
}

/// [`Distinct`] as a partial holds it: the exact hashes in order, or the registers.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum DistinctWire {
    Exact(Vec<Hash>),
    Estimated(Vec<u8>),
}

impl serde::Serialize for Distinct {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Distinct::Exact(set) => {
                let mut hashes: Vec<Hash> = set.iter().map(|h| Hash(*h)).collect();
                hashes.sort_unstable();
                DistinctWire::Exact(hashes)
            }
            Distinct::Estimated(registers) => DistinctWire::Estimated(registers.clone()),
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Distinct {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Distinct, D::Error> {
        use serde::de::Error;
        match DistinctWire::deserialize(d)? {
            DistinctWire::Exact(hashes) => {
                if hashes.len() > EXACT_DISTINCT {
                    return Err(D::Error::custom(format!(
                        "more than {EXACT_DISTINCT} exact distinct hashes"
                    )));
                }
                let n = hashes.len();
                let set: HashSet<u64> = hashes.into_iter().map(|h| h.0).collect();
                if set.len() != n {
                    return Err(D::Error::custom("a distinct hash is given twice"));
                }
                Ok(Distinct::Exact(set))
            }
            DistinctWire::Estimated(registers) => {
                let max_rank = 64 - HLL_BITS + 1;
                if registers.len() != 1 << HLL_BITS
                    || registers.iter().any(|r| u32::from(*r) > max_rank)
                {
                    return Err(D::Error::custom(format!(
                        "HyperLogLog registers must be {} ranks of at most {max_rank}",
                        1 << HLL_BITS
                    )));
                }
                Ok(Distinct::Estimated(registers))
            }
        }
    }
}

/// [`Frequent`] as a partial holds it: per value, by hash order, its hash, count and sample.
#[derive(serde::Serialize, serde::Deserialize)]
struct FrequentWire {
    counts: Vec<(Hash, u64, Vec<u8>)>,
    approximate: bool,
}

impl serde::Serialize for Frequent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut counts: Vec<(Hash, u64, Vec<u8>)> = self
            .counts
            .iter()
            .map(|(h, (c, sample))| (Hash(*h), *c, sample.clone()))
            .collect();
        counts.sort_unstable_by_key(|(h, _, _)| *h);
        FrequentWire {
            counts,
            approximate: self.approximate,
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Frequent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Frequent, D::Error> {
        use serde::de::Error;
        let wire = FrequentWire::deserialize(d)?;
        // `insert` purges on reaching twice the slots, so fewer are ever held.
        if wire.counts.len() >= 2 * FREQUENT_SLOTS {
            return Err(D::Error::custom(format!(
                "{} frequent values, more than a summary holds ({})",
                wire.counts.len(),
                2 * FREQUENT_SLOTS - 1
            )));
        }
        let n = wire.counts.len();
        let mut counts = HashMap::with_capacity(n);
        for (hash, count, sample) in wire.counts {
            if count == 0 || sample.len() > SAMPLE_BYTES {
                return Err(D::Error::custom(
                    "a frequent value with no count or a sample past 64 bytes",
                ));
            }
            counts.insert(hash.0, (count, sample));
        }
        if counts.len() != n {
            return Err(D::Error::custom("a frequent value is given twice"));
        }
        Ok(Frequent {
            counts,
            approximate: wire.approximate,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_hash_as_xxh3_the_same_on_every_machine() {
        // XXH3_64bits with seed 0, as the reference C library (libxxhash) computes it; short,
        // middle and long inputs take different paths through the algorithm.
        assert_eq!(hash(b""), 0x2d06_8005_38d3_94c2);
        assert_eq!(hash(b"abc"), 0x78af_5f94_892f_3950);
        let middle: Vec<u8> = (0..100).collect();
        assert_eq!(hash(&middle), 0x004e_4f92_1a64_bd1c);
        let long: Vec<u8> = (0..512).map(|i| (i % 256) as u8).collect();
        assert_eq!(hash(&long), 0x1059_105a_d19b_fa09);
    }

    #[test]
    fn distinct_is_exact_then_estimated_within_a_few_percent() {
        let mut d = Distinct::default();
        for i in 0..1000u32 {
            d.insert(hash(&i.to_le_bytes()));
            d.insert(hash(&i.to_le_bytes()));
        }
        assert_eq!(d.count(), (1000, true));
        let mut big = Distinct::default();
        for i in 0..100_000u32 {
            big.insert(hash(&i.to_le_bytes()));
        }
        let (n, exact) = big.count();
        assert!(!exact);
        assert!((95_000..105_000).contains(&n), "{n}");
        // Merging an exact and an estimated sketch estimates the union.
        let mut other = Distinct::default();
        for i in 50_000..150_000u32 {
            other.insert(hash(&i.to_le_bytes()));
        }
        big.merge(&other);
        let (n, _) = big.count();
        assert!((142_000..158_000).contains(&n), "{n}");
    }

    #[test]
    fn frequent_values_are_exact_while_few_and_keep_the_heavy_ones() {
        let mut f = Frequent::default();
        for (value, n) in [(&b"cat"[..], 5), (b"dog", 3), (b"goat", 1)] {
            for _ in 0..n {
                f.insert(hash(value), value);
            }
        }
        assert_eq!(f.top(2), vec![(&b"cat"[..], 5), (&b"dog"[..], 3)]);
        assert!(!f.approximate);
        let mut many = Frequent::default();
        for i in 0..50_000u32 {
            let value = if i % 4 == 0 {
                b"heavy".to_vec()
            } else {
                i.to_le_bytes().to_vec()
            };
            many.insert(hash(&value), &value);
        }
        assert!(many.approximate);
        assert_eq!(many.top(1)[0].0, b"heavy");
        let mut merged = Frequent::default();
        merged.merge(&f);
        merged.merge(&f);
        assert_eq!(merged.top(1), vec![(&b"cat"[..], 10)]);
    }
}
