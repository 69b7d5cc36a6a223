//! What tensorflow-datasets writes beside its shards in `dataset_info.json`: the dataset's name,
//! file format, and per split the file name template, the record count of every shard
//! (`shardLengths`) and the bytes of all its serialized records (`numBytes`). Those promises are
//! checked against what the shards hold.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Problem;
use crate::sidefile;

/// The file tensorflow-datasets writes its dataset description to.
pub const INFO_FILE: &str = "dataset_info.json";

/// One split as `dataset_info.json` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitInfo {
    pub name: String,
    /// What the shards' file names start with, before `-NNNNN-of-MMMMM`.
    pub file_prefix: Option<String>,
    /// Records in each shard, in shard order.
    pub shard_lengths: Vec<u64>,
    /// The bytes of the split's serialized records (payloads, without framing).
    pub num_bytes: Option<u64>,
}

/// The parts of `dataset_info.json` that can be checked against shards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetInfo {
    pub path: PathBuf,
    pub name: Option<String>,
    pub file_format: Option<String>,
    pub splits: Vec<SplitInfo>,
}

/// What a JSON value is, for a message about one of the wrong type.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A JSON number, or a number in a string as protobuf's JSON writes int64.
fn number(value: &Value) -> Option<u64> {
    match value {
        Value::String(s) => s.parse().ok(),
        other => other.as_u64(),
    }
}

impl DatasetInfo {
    /// Reads `dir/dataset_info.json`: `None` when there is none, a problem when it cannot be read
    /// or is not the JSON tensorflow-datasets writes.
    ///
    /// Only a regular file is read, and only up to [`sidefile::METADATA_LIMIT`] bytes.
    pub fn load(dir: &Path) -> Option<Result<DatasetInfo, Problem>> {
        let path = dir.join(INFO_FILE);
        let problem = |message: String| Problem::Metadata {
            path: path.clone(),
            message,
        };
        let text = match sidefile::read_if_there(&path, sidefile::METADATA_LIMIT)? {
            Ok(side) => side.bytes,
            Err(why) => return Some(Err(problem(why.to_string()))),
        };
        Some(DatasetInfo::parse(&path, &text).map_err(problem))
    }

    /// Parses the bytes of a `dataset_info.json` found at `path`.
    pub fn parse(path: &Path, text: &[u8]) -> Result<DatasetInfo, String> {
        let json: Value = serde_json::from_slice(text).map_err(|e| e.to_string())?;
        let string = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(String::from);
        let name = string(&json, "name");
        let file_format = string(&json, "fileFormat");
        // A member of the wrong type is an error, not a promise of nothing.
        let splits = match json.get("splits") {
            None => &[][..],
            Some(Value::Array(splits)) => splits.as_slice(),
            Some(other) => return Err(format!("splits is {}, not a list", json_kind(other))),
        };
        let mut parsed = Vec::new();
        for split in splits {
            let Some(split_name) = string(split, "name") else {
                return Err("a split without a name".into());
            };
            let template = string(split, "filepathTemplate")
                .unwrap_or_else(|| "{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}".into());
            let file_prefix = template.strip_suffix("-{SHARD_X_OF_Y}").map(|t| {
                t.replace("{DATASET}", name.as_deref().unwrap_or_default())
                    .replace("{SPLIT}", &split_name)
                    .replace("{FILEFORMAT}", file_format.as_deref().unwrap_or("tfrecord"))
            });
            let shown = crate::escape::for_terminal(&split_name);
            let shard_lengths = match split.get("shardLengths") {
                Some(Value::Array(lengths)) => lengths
                    .iter()
                    .map(number)
                    .collect::<Option<Vec<u64>>>()
                    .ok_or_else(|| format!("split {shown}: shardLengths holds a non-number"))?,
                Some(other) => {
                    return Err(format!(
                        "split {shown}: shardLengths is {}, not a list",
                        json_kind(other)
                    ));
                }
                None => Vec::new(),
            };
            let num_bytes = match split.get("numBytes") {
                Some(value) => Some(number(value).ok_or_else(|| {
                    format!(
                        "split {shown}: numBytes is {}, not a number of bytes",
                        json_kind(value)
                    )
                })?),
                None => None,
            };
            parsed.push(SplitInfo {
                name: split_name,
                file_prefix,
                shard_lengths,
                num_bytes,
            });
        }
        Ok(DatasetInfo {
            path: path.to_path_buf(),
            name,
            file_format,
            splits: parsed,
        })
    }

    /// The split whose shards are named `prefix-NNNNN-of-MMMMM`.
    pub fn split_for_prefix(&self, prefix: &str) -> Option<&SplitInfo> {
        self.splits
            .iter()
            .find(|s| s.file_prefix.as_deref() == Some(prefix))
    }
}

/// What one shard of a split holds, as counted by reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardCount {
    pub path: PathBuf,
    /// The shard's number in its set.
    pub number: u64,
    /// Intact records.
    pub records: u64,
    /// Bytes of the intact records' payloads.
    pub payload_bytes: u64,
}

impl SplitInfo {
    /// Checks the counted shards of this split against what `info_path` promised for it;
    /// `unread` more shards were found but could not be read (and so are not counted).
    pub fn check(&self, info_path: &Path, shards: &[ShardCount], unread: u64) -> Vec<Problem> {
        let mut problems = Vec::new();
        let info = || info_path.to_path_buf();
        let found = (shards.len() as u64).saturating_add(unread);
        if !self.shard_lengths.is_empty() {
            let listed = self.shard_lengths.len() as u64;
            if found != listed {
                problems.push(Problem::InfoShardCount {
                    split: self.name.clone(),
                    info: info(),
                    listed,
                    found,
                });
            }
            for shard in shards {
                let promised = usize::try_from(shard.number)
                    .ok()
                    .and_then(|n| self.shard_lengths.get(n));
                if let Some(&promised) = promised.filter(|p| **p != shard.records) {
                    problems.push(Problem::RecordCount {
                        split: self.name.clone(),
                        info: info(),
                        path: shard.path.clone(),
                        promised,
                        found: shard.records,
                    });
                }
            }
        }
        // The byte total only means something when every shard is there and was read.
        let complete = unread == 0
            && (self.shard_lengths.is_empty() || found == self.shard_lengths.len() as u64);
        if let Some(promised) = self.num_bytes.filter(|_| complete) {
            let found: u64 = shards.iter().map(|s| s.payload_bytes).sum();
            if found != promised {
                problems.push(Problem::NumBytes {
                    split: self.name.clone(),
                    info: info(),
                    promised,
                    found,
                });
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INFO: &str = r#"{
      "name": "toy", "fileFormat": "tfrecord",
      "splits": [
        {"filepathTemplate": "{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}", "name": "train",
         "numBytes": "300", "shardLengths": ["2", "1"]},
        {"name": "test", "shardLengths": [4]}
      ]}"#;

    fn count(number: u64, records: u64, payload_bytes: u64) -> ShardCount {
        ShardCount {
            path: PathBuf::from(format!("/d/toy-train.tfrecord-0000{number}-of-00002")),
            number,
            records,
            payload_bytes,
        }
    }

    #[test]
    fn splits_parse_with_their_prefix_lengths_and_bytes() {
        let info = DatasetInfo::parse(Path::new("/d/dataset_info.json"), INFO.as_bytes()).unwrap();
        assert_eq!(info.splits.len(), 2);
        let train = info.split_for_prefix("toy-train.tfrecord").unwrap();
        assert_eq!(train.shard_lengths, vec![2, 1]);
        assert_eq!(train.num_bytes, Some(300));
        assert_eq!(
            info.split_for_prefix("toy-test.tfrecord")
                .unwrap()
                .shard_lengths,
            vec![4]
        );
        assert!(DatasetInfo::parse(Path::new("x"), b"{\"splits\": [{}]}").is_err());
        assert!(DatasetInfo::parse(Path::new("x"), b"not json").is_err());
    }

    #[test]
    fn members_of_the_wrong_type_are_errors() {
        let error = |json: &str| DatasetInfo::parse(Path::new("x"), json.as_bytes()).err();
        assert_eq!(
            error(r#"{"splits": {"train": {}}}"#).as_deref(),
            Some("splits is an object, not a list")
        );
        assert_eq!(
            error(r#"{"splits": [{"name": "train", "shardLengths": null}]}"#).as_deref(),
            Some("split train: shardLengths is null, not a list")
        );
        assert_eq!(
            error(r#"{"splits": [{"name": "t\u001b]2;x\u0007", "numBytes": [1]}]}"#).as_deref(),
            Some("split t\\033]2;x\\007: numBytes is a list, not a number of bytes")
        );
        assert!(error(r#"{"splits": [{"name": "train", "numBytes": "12"}]}"#).is_none());
    }

    #[test]
    fn counts_and_bytes_are_checked_against_the_promise() {
        let info = DatasetInfo::parse(Path::new("/d/dataset_info.json"), INFO.as_bytes()).unwrap();
        let train = &info.splits[0];
        let path = Path::new("/d/dataset_info.json");
        assert!(
            train
                .check(path, &[count(0, 2, 200), count(1, 1, 100)], 0)
                .is_empty()
        );
        let problems = train.check(path, &[count(0, 2, 200), count(1, 0, 0)], 0);
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            text,
            vec![
                "train: /d/toy-train.tfrecord-00001-of-00002 holds 0 records; /d/dataset_info.json says 1",
                "train: its records hold 200 bytes; /d/dataset_info.json says numBytes 300",
            ]
        );
        let problems = train.check(path, &[count(0, 2, 200)], 0);
        assert_eq!(
            problems[0].to_string(),
            "train: 1 shard found; /d/dataset_info.json lists 2"
        );
        assert_eq!(problems.len(), 1);
        // A shard found but not read is neither missing nor short of bytes: it is unknown.
        assert!(train.check(path, &[count(0, 2, 200)], 1).is_empty());
    }
}
