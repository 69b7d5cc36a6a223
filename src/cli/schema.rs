//! `schema`: the feature spec a reader needs, inferred from every intact record of the files
//! (see [`tfr_core::report::feature_spec`]): a table, the Python dict `tf.io.parse_single_example`
//! takes, JSON, or TFDV's `schema.pbtxt`. Damaged records are skipped, named and counted (exit 1).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::dataset::{Run, RunExt};
use super::{Messages, Status};
use tfr_core::escape::name_for_terminal;
use tfr_core::input::OpenOptions;
use tfr_core::report::feature_spec::{self, FeatureSpec, Form, SpecReport, percent};
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// TFRecord files, directories or quoted glob patterns.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// text (a table), python (the dict `tf.io.parse_single_example` takes), json, or tfdv
    /// (a `schema.pbtxt` for `tfdv.load_schema_text`).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Python,
    Json,
    Tfdv,
}

pub fn run(
    args: &SchemaArgs,
    open: &OpenOptions,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let run = Run::resolve_reporting(&args.files, messages);
    run.note_skipped_briefly(messages);
    let files = run.paths();
    if files.is_empty() {
        return Ok(messages.raise(Status::Unusable));
    }
    let report = SpecReport::infer(&files, &open.decoder, &open.read);
    say_skipped(&report, messages);
    // Nothing was read: the errors above are the answer, not an empty spec.
    if report.unreadable as usize == files.len() {
        return Ok(messages.status());
    }
    match args.format {
        Format::Text => write_text(&report, out)?,
        Format::Python => out.write_all(feature_spec::python(&report).as_bytes())?,
        Format::Json => writeln!(out, "{}", tfr_core::pyjson::to_string(&report)?)?,
        Format::Tfdv => out.write_all(feature_spec::pbtxt(&report).as_bytes())?,
    }
    if report.left_out > 0 {
        messages.note(&format_args!(
            "note: features past the first {} left out of the spec ({} of them met)",
            tfr_core::stats::MAX_FEATURES,
            plural(report.left_out, "time")
        ));
    }
    if report.records > 0 && report.examples == 0 && report.sequence_examples == 0 {
        messages
            .note(&"note: no record is an Example or a SequenceExample: there is no feature spec");
    }
    Ok(messages.status())
}

/// Names the damaged records and unreadable files, and sets the status they call for.
fn say_skipped(report: &SpecReport, messages: &Messages) {
    super::records::name_skipped(&report.skipped, messages);
    if report.damaged > 0 {
        messages.note(&format_args!(
            "{} skipped: the spec is of the intact records",
            plural(report.damaged, "damaged record")
        ));
        messages.damage();
    }
    if report.unreadable > 0 {
        messages.raise(Status::Unusable);
    }
}

/// `fixed`, `var`, `fixed seq`, `conflict`.
fn form_word(form: &Form) -> &'static str {
    match form {
        Form::Fixed => "fixed",
        Form::FixedSequence => "fixed seq",
        Form::Var => "var",
        Form::Conflict => "conflict",
    }
}

/// A row of the table: name, dtype, form, shape, present, values, steps.
fn row(spec: &FeatureSpec) -> [String; 7] {
    let name = name_for_terminal(spec.name.as_bytes());
    let name = match spec.section {
        "features" => name.into_owned(),
        section => format!("{section}/{name}"),
    };
    let dtype = match (spec.dtype, &spec.form) {
        (Some(d), _) => d.name().to_string(),
        (None, Form::Conflict) => spec.kinds.keys().copied().collect::<Vec<_>>().join("|"),
        (None, _) => "-".to_string(),
    };
    let shape = match &spec.shape {
        Some(dims) => format!(
            "[{}]",
            dims.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "-".to_string(),
    };
    let present = format!("{}/{} ({})", spec.present, spec.of, percent(spec.presence));
    let range = |r: Option<feature_spec::Range>| match r {
        Some(r) if r.min == r.max => r.min.to_string(),
        Some(r) => format!("{}..{}", r.min, r.max),
        None => "-".to_string(),
    };
    [
        name,
        dtype,
        form_word(&spec.form).to_string(),
        shape,
        present,
        range(spec.values),
        range(spec.steps),
    ]
}

/// A line saying what was read, then a table of the features, aligned.
fn write_text(report: &SpecReport, out: &mut impl Write) -> Result<()> {
    let mut heading = feature_spec::read_words(report);
    if report.damaged > 0 {
        heading.push_str(&format!(
            " ({} skipped)",
            plural(report.damaged, "damaged record")
        ));
    }
    writeln!(out, "{heading}")?;
    if report.features.is_empty() {
        return Ok(());
    }
    let header = [
        "feature", "dtype", "form", "shape", "present", "values", "steps",
    ]
    .map(str::to_string);
    let rows: Vec<[String; 7]> = std::iter::once(header)
        .chain(report.features.iter().map(row))
        .collect();
    let mut widths = [0usize; 7];
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for r in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in r.iter().zip(widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if i + 1 < r.len() {
                line.push_str(&" ".repeat(w.saturating_sub(cell.chars().count())));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
