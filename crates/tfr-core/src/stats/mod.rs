//! Per-feature statistics of Example and SequenceExample records (and per field of any message a
//! schema describes, [`fields`]; per run and tag of TensorBoard's events, [`events`]), the
//! questions people otherwise ask TensorFlow Data Validation: how often each feature is present,
//! of which kind (and where the kind changes), how many values a record holds, the range, mean,
//! spread and histogram of its numbers, the lengths, distinct count and most frequent values of
//! its strings, and the formats and sizes of its images.
//!
//! Every summary takes constant space per feature (see [`sketch`] and [`numeric`]) and merges,
//! and at most [`MAX_FEATURES`] features are summarised per split (the rest are counted in
//! [`Folded`]), so shards are summarised on all cores and combined ([`run`]) in memory that does
//! not grow with the records or the names they use. Histograms are derived from each feature's
//! quantile sketch ([`quantiles`]) once every split is summarised ([`with_histograms`]), over the
//! range found across all splits, so that splits can be compared bucket by bucket ([`report`]
//! flags the features whose kind or distribution differs between splits). Summaries are written
//! and read back bit for bit ([`wire`]), so the summaries of a dataset's parts, made anywhere,
//! merge into the statistics of the whole ([`partial`]).

pub mod events;
pub mod events_report;
pub mod fields;
pub mod figures;
pub mod numeric;
pub mod partial;
pub mod quantiles;
pub mod report;
pub mod run;
pub mod sketch;
pub mod tfdv;
pub mod wire;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::dataset::features::{FeatureSpecs, Spec};
use crate::decode::{MessageView, Scalar};
use crate::example::{FeatureKind, FeatureValues, feature_lists_of, top_features};
use crate::payload::{Decoder, PayloadKind};
use fields::Leaf;
use numeric::{Histogram, Numeric, PerRecord};
use sketch::{Distinct, Frequent};

/// Where in a record a feature lives.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Section {
    /// An Example's `features`.
    #[default]
    Features,
    /// A SequenceExample's `context`.
    Context,
    /// A SequenceExample's `feature_lists`: one value list per step.
    FeatureLists,
    /// A field of a message a schema describes, by its path (`temperature.value`).
    Fields,
}

impl Section {
    pub fn name(self) -> &'static str {
        match self {
            Section::Features => "features",
            Section::Context => "context",
            Section::FeatureLists => "feature_lists",
            Section::Fields => "fields",
        }
    }
}

/// A feature's place and name.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FeatureKey {
    pub section: Section,
    pub name: String,
}

impl FeatureKey {
    /// `label`, `context/fps`, `feature_lists/frame/embedding`.
    pub fn shown(&self) -> String {
        match self.section {
            Section::Features | Section::Fields => self.name.clone(),
            other => format!("{}/{}", other.name(), self.name),
        }
    }

    /// [`FeatureKey::shown`] for a terminal: escaped, an empty name `""`.
    pub fn shown_text(&self) -> String {
        let name = crate::escape::name_for_terminal(self.name.as_bytes());
        match self.section {
            Section::Features | Section::Fields => name.into_owned(),
            other => format!("{}/{name}", other.name()),
        }
    }
}

/// Features summarised in full per split (and per chunk of records summarised at once): the
/// first 1024 by name. A feature's sketches grow to some 200 KiB when its values are many and
/// distinct, so this bounds a split's summary to some 200 MiB; records that use a million names
/// (a crafted or broken writer, a feature per id) would otherwise take gigabytes. Real datasets
/// have tens to hundreds of features.
pub const MAX_FEATURES: usize = 1024;

/// The features past the first [`MAX_FEATURES`] by name: counted, not summarised.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Folded {
    /// Their names (by hash: exact up to [`sketch::EXACT_DISTINCT`], then estimated).
    pub names: Distinct,
    /// How many times a record (or a feature list's step) held one of them.
    pub present: u64,
    /// Values they held.
    pub values: u64,
}

impl Folded {
    fn add(&mut self, key: &FeatureKey, present: u64, values: u64) {
        self.names.insert(key_hash(key));
        self.present = self.present.saturating_add(present);
        self.values = self.values.saturating_add(values);
    }

    fn merge(&mut self, other: &Folded) {
        self.names.merge(&other.names);
        self.present = self.present.saturating_add(other.present);
        self.values = self.values.saturating_add(other.values);
    }

    /// How many features were folded, and whether the count is exact.
    pub fn count(&self) -> (u64, bool) {
        self.names.count()
    }
}

/// A feature key's hash, the same in every thread and run.
fn key_hash(key: &FeatureKey) -> u64 {
    let mut bytes = Vec::with_capacity(key.name.len() + 1);
    bytes.push(key.section as u8);
    bytes.extend_from_slice(key.name.as_bytes());
    sketch::hash(&bytes)
}

/// The kinds a feature can hold, in the order [`FeatureStats::kinds`] counts them.
pub const KINDS: [&str; 4] = ["bytes", "float", "int64", "none"];

fn kind_slot(kind: FeatureKind) -> usize {
    match kind {
        FeatureKind::Bytes => 0,
        FeatureKind::Float => 1,
        FeatureKind::Int64 => 2,
        FeatureKind::Empty => 3,
    }
}

/// Encoded images among a bytes feature's values, per format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSizes {
    pub count: u64,
    /// Images whose header gave no size.
    pub without_size: u64,
    pub width: (u32, u32),
    pub height: (u32, u32),
}

impl ImageSizes {
    fn add(&mut self, size: Option<(u32, u32)>) {
        self.count += 1;
        let Some((w, h)) = size else {
            self.without_size += 1;
            return;
        };
        let sized = self.count - self.without_size;
        if sized == 1 {
            self.width = (w, w);
            self.height = (h, h);
        } else {
            self.width = (self.width.0.min(w), self.width.1.max(w));
            self.height = (self.height.0.min(h), self.height.1.max(h));
        }
    }

    fn merge(&mut self, other: &ImageSizes) {
        let (mine, theirs) = (
            self.count.saturating_sub(self.without_size),
            other.count.saturating_sub(other.without_size),
        );
        if theirs > 0 {
            if mine == 0 {
                self.width = other.width;
                self.height = other.height;
            } else {
                self.width = (
                    self.width.0.min(other.width.0),
                    self.width.1.max(other.width.1),
                );
                self.height = (
                    self.height.0.min(other.height.0),
                    self.height.1.max(other.height.1),
                );
            }
        }
        self.count = self.count.saturating_add(other.count);
        self.without_size = self.without_size.saturating_add(other.without_size);
    }
}

/// The values of a bytes feature.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BytesStats {
    /// Value lengths in bytes.
    pub lengths: Numeric,
    pub distinct: Distinct,
    pub frequent: Frequent,
    #[serde(with = "wire::images")]
    pub images: BTreeMap<&'static str, ImageSizes>,
}

impl BytesStats {
    fn add(&mut self, value: &[u8]) {
        self.lengths.add(value.len() as f64);
        let hash = sketch::hash(value);
        self.distinct.insert(hash);
        self.frequent.insert(hash, value);
        if let Some((format, size)) = crate::image::encoded_image_info(value) {
            self.images.entry(format).or_default().add(size);
        }
    }

    fn merge(&mut self, other: &BytesStats) {
        self.lengths.merge(&other.lengths);
        self.distinct.merge(&other.distinct);
        self.frequent.merge(&other.frequent);
        for (format, sizes) in &other.images {
            self.images.entry(format).or_default().merge(sizes);
        }
    }
}

/// How many times each class (a ClassLabel's id, an enum's number) was met, with its name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Labelled {
    /// Values counted.
    pub count: u64,
    frequent: Frequent,
}

/// The most bytes of a class name kept: a class's sample holds its number, a byte that says
/// whether it has a name, and the name, within [`sketch`]'s 64 bytes.
const NAME_KEPT: usize = 52;

impl Labelled {
    pub fn add(&mut self, number: i64, name: Option<&str>) {
        self.count += 1;
        let mut sample = Vec::with_capacity(9 + NAME_KEPT + 3);
        sample.extend_from_slice(&number.to_le_bytes());
        if let Some(name) = name {
            sample.push(1);
            let mut cut = name.len().min(NAME_KEPT);
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            sample.extend_from_slice(name.as_bytes().get(..cut).unwrap_or_default());
            if cut < name.len() {
                sample.extend_from_slice("…".as_bytes());
            }
        } else {
            sample.push(0);
        }
        self.frequent
            .insert(sketch::hash(&number.to_le_bytes()), &sample);
    }

    fn merge(&mut self, other: &Labelled) {
        self.count = self.count.saturating_add(other.count);
        self.frequent.merge(&other.frequent);
    }

    /// Whether the counts are lower bounds (past [`sketch::FREQUENT_SLOTS`] classes).
    pub fn approximate(&self) -> bool {
        self.frequent.approximate
    }

    /// The `n` most frequent classes: number, name (when it has one) and count.
    pub fn top(&self, n: usize) -> Vec<(i64, Option<&str>, u64)> {
        let mut top: Vec<(i64, Option<&str>, u64)> = self
            .frequent
            .top(usize::MAX)
            .into_iter()
            .filter_map(|(sample, count)| {
                let number = i64::from_le_bytes(sample.get(..8)?.try_into().ok()?);
                let name = match sample.get(8) {
                    Some(1) => std::str::from_utf8(sample.get(9..)?).ok(),
                    _ => None,
                };
                Some((number, name, count))
            })
            .collect();
        top.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        top.truncate(n);
        top
    }
}

/// What `features.json` declares a feature to be, where the statistics change with it.
enum Declared<'a> {
    /// A Tensor of dtype bool, stored as int64.
    Bool,
    /// Class ids, with their names.
    ClassLabel(&'a crate::dataset::features::Labels),
}

fn declared_as(spec: Option<&Spec>) -> Option<Declared<'_>> {
    match spec? {
        Spec::Tensor { dtype, .. } if dtype == "bool" => Some(Declared::Bool),
        Spec::ClassLabel { names, .. } => Some(Declared::ClassLabel(names)),
        _ => None,
    }
}

/// What `specs` says feature `name` is (a Sequence's inner features are stored as
/// `NAME/INNER`).
fn spec_of<'a>(specs: Option<&'a FeatureSpecs>, name: &str) -> Option<&'a Spec> {
    let specs = specs?;
    match specs.features.get(name) {
        Some(Spec::Sequence(_)) => None,
        Some(spec) => Some(spec),
        None => {
            let (outer, inner) = name.split_once('/')?;
            match specs.features.get(outer)? {
                Spec::Sequence(parts) => parts.get(inner),
                _ => None,
            }
        }
    }
}

/// Where a record comes from: its file (member) and that file's run (TensorBoard's name for the
/// directory an event file is in), and the dataset's `features.json` when it has one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Origin<'a> {
    pub member: usize,
    pub run: &'a str,
    pub specs: Option<&'a FeatureSpecs>,
}

/// Everything known about one feature over the records read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FeatureStats {
    /// Records holding the feature.
    pub present: u64,
    /// Records holding it as each of [`KINDS`] (per step, for feature lists).
    pub kinds: [u64; 4],
    /// Per kind, the first member (file) it was seen in.
    pub first_in: [Option<usize>; 4],
    /// Values per record (for a feature list, over all its steps).
    pub values: PerRecord,
    /// Steps per record, for a feature list.
    pub steps: PerRecord,
    /// Float and int64 values.
    pub numeric: Numeric,
    pub bytes: BytesStats,
    /// Derived from the quantile sketch over the range of every split ([`with_histograms`]).
    #[serde(skip)]
    pub histogram: Option<Histogram>,
    /// The type its schema declares (a field's `.proto` type, `features.json`'s `bool` or
    /// `ClassLabel`), when one does.
    pub declared: Option<String>,
    /// Values read as bools: how many false, how many true.
    pub bools: [u64; 2],
    /// Values that name a class (a ClassLabel's ids, an enum's numbers), with their names.
    pub labels: Labelled,
}

impl FeatureStats {
    /// The kind most records hold it as.
    pub fn kind(&self) -> &'static str {
        let best = (0..KINDS.len())
            .max_by_key(|i| (self.kinds.get(*i).copied().unwrap_or(0), usize::MAX - i))
            .unwrap_or(3);
        KINDS.get(best).copied().unwrap_or("none")
    }

    /// The kinds it was seen as (a kind conflict when more than one, `none` aside).
    pub fn kinds_seen(&self) -> Vec<&'static str> {
        KINDS
            .iter()
            .zip(self.kinds)
            .filter(|(name, n)| *n > 0 && **name != "none")
            .map(|(name, _)| *name)
            .collect()
    }

    fn add_values(&mut self, values: &FeatureValues<'_>, member: usize, spec: Option<&Spec>) {
        let slot = kind_slot(values.kind());
        if let Some(n) = self.kinds.get_mut(slot) {
            *n += 1;
        }
        if let Some(first) = self.first_in.get_mut(slot) {
            *first = Some(first.map_or(member, |f| f.min(member)));
        }
        match (values.kind(), declared_as(spec)) {
            // TensorFlow Datasets stores a bool Tensor as int64 and casts it back: 0 is false.
            (FeatureKind::Int64, Some(Declared::Bool)) => {
                self.declared.get_or_insert_with(|| "bool".into());
                values
                    .ints()
                    .for_each(|v| self.bools[usize::from(v != 0)] += 1);
            }
            (FeatureKind::Int64, Some(Declared::ClassLabel(names))) => {
                self.declared.get_or_insert_with(|| "ClassLabel".into());
                for v in values.ints() {
                    self.numeric.add_int(v);
                    let name = usize::try_from(v).ok().and_then(|i| names.get(i));
                    self.labels.add(v, name);
                }
            }
            (FeatureKind::Float, _) => {
                values.floats().for_each(|v| self.numeric.add(f64::from(v)));
            }
            (FeatureKind::Int64, _) => values.ints().for_each(|v| self.numeric.add_int(v)),
            (FeatureKind::Bytes, _) => values.bytes().for_each(|(v, _)| self.bytes.add(v)),
            (FeatureKind::Empty, _) => {}
        }
    }

    /// Adds one value of a message field.
    fn add_leaf(&mut self, leaf: Leaf<'_>) {
        match leaf {
            Leaf::Message => {}
            Leaf::Bytes(b) => self.bytes.add(b),
            Leaf::Scalar(s) => match s {
                Scalar::I32(v) => self.numeric.add_int(v.into()),
                Scalar::I64(v) => self.numeric.add_int(v),
                Scalar::U32(v) => self.numeric.add_int(v.into()),
                Scalar::U64(v) => self.numeric.add_uint(v),
                Scalar::F32(v) => self.numeric.add(f64::from(v)),
                Scalar::F64(v) => self.numeric.add(v),
                Scalar::Bool(v) => self.bools[usize::from(v)] += 1,
                Scalar::Enum(v, name) => self.labels.add(v.into(), name),
            },
        }
    }

    fn merge(&mut self, other: &FeatureStats) {
        self.present = self.present.saturating_add(other.present);
        for i in 0..KINDS.len() {
            if let (Some(a), Some(b)) = (self.kinds.get_mut(i), other.kinds.get(i)) {
                *a = a.saturating_add(*b);
            }
            if let (Some(a), Some(b)) = (self.first_in.get_mut(i), other.first_in.get(i)) {
                *a = match (*a, *b) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                };
            }
        }
        self.values.merge(&other.values);
        self.steps.merge(&other.steps);
        self.numeric.merge(&other.numeric);
        self.bytes.merge(&other.bytes);
        if self.declared.is_none() {
            self.declared.clone_from(&other.declared);
        }
        self.bools[0] = self.bools[0].saturating_add(other.bools[0]);
        self.bools[1] = self.bools[1].saturating_add(other.bools[1]);
        self.labels.merge(&other.labels);
        match (&mut self.histogram, &other.histogram) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.histogram = Some(b.clone()),
            _ => {}
        }
    }
}

/// Fills the histogram of every numeric feature of `groups` from its quantile sketch, over the
/// range of that feature across all of them, so that groups share their buckets.
pub fn with_histograms(groups: &mut [(String, Stats)]) {
    let mut ranges: BTreeMap<FeatureKey, (f64, f64)> = BTreeMap::new();
    for (_, stats) in groups.iter() {
        for (key, feature) in &stats.features {
            if let Some((lo, hi)) = feature.numeric.range() {
                let range = ranges.entry(key.clone()).or_insert((lo, hi));
                *range = (range.0.min(lo), range.1.max(hi));
            }
        }
    }
    for (_, stats) in groups.iter_mut() {
        for (key, feature) in &mut stats.features {
            feature.histogram = ranges.get(key).map(|range| {
                let numeric = &feature.numeric;
                numeric.quantiles.histogram(*range, numeric.integral())
            });
        }
    }
}

/// Statistics of a set of records (a split, a file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Intact records read.
    pub records: u64,
    /// Damaged frames passed over.
    pub damaged: u64,
    /// Records per payload kind (`Example`, `SequenceExample`, `text`…).
    pub kinds: BTreeMap<String, u64>,
    /// The first [`MAX_FEATURES`] features by key.
    #[serde(with = "wire::pairs")]
    pub features: BTreeMap<FeatureKey, FeatureStats>,
    /// The features past those.
    pub folded: Folded,
    /// TensorBoard's events, per run and tag.
    pub events: events::Runs,
    /// A key whose buffer is reused to look features up, so that a record's features cost no
    /// allocation once they are known.
    #[serde(skip)]
    lookup: Scratch,
}

/// A lookup buffer: never part of what statistics are or compare equal by.
#[derive(Debug, Clone, Default)]
struct Scratch(FeatureKey);

impl PartialEq for Scratch {
    fn eq(&self, _: &Scratch) -> bool {
        true
    }
}

/// The message of a type the user's schema gave a payload is, when it is one.
fn user_message<'a>(
    decoded: &'a crate::payload::Decoded,
    payload: &'a [u8],
    decoder: &'a Decoder,
) -> Option<MessageView<'a>> {
    match decoded.kind {
        PayloadKind::Message(_) => decoded.typed(payload, decoder.table()),
        _ => None,
    }
}

/// The TensorBoard event a payload is, when it is one.
fn event_view<'a>(
    decoded: &'a crate::payload::Decoded,
    payload: &'a [u8],
    decoder: &'a Decoder,
) -> Option<MessageView<'a>> {
    let message = decoded.typed(payload, decoder.table())?;
    let full_name = decoder.table().message(message.id())?.full_name.as_ref();
    (full_name == "tensorflow.Event").then_some(message)
}

/// The Example or SequenceExample a payload is, when it is one.
fn example_view<'a>(
    decoded: &'a crate::payload::Decoded,
    payload: &'a [u8],
    decoder: &'a Decoder,
) -> Option<(MessageView<'a>, Section)> {
    let message = decoded.typed(payload, decoder.table())?;
    let full_name = decoder.table().message(message.id())?.full_name.as_ref();
    let section = match full_name {
        "tensorflow.Example" => Section::Features,
        "tensorflow.SequenceExample" => Section::Context,
        _ => return None,
    };
    Some((message, section))
}

impl Stats {
    /// Adds one record's payload, from `origin`.
    pub fn add_payload(&mut self, decoder: &Decoder, payload: &[u8], origin: &Origin<'_>) {
        self.records += 1;
        let decoded = decoder.decode(payload);
        match self.kinds.get_mut(decoded.kind.name()) {
            Some(count) => *count += 1,
            None => {
                self.kinds.insert(decoded.kind.name().to_string(), 1);
            }
        }
        if let Some(message) = user_message(&decoded, payload, decoder) {
            self.add_fields(&message, decoder);
            return;
        }
        if let Some(event) = event_view(&decoded, payload, decoder) {
            self.events.add(origin.run, &event);
            return;
        }
        let Some((message, section)) = example_view(&decoded, payload, decoder) else {
            return;
        };
        let member = origin.member;
        for feature in top_features(&message).iter() {
            let name = feature.name();
            let spec = match section {
                Section::Features => spec_of(origin.specs, &name),
                _ => None,
            };
            let Some(stats) = self.feature_mut(section, &name) else {
                let values = feature.values.len() as u64;
                self.folded.add(&self.lookup.0, 1, values);
                continue;
            };
            stats.present += 1;
            stats.values.add(feature.values.len() as u64);
            stats.add_values(&feature.values, member, spec);
        }
        for list in feature_lists_of(&message).iter() {
            let Some(stats) = self.feature_mut(Section::FeatureLists, &list.name()) else {
                let values = list.steps().map(|s| s.values.len() as u64).sum();
                self.folded.add(&self.lookup.0, 1, values);
                continue;
            };
            stats.present += 1;
            stats.steps.add(list.len() as u64);
            let mut values = 0u64;
            for step in list.steps() {
                values += step.values.len() as u64;
                stats.add_values(&step.values, member, None);
            }
            stats.values.add(values);
        }
    }

    /// Adds the fields of one message a schema describes, each under its path.
    fn add_fields(&mut self, message: &MessageView<'_>, decoder: &Decoder) {
        let table = decoder.table();
        let mut held = fields::Held::default();
        fields::walk(message, &mut |path, field, leaf| {
            held.add(path);
            let Some(stats) = self.feature_mut(Section::Fields, path) else {
                return;
            };
            if stats.declared.is_none() {
                stats.declared = Some(fields::declared(field, table));
            }
            stats.add_leaf(leaf);
        });
        for (path, count) in held.counts {
            match self.feature_mut(Section::Fields, &path) {
                Some(stats) => {
                    stats.present += 1;
                    stats.values.add(count);
                }
                None => self.folded.add(&self.lookup.0, 1, count),
            }
        }
    }

    /// The statistics of feature `name` of `section`, made when first met; `None` when it is
    /// folded (its key, in `self.lookup`, sorts after [`MAX_FEATURES`] others).
    fn feature_mut(&mut self, section: Section, name: &str) -> Option<&mut FeatureStats> {
        let key = &mut self.lookup.0;
        key.section = section;
        key.name.clear();
        key.name.push_str(name);
        if !self.features.contains_key(key) {
            let key = key.clone();
            self.track(key, FeatureStats::default())?;
        }
        self.features.get_mut(&self.lookup.0)
    }

    /// Adds `stats` of a feature not yet tracked, keeping the first [`MAX_FEATURES`] keys: the
    /// last is folded to make room for one before it; one after all of them is not added
    /// (`None`). A feature among the first anywhere is among them in every part of the records,
    /// so the features kept are summarised whole, however the records were split into chunks.
    fn track(&mut self, key: FeatureKey, stats: FeatureStats) -> Option<()> {
        if self.features.len() >= MAX_FEATURES {
            let last = self.features.last_key_value().map(|(k, _)| k)?;
            if key > *last {
                return None;
            }
            if let Some((last, dropped)) = self.features.pop_last() {
                self.folded.add(&last, dropped.present, dropped.values.sum);
            }
        }
        self.features.insert(key, stats);
        Some(())
    }

    pub fn merge(&mut self, other: &Stats) {
        self.records = self.records.saturating_add(other.records);
        self.damaged = self.damaged.saturating_add(other.damaged);
        for (kind, n) in &other.kinds {
            let count = self.kinds.entry(kind.clone()).or_default();
            *count = count.saturating_add(*n);
        }
        self.folded.merge(&other.folded);
        self.events.merge(&other.events);
        for (key, stats) in &other.features {
            match self.features.get_mut(key) {
                Some(mine) => mine.merge(stats),
                None => {
                    if self.track(key.clone(), stats.clone()).is_none() {
                        self.folded.add(key, stats.present, stats.values.sum);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{self, FeatureValue};
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;
    use std::collections::BTreeSet;

    #[test]
    fn class_names_are_kept_whole_or_cut_at_a_character_with_an_ellipsis() {
        let mut labels = Labelled::default();
        let long = "é".repeat(40);
        for (number, name) in [(3, Some("large")), (3, Some("large")), (-1, None)] {
            labels.add(number, name);
        }
        labels.add(i64::MAX, Some(&long));
        let top = labels.top(10);
        assert_eq!(top.first(), Some(&(3, Some("large"), 2)));
        assert!(top.contains(&(-1, None, 1)));
        let (_, cut, _) = top
            .iter()
            .find(|(n, _, _)| *n == i64::MAX)
            .copied()
            .unwrap_or_else(|| panic!("{top:?}"));
        assert_eq!(
            cut,
            Some(format!("{}…", "é".repeat(NAME_KEPT / 2)).as_str())
        );
        assert_eq!(labels.count, 4);
    }

    #[test]
    fn declared_bools_and_class_labels_change_what_is_counted() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let specs = FeatureSpecs::parse(
            br#"{"featuresDict": {"features": {
                "flag": {"tensor": {"dtype": "bool", "shape": {}}},
                "label": {"classLabel": {"numClasses": "2"}},
                "n": {"tensor": {"dtype": "int64", "shape": {}}}}}}"#,
            &mut |_| {
                let (labels, _) = crate::dataset::features::Labels::parse(b"cat\ndog\n");
                std::sync::Arc::new(labels)
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let origin = Origin {
            specs: Some(&specs),
            ..Origin::default()
        };
        let mut stats = Stats::default();
        for (flag, label) in [(0, 1), (1, 1), (5, 0)] {
            let payload = crafted::example(&[
                ("flag", FeatureValue::Ints(vec![flag])),
                ("label", FeatureValue::Ints(vec![label])),
                ("n", FeatureValue::Ints(vec![flag])),
            ]);
            stats.add_payload(&decoder, &payload, &origin);
        }
        let feature = |name: &str| {
            stats
                .features
                .get(&FeatureKey {
                    section: Section::Features,
                    name: name.into(),
                })
                .unwrap_or_else(|| panic!("no {name}"))
        };
        // Any value but 0 is true, as TensorFlow's cast to bool reads it.
        assert_eq!(feature("flag").bools, [1, 2]);
        assert_eq!(feature("flag").numeric.count, 0);
        assert_eq!(feature("flag").declared.as_deref(), Some("bool"));
        assert_eq!(
            feature("label").labels.top(2),
            [(1, Some("dog"), 2), (0, Some("cat"), 1)]
        );
        assert_eq!(feature("label").numeric.count, 3);
        assert_eq!(feature("n").bools, [0, 0]);
        assert_eq!(feature("n").numeric.count, 3);
        assert_eq!(feature("n").declared, None);
    }

    #[test]
    fn message_fields_past_the_cap_are_folded_into_other_fields() {
        let fields = MAX_FEATURES + 76;
        let declared: String = (1..=fields)
            .map(|i| format!("int32 f{i:05} = {i}; "))
            .collect();
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("wide.proto");
        let proto = format!("syntax = \"proto3\"; package w; message Wide {{ {declared} }}");
        std::fs::write(&path, proto).unwrap_or_else(|e| panic!("{e}"));
        let schema =
            Schema::with_user_protos(&[path], Some("w.Wide")).unwrap_or_else(|e| panic!("{e}"));
        let message = schema
            .user_message()
            .unwrap_or_else(|| panic!("no message"));
        let decoder = Decoder::new(schema, Reading::As(message));
        // Every field set to 1, in two records.
        let mut payload = Vec::new();
        for i in 1..=fields as u64 {
            let mut tag = i << 3;
            while tag >= 0x80 {
                payload.push((tag as u8) | 0x80);
                tag >>= 7;
            }
            payload.extend([tag as u8, 1]);
        }
        let mut stats = Stats::default();
        for _ in 0..2 {
            stats.add_payload(&decoder, &payload, &Origin::default());
        }
        assert_eq!(stats.kinds.get("w.Wide"), Some(&2));
        assert_eq!(stats.features.len(), MAX_FEATURES);
        assert!(stats.features.keys().all(|k| k.section == Section::Fields));
        let first = stats
            .features
            .values()
            .next()
            .unwrap_or_else(|| panic!("none"));
        assert_eq!((first.present, first.numeric.count), (2, 2));
        assert_eq!(first.declared.as_deref(), Some("int32"));
        assert_eq!(stats.folded.count(), (76, true));
        assert_eq!((stats.folded.present, stats.folded.values), (152, 152));
        let mut text = Vec::new();
        let figures = figures::StatsReport::new(&[("wide".into(), stats)], &[], &[], &[]);
        report::write_text(&figures, &mut text).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8_lossy(&text);
        assert!(
            text.starts_with(&format!(
                "wide: 2 records (2 w.Wide); 76 fields past the first {MAX_FEATURES} by name folded into \"other fields\"\n"
            )),
            "{}",
            text.lines().next().unwrap_or_default()
        );
        assert!(text.contains("\nother fields (past the first"), "{text}");
    }

    #[test]
    fn features_past_the_cap_are_folded_and_the_rest_summarised_whole() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let names = MAX_FEATURES + 700;
        // Each record holds 200 names from a pool larger than the cap, in no particular order,
        // and `a`, which every record holds.
        let records: Vec<Vec<String>> = (0..60)
            .map(|r| {
                let mut held: Vec<String> = (0..200)
                    .map(|i| format!("f{:05}", (r * 97 + i * 31) % names))
                    .collect();
                held.sort();
                held.dedup();
                held.push("a".into());
                held
            })
            .collect();
        let payloads: Vec<Vec<u8>> = records
            .iter()
            .map(|held| {
                let entries: Vec<(&str, FeatureValue)> = held
                    .iter()
                    .map(|n| (n.as_str(), FeatureValue::Ints(vec![1, 2])))
                    .collect();
                crafted::example(&entries)
            })
            .collect();
        let mut truth: BTreeMap<String, u64> = BTreeMap::new();
        for held in &records {
            for name in held {
                *truth.entry(name.clone()).or_default() += 1;
            }
        }
        let kept: BTreeSet<&String> = truth.keys().take(MAX_FEATURES).collect();
        let occurrences: u64 = truth.values().sum();

        let mut whole = Stats::default();
        for p in &payloads {
            whole.add_payload(&decoder, p, &Origin::default());
        }
        // In chunks of every size, merged in order, the same features are kept, each whole.
        for chunk in [1, 7, 60] {
            let mut merged = Stats::default();
            for part in payloads.chunks(chunk) {
                let mut one = Stats::default();
                for p in part {
                    one.add_payload(&decoder, p, &Origin::default());
                }
                merged.merge(&one);
            }
            for stats in [&whole, &merged] {
                let got: BTreeSet<&String> = stats.features.keys().map(|k| &k.name).collect();
                assert_eq!(got, kept, "chunks of {chunk}");
                for (key, feature) in &stats.features {
                    assert_eq!(Some(&feature.present), truth.get(&key.name), "{}", key.name);
                    assert_eq!(feature.values.sum, 2 * feature.present, "{}", key.name);
                }
                let tracked: u64 = stats.features.values().map(|f| f.present).sum();
                assert_eq!(stats.folded.present + tracked, occurrences);
                assert_eq!(stats.folded.values, 2 * stats.folded.present);
                assert_eq!(
                    stats.folded.count(),
                    ((truth.len() - MAX_FEATURES) as u64, true)
                );
            }
        }
    }
}
