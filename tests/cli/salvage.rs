//! `salvage`: what it may write over, and `-o -`.

use std::ffi::OsStr;
use std::path::Path;

use tfr_inspect::frame::FrameIndex;

use super::{run, stderr, stdout, temp_file, tfrecord};

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

fn salvage(input: &Path, output: &Path, extra: &[&str]) -> std::process::Output {
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
