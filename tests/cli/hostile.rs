//! Hostile inputs on the new surfaces, one test per class: each builds its own input, runs the
//! binary with its address space limited (`prlimit --as`) so that a regression to an unbounded
//! allocation fails at the limit instead of taking the machine, and kills it when it has not
//! ended by a deadline far beyond what it needs, so that a regression to a hang fails instead of
//! stalling the suite. Nothing here measures time.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{testdata, tfrecord};
use crate::proto::{ld, varint, vi};

/// The address space each run may use: far above what any of these runs needs (tens of MB),
/// far below what the defects they guard against reached (gigabytes).
const ADDRESS_SPACE: u64 = 1 << 30;
/// When a run that has not ended is killed and the test fails.
const DEADLINE: Duration = Duration::from_secs(120);

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary with `args`, standard input read from `stdin` (or nothing), under
/// [`ADDRESS_SPACE`] and [`DEADLINE`].
fn bounded<S: AsRef<OsStr>>(args: &[S], stdin: Option<&Path>) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut command = Command::new("prlimit");
    command
        .arg(format!("--as={ADDRESS_SPACE}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .stdin(match stdin {
            Some(path) => Stdio::from(std::fs::File::open(path).unwrap()),
            None => Stdio::null(),
        });
    let mut child = command
        .spawn()
        .expect("prlimit (util-linux) runs the binary");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("did not end within {DEADLINE:?}: {:?}", command.get_args());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    Ran {
        code: status.code(),
        stdout: read(&out),
        stderr: read(&err),
    }
}

/// An Example of int64 features, each holding one value.
fn example(features: &[(&str, u64)]) -> Vec<u8> {
    let entries: Vec<u8> = features
        .iter()
        .flat_map(|(name, value)| {
            let mut packed = Vec::new();
            varint(*value, &mut packed);
            let int64 = ld(3, &ld(1, &packed));
            ld(1, &[ld(1, name.as_bytes()), ld(2, &int64)].concat())
        })
        .collect();
    ld(1, &entries)
}

fn write(path: &Path, bytes: &[u8]) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

fn mnist() -> PathBuf {
    testdata("mnist_like.tfrecord")
}

/// A name long enough that `{:<width$}` with its length panics (widths stop at 65,535).
fn long_name() -> String {
    "N".repeat(70_000)
}

/// Every line of `text` that is mostly padding: a column padded to a width taken from the input.
fn padded_lines(text: &str) -> Vec<usize> {
    text.lines()
        .filter(|l| l.len() > 1_000 && l.matches(' ').count() > l.len() / 2)
        .map(str::len)
        .collect()
}

#[test]
fn a_deeply_nested_glob_is_an_error_not_a_panic() {
    let pattern = format!("{}b{}", "{a,".repeat(126), "}".repeat(126));
    let ran = bounded(&["list", &pattern], None);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("not a valid pattern: {…} nested 126 levels deep (at most 16)"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_deeply_nested_proto_is_refused_before_it_is_compiled() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3_000;
    let text = format!(
        "syntax = \"proto3\";\n{}int32 x = 1;{}\n",
        "message M { ".repeat(n),
        "}".repeat(n)
    );
    let proto = write(&dir.path().join("deep.proto"), text.as_bytes());
    let ran = bounded(
        &[
            "--proto".as_ref(),
            proto.as_os_str(),
            "list".as_ref(),
            mnist().as_os_str(),
        ],
        None,
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("deep.proto: line 2: nested more than 64 levels deep"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_features_json_shape_past_tensorflows_dimensions_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dims = vec!["1"; 50_000];
    let features = format!(
        r#"{{"featuresDict": {{"features": {{"t": {{"tensor": {{"shape": {{"dimensions": {}}}, "dtype": "int64"}}}}}}}}}}"#,
        serde_json_list(&dims)
    );
    write(&dir.path().join("features.json"), features.as_bytes());
    let shard = write(
        &dir.path().join("x-00000-of-00001"),
        &tfrecord(&[&example(&[("t", 1)])]),
    );
    let ran = bounded(&["show".as_ref(), shard.as_os_str()], None);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "features.json: not used: feature `t`: a shape of 50000 dimensions (TensorFlow allows at most \
             254); records shown without it"
        ),
        "{}",
        ran.stderr
    );
    // The record is shown all the same, as its features are.
    assert!(
        ran.stdout.contains("  t  int64[1]     [1]\n"),
        "{}",
        ran.stdout
    );
}

fn serde_json_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
    format!("[{}]", quoted.join(","))
}

#[test]
fn names_longer_than_any_format_width_are_shown_whole_and_pad_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let long = long_name();
    // show with features.json naming it.
    let features = format!(
        r#"{{"featuresDict": {{"features": {{"{long}": {{"tensor": {{"shape": {{"dimensions": ["1"]}}, "dtype": "int64"}}}}}}}}}}"#
    );
    write(&dir.path().join("tfds/features.json"), features.as_bytes());
    let shard = write(
        &dir.path().join("tfds/x-00000-of-00001"),
        &tfrecord(&[&example(&[(&long, 1), ("a", 2)])]),
    );
    // TensorBoard: a scalar tag and a graph node of that name.
    let simple = |tag: &str, v: f32| {
        let mut value = ld(1, tag.as_bytes());
        value.push((2 << 3) | 5);
        value.extend(v.to_le_bytes());
        ld(1, &value)
    };
    let summary = ld(5, &[simple(&long, 1.5), simple("short", 2.5)].concat());
    let node =
        |name: &str, op: &str| ld(1, &[ld(1, name.as_bytes()), ld(2, op.as_bytes())].concat());
    let graph = ld(4, &[node(&long, "Const"), node("b", "Add")].concat());
    let events = write(
        &dir.path().join("events.out.tfevents.1.x"),
        &tfrecord(&[&ld(3, b"brain.Event:2"), &summary, &graph]),
    );
    // A split of that name, from dataset_info.json.
    let info = format!(
        r#"{{"name": "d", "splits": [{{"name": "{long}", "filepathTemplate": "y-{{SHARD_X_OF_Y}}"}}]}}"#
    );
    write(&dir.path().join("split/dataset_info.json"), info.as_bytes());
    write(
        &dir.path().join("split/y-00000-of-00001"),
        &tfrecord(&[&example(&[("a", 2)]), &example(&[("a", 3)])]),
    );
    let split = dir.path().join("split");
    for args in [
        vec!["show".as_ref(), shard.as_os_str()],
        vec!["show".as_ref(), events.as_os_str()],
        vec!["list".as_ref(), split.as_os_str()],
        vec!["stats".as_ref(), split.as_os_str()],
    ] {
        let ran = bounded(&args, None);
        assert_eq!(ran.code, Some(0), "{args:?}: {}", ran.stderr);
        assert!(
            ran.stdout.contains(&long),
            "{args:?}: the name is shown whole"
        );
        assert_eq!(padded_lines(&ran.stdout), Vec::<usize>::new(), "{args:?}");
    }
}

#[test]
fn an_index_that_never_ends_is_read_to_its_first_wrong_line() {
    let mnist = mnist();
    let zero = bounded(
        &[
            "index".as_ref(),
            "--check".as_ref(),
            mnist.as_os_str(),
            "/dev/zero".as_ref(),
        ],
        None,
    );
    assert_eq!(zero.code, Some(1), "{}", zero.stderr);
    assert!(zero.stdout.contains("line 1: \"\\000"), "{}", zero.stdout);
    assert!(zero.stdout.len() < 1_000, "a bounded prefix is quoted");
    // One line of 50 MB after a good one: named, and quoted by its first 64 characters.
    let dir = tempfile::tempdir().unwrap();
    let mut idx = b"0 891\n".to_vec();
    idx.extend(std::iter::repeat_n(b'7', 50_000_000));
    let idx = write(&dir.path().join("bad.idx"), &idx);
    let ran = bounded(
        &[
            "index".as_ref(),
            "--check".as_ref(),
            mnist.as_os_str(),
            idx.as_os_str(),
        ],
        None,
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stdout.ends_with(&format!(
            "line 2: \"{}…\" is not `offset length`\n",
            "7".repeat(64)
        )),
        "{}",
        ran.stdout
    );
    // A FIFO whose writer never stops (`yes "0 891" > fifo`).
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            // Ends when the reader closes its end (EPIPE).
            while pipe.write_all(&b"0 891\n".repeat(1000)).is_ok() {}
        })
    };
    let ran = bounded(
        &[
            "index".as_ref(),
            "--check".as_ref(),
            mnist.as_os_str(),
            fifo.as_os_str(),
        ],
        None,
    );
    writer.join().unwrap();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stdout
            .contains("line 2: \"0 891\", but record 1 is at byte 891"),
        "{}",
        ran.stdout
    );
}

#[test]
fn an_endless_answer_ends_the_quiz() {
    let ran = bounded(
        &["quiz".as_ref(), mnist().as_os_str()],
        Some(Path::new("/dev/zero")),
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stdout
            .contains("(an answer longer than 1024 bytes) it is field 1"),
        "{}",
        ran.stdout
    );
}

/// A `FileDescriptorSet` of one file declaring `messages` messages of one int32 field each.
fn descriptor_set(messages: usize) -> Vec<u8> {
    let field = ld(2, &[ld(1, b"x"), vi(3, 1), vi(4, 1), vi(5, 5)].concat());
    let mut file = [ld(1, b"big.proto"), ld(2, b"big")].concat();
    for i in 0..messages {
        file.extend(ld(
            4,
            &[ld(1, format!("M{i}").as_bytes()), field.clone()].concat(),
        ));
    }
    ld(1, &file)
}

#[test]
fn a_schema_costs_at_most_its_limits() {
    let mnist = mnist();
    let zero = bounded(
        &[
            "--descriptor-set".as_ref(),
            "/dev/zero".as_ref(),
            "list".as_ref(),
            mnist.as_os_str(),
        ],
        None,
    );
    assert_eq!(zero.code, Some(2), "{}", zero.stderr);
    assert!(
        zero.stderr
            .contains("/dev/zero: the schema's files hold more than 16 MiB"),
        "{}",
        zero.stderr
    );
    // 200,000 messages in 4 MB: 700 MB once compiled. Refused on its wire bytes.
    let dir = tempfile::tempdir().unwrap();
    let set = write(&dir.path().join("big.pb"), &descriptor_set(200_000));
    let ran = bounded(
        &[
            "--descriptor-set".as_ref(),
            set.as_os_str(),
            "list".as_ref(),
            mnist.as_os_str(),
        ],
        None,
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("big.pb: the schema declares more than 5000 messages, enums and services"),
        "{}",
        ran.stderr
    );
    // Within the limits, the set is used.
    let small = write(&dir.path().join("small.pb"), &descriptor_set(3));
    let ran = bounded(
        &[
            "--descriptor-set".as_ref(),
            small.as_os_str(),
            "--message".as_ref(),
            "big.M1".as_ref(),
            "list".as_ref(),
            mnist.as_os_str(),
        ],
        None,
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
}

#[test]
fn an_error_in_an_import_names_the_imported_file_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("sub/inner.proto"),
        b"syntax = \"proto3\";\n\n\nmessage Inner {\n  int32 a = 1\n}\n",
    );
    let outer = write(
        &dir.path().join("outer.proto"),
        b"syntax = \"proto3\";\nimport \"sub/inner.proto\";\nmessage Outer { Inner i = 1; }\n",
    );
    let ran = bounded(
        &[
            "--proto".as_ref(),
            outer.as_os_str(),
            "list".as_ref(),
            mnist().as_os_str(),
        ],
        None,
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    let inner = dir.path().join("sub/inner.proto");
    assert!(
        ran.stderr.contains(&format!(
            "{}: line 6, column 1: expected ';' or '[', but found '}}' (imported by {})",
            inner.display(),
            outer.display()
        )),
        "{}",
        ran.stderr
    );
    // `..` and absolute imports: said in words, not as protox's "invalid group name".
    for import in ["../x.proto", "/etc/x.proto"] {
        let proto = write(
            &dir.path().join("bad.proto"),
            format!("syntax = \"proto3\";\nimport \"{import}\";\nmessage B {{ int32 i = 1; }}\n")
                .as_bytes(),
        );
        let ran = bounded(
            &[
                "--proto".as_ref(),
                proto.as_os_str(),
                "list".as_ref(),
                mnist().as_os_str(),
            ],
            None,
        );
        assert_eq!(ran.code, Some(2), "{}", ran.stderr);
        assert!(
            ran.stderr.contains(
                "bad.proto: line 2, column 8: an import names a file by its path under an include \
                 directory (-I): it may not be absolute or hold `.` or `..` components"
            ),
            "{import}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains("group"), "{}", ran.stderr);
    }
}

#[test]
fn one_shard_announcing_a_hundred_trillion_is_counted_not_listed() {
    let dir = tempfile::tempdir().unwrap();
    let shard = write(
        &dir.path().join("train-00000-of-99999999999999"),
        &tfrecord(&[&example(&[("a", 2)])]),
    );
    for command in ["verify", "list"] {
        let ran = bounded(&[command.as_ref(), shard.as_os_str()], None);
        assert_eq!(ran.code, Some(1), "{command}: {}", ran.stderr);
        assert!(
            ran.stdout.contains(
                "train: shards 00001, 00002, 00003, 00004, 00005, 00006, 00007, 00008, 00009, \
                 00010 and 99999999999988 more of 99999999999999 missing"
            ),
            "{command}: {}",
            ran.stdout
        );
    }
}

#[test]
fn a_cut_histogram_says_it_was_cut() {
    // A TF1 histogram of 5,000 buckets: the first 4,096 are read.
    let doubles = |values: &mut dyn Iterator<Item = f64>| -> Vec<u8> {
        values.flat_map(f64::to_le_bytes).collect()
    };
    let limits = doubles(&mut (1..=5_000).map(f64::from));
    let counts = doubles(&mut std::iter::repeat_n(1.0, 5_000));
    let histo = [ld(6, &limits), ld(7, &counts)].concat();
    let value = [ld(1, b"h"), ld(5, &histo)].concat();
    let event = ld(5, &ld(1, &value));
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir.path().join("events.out.tfevents.2.x"),
        &tfrecord(&[&ld(3, b"brain.Event:2"), &event]),
    );
    let ran = bounded(
        &[
            "show".as_ref(),
            file.as_os_str(),
            "-n".as_ref(),
            "1".as_ref(),
        ],
        None,
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stdout.contains(
            "h range 1..4096, 4096 values in the first 4096 of 5000 buckets (904 not shown), counts ["
        ),
        "{}",
        ran.stdout
    );
}

#[test]
fn an_all_nan_tensor_says_so() {
    // float32[4] of NaNs, in tensor_content.
    let nans: Vec<u8> = std::iter::repeat_n(f32::NAN.to_le_bytes(), 4)
        .flatten()
        .collect();
    let tensor = [vi(1, 1), ld(2, &ld(2, &vi(1, 4))), ld(4, &nans)].concat();
    let (_dir, file) = super::temp_file("nan.tfrecord", &tfrecord(&[&tensor]));
    let ran = bounded(&["show".as_ref(), file.as_os_str()], None);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stdout.contains("  all 4 values NaN\n"),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("min inf"), "{}", ran.stdout);
}

#[test]
fn an_output_name_of_249_bytes_is_written_through_its_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("o".repeat(249));
    let ran = bounded(
        &[
            OsString::from("index"),
            mnist().into_os_string(),
            "-o".into(),
            output.clone().into_os_string(),
        ],
        None,
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        std::fs::read_to_string(&output)
            .unwrap()
            .starts_with("0 891\n")
    );
}

/// A named pipe given as a part to merge, with no writer, is refused at once (it would block the
/// merge forever if opened as a file).
#[test]
fn a_named_pipe_given_as_a_part_to_merge_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("part.json");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for command in ["verify", "stats"] {
        let ran = bounded(
            &[command.as_ref(), "--merge".as_ref(), fifo.as_os_str()],
            None,
        );
        assert_eq!(ran.code, Some(2), "{command}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("a named pipe, not a regular file"),
            "{command}: {}",
            ran.stderr
        );
    }
}
