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
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::dataset::{Run, RunExt, SkippedLines};
use super::progress::Progress;
use super::{Env, Messages, Status};
use crate::hint::UserMessage;
use tfr_core::compress::describe;
use tfr_core::input::OpenOptions;
use tfr_core::report::verify::{
    FILE_LINE, FileLine, FileVerdict, Outcome, Said, VerifyOptions, VerifyReport,
};
use tfr_core::report::verify_merge;
use tfr_core::resync::ResyncBudget;
use tfr_core::words::plural;

#[derive(Debug, Args)]
// Only `--images` decodes payloads: the decoding options are refused without it.
#[command(mut_group("DecodeArgs", |group| group.requires("images")))]
pub struct VerifyArgs {
    /// TFRecord files to check; with `--merge`, outputs of `verify --json`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per file instead of text.
    #[arg(long)]
    pub json: bool,
    /// Check every candidate frame in damaged bytes, without the resync work limit. Each candidate
    /// costs a CRC over the length its header declares, so a crafted file can make this slow.
    #[arg(long, conflicts_with = "merge")]
    pub thorough: bool,
    /// Also decode every image of every intact record completely: a truncated JPEG, a PNG with a
    /// bad CRC or an image whose size is not the declared `image/height` x `image/width` is
    /// damage of its own (an undecodable image), named with its record and feature. An image that
    /// needs more than 256 MiB to decode is not decoded, and named in a note.
    #[arg(long, conflicts_with = "merge")]
    pub images: bool,
    /// Merge the `verify --json` outputs FILES (of parts of a dataset, checked apart) into what
    /// `verify` over all their files says.
    #[arg(long)]
    pub merge: bool,
    /// Name each file of a directory that was skipped (not TFRecord), with why, instead of
    /// counting them in one line.
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

impl tfr_core::report::Progress for Progress {
    fn grow(&self, bytes: u64) {
        Progress::grow(self, bytes);
    }

    fn advance(&self, bytes: u64) {
        Progress::advance(self, bytes);
    }
}

/// Checks `args.files`, one per core, and reports them in the order given; damage is red and an
/// intact file's verdict green when stdout is coloured.
pub fn run(
    args: &VerifyArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if args.merge {
        return merge(args, env, messages, out);
    }
    let mut run = Run::resolve_reporting(&args.files, messages);
    let files = run.paths();
    let options = VerifyOptions {
        budget: match args.thorough {
            true => ResyncBudget::Unlimited,
            false => ResyncBudget::DEFAULT,
        },
        images: args.images,
    };
    let not_tfrecord = not_tfrecord(args, &run);
    let progress = Progress::bytes("verifying", 0, env.progress(false));
    let report = VerifyReport::check(&files, open, options, &progress);
    progress.finish();
    for (tally, counted) in run.tallies.iter_mut().zip(report.tallies()) {
        *tally = counted;
    }
    let printer = Printer {
        json: args.json,
        coloured: env.stdout.colour,
        verbose: args.verbose,
    };
    for (member, (path, verdict)) in files.iter().zip(&report.files).enumerate() {
        // A file named alone that is no TFRecord file at all: said as a directory's search says
        // it (it is damage here, since it was asked for).
        if let (Some(reason), false, Ok(verdict)) = (not_tfrecord, args.json, verdict) {
            if verdict.said().intact == 0 {
                messages.damage();
                let name = tfr_core::escape::path_for_terminal(path);
                let line = super::paint(reason, "31", env.stdout.colour);
                writeln!(out, "{name}: {line}")?;
                continue;
            }
        }
        let outcome = match verdict {
            Ok(verdict) => Outcome::Checked(verdict),
            Err(e) => {
                messages.unusable(e);
                Outcome::Unusable {
                    error: e.user_message(),
                }
            }
        };
        let said = verdict.as_ref().ok().map(FileVerdict::said);
        let line = FileLine {
            kind: FILE_LINE,
            file: tfr_core::escape::path_for_json(path),
            place: run.split_place(member),
            outcome,
        };
        let line = args
            .json
            .then(|| tfr_core::pyjson::to_string(&line))
            .transpose()?;
        printer.member(&run, member, path, said.as_ref(), line, messages, out)?;
    }
    printer.finish(&run, messages, out)
}

/// `verify --merge`: the `verify --json` outputs `args.files` merged, reported as `verify`
/// reports all their files at once.
fn merge(
    args: &VerifyArgs,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let merged = match verify_merge::merge(&args.files) {
        Ok(merged) => merged,
        Err(e) => return Ok(messages.unusable(&e.to_string())),
    };
    for sentence in &merged.unusable_inputs {
        messages.unusable(sentence);
    }
    let mut run = Run::of(merged.dataset);
    for (tally, file) in run.tallies.iter_mut().zip(&merged.files) {
        *tally = file.outcome.as_ref().ok().map(|(_, tally)| *tally);
    }
    let printer = Printer {
        json: args.json,
        coloured: env.stdout.colour,
        verbose: args.verbose,
    };
    for (member, file) in merged.files.iter().enumerate() {
        if let Err(error) = &file.outcome {
            messages.unusable(error);
        }
        let line = verify_merge::Line {
            kind: FILE_LINE,
            file: tfr_core::escape::path_for_json(&file.path),
            place: run.split_place(member),
            verdict: &file.json,
        };
        let said = file.outcome.as_ref().ok().map(|(said, _)| said);
        let line = args
            .json
            .then(|| tfr_core::pyjson::to_string(&line))
            .transpose()?;
        printer.member(&run, member, &file.path, said, line, messages, out)?;
    }
    printer.finish(&run, messages, out)
}

/// Why the one file `args` name is no TFRecord file, as a directory's search words it, when it
/// is a regular file whose first bytes are neither a frame nor a compression header and whose
/// name does not say TFRecord (a damaged `train.tfrecord` is judged frame by frame instead).
fn not_tfrecord(args: &VerifyArgs, run: &Run) -> Option<&'static str> {
    let [named] = args.files.as_slice() else {
        return None;
    };
    if run.is_dataset() || !named.is_file() || run.paths().as_slice() != [named.clone()] {
        return None;
    }
    match tfr_core::dataset::discover::sniff(named) {
        Ok(tfr_core::dataset::discover::Sniff::Other(reason))
            if reason == tfr_core::dataset::discover::NOT_TFRECORD =>
        {
            Some(reason)
        }
        _ => None,
    }
}

/// How a run's files and its dataset's summary are printed.
struct Printer {
    json: bool,
    coloured: bool,
    /// Name each skipped file, not only how many there are.
    verbose: bool,
}

impl Printer {
    /// Member `member`'s verdict (`said`; `None` when it could not be checked, said already) as
    /// text, or its JSON `line` (given with `--json`).
    #[allow(clippy::too_many_arguments)]
    fn member(
        &self,
        run: &Run,
        member: usize,
        path: &Path,
        said: Option<&Said>,
        line: Option<String>,
        messages: &Messages,
        out: &mut impl Write,
    ) -> Result<()> {
        if said.is_some_and(|said| !said.ok) {
            messages.damage();
        }
        match (line, said) {
            (Some(line), _) => writeln!(out, "{line}")?,
            (None, Some(said)) => {
                let text = Text {
                    name: tfr_core::escape::path_for_terminal(path),
                    coloured: self.coloured,
                };
                text.write(said, &run.place(member), out)?;
            }
            (None, None) => {}
        }
        Ok(())
    }

    /// The dataset's summary when the inputs are one, and the run's status.
    fn finish(&self, run: &Run, messages: &Messages, out: &mut impl Write) -> Result<Status> {
        let skipped = match self.verbose {
            true => SkippedLines::Listed,
            false => SkippedLines::Counted,
        };
        if run.is_dataset() {
            let json = match self.json {
                true => super::dataset::Json::Typed,
                false => super::dataset::Json::No,
            };
            messages.raise(run.finish(json, skipped, out)?);
        } else {
            run.note_skipped_counted(self.verbose, messages);
        }
        Ok(messages.status())
    }
}

/// The text printer: one line per problem and note, then the file's verdict.
struct Text {
    /// The file's name, escaped for a terminal.
    name: String,
    coloured: bool,
}

impl Text {
    fn write(&self, said: &Said, place: &str, out: &mut impl Write) -> Result<()> {
        let name = &self.name;
        for p in &said.problems {
            let line = match p.index {
                Some(index) => format!("frame {index} at byte {}: {}", p.start, p.description),
                None => p.description.clone(),
            };
            writeln!(out, "{name}: {}", super::paint(&line, "31", self.coloured))?;
        }
        for note in &said.notes {
            writeln!(out, "{name}: note: {note}")?;
        }
        writeln!(out, "{name}: {}{place}", self.verdict(said))?;
        if let Some((kind, _)) = said.compression.filter(|_| said.ok) {
            let kind = kind.tensorflow_name();
            writeln!(
                out,
                "{name}: note: read it with compression_type='{kind}'; without it TensorFlow fails with \"corrupted record at 0\""
            )?;
        }
        Ok(())
    }

    /// `OK: 3 frames, 3 intact, 0 damaged, 78 bytes`, with compression and images when they apply.
    fn verdict(&self, said: &Said) -> String {
        let word = match said.ok {
            true => super::paint("OK", "32", self.coloured),
            false => super::paint("DAMAGED", "1;31", self.coloured),
        };
        let compressed = said
            .compression
            .map(|(kind, on_disk)| format!("{}; ", describe(kind, on_disk, said.bytes)))
            .unwrap_or_default();
        let size = match said.compression {
            Some(_) => "bytes decompressed",
            None => "bytes",
        };
        let images = match said.images {
            Some((undecodable, 0)) => format!(", {} undecodable", plural(undecodable, "image")),
            Some((undecodable, not_decoded)) => format!(
                ", {} undecodable, {} too large to decode",
                plural(undecodable, "image"),
                plural(not_decoded, "image")
            ),
            None => String::new(),
        };
        format!(
            "{word}: {compressed}{}, {} intact, {} damaged{images}, {} {size}",
            plural(said.frames, "frame"),
            said.intact,
            said.damaged,
            said.bytes,
        )
    }
}
