//! `salvage` (and the `list` and `verify` lines that go with it): what it may write over, `-o -`,
//! frames nested in a damaged record, and bytes the resync left unverified.

use std::ffi::OsStr;
use std::path::Path;

use tfr_core::frame::FrameIndex;

use super::{run_in_process_as_binary as run, stderr, stdout, temp_file, tfrecord};

fn payloads(data: &[u8]) -> Vec<Vec<u8>> {
    let index = FrameIndex::build(data);
    assert_eq!(index.damaged_count(), 0, "salvaged output re-indexes clean");
    index
        .frames(data)
        .map(|f| f.payload(data).expect("payload").to_vec())
        .collect()
}

/// `outer0`, a record `middle` with a flipped payload bit, `outer2`.
fn damaged_file() -> Vec<u8> {
    let mut data = tfrecord(&[b"outer0", b"middle", b"outer2"]);
    data[22 + 12 + 2] ^= 0x10;
    data
}

/// A record whose payload is a TFRecord stream of `inner0`..`inner9`, its payload CRC broken,
/// between two intact records `outer0` and `outer2`.
fn record_holding_a_stream() -> Vec<u8> {
    let names: Vec<Vec<u8>> = (0..10).map(|i| format!("inner{i}").into_bytes()).collect();
    let refs: Vec<&[u8]> = names.iter().map(|n| n.as_slice()).collect();
    let stream = tfrecord(&refs);
    let mut data = tfrecord(&[b"outer0", &stream, b"outer2"]);
    let damaged_crc = 22 + 12 + stream.len();
    data[damaged_crc] ^= 1;
    data
}

fn salvage(input: &Path, output: &Path, extra: &[&str]) -> super::Ran {
    let mut args: Vec<&OsStr> = vec![
        "salvage".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        output.as_os_str(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    run(args)
}

#[cfg(unix)]
#[test]
fn fifos_sockets_and_links_to_devices_are_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let (dir, input) = temp_file("in.tfrecord", &damaged_file());
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let socket = dir.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind a socket");
    let to_null = dir.path().join("null");
    std::os::unix::fs::symlink("/dev/null", &to_null).expect("symlink");
    let to_fifo = dir.path().join("to-fifo");
    std::os::unix::fs::symlink(&fifo, &to_fifo).expect("symlink");

    for (target, what) in [
        (&fifo, "it is a FIFO"),
        (&socket, "it is a socket"),
        (&to_null, "it is a symbolic link to a character device"),
        (&to_fifo, "it is a symbolic link to a FIFO"),
    ] {
        let output = salvage(&input, target, &["--force"]);
        assert_eq!(output.status.code(), Some(2), "{}", target.display());
        assert!(stderr(&output).contains(what), "{}", stderr(&output));
        assert!(stdout(&output).is_empty());
    }
    let kind = |p: &Path| {
        std::fs::symlink_metadata(p)
            .expect("still there")
            .file_type()
    };
    assert!(kind(&fifo).is_fifo());
    assert!(kind(&socket).is_socket());
    assert!(kind(&to_null).is_symlink() && kind(&to_fifo).is_symlink());
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    let names = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(names, 5, "no temporary file left behind");
}

#[test]
fn a_directory_is_refused_with_force() {
    let (dir, input) = temp_file("in.tfrecord", &damaged_file());
    let output = salvage(&input, dir.path(), &["--force"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("it is a directory"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn dash_writes_the_records_to_stdout_and_the_report_to_stderr() {
    let (dir, input) = temp_file("in.tfrecord", &damaged_file());
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .current_dir(dir.path())
        .args(["salvage", "in.tfrecord", "-o", "-"])
        .output()
        .expect("binary runs");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        payloads(&output.stdout),
        vec![b"outer0".to_vec(), b"outer2".to_vec()]
    );
    let report = stderr(&output);
    assert!(
        report.contains("standard output: kept 2 records, dropped 1 damaged frame"),
        "{report}"
    );
    assert!(!dir.path().join("-").exists(), "no file named -");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    let json = run([
        "salvage".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        "-".as_ref(),
        "--json".as_ref(),
    ]);
    assert_eq!(payloads(&json.stdout).len(), 2);
    let report: serde_json::Value = serde_json::from_str(stderr(&json).trim()).expect("JSON");
    assert_eq!(report["kept"], 2);
    assert_eq!(report["output"], "-");
}

#[test]
fn frames_nested_in_a_damaged_record_are_reported_not_listed_or_salvaged() {
    let data = record_holding_a_stream();
    let (dir, input) = temp_file("nested.tfrecord", &data);
    let inner_offsets: Vec<u64> = (0..10).map(|i| 34 + 22 * i).collect();

    let list = run(["list".as_ref(), "--json".as_ref(), input.as_os_str()]);
    assert_eq!(list.status.code(), Some(1));
    let rows: Vec<serde_json::Value> = stdout(&list)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON row"))
        .collect();
    let statuses: Vec<&str> = rows.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["intact", "data_crc_mismatch", "intact"]);
    assert_eq!(rows[1]["nested_frames"]["count"], 10);
    assert_eq!(
        rows[1]["nested_frames"]["offsets"],
        serde_json::json!(inner_offsets)
    );
    let table = stdout(&run(["list".as_ref(), input.as_os_str()]));
    assert!(table.contains("3 frames, 2 intact, 1 damaged"), "{table}");
    assert!(
        table.contains("a TFRecord stream of 10 intact frames (at bytes 34, 56,"),
        "{table}"
    );

    let verify = run(["verify".as_ref(), "--json".as_ref(), input.as_os_str()]);
    let report: serde_json::Value = serde_json::from_str(stdout(&verify).trim()).expect("JSON");
    assert_eq!(
        (report["frames"].as_u64(), report["intact"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(report["problems"][0]["nested_frames"]["count"], 10);
    let text = stdout(&run(["verify".as_ref(), input.as_os_str()]));
    assert!(
        text.contains("frame 1 at byte 22: payload CRC mismatch"),
        "{text}"
    );
    assert!(text.contains("they are nested in this record"), "{text}");

    let out = dir.path().join("out.tfrecord");
    let plain = salvage(&input, &out, &[]);
    assert_eq!(plain.status.code(), Some(1));
    assert_eq!(
        payloads(&std::fs::read(&out).unwrap()),
        [b"outer0", b"outer2"]
    );
    let report = stdout(&plain);
    assert!(report.contains("10 nested frames not written"), "{report}");
    assert!(
        report.contains("--nested writes them after the records"),
        "{report}"
    );

    let with_nested = salvage(&input, &out, &["--force", "--nested", "--json"]);
    assert_eq!(with_nested.status.code(), Some(1));
    let mut expected = vec![b"outer0".to_vec(), b"outer2".to_vec()];
    expected.extend((0..10).map(|i| format!("inner{i}").into_bytes()));
    assert_eq!(payloads(&std::fs::read(&out).unwrap()), expected);
    let report: serde_json::Value =
        serde_json::from_str(stdout(&with_nested).trim()).expect("JSON");
    assert_eq!(report["kept"], 2);
    assert_eq!(report["nested_frames"], 10);
    assert_eq!(report["nested_written"], 10);
    assert_eq!(report["nested"][0]["index"], 1);
    assert_eq!(
        report["nested"][0]["offsets"],
        serde_json::json!(inner_offsets)
    );
}
