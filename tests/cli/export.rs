//! `export`: rows whose values are Python's (the `json_format` goldens TensorFlow's writer left
//! beside each fixture), CSV over every feature, damaged records skipped, the output written as
//! a new file.

use serde_json::Value;

use super::count::numbered;
use super::dataset::toy_parcels;
use super::{run, stderr, stdout, testdata};

fn export(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut all = vec![std::ffi::OsStr::new("export")];
    all.extend_from_slice(args);
    run(all)
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What Python's json_format gives a feature's values, as export writes them with `--lists
/// --bytes base64`: int64 strings as integers, floats as the float32 they are, bytes as base64.
fn python_values(feature: &Value) -> (Vec<Value>, &'static str) {
    for (list, kind) in [
        ("int64List", "int"),
        ("floatList", "float"),
        ("bytesList", "bytes"),
    ] {
        if let Some(values) = feature.get(list) {
            let values = values["value"].as_array().cloned().unwrap_or_default();
            return (values, kind);
        }
    }
    (Vec::new(), "empty")
}

fn same_value(exported: &Value, python: &Value, kind: &str) -> bool {
    match kind {
        "int" => exported.as_i64() == python.as_str().and_then(|s| s.parse().ok()),
        "float" => match (exported.as_f64(), python.as_f64()) {
            (Some(a), Some(b)) => a as f32 == b as f32,
            // NaN and infinities are strings in both.
            _ => exported == python,
        },
        _ => exported == python,
    }
}

#[test]
fn jsonl_values_are_the_values_python_decodes() {
    for name in ["examples", "images", "mnist_like", "cifar_like", "sequence"] {
        let file = testdata(&format!("{name}.tfrecord"));
        let output = export(&[
            file.as_os_str(),
            "--lists".as_ref(),
            "--bytes".as_ref(),
            "base64".as_ref(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        let rows = lines(&stdout(&output));
        let golden = std::fs::read_to_string(testdata(&format!("{name}.golden.jsonl"))).unwrap();
        let golden = lines(&golden);
        assert_eq!(rows.len(), golden.len(), "{name}");
        let offsets: Vec<u64> = std::fs::read_to_string(testdata(&format!("{name}.frames.tsv")))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split('\t').nth(1).unwrap().parse().unwrap())
            .collect();
        for (i, (row, record)) in rows.iter().zip(&golden).enumerate() {
            assert_eq!(row["index"], i, "{name}");
            assert_eq!(row["offset"], offsets[i], "{name} record {i}");
            assert_eq!(row["file"], file.to_str().unwrap());
            let features = record
                .get("features")
                .or_else(|| record.get("context"))
                .and_then(|f| f.get("feature"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            // file, index, offset and one key per feature.
            assert_eq!(
                row.as_object().unwrap().len(),
                features.len() + 3,
                "{name} {i}"
            );
            for (feature, values) in &features {
                let (python, kind) = python_values(values);
                let exported = row[feature.as_str()].as_array().unwrap();
                assert_eq!(exported.len(), python.len(), "{name} {i} {feature}");
                for (e, p) in exported.iter().zip(&python) {
                    assert!(same_value(e, p, kind), "{name} {i} {feature}: {e} vs {p}");
                }
            }
        }
    }
}

#[test]
fn one_value_is_a_scalar_and_bytes_are_text_or_what_they_are() {
    let file = testdata("images.tfrecord");
    let output = export(&[file.as_os_str()]);
    let rows = lines(&stdout(&output));
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0]["image/class/label"], 0);
    assert_eq!(rows[0]["image/class/text"], "gradient");
    assert_eq!(rows[0]["image/height"], 48);
    assert_eq!(rows[0]["image/encoded"], "<JPEG 64x48 RGB, 1062 bytes>");
    assert_eq!(rows[1]["image/encoded"], "<PNG 320x213 RGB, 782 bytes>");
    let mnist = lines(&stdout(&export(&[
        testdata("mnist_like.tfrecord").as_os_str()
    ])));
    assert_eq!(mnist[0]["image_raw"], "<784 bytes>");
}

#[test]
fn csv_has_a_column_per_feature_of_any_record_and_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    use tfr_core::crafted::{FeatureValue, example};
    let records = [
        example(&[
            ("a", FeatureValue::Ints(vec![1])),
            ("list", FeatureValue::Floats(vec![0.5, 1.5])),
        ]),
        example(&[
            ("b", FeatureValue::Bytes(vec!["x,y".into()])),
            ("a", FeatureValue::Ints(vec![2])),
        ]),
    ];
    for r in &records {
        tfr_core::frame::write_record(r, &mut bytes).unwrap();
    }
    let file = dir.path().join("mixed.tfrecord");
    std::fs::write(&file, bytes).unwrap();
    let output = export(&[file.as_os_str(), "--format".as_ref(), "csv".as_ref()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let name = file.display();
    assert_eq!(
        stdout(&output),
        format!(
            "file,index,offset,a,b,list\n{name},0,0,1,,0.5;1.5\n{name},1,{},2,\"x,y\",\n",
            16 + records[0].len()
        )
    );
    // An empty file: the header alone; JSON lines: nothing.
    let empty = testdata("empty.tfrecord");
    let csv = export(&[empty.as_os_str(), "--format".as_ref(), "csv".as_ref()]);
    assert_eq!(
        (csv.status.code(), stdout(&csv)),
        (Some(0), "file,index,offset\n".into())
    );
    let jsonl = export(&[empty.as_os_str()]);
    assert_eq!(
        (jsonl.status.code(), stdout(&jsonl)),
        (Some(0), String::new())
    );
}

#[test]
fn damaged_records_are_skipped_named_and_exit_one() {
    let file = testdata("corrupt/payload_bitflip.tfrecord");
    let output = export(&[file.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let rows = lines(&stdout(&output));
    assert_eq!(rows.len(), 199);
    assert!(rows.iter().all(|r| r["index"] != 189));
    assert_eq!(rows[189]["index"], 190);
    assert_eq!(
        stderr(&output),
        format!(
            "{}: record 189 at byte 18978: skipped: payload CRC mismatch (stored 0xbb02d86f, \
             computed 0xc744e582): the payload or its CRC is damaged; TensorFlow reports \
             \"corrupted record at 18990\"\n",
            file.display()
        )
    );
    // Records that are no Example: counted in a note, no rows.
    let raw = testdata("raw_strings.tfrecord");
    let output = export(&[raw.as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        format!(
            "{}: 8 records are no Example or SequenceExample, not exported\n",
            raw.display()
        )
    );
}

#[test]
fn a_dataset_is_exported_shard_by_shard() {
    let (_tmp, dir) = toy_parcels();
    let output = export(&[dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = lines(&stdout(&output));
    assert_eq!(rows.len(), 38);
    let shard = dir.join("toy_parcels-train.tfrecord-00001-of-00002");
    assert_eq!(rows[15]["file"], shard.to_str().unwrap());
    assert_eq!(rows[15]["index"], 0);
    assert!(rows[15]["label"].is_i64());
}

#[test]
fn the_output_is_a_new_file_an_existing_one_only_with_force_and_never_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = numbered(dir.path(), "in.tfrecord", 3);
    let examples = testdata("examples.tfrecord");
    let out = dir.path().join("rows.jsonl");
    let first = export(&[examples.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(stdout(&first), "");
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written, stdout(&export(&[examples.as_os_str()])));
    let again = export(&[examples.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already exists; pass --force"),
        "{}",
        stderr(&again)
    );
    std::fs::write(&out, "old").unwrap();
    let forced = export(&[
        examples.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--force".as_ref(),
    ]);
    assert_eq!(forced.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), written);
    let before = std::fs::read(&input).unwrap();
    let over = export(&[
        input.as_os_str(),
        "-o".as_ref(),
        input.as_os_str(),
        "--force".as_ref(),
    ]);
    assert_eq!(over.status.code(), Some(2));
    assert_eq!(std::fs::read(&input).unwrap(), before);
    // Nothing but what was asked for is left in the directory.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["in.tfrecord", "rows.jsonl"]);
}

#[test]
fn a_closed_output_ends_it_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("many.tfrecord");
    // Many Examples: the rows outgrow a pipe's buffer.
    let mut bytes = Vec::new();
    let record = tfr_core::crafted::example(&[(
        "v",
        tfr_core::crafted::FeatureValue::Floats(vec![0.25; 64]),
    )]);
    for _ in 0..5000 {
        tfr_core::frame::write_record(&record, &mut bytes).unwrap();
    }
    std::fs::write(&file, bytes).unwrap();
    for format in ["jsonl", "csv"] {
        let err = dir.path().join("err");
        let status = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "\"$0\" export \"$1\" --format {format} 2>\"$2\" | head -c 100 >/dev/null; exit ${{PIPESTATUS[0]}}"
            ))
            .arg(env!("CARGO_BIN_EXE_tfr-inspect"))
            .arg(&file)
            .arg(&err)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "{format}");
        assert_eq!(std::fs::read_to_string(&err).unwrap(), "", "{format}");
    }
}

#[test]
fn a_url_exports_what_the_file_does() {
    let base = super::remote::serve(testdata(""));
    let local = testdata("images.tfrecord");
    let url = format!("{base}images.tfrecord");
    let on_disk = export(&[local.as_os_str(), "--format".as_ref(), "csv".as_ref()]);
    let remote = export(&[url.as_ref(), "--format".as_ref(), "csv".as_ref()]);
    assert_eq!(remote.status.code(), Some(0), "{}", stderr(&remote));
    assert_eq!(
        stdout(&remote).replace(&url, "FILE"),
        stdout(&on_disk).replace(local.to_str().unwrap(), "FILE")
    );
}

#[test]
fn event_files_give_a_row_per_scalar_as_tensorboard_reads_them() {
    let logdir = testdata("writers/tensorboard");
    let output = export(&[logdir.as_os_str(), "--format".as_ref(), "csv".as_ref()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // What TensorBoard's EventAccumulator read from the same file (its `reading.json`).
    let reading: Value = serde_json::from_str(
        &std::fs::read_to_string(testdata(
            "writers/tensorboard/trial_1/events.out.tfevents.1700000000.writer-fixtures.1.1.v2.reading.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let mut expected = String::from("run,tag,step,wall_time,value\n");
    for event in reading["tensors"]["accuracy"]["events"].as_array().unwrap() {
        expected.push_str(&format!(
            "trial_1,accuracy,{},{:?},{:?}\n",
            event["step"],
            event["wall_time"].as_f64().unwrap(),
            event["values"].as_f64().unwrap()
        ));
    }
    assert_eq!(stdout(&output), expected);
    assert_eq!(expected.lines().count(), 3);
    // The goldens beside the event files are counted in one line naming the first three.
    assert!(
        stderr(&output).starts_with("12 other files skipped (not TFRecord): "),
        "{}",
        stderr(&output)
    );
    let jsonl = export(&[logdir.join("trial_1").as_os_str()]);
    let rows = lines(&stdout(&jsonl));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["run"], ".");
    assert_eq!(rows[1]["step"], 1);
    assert_eq!(rows[1]["value"], 0.75);
    // Event files and record files together are refused.
    let mixed = export(&[
        logdir.join("trial_1").as_os_str(),
        testdata("images.tfrecord").as_os_str(),
    ]);
    assert_eq!(mixed.status.code(), Some(2));
    assert!(
        stderr(&mixed).contains("1 of the 2 files are TensorBoard event files"),
        "{}",
        stderr(&mixed)
    );
}

#[test]
fn csv_refuses_more_columns_than_its_limit_and_jsonl_writes_them() {
    // One record of 100,001 features: more names than CSV takes as columns.
    let names: Vec<String> = (0..100_001).map(|i| format!("f{i}")).collect();
    let features: Vec<(&str, tfr_core::crafted::FeatureValue)> = names
        .iter()
        .map(|n| (n.as_str(), tfr_core::crafted::FeatureValue::Ints(vec![1])))
        .collect();
    let mut bytes = Vec::new();
    tfr_core::frame::write_record(&tfr_core::crafted::example(&features), &mut bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.tfrecord");
    std::fs::write(&file, bytes).unwrap();
    let csv = export(&[file.as_os_str(), "--format".as_ref(), "csv".as_ref()]);
    assert_eq!(csv.status.code(), Some(2));
    assert_eq!(stdout(&csv), "");
    assert!(
        stderr(&csv).contains("more than 100000 feature names, too many for CSV columns"),
        "{}",
        stderr(&csv)
    );
    let jsonl = export(&[file.as_os_str()]);
    assert_eq!(jsonl.status.code(), Some(0));
    assert_eq!(
        lines(&stdout(&jsonl))[0].as_object().unwrap().len(),
        100_004
    );
}
