//! Split-wide record numbers on `show`, `hex` and `images`: `-n train:1234` over a directory or
//! shard files is the record the split's shards hold at that place, counted shard after shard
//! as `list`'s split column and the inspector's `:` count them.

use std::path::{Path, PathBuf};

use super::{run_in_process as run, stderr, stdout, testdata};

/// toy_parcels: train has shards of 15 and 15 records, validation of 4 and 4.
fn toy() -> PathBuf {
    testdata("realworld/tfds/toy_parcels/2.0.0")
}

fn shard(dir: &Path, split: &str, n: u32) -> PathBuf {
    dir.join(format!("toy_parcels-{split}.tfrecord-0000{n}-of-00002"))
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A copy of toy_parcels to damage.
fn copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(toy()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

#[test]
fn show_finds_the_shard_and_record_a_split_wide_number_is() {
    let dir = toy();
    let second = shard(&dir, "train", 1);
    for format in ["tree", "text", "json"] {
        let split_wide = run(["show", s(&dir), "-n", "train:17", "--format", format]);
        let in_file = run(["show", s(&second), "-n", "2", "--format", format]);
        assert_eq!(split_wide.status.code(), Some(0), "{}", stderr(&split_wide));
        let place = format!("train record 17 = shard 00001 record 2: {}", s(&second));
        let (shown, said) = (stdout(&split_wide), stderr(&split_wide));
        match format {
            // JSON lines stay JSON: the place goes to standard error.
            "json" => {
                assert_eq!(shown, stdout(&in_file));
                assert_eq!(said.trim_end(), place);
            }
            "text" => assert_eq!(shown, format!("# {place}\n{}", stdout(&in_file))),
            _ => assert_eq!(shown, format!("{place}\n{}", stdout(&in_file))),
        }
    }
    // From the split's end, as `-n -1` counts in a file.
    let last = run(["show", s(&dir), "-n", "train:-1", "--json"]);
    let in_file = run(["show", s(&second), "-n", "-1", "--json"]);
    assert_eq!(stdout(&last), stdout(&in_file));
    assert!(stderr(&last).starts_with("train record 29 = shard 00001 record 14: "));
    // The shards named one by one, or by a pattern, number alike.
    let pattern = dir.join("toy_parcels-train.tfrecord-*");
    for inputs in [
        vec![s(&shard(&dir, "train", 0)), s(&second)],
        vec![s(&pattern)],
    ] {
        let mut args = vec!["show"];
        args.extend(inputs);
        args.extend(["-n", "train:17", "--json"]);
        let output = run(args);
        assert_eq!(
            stdout(&output),
            stdout(&run(["show", s(&second), "-n", "2", "--json"]))
        );
    }
}

#[test]
fn a_split_wide_range_runs_across_shards() {
    let dir = toy();
    for range in ["train:13..17", "train:13:17", "train:13..=16"] {
        let output = run(["show", s(&dir), "--range", range, "--format", "text"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let heads: Vec<String> = stdout(&output)
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| l.split(": ").next().unwrap().to_string())
            .collect();
        assert_eq!(
            heads,
            [
                "# train records 13..15 = shard 00000 records 13..15",
                "# record 13",
                "# record 14",
                "# train records 15..17 = shard 00001 records 0..2",
                "# record 0",
                "# record 1",
            ],
            "{range}"
        );
    }
    // With --envelope, each line also carries its split-wide number, as `list --json` does.
    let output = run(["show", s(&dir), "--range", "train:14:16", "--envelope"]);
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let places: Vec<(u64, u64, &str)> = lines
        .iter()
        .map(|l| {
            let file = l["file"].as_str().unwrap();
            (
                l["index"].as_u64().unwrap(),
                l["split_record"].as_u64().unwrap(),
                file,
            )
        })
        .collect();
    let (first, second) = (shard(&dir, "train", 0), shard(&dir, "train", 1));
    assert_eq!(places, [(14, 14, s(&first)), (0, 15, s(&second))]);
    assert!(lines.iter().all(|l| l["split"] == "train"));
    // Past the split's end: what exists is shown, the rest named.
    let output = run(["show", s(&dir), "--range", "validation:6..20", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().count(), 2);
    assert!(
        stderr(&output).contains("records 8..20 do not exist (validation has 8 records)"),
        "{}",
        stderr(&output)
    );
}

/// A range over more shards than the process may have files open: each shard is opened when
/// its records are printed, and closed before the next.
#[test]
fn a_range_over_more_shards_than_files_allowed_open_shows_every_shard() {
    let dir = tempfile::tempdir().unwrap();
    let shards = 150;
    let mut record = Vec::new();
    tfr_core::frame::write_record(b"\x0a\x00", &mut record).unwrap();
    for n in 0..shards {
        let name = format!("tiny-train.tfrecord-{n:05}-of-{shards:05}");
        std::fs::write(dir.path().join(name), &record).unwrap();
    }
    let range = format!("train:0..{shards}");
    let output = super::under_ulimit("-n 64")
        .args(["show", s(dir.path()), "--range", &range, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().count(), shards);
    let last = dir.path().join("tiny-train.tfrecord-00149-of-00150");
    let place = format!(
        "train records 149..150 = shard 00149 records 0..1: {}",
        s(&last)
    );
    assert!(
        stderr(&output).lines().any(|line| line == place),
        "{}",
        stderr(&output)
    );
}

#[test]
fn hex_and_images_take_split_wide_numbers() {
    let dir = toy();
    let second = shard(&dir, "validation", 1);
    let split_wide = run(["hex", s(&dir), "-n", "validation:5"]);
    assert_eq!(split_wide.status.code(), Some(0), "{}", stderr(&split_wide));
    let in_file = run(["hex", s(&second), "-n", "1"]);
    assert_eq!(
        stdout(&split_wide),
        format!(
            "validation record 5 = shard 00001 record 1: {}\n{}",
            s(&second),
            stdout(&in_file)
        )
    );
    let json = run(["hex", s(&dir), "-n", "validation:5", "--json"]);
    assert_eq!(
        stdout(&json),
        stdout(&run(["hex", s(&second), "-n", "1", "--json"]))
    );
    assert!(stderr(&json).starts_with("validation record 5 = shard 00001 record 1"));

    let out = tempfile::tempdir().unwrap();
    let written = run(["images", s(&dir), "-o", s(out.path()), "-n", "train:16"]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert!(
        stdout(&written).starts_with("train record 16 = shard 00001 record 1: "),
        "{}",
        stdout(&written)
    );
    let name = "toy_parcels-train.tfrecord-00001-of-00002.r1.image.png";
    let image = std::fs::read(out.path().join(name)).unwrap();
    assert_eq!(&image[..4], b"\x89PNG");
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 1);
    // A directory without numbers: the images of every shard found there.
    let all = tempfile::tempdir().unwrap();
    let written = run(["images", s(&dir), "-o", s(all.path())]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert!(
        stdout(&written).contains("\n38 images written to "),
        "{}",
        stdout(&written)
    );
    assert_eq!(std::fs::read_dir(all.path()).unwrap().count(), 30 + 8);
}

#[test]
fn what_names_no_record_says_what_there_is() {
    let dir = toy();
    let plain = testdata("examples.tfrecord");
    let empty = tempfile::tempdir().unwrap();
    let lone = tempfile::tempdir().unwrap();
    let lone_file = lone.path().join("a.tfrecord");
    std::fs::copy(&plain, &lone_file).unwrap();
    let lone_said = format!(
        "show takes one file (its record numbers are its own): give it by its path, {}",
        lone_file.display()
    );
    let empty_said = format!(
        "{}: is a directory with no TFRecord file in it",
        empty.path().display()
    );
    let cases: [(&[&str], &str); 8] = [
        // A directory of no TFRecord, or of one file that is no shard.
        (&["show", s(empty.path()), "-n", "0"], &empty_said),
        (&["show", s(lone.path()), "-n", "0"], &lone_said),
        (
            &["show", s(&dir), "-n", "test:3"],
            "no split \"test\"; the splits are train, validation",
        ),
        (
            &["hex", s(&dir), "-n", "train:30"],
            "train has 30 records; there is no record 30",
        ),
        (
            &["show", s(&dir), "-n", "validation:-9"],
            "validation has 8 records; there is no record -9",
        ),
        // Plain numbers over a directory: which split's record would be a guess.
        (
            &["show", s(&dir), "-n", "3"],
            "show over a directory takes a split-wide number, as `-n train:0` or `--range \
             train:0..10`: record numbers count within a split (the splits: train, validation)",
        ),
        (
            &["hex", s(&dir)],
            "hex over a directory takes a split-wide number",
        ),
        (
            &["show", s(&plain), "-n", "train:0"],
            "train:0: the inputs are no shard set",
        ),
    ];
    for (args, said) in cases {
        let output = run(args.iter().copied());
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stdout(&output).is_empty(), "{args:?}");
        assert!(
            stderr(&output).contains(said),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let out = tempfile::tempdir().unwrap();
    let refused = run(["images", s(&dir), "-o", s(out.path()), "--range", "0..3"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("`-n train:0`"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn a_frame_that_cannot_be_delimited_before_the_record_is_named_with_its_byte() {
    let dir = copy();
    let first = shard(dir.path(), "train", 0);
    // Record 3 of the first train shard starts at byte 954: its length CRC is spoiled.
    let mut bytes = std::fs::read(&first).unwrap();
    bytes[954 + 8] ^= 0xff;
    std::fs::write(&first, &bytes).unwrap();
    let output = run(["show", s(dir.path()), "-n", "train:20"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "tfr-inspect: {0}: frame 3 at byte 954 cannot be delimited (length crc mismatch): \
             train:20 is counted across it, so which record it names is uncertain \
             (`tfr-inspect list {0}` numbers that file's frames)",
            s(&first)
        )
    );
    // A range that runs across it is refused alike, even one that also runs past the end.
    for range in ["train:2..5", "train:0..20", "train:0..100"] {
        let output = run(["show", s(dir.path()), "--range", range, "--json"]);
        assert_eq!(output.status.code(), Some(2), "{range}");
        assert!(stdout(&output).is_empty(), "{range}");
        assert!(
            stderr(&output).contains("frame 3 at byte 954 cannot be delimited"),
            "{range}: {}",
            stderr(&output)
        );
    }
    // Before the damage, and from the end of a split whose later shard is whole, numbers hold.
    let before = run(["show", s(dir.path()), "-n", "train:2", "--json"]);
    assert_eq!(before.status.code(), Some(0), "{}", stderr(&before));
    let last = run(["show", s(dir.path()), "-n", "train:-1", "--json"]);
    assert_eq!(last.status.code(), Some(0), "{}", stderr(&last));
    // A missing shard before the record.
    std::fs::remove_file(&first).unwrap();
    let output = run(["show", s(dir.path()), "-n", "train:0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("train shard 00000 of 00002 is missing"),
        "{}",
        stderr(&output)
    );
}
