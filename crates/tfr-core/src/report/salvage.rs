//! `salvage`'s account of a copy: which records were kept, which frames dropped, which bytes
//! skipped or passed over unverified, and what was written where.

use std::path::Path;

use serde::Serialize;

use super::{FrameFacts, NestedCount, ser};
use crate::recover::SalvagePlan;
use crate::source::Source;
use crate::span::FileRange;

/// Frames nested inside one dropped record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NestedIn {
    /// The dropped frame's index and offset.
    pub index: usize,
    pub offset: u64,
    #[serde(flatten)]
    pub found: NestedCount,
    /// The clause the text output gives.
    #[serde(skip)]
    pub description: String,
}

/// A compressed input's kind and the problem of its stream (`null` when it has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SalvagedStream {
    pub compression: &'static str,
    pub stream_problem: Option<String>,
    /// `GZIP`, as TensorFlow's `compression_type` names it.
    #[serde(skip)]
    pub tensorflow_name: &'static str,
}

/// What a salvage kept, dropped and wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SalvageReport {
    /// The input's and the output's names, escaped for JSON.
    pub input: String,
    pub output: String,
    pub kept: usize,
    pub dropped: usize,
    pub dropped_frames: Vec<FrameFacts>,
    #[serde(rename = "skipped_byte_ranges", serialize_with = "ser::ranges")]
    pub skipped: Vec<FileRange>,
    pub skipped_bytes: u64,
    pub nested: Vec<NestedIn>,
    pub nested_frames: usize,
    /// Nested frames written after the records (all of them with `--nested`, else none).
    pub nested_written: usize,
    #[serde(rename = "unverified_byte_ranges", serialize_with = "ser::ranges")]
    pub unverified: Vec<FileRange>,
    pub unverified_bytes: u64,
    /// Whether the resync searched without its work limit.
    pub thorough: bool,
    pub input_bytes: u64,
    pub bytes_written: u64,
    #[serde(flatten)]
    pub stream: Option<SalvagedStream>,
}

/// How a salvage was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SalvageOptions {
    /// Nested frames are written after the records.
    pub nested: bool,
    pub thorough: bool,
}

impl SalvageReport {
    /// The report on salvaging `source` (read from `input`) by `plan` into `output`, where
    /// `written` bytes went.
    pub fn new(
        (input, output): (&Path, &Path),
        source: &Source,
        plan: &SalvagePlan,
        options: SalvageOptions,
        written: u64,
    ) -> SalvageReport {
        let nested_frames = plan.nested_count();
        SalvageReport {
            input: crate::escape::path_for_json(input),
            output: crate::escape::path_for_json(output),
            kept: plan.kept.len(),
            dropped: plan.dropped.len(),
            dropped_frames: plan.dropped.iter().map(FrameFacts::of).collect(),
            skipped: plan.skipped.clone(),
            skipped_bytes: plan.skipped_bytes(),
            nested: plan
                .nested
                .iter()
                .map(|n| NestedIn {
                    index: n.parent.index,
                    offset: n.parent.offset.0,
                    found: NestedCount::of(n),
                    description: n.describe(),
                })
                .collect(),
            nested_frames,
            nested_written: if options.nested { nested_frames } else { 0 },
            unverified: plan.unverified.clone(),
            unverified_bytes: plan.unverified_bytes(),
            thorough: options.thorough,
            input_bytes: source.len(),
            bytes_written: written,
            stream: source.compression().map(|info| SalvagedStream {
                compression: info.compression.name(),
                stream_problem: info.problem.as_ref().map(ToString::to_string),
                tensorflow_name: info.compression.tensorflow_name(),
            }),
        }
    }

    /// Whether anything was lost: a dropped frame, skipped bytes or a damaged stream.
    pub fn damaged(&self) -> bool {
        self.dropped > 0
            || !self.skipped.is_empty()
            || self
                .stream
                .as_ref()
                .is_some_and(|s| s.stream_problem.is_some())
    }
}
