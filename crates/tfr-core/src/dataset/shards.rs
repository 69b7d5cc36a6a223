//! Shard names: `train.tfrecord-00002-of-01024` is shard 2 of a set of 1024 whose prefix is
//! `train.tfrecord`. Files sharing a directory, a prefix and a suffix form one shard set (a split);
//! a set with a number missing, a number twice, or shards that disagree on how many there are is
//! damaged, whatever the shards themselves hold.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Problem;

/// Compression suffixes that do not make another set: `train-00000-of-00002.gz` is shard 0 of the
/// same set as `train-00001-of-00002`.
const COMPRESSION_SUFFIXES: [&str; 4] = [".gz", ".gzip", ".zz", ".zlib"];

/// The `NNNNN-of-MMMMM` part of a shard's file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardName {
    /// What comes before `-NNNNN-of-MMMMM`.
    pub prefix: String,
    pub number: u64,
    pub total: u64,
    /// The digits of the number as written (`00002`), for messages.
    pub number_text: String,
    /// What follows `MMMMM` (often nothing; `.tfrecord`, `.gz`).
    pub suffix: String,
}

impl ShardName {
    /// Parses the last `-DIGITS-of-DIGITS` in `name` (a file name, not a path).
    pub fn parse(name: &str) -> Option<ShardName> {
        let mut search = name.len();
        while let Some(at) = name.get(..search)?.rfind("-of-") {
            if let Some(shard) = ShardName::parse_at(name, at) {
                return Some(shard);
            }
            search = at;
        }
        None
    }

    /// Parses `name` around the `-of-` at byte `at`.
    fn parse_at(name: &str, at: usize) -> Option<ShardName> {
        let before = name.get(..at)?;
        let number_start = before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let number_text = before.get(number_start..)?;
        let prefix = before.get(..number_start)?.strip_suffix('-')?;
        let after = name.get(at + "-of-".len()..)?;
        let total_len = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let total_text = after.get(..total_len)?;
        if number_text.is_empty() || total_text.is_empty() || prefix.is_empty() {
            return None;
        }
        Some(ShardName {
            prefix: prefix.to_string(),
            number: number_text.parse().ok()?,
            total: total_text.parse().ok()?,
            number_text: number_text.to_string(),
            suffix: after.get(total_len..)?.to_string(),
        })
    }

    /// The suffix without a compression extension: what decides the set.
    fn set_suffix(&self) -> &str {
        COMPRESSION_SUFFIXES
            .iter()
            .find_map(|ext| self.suffix.strip_suffix(ext))
            .unwrap_or(&self.suffix)
    }
}

/// One file of a shard set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    pub path: PathBuf,
    pub name: ShardName,
}

/// Shards that belong together: the same directory, prefix and suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardSet {
    pub dir: PathBuf,
    pub prefix: String,
    pub suffix: String,
    /// Ordered by shard number (then by path, for duplicates).
    pub shards: Vec<Shard>,
}

impl ShardSet {
    /// The number of shards the names announce, when they agree on one.
    pub fn total(&self) -> Option<u64> {
        let first = self.shards.first()?.name.total;
        self.shards
            .iter()
            .all(|s| s.name.total == first)
            .then_some(first)
    }

    /// Width of the shard numbers as written, for naming missing ones alike.
    fn width(&self) -> usize {
        self.shards.first().map_or(5, |s| s.name.number_text.len())
    }

    /// A shard number written as the set writes them (`00002`).
    pub fn number_text(&self, number: u64) -> String {
        format!("{number:0width$}", width = self.width())
    }

    /// The file name shard `number` of `total` would have.
    fn file_name(&self, number: u64, total: u64) -> String {
        format!(
            "{}-{}-of-{}{}",
            self.prefix,
            self.number_text(number),
            self.number_text(total),
            self.suffix
        )
    }

    /// The damage in the set's names: numbers missing or twice, totals that disagree, numbers
    /// past the total. `split` names the set in messages.
    pub fn problems(&self, split: &str) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut totals: BTreeMap<u64, Vec<PathBuf>> = BTreeMap::new();
        for shard in &self.shards {
            totals
                .entry(shard.name.total)
                .or_default()
                .push(shard.path.clone());
        }
        if totals.len() > 1 {
            problems.push(Problem::TotalsDisagree {
                split: split.to_string(),
                totals: totals
                    .iter()
                    .map(|(total, paths)| (self.number_text(*total), paths.len()))
                    .collect(),
            });
        }
        let mut by_number: BTreeMap<u64, Vec<&Shard>> = BTreeMap::new();
        for shard in &self.shards {
            by_number.entry(shard.name.number).or_default().push(shard);
        }
        for (number, shards) in &by_number {
            if shards.len() > 1 {
                problems.push(Problem::DuplicateShard {
                    split: split.to_string(),
                    number: self.number_text(*number),
                    paths: shards.iter().map(|s| s.path.clone()).collect(),
                });
            }
        }
        // With disagreeing totals, the largest one decides which numbers should exist.
        let total = totals.keys().next_back().copied().unwrap_or(0);
        for shard in &self.shards {
            if shard.name.number >= shard.name.total {
                problems.push(Problem::NumberPastTotal {
                    split: split.to_string(),
                    path: shard.path.clone(),
                });
            }
        }
        let missing: Vec<u64> = (0..total).filter(|n| !by_number.contains_key(n)).collect();
        if !missing.is_empty() {
            problems.push(Problem::MissingShards {
                split: split.to_string(),
                total: self.number_text(total),
                examples: missing
                    .iter()
                    .take(3)
                    .map(|n| self.dir.join(self.file_name(*n, total)))
                    .collect(),
                numbers: missing.iter().map(|n| self.number_text(*n)).collect(),
            });
        }
        problems
    }
}

/// Sorts shard-named files into sets, in the order each set first appears.
pub fn group(files: impl IntoIterator<Item = (PathBuf, ShardName)>) -> Vec<ShardSet> {
    let mut sets: Vec<ShardSet> = Vec::new();
    for (path, name) in files {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let suffix = name.set_suffix().to_string();
        let shard = Shard { path, name };
        match sets
            .iter_mut()
            .find(|s| s.dir == dir && s.prefix == shard.name.prefix && s.suffix == suffix)
        {
            Some(set) => {
                if !set.shards.iter().any(|s| s.path == shard.path) {
                    set.shards.push(shard);
                }
            }
            None => sets.push(ShardSet {
                dir,
                prefix: shard.name.prefix.clone(),
                suffix,
                shards: vec![shard],
            }),
        }
    }
    for set in &mut sets {
        set.shards
            .sort_by(|a, b| (a.name.number, &a.path).cmp(&(b.name.number, &b.path)));
    }
    sets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> ShardSet {
        let files = names.iter().map(|n| {
            let path = PathBuf::from("/data").join(n);
            (path, ShardName::parse(n).unwrap())
        });
        let mut sets = group(files);
        assert_eq!(sets.len(), 1);
        sets.remove(0)
    }

    #[test]
    fn names_parse_with_prefix_numbers_and_suffix() {
        let s = ShardName::parse("toy_parcels-train.tfrecord-00001-of-00002").unwrap();
        assert_eq!(
            (s.prefix.as_str(), s.number, s.total, s.suffix.as_str()),
            ("toy_parcels-train.tfrecord", 1, 2, "")
        );
        let s = ShardName::parse("train-00007-of-01024.tfrecord.gz").unwrap();
        assert_eq!((s.prefix.as_str(), s.number, s.total), ("train", 7, 1024));
        assert_eq!(s.suffix, ".tfrecord.gz");
        // The last `-N-of-M` counts; a name without one is no shard.
        let s = ShardName::parse("a-1-of-2-b-00003-of-00004").unwrap();
        assert_eq!((s.prefix.as_str(), s.number), ("a-1-of-2-b", 3));
        for name in [
            "train.tfrecord",
            "x-of-2",
            "-00001-of-00002",
            "a-1-of-",
            "a-of-of-1",
        ] {
            assert_eq!(ShardName::parse(name), None, "{name}");
        }
    }

    #[test]
    fn sets_group_by_directory_prefix_and_suffix_and_sort_by_number() {
        let files = [
            "/d/train-00001-of-00002",
            "/d/test-00000-of-00001",
            "/d/train-00000-of-00002.gz",
            "/e/train-00000-of-00002",
        ]
        .map(|p| {
            let path = PathBuf::from(p);
            let name = ShardName::parse(path.file_name().unwrap().to_str().unwrap()).unwrap();
            (path, name)
        });
        let sets = group(files);
        assert_eq!(sets.len(), 3);
        let numbers: Vec<u64> = sets[0].shards.iter().map(|s| s.name.number).collect();
        assert_eq!(numbers, vec![0, 1]);
        assert_eq!(sets[0].total(), Some(2));
        assert!(sets[0].problems("train").is_empty());
        assert_eq!(sets[2].dir, PathBuf::from("/e"));
    }

    #[test]
    fn a_missing_number_is_named_with_the_file_it_should_be() {
        let problems = set(&["t-00000-of-00004", "t-00002-of-00004"]).problems("t");
        assert_eq!(problems.len(), 1);
        assert_eq!(
            problems[0].to_string(),
            "t: shards 00001, 00003 of 00004 missing (/data/t-00001-of-00004, /data/t-00003-of-00004)"
        );
    }

    #[test]
    fn duplicates_disagreeing_totals_and_numbers_past_the_total_are_damage() {
        let problems = set(&["t-0-of-2", "t-00000-of-00002", "t-00001-of-00002"]).problems("t");
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            text,
            vec!["t: shard 0 appears twice: /data/t-0-of-2, /data/t-00000-of-00002"],
            "{text:?}"
        );
        let problems = set(&["t-00000-of-00002", "t-00001-of-00003"]).problems("t");
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            text,
            vec![
                "t: shards disagree on how many there are: 1 says 00002, 1 says 00003",
                "t: shard 00002 of 00003 missing (/data/t-00002-of-00003)"
            ]
        );
        let problems = set(&["t-00000-of-00001", "t-00002-of-00001"]).problems("t");
        assert_eq!(
            problems[0].to_string(),
            "t: /data/t-00002-of-00001 has a shard number past the count its name gives"
        );
    }
}
