//! A command's run over the files its arguments name: the dataset they resolve into, what each
//! member held once counted, where each member lies in its split, and the dataset summary a run
//! ends with. The command line and the Python package both report through it, so that their
//! lines are the same.

use std::cell::RefCell;
use std::path::PathBuf;

use super::report::SplitPlace;
use super::{Dataset, Summary, Tally};
use crate::escape::Untrusted;

/// A command's run over the files its arguments name.
pub struct Run {
    pub dataset: Dataset,
    /// What each member held, as the command counted it (`None` until then, or when unreadable).
    pub tallies: Vec<Option<Tally>>,
    /// Where each member's records start in its split, as far as members were asked for.
    starts: RefCell<Starts>,
}

/// The split-wide number of each member's first record, summed member after member as they are
/// asked for, so that asking for every member costs one pass, not one pass each.
#[derive(Default)]
struct Starts {
    /// Per member whose tally is summed (the first `firsts.len()`): the records of its split
    /// before it; `None` when a shard before it is missing, there twice or unreadable, so that
    /// its records have no split-wide numbers (as `show DIR -n train:N` refuses to count across
    /// the gap).
    firsts: Vec<Option<u64>>,
    /// Per split: the records of the members summed so far.
    next: Vec<u64>,
    /// Per split: the members summed so far, and whether each was the shard of its place.
    summed: Vec<(u64, bool)>,
}

impl Starts {
    /// Whether shard `number` of split `split`, coming after the members summed so far, has
    /// split-wide numbers: every shard before it is there once.
    fn numbered(&self, split: usize, number: u64) -> bool {
        self.summed
            .get(split)
            .is_some_and(|&(count, whole)| whole && count == number)
    }
}

impl Run {
    /// Resolves `args`, with the arguments that cannot be used (each message names its argument)
    /// for the caller to report as unusable.
    pub fn resolve(args: &[PathBuf]) -> (Run, Vec<String>) {
        let dataset = Dataset::resolve(args);
        let mut unusable = dataset.errors.clone();
        // A tf.data snapshot's side files that cannot be used: named, as a features.json is, and
        // its records listed one by one.
        for set in &dataset.snapshots {
            unusable.extend(set.snapshot.notes.iter().map(ToString::to_string));
        }
        (Run::of(dataset), unusable)
    }

    /// The run over `dataset` as it stands (rebuilt from a merge's parts, say).
    pub fn of(dataset: Dataset) -> Run {
        let tallies = vec![None; dataset.members.len()];
        let starts = RefCell::new(Starts {
            firsts: Vec::new(),
            next: vec![0; dataset.splits.len()],
            summed: vec![(0, true); dataset.splits.len()],
        });
        Run {
            dataset,
            tallies,
            starts,
        }
    }

    /// The files to read, in order.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.dataset
            .members
            .iter()
            .map(|m| m.path.clone())
            .collect()
    }

    /// Whether the inputs are reported as a dataset.
    pub fn is_dataset(&self) -> bool {
        self.dataset.is_dataset
    }

    /// `train shard 00001 of 00002` for a shard member.
    pub fn label(&self, member: usize) -> Option<String> {
        let (split, number) = self.dataset.members.get(member)?.shard?;
        Some(self.dataset.splits.get(split)?.shard_label(number))
    }

    /// The split's name and the split-wide number of the member's first record, from the
    /// tallies of the shards before it (which must be counted already, and not change after).
    /// `None` for a member of no split, and for one after a shard of its split that is missing,
    /// there twice or unreadable ([`Run::unnumbered`]).
    pub fn first_record(&self, member: usize) -> Option<(Untrusted, u64)> {
        let (split, number) = self.dataset.members.get(member)?.shard?;
        let mut starts = self.starts.borrow_mut();
        // Sums the members before this one not summed yet (its own tally may still be coming).
        while starts.firsts.len() < member {
            let at = starts.firsts.len();
            let split_of = self.dataset.members.get(at).and_then(|m| m.shard);
            let tally = self.tallies.get(at).copied().flatten();
            let first = split_of.and_then(|(s, n)| {
                let numbered = starts.numbered(s, n);
                // A shard with no tally (it could not be read, or changed while it was) holds
                // an unknown count: the shards after it are not numbered either.
                if let Some(summed) = starts.summed.get_mut(s) {
                    *summed = (summed.0.saturating_add(1), numbered && tally.is_some());
                }
                numbered.then(|| starts.next.get(s).copied()).flatten()
            });
            starts.firsts.push(first);
            let frames = tally.map_or(0, |t| t.frames);
            if let Some(next) = split_of.and_then(|(s, _)| starts.next.get_mut(s)) {
                *next = next.saturating_add(frames);
            }
        }
        let before = match starts.firsts.get(member) {
            Some(first) => (*first)?,
            None if starts.numbered(split, number) => starts.next.get(split).copied()?,
            None => return None,
        };
        Some((self.dataset.splits.get(split)?.name.clone(), before))
    }

    /// For a shard whose records have no split-wide numbers because a shard of its split before
    /// it is missing, there twice or unreadable: the split's name.
    pub fn unnumbered(&self, member: usize) -> Option<Untrusted> {
        let (split, _) = self.dataset.members.get(member)?.shard?;
        match self.first_record(member) {
            Some(_) => None,
            None => Some(self.dataset.splits.get(split)?.name.clone()),
        }
    }

    /// For a shard with no split-wide numbers ([`Run::unnumbered`]), why, in the words every
    /// command says it with: `records not numbered in train: a shard before it is …`.
    pub fn unnumbered_note(&self, member: usize) -> Option<String> {
        let split = self.unnumbered(member)?;
        Some(format!(
            "records not numbered in {split}: a shard before it is missing, there twice or unreadable"
        ))
    }

    /// `; train shard 00001 of 00002, records 15..29 of train` after a member's verdict.
    pub fn place(&self, member: usize) -> String {
        let Some(label) = self.label(member) else {
            return String::new();
        };
        let Some((split, first)) = self.first_record(member) else {
            return self
                .unnumbered_note(member)
                .map(|note| format!("; {label}, {note}"))
                .unwrap_or_default();
        };
        let frames = self
            .tallies
            .get(member)
            .copied()
            .flatten()
            .map_or(0, |t| t.frames);
        match frames {
            0 => format!("; {label}, no records"),
            n => format!(
                "; {label}, records {first}..{} of {split}",
                first.saturating_add(n - 1)
            ),
        }
    }

    /// Where a member lies in its split: the split, the shard's number and the split-wide
    /// number of its first record.
    pub fn split_place(&self, member: usize) -> Option<SplitPlace> {
        let (split, first) = match self.first_record(member) {
            Some((split, first)) => (split, Some(first)),
            None => (self.unnumbered(member)?, None),
        };
        let shard = self
            .dataset
            .members
            .get(member)
            .and_then(|m| m.shard)
            .and_then(|(s, n)| Some(self.dataset.splits.get(s)?.set.number_text(n)));
        Some(SplitPlace {
            split: split.raw().to_string(),
            shard,
            split_first_record: first,
        })
    }

    /// The dataset's summary over the tallies counted.
    pub fn summary(&self) -> Summary<'_> {
        Summary::new(&self.dataset, &self.tallies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(frames: u64) -> Option<Tally> {
        Some(Tally {
            frames,
            intact: frames,
            damaged: 0,
            payload_bytes: 0,
            compression: None,
        })
    }

    /// Shards named in `names` (in a temporary directory), their tallies as given.
    fn run_of(names: &[&str], tallies: &[Option<Tally>]) -> (tempfile::TempDir, Run) {
        let dir = tempfile::tempdir().unwrap();
        for name in names {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let paths: Vec<PathBuf> = names.iter().map(|n| dir.path().join(n)).collect();
        let mut run = Run::of(Dataset::resolve(&paths));
        run.tallies = tallies.to_vec();
        (dir, run)
    }

    /// Split-wide numbers stop at the first shard that is missing, there twice or unread; the
    /// shards before it keep theirs.
    #[test]
    fn numbers_stop_at_a_gap_in_the_split() {
        let names = ["t-00000-of-00003", "t-00001-of-00003", "t-00002-of-00003"];
        let (_dir, whole) = run_of(&names, &[tally(5), tally(7), tally(2)]);
        let firsts: Vec<_> = (0..3).map(|m| whole.first_record(m).map(|f| f.1)).collect();
        assert_eq!(firsts, [Some(0), Some(5), Some(12)]);

        // Shard 00001 could not be read: its own first record is known, what follows it is not.
        let (_dir, unread) = run_of(&names, &[tally(5), None, tally(2)]);
        let firsts: Vec<_> = (0..3)
            .map(|m| unread.first_record(m).map(|f| f.1))
            .collect();
        assert_eq!(firsts, [Some(0), Some(5), None]);
        assert!(unread.place(2).ends_with(
            ", records not numbered in t: a shard before it is missing, there twice or unreadable"
        ));
        assert!(unread.split_place(2).unwrap().split_first_record.is_none());

        // Shard 00001 missing: 00002 is not numbered.
        let (_dir, missing) = run_of(&[names[0], names[2]], &[tally(5), tally(2)]);
        assert_eq!(missing.first_record(1).map(|f| f.1), None);
        assert_eq!(missing.first_record(0).map(|f| f.1), Some(0));
    }
}
