//! Damage of a dataset as a whole, beyond any one shard's frames: shards missing, twice, or
//! disagreeing on how many there are, and shards that do not hold what `dataset_info.json`
//! promises. Each names the split and the file it concerns.

use std::fmt;
use std::path::PathBuf;

use crate::escape::path_for_terminal;
use crate::words::plural;

/// How many missing shard numbers a message lists before it counts the rest.
pub(super) const LISTED: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Shard numbers below the total that no file has: `count` of them, the first of which
    /// (at most `LISTED`) are `first`; `examples` are the first missing names.
    MissingShards {
        split: String,
        count: u64,
        first: Vec<String>,
        total: String,
        examples: Vec<PathBuf>,
    },
    /// Two files claim the same shard number.
    DuplicateShard {
        split: String,
        number: String,
        paths: Vec<PathBuf>,
    },
    /// Shards of one set name different totals: `(total, how many say so)`.
    TotalsDisagree {
        split: String,
        totals: Vec<(String, usize)>,
    },
    /// A shard numbered at or past the total its own name gives.
    NumberPastTotal { split: String, path: PathBuf },
    /// `dataset_info.json` lists another number of shards than were found.
    InfoShardCount {
        split: String,
        info: PathBuf,
        listed: u64,
        found: u64,
    },
    /// A shard holds another number of records than `shardLengths` says.
    RecordCount {
        split: String,
        info: PathBuf,
        path: PathBuf,
        promised: u64,
        found: u64,
    },
    /// The split's records hold another number of bytes than `numBytes` says.
    NumBytes {
        split: String,
        info: PathBuf,
        promised: u64,
        found: u64,
    },
    /// `dataset_info.json` lists a split of which no shard was found.
    SplitMissing {
        split: String,
        info: PathBuf,
        prefix: String,
    },
    /// A metadata file that cannot be read or parsed.
    Metadata { path: PathBuf, message: String },
    /// A tf.data snapshot's shards hold another number of elements than its
    /// `snapshot.metadata` says.
    SnapshotElements {
        metadata: PathBuf,
        promised: i64,
        found: u64,
    },
    /// A tf.data snapshot's shard holds records that are not whole elements.
    SnapshotPartialElement {
        path: PathBuf,
        records: u64,
        components: u64,
    },
    /// A problem another run found and reported (a part of the dataset verified elsewhere): its
    /// kind, split and words as that report gave them.
    Reported {
        kind: &'static str,
        split: Option<String>,
        text: String,
    },
}

impl Problem {
    /// A stable name for scripts (`--json`).
    pub fn kind(&self) -> &'static str {
        match self {
            Problem::MissingShards { .. } => "missing_shards",
            Problem::DuplicateShard { .. } => "duplicate_shard",
            Problem::TotalsDisagree { .. } => "shard_totals_disagree",
            Problem::NumberPastTotal { .. } => "shard_number_past_total",
            Problem::InfoShardCount { .. } => "shard_count_mismatch",
            Problem::RecordCount { .. } => "record_count_mismatch",
            Problem::NumBytes { .. } => "num_bytes_mismatch",
            Problem::SplitMissing { .. } => "split_missing",
            Problem::Metadata { .. } => "metadata_unreadable",
            Problem::SnapshotElements { .. } => "snapshot_element_count",
            Problem::SnapshotPartialElement { .. } => "snapshot_partial_element",
            Problem::Reported { kind, .. } => kind,
        }
    }

    /// The split it concerns, when it concerns one.
    pub fn split(&self) -> Option<&str> {
        match self {
            Problem::MissingShards { split, .. }
            | Problem::DuplicateShard { split, .. }
            | Problem::TotalsDisagree { split, .. }
            | Problem::NumberPastTotal { split, .. }
            | Problem::InfoShardCount { split, .. }
            | Problem::RecordCount { split, .. }
            | Problem::NumBytes { split, .. }
            | Problem::SplitMissing { split, .. } => Some(split),
            Problem::Reported { split, .. } => split.as_deref(),
            Problem::Metadata { .. }
            | Problem::SnapshotElements { .. }
            | Problem::SnapshotPartialElement { .. } => None,
        }
    }
}

fn paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| path_for_terminal(p))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Missing shards named: `shard 3`, or `shards 3, 5 and 2 more` past the first few named.
fn missing_list(count: u64, first: &[String]) -> String {
    let mut listed = first.join(", ");
    let more = count.saturating_sub(first.len() as u64);
    if more > 0 {
        listed.push_str(&format!(" and {more} more"));
    }
    let noun = if count == 1 { "shard" } else { "shards" };
    format!("{noun} {listed}")
}

/// How many times a shard number appears, in words.
fn times(n: usize) -> String {
    match n {
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

/// The shard counts the names of a split give, each with how many names give it.
fn totals_said(totals: &[(String, usize)]) -> String {
    let says: Vec<String> = totals
        .iter()
        .map(|(total, n)| format!("{n} says {total}"))
        .collect();
    says.join(", ")
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Worded (and escaped) where it was found.
            Problem::Reported { text, .. } => f.write_str(text),
            Problem::Metadata { path, message } => write!(
                f,
                "{}: cannot be read: {}",
                path_for_terminal(path),
                crate::escape::for_terminal(message)
            ),
            Problem::SnapshotElements {
                metadata,
                promised,
                found,
            } => write!(
                f,
                "{} says {promised} elements; the shards hold {found}",
                path_for_terminal(metadata)
            ),
            Problem::SnapshotPartialElement {
                path,
                records,
                components,
            } => write!(
                f,
                "{} holds {}, not whole elements of {components} components (it ends inside one)",
                path_for_terminal(path),
                plural(*records, "record")
            ),
            // The rest concern one split, and lead with its name.
            in_split => {
                if let Some(split) = in_split.split() {
                    write!(f, "{}: ", crate::escape::for_terminal(split))?;
                }
                in_split.fmt_within_split(f)
            }
        }
    }
}

impl Problem {
    /// What is wrong within the split, after its name.
    fn fmt_within_split(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::MissingShards {
                count,
                first,
                total,
                examples,
                ..
            } => write!(
                f,
                "{} of {total} missing ({})",
                missing_list(*count, first),
                paths(examples)
            ),
            Problem::DuplicateShard {
                number,
                paths: found,
                ..
            } => write!(
                f,
                "shard {number} appears {}: {}",
                times(found.len()),
                paths(found)
            ),
            Problem::TotalsDisagree { totals, .. } => write!(
                f,
                "shards disagree on how many there are: {}",
                totals_said(totals)
            ),
            Problem::NumberPastTotal { path, .. } => write!(
                f,
                "{} has a shard number past the count its name gives",
                path_for_terminal(path)
            ),
            Problem::InfoShardCount {
                info,
                listed,
                found,
                ..
            } => write!(
                f,
                "{} found; {} lists {listed}",
                plural(*found, "shard"),
                path_for_terminal(info)
            ),
            Problem::RecordCount {
                info,
                path,
                promised,
                found,
                ..
            } => write!(
                f,
                "{} holds {}; {} says {promised}",
                path_for_terminal(path),
                plural(*found, "record"),
                path_for_terminal(info)
            ),
            Problem::NumBytes {
                info,
                promised,
                found,
                ..
            } => write!(
                f,
                "its records hold {}; {} says numBytes {promised}",
                plural(*found, "byte"),
                path_for_terminal(info)
            ),
            Problem::SplitMissing { info, prefix, .. } => write!(
                f,
                "{} lists it, but no shard of it was found (named {}-NNNNN-of-MMMMM)",
                path_for_terminal(info),
                crate::escape::for_terminal(prefix)
            ),
            // Of no split, or worded already: `fmt` writes them whole.
            Problem::Reported { .. }
            | Problem::Metadata { .. }
            | Problem::SnapshotElements { .. }
            | Problem::SnapshotPartialElement { .. } => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicate(split: &str, paths: &[&str]) -> String {
        Problem::DuplicateShard {
            split: split.to_string(),
            number: "00001".to_string(),
            paths: paths.iter().map(PathBuf::from).collect(),
        }
        .to_string()
    }

    #[test]
    fn a_shard_twice_names_the_split_the_number_and_both_files() {
        assert_eq!(
            duplicate(
                "train",
                &["/d/train-00001-of-00004", "/e/train-00001-of-00004"]
            ),
            "train: shard 00001 appears twice: /d/train-00001-of-00004, /e/train-00001-of-00004"
        );
    }

    #[test]
    fn a_shard_more_than_twice_is_counted() {
        let paths = ["/d/t-1-of-4", "/d/t-01-of-4", "/d/t-001-of-4"];
        assert_eq!(
            duplicate("t", &paths),
            "t: shard 00001 appears 3 times: /d/t-1-of-4, /d/t-01-of-4, /d/t-001-of-4"
        );
    }

    #[test]
    fn a_duplicate_shard_message_escapes_the_split_and_the_paths() {
        assert_eq!(
            duplicate("tr\x1bain", &["/d/a\nb", "/d/c"]),
            "tr\\033ain: shard 00001 appears twice: /d/a\\nb, /d/c"
        );
        let problem = Problem::DuplicateShard {
            split: "train".to_string(),
            number: "00001".to_string(),
            paths: Vec::new(),
        };
        assert_eq!(problem.kind(), "duplicate_shard");
        assert_eq!(problem.split(), Some("train"));
    }
}
