//! Directories and shard sets as inputs of `list` and `verify`, on a copy of the
//! tensorflow-datasets build in `testdata/realworld/tfds/toy_parcels/2.0.0` and on damaged
//! variants of it.

use std::path::{Path, PathBuf};

use super::{run as spawn, run_in_process_as_binary as run, stderr, stdout, testdata};

const TRAIN_1: &str = "toy_parcels-train.tfrecord-00001-of-00002";

/// A writable copy of the toy_parcels dataset directory.
pub fn toy_parcels() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("2.0.0");
    std::fs::create_dir(&copy).unwrap();
    let source = testdata("realworld/tfds/toy_parcels/2.0.0");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    (dir, copy)
}

/// The first two lines of `list`'s table of train shard 00001 in `dir`: its column heads and
/// its first row.
fn train_1_table<'t>(text: &'t str, dir: &Path) -> Vec<&'t str> {
    let header = format!(
        "== {} (train shard 00001 of 00002)",
        dir.join(TRAIN_1).display()
    );
    text.lines()
        .skip_while(|l| *l != header)
        .skip(1)
        .take(2)
        .collect()
}

fn verify(args: &[&Path]) -> (Option<i32>, String) {
    let mut all = vec![Path::new("verify")];
    all.extend_from_slice(args);
    let output = run(all);
    (output.status.code(), stdout(&output))
}

#[test]
fn verify_checks_a_dataset_directory_shard_by_shard() {
    let (_tmp, dir) = toy_parcels();
    let (code, text) = verify(&[&dir]);
    assert_eq!(code, Some(0), "{text}");
    let shard_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(": OK: ") && l.starts_with(dir.to_str().unwrap()))
        .collect();
    assert_eq!(shard_lines.len(), 4, "{text}");
    assert!(shard_lines[1].ends_with("train shard 00001 of 00002, records 15..29 of train"));
    assert!(text.contains("train: 2 shards, 30 frames, 30 intact, 0 damaged, 8944 bytes of records; agrees with dataset_info.json"), "{text}");
    assert!(text.contains("validation: 2 shards, 8 frames"), "{text}");
    assert!(text.contains("dataset_info.json: skipped: dataset metadata"));
    assert!(
        text.ends_with(
            "dataset: OK: 2 splits, 4 files, 38 frames, 0 damaged, 0 dataset problems\n"
        )
    );
    assert!(!text.contains("DAMAGED"));
}

#[test]
fn every_file_of_the_directory_named_is_no_damage() {
    let (_tmp, dir) = toy_parcels();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 8);
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let (code, text) = verify(&args);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("DAMAGED"), "{text}");
    assert!(text.contains("features.json: skipped: dataset metadata (feature types)"));
}

#[test]
fn a_deleted_shard_fails_verify_naming_it() {
    let (_tmp, dir) = toy_parcels();
    std::fs::remove_file(dir.join(TRAIN_1)).unwrap();
    let (code, text) = verify(&[&dir]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "train: shard 00001 of 00002 missing ({})",
            dir.join(TRAIN_1).display()
        )),
        "{text}"
    );
    assert!(text.contains("dataset: DAMAGED"));
}

/// With shard 00000 of a split gone, the records of the shard after it have no split-wide
/// numbers (counting would number them from 0): `verify` says so, `--json` gives null, and
/// `list` leaves out the split's column, as `show DIR -n train:N` refuses to count across the gap.
#[test]
fn a_shard_after_a_missing_one_has_no_split_wide_numbers() {
    let (_tmp, dir) = toy_parcels();
    std::fs::remove_file(dir.join("toy_parcels-train.tfrecord-00000-of-00002")).unwrap();
    let (code, text) = verify(&[&dir]);
    assert_eq!(code, Some(1), "{text}");
    let line = text.lines().find(|l| l.contains(TRAIN_1)).unwrap();
    assert!(
        line.ends_with(
            "; train shard 00001 of 00002, records not numbered in train: a shard before it is missing, there twice or unreadable"
        ),
        "{text}"
    );
    // The other split keeps its numbers.
    assert!(
        text.contains("validation shard 00001 of 00002, records "),
        "{text}"
    );

    let (_, json) = verify(&[Path::new("--json"), &dir]);
    let train_1: serde_json::Value = json
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["shard"] == "00001" && v["split"] == "train")
        .unwrap();
    assert_eq!(train_1["split_first_record"], serde_json::Value::Null);

    let output = run(["list".as_ref(), dir.as_os_str()]);
    let text = stdout(&output);
    let after = train_1_table(&text, &dir);
    assert!(after[0].starts_with("  index"), "{after:?}");
    assert!(
        stderr(&output).contains(&format!(
            "{}: records not numbered in train: a shard before it is missing, there twice or unreadable",
            dir.join(TRAIN_1).display()
        )),
        "{}",
        stderr(&output)
    );
    let output = run(["list".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    let rows: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["file"].as_str().is_some_and(|f| f.ends_with(TRAIN_1)))
        .collect();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|r| r.get("split_record").is_none()),
        "{rows:?}"
    );
}

#[test]
fn a_truncated_shard_fails_verify_with_its_record_count() {
    let (_tmp, dir) = toy_parcels();
    let shard = dir.join(TRAIN_1);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&shard)
        .unwrap();
    file.set_len(4000).unwrap();
    let (code, text) = verify(&[&dir]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(&format!("train: {} holds 12 records; ", shard.display())),
        "{text}"
    );
    assert!(text.contains("dataset_info.json says 15"));
    assert!(text.contains("says numBytes 8944"));
}

#[test]
fn edited_shard_lengths_fail_verify_naming_the_shard() {
    let (_tmp, dir) = toy_parcels();
    let info = dir.join("dataset_info.json");
    let text = std::fs::read_to_string(&info).unwrap();
    let edited = text.replacen("\"4\",", "\"5\",", 1);
    assert_ne!(text, edited);
    std::fs::write(&info, edited).unwrap();
    let (code, text) = verify(&[&dir]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("validation: ")
            && text.contains("toy_parcels-validation.tfrecord-00000-of-00002 holds 4 records;")
            && text.contains("dataset_info.json says 5"),
        "{text}"
    );
}

#[test]
fn verify_json_places_each_shard_and_ends_with_the_dataset() {
    let (_tmp, dir) = toy_parcels();
    let output = run(["verify".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[1]["split"], "train");
    assert_eq!(lines[1]["shard"], "00001");
    assert_eq!(lines[1]["split_first_record"], 15);
    let dataset = &lines[4]["dataset"];
    assert_eq!(dataset["ok"], true);
    assert_eq!(dataset["splits"][0]["payload_bytes"], 8944);
    assert_eq!(dataset["skipped"].as_array().unwrap().len(), 4);

    std::fs::remove_file(dir.join(TRAIN_1)).unwrap();
    let output = run(["verify".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let last: serde_json::Value =
        serde_json::from_str(stdout(&output).lines().last().unwrap()).unwrap();
    assert_eq!(last["dataset"]["ok"], false);
    let kinds: Vec<&str> = last["dataset"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["missing_shards", "shard_count_mismatch"]);
}

#[test]
fn list_numbers_records_across_the_shards_of_a_split() {
    let (_tmp, dir) = toy_parcels();
    let output = run(["list".as_ref(), dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let after = train_1_table(&text, &dir);
    assert!(after[0].starts_with("  train    index"), "{after:?}");
    let first: Vec<&str> = after[1].split_whitespace().take(3).collect();
    assert_eq!(first, ["15", "0", "0"], "{after:?}");
    assert!(stderr(&output).contains("label.labels.txt: skipped: class label names"));
    assert!(text.contains("dataset: OK: 2 splits"));

    let output = run(["list".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    let rows: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 39);
    assert_eq!(rows[29]["split"], "train");
    assert_eq!(rows[29]["split_record"], 29);
    assert_eq!(rows[29]["index"], 14);
}

#[test]
fn globs_take_classes_alternatives_and_report_matching_nothing() {
    let (_tmp, dir) = toy_parcels();
    let pattern = dir.join("toy_parcels-{train,validation}.tfrecord-0000[0]-of-*");
    let (code, text) = verify(&[&pattern]);
    assert_eq!(code, Some(1), "two sets each missing shard 00001: {text}");
    let ok_shards = |text: &str| {
        text.lines()
            .filter(|l| l.contains("-of-00002: OK: "))
            .count()
    };
    assert_eq!(ok_shards(&text), 2);
    assert!(text.contains("validation: shard 00001 of 00002 missing"));
    let all = dir.parent().unwrap().join("**/*-of-00002");
    let (code, text) = verify(&[&all]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(ok_shards(&text), 4);

    let nothing = dir.join("*.nothing");
    let output = spawn(["list".as_ref(), nothing.as_os_str()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("*.nothing: pattern matched nothing"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn show_words_records_as_features_json_describes_them() {
    let shard =
        testdata("realworld/tfds/toy_parcels/2.0.0/toy_parcels-train.tfrecord-00000-of-00002");
    let output = run([
        "show".as_ref(),
        shard.as_os_str(),
        "-n".as_ref(),
        "2".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {text}"))
            .to_string()
    };
    assert!(
        line("label ").ends_with("ClassLabel (4 classes)  0 \"small\""),
        "{text}"
    );
    assert!(
        line("grid ").contains("bool[3, 3]")
            && line("grid ")
                .ends_with("[[true, true, false], [false, true, true], [false, false, false]]"),
        "{text}"
    );
    assert!(
        line("image ").contains("Image 32x48x3 png") && line("image ").ends_with("PNG 48x32 RGB")
    );
    assert!(line("caption ").ends_with("\"parcel 8\""));
    assert!(line("objects ").ends_with("Sequence of 2 elements"));
    assert_eq!(
        line("[0] "),
        "    [0] bbox [0.25, 0.166, 0.75, 0.833]  fragile 0 \"no\""
    );
    // Without the metadata beside it, the same record is shown as plain features.
    let (_tmp, copy) = toy_parcels();
    std::fs::remove_file(copy.join("features.json")).unwrap();
    let plain = copy.join("toy_parcels-train.tfrecord-00000-of-00002");
    let output = run([
        "show".as_ref(),
        plain.as_os_str(),
        "-n".as_ref(),
        "2".as_ref(),
    ]);
    assert!(stdout(&output).contains("int64[9]"), "{}", stdout(&output));
}

#[test]
fn a_ragged_tensor_feature_has_an_unknown_dimension_not_minus_one() {
    use tfr_core::crafted::{FeatureValue, example};
    let dir = tempfile::tempdir().unwrap();
    let features = r#"{"featuresDict": {"features": {
        "scores": {"pythonClassName": "tensorflow_datasets.core.features.tensor_feature.Tensor",
                   "tensor": {"dtype": "float32", "encoding": "none",
                              "shape": {"dimensions": ["-1"]}}},
        "photo": {"pythonClassName": "tensorflow_datasets.core.features.image_feature.Image",
                  "image": {"dtype": "uint8", "encodingFormat": "jpeg",
                            "shape": {"dimensions": ["-1", "-1", "3"]}}}}},
        "pythonClassName": "tensorflow_datasets.core.features.features_dict.FeaturesDict"}"#;
    std::fs::write(dir.path().join("features.json"), features).unwrap();
    let record = example(&[
        ("photo", FeatureValue::Bytes(vec![b"not yet".to_vec()])),
        ("scores", FeatureValue::Floats(vec![1.0, 2.5])),
    ]);
    let shard = dir.path().join("ragged-train.tfrecord-00000-of-00001");
    std::fs::write(&shard, super::tfrecord(&[&record])).unwrap();
    let text = stdout(&run(["show".as_ref(), shard.as_os_str()]));
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{name}\n{text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(line("scores"), "scores float32[?] [1.0, 2.5]");
    assert!(
        line("photo").starts_with("photo Image ?x?x3 jpeg"),
        "{text}"
    );
}
