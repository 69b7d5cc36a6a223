//! `index`: the record index `tfrecord2idx` writes, and `index --check`.

use super::{
    run as spawn, run_in_process, run_in_process_as_binary as run, stderr, stdout, temp_file,
    testdata,
};

const SHARD: &str = "realworld/detection_train.record-00000-of-00001";
const IDX: &str = "realworld/detection_train.idx";

fn expected_idx() -> Vec<u8> {
    std::fs::read(testdata(IDX)).unwrap()
}

#[test]
fn prints_what_tfrecord2idx_writes_byte_for_byte() {
    let output = run_in_process(["index".as_ref(), testdata(SHARD).as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, expected_idx());
}

#[test]
fn writes_the_index_to_a_file_and_replaces_one_only_with_force() {
    let (dir, idx) = temp_file("train.idx", b"old");
    let args = |force: bool| {
        let mut args = vec![
            "index".into(),
            testdata(SHARD).into_os_string(),
            "-o".into(),
            idx.clone().into_os_string(),
        ];
        if force {
            args.push("--force".into());
        }
        args
    };
    let refused = spawn(args(false));
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read(&idx).unwrap(), b"old");
    let written = spawn(args(true));
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert_eq!(std::fs::read(&idx).unwrap(), expected_idx());
    assert!(stdout(&written).contains("8 records indexed"));
    drop(dir);
}

#[test]
fn check_accepts_the_right_index_and_names_a_changed_line() {
    let ok = run_in_process([
        "index".as_ref(),
        "--check".as_ref(),
        testdata(SHARD).as_os_str(),
        testdata(IDX).as_os_str(),
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    assert!(stdout(&ok).contains(": OK: matches"), "{}", stdout(&ok));

    // The index of a shard that was rewritten with one record a byte longer.
    let text = String::from_utf8(expected_idx()).unwrap();
    let changed = text.replacen("5866 3263", "5866 3264", 1);
    assert_ne!(changed, text);
    let (_dir, idx) = temp_file("stale.idx", changed.as_bytes());
    let wrong = run_in_process([
        "index".as_ref(),
        "--check".as_ref(),
        testdata(SHARD).as_os_str(),
        idx.as_os_str(),
    ]);
    assert_eq!(wrong.status.code(), Some(1));
    let report = stdout(&wrong);
    assert!(
        report.contains("WRONG")
            && report.contains("line 3: \"5866 3264\"")
            && report.contains("record 2 is at byte 5866, 3263 bytes long"),
        "{report}"
    );

    let short: String = text.lines().take(7).map(|l| format!("{l}\n")).collect();
    let (_dir, idx) = temp_file("short.idx", short.as_bytes());
    let wrong = run_in_process([
        "index".as_ref(),
        "--check".as_ref(),
        testdata(SHARD).as_os_str(),
        idx.as_os_str(),
    ]);
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        stdout(&wrong).contains("line 8 should be \"20530 2612\""),
        "{}",
        stdout(&wrong)
    );
}

#[test]
fn a_damaged_file_is_refused_unless_its_intact_records_are_asked_for() {
    let file = testdata("corrupt/payload_bitflip.tfrecord");
    let refused = spawn(["index".as_ref(), file.as_os_str()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(refused.stdout.is_empty());
    assert!(
        stderr(&refused).contains("1 damaged frame") && stderr(&refused).contains("--intact-only"),
        "{}",
        stderr(&refused)
    );
    let intact = run(["index".as_ref(), file.as_os_str(), "--intact-only".as_ref()]);
    assert_eq!(intact.status.code(), Some(1));
    let lines: Vec<String> = stdout(&intact).lines().map(String::from).collect();
    assert_eq!(lines.len(), 199);
    // The damaged frame 189 at byte 18978 is left out; its neighbours stay.
    assert!(lines.iter().any(|l| l.starts_with("18877 ")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("18978 ")));
    assert!(lines.iter().any(|l| l.starts_with("19078 ")));
}

#[test]
fn a_truncated_file_gets_no_line_past_its_end() {
    let file = testdata("corrupt/truncated_mid_payload.tfrecord");
    let intact = run_in_process(["index".as_ref(), file.as_os_str(), "--intact-only".as_ref()]);
    let size = std::fs::metadata(&file).unwrap().len();
    assert_eq!(stdout(&intact).lines().count(), 199);
    for line in stdout(&intact).lines() {
        let mut words = line.split(' ').map(|w| w.parse::<u64>().unwrap());
        let (offset, len) = (words.next().unwrap(), words.next().unwrap());
        assert!(offset + len <= size, "{line}");
    }
}

#[test]
fn a_compressed_file_is_refused_with_the_reason() {
    let file = testdata("examples_gzip.tfrecord");
    let refused = run(["index".as_ref(), file.as_os_str()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("GZIP-compressed"),
        "{}",
        stderr(&refused)
    );
    let decompressed = run(["index".as_ref(), file.as_os_str(), "--intact-only".as_ref()]);
    assert_eq!(decompressed.status.code(), Some(0));
    let plain = run(["index".as_ref(), testdata("examples.tfrecord").as_os_str()]);
    assert_eq!(decompressed.stdout, plain.stdout);
}

/// A directory of testdata's shards (and a file that is none), copied.
fn shard_dir() -> (tempfile::TempDir, std::path::PathBuf, Vec<&'static str>) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let names = vec![
        "examples.tfrecord",
        "sequence.tfrecord",
        "empty.tfrecord",
        "mnist_like.tfrecord",
    ];
    for name in &names {
        std::fs::copy(testdata(name), data.join(name)).unwrap();
    }
    std::fs::copy(
        testdata(SHARD),
        data.join("detection_train.record-00000-of-00001"),
    )
    .unwrap();
    std::fs::write(data.join("README.txt"), "not a shard\n").unwrap();
    let mut names = names;
    names.push("detection_train.record-00000-of-00001");
    (dir, data, names)
}

#[test]
fn a_directory_gets_one_index_per_shard_equal_to_the_single_file_index() {
    let (dir, data, names) = shard_dir();
    let outdir = dir.path().join("idx");
    let output = run([
        "index".as_ref(),
        data.as_os_str(),
        "-o".as_ref(),
        outdir.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut written: Vec<String> = std::fs::read_dir(&outdir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = names.iter().map(|n| format!("{n}.idx")).collect();
    expected.sort();
    assert_eq!(written, expected);
    for name in &names {
        let single = run_in_process(["index".as_ref(), data.join(name).as_os_str()]);
        assert_eq!(single.status.code(), Some(0));
        let file = std::fs::read(outdir.join(format!("{name}.idx"))).unwrap();
        assert_eq!(file, single.stdout, "{name}");
    }
    assert_eq!(
        std::fs::read(outdir.join("detection_train.record-00000-of-00001.idx")).unwrap(),
        expected_idx()
    );
    let summary = format!(
        "5 indexes written to {} (238 records)\n",
        outdir.to_string_lossy()
    );
    assert!(stdout(&output).ends_with(&summary), "{}", stdout(&output));
}

#[test]
fn a_directory_index_replaces_only_index_files_and_only_with_force() {
    let (dir, data, _) = shard_dir();
    let outdir = dir.path().join("idx");
    std::fs::create_dir(&outdir).unwrap();
    let stale = outdir.join("examples.tfrecord.idx");
    std::fs::write(&stale, "0 1\n").unwrap();
    let args = |force: bool| {
        let mut args = vec![
            "index".into(),
            data.clone().into_os_string(),
            "-o".into(),
            outdir.clone().into_os_string(),
        ];
        if force {
            args.push(std::ffi::OsString::from("--force"));
        }
        args
    };
    // Without --force nothing is written, not even the indexes whose names are free.
    let refused = run(args(false));
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read_dir(&outdir).unwrap().count(), 1);
    // An old index is replaced with --force; a file that is no index never is.
    let notes = outdir.join("sequence.tfrecord.idx");
    std::fs::write(&notes, "my notes\n").unwrap();
    let refused = run(args(true));
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("no record index"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read(&notes).unwrap(), b"my notes\n");
    assert_eq!(std::fs::read(&stale).unwrap(), b"0 1\n");
    std::fs::remove_file(&notes).unwrap();
    let replaced = run(args(true));
    assert_eq!(replaced.status.code(), Some(0), "{}", stderr(&replaced));
    assert_ne!(std::fs::read(&stale).unwrap(), b"0 1\n");
}

#[test]
fn a_directory_index_is_never_written_into_the_input_directory() {
    let (_dir, data, _) = shard_dir();
    for outdir in [data.clone(), data.join("idx")] {
        let output = run([
            "index".as_ref(),
            data.as_os_str(),
            "-o".as_ref(),
            outdir.as_os_str(),
        ]);
        assert_eq!(output.status.code(), Some(2));
        assert!(
            stderr(&output).contains("input directory"),
            "{}",
            stderr(&output)
        );
    }
    assert!(!data.join("idx").exists());
    assert!(!data.join("examples.tfrecord.idx").exists());
    // Without -o there is nowhere to write.
    let output = run(["index".as_ref(), data.as_os_str()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("-o OUTDIR"), "{}", stderr(&output));
}

#[test]
fn a_pattern_indexes_the_shards_it_matches_and_a_damaged_one_gets_none() {
    let (dir, data, _) = shard_dir();
    std::fs::copy(
        testdata("corrupt/payload_bitflip.tfrecord"),
        data.join("payload_bitflip.tfrecord"),
    )
    .unwrap();
    let outdir = dir.path().join("idx");
    let pattern = data.join("*.tfrecord");
    let output = run([
        "index".as_ref(),
        pattern.as_os_str(),
        "-o".as_ref(),
        outdir.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--intact-only"),
        "{}",
        stderr(&output)
    );
    assert!(!outdir.join("payload_bitflip.tfrecord.idx").exists());
    assert!(outdir.join("examples.tfrecord.idx").exists());
    assert!(
        !outdir
            .join("detection_train.record-00000-of-00001.idx")
            .exists()
    );
}
