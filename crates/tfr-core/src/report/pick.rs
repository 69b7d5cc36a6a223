//! Which records `head`, `tail` and `sample` show: the first N, the last N, or K drawn uniformly
//! (in one pass over the frame index, by [`crate::sample::Reservoir`]). Records are numbered as
//! every command numbers them, by frame, so a damaged frame can be picked and is then reported
//! as `show` reports it.

use serde::Serialize;

use crate::sample::{Reservoir, Rng};

/// What is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Head(u64),
    Tail(u64),
    Sample { size: u64, seed: u64 },
}

/// The records picked, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Picked {
    /// The frames the file has (those indexed, for `head`, which reads no further).
    pub frames: u64,
    /// The first record picked and the one after the last.
    pub start: usize,
    pub end: usize,
    /// For a sample, the records of `start..end` drawn (all others are not shown).
    pub only: Option<Vec<usize>>,
    /// The seed a sample was drawn with.
    pub seed: Option<u64>,
}

impl Picked {
    /// The records `pick` takes from a file of `frames` frames (a head's first `frames`, when
    /// the file has more).
    pub fn of(pick: Pick, frames: usize) -> Picked {
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX).min(frames);
        let (start, end, only, seed) = match pick {
            Pick::Head(n) => (0, count(n), None, None),
            Pick::Tail(n) => (frames - count(n), frames, None, None),
            Pick::Sample { size, seed } => {
                let mut reservoir = Reservoir::new(size, Rng::seeded(seed));
                (0..frames).for_each(|i| reservoir.offer(i));
                let mut drawn = reservoir.into_items();
                drawn.sort_unstable();
                let start = drawn.first().copied().unwrap_or(0);
                let end = drawn.last().map_or(0, |last| last + 1);
                (start, end, Some(drawn), Some(seed))
            }
        };
        Picked {
            frames: frames as u64,
            start,
            end,
            only,
            seed,
        }
    }

    /// Whether record `index` is shown.
    pub fn shows(&self, index: usize) -> bool {
        (self.start..self.end).contains(&index)
            && self
                .only
                .as_ref()
                .is_none_or(|only| only.binary_search(&index).is_ok())
    }

    /// How many records are shown.
    pub fn len(&self) -> usize {
        match &self.only {
            Some(only) => only.len(),
            None => self.end - self.start,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(picked: &Picked) -> Vec<usize> {
        (0..picked.frames as usize)
            .filter(|i| picked.shows(*i))
            .collect()
    }

    #[test]
    fn head_and_tail_take_at_most_the_file() {
        assert_eq!(shown(&Picked::of(Pick::Head(3), 10)), vec![0, 1, 2]);
        assert_eq!(shown(&Picked::of(Pick::Tail(3), 10)), vec![7, 8, 9]);
        assert_eq!(shown(&Picked::of(Pick::Head(30), 4)), vec![0, 1, 2, 3]);
        assert_eq!(
            shown(&Picked::of(Pick::Tail(u64::MAX), 4)),
            vec![0, 1, 2, 3]
        );
        assert!(Picked::of(Pick::Head(0), 10).is_empty());
        assert!(Picked::of(Pick::Tail(0), 10).is_empty());
        assert!(Picked::of(Pick::Tail(5), 0).is_empty());
    }

    #[test]
    fn a_sample_is_sorted_reproducible_and_within_the_file() {
        let pick = |seed| Pick::Sample { size: 4, seed };
        let a = Picked::of(pick(9), 100);
        assert_eq!(a, Picked::of(pick(9), 100));
        let only = a.only.clone().unwrap();
        assert_eq!(only.len(), 4);
        assert!(only.windows(2).all(|w| w[0] < w[1]));
        assert!(only.iter().all(|i| *i < 100));
        assert_eq!((a.start, a.end), (only[0], only[3] + 1));
        assert_eq!(shown(&a), only);
        assert_eq!(a.seed, Some(9));
        // More than the file has: every record, in order.
        let all = Picked::of(Pick::Sample { size: 50, seed: 1 }, 6);
        assert_eq!(shown(&all), vec![0, 1, 2, 3, 4, 5]);
        assert!(Picked::of(Pick::Sample { size: 0, seed: 1 }, 6).is_empty());
        assert!(Picked::of(Pick::Sample { size: 3, seed: 1 }, 0).is_empty());
    }
}
