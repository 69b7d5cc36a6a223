//! Resolving arguments into a dataset, on a copy of a tensorflow-datasets build.

use std::path::Path;

use super::numbering::Numbering;
use super::report::SkippedLines;
use super::*;

fn record(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    crate::frame::write_record(payload, &mut out).unwrap();
    out
}

const INFO: &str = r#"{"name": "toy", "fileFormat": "tfrecord", "splits": [
  {"name": "train", "numBytes": "9", "shardLengths": ["2", "1"]},
  {"name": "test", "numBytes": "3", "shardLengths": ["1"]}]}"#;

/// A tfds-like directory: `toy-train.tfrecord-0000N-of-00002`, `toy-test…-00000-of-00001`,
/// `dataset_info.json` and a labels file.
fn toy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes).unwrap();
    write(
        "toy-train.tfrecord-00000-of-00002",
        &[record(b"abc"), record(b"def")].concat(),
    );
    write("toy-train.tfrecord-00001-of-00002", &record(b"ghi"));
    write("toy-test.tfrecord-00000-of-00001", &record(b"jkl"));
    write("dataset_info.json", INFO.as_bytes());
    write("label.labels.txt", b"small\nlarge\n");
    dir
}

fn names(dataset: &Dataset, root: &Path) -> Vec<String> {
    dataset
        .members
        .iter()
        .map(|m| m.path.strip_prefix(root).unwrap().display().to_string())
        .collect()
}

#[test]
fn a_directory_becomes_splits_with_their_metadata_and_skips_the_rest() {
    let dir = toy();
    let dataset = Dataset::resolve(&[dir.path().to_path_buf()]);
    assert!(dataset.is_dataset && dataset.errors.is_empty());
    assert_eq!(
        names(&dataset, dir.path()),
        [
            "toy-test.tfrecord-00000-of-00001",
            "toy-train.tfrecord-00000-of-00002",
            "toy-train.tfrecord-00001-of-00002"
        ]
    );
    let splits: Vec<&str> = dataset.splits.iter().map(|s| s.name.raw()).collect();
    assert_eq!(splits, ["test", "train"]);
    assert!(dataset.splits.iter().all(|s| s.info.is_some()));
    let skipped: Vec<&str> = dataset
        .skipped
        .iter()
        .filter_map(|s| s.path.file_name()?.to_str())
        .collect();
    assert_eq!(skipped, ["dataset_info.json", "label.labels.txt"]);
    assert!(dataset.problems.is_empty(), "{:?}", dataset.problems);
}

#[test]
fn counts_are_checked_and_numbers_run_across_shards() {
    let dir = toy();
    let dataset = Dataset::resolve(&[dir.path().to_path_buf()]);
    let counts = |records: [u64; 3]| -> Vec<Option<ShardCount>> {
        dataset
            .members
            .iter()
            .zip(records)
            .map(|(m, records)| {
                Some(ShardCount {
                    path: m.path.clone(),
                    number: m.shard.unwrap().1,
                    records,
                    payload_bytes: records * 3,
                })
            })
            .collect()
    };
    assert!(dataset.check_counts(&counts([1, 2, 1])).is_empty());
    let problems = dataset.check_counts(&counts([1, 2, 0]));
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].kind(), "record_count_mismatch");
    assert!(
        problems[0]
            .to_string()
            .contains("toy-train.tfrecord-00001-of-00002 holds 0 records")
    );

    let numbering = Numbering::new(&dataset, &[1, 2, 1]);
    assert_eq!(numbering.global(2, 0), Some((1, 2)));
    assert_eq!(numbering.locate(1, 2), Some((2, 0)));
    assert_eq!(numbering.locate(1, 3), None);
    assert_eq!(
        numbering.describe(&dataset, 2, 0).unwrap(),
        "train record 2 = shard 00001 record 0"
    );
}

#[test]
fn a_deleted_shard_and_a_deleted_split_are_named() {
    let dir = toy();
    std::fs::remove_file(dir.path().join("toy-train.tfrecord-00001-of-00002")).unwrap();
    std::fs::remove_file(dir.path().join("toy-test.tfrecord-00000-of-00001")).unwrap();
    let dataset = Dataset::resolve(&[dir.path().to_path_buf()]);
    let text: Vec<String> = dataset.problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(
        text[0].starts_with("train: shard 00001 of 00002 missing ("),
        "{text:?}"
    );
    assert!(text[1].starts_with("test: ") && text[1].contains("no shard of it was found"));
}

#[test]
fn one_file_named_alone_is_taken_as_it_is() {
    let dir = toy();
    let info = dir.path().join("dataset_info.json");
    let dataset = Dataset::resolve(std::slice::from_ref(&info));
    assert_eq!(
        dataset.members,
        vec![Member {
            path: info,
            shard: None
        }]
    );
    assert!(!dataset.is_dataset);
    // Among several, it is set aside.
    let both = [
        dir.path().join("dataset_info.json"),
        dir.path().join("toy-test.tfrecord-00000-of-00001"),
    ];
    let dataset = Dataset::resolve(&both);
    assert_eq!(dataset.members.len(), 1);
    assert_eq!(dataset.skipped.len(), 1);
}

#[test]
fn a_pattern_that_matches_nothing_is_an_error() {
    let dir = toy();
    let dataset = Dataset::resolve(&[dir.path().join("*.nothing")]);
    assert!(dataset.members.is_empty());
    assert_eq!(dataset.errors.len(), 1);
    assert!(dataset.errors[0].ends_with("*.nothing: pattern matched nothing"));
    let dataset = Dataset::resolve(&[dir.path().join("toy-{train,test}.tfrecord-0000[0-9]-*")]);
    assert_eq!(dataset.members.len(), 3);
}

#[test]
fn split_names_come_from_the_prefix_without_metadata() {
    assert_eq!(derived_name("toy_parcels-train.tfrecord", None), "train");
    assert_eq!(
        derived_name("toy_parcels-train.tfrecord", Some("toy_parcels")),
        "train"
    );
    assert_eq!(derived_name("train", None), "train");
    assert_eq!(
        derived_name("detection_train.record", None),
        "detection_train"
    );
}

#[test]
fn a_directory_without_tfrecord_files_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"hello").unwrap();
    let dataset = Dataset::resolve(&[dir.path().to_path_buf()]);
    assert!(dataset.members.is_empty());
    assert_eq!(dataset.errors.len(), 1);
    assert!(dataset.errors[0].ends_with("is a directory with no TFRecord file in it"));
}

#[test]
fn two_hundred_thousand_shards_group_in_one_pass() {
    // Sizes at which the grouping this replaced (each file compared with every set and every
    // shard before it, each split's totals summed over every member) would make 10^10
    // comparisons: hours, where one pass over hash maps takes well under a second. Nothing is
    // timed here; a regression shows as a test that does not end.
    let root = Path::new("/nonexistent-dataset-root");
    let n = 100_000;
    let mut files: Vec<PathBuf> = (0..n)
        .map(|i| root.join(format!("train-{i:06}-of-{n:06}")))
        .collect();
    // As many sets of one shard each, each in a directory of its own.
    files.extend((0..n).map(|i| root.join(format!("d{i}/s{i}-00000-of-00001"))));
    // A file named twice is one member.
    files.push(root.join("train-000007-of-100000"));
    let mut dataset = Dataset::default();
    dataset.group(files, &[]);
    assert_eq!(dataset.splits.len(), n + 1);
    assert_eq!(dataset.members.len(), 2 * n);
    assert!(
        dataset.problems.is_empty(),
        "{:?}",
        dataset.problems.first()
    );
    let train = &dataset.splits[0];
    assert_eq!(
        (train.name.raw(), train.set.total()),
        ("train", Some(n as u64))
    );
    let tally = Tally {
        frames: 2,
        intact: 2,
        damaged: 0,
        payload_bytes: 10,
        compression: None,
    };
    let tallies = vec![Some(tally); dataset.members.len()];
    let summary = Summary::new(&dataset, &tallies);
    assert!(summary.ok());
    let mut text = Vec::new();
    summary
        .report()
        .write_text(&mut text, SkippedLines::Omitted)
        .unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.starts_with("train: 100000 shards, 200000 frames, 200000 intact, 0 damaged"),
        "{}",
        text.lines().next().unwrap_or_default()
    );
}

#[test]
fn the_summary_report_prints_as_text_and_json_from_the_same_counts() {
    let root = Path::new("/nonexistent-dataset-root");
    let mut dataset = Dataset::default();
    dataset.group(
        vec![
            root.join("train-00000-of-00002"),
            root.join("train-00001-of-00002"),
            root.join("loose.tfrecord"),
        ],
        &[],
    );
    let tally = |frames: u64, damaged: u64| Tally {
        frames,
        intact: frames - damaged,
        damaged,
        payload_bytes: 10 * (frames - damaged),
        compression: None,
    };
    // The second shard could not be read.
    let tallies = vec![Some(tally(3, 1)), None, Some(tally(2, 0))];
    let report = Summary::new(&dataset, &tallies).report();
    let json = crate::pyjson::to_string(&report).unwrap();
    assert_eq!(
        json,
        r#"{"dataset": {"not_read": 1, "ok": false, "problems": [], "skipped": [], "snapshots": [], "splits": [{"damaged": 1, "dataset_info": null, "files": 2, "frames": 3, "intact": 2, "name": "train", "payload_bytes": 20, "shards_named": 2, "unreadable": 1}, {"damaged": 0, "files": 1, "frames": 2, "intact": 2, "name": "other files", "payload_bytes": 20, "unreadable": 0}], "verdict": "damaged"}}"#
    );
    let mut text = Vec::new();
    report.write_text(&mut text, SkippedLines::Listed).unwrap();
    assert_eq!(
        String::from_utf8(text).unwrap(),
        "train: 2 shards, 3 frames, 2 intact, 1 damaged, 20 bytes of records, 1 unreadable\n\
         other files: 1 file, 2 frames, 2 intact, 0 damaged, 20 bytes of records\n\
         dataset: DAMAGED: 1 split, 3 files, 5 frames, 1 damaged, 0 dataset problems; \
         1 input not read (named on standard error)\n"
    );
}

/// Counts the members of `dataset` from what their files hold, noting which were counted.
fn count_files(
    dataset: &Dataset,
    asked: &std::cell::RefCell<Vec<usize>>,
) -> impl FnMut(usize) -> Result<numbering::Counted, String> {
    move |member| {
        asked.borrow_mut().push(member);
        let path = &dataset.members[member].path;
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let index = crate::frame::FrameIndex::build(&bytes[..]);
        Ok(numbering::Counted::of_index(&index, &bytes[..]))
    }
}

#[test]
fn a_split_wide_number_finds_its_shard_counting_only_the_shards_it_needs() {
    use crate::record_number::SplitNumber;
    use numbering::{NumberError, find};
    let dir = toy();
    let dataset = Dataset::resolve(&[dir.path().to_path_buf()]);
    let asked = std::cell::RefCell::new(Vec::new());
    let wanted = |text: &str| SplitNumber::parse(text).unwrap();
    let found = find(&dataset, &wanted("train:2"), count_files(&dataset, &asked)).unwrap();
    assert_eq!((found.member, found.record, found.number), (2, 0, 2));
    assert_eq!(found.place, "train record 2 = shard 00001 record 0");
    assert_eq!(found.across, None);
    // Record 1 is in the first shard: the second is not read.
    asked.borrow_mut().clear();
    let found = find(&dataset, &wanted("train:1"), count_files(&dataset, &asked)).unwrap();
    assert_eq!((found.member, found.record), (1, 1));
    assert_eq!(*asked.borrow(), [1]);
    // From the end: every shard of the split, and only of it.
    asked.borrow_mut().clear();
    let found = find(&dataset, &wanted("train:-3"), count_files(&dataset, &asked)).unwrap();
    assert_eq!((found.member, found.record, found.number), (1, 0, 0));
    assert_eq!(*asked.borrow(), [1, 2]);
    let counting = || count_files(&dataset, &asked);
    assert_eq!(
        find(&dataset, &wanted("train:3"), counting())
            .unwrap_err()
            .to_string(),
        "train has 3 records; there is no record 3"
    );
    assert_eq!(
        find(&dataset, &wanted("train:-4"), counting())
            .unwrap_err()
            .to_string(),
        "train has 3 records; there is no record -4"
    );
    assert_eq!(
        find(&dataset, &wanted("validation:0"), counting())
            .unwrap_err()
            .to_string(),
        "no split \"validation\"; the splits are test, train"
    );
    let alone = Dataset::resolve(&[dir.path().join("toy-train.tfrecord-00001-of-00002")]);
    // A shard named alone is its split's shard 00001: shard 00000 is not there to count.
    let err = find(&alone, &wanted("train:0"), count_files(&alone, &asked)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "train shard 00000 of 00002 is missing: split-wide numbers need each of the split's shards once"
    );
    let plain = dir.path().join("plain.tfrecord");
    std::fs::write(&plain, record(b"abc")).unwrap();
    let plain = Dataset::resolve(&[plain]);
    assert!(matches!(
        find(&plain, &wanted("train:0"), count_files(&plain, &asked)),
        Err(NumberError::NoSplits)
    ));
}

#[test]
fn a_frame_that_cannot_be_delimited_is_named_when_a_number_counts_across_it() {
    use crate::record_number::SplitNumber;
    use numbering::find;
    let dir = toy();
    // The first train shard's second frame gets a wrong length CRC.
    let first = dir.path().join("toy-train.tfrecord-00000-of-00002");
    let mut bytes = std::fs::read(&first).unwrap();
    bytes[19 + 8] ^= 0xff;
    std::fs::write(&first, &bytes).unwrap();
    let dataset = Dataset::resolve(&[dir.path().to_path_buf()]);
    let asked = std::cell::RefCell::new(Vec::new());
    let counting = || count_files(&dataset, &asked);
    let wanted = |text: &str| SplitNumber::parse(text).unwrap();
    let found = find(&dataset, &wanted("train:0"), counting()).unwrap();
    assert_eq!(found.across, None, "record 0 is before the damage");
    let found = find(&dataset, &wanted("train:2"), counting()).unwrap();
    let (member, frame) = found.across.unwrap();
    assert_eq!((member, frame.index, frame.offset), (1, 1, 19));
    assert_eq!(frame.status, crate::frame::FrameStatus::LengthCrcMismatch);
    // From the end, the second shard's record is counted across nothing damaged.
    let found = find(&dataset, &wanted("train:-1"), counting()).unwrap();
    assert_eq!((found.member, found.across), (2, None));
}
