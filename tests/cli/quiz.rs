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
    assert!(text.ends_with("score: 1 of 1\n"), "{text}");
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
