//! `list`: one line per frame.
//!
//! Frames nested inside a damaged record (a record holding a TFRecord stream) are not rows: the
//! damaged record's row says how many it holds and where.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::records::{Outcome, render_in_order};
use super::{Status, report_unusable};
use crate::input::{Input, OpenOptions};
use crate::jsonformat::Json;
use crate::nested::NestedFrames;
use crate::summary::{FrameRow, describe_frame_with, row_json};
use crate::words::plural;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// TFRecord files to list.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per frame instead of a table.
    #[arg(long)]
    pub json: bool,
}

fn verdict(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "ok",
        Some(false) => "BAD",
        None => "-",
    }
}

/// One output line for a frame: a JSON object or a table row. `nested` lists the frames inside a
/// damaged record, already described in its summary.
fn row_line(file: &str, row: &FrameRow, nested: Option<&NestedFrames>, json: bool) -> String {
    if json {
        let mut object = row_json(file, row);
        if let (Json::Object(members), Some(nested)) = (&mut object, nested) {
            members.push(("nested_frames".into(), nested.to_json()));
        }
        return object.to_string_sorted();
    }
    let f = &row.frame;
    let kind = row.kind.as_ref().map_or(f.status.name(), |k| k.name());
    let length = f.declared_length.map_or("-".to_string(), |l| l.to_string());
    format!(
        "{:>7}  {:>12}  {:>10}  {:<7}  {:<8}  {:<18}  {}",
        f.index,
        f.offset,
        length,
        verdict(f.status.length_crc_ok()),
        verdict(f.status.data_crc_ok()),
        kind,
        row.summary
    )
}

pub fn run(args: &ListArgs, open: &OpenOptions, out: &mut impl Write) -> Result<Status> {
    let mut status = Status::Clean;
    let files = super::glob::expand(&args.files);
    for path in &files {
        let mut input = match Input::open(path, open) {
            Ok(input) => input,
            Err(e) => {
                status = status.max(report_unusable(&e));
                continue;
            }
        };
        let name = input.name();
        // JSON escapes what it holds itself.
        let json_name = input.source.path().display().to_string();
        if !args.json {
            if files.len() > 1 {
                writeln!(out, "== {name}")?;
            }
            writeln!(
                out,
                "{:>7}  {:>12}  {:>10}  {:<7}  {:<8}  {:<18}  summary",
                "index", "offset", "length", "len-crc", "data-crc", "kind"
            )?;
        }
        let mut intact = 0usize;
        let outcome = render_in_order(
            &mut input,
            0,
            None,
            |input, decoder, frame| {
                let mut row = describe_frame_with(input, decoder, frame);
                let nested = NestedFrames::find(&input.index, input.data(), &frame);
                if let Some(nested) = &nested {
                    row.summary = format!("{}; {}", row.summary, nested.describe());
                }
                let line = row_line(&json_name, &row, nested.as_ref(), args.json);
                (frame.status.is_intact(), line)
            },
            |_, (is_intact, line)| {
                intact += usize::from(is_intact);
                writeln!(out, "{line}")
            },
        )?;
        if let Outcome::Changed(e) = outcome {
            status = status.max(report_unusable(&e));
            continue;
        }
        let damaged = input.index.damaged_count();
        let compression = input.source.compression();
        let stream_problem = compression.and_then(|c| c.problem.as_ref());
        if !args.json {
            let compressed = compression
                .map(|c| format!("{}; ", c.describe(input.source.len())))
                .unwrap_or_default();
            writeln!(
                out,
                "{name}: {compressed}{}, {intact} intact, {damaged} damaged, {}{}",
                plural(input.index.len() as u64, "frame"),
                plural(input.source.len(), "byte"),
                if compression.is_some() {
                    " decompressed"
                } else {
                    ""
                }
            )?;
        }
        if let Some(tail) = compression.and_then(|c| c.ignored.as_ref()) {
            eprintln!("{name}: note: {tail}");
        }
        if let Some(note) = crate::damage::unverified(&input.index) {
            eprintln!("{name}: note: {note}; verify --thorough searches them");
        }
        if let Some(problem) = stream_problem {
            // Frames decoded before the damage are listed above; the stream itself is damaged.
            eprintln!("{name}: compressed stream damaged: {problem}");
            status = status.max(Status::Damage);
        }
        if damaged > 0 {
            status = status.max(Status::Damage);
        }
    }
    Ok(status)
}
