//! Payloads other than Examples, as TensorFlow, TensorBoard and users' own schemas write them:
//! detection that names a type only when it explains the bytes, tensors, events, and schemas
//! given as `protoc` takes them. Outputs agree with Python protobuf's goldens.

use std::path::PathBuf;

use super::{run as spawn, run_in_process as run, stderr, stdout, temp_file, testdata, tfrecord};

fn realworld(name: &str) -> PathBuf {
    testdata(&format!("realworld/{name}"))
}

/// The one file in `realworld/<dir>` whose name starts with `events.out.tfevents` and is not a
/// golden.
fn event_file(dir: &str) -> PathBuf {
    let dir = realworld(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("event directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("events.out.tfevents") && !name.contains(".golden.")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 1, "{dir:?}");
    files.remove(0)
}

/// The golden beside a fixture: `NAME.golden.txt` for `NAME.tfrecord`, or the whole file name
/// with `.golden.txt` appended for event files.
fn golden(file: &std::path::Path, ext: &str) -> String {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let stem = name.strip_suffix(".tfrecord").unwrap_or(&name);
    std::fs::read_to_string(file.with_file_name(format!("{stem}.golden.{ext}"))).expect("golden")
}

/// Runs `show` with `--format FORMAT` and `extra` arguments and checks stdout against the golden.
fn assert_golden(file: &std::path::Path, extra: &[&str]) {
    for (format, ext) in [("text", "txt"), ("json", "jsonl")] {
        let mut args: Vec<std::ffi::OsString> = vec!["show".into(), file.into()];
        args.extend(["--format".into(), format.into()]);
        args.extend(extra.iter().map(Into::into));
        let output = run(&args);
        assert!(
            output.status.success(),
            "{file:?} {format}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), golden(file, ext), "{file:?} {format}");
    }
}

#[test]
fn serialized_tensors_match_the_goldens_and_are_never_called_examples() {
    let file = realworld("serialized_tensors.tfrecord");
    assert_golden(&file, &[]);
    let list = stdout(&run(["list".as_ref(), file.as_os_str()]));
    assert!(!list.contains("Example"), "{list}");
    let rows: Vec<&str> = list.lines().skip(1).take(6).collect();
    assert!(rows.iter().all(|r| r.contains("TensorProto")), "{list}");
    assert!(rows[0].contains("float32[2,3] [[0.5, -1.25, 3.0], [4.0, 5.5, -6.0]]"));
    assert!(rows[2].contains(r#"string[3] ["north", "south", "\377\000raw"]"#));
    assert!(rows[3].contains("uint8[6,10,3] min 0, max 254"));
    assert!(rows[4].contains("float64[] -2.5"));
    let json = stdout(&run(["list", "--json"]
        .map(Into::into)
        .into_iter()
        .chain([file.clone().into_os_string()])));
    assert!(
        json.contains(r#""kind":"TensorProto""#) || json.contains(r#""kind": "TensorProto""#),
        "{json}"
    );
}

#[test]
fn show_prints_a_tensor_as_an_array_with_its_statistics_and_why_it_is_no_example() {
    let file = realworld("serialized_tensors.tfrecord");
    let tree = stdout(&run([
        "show".as_ref(),
        file.as_os_str(),
        "-n".as_ref(),
        "0".as_ref(),
    ]));
    assert_eq!(
        tree,
        "record 0  (offset 0, 38 bytes)  TensorProto float32[2,3]\n  [[0.5, -1.25, 3.0],\n   \
         [4.0, 5.5, -6.0]]\n  min -6.0, max 5.5, mean 0.9583333333333334\n  \
         # not Example: all fields unknown to Example\n"
    );
}

#[test]
fn event_files_match_the_goldens_and_list_steps_tags_and_values() {
    let tf2 = event_file("tensorboard/run_tf2");
    let tf1 = event_file("tensorboard/run_tf1");
    assert_golden(&tf2, &[]);
    assert_golden(&tf1, &[]);
    let list = stdout(&run(["list".as_ref(), tf2.as_os_str()]));
    for expected in [
        "Event               2026-11-22 06:47:44.000 UTC: file_version \"brain.Event:2\"",
        "step 0, 2026-11-22 06:47:44.869 UTC: train/loss 2.0",
        "step 10, 2026-11-22 06:47:44.998 UTC: train/loss 0.18181819",
        "step 20, 2026-11-22 06:47:45.016 UTC: grads histogram 30 buckets",
        "log text \"epoch 2: ok\"",
        "inputs image 40x24",
    ] {
        assert!(list.contains(expected), "{expected}\n{list}");
    }
    let list = stdout(&run(["list".as_ref(), tf1.as_os_str()]));
    assert!(list.contains("graph_def, 2477 bytes"), "{list}");
    assert!(list.contains("out_mean 0.626174"), "{list}");
}

#[test]
fn an_event_graph_is_decoded_as_a_graph_def() {
    let tf1 = event_file("tensorboard/run_tf1");
    let tree = stdout(&run([
        "show".as_ref(),
        tf1.as_os_str(),
        "-n".as_ref(),
        "1".as_ref(),
    ]));
    assert!(
        tree.contains("graph_def  tensorflow.GraphDef, 21 nodes"),
        "{tree}"
    );
    assert!(tree.contains("    out_mean                                    ScalarSummary"));
}

#[test]
fn events_are_recognised_by_name_when_their_content_does_not_say() {
    // An Event with only a step (no wall_time, no file_version): in a file named as TensorBoard
    // names them it is an Event; elsewhere it is protobuf of unknown type.
    let payload = [0x10, 0x05];
    let bytes = tfrecord(&[&payload]);
    let (_dir, named) = temp_file("events.out.tfevents.1.host", &bytes);
    let (_other, plain) = temp_file("steps.tfrecord", &bytes);
    let list = stdout(&run(["list".as_ref(), named.as_os_str()]));
    assert!(list.contains("Event               step 5"), "{list}");
    let list = stdout(&run(["list".as_ref(), plain.as_os_str()]));
    assert!(list.contains("protobuf            1 field: 2"), "{list}");
}

#[test]
fn a_user_schema_resolves_imports_against_an_include_path() {
    let file = realworld("sensor_readings.tfrecord");
    let include = realworld("user_protos");
    let include = include.to_str().unwrap();
    // The .proto named under the include path, as protoc takes it, and by its own path.
    assert_golden(&file, &["-I", include, "--proto", "acme/reading.proto"]);
    let by_path = realworld("user_protos/acme/reading.proto");
    assert_golden(
        &file,
        &[
            "--proto-path",
            include,
            "--proto",
            by_path.to_str().unwrap(),
        ],
    );
    // Without the include path the import is not found, and the error says what was missing.
    let output = run([
        "list".as_ref(),
        file.as_os_str(),
        "--proto".as_ref(),
        by_path.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("acme/common/units.proto"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn without_message_the_one_message_that_explains_the_records_is_chosen() {
    let file = realworld("sensor_readings.tfrecord");
    let include = realworld("user_protos");
    let args = |protos: &[&str]| {
        let mut args: Vec<String> = vec![
            "list".into(),
            file.to_string_lossy().into_owned(),
            "-I".into(),
            include.to_string_lossy().into_owned(),
        ];
        for proto in protos {
            args.extend(["--proto".to_string(), proto.to_string()]);
        }
        args
    };
    // Two files, two top-level messages: only acme.Reading explains the records.
    let output = spawn(args(&["acme/reading.proto", "acme/common/units.proto"]));
    assert!(output.status.success(), "{}", stderr(&output));
    let list = stdout(&output);
    assert!(
        list.contains("acme.Reading        sensor: \"s0\" at_us: 1700000000000000"),
        "{list}"
    );
    assert_eq!(stderr(&output), "");
    // A schema whose only message explains no record is said, not silently decoded by numbers.
    let output = spawn(args(&["acme/common/units.proto"]));
    let note = stderr(&output);
    assert!(
        note.contains("note: no message of the given schema explains the 5 sampled records (tried acme.common.Quantity)"),
        "{note}"
    );
    // A named message that explains none of them is said too.
    let output = spawn([
        "list".as_ref(),
        file.as_os_str(),
        "--message".as_ref(),
        "tensorflow.Event".as_ref(),
    ]);
    assert!(stderr(&output).contains("`tensorflow.Event` explains none of the 5 sampled records"));
}

#[test]
fn a_descriptor_set_stands_for_the_proto_files() {
    let file = event_file("tensorboard/run_tf2");
    let set = realworld("tensorboard/event_descriptor_set.pb");
    // A copy under a name that says nothing, so that the set and --message do the work.
    let (_dir, plain) = temp_file("plain.tfrecord", &std::fs::read(&file).unwrap());
    for (format, ext) in [("text", "txt"), ("json", "jsonl")] {
        let output = run([
            "show".as_ref(),
            plain.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
            "--descriptor-set".as_ref(),
            set.as_os_str(),
            "--message".as_ref(),
            "tensorflow.Event".as_ref(),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(stdout(&output), golden(&file, ext), "{format}");
    }
    let (_bad, not_a_set) = temp_file("bad.pb", b"\xff\xff\xff");
    let output = run([
        "list".as_ref(),
        plain.as_os_str(),
        "--descriptor-set".as_ref(),
        not_a_set.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not a FileDescriptorSet"),
        "{}",
        stderr(&output)
    );
}

/// `syntax = "proto2"` with a closed enum, and records with a value outside it (99) and inside.
const PAINT_PROTO: &str = "syntax = \"proto2\";\npackage t;\nenum Color { RED = 0; GREEN = 1; }\n\
                           message Paint { optional Color color = 1; optional string name = 2; \
                           optional bytes blob = 3; }\n";

#[test]
fn a_closed_enum_value_outside_the_enum_is_an_unknown_field_as_python_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let proto = dir.path().join("paint.proto");
    std::fs::write(&proto, PAINT_PROTO).unwrap();
    let file = dir.path().join("paint.tfrecord");
    std::fs::write(&file, tfrecord(&[&[0x08, 99, 0x12, 1, b'x'], &[0x08, 1]])).unwrap();
    let show = |format: &str| {
        stdout(&run([
            "show".as_ref(),
            file.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
            "--proto".as_ref(),
            proto.as_os_str(),
        ]))
    };
    assert_eq!(
        show("text"),
        "# record 0\nname: \"x\"\n# record 1\ncolor: GREEN\n"
    );
    assert_eq!(show("json"), "{\"name\": \"x\"}\n{\"color\": \"GREEN\"}\n");
}

#[test]
fn field_type_decodes_a_bytes_field_as_a_message_in_the_tree_only() {
    let dir = tempfile::tempdir().unwrap();
    let proto = dir.path().join("paint.proto");
    std::fs::write(&proto, PAINT_PROTO).unwrap();
    let file = dir.path().join("paint.tfrecord");
    // blob holds a Paint { name: "in" }.
    std::fs::write(
        &file,
        tfrecord(&[&[0x12, 1, b'x', 0x1a, 4, 0x12, 2, b'i', b'n']]),
    )
    .unwrap();
    let show = |format: &str, field_type: &str| {
        let output = run([
            "show".as_ref(),
            file.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
            "--proto".as_ref(),
            proto.as_os_str(),
            "--field-type".as_ref(),
            field_type.as_ref(),
        ]);
        (stdout(&output), stderr(&output), output.status.code())
    };
    let (tree, _, _) = show("tree", "t.Paint.blob=t.Paint");
    assert!(
        tree.contains("# blob as t.Paint:\n    name: \"in\"\n"),
        "{tree}"
    );
    // Text format prints the bytes, as protobuf does.
    let (text, _, _) = show("text", "t.Paint.blob=t.Paint");
    assert!(text.contains("blob: \"\\022\\002in\""), "{text}");
    let (_, error, code) = show("tree", "t.Paint.name=t.Paint");
    assert_eq!(code, Some(2));
    assert!(
        error.contains("`t.Paint.name` is not a bytes field"),
        "{error}"
    );
}

#[test]
fn a_schema_without_a_message_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let proto = dir.path().join("only_enum.proto");
    std::fs::write(
        &proto,
        "syntax = \"proto3\";\npackage t;\nenum E { A = 0; }\n",
    )
    .unwrap();
    let file = testdata("examples.tfrecord");
    let output = run([
        "list".as_ref(),
        file.as_os_str(),
        "--proto".as_ref(),
        proto.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("only_enum.proto: defines no message"),
        "{}",
        stderr(&output)
    );
    // An include directory that does not exist is named.
    let output = run(["list", "-I", "/no/such/dir", "--proto", "x.proto"]
        .map(Into::<std::ffi::OsString>::into)
        .into_iter()
        .chain([file.clone().into_os_string()]));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("/no/such/dir: no such include directory"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn every_tensor_says_why_it_is_no_example_alike_and_list_json_carries_the_summary() {
    let file = realworld("serialized_tensors.tfrecord");
    let tree = stdout(&run(["show".as_ref(), file.as_os_str()]));
    let reasons: Vec<&str> = tree.lines().filter(|l| l.starts_with("  # not ")).collect();
    assert_eq!(reasons.len(), 6, "{tree}");
    assert!(
        reasons
            .iter()
            .all(|r| *r == "  # not Example: all fields unknown to Example")
    );
    let json = stdout(&run(["list".as_ref(), "--json".as_ref(), file.as_os_str()]));
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["summary"],
        "float32[2,3] [[0.5, -1.25, 3.0], [4.0, 5.5, -6.0]]"
    );
}

#[test]
fn records_past_the_end_are_an_unusable_request_and_a_near_miss_is_suggested() {
    let file = realworld("detection_train.record-00000-of-00001");
    let output = spawn([
        "show".as_ref(),
        file.as_os_str(),
        "--range".as_ref(),
        "9..20".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("records 9..20 do not exist (the file has 8 frames)"));
    // Part of the range exists: it is shown, the rest named.
    let output = spawn([
        "show".as_ref(),
        file.as_os_str(),
        "--range".as_ref(),
        "7..20".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).starts_with("record 7"));
    let dir = tempfile::tempdir().unwrap();
    let output = spawn([
        "images".as_ref(),
        file.as_os_str(),
        "-o".as_ref(),
        dir.path().as_os_str(),
        "--range".as_ref(),
        "999..1000".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("records 999..1000 do not exist"));
    let include = realworld("user_protos");
    let output = spawn([
        "list".as_ref(),
        realworld("sensor_readings.tfrecord").as_os_str(),
        "-I".as_ref(),
        include.as_os_str(),
        "--proto".as_ref(),
        "acme/reading.proto".as_ref(),
        "--message".as_ref(),
        "Reading".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no message named `Reading`; did you mean acme.Reading?"));
}

/// A field of wire type 2 of any length: tag, varint length, body.
fn delimited(field: u64, body: &[u8]) -> Vec<u8> {
    tfr_core::crafted::length_delimited(field, body)
}

/// A `TensorShapeProto` of `dims`.
fn shape(dims: &[u8]) -> Vec<u8> {
    dims.iter()
        .flat_map(|d| delimited(2, &[0x08, *d]))
        .collect()
}

/// An Event at step 3 whose summary value `md` is a text summary of a DT_STRING tensor of
/// `dims` holding `cells` (`tf.summary.text` of a table writes one).
fn text_event(dims: &[u8], cells: &[&[u8]]) -> Vec<u8> {
    let mut tensor = vec![0x08, 0x07];
    tensor.extend(delimited(2, &shape(dims)));
    for cell in cells {
        tensor.extend(delimited(8, cell));
    }
    let metadata = delimited(1, &delimited(1, b"text"));
    let value = [
        delimited(1, b"md"),
        delimited(8, &tensor),
        delimited(9, &metadata),
    ]
    .concat();
    [vec![0x10, 0x03], delimited(5, &delimited(1, &value))].concat()
}

#[test]
fn a_text_summary_of_a_table_shows_its_shape_and_every_cell() {
    let table = text_event(&[2, 2], &[b"a", b"b", b"c", b"d"]);
    let cells: Vec<Vec<u8>> = (0..40).map(|i| format!("row {i}").into_bytes()).collect();
    let refs: Vec<&[u8]> = cells.iter().map(Vec::as_slice).collect();
    let long = text_event(&[40], &refs);
    let (_dir, path) = temp_file("events.out.tfevents.1.host", &tfrecord(&[&table, &long]));
    let list = stdout(&run(["list".as_ref(), path.as_os_str()]));
    assert!(
        list.contains(r#"step 3: md text [2,2] [["a", "b"], ["c", "d"]]"#),
        "{list}"
    );
    assert!(
        list.contains(r#"step 3: md text [40] ["row 0", "row 1", "#),
        "{list}"
    );
    assert!(list.contains(r#""row 15", … 24 more]"#), "{list}");
}
