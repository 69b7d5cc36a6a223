//! `tags`: per run of TensorBoard event files, each summary tag with its kind, values, steps and
//! wall times, and the steps that went back (see [`tfr_core::report::tags`]), as a table per run
//! or one JSON object. Damaged records are skipped, named and counted (exit 1).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::dataset::{Run, RunExt};
use super::{Messages, Status};
use tfr_core::escape::{for_terminal, name_for_terminal};
use tfr_core::event::wall_time;
use tfr_core::input::OpenOptions;
use tfr_core::report::tags::{RunTags, TagLine, TagsReport};
use tfr_core::stats::run::Plan;
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct TagsArgs {
    /// Log directories (each directory of event files under one is a run), event files, or
    /// quoted glob patterns.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Only this tag (repeatable).
    #[arg(long = "tag", value_name = "T")]
    pub tags: Vec<String>,
    /// One JSON object: the runs, each with its tags.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

pub fn run(
    args: &TagsArgs,
    open: &OpenOptions,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let inputs = Run::resolve_reporting(&args.files, messages);
    inputs.note_skipped_briefly(messages);
    let plan = Plan::without_specs(&inputs.dataset).with_roots(&args.files);
    if plan.files.is_empty() {
        return Ok(messages.raise(Status::Unusable));
    }
    let report = TagsReport::read(
        &plan.files,
        &plan.runs,
        &args.tags,
        &open.decoder,
        &open.read,
    );
    say_skipped(&report, messages);
    if report.not_events > 0 {
        messages.note(&format_args!(
            "note: {} no TensorBoard event: not read for tags",
            match report.not_events {
                1 => "1 record is".to_string(),
                n => format!("{n} records are"),
            }
        ));
    }
    for tag in &args.tags {
        let found = report
            .runs
            .iter()
            .any(|r| r.tags.iter().any(|t| &t.tag == tag));
        if !found {
            messages.note(&format_args!(
                "note: no tag {} in any run",
                for_terminal(tag)
            ));
        }
    }
    match args.json {
        true => writeln!(out, "{}", tfr_core::pyjson::to_string(&report)?)?,
        false => write_text(&report, out)?,
    }
    Ok(messages.status())
}

/// Names the damaged records and unreadable files, and sets the status they call for.
fn say_skipped(report: &TagsReport, messages: &Messages) {
    super::records::name_skipped(&report.skipped, messages);
    if report.damaged > 0 {
        messages.damage();
    }
    if report.unreadable > 0 {
        messages.raise(Status::Unusable);
    }
}

/// `first..last`, or one step when they are the same.
fn span(first: i64, last: i64) -> String {
    match first == last {
        true => first.to_string(),
        false => format!("{first}..{last}"),
    }
}

/// A row: tag, kind, values, steps (first..last), range (min..max), wall times.
fn row(tag: &TagLine) -> [String; 6] {
    let walls = match tag.first_wall_time == tag.last_wall_time {
        true => wall_time(tag.first_wall_time),
        false => format!(
            "{} .. {}",
            wall_time(tag.first_wall_time),
            wall_time(tag.last_wall_time)
        ),
    };
    [
        name_for_terminal(tag.tag.as_bytes()).into_owned(),
        for_terminal(&tag.kind).into_owned(),
        tag.count.to_string(),
        span(tag.first_step, tag.last_step),
        span(tag.min_step, tag.max_step),
        walls,
    ]
}

/// The heading of a run: its name, files, events, and what its other events hold.
fn heading(run: &RunTags) -> String {
    let mut words = format!(
        "run {}: {}, {}",
        name_for_terminal(run.run.as_bytes()),
        plural(run.files, "file"),
        plural(run.events, "event")
    );
    if !run.other.is_empty() {
        let other: Vec<String> = run
            .other
            .iter()
            .map(|(what, n)| format!("{} {n}", for_terminal(what)))
            .collect();
        words.push_str(&format!(" ({})", other.join(", ")));
    }
    words
}

fn write_text(report: &TagsReport, out: &mut impl Write) -> Result<()> {
    for (i, run) in report.runs.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", heading(run))?;
        if run.tags.is_empty() {
            writeln!(out, "  no summary tags")?;
            continue;
        }
        let header = ["tag", "kind", "values", "steps", "range", "wall time"].map(str::to_string);
        let rows: Vec<[String; 6]> = std::iter::once(header)
            .chain(run.tags.iter().map(row))
            .collect();
        let mut widths = [0usize; 6];
        for r in &rows {
            for (w, cell) in widths.iter_mut().zip(r) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for r in &rows {
            let mut line = String::from(" ");
            for (cell, w) in r.iter().zip(widths) {
                line.push(' ');
                line.push_str(cell);
                line.push_str(&" ".repeat(w.saturating_sub(cell.chars().count()) + 1));
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        for tag in run.tags.iter().filter(|t| t.out_of_order > 0) {
            let shown: Vec<String> = tag
                .backwards
                .iter()
                .map(|(before, after)| format!("{before} -> {after}"))
                .collect();
            let more = match tag.out_of_order as usize > shown.len() {
                true => ", …",
                false => "",
            };
            writeln!(
                out,
                "  out of order: {}: {} went back ({}{more})",
                name_for_terminal(tag.tag.as_bytes()),
                plural(tag.out_of_order, "step"),
                shown.join(", ")
            )?;
        }
        if run.left_out > 0 {
            writeln!(
                out,
                "  {} of tags past the first {} not shown",
                plural(run.left_out, "value"),
                tfr_core::report::tags::MAX_TAGS
            )?;
        }
    }
    Ok(())
}
