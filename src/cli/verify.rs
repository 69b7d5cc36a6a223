//! `verify`: both CRCs of every frame, and that the file ends on a frame boundary.
//!
//! Files are checked in parallel (one per core) and reported in the order given.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use rayon::prelude::*;

use super::{Status, report_unusable};
use crate::damage;
use crate::error::Error;
use crate::frame::FrameIndex;
use crate::jsonformat::Json;
use crate::source::Source;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// TFRecord files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per file instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One damaged frame.
struct Problem {
    index: usize,
    offset: u64,
    region_end: u64,
    status: &'static str,
    tensorflow_offset: Option<u64>,
    description: String,
}

/// The verdict on one file.
struct Report {
    bytes: u64,
    frames: usize,
    problems: Vec<Problem>,
}

fn check(path: &Path) -> Result<Report, Error> {
    let source = Source::open(path)?;
    let data = source.bytes();
    let index = FrameIndex::build(data);
    let count = index.len();
    let problems = index
        .damaged_frames(data)
        .map(|frame| Problem {
            index: frame.index,
            offset: frame.offset.0,
            region_end: frame.region_end.0,
            status: frame.status.name(),
            tensorflow_offset: frame.tensorflow_offset().map(|o| o.0),
            description: damage::describe(&frame, data, frame.index + 1 == count),
        })
        .collect();
    Ok(Report {
        bytes: source.len(),
        frames: count,
        problems,
    })
}

fn problem_json(p: &Problem) -> Json {
    let number = |n: u64| Json::Literal(n.to_string());
    let mut members = vec![
        ("index".to_string(), Json::Literal(p.index.to_string())),
        ("offset".into(), number(p.offset)),
        ("status".into(), Json::String(p.status.into())),
        (
            "skipped".into(),
            Json::Array(vec![number(p.offset), number(p.region_end)]),
        ),
        ("problem".into(), Json::String(p.description.clone())),
    ];
    if let Some(tf) = p.tensorflow_offset {
        members.push(("tensorflow_offset".into(), number(tf)));
    }
    Json::Object(members)
}

pub fn run(args: &VerifyArgs, out: &mut impl Write) -> Result<Status> {
    let reports: Vec<Result<Report, Error>> =
        args.files.par_iter().map(|path| check(path)).collect();
    let mut status = Status::Clean;
    for (path, report) in args.files.iter().zip(reports) {
        let name = path.display().to_string();
        let report = match report {
            Ok(report) => report,
            Err(e) => {
                status = status.max(report_unusable(&e));
                if args.json {
                    let obj = Json::Object(vec![
                        ("file".into(), Json::String(name)),
                        ("error".into(), Json::String(e.to_string())),
                    ]);
                    writeln!(out, "{}", obj.to_string_sorted())?;
                }
                continue;
            }
        };
        let damaged = report.problems.len();
        let intact = report.frames - damaged;
        if damaged > 0 {
            status = status.max(Status::Damage);
        }
        if args.json {
            let obj = Json::Object(vec![
                ("file".into(), Json::String(name)),
                ("bytes".into(), Json::Literal(report.bytes.to_string())),
                ("frames".into(), Json::Literal(report.frames.to_string())),
                ("intact".into(), Json::Literal(intact.to_string())),
                ("damaged".into(), Json::Literal(damaged.to_string())),
                ("ok".into(), Json::Literal((damaged == 0).to_string())),
                (
                    "problems".into(),
                    Json::Array(report.problems.iter().map(problem_json).collect()),
                ),
            ]);
            writeln!(out, "{}", obj.to_string_sorted())?;
        } else {
            for p in &report.problems {
                writeln!(
                    out,
                    "{name}: frame {} at byte {}: {}",
                    p.index, p.offset, p.description
                )?;
            }
            let verdict = if damaged == 0 { "OK" } else { "DAMAGED" };
            writeln!(
                out,
                "{name}: {verdict}: {} frames, {intact} intact, {damaged} damaged, {} bytes",
                report.frames, report.bytes
            )?;
        }
    }
    Ok(status)
}
