//! TensorBoard's runs as `stats` prints them: per run a table of its tags (values, steps, the
//! plugins that read them, and a scalar's first, last, smallest and largest value), the text
//! `tensorboard --inspect` gives, printed from the runs' figures ([`RunFigures`]) as JSON gives
//! them.

use std::io::{self, Write};

use super::figures::{AtStep, RunFigures, ScalarFigures, StepRange, TagFigures};
use crate::escape::{bytes_for_terminal, for_terminal};
use crate::words::{column_width, display_width, pad_to, plural, short};

/// `3`, `0..2`, or `-` when there is no step.
fn steps_text(steps: Option<StepRange>) -> String {
    match steps {
        Some(StepRange { min, max }) if min == max => min.to_string(),
        Some(StepRange { min, max }) => format!("{min}..{max}"),
        None => "-".into(),
    }
}

/// `scalars 3`, `histograms 2, images 1`.
fn plugins_text(tag: &TagFigures) -> String {
    tag.plugins
        .iter()
        .map(|(plugin, n)| format!("{} {n}", for_terminal(plugin)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value at its step: `0.5 @1`.
fn at_step(at: AtStep) -> String {
    format!("{} @{}", short(at.value), at.step)
}

fn scalar_cells(scalars: Option<&ScalarFigures>) -> [String; 4] {
    let Some(s) = scalars else {
        return Default::default();
    };
    let or_nan = |x: Option<f64>| x.map_or("NaN".to_string(), short);
    [
        at_step(s.first),
        at_step(s.last),
        or_nan(s.min),
        or_nan(s.max),
    ]
}

/// The heading of a run: `run trial_1: 5 events (1 file_version), steps 0..1`.
fn run_heading(run: &RunFigures) -> String {
    let mut line = format!(
        "run {}: {}",
        for_terminal(&run.run),
        plural(run.events, "event")
    );
    if !run.other.is_empty() {
        let other: Vec<String> = run
            .other
            .iter()
            .map(|(what, n)| format!("{n} {}", for_terminal(what)))
            .collect();
        line.push_str(&format!(" ({})", other.join(", ")));
    }
    if run.steps.is_some() {
        line.push_str(&format!(", steps {}", steps_text(run.steps)));
    }
    let folded = &run.folded_tags;
    if folded.values > 0 {
        let approx = if folded.count_exact { "" } else { "~" };
        line.push_str(&format!(
            "; {approx}{} past the first {} by name counted, not summarised ({})",
            plural(folded.count, "tag"),
            folded.tracked_at_most,
            plural(folded.values, "value")
        ));
    }
    line
}

/// Writes each run's tags as a table, then the events of the runs past those summarised.
pub fn write_text(runs: &[RunFigures], folded_events: u64, out: &mut dyn Write) -> io::Result<()> {
    for run in runs {
        writeln!(out)?;
        writeln!(out, "{}", run_heading(run))?;
        if run.tags.is_empty() {
            continue;
        }
        let scalars = run.tags.iter().any(|t| t.scalars.is_some());
        let mut header = vec!["tag", "values", "steps", "plugins"];
        if scalars {
            header.extend(["first", "last", "min", "max"]);
        }
        let mut table: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
        for tag in &run.tags {
            let mut row = vec![
                bytes_for_terminal(&tag.tag.0).into_owned(),
                tag.values.to_string(),
                steps_text(tag.steps),
                plugins_text(tag),
            ];
            if scalars {
                row.extend(scalar_cells(tag.scalars.as_ref()));
            }
            table.push(row);
        }
        let widths: Vec<usize> = (0..header.len())
            .map(|i| {
                column_width(
                    table
                        .iter()
                        .filter_map(|r| r.get(i))
                        .map(|c| display_width(c)),
                )
            })
            .collect();
        for row in &table {
            let mut line = String::from(" ");
            for (cell, width) in row.iter().zip(&widths) {
                line.push(' ');
                line.push_str(&pad_to(cell, *width));
                line.push(' ');
            }
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    if folded_events > 0 {
        writeln!(out)?;
        writeln!(
            out,
            "{} of runs past the first {} by name: counted, not summarised",
            plural(folded_events, "event"),
            super::events::MAX_RUNS
        )?;
    }
    Ok(())
}
