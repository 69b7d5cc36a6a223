//! The inspector as a tutor, without a terminal: the explanation line for the byte under the
//! cursor, step mode, the quiz and the parsed view, driven through `update` and drawn on a
//! `TestBackend`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::path::PathBuf;

use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::{Action, PromptKind};
use tfr_inspect::tui::tutor::Look;

use super::{open, render, type_text};

/// The whole screen at 160 by 48, as text.
fn screen(app: &App) -> String {
    super::screen(&render(app, 160, 48))
}

const MNIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/mnist_like.tfrecord");

/// The panel's lines as text.
fn panel(app: &App) -> Vec<String> {
    app.tutor.panel.iter().map(|l| l.text.clone()).collect()
}

fn has(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

/// Puts the hex cursor on file byte `at` (the MNIST shard's first frame starts at 0).
fn cursor_to(app: &mut App, at: u64) {
    app.update(Action::Prompt(PromptKind::Offset));
    type_text(app, &at.to_string());
    app.update(Action::Submit);
    assert_eq!(app.view.cursor, at);
}

#[test]
fn the_explanation_line_explains_the_byte_under_the_cursor() {
    let mut app = open(MNIST);
    // 13 and 14 are `e8 06`, the length of `features`.
    cursor_to(&mut app, 13);
    let first = app.view.explain.clone();
    assert!(
        first.starts_with("13..15 length e8 06 · byte 1 of 2: 1110 1000: continuation 1: more bytes follow; group 1101000 = 104, adds 104 << 0 = 104 to 872 = varint 872"),
        "{first}"
    );
    cursor_to(&mut app, 14);
    let second = app.view.explain.clone();
    assert!(
        second.contains("byte 2 of 2: 0000 0110: continuation 0: the last byte; group 0000110 = 6, adds 6 << 7 = 768 to 872"),
        "{second}"
    );
    assert_ne!(first, second, "each byte is explained on its own");
    // The tag of `features`: its wire type bits and its field.
    cursor_to(&mut app, 12);
    assert!(
        app.view
            .explain
            .contains("its low 3 bits 010 are the wire type 2 (LEN), the 4 above them field 1"),
        "{}",
        app.view.explain
    );
    let text = screen(&app);
    assert!(
        text.contains("@12 12..13 tag 0a · byte 1 of 1: 0000 1010"),
        "{text}"
    );
}

#[test]
fn step_mode_walks_token_by_token_and_counts_the_open_messages_down() {
    let mut app = open(MNIST);
    cursor_to(&mut app, 0);
    app.update(Action::StepMode);
    assert!(app.tutor.shows_panel());
    let lines = panel(&app);
    assert!(
        has(&lines, "frame at file 0: 6b 03 00 00 00 00 00 00"),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "| 6b 03 00 00 00 00 00 00 -> little-endian, reversed"
        ),
        "{lines:#?}"
    );
    // Header, CRC, then the tag of `features` and its length.
    app.update(Action::NextToken);
    app.update(Action::NextToken);
    assert_eq!(app.view.cursor, 12);
    app.update(Action::NextToken);
    assert_eq!(app.view.cursor, 13);
    let lines = panel(&app);
    assert_eq!(lines[0], "length at payload 0x1, file 13: e8 06");
    assert!(
        has(
            &lines,
            "| e8 06 -> 1110 1000 0000 0110 -> groups 1101000, 0000110 -> 0000110 1101000 = 872 = 0x368"
        ),
        "{lines:#?}"
    );
    assert!(
        has(&lines, "  payload (Example)  872 of 875 bytes left"),
        "{lines:#?}"
    );
    // Into `features`: both open messages count down token by token.
    app.update(Action::NextToken);
    let lines = panel(&app);
    assert!(
        has(&lines, "  payload (Example)  871 of 875 bytes left"),
        "{lines:#?}"
    );
    assert!(
        has(&lines, "    `features` (Features)  871 of 872 bytes left"),
        "{lines:#?}"
    );
    app.update(Action::NextToken);
    let lines = panel(&app);
    assert!(
        has(&lines, "    `features` (Features)  870 of 872 bytes left"),
        "{lines:#?}"
    );
    assert!(has(&lines, "| 0e -> 0000 1110"), "{lines:#?}");
    // Back one token, and the panel is drawn in the tree's place.
    app.update(Action::PrevToken);
    assert_eq!(app.view.cursor, 15);
    let text = screen(&app);
    assert!(
        text.contains(" step · . next · , previous · s back "),
        "{text}"
    );
    assert!(text.contains("tag at payload 0x3, file 15: 0a"), "{text}");
    assert!(
        !text.contains("┌ record 0 "),
        "the tree is not drawn: {text}"
    );
    // `s` again: the tree is back.
    app.update(Action::StepMode);
    assert!(!app.tutor.shows_panel());
    assert!(screen(&app).contains("┌ record 0 "));
}

#[test]
fn the_quiz_hides_the_meaning_checks_answers_and_derives_wrong_ones() {
    let mut app = open(MNIST);
    cursor_to(&mut app, 12);
    app.update(Action::Quiz);
    assert_eq!(
        app.prompt.as_ref().map(|p| p.kind),
        Some(PromptKind::Answer)
    );
    assert!(
        app.view
            .explain
            .ends_with("= ? (quiz: answer in the prompt below)"),
        "{}",
        app.view.explain
    );
    let text = screen(&app);
    assert!(
        text.contains("question 1: payload 0x0 (file 12): 0a"),
        "{text}"
    );
    assert!(text.contains("answer: "), "{text}");
    assert!(
        !text.contains("`features`"),
        "the meaning is hidden: {text}"
    );
    // Where the tag is: the message only (its field is the answer).
    assert!(
        panel(&app).iter().any(|l| l == "in tensorflow.Example"),
        "{:#?}",
        panel(&app)
    );
    // Right: field 1, wire type LEN.
    type_text(&mut app, "1 LEN");
    app.update(Action::Submit);
    let state = app.tutor.quiz.as_ref().unwrap();
    assert_eq!((state.right, state.asked), (1, 1));
    assert_eq!(state.verdict[0].look, Look::Right);
    assert_eq!(app.view.cursor, 13, "the next question is the length");
    // Wrong: the derivation is shown.
    type_text(&mut app, "827");
    app.update(Action::Submit);
    let lines = panel(&app);
    assert!(
        has(
            &lines,
            "question 2: not quite, you said 827; it is 872 bytes (0x368):"
        ),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "| e8 06 -> 1110 1000 0000 0110 -> groups 1101000, 0000110"
        ),
        "{lines:#?}"
    );
    assert!(has(&lines, "quiz · 1 of 2 right"), "{lines:#?}");
    // The third question, the tag of the first feature entry, says it is inside `features`.
    assert!(
        has(
            &lines,
            "in tensorflow.Example > features (a Features message)"
        ),
        "{lines:#?}"
    );
    // Esc ends the quiz with the score, and the tree comes back.
    app.update(Action::Cancel);
    assert!(app.tutor.quiz.is_none() && app.prompt.is_none());
    assert_eq!(app.message, "quiz over: 1 of 2 right");
    assert!(!app.quit);
    assert!(!app.view.explain.contains("= ?"));
}

#[test]
fn a_pasted_answer_with_control_characters_is_shown_escaped() {
    let mut app = open(MNIST);
    cursor_to(&mut app, 12);
    app.update(Action::Quiz);
    // A paste can carry what no key sends: an OSC title change and a carriage return.
    type_text(&mut app, "9\u{1b}]2;owned\u{7}\rx");
    app.update(Action::Submit);
    let lines = panel(&app);
    let said = lines
        .iter()
        .find(|l| l.contains("is no answer"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        !said.chars().any(|c| c.is_control()),
        "the answer reaches the screen raw: {said:?}"
    );
    assert!(said.starts_with("question 1: 9"), "{said:?}");
}

/// An Example with `features` sent twice (the two merge) and an unknown field 5.
fn stretched_example() -> Vec<u8> {
    let entry = |k: u8| [0x0a, 0x05, 0x0a, 0x01, k, 0x12, 0x00];
    let mut payload = Vec::new();
    for k in [b'a', b'b'] {
        payload.extend_from_slice(&[0x0a, 0x07]);
        payload.extend_from_slice(&entry(k));
    }
    payload.extend_from_slice(&[0x28, 0x01]);
    let mut file = Vec::new();
    tfr_core::frame::write_record(&payload, &mut file).unwrap();
    file
}

#[test]
fn the_parsed_view_shows_what_a_parser_keeps_of_each_occurrence() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stretched.tfrecord");
    std::fs::write(&path, stretched_example()).unwrap();
    let mut app = open(path.to_str().unwrap());
    app.update(Action::ParsedView);
    let lines = panel(&app);
    let row = |text: &str| {
        lines
            .iter()
            .find(|l| l.contains(text))
            .unwrap_or_else(|| panic!("no row {text}: {lines:#?}"))
            .clone()
    };
    assert!(row("    0x0  features LEN Features, 7 bytes").ends_with("merged (messages merge)"));
    assert!(row("    0x9  features LEN Features, 7 bytes").ends_with("merged (messages merge)"));
    assert!(row("   0x12  field 5 VARINT 1").ends_with("unknown field (unknown field)"));
    assert!(row("      key LEN 1 bytes").ends_with("kept"));
    // The explanation line names the rule on the token under the cursor.
    cursor_to(&mut app, 12 + 0x12);
    assert!(
        app.view
            .explain
            .contains("! unknown field: Example declares no field 5"),
        "{}",
        app.view.explain
    );
    let text = screen(&app);
    assert!(text.contains(" parsed · p back to the tree "), "{text}");
}

#[test]
fn the_tutor_panels_draw_on_every_fixture_damaged_or_not() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in ["", "corrupt"] {
        for entry in std::fs::read_dir(PathBuf::from(dir).join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "tfrecord") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 20);
    for file in files {
        let mut app = open(file.to_str().unwrap());
        for record in [0usize, 1] {
            app.update(Action::Prompt(PromptKind::Record));
            type_text(&mut app, &record.to_string());
            app.update(Action::Submit);
            app.finish_decoding();
            app.update(Action::StepMode);
            for _ in 0..40 {
                app.update(Action::NextToken);
            }
            screen(&app);
            app.update(Action::ParsedView);
            screen(&app);
            app.update(Action::ParsedView);
            app.update(Action::Quiz);
            for answer in ["1 2", "", "7"] {
                type_text(&mut app, answer);
                app.update(Action::Submit);
            }
            screen(&app);
            app.update(Action::Cancel);
            assert!(app.tutor.quiz.is_none(), "{}", file.display());
            assert!(!app.tutor.shows_panel(), "{}", file.display());
        }
    }
}

/// The inspector on a one-record file holding `payload`, read as `message` of the `.proto`
/// `source` (written into `dir`).
fn open_as(dir: &std::path::Path, source: &str, message: &str, payload: &[u8]) -> App {
    use tfr_core::input::OpenOptions;
    use tfr_core::payload::{Decoder, Reading};
    use tfr_core::schema::{Schema, Sources};
    let proto = dir.join("t.proto");
    std::fs::write(&proto, source).unwrap();
    let file = dir.join("t.tfrecord");
    std::fs::write(&file, tfr_core::crafted::encode_records(&[payload])).unwrap();
    let schema = Schema::from_sources(&Sources {
        protos: vec![proto],
        include: vec![dir.to_path_buf()],
        message: Some(message.into()),
        ..Sources::default()
    })
    .unwrap();
    let message = schema.user_message().unwrap();
    let options = OpenOptions::new(Decoder::new(schema, Reading::As(message)));
    let mut app = App::open(&[file], &options).unwrap();
    app.index_now();
    app
}

/// The inspector on a one-record file of the proto3 type `t.M` (sint64 s64 = 4: -150).
fn open_sint64(dir: &std::path::Path) -> App {
    open_as(
        dir,
        "syntax = \"proto3\"; package t;\nmessage M { sint64 s64 = 4; }\n",
        "t.M",
        &[0x20, 0xab, 0x02],
    )
}

#[test]
fn the_quiz_grades_each_step_and_asks_again_after_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open_sint64(dir.path());
    // The payload starts after the 12-byte header: the tag `20`, then the value `ab 02`.
    cursor_to(&mut app, 12);
    app.update(Action::Quiz);
    // No answer to a tag question: asked again, not graded.
    type_text(&mut app, "banana");
    app.update(Action::Submit);
    let state = app.tutor.quiz.as_ref().unwrap();
    assert_eq!((state.right, state.asked), (0, 0));
    let lines = panel(&app);
    assert!(
        has(&lines, "question 1: banana is no answer to this question;"),
        "{lines:#?}"
    );
    assert_eq!(app.view.cursor, 12, "the same question");
    assert_eq!(
        app.prompt.as_ref().map(|p| p.kind),
        Some(PromptKind::Answer)
    );
    // In the tool's words.
    type_text(&mut app, "4 VARINT");
    app.update(Action::Submit);
    assert_eq!(app.view.cursor, 13, "the value is asked next");
    // 299 is the varint: the first step only, and the type's reading is asked next.
    type_text(&mut app, "299");
    app.update(Action::Submit);
    let lines = panel(&app);
    assert!(
        has(
            &lines,
            "question 2: right as far as the wire: it holds 299. Now the next step"
        ),
        "{lines:#?}"
    );
    let state = app.tutor.quiz.as_ref().unwrap();
    assert_eq!((state.right, state.asked), (1, 1));
    assert_eq!(app.view.cursor, 13, "the same question");
    // -150: right, and the derivation follows a right answer too.
    type_text(&mut app, "-150");
    app.update(Action::Submit);
    assert_eq!(app.message, "quiz over: 2 of 2 right");
    assert!(app.tutor.quiz.is_none());
}

#[test]
fn the_wire_number_twice_is_wrong_and_derived() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open_sint64(dir.path());
    cursor_to(&mut app, 13);
    app.update(Action::Quiz);
    type_text(&mut app, "299");
    app.update(Action::Submit);
    type_text(&mut app, "299");
    app.update(Action::Submit);
    assert_eq!(app.message, "quiz over: 0 of 1 right");
}

#[test]
fn the_quiz_asks_which_occurrence_wins_after_its_tag() {
    let dir = tempfile::tempdir().unwrap();
    // n: 1, then n: 2: the first is dropped.
    let mut app = open_as(
        dir.path(),
        "syntax = \"proto3\"; package r;\nmessage M { int32 n = 1; }\n",
        "r.M",
        &[0x08, 0x01, 0x08, 0x02],
    );
    cursor_to(&mut app, 12);
    app.update(Action::Quiz);
    type_text(&mut app, "1 0");
    app.update(Action::Submit);
    // The rule question stays on the tag's byte.
    assert_eq!(app.view.cursor, 12);
    let lines = panel(&app);
    assert!(
        has(
            &lines,
            "a rule question: what does a parser keep of this occurrence?"
        ),
        "{lines:#?}"
    );
    type_text(&mut app, "dropped");
    app.update(Action::Submit);
    let lines = panel(&app);
    assert!(has(&lines, "question 2: right, dropped"), "{lines:#?}");
    assert!(has(&lines, "| last one wins: "), "{lines:#?}");
    assert_eq!(app.view.cursor, 13, "the value is asked next");
    let state = app.tutor.quiz.as_ref().unwrap();
    assert_eq!((state.right, state.asked), (2, 2));
}
