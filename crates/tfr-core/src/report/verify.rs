//! `verify`'s verdict on one file: both CRCs of every frame, that the file ends on a frame
//! boundary, the state of a compressed stream, and (when asked) whether every image decodes.
//!
//! A GZIP or ZLIB file is judged in its decompressed stream; a damaged stream is one more
//! problem, reported last with its compressed offset. Frames nested inside a damaged record are
//! reported with that record, not counted as frames. A file that shrinks while it is checked is
//! not judged: the check fails with the error that says so.

use std::path::Path;

use serde::Serialize;

use super::{NestedCount, Progress, ser};
use crate::compress::{Compressed, IgnoredTail, OversizedBlock, StreamProblemKind};
use crate::damage;
use crate::dataset::Tally;
use crate::dataset::report::{DatasetReport, SplitPlace};
use crate::error::Error;
use crate::frame::{FrameIndex, FrameStatus};
use crate::image::check::Undecodable;
use crate::input::OpenOptions;
use crate::nested::NestedFrames;
use crate::resync::ResyncBudget;
use crate::source::Source;
use crate::span::{FileOffset, FileRange};

/// How a file is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyOptions {
    pub budget: ResyncBudget,
    /// Decode every image of every intact record.
    pub images: bool,
}

/// What is damaged: one frame, the compressed stream the frames were read from, or an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damaged {
    Frame(FrameStatus),
    Stream(StreamProblemKind),
    /// An image in an intact record that does not decode.
    Image,
}

impl Damaged {
    /// The machine name (`status` in JSON).
    pub fn name(self) -> &'static str {
        match self {
            Damaged::Frame(status) => status.name(),
            Damaged::Stream(kind) => kind.name(),
            Damaged::Image => "image_undecodable",
        }
    }
}

impl Serialize for Damaged {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// The frame's index; `None` for a problem of the compressed stream.
    pub index: Option<usize>,
    /// Where the damage starts.
    #[serde(serialize_with = "ser::offset")]
    pub offset: FileOffset,
    pub status: Damaged,
    /// The bytes the damage covers (empty at the decompressed offset for a stream problem).
    #[serde(rename = "skipped", serialize_with = "ser::range")]
    pub region: FileRange,
    #[serde(rename = "problem")]
    pub description: String,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser::optional_offset"
    )]
    pub tensorflow_offset: Option<FileOffset>,
    /// Where decoding stopped in the compressed file, for a problem of the compressed stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compressed_offset: Option<u64>,
    /// Frames nested inside the damaged record.
    #[serde(rename = "nested_frames", skip_serializing_if = "Option::is_none")]
    pub nested: Option<NestedCount>,
}

/// An image too large to decode within the budget: a note, not damage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageNote {
    pub index: usize,
    #[serde(serialize_with = "ser::offset")]
    pub offset: FileOffset,
    pub feature: String,
    pub note: String,
    /// The sentence the text output gives.
    #[serde(skip)]
    pub text: String,
}

impl ImageNote {
    fn of(image: &Undecodable) -> ImageNote {
        ImageNote {
            index: image.record,
            offset: image.at,
            feature: image.feature.clone(),
            note: image.reason.clone(),
            text: image.describe_note(),
        }
    }
}

/// What `--images` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageCounts {
    /// Undecodable images (each is also a problem).
    #[serde(rename = "images_undecodable")]
    pub undecodable: usize,
    #[serde(rename = "images_not_decoded")]
    pub not_decoded: Vec<ImageNote>,
}

/// Resync candidates left unverified (see [`FrameIndex::unverified_candidates`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unverified {
    #[serde(rename = "unverified_candidates")]
    pub candidates: u64,
    /// Where they are, merged.
    #[serde(rename = "unverified_byte_ranges", serialize_with = "ser::ranges")]
    pub ranges: Vec<FileRange>,
    /// The sentence that says so.
    #[serde(skip)]
    pub note: Option<String>,
}

/// Trailing bytes TensorFlow skips.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IgnoredBytes {
    pub compressed_offset: u64,
    pub length: u64,
    pub reason: String,
}

/// A SNAPPY block TensorFlow's reader cannot hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TooLargeBlock {
    pub block: u64,
    pub compressed_offset: u64,
    pub compressed_length: u64,
    pub decompressed_length: u64,
    pub tensorflow_message: String,
}

/// How a compressed file was stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compression {
    pub compression: &'static str,
    pub compressed_bytes: u64,
    /// Decompressed bytes per compressed byte.
    pub ratio: f64,
    #[serde(rename = "ignored_tail", skip_serializing_if = "Option::is_none")]
    pub ignored: Option<IgnoredBytes>,
    #[serde(rename = "beyond_tensorflow", skip_serializing_if = "Option::is_none")]
    pub oversized: Option<TooLargeBlock>,
    /// What the stream is, for the text output's sentences.
    #[serde(skip)]
    pub stream: Compressed,
}

impl Compression {
    fn of(stream: &Compressed, decompressed: u64) -> Compression {
        Compression {
            compression: stream.compression.name(),
            compressed_bytes: stream.compressed_len,
            ratio: stream.ratio(decompressed),
            ignored: stream
                .ignored
                .as_ref()
                .map(|tail: &IgnoredTail| IgnoredBytes {
                    compressed_offset: tail.compressed_offset,
                    length: tail.len,
                    reason: tail.reason.to_string(),
                }),
            oversized: stream
                .oversized
                .as_ref()
                .map(|b: &OversizedBlock| TooLargeBlock {
                    block: b.index,
                    compressed_offset: b.compressed_offset,
                    compressed_length: b.compressed_len,
                    decompressed_length: b.decompressed_len,
                    tensorflow_message: b.tensorflow_message(),
                }),
            stream: stream.clone(),
        }
    }
}

/// The verdict on one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileVerdict {
    /// Bytes of the file (of its decompressed stream, when compressed).
    pub bytes: u64,
    pub frames: usize,
    pub intact: usize,
    /// Damaged frames (a stream or image problem is no frame).
    pub damaged: usize,
    /// No problem of any kind.
    pub ok: bool,
    pub problems: Vec<Problem>,
    #[serde(flatten)]
    pub images: Option<ImageCounts>,
    #[serde(flatten)]
    pub unverified: Option<Unverified>,
    #[serde(flatten)]
    pub compression: Option<Compression>,
    /// The notes the text output gives before the verdict (bytes TensorFlow skips, a block it
    /// cannot hold, candidates left unverified, images not decoded), in that order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Frames and payload bytes, for a dataset's summary; JSON gives the intact records' payload
    /// bytes (what `dataset_info.json`'s `numBytes` counts), so that verdicts made apart merge
    /// into a dataset's.
    #[serde(rename = "payload_bytes", serialize_with = "payload_bytes")]
    pub tally: Tally,
}

fn payload_bytes<S: serde::Serializer>(tally: &Tally, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(tally.payload_bytes)
}

impl FileVerdict {
    /// The notes of [`FileVerdict::notes`], from the verdict's parts.
    fn said_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let stream = self.compression.as_ref().map(|c| &c.stream);
        if let Some(tail) = stream.and_then(|c| c.ignored.as_ref()) {
            notes.push(tail.to_string());
        }
        if let Some(block) = stream.and_then(|c| c.oversized.as_ref()) {
            notes.push(block.to_string());
        }
        if let Some(note) = self.unverified.as_ref().and_then(|u| u.note.as_ref()) {
            notes.push(format!("{note}; --thorough searches them"));
        }
        for note in self.images.iter().flat_map(|i| &i.not_decoded) {
            notes.push(note.text.clone());
        }
        notes
    }
}

/// What the text output says of one verdict: made from the verdict, or read back from its
/// `--json` line (so that verdicts made apart print as they would have where they were made).
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    pub ok: bool,
    pub frames: u64,
    pub intact: u64,
    pub damaged: u64,
    /// Bytes of the file (decompressed, when compressed).
    pub bytes: u64,
    pub problems: Vec<SaidProblem>,
    pub notes: Vec<String>,
    /// How the file is compressed, and its bytes on disk.
    pub compression: Option<(crate::compress::Compression, u64)>,
    /// Images found undecodable and not decoded, when images were checked.
    pub images: Option<(u64, u64)>,
}

/// One problem's line: the frame (`None`: the file's), where its bytes start, what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct SaidProblem {
    pub index: Option<usize>,
    pub start: u64,
    pub description: String,
}

impl FileVerdict {
    /// What the text output says of this verdict.
    pub fn said(&self) -> Said {
        Said {
            ok: self.ok,
            frames: self.frames as u64,
            intact: self.intact as u64,
            damaged: self.damaged as u64,
            bytes: self.bytes,
            problems: self
                .problems
                .iter()
                .map(|p| SaidProblem {
                    index: p.index,
                    start: p.region.start.0,
                    description: p.description.clone(),
                })
                .collect(),
            notes: self.notes.clone(),
            compression: self
                .compression
                .as_ref()
                .map(|c| (c.stream.compression, c.stream.compressed_len)),
            images: self
                .images
                .as_ref()
                .map(|i| (i.undecodable as u64, i.not_decoded.len() as u64)),
        }
    }
}

/// One file's line of `verify --json` (`"type": "file"`): its name and place, then its verdict
/// or the error that kept it from being checked.
#[derive(Debug, Serialize)]
pub struct FileLine<'a> {
    /// Always [`FILE_LINE`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The file's name, escaped for JSON.
    pub file: String,
    #[serde(flatten)]
    pub place: Option<SplitPlace>,
    #[serde(flatten)]
    pub outcome: Outcome<'a>,
}

/// The `type` of a file's line of `verify --json`.
pub const FILE_LINE: &str = "file";

/// The `type` of the dataset's summary line of `verify --json`.
pub const DATASET_LINE: &str = "dataset";

/// The dataset's summary line of `verify --json` (`"type": "dataset"`).
#[derive(Debug, Serialize)]
pub struct DatasetLine<'a> {
    /// Always [`DATASET_LINE`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(flatten)]
    pub report: &'a DatasetReport,
}

impl<'a> DatasetLine<'a> {
    pub fn new(report: &'a DatasetReport) -> Self {
        DatasetLine {
            kind: DATASET_LINE,
            report,
        }
    }
}

/// A file's verdict, or why it has none.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome<'a> {
    Checked(&'a FileVerdict),
    Unusable { error: String },
}

/// The verdicts on a run's files, in the order given: each file's, or the error that kept it
/// from being checked. A dataset's verdict is its [`crate::dataset::Summary`] over [`Self::tallies`].
#[derive(Debug)]
pub struct VerifyReport {
    pub files: Vec<Result<FileVerdict, Error>>,
}

impl VerifyReport {
    /// Checks `paths`, one file per core. Each file is closed once checked; objects named by URL
    /// (each fetched whole into a temporary file) are checked a batch of at most
    /// [`ReadOptions::remote_at_once`](crate::source::ReadOptions) bytes at a time, so the disk
    /// they take stays bounded however the threads steal work.
    pub fn check(
        paths: &[std::path::PathBuf],
        open: &OpenOptions,
        options: VerifyOptions,
        progress: &dyn Progress,
    ) -> VerifyReport {
        use rayon::prelude::*;
        let mut files = Vec::with_capacity(paths.len());
        for batch in crate::source::remote::batches(paths, usize::MAX, open.read.remote_at_once) {
            let checked: Vec<_> = paths
                .get(batch)
                .unwrap_or_default()
                .par_iter()
                .map(|path| check_file(path, open, options, progress))
                .collect();
            files.extend(checked);
        }
        VerifyReport { files }
    }

    /// What each file held (`None` for one that could not be checked), for a dataset's summary.
    pub fn tallies(&self) -> Vec<Option<Tally>> {
        let tally = |verdict: &Result<FileVerdict, Error>| verdict.as_ref().ok().map(|v| v.tally);
        self.files.iter().map(tally).collect()
    }

    /// Whether every file was checked and found intact.
    pub fn ok(&self) -> bool {
        self.files.iter().all(|f| f.as_ref().is_ok_and(|v| v.ok))
    }
}

/// Bytes indexed between two progress reports.
const PROGRESS_STEP: u64 = 64 << 20;

/// Checks the file at `path`.
pub fn check_file(
    path: &Path,
    open: &OpenOptions,
    options: VerifyOptions,
    progress: &dyn Progress,
) -> Result<FileVerdict, Error> {
    let source = Source::open(path, &open.read)?;
    let (mut verdict, index) = judge(&source, options.budget, progress)?;
    if options.images {
        let found = crate::image::check::undecodable(&source, &index, &open.decoder);
        // Verdicts from the mapped bytes: worthless if the file shrank meanwhile.
        source.check_unchanged()?;
        verdict.images = Some(ImageCounts {
            undecodable: found.undecodable.len(),
            not_decoded: found.not_decoded.iter().map(ImageNote::of).collect(),
        });
        verdict
            .problems
            .extend(found.undecodable.into_iter().map(|bad| Problem {
                index: Some(bad.record),
                offset: bad.frame.start,
                region: bad.frame,
                status: Damaged::Image,
                tensorflow_offset: None,
                compressed_offset: None,
                description: bad.describe(),
                nested: None,
            }));
        // In file order; a problem of the compressed stream stays last.
        verdict
            .problems
            .sort_by_key(|p| (p.index.is_none(), p.region.start, p.index));
        verdict.ok = verdict.problems.is_empty();
        verdict.notes = verdict.said_notes();
    }
    Ok(verdict)
}

/// Checks every frame of `source`; the verdict, and the index it was made from.
pub fn judge(
    source: &Source,
    budget: ResyncBudget,
    progress: &dyn Progress,
) -> Result<(FileVerdict, FrameIndex), Error> {
    let index = scan(source, budget, progress);
    let mut problems = frame_problems(&index, source);
    // Every verdict above came from the mapped bytes: worthless if the file shrank meanwhile.
    source.check_unchanged()?;
    let stream = source.compression();
    let stream_damaged = stream.is_some_and(|c| c.problem.is_some());
    let tally = Tally {
        compression: stream.map(|c| c.compression),
        ..Tally::of(&index, stream_damaged)
    };
    if let Some(p) = stream.and_then(|c| c.problem.as_ref()) {
        let at = FileOffset(p.decompressed_offset);
        problems.push(Problem {
            index: None,
            offset: at,
            region: FileRange::new(at, at),
            status: Damaged::Stream(p.kind),
            tensorflow_offset: None,
            compressed_offset: Some(p.compressed_offset),
            description: format!("compressed stream damaged: {p}"),
            nested: None,
        });
    }
    let damaged = problems
        .iter()
        .filter(|p| matches!(p.status, Damaged::Frame(_)))
        .count();
    let unverified = (index.unverified_candidates() > 0).then(|| Unverified {
        candidates: index.unverified_candidates(),
        ranges: index.unverified_ranges().to_vec(),
        note: damage::unverified(&index),
    });
    let mut verdict = FileVerdict {
        bytes: source.len(),
        frames: index.len(),
        intact: index.len() - damaged,
        damaged,
        ok: problems.is_empty(),
        problems,
        images: None,
        unverified,
        compression: stream.map(|c| Compression::of(c, source.len())),
        notes: Vec::new(),
        tally,
    };
    verdict.notes = verdict.said_notes();
    Ok((verdict, index))
}

/// Indexes every frame: the intact frames from the start on every core, then the rest frame by
/// frame, saying how far it got.
fn scan(source: &Source, budget: ResyncBudget, progress: &dyn Progress) -> FrameIndex {
    let data = source;
    progress.grow(source.len());
    let mut index = FrameIndex::start_parallel(source, budget);
    progress.advance(index.scanned());
    let mut scanned = index.scanned();
    loop {
        let done = index.scan(data, PROGRESS_STEP);
        progress.advance(index.scanned().saturating_sub(scanned));
        scanned = index.scanned();
        if done {
            return index;
        }
    }
}

/// A problem for each damaged frame, with what is nested in it.
fn frame_problems(index: &FrameIndex, data: &Source) -> Vec<Problem> {
    let count = index.len();
    index
        .damaged_frames(data)
        .map(|frame| {
            let nested = NestedFrames::find(index, data, &frame);
            let mut description = damage::describe(&frame, data, frame.index + 1 == count);
            if let Some(nested) = &nested {
                description = format!("{description}; {}", nested.describe());
            }
            Problem {
                index: Some(frame.index),
                offset: frame.region().start,
                region: frame.region(),
                status: Damaged::Frame(frame.status),
                tensorflow_offset: frame.tensorflow_offset(),
                compressed_offset: None,
                description,
                nested: nested.as_ref().map(NestedCount::of),
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::source::ReadOptions;

    #[test]
    fn a_file_that_shrank_while_checked_is_not_judged() {
        let mut bytes = Vec::new();
        for _ in 0..4000 {
            crate::frame::write_record(&[7; 100], &mut bytes).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shard.tfrecord");
        std::fs::write(&path, &bytes).unwrap();
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
        let (verdict, _) = judge(&source, ResyncBudget::DEFAULT, &()).unwrap();
        assert_eq!(
            (verdict.frames, verdict.intact, verdict.ok),
            (4000, 4000, true)
        );

        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(1000).unwrap();
        let err = judge(&source, ResyncBudget::DEFAULT, &()).err().unwrap();
        assert_eq!(
            err.to_string(),
            format!(
                "{} shrank from {} to 1000 bytes while being read",
                path.display(),
                bytes.len()
            )
        );
    }

    #[test]
    fn a_damaged_frame_is_a_problem_in_json_as_the_text_names_it() {
        let mut bytes = Vec::new();
        for _ in 0..3 {
            crate::frame::write_record(&[7; 10], &mut bytes).unwrap();
        }
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shard.tfrecord");
        std::fs::write(&path, &bytes).unwrap();
        let options = VerifyOptions {
            budget: ResyncBudget::DEFAULT,
            images: false,
        };
        let verdict = check_file(
            &path,
            &OpenOptions::new(crate::payload::Decoder::new(
                crate::schema::Schema::builtin(),
                crate::payload::Reading::Auto,
            )),
            options,
            &(),
        )
        .unwrap();
        assert_eq!((verdict.frames, verdict.intact, verdict.damaged), (3, 2, 1));
        assert_eq!(
            crate::pyjson::to_string(&verdict.problems[0]).unwrap(),
            "{\"index\": 2, \"offset\": 52, \"problem\": \"payload CRC mismatch (stored \
             0xb08594fd, computed 0xb18594fd): the payload or its CRC is damaged; TensorFlow \
             reports \\\"corrupted record at 64\\\"\", \"skipped\": [52, 78], \"status\": \
             \"data_crc_mismatch\", \"tensorflow_offset\": 64}"
        );
    }
}
