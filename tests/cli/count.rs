//! `count`: one number per file (its intact records), per split and in all, with damage named on
//! stderr and exit 1; and the words that are neither a file nor a subcommand.

use std::path::{Path, PathBuf};

use super::dataset::toy_parcels;
use super::{run as spawn, run_in_process_as_binary as run, stderr, stdout, testdata};

/// A file of `n` records holding their numbers.
pub fn numbered(dir: &Path, name: &str, n: usize) -> PathBuf {
    let mut bytes = Vec::new();
    for i in 0..n {
        tfr_core::frame::write_record(format!("record {i}").as_bytes(), &mut bytes).unwrap();
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn count(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let mut all = vec!["count".as_ref()];
    all.extend_from_slice(args);
    let output = run(all);
    (output.status.code(), stdout(&output), stderr(&output))
}

#[test]
fn a_clean_file_is_one_number_and_its_name() {
    let file = testdata("mnist_like.tfrecord");
    let (code, out, err) = count(&[file.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, format!("20  {}\n", file.display()));
    assert_eq!(err, "");
}

#[test]
fn several_files_are_aligned_and_totalled_and_an_empty_one_counts_zero() {
    let dir = tempfile::tempdir().unwrap();
    let small = numbered(dir.path(), "small.tfrecord", 3);
    let big = numbered(dir.path(), "big.tfrecord", 1200);
    let empty = numbered(dir.path(), "empty.tfrecord", 0);
    let (code, out, err) = count(&[small.as_os_str(), big.as_os_str(), empty.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        format!(
            "   3  {}\n1200  {}\n   0  {}\n1203  total (3 files)\n",
            small.display(),
            big.display(),
            empty.display()
        )
    );
}

#[test]
fn a_damaged_frame_is_named_not_counted_and_exits_one() {
    let file = testdata("corrupt/payload_bitflip.tfrecord");
    let (code, out, err) = count(&[file.as_os_str()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        format!("199  {}  (1 damaged frame not counted)\n", file.display())
    );
    assert_eq!(
        err,
        format!(
            "{}: record 189 at byte 18978: not counted: payload CRC mismatch (stored 0xbb02d86f, \
             computed 0xc744e582): the payload or its CRC is damaged; TensorFlow reports \
             \"corrupted record at 18990\"\n",
            file.display()
        )
    );
}

#[test]
fn many_damaged_frames_are_named_ten_then_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    for i in 0..30 {
        let start = bytes.len();
        tfr_core::frame::write_record(format!("record {i}").as_bytes(), &mut bytes).unwrap();
        // Every other record's payload CRC is wrong.
        if i % 2 == 1 {
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
        }
        assert!(bytes.len() > start);
    }
    let path = dir.path().join("striped.tfrecord");
    std::fs::write(&path, bytes).unwrap();
    let (code, out, err) = count(&[path.as_os_str()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        format!("15  {}  (15 damaged frames not counted)\n", path.display())
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 11, "{err}");
    assert!(lines[0].contains(": record 1 at byte "), "{err}");
    assert!(lines[9].contains(": record 19 at byte "), "{err}");
    assert!(
        lines[10].ends_with(
            ": 5 damaged frames more not counted (`tfr-inspect verify` names every one)"
        ),
        "{err}"
    );
}

#[test]
fn a_dataset_is_counted_per_shard_per_split_and_in_all() {
    let (_tmp, dir) = toy_parcels();
    let (code, out, err) = count(&[dir.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let shard = |split: &str, n: u32| {
        dir.join(format!("toy_parcels-{split}.tfrecord-0000{n}-of-00002"))
            .display()
            .to_string()
    };
    assert_eq!(
        out,
        format!(
            "15  {}  (train shard 00000 of 00002)\n\
             15  {}  (train shard 00001 of 00002)\n \
             4  {}  (validation shard 00000 of 00002)\n \
             4  {}  (validation shard 00001 of 00002)\n\
             30  train (2 shards)\n \
             8  validation (2 shards)\n\
             38  total (4 files)\n",
            shard("train", 0),
            shard("train", 1),
            shard("validation", 0),
            shard("validation", 1),
        )
    );
    // The metadata beside the shards, each named with what it is (as `verify` and `list` name
    // it), not called "not TFRecord".
    assert_eq!(
        err,
        format!(
            "{}: skipped: dataset metadata (shard lengths and sizes, checked)\n\
             {}: skipped: dataset metadata (feature types)\n\
             {}: skipped: class label names\n\
             {}: skipped: class label names\n",
            dir.join("dataset_info.json").display(),
            dir.join("features.json").display(),
            dir.join("label.labels.txt").display(),
            dir.join("objects-fragile.labels.txt").display()
        )
    );
}

#[test]
fn a_missing_shard_is_damage_named_with_its_split() {
    let (_tmp, dir) = toy_parcels();
    let gone = dir.join("toy_parcels-train.tfrecord-00001-of-00002");
    std::fs::remove_file(&gone).unwrap();
    let (code, out, err) = count(&[dir.as_os_str()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("15  train (1 shard)\n"), "{out}");
    assert!(out.ends_with("23  total (3 files)\n"), "{out}");
    assert!(
        err.contains(&format!(
            "train: shard 00001 of 00002 missing ({})",
            gone.display()
        )),
        "{err}"
    );
}

#[test]
fn json_has_a_typed_line_per_file_per_split_and_the_total() {
    let (_tmp, dir) = toy_parcels();
    let output = run(["count".as_ref(), dir.as_os_str(), "--json".as_ref()]);
    assert_eq!(output.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["file", "file", "file", "file", "split", "split", "total"]
    );
    assert_eq!(lines[1]["records"], 15);
    assert_eq!(lines[1]["split"], "train");
    assert_eq!(lines[1]["split_first_record"], 15);
    assert_eq!(lines[5]["split"], "validation");
    assert_eq!(lines[5]["records"], 8);
    assert_eq!(lines[6]["records"], 38);
    assert_eq!(lines[6]["ok"], true);

    // A damaged file and one that cannot be read.
    let damaged = testdata("corrupt/payload_bitflip.tfrecord");
    let output = run([
        "count".as_ref(),
        damaged.as_os_str(),
        "no-such.tfrecord".as_ref(),
        "--json".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (
            &lines[0]["records"],
            &lines[0]["damaged"],
            &lines[0]["frames"]
        ),
        (&199.into(), &1.into(), &200.into())
    );
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .contains("no-such.tfrecord")
    );
    assert_eq!(lines[2]["type"], "total");
    assert_eq!(lines[2]["not_read"], 1);
    assert_eq!(lines[2]["ok"], false);
}

#[test]
fn standard_input_and_a_compressed_file_are_counted() {
    let file = testdata("examples_gzip.tfrecord");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(["count", "-"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let plain = count(&[testdata("examples.tfrecord").as_os_str()]).1;
    let number = |line: &str| line.split_whitespace().next().unwrap().to_string();
    assert_eq!(number(&stdout(&output)), number(&plain));
}

#[test]
fn words_that_are_neither_file_nor_subcommand_get_the_command_they_mean() {
    let file = testdata("images.tfrecord");
    for (word, meant) in [
        ("cat", "show"),
        ("info", "stats"),
        ("spec", "schema"),
        ("wc", "count"),
        ("check", "verify"),
        ("shuf", "sample"),
        ("cuont", "count"),
        ("haed", "head"),
    ] {
        let output = spawn([word.as_ref(), file.as_os_str()]);
        assert_eq!(output.status.code(), Some(2), "{word}");
        assert!(stdout(&output).is_empty(), "{word}");
        let err = stderr(&output);
        assert!(
            err.starts_with(&format!(
                "tfr-inspect: `{word}` is neither a file nor a subcommand"
            )),
            "{word}: {err}"
        );
        assert!(
            err.contains(&format!("`tfr-inspect {meant}")),
            "{word}: {err}"
        );
    }
    // The subcommands themselves are read as subcommands, not as files.
    for word in ["count", "head", "tail", "schema", "tags"] {
        let output = spawn([word.as_ref(), file.as_os_str()]);
        assert_eq!(output.status.code(), Some(0), "{word}: {}", stderr(&output));
    }
    // A file that exists under such a name is still opened as a file.
    let dir = tempfile::tempdir().unwrap();
    numbered(dir.path(), "cat", 2);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .arg("cat")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("cat: 2 frames, 2 intact"),
        "{}",
        stdout(&output)
    );
}
