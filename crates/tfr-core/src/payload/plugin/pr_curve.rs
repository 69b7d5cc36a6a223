//! The `pr_curves` plugin: a `[6, N]` float tensor whose rows are the true positives, false
//! positives, true negatives, false negatives, precision and recall at N thresholds spread evenly
//! from 0 to 1 (TensorBoard's `np.linspace(0, 1, N)`), with `PrCurvePluginData.num_thresholds` in
//! the plugin's content.

use super::{
    PluginValue, ROWS_SHOWN, Row, SummaryPlugin, TensorValue, int_field, more_row, whole_or_repr,
};
use crate::pyfmt::{repr_f64, text_f32};
use crate::schema::{ProtoFile, builtin};
use crate::span::Span;
use crate::words::plural;

/// The message the plugin's content is.
pub const CONTENT_MESSAGE: &str = "tensorboard.PrCurvePluginData";

/// The tensor's rows, in TensorBoard's order (`metadata.py`'s `*_INDEX`).
pub const SERIES: [&str; 6] = ["TP", "FP", "TN", "FN", "precision", "recall"];

pub struct PrCurves;

pub static PR_CURVES: PrCurves = PrCurves;

/// One threshold of a curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub threshold: f64,
    /// TP, FP, TN, FN, precision, recall, as stored.
    pub values: [f64; 6],
}

/// A PR curve summary as read.
pub struct Curve<'a> {
    pub tensor: TensorValue<'a>,
    /// How many thresholds the tensor holds (its second dimension).
    pub thresholds: u64,
    /// What the plugin data says, when it says.
    pub declared: Option<u64>,
}

impl<'a> Curve<'a> {
    /// The curve `value` holds, or why its tensor is not one.
    pub fn read(value: &PluginValue<'a>) -> Result<Curve<'a>, String> {
        let declared = value
            .content_as(CONTENT_MESSAGE)
            .ok()
            .and_then(|c| c.root().and_then(|r| int_field(&r, "num_thresholds")))
            .and_then(|n| u64::try_from(n).ok());
        let tensor = TensorValue::read(value.tensor().ok_or("no tensor")?);
        let Some(t) = tensor.tensor() else {
            return Err(format!("tensor {} unreadable", tensor.signature()));
        };
        let thresholds = match (t.dtype().is_real(), t.shape()) {
            (true, [6, n]) => *n,
            _ => {
                return Err(format!(
                    "tensor {} is no [6, N] of numbers",
                    tensor.signature()
                ));
            }
        };
        Ok(Curve {
            tensor,
            thresholds,
            declared,
        })
    }

    /// Threshold `j`, as TensorBoard places it: `np.linspace(0, 1, N)[j]`.
    pub fn threshold(&self, j: u64) -> f64 {
        match self.thresholds.checked_sub(1) {
            Some(last) if j == last && last > 0 => 1.0,
            Some(last) if last > 0 => j as f64 * (1.0 / last as f64),
            _ => 0.0,
        }
    }

    /// Threshold `j` and the six values at it.
    pub fn point(&self, j: u64) -> Option<Point> {
        if j >= self.thresholds {
            return None;
        }
        let mut values = [0.0; 6];
        for (row, slot) in values.iter_mut().enumerate() {
            *slot = self.tensor.number(self.index(row as u64, j)?)?;
        }
        Some(Point {
            threshold: self.threshold(j),
            values,
        })
    }

    /// The element of series `row` at threshold `j` (the tensor is row-major).
    fn index(&self, row: u64, j: u64) -> Option<u64> {
        row.checked_mul(self.thresholds)?.checked_add(j)
    }

    /// Where the six values at threshold `j` lie.
    fn spans(&self, j: u64) -> Vec<Span> {
        let wanted: Vec<u64> = (0..6).filter_map(|row| self.index(row, j)).collect();
        self.tensor.spans(&wanted).into_iter().flatten().collect()
    }
}

impl SummaryPlugin for PrCurves {
    fn name(&self) -> &'static str {
        "pr_curves"
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::TENSORBOARD_PLUGINS
    }

    fn line(&self, value: &PluginValue<'_>) -> String {
        match Curve::read(value) {
            Ok(curve) => {
                let mut line = format!("pr_curve {}", plural(curve.thresholds, "threshold"));
                if let Some(declared) = curve.declared.filter(|d| *d != curve.thresholds) {
                    line.push_str(&format!(" (its plugin data says {declared})"));
                }
                line
            }
            Err(why) => format!("pr_curve: {why}"),
        }
    }

    /// A table: a row per threshold with its TP, FP, TN, FN, precision and recall.
    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        let Ok(curve) = Curve::read(value) else {
            return Vec::new();
        };
        let shown = curve.thresholds.min(ROWS_SHOWN as u64);
        let cells: Vec<(String, Vec<String>, u64)> = (0..shown)
            .filter_map(|j| {
                let point = curve.point(j)?;
                let [tp, fp, tn, fn_, precision, recall] = point.values;
                let counts = [tp, fp, tn, fn_].map(whole_or_repr);
                let ratios = [precision, recall].map(|x| number_text(&curve, x));
                Some((
                    repr_f64(point.threshold),
                    counts.into_iter().chain(ratios).collect(),
                    j,
                ))
            })
            .collect();
        let header: Vec<String> = SERIES.iter().map(|s| s.to_string()).collect();
        let widths: Vec<usize> = (0..SERIES.len())
            .map(|c| {
                std::iter::once(&header)
                    .chain(cells.iter().map(|(_, row, _)| row))
                    .filter_map(|row| row.get(c))
                    .map(|cell| cell.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |row: &[String]| {
            let padded: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            padded.join("  ").trim_end().to_string()
        };
        let mut rows = vec![Row::new("threshold", line(&header))];
        rows.extend(
            cells
                .iter()
                .map(|(threshold, row, j)| Row::new(threshold, line(row)).at_all(curve.spans(*j))),
        );
        if curve.thresholds > shown {
            rows.push(more_row(curve.thresholds - shown, "threshold"));
        }
        rows
    }
}

/// A float32 tensor's value as Python prints the float32, a float64's as the double.
fn number_text(curve: &Curve<'_>, x: f64) -> String {
    match curve.tensor.tensor().map(|t| t.dtype()) {
        Some(crate::tensor::DType::Float32) => text_f32(x as f32),
        _ => repr_f64(x),
    }
}
