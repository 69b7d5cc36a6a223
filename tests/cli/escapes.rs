//! Bytes a file controls (its name, its keys and values) never reach the terminal raw: file names
//! in reports and error messages are escaped, and `show --format text` escapes as Python does.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use super::{run, stderr, stdout, tfrecord};

/// A name that retitles the terminal and then overwrites its own line.
const HOSTILE_NAME: &[u8] = b"x\x1b]2;owned\x07\rOK.tfrecord";
/// How messages must show [`HOSTILE_NAME`].
const HOSTILE_SHOWN: &str = r"x\033]2;owned\007\rOK.tfrecord";

/// Creates a file called `name` (raw bytes, as a Unix file name may be) in a fresh directory.
fn hostile_file(name: &[u8], bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(OsStr::from_bytes(name));
    std::fs::write(&path, bytes).expect("write temp file");
    (dir, path)
}

fn damaged_file() -> Vec<u8> {
    let mut data = tfrecord(&[b"first", b"second"]);
    let last = data.len() - 1;
    data[last] ^= 0xff;
    data
}

fn assert_no_raw_controls(text: &str) {
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| c != '\n' && tfr_core::escape::is_unsafe(c))
        .collect();
    assert!(raw.is_empty(), "raw {raw:?} in {text:?}");
}

fn with_path(command: &[&str], path: &std::path::Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = command.iter().map(OsString::from).collect();
    args.insert(1, path.as_os_str().to_owned());
    args
}

#[test]
fn verify_escapes_the_file_name_in_every_line() {
    let (_dir, path) = hostile_file(HOSTILE_NAME, &damaged_file());
    let output = run(["verify".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert_no_raw_controls(&text);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    for line in lines {
        assert!(line.contains(&format!("{HOSTILE_SHOWN}: ")), "{line}");
    }
    assert!(
        text.contains(&format!("{HOSTILE_SHOWN}: DAMAGED: ")),
        "{text}"
    );
}

#[test]
fn locate_escapes_the_file_name() {
    let (_dir, path) = hostile_file(HOSTILE_NAME, &damaged_file());
    let output = run(with_path(&["locate", "40"], &path));
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert_no_raw_controls(&text);
    assert!(
        text.contains(&format!("{HOSTILE_SHOWN}: byte 40 is in the payload CRC")),
        "{text}"
    );
}

#[test]
fn a_missing_file_is_named_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(OsStr::from_bytes(HOSTILE_NAME));
    for command in [&["verify"][..], &["locate", "0"], &["show"], &["list"]] {
        let output = run(with_path(command, &path));
        assert_eq!(output.status.code(), Some(2), "{command:?}");
        let message = stderr(&output);
        assert_no_raw_controls(&message);
        assert!(
            message.contains(&format!("{HOSTILE_SHOWN}: ")),
            "{command:?}: {message}"
        );
    }
}

#[test]
fn a_name_that_is_not_utf8_shows_its_bytes_in_octal() {
    let (_dir, path) = hostile_file(b"caf\xe9\x9b.tfrecord", &damaged_file());
    let output = run(["verify".as_ref(), path.as_os_str()]);
    let text = stdout(&output);
    assert!(text.contains(r"caf\351\233.tfrecord: DAMAGED"), "{text}");
}

#[test]
fn messages_built_from_a_path_outside_the_core_are_escaped_too() {
    // `salvage -o DIR` refuses a directory with a message that quotes the path as given.
    let (dir, input) = hostile_file(b"in.tfrecord", &damaged_file());
    let output_dir = dir.path().join(OsStr::from_bytes(b"out\x1b[2J\x9b"));
    std::fs::create_dir(&output_dir).expect("mkdir");
    let mut args = with_path(&["salvage"], &input);
    args.extend([OsString::from("-o"), output_dir.into_os_string()]);
    let output = run(args);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_no_raw_controls(&message);
    assert!(message.contains(r"out\033[2J"), "{message}");
}

/// `features { feature { key: KEY value { bytes_list { value: VALUE } } } }`, encoded by hand.
fn example(key: &[u8], value: &[u8]) -> Vec<u8> {
    use crate::proto::ld as field;
    let feature = field(2, &field(1, &field(1, value)));
    let entry = [field(1, key), feature].concat();
    field(1, &field(1, &entry))
}

#[test]
fn text_format_escapes_controls_in_keys_as_python_does() {
    let payload = example(
        "\u{1b}]52;c;AAAA\u{7}\r\u{7f}é\u{9b}".as_bytes(),
        b"\x00\x1b\xff",
    );
    let (_dir, path) = hostile_file(b"keys.tfrecord", &tfrecord(&[&payload]));
    let output = run(with_path(
        &[
            "show",
            "--format",
            "text",
            "--message",
            "tensorflow.Example",
        ],
        &path,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // What Python protobuf 7.36.2's text_format.MessageToString prints for this Example: ASCII
    // controls and DEL in octal, other characters (U+009B included) as UTF-8.
    let python = "# record 0\nfeatures {\n  feature {\n    key: \"\\033]52;c;AAAA\\007\\r\\177é\u{9b}\"\n    value {\n      bytes_list {\n        value: \"\\000\\033\\377\"\n      }\n    }\n  }\n}\n";
    assert_eq!(stdout(&output), python);
}

/// An OSC title, an OSC 52 clipboard write and a screen clear: what metadata strings try.
const TITLE: &str = "\u{1b}]2;owned\u{7}";
const CLIPBOARD: &str = "\u{1b}]52;c;QUJD\u{7}";
const CLEAR: &str = "\u{1b}[2J";

/// Rewrites the JSON file `path` with `edit`.
fn edit_json(path: &std::path::Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    edit(&mut json);
    std::fs::write(path, json.to_string()).expect("write");
}

#[test]
fn what_features_json_says_is_escaped_in_show() {
    let (_tmp, dir) = super::dataset::toy_parcels();
    edit_json(&dir.join("features.json"), |f| {
        let all = &mut f["featuresDict"]["features"];
        all["grid"]["tensor"]["dtype"] = format!("bo{TITLE}ol").into();
        all["image"]["image"]["encodingFormat"] = format!("png{CLEAR}").into();
        all["caption"] = serde_json::json!({"pythonClassName": format!("x.Te{CLIPBOARD}xt")});
        all[format!("zz{TITLE}")] = serde_json::json!({"text": {}});
    });
    let shard = dir.join("toy_parcels-train.tfrecord-00000-of-00002");
    let output = run([
        "show".as_ref(),
        shard.as_os_str(),
        "-n".as_ref(),
        "0".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert_no_raw_controls(&text);
    for shown in [
        r"bo\033]2;owned\007ol[3, 3]",
        r"Image 32x48x3 png\033[2J",
        r"Te\033]52;c;QUJD\007xt",
        r"zz\033]2;owned\007  Text",
    ] {
        assert!(text.contains(shown), "{shown} in {text}");
    }
}

#[test]
fn split_names_from_dataset_info_are_escaped_in_every_command() {
    let (_tmp, dir) = super::dataset::toy_parcels();
    edit_json(&dir.join("dataset_info.json"), |info| {
        info["splits"][0]["name"] = format!("tr{TITLE}ain").into();
        info["splits"][0]["filepathTemplate"] =
            "{DATASET}-train.{FILEFORMAT}-{SHARD_X_OF_Y}".into();
    });
    let shown = r"tr\033]2;owned\007ain";
    for command in ["verify", "list", "stats"] {
        let output = run([command.as_ref(), dir.as_os_str()]);
        let text = format!("{}{}", stdout(&output), stderr(&output));
        assert_no_raw_controls(&text);
        assert!(text.contains(shown), "{command}: {text}");
    }
    let verify = stdout(&run(["verify".as_ref(), dir.as_os_str()]));
    assert!(
        verify.contains(&format!(
            "; {shown} shard 00000 of 00002, records 0..14 of {shown}\n"
        )),
        "{verify}"
    );
    let list = stdout(&run(["list".as_ref(), dir.as_os_str()]));
    assert!(
        list.contains(&format!(" ({shown} shard 00001 of 00002)\n")),
        "{list}"
    );
    let stats = stdout(&run(["stats".as_ref(), dir.as_os_str()]));
    assert!(
        stats.contains(&format!(
            "skew: histograms of {shown} and validation differ"
        )),
        "{stats}"
    );
}

#[test]
fn split_names_from_shard_file_names_are_escaped() {
    let (_tmp, source) = super::dataset::toy_parcels();
    let dir = tempfile::tempdir().expect("tempdir");
    for (from, to) in [
        (
            "toy_parcels-train.tfrecord-00000-of-00002",
            "a\x1b]2;X\x07-00000-of-00001",
        ),
        (
            "toy_parcels-validation.tfrecord-00000-of-00002",
            "b\x1b]2;Y\x07-00000-of-00001",
        ),
    ] {
        std::fs::copy(source.join(from), dir.path().join(to)).expect("copy");
    }
    for command in ["verify", "list", "stats"] {
        let output = run([command.as_ref(), dir.path().as_os_str()]);
        let text = format!("{}{}", stdout(&output), stderr(&output));
        assert_no_raw_controls(&text);
        assert!(text.contains(r"a\033]2;X\007"), "{command}: {text}");
    }
}

#[test]
fn quiz_shows_the_answer_typed_escaped() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(["quiz", "--questions", "1"])
        .arg(super::testdata("mnist_like.tfrecord"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut answers = child.stdin.take().expect("stdin");
    answers
        .write_all(format!("{CLIPBOARD}\n").as_bytes())
        .expect("typed");
    drop(answers);
    let output = child.wait_with_output().expect("quiz ends");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert_no_raw_controls(&text);
    assert!(
        text.contains(r"  \033]52;c;QUJD\007 is no answer to this question; a tag"),
        "{text}"
    );
    // Echoed after the prompt, since a pipe does not echo what it sends.
    assert!(text.contains(r"> \033]52;c;QUJD\007"), "{text}");
}
