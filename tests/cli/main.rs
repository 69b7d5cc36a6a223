//! Integration tests of the `tfr-inspect` binary, one module per subcommand, plus the agreement
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! with the goldens that python protobuf wrote for the TensorFlow fixtures in `testdata/`.

mod bad_input;
mod escapes;
mod golden;
mod hex;
mod list;
mod show;
mod verify;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

/// Runs the binary with `args` and returns its output (stdout and stderr captured, no terminal).
pub fn run<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Frames `payloads` as a TFRecord writer does.
pub fn tfrecord(payloads: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for payload in payloads {
        tfr_inspect::frame::write_record(payload, &mut out).expect("write to memory");
    }
    out
}

/// Writes `bytes` to a new file in a fresh temporary directory.
pub fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    (dir, path)
}
