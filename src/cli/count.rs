//! `count`: how many records each file holds, per split and in all, from the frame index alone
//! (no payload is decoded), as `wc -l` counts lines.
//!
//! Each number is the file's intact records; damaged frames are named on standard error and not
//! counted, and make the exit status 1, so that a count of a damaged file is never taken for the
//! count of a whole one.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::dataset::{Run, RunExt};
use super::progress::Progress;
use super::{Env, Messages, Status};
use crate::hint::UserMessage;
use tfr_core::input::OpenOptions;
use tfr_core::report::count::{CountReport, FileCount, FileLine, Outcome, SplitLine, Sum};
use tfr_core::words::plural;

/// Damaged frames named per file; the rest are counted in one line.
const NAMED_DAMAGE: usize = 10;

#[derive(Debug, Args)]
pub struct CountArgs {
    /// TFRecord files, directories, quoted glob patterns or URLs.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per file, per split and for the total (`"type"` says which).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

/// Counts the records of `args.files`, one file per core, and prints them in the order given.
pub fn run(
    args: &CountArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let run = Run::resolve_reporting(&args.files, messages);
    let progress = Progress::bytes("counting", 0, env.progress(false));
    let report = CountReport::count(&run.dataset, open, &progress);
    progress.finish();
    let mut run = run;
    for (tally, file) in run.tallies.iter_mut().zip(&report.files) {
        *tally = file.as_ref().ok().map(|c| c.tally);
    }
    let files = run.paths();
    for (path, file) in files.iter().zip(&report.files) {
        match file {
            Ok(count) => name_damage(path, count, messages),
            Err(e) => {
                messages.unusable(e);
            }
        }
    }
    for problem in &report.problems {
        messages.note(&problem.problem);
    }
    run.note_skipped_briefly(messages);
    if !report.ok() {
        messages.damage();
    }
    match args.json {
        true => write_json(&run, &report, &files, out)?,
        false => write_text(&run, &report, &files, out)?,
    }
    Ok(messages.status())
}

/// Names the first damaged frames of a file on standard error, as `show` names a record it
/// skips, and how many more there are.
fn name_damage(path: &std::path::Path, count: &FileCount, messages: &Messages) {
    let name = tfr_core::escape::path_for_terminal(path);
    for problem in count.problems.iter().take(NAMED_DAMAGE) {
        match problem.index {
            Some(index) => messages.note(&format_args!(
                "{name}: record {index} at byte {}: not counted: {}",
                problem.region.start, problem.description
            )),
            None => messages.note(&format_args!("{name}: {}", problem.description)),
        }
    }
    if let Some(more) = count
        .problems
        .len()
        .checked_sub(NAMED_DAMAGE)
        .filter(|n| *n > 0)
    {
        messages.note(&format_args!(
            "{name}: {} more not counted (`tfr-inspect verify` names every one)",
            plural(more as u64, "damaged frame")
        ));
    }
}

/// `wc -l`'s layout: each number right-aligned to the widest, then the file's name and where it
/// stands; a line per split, and the total when there is more than one file.
fn write_text(
    run: &Run,
    report: &CountReport,
    files: &[PathBuf],
    out: &mut impl Write,
) -> Result<()> {
    let width = report.total.records.to_string().len();
    for (member, (path, file)) in files.iter().zip(&report.files).enumerate() {
        let Ok(count) = file else { continue };
        let mut line = format!(
            "{:>width$}  {}",
            count.records,
            tfr_core::escape::path_for_terminal(path)
        );
        let mut notes = Vec::new();
        if let Some(label) = run.label(member) {
            notes.push(label);
        }
        if count.damaged > 0 {
            notes.push(format!(
                "{} not counted",
                plural(count.damaged, "damaged frame")
            ));
        }
        if !notes.is_empty() {
            line.push_str(&format!("  ({})", notes.join(", ")));
        }
        writeln!(out, "{line}")?;
    }
    for split in &report.splits {
        let noun = match split.named {
            true => "shard",
            false => "file",
        };
        let name = tfr_core::escape::for_terminal(&split.name);
        writeln!(
            out,
            "{:>width$}  {name} ({})",
            split.sum.records,
            sum_words(&split.sum, noun)
        )?;
    }
    if report.files.len() > 1 || !report.splits.is_empty() {
        writeln!(
            out,
            "{:>width$}  total ({})",
            report.total.records,
            sum_words(&report.total, "file")
        )?;
    }
    Ok(())
}

/// `2 shards, 1 damaged frame not counted, 1 not read`.
fn sum_words(sum: &Sum, noun: &str) -> String {
    let mut words = plural(sum.files, noun);
    if sum.damaged > 0 {
        words.push_str(&format!(
            ", {} not counted",
            plural(sum.damaged, "damaged frame")
        ));
    }
    if sum.not_read > 0 {
        words.push_str(&format!(", {} not read", sum.not_read));
    }
    words
}

/// A line per file (its count or its error), per split, and the total.
fn write_json(
    run: &Run,
    report: &CountReport,
    files: &[PathBuf],
    out: &mut impl Write,
) -> Result<()> {
    for (member, (path, file)) in files.iter().zip(&report.files).enumerate() {
        let outcome = match file {
            Ok(count) => Outcome::Counted(count),
            Err(e) => Outcome::Unusable {
                error: e.user_message(),
            },
        };
        let line = FileLine {
            kind: "file",
            file: tfr_core::escape::path_for_json(path),
            place: run.split_place(member),
            outcome,
        };
        writeln!(out, "{}", tfr_core::pyjson::to_string(&line)?)?;
    }
    for split in &report.splits {
        writeln!(
            out,
            "{}",
            tfr_core::pyjson::to_string(&SplitLine::of(split))?
        )?;
    }
    writeln!(
        out,
        "{}",
        tfr_core::pyjson::to_string(&report.total_line())?
    )?;
    Ok(())
}
