//! TensorBoard's events summarised as `tensorboard --inspect` does: per run (the directory of an
//! event file under the log directory) and per tag, how many values at which steps, what they are
//! (counted by the plugin that reads them), and for scalars the first, last, smallest and largest
//! value. Scalars are read as TensorBoard's `EventAccumulator` reads them: a TF1 `simple_value`
//! (the float32 widened to a double), or a TF2 tensor of no dimensions holding a real number.
//! Values come in file order, and chunks are merged in order, so first and last are the file's.
//! At most [`MAX_TAGS`] tags per run and [`MAX_RUNS`] runs are summarised, the rest counted.

use std::collections::BTreeMap;

use crate::decode::{MessageView, Scalar, Value};

/// Tags summarised per run: the first this many by name (as features are).
pub const MAX_TAGS: usize = super::MAX_FEATURES;
/// Runs summarised: the first this many by name.
pub const MAX_RUNS: usize = super::MAX_FEATURES;

/// One tag's scalars: the first and last (with their steps), the range, how many.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Series {
    pub count: u64,
    #[serde(with = "super::wire::step_value")]
    pub first: (i64, f64),
    #[serde(with = "super::wire::step_value")]
    pub last: (i64, f64),
    /// Of the values that are numbers (NaN aside); `None` when all are NaN.
    #[serde(with = "super::wire::opt_bits")]
    pub min: Option<f64>,
    #[serde(with = "super::wire::opt_bits")]
    pub max: Option<f64>,
    pub nan: u64,
}

impl Series {
    fn new(step: i64, value: f64) -> Series {
        let number = (!value.is_nan()).then_some(value);
        Series {
            count: 1,
            first: (step, value),
            last: (step, value),
            min: number,
            max: number,
            nan: u64::from(value.is_nan()),
        }
    }

    /// Adds `later`, whose values all came after these.
    fn merge(&mut self, later: &Series) {
        self.count = self.count.saturating_add(later.count);
        self.last = later.last;
        self.nan = self.nan.saturating_add(later.nan);
        self.min = pick(self.min, later.min, f64::min);
        self.max = pick(self.max, later.max, f64::max);
    }
}

fn pick(a: Option<f64>, b: Option<f64>, f: fn(f64, f64) -> f64) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, b) => a.or(b),
    }
}

/// One tag of a run.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tag {
    /// Values with this tag.
    pub count: u64,
    /// The smallest and largest step.
    pub steps: Option<(i64, i64)>,
    /// Values per plugin that reads them (`scalars`, `histograms`, `images`, `audio`, `text`…,
    /// TF1's values by the plugin TensorBoard gives them to); `""` for tensors without metadata,
    /// which TensorBoard gives to the plugin the tag's first metadata named.
    pub plugins: BTreeMap<String, u64>,
    /// The plugin the tag's first metadata names.
    pub plugin: Option<String>,
    pub scalars: Option<Series>,
}

impl Tag {
    fn add_step(&mut self, step: i64) {
        self.count += 1;
        self.steps = Some(match self.steps {
            Some((lo, hi)) => (lo.min(step), hi.max(step)),
            None => (step, step),
        });
    }

    fn merge(&mut self, later: &Tag) {
        self.count = self.count.saturating_add(later.count);
        self.steps = match (self.steps, later.steps) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (a, b) => a.or(b),
        };
        for (plugin, n) in &later.plugins {
            let count = self.plugins.entry(plugin.clone()).or_default();
            *count = count.saturating_add(*n);
        }
        if self.plugin.is_none() {
            self.plugin.clone_from(&later.plugin);
        }
        match (&mut self.scalars, &later.scalars) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.scalars = Some(*b),
            _ => {}
        }
    }

    /// Values per plugin, those without metadata given to the tag's plugin (or `tensor`).
    pub fn by_plugin(&self) -> BTreeMap<String, u64> {
        let mut by = BTreeMap::new();
        for (plugin, n) in &self.plugins {
            let name = match (plugin.as_str(), &self.plugin) {
                ("", Some(p)) => p.clone(),
                ("", None) => "tensor".to_string(),
                (p, _) => p.to_string(),
            };
            let count: &mut u64 = by.entry(name).or_default();
            *count = count.saturating_add(*n);
        }
        by
    }
}

/// One run: its events, what those that are not summaries hold, and its tags.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Run {
    pub events: u64,
    /// Events that hold no summary, by what they hold (`file_version`, `graph_def`,
    /// `session_log START`…), and summary values that hold no data ([`METADATA_ONLY`]).
    pub other: BTreeMap<String, u64>,
    /// The smallest and largest step of its summaries.
    pub steps: Option<(i64, i64)>,
    #[serde(with = "super::wire::pairs")]
    pub tags: BTreeMap<Vec<u8>, Tag>,
    /// Tags past the first [`MAX_TAGS`] by name: how many values they held.
    pub folded_values: u64,
    /// And their names (by hash: exact up to [`super::sketch::EXACT_DISTINCT`], then estimated).
    pub folded_tags: super::sketch::Distinct,
}

impl Run {
    fn tag_mut(&mut self, tag: &[u8]) -> Option<&mut Tag> {
        if !self.tags.contains_key(tag) && !self.make_room(tag) {
            self.fold(tag, 1);
            return None;
        }
        Some(self.tags.entry(tag.to_vec()).or_default())
    }

    /// Whether a tag not yet held may be added: there is room, or the last tag by name is
    /// folded to make it. A tag after all of [`MAX_TAGS`] others is folded.
    fn make_room(&mut self, tag: &[u8]) -> bool {
        if self.tags.len() < MAX_TAGS {
            return true;
        }
        let Some(last) = self.tags.last_key_value().map(|(k, _)| k.clone()) else {
            return true;
        };
        if tag > last.as_slice() {
            return false;
        }
        if let Some((last, dropped)) = self.tags.pop_last() {
            self.fold(&last, dropped.count);
        }
        true
    }

    fn fold(&mut self, tag: &[u8], values: u64) {
        self.folded_values = self.folded_values.saturating_add(values);
        self.folded_tags.insert(super::sketch::hash(tag));
    }

    fn add(&mut self, event: &MessageView<'_>) {
        self.events += 1;
        let step = crate::event::step_of(event);
        let Some(Value::Message(summary)) = singular(event, "summary") else {
            if let Some(what) = other_kind(event) {
                *self.other.entry(what).or_default() += 1;
            }
            return;
        };
        self.steps = Some(match self.steps {
            Some((lo, hi)) => (lo.min(step), hi.max(step)),
            None => (step, step),
        });
        for value in crate::event::value_messages(&summary) {
            // Counted with the run's other events, as `tags` counts it.
            if !holds_data(&value) {
                *self.other.entry(METADATA_ONLY.into()).or_default() += 1;
                continue;
            }
            let tag = crate::event::tag_of(&value);
            let (plugin, named, scalar) = read_value(&value);
            let Some(stats) = self.tag_mut(tag) else {
                continue;
            };
            stats.add_step(step);
            if named && stats.plugin.is_none() {
                stats.plugin = Some(plugin.clone());
            }
            *stats.plugins.entry(plugin).or_default() += 1;
            if let Some(x) = scalar {
                match &mut stats.scalars {
                    Some(series) => series.merge(&Series::new(step, x)),
                    None => stats.scalars = Some(Series::new(step, x)),
                }
            }
        }
    }

    fn merge(&mut self, later: &Run) {
        self.events = self.events.saturating_add(later.events);
        for (what, n) in &later.other {
            let count = self.other.entry(what.clone()).or_default();
            *count = count.saturating_add(*n);
        }
        self.steps = match (self.steps, later.steps) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (a, b) => a.or(b),
        };
        self.folded_values = self.folded_values.saturating_add(later.folded_values);
        self.folded_tags.merge(&later.folded_tags);
        for (name, tag) in &later.tags {
            match self.tags.get_mut(name) {
                Some(mine) => mine.merge(tag),
                None => {
                    if self.make_room(name) {
                        self.tags.insert(name.clone(), tag.clone());
                    } else {
                        self.fold(name, tag.count);
                    }
                }
            }
        }
    }
}

/// The fields of a summary value that hold data TensorBoard reads: its `value` oneof, less
/// `obsolete_old_style_histogram`, which `EventAccumulator` reads as no value of its tag.
const VALUE_FIELDS: [&str; 5] = ["simple_value", "image", "histo", "audio", "tensor"];

/// What a run's other events count summary values without data as.
pub const METADATA_ONLY: &str = "summary metadata without a value";

/// Whether a summary value holds data. One with metadata alone (tensorboardX writes hparams so)
/// is no value of its tag to TensorBoard's `event_accumulator.EventAccumulator` (the one `tags`
/// is checked against); the server's `plugin_event_accumulator` would count it as an empty
/// tensor.
pub(crate) fn holds_data(value: &MessageView<'_>) -> bool {
    VALUE_FIELDS.iter().any(|f| singular(value, f).is_some())
}

/// What a summary value is for: the plugin name (TF1's fields by the plugin TensorBoard gives
/// them to), whether its metadata named it, and its scalar when it is one.
pub(crate) fn read_value(value: &MessageView<'_>) -> (String, bool, Option<f64>) {
    if let Some(Value::Scalar(Scalar::F32(x))) = singular(value, "simple_value") {
        return ("scalars".into(), true, Some(f64::from(x)));
    }
    for (field, plugin) in [
        ("histo", "histograms"),
        ("image", "images"),
        ("audio", "audio"),
    ] {
        if singular(value, field).is_some() {
            return (plugin.into(), true, None);
        }
    }
    let plugin = plugin_name(value);
    let named = plugin.is_some();
    let plugin = plugin.unwrap_or_default();
    let Some(Value::Message(tensor)) = singular(value, "tensor") else {
        return (plugin, named, None);
    };
    let info = crate::tensor::read(&tensor);
    let scalar = match &info.tensor {
        Ok(t) if t.shape().is_empty() => t.get(0).and_then(|e| e.as_f64()),
        _ => None,
    };
    (plugin, named, scalar)
}

/// The plugin a TF2 summary value's metadata names.
fn plugin_name(value: &MessageView<'_>) -> Option<String> {
    let Some(Value::Message(metadata)) = singular(value, "metadata") else {
        return None;
    };
    let Some(Value::Message(plugin)) = singular(&metadata, "plugin_data") else {
        return None;
    };
    match singular(&plugin, "plugin_name") {
        Some(Value::String(name, _)) => Some(String::from_utf8_lossy(name).into_owned()),
        _ => None,
    }
}

/// What an event that holds no summary holds.
pub(crate) fn other_kind(event: &MessageView<'_>) -> Option<String> {
    for name in [
        "file_version",
        "graph_def",
        "meta_graph_def",
        "tagged_run_metadata",
        "log_message",
    ] {
        if singular(event, name).is_some() {
            return Some(name.to_string());
        }
    }
    let Some(Value::Message(log)) = singular(event, "session_log") else {
        return None;
    };
    Some(match singular(&log, "status") {
        Some(Value::Scalar(Scalar::Enum(_, Some(status)))) => format!("session_log {status}"),
        _ => "session_log STATUS_UNSPECIFIED".into(),
    })
}

pub(crate) fn singular<'a>(message: &MessageView<'a>, name: &str) -> Option<Value<'a>> {
    message.field(name).and_then(|f| f.singular())
}

/// Every run's summary.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Runs {
    pub runs: BTreeMap<String, Run>,
    /// Events of runs past the first [`MAX_RUNS`] by name.
    pub folded_events: u64,
}

impl Runs {
    /// Adds one event of run `run`.
    pub fn add(&mut self, run: &str, event: &MessageView<'_>) {
        if !self.runs.contains_key(run) && !self.make_room(run) {
            self.folded_events += 1;
            return;
        }
        self.runs.entry(run.to_string()).or_default().add(event);
    }

    fn make_room(&mut self, run: &str) -> bool {
        if self.runs.len() < MAX_RUNS {
            return true;
        }
        match self.runs.last_key_value() {
            Some((last, _)) if run > last.as_str() => false,
            _ => {
                if let Some((_, dropped)) = self.runs.pop_last() {
                    self.folded_events = self.folded_events.saturating_add(dropped.events);
                }
                true
            }
        }
    }

    /// Adds `later`, whose events all came after these.
    pub fn merge(&mut self, later: &Runs) {
        self.folded_events = self.folded_events.saturating_add(later.folded_events);
        for (name, run) in &later.runs {
            match self.runs.get_mut(name) {
                Some(mine) => mine.merge(run),
                None => {
                    if self.make_room(name) {
                        self.runs.insert(name.clone(), run.clone());
                    } else {
                        self.folded_events = self.folded_events.saturating_add(run.events);
                    }
                }
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.folded_events == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::length_delimited;
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;

    /// `Event { step, summary { value { tag, <what> } } }`.
    fn event(step: u8, tag: &str, what: &[u8]) -> Vec<u8> {
        let value = [length_delimited(1, tag.as_bytes()), what.to_vec()].concat();
        let summary = length_delimited(1, &value);
        [vec![0x10, step], length_delimited(5, &summary)].concat()
    }

    fn simple(x: f32) -> Vec<u8> {
        [vec![0x15], x.to_le_bytes().to_vec()].concat()
    }

    /// A float32 scalar tensor, with metadata naming `plugin` when given.
    fn tensor(x: f32, plugin: Option<&str>) -> Vec<u8> {
        let tensor = [vec![0x08, 0x01, 0x12, 0x00, 0x2d], x.to_le_bytes().to_vec()].concat();
        let metadata = plugin.map_or(Vec::new(), |p| {
            length_delimited(9, &length_delimited(1, &length_delimited(1, p.as_bytes())))
        });
        [metadata, length_delimited(8, &tensor)].concat()
    }

    fn runs_of(events: &[Vec<u8>], chunk: usize) -> Runs {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let table = decoder.table();
        let id = decoder
            .schema
            .message("tensorflow.Event")
            .unwrap_or_else(|| panic!("no Event"));
        let mut all = Runs::default();
        for part in events.chunks(chunk) {
            let mut one = Runs::default();
            for payload in part {
                let tree = crate::wire::walk(payload, table, Some(id));
                let parsed = crate::decode::Parsed::new(&tree, payload, table);
                let view = parsed.root().unwrap_or_else(|| panic!("no root"));
                one.add("run", &view);
            }
            all.merge(&one);
        }
        all
    }

    #[test]
    fn scalars_keep_file_order_whatever_the_chunks() {
        let values = [0.5f32, 2.0, f32::NAN, -1.0, 0.25];
        let events: Vec<Vec<u8>> = values
            .iter()
            .enumerate()
            .map(|(i, x)| event(i as u8 + 1, "loss", &simple(*x)))
            .collect();
        for chunk in [1, 2, 5] {
            let runs = runs_of(&events, chunk);
            let tag = &runs.runs["run"].tags[&b"loss".to_vec()];
            assert_eq!(tag.count, 5);
            assert_eq!(tag.steps, Some((1, 5)));
            let s = tag.scalars.unwrap_or_else(|| panic!("no scalars"));
            assert_eq!((s.count, s.nan), (5, 1));
            assert_eq!(s.first, (1, 0.5));
            assert_eq!(s.last, (5, 0.25));
            assert_eq!((s.min, s.max), (Some(-1.0), Some(2.0)));
            assert_eq!(tag.by_plugin(), BTreeMap::from([("scalars".into(), 5)]));
        }
    }

    #[test]
    fn tensors_without_metadata_go_to_the_plugin_the_tag_first_named() {
        let events = vec![
            event(0, "acc", &tensor(0.1, Some("scalars"))),
            event(1, "acc", &tensor(0.2, None)),
            event(2, "raw", &tensor(7.0, None)),
        ];
        for chunk in [1, 3] {
            let runs = runs_of(&events, chunk);
            let run = &runs.runs["run"];
            let acc = &run.tags[&b"acc".to_vec()];
            assert_eq!(acc.by_plugin(), BTreeMap::from([("scalars".into(), 2)]));
            let s = acc.scalars.unwrap_or_else(|| panic!("no scalars"));
            // Widened from float32, as EventAccumulator gives them.
            assert_eq!(s.last, (1, f64::from(0.2f32)));
            let raw = &run.tags[&b"raw".to_vec()];
            assert_eq!(raw.by_plugin(), BTreeMap::from([("tensor".into(), 1)]));
        }
    }

    #[test]
    fn values_without_data_tensorboard_reads_are_the_run_s_other_events() {
        // Metadata alone (tensorboardX's hparams), a TF0 histogram string, and a scalar of zero.
        let hparams = length_delimited(1, &length_delimited(1, b"hparams"));
        let events = vec![
            event(0, "_hparams_/experiment", &length_delimited(9, &hparams)),
            event(1, "old", &length_delimited(3, b"histogram")),
            event(2, "loss", &simple(0.0)),
        ];
        for chunk in [1, 3] {
            let runs = runs_of(&events, chunk);
            let run = &runs.runs["run"];
            assert_eq!(run.tags.keys().collect::<Vec<_>>(), [b"loss"]);
            assert_eq!(run.other, BTreeMap::from([(METADATA_ONLY.into(), 2)]));
        }
    }

    #[test]
    fn tags_past_the_cap_are_counted_not_summarised() {
        let events: Vec<Vec<u8>> = (0..MAX_TAGS + 10)
            .rev()
            .map(|i| event(1, &format!("t{i:05}"), &simple(1.0)))
            .collect();
        for chunk in [7, MAX_TAGS + 10] {
            let runs = runs_of(&events, chunk);
            let run = &runs.runs["run"];
            assert_eq!(run.tags.len(), MAX_TAGS);
            assert_eq!(
                run.tags.keys().last().map(Vec::as_slice),
                Some(format!("t{:05}", MAX_TAGS - 1).as_bytes())
            );
            assert_eq!(run.folded_values, 10);
            assert_eq!(run.folded_tags.count(), (10, true));
        }
    }
}
