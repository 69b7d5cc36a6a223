//! Shard names: `train.tfrecord-00002-of-01024` is shard 2 of a set of 1024 whose prefix is
//! `train.tfrecord`. Files sharing a directory, a prefix and a suffix form one shard set (a split);
//! a set with a number missing, a number twice, or shards that disagree on how many there are is
//! damaged, whatever the shards themselves hold.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::Problem;
use super::problem::LISTED;

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
    /// The number of shards the names announce, when they agree on one (found once: every
    /// shard's label names it).
    agreed_total: Option<u64>,
}

impl ShardSet {
    /// The number of shards the names announce, when they agree on one.
    pub fn total(&self) -> Option<u64> {
        self.agreed_total
    }

    fn agreed_total(shards: &[Shard]) -> Option<u64> {
        let first = shards.first()?.name.total;
        shards
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
        // How many shards name each total.
        let mut totals: BTreeMap<u64, usize> = BTreeMap::new();
        for shard in &self.shards {
            *totals.entry(shard.name.total).or_default() += 1;
        }
        if totals.len() > 1 {
            problems.push(Problem::TotalsDisagree {
                split: split.to_string(),
                totals: totals
                    .iter()
                    .map(|(total, shards)| (self.number_text(*total), *shards))
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
        // Counted, not listed: one file named `-00000-of-99999999999999` announces a hundred
        // trillion shards. Only the numbers a message names are found, by walking past the
        // numbers present (at most as many steps as there are shards, plus the ones named).
        let present = by_number.range(..total).count() as u64;
        let count = total.saturating_sub(present);
        if count > 0 {
            let first: Vec<u64> = (0..total)
                .filter(|n| !by_number.contains_key(n))
                .take(LISTED)
                .collect();
            problems.push(Problem::MissingShards {
                split: split.to_string(),
                total: self.number_text(total),
                examples: first
                    .iter()
                    .take(3)
                    .map(|n| self.dir.join(self.file_name(*n, total)))
                    .collect(),
                first: first.iter().map(|n| self.number_text(*n)).collect(),
                count,
            });
        }
        problems
    }
}

/// Sorts shard-named files into sets, in the order each set first appears. Sets are found through
/// hash maps keyed by directory, then prefix, then suffix, looked up without copying them, and a
/// file named twice is dropped once its set is sorted, so grouping takes time in proportion to
/// the files however many sets they form.
pub fn group(files: impl IntoIterator<Item = (PathBuf, ShardName)>) -> Vec<ShardSet> {
    type BySuffix = HashMap<String, usize>;
    let mut sets: Vec<ShardSet> = Vec::new();
    let mut by_key: HashMap<PathBuf, HashMap<String, BySuffix>> = HashMap::new();
    for (path, name) in files {
        let dir = path.parent().unwrap_or(Path::new(""));
        let suffix = name.set_suffix();
        let found = by_key
            .get(dir)
            .and_then(|prefixes| prefixes.get(&name.prefix))
            .and_then(|suffixes| suffixes.get(suffix))
            .copied();
        if let Some(set) = found.and_then(|i| sets.get_mut(i)) {
            set.shards.push(Shard { path, name });
            continue;
        }
        let (dir, suffix) = (dir.to_path_buf(), suffix.to_string());
        by_key
            .entry(dir.clone())
            .or_default()
            .entry(name.prefix.clone())
            .or_default()
            .insert(suffix.clone(), sets.len());
        sets.push(ShardSet {
            dir,
            prefix: name.prefix.clone(),
            suffix,
            shards: vec![Shard { path, name }],
            agreed_total: None,
        });
    }
    for set in &mut sets {
        set.shards
            .sort_by(|a, b| (a.name.number, &a.path).cmp(&(b.name.number, &b.path)));
        // The same path twice sorts side by side.
        set.shards.dedup_by(|a, b| a.path == b.path);
        set.agreed_total = ShardSet::agreed_total(&set.shards);
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
    fn missing_shards_are_counted_not_listed() {
        // One file announcing a hundred trillion shards: the missing ones are counted, and only
        // those named are written out.
        let problems = set(&["train-00003-of-99999999999999"]).problems("train");
        assert_eq!(problems.len(), 1);
        let Problem::MissingShards { count, first, .. } = &problems[0] else {
            panic!("{problems:?}");
        };
        assert_eq!(*count, 99_999_999_999_998);
        assert_eq!(first.len(), LISTED);
        assert_eq!(first[..4], ["00000", "00001", "00002", "00004"]);
        assert_eq!(
            problems[0].to_string(),
            "train: shards 00000, 00001, 00002, 00004, 00005, 00006, 00007, 00008, 00009, 00010 \
             and 99999999999988 more of 99999999999999 missing (/data/train-00000-of-99999999999999, \
             /data/train-00001-of-99999999999999, /data/train-00002-of-99999999999999)"
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
