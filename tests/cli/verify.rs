//! `verify`: exit status and reports over the corrupt fixtures.

use super::{run as spawn, run_in_process, run_in_process_as_binary as run, stdout, testdata};

#[test]
fn clean_files_exit_zero() {
    for name in [
        "examples",
        "images",
        "mnist_like",
        "cifar_like",
        "sequence",
        "raw_strings",
        "empty",
        "corrupt/concatenated",
    ] {
        let output = spawn([
            "verify".as_ref(),
            testdata(&format!("{name}.tfrecord")).as_os_str(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stdout(&output));
        assert!(stdout(&output).contains(": OK: "));
    }
}

#[test]
fn every_damaged_fixture_exits_one_and_names_the_frame() {
    let dir = testdata("corrupt");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("corrupt dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !name.ends_with(".tfrecord")
            || name == "concatenated.tfrecord"
            || name.starts_with("gzip")
        {
            continue;
        }
        let expect: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expect.json")).expect("expect"),
        )
        .expect("json");
        let problem = &expect["strict_reader"]["first_problem"];
        let output = run_in_process(["verify".as_ref(), path.as_os_str(), "--json".as_ref()]);
        assert_eq!(output.status.code(), Some(1), "{name}");
        let report: serde_json::Value =
            serde_json::from_str(stdout(&output).trim()).expect("verify json");
        let first = &report["problems"][0];
        assert_eq!(first["offset"], problem["frame_offset"], "{name}");
        assert_eq!(first["status"], problem["kind"], "{name}");
        if problem["tf_reported_offset"].is_number() {
            assert_eq!(
                first["tensorflow_offset"], problem["tf_reported_offset"],
                "{name}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 16);
}

#[test]
fn a_quoted_wildcard_checks_every_matching_shard() {
    let pattern = testdata("corrupt/truncated_*.tfrecord");
    let output = run(["verify".as_ref(), pattern.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let verdicts: Vec<&str> = text.lines().filter(|l| l.contains(": DAMAGED: ")).collect();
    assert_eq!(verdicts.len(), 3, "{text}");
    assert!(
        verdicts[0].contains("truncated_in_footer")
            && verdicts[2].contains("truncated_mid_payload")
    );
}

#[test]
fn one_job_finds_what_every_core_finds_and_none_is_refused() {
    let dataset = testdata("realworld/tfds/toy_parcels/2.0.0");
    let dataset = dataset.to_str().unwrap();
    for command in [["verify", "--json"], ["stats", "--json"]] {
        let all = spawn([command[0], command[1], dataset]);
        let one = spawn([command[0], "--jobs", "1", command[1], dataset]);
        assert!(!one.stdout.is_empty(), "{command:?}");
        assert_eq!(one.stdout, all.stdout, "{command:?}");
        assert_eq!(one.stderr, all.stderr, "{command:?}");
        assert_eq!(one.status.code(), all.status.code(), "{command:?}");
    }
    let none = spawn(["verify", "--jobs", "0", dataset]);
    assert_eq!(none.status.code(), Some(2));
    let said = String::from_utf8_lossy(&none.stderr);
    assert!(said.contains("--jobs"), "{said}");
}

/// A directory of one shard beside `others` files that are no TFRecord file (text, a PNG
/// header, an empty file) and one set aside for a reason of its own (a named pipe).
fn shard_among_others(others: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        testdata("examples.tfrecord"),
        dir.path().join("examples.tfrecord"),
    )
    .unwrap();
    for i in 0..others {
        let bytes: &[u8] = match i % 3 {
            0 => b"a line of notes\n",
            1 => b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            _ => b"",
        };
        std::fs::write(dir.path().join(format!("other-{i:03}.txt")), bytes).unwrap();
    }
    super::mkfifo(&dir.path().join("pipe"));
    dir
}

#[test]
fn verify_of_a_directory_counts_the_other_files_in_one_line() {
    let dir = shard_among_others(25);
    let output = run(["verify".as_ref(), dir.path().as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(
        text.contains("\n25 other files skipped (not TFRecord); --verbose lists them\n"),
        "{text}"
    );
    assert!(
        !text.contains("other-"),
        "no file named one per line: {text}"
    );
    // A file set aside for a reason of its own is still named.
    assert!(
        text.contains("pipe: skipped: a named pipe, not a regular file"),
        "{text}"
    );
    let verbose = run([
        "verify".as_ref(),
        dir.path().as_os_str(),
        "--verbose".as_ref(),
    ]);
    let text = stdout(&verbose);
    assert_eq!(text.matches(": skipped: ").count(), 26, "{text}");
    assert!(!text.contains("--verbose lists"), "{text}");
    let one = shard_among_others(1);
    let output = run(["verify".as_ref(), one.path().as_os_str()]);
    assert!(
        stdout(&output).contains("\n1 other file skipped (not TFRecord); --verbose lists it\n"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_file_named_alone_that_is_no_tfrecord_is_said_as_a_directory_says_it() {
    let dir = shard_among_others(2);
    let verbose = run([
        "verify".as_ref(),
        dir.path().as_os_str(),
        "--verbose".as_ref(),
    ]);
    for name in ["other-000.txt", "other-001.txt"] {
        let path = dir.path().join(name);
        let in_dir = stdout(&verbose)
            .lines()
            .find(|l| l.contains(name))
            .map(|l| l.split_once(": skipped: ").unwrap().1.to_string())
            .unwrap();
        let output = run(["verify".as_ref(), path.as_os_str()]);
        assert_eq!(output.status.code(), Some(1), "{name}");
        assert_eq!(
            stdout(&output),
            format!("{}: {in_dir}\n", path.display()),
            "{name}"
        );
        assert!(in_dir.starts_with("not a TFRecord file"), "{in_dir}");
    }
    // A damaged file named as TFRecord is still judged frame by frame.
    let damaged = run([
        "verify".as_ref(),
        testdata("corrupt/payload_bitflip.tfrecord").as_os_str(),
    ]);
    assert_eq!(damaged.status.code(), Some(1));
    assert!(stdout(&damaged).contains("DAMAGED"));
}
