//! `stats`: per-feature statistics of a file, a shard set or a dataset, per split side by side,
//! with the features that differ between splits flagged. Computed on all cores in one pass over
//! the records (histograms and quantiles come from each feature's quantile sketch), in bounded
//! memory.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::dataset::RunExt as _;
use super::{Messages, Status};
use tfr_core::input::OpenOptions;
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::stats::figures::StatsReport;
use tfr_core::stats::{report, run, tfdv};

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// TFRecord files, directories (searched for TFRecord files) or glob patterns; with
    /// `--merge`, partials written by `--partial`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long, conflicts_with_all = ["partial", "format"])]
    pub json: bool,
    /// `tfdv`: TensorFlow Data Validation's `DatasetFeatureStatisticsList` (binary protobuf, one
    /// dataset per split), which TFDV and Facets read, to `-o FILE` (or to standard output when
    /// it is no terminal) instead of a report.
    #[arg(long, value_enum, conflicts_with = "partial")]
    pub format: Option<Format>,
    /// Write the files' summaries to `-o OUT.tfrstats` instead of a report, for `--merge` to
    /// combine with the partials of the rest of the dataset.
    #[arg(long, requires = "output", conflicts_with = "merge")]
    pub partial: bool,
    /// Where `--partial` writes its partial, or `--format tfdv` its statistics: a new path or a
    /// regular file (replaced); `-` is standard output.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Merge the partials FILES into the report `stats` gives over all the files they
    /// summarise.
    #[arg(long)]
    pub merge: bool,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

/// What `stats` writes besides text and JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Tfdv,
}

/// How the report is given: text, JSON, or TFDV's statistics written to `to`.
pub enum Shape<'a> {
    Text,
    Json,
    Tfdv {
        to: &'a Path,
        /// The inputs, which the statistics never replace.
        inputs: &'a [PathBuf],
        stdout_is_terminal: bool,
    },
}

impl StatsArgs {
    /// The report's shape, over `inputs`.
    pub fn shape<'a>(&'a self, inputs: &'a [PathBuf], env: &super::env::Env) -> Shape<'a> {
        match (self.format, self.json) {
            (Some(Format::Tfdv), _) => Shape::Tfdv {
                to: self.output.as_deref().unwrap_or(Path::new("-")),
                inputs,
                stdout_is_terminal: env.stdout.terminal,
            },
            (None, true) => Shape::Json,
            (None, false) => Shape::Text,
        }
    }
}

pub fn run(
    args: &StatsArgs,
    open: &OpenOptions,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if args.output.is_some() && !args.partial && args.format.is_none() {
        messages.error(&"-o is where --partial or --format tfdv writes; give one of them");
        return Ok(messages.raise(Status::Unusable));
    }
    if args.merge {
        return super::stats_partial::merge(args, env, messages, out);
    }
    let inputs = super::dataset::Run::resolve_reporting(&args.files, messages);
    inputs.note_skipped_briefly(messages);
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
    let shape = args.shape(&plan.files, env);
    report(&outcome, &plan.files, &problems, &shape, messages, out)
}

/// Prints the report of `outcome` over `files` (on `out`, in `shape`) and the messages of the
/// files it names and of the dataset's `problems`, and returns the run's status.
pub fn report(
    outcome: &run::Outcome,
    files: &[PathBuf],
    problems: &[String],
    shape: &Shape,
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
    if outcome.groups.is_empty() && !matches!(shape, Shape::Json) {
        // No input could be read: there are no figures, and no file of them is written.
        return Ok(say_damage(outcome, problems, messages));
    }
    let skews = report::skews(&outcome.groups);
    let report = StatsReport::new(&outcome.groups, files, &skews, &outcome.unreadable);
    match shape {
        Shape::Json => writeln!(out, "{}", tfr_core::pyjson::to_string(&report)?)?,
        Shape::Text => report::write_text(&report, out)?,
        Shape::Tfdv {
            to,
            inputs,
            stdout_is_terminal,
        } => {
            let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
            let policy = OutputPolicy {
                inputs: &inputs,
                replace_existing: true,
                stdout_is_terminal: *stdout_is_terminal,
            };
            if let Err(e) = write_tfdv(&report, to, &policy, out) {
                return Ok(messages.unusable(&e));
            }
        }
    }
    Ok(say_damage(outcome, problems, messages))
}

/// Writes `report` as TFDV's statistics to `to` (`-`: `out`), as `policy` allows.
fn write_tfdv(
    report: &StatsReport,
    to: &Path,
    policy: &OutputPolicy,
    out: &mut impl Write,
) -> std::result::Result<(), String> {
    if to.as_os_str() == "-" && policy.stdout_is_terminal {
        return Err("refusing to write TFDV's binary statistics to standard output: it is a terminal (give -o FILE, or redirect it to a file or a pipe)".into());
    }
    let destination = policy.check(to).map_err(|e| e.to_string())?;
    let pool = tfdv::descriptors().map_err(|e| e.to_string())?;
    let bytes = tfdv::encode(report, &pool).map_err(|e| e.to_string())?;
    match destination {
        Destination::Stdout => out.write_all(&bytes).map_err(|e| e.to_string()),
        Destination::File(path) => {
            write_atomically(&path, policy, |w| w.write_all(&bytes)).map_err(|e| e.to_string())
        }
    }
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
