//! Payloads inside bytes values, on the file `tf.io.TFRecordWriter` wrote with
//! `tf.io.serialize_tensor` values and serialized Examples in bytes features
//! (`testdata/writers/examples/nested_payloads.tfrecord`): the tree reads them as TensorFlow does
//! (`.reading.json`), text and JSON still print the bytes as Python protobuf does, and
//! `--field-type feature:NAME=Type` reads a feature's values as a declared message.

use crate::{run_in_process as run, stderr, stdout, testdata, tfrecord};

fn nested_file() -> std::path::PathBuf {
    testdata("writers/examples/nested_payloads.tfrecord")
}

fn reading() -> serde_json::Value {
    let mut path = nested_file().into_os_string();
    path.push(".reading.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("reading")).expect("JSON")
}

fn show(args: &[&str]) -> (String, String, Option<i32>) {
    let file = nested_file();
    let mut all: Vec<&std::ffi::OsStr> = vec!["show".as_ref(), file.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let output = run(all);
    (stdout(&output), stderr(&output), output.status.code())
}

/// Numbers as the tree prints them: whole floats with `.0`, as Python prints them.
fn numbers(values: &serde_json::Value, float: bool) -> Vec<String> {
    values
        .as_array()
        .expect("values")
        .iter()
        .map(|v| match (v.as_f64(), float) {
            (Some(f), true) if f.fract() == 0.0 => format!("{f:.1}"),
            (Some(f), true) => f.to_string(),
            _ => v.to_string(),
        })
        .collect()
}

#[test]
fn the_tree_reads_serialized_tensors_and_examples_as_tensorflow_does() {
    let (tree, _, code) = show(&["--record", "0"]);
    assert_eq!(code, Some(0));
    let record = &reading()[0];
    // tf.io.parse_tensor of the float32 [2, 3] tensor.
    let tensor = &record["tensor"]["parse_tensor"];
    assert_eq!(tensor["shape"], serde_json::json!([2, 3]));
    let rows: Vec<String> = tensor["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| format!("[{}]", numbers(row, true).join(", ")))
        .collect();
    let line = format!(
        "  tensor          bytes[1]     [TensorProto float32[2,3] [{}]]\n",
        rows.join(", ")
    );
    assert!(tree.contains(&line), "{line}\n{tree}");
    assert!(
        tree.contains("    [0]  TensorProto float32[2,3]\n"),
        "{tree}"
    );
    // A scalar, and a string tensor's strings.
    let scalar = &record["scalar"]["parse_tensor"]["values"];
    assert!(
        tree.contains(&format!(
            "[TensorProto float64[] {}]",
            numbers(&serde_json::json!([scalar]), true)[0]
        )),
        "{tree}"
    );
    let strings: Vec<String> = record["strings"]["parse_tensor"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{:?}", s.as_str().unwrap()))
        .collect();
    assert!(
        tree.contains(&format!("[TensorProto string[3] [{}]]", strings.join(", "))),
        "{tree}"
    );
    // tf.train.Example.FromString of the nested Example, and parse_tensor inside it.
    let inner = &record["nested_example"]["example_from_string"];
    let ids = numbers(&inner["ids"]["parse_tensor"]["values"], false);
    assert!(
        tree.contains("  nested_example  bytes[1]     [Example 2 features: ids, label]\n"),
        "{tree}"
    );
    assert!(
        tree.contains(&format!(
            "      ids    bytes[1]     [TensorProto int64[3] [{}]]\n",
            ids.join(", ")
        )),
        "{tree}"
    );
    let label = numbers(&inner["label"]["values"], false);
    assert!(
        tree.contains(&format!("      label  int64[1]     [{}]\n", label[0])),
        "{tree}"
    );
    // Short bytes that parse, and short text, stay bytes and text.
    assert!(
        tree.contains("  short           bytes[1]     [\"\\010\\001\"]\n"),
        "{tree}"
    );
    assert!(
        tree.contains("  text            bytes[1]     [\"ab\"]\n"),
        "{tree}"
    );
}

#[test]
fn a_deep_nesting_is_opened_four_values_deep_and_says_so() {
    let (tree, _, _) = show(&["--record", "1"]);
    // Python reads the chain six Examples deep; the tree opens four below the record.
    let mut depth = 0;
    let mut at = &reading()[1];
    while let Some(next) = at.get("nested_example") {
        depth += 1;
        at = &next["example_from_string"];
    }
    assert_eq!(depth, 5);
    assert_eq!(
        tree.matches("[0]  Example, 2 features").count(),
        4,
        "{tree}"
    );
    assert!(
        tree.contains("(Example, not opened: payloads are read 4 values deep)"),
        "{tree}"
    );
}

#[test]
fn values_that_are_no_payload_stay_bytes() {
    let (tree, _, _) = show(&["--record", "2"]);
    // TensorFlow cannot read either value as what its name says.
    let record = &reading()[2];
    assert!(record["nested_example"]["example_from_string"]["error"].is_string());
    assert!(
        tree.contains("  nested_example  bytes[1]     [\"\\n\\005\\n\\t\"]\n"),
        "{tree}"
    );
    assert!(!tree.contains("TensorProto"), "{tree}");
}

#[test]
fn text_and_json_still_print_the_bytes_as_python_protobuf_does() {
    for file in std::fs::read_dir(testdata("writers/examples")).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_none_or(|e| e != "tfrecord") {
            continue;
        }
        for (format, ext) in [("text", "txt"), ("json", "jsonl")] {
            let output = run([
                "show".as_ref(),
                path.as_os_str(),
                "--format".as_ref(),
                format.as_ref(),
            ]);
            let mut golden = path.clone().into_os_string();
            golden.push(format!(".golden.{ext}"));
            let golden = std::fs::read_to_string(golden).expect("golden");
            assert_eq!(stdout(&output), golden, "{path:?} {format}");
        }
    }
}

#[test]
fn field_type_reaches_a_features_values() {
    let (tree, _, code) = show(&[
        "--record",
        "2",
        "--field-type",
        "feature:nested_example=tensorflow.Example",
    ]);
    assert_eq!(code, Some(0));
    // The value lies at payload bytes 26..30 of record 2; its field 1 declares 5 bytes.
    assert!(
        tree.contains(
            "    [0]  # not a tensorflow.Example: field 1 declares 5 bytes but only 2 remain at payload byte 26 (value at payload bytes 26..30)\n"
        ),
        "{tree}"
    );
    // A declared type reads values detection would not claim, and says what it leaves unknown.
    let (tree, _, _) = show(&[
        "--record",
        "0",
        "--field-type",
        "feature:text=tensorflow.Example",
        "--field-type",
        "feature:tensor=tensorflow.Example",
    ]);
    assert!(
        tree.contains("  text            bytes[1]     [2 bytes, not a tensorflow.Example: "),
        "{tree}"
    );
    assert!(
        tree.contains("bytes lie in fields tf.train.Example does not declare"),
        "{tree}"
    );
    // The field form still works beside it.
    let (_, error, code) = show(&[
        "--field-type",
        "tensorflow.Example.features=tensorflow.Example",
    ]);
    assert_eq!(code, Some(2));
    assert!(error.contains("is not a bytes field"), "{error}");
}

#[test]
fn an_unknown_declared_type_or_a_clash_with_bytes_as_is_an_unusable_request() {
    let (_, error, code) = show(&["--field-type", "feature:nested_example=tensorflow.Exampel"]);
    assert_eq!(code, Some(2));
    assert!(
        error.contains(
            "--field-type feature:nested_example: no message named `tensorflow.Exampel`; did you mean tensorflow.Example?"
        ),
        "{error}"
    );
    let (_, error, code) = show(&[
        "--field-type",
        "feature:tensor=tensorflow.TensorProto",
        "--bytes-as",
        "tensor=uint8",
    ]);
    assert_eq!(code, Some(2));
    assert!(error.contains("also given --bytes-as"), "{error}");
}

/// A bytes value holding an Example holding a bytes value holding an Example…, `levels` deep.
fn nested_examples(levels: usize, leaf: &[u8]) -> Vec<u8> {
    use crate::proto::ld as field;
    let mut payload = leaf.to_vec();
    for _ in 0..levels {
        let feature = field(1, &field(1, &payload));
        payload = field(1, &field(1, &[field(1, b"n"), field(2, &feature)].concat()));
    }
    payload
}

#[test]
fn a_nesting_bomb_is_shown_in_output_linear_in_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.tfrecord");
    // 2000 levels, and a tensor declaring 2^62 elements at the bottom.
    let huge = [
        0x08, 0x01, 0x12, 0x0c, 0x12, 0x0a, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
        0x40, 0x22, 0x00,
    ];
    let payload = nested_examples(2000, &huge);
    std::fs::write(&path, tfrecord(&[&payload])).unwrap();
    let output = run(["show".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    let tree = stdout(&output);
    assert_eq!(tree.matches("[0]  Example, 1 feature").count(), 4);
    assert!(
        tree.len() < 8 * payload.len(),
        "{} for {}",
        tree.len(),
        payload.len()
    );
    let huge_file = dir.path().join("huge.tfrecord");
    std::fs::write(&huge_file, tfrecord(&[&nested_examples(1, &huge)])).unwrap();
    let output = run(["show".as_ref(), huge_file.as_os_str()]);
    assert!(
        !stdout(&output).contains("TensorProto"),
        "{}",
        stdout(&output)
    );
}
