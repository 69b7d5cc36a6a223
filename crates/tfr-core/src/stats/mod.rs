//! Per-feature statistics of Example and SequenceExample records, the questions people otherwise
//! ask TensorFlow Data Validation: how often each feature is present, of which kind (and where
//! the kind changes), how many values a record holds, the range, mean, spread and histogram of its
//! numbers, the lengths, distinct count and most frequent values of its strings, and the formats
//! and sizes of its images.
//!
//! Every summary takes constant space per feature (see [`sketch`] and [`numeric`]) and merges,
//! and at most [`MAX_FEATURES`] features are summarised per split (the rest are counted in
//! [`Folded`]), so shards are summarised on all cores and combined ([`run`]) in memory that does
//! not grow with the records or the names they use; histograms take a second pass,
//! over the range the first one found across all splits, so that splits can be compared bucket by
//! bucket ([`report`] flags the features whose kind or distribution differs between splits).

pub mod numeric;
pub mod report;
pub mod run;
pub mod sketch;

use std::collections::BTreeMap;

use crate::decode::MessageView;
use crate::example::{FeatureKind, FeatureValues, feature_lists_of, top_features};
use crate::payload::Decoder;
use numeric::{Histogram, Numeric, PerRecord};
use sketch::{Distinct, Frequent};

/// Where in a record a feature lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    /// An Example's `features`.
    #[default]
    Features,
    /// A SequenceExample's `context`.
    Context,
    /// A SequenceExample's `feature_lists`: one value list per step.
    FeatureLists,
}

impl Section {
    pub fn name(self) -> &'static str {
        match self {
            Section::Features => "features",
            Section::Context => "context",
            Section::FeatureLists => "feature_lists",
        }
    }
}

/// A feature's place and name.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FeatureKey {
    pub section: Section,
    pub name: String,
}

impl FeatureKey {
    /// `label`, `context/fps`, `feature_lists/frame/embedding`.
    pub fn shown(&self) -> String {
        match self.section {
            Section::Features => self.name.clone(),
            other => format!("{}/{}", other.name(), self.name),
        }
    }

    /// [`FeatureKey::shown`] for a terminal: escaped, an empty name `""`.
    pub fn shown_text(&self) -> String {
        let name = crate::escape::name_for_terminal(self.name.as_bytes());
        match self.section {
            Section::Features => name.into_owned(),
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
#[derive(Debug, Clone, Default, PartialEq)]
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
        self.present += present;
        self.values += values;
    }

    fn merge(&mut self, other: &Folded) {
        self.names.merge(&other.names);
        self.present += other.present;
        self.values += other.values;
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
            self.count - self.without_size,
            other.count - other.without_size,
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
        self.count += other.count;
        self.without_size += other.without_size;
    }
}

/// The values of a bytes feature.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BytesStats {
    /// Value lengths in bytes.
    pub lengths: Numeric,
    pub distinct: Distinct,
    pub frequent: Frequent,
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

/// Everything known about one feature over the records read.
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// Filled by the second pass, over the range of every split.
    pub histogram: Option<Histogram>,
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

    fn add_values(&mut self, values: &FeatureValues<'_>, member: usize) {
        let slot = kind_slot(values.kind());
        if let Some(n) = self.kinds.get_mut(slot) {
            *n += 1;
        }
        if let Some(first) = self.first_in.get_mut(slot) {
            *first = Some(first.map_or(member, |f| f.min(member)));
        }
        match values.kind() {
            FeatureKind::Float => values.floats().for_each(|v| self.numeric.add(f64::from(v))),
            FeatureKind::Int64 => values.ints().for_each(|v| self.numeric.add_int(v)),
            FeatureKind::Bytes => values.bytes().for_each(|(v, _)| self.bytes.add(v)),
            FeatureKind::Empty => {}
        }
    }

    fn merge(&mut self, other: &FeatureStats) {
        self.present += other.present;
        for i in 0..KINDS.len() {
            if let (Some(a), Some(b)) = (self.kinds.get_mut(i), other.kinds.get(i)) {
                *a += b;
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
        match (&mut self.histogram, &other.histogram) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.histogram = Some(b.clone()),
            _ => {}
        }
    }
}

/// Statistics of a set of records (a split, a file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Intact records read.
    pub records: u64,
    /// Damaged frames passed over.
    pub damaged: u64,
    /// Records per payload kind (`Example`, `SequenceExample`, `text`…).
    pub kinds: BTreeMap<String, u64>,
    /// The first [`MAX_FEATURES`] features by key.
    pub features: BTreeMap<FeatureKey, FeatureStats>,
    /// The features past those.
    pub folded: Folded,
    /// A key whose buffer is reused to look features up, so that a record's features cost no
    /// allocation once they are known.
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
    /// Adds one record's payload, found in member `member`.
    pub fn add_payload(&mut self, decoder: &Decoder, payload: &[u8], member: usize) {
        self.records += 1;
        let decoded = decoder.decode(payload);
        match self.kinds.get_mut(decoded.kind.name()) {
            Some(count) => *count += 1,
            None => {
                self.kinds.insert(decoded.kind.name().to_string(), 1);
            }
        }
        let Some((message, section)) = example_view(&decoded, payload, decoder) else {
            return;
        };
        for feature in top_features(&message).iter() {
            let Some(stats) = self.feature_mut(section, &feature.name()) else {
                let values = feature.values.len() as u64;
                self.folded.add(&self.lookup.0, 1, values);
                continue;
            };
            stats.present += 1;
            stats.values.add(feature.values.len() as u64);
            stats.add_values(&feature.values, member);
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
                stats.add_values(&step.values, member);
            }
            stats.values.add(values);
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

    /// Adds one record's numbers to the histograms of the features `ranges` names.
    pub fn add_to_histograms(
        &mut self,
        decoder: &Decoder,
        payload: &[u8],
        ranges: &BTreeMap<FeatureKey, (f64, f64)>,
    ) {
        let decoded = decoder.decode(payload);
        let Some((message, section)) = example_view(&decoded, payload, decoder) else {
            return;
        };
        let mut add = |key: FeatureKey, values: &FeatureValues<'_>| {
            let Some((low, high)) = ranges.get(&key) else {
                return;
            };
            let stats = self.features.entry(key).or_default();
            let histogram = stats
                .histogram
                .get_or_insert_with(|| Histogram::new(*low, *high));
            match values.kind() {
                FeatureKind::Float => values.floats().for_each(|v| histogram.add(f64::from(v))),
                FeatureKind::Int64 => values.ints().for_each(|v| histogram.add(v as f64)),
                _ => {}
            }
        };
        for feature in top_features(&message).iter() {
            let name = feature.name().into_owned();
            add(FeatureKey { section, name }, &feature.values);
        }
        for list in feature_lists_of(&message).iter() {
            for step in list.steps() {
                let name = list.name().into_owned();
                add(
                    FeatureKey {
                        section: Section::FeatureLists,
                        name,
                    },
                    &step.values,
                );
            }
        }
    }

    pub fn merge(&mut self, other: &Stats) {
        self.records += other.records;
        self.damaged += other.damaged;
        for (kind, n) in &other.kinds {
            *self.kinds.entry(kind.clone()).or_default() += n;
        }
        self.folded.merge(&other.folded);
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
            whole.add_payload(&decoder, p, 0);
        }
        // In chunks of every size, merged in order, the same features are kept, each whole.
        for chunk in [1, 7, 60] {
            let mut merged = Stats::default();
            for part in payloads.chunks(chunk) {
                let mut one = Stats::default();
                for p in part {
                    one.add_payload(&decoder, p, 0);
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
