//! `stats --partial` and `stats --merge`: partials of the shards of a dataset, merged, print what
//! `stats` of the dataset prints, byte for byte, with the same status; a partial is written
//! only to a new path or over a regular file; partials of another format version are refused.
//!
//! The runs are made in process, as the binary makes them, errors and status included; the
//! binary itself is run for a partial of another version, refused as in process.

use std::path::{Path, PathBuf};

use super::dataset::toy_parcels;
use super::{outcome, outcome_by_binary, run_in_process_as_binary, testdata};

/// Writes the partial of `inputs` to `to`; its status.
fn partial(inputs: &[&Path], to: &Path) -> Option<i32> {
    let mut args = vec![
        Path::new("stats"),
        Path::new("--partial"),
        Path::new("-o"),
        to,
    ];
    args.extend_from_slice(inputs);
    let output = run_in_process_as_binary(&args);
    output.status.code()
}

/// `stats` with `extra` over `args`, in process: status, stdout, stderr.
fn stats(extra: &[&str], args: &[&Path]) -> (Option<i32>, String, String) {
    outcome("stats", extra, args)
}

/// [`stats`] through the binary.
fn stats_by_binary(extra: &[&str], args: &[&Path]) -> (Option<i32>, String, String) {
    outcome_by_binary("stats", extra, args)
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

/// One partial per shard of `dir`, in `out`.
fn per_shard(dir: &Path, out: &Path) -> Vec<PathBuf> {
    shards(dir)
        .iter()
        .map(|shard| {
            let to = out.join(format!(
                "{}.tfrstats",
                shard.file_name().unwrap().to_string_lossy()
            ));
            assert_eq!(partial(&[shard], &to), Some(0), "{}", shard.display());
            to
        })
        .collect()
}

fn paths(paths: &[PathBuf]) -> Vec<&Path> {
    paths.iter().map(PathBuf::as_path).collect()
}

#[test]
fn merged_shard_partials_print_what_stats_of_the_dataset_prints() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let out = tempfile::tempdir().unwrap();
    let mut partials = per_shard(&dir, out.path());
    for json in [&[][..], &["--json"][..]] {
        let whole = stats(json, &[&dir]);
        assert_eq!(whole.0, Some(0), "{}", whole.2);
        assert!(whole.1.contains("train"), "{}", whole.1);
        let merged = stats(&[&["--merge"], json].concat(), &paths(&partials));
        assert_eq!((merged.0, &merged.1), (whole.0, &whole.1), "{}", merged.2);
        // In another order, the shards of a split in one partial.
        partials.reverse();
        let pair = out.path().join("train.tfrstats");
        let train = shards(&dir);
        assert_eq!(partial(&[&train[1], &train[0]], &pair), Some(0));
        let mut grouped = vec![pair];
        grouped.extend(
            partials
                .iter()
                .filter(|p| p.to_string_lossy().contains("validation"))
                .cloned(),
        );
        let merged = stats(&[&["--merge"], json].concat(), &paths(&grouped));
        assert_eq!((merged.0, &merged.1), (whole.0, &whole.1), "{}", merged.2);
    }
}

#[test]
fn a_merge_finds_the_damage_and_the_missing_shards_of_the_whole() {
    let (_tmp, dir) = toy_parcels();
    let shard = shards(&dir)[1].clone();
    // A damaged record in one shard, and a shard of validation gone.
    let mut bytes = std::fs::read(&shard).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&shard, bytes).unwrap();
    std::fs::remove_file(shards(&dir)[3].clone()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let partials: Vec<PathBuf> = shards(&dir)
        .iter()
        .map(|s| {
            let to = out.path().join(s.file_name().unwrap());
            partial(&[s], &to);
            to
        })
        .collect();
    let whole = stats(&[], &[&dir]);
    let merged = stats(&["--merge"], &paths(&partials));
    assert_eq!(whole.0, Some(1), "{}", whole.2);
    assert_eq!((merged.0, &merged.1), (whole.0, &whole.1), "{}", merged.2);
    let missing = "tfr-inspect: validation: shard 00001 of 00002 missing";
    assert!(whole.2.contains(missing), "{}", whole.2);
    assert!(merged.2.contains(missing), "{}", merged.2);
    // Each partial is a part: the shard the others hold is not called missing there.
    let (code, _, said) = stats(&["--partial", "-o", "-"], &[&shards(&dir)[0]]);
    assert_eq!(code, Some(0), "{said}");
    assert!(!said.contains("missing"), "{said}");
}

#[test]
fn event_files_merge_under_the_runs_of_their_log_directory() {
    let logs = tempfile::tempdir().unwrap();
    let source = testdata("writers/tensorboard");
    let mut files = Vec::new();
    for run in [".", "trial_1", "graph"] {
        let dir = logs.path().join(run);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(source.join(run)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_file() && name.ends_with(".v2") {
                std::fs::copy(&path, dir.join(&name)).unwrap();
                files.push(dir.join(&name));
            }
        }
    }
    assert_eq!(files.len(), 3);
    let out = tempfile::tempdir().unwrap();
    let partials: Vec<PathBuf> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let to = out.path().join(format!("{i}.tfrstats"));
            assert_eq!(partial(&[f], &to), Some(0));
            to
        })
        .collect();
    let whole = stats(&[], &[logs.path()]);
    assert!(whole.1.contains("trial_1"), "{}", whole.1);
    let merged = stats(&["--merge"], &paths(&partials));
    assert_eq!((merged.0, &merged.1), (whole.0, &whole.1), "{}", merged.2);
}

#[test]
fn partials_of_another_version_or_cut_short_are_refused_by_name() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let out = tempfile::tempdir().unwrap();
    let partials = per_shard(&dir, out.path());
    let text = std::fs::read_to_string(&partials[0]).unwrap();
    let old = out.path().join("old.tfrstats");
    std::fs::write(&old, text.replacen("\"version\":2", "\"version\":7", 1)).unwrap();
    let by_binary = stats_by_binary(&["--merge"], &[&old, &partials[1]]);
    // The binary refuses it as a run in process does, with the same status.
    assert_eq!(stats(&["--merge"], &[&old, &partials[1]]), by_binary);
    let (code, printed, said) = by_binary;
    assert_eq!(code, Some(2));
    assert_eq!(printed, "");
    assert!(
        said.contains(&format!(
            "{}: written in format version 7; this tfr-inspect reads version 2",
            old.display()
        )),
        "{said}"
    );
    let cut = out.path().join("cut.tfrstats");
    std::fs::write(&cut, &text.as_bytes()[..text.len() - 100]).unwrap();
    let (code, printed, said) = stats(&["--merge"], &[&partials[1], &cut]);
    assert_eq!((code, printed.as_str()), (Some(2), ""));
    assert!(said.contains(&format!("{}: ", cut.display())), "{said}");
    assert!(said.contains("cut short"), "{said}");
    // A TFRecord file is no partial.
    let (code, _, said) = stats(&["--merge"], &[&shards(&dir)[0]]);
    assert_eq!(code, Some(2));
    assert!(said.contains("not a tfr-inspect stats partial"), "{said}");
}

#[test]
fn a_partial_goes_to_a_new_path_or_over_a_regular_file_only() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let shard = shards(&dir)[0].clone();
    let out = tempfile::tempdir().unwrap();
    // A directory.
    let (code, _, said) = stats(&["--partial", "-o"], &[out.path(), &shard]);
    assert_eq!(code, Some(2));
    assert!(said.contains("it is a directory"), "{said}");
    // The input itself.
    let copy = out.path().join("train-00000-of-00001.tfrecord");
    std::fs::copy(&shard, &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let (code, _, said) = stats(&["--partial", "-o"], &[&copy, &copy]);
    assert_eq!(code, Some(2));
    assert!(said.contains("refusing to write over the input"), "{said}");
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    // A regular file is replaced, whole.
    let to = out.path().join("p.tfrstats");
    std::fs::write(&to, "old").unwrap();
    assert_eq!(partial(&[&shard], &to), Some(0));
    assert!(
        std::fs::read_to_string(&to)
            .unwrap()
            .starts_with("{\"format\"")
    );
    // Nothing but the outputs is left beside them.
    let mut left: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["p.tfrstats", "train-00000-of-00001.tfrecord"]);
}

#[cfg(unix)]
#[test]
fn a_partial_is_not_written_into_a_fifo() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let shard = shards(&dir)[0].clone();
    let out = tempfile::tempdir().unwrap();
    let fifo = out.path().join("fifo");
    super::mkfifo(&fifo);
    let (code, _, said) = stats(&["--partial", "-o"], &[&fifo, &shard]);
    assert_eq!(code, Some(2));
    assert!(said.contains("it is a FIFO"), "{said}");
    // Still the FIFO.
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind));
}

#[test]
fn a_file_that_cannot_be_read_is_named_by_the_merge_as_by_one_pass() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let out = tempfile::tempdir().unwrap();
    let shard = out.path().join("a.tfrecord");
    std::fs::copy(&shards(&dir)[0], &shard).unwrap();
    let gone = out.path().join("gone.tfrecord");
    let (a, b) = (out.path().join("a.tfrstats"), out.path().join("b.tfrstats"));
    assert_eq!(partial(&[&shard], &a), Some(0));
    // The partial of a file that cannot be read is written, and says so.
    let (code, _, said) = stats(&["--partial", "-o"], &[&b, &gone]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("gone.tfrecord"), "{said}");
    for json in [&[][..], &["--json"][..]] {
        let whole = stats(json, &[&shard, &gone]);
        let merged = stats(&[&["--merge"], json].concat(), &[&b, &a]);
        assert_eq!(whole.0, Some(2), "{}", whole.2);
        assert_eq!((merged.0, &merged.1), (whole.0, &whole.1), "{}", merged.2);
        assert_eq!(merged.2, whole.2);
    }
}
