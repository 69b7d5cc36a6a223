//! `filter`: the records an expression over decoded values matches, written to a new TFRecord
//! file, or only counted.
//!
//! The expression is parsed by [`tfr_core::filter`] before any file is opened; a mistake is said
//! with the expression and a caret under its column (exit 2). Records are decoded on every core
//! and tested in order through the loop `show` prints with; each matching record's payload is
//! written as a new frame (the same bytes as the input's frame, since only intact records are
//! tested; from a compressed input, an uncompressed file). The output is written as `salvage`
//! writes: a new path or, with `--force`, an existing regular file, never an input, atomically.
//! Damaged records are skipped, named as `show` names them, counted, and make the exit status 1;
//! records that are no Example or SequenceExample are never matched and counted in a note.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;
use clap::Args;

use super::dataset::{Run, RunExt};
use super::records::{Handed, Outcome, intact_payload, render_in_order};
use super::show::open_input;
use super::{Env, Messages, Status};
use tfr_core::example::top_features;
use tfr_core::filter::Expr;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::report::export::has_row;
use tfr_core::report::filter::{FilterReport, frame_bytes};
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct FilterArgs {
    /// The predicate, e.g. `label == 3` (see below).
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expression: String,
    /// TFRecord files, directories, quoted glob patterns or URLs (only read).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the matching records to this new TFRecord file, atomically.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        required_unless_present = "count",
        conflicts_with = "count"
    )]
    pub output: Option<PathBuf>,
    /// Replace OUT when it is an existing regular file (never an input, a device, FIFO, socket or
    /// directory).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Print only how many records match; write nothing.
    #[arg(long)]
    pub count: bool,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

/// What one record gave; a tested record also gives which of the expression's names it holds
/// (one flag per name, in [`Expr::names`]' order).
enum Tested {
    Match(Vec<u8>, Vec<bool>),
    NoMatch(Vec<bool>),
    /// No Example or SequenceExample.
    NotExample,
    /// Damaged: skipped, with why.
    Damaged(String),
}

pub fn run(
    args: &FilterArgs,
    open: &OpenOptions,
    _env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let expr = match tfr_core::filter::parse(&args.expression) {
        Ok(expr) => expr,
        Err(e) => {
            let status = messages.unusable(&format!("filter: bad expression: {e}"));
            let (shown, caret) = e.pointed(&args.expression);
            messages.note(&format_args!("  {shown}"));
            messages.note(&format_args!("  {caret}"));
            return Ok(status);
        }
    };
    let run = Run::resolve_reporting(&args.files, messages);
    let files = run.paths();
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let policy = OutputPolicy {
        inputs: &inputs,
        replace_existing: args.force,
        stdout_is_terminal: false,
    };
    let mut report = FilterReport::default();
    match &args.output {
        None => match write_matches(&files, open, &expr, messages, &mut report, &mut io::sink()) {
            Ok(()) => writeln!(out, "{}", report.matched)?,
            Err(e) => {
                messages.unusable(&e.to_string());
            }
        },
        Some(output) => {
            let path = match policy.check(output) {
                Ok(Destination::File(path)) => path,
                Ok(Destination::Stdout) => {
                    let message =
                        "filter writes a TFRecord file: give -o a file name (not -)".to_string();
                    return Ok(messages.unusable(&message));
                }
                Err(e) => return Ok(messages.unusable(&e)),
            };
            let written = write_atomically(&path, &policy, |w| {
                write_matches(&files, open, &expr, messages, &mut report, w)
            });
            if let Err(e) = written {
                messages.unusable(&e);
            } else {
                messages.note(&format_args!(
                    "{}: wrote {} of {} ({} bytes)",
                    tfr_core::escape::path_for_terminal(&path),
                    plural(report.matched, "record"),
                    plural(report.read, "record"),
                    report.bytes_written
                ));
            }
        }
    }
    if report.damaged > 0 {
        messages.note(&format_args!(
            "{} skipped",
            plural(report.damaged, "damaged record")
        ));
    }
    run.note_skipped_briefly(messages);
    Ok(messages.status())
}

/// Tests every record of `files`, writing the frames of those that match to `out`.
fn write_matches(
    files: &[PathBuf],
    open: &OpenOptions,
    expr: &Expr,
    messages: &Messages,
    report: &mut FilterReport,
    out: &mut dyn Write,
) -> io::Result<()> {
    let names = expr.names();
    let mut names_held = vec![false; names.len()];
    // Every name has been held: records need not be asked any more (read on the threads that
    // decode, set as results come in file order).
    let all_held = AtomicBool::new(names.is_empty());
    for path in files {
        if let Some(mut input) = open_input(path, open, messages) {
            let expression = (expr, names.as_slice(), names_held.as_mut_slice(), &all_held);
            filter_file(&mut input, expression, messages, report, out)?;
        }
    }
    // A misspelt name matches nothing and looks like a true count of 0: say it.
    if report.read > report.not_examples {
        for (name, held) in names.iter().zip(&names_held) {
            if !held {
                messages.note(&format_args!(
                    "filter: note: no record holds a feature `{}`",
                    tfr_core::escape::for_terminal(name)
                ));
            }
        }
    }
    out.flush()
}

/// Marks the names a record held among those held so far (`so_far`), and says through `all`
/// when every name has been.
fn note_held(so_far: &mut [bool], all: &AtomicBool, held: &[bool]) {
    for (name, now) in so_far.iter_mut().zip(held) {
        *name |= *now;
    }
    if !held.is_empty() && so_far.iter().all(|h| *h) {
        all.store(true, Ordering::Relaxed);
    }
}

/// The matching records of one file.
fn filter_file(
    input: &mut Input,
    (expr, names, names_held, all_held): (&Expr, &[&str], &mut [bool], &AtomicBool),
    messages: &Messages,
    report: &mut FilterReport,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut not_examples = 0u64;
    let mut failed: Option<io::Error> = None;
    let outcome = render_in_order(
        input,
        0,
        None,
        false,
        |input, decoder, frame, _| {
            let payload = match intact_payload(input, &frame) {
                Ok(payload) => payload,
                Err(note) => return Tested::Damaged(note),
            };
            let decoded = decoder.decode(payload);
            let Some(message) = decoded
                .typed(payload, decoder.table())
                .filter(|m| has_row(m))
            else {
                return Tested::NotExample;
            };
            let features = top_features(&message);
            // Once every name has been seen, no record is asked again (and nothing allocated).
            let held: Vec<bool> = match all_held.load(Ordering::Relaxed) {
                true => Vec::new(),
                false => names
                    .iter()
                    .map(|name| features.named(name).is_some())
                    .collect(),
            };
            match expr.matches(&features) {
                true => {
                    let mut bytes = Vec::new();
                    frame_bytes(payload, &mut bytes);
                    Tested::Match(bytes, held)
                }
                false => Tested::NoMatch(held),
            }
        },
        &mut io::sink(),
        |input, tested, _| {
            match tested {
                Tested::Match(bytes, held) => {
                    note_held(names_held, all_held, &held);
                    report.read += 1;
                    report.matched += 1;
                    if failed.is_none() {
                        match out.write_all(&bytes) {
                            Ok(()) => report.bytes_written += bytes.len() as u64,
                            Err(e) => failed = Some(e),
                        }
                    }
                }
                Tested::NoMatch(held) => {
                    note_held(names_held, all_held, &held);
                    report.read += 1;
                }
                Tested::NotExample => {
                    report.read += 1;
                    not_examples += 1;
                }
                Tested::Damaged(note) => {
                    report.damaged += 1;
                    messages.note(&format_args!("{}: {note}", input.name()));
                    messages.damage();
                }
            }
            Handed::AsIs
        },
    )?;
    if let Some(e) = failed {
        return Err(e);
    }
    report.not_examples += not_examples;
    if let Outcome::Changed(e) = outcome {
        // Records read after the change may be zeros: nothing is put in place.
        return Err(io::Error::other(e.to_string()));
    }
    if not_examples > 0 {
        let records = match not_examples {
            1 => "1 record is".to_string(),
            n => format!("{n} records are"),
        };
        messages.note(&format_args!(
            "{}: {records} no Example or SequenceExample, never matched",
            input.name()
        ));
    }
    Ok(())
}
