//! Dataset-wide record numbers: record 17 of `train` shard 00002 is `train` record 1234 when the
//! shards before it hold 1217 records. Numbers count frames as `list` does, shard after shard in
//! number order.

use super::Dataset;

/// Where each member's records start in its split.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numbering {
    /// Per member: its split and the split-wide number of its first record.
    starts: Vec<Option<(usize, u64)>>,
    /// Per member: how many records it holds.
    counts: Vec<u64>,
}

impl Numbering {
    /// Numbers the records of `dataset` from how many each member holds (`counts`, one per
    /// member).
    pub fn new(dataset: &Dataset, counts: &[u64]) -> Numbering {
        let mut next = vec![0u64; dataset.splits.len()];
        let starts = dataset
            .members
            .iter()
            .zip(counts)
            .map(|(member, count)| {
                let (split, _) = member.shard?;
                let at = next.get_mut(split)?;
                let start = *at;
                *at = at.saturating_add(*count);
                Some((split, start))
            })
            .collect();
        Numbering {
            starts,
            counts: counts.to_vec(),
        }
    }

    /// The split and split-wide number of record `record` of member `member`.
    pub fn global(&self, member: usize, record: u64) -> Option<(usize, u64)> {
        let (split, start) = (*self.starts.get(member)?)?;
        Some((split, start.checked_add(record)?))
    }

    /// The member and its record that split-wide number `number` of split `split` is.
    pub fn locate(&self, split: usize, number: u64) -> Option<(usize, u64)> {
        self.starts
            .iter()
            .zip(&self.counts)
            .enumerate()
            .find_map(|(member, (start, count))| {
                let (s, first) = (*start)?;
                let within = number.checked_sub(first)?;
                (s == split && within < *count).then_some((member, within))
            })
    }

    /// `train record 1234 = shard 00002 record 17`, for record `record` of member `member`.
    pub fn describe(&self, dataset: &Dataset, member: usize, record: u64) -> Option<String> {
        let (split, number) = self.global(member, record)?;
        let split_info = dataset.splits.get(split)?;
        let (_, shard) = dataset.members.get(member)?.shard?;
        Some(format!(
            "{} record {number} = shard {} record {record}",
            split_info.name,
            split_info.set.number_text(shard)
        ))
    }
}
