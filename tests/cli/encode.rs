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
