//! `locate`: what TensorFlow's "corrupted record at N" / "truncated record at N" means for a file.
//!
//! The findings come from [`tfr_core::report::locate`]; this module only prints them.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Messages, Status};
use tfr_core::input::OpenOptions;
use tfr_core::recover::Case;
use tfr_core::report::locate::{LocateReport, locate};

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
    #[command(flatten)]
    pub read: super::ReadArgs,
}

fn parse_offset(s: &str) -> Result<u64, String> {
    tfr_core::words::parse_number(s).map_err(|e| format!("not a byte offset: {e}"))
}

pub fn run(
    args: &LocateArgs,
    open: &OpenOptions,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let report = match locate(&args.file, &open.read, args.offset) {
        Ok(report) => report,
        Err(e) => return Ok(messages.unusable(&e)),
    };
    let name = tfr_core::escape::path_for_terminal(&args.file);
    if args.json {
        writeln!(out, "{}", tfr_core::pyjson::to_string(&report)?)?;
    } else if report.verdict == Case::PastEnd {
        // Not an answer about this file but a mistake in the question: an error, on stderr.
        messages.error(&format!("{name}: {}", report.explanation));
    } else {
        write_text(&name, &report, out)?;
    }
    Ok(messages.raise(match report.verdict {
        Case::Damaged(_) => Status::Damage,
        Case::IntactFrame => Status::Clean,
        // The offset is not in this file: the question does not fit the input.
        Case::PastEnd => Status::Unusable,
    }))
}

/// The text printer: the stream, the explanation, then the frame and the CRC it points into.
fn write_text(name: &str, report: &LocateReport, out: &mut impl Write) -> std::io::Result<()> {
    if let Some(stream) = &report.stream {
        writeln!(
            out,
            "{name}: {}-compressed ({} bytes on disk, {} decompressed); offsets are in the decompressed stream, as in TensorFlow's messages.",
            stream.tensorflow_name, stream.compressed_bytes, report.stream_bytes
        )?;
        if let Some(problem) = &stream.stream_problem {
            writeln!(out, "{name}: compressed stream damaged: {problem}")?;
        }
    }
    writeln!(out, "{name}: {}", report.explanation)?;
    if let Some(frame) = report.frame {
        writeln!(
            out,
            "  frame {}: offset {}, status {}, length {}",
            frame.index,
            frame.offset,
            frame.status,
            frame.length.map_or("-".to_string(), |l| l.to_string())
        )?;
    }
    if let Some(c) = &report.crc {
        writeln!(
            out,
            "  {} crc: stored {}, expected {}",
            c.field, c.stored, c.expected
        )?;
    }
    Ok(())
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
