//! `encode`: a value and a type in, the bytes protobuf writes out, checked against what Python
//! protobuf serializes (`testdata/encode_goldens.json`, written by `scripts/encode_goldens.py`).

use super::{run_in_process, stderr, stdout, testdata};

fn encode(args: &[&str]) -> (String, Option<i32>) {
    let mut all = vec!["encode"];
    all.extend_from_slice(args);
    let output = run_in_process(&all);
    (stdout(&output), output.status.code())
}

fn goldens() -> serde_json::Value {
    let text = std::fs::read_to_string(testdata("encode_goldens.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn every_scalar_type_is_encoded_as_python_protobuf_serializes_it() {
    let goldens = goldens();
    let scalars = goldens["scalars"].as_array().unwrap();
    assert!(scalars.len() > 50);
    for case in scalars {
        let ty = case["type"].as_str().unwrap();
        let value = case["value"].as_str().unwrap();
        let (text, code) = encode(&["--type", ty, value]);
        assert_eq!(code, Some(0), "{ty} {value}: {text}");
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            case["hex"].as_str().unwrap(),
            "{ty} {value}:\n{text}"
        );
    }
}

#[test]
fn tags_are_encoded_as_python_protobuf_serializes_them() {
    for case in goldens()["tags"].as_array().unwrap() {
        let field = case["field"].as_u64().unwrap().to_string();
        let wire = case["wire"].as_str().unwrap();
        let (text, code) = encode(&["--tag", &field, wire]);
        assert_eq!(code, Some(0), "{text}");
        assert_eq!(
            text.lines().next().unwrap(),
            case["hex"].as_str().unwrap(),
            "{text}"
        );
    }
}

#[test]
fn the_working_is_shown() {
    let (text, _) = encode(&["300"]);
    assert!(
        text.contains(
            "| 300 = 0b10_0101100 -> groups 0101100, 0000010 (least significant first) -> \
             1 0101100, 0 0000010 (continuation bit in front) -> ac 02"
        ),
        "{text}"
    );
    let (text, _) = encode(&["--type", "sint64", "-150"]);
    assert!(text.starts_with("ab 02\n"), "{text}");
    assert!(text.contains("= -300 ^ -1 = 299"), "{text}");
    let (text, _) = encode(&["--type", "float", "25.4"]);
    assert!(
        text.contains("sign 0 (+), exponent 10000011 = 131"),
        "{text}"
    );
    assert!(
        text.contains("-> little-endian, lowest byte first: 33 33 cb 41"),
        "{text}"
    );
    let (text, _) = encode(&["--tag", "1", "--type", "string", "hi"]);
    assert!(text.starts_with("0a 02 68 69\n"), "{text}");
}

#[test]
fn values_a_type_cannot_hold_are_refused() {
    for args in [
        &["--type", "int32", "2147483648"][..],
        &["--type", "uint64", "-1"],
        &["--type", "bool", "yes"],
        &["--type", "int33", "1"],
        &["--tag", "0", "VARINT"],
        &["--tag", "536870912", "VARINT"],
        &["--tag", "1", "6"],
        &[],
    ] {
        let mut all = vec!["encode"];
        all.extend_from_slice(args);
        let output = run_in_process(&all);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stdout(&output).is_empty(), "{args:?}");
        assert!(stderr(&output).contains("tfr-inspect: "), "{args:?}");
    }
}

/// `encode --message M --text T`, with `--proto` for the cases whose type is not built in.
fn message_args<'a>(case: &'a serde_json::Value, proto: &'a str) -> Vec<&'a str> {
    let mut args = vec![
        "--message",
        case["message"].as_str().unwrap(),
        "--text",
        case["text"].as_str().unwrap(),
    ];
    if !case["proto"].as_str().unwrap().starts_with("proto/") {
        args.extend(["--proto", proto]);
    }
    args
}

fn proto_path(case: &serde_json::Value) -> String {
    let path = case["proto"].as_str().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    root.join(path).to_string_lossy().into_owned()
}

#[test]
fn messages_are_encoded_as_python_protobuf_serializes_them() {
    let goldens = goldens();
    let cases = goldens["messages"].as_array().unwrap();
    assert!(cases.len() >= 7);
    for case in cases {
        let proto = proto_path(case);
        let (text, code) = encode(&message_args(case, &proto));
        assert_eq!(code, Some(0), "{case}: {text}");
        let first = text.lines().next().unwrap_or_default();
        let hex = case["hex"].as_str().unwrap();
        if hex.is_empty() {
            assert!(first.starts_with("(0 bytes: "), "{text}");
            continue;
        }
        assert_eq!(first, hex, "{case}\n{text}");
    }
}

/// Runs `args` and returns stdout, asserting the run was clean.
fn clean(args: &[&str]) -> String {
    let output = run_in_process(args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        stderr(&output)
    );
    stdout(&output)
}

#[test]
fn a_written_message_reads_back_through_list_verify_and_show() {
    let goldens = goldens();
    let dir = tempfile::tempdir().unwrap();
    for (n, case) in goldens["messages"].as_array().unwrap().iter().enumerate() {
        let proto = proto_path(case);
        let file = dir.path().join(format!("m{n}.tfrecord"));
        let file_arg = file.to_str().unwrap();
        let mut args = vec!["encode"];
        args.extend(message_args(case, &proto));
        args.extend(["-o", file_arg]);
        let walkthrough = clean(&args);
        // One frame: length, masked CRC of the length, the bytes Python serializes, masked CRC.
        let bytes = std::fs::read(&file).unwrap();
        let hex = case["hex"].as_str().unwrap();
        let payload: Vec<u8> = hex
            .split(' ')
            .filter(|h| !h.is_empty())
            .map(|h| u8::from_str_radix(h, 16).unwrap())
            .collect();
        assert_eq!(bytes, super::tfrecord(&[&payload]), "{case}");

        let list = clean(&["list", file_arg]);
        assert_eq!(list.lines().count(), 3, "{list}");
        assert!(list.contains(": 1 frame, 1 intact, 0 damaged"), "{list}");
        assert!(
            list.contains(&format!(" {}  ok    ok ", payload.len())),
            "{list}"
        );
        assert!(clean(&["verify", file_arg]).contains("OK: 1 frame, 1 intact, 0 damaged"));

        // The walkthrough printed is the one `hex --explain` prints of the file.
        let mut typed = vec!["--message", case["message"].as_str().unwrap()];
        if !case["proto"].as_str().unwrap().starts_with("proto/") {
            typed.extend(["--proto", &proto]);
        }
        let mut hex_args = vec!["hex", "--explain", file_arg];
        hex_args.extend(&typed);
        assert_eq!(walkthrough, clean(&hex_args), "{case}");

        // `show` reads the same message: its text, encoded again, is the same bytes.
        let mut show_args = vec!["show", file_arg, "--format", "text"];
        show_args.extend(&typed);
        let shown = clean(&show_args);
        let shown = shown.strip_prefix("# record 0\n").unwrap();
        let mut again = vec!["--text", shown];
        again.extend(&typed);
        let (text, code) = encode(&again);
        assert_eq!(code, Some(0), "{text}");
        // (`show` leaves extensions out of its text: those cases come back without them.)
        let extended = case["text"].as_str().unwrap().contains("[lesson.");
        if !hex.is_empty() && !extended {
            assert_eq!(text.lines().next().unwrap(), hex, "{shown}");
        }
    }
}

#[test]
fn a_message_alone_is_walked_through_as_hex_explain_walks_its_payload() {
    let text = r#"features { feature { key: "label" value { int64_list { value: [7, -1] } } } }"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.tfrecord");
    let file_arg = file.to_str().unwrap();
    let alone = clean(&["encode", "--message", "tensorflow.Example", "--text", text]);
    clean(&[
        "encode",
        "--message",
        "tensorflow.Example",
        "--text",
        text,
        "-o",
        file_arg,
    ]);
    let framed = clean(&[
        "hex",
        "--explain",
        "--offsets",
        "payload",
        "--message",
        "tensorflow.Example",
        file_arg,
    ]);
    let mut lines = alone.lines();
    assert_eq!(
        lines.next().unwrap(),
        "0a 1a 0a 18 0a 05 6c 61 62 65 6c 12 0f 1a 0d 0a 0b 07 ff ff ff ff ff ff ff ff ff 01"
    );
    assert_eq!(lines.next().unwrap(), "tensorflow.Example, 28 bytes:");
    // The file's walkthrough, counted from the payload, without the frame's own tokens (the
    // header's two at negative offsets, the payload's CRC after it) and the file offsets.
    let mut expected: Vec<String> = Vec::new();
    let mut frame_token = false;
    for line in framed.lines().skip(1) {
        let offset = line.get(..10).unwrap_or_default().trim();
        if !offset.is_empty() {
            frame_token = offset.starts_with('-') || offset == "28";
        }
        if !frame_token {
            let mut line = line.to_string();
            while let Some(at) = line.find(" (file ") {
                let end = at + line[at..].find(')').unwrap() + 1;
                line.replace_range(at..end, "");
            }
            expected.push(line);
        }
    }
    let shown: Vec<&str> = lines.collect();
    assert_eq!(shown, expected);
    assert!(alone.contains("covers payload 2..28, 26 bytes"), "{alone}");
    assert!(!alone.contains("(file "), "{alone}");
}

#[test]
fn a_mistake_in_the_text_is_pointed_at_and_escaped() {
    let output = run_in_process([
        "encode",
        "--message",
        "tensorflow.Example",
        "--text",
        "features {\n  feature { key: \"a\" value { int64_list { value: \"\u{1b}]0;pwned\u{7}\" } } }\n}",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
    let err = stderr(&output);
    assert!(
        err.contains("tfr-inspect: --text is no tensorflow.Example: line 2, column 50: "),
        "{err}"
    );
    assert!(!super::acts_on_a_terminal(&err), "{err:?}");
    let lines: Vec<&str> = err.lines().collect();
    let (shown, caret) = (lines[1], lines[2]);
    assert!(shown.contains("value: \"\\033]0;pwned\\007\""), "{err}");
    assert_eq!(caret.find('^'), shown.find("\"\\033"), "{err}");

    // A field the type does not have, a value out of range, a text cut short.
    for (text, says) in [
        (
            "features { feture { } }",
            "line 1, column 12: field 'feture' not found",
        ),
        (
            "features { feature { key: \"a\" value { int64_list { value: 9223372036854775808 } } } }",
            "line 1, column 59: expected value to be a signed 64-bit integer",
        ),
        ("features {", "line 1, column 11: expected"),
    ] {
        let output = run_in_process(["encode", "--message", "tensorflow.Example", "--text", text]);
        assert_eq!(output.status.code(), Some(2), "{text}");
        assert!(
            stderr(&output).contains(says),
            "{text}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn the_text_is_read_from_a_file_with_at() {
    let dir = tempfile::tempdir().unwrap();
    let text_file = dir.path().join("label.txtpb");
    std::fs::write(
        &text_file,
        "# the label\nfeatures { feature { key: \"label\" value { int64_list { value: 7 } } } }\n",
    )
    .unwrap();
    let at = format!("@{}", text_file.display());
    let out = clean(&["encode", "--message", "tensorflow.Example", "--text", &at]);
    assert!(
        out.starts_with("0a 10 0a 0e 0a 05 6c 61 62 65 6c 12 05 1a 03 0a 01 07\n"),
        "{out}"
    );

    // Not UTF-8, missing, or the output named as the text's file: refused.
    let bad = dir.path().join("bad.txtpb");
    std::fs::write(&bad, b"features { feature { key: \"\xff\" } }").unwrap();
    let bad_at = format!("@{}", bad.display());
    let missing_at = format!("@{}", dir.path().join("missing").display());
    // A named pipe could block or never end: refused before it is opened.
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo_at = format!("@{}", fifo.display());
    for (args, says) in [
        (vec!["--text", bad_at.as_str()], "not UTF-8 text (byte 27"),
        (
            vec!["--text", fifo_at.as_str()],
            "a named pipe, not a regular file",
        ),
        (vec!["--text", missing_at.as_str()], "No such file"),
        (
            vec![
                "--text",
                at.as_str(),
                "-o",
                text_file.to_str().unwrap(),
                "--force",
            ],
            "refusing to write over the input",
        ),
    ] {
        let mut all = vec!["encode", "--message", "tensorflow.Example"];
        all.extend(args);
        let output = run_in_process(&all);
        assert_eq!(output.status.code(), Some(2), "{all:?}");
        assert!(
            stderr(&output).contains(says),
            "{all:?}: {}",
            stderr(&output)
        );
    }
    assert!(
        std::fs::read_to_string(&text_file)
            .unwrap()
            .starts_with("# the label")
    );
}

#[test]
fn the_output_is_a_new_path_or_with_force_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.tfrecord");
    std::fs::write(&out, b"keep me").unwrap();
    let args = |extra: &[&str]| {
        let mut all = vec![
            "encode",
            "--message",
            "tensorflow.Example",
            "--text",
            "features { }",
        ];
        all.extend_from_slice(extra);
        run_in_process(&all)
    };
    let out_arg = out.to_str().unwrap();
    let refused = args(&["-o", out_arg]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("already exists"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");

    // `-`: the record alone on standard output (a pipe here), nothing else.
    let piped = args(&["-o", "-"]);
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert_eq!(piped.stdout, super::tfrecord(&[&[0x0a, 0x00]]));

    let forced = args(&["-o", out_arg, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        super::tfrecord(&[&[0x0a, 0x00]])
    );

    // A directory or a FIFO is never replaced, --force or not; nothing is left beside them.
    let fifo = dir.path().join("fifo");
    super::mkfifo(&fifo);
    for path in [dir.path().join("sub"), fifo.clone()] {
        let _ = std::fs::create_dir(dir.path().join("sub"));
        let output = args(&["-o", path.to_str().unwrap(), "--force"]);
        assert_eq!(output.status.code(), Some(2), "{}", path.display());
        assert!(
            stderr(&output).contains("refusing to replace"),
            "{}",
            stderr(&output)
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["fifo", "out.tfrecord", "sub"]);
}

#[test]
fn the_message_options_go_with_text_only() {
    use clap::Parser;
    use tfr_inspect::cli::Cli;
    // --text needs the type, and -o and --force need --text; a scalar takes no type.
    for argv in [
        &["encode", "--text", "features { }"][..],
        &[
            "encode",
            "--message",
            "tensorflow.Example",
            "--text",
            "a",
            "--force",
        ],
        &[
            "encode",
            "300",
            "--message",
            "tensorflow.Example",
            "--text",
            "features { }",
        ],
    ] {
        let mut all = vec!["tfr-inspect"];
        all.extend_from_slice(argv);
        assert!(Cli::try_parse_from(&all).is_err(), "{argv:?}");
    }
    for option in [
        &["--message", "tensorflow.Example"][..],
        &["--raw"],
        &["--bytes-as", "rgb=uint8"],
    ] {
        let mut all = vec!["encode", "300"];
        all.extend_from_slice(option);
        let output = run_in_process(&all);
        assert_eq!(output.status.code(), Some(2), "{option:?}");
        let err = stderr(&output);
        assert!(
            err.contains("give the type of a --text message"),
            "{option:?}: {err}"
        );
    }
}

#[test]
fn protoscope_text_is_assembled_and_walked_through() {
    let out = clean(&[
        "encode",
        "--protoscope",
        "1: 150 2: {\"hi\"} 3: {1: 5} 4: -2i32",
    ]);
    assert!(
        out.starts_with("08 96 01 12 02 68 69 1a 02 08 05 25 fe ff ff ff\n"),
        "{out}"
    );
    assert!(out.contains("varint 150\n"), "{out}");

    // The label Example written token by token is the Example --text gives, shown the same.
    let scope = r#"1: { 1: { 1: {"label"} 2: { 3: { 1: { 7 } } } } }"#;
    let text = r#"features { feature { key: "label" value { int64_list { value: 7 } } } }"#;
    let typed = ["--message", "tensorflow.Example"];
    let mut by_scope = vec!["encode", "--protoscope", scope];
    by_scope.extend(typed);
    let mut by_text = vec!["encode", "--text", text];
    by_text.extend(typed);
    assert_eq!(clean(&by_scope), clean(&by_text));

    // Written as a record, it reads back.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scope.tfrecord");
    let file_arg = file.to_str().unwrap();
    let mut write = vec!["encode", "--protoscope", scope, "-o", file_arg];
    write.extend(typed);
    clean(&write);
    assert!(clean(&["verify", file_arg]).contains("OK: 1 frame, 1 intact"));
    assert!(clean(&["show", file_arg]).contains("label"));
}

#[test]
fn a_protoscope_mistake_is_pointed_at_and_escaped() {
    let output = run_in_process(["encode", "--protoscope", "1: {\n  2: \u{1b}]0;x\u{7} }"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
    let err = stderr(&output);
    assert!(
        err.starts_with("tfr-inspect: --protoscope: line 2, column 6: "),
        "{err}"
    );
    assert!(!super::acts_on_a_terminal(&err), "{err:?}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[1], "    2: \\033]0;x\\007 }");
    assert_eq!(lines[2].find('^'), lines[1].find('\\'), "{err}");
    // -o needs a whole message.
    let output = run_in_process(["encode", "300", "-o", "x"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("-o writes a whole message"));
}
