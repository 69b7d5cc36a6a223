//! TensorBoard's runs as `stats` prints them: per run a table of its tags (values, steps, the
//! plugins that read them, and a scalar's first, last, smallest and largest value), the text
//! `tensorboard --inspect` gives; or the same in JSON.

use std::io::{self, Write};

use super::events::{MAX_TAGS, Run, Runs, Series, Tag};
use crate::escape::{bytes_for_terminal, for_terminal};
use crate::words::{column_width, display_width, pad_to, plural, short};

/// `3`, `0..2`, or `-` when there is no step.
fn steps_text(steps: Option<(i64, i64)>) -> String {
    match steps {
        Some((lo, hi)) if lo == hi => lo.to_string(),
        Some((lo, hi)) => format!("{lo}..{hi}"),
        None => "-".into(),
    }
}

/// `scalars 3`, `histograms 2, images 1`.
fn plugins_text(tag: &Tag) -> String {
    tag.by_plugin()
        .iter()
        .map(|(plugin, n)| format!("{} {n}", for_terminal(plugin)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value at its step: `0.5 @1`.
fn at_step((step, value): (i64, f64)) -> String {
    format!("{} @{step}", short(value))
}

fn scalar_cells(series: Option<&Series>) -> [String; 4] {
    let Some(s) = series else {
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
fn run_heading(name: &str, run: &Run) -> String {
    let mut line = format!(
        "run {}: {}",
        for_terminal(name),
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
    if run.folded_values > 0 {
        let (n, exact) = run.folded_tags.count();
        let approx = if exact { "" } else { "~" };
        line.push_str(&format!(
            "; {approx}{} past the first {MAX_TAGS} by name counted, not summarised ({})",
            plural(n, "tag"),
            plural(run.folded_values, "value")
        ));
    }
    line
}

/// Writes each run's tags as a table.
pub fn write_text(runs: &Runs, out: &mut dyn Write) -> io::Result<()> {
    for (name, run) in &runs.runs {
        writeln!(out)?;
        writeln!(out, "{}", run_heading(name, run))?;
        if run.tags.is_empty() {
            continue;
        }
        let scalars = run.tags.values().any(|t| t.scalars.is_some());
        let mut header = vec!["tag", "values", "steps", "plugins"];
        if scalars {
            header.extend(["first", "last", "min", "max"]);
        }
        let mut table: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
        for (tag, stats) in &run.tags {
            let mut row = vec![
                bytes_for_terminal(tag).into_owned(),
                stats.count.to_string(),
                steps_text(stats.steps),
                plugins_text(stats),
            ];
            if scalars {
                row.extend(scalar_cells(stats.scalars.as_ref()));
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
    if runs.folded_events > 0 {
        writeln!(out)?;
        writeln!(
            out,
            "{} of runs past the first {} by name: counted, not summarised",
            plural(runs.folded_events, "event"),
            super::events::MAX_RUNS
        )?;
    }
    Ok(())
}
