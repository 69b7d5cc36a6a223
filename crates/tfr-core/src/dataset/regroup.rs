//! A dataset rebuilt from its members' paths alone, without reading anything: the files are put
//! into shard sets by their names, the sets named and their names' damage found, and the members
//! ordered, as [`Dataset::resolve`] does for the same files found in that order. Merging the
//! partial statistics of shards made on other machines rebuilds the dataset they are parts of
//! this way (the metadata read where each part was made is recorded with it, so a split keeps the
//! name its `dataset_info.json` gave it).

use std::path::{Path, PathBuf};

use super::shards::{self, ShardName};
use super::{Dataset, Split, derived_name};
use crate::escape::Untrusted;

impl Dataset {
    /// The dataset `files` form by their names, in that order: `split_name` gives the name a
    /// split was known by where a shard of it was summarised (its shard's path given); a split
    /// none names is named from its prefix, as when no metadata is beside it.
    pub fn regroup(files: Vec<PathBuf>, split_name: &dyn Fn(&Path) -> Option<String>) -> Dataset {
        let mut dataset = Dataset::default();
        let named: Vec<(PathBuf, ShardName)> = files
            .iter()
            .filter_map(|p| {
                let name = p.file_name()?.to_str()?;
                Some((p.clone(), ShardName::parse(name)?))
            })
            .collect();
        for set in shards::group(named) {
            let name = set
                .shards
                .iter()
                .find_map(|shard| split_name(&shard.path))
                .unwrap_or_else(|| derived_name(&set.prefix, None));
            dataset.splits.push(Split {
                name: Untrusted::new(name),
                set,
                info: None,
            });
        }
        dataset.disambiguate_names();
        for split in &dataset.splits {
            dataset
                .problems
                .extend(split.set.problems(split.name.raw()));
        }
        let members = dataset.placed(&files);
        dataset.member_snapshot = vec![None; members.len()];
        dataset.is_dataset = !members.is_empty() && !dataset.splits.is_empty();
        dataset.members = members;
        dataset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_regroup_into_the_splits_their_names_give() {
        let files: Vec<PathBuf> = [
            "d/a.tfrecord",
            "d/train-00001-of-00003.tfrecord",
            "d/test-00000-of-00001.tfrecord",
            "d/train-00000-of-00003.tfrecord",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let names = |p: &Path| {
            p.to_str()
                .filter(|p| p.contains("test"))
                .map(|_| "held out".to_string())
        };
        let dataset = Dataset::regroup(files, &names);
        let splits: Vec<&str> = dataset.splits.iter().map(|s| s.name.raw()).collect();
        assert_eq!(splits, ["train", "held out"]);
        let members: Vec<(&str, Option<(usize, u64)>)> = dataset
            .members
            .iter()
            .map(|m| (m.path.to_str().unwrap_or_default(), m.shard))
            .collect();
        assert_eq!(
            members,
            [
                ("d/a.tfrecord", None),
                ("d/train-00000-of-00003.tfrecord", Some((0, 0))),
                ("d/train-00001-of-00003.tfrecord", Some((0, 1))),
                ("d/test-00000-of-00001.tfrecord", Some((1, 0))),
            ]
        );
        // Shard 2 of train is missing: found from the names, as resolving finds it.
        assert_eq!(dataset.problems.len(), 1, "{:?}", dataset.problems);
        assert!(dataset.problems[0].to_string().contains("00002"));
    }
}
