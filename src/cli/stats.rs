//! `stats`: per-feature statistics of a file, a shard set or a dataset, per split side by side,
//! with the features that differ between splits flagged. Computed on all cores in one pass over
//! the records (histograms and quantiles come from each feature's quantile sketch), in bounded
//! memory.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Messages, Status};
use tfr_core::input::OpenOptions;
use tfr_core::stats::figures::StatsReport;
use tfr_core::stats::{report, run};

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// TFRecord files, directories (searched for TFRecord files) or glob patterns; with
    /// `--merge`, partials written by `--partial`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long, conflicts_with = "partial")]
    pub json: bool,
    /// Write the files' summaries to `-o OUT.tfrstats` instead of a report, for `--merge` to
    /// combine with the partials of the rest of the dataset.
    #[arg(long, requires = "output", conflicts_with = "merge")]
    pub partial: bool,
    /// Where `--partial` writes its partial: a new path or a regular file (replaced).
    #[arg(short = 'o', long, value_name = "OUT.tfrstats", requires = "partial")]
    pub output: Option<PathBuf>,
    /// Merge the partials FILES into the report `stats` gives over all the files they
    /// summarise.
    #[arg(long)]
    pub merge: bool,
}

pub fn run(
    args: &StatsArgs,
    open: &OpenOptions,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if args.merge {
        return super::stats_partial::merge(args, messages, out);
    }
    let inputs = super::dataset::Run::resolve_reporting(&args.files, messages);
    inputs.note_skipped(messages);
    let plan = run::Plan::of(&inputs.dataset).with_roots(&args.files);
    for note in &plan.spec_notes {
        match note {
            // As `show` does: the figures are there, without what the dataset declares.
            run::SpecNote::Unusable(note) => {
                messages.unusable(&format!("{note}; figures made without it"));
            }
            run::SpecNote::Note(note) => messages.note(note),
        }
    }
    if plan.files.is_empty() {
        return Ok(messages.raise(Status::Unusable));
    }
    if let Some(output) = args.output.as_deref().filter(|_| args.partial) {
        let partial = super::stats_partial::Partial {
            inputs: &inputs,
            plan: &plan,
            args: &args.files,
            output,
        };
        return partial.write(open, env, messages, out);
    }
    let progress = super::progress::Progress::steps("summarising", 0, env.progress(false));
    let outcome = run::compute_observed(&plan, &open.decoder, &open.read, &|done, total| {
        progress.set_total(total);
        progress.set(done);
    });
    progress.finish();
    let problems: Vec<String> = inputs
        .dataset
        .problems
        .iter()
        .map(|p| p.to_string())
        .collect();
    report(&outcome, &plan.files, &problems, args.json, messages, out)
}

/// Prints the report of `outcome` over `files` (on `out`, text or `json`) and the messages of the
/// files it names and of the dataset's `problems`, and returns the run's status.
pub fn report(
    outcome: &run::Outcome,
    files: &[PathBuf],
    problems: &[String],
    json: bool,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    // Each message names its file already.
    for (_, error) in &outcome.unreadable {
        messages.unusable(error);
    }
    if !outcome.changed.is_empty() {
        // Figures partly from bytes that are no longer the file's are not shown at all.
        for change in &outcome.changed {
            messages.unusable(change);
        }
        return Ok(messages.status());
    }
    let skews = report::skews(&outcome.groups);
    let report = StatsReport::new(&outcome.groups, files, &skews, &outcome.unreadable);
    if json {
        writeln!(out, "{}", tfr_core::pyjson::to_string(&report)?)?;
    } else {
        report::write_text(&report, out)?;
    }
    Ok(say_damage(outcome, problems, messages))
}

/// Says what damage `outcome` and the dataset's `problems` show (after the report, or in place of
/// it for a partial), and returns the run's status.
pub fn say_damage(outcome: &run::Outcome, problems: &[String], messages: &Messages) -> Status {
    for problem in &outcome.damaged_streams {
        messages.note(problem);
        messages.damage();
    }
    if outcome.groups.iter().any(|(_, s)| s.damaged > 0) {
        messages.damage();
    }
    for problem in problems {
        messages.error(problem);
        messages.damage();
    }
    messages.status()
}
