//! Record selection: `-n` and `--range` as `..` ranges and Python slices, with numbers counted
//! from the end, on every command that takes a record number.

use super::{run as spawn, run_in_process as run, stderr, stdout, testdata};

/// The record numbers in `show`'s text-format headers.
fn shown(args: &[&str]) -> Vec<String> {
    let file = testdata("examples.tfrecord");
    let mut all = vec!["show", file.to_str().unwrap(), "--format", "text"];
    all.extend_from_slice(args);
    let output = run(all);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    stdout(&output)
        .lines()
        .filter_map(|l| l.strip_prefix("# record "))
        .map(str::to_string)
        .collect()
}

#[test]
fn slices_select_what_the_same_dotted_ranges_do() {
    // examples.tfrecord holds 200 records.
    assert_eq!(shown(&["--range", "3:5"]), ["3", "4"]);
    assert_eq!(shown(&["--range", "3:5"]), shown(&["--range", "3..5"]));
    assert_eq!(shown(&["--range", ":2"]), ["0", "1"]);
    assert_eq!(shown(&["--range", "198:"]), ["198", "199"]);
    assert_eq!(shown(&["--range", "-3:"]), ["197", "198", "199"]);
    assert_eq!(shown(&["--range=-3:-1"]), ["197", "198"]);
    assert_eq!(shown(&["--range", "-2..=-1"]), ["198", "199"]);
    assert_eq!(shown(&["--range", "196:-2"]), ["196", "197"]);
}

#[test]
fn a_negative_record_number_counts_from_the_end() {
    let file = testdata("examples.tfrecord");
    let last = run(["show", file.to_str().unwrap(), "-n", "-1", "--json"]);
    let by_number = run(["show", file.to_str().unwrap(), "-n", "199", "--json"]);
    assert_eq!(last.status.code(), Some(0), "{}", stderr(&last));
    assert_eq!(stdout(&last), stdout(&by_number));
    assert!(!stdout(&last).is_empty());
    let hex_last = run(["hex", file.to_str().unwrap(), "-n", "-1"]);
    let hex_199 = run(["hex", file.to_str().unwrap(), "--record", "199"]);
    assert_eq!(hex_last.status.code(), Some(0), "{}", stderr(&hex_last));
    assert_eq!(stdout(&hex_last), stdout(&hex_199));
}

#[test]
fn negatives_before_the_first_record_name_the_file_and_its_count() {
    let file = testdata("examples.tfrecord");
    let path = file.to_str().unwrap();
    for args in [
        vec!["show", path, "-n", "-201"],
        vec!["show", path, "--range", "-300:"],
        vec!["hex", path, "-n", "-201"],
        vec!["quiz", path, "-n", "-201"],
    ] {
        let output = run(args.clone());
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let err = stderr(&output);
        assert!(
            err.contains("examples.tfrecord: record -")
                && err.contains("does not exist (the file has 200 frames)"),
            "{args:?}: {err}"
        );
    }
    // Mixed signs can only be compared against the file: an empty result says so.
    let output = run(["show", path, "--range", "150:-100"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("--range `150:-100` selects no record: of its 200 frames it is 150..100"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn malformed_selections_are_usage_errors() {
    let file = testdata("examples.tfrecord");
    let path = file.to_str().unwrap();
    for (flag, value) in [
        ("--range", "1:2:3"),
        ("--range", "-0:"),
        ("--range", "5:5"),
        ("-n", "-0"),
        ("-n", "x"),
    ] {
        let output = spawn(["show", path, flag, value]);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}");
        assert!(stdout(&output).is_empty(), "{flag} {value}");
        assert!(stderr(&output).contains(value), "{flag} {value}");
    }
}

#[test]
fn images_take_the_last_record() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let file = testdata("images.tfrecord");
    let output = run([
        "images",
        file.to_str().unwrap(),
        "-n",
        "-1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let count = run(["count", file.to_str().unwrap()]);
    let records: usize = stdout(&count)
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let last = format!(".r{}.", records - 1);
    assert!(
        !names.is_empty() && names.iter().all(|n| n.contains(&last)),
        "{names:?}"
    );
}
