//! `tags`' result: per run (the directory of event files, as TensorBoard names it) each summary
//! tag with its kind, how many values, the first and last step, the step and wall-time ranges,
//! and the steps that went back (a restarted job writes steps it wrote before), as
//! `tensorboard --inspect` shows them and as TensorBoard's `EventAccumulator` reads the files:
//! every value kept, in file order, the files of a run in name order.
//!
//! A value's kind is the plugin that reads it: TF1's `simple_value`, `histo`, `image` and `audio`
//! are `scalar`, `histogram`, `image`, `audio`; a TF2 tensor summary is named by the plugin its
//! tag's first metadata names (`scalars` is `scalar`, `text`, `hparams`, `pr_curves`…), `tensor`
//! when none does. A value with metadata and no data (tensorboardX writes hparams so) is no value
//! of its tag, as `EventAccumulator` reads it; such values are counted per run. At most [`MAX_TAGS`] tags per run are followed; the values of the rest are
//! counted.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::decode::MessageView;
use crate::frame::FrameIndex;
use crate::payload::Decoder;
use crate::source::{ReadOptions, Source};
use crate::stats::events::{holds_data, other_kind, read_value, singular};

/// Tags followed per run (the first met).
pub const MAX_TAGS: usize = crate::stats::MAX_FEATURES;
/// Steps that went back, named per tag; the rest are counted.
pub const NAMED_BACKWARDS: usize = 10;

pub use crate::stats::events::METADATA_ONLY;

/// One tag of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TagLine {
    /// The tag's bytes as text (bytes that are not UTF-8 replaced).
    pub tag: String,
    /// `scalar`, `histogram`, `image`, `audio`, `text`, `hparams`, `tensor`… (see the module).
    pub kind: String,
    pub count: u64,
    pub first_step: i64,
    pub last_step: i64,
    pub min_step: i64,
    pub max_step: i64,
    /// The earliest and latest wall time, in seconds since the epoch.
    pub first_wall_time: f64,
    pub last_wall_time: f64,
    /// Values whose step is smaller than the value before them.
    pub out_of_order: u64,
    /// The first [`NAMED_BACKWARDS`] of those: the step before, and the step.
    pub backwards: Vec<(i64, i64)>,
}

/// What is known of a tag while the events are read.
#[derive(Debug, Clone)]
struct Following {
    line: TagLine,
    /// The plugin the tag's first metadata named, and the values by plugin ("" unnamed).
    named: Option<String>,
    plugins: BTreeMap<String, u64>,
}

impl Following {
    fn new(tag: String, step: i64, wall: f64) -> Following {
        Following {
            line: TagLine {
                tag,
                kind: String::new(),
                count: 0,
                first_step: step,
                last_step: step,
                min_step: step,
                max_step: step,
                first_wall_time: wall,
                last_wall_time: wall,
                out_of_order: 0,
                backwards: Vec::new(),
            },
            named: None,
            plugins: BTreeMap::new(),
        }
    }

    fn add(&mut self, step: i64, wall: f64) {
        let line = &mut self.line;
        if line.count > 0 && step < line.last_step {
            line.out_of_order = line.out_of_order.saturating_add(1);
            if line.backwards.len() < NAMED_BACKWARDS {
                line.backwards.push((line.last_step, step));
            }
        }
        line.count = line.count.saturating_add(1);
        line.last_step = step;
        line.min_step = line.min_step.min(step);
        line.max_step = line.max_step.max(step);
        line.first_wall_time = line.first_wall_time.min(wall);
        line.last_wall_time = line.last_wall_time.max(wall);
    }

    /// The kind of the tag: the plugin of most of its values, unnamed ones given to the plugin its
    /// first metadata named.
    fn finish(mut self) -> TagLine {
        let mut by: BTreeMap<String, u64> = BTreeMap::new();
        for (plugin, n) in &self.plugins {
            let name = match (plugin.as_str(), &self.named) {
                ("", Some(p)) => p.clone(),
                ("", None) => String::new(),
                (p, _) => p.to_string(),
            };
            *by.entry(name).or_default() += n;
        }
        let plugin = by
            .iter()
            .max_by_key(|(name, n)| (**n, std::cmp::Reverse((*name).clone())))
            .map(|(name, _)| name.clone())
            .unwrap_or_default();
        self.line.kind = kind_of(&plugin);
        self.line
    }
}

/// A plugin's name as the kind of value it reads.
fn kind_of(plugin: &str) -> String {
    match plugin {
        "" => "tensor",
        "scalars" => "scalar",
        "histograms" => "histogram",
        "images" => "image",
        "audio" => "audio",
        "text" => "text",
        "hparams" => "hparams",
        "pr_curves" => "pr_curve",
        "mesh" => "mesh",
        other => other,
    }
    .to_string()
}

/// One run: its events and its tags.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunTags {
    pub run: String,
    /// Event files read.
    pub files: u64,
    pub events: u64,
    /// Events that hold no summary, by what they hold (`file_version`, `graph_def`…), and summary
    /// values that hold no data ([`METADATA_ONLY`]).
    pub other: BTreeMap<String, u64>,
    /// By tag.
    pub tags: Vec<TagLine>,
    /// Values of tags past the first [`MAX_TAGS`]: counted, not followed.
    pub left_out: u64,
}

/// A damaged frame passed over, or a file that could not be read (the same as a spec's).
pub use super::feature_spec::Skipped;

/// Every run's tags, and what was passed over.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TagsReport {
    pub runs: Vec<RunTags>,
    /// Intact records that are no Event.
    pub not_events: u64,
    /// Damaged frames and streams passed over.
    pub damaged: u64,
    #[serde(skip)]
    pub skipped: Vec<Skipped>,
    #[serde(skip)]
    pub unreadable: u64,
}

/// A run while its files are read.
#[derive(Default)]
struct Reading {
    run: RunTags,
    tags: BTreeMap<Vec<u8>, Following>,
}

impl TagsReport {
    /// Reads `files` in order, each in the run `runs` names it in; keeps the tags `only` names
    /// (every tag when it is empty).
    pub fn read(
        files: &[PathBuf],
        runs: &[String],
        only: &[String],
        decoder: &Decoder,
        options: &ReadOptions,
    ) -> TagsReport {
        let mut report = TagsReport::default();
        let mut reading: BTreeMap<String, Reading> = BTreeMap::new();
        for (path, run) in files.iter().zip(runs) {
            let state = reading.entry(run.clone()).or_default();
            state.run.files += 1;
            report.file(path, state, only, decoder, options);
        }
        report.runs = reading
            .into_iter()
            .map(|(name, state)| {
                let mut run = state.run;
                run.run = name;
                run.tags = state.tags.into_values().map(Following::finish).collect();
                run
            })
            .collect();
        report
    }

    fn file(
        &mut self,
        path: &std::path::Path,
        state: &mut Reading,
        only: &[String],
        base: &Decoder,
        options: &ReadOptions,
    ) {
        let skip = |record, why: String| Skipped {
            file: path.to_path_buf(),
            record,
            why,
        };
        let source = match Source::open(path, options) {
            Ok(source) => source,
            Err(e) => {
                self.unreadable += 1;
                self.skipped.push(skip(None, e.to_string()));
                return;
            }
        };
        let index = FrameIndex::build(&source);
        let decoder = crate::stats::run::learnt(base, &source, &index);
        let data = &source;
        for frame in (0..index.len()).map_while(|f| index.get(data, f)) {
            let Some(payload) = frame.payload(data).filter(|_| frame.status.is_intact()) else {
                self.damaged = self.damaged.saturating_add(1);
                let why = format!("skipped: {}", frame.status.name().replace('_', " "));
                self.skipped
                    .push(skip(Some((frame.index, frame.offset.0)), why));
                continue;
            };
            let decoded = decoder.decode(payload);
            let event = decoded.typed(payload, decoder.table()).filter(|m| {
                decoder
                    .table()
                    .message(m.id())
                    .is_some_and(|t| t.full_name.as_ref() == "tensorflow.Event")
            });
            match event {
                Some(event) => state.add(&event, only),
                None => self.not_events = self.not_events.saturating_add(1),
            }
        }
        if let Some(problem) = source.compression().and_then(|c| c.problem.as_ref()) {
            self.damaged = self.damaged.saturating_add(1);
            self.skipped.push(skip(
                None,
                format!("{}: {problem}", crate::escape::path_for_terminal(path)),
            ));
        }
        if let Err(e) = source.check_unchanged() {
            self.unreadable += 1;
            self.skipped.push(skip(None, e.to_string()));
        }
    }
}

impl Reading {
    fn add(&mut self, event: &MessageView<'_>, only: &[String]) {
        self.run.events += 1;
        let step = crate::event::step_of(event);
        let wall = crate::event::wall_time_of(event);
        let Some(crate::decode::Value::Message(summary)) = singular(event, "summary") else {
            if let Some(what) = other_kind(event) {
                *self.run.other.entry(what).or_default() += 1;
            }
            return;
        };
        for value in crate::event::value_messages(&summary) {
            let tag = crate::event::tag_of(&value);
            if !only.is_empty() && !only.iter().any(|t| t.as_bytes() == tag) {
                continue;
            }
            // As `EventAccumulator` does, a value without data (metadata alone, as tensorboardX
            // writes hparams) is no value of its tag; it is counted with the run's other events.
            if !holds_data(&value) {
                *self.run.other.entry(METADATA_ONLY.into()).or_default() += 1;
                continue;
            }
            let (plugin, named, _) = read_value(&value);
            if !self.tags.contains_key(tag) {
                if self.tags.len() >= MAX_TAGS {
                    self.run.left_out = self.run.left_out.saturating_add(1);
                    continue;
                }
                let name = String::from_utf8_lossy(tag).into_owned();
                self.tags
                    .insert(tag.to_vec(), Following::new(name, step, wall));
            }
            let Some(following) = self.tags.get_mut(tag) else {
                continue;
            };
            following.add(step, wall);
            if named && following.named.is_none() {
                following.named = Some(plugin.clone());
            }
            *following.plugins.entry(plugin).or_default() += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_that_go_back_are_counted_and_the_first_named() {
        let mut tag = Following::new("loss".into(), 0, 10.0);
        for (step, wall) in [
            (0, 10.0),
            (1, 11.0),
            (2, 12.0),
            (1, 13.0),
            (2, 14.0),
            (0, 15.0),
        ] {
            tag.add(step, wall);
        }
        tag.plugins.insert("scalars".into(), 6);
        let line = tag.finish();
        assert_eq!(line.kind, "scalar");
        assert_eq!((line.count, line.first_step, line.last_step), (6, 0, 0));
        assert_eq!((line.min_step, line.max_step), (0, 2));
        assert_eq!((line.first_wall_time, line.last_wall_time), (10.0, 15.0));
        assert_eq!(line.out_of_order, 2);
        assert_eq!(line.backwards, [(2, 1), (2, 0)]);
    }

    #[test]
    fn unnamed_values_take_the_plugin_the_first_metadata_named() {
        let mut tag = Following::new("t".into(), 0, 0.0);
        tag.named = Some("text".into());
        tag.plugins.insert(String::new(), 3);
        tag.plugins.insert("text".into(), 1);
        assert_eq!(tag.clone().finish().kind, "text");
        tag.named = None;
        assert_eq!(tag.finish().kind, "tensor");
    }
}
