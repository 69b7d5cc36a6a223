//! `locate`: what TensorFlow's "corrupted record at N" / "truncated record at N" means for a file.
//!
//! The findings come from [`tfr_core::recover::locate`]; this module only prints them.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Status, json_number as number, report_unusable};
use tfr_core::frame::FrameIndex;
use tfr_core::input::OpenOptions;
use tfr_core::jsonformat::Json;
use tfr_core::recover::{self, Case, Location};
use tfr_core::source::Source;
use tfr_core::span::FileOffset;
use tfr_core::summary::{FrameField, frame_members};

#[derive(Debug, Args)]
pub struct LocateArgs {
    /// The TFRecord file TensorFlow complained about.
    pub file: PathBuf,
    /// The offset from the message (decimal, or hex with 0x); for a compressed file it is an
    /// offset into the decompressed stream, as in TensorFlow's message.
    #[arg(value_parser = parse_offset)]
    pub offset: u64,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

fn parse_offset(s: &str) -> Result<u64, String> {
    tfr_core::words::parse_number(s).map_err(|e| format!("not a byte offset: {e}"))
}

fn location_json(file: &str, source: &Source, loc: &Location) -> Json {
    let mut members = vec![
        ("file".to_string(), Json::String(file.to_string())),
        ("offset".into(), number(loc.offset)),
        ("stream_bytes".into(), number(loc.stream_len)),
        ("case".into(), Json::String(loc.case.name().into())),
        (
            "part".into(),
            loc.part
                .map_or(Json::Null, |p| Json::String(p.name().into())),
        ),
        (
            "matches_tensorflow".into(),
            Json::Literal(loc.matches_tensorflow.to_string()),
        ),
        (
            "tensorflow_message".into(),
            loc.tensorflow_message
                .clone()
                .map_or(Json::Null, Json::String),
        ),
        ("intact_before".into(), number(loc.intact_before)),
        ("strict_reader_reads".into(), number(loc.strict_reads)),
        (
            "tensorflow_fails".into(),
            Json::Literal(loc.tensorflow_fails.to_string()),
        ),
        (
            "intact_after".into(),
            Json::Array(
                loc.intact_after
                    .iter()
                    .map(|r| Json::Array(vec![number(r.start), number(r.end)]))
                    .collect(),
            ),
        ),
        ("intact_after_count".into(), number(loc.intact_after_count)),
        ("explanation".into(), Json::String(loc.explanation.clone())),
    ];
    members.push((
        "frame".into(),
        loc.frame.map_or(Json::Null, |f| {
            use FrameField::*;
            let fields = [Index, Offset, Status, Length, End, TensorflowOffsetOrNull];
            Json::Object(frame_members(&f, &fields))
        }),
    ));
    members.push((
        "crc".into(),
        loc.crc.map_or(Json::Null, |c| {
            Json::Object(vec![
                ("field".into(), Json::String(c.field.name().into())),
                ("stored".into(), Json::String(format!("0x{:08x}", c.stored))),
                (
                    "expected".into(),
                    Json::String(format!("0x{:08x}", c.expected)),
                ),
            ])
        }),
    ));
    if let Some(info) = source.compression() {
        members.push((
            "compression".into(),
            Json::String(info.compression.name().into()),
        ));
        members.push(("compressed_bytes".into(), number(info.compressed_len)));
        if let Some(p) = &info.problem {
            members.push(("stream_problem".into(), Json::String(p.to_string())));
        }
    }
    Json::Object(members)
}

pub fn run(args: &LocateArgs, open: &OpenOptions, out: &mut impl Write) -> Result<Status> {
    let source = match Source::open(&args.file, &open.read) {
        Ok(source) => source,
        Err(e) => return Ok(report_unusable(&e)),
    };
    let name = tfr_core::escape::path_for_json(&args.file);
    let index = FrameIndex::build(&source);
    let loc = recover::locate(&index, &source, FileOffset(args.offset));
    if let Err(e) = source.check_unchanged() {
        return Ok(report_unusable(&e));
    }
    if args.json {
        writeln!(
            out,
            "{}",
            location_json(&name, &source, &loc).to_string_sorted()
        )?;
    } else if loc.case == Case::PastEnd {
        // Not an answer about this file but a mistake in the question: an error, on stderr.
        let name = tfr_core::escape::path_for_terminal(&args.file);
        super::print_error(&format!("{name}: {}", loc.explanation));
    } else {
        let name = tfr_core::escape::path_for_terminal(&args.file);
        if let Some(info) = source.compression() {
            writeln!(
                out,
                "{name}: {}-compressed ({} bytes on disk, {} decompressed); offsets are in the decompressed stream, as in TensorFlow's messages.",
                info.compression.tensorflow_name(),
                info.compressed_len,
                source.len()
            )?;
            if let Some(p) = &info.problem {
                writeln!(out, "{name}: compressed stream damaged: {p}")?;
            }
        }
        writeln!(out, "{name}: {}", loc.explanation)?;
        if let Some(frame) = loc.frame {
            writeln!(
                out,
                "  frame {}: offset {}, status {}, length {}",
                frame.index,
                frame.offset,
                frame.status.name(),
                frame
                    .declared_length
                    .map_or("-".to_string(), |l| l.to_string())
            )?;
        }
        if let Some(c) = loc.crc {
            writeln!(
                out,
                "  {} crc: stored 0x{:08x}, expected 0x{:08x}",
                c.field.name(),
                c.stored,
                c.expected
            )?;
        }
    }
    Ok(match loc.case {
        Case::Damaged(_) => Status::Damage,
        Case::IntactFrame => Status::Clean,
        // The offset is not in this file: the question does not fit the input.
        Case::PastEnd => Status::Unusable,
    })
}

#[cfg(test)]
mod tests {
    use super::parse_offset;

    #[test]
    fn offsets_parse_as_decimal_or_hex() {
        assert_eq!(parse_offset("19288"), Ok(19288));
        assert_eq!(parse_offset("0x10"), Ok(16));
        assert_eq!(parse_offset("11138'"), Ok(11138));
        assert_eq!(parse_offset("1_000"), Ok(1000));
        assert!(parse_offset("-1").is_err());
    }
}
