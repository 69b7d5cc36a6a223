//! `stats`, `stats --partial` and `stats --merge` for Python: the core's one pass, partials and
//! merge, the report as the text `stats --json` prints, and what the command line would say on
//! its error stream besides, with the status it would end with.
//!
//! Partials cross to Python as their bytes (the `.tfrstats` format the command line writes), so
//! they pickle as bytes and merge wherever the engine gathers them; the merge puts their files in
//! (split, shard) order, whatever order they arrive in.

use std::ffi::OsString;
use std::path::PathBuf;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use tfr_core::dataset::Dataset;
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_core::stats::figures::StatsReport;
use tfr_core::stats::partial::{self, Facts, Note, PartialSource};
use tfr_core::stats::report::skews;
use tfr_core::stats::run::{self, Outcome, Plan};

/// What the command line says besides its report, in order: `("note" | "error" | "unusable",
/// text)`, and the status it ends with (0 clean, 1 damage found, 2 unusable input).
#[derive(Default)]
struct Said {
    lines: Vec<(&'static str, String)>,
    status: u8,
}

impl Said {
    fn note(&mut self, text: &str) {
        self.lines.push(("note", text.to_string()));
    }

    fn damage(&mut self) {
        self.status = self.status.max(1);
    }

    fn error(&mut self, text: &str) {
        self.lines.push(("error", text.to_string()));
        self.damage();
    }

    fn unusable(&mut self, text: &str) {
        self.lines.push(("unusable", text.to_string()));
        self.status = 2;
    }

    fn said(&mut self, note: &Note) {
        if note.unusable {
            self.unusable(&note.text);
        } else {
            self.note(&note.text);
        }
    }

    /// What `stats` says of the damage `outcome` and the dataset's `problems` show.
    fn damage_of(&mut self, outcome: &Outcome, problems: &[String]) {
        for problem in &outcome.damaged_streams {
            self.note(problem);
            self.damage();
        }
        if outcome.groups.iter().any(|(_, s)| s.damaged > 0) {
            self.damage();
        }
        for problem in problems {
            self.error(problem);
        }
    }
}

/// A report, as Python receives it: the text `stats --json` prints (`None` when the command line
/// prints none), what is said besides and the status.
type Reported = (Option<String>, Vec<(&'static str, String)>, u8);

fn options() -> OpenOptions {
    OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto))
}

/// The report of `outcome` over `files`, as `stats --json` prints it and says it.
fn report(
    outcome: &Outcome,
    files: &[PathBuf],
    problems: &[String],
    mut said: Said,
) -> PyResult<Reported> {
    for (_, error) in &outcome.unreadable {
        said.unusable(error);
    }
    if !outcome.changed.is_empty() {
        for change in &outcome.changed {
            said.unusable(change);
        }
        return Ok((None, said.lines, said.status));
    }
    let skews = skews(&outcome.groups);
    let report = StatsReport::new(&outcome.groups, files, &skews, &outcome.unreadable);
    let mut text =
        tfr_core::pyjson::to_string(&report).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    text.push('\n');
    said.damage_of(outcome, problems);
    Ok((Some(text), said.lines, said.status))
}

/// The dataset `args` name and the plan of its statistics, with what resolving them said.
fn planned(args: &[PathBuf]) -> (Dataset, Plan, Said) {
    let dataset = Dataset::resolve(args);
    let plan = Plan::of(&dataset).with_roots(args);
    let mut said = Said::default();
    for note in Facts::notes_of(&dataset, &plan) {
        said.said(&note);
    }
    if plan.files.is_empty() {
        said.status = 2;
    }
    (dataset, plan, said)
}

/// The files `stats ARGS` would summarise, in the order it reads them (each split's shards in
/// number order), and what resolving `args` said: what an engine shares out, a partial each.
/// Each file is given as a `str` (not a `pathlib.Path`, which would fold an object URL's `//`).
#[pyfunction]
pub fn dataset_files(
    py: Python<'_>,
    args: Vec<PathBuf>,
) -> (Vec<OsString>, Vec<(&'static str, String)>, u8) {
    py.detach(|| {
        let (_, plan, said) = planned(&args);
        let files = plan
            .files
            .into_iter()
            .map(PathBuf::into_os_string)
            .collect();
        (files, said.lines, said.status)
    })
}

/// `stats --json ARGS`: one pass over the files, directories and patterns `args` name.
#[pyfunction]
pub fn stats_json(py: Python<'_>, args: Vec<PathBuf>) -> PyResult<Reported> {
    let result = py.detach(|| {
        let (dataset, plan, said) = planned(&args);
        if plan.files.is_empty() {
            return Err((None, said.lines, said.status));
        }
        let open = options();
        let outcome = run::compute_observed(&plan, &open.decoder, &open.read, &|_, _| {});
        let problems: Vec<String> = dataset.problems.iter().map(|p| p.to_string()).collect();
        Ok((outcome, plan.files, problems, said))
    });
    match result {
        Ok((outcome, files, problems, said)) => report(&outcome, &files, &problems, said),
        Err(reported) => Ok(reported),
    }
}

/// `stats --partial ARGS`: the partial's bytes (`None` when there is no file to summarise), what
/// is said and the status, as the command line says them.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn stats_partial<'py>(
    py: Python<'py>,
    args: Vec<PathBuf>,
) -> PyResult<(Option<Bound<'py, PyBytes>>, Vec<(&'static str, String)>, u8)> {
    let written = py.detach(|| {
        let (dataset, plan, mut said) = planned(&args);
        if plan.files.is_empty() {
            return Ok((None, said));
        }
        let notes = Facts::notes_of(&dataset, &plan);
        let facts = Facts::of(&dataset, &args, notes);
        let open = options();
        let mut bytes = Vec::new();
        let outcome = partial::write(
            &plan,
            &facts,
            (&open.decoder, &open.read),
            &|_, _| {},
            &mut bytes,
        )?;
        for (_, error) in &outcome.unreadable {
            said.unusable(error);
        }
        for change in &outcome.changed {
            said.unusable(change);
        }
        // A partial is a part: the problems its shards' names show are the merge's to judge.
        let problems: Vec<String> = facts
            .problems
            .iter()
            .filter(|p| !p.from_names)
            .map(|p| p.text.clone())
            .collect();
        said.damage_of(&outcome, &problems);
        Ok((Some(bytes), said))
    });
    let (bytes, said) =
        written.map_err(|e: std::io::Error| PyRuntimeError::new_err(e.to_string()))?;
    Ok((bytes.map(|b| PyBytes::new(py, &b)), said.lines, said.status))
}

/// `stats --merge`: the partials `parts` (each its name for messages and its bytes) merged into
/// the report of one pass over all their files. A partial that cannot be merged raises
/// `ValueError` naming it.
#[pyfunction]
pub fn stats_merge(py: Python<'_>, parts: Vec<(PathBuf, Vec<u8>)>) -> PyResult<Reported> {
    let merged = py.detach(|| {
        let sources: Vec<PartialSource<'_>> = parts
            .iter()
            .map(|(name, bytes)| PartialSource::Bytes { name, bytes })
            .collect();
        partial::merge_sources(&sources).map_err(|e| e.to_string())
    });
    let merged = merged.map_err(PyValueError::new_err)?;
    let mut said = Said::default();
    for note in &merged.notes {
        said.said(note);
    }
    report(&merged.outcome, &merged.files, &merged.problems, said)
}
