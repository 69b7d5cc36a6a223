//! `index`: the record index `tfrecord2idx` writes, and `index --check`.

use super::{run, run_in_process, stderr, stdout, temp_file, testdata};

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
    let refused = run(args(false));
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read(&idx).unwrap(), b"old");
    let written = run(args(true));
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
    let refused = run(["index".as_ref(), file.as_os_str()]);
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
