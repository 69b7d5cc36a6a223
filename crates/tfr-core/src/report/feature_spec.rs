//! `schema`'s result: the feature spec a reader needs, inferred from every intact record: for
//! each feature of an Example (and each context feature and feature list of a SequenceExample)
//! its dtype, whether it always holds the same number of values (a fixed-length feature of that
//! shape) or not (variable length), and how many records hold it.
//!
//! The spec is the one that parses every record read: a feature some records lack, or hold with
//! another count of values, is variable-length (no default value is invented for it); a feature
//! list is a fixed-length sequence when every step of every record holds the same count, with
//! `allow_missing` when some records lack it. A feature seen as two kinds (int64 in one record,
//! float in another) has no spec that parses every record, and is reported as a conflict.
//! [`python`] writes the spec as the dict `tf.io.parse_single_example` takes, [`pbtxt`] as the
//! `schema.pbtxt` TFDV's `load_schema_text` reads.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use crate::example::{FeatureKind, feature_lists_of, top_features};
use crate::frame::FrameIndex;
use crate::payload::Decoder;
use crate::source::{ReadOptions, Source};
use crate::stats::{MAX_FEATURES, Section};

/// The smallest and largest of some counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Range {
    pub min: u64,
    pub max: u64,
}

/// Counts seen, as they are added.
#[derive(Debug, Clone, Copy, Default)]
struct Seen(Option<Range>);

impl Seen {
    fn add(&mut self, n: u64) {
        self.0 = Some(match self.0 {
            Some(r) => Range {
                min: r.min.min(n),
                max: r.max.max(n),
            },
            None => Range { min: n, max: n },
        });
    }

    /// The count when it never changed.
    fn fixed(&self) -> Option<u64> {
        self.0.filter(|r| r.min == r.max).map(|r| r.min)
    }
}

/// What was seen of one feature.
#[derive(Debug, Clone, Default)]
struct Observed {
    present: u64,
    /// Per kind as [`crate::stats::KINDS`] orders them: bytes, float, int64, none.
    kinds: [u64; 4],
    /// Values per record (of a feature list: per step).
    values: Seen,
    /// Steps per record, of a feature list.
    steps: Seen,
}

impl Observed {
    fn add_kind(&mut self, kind: FeatureKind) {
        let slot = match kind {
            FeatureKind::Bytes => 0,
            FeatureKind::Float => 1,
            FeatureKind::Int64 => 2,
            FeatureKind::Empty => 3,
        };
        if let Some(n) = self.kinds.get_mut(slot) {
            *n = n.saturating_add(1);
        }
    }
}

/// A feature's dtype as TensorFlow names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Int64,
    Float,
    String,
}

impl DType {
    /// `tf.int64`, `tf.float32`, `tf.string`.
    pub fn tf(self) -> &'static str {
        match self {
            DType::Int64 => "tf.int64",
            DType::Float => "tf.float32",
            DType::String => "tf.string",
        }
    }

    /// TFDV's `FeatureType`.
    fn tfdv(self) -> &'static str {
        match self {
            DType::Int64 => "INT",
            DType::Float => "FLOAT",
            DType::String => "BYTES",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::Int64 => "int64",
            DType::Float => "float",
            DType::String => "string",
        }
    }
}

/// How a reader parses the feature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// `FixedLenFeature(shape)`: in every record, always this many values.
    Fixed,
    /// `FixedLenSequenceFeature(shape)`: a feature list whose every step holds this many values.
    FixedSequence,
    /// `VarLenFeature`: missing from some records, or holding a changing count of values.
    Var,
    /// Seen as more than one kind: no spec parses every record.
    Conflict,
}

/// One feature's spec and what it was inferred from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureSpec {
    /// `features` (an Example's), `context` or `feature_lists` (a SequenceExample's).
    pub section: &'static str,
    pub name: String,
    /// `None` for a conflict, or a feature that never held a kind of list.
    pub dtype: Option<DType>,
    pub form: Form,
    /// The fixed shape (`[]` for one value, `[n]` for n); `None` when variable.
    pub shape: Option<Vec<u64>>,
    /// Records holding the feature, of the records of its kind (`of`).
    pub present: u64,
    pub of: u64,
    /// `present / of`.
    pub presence: f64,
    /// Values per record holding it (of a feature list: per step).
    pub values: Option<Range>,
    /// Steps per record holding it, of a feature list.
    pub steps: Option<Range>,
    /// Records per kind it was seen as (`bytes`, `float`, `int64`, `none` for a Feature with no
    /// list set), when more than one.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub kinds: BTreeMap<&'static str, u64>,
}

impl FeatureSpec {
    fn of(section: Section, name: &str, seen: &Observed, of: u64) -> FeatureSpec {
        let kinds: BTreeMap<&'static str, u64> = crate::stats::KINDS
            .iter()
            .zip(seen.kinds)
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| (*k, n))
            .collect();
        let listed: Vec<&str> = kinds.keys().copied().filter(|k| *k != "none").collect();
        let dtype = match listed.as_slice() {
            ["bytes"] => Some(DType::String),
            ["float"] => Some(DType::Float),
            ["int64"] => Some(DType::Int64),
            _ => None,
        };
        let everywhere = seen.present == of;
        let count = seen.values.fixed().filter(|n| *n > 0);
        let shape = |n: u64| match n {
            1 => Vec::new(),
            n => vec![n],
        };
        let (form, shape) = match (dtype, section) {
            (None, _) if listed.len() > 1 => (Form::Conflict, None),
            (None, _) => (Form::Var, None),
            (Some(_), Section::FeatureLists) => match count {
                Some(n) => (Form::FixedSequence, Some(shape(n))),
                None => (Form::Var, None),
            },
            (Some(_), _) => match count.filter(|_| everywhere) {
                Some(n) => (Form::Fixed, Some(shape(n))),
                None => (Form::Var, None),
            },
        };
        FeatureSpec {
            section: section.name(),
            name: name.to_string(),
            dtype,
            form,
            shape,
            present: seen.present,
            of,
            presence: match of {
                0 => 0.0,
                of => seen.present as f64 / of as f64,
            },
            values: seen.values.0,
            steps: seen.steps.0,
            kinds: if kinds.len() > 1 {
                kinds
            } else {
                BTreeMap::new()
            },
        }
    }
}

/// A damaged frame passed over, or a file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    #[serde(skip)]
    pub file: PathBuf,
    /// The record's number and byte offset; `None` for a whole file or stream (then `why`
    /// names the file).
    pub record: Option<(usize, u64)>,
    pub why: String,
}

/// The spec of the records read, and what was passed over.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SpecReport {
    /// Intact records read.
    pub records: u64,
    pub examples: u64,
    pub sequence_examples: u64,
    /// Intact records that are neither (they have no features).
    pub other: u64,
    /// Damaged frames passed over (and damaged compressed streams).
    pub damaged: u64,
    /// Example features, then context features, then feature lists, each by name.
    pub features: Vec<FeatureSpec>,
    /// Feature names met once [`MAX_FEATURES`] were tracked: left out of the spec.
    pub left_out: u64,
    /// The damage and the unreadable files, for the messages that name them.
    #[serde(skip)]
    pub skipped: Vec<Skipped>,
    /// Files that could not be read at all.
    #[serde(skip)]
    pub unreadable: u64,
}

impl SpecReport {
    /// Infers the spec from every intact record of `files`, in order.
    pub fn infer(files: &[PathBuf], decoder: &Decoder, read: &ReadOptions) -> SpecReport {
        let mut pass = Pass::default();
        for path in files {
            pass.file(path, decoder, read);
        }
        pass.finish()
    }

    /// The specs of one section.
    pub fn section(&self, section: Section) -> impl Iterator<Item = &FeatureSpec> {
        self.features
            .iter()
            .filter(move |f| f.section == section.name())
    }
}

/// The pass over the records.
#[derive(Default)]
struct Pass {
    report: SpecReport,
    seen: BTreeMap<(Section, String), Observed>,
}

impl Pass {
    fn file(&mut self, path: &std::path::Path, base: &Decoder, read: &ReadOptions) {
        let skip = |record, why: String| Skipped {
            file: path.to_path_buf(),
            record,
            why,
        };
        let source = match Source::open(path, read) {
            Ok(source) => source,
            Err(e) => {
                self.report.unreadable += 1;
                self.report.skipped.push(skip(None, e.to_string()));
                return;
            }
        };
        let index = FrameIndex::build(&source);
        let decoder = crate::stats::run::learnt(base, &source, &index);
        let data = &source;
        for frame in (0..index.len()).map_while(|f| index.get(data, f)) {
            match frame.payload(data).filter(|_| frame.status.is_intact()) {
                Some(payload) => self.record(&decoder, payload),
                None => {
                    self.report.damaged = self.report.damaged.saturating_add(1);
                    let why = format!("skipped: {}", frame.status.name().replace('_', " "));
                    self.report
                        .skipped
                        .push(skip(Some((frame.index, frame.offset.0)), why));
                }
            }
        }
        if let Some(problem) = source.compression().and_then(|c| c.problem.as_ref()) {
            self.report.damaged = self.report.damaged.saturating_add(1);
            self.report.skipped.push(skip(
                None,
                format!("{}: {problem}", crate::escape::path_for_terminal(path)),
            ));
        }
        if let Err(e) = source.check_unchanged() {
            self.report.unreadable += 1;
            self.report.skipped.push(skip(None, e.to_string()));
        }
    }

    fn observed(&mut self, section: Section, name: &str) -> Option<&mut Observed> {
        let key = (section, name.to_string());
        if !self.seen.contains_key(&key) {
            if self.seen.len() >= MAX_FEATURES {
                self.report.left_out = self.report.left_out.saturating_add(1);
                return None;
            }
            self.seen.insert(key.clone(), Observed::default());
        }
        self.seen.get_mut(&key)
    }

    fn record(&mut self, decoder: &Decoder, payload: &[u8]) {
        self.report.records += 1;
        let decoded = decoder.decode(payload);
        let message = decoded.typed(payload, decoder.table());
        let full_name = message
            .as_ref()
            .and_then(|m| decoder.table().message(m.id()))
            .map(|m| m.full_name.as_ref());
        let (Some(message), Some(section)) = (
            message.as_ref(),
            match full_name {
                Some("tensorflow.Example") => Some(Section::Features),
                // Wire-identical to an Example but for its feature lists: one without them is
                // parsed as an Example as well, and counted as one.
                Some("tensorflow.SequenceExample")
                    if message
                        .as_ref()
                        .and_then(|m| m.field("feature_lists"))
                        .is_some() =>
                {
                    Some(Section::Context)
                }
                Some("tensorflow.SequenceExample") => Some(Section::Features),
                _ => None,
            },
        ) else {
            self.report.other += 1;
            return;
        };
        match section {
            Section::Features => self.report.examples += 1,
            _ => self.report.sequence_examples += 1,
        }
        for feature in top_features(message).iter() {
            let Some(seen) = self.observed(section, &feature.name()) else {
                continue;
            };
            seen.present += 1;
            seen.add_kind(feature.values.kind());
            seen.values.add(feature.values.len() as u64);
        }
        if section != Section::Context {
            return;
        }
        for list in feature_lists_of(message).iter() {
            let Some(seen) = self.observed(Section::FeatureLists, &list.name()) else {
                continue;
            };
            seen.present += 1;
            seen.steps.add(list.len() as u64);
            for step in list.steps() {
                seen.add_kind(step.values.kind());
                seen.values.add(step.values.len() as u64);
            }
        }
    }

    fn finish(mut self) -> SpecReport {
        let report = &mut self.report;
        report.features = self
            .seen
            .iter()
            .map(|((section, name), seen)| {
                let of = match section {
                    Section::Features => report.examples,
                    _ => report.sequence_examples,
                };
                FeatureSpec::of(*section, name, seen, of)
            })
            .collect();
        self.report
    }
}

/// `name` as a Python string literal, single-quoted, that a terminal shows as it is: quotes,
/// backslashes and every character [`crate::escape::is_unsafe`] names escaped.
pub fn python_literal(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('\'');
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if crate::escape::is_unsafe(c) => {
                let _ = match c as u32 {
                    n @ 0..=0xff => write!(out, "\\x{n:02x}"),
                    n @ 0x100..=0xffff => write!(out, "\\u{n:04x}"),
                    n => write!(out, "\\U{n:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn python_shape(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// Where a feature is found, as a comment: `in every record`, `in 3 of 10 records (30%)`, with
/// the count of values when it changes.
fn python_comment(spec: &FeatureSpec) -> String {
    let mut words = match spec.present == spec.of {
        true => "in every record".to_string(),
        false => format!(
            "in {} of {} records ({})",
            spec.present,
            spec.of,
            percent(spec.presence)
        ),
    };
    let per = match spec.section {
        "feature_lists" => "per step",
        _ => "per record",
    };
    if let Some(v) = spec.values.filter(|v| v.min != v.max) {
        let _ = write!(words, "; {} to {} values {per}", v.min, v.max);
    } else if let (Some(v), Form::Var) = (spec.values, &spec.form) {
        let _ = write!(words, "; {} {per}", crate::words::plural(v.min, "value"));
    }
    if let Some(s) = spec.steps {
        match s.min == s.max {
            true => {
                let _ = write!(words, "; {}", crate::words::plural(s.min, "step"));
            }
            false => {
                let _ = write!(words, "; {} to {} steps", s.min, s.max);
            }
        }
    }
    words
}

/// A fraction as a percentage, rounded to a whole one unless that would say 0% or 100% of
/// something that is neither.
pub fn percent(fraction: f64) -> String {
    let whole = (fraction * 100.0).round();
    if (whole == 0.0 && fraction > 0.0) || (whole == 100.0 && fraction < 1.0) {
        format!("{:.2}%", fraction * 100.0)
    } else {
        format!("{whole}%")
    }
}

fn kinds_words(spec: &FeatureSpec) -> String {
    let parts: Vec<String> = spec
        .kinds
        .iter()
        .map(|(k, n)| format!("{k} in {}", crate::words::plural(*n, "record")))
        .collect();
    parts.join(", ")
}

/// One entry of a feature dict: `'name': tf.io.…,  # comment`, or a comment for a conflict.
fn python_entry(spec: &FeatureSpec, out: &mut String) {
    let name = python_literal(&spec.name);
    let Some(dtype) = spec.dtype else {
        let why = match spec.form {
            Form::Conflict => format!("seen as {}", kinds_words(spec)),
            _ => "never holds a value list, so its dtype is unknown".to_string(),
        };
        let _ = writeln!(out, "    # {name}: left out: {why}");
        return;
    };
    let parser = match (&spec.form, &spec.shape) {
        (Form::Fixed, Some(shape)) => {
            format!(
                "tf.io.FixedLenFeature({}, {})",
                python_shape(shape),
                dtype.tf()
            )
        }
        (Form::FixedSequence, Some(shape)) => {
            let missing = match spec.present < spec.of {
                true => ", allow_missing=True",
                false => "",
            };
            format!(
                "tf.io.FixedLenSequenceFeature({}, {}{missing})",
                python_shape(shape),
                dtype.tf()
            )
        }
        _ => format!("tf.io.VarLenFeature({})", dtype.tf()),
    };
    let _ = writeln!(out, "    {name}: {parser},  # {}", python_comment(spec));
}

/// The spec as Python: `feature_description` for `tf.io.parse_single_example` (of Examples), and
/// `context_features` and `sequence_features` for `tf.io.parse_single_sequence_example` (of
/// SequenceExamples).
pub fn python(report: &SpecReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The feature spec of {} (tfr-inspect schema): it parses every one of them.",
        read_words(report)
    );
    out.push_str("import tensorflow as tf\n");
    if report.examples > 0 || report.sequence_examples == 0 {
        out.push_str("\n# tf.io.parse_single_example(serialized, feature_description)\n");
        out.push_str("feature_description = {\n");
        report
            .section(Section::Features)
            .for_each(|s| python_entry(s, &mut out));
        out.push_str("}\n");
    }
    if report.sequence_examples > 0 {
        out.push_str(
            "\n# tf.io.parse_single_sequence_example(serialized, context_features, sequence_features)\n",
        );
        out.push_str("context_features = {\n");
        report
            .section(Section::Context)
            .for_each(|s| python_entry(s, &mut out));
        out.push_str("}\nsequence_features = {\n");
        report
            .section(Section::FeatureLists)
            .for_each(|s| python_entry(s, &mut out));
        out.push_str("}\n");
    }
    out
}

/// `200 Example records`, `10 SequenceExample records and 3 other records`.
pub fn read_words(report: &SpecReport) -> String {
    let mut parts = Vec::new();
    if report.examples > 0 {
        parts.push(format!(
            "{} {}",
            report.examples,
            crate::words::noun_for(report.examples, "Example record")
        ));
    }
    if report.sequence_examples > 0 {
        parts.push(format!(
            "{} {}",
            report.sequence_examples,
            crate::words::noun_for(report.sequence_examples, "SequenceExample record")
        ));
    }
    if report.other > 0 || parts.is_empty() {
        parts.push(format!(
            "{} {}",
            report.other,
            crate::words::noun_for(report.other, "other record")
        ));
    }
    parts.join(" and ")
}

/// `name` as a protobuf text-format string, safe on a terminal.
fn pbtxt_string(name: &str) -> String {
    let mut escaped = String::new();
    crate::pyfmt::c_escape_utf8(name.as_bytes(), &mut escaped);
    format!("\"{}\"", crate::pyfmt::text_format_for_terminal(&escaped))
}

/// One `feature { … }` of a TFDV schema.
fn pbtxt_feature(spec: &FeatureSpec, name: &str, out: &mut String) {
    let Some(dtype) = spec.dtype else {
        let _ = writeln!(
            out,
            "# {}: left out: no single type ({})",
            pbtxt_string(name),
            kinds_words(spec)
        );
        return;
    };
    let _ = writeln!(out, "feature {{\n  name: {}", pbtxt_string(name));
    let _ = writeln!(out, "  type: {}", dtype.tfdv());
    match spec.present == spec.of {
        true => out.push_str("  presence {\n    min_fraction: 1.0\n    min_count: 1\n  }\n"),
        false => out.push_str("  presence {\n    min_count: 1\n  }\n"),
    }
    let range = |out: &mut String, indent: &str, field: &str, r: Range| {
        let _ = writeln!(
            out,
            "{indent}{field} {{\n{indent}  min: {}\n{indent}  max: {}\n{indent}}}",
            r.min, r.max
        );
    };
    match (spec.section, &spec.form, spec.shape.as_deref()) {
        ("feature_lists", _, _) => {
            out.push_str("  value_counts {\n");
            if let Some(steps) = spec.steps {
                range(out, "    ", "value_count", steps);
            }
            if let Some(values) = spec.values {
                range(out, "    ", "value_count", values);
            }
            out.push_str("  }\n");
        }
        (_, Form::Fixed, Some(shape)) => {
            let size = shape.first().copied().unwrap_or(1);
            let _ = writeln!(
                out,
                "  shape {{\n    dim {{\n      size: {size}\n    }}\n  }}"
            );
        }
        _ => {
            if let Some(values) = spec.values {
                range(out, "  ", "value_count", values);
            }
        }
    }
    out.push_str("}\n");
}

/// The spec as TFDV's `Schema` in text format (`schema.pbtxt`), as `tfdv.infer_schema` words
/// one: each feature with its type, presence, and fixed shape or value counts. Example features
/// and a SequenceExample's context features keep their names; its feature lists are named
/// `feature_lists/NAME`, with two `value_counts` (steps per record, values per step).
pub fn pbtxt(report: &SpecReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The schema of {} (tfr-inspect schema), for tfdv.load_schema_text.",
        read_words(report)
    );
    for spec in &report.features {
        let name = match spec.section {
            "feature_lists" => format!("feature_lists/{}", spec.name),
            _ => spec.name.clone(),
        };
        pbtxt_feature(spec, &name, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{self, FeatureValue};
    use crate::payload::Reading;
    use crate::schema::Schema;

    fn report(payloads: &[Vec<u8>]) -> SpecReport {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let mut pass = Pass::default();
        for p in payloads {
            pass.record(&decoder, p);
        }
        pass.finish()
    }

    fn spec<'a>(report: &'a SpecReport, name: &str) -> &'a FeatureSpec {
        report
            .features
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn a_feature_is_fixed_only_when_every_record_holds_the_same_count() {
        let records = [
            crafted::example(&[
                ("label", FeatureValue::Ints(vec![1])),
                ("box", FeatureValue::Floats(vec![0.1, 0.2, 0.3, 0.4])),
                ("text", FeatureValue::Bytes(vec![b"a".to_vec()])),
                ("tokens", FeatureValue::Ints(vec![1, 2])),
                ("mixed", FeatureValue::Ints(vec![1])),
            ]),
            crafted::example(&[
                ("label", FeatureValue::Ints(vec![2])),
                ("box", FeatureValue::Floats(vec![0.5, 0.6, 0.7, 0.8])),
                ("tokens", FeatureValue::Ints(vec![3])),
                ("mixed", FeatureValue::Floats(vec![1.0])),
            ]),
        ];
        let report = report(&records);
        assert_eq!((report.records, report.examples), (2, 2));
        let label = spec(&report, "label");
        assert_eq!(
            (&label.form, label.shape.as_deref()),
            (&Form::Fixed, Some(&[][..]))
        );
        assert_eq!(label.dtype, Some(DType::Int64));
        let boxes = spec(&report, "box");
        assert_eq!(boxes.shape.as_deref(), Some(&[4][..]));
        // Missing from a record: variable length, whatever its count.
        let text = spec(&report, "text");
        assert_eq!((&text.form, text.present, text.of), (&Form::Var, 1, 2));
        assert_eq!(spec(&report, "tokens").form, Form::Var);
        let mixed = spec(&report, "mixed");
        assert_eq!((&mixed.form, mixed.dtype), (&Form::Conflict, None));
        let python = python(&report);
        assert!(
            python
                .contains("    'label': tf.io.FixedLenFeature([], tf.int64),  # in every record\n"),
            "{python}"
        );
        assert!(
            python.contains("    'box': tf.io.FixedLenFeature([4], tf.float32),"),
            "{python}"
        );
        assert!(python.contains("    'text': tf.io.VarLenFeature(tf.string),  # in 1 of 2 records (50%); 1 value per record\n"), "{python}");
        assert!(
            python.contains(
                "    # 'mixed': left out: seen as float in 1 record, int64 in 1 record\n"
            ),
            "{python}"
        );
    }

    #[test]
    fn feature_lists_are_fixed_sequences_when_every_step_holds_the_same_count() {
        let records = [
            crafted::sequence_example(
                &[("id", FeatureValue::Bytes(vec![b"a".to_vec()]))],
                &[
                    ("emb", vec![FeatureValue::Floats(vec![1.0, 2.0]); 3]),
                    (
                        "tags",
                        vec![FeatureValue::Ints(vec![1]), FeatureValue::Ints(vec![1, 2])],
                    ),
                ],
            ),
            crafted::sequence_example(
                &[("id", FeatureValue::Bytes(vec![b"b".to_vec()]))],
                &[("emb", vec![])],
            ),
        ];
        let report = report(&records);
        assert_eq!(report.sequence_examples, 2);
        let emb = spec(&report, "emb");
        assert_eq!(
            (&emb.form, emb.shape.as_deref()),
            (&Form::FixedSequence, Some(&[2][..]))
        );
        assert_eq!(emb.steps, Some(Range { min: 0, max: 3 }));
        let tags = spec(&report, "tags");
        assert_eq!((&tags.form, tags.present, tags.of), (&Form::Var, 1, 2));
        let python = python(&report);
        assert!(
            python.contains("    'emb': tf.io.FixedLenSequenceFeature([2], tf.float32),"),
            "{python}"
        );
        assert!(
            python
                .contains("context_features = {\n    'id': tf.io.FixedLenFeature([], tf.string),"),
            "{python}"
        );
        let pbtxt = pbtxt(&report);
        assert!(
            pbtxt.contains("  name: \"feature_lists/emb\"\n  type: FLOAT\n"),
            "{pbtxt}"
        );
    }

    #[test]
    fn names_are_python_literals_a_terminal_shows_as_they_are() {
        assert_eq!(python_literal("image/encoded"), "'image/encoded'");
        assert_eq!(python_literal("it's\\"), "'it\\'s\\\\'");
        assert_eq!(python_literal("\u{1b}]2;x\u{7}"), "'\\x1b]2;x\\x07'");
        assert_eq!(python_literal("a\u{202e}b\u{85}é"), "'a\\u202eb\\x85é'");
        assert_eq!(pbtxt_string("a\u{202e}\"\n"), "\"a\\342\\200\\256\\\"\\n\"");
        assert_eq!(percent(0.5), "50%");
        assert_eq!(percent(0.999), "99.90%");
        assert_eq!(percent(0.001), "0.10%");
    }
}
