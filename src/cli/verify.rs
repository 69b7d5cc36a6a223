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
use rayon::prelude::*;

use super::progress::Progress;
use super::{Status, json_number as number, report_unusable};
use crate::hint::UserMessage;
use tfr_core::compress::{Compressed, IgnoredTail, OversizedBlock, StreamProblemKind};
use tfr_core::damage;
use tfr_core::error::Error;
use tfr_core::frame::{FrameIndex, FrameStatus};
use tfr_core::input::OpenOptions;
use tfr_core::jsonformat::Json;
use tfr_core::nested::NestedFrames;
use tfr_core::resync::ResyncBudget;
use tfr_core::source::Source;
use tfr_core::span::{FileOffset, FileRange};
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

/// What is damaged: one frame, or the compressed stream the frames were read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Damaged {
    Frame(FrameStatus),
    Stream(StreamProblemKind),
    /// An image in an intact record that does not decode (`--images`).
    Image,
}

impl Damaged {
    /// The machine name in `--json`'s `status`.
    fn name(self) -> &'static str {
        match self {
            Damaged::Frame(status) => status.name(),
            Damaged::Stream(kind) => kind.name(),
            Damaged::Image => "image_undecodable",
        }
    }
}

/// One damaged frame.
struct Problem {
    /// The frame's index; `None` for a problem of the compressed stream.
    index: Option<usize>,
    /// The bytes the damage covers (empty at the decompressed offset for a stream problem).
    region: FileRange,
    status: Damaged,
    tensorflow_offset: Option<FileOffset>,
    /// Where decoding stopped in the compressed file, for a problem of the compressed stream.
    compressed_offset: Option<u64>,
    description: String,
    /// Frames nested inside the damaged record (`{"count", "offsets"}`).
    nested: Option<Json>,
}

/// The verdict on one file.
struct Report {
    bytes: u64,
    frames: usize,
    problems: Vec<Problem>,
    compression: Option<Compressed>,
    /// Resync candidates left unverified (see `FrameIndex::unverified_candidates`).
    unverified: u64,
    /// Where they are, merged.
    unverified_ranges: Vec<FileRange>,
    /// The sentence that says so.
    unverified_note: Option<String>,
    /// Frames and payload bytes, for a dataset's summary.
    tally: tfr_core::dataset::Tally,
    /// Undecodable images found (with `--images`).
    images: usize,
    /// Images too large to decode within the budget (with `--images`): notes, not damage.
    not_decoded: Vec<tfr_core::image::check::Undecodable>,
}

fn check(
    path: &Path,
    open: &OpenOptions,
    budget: ResyncBudget,
    images: bool,
    progress: &Progress,
) -> Result<Report, Error> {
    let source = Source::open(path, &open.read)?;
    let (mut report, index) = judge(&source, budget, progress)?;
    if images {
        let found = tfr_core::image::check::undecodable(&source, &index, &open.decoder);
        // Verdicts from the mapped bytes: worthless if the file shrank meanwhile.
        source.check_unchanged()?;
        report.images = found.undecodable.len();
        report.not_decoded = found.not_decoded;
        report
            .problems
            .extend(found.undecodable.into_iter().map(|bad| Problem {
                index: Some(bad.record),
                region: bad.frame,
                status: Damaged::Image,
                tensorflow_offset: None,
                compressed_offset: None,
                description: bad.describe(),
                nested: None,
            }));
        // In file order; a problem of the compressed stream stays last.
        report
            .problems
            .sort_by_key(|p| (p.index.is_none(), p.region.start, p.index));
    }
    Ok(report)
}

/// Bytes indexed between two progress reports.
const PROGRESS_STEP: u64 = 64 << 20;

/// Checks every frame of `source`; the report, and the index it was made from.
fn judge(
    source: &Source,
    budget: ResyncBudget,
    progress: &Progress,
) -> Result<(Report, FrameIndex), Error> {
    let data = source;
    progress.grow(source.len());
    // The intact frames from the start on every core, then the rest frame by frame.
    let mut index = FrameIndex::start_parallel(source, budget);
    progress.advance(index.scanned());
    let mut scanned = index.scanned();
    loop {
        let done = index.scan(data, PROGRESS_STEP);
        progress.advance(index.scanned().saturating_sub(scanned));
        scanned = index.scanned();
        if done {
            break;
        }
    }
    let count = index.len();
    let mut problems: Vec<Problem> = index
        .damaged_frames(data)
        .map(|frame| {
            let nested = NestedFrames::find(&index, data, &frame);
            let mut description = damage::describe(&frame, data, frame.index + 1 == count);
            if let Some(nested) = &nested {
                description = format!("{description}; {}", nested.describe());
            }
            Problem {
                index: Some(frame.index),
                region: frame.region(),
                status: Damaged::Frame(frame.status),
                tensorflow_offset: frame.tensorflow_offset(),
                compressed_offset: None,
                description,
                nested: nested.map(|n| n.to_json()),
            }
        })
        .collect();
    // Every verdict above came from the mapped bytes: worthless if the file shrank meanwhile.
    source.check_unchanged()?;
    let compression = source.compression().cloned();
    let stream_damaged = compression.as_ref().is_some_and(|c| c.problem.is_some());
    let tally = tfr_core::dataset::Tally {
        compression: compression.as_ref().map(|c| c.compression),
        ..tfr_core::dataset::Tally::of(&index, stream_damaged)
    };
    if let Some(p) = compression.as_ref().and_then(|c| c.problem.as_ref()) {
        let at = FileOffset(p.decompressed_offset);
        problems.push(Problem {
            index: None,
            region: FileRange::new(at, at),
            status: Damaged::Stream(p.kind),
            tensorflow_offset: None,
            compressed_offset: Some(p.compressed_offset),
            description: format!("compressed stream damaged: {p}"),
            nested: None,
        });
    }
    let report = Report {
        bytes: source.len(),
        frames: count,
        problems,
        compression,
        unverified: index.unverified_candidates(),
        unverified_ranges: index.unverified_ranges().to_vec(),
        unverified_note: damage::unverified(&index),
        tally,
        images: 0,
        not_decoded: Vec::new(),
    };
    Ok((report, index))
}

fn problem_json(p: &Problem) -> Json {
    let mut members = vec![
        (
            "index".to_string(),
            p.index.map_or(Json::Null, |i| Json::Literal(i.to_string())),
        ),
        ("offset".into(), number(p.region.start)),
        ("status".into(), Json::String(p.status.name().into())),
        (
            "skipped".into(),
            Json::Array(vec![number(p.region.start), number(p.region.end)]),
        ),
        ("problem".into(), Json::String(p.description.clone())),
    ];
    if let Some(tf) = p.tensorflow_offset {
        members.push(("tensorflow_offset".into(), number(tf)));
    }
    if let Some(at) = p.compressed_offset {
        members.push(("compressed_offset".into(), number(at)));
    }
    if let Some(nested) = &p.nested {
        members.push(("nested_frames".into(), nested.clone()));
    }
    Json::Object(members)
}

/// Trailing bytes TensorFlow skips, for `--json`.
fn ignored_json(tail: &IgnoredTail) -> Json {
    Json::Object(vec![
        ("compressed_offset".into(), number(tail.compressed_offset)),
        ("length".into(), number(tail.len)),
        ("reason".into(), Json::String(tail.reason.to_string())),
    ])
}

/// A SNAPPY block TensorFlow's reader cannot hold, for `--json`.
fn oversized_json(block: &OversizedBlock) -> Json {
    Json::Object(vec![
        ("block".into(), number(block.index)),
        ("compressed_offset".into(), number(block.compressed_offset)),
        ("compressed_length".into(), number(block.compressed_len)),
        ("decompressed_length".into(), number(block.decompressed_len)),
        (
            "tensorflow_message".into(),
            Json::String(block.tensorflow_message()),
        ),
    ])
}

/// Checks `args.files`; damage is red and an intact file's verdict green when `coloured`.
pub fn run(
    args: &VerifyArgs,
    open: &OpenOptions,
    out: &mut impl Write,
    coloured: bool,
) -> Result<Status> {
    let (mut run, mut status) = super::dataset::Run::resolve(&args.files);
    let files = run.paths();
    let budget = if args.thorough {
        ResyncBudget::Unlimited
    } else {
        ResyncBudget::DEFAULT
    };
    let progress = Progress::bytes("verifying", 0, false);
    let reports: Vec<Result<Report, Error>> = files
        .par_iter()
        .map(|path| check(path, open, budget, args.images, &progress))
        .collect();
    progress.finish();
    for (member, report) in reports.iter().enumerate() {
        if let (Some(tally), Ok(report)) = (run.tallies.get_mut(member), report) {
            *tally = Some(report.tally);
        }
    }
    for (member, (path, report)) in files.iter().zip(reports).enumerate() {
        let name = tfr_core::escape::path_for_json(path);
        let report = match report {
            Ok(report) => report,
            Err(e) => {
                status = status.max(report_unusable(&e));
                if args.json {
                    let mut members = vec![
                        ("file".into(), Json::String(name)),
                        ("error".into(), Json::String(e.user_message())),
                    ];
                    members.extend(run.place_json(member));
                    let obj = Json::Object(members);
                    writeln!(out, "{}", obj.to_string_sorted())?;
                }
                continue;
            }
        };
        let damaged = report.problems.len();
        let damaged_frames = report
            .problems
            .iter()
            .filter(|p| matches!(p.status, Damaged::Frame(_)))
            .count();
        let intact = report.frames - damaged_frames;
        if damaged > 0 {
            status = status.max(Status::Damage);
        }
        if args.json {
            let mut members = vec![
                ("file".into(), Json::String(name)),
                ("bytes".into(), Json::Literal(report.bytes.to_string())),
                ("frames".into(), Json::Literal(report.frames.to_string())),
                ("intact".into(), Json::Literal(intact.to_string())),
                ("damaged".into(), Json::Literal(damaged_frames.to_string())),
                ("ok".into(), Json::Literal((damaged == 0).to_string())),
                (
                    "problems".into(),
                    Json::Array(report.problems.iter().map(problem_json).collect()),
                ),
            ];
            members.extend(run.place_json(member));
            if args.images {
                members.push((
                    "images_undecodable".into(),
                    Json::Literal(report.images.to_string()),
                ));
                let notes = report.not_decoded.iter().map(|n| {
                    Json::Object(vec![
                        ("index".into(), Json::Literal(n.record.to_string())),
                        ("offset".into(), number(n.at)),
                        ("feature".into(), Json::String(n.feature.clone())),
                        ("note".into(), Json::String(n.reason.clone())),
                    ])
                });
                members.push(("images_not_decoded".into(), Json::Array(notes.collect())));
            }
            if report.unverified > 0 {
                members.push((
                    "unverified_candidates".into(),
                    Json::Literal(report.unverified.to_string()),
                ));
                let ranges = report
                    .unverified_ranges
                    .iter()
                    .map(|r| Json::Array(vec![number(r.start), number(r.end)]));
                members.push((
                    "unverified_byte_ranges".into(),
                    Json::Array(ranges.collect()),
                ));
            }
            if let Some(info) = &report.compression {
                members.push((
                    "compression".into(),
                    Json::String(info.compression.name().into()),
                ));
                members.push((
                    "compressed_bytes".into(),
                    Json::Literal(info.compressed_len.to_string()),
                ));
                members.push((
                    "ratio".into(),
                    Json::Literal(format!("{:?}", info.ratio(report.bytes))),
                ));
                if let Some(tail) = &info.ignored {
                    members.push(("ignored_tail".into(), ignored_json(tail)));
                }
                if let Some(block) = &info.oversized {
                    members.push(("beyond_tensorflow".into(), oversized_json(block)));
                }
            }
            writeln!(out, "{}", Json::Object(members).to_string_sorted())?;
        } else {
            let name = tfr_core::escape::path_for_terminal(path);
            for p in &report.problems {
                match p.index {
                    Some(index) => writeln!(
                        out,
                        "{name}: {}",
                        super::paint(
                            &format!(
                                "frame {index} at byte {}: {}",
                                p.region.start, p.description
                            ),
                            "31",
                            coloured
                        )
                    )?,
                    None => writeln!(
                        out,
                        "{name}: {}",
                        super::paint(&p.description, "31", coloured)
                    )?,
                }
            }
            if let Some(tail) = report.compression.as_ref().and_then(|c| c.ignored.as_ref()) {
                writeln!(out, "{name}: note: {tail}")?;
            }
            if let Some(block) = report
                .compression
                .as_ref()
                .and_then(|c| c.oversized.as_ref())
            {
                writeln!(out, "{name}: note: {block}")?;
            }
            if let Some(note) = &report.unverified_note {
                writeln!(out, "{name}: note: {note}; --thorough searches them")?;
            }
            for note in &report.not_decoded {
                writeln!(out, "{name}: note: {}", note.describe_note())?;
            }
            let verdict = if damaged == 0 {
                super::paint("OK", "32", coloured)
            } else {
                super::paint("DAMAGED", "1;31", coloured)
            };
            let compressed = report
                .compression
                .as_ref()
                .map(|c| format!("{}; ", c.describe(report.bytes)))
                .unwrap_or_default();
            let size = if report.compression.is_some() {
                "bytes decompressed"
            } else {
                "bytes"
            };
            let images = match (args.images, report.not_decoded.len()) {
                (false, _) => String::new(),
                (true, 0) => format!(", {} undecodable", plural(report.images as u64, "image")),
                (true, n) => format!(
                    ", {} undecodable, {} too large to decode",
                    plural(report.images as u64, "image"),
                    plural(n as u64, "image")
                ),
            };
            writeln!(
                out,
                "{name}: {verdict}: {compressed}{}, {intact} intact, {damaged_frames} damaged{images}, {} {size}{}",
                plural(report.frames as u64, "frame"),
                report.bytes,
                run.place(member)
            )?;
            if let Some(info) = report.compression.as_ref().filter(|_| damaged == 0) {
                let kind = info.compression.tensorflow_name();
                writeln!(
                    out,
                    "{name}: note: read it with compression_type='{kind}'; without it TensorFlow fails with \"corrupted record at 0\""
                )?;
            }
        }
    }
    if run.is_dataset() {
        status = status.max(run.finish(args.json, true, out)?);
    } else {
        run.note_skipped();
    }
    Ok(status)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use tfr_core::source::ReadOptions;

    #[test]
    fn a_file_that_shrank_while_checked_is_not_judged() {
        let mut bytes = Vec::new();
        for _ in 0..4000 {
            tfr_core::frame::write_record(&[7; 100], &mut bytes).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shard.tfrecord");
        std::fs::write(&path, &bytes).unwrap();
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
        assert_eq!(
            judge(
                &source,
                ResyncBudget::DEFAULT,
                &Progress::bytes("verifying", 0, false)
            )
            .unwrap()
            .0
            .frames,
            4000
        );

        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(1000).unwrap();
        let err = judge(
            &source,
            ResyncBudget::DEFAULT,
            &Progress::bytes("verifying", 0, false),
        )
        .err()
        .unwrap();
        assert_eq!(
            err.to_string(),
            format!(
                "{} shrank from {} to 1000 bytes while being read",
                path.display(),
                bytes.len()
            )
        );
    }
}
