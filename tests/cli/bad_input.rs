//! Inputs that are not usable TFRecords: a one-line message naming file, frame and byte; exit 2
//! for unusable input and 1 for damage; never a panic.

use super::{run, stderr, stdout, temp_file, tfrecord};

fn no_panic(output: &std::process::Output) {
    assert!(!stderr(output).contains("panicked"), "{}", stderr(output));
}

#[test]
fn empty_file_is_valid_and_empty() {
    let (_dir, path) = temp_file("empty.tfrecord", b"");
    let output = run(["verify".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("OK: 0 frames"));
}

#[test]
fn a_file_that_is_not_a_tfrecord() {
    let (_dir, path) = temp_file("notes.txt", b"this is a text file, not a TFRecord at all\n");
    let output = run(["verify".as_ref(), path.as_os_str()]);
    no_panic(&output);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    // In the words a directory's search sets such a file aside with.
    assert!(
        text.ends_with(
            "notes.txt: not a TFRecord file (no valid first frame, no GZIP, ZLIB or SNAPPY header)\n"
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[test]
fn truncated_last_frame() {
    let data = tfrecord(&[b"first", b"second record"]);
    let (_dir, path) = temp_file("cut.tfrecord", &data[..data.len() - 6]);
    let output = run(["verify".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("cut.tfrecord: frame 1 at byte 21: truncated"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn absurd_length_is_reported_without_allocating_it() {
    let mut data = tfrecord(&[b"first", b"second", b"third"]);
    let absurd = (1u64 << 62).to_le_bytes();
    data[21..29].copy_from_slice(&absurd);
    data[29..33].copy_from_slice(&tfr_core::crc::masked_crc32c(&absurd).to_le_bytes());
    let (_dir, path) = temp_file("absurd.tfrecord", &data);
    for args in [
        vec!["verify"],
        vec!["list"],
        vec!["show"],
        vec!["hex", "-n", "1"],
    ] {
        let mut full: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        full.insert(1, path.clone().into());
        let output = run(&full);
        no_panic(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
    }
    let output = run(["verify".as_ref(), path.as_os_str()]);
    assert!(
        stdout(&output)
            .contains("frame 1 at byte 21: the header declares 4611686018427387904 payload bytes")
    );
}

#[test]
fn directory_and_missing_file_are_unusable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = run(["verify".as_ref(), dir.path().as_os_str()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("is a directory"));
    let missing = dir.path().join("missing.tfrecord");
    for sub in ["verify", "list", "show", "hex"] {
        let output = run([sub.as_ref(), missing.as_os_str()]);
        assert_eq!(output.status.code(), Some(2), "{sub}");
        assert!(
            stderr(&output).contains("missing.tfrecord: No such file"),
            "{sub}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn unreadable_file_is_unusable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod dir");
    let path = dir.path().join("secret.tfrecord");
    std::fs::write(&path, tfrecord(&[b"x"])).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    // Root reads anything, so run the binary as an unprivileged user when we are root.
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false);
    let output = if is_root {
        std::process::Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                env!("CARGO_BIN_EXE_tfr-inspect"),
                "verify",
            ])
            .arg(&path)
            .output()
            .expect("setpriv runs (util-linux)")
    } else {
        run(["verify".as_ref(), path.as_os_str()])
    };
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("secret.tfrecord: Permission denied"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn payload_that_is_not_protobuf_is_shown_as_bytes() {
    let (_dir, path) = temp_file("bin.tfrecord", &tfrecord(&[&[0xff, 0xfe, 0x00, 0x07]]));
    let output = run(["show".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stdout(&output).contains("record 0  (offset 0, 4 bytes)  binary: bytes, 4 bytes"),
        "{}",
        stdout(&output)
    );
    let output = run(["list".as_ref(), path.as_os_str(), "--json".as_ref()]);
    assert!(stdout(&output).contains("\"kind\": \"binary\""));
}

#[test]
fn forcing_a_compression_the_file_does_not_have_is_a_usage_error() {
    let file = super::testdata("examples.tfrecord");
    let output = run([
        "verify".as_ref(),
        "--compression".as_ref(),
        "gzip".as_ref(),
        file.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).ends_with(
            "examples.tfrecord: not a GZIP stream (its first bytes say otherwise); \
             try --compression auto or none (at byte 0)\n"
        ),
        "{}",
        stderr(&output)
    );
}
