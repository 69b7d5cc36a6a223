//! Dataset-wide record numbers: record 17 of `train` shard 00002 is `train` record 1234 when the
//! shards before it hold 1217 records. Numbers count frames as `list` does, shard after shard in
//! number order. [`find`] goes the other way, from `train:1234` (or `train:-1`) to the shard and
//! record, counting only the shards it needs.

use super::Dataset;
use crate::bytes::ByteSource;
use crate::escape::Untrusted;
use crate::frame::{FrameIndex, FrameStatus};
use crate::record_number::{RecordNumber, SplitNumber};

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

/// What counting a member found: its frames, and the first and last of them whose length could
/// not be trusted (past such a frame the index resynchronised, so how many records the damaged
/// stretch held is a guess, and so is every split-wide number counted across it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    pub frames: u64,
    pub unreadable: Option<(Unreadable, Unreadable)>,
}

/// A frame that could not be delimited: its index in its file, where it starts, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable {
    pub index: u64,
    pub offset: u64,
    pub status: FrameStatus,
}

impl Counted {
    /// What `index` (of the bytes `data`) holds, as far as it is built.
    pub fn of_index<S: ByteSource + ?Sized>(index: &FrameIndex, data: &S) -> Counted {
        let mut unreadable = index
            .damaged_frames(data)
            .filter(|f| f.status != FrameStatus::DataCrcMismatch)
            .map(|f| Unreadable {
                index: f.index as u64,
                offset: f.offset.0,
                status: f.status,
            });
        let first = unreadable.next();
        Counted {
            frames: index.len() as u64,
            unreadable: first.map(|first| (first, unreadable.last().unwrap_or(first))),
        }
    }
}

/// A split-wide number found: the member and its record, and where that is in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub member: usize,
    /// The record within the member's file.
    pub record: u64,
    /// The split and the number counted from the split's first record (`train:-1` resolved).
    pub split: usize,
    pub number: u64,
    /// `train record 1234 = shard 00002 record 17`.
    pub place: String,
    /// A frame the number was counted across that could not be delimited, in this member.
    pub across: Option<(usize, Unreadable)>,
}

/// Why a split-wide number names no record; `E` is why a member could not be counted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError<E: std::fmt::Display> {
    #[error("the inputs are no shard set: their records have no split-wide numbers")]
    NoSplits,
    #[error(
        "no split \"{}\"; the splits are {}",
        crate::escape::for_terminal(name),
        splits.join(", ")
    )]
    NoSplit {
        name: String,
        /// Escaped.
        splits: Vec<String>,
    },
    /// A shard the count has to cross is missing (or there twice).
    #[error("{label} {}: split-wide numbers need each of the split's shards once", match .twice { true => "is there twice", false => "is missing" })]
    Gap { label: String, twice: bool },
    #[error("{split} has {}; there is no record {number}", crate::words::plural(*records, "record"))]
    PastEnd {
        split: Untrusted,
        records: u64,
        number: RecordNumber,
    },
    #[error("{0}")]
    Count(E),
}

/// Finds split-wide record `wanted` of `dataset`, counting the members of its split with `count`
/// (by member index) as far as needed: up to the record for a number from the start, all of them
/// for one from the end. Numbers are [`Numbering`]'s, so the same as `list`'s split column and
/// the inspector's.
pub fn find<E: std::fmt::Display>(
    dataset: &Dataset,
    wanted: &SplitNumber,
    mut count: impl FnMut(usize) -> Result<Counted, E>,
) -> Result<Found, NumberError<E>> {
    if dataset.splits.is_empty() {
        return Err(NumberError::NoSplits);
    }
    let Some(split) = dataset
        .splits
        .iter()
        .position(|s| s.name.raw() == wanted.split)
    else {
        return Err(NumberError::NoSplit {
            name: wanted.split.clone(),
            splits: dataset.splits.iter().map(|s| s.name.to_string()).collect(),
        });
    };
    let members: Vec<usize> = (0..dataset.members.len())
        .filter(|m| {
            dataset
                .members
                .get(*m)
                .and_then(|m| m.shard)
                .is_some_and(|(s, _)| s == split)
        })
        .collect();
    let mut counts = vec![0u64; dataset.members.len()];
    let mut counted: Vec<(usize, Counted)> = Vec::new();
    let mut records = 0u64;
    // The split-wide number from the start, once it is known.
    let mut number = match wanted.number {
        RecordNumber::FromStart(n) => Some(n as u64),
        RecordNumber::FromEnd(_) => None,
    };
    for (position, &member) in members.iter().enumerate() {
        if number.is_some_and(|n| n < records) {
            break;
        }
        check_shard(dataset, split, member, position as u64)?;
        let c = count(member).map_err(NumberError::Count)?;
        if let Some(slot) = counts.get_mut(member) {
            *slot = c.frames;
        }
        counted.push((member, c));
        records = records.saturating_add(c.frames);
    }
    if number.is_none() {
        // Counting back from the end needs the split's last shard too.
        let split_info = dataset.splits.get(split);
        let shards = members.len() as u64;
        if split_info
            .and_then(|s| s.set.total())
            .is_some_and(|total| shards < total)
        {
            return Err(gap(dataset, split, shards, false));
        }
        number = wanted
            .number
            .resolve(usize::try_from(records).unwrap_or(usize::MAX))
            .map(|n| n as u64);
    }
    let numbering = Numbering::new(dataset, &counts);
    let past_end = || NumberError::PastEnd {
        split: dataset
            .splits
            .get(split)
            .map_or_else(|| Untrusted::new(""), |s| s.name.clone()),
        records,
        number: wanted.number,
    };
    let number = number.ok_or_else(past_end)?;
    let (member, record) = numbering.locate(split, number).ok_or_else(past_end)?;
    let place = numbering
        .describe(dataset, member, record)
        .unwrap_or_default();
    let from_end = matches!(wanted.number, RecordNumber::FromEnd(_));
    // The frames counted across: before the record from the start, after it from the end.
    let across = counted.iter().find_map(|(m, c)| {
        let (first, last) = c.unreadable?;
        let crossed = match (m.cmp(&member), from_end) {
            (std::cmp::Ordering::Equal, false) => (first.index < record).then_some(first),
            (std::cmp::Ordering::Equal, true) => (last.index >= record).then_some(last),
            (std::cmp::Ordering::Less, false) | (std::cmp::Ordering::Greater, true) => Some(first),
            _ => None,
        };
        crossed.map(|u| (*m, u))
    });
    Ok(Found {
        member,
        record,
        split,
        number,
        place,
        across,
    })
}

/// That the member at `position` of the split's members is the split's shard `position`: no
/// shard before it is missing or there twice.
fn check_shard<E: std::fmt::Display>(
    dataset: &Dataset,
    split: usize,
    member: usize,
    position: u64,
) -> Result<(), NumberError<E>> {
    match dataset.members.get(member).and_then(|m| m.shard) {
        Some((_, n)) if n == position => Ok(()),
        // Numbers are in order: one past its place means a shard before it is missing.
        Some((_, n)) if n > position => Err(gap(dataset, split, position, false)),
        _ => Err(gap(dataset, split, position.saturating_sub(1), true)),
    }
}

fn gap<E: std::fmt::Display>(
    dataset: &Dataset,
    split: usize,
    shard: u64,
    twice: bool,
) -> NumberError<E> {
    let label = dataset
        .splits
        .get(split)
        .map(|s| s.shard_label(shard))
        .unwrap_or_default();
    NumberError::Gap { label, twice }
}
