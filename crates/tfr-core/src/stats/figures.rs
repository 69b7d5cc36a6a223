//! The statistics as plain data: every figure `stats --json` prints, typed (counts as integers,
//! shares and means as floats), built from the summaries by [`StatsReport::new`] and written by
//! serde ([`crate::pyjson`]). A float that is not finite serialises as `null`. The text
//! ([`super::report::write_text`]) is printed from the same figures; what only the text shows
//! (the file a kind is first met in, a frequent value's own bytes) is kept in members JSON skips.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::events::{MAX_TAGS, Run, Runs, Series, Tag};
use super::numeric::PerRecord;
use super::report::Skew;
use super::{FeatureKey, FeatureStats, KINDS, MAX_FEATURES, Section, Stats};

/// Frequent values (and classes) given per feature.
const TOP: usize = 10;

/// Every split's figures, the skews between splits and the files that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsReport {
    pub splits: Vec<SplitFigures>,
    pub skew: Vec<Skew>,
    pub unreadable: Vec<Unreadable>,
}

/// A file `stats` could not read, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unreadable {
    /// The path as JSON gives paths ([`crate::escape::path_for_json`]).
    pub file: String,
    pub error: String,
}

/// One split: its records, its kinds of payload, its runs of events and its features.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitFigures {
    pub name: String,
    pub records: u64,
    pub damaged: u64,
    pub folded_features: FoldedCount,
    pub kinds: BTreeMap<String, u64>,
    pub runs: Vec<RunFigures>,
    /// Events of runs past the first [`super::events::MAX_RUNS`] by name.
    #[serde(skip)]
    pub folded_run_events: u64,
    pub features: Vec<FeatureFigures>,
}

/// The names past the first ones kept (features of a split, tags of a run): counted, not
/// summarised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoldedCount {
    pub count: u64,
    pub count_exact: bool,
    /// Times a record held one of them (features only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub present: Option<u64>,
    pub values: u64,
    pub tracked_at_most: u64,
}

/// The fewest, mean and most of something per record.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PerRecordFigures {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
}

impl From<&PerRecord> for PerRecordFigures {
    fn from(p: &PerRecord) -> Self {
        PerRecordFigures {
            min: p.min,
            mean: p.mean(),
            max: p.max,
        }
    }
}

/// One feature (or field) of a split.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureFigures {
    /// What `feature`, `section` and `name` are made from.
    #[serde(skip)]
    pub key: FeatureKey,
    /// `label`, `context/fps`, `feature_lists/frame/embedding`.
    pub feature: String,
    pub section: &'static str,
    pub name: String,
    pub present: u64,
    pub present_fraction: f64,
    pub kind: String,
    pub kinds: BTreeMap<&'static str, u64>,
    pub kind_conflict: bool,
    /// The kind most of its values were stored as (`kind` may name what a schema declares).
    #[serde(skip)]
    pub stored_as: &'static str,
    /// Per kind in `kinds` (`none` aside), the name of the file it was first met in.
    #[serde(skip)]
    pub first_in: BTreeMap<&'static str, PathBuf>,
    pub values_per_record: PerRecordFigures,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps_per_record: Option<PerRecordFigures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bool: Option<BoolCounts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<Classes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numeric: Option<NumericFigures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<BytesFigures>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BoolCounts {
    #[serde(rename = "true")]
    pub trues: u64,
    #[serde(rename = "false")]
    pub falses: u64,
}

/// The classes met (a ClassLabel's ids, an enum's numbers), most frequent first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Classes {
    pub count: u64,
    pub top: Vec<Class>,
    pub top_exact: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Class {
    pub value: i64,
    pub name: Option<String>,
    pub count: u64,
}

/// A number that is an integer where the values were (int64 features, exact past 2^53), a float
/// otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Number {
    Int(i64),
    Float(f64),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NumericFigures {
    pub count: u64,
    pub min: Option<Number>,
    pub max: Option<Number>,
    pub mean: f64,
    pub std: f64,
    pub zeros: u64,
    pub nan: u64,
    pub inf: u64,
    /// Estimated from the quantile sketch: within its relative error of the true values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantiles: Option<QuantileFigures>,
    /// Bucket counts estimated from the quantile sketch (values near an edge may be counted in
    /// the neighbouring bucket).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<HistogramFigures>,
}

/// The nearest-rank quantiles of the finite values, each within
/// [`super::quantiles::RELATIVE_ERROR`] of the true one (and inside the exact range).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct QuantileFigures {
    pub p1: f64,
    pub p5: f64,
    pub p25: f64,
    pub median: f64,
    pub p75: f64,
    pub p95: f64,
    pub p99: f64,
}

impl QuantileFigures {
    /// The reported quantiles of `n`, when it has a finite value.
    pub fn of(n: &super::numeric::Numeric) -> Option<QuantileFigures> {
        let range = n.range()?;
        let q = |p: f64| n.quantiles.quantile(p, range, n.integral());
        Some(QuantileFigures {
            p1: q(0.01)?,
            p5: q(0.05)?,
            p25: q(0.25)?,
            median: q(0.5)?,
            p75: q(0.75)?,
            p95: q(0.95)?,
            p99: q(0.99)?,
        })
    }

    /// In ascending order of rank.
    pub fn values(&self) -> [f64; 7] {
        [
            self.p1,
            self.p5,
            self.p25,
            self.median,
            self.p75,
            self.p95,
            self.p99,
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistogramFigures {
    pub low: f64,
    pub high: f64,
    pub counts: Vec<u64>,
}

impl HistogramFigures {
    /// The values counted (saturating: counts merged from partials may be huge).
    pub fn total(&self) -> u64 {
        self.counts.iter().fold(0, |sum, n| sum.saturating_add(*n))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BytesFigures {
    pub count: u64,
    pub length: LengthFigures,
    pub distinct: u64,
    pub distinct_exact: bool,
    pub top: Vec<TopValue>,
    pub top_exact: bool,
    pub images: BTreeMap<&'static str, ImageFigures>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LengthFigures {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

/// A frequent value and how often it was met.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopValue {
    pub value: RecordBytes,
    pub count: u64,
}

/// Bytes from the records (a value, a tag): JSON gives them as text, bytes that are not UTF-8
/// replaced by U+FFFD; the text escapes them ([`crate::escape::bytes_for_terminal`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordBytes(pub Vec<u8>);

impl Serialize for RecordBytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&String::from_utf8_lossy(&self.0))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ImageFigures {
    pub count: u64,
    /// Smallest and largest.
    pub width: [u32; 2],
    pub height: [u32; 2],
    /// Of `count`, those whose size could not be read.
    #[serde(skip)]
    pub without_size: u64,
}

/// One run of TensorBoard events and its tags.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunFigures {
    pub run: String,
    pub events: u64,
    pub other: BTreeMap<String, u64>,
    pub steps: Option<StepRange>,
    pub tags: Vec<TagFigures>,
    pub folded_tags: FoldedCount,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepRange {
    pub min: i64,
    pub max: i64,
}

impl StepRange {
    fn of(steps: Option<(i64, i64)>) -> Option<StepRange> {
        steps.map(|(min, max)| StepRange { min, max })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TagFigures {
    pub tag: RecordBytes,
    pub values: u64,
    pub steps: Option<StepRange>,
    pub plugins: BTreeMap<String, u64>,
    pub scalars: Option<ScalarFigures>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScalarFigures {
    pub count: u64,
    pub first: AtStep,
    pub last: AtStep,
    /// `None` when every value was NaN.
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub nan: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AtStep {
    pub step: i64,
    pub value: f64,
}

impl AtStep {
    fn of((step, value): (i64, f64)) -> AtStep {
        AtStep { step, value }
    }
}

/// `part` of `whole` as a share from 0 to 1.
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

impl StatsReport {
    /// The figures of `splits`, read from `files` (the members their kinds are first met in),
    /// with the skews found between them and the files not read.
    pub fn new(
        splits: &[(String, Stats)],
        files: &[PathBuf],
        skews: &[Skew],
        unreadable: &[(PathBuf, String)],
    ) -> StatsReport {
        StatsReport {
            splits: splits
                .iter()
                .map(|(name, s)| SplitFigures::new(name, s, files))
                .collect(),
            skew: skews.to_vec(),
            unreadable: unreadable
                .iter()
                .map(|(path, error)| Unreadable {
                    file: crate::escape::path_for_json(path),
                    error: error.clone(),
                })
                .collect(),
        }
    }
}

impl SplitFigures {
    fn new(name: &str, s: &Stats, files: &[PathBuf]) -> SplitFigures {
        let (count, count_exact) = s.folded.count();
        SplitFigures {
            name: name.to_string(),
            records: s.records,
            damaged: s.damaged,
            folded_features: FoldedCount {
                count,
                count_exact,
                present: Some(s.folded.present),
                values: s.folded.values,
                tracked_at_most: MAX_FEATURES as u64,
            },
            kinds: s.kinds.clone(),
            runs: runs(&s.events),
            folded_run_events: s.events.folded_events,
            features: s
                .features
                .iter()
                .map(|(key, f)| FeatureFigures::new(key, s.records, f, files))
                .collect(),
        }
    }
}

/// A feature's kind as reported: as stored, but `bool` for a bool `features.json` declares, and
/// a field's declared type.
fn kind_name(section: Section, f: &FeatureStats) -> String {
    match (section, f.declared.as_deref()) {
        (Section::Fields, Some(declared)) => declared.to_string(),
        (_, Some("bool")) => "bool".into(),
        _ => f.kind().into(),
    }
}

impl FeatureFigures {
    fn new(key: &FeatureKey, records: u64, f: &FeatureStats, files: &[PathBuf]) -> FeatureFigures {
        let first_in = KINDS
            .iter()
            .zip(f.kinds.iter().zip(f.first_in))
            .filter(|(name, (n, _))| **n > 0 && **name != "none")
            .filter_map(|(name, (_, first))| {
                let file = files.get(first?)?.file_name()?;
                Some((*name, Path::new(file).to_path_buf()))
            });
        FeatureFigures {
            key: key.clone(),
            feature: key.shown(),
            section: key.section.name(),
            name: key.name.clone(),
            present: f.present,
            present_fraction: share(f.present, records),
            kind: kind_name(key.section, f),
            kinds: KINDS
                .iter()
                .zip(f.kinds)
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| (*k, n))
                .collect(),
            kind_conflict: f.kinds_seen().len() > 1,
            stored_as: f.kind(),
            first_in: first_in.collect(),
            values_per_record: (&f.values).into(),
            steps_per_record: (key.section == Section::FeatureLists).then(|| (&f.steps).into()),
            declared: f.declared.clone(),
            bool: (f.bools.iter().any(|n| *n > 0)).then_some(BoolCounts {
                trues: f.bools[1],
                falses: f.bools[0],
            }),
            classes: classes(f),
            numeric: numeric(f),
            bytes: bytes(f),
        }
    }
}

fn classes(f: &FeatureStats) -> Option<Classes> {
    if f.labels.count == 0 {
        return None;
    }
    let top = f
        .labels
        .top(TOP)
        .into_iter()
        .map(|(value, name, count)| Class {
            value,
            name: name.map(str::to_string),
            count,
        });
    Some(Classes {
        count: f.labels.count,
        top: top.collect(),
        top_exact: !f.labels.approximate(),
    })
}

fn numeric(f: &FeatureStats) -> Option<NumericFigures> {
    let n = &f.numeric;
    if n.count + n.nan + n.pos_inf + n.neg_inf == 0 {
        return None;
    }
    let (min, max) = match (n.int_range, n.range()) {
        (Some((lo, hi)), _) if f.kinds[1] == 0 && !n.beyond_int => {
            (Some(Number::Int(lo)), Some(Number::Int(hi)))
        }
        (_, Some((lo, hi))) => (Some(Number::Float(lo)), Some(Number::Float(hi))),
        _ => (None, None),
    };
    Some(NumericFigures {
        count: n.count,
        min,
        max,
        mean: n.mean,
        std: n.std(),
        zeros: n.zeros,
        nan: n.nan,
        inf: n.pos_inf + n.neg_inf,
        quantiles: QuantileFigures::of(n),
        histogram: f.histogram.as_ref().map(|h| HistogramFigures {
            low: h.low,
            high: h.high,
            counts: h.counts.to_vec(),
        }),
    })
}

fn bytes(f: &FeatureStats) -> Option<BytesFigures> {
    let b = &f.bytes;
    if b.lengths.count == 0 {
        return None;
    }
    let (distinct, distinct_exact) = b.distinct.count();
    let top = b.frequent.top(TOP).into_iter().map(|(v, count)| TopValue {
        value: RecordBytes(v.to_vec()),
        count,
    });
    let images = b.images.iter().map(|(format, s)| {
        let figures = ImageFigures {
            count: s.count,
            width: [s.width.0, s.width.1],
            height: [s.height.0, s.height.1],
            without_size: s.without_size,
        };
        (*format, figures)
    });
    Some(BytesFigures {
        count: b.lengths.count,
        length: LengthFigures {
            min: b.lengths.min,
            mean: b.lengths.mean,
            max: b.lengths.max,
        },
        distinct,
        distinct_exact,
        top: top.collect(),
        top_exact: !b.frequent.approximate,
        images: images.collect(),
    })
}

/// Every run, with its tags.
pub fn runs(runs: &Runs) -> Vec<RunFigures> {
    runs.runs
        .iter()
        .map(|(name, run)| RunFigures::new(name, run))
        .collect()
}

impl RunFigures {
    fn new(name: &str, run: &Run) -> RunFigures {
        let (count, count_exact) = run.folded_tags.count();
        RunFigures {
            run: name.to_string(),
            events: run.events,
            other: run.other.clone(),
            steps: StepRange::of(run.steps),
            tags: run
                .tags
                .iter()
                .map(|(t, s)| TagFigures::new(t, s))
                .collect(),
            folded_tags: FoldedCount {
                count,
                count_exact,
                present: None,
                values: run.folded_values,
                tracked_at_most: MAX_TAGS as u64,
            },
        }
    }
}

impl TagFigures {
    fn new(tag: &[u8], stats: &Tag) -> TagFigures {
        TagFigures {
            tag: RecordBytes(tag.to_vec()),
            values: stats.count,
            steps: StepRange::of(stats.steps),
            plugins: stats.by_plugin(),
            scalars: stats.scalars.as_ref().map(ScalarFigures::from),
        }
    }
}

impl From<&Series> for ScalarFigures {
    fn from(s: &Series) -> Self {
        ScalarFigures {
            count: s.count,
            first: AtStep::of(s.first),
            last: AtStep::of(s.last),
            min: s.min,
            max: s.max,
            nan: s.nan,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{FeatureValue, example};
    use crate::payload::{Decoder, Reading};
    use crate::pyjson::to_string;
    use crate::schema::Schema;
    use crate::stats::Origin;

    fn figures(records: &[Vec<u8>]) -> SplitFigures {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let mut stats = Stats::default();
        for payload in records {
            stats.add_payload(&decoder, payload, &Origin::default());
        }
        let report = StatsReport::new(&[("train".into(), stats)], &[], &[], &[]);
        report.splits.into_iter().next().unwrap()
    }

    #[test]
    fn integers_stay_integers_past_two_to_the_53_and_floats_stay_floats() {
        let big = (1i64 << 53) + 1;
        let records = [
            example(&[
                ("id", FeatureValue::Ints(vec![big, -5])),
                ("score", FeatureValue::Floats(vec![0.5])),
            ]),
            example(&[("score", FeatureValue::Floats(vec![f32::NAN, 2.0]))]),
        ];
        let split = figures(&records);
        let [id, score] = &split.features[..] else {
            panic!("{:?}", split.features);
        };
        let numeric = id.numeric.as_ref().unwrap();
        assert_eq!(
            (numeric.min, numeric.max),
            (Some(Number::Int(-5)), Some(Number::Int(big)))
        );
        let json = to_string(numeric).unwrap();
        assert!(
            json.contains(r#""max": 9007199254740993, "mean": "#),
            "{json}"
        );
        assert!(json.contains(r#""min": -5, "nan": 0"#), "{json}");
        assert_eq!(id.present_fraction, 0.5);
        let numeric = score.numeric.as_ref().unwrap();
        assert_eq!(
            (numeric.min, numeric.max, numeric.nan),
            (Some(Number::Float(0.5)), Some(Number::Float(2.0)), 1)
        );
        let json = to_string(score).unwrap();
        assert!(json.contains(r#""max": 2.0, "mean": 1.25"#), "{json}");
        assert!(json.contains(r#""present_fraction": 1.0"#), "{json}");
        // Members that do not apply are absent, not null.
        assert!(!json.contains("steps_per_record") && !json.contains("\"bytes\""));
    }

    #[test]
    fn a_float_that_is_not_finite_is_null() {
        let at = AtStep {
            step: 3,
            value: f64::INFINITY,
        };
        assert_eq!(to_string(&at).unwrap(), r#"{"step": 3, "value": null}"#);
        let scalars = ScalarFigures {
            count: 1,
            first: at,
            last: at,
            min: None,
            max: Some(f64::NAN),
            nan: 1,
        };
        assert!(
            to_string(&scalars)
                .unwrap()
                .contains(r#""max": null, "min": null, "nan": 1"#)
        );
    }
}
