//! `verify`: both CRCs of every frame, and that the file ends on a frame boundary.
//!
//! Files are checked in parallel (one per core) and reported in the order given.
//!
//! A GZIP or ZLIB file is checked in its decompressed stream (auto-detected, or as `--compression`
//! says). When it decompresses cleanly and every frame is intact it passes (exit 0) with a note
//! that TensorFlow must read it with `compression_type`; read with `--compression none` it is the
//! classic "corrupted record at 0" and fails. A damaged compressed stream (cut off, corrupt deflate
//! data, bad gzip trailer, trailing bytes) is damage (exit 1): the frames of the decoded prefix are
//! checked as usual and the stream problem is reported last, with its compressed offset. Bytes
//! after the stream that TensorFlow skips without an error (after a ZLIB stream, or an
//! incomplete last GZIP member) are only noted.
//!
//! A file that shrinks while it is checked is not judged from the zeros that then stand for its
//! lost bytes: that file is reported unusable (exit 2) with "FILE shrank from A to B bytes".
//!
//! Frames nested inside a damaged record (a record holding a TFRecord stream) are reported with
//! that record, not counted as frames. Bytes the resync passed over unverified are named; with
//! `--thorough` they are searched without the work limit.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::dataset::Run;
use super::progress::Progress;
use super::{Env, Messages, Status};
use crate::hint::UserMessage;
use tfr_core::input::OpenOptions;
use tfr_core::report::verify::{FileLine, FileVerdict, Outcome, VerifyOptions, VerifyReport};
use tfr_core::resync::ResyncBudget;
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// TFRecord files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per file instead of text.
    #[arg(long)]
    pub json: bool,
    /// Check every candidate frame in damaged bytes, without the resync work limit. Each candidate
    /// costs a CRC over the length its header declares, so a crafted file can make this slow.
    #[arg(long)]
    pub thorough: bool,
    /// Also decode every image of every intact record completely: a truncated JPEG, a PNG with a
    /// bad CRC or an image whose size is not the declared `image/height` x `image/width` is
    /// damage of its own (an undecodable image), named with its record and feature. An image that
    /// needs more than 256 MiB to decode is not decoded, and named in a note.
    #[arg(long)]
    pub images: bool,
}

impl tfr_core::report::Progress for Progress {
    fn grow(&self, bytes: u64) {
        Progress::grow(self, bytes);
    }

    fn advance(&self, bytes: u64) {
        Progress::advance(self, bytes);
    }
}

/// Where member `member` of `run` stands in its split, for its JSON object.
/// Checks `args.files`, one per core, and reports them in the order given; damage is red and an
/// intact file's verdict green when stdout is coloured.
pub fn run(
    args: &VerifyArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let mut run = Run::resolve_reporting(&args.files, messages);
    let files = run.paths();
    let options = VerifyOptions {
        budget: match args.thorough {
            true => ResyncBudget::Unlimited,
            false => ResyncBudget::DEFAULT,
        },
        images: args.images,
    };
    let progress = Progress::bytes("verifying", 0, env.progress(false));
    let report = VerifyReport::check(&files, open, options, &progress);
    progress.finish();
    for (tally, counted) in run.tallies.iter_mut().zip(report.tallies()) {
        *tally = counted;
    }
    for (member, (path, verdict)) in files.iter().zip(&report.files).enumerate() {
        let outcome = match verdict {
            Ok(verdict) => {
                if !verdict.ok {
                    messages.damage();
                }
                Outcome::Checked(verdict)
            }
            Err(e) => {
                messages.unusable(e);
                Outcome::Unusable {
                    error: e.user_message(),
                }
            }
        };
        match (args.json, outcome) {
            (true, outcome) => {
                let line = FileLine {
                    file: tfr_core::escape::path_for_json(path),
                    place: run.split_place(member),
                    outcome,
                };
                writeln!(out, "{}", tfr_core::pyjson::to_string(&line)?)?;
            }
            (false, Outcome::Checked(verdict)) => {
                let text = Text {
                    name: tfr_core::escape::path_for_terminal(path),
                    coloured: env.stdout.colour,
                    images: args.images,
                };
                text.write(verdict, &run.place(member), out)?;
            }
            (false, Outcome::Unusable { .. }) => {}
        }
    }
    if run.is_dataset() {
        messages.raise(run.finish(args.json, true, out)?);
    } else {
        run.note_skipped(messages);
    }
    Ok(messages.status())
}

/// The text printer: one line per problem and note, then the file's verdict.
struct Text {
    /// The file's name, escaped for a terminal.
    name: String,
    coloured: bool,
    /// Whether images were checked (`--images`).
    images: bool,
}

impl Text {
    fn write(&self, verdict: &FileVerdict, place: &str, out: &mut impl Write) -> Result<()> {
        let name = &self.name;
        for p in &verdict.problems {
            let line = match p.index {
                Some(index) => format!(
                    "frame {index} at byte {}: {}",
                    p.region.start, p.description
                ),
                None => p.description.clone(),
            };
            writeln!(out, "{name}: {}", super::paint(&line, "31", self.coloured))?;
        }
        let stream = verdict.compression.as_ref().map(|c| &c.stream);
        if let Some(tail) = stream.and_then(|c| c.ignored.as_ref()) {
            writeln!(out, "{name}: note: {tail}")?;
        }
        if let Some(block) = stream.and_then(|c| c.oversized.as_ref()) {
            writeln!(out, "{name}: note: {block}")?;
        }
        if let Some(note) = verdict.unverified.as_ref().and_then(|u| u.note.as_ref()) {
            writeln!(out, "{name}: note: {note}; --thorough searches them")?;
        }
        for note in verdict.images.iter().flat_map(|i| &i.not_decoded) {
            writeln!(out, "{name}: note: {}", note.text)?;
        }
        writeln!(out, "{name}: {}{place}", self.verdict(verdict))?;
        if let Some(stream) = stream.filter(|_| verdict.ok) {
            let kind = stream.compression.tensorflow_name();
            writeln!(
                out,
                "{name}: note: read it with compression_type='{kind}'; without it TensorFlow fails with \"corrupted record at 0\""
            )?;
        }
        Ok(())
    }

    /// `OK: 3 frames, 3 intact, 0 damaged, 78 bytes`, with compression and images when they apply.
    fn verdict(&self, verdict: &FileVerdict) -> String {
        let word = match verdict.ok {
            true => super::paint("OK", "32", self.coloured),
            false => super::paint("DAMAGED", "1;31", self.coloured),
        };
        let stream = verdict.compression.as_ref().map(|c| &c.stream);
        let compressed = stream
            .map(|c| format!("{}; ", c.describe(verdict.bytes)))
            .unwrap_or_default();
        let size = match stream {
            Some(_) => "bytes decompressed",
            None => "bytes",
        };
        let images = match (self.images, verdict.images.as_ref()) {
            (true, Some(found)) if found.not_decoded.is_empty() => format!(
                ", {} undecodable",
                plural(found.undecodable as u64, "image")
            ),
            (true, Some(found)) => format!(
                ", {} undecodable, {} too large to decode",
                plural(found.undecodable as u64, "image"),
                plural(found.not_decoded.len() as u64, "image")
            ),
            _ => String::new(),
        };
        format!(
            "{word}: {compressed}{}, {} intact, {} damaged{images}, {} {size}",
            plural(verdict.frames as u64, "frame"),
            verdict.intact,
            verdict.damaged,
            verdict.bytes,
        )
    }
}
