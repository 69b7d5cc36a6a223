//! `hex --compare`: two records side by side, aligned by field path, with the wire differences
//! and the parsed verdict.

use super::{
    acts_on_a_terminal, hostile_example, run, run_in_process, stderr, stdout, temp_file, tfrecord,
};
use tfr_core::crafted::compare_pairs;

fn pair(name: &str) -> tfr_core::crafted::ComparePair {
    compare_pairs()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap()
}

#[test]
fn two_records_of_one_file_are_set_side_by_side_with_a_parsed_verdict() {
    let p = pair("packed_vs_unpacked");
    let (_dir, path) = temp_file("pair.tfrecord", &tfrecord(&[&p.a, &p.b]));
    let output = run_in_process([
        "hex".as_ref(),
        path.as_os_str(),
        "--compare".as_ref(),
        "0".as_ref(),
        "1".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("A: ") && text.contains("record 0: Example, 16 payload bytes"),
        "{text}"
    );
    assert!(
        text.contains("record 1: Example, 17 payload bytes"),
        "{text}"
    );
    // The packed value 1 faces the unpacked value 1, marked as the same value encoded otherwise.
    let row = text
        .lines()
        .find(|l| l.starts_with("~ features.feature[x].value.int64_list.value #1"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains("25: 01  varint 1: int64 1, packed")
            && row.ends_with("56: 01  varint 1: int64 1"),
        "{row}"
    );
    assert!(
        text.contains("A sends it packed (1 run, 3 values), B one field per value (3 values)"),
        "{text}"
    );
    assert!(
        text.contains("Parsers see: the same message (both parsed as tensorflow.Example and the parsed messages compared)."),
        "{text}"
    );
}

#[test]
fn records_of_two_files_are_named_file_and_number() {
    let p = pair("different_value");
    let (_a, a) = temp_file("a.tfrecord", &tfrecord(&[b"x", &p.a]));
    let (_b, b) = temp_file("b.tfrecord", &tfrecord(&[&p.b]));
    let spec_a = format!("{}:1", a.display());
    let output = run_in_process([
        "hex".as_ref(),
        "--compare".as_ref(),
        spec_a.as_ref(),
        b.as_os_str(),
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        text.lines()
            .any(|l| l.starts_with("≠ features.feature[x].value.int64_list.value")),
        "{text}"
    );
    assert!(text.contains("Parsers see: different messages"), "{text}");
    // `-n` picks the record of each side named by its file alone.
    let output = run_in_process([
        "hex".as_ref(),
        "--compare".as_ref(),
        a.as_os_str(),
        a.as_os_str(),
        "-n".as_ref(),
        "-1".as_ref(),
    ]);
    let text = stdout(&output);
    assert!(text.contains("On the wire: the same bytes."), "{text}");
    assert!(text.contains("Parsers see: the same message"), "{text}");
}

#[test]
fn a_record_number_without_a_file_is_refused_with_a_hint() {
    let output = run_in_process(["hex", "--compare", "3", "7"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("`3` is a record number: name the file it is in"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn compare_refuses_the_one_record_outputs() {
    let p = pair("map_order");
    let (_dir, path) = temp_file("pair.tfrecord", &tfrecord(&[&p.a, &p.b]));
    let output = run_in_process([
        "hex".as_ref(),
        path.as_os_str(),
        "--compare".as_ref(),
        "0".as_ref(),
        "1".as_ref(),
        "--json".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("hex --compare prints its own table"));
}

#[test]
fn without_a_type_the_raw_reading_is_named() {
    let p = pair("non_minimal_varint");
    let (_dir, path) = temp_file("pair.tfrecord", &tfrecord(&[&p.a, &p.b]));
    let output = run_in_process([
        "hex".as_ref(),
        path.as_os_str(),
        "--raw".as_ref(),
        "--compare".as_ref(),
        "0".as_ref(),
        "1".as_ref(),
    ]);
    let text = stdout(&output);
    assert!(
        text.contains("is a varint of 3 bytes (96 81 00) for 150, which `96 01` says in 2 bytes"),
        "{text}"
    );
    assert!(text.contains("Parsers see: the same message (no type both were read as: compared as `protoc --decode_raw` reads them"), "{text}");
}

#[test]
fn map_keys_from_the_file_cannot_act_on_the_terminal() {
    let payload = hostile_example();
    let (_dir, path) = temp_file(
        "hostile.tfrecord",
        &tfrecord(&[&payload, &payload[..payload.len() - 1]]),
    );
    let output = run([
        "hex".as_ref(),
        path.as_os_str(),
        "--compare".as_ref(),
        "0".as_ref(),
        "1".as_ref(),
    ]);
    let text = stdout(&output);
    assert!(text.contains("Parsers see:"), "{text}");
    assert!(!acts_on_a_terminal(&text), "{text:?}");
}

#[test]
fn the_readme_s_pairs_file_holds_the_crafted_pairs_as_tensorflow_wrote_them() {
    let bytes = std::fs::read(super::testdata("compare/pairs.tfrecord")).unwrap();
    let index = tfr_core::frame::FrameIndex::build(&bytes);
    let payloads: Vec<Vec<u8>> = index
        .frames(&bytes)
        .map(|f| f.payload(&bytes).unwrap().to_vec())
        .collect();
    let pairs = compare_pairs();
    assert_eq!(payloads.len(), pairs.len() * 2);
    for (p, two) in pairs.iter().zip(payloads.chunks(2)) {
        assert_eq!(two, [p.a.clone(), p.b.clone()], "{}", p.name);
    }
}
