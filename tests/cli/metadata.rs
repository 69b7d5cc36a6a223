//! The metadata beside a tensorflow-datasets shard (`features.json`, labels files,
//! `dataset_info.json`) is someone else's: a named pipe, a link to a device, a sparse file of
//! gigabytes or a labels file behind many names is named and read only as far as it is safe, and
//! every command goes on without what it could not read.

use std::path::Path;

use super::dataset::toy_parcels;
use super::{MEMORY_CAP_KIB, mkfifo, run_bounded, stderr, stdout};

const SHARD: &str = "toy_parcels-train.tfrecord-00000-of-00002";

/// `show -n 0` of the first train shard, in `dir`, bounded.
fn show(dir: &Path, memory_kib: u64) -> std::process::Output {
    run_bounded(["show", SHARD, "-n", "0"], dir, b"", memory_kib)
}

#[test]
fn a_pipe_or_a_device_for_features_json_is_named_and_left_unread() {
    for (what, make) in [
        ("a named pipe", &(|p: &Path| mkfifo(p)) as &dyn Fn(&Path)),
        ("a character device", &|p: &Path| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
    ] {
        let (_tmp, dir) = toy_parcels();
        std::fs::remove_file(dir.join("features.json")).unwrap();
        make(&dir.join("features.json"));
        let output = show(&dir, MEMORY_CAP_KIB);
        // What is shown lacks what the dataset declares: a script is told by the status.
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert_eq!(
            stderr(&output),
            format!(
                "tfr-inspect: ./features.json: not read: {what}, not a regular file; \
                 records shown without it\n"
            )
        );
        // The tree without the metadata's words.
        assert!(stdout(&output).contains("  grid             int64[9]"));

        let out = tempfile::tempdir().unwrap();
        let images = run_bounded(
            ["images", SHARD, "-n", "0", "-o"]
                .map(std::ffi::OsString::from)
                .into_iter()
                .chain([out.path().join("o").into_os_string()]),
            &dir,
            b"",
            MEMORY_CAP_KIB,
        );
        assert_eq!(images.status.code(), Some(2), "{}", stderr(&images));
        assert!(stderr(&images).contains(&format!("./features.json: not read: {what}")));
    }
}

#[test]
fn a_pipe_for_a_labels_file_is_named_and_the_ids_stay_numbers() {
    let (_tmp, dir) = toy_parcels();
    std::fs::remove_file(dir.join("label.labels.txt")).unwrap();
    mkfifo(&dir.join("label.labels.txt"));
    let output = show(&dir, MEMORY_CAP_KIB);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "./label.labels.txt: not read: a named pipe, not a regular file\n"
    );
    let text = stdout(&output);
    assert!(
        text.contains("  label            ClassLabel (4 classes)  2\n"),
        "{text}"
    );
    // The other labels file still names its classes.
    assert!(text.contains("fragile 1 \"yes\""), "{text}");
}

#[test]
fn eight_features_whose_labels_files_are_one_large_file_read_it_once() {
    let (tmp, dir) = toy_parcels();
    // Two million one-letter class names (4 MB), behind eight names.
    let shared = tmp.path().join("shared.labels");
    std::fs::write(&shared, "a\n".repeat(2 << 20)).unwrap();
    let mut features: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("features.json")).unwrap()).unwrap();
    let all = features["featuresDict"]["features"]
        .as_object_mut()
        .unwrap();
    for i in 0..8 {
        all.insert(
            format!("cl{i}"),
            serde_json::json!({"classLabel": {"numClasses": "3"}}),
        );
        std::os::unix::fs::symlink(&shared, dir.join(format!("cl{i}.labels.txt"))).unwrap();
    }
    std::fs::write(dir.join("features.json"), features.to_string()).unwrap();
    // Read once and held compactly, this takes a few MB; a parsed copy per name took 860 MB,
    // which this cap refuses.
    let output = show(&dir, 400 << 10);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("  cl0              ClassLabel (3 classes)  (absent)"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_labels_file_with_a_line_that_is_not_utf8_keeps_every_class_name() {
    let (_tmp, dir) = toy_parcels();
    std::fs::write(
        dir.join("label.labels.txt"),
        b"small\nmedi\xb5m\nlarge\nhuge\n",
    )
    .unwrap();
    let output = show(&dir, MEMORY_CAP_KIB);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "./label.labels.txt: line 2 is not UTF-8; its bad bytes are shown as U+FFFD\n"
    );
    assert!(
        stdout(&output).contains("ClassLabel (4 classes)  2 \"large\""),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_sparse_dataset_info_of_gigabytes_is_refused_by_its_size() {
    let (_tmp, dir) = toy_parcels();
    let info = std::fs::File::options()
        .write(true)
        .open(dir.join("dataset_info.json"))
        .unwrap();
    // 3 GB of holes: nothing on disk, more than the cap on memory if read.
    info.set_len(3 << 30).unwrap();
    let output = run_bounded(["verify", "."], &dir, b"", MEMORY_CAP_KIB);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(&format!(
            "./dataset_info.json: cannot be read: too large: {} bytes, more than the 8 MiB read of such a file",
            3u64 << 30
        )),
        "{text}"
    );
    // The shards are still checked, by themselves.
    assert!(
        text.contains("train: 2 shards, 30 frames, 30 intact"),
        "{text}"
    );
}

#[test]
fn a_pipe_for_dataset_info_is_named_and_left_unread() {
    let (_tmp, dir) = toy_parcels();
    std::fs::remove_file(dir.join("dataset_info.json")).unwrap();
    mkfifo(&dir.join("dataset_info.json"));
    let output = run_bounded(["verify", "."], &dir, b"", MEMORY_CAP_KIB);
    let text = stdout(&output);
    assert!(
        text.contains("./dataset_info.json: cannot be read: a named pipe, not a regular file"),
        "{text}"
    );
    assert!(
        text.contains("./dataset_info.json: skipped: a named pipe, not a regular file"),
        "{text}"
    );
}

#[test]
fn dataset_info_members_of_the_wrong_type_are_problems() {
    for (edit, says) in [
        (
            &(|info: &mut serde_json::Value| info["splits"] = serde_json::json!({"train": {}}))
                as &dyn Fn(&mut serde_json::Value),
            "splits is an object, not a list",
        ),
        (
            &|info: &mut serde_json::Value| {
                info["splits"][0]["shardLengths"] = serde_json::Value::Null
            },
            "split train: shardLengths is null, not a list",
        ),
    ] {
        let (_tmp, dir) = toy_parcels();
        let path = dir.join("dataset_info.json");
        let mut info: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        edit(&mut info);
        std::fs::write(&path, info.to_string()).unwrap();
        let output = run_bounded(["verify", "."], &dir, b"", MEMORY_CAP_KIB);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            stdout(&output).contains(&format!("./dataset_info.json: cannot be read: {says}")),
            "{}",
            stdout(&output)
        );
    }
}

#[test]
fn stats_names_a_features_json_it_cannot_use_and_summarises_without_it() {
    let (_tmp, dir) = toy_parcels();
    std::fs::remove_file(dir.join("features.json")).unwrap();
    mkfifo(&dir.join("features.json"));
    let output = run_bounded(["stats", SHARD], &dir, b"", MEMORY_CAP_KIB);
    // The shard's split misses its second shard (exit 1); the metadata not read is exit 2.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "tfr-inspect: ./features.json: not read: a named pipe, not a regular file; figures \
             made without it"
        ),
        "{}",
        stderr(&output)
    );
    // The figures are there, without the class names.
    assert!(stdout(&output).contains("label"), "{}", stdout(&output));
    assert!(
        !stdout(&output).contains("\"large\""),
        "{}",
        stdout(&output)
    );
}
