//! Statistics as people and scripts read them: per feature a table with one column per split,
//! side by side, then the features whose kind, presence, range or distribution differs between
//! splits (the train/serving skew TFDV reports); or one JSON object with every number.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use super::numeric::Histogram;
use super::{FeatureKey, FeatureStats, KINDS, Stats};
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

/// A row's cells: one per split, `-` where the split lacks the feature.
fn cells(
    key: &FeatureKey,
    splits: &[(String, Stats)],
    f: &dyn Fn(&Stats, &FeatureStats) -> String,
) -> Vec<String> {
    splits
        .iter()
        .map(|(_, s)| s.features.get(key).map_or("-".into(), |fs| f(s, fs)))
        .collect()
}

/// The rows of one feature's table: a label and a cell per split (empty where absent).
fn rows(
    key: &FeatureKey,
    splits: &[(String, Stats)],
    files: &[PathBuf],
) -> Vec<(String, Vec<String>)> {
    let cells = |f: &dyn Fn(&Stats, &FeatureStats) -> String| cells(key, splits, f);
    let any = |p: &dyn Fn(&FeatureStats) -> bool| {
        splits
            .iter()
            .any(|(_, s)| s.features.get(key).is_some_and(p))
    };
    let per_record =
        |p: &super::numeric::PerRecord| format!("{}..{}, mean {}", p.min, p.max, short(p.mean()));
    let mut rows = vec![
        (
            "kind".to_string(),
            cells(&|_, f| kind_cell(key.section, f, files)),
        ),
        (
            "present".into(),
            cells(&|s, f| format!("{} ({})", f.present, percent(f.present, s.records))),
        ),
        ("values/record".into(), cells(&|_, f| per_record(&f.values))),
    ];
    if key.section == super::Section::FeatureLists {
        rows.push(("steps/record".into(), cells(&|_, f| per_record(&f.steps))));
    }
    if any(&|f| f.numeric.count + f.numeric.nan + f.numeric.pos_inf + f.numeric.neg_inf > 0) {
        rows.extend(numeric_rows(key, splits));
    }
    if any(&|f| f.bytes.lengths.count > 0) {
        rows.push((
            "length".into(),
            cells(&|_, f| {
                let l = &f.bytes.lengths;
                format!("{}..{}, mean {}", short(l.min), short(l.max), short(l.mean))
            }),
        ));
        rows.push(("distinct".into(), cells(&|_, f| distinct_cell(f))));
        if any(&|f| f.bytes.images.is_empty() && f.bytes.lengths.count > 0) {
            rows.push(("top values".into(), cells(&|_, f| top_cell(f))));
        }
    }
    if any(&|f| !f.bytes.images.is_empty()) {
        rows.push(("images".into(), cells(&|_, f| images_cell(f))));
    }
    if any(&|f| f.bools.iter().any(|n| *n > 0)) {
        rows.push((
            "true/false".into(),
            cells(&|_, f| format!("{}/{}", f.bools[1], f.bools[0])),
        ));
    }
    if any(&|f| f.labels.count > 0) {
        rows.push(("top values".into(), cells(&|_, f| classes_cell(f))));
    }
    rows
}

/// The rows of a feature's numbers: range, mean, spread, zeros and the like, and the histogram
/// (over the same buckets in every split).
fn numeric_rows(key: &FeatureKey, splits: &[(String, Stats)]) -> Vec<(String, Vec<String>)> {
    let cells = |f: &dyn Fn(&Stats, &FeatureStats) -> String| cells(key, splits, f);
    let range = |f: &FeatureStats| range_text(f).unwrap_or(("-".into(), "-".into()));
    let mut rows = vec![
        ("min".into(), cells(&|_, f| range(f).0)),
        ("max".into(), cells(&|_, f| range(f).1)),
        ("mean".into(), cells(&|_, f| short(f.numeric.mean))),
        ("std".into(), cells(&|_, f| short(f.numeric.std()))),
        (
            "zeros/NaN/inf".into(),
            cells(&|_, f| {
                let n = &f.numeric;
                format!("{}/{}/{}", n.zeros, n.nan, n.pos_inf + n.neg_inf)
            }),
        ),
    ];
    if splits
        .iter()
        .any(|(_, s)| s.features.get(key).is_some_and(|f| f.numeric.count > 0))
    {
        rows.push((
            "p1/5/25/50/75/95/99".into(),
            cells(&|_, f| {
                super::figures::QuantileFigures::of(&f.numeric)
                    .map_or("-".into(), |q| q.values().map(short).join("/"))
            }),
        ));
    }
    let bounds = splits
        .iter()
        .find_map(|(_, s)| s.features.get(key)?.histogram.as_ref())
        .map(|h| format!("histogram {}..{}", short(h.low), short(h.high)));
    if let Some(label) = bounds {
        rows.push((
            label,
            cells(&|_, f| f.histogram.as_ref().map_or("-".into(), sparkline)),
        ));
    }
    rows
}

/// The most frequent classes: `2 "large" 12, 0 "small" 9`.
fn classes_cell(f: &FeatureStats) -> String {
    let approx = if f.labels.approximate() { "≥" } else { "" };
    f.labels
        .top(TOP_SHOWN)
        .iter()
        .map(|(number, name, n)| match name {
            Some(name) => format!("{number} {} {approx}{n}", quoted(name.as_bytes())),
            None => format!("{number} (no name) {approx}{n}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a feature holds: its kind (a conflict when records disagree), or what its schema
/// declares: a field's type, or `features.json`'s type with the kind it is stored as.
fn kind_cell(section: super::Section, f: &FeatureStats, files: &[PathBuf]) -> String {
    match (&f.declared, section) {
        (Some(declared), super::Section::Fields) => return for_terminal(declared).into_owned(),
        (Some(declared), _) if f.kinds_seen().len() < 2 => {
            return format!("{} (stored as {})", for_terminal(declared), f.kind());
        }
        _ => {}
    }
    let seen = f.kinds_seen();
    if seen.len() < 2 {
        return f.kind().to_string();
    }
    let parts: Vec<String> = KINDS
        .iter()
        .zip(f.kinds.iter().zip(f.first_in))
        .filter(|(name, (n, _))| **n > 0 && **name != "none")
        .map(|(name, (n, first))| {
            let file = first
                .and_then(|i| files.get(i))
                .and_then(|p| p.file_name())
                .map(|n| path_for_terminal(std::path::Path::new(n)))
                .unwrap_or_default();
            format!("{name} {n} (first in {file})")
        })
        .collect();
    format!("CONFLICT: {}", parts.join(", "))
}

fn sparkline(h: &Histogram) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let top = h.counts.iter().copied().max().unwrap_or(0).max(1);
    h.counts
        .iter()
        .map(|c| match c {
            0 => ' ',
            c => BARS
                .get(usize::try_from(c * 7 / top).unwrap_or(7))
                .copied()
                .unwrap_or('█'),
        })
        .collect::<String>()
        + &format!(" {}", h.total())
}

fn distinct_cell(f: &FeatureStats) -> String {
    match f.bytes.distinct.count() {
        (n, true) => n.to_string(),
        (n, false) => format!("~{n}"),
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

fn top_cell(f: &FeatureStats) -> String {
    let approx = if f.bytes.frequent.approximate {
        "≥"
    } else {
        ""
    };
    f.bytes
        .frequent
        .top(TOP_SHOWN)
        .iter()
        .map(|(v, n)| format!("{} {approx}{n}", quoted(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn images_cell(f: &FeatureStats) -> String {
    f.bytes
        .images
        .iter()
        .map(|(format, s)| {
            let span = |(a, b): (u32, u32)| {
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

/// Writes the statistics as text: a header per split, then per feature its table.
pub fn write_text(
    splits: &[(String, Stats)],
    files: &[PathBuf],
    skews: &[Skew],
    out: &mut dyn Write,
) -> io::Result<()> {
    for (name, stats) in splits {
        writeln!(out, "{}", split_line(name, stats))?;
    }
    for (name, stats) in splits {
        if stats.events.is_empty() {
            continue;
        }
        if splits.len() > 1 {
            writeln!(out)?;
            writeln!(out, "{}:", crate::escape::for_terminal(name))?;
        }
        super::events_report::write_text(&stats.events, out)?;
    }
    let mut keys: Vec<&FeatureKey> = splits.iter().flat_map(|(_, s)| s.features.keys()).collect();
    keys.sort();
    keys.dedup();
    let header: Vec<String> = splits
        .iter()
        .map(|(n, _)| crate::escape::for_terminal(n).into_owned())
        .collect();
    for key in keys {
        writeln!(out)?;
        write_feature(key, splits, files, &header, skews, out)?;
    }
    if splits.iter().any(|(_, s)| s.folded.present > 0) {
        writeln!(out)?;
        write_folded(splits, &header, out)?;
    }
    Ok(())
}

/// A split's heading: its records, their kinds, damage passed over and features folded.
fn split_line(name: &str, stats: &Stats) -> String {
    let kinds: Vec<String> = stats
        .kinds
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    let mut line = format!(
        "{}: {}",
        crate::escape::for_terminal(name),
        crate::words::plural(stats.records, "record")
    );
    if !kinds.is_empty() {
        let _ = write!(line, " ({})", kinds.join(", "));
    }
    if stats.damaged > 0 {
        let damaged = crate::words::plural(stats.damaged, "damaged frame");
        let _ = write!(line, ", {damaged} passed over (verify names them)");
    }
    if stats.folded.present > 0 {
        let _ = write!(
            line,
            "; {} past the first {} by name folded into \"other {}s\"",
            folded_cell(stats),
            super::MAX_FEATURES,
            noun([stats])
        );
    }
    line
}

/// One feature's table: a row per figure, a column per split (titled when there are several),
/// then the skews found for it.
fn write_feature(
    key: &FeatureKey,
    splits: &[(String, Stats)],
    files: &[PathBuf],
    header: &[String],
    skews: &[Skew],
    out: &mut dyn Write,
) -> io::Result<()> {
    let rows = rows(key, splits, files);
    let label_width = column_width(rows.iter().map(|(l, _)| display_width(l)));
    let widths: Vec<usize> = (0..splits.len())
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
    if splits.len() > 1 {
        writeln!(out, "{}", line(&name, header).trim_start())?;
    } else {
        writeln!(out, "{name}")?;
    }
    for (label, cells) in &rows {
        writeln!(out, "{}", line(label, cells))?;
    }
    for skew in skews.iter().filter(|s| s.feature == key.shown()) {
        writeln!(out, "  ! {} skew: {}", skew.flag, skew.detail)?;
    }
    Ok(())
}

/// The table of the features past the first [`super::MAX_FEATURES`]: how many, how often
/// present, how many values.
fn write_folded(
    splits: &[(String, Stats)],
    header: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    let noun = noun(splits.iter().map(|(_, s)| s));
    writeln!(
        out,
        "other {noun}s (past the first {} by name: counted, not summarised)",
        super::MAX_FEATURES
    )?;
    let rows: [(&str, Vec<String>); 3] = [
        (
            if noun == "field" {
                "fields"
            } else {
                "features"
            },
            splits.iter().map(|(_, s)| folded_count(s)).collect(),
        ),
        (
            "present",
            splits
                .iter()
                .map(|(_, s)| s.folded.present.to_string())
                .collect(),
        ),
        (
            "values",
            splits
                .iter()
                .map(|(_, s)| s.folded.values.to_string())
                .collect(),
        ),
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

/// `998976 features`, or `~998976 features` when the count is estimated.
fn folded_cell(stats: &Stats) -> String {
    let approx = if stats.folded.count().1 { "" } else { "~" };
    format!(
        "{approx}{}",
        crate::words::plural(stats.folded.count().0, noun([stats]))
    )
}

/// What the records' summaries are of: a schema's message `field`s, or Example `feature`s.
fn noun<'a>(stats: impl IntoIterator<Item = &'a Stats>) -> &'static str {
    let fields = stats.into_iter().any(|s| {
        s.features
            .keys()
            .any(|k| k.section == super::Section::Fields)
    });
    if fields { "field" } else { "feature" }
}

/// `998976`, or `~998976` when the count is estimated.
fn folded_count(stats: &Stats) -> String {
    match stats.folded.count() {
        (n, true) => n.to_string(),
        (n, false) => format!("~{n}"),
    }
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
