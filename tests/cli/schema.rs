//! `schema`: the feature spec, checked against what TensorFlow parsed with it.
//!
//! `testdata/schema.golden.json` is written by `scripts/schema_check.py`, which ran each spec
//! `schema --format python` printed through `tf.io.parse_single_example` (or
//! `parse_single_sequence_example`) over every record of its input, and each `--format tfdv`
//! through tensorflow-metadata's `Schema` parser. The binary must print the same specs today: a
//! change of output fails here until the script is run again (and passes).

use super::{
    acts_on_a_terminal, hostile_example, run_in_process, stderr, stdout, temp_file, testdata,
    tfrecord,
};

fn golden() -> serde_json::Value {
    let text = std::fs::read_to_string(testdata("schema.golden.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn every_spec_is_the_one_tensorflow_parsed_every_record_with() {
    let golden = golden();
    let inputs = golden["inputs"].as_object().unwrap();
    assert!(inputs.len() >= 10, "{}", inputs.len());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (input, checked) in inputs {
        assert_eq!(checked["parsed"], checked["records"], "{input}");
        assert!(checked["records"].as_u64().unwrap() > 0, "{input}");
        for (format, key) in [("python", "python"), ("tfdv", "tfdv")] {
            let output = run_in_process([
                "schema".as_ref(),
                "--format".as_ref(),
                format.as_ref(),
                root.join(input).as_os_str(),
            ]);
            assert_eq!(
                output.status.code(),
                Some(0),
                "{input}: {}",
                stderr(&output)
            );
            assert_eq!(
                stdout(&output),
                checked[key].as_str().unwrap(),
                "{input} --format {format}: rerun scripts/schema_check.py"
            );
        }
    }
}

#[test]
fn the_table_says_form_shape_and_presence_per_feature() {
    let output = run_in_process(["schema".as_ref(), testdata("sparse.tfrecord").as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "6 Example records and 4 SequenceExample records");
    assert_eq!(
        lines[1],
        "feature                    dtype   form       shape  present     values  steps"
    );
    assert!(
        text.contains(
            "\nweights                    float   var        -      2/6 (33%)   0..3    -\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "\nfeature_lists/frames       float   fixed seq  [2]    4/4 (100%)  2       0..3\n"
        ),
        "{text}"
    );
}

#[test]
fn json_gives_each_feature_with_its_counts() {
    let output = run_in_process([
        "schema".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        testdata("sequence.tfrecord").as_os_str(),
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["sequence_examples"], 10);
    let embedding = report["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "frame/embedding")
        .unwrap();
    assert_eq!(embedding["section"], "feature_lists");
    assert_eq!(embedding["form"], "fixed_sequence");
    assert_eq!(embedding["shape"], serde_json::json!([4]));
    assert_eq!(embedding["steps"], serde_json::json!({"min": 0, "max": 6}));
}

#[test]
fn damaged_records_are_skipped_named_and_make_the_status_1() {
    let output = run_in_process([
        "schema".as_ref(),
        "--format".as_ref(),
        "python".as_ref(),
        testdata("corrupt/payload_bitflip.tfrecord").as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("record 189 at byte 18978: skipped: data crc mismatch"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).starts_with("# The feature spec of 199 Example records"));
    assert!(stdout(&output).contains("    'feature3': tf.io.FixedLenFeature([], tf.float32),"));
}

#[test]
fn hostile_feature_names_are_escaped_in_every_format() {
    let (_dir, path) = temp_file("hostile.tfrecord", &tfrecord(&[&hostile_example()]));
    for format in ["text", "python", "json", "tfdv"] {
        let output = run_in_process([
            "schema".as_ref(),
            "--format".as_ref(),
            format.as_ref(),
            path.as_os_str(),
        ]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{format}: {}",
            stderr(&output)
        );
        assert!(
            !acts_on_a_terminal(&stdout(&output)),
            "{format}: {}",
            stdout(&output)
        );
        assert!(!acts_on_a_terminal(&stderr(&output)), "{format}");
    }
}

#[test]
fn a_file_that_cannot_be_read_prints_no_empty_spec() {
    for format in ["text", "json", "python", "tfdv"] {
        let output = run_in_process(["schema", "/nonexistent/x.tfrecord", "--format", format]);
        assert_eq!(output.status.code(), Some(2), "{format}");
        assert_eq!(stdout(&output), "", "{format}");
        assert!(
            stderr(&output).contains("/nonexistent/x.tfrecord"),
            "{format}"
        );
    }
}
