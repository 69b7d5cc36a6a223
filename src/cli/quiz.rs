//! `quiz`: one record's tokens with their meanings hidden. Each question names the bytes and asks
//! for the field number and wire type of a tag, the length a prefix announces or the number a
//! value holds; the answer is read from one line of standard input, checked, and when it is
//! wrong (or left empty) the derivation `hex --explain` prints is shown. Questions and answers
//! come from the core ([`tfr_core::quiz`]).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Status, report_unusable};
use tfr_core::annotate::Annotated;
use tfr_core::explain::number::hex_bytes;
use tfr_core::explain::{Explainer, Radix};
use tfr_core::input::{Input, OpenOptions};
use tfr_core::quiz::{self, Question};
use tfr_core::source::lines::read_line;
use tfr_core::words::parse_number;

#[derive(Debug, Args)]
pub struct QuizArgs {
    /// The TFRecord file.
    pub file: PathBuf,
    /// The record to quiz on (0-based, as `list` numbers frames).
    #[arg(short = 'n', long = "record", value_name = "N", default_value_t = 0)]
    pub record: usize,
    /// Where to start: a file offset (decimal or 0x…), or `exercise`: the second feature of an
    /// Example, where the encoding guide leaves the rest of its walkthrough as an exercise.
    #[arg(long, value_name = "OFFSET|exercise")]
    pub from: Option<String>,
    /// Ask at most this many questions.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub questions: usize,
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
    out: &mut impl Write,
) -> Result<Status> {
    let mut input = match Input::open(&args.file, open) {
        Ok(input) => input,
        Err(e) => return Ok(report_unusable(&e)),
    };
    let frame = match input.frame(args.record) {
        Ok(frame) => frame,
        Err(e) => return Ok(report_unusable(&e)),
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
        return Ok(Status::Clean);
    };
    let from = match args.from.as_deref() {
        None => base,
        Some("exercise") => match quiz::exercise_start(&annotated) {
            Some(at) => at,
            None => {
                let why = "--from exercise: the record is not an Example with two features";
                return Ok(report_unusable(why));
            }
        },
        Some(text) => match parse_number(text) {
            Ok(at) => at,
            Err(e) => return Ok(report_unusable(&format!("--from: {e}"))),
        },
    };
    let kind = decoded.as_ref().map_or("unreadable", |d| d.kind.name());
    writeln!(
        out,
        "{} record {}: {kind}. Each answer on one line; an empty line shows the answer.",
        input.name(),
        frame.index
    )?;
    let mut asked = 0;
    let mut right = 0;
    for question in quiz::questions(&annotated, &explainer, from).take(args.questions) {
        asked += 1;
        ask(out, &question, asked, base, &explainer)?;
        out.flush()?;
        let line = match read_line(&mut answers.lines, ANSWER_BOUND)? {
            Some(line) if !line.cut => line.text(),
            cut => {
                let why = match cut {
                    Some(_) => format!("an answer longer than {ANSWER_BOUND} bytes"),
                    None => "no more answers".into(),
                };
                writeln!(out)?;
                writeln!(out, "  ({why}) it is {}", question.answer)?;
                asked -= 1;
                break;
            }
        };
        let line = line.trim();
        // Typed or piped in: escaped before it is written back.
        let shown = tfr_core::escape::for_terminal(line);
        if answers.echo {
            writeln!(out, "{shown}")?;
        }
        if line.is_empty() {
            writeln!(out, "  it is {}:", question.answer)?;
        } else if question.check(line) {
            right += 1;
            writeln!(out, "  right: {}", question.answer)?;
            continue;
        } else {
            writeln!(
                out,
                "  not quite: you said {shown}; it is {}:",
                question.answer
            )?;
        }
        for step in &question.derivation {
            writeln!(out, "  | {step}")?;
        }
    }
    if asked == 0 {
        writeln!(out, "nothing to ask from byte {from} on")?;
    } else {
        writeln!(out, "score: {right} of {asked}")?;
    }
    Ok(Status::Clean)
}

/// `question 1: payload 0x3 (file 15): 0a` and what it asks.
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
    write!(out, "  {}\n> ", question.prompt)
}
