//! `quiz`: answers read from standard input, checked, derived when wrong.

use std::io::Write;
use std::process::{Command, Stdio};

use super::testdata;

/// Runs `quiz` with `args`, typing `answers`; returns the transcript and the exit code.
fn quiz(args: &[&str], answers: &str) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .arg("quiz")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answers.as_bytes())
        .expect("answers written");
    let output = child.wait_with_output().expect("quiz ends");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    (text, output.status.code().unwrap_or(-1))
}

#[test]
fn answers_are_checked_and_wrong_ones_derived() {
    let mnist = testdata("mnist_like.tfrecord");
    let (text, code) = quiz(
        &[mnist.to_str().unwrap(), "-n", "0", "--questions", "3"],
        "1 LEN\n827\n\n",
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("question 1: payload 0x0 (file 12): 0a\n"),
        "{text}"
    );
    assert!(
        text.contains("> 1 LEN\n  right: field 1, wire type 2 (LEN)\n"),
        "{text}"
    );
    assert!(
        text.contains("question 2: payload 0x1 (file 13): e8 06\n"),
        "{text}"
    );
    assert!(
        text.contains("> 827\n  not quite: you said 827; it is 872 bytes (0x368):\n"),
        "{text}"
    );
    assert!(
        text.contains("  | e8 06 -> 1110 1000 0000 0110 -> groups 1101000, 0000110 -> 0000110 1101000 = 872 = 0x368\n"),
        "{text}"
    );
    assert!(
        text.contains("> \n  it is field 1, wire type 2 (LEN):\n"),
        "{text}"
    );
    assert!(text.ends_with("score: 1 of 3\n"), "{text}");
    // The meaning is never printed before the answer.
    let before_first_answer = text.split("> ").next().unwrap();
    assert!(!before_first_answer.contains("features"), "{text}");
}

#[test]
fn the_exercise_starts_at_the_second_feature_and_input_may_end_early() {
    let mnist = testdata("mnist_like.tfrecord");
    let (text, code) = quiz(&[mnist.to_str().unwrap(), "--from", "exercise"], "1 2\n");
    assert_eq!(code, 0, "{text}");
    // The second feature entry of the shard starts at payload 0x13.
    assert!(
        text.contains("question 1: payload 0x13 (file 31): 0a\n"),
        "{text}"
    );
    assert!(
        text.contains("(no more answers) it is 15 bytes (0xf)"),
        "{text}"
    );
    assert!(
        text.ends_with("score: 1 of 1 (the answers ended)\n"),
        "{text}"
    );
    // No answer at all: nothing scored, and not "nothing to ask".
    let (text, code) = quiz(&[mnist.to_str().unwrap()], "");
    assert_eq!(code, 0, "{text}");
    assert!(
        text.ends_with("(no more answers) it is field 1, wire type 2 (LEN)\nno answer was read: nothing scored\n"),
        "{text}"
    );
    let (text, code) = quiz(&[mnist.to_str().unwrap(), "--from", "nowhere"], "");
    assert_eq!(code, 2, "{text}");
}

#[test]
fn help_names_the_walkthrough_for_what_it_is() {
    let output = super::run(["quiz", "--help"]);
    let text = super::stdout(&output);
    assert!(text.contains("MNIST walkthrough"), "{text}");
    assert!(!text.contains("encoding guide"), "{text}");
}

/// A one-record file of the proto3 type `t.M` (sint64 s64 = 4, int32 i32 = 1, float fl = 9),
/// with the .proto beside it.
fn stepped_record(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let proto = dir.join("t.proto");
    std::fs::write(
        &proto,
        "syntax = \"proto3\"; package t;\nmessage M { int32 i32 = 1; sint64 s64 = 4; float fl = 9; }\n",
    )
    .unwrap();
    // s64: -150, i32: -1, fl: 25.4
    let mut payload = vec![0x20, 0xab, 0x02, 0x08];
    payload.extend_from_slice(&[0xff; 9]);
    payload.push(0x01);
    payload.push(0x4d);
    payload.extend_from_slice(&25.4f32.to_le_bytes());
    let file = dir.join("t.tfrecord");
    std::fs::write(&file, super::tfrecord(&[&payload])).unwrap();
    (proto, file)
}

#[test]
fn values_are_graded_step_by_step_and_unparseable_answers_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let (proto, file) = stepped_record(dir.path());
    let args = [
        "--proto",
        proto.to_str().unwrap(),
        "--message",
        "t.M",
        file.to_str().unwrap(),
    ];
    // The tag in the tool's words; 299 (the varint) then -150; a word, then a tag's synonym;
    // the int32's 64-bit number then a wrong reading; the float's bits then 25.4.
    let answers = "4 VARINT\n299\n-150\nminus one\nfield 1 wire type 0\n18446744073709551615\n1\n\
                   9 I32\n1103835955\n25.4\n";
    let (text, code) = quiz(&args, answers);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("> 299\n  right as far as the wire: it holds 299. Now the next step"),
        "{text}"
    );
    assert!(
        text.contains("> -150\n  right: -150 (the wire holds 299)\n  | ab 02 -> "),
        "{text}"
    );
    assert!(
        text.contains("> minus one\n  minus one is no answer to this question;"),
        "{text}"
    );
    assert!(
        text.contains("> field 1 wire type 0\n  right: field 1, wire type 0 (VARINT)"),
        "{text}"
    );
    assert!(
        text.contains(
            "> 1\n  not quite: you said 1; it is -1 (the wire holds 18446744073709551615):"
        ),
        "{text}"
    );
    assert!(
        text.contains("> 25.4\n  right: 25.4 (the wire holds 1103835955)"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("score: 5 of 6"), "{text}");
}

#[test]
fn the_exercise_runs_to_the_end_of_the_record_by_default() {
    let mnist = testdata("mnist_like.tfrecord");
    let (text, code) = quiz(
        &["--from", "exercise", mnist.to_str().unwrap()],
        &"\n".repeat(2000),
    );
    assert_eq!(code, 0);
    let asked = text.matches("\nquestion ").count();
    assert!(asked > 10, "{asked} questions");
    assert!(
        text.trim_end().ends_with(&format!("score: 0 of {asked}")),
        "{text}"
    );
}

#[test]
fn each_question_says_which_message_and_field_it_is_in_with_names_escaped() {
    let record = super::tfrecord(&[&super::hostile_example()]);
    let (_dir, path) = super::temp_file("hostile.tfrecord", &record);
    let answers = "\n".repeat(200);
    let (text, code) = quiz(&[path.to_str().unwrap(), "--questions", "200"], &answers);
    assert_eq!(code, 0, "{text}");
    assert!(!super::acts_on_a_terminal(&text), "{text:?}");
    let first = r#"feature["\033]2;owned\007"]"#;
    for place in [
        "in tensorflow.Example\n".to_string(),
        "in tensorflow.Example > Example.features\n".to_string(),
        "in tensorflow.Example > features (a Features message)\n".to_string(),
        format!("in tensorflow.Example > features > {first} > Feature.int64_list\n"),
        format!("in tensorflow.Example > features > {first} > int64_list > Int64List.value\n"),
        r#"in tensorflow.Example > features > feature["a\rDAMAGED"] (a Feature message)"#
            .to_string(),
        r#"in tensorflow.Example > features > feature["v"] > Feature.bytes_list"#.to_string(),
    ] {
        assert!(
            text.contains(&format!("  {place}")),
            "{place:?} missing\n{text}"
        );
    }
    // The place comes between the bytes and the question.
    let value = format!(
        ": 07\n  in tensorflow.Example > features > {first} > int64_list > Int64List.value\n  an element of a packed run of type int64"
    );
    assert!(text.contains(&value), "{value:?} missing\n{text}");
}

#[test]
fn rule_questions_ask_what_a_parser_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let proto = dir.path().join("r.proto");
    std::fs::write(
        &proto,
        "syntax = \"proto2\"; package r;\nenum Color { ZERO = 0; RED = 1; }\n\
         message M { optional int32 n = 1; optional Color c = 2; }\n",
    )
    .unwrap();
    // n: 1, then n: 2 (the last one wins), then c: 99 (no Color has it).
    let file = dir.path().join("r.tfrecord");
    std::fs::write(
        &file,
        super::tfrecord(&[&[0x08, 0x01, 0x08, 0x02, 0x10, 0x63]]),
    )
    .unwrap();
    let args = [
        "--proto",
        proto.to_str().unwrap(),
        "--message",
        "r.M",
        file.to_str().unwrap(),
    ];
    // Tag, rule (a word that is no answer, then the answer in other words), value; tag, value;
    // tag, rule (wrong), value.
    let answers = "1 0\nfirst\noverwritten\n1\n1 VARINT\n2\n2 0\nkept\n99\n";
    let (text, code) = quiz(&args, answers);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("a rule question: what does a parser keep of this occurrence?"),
        "{text}"
    );
    assert!(
        text.contains("> first\n  first is no answer to this question; a rule question"),
        "{text}"
    );
    assert!(
        text.contains("> overwritten\n  right: dropped\n  | last one wins: "),
        "{text}"
    );
    assert!(
        text.contains("> kept\n  not quite: you said kept; it is unknown field:\n  | closed enum value unknown: "),
        "{text}"
    );
    assert!(text.contains("score: 7 of 8"), "{text}");
}
