//! `verify --merge`: the `verify --json` outputs of parts of a dataset, checked apart, merged,
//! print what one `verify` over all their files prints (text and JSON, stdout and stderr, byte
//! for byte) with the same status, whatever the order of the parts; parts that are not
//! `verify --json` output, or that overlap, are refused naming the part.
//!
//! The runs are made in process, as the binary makes them, errors and status included; the
//! binary itself is run for a refused part and for the parts whose paths are relative to the
//! crate's directory.

use std::path::{Path, PathBuf};

use super::dataset::toy_parcels;
use super::{outcome, outcome_by_binary, stderr, stdout, testdata};

/// `verify` with `flags` over `inputs`, in process: status, stdout, stderr.
fn verify(flags: &[&str], inputs: &[&Path]) -> (Option<i32>, String, String) {
    outcome("verify", flags, inputs)
}

/// [`verify`] through the binary.
fn verify_by_binary(flags: &[&str], inputs: &[&Path]) -> (Option<i32>, String, String) {
    outcome_by_binary("verify", flags, inputs)
}

/// Writes `verify --json` of each group of `groups` to a file in `out`; the files.
fn parts(groups: &[Vec<&Path>], out: &Path) -> Vec<PathBuf> {
    groups
        .iter()
        .enumerate()
        .map(|(i, group)| {
            let (code, json, _) = verify(&["--json"], group);
            assert!(matches!(code, Some(0..=2)), "{code:?}");
            let to = out.join(format!("part{i}.json"));
            std::fs::write(&to, json).unwrap();
            to
        })
        .collect()
}

/// The shards of `dir`, in name order.
fn shards(dir: &Path) -> Vec<PathBuf> {
    let mut shards: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("-of-"))
        .collect();
    shards.sort();
    shards
}

fn paths(paths: &[PathBuf]) -> Vec<&Path> {
    paths.iter().map(PathBuf::as_path).collect()
}

/// Merging `parts` (in that order and reversed) prints what `verify` over `inputs` does, as text
/// and as JSON; the one-shot status.
fn merges_as_one_shot(inputs: &[&Path], parts: &[PathBuf]) -> Option<i32> {
    let mut reversed = parts.to_vec();
    reversed.reverse();
    let mut status = None;
    for json in [&[][..], &["--json"][..]] {
        let one = verify(json, inputs);
        for order in [parts, &reversed[..]] {
            let merged = verify(&[&["--merge"], json].concat(), &paths(order));
            assert_eq!(merged, one, "{json:?} {order:?}");
        }
        status = one.0;
    }
    status
}

#[test]
fn per_shard_verdicts_of_a_clean_shard_set_merge_into_the_one_shot_report() {
    let (tmp, dir) = toy_parcels();
    let shards = shards(&dir);
    let groups: Vec<Vec<&Path>> = shards.iter().map(|s| vec![s.as_path()]).collect();
    let parts = parts(&groups, tmp.path());
    assert_eq!(merges_as_one_shot(&paths(&shards), &parts), Some(0));
    let (_, text, _) = verify(&["--merge"], &paths(&parts));
    assert!(
        text.contains("records 15..29 of train") && text.contains("agrees with dataset_info.json"),
        "{text}"
    );
    // Each part alone is an incomplete shard set; the merge is the whole one.
    let (code, _, _) = verify(&[], &[&shards[0]]);
    assert_eq!(code, Some(1));
}

#[test]
fn a_damaged_shard_merges_into_the_same_damage_and_counts() {
    let (tmp, dir) = toy_parcels();
    let shard = dir.join("toy_parcels-train.tfrecord-00001-of-00002");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&shard)
        .unwrap();
    file.set_len(4000).unwrap();
    let shards = shards(&dir);
    // Two parts of two shards each, split across the splits.
    let groups: Vec<Vec<&Path>> = vec![vec![&shards[0], &shards[2]], vec![&shards[1], &shards[3]]];
    let parts = parts(&groups, tmp.path());
    assert_eq!(merges_as_one_shot(&paths(&shards), &parts), Some(1));
    let (_, text, _) = verify(&["--merge"], &paths(&parts));
    assert!(text.contains("holds 12 records; "), "{text}");
    assert!(text.contains("DAMAGED"), "{text}");
}

#[test]
fn a_missing_shard_is_found_over_the_merged_parts() {
    let (tmp, dir) = toy_parcels();
    std::fs::remove_file(dir.join("toy_parcels-validation.tfrecord-00000-of-00002")).unwrap();
    let shards = shards(&dir);
    let groups: Vec<Vec<&Path>> = shards.iter().map(|s| vec![s.as_path()]).collect();
    let parts = parts(&groups, tmp.path());
    assert_eq!(merges_as_one_shot(&paths(&shards), &parts), Some(1));
    let (_, text, _) = verify(&["--merge"], &paths(&parts));
    assert!(
        text.contains("validation: shard 00000 of 00002 missing"),
        "{text}"
    );
    assert!(!text.contains("train: shard"), "{text}");
}

#[test]
fn a_dataset_directory_merges_with_its_skipped_files_and_metadata() {
    let (tmp, dir) = toy_parcels();
    // Its metadata lists a split none of whose shards is left.
    for shard in shards(&dir)
        .iter()
        .filter(|s| s.to_string_lossy().contains("validation"))
    {
        std::fs::remove_file(shard).unwrap();
    }
    let parts = parts(&[vec![dir.as_path()]], tmp.path());
    assert_eq!(merges_as_one_shot(&[&dir], &parts), Some(1));
    let (_, text, _) = verify(&["--merge"], &paths(&parts));
    assert!(text.contains("features.json: skipped: "), "{text}");
    assert!(
        text.contains("validation: ") && text.contains("lists it, but no shard of it was found"),
        "{text}"
    );
}

#[test]
fn loose_files_compressed_and_damaged_merge_as_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        testdata("examples.tfrecord"),
        testdata("examples_gzip.tfrecord"),
        testdata("corrupt/payload_bitflip.tfrecord"),
        testdata("corrupt/gzip_truncated.tfrecord"),
        testdata("corrupt/trailing_garbage.tfrecord"),
    ];
    let groups: Vec<Vec<&Path>> = vec![
        vec![&files[4], &files[1]],
        vec![&files[0]],
        vec![&files[2], &files[3]],
    ];
    let parts = parts(&groups, tmp.path());
    // Loose files keep the order of their paths, as a directory would list them.
    let mut sorted = files.to_vec();
    sorted.sort();
    assert_eq!(merges_as_one_shot(&paths(&sorted), &parts), Some(1));
    let (_, text, _) = verify(&["--merge"], &paths(&parts));
    assert!(text.contains("compression_type='GZIP'"), "{text}");
}

#[test]
fn parts_that_are_not_verify_json_or_overlap_are_refused_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    let good = parts(&[vec![&testdata("examples.tfrecord")]], tmp.path());
    let garbage = tmp.path().join("garbage.json");
    std::fs::write(&garbage, "not json at all\n").unwrap();
    let by_binary = verify_by_binary(&["--merge"], &[&good[0], &garbage]);
    // The binary refuses it as a run in process does, with the same status.
    assert_eq!(verify(&["--merge"], &[&good[0], &garbage]), by_binary);
    let (code, out, err) = by_binary;
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("garbage.json: line 1: not a line of `verify --json`"),
        "{err}"
    );

    // A verdict without what a merge needs (as an older tfr-inspect wrote it).
    let older = tmp.path().join("older.json");
    let line = std::fs::read_to_string(&good[0]).unwrap();
    let value: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    let mut object = value.as_object().unwrap().clone();
    object.remove("payload_bytes");
    object.insert("file".into(), "other.tfrecord".into());
    std::fs::write(&older, serde_json::to_string(&object).unwrap() + "\n").unwrap();
    let (code, _, err) = verify(&["--merge"], &[&good[0], &older]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("older.json: line 1: no `payload_bytes`"),
        "{err}"
    );

    // A line whose `type` is no line of `verify --json`, and a dataset's line without its
    // summary.
    for (kind, said) in [
        (
            "\"count\"",
            "its `type` is neither \"file\" nor \"dataset\"",
        ),
        ("7", "its `type` is neither"),
        ("\"dataset\"", "a dataset's summary without its `dataset`"),
    ] {
        let typed = tmp.path().join("typed.json");
        let line = line
            .trim()
            .replace("\"type\": \"file\"", &format!("\"type\": {kind}"));
        std::fs::write(&typed, line + "\n").unwrap();
        let (code, _, err) = verify(&["--merge"], &[&typed]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("typed.json: line 1: ") && err.contains(said),
            "{kind} {err}"
        );
    }

    // The same file in two parts.
    let again = tmp.path().join("again.json");
    std::fs::copy(&good[0], &again).unwrap();
    let (code, _, err) = verify(&["--merge"], &[&good[0], &again]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("again.json: ") && err.contains("is checked here and in"),
        "{err}"
    );

    // An empty part, and one that does not exist.
    let empty = tmp.path().join("empty.json");
    std::fs::write(&empty, "").unwrap();
    let (code, _, err) = verify(&["--merge"], &[&empty]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("empty.json: holds no file's verdict"), "{err}");
    let (code, _, err) = verify(&["--merge"], &[&tmp.path().join("absent.json")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("absent.json: "), "{err}");
}

#[test]
fn arguments_a_part_could_not_use_keep_the_merge_unusable() {
    let (tmp, dir) = toy_parcels();
    let nothing = dir.join("nothing-*.tfrecord");
    let inputs = [dir.as_path(), nothing.as_path()];
    let (one_code, one_out, one_err) = verify(&["--json"], &inputs);
    assert_eq!(one_code, Some(2), "{one_err}");
    assert!(one_err.contains("pattern matched nothing"), "{one_err}");
    let parts = parts(&[inputs.to_vec()], tmp.path());
    let (code, out, err) = verify(&["--merge", "--json"], &paths(&parts));
    assert_eq!(code, Some(2), "{err}");
    // The same verdicts and summary (`not_read` counting the argument); the argument is named
    // where the part was made, and the merge says how many there were.
    assert_eq!(out, one_out);
    assert!(
        err.contains("part0.json: 1 argument could not be used where it was checked"),
        "{err}"
    );
}

#[test]
fn text_from_a_part_reaches_the_terminal_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let part = tmp.path().join("hostile.json");
    let line = serde_json::json!({
        "bytes": 10, "damaged": 1, "file": "a\u{1b}]2;x\u{7}.tfrecord", "frames": 1, "intact": 0,
        "ok": false, "payload_bytes": 0, "notes": ["n\u{1b}[31m"],
        "problems": [{"index": 0, "skipped": [0, 10], "problem": "bad\u{1b}]52;c;x\u{7}"}],
    });
    std::fs::write(&part, format!("{line}\n")).unwrap();
    let (code, out, err) = verify(&["--merge"], &[&part]);
    assert_eq!(code, Some(1), "{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(
        out.contains("a\\033]2;x\\007.tfrecord: frame 0 at byte 0: bad\\033]52;c;x\\007"),
        "{out}"
    );
    assert!(out.contains("note: n\\033[31m"), "{out}");
}

/// `verify` run in the crate's directory with `args`, relative paths as given: status, stdout,
/// stderr.
fn verify_here(args: &[&str]) -> (Option<i32>, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .arg("verify")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    (output.status.code(), stdout(&output), stderr(&output))
}

#[test]
fn parts_written_before_lines_said_their_type_merge_with_parts_that_say_it() {
    // `before_type_key.jsonl` is `verify --json` of the train shards and a damaged loose file as
    // written before each line carried `type`, with paths relative to the crate's directory.
    let old = "testdata/verify_merge/before_type_key.jsonl";
    let before = std::fs::read_to_string(testdata("verify_merge/before_type_key.jsonl")).unwrap();
    assert!(!before.contains("\"type\""), "{before}");
    let shards = "testdata/realworld/tfds/toy_parcels/2.0.0/toy_parcels-";
    let train = [0, 1].map(|i| format!("{shards}train.tfrecord-0000{i}-of-00002"));
    let validation = [0, 1].map(|i| format!("{shards}validation.tfrecord-0000{i}-of-00002"));
    let damaged = "testdata/corrupt/payload_bitflip.tfrecord";
    let tmp = tempfile::tempdir().unwrap();
    let new = tmp.path().join("new.jsonl");
    let (code, json, _) = verify_here(&["--json", &validation[0], &validation[1]]);
    assert_eq!(code, Some(0));
    for line in json.lines() {
        assert!(
            line.ends_with(", \"type\": \"file\"}") || line.ends_with(", \"type\": \"dataset\"}"),
            "{line}"
        );
    }
    std::fs::write(&new, json).unwrap();
    let new = new.to_str().unwrap();
    let all = [
        damaged,
        &train[0],
        &train[1],
        &validation[0],
        &validation[1],
    ];
    for json in [&[][..], &["--json"][..]] {
        let one = verify_here(&[json, &all].concat());
        assert_eq!(one.0, Some(1), "{one:?}");
        for parts in [[old, new], [new, old]] {
            let merged = verify_here(&[&["--merge"], json, &parts].concat());
            assert_eq!(merged, one, "{json:?} {parts:?}");
        }
    }
    // Every line of the merge says what it is: four shards and the damaged file, then the dataset.
    let (_, merged, _) = verify_here(&["--merge", "--json", old, new]);
    let types: Vec<String> = merged
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].to_string())
        .collect();
    assert_eq!(
        types,
        ["\"file\""; 5]
            .into_iter()
            .chain(["\"dataset\""])
            .collect::<Vec<_>>()
    );
}
