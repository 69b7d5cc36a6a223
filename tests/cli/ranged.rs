//! Every command, and the inspector's first screen, read their inputs through byte ranges: run in
//! process over the mapped file and over the same file served only in ranges of at most
//! [`RANGE`] bytes (as an object store behind a cache would serve it; [`Ranged`] refuses any
//! longer read, so nothing can take the file as one slice), they print the same.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tfr_core::bytes::ByteSource;
use tfr_core::crafted::{Ranged, ReadCounts};
use tfr_core::source::ServeThrough;
use tfr_inspect::cli::argv::{self, Parsed};
use tfr_inspect::status::Status;

use crate::testdata;

/// The longest read the ranged source serves: more than any payload of the fixtures used here
/// (9267 bytes), less than each of their files, so that each is read in ranges.
const RANGE: u64 = 12 << 10;

static COUNTS: ReadCounts = ReadCounts::new();

fn ranged(inner: Arc<dyn ByteSource>) -> Arc<dyn ByteSource> {
    Arc::new(Ranged::new(inner, RANGE, &COUNTS))
}

/// `args` (after the program name) run in process, every input served through `serve`; what
/// was written to stdout, and the status.
fn run_in_process(args: &[&OsString], serve: Option<ServeThrough>) -> (String, Status) {
    let (out, _, status) = run_saying(args, serve);
    (out, status)
}

/// [`run_in_process`], with what was said beside the output (warnings and errors) as well.
fn run_saying(args: &[&OsString], serve: Option<ServeThrough>) -> (String, String, Status) {
    let mut argv: Vec<OsString> = vec!["tfr-inspect".into()];
    argv.extend(args.iter().map(|a| (*a).clone()));
    let Parsed::Run(mut cli) = argv::parse(argv) else {
        panic!("not a command: {args:?}");
    };
    argv::settle(&mut cli).unwrap();
    let mut open = cli.groups().open_options().unwrap();
    open.read.serve_through = serve;
    let command = cli.command.as_ref().expect("a subcommand");
    let (mut out, mut said) = (Vec::new(), Vec::new());
    let env = tfr_inspect::cli::Env::plain();
    let messages = tfr_inspect::cli::Messages::to(&mut said);
    let status = tfr_inspect::cli::dispatch(command, &open, &env, &messages, &mut out).unwrap();
    drop(messages);
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (text(out), text(said), status)
}

/// `file` opened as the commands open it, served through `serve`.
fn open_served(file: &Path, serve: ServeThrough) -> tfr_core::source::Source {
    let options = tfr_core::source::ReadOptions {
        serve_through: Some(serve),
        ..Default::default()
    };
    tfr_core::source::Source::open(file, &options).unwrap()
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// Runs `args` over the mapped files and over ranged reads of them, and checks that both print
/// the same and end the same; returns the output.
fn same_output(args: &[OsString]) -> String {
    let args: Vec<&OsString> = args.iter().collect();
    let before = COUNTS.reads();
    let mapped = run_in_process(&args, None);
    let served = run_in_process(&args, Some(ranged));
    assert_eq!(served.0, mapped.0, "{args:?}");
    assert_eq!(served.1, mapped.1, "{args:?}");
    assert!(
        COUNTS.reads() > before,
        "{args:?} read through the ranged source"
    );
    assert!(!mapped.0.is_empty(), "{args:?} printed something");
    mapped.0
}

fn file_args(command: &[&str], file: &Path, more: &[&str]) -> Vec<OsString> {
    let mut args = os(command);
    args.push(file.into());
    args.extend(os(more));
    args
}

/// Files larger than [`RANGE`], clean and damaged.
fn shards() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = [
        "examples.tfrecord",
        "mnist_like.tfrecord",
        "images.tfrecord",
    ]
    .iter()
    .map(|name| testdata(name))
    .collect();
    for name in [
        "payload_bitflip",
        "length_bitflip",
        "truncated_mid_payload",
        "zeroed_block",
        "trailing_garbage",
        "concatenated",
        "images_truncated",
    ] {
        files.push(testdata(&format!("corrupt/{name}.tfrecord")));
    }
    for file in &files {
        let len = std::fs::metadata(file).unwrap().len();
        assert!(len > RANGE, "{} is read in ranges", file.display());
    }
    files
}

#[test]
fn a_ranged_source_cannot_be_read_whole() {
    let source = open_served(&testdata("examples.tfrecord"), ranged);
    let err = tfr_core::bytes::whole(&source).unwrap_err();
    assert!(
        matches!(
            err,
            tfr_core::bytes::ReadError::TooLarge { limit: RANGE, .. }
        ),
        "{err}"
    );
}

#[test]
fn list_reads_through_ranges() {
    for file in shards() {
        same_output(&file_args(&["list"], &file, &[]));
        same_output(&file_args(&["list"], &file, &["--json"]));
    }
}

#[test]
fn show_reads_through_ranges() {
    for file in shards() {
        same_output(&file_args(&["show"], &file, &[]));
        same_output(&file_args(&["show"], &file, &["--format", "json"]));
    }
    same_output(&file_args(
        &["show"],
        &testdata("examples.tfrecord"),
        &["-n", "3", "--notes"],
    ));
}

#[test]
fn hex_reads_through_ranges() {
    for file in shards() {
        for record in ["0", "2"] {
            same_output(&file_args(&["hex"], &file, &["-n", record]));
            same_output(&file_args(&["hex"], &file, &["-n", record, "--json"]));
            same_output(&file_args(&["hex"], &file, &["-n", record, "--full"]));
        }
    }
    let images = testdata("images.tfrecord");
    same_output(&file_args(&["hex"], &images, &["-n", "1", "--dump"]));
    same_output(&file_args(&["hex"], &images, &["-n", "1", "--explain"]));
}

#[test]
fn verify_reads_through_ranges() {
    for file in shards() {
        same_output(&file_args(&["verify"], &file, &[]));
        same_output(&file_args(&["verify"], &file, &["--json"]));
    }
    same_output(&file_args(
        &["verify"],
        &testdata("corrupt/images_payload_bitflip.tfrecord"),
        &["--images"],
    ));
}

#[test]
fn stats_reads_through_ranges() {
    for file in shards() {
        same_output(&file_args(&["stats", "--json"], &file, &[]));
    }
}

#[test]
fn locate_and_index_read_through_ranges() {
    for file in shards() {
        same_output(&file_args(&["locate"], &file, &["5000", "--json"]));
        same_output(&file_args(&["index", "--intact-only"], &file, &[]));
    }
    same_output(&file_args(&["index"], &testdata("examples.tfrecord"), &[]));
}

#[test]
fn salvage_reads_through_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("salvaged.tfrecord");
    for file in shards() {
        let args = file_args(&["salvage"], &file, &["-o", out.to_str().unwrap()]);
        let args: Vec<&OsString> = args.iter().collect();
        let mapped = run_in_process(&args, None);
        let written = std::fs::read(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        let served = run_in_process(&args, Some(ranged));
        assert_eq!(served, mapped, "{}", file.display());
        assert_eq!(std::fs::read(&out).unwrap(), written, "{}", file.display());
        std::fs::remove_file(&out).unwrap();
    }
}

static SHOW_COUNTS: ReadCounts = ReadCounts::new();

fn ranged_counted(inner: Arc<dyn ByteSource>) -> Arc<dyn ByteSource> {
    Arc::new(Ranged::new(inner, RANGE, &SHOW_COUNTS))
}

#[test]
fn showing_one_record_of_a_large_file_reads_a_small_part_of_it() {
    // 16 MiB of small records: opening learns from the first megabyte at most.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.tfrecord");
    let payload =
        tfr_core::crafted::example(&[("label", tfr_core::crafted::FeatureValue::Ints(vec![7]))]);
    let mut bytes = Vec::new();
    while bytes.len() < 16 << 20 {
        tfr_core::frame::write_record(&payload, &mut bytes).unwrap();
    }
    std::fs::write(&path, &bytes).unwrap();
    let args = file_args(&["show"], &path, &["-n", "1"]);
    let args: Vec<&OsString> = args.iter().collect();
    let mapped = run_in_process(&args, None);
    let served = run_in_process(&args, Some(ranged_counted));
    assert_eq!(served, mapped);
    assert!(mapped.0.contains("label"), "{}", mapped.0);
    let read = SHOW_COUNTS.bytes();
    assert!(read > 0);
    assert!(
        read <= (bytes.len() / 8) as u64,
        "{read} of {} bytes read to show one record",
        bytes.len()
    );
}

#[test]
fn a_read_that_fails_is_an_error_naming_the_file_and_the_offset() {
    static FAILING: ReadCounts = ReadCounts::new();
    fn failing(inner: Arc<dyn ByteSource>) -> Arc<dyn ByteSource> {
        use tfr_core::span::{FileOffset, FileRange};
        // Inside the payload of record 5 (frames of 87 + 16 bytes at most).
        let bad = FileRange::new(FileOffset(600), FileOffset(601));
        Arc::new(Ranged::new(inner, RANGE, &FAILING).failing(bad))
    }
    let file = testdata("examples.tfrecord");
    for command in [&["verify"][..], &["list"], &["show"], &["stats", "--json"]] {
        let args = file_args(command, &file, &[]);
        let args: Vec<&OsString> = args.iter().collect();
        let (_, status) = run_in_process(&args, Some(failing));
        assert_eq!(status, Status::Unusable, "{command:?}");
    }
    let source = open_served(&file, failing);
    let _ = tfr_core::frame::FrameIndex::build(&source);
    let message = source.check_unchanged().unwrap_err().to_string();
    assert!(message.starts_with(&format!("{}: cannot read at byte ", file.display())));
    assert!(
        message.contains("the object changed since it was opened"),
        "{message}"
    );
}

#[test]
fn the_inspector_opens_the_same_over_ranged_reads() {
    use tfr_core::input::OpenOptions;
    use tfr_inspect::tui::app::App;
    for file in shards() {
        let screen = |serve: Option<ServeThrough>| {
            let mut options = OpenOptions::new(crate::tui::decoder());
            options.read.serve_through = serve;
            let mut app = App::open(std::slice::from_ref(&file), &options).unwrap();
            app.index_now();
            crate::tui::render(&app, 120, 40)
        };
        assert_eq!(screen(Some(ranged)), screen(None), "{}", file.display());
    }
}

/// A file whose record 1 holds a payload longer than the ranged source serves at once, between
/// two small records; and where that payload starts and ends.
fn a_file_with_a_long_payload(dir: &Path) -> (PathBuf, u64, u64) {
    use tfr_core::crafted::{FeatureValue, example};
    let path = dir.join("long.tfrecord");
    let small = example(&[("label", FeatureValue::Ints(vec![7]))]);
    let long = example(&[(
        "blob",
        FeatureValue::Bytes(vec![vec![b'x'; (RANGE + 4096) as usize]]),
    )]);
    let mut bytes = Vec::new();
    tfr_core::frame::write_record(&small, &mut bytes).unwrap();
    let payload_start = bytes.len() as u64 + 12;
    tfr_core::frame::write_record(&long, &mut bytes).unwrap();
    tfr_core::frame::write_record(&small, &mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    (path, payload_start, payload_start + long.len() as u64)
}

#[test]
fn a_payload_the_source_will_not_serve_at_once_is_an_error_naming_file_record_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let (file, payload_start, payload_end) = a_file_with_a_long_payload(dir.path());
    // The frames are whole and their CRCs match: the index reads a long payload in pieces.
    for command in [&["verify"][..], &["index"]] {
        let args = file_args(command, &file, &[]);
        let args: Vec<&OsString> = args.iter().collect();
        let (out, said, status) = run_saying(&args, Some(ranged));
        assert_eq!(status, Status::Clean, "{command:?}: {out}{said}");
    }
    // A command that needs the payload whole says it could not have it (naming the file, the
    // record and the offset), instead of showing the record as empty, damaged or absent.
    let source = open_served(&file, ranged);
    let index = tfr_core::frame::FrameIndex::build(&source);
    assert!(source.check_unchanged().is_ok());
    assert_eq!(index.get(&source, 1).unwrap().payload(&source), None);
    let error = source.check_unchanged().unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "{}: record 1: cannot read at byte {payload_start}: bytes {payload_start}..{payload_end} are more than this source reads at once ({RANGE} bytes)",
            file.display(),
        )
    );
    for command in [
        &["show"][..],
        &["show", "-n", "1"],
        &["list"],
        &["list", "--json"],
        &["stats", "--json"],
        &["hex", "-n", "1"],
    ] {
        let args = file_args(command, &file, &[]);
        let args: Vec<&OsString> = args.iter().collect();
        let (out, said, status) = run_saying(&args, Some(ranged));
        assert_eq!(status, Status::Unusable, "{command:?}: {out}{said}");
        assert!(!out.contains("data_crc_mismatch"), "{command:?}: {out}");
    }
}
