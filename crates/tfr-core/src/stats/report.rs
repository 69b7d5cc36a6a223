//! Statistics as people and scripts read them: per feature a table with one column per split,
//! side by side, then the features whose kind, presence, range or distribution differs between
//! splits (the train/serving skew TFDV reports); or one JSON object with every number. Both are
//! printed from the one [`StatsReport`]: the text rounds its figures ([`short`], [`percent`]),
//! JSON gives them whole.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{self, Write};

use super::figures::{
    BoolCounts, BytesFigures, Classes, FeatureFigures, FoldedCount, HistogramFigures,
    LengthFigures, Number, NumericFigures, PerRecordFigures, SplitFigures, StatsReport,
};
use super::{FeatureKey, FeatureStats, Section, Stats};
use crate::escape::{bytes_for_terminal, for_terminal, path_for_terminal};
use crate::words::{column_width, display_width, pad_to};

/// Presence rates further apart than this between splits are flagged.
pub const PRESENCE_SKEW: f64 = 0.1;
/// Histograms (or value frequencies) whose shares differ by more than this in some bucket (or
/// value) are flagged: the L-infinity distance TFDV compares splits with.
pub const DISTRIBUTION_SKEW: f64 = 0.25;
/// Bytes features with at most this many distinct values are compared value by value.
const CATEGORICAL: u64 = 100;
/// Frequent values shown per split in the table.
const TOP_SHOWN: usize = 3;

/// A feature that differs between two splits.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Skew {
    pub feature: String,
    /// `kind`, `presence`, `range` or `distribution`.
    pub flag: &'static str,
    pub detail: String,
}

use crate::words::percent;
pub use crate::words::short;

/// `part` of `whole` as a share from 0 to 1.
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// A feature's smallest and largest value: int64 features exactly (f64 cannot hold them past
/// 2^53), others rounded by [`short`].
fn range_text(f: &FeatureStats) -> Option<(String, String)> {
    match (f.numeric.int_range, f.numeric.range()) {
        (Some((lo, hi)), _) if f.kinds[1] == 0 && !f.numeric.beyond_int => {
            Some((lo.to_string(), hi.to_string()))
        }
        (_, Some((lo, hi))) => Some((short(lo), short(hi))),
        _ => None,
    }
}

/// One split's column of a feature's table: the split's records and the feature's figures
/// there, if it has the feature.
#[derive(Clone, Copy)]
struct Column<'a> {
    records: u64,
    feature: Option<&'a FeatureFigures>,
}

/// A row's cells: one per split, `-` where the split lacks the feature.
fn cells(columns: &[Column<'_>], f: &dyn Fn(u64, &FeatureFigures) -> String) -> Vec<String> {
    columns
        .iter()
        .map(|c| c.feature.map_or("-".into(), |fs| f(c.records, fs)))
        .collect()
}

/// `1..3, mean 1.667`.
fn per_record(p: &PerRecordFigures) -> String {
    format!("{}..{}, mean {}", p.min, p.max, short(p.mean))
}

/// The rows of one feature's table: a label and a cell per split.
fn rows(key: &FeatureKey, columns: &[Column<'_>]) -> Vec<(String, Vec<String>)> {
    let cells = |f: &dyn Fn(u64, &FeatureFigures) -> String| cells(columns, f);
    let any =
        |p: &dyn Fn(&FeatureFigures) -> bool| columns.iter().any(|c| c.feature.is_some_and(p));
    let mut rows = vec![
        ("kind".to_string(), cells(&|_, f| kind_cell(f))),
        (
            "present".into(),
            cells(&|records, f| format!("{} ({})", f.present, percent(f.present, records))),
        ),
        (
            "values/record".into(),
            cells(&|_, f| per_record(&f.values_per_record)),
        ),
    ];
    if key.section == Section::FeatureLists {
        rows.push((
            "steps/record".into(),
            cells(&|_, f| {
                per_record(&f.steps_per_record.unwrap_or(PerRecordFigures {
                    min: 0,
                    mean: 0.0,
                    max: 0,
                }))
            }),
        ));
    }
    if any(&|f| f.numeric.is_some()) {
        rows.extend(numeric_rows(columns));
    }
    if any(&|f| f.bytes.is_some()) {
        let bytes = |f: &dyn Fn(&BytesFigures) -> String| {
            cells(&|_, fs| fs.bytes.as_ref().map_or_else(|| f(&NO_BYTES), f))
        };
        rows.push((
            "length".into(),
            bytes(&|b| {
                let l = &b.length;
                format!("{}..{}, mean {}", short(l.min), short(l.max), short(l.mean))
            }),
        ));
        rows.push((
            "distinct".into(),
            bytes(&|b| approximate(b.distinct, b.distinct_exact)),
        ));
        if any(&|f| f.bytes.as_ref().is_some_and(|b| b.images.is_empty())) {
            rows.push(("top values".into(), bytes(&top_cell)));
        }
    }
    if any(&|f| f.bytes.as_ref().is_some_and(|b| !b.images.is_empty())) {
        rows.push((
            "images".into(),
            cells(&|_, f| f.bytes.as_ref().map_or(String::new(), images_cell)),
        ));
    }
    if any(&|f| f.bool.is_some()) {
        rows.push((
            "true/false".into(),
            cells(&|_, f| {
                let b = f.bool.unwrap_or(BoolCounts {
                    trues: 0,
                    falses: 0,
                });
                format!("{}/{}", b.trues, b.falses)
            }),
        ));
    }
    if any(&|f| f.classes.is_some()) {
        rows.push((
            "top values".into(),
            cells(&|_, f| f.classes.as_ref().map_or(String::new(), classes_cell)),
        ));
    }
    rows
}

/// The figures of a feature without bytes values, in a table where other splits have them.
const NO_BYTES: BytesFigures = BytesFigures {
    count: 0,
    length: LengthFigures {
        min: 0.0,
        mean: 0.0,
        max: 0.0,
    },
    distinct: 0,
    distinct_exact: true,
    top: Vec::new(),
    top_exact: true,
    images: BTreeMap::new(),
};

/// The figures of a feature without numbers, in a table where other splits have them.
const NO_NUMBERS: NumericFigures = NumericFigures {
    count: 0,
    min: None,
    max: None,
    mean: 0.0,
    std: 0.0,
    zeros: 0,
    nan: 0,
    inf: 0,
    quantiles: None,
    histogram: None,
};

/// A smallest or largest value: int64 features exactly, others rounded by [`short`].
fn number(n: Option<Number>) -> String {
    match n {
        Some(Number::Int(n)) => n.to_string(),
        Some(Number::Float(x)) => short(x),
        None => "-".into(),
    }
}

/// The rows of a feature's numbers: range, mean, spread, zeros and the like, and the histogram
/// (over the same buckets in every split).
fn numeric_rows(columns: &[Column<'_>]) -> Vec<(String, Vec<String>)> {
    let numbers = |f: &dyn Fn(&NumericFigures) -> String| {
        cells(columns, &|_, fs| {
            fs.numeric.as_ref().map_or_else(|| f(&NO_NUMBERS), f)
        })
    };
    let mut rows = vec![
        ("min".into(), numbers(&|n| number(n.min))),
        ("max".into(), numbers(&|n| number(n.max))),
        ("mean".into(), numbers(&|n| short(n.mean))),
        ("std".into(), numbers(&|n| short(n.std))),
        (
            "zeros/NaN/inf".into(),
            numbers(&|n| format!("{}/{}/{}", n.zeros, n.nan, n.inf)),
        ),
    ];
    let numeric: Vec<&NumericFigures> = columns
        .iter()
        .filter_map(|c| c.feature?.numeric.as_ref())
        .collect();
    if numeric.iter().any(|n| n.count > 0) {
        rows.push((
            "p1/5/25/50/75/95/99".into(),
            numbers(&|n| {
                n.quantiles
                    .map_or("-".into(), |q| q.values().map(short).join("/"))
            }),
        ));
    }
    if let Some(h) = numeric.iter().find_map(|n| n.histogram.as_ref()) {
        // Every split shares the buckets: one where the feature has no numbers counts none.
        let empty = HistogramFigures {
            counts: vec![0; h.counts.len()],
            ..h.clone()
        };
        rows.push((
            format!("histogram {}..{}", short(h.low), short(h.high)),
            cells(columns, &|_, f| match &f.numeric {
                Some(n) => n.histogram.as_ref().map_or("-".into(), sparkline),
                None => sparkline(&empty),
            }),
        ));
    }
    rows
}

/// The most frequent classes: `2 "large" 12, 0 "small" 9`.
fn classes_cell(c: &Classes) -> String {
    let approx = if c.top_exact { "" } else { "≥" };
    c.top
        .iter()
        .take(TOP_SHOWN)
        .map(|class| match &class.name {
            Some(name) => format!(
                "{} {} {approx}{}",
                class.value,
                quoted(name.as_bytes()),
                class.count
            ),
            None => format!("{} (no name) {approx}{}", class.value, class.count),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a feature holds: its kind (a conflict when records disagree), or what its schema
/// declares: a field's type, or `features.json`'s type with the kind it is stored as.
fn kind_cell(f: &FeatureFigures) -> String {
    match (&f.declared, f.key.section) {
        (Some(declared), Section::Fields) => return for_terminal(declared).into_owned(),
        (Some(declared), _) if !f.kind_conflict => {
            return format!("{} (stored as {})", for_terminal(declared), f.stored_as);
        }
        _ => {}
    }
    if !f.kind_conflict {
        return f.stored_as.to_string();
    }
    let parts: Vec<String> = f
        .kinds
        .iter()
        .filter(|(name, _)| **name != "none")
        .map(|(name, n)| {
            let file = f
                .first_in
                .get(name)
                .map(|p| path_for_terminal(p))
                .unwrap_or_default();
            format!("{name} {n} (first in {file})")
        })
        .collect();
    format!("CONFLICT: {}", parts.join(", "))
}

fn sparkline(h: &HistogramFigures) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let top = h.counts.iter().copied().max().unwrap_or(0).max(1);
    h.counts
        .iter()
        .map(|c| match c {
            0 => ' ',
            c => BARS
                .get(usize::try_from(c.saturating_mul(7) / top).unwrap_or(7))
                .copied()
                .unwrap_or('█'),
        })
        .collect::<String>()
        + &format!(" {}", h.total())
}

/// `998976`, or `~998976` when the count is estimated.
fn approximate(n: u64, exact: bool) -> String {
    if exact {
        n.to_string()
    } else {
        format!("~{n}")
    }
}

fn quoted(value: &[u8]) -> String {
    let text = bytes_for_terminal(value);
    let mut shown: String = text.chars().take(24).collect();
    if text.chars().count() > 24 {
        shown.push('…');
    }
    format!("\"{shown}\"")
}

fn top_cell(b: &BytesFigures) -> String {
    let approx = if b.top_exact { "" } else { "≥" };
    b.top
        .iter()
        .take(TOP_SHOWN)
        .map(|v| format!("{} {approx}{}", quoted(&v.value.0), v.count))
        .collect::<Vec<_>>()
        .join(", ")
}

fn images_cell(b: &BytesFigures) -> String {
    b.images
        .iter()
        .map(|(format, s)| {
            let span = |[a, b]: [u32; 2]| {
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}..{b}")
                }
            };
            if s.count == s.without_size {
                format!("{format} {}", s.count)
            } else {
                format!("{format} {} {}x{}", s.count, span(s.width), span(s.height))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes the report as text: a line per split, each split's runs of events, then per feature
/// its table and the features folded past the first ones.
pub fn write_text(report: &StatsReport, out: &mut dyn Write) -> io::Result<()> {
    let splits = &report.splits;
    let noun = noun(splits);
    for split in splits {
        writeln!(out, "{}", split_line(split, self::noun([split])))?;
    }
    for split in splits {
        if split.runs.is_empty() && split.folded_run_events == 0 {
            continue;
        }
        if splits.len() > 1 {
            writeln!(out)?;
            writeln!(out, "{}:", for_terminal(&split.name))?;
        }
        super::events_report::write_text(&split.runs, split.folded_run_events, out)?;
    }
    let by_key: Vec<BTreeMap<&FeatureKey, &FeatureFigures>> = splits
        .iter()
        .map(|s| s.features.iter().map(|f| (&f.key, f)).collect())
        .collect();
    let keys: BTreeSet<&FeatureKey> = by_key.iter().flat_map(|m| m.keys().copied()).collect();
    let header: Vec<String> = splits
        .iter()
        .map(|s| for_terminal(&s.name).into_owned())
        .collect();
    for key in keys {
        let columns: Vec<Column<'_>> = splits
            .iter()
            .zip(&by_key)
            .map(|(s, m)| Column {
                records: s.records,
                feature: m.get(key).copied(),
            })
            .collect();
        writeln!(out)?;
        write_feature(key, &columns, &header, &report.skew, out)?;
    }
    if splits.iter().any(|s| s.folded_features.present > Some(0)) {
        writeln!(out)?;
        write_folded(splits, noun, &header, out)?;
    }
    Ok(())
}

/// A split's heading: its records, their kinds, damage passed over and features folded.
fn split_line(split: &SplitFigures, noun: &str) -> String {
    let kinds: Vec<String> = split
        .kinds
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    let mut line = format!(
        "{}: {}",
        for_terminal(&split.name),
        crate::words::plural(split.records, "record")
    );
    if !kinds.is_empty() {
        let _ = write!(line, " ({})", kinds.join(", "));
    }
    if split.damaged > 0 {
        let damaged = crate::words::plural(split.damaged, "damaged frame");
        let _ = write!(line, ", {damaged} passed over (verify names them)");
    }
    let folded = &split.folded_features;
    if folded.present > Some(0) {
        let approx = if folded.count_exact { "" } else { "~" };
        let _ = write!(
            line,
            "; {approx}{} past the first {} by name folded into \"other {noun}s\"",
            crate::words::plural(folded.count, noun),
            folded.tracked_at_most,
        );
    }
    line
}

/// One feature's table: a row per figure, a column per split (titled when there are several),
/// then the skews found for it.
fn write_feature(
    key: &FeatureKey,
    columns: &[Column<'_>],
    header: &[String],
    skews: &[Skew],
    out: &mut dyn Write,
) -> io::Result<()> {
    let rows = rows(key, columns);
    let label_width = column_width(rows.iter().map(|(l, _)| display_width(l)));
    let widths: Vec<usize> = (0..columns.len())
        .map(|i| {
            column_width(
                rows.iter()
                    .filter_map(|(_, c)| c.get(i))
                    .chain(header.get(i))
                    .map(|c| display_width(c)),
            )
        })
        .collect();
    let line = |label: &str, cells: &[String]| {
        let mut line = format!("  {}", pad_to(label, label_width));
        for (cell, width) in cells.iter().zip(&widths) {
            let _ = write!(line, "  {}", pad_to(cell, *width));
        }
        line.trim_end().to_string()
    };
    let name = key.shown_text();
    if columns.len() > 1 {
        writeln!(out, "{}", line(&name, header).trim_start())?;
    } else {
        writeln!(out, "{name}")?;
    }
    for (label, cells) in &rows {
        writeln!(out, "{}", line(label, cells))?;
    }
    let shown = key.shown();
    for skew in skews.iter().filter(|s| s.feature == shown) {
        writeln!(out, "  ! {} skew: {}", skew.flag, skew.detail)?;
    }
    Ok(())
}

/// The table of the features past the first ones summarised: how many, how often present, how
/// many values.
fn write_folded(
    splits: &[SplitFigures],
    noun: &str,
    header: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    let tracked = splits.first().map_or(super::MAX_FEATURES as u64, |s| {
        s.folded_features.tracked_at_most
    });
    writeln!(
        out,
        "other {noun}s (past the first {tracked} by name: counted, not summarised)"
    )?;
    let folded = |f: &dyn Fn(&FoldedCount) -> String| -> Vec<String> {
        splits.iter().map(|s| f(&s.folded_features)).collect()
    };
    let rows: [(&str, Vec<String>); 3] = [
        (
            if noun == "field" {
                "fields"
            } else {
                "features"
            },
            folded(&|c| approximate(c.count, c.count_exact)),
        ),
        ("present", folded(&|c| c.present.unwrap_or(0).to_string())),
        ("values", folded(&|c| c.values.to_string())),
    ];
    let width = |i: usize| {
        rows.iter()
            .filter_map(|(_, c)| c.get(i))
            .chain(header.get(i))
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0)
    };
    if splits.len() > 1 {
        let mut line = format!("  {:<8}", "");
        for (i, name) in header.iter().enumerate() {
            let _ = write!(line, "  {name:<w$}", w = width(i));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    for (label, cells) in &rows {
        let mut line = format!("  {label:<8}");
        for (i, cell) in cells.iter().enumerate() {
            let _ = write!(line, "  {cell:<w$}", w = width(i));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// What the records' summaries are of: a schema's message `field`s, or Example `feature`s.
fn noun<'a>(splits: impl IntoIterator<Item = &'a SplitFigures>) -> &'static str {
    let fields = splits
        .into_iter()
        .any(|s| s.features.iter().any(|f| f.key.section == Section::Fields));
    if fields { "field" } else { "feature" }
}

/// The features that differ between splits, per pair of splits.
pub fn skews(splits: &[(String, Stats)]) -> Vec<Skew> {
    let mut found = Vec::new();
    let mut keys: Vec<&FeatureKey> = splits.iter().flat_map(|(_, s)| s.features.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let feature = key.shown();
        let mut flag = |flag: &'static str, detail: String| {
            if !found
                .iter()
                .any(|s: &Skew| s.feature == feature && s.flag == flag)
            {
                found.push(Skew {
                    feature: feature.clone(),
                    flag,
                    detail,
                });
            }
        };
        for (i, (a_name, a)) in splits.iter().enumerate() {
            // Split names come from file names and metadata: the skew's words escape them.
            let a_name = crate::escape::for_terminal(a_name);
            for (b_name, b) in splits.iter().skip(i + 1) {
                let b_name = crate::escape::for_terminal(b_name);
                let (fa, fb) = (a.features.get(key), b.features.get(key));
                let present =
                    |s: &Stats, f: Option<&FeatureStats>| (f.map_or(0, |f| f.present), s.records);
                let ((pa, na), (pb, nb)) = (present(a, fa), present(b, fb));
                if (share(pa, na) - share(pb, nb)).abs() > PRESENCE_SKEW {
                    flag(
                        "presence",
                        format!(
                            "in {} of {a_name}, {} of {b_name}",
                            percent(pa, na),
                            percent(pb, nb)
                        ),
                    );
                }
                let (Some(fa), Some(fb)) = (fa, fb) else {
                    continue;
                };
                pair_skews((&a_name, fa), (&b_name, fb), &mut flag);
            }
        }
    }
    found
}

/// The kind, range and distribution skews of a feature between two splits (named as shown).
fn pair_skews(
    (a_name, fa): (&str, &FeatureStats),
    (b_name, fb): (&str, &FeatureStats),
    flag: &mut dyn FnMut(&'static str, String),
) {
    if fa.kind() != fb.kind() {
        flag(
            "kind",
            format!("{} in {a_name}, {} in {b_name}", fa.kind(), fb.kind()),
        );
    }
    if let (Some((alo, ahi)), Some((blo, bhi)), Some(ta), Some(tb)) = (
        fa.numeric.range(),
        fb.numeric.range(),
        range_text(fa),
        range_text(fb),
    ) {
        let outside = |mean: f64, lo: f64, hi: f64| mean < lo || mean > hi;
        if ahi < blo
            || bhi < alo
            || outside(fa.numeric.mean, blo, bhi)
            || outside(fb.numeric.mean, alo, ahi)
        {
            flag(
                "range",
                format!(
                    "{a_name} {}..{} (mean {}), {b_name} {}..{} (mean {})",
                    ta.0,
                    ta.1,
                    short(fa.numeric.mean),
                    tb.0,
                    tb.1,
                    short(fb.numeric.mean)
                ),
            );
        }
    }
    if let (Some(ha), Some(hb)) = (&fa.histogram, &fb.histogram) {
        let d = ha.distance(hb);
        if d > DISTRIBUTION_SKEW {
            flag(
                "distribution",
                format!(
                    "histograms of {a_name} and {b_name} differ by {} (L-infinity) in a bucket",
                    short(d)
                ),
            );
        }
    }
    let categorical = |f: &FeatureStats| {
        let (n, exact) = f.bytes.distinct.count();
        exact && n > 0 && n <= CATEGORICAL && !f.bytes.frequent.approximate
    };
    if categorical(fa) && categorical(fb) {
        let (pa, pb) = (
            fa.bytes.frequent.frequencies(fa.bytes.lengths.count),
            fb.bytes.frequent.frequencies(fb.bytes.lengths.count),
        );
        let d = pa
            .iter()
            .map(|(h, p)| (p - pb.get(h).copied().unwrap_or(0.0)).abs())
            .chain(
                pb.iter()
                    .map(|(h, p)| (p - pa.get(h).copied().unwrap_or(0.0)).abs()),
            )
            .fold(0.0, f64::max);
        if d > DISTRIBUTION_SKEW {
            flag(
                "distribution",
                format!(
                    "value shares of {a_name} and {b_name} differ by {} (L-infinity) for some value",
                    short(d)
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{FeatureValue, example};
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;
    use crate::stats::{Origin, with_histograms};

    fn split(values: &[FeatureValue]) -> Stats {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let mut stats = Stats::default();
        for value in values {
            let payload = example(&[("x", value.clone())]);
            stats.add_payload(&decoder, &payload, &Origin::default());
        }
        stats
    }

    #[test]
    fn a_split_where_a_feature_has_no_numbers_shows_none_in_the_shared_rows() {
        let mut splits = vec![
            (
                "test".to_string(),
                split(&[FeatureValue::Bytes(vec![b"a".to_vec()])]),
            ),
            (
                "train".to_string(),
                split(&[FeatureValue::Ints(vec![1, 4]), FeatureValue::Ints(vec![2])]),
            ),
        ];
        with_histograms(&mut splits);
        let report = StatsReport::new(&splits, &[], &skews(&splits), &[]);
        let test = &report.splits[0].features[0];
        assert!(test.numeric.is_none() && test.bytes.is_some());
        let mut text = Vec::new();
        write_text(&report, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let row = |label: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(label))
                .unwrap_or_else(|| panic!("no {label} in\n{text}"))
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
        };
        assert_eq!(row("min"), ["min", "-", "1"], "{text}");
        assert_eq!(row("mean"), ["mean", "0", "2.333"], "{text}");
        // The buckets are every split's: the one without numbers counts none in them.
        let histogram = "  histogram 1..4                  0  █  █     █ 3";
        assert!(text.lines().any(|l| l == histogram), "{text}");
        assert_eq!(row("length"), ["length", "1..1, mean 1", "0..0, mean 0"]);
        assert_eq!(row("distinct"), ["distinct", "1", "0"]);
        assert!(
            text.contains("! kind skew: bytes in test, int64 in train"),
            "{text}"
        );
    }
}
