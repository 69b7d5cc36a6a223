//! `filter`: the written file holds the matching records byte for byte, `--count`, damaged input
//! skipped and counted, the output's refusals, and a bad expression shown with a caret.

use std::ffi::OsStr;
use std::path::Path;

use tfr_core::crafted::{FeatureValue, example};
use tfr_core::frame::FrameIndex;

use super::{run as spawn, run_in_process_as_binary as run, stderr, stdout, temp_file, tfrecord};

/// Twelve Examples: `label` i % 4, `tokens` i values, `text` "dog" on the odd ones.
fn examples() -> Vec<Vec<u8>> {
    (0..12i64)
        .map(|i| {
            let text: &[u8] = if i % 2 == 1 { b"dog" } else { b"cat" };
            example(&[
                ("label", FeatureValue::Ints(vec![i % 4])),
                ("tokens", FeatureValue::Ints((0..i).collect())),
                (
                    "text",
                    FeatureValue::Bytes(vec![text.to_vec(), b"x".to_vec()]),
                ),
            ])
        })
        .collect()
}

fn file_of(payloads: &[Vec<u8>]) -> Vec<u8> {
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    tfrecord(&refs)
}

/// The bytes of each frame of `data`, whole (header, payload, CRCs).
fn frames(data: &[u8]) -> Vec<Vec<u8>> {
    let index = FrameIndex::build(data);
    assert_eq!(index.damaged_count(), 0);
    index
        .frames(data)
        .map(|f| {
            let end = f.frame_end().unwrap().0 as usize;
            data[f.offset.0 as usize..end].to_vec()
        })
        .collect()
}

fn filter(expr: &str, input: &Path, extra: &[&OsStr]) -> super::Ran {
    let mut args: Vec<&OsStr> = vec!["filter".as_ref(), expr.as_ref(), input.as_os_str()];
    args.extend_from_slice(extra);
    run(args)
}

#[test]
fn the_written_file_holds_the_matching_records_byte_for_byte() {
    let data = file_of(&examples());
    let (dir, input) = temp_file("in.tfrecord", &data);
    let all = frames(&data);
    for (expr, wanted) in [
        ("label == 3", vec![3, 7, 11]),
        ("len(tokens) >= 9 || label == 0", vec![0, 4, 8, 9, 10, 11]),
        ("\"dog\" in text && !(label == 1)", vec![3, 7, 11]),
        ("text != \"cat\"", vec![1, 3, 5, 7, 9, 11]),
        ("has(nothing)", vec![]),
    ] {
        let out = dir.path().join("out.tfrecord");
        let output = filter(
            expr,
            &input,
            &["-o".as_ref(), out.as_os_str(), "--force".as_ref()],
        );
        assert_eq!(output.status.code(), Some(0), "{expr}: {}", stderr(&output));
        let written = std::fs::read(&out).unwrap();
        let expected: Vec<u8> = wanted
            .iter()
            .flat_map(|&i: &usize| all[i].clone())
            .collect();
        assert_eq!(written, expected, "{expr}");
        assert!(
            stderr(&output).contains(&format!("wrote {} record", wanted.len())),
            "{}",
            stderr(&output)
        );
        let count = filter(expr, &input, &["--count".as_ref()]);
        assert_eq!(count.status.code(), Some(0));
        assert_eq!(stdout(&count), format!("{}\n", wanted.len()), "{expr}");
    }
    assert_eq!(
        std::fs::read(&input).unwrap(),
        data,
        "the input is never modified"
    );
}

#[test]
fn damaged_records_are_skipped_named_and_counted_with_exit_1() {
    let payloads = examples();
    let mut data = file_of(&payloads);
    // Flip a bit of record 1's payload: its CRC no longer matches.
    let second = 12 + payloads[0].len() + 4 + 12 + 2;
    data[second] ^= 0x10;
    let (dir, input) = temp_file("in.tfrecord", &data);
    let out = dir.path().join("out.tfrecord");
    let output = filter("label == 1", &input, &["-o".as_ref(), out.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("record 1 at byte"), "{err}");
    assert!(err.contains("1 damaged record skipped"), "{err}");
    // Records 5 and 9 have label 1; record 1 is damaged.
    let written = std::fs::read(&out).unwrap();
    let kept = frames(&written);
    assert_eq!(kept.len(), 2);
    let count = filter("label == 1", &input, &["--count".as_ref()]);
    assert_eq!(count.status.code(), Some(1));
    assert_eq!(stdout(&count), "2\n");
}

#[test]
fn records_that_are_no_example_never_match_and_are_noted() {
    let data = tfrecord(&[b"\xff\xff not a message", &examples()[3]]);
    let (_dir, input) = temp_file("in.tfrecord", &data);
    let output = filter("!has(label)", &input, &["--count".as_ref()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "0\n");
    assert!(
        stderr(&output).contains("1 record is no Example"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_output_is_never_an_input_nor_an_existing_file_without_force() {
    let data = file_of(&examples());
    let (dir, input) = temp_file("in.tfrecord", &data);
    let output = filter(
        "label == 1",
        &input,
        &["-o".as_ref(), input.as_os_str(), "--force".as_ref()],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(std::fs::read(&input).unwrap(), data);
    let existing = dir.path().join("existing");
    std::fs::write(&existing, b"keep").unwrap();
    let output = filter("label == 1", &input, &["-o".as_ref(), existing.as_os_str()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep");
    let output = filter(
        "label == 1",
        &input,
        &["-o".as_ref(), dir.path().as_os_str(), "--force".as_ref()],
    );
    assert_eq!(output.status.code(), Some(2));
    let output = filter("label == 1", &input, &["-o".as_ref(), "-".as_ref()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
}

#[test]
fn a_bad_expression_exits_2_with_a_caret_under_the_column() {
    let data = file_of(&examples());
    let (dir, input) = temp_file("in.tfrecord", &data);
    let out = dir.path().join("out.tfrecord");
    // Through the binary: the status and the message as a terminal would get them.
    let output = spawn([
        "filter".as_ref(),
        "label == 3 && len(tokens) >".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("column 28"), "{err}");
    assert!(
        err.contains("  label == 3 && len(tokens) >\n                             ^\n"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
    // Control characters in the expression reach the terminal escaped.
    let output = filter("\"\u{1b}[31m\" = 1", &input, &["--count".as_ref()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!stderr(&output).contains('\u{1b}'));
}

/// A name no record holds (a typo, say) matches nothing, and the count of 0 it gives is not
/// left to pass for an answer: each such name is noted. Names some record holds are not.
#[test]
fn a_feature_no_record_holds_is_noted() {
    let data = file_of(&examples());
    let (_dir, input) = temp_file("in.tfrecord", &data);
    let count: &[&OsStr] = &["--count".as_ref()];
    let output = filter(
        "lable == 3 || has(`tok\u{1b}ens`) || label == 1",
        &input,
        count,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "3\n");
    assert_eq!(
        stderr(&output),
        "filter: note: no record holds a feature `lable`\n\
         filter: note: no record holds a feature `tok\\033ens`\n"
    );
    let output = filter("label == 3 && has(tokens)", &input, count);
    assert_eq!(stdout(&output), "3\n");
    assert_eq!(stderr(&output), "");
    // However many names the expression has: the 70th is followed as the first is.
    let many: Vec<String> = (0..69).map(|i| format!("has(f{i})")).collect();
    let expr = format!("{} || has(typo) || label == 1", many.join(" || "));
    let output = filter(&expr, &input, count);
    assert_eq!(stdout(&output), "3\n");
    let noted = stderr(&output);
    assert_eq!(noted.lines().count(), 70, "{noted}");
    assert!(
        noted.ends_with("filter: note: no record holds a feature `typo`\n"),
        "{noted}"
    );
}
