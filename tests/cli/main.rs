//! The fast tests of the binary and the app: the `tfr-inspect` binary, one module per subcommand,
//! plus the agreement with the goldens that python protobuf wrote for the TensorFlow fixtures in
//! `testdata/` and the forensics against the corrupt ones; the inspector on a `TestBackend`
//! (`tui`). The slow tests (tmux, records far larger than the fixtures) are `tests/slow`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod bad_input;
mod changing;
mod count;
mod dataset;
mod encode;
mod escapes;
mod export;
mod filter;
mod forensics;
mod golden;
mod guide;
mod help;
mod hex;
mod hex_compare;
mod hostile;
mod images;
mod index;
mod list;
mod metadata;
mod nested_payloads;
mod payloads;
mod pick;
mod plugins;
mod quiz;
mod ranged;
mod readme_status;
mod remote;
mod salvage;
mod schema;
mod selection;
mod show;
mod snappy;
mod snapshot;
mod split_numbers;
mod stats;
mod stats_known;
mod stats_partial;
mod stats_text;
mod stats_tfdv;
mod tags;
mod teach;
mod tui;
mod unix;
mod unusual_files;
mod verify;
mod verify_merge;

#[path = "../support/proto.rs"]
mod proto;

/// A length-delimited field by field number, as the tests of the binary name it.
pub use proto::ld as len_field;

use std::ffi::OsStr;
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

/// The binary, started through `sh` under the resource limits `limits` (options of `ulimit`, such
/// as `-v 1048576` or `-n 64`), which it cannot raise again; colour left to the test.
pub fn under_ulimit(limits: &str) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit {limits} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_tfr-inspect"))
        .env_remove("NO_COLOR");
    command
}

/// Runs the binary with `args` in an address space of at most `limit` bytes (`ulimit -v`), so a
/// regression that allocates what an input declares is killed at the limit instead of swapping.
/// glibc's per-thread malloc arenas are kept to two, so the limit does not depend on the cores.
pub fn run_limited<I, S>(limit: u64, args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    under_ulimit(&format!("-v {}", limit / 1024))
        .args(args)
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .expect("sh runs")
}

/// One gibibyte.
pub const GIB: u64 = 1 << 30;

/// Address space allowed a run of the binary in the tests of hostile inputs, in KiB: far above
/// what any of them needs, so that a regression that reads a hostile file whole fails there and
/// then instead of taking the machine's memory.
pub const MEMORY_CAP_KIB: u64 = 2 << 20;

/// How long a run of the binary on a hostile input may take before it is taken for a hang,
/// killed, and the test failed (a guard, not a measurement: every such run takes well under a
/// second).
const HANG_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Runs the binary with `args` in `dir`, with `stdin` as its standard input, its address space
/// capped at `memory_kib` KiB (`ulimit -v`) and killed if it has not ended after [`HANG_AFTER`],
/// which fails the test.
pub fn run_bounded<I, S>(args: I, dir: &Path, stdin: &[u8], memory_kib: u64) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    use std::io::{Read, Write};
    use std::process::Stdio;
    let mut child = under_ulimit(&format!("-v {memory_kib}"))
        .args(args)
        .current_dir(dir)
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut input = child.stdin.take().expect("stdin");
    let sent = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        // The binary may not read it all (or at all): a closed pipe is no failure.
        let _ = input.write_all(&sent);
    });
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = r.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > HANG_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hung: no exit after {HANG_AFTER:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let _ = feeder.join();
    Output {
        status,
        stdout: out.join().expect("stdout read"),
        stderr: err.join().expect("stderr read"),
    }
}

/// Makes a named pipe at `path` (with no writer: opening it to read blocks).
pub fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// What a run wrote to stdout and stderr: of the binary, or of a subcommand run in process.
pub trait Captured {
    fn out(&self) -> &[u8];
    fn err(&self) -> &[u8];
}

impl Captured for Output {
    fn out(&self) -> &[u8] {
        &self.stdout
    }

    fn err(&self) -> &[u8] {
        &self.stderr
    }
}

pub fn stdout(output: &impl Captured) -> String {
    String::from_utf8(output.out().to_vec()).expect("stdout is UTF-8")
}

pub fn stderr(output: &impl Captured) -> String {
    String::from_utf8_lossy(output.err()).into_owned()
}

/// A subcommand run in this process by [`run_in_process`].
pub struct Ran {
    pub status: RanStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ran")
            .field("status", &self.status.code())
            .field("stdout", &String::from_utf8_lossy(&self.stdout))
            .field("stderr", &String::from_utf8_lossy(&self.stderr))
            .finish()
    }
}

/// The exit status a run in process ends with, asked as of a process's.
pub struct RanStatus(tfr_inspect::cli::Status);

impl RanStatus {
    pub fn code(&self) -> Option<i32> {
        Some(self.0 as i32)
    }

    pub fn success(&self) -> bool {
        self.0 == tfr_inspect::cli::Status::Clean
    }
}

impl Captured for Ran {
    fn out(&self) -> &[u8] {
        &self.stdout
    }

    fn err(&self) -> &[u8] {
        &self.stderr
    }
}

/// Runs the subcommand `args` name (without the program name) in this process, as the binary
/// runs it through a pipe: no terminal, no colour unless `--color always`. Its messages are
/// captured.
pub fn run_in_process<I, S>(args: I) -> Ran
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let (status, stdout, stderr) = run_in_process_or_fail(args);
    Ran {
        status: RanStatus(status.expect("runs")),
        stdout,
        stderr,
    }
}

/// As [`run_in_process`], for a run that may fail as the binary fails: its error is written to
/// the captured stderr as the binary writes it, and the status is the binary's for it (2).
pub fn run_in_process_as_binary<I, S>(args: I) -> Ran
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let (status, stdout, mut stderr) = run_in_process_or_fail(args);
    let status = status.unwrap_or_else(|e| tfr_inspect::cli::Messages::to(&mut stderr).failed(&e));
    Ran {
        status: RanStatus(status),
        stdout,
        stderr,
    }
}

/// `subcommand` with `flags`, then `inputs`, run in process as the binary runs it
/// ([`run_in_process_as_binary`]): its status, stdout and stderr.
pub fn outcome(
    subcommand: &str,
    flags: &[&str],
    inputs: &[&Path],
) -> (Option<i32>, String, String) {
    let ran = run_in_process_as_binary(arguments(subcommand, flags, inputs));
    (ran.status.code(), stdout(&ran), stderr(&ran))
}

/// [`outcome`] through the binary.
pub fn outcome_by_binary(
    subcommand: &str,
    flags: &[&str],
    inputs: &[&Path],
) -> (Option<i32>, String, String) {
    let output = run(arguments(subcommand, flags, inputs));
    (output.status.code(), stdout(&output), stderr(&output))
}

/// The arguments of `subcommand` with `flags`, then `inputs`.
fn arguments<'a>(subcommand: &'a str, flags: &[&'a str], inputs: &[&'a Path]) -> Vec<&'a OsStr> {
    let mut all: Vec<&OsStr> = vec![subcommand.as_ref()];
    all.extend(flags.iter().map(|flag| OsStr::new(*flag)));
    all.extend(inputs.iter().map(|input| input.as_os_str()));
    all
}

/// As [`run_in_process`], for a run that may fail: the error the binary would print and exit 2
/// with is returned instead of failing the test.
pub fn run_in_process_or_fail<I, S>(
    args: I,
) -> (anyhow::Result<tfr_inspect::cli::Status>, Vec<u8>, Vec<u8>)
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    use clap::Parser;
    use tfr_inspect::cli::{self, Cli, Env, Messages, env::Stream};
    let argv = std::iter::once("tfr-inspect".into()).chain(args.into_iter().map(Into::into));
    let mut parsed = Cli::try_parse_from(argv).expect("arguments parse");
    cli::argv::settle(&mut parsed).expect("arguments settle");
    let colour = parsed.color == cli::ColorChoice::Always;
    let env = Env {
        stdout: Stream {
            terminal: false,
            colour,
        },
        ..Env::plain()
    };
    let command = parsed.command.as_ref().expect("a subcommand");
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let status = {
        let messages = Messages::to(&mut stderr);
        cli::run(command, &env, &messages, &mut stdout)
    };
    (status, stdout, stderr)
}

/// Frames `payloads` as a TFRecord writer does.
pub fn tfrecord(payloads: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for payload in payloads {
        tfr_core::frame::write_record(payload, &mut out).expect("write to memory");
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

/// Feature names and a string value a hostile writer could choose: an OSC sequence that retitles
/// the terminal, a carriage return that overwrites a line, DEL, a right-to-left override.
pub const HOSTILE_NAMES: [&str; 4] = ["\x1b]2;owned\x07", "a\rDAMAGED", "del\x7f", "\u{202e}gpj"];

/// An Example whose feature names are [`HOSTILE_NAMES`], each an int64 7, plus a feature `v`
/// holding the bytes `new\nline`.
pub fn hostile_example() -> Vec<u8> {
    let int64 = len_field(3, &len_field(1, &[7]));
    let mut entries: Vec<u8> = HOSTILE_NAMES
        .iter()
        .flat_map(|name| {
            len_field(
                1,
                &[len_field(1, name.as_bytes()), len_field(2, &int64)].concat(),
            )
        })
        .collect();
    let text = len_field(1, &len_field(1, b"new\nline"));
    entries.extend(len_field(
        1,
        &[len_field(1, b"v"), len_field(2, &text)].concat(),
    ));
    len_field(1, &entries)
}

/// Whether `text` holds anything a terminal would act on: C0 controls but the newline, DEL, C1
/// controls, bidirectional overrides.
pub fn acts_on_a_terminal(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c))
}

#[path = "../support/serve.rs"]
#[allow(dead_code)] // each binary uses part of the server
mod serve;
