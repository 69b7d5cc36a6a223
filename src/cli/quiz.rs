//! `quiz`: one record's tokens with their meanings hidden. Each question names the bytes, says
//! which message and field they are inside, and asks for the field number and wire type of a tag,
//! the length a prefix announces or the number a value holds; the answer is read from one line of standard input, checked, and when it is
//! wrong (or left empty) the derivation `hex --explain` prints is shown. Questions and answers
//! come from the core ([`tfr_core::quiz`]).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Messages, Status};
use tfr_core::annotate::Annotated;
use tfr_core::explain::number::hex_bytes;
use tfr_core::explain::{Explainer, Radix};
use tfr_core::input::{Input, OpenOptions};
use tfr_core::quiz::{self, Attempt, Next, Question};
use tfr_core::rules::RuleBook;
use tfr_core::source::lines::read_line;
use tfr_core::words::parse_number;

#[derive(Debug, Args)]
pub struct QuizArgs {
    /// The TFRecord file.
    pub file: PathBuf,
    /// The record to quiz on (0-based, as `list` numbers frames).
    #[arg(
        short = 'n',
        long = "record",
        value_name = "N",
        default_value = "0",
        allow_negative_numbers = true,
        value_parser = super::argv::parse_record_number
    )]
    pub record: super::argv::RecordNumber,
    /// Where to start: a file offset (decimal or 0x…), or `exercise`: the second feature of an
    /// Example, where the MNIST walkthrough (a hand decoding of one MNIST Example, byte by byte)
    /// leaves the rest of the record as an exercise.
    #[arg(long, value_name = "OFFSET|exercise")]
    pub from: Option<String>,
    /// Ask at most this many questions (default 10; with `--from exercise`, every question to
    /// the end of the record).
    #[arg(long, value_name = "K")]
    pub questions: Option<usize>,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
    #[command(flatten)]
    pub bytes: super::BytesView,
}

/// The most bytes of one answer read: an answer is a number or a few words, and a longer line
/// (`quiz < /dev/zero`) ends the quiz instead of being read whole.
pub const ANSWER_BOUND: usize = 1024;

/// Where the answers come from.
pub struct Answers<R> {
    pub lines: R,
    /// Write each answer after its prompt (when they are not typed on a terminal, which echoes).
    pub echo: bool,
}

pub fn run(
    args: &QuizArgs,
    open: &OpenOptions,
    answers: &mut Answers<impl BufRead>,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let Some(mut input) = messages.usable(Input::open(&args.file, open)) else {
        return Ok(messages.status());
    };
    let frame = match super::argv::record_index(&mut input, args.record) {
        Ok(n) => messages.usable(input.frame(n)),
        Err(e) => {
            messages.unusable(&e);
            None
        }
    };
    let Some(frame) = frame else {
        return Ok(messages.status());
    };
    let data = input.data();
    let decoder = input.decoder();
    let decoded = frame.payload(data).map(|p| decoder.decode(p));
    let annotated = Annotated::new(data, &frame, decoded.as_ref(), decoder.table());
    let explainer = Explainer::new(&annotated, data, Radix::Decimal);
    let Some(base) = annotated.payload().map(|p| p.base()) else {
        writeln!(
            out,
            "{} record {}: its payload is not protobuf; nothing to ask",
            input.name(),
            frame.index
        )?;
        return Ok(messages.status());
    };
    let from = match start(args.from.as_deref(), &annotated, base) {
        Ok(at) => at,
        Err(why) => return Ok(messages.unusable(&why)),
    };
    let kind = decoded.as_ref().map_or("unreadable", |d| d.kind.name());
    writeln!(
        out,
        "{} record {}: {kind}. Each answer on one line; an empty line shows the answer.",
        input.name(),
        frame.index
    )?;
    let limit = match (args.questions, args.from.as_deref()) {
        (Some(k), _) => k,
        (None, Some("exercise")) => usize::MAX,
        (None, _) => 10,
    };
    let book = RuleBook::of(&annotated, Radix::Decimal);
    let questions = quiz::questions(&annotated, &explainer, book.as_ref(), from).take(limit);
    let (asked, right, ended) = ask_each(questions, answers, (base, &explainer), out)?;
    match (asked, ended) {
        (0, true) => writeln!(out, "no answer was read: nothing scored")?,
        (0, false) => writeln!(out, "nothing to ask from byte {from} on")?,
        (_, true) => writeln!(out, "score: {right} of {asked} (the answers ended)")?,
        (_, false) => writeln!(out, "score: {right} of {asked}")?,
    }
    Ok(messages.status())
}

/// Where `--from` starts the quiz (the payload's first byte without it), or why it cannot.
fn start(from: Option<&str>, annotated: &Annotated<'_>, base: u64) -> Result<u64, String> {
    match from {
        None => Ok(base),
        Some("exercise") => quiz::exercise_start(annotated).ok_or_else(|| {
            "--from exercise: the record is not an Example with two features".to_string()
        }),
        Some(text) => parse_number(text).map_err(|e| format!("--from: {e}")),
    }
}

/// Asks each question and checks the answer read for it, until the questions or the answers run
/// out: how many were asked and answered, how many right, and whether the answers ran out.
fn ask_each(
    questions: impl Iterator<Item = Question>,
    answers: &mut Answers<impl BufRead>,
    (base, explainer): (u64, &Explainer<'_>),
    out: &mut impl Write,
) -> std::io::Result<(usize, usize, bool)> {
    let mut asked = 0;
    let mut right = 0;
    for question in questions {
        ask(out, &question, asked + 1, base, explainer)?;
        match grade(&question, answers, out)? {
            Some(true) => right += 1,
            Some(false) => {}
            None => return Ok((asked, right, true)),
        }
        asked += 1;
    }
    Ok((asked, right, false))
}

/// Tries to read one answer line: `None` when the answers end (or one is too long to be one).
fn answer_line(
    question: &Question,
    answers: &mut Answers<impl BufRead>,
    out: &mut impl Write,
) -> std::io::Result<Option<String>> {
    out.flush()?;
    match read_line(&mut answers.lines, ANSWER_BOUND)? {
        Some(line) if !line.cut => Ok(Some(line.text().trim().to_string())),
        cut => {
            let why = match cut {
                Some(_) => format!("an answer longer than {ANSWER_BOUND} bytes"),
                None => "no more answers".into(),
            };
            writeln!(out)?;
            writeln!(out, "  ({why}) it is {}", question.answer)?;
            Ok(None)
        }
    }
}

/// Reads and grades the answers to one question: right or not (`None` when the answers end).
/// An answer that is no answer to this kind of question is asked again; the wire's number for a
/// value its type reads otherwise is the first step, and the type's reading is asked next.
fn grade(
    question: &Question,
    answers: &mut Answers<impl BufRead>,
    out: &mut impl Write,
) -> std::io::Result<Option<bool>> {
    let mut attempt = Attempt::default();
    loop {
        let Some(line) = answer_line(question, answers, out)? else {
            return Ok(None);
        };
        // Typed or piped in: escaped before it is written back.
        let shown = tfr_core::escape::for_terminal(&line).into_owned();
        if answers.echo {
            writeln!(out, "{shown}")?;
        }
        let right = match attempt.answer(question, &line) {
            Next::AskAgain => {
                write!(
                    out,
                    "  {shown} is no answer to this question; {}\n> ",
                    question.prompt
                )?;
                continue;
            }
            Next::TypeStep => {
                write!(out, "  {}\n> ", question.type_step())?;
                continue;
            }
            Next::Graded { right: true } => {
                writeln!(out, "  right: {}", question.answer)?;
                true
            }
            Next::Graded { right: false } if line.is_empty() => {
                writeln!(out, "  it is {}:", question.answer)?;
                false
            }
            Next::Graded { right: false } => {
                writeln!(
                    out,
                    "  not quite: you said {shown}; it is {}:",
                    question.answer
                )?;
                false
            }
        };
        // The derivation follows every answer, right or wrong.
        for step in &question.derivation {
            writeln!(out, "  | {step}")?;
        }
        return Ok(Some(right));
    }
}

/// `question 1: payload 0x3 (file 15): 0a`, where the token is, and what it asks.
fn ask(
    out: &mut impl Write,
    question: &Question,
    n: usize,
    base: u64,
    explainer: &Explainer<'_>,
) -> std::io::Result<()> {
    let token = &question.token;
    let bytes = explainer.bytes(token);
    let shown = match bytes.get(..16) {
        Some(head) if bytes.len() > 16 => format!("{} …", hex_bytes(head)),
        _ => hex_bytes(bytes),
    };
    let payload = token.start.saturating_sub(base);
    writeln!(
        out,
        "question {n}: payload 0x{payload:x} (file {}): {shown}",
        token.start
    )?;
    // The core escaped the file's names in it (a map key is a feature's name).
    if let Some(place) = &question.place {
        writeln!(out, "  {place}")?;
    }
    write!(out, "  {}\n> ", question.prompt)
}
