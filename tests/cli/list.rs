//! `list`: one line per frame and a summary.

use super::{acts_on_a_terminal, hostile_example, run, stdout, temp_file, testdata, tfrecord};

#[test]
fn table_shows_kind_and_features_and_a_summary() {
    let file = testdata("images.tfrecord");
    let output = run(["list".as_ref(), file.as_os_str()]);
    assert!(output.status.success());
    let text = stdout(&output);
    let row0 = text.lines().nth(1).expect("row 0");
    assert!(
        row0.contains("Example") && row0.contains("7 features: image/class/label"),
        "{row0}"
    );
    assert!(
        text.lines()
            .last()
            .expect("summary")
            .ends_with("6 frames, 6 intact, 0 damaged, 26577 bytes")
    );
}

#[test]
fn several_files_and_damage_set_the_exit_status() {
    let good = testdata("examples.tfrecord");
    let bad = testdata("corrupt/payload_bitflip.tfrecord");
    let output = run(["list".as_ref(), good.as_os_str(), bad.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains(&format!("== {}", good.display())));
    let damaged = text
        .lines()
        .find(|l| l.contains("BAD"))
        .expect("a damaged row");
    assert!(
        damaged.contains("18978") && damaged.contains("corrupted record at 18990"),
        "{damaged}"
    );
}

#[test]
fn json_reports_sequence_and_raw_kinds() {
    let output = run([
        "list".as_ref(),
        testdata("sequence.tfrecord").as_os_str(),
        "--json".as_ref(),
    ]);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&output).lines().next().expect("a line")).expect("json");
    assert_eq!(first["kind"], "SequenceExample");
    let output = run([
        "list".as_ref(),
        testdata("raw_strings.tfrecord").as_os_str(),
        "--json".as_ref(),
    ]);
    let kinds: Vec<String> = stdout(&output)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["kind"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "text", "text", "empty", "text", "text", "text", "text", "text"
        ]
    );
}

#[test]
fn compressed_files_say_so_and_a_cut_stream_is_damage() {
    let output = run([
        "list".as_ref(),
        testdata("examples_gzip.tfrecord").as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let summary = stdout(&output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(
        summary.contains("GZIP-compressed, 2369 bytes on disk (8.477x); 200 frames, 200 intact"),
        "{summary}"
    );
    let output = run([
        "list".as_ref(),
        testdata("corrupt/gzip_truncated.tfrecord").as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        super::stderr(&output).contains("compressed stream damaged"),
        "{}",
        super::stderr(&output)
    );
}

#[test]
fn feature_names_in_the_summary_are_escaped() {
    let payload = hostile_example();
    let (_dir, path) = temp_file("hostile.tfrecord", &tfrecord(&[&payload]));
    let output = run(["list".as_ref(), path.as_os_str()]);
    let text = stdout(&output);
    assert!(!acts_on_a_terminal(&text), "{text:?}");
    assert!(
        text.contains("5 features: \\033]2;owned\\007, a\\rDAMAGED, del\\177, v, …"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 3, "heading, one row, totals: {text}");
}

/// Files beside the shards that are no TFRecord file are counted in one line naming the first
/// three, by every command that searches a directory (a dataset's may hold thousands); a lone one
/// is named with its reason.
#[test]
fn files_that_are_no_tfrecord_are_counted_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(testdata("examples.tfrecord"), dir.path().join("a.tfrecord")).unwrap();
    for name in ["n1.txt", "n2.txt", "n3.txt", "n4.txt", "n5.txt"] {
        std::fs::write(dir.path().join(name), "notes\n").unwrap();
    }
    let shown = |name: &str| dir.path().join(name).display().to_string();
    let expected = format!(
        "5 other files skipped (not TFRecord): {}, {}, {}, …\n",
        shown("n1.txt"),
        shown("n2.txt"),
        shown("n3.txt")
    );
    for command in ["list", "stats", "count", "schema", "export"] {
        let output = run([command.as_ref(), dir.path().as_os_str()]);
        assert_eq!(output.status.code(), Some(0), "{command}");
        assert_eq!(super::stderr(&output), expected, "{command}");
    }
    for name in ["n2.txt", "n3.txt", "n4.txt", "n5.txt"] {
        std::fs::remove_file(dir.path().join(name)).unwrap();
    }
    let output = run(["list".as_ref(), dir.path().as_os_str()]);
    assert!(
        super::stderr(&output).starts_with(&format!(
            "{}: skipped: not a TFRecord file (",
            shown("n1.txt")
        )),
        "{}",
        super::stderr(&output)
    );
}
