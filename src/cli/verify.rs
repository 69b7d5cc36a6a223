//! `verify`: both CRCs of every frame, and that the file ends on a frame boundary.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Status, report_unusable};
use crate::damage;
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

pub fn run(args: &VerifyArgs, out: &mut impl Write) -> Result<Status> {
    let mut status = Status::Clean;
    for path in &args.files {
        let source = match Source::open(path) {
            Ok(source) => source,
            Err(e) => {
                status = status.max(report_unusable(&e));
                if args.json {
                    let obj = Json::Object(vec![
                        ("file".into(), Json::String(path.display().to_string())),
                        ("error".into(), Json::String(e.to_string())),
                    ]);
                    writeln!(out, "{}", obj.to_string_sorted())?;
                }
                continue;
            }
        };
        let name = path.display().to_string();
        let data = source.bytes();
        let index = FrameIndex::build(data);
        let count = index.len();
        let mut problems = Vec::new();
        let mut intact = 0usize;
        for frame in index.frames(data) {
            if frame.status.is_intact() {
                intact += 1;
                continue;
            }
            let description = damage::describe(&frame, data, frame.index + 1 == count);
            if !args.json {
                writeln!(
                    out,
                    "{name}: frame {} at byte {}: {description}",
                    frame.index, frame.offset
                )?;
            }
            let mut members = vec![
                ("index".to_string(), Json::Literal(frame.index.to_string())),
                ("offset".into(), Json::Literal(frame.offset.0.to_string())),
                ("status".into(), Json::String(frame.status.name().into())),
                (
                    "skipped".into(),
                    Json::Array(vec![
                        Json::Literal(frame.offset.0.to_string()),
                        Json::Literal(frame.region_end.0.to_string()),
                    ]),
                ),
                ("problem".into(), Json::String(description)),
            ];
            if let Some(tf) = frame.tensorflow_offset() {
                members.push(("tensorflow_offset".into(), Json::Literal(tf.0.to_string())));
            }
            problems.push(Json::Object(members));
        }
        let damaged = problems.len();
        if damaged > 0 {
            status = status.max(Status::Damage);
        }
        if args.json {
            let obj = Json::Object(vec![
                ("file".into(), Json::String(name.clone())),
                ("bytes".into(), Json::Literal(source.len().to_string())),
                ("frames".into(), Json::Literal(count.to_string())),
                ("intact".into(), Json::Literal(intact.to_string())),
                ("damaged".into(), Json::Literal(damaged.to_string())),
                ("ok".into(), Json::Literal((damaged == 0).to_string())),
                ("problems".into(), Json::Array(problems)),
            ]);
            writeln!(out, "{}", obj.to_string_sorted())?;
        } else {
            let verdict = if damaged == 0 { "OK" } else { "DAMAGED" };
            writeln!(
                out,
                "{name}: {verdict}: {count} frames, {intact} intact, {damaged} damaged, {} bytes",
                source.len()
            )?;
        }
    }
    Ok(status)
}
