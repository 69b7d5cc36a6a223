//! A uniform sample of records, drawn in one pass: reservoir sampling (Vitter's algorithm R)
//! over a seeded generator, so that the same seed draws the same records from the same file.
//!
//! The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", 2014): 64 bits of state, every seed valid, and its output is what Java's
//! `SplittableRandom` and many seeders give, so a draw can be checked anywhere. Numbers below a
//! bound are drawn without modulo bias (Lemire's multiply-and-reject, 2019).

/// A seeded generator of uniform 64-bit numbers.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn seeded(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next number, uniform over every `u64`.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number uniform over `0..bound` (0 when `bound` is 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        // The high half of a 128-bit product is uniform once the low half is past the
        // remainder that would favour the first values.
        let threshold = bound.wrapping_neg() % bound;
        loop {
            let product = u128::from(self.next_u64()) * u128::from(bound);
            if (product as u64) >= threshold {
                return (product >> 64) as u64;
            }
        }
    }
}

/// Keeps a uniform sample of at most `size` of the items offered, whatever their number: after
/// `n` items, each is in the sample with probability `size / n`.
#[derive(Debug, Clone)]
pub struct Reservoir<T> {
    size: u64,
    seen: u64,
    kept: Vec<T>,
    rng: Rng,
}

impl<T> Reservoir<T> {
    /// A reservoir of `size` items, drawing with `rng`. Nothing is reserved up front: the sample
    /// grows with the items offered, so a size larger than any file costs nothing.
    pub fn new(size: u64, rng: Rng) -> Reservoir<T> {
        Reservoir {
            size,
            seen: 0,
            kept: Vec::new(),
            rng,
        }
    }

    /// Offers the next item.
    pub fn offer(&mut self, item: T) {
        self.seen = self.seen.saturating_add(1);
        if (self.kept.len() as u64) < self.size {
            self.kept.push(item);
            return;
        }
        // Item number `seen` replaces a kept one with probability size / seen.
        let slot = self.rng.below(self.seen);
        if let Some(kept) = usize::try_from(slot)
            .ok()
            .filter(|s| (*s as u64) < self.size)
            .and_then(|s| self.kept.get_mut(s))
        {
            *kept = item;
        }
    }

    /// How many items were offered.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The sample, in no particular order.
    pub fn into_items(self) -> Vec<T> {
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_gives_the_reference_sequence() {
        // The first outputs for seed 1234567, as the reference implementation prints them.
        let mut rng = Rng::seeded(1234567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            vec![
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
    }

    #[test]
    fn below_stays_below_its_bound_and_reaches_every_value() {
        let mut rng = Rng::seeded(7);
        let mut hits = [0u32; 7];
        for _ in 0..7000 {
            let n = rng.below(7);
            assert!(n < 7);
            hits[n as usize] += 1;
        }
        assert!(hits.iter().all(|h| (800..1200).contains(h)), "{hits:?}");
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.below(1), 0);
        // The largest bound: the rejection threshold is 1, values span the range.
        assert!(rng.below(u64::MAX) < u64::MAX);
    }

    #[test]
    fn a_reservoir_keeps_everything_when_it_is_large_enough() {
        let mut all = Reservoir::new(u64::MAX, Rng::seeded(0));
        (0..5).for_each(|i| all.offer(i));
        assert_eq!(all.seen(), 5);
        assert_eq!(all.into_items(), vec![0, 1, 2, 3, 4]);
        let mut none = Reservoir::new(0, Rng::seeded(0));
        (0..5).for_each(|i| none.offer(i));
        assert!(none.into_items().is_empty());
    }

    #[test]
    fn the_same_seed_draws_the_same_sample_and_every_item_is_drawn_as_often() {
        let draw = |seed| {
            let mut r = Reservoir::new(3, Rng::seeded(seed));
            (0..10u32).for_each(|i| r.offer(i));
            let mut items = r.into_items();
            items.sort_unstable();
            items
        };
        assert_eq!(draw(42), draw(42));
        assert_ne!(draw(42), draw(43));
        // Over 20000 seeds, each of 10 items is kept 3 times in 10: 6000 times, give or take
        // what chance allows (a standard deviation is about 65; the bounds are 6 of them).
        let mut kept = [0u32; 10];
        for seed in 0..20_000 {
            for item in draw(seed) {
                kept[item as usize] += 1;
            }
        }
        assert!(kept.iter().all(|k| (5_610..6_390).contains(k)), "{kept:?}");
        assert_eq!(kept.iter().sum::<u32>(), 60_000);
    }
}
