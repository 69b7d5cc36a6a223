//! Forensics against the TensorFlow-written corrupt fixtures: `list`, `verify`, `locate` and
//! `salvage` agree with each fixture's `expect.json` (the strict reader TensorFlow is, and the
//! resync scanner), compressed files open transparently, and no command changes its input. The
//! comparisons with `expect.json` run the subcommand in process; the errors, exit codes and the
//! unchanged inputs are checked through the binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tfr_core::compress::{self, Compression};
use tfr_core::frame::FrameIndex;
use tfr_core::source::{ReadOptions, Source};

use super::{Captured, Ran, run_in_process, stdout, testdata};

/// Runs the binary on `file` (plus `args`) and checks the file is byte-for-byte unchanged.
fn run_on(file: &Path, args: &[&str]) -> Output {
    let before = std::fs::read(file).expect("read input");
    let output = Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs");
    let after = std::fs::read(file).expect("read input again");
    assert!(before == after, "{} changed by {args:?}", file.display());
    output
}

/// As [`run_on`], with the subcommand run in this process: for the tests that compare what a
/// command reports, not how the binary ends.
fn run_in_process_on(file: &Path, args: &[&str]) -> Ran {
    let before = std::fs::read(file).expect("read input");
    let ran = run_in_process(args);
    let after = std::fs::read(file).expect("read input again");
    assert!(before == after, "{} changed by {args:?}", file.display());
    ran
}

fn json_lines(output: &impl Captured) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// One corrupt fixture and what its `expect.json` says.
struct Case {
    name: String,
    file: PathBuf,
    expect: Value,
}

impl Case {
    fn path(&self) -> &str {
        self.file.to_str().expect("UTF-8 path")
    }

    /// The `--compression` value the expectations were computed with.
    fn compression(&self) -> &'static str {
        match self.expect["compression"].as_str() {
            Some("GZIP") => "gzip",
            Some("ZLIB") => "zlib",
            _ => "none",
        }
    }

    /// `(offset, length)` of every frame the resync scanner accepts.
    fn resync_frames(&self) -> Vec<(u64, u64)> {
        self.expect["resync"]["frames"]
            .as_array()
            .expect("resync.frames")
            .iter()
            .map(|f| (f["offset"].as_u64().unwrap(), f["length"].as_u64().unwrap()))
            .collect()
    }

    /// The stream the expectations refer to: the file, or its decompressed prefix.
    fn stream(&self) -> Vec<u8> {
        let raw = std::fs::read(&self.file).unwrap();
        match self.compression() {
            "gzip" => {
                compress::decompress(&raw, Compression::Gzip, 1 << 30)
                    .unwrap()
                    .bytes
            }
            _ => raw,
        }
    }
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = std::fs::read_dir(testdata("corrupt"))
        .expect("testdata/corrupt")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tfrecord"))
        .map(|file| {
            let expect_path = file.with_extension("expect.json");
            let expect = serde_json::from_str(&std::fs::read_to_string(&expect_path).unwrap())
                .expect("expect.json parses");
            let name = file.file_stem().unwrap().to_string_lossy().into_owned();
            Case { name, file, expect }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(cases.len(), 19, "every corrupt fixture is present");
    cases
}

#[test]
fn list_finds_exactly_the_resync_frames() {
    for case in cases() {
        let output = run_in_process_on(
            &case.file,
            &[
                "list",
                "--json",
                "--compression",
                case.compression(),
                case.path(),
            ],
        );
        let intact: Vec<(u64, u64)> = json_lines(&output)
            .iter()
            .filter(|row| row["status"] == "intact")
            .map(|row| {
                (
                    row["offset"].as_u64().unwrap(),
                    row["length"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(intact, case.resync_frames(), "{}", case.name);
    }
}

#[test]
fn verify_reports_the_strict_readers_first_problem() {
    for case in cases() {
        let output = run_in_process_on(
            &case.file,
            &[
                "verify",
                "--json",
                "--compression",
                case.compression(),
                case.path(),
            ],
        );
        let report: Value = serde_json::from_str(stdout(&output).trim()).expect("verify JSON");
        let expected = &case.expect["strict_reader"]["first_problem"];
        if expected.is_null() {
            assert_eq!(output.status.code(), Some(0), "{}", case.name);
            assert_eq!(report["problems"], serde_json::json!([]), "{}", case.name);
            continue;
        }
        assert_eq!(output.status.code(), Some(1), "{}", case.name);
        let first = &report["problems"][0];
        assert_eq!(first["status"], expected["kind"], "{}", case.name);
        assert_eq!(first["offset"], expected["frame_offset"], "{}", case.name);
        match expected["tf_reported_offset"].as_u64() {
            Some(tf) => assert_eq!(first["tensorflow_offset"], tf, "{}", case.name),
            None => assert!(first.get("tensorflow_offset").is_none(), "{}", case.name),
        }
    }
}

#[test]
fn locate_names_the_frame_and_case_tensorflow_reported() {
    for case in cases() {
        let expected = &case.expect["strict_reader"]["first_problem"];
        if expected.is_null() {
            continue;
        }
        let (at, exact) = match expected["tf_reported_offset"].as_u64() {
            Some(tf) => (tf, true),
            // TensorFlow names no offset for a partial header; ask about the frame start instead.
            None => (expected["frame_offset"].as_u64().unwrap(), false),
        };
        let at_text = at.to_string();
        let output = run_in_process_on(
            &case.file,
            &[
                "locate",
                "--json",
                "--compression",
                case.compression(),
                case.path(),
                &at_text,
            ],
        );
        assert_eq!(output.status.code(), Some(1), "{}", case.name);
        let loc: Value = serde_json::from_str(stdout(&output).trim()).expect("locate JSON");
        assert_eq!(loc["case"], expected["kind"], "{}", case.name);
        assert_eq!(
            loc["frame"]["offset"], expected["frame_offset"],
            "{}",
            case.name
        );
        assert_eq!(loc["matches_tensorflow"], exact, "{}", case.name);
        let reads = case.expect["strict_reader"]["records_read"].clone();
        assert_eq!(loc["strict_reader_reads"], reads, "{}", case.name);
        // Every resync frame after the damaged one is listed as intact after it.
        let after: u64 = case
            .resync_frames()
            .iter()
            .filter(|(offset, _)| *offset > at)
            .count() as u64;
        assert_eq!(loc["intact_after_count"], after, "{}", case.name);
        if let Some(tf) = expected["tf_reported_offset"].as_u64() {
            let text = run_in_process_on(
                &case.file,
                &[
                    "locate",
                    "--compression",
                    case.compression(),
                    case.path(),
                    &at_text,
                ],
            );
            assert!(
                stdout(&text).contains(&format!("record at {tf}\"")),
                "{}: {}",
                case.name,
                stdout(&text)
            );
        }
    }
}

#[test]
fn salvage_writes_exactly_the_resync_payloads_and_they_read_clean() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases() {
        let out = dir.path().join(format!("{}.salvaged.tfrecord", case.name));
        let out_text = out.to_str().unwrap();
        let output = run_in_process_on(
            &case.file,
            &[
                "salvage",
                "--json",
                "--compression",
                case.compression(),
                case.path(),
                "-o",
                out_text,
            ],
        );
        let report: Value = serde_json::from_str(stdout(&output).trim()).expect("salvage JSON");
        let resync = case.resync_frames();
        assert_eq!(report["kept"], resync.len() as u64, "{}", case.name);
        assert_eq!(
            report["skipped_byte_ranges"], case.expect["resync"]["skipped_byte_ranges"],
            "{}",
            case.name
        );
        let clean = case.expect["strict_reader"]["first_problem"].is_null();
        assert_eq!(
            output.status.code(),
            Some(if clean { 0 } else { 1 }),
            "{}",
            case.name
        );

        let stream = case.stream();
        let expected: Vec<&[u8]> = resync
            .iter()
            .map(|&(offset, length)| {
                let start = offset as usize + 12;
                &stream[start..start + length as usize]
            })
            .collect();
        let written = std::fs::read(&out).unwrap();
        let index = FrameIndex::build(&written);
        assert_eq!(index.damaged_count(), 0, "{}", case.name);
        let payloads: Vec<&[u8]> = index
            .frames(&written)
            .map(|f| f.payload(&written).unwrap())
            .collect();
        assert!(payloads == expected, "{}: salvaged payloads", case.name);

        let verify = run_in_process_on(&out, &["verify", out_text]);
        assert_eq!(verify.status.code(), Some(0), "{}", case.name);
    }
    // Nothing but the outputs was left behind (no temporary files).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 19);
}

#[test]
fn salvage_refuses_to_overwrite_the_input_or_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tfrecord");
    std::fs::copy(testdata("corrupt/payload_bitflip.tfrecord"), &input).unwrap();
    let input_text = input.to_str().unwrap();

    for target in [input.clone(), dir.path().join(".").join("in.tfrecord")] {
        let out = run_on(
            &input,
            &[
                "salvage",
                input_text,
                "-o",
                target.to_str().unwrap(),
                "--force",
            ],
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to write over the input"));
    }
    #[cfg(unix)]
    {
        let link = dir.path().join("link.tfrecord");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = dir.path().join("hard.tfrecord");
        std::fs::hard_link(&input, &hard).unwrap();
        for target in [link, hard] {
            let out = run_on(
                &input,
                &[
                    "salvage",
                    input_text,
                    "-o",
                    target.to_str().unwrap(),
                    "--force",
                ],
            );
            assert_eq!(out.status.code(), Some(2), "{}", target.display());
        }
    }

    let existing = dir.path().join("existing.tfrecord");
    std::fs::write(&existing, b"keep me").unwrap();
    let existing_text = existing.to_str().unwrap();
    let out = run_on(&input, &["salvage", input_text, "-o", existing_text]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");

    let out = run_on(
        &input,
        &["salvage", input_text, "-o", existing_text, "--force"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("kept 199 records, dropped 1 damaged frame,"));
    let written = std::fs::read(&existing).unwrap();
    assert_eq!(FrameIndex::build(&written).len(), 199);

    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.ends_with(".tmp")),
        "temporary files left: {names:?}"
    );
}

#[test]
fn compressed_files_show_the_same_records_as_the_plain_file() {
    let golden = std::fs::read_to_string(testdata("examples.golden.jsonl")).unwrap();
    for name in ["examples_gzip", "examples_zlib"] {
        let file = testdata(&format!("{name}.tfrecord"));
        let output = run_on(&file, &["show", file.to_str().unwrap(), "--format", "json"]);
        assert!(output.status.success(), "{name}");
        assert!(stdout(&output) == golden, "{name}: show --format json");

        let stream = Source::open(&file, &ReadOptions::default()).unwrap();
        let plain = std::fs::read(testdata("examples.tfrecord")).unwrap();
        assert!(
            tfr_core::bytes::whole(&stream).unwrap() == plain.as_slice(),
            "{name}"
        );
        assert!(stream.compression().unwrap().problem.is_none());

        let verify = run_on(&file, &["verify", file.to_str().unwrap()]);
        assert_eq!(verify.status.code(), Some(0), "{name}");
        let text = stdout(&verify);
        assert!(text.contains("-compressed, "), "{text}");
        assert!(text.contains("200 frames, 200 intact"), "{text}");
    }
}

#[test]
fn gzip_read_as_plain_is_detected_unless_compression_none() {
    let file = testdata("corrupt/gzip_as_uncompressed.tfrecord");
    let path = file.to_str().unwrap();
    let auto = run_on(&file, &["verify", path]);
    assert_eq!(auto.status.code(), Some(0));
    let text = stdout(&auto);
    assert!(
        text.contains("OK: GZIP-compressed, 2369 bytes on disk"),
        "{text}"
    );
    assert!(text.contains("compression_type='GZIP'"), "{text}");
    let rows = json_lines(&run_on(&file, &["list", "--json", path]));
    assert_eq!(rows.len(), 200);
    assert!(rows.iter().all(|r| r["status"] == "intact"));

    let plain = run_on(&file, &["verify", "--compression", "none", path]);
    assert_eq!(plain.status.code(), Some(1));
    let text = stdout(&plain);
    assert!(text.contains("starts like a GZIP stream"), "{text}");
    assert!(text.contains("corrupted record at 0"), "{text}");
}

#[test]
fn a_truncated_gzip_stream_keeps_its_prefix_and_says_where_it_stopped() {
    let file = testdata("corrupt/gzip_truncated.tfrecord");
    let path = file.to_str().unwrap();
    let output = run_on(&file, &["verify", "--json", path]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(report["compression"], "gzip");
    assert_eq!(report["compressed_bytes"], 1421);
    assert_eq!(report["intact"], 111);
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2);
    assert_eq!(problems[0]["tensorflow_offset"], 11138);
    assert_eq!(problems[1]["status"], "compressed_stream_truncated");
    assert_eq!(problems[1]["compressed_offset"], 1421);
    assert_eq!(problems[1]["offset"], 11233);
    assert!(problems[1]["index"].is_null());

    let rows = json_lines(&run_on(&file, &["list", "--json", path]));
    assert_eq!(rows.iter().filter(|r| r["status"] == "intact").count(), 111);
}

#[test]
fn decompression_is_bounded() {
    let file = testdata("examples_gzip.tfrecord");
    let path = file.to_str().unwrap();
    for command in ["verify", "list", "locate"] {
        let mut args = vec![command, "--max-decompressed", "4K", path];
        if command == "locate" {
            args.push("0");
        }
        let output = run_on(&file, &args);
        assert_eq!(output.status.code(), Some(2), "{command}");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.contains("exceeds the limit of 4096 bytes"), "{err}");
        // The core says what is wrong; the application names the flag that raises the limit.
        assert!(
            err.contains("(use --max-decompressed to raise it)"),
            "{err}"
        );
    }
    // The stream is 20083 bytes: exactly the limit is allowed, one byte over is not.
    let ok = run_on(&file, &["verify", "--max-decompressed", "20083", path]);
    assert_eq!(ok.status.code(), Some(0));
    let over = run_on(&file, &["verify", "--max-decompressed", "20082", path]);
    assert_eq!(over.status.code(), Some(2));
}

#[test]
fn locate_explains_offsets_inside_intact_frames() {
    let file = testdata("examples.tfrecord");
    let path = file.to_str().unwrap();
    // Frame 1 starts at 99 (length 84): 99 length, 107 length CRC, 111 payload, 195 payload CRC.
    for (at, part) in [
        ("99", "length"),
        ("107", "length_crc"),
        ("111", "payload"),
        ("195", "payload_crc"),
    ] {
        let output = run_on(&file, &["locate", "--json", path, at]);
        assert_eq!(output.status.code(), Some(0));
        let loc: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
        assert_eq!(loc["case"], "intact");
        assert_eq!(loc["part"], part, "{at}");
        assert_eq!(loc["frame"]["index"], 1);
    }
    let past = run_on(&file, &["locate", "--json", path, "999999"]);
    let loc: Value = serde_json::from_str(stdout(&past).trim()).unwrap();
    assert_eq!(loc["case"], "past_end");
    assert_eq!(
        past.status.code(),
        Some(2),
        "an offset outside the file is an unusable question"
    );
}

#[test]
fn no_command_changes_any_input() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases() {
        let out = dir.path().join("out.tfrecord");
        let out_text = out.to_str().unwrap();
        let path = case.path();
        for args in [
            vec!["list", path],
            vec!["show", path],
            vec!["show", path, "--format", "json"],
            vec!["hex", path, "-n", "0"],
            vec!["verify", path],
            vec!["locate", path, "0"],
            vec!["salvage", path, "-o", out_text, "--force"],
            vec!["salvage", path, "-o", path, "--force"],
        ] {
            // In process (a panic fails the test): whatever each ends with, the input's bytes
            // are unchanged.
            let before = std::fs::read(&case.file).unwrap();
            let _ = super::run_in_process_or_fail(&args);
            let after = std::fs::read(&case.file).unwrap();
            assert!(before == after, "{} changed by {args:?}", case.name);
        }
    }
    // And through the binary, for each command once.
    let case = cases().into_iter().next().unwrap();
    let out = dir.path().join("out.tfrecord");
    for args in [
        vec!["list", case.path()],
        vec!["show", case.path(), "--format", "json"],
        vec!["hex", case.path(), "-n", "0"],
        vec!["verify", case.path()],
        vec!["locate", case.path(), "0"],
        vec![
            "salvage",
            case.path(),
            "-o",
            out.to_str().unwrap(),
            "--force",
        ],
        vec!["salvage", case.path(), "-o", case.path(), "--force"],
    ] {
        // run_on asserts the bytes are unchanged.
        let output = run_on(&case.file, &args);
        assert!(output.status.code().is_some(), "{args:?} was killed");
    }
}
