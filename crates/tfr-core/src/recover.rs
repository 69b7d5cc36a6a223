//! Forensics on a damaged stream: what a TensorFlow error offset points at, and which records can
//! be kept.
//!
//! TensorFlow stops at the first bad frame and names one offset: the frame start for a bad length
//! CRC or a truncated frame, the payload start (frame + 12) for a bad payload CRC. [`locate`] maps
//! such an offset back onto the frame index, says which case it is and what exactly is damaged, and
//! what a resynchronising reader still finds after it. [`SalvagePlan`] is the list of intact frames
//! to copy into a new file, re-framed with freshly computed CRCs, with what it leaves behind: frames
//! nested inside damaged records, and bytes the resync passed over unverified. Both are pure
//! functions of the index and the bytes, so the CLI and the TUI present the same findings.

use std::io::{self, Write};
use std::ops::Range;

use crate::bytes::ByteSource;
use crate::frame::{FOOTER_LEN, Frame, FrameIndex, FrameStatus, HEADER_LEN, Header};
use crate::nested::NestedFrames;
use crate::span::{FileOffset, FileRange};
use crate::words::plural;

/// Which part of a frame an offset falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Bytes 0..8: the `u64` payload length.
    LengthField,
    /// Bytes 8..12: the masked CRC of the length.
    LengthCrc,
    Payload,
    /// The 4 bytes after the payload: its masked CRC.
    PayloadCrc,
    /// Past the frame's declared extent (or with no trustworthy extent): bytes skipped by resync.
    Skipped,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::LengthField => "length",
            Part::LengthCrc => "length_crc",
            Part::Payload => "payload",
            Part::PayloadCrc => "payload_crc",
            Part::Skipped => "skipped",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Part::LengthField => "in the length field of the header",
            Part::LengthCrc => "in the length CRC of the header",
            Part::Payload => "in the payload",
            Part::PayloadCrc => "in the payload CRC after the payload",
            Part::Skipped => "in bytes that belong to no intact frame",
        }
    }
}

/// What an offset turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// A damaged frame; its status says how it is damaged.
    Damaged(FrameStatus),
    /// Inside an intact frame: TensorFlow would not report an error here.
    IntactFrame,
    /// At or past the end of the stream.
    PastEnd,
}

impl Case {
    /// The machine name: a frame status name (as in the fixtures' `kind`), `intact` or `past_end`.
    pub fn name(self) -> &'static str {
        match self {
            Case::Damaged(status) => status.name(),
            Case::IntactFrame => "intact",
            Case::PastEnd => "past_end",
        }
    }
}

/// Which CRC of a frame a [`CrcCheck`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrcField {
    Length,
    Payload,
}

impl CrcField {
    /// The stable machine name used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            CrcField::Length => "length",
            CrcField::Payload => "payload",
        }
    }
}

/// A CRC as stored in the file and as computed from the bytes it protects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrcCheck {
    pub field: CrcField,
    pub stored: u32,
    pub expected: u32,
}

/// Everything [`locate`] found out about one offset.
#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    pub offset: FileOffset,
    pub stream_len: u64,
    /// The frame whose region holds the offset.
    pub frame: Option<Frame>,
    pub case: Case,
    pub part: Option<Part>,
    /// True when TensorFlow names exactly this offset for this frame's damage.
    pub matches_tensorflow: bool,
    /// The message TensorFlow gives for this frame, when it gives one.
    pub tensorflow_message: Option<String>,
    pub crc: Option<CrcCheck>,
    /// Payload bytes present after the header, when the header is complete.
    pub available_after_header: Option<u64>,
    /// Intact frames before the located frame.
    pub intact_before: usize,
    /// Records a strict sequential reader (TensorFlow) returns before its first problem.
    pub strict_reads: usize,
    /// Whether TensorFlow's reader fails on this stream at all: it reads past short trailing
    /// bytes (fewer than a frame header) without an error.
    pub tensorflow_fails: bool,
    /// Damaged frames in the whole stream.
    pub damaged_frames: usize,
    /// What is wrong with the frame, as `verify` says it (empty for an intact frame).
    pub problem: String,
    /// Index ranges of the intact frames after the located frame.
    pub intact_after: Vec<Range<usize>>,
    pub intact_after_count: usize,
    /// The findings in plain sentences.
    pub explanation: String,
}

/// Part of `frame` that `offset` falls in.
fn part_of(frame: &Frame, offset: FileOffset) -> Part {
    let rel = offset.distance_from(frame.offset);
    let extent = match frame.status {
        FrameStatus::Intact | FrameStatus::DataCrcMismatch => {
            frame.frame_end().map(|end| end.distance_from(frame.offset))
        }
        FrameStatus::TruncatedRecord | FrameStatus::LengthExceedsFile => frame
            .declared_length
            .map(|l| HEADER_LEN.saturating_add(l).saturating_add(FOOTER_LEN)),
        FrameStatus::LengthCrcMismatch => Some(HEADER_LEN),
        FrameStatus::PartialHeader => None,
    };
    let Some(extent) = extent else {
        return Part::Skipped;
    };
    match rel {
        r if r >= extent => Part::Skipped,
        0..8 => Part::LengthField,
        8..12 => Part::LengthCrc,
        r if r < extent - FOOTER_LEN => Part::Payload,
        _ => Part::PayloadCrc,
    }
}

/// Compresses sorted indices into ranges.
fn ranges(indices: impl Iterator<Item = usize>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for i in indices {
        match out.last_mut() {
            Some(last) if last.end == i => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// Renders index ranges as `0-191, 193-199`.
pub fn ranges_text(ranges: &[Range<usize>]) -> String {
    ranges
        .iter()
        .map(|r| {
            if r.end - r.start == 1 {
                r.start.to_string()
            } else {
                format!("{}-{}", r.start, r.end - 1)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Explains what `offset` in the (decompressed) stream is. `index` must be complete.
pub fn locate<S: ByteSource + ?Sized>(
    index: &FrameIndex,
    data: &S,
    offset: FileOffset,
) -> Location {
    let stream_len = data.len();
    // Frames are re-read from the index on each pass rather than collected: an index of millions
    // of frames stays a packed `u64` each.
    let frames = || index.frames(data);
    let strict_reads = frames().take_while(|f| f.status.is_intact()).count();
    let tensorflow_fails = index
        .get(data, strict_reads)
        .is_some_and(|f| f.status != FrameStatus::PartialHeader);
    // TensorFlow's offset names a damaged frame even when an intact frame found by resync starts
    // exactly there (a data-CRC frame whose header overlaps the next intact frame), so that
    // reading wins over the frame whose region holds the byte.
    let frame = frames()
        .filter(|f| !f.status.is_intact())
        .find(|f| f.tensorflow_offset() == Some(offset))
        .or_else(|| index.frame_containing(data, offset));
    let mut location = Location {
        offset,
        stream_len,
        frame,
        case: Case::PastEnd,
        part: None,
        matches_tensorflow: false,
        tensorflow_message: None,
        crc: None,
        available_after_header: None,
        intact_before: 0,
        strict_reads,
        tensorflow_fails,
        damaged_frames: index.damaged_count(),
        problem: String::new(),
        intact_after: Vec::new(),
        intact_after_count: 0,
        explanation: String::new(),
    };
    let Some(frame) = frame else {
        location.explanation = format!(
            "byte {offset} is past the end of the stream ({stream_len} bytes, {}); the offset belongs to another file, or to the decompressed stream of a compressed one",
            plural(index.len(), "frame")
        );
        return location;
    };
    let part = part_of(&frame, offset);
    location.part = Some(part);
    location.case = if frame.status.is_intact() {
        Case::IntactFrame
    } else {
        Case::Damaged(frame.status)
    };
    location.matches_tensorflow = frame.tensorflow_offset() == Some(offset);
    location.tensorflow_message = frame.tensorflow_message();
    let is_last = index.is_complete() && frame.index + 1 == index.len();
    location.problem = crate::damage::problem(&frame, data, is_last);
    let header = Header::read(data, frame.offset);
    location.available_after_header = header.map(|_| {
        FileOffset(stream_len)
            .distance_from(frame.offset)
            .saturating_sub(HEADER_LEN)
    });
    location.crc = match frame.status {
        FrameStatus::LengthCrcMismatch => header.map(|h| CrcCheck {
            field: CrcField::Length,
            stored: h.stored_length_crc,
            expected: h.computed_length_crc,
        }),
        FrameStatus::DataCrcMismatch => frame.data_crcs(data).map(|(stored, expected)| CrcCheck {
            field: CrcField::Payload,
            stored,
            expected,
        }),
        _ => None,
    };
    location.intact_before = frames()
        .take(frame.index)
        .filter(|f| f.status.is_intact())
        .count();
    location.intact_after = ranges(
        (frame.index + 1..index.len())
            .filter_map(|i| index.get(data, i))
            .filter(|f| f.status.is_intact())
            .map(|f| f.index),
    );
    location.intact_after_count = location.intact_after.iter().map(|r| r.len()).sum();
    location.explanation = explain(&location, &frame);
    location
}

/// The explanation `locate` gives: where the byte lies, what is wrong with its frame (and what
/// TensorFlow says there), and which frames around it are intact.
fn explain(loc: &Location, frame: &Frame) -> String {
    let mut text = where_in_frame(loc, frame);
    text.push_str(&frame_state(loc, frame));
    text.push_str(&intact_around(loc));
    text
}

/// The first sentence: which part of which frame holds the byte.
fn where_in_frame(loc: &Location, frame: &Frame) -> String {
    let at = loc.offset;
    let where_ = loc.part.map_or("", |p| p.describe());
    let length = frame
        .declared_length
        .map_or(String::new(), |l| format!(", declared length {l}"));
    if frame.status == FrameStatus::PartialHeader {
        format!(
            "byte {at} is in the last {} bytes of the stream, which start at byte {}. ",
            FileOffset(loc.stream_len).distance_from(frame.offset),
            frame.offset
        )
    } else if loc.part == Some(Part::Skipped) {
        format!(
            "byte {at} is in the damaged bytes after the header of frame {} (starting at byte {}{length}): no intact frame covers it. ",
            frame.index, frame.offset
        )
    } else {
        format!(
            "byte {at} is {where_} of frame {} (starting at byte {}{length}). ",
            frame.index, frame.offset
        )
    }
}

/// Whether the frame is intact, and if not, what is wrong and what TensorFlow reports.
fn frame_state(loc: &Location, frame: &Frame) -> String {
    let mut text = String::new();
    if frame.status == FrameStatus::Intact {
        text.push_str(
            "That frame is intact: both CRCs match, so TensorFlow would not report an error here. If TensorFlow did, it read a different file (or this file with a different compression_type). ",
        );
    } else {
        // The same sentence `verify` and `list` give for this frame.
        let mut problem = loc.problem.clone();
        if let Some(first) = problem.get(..1) {
            problem.replace_range(..1, &first.to_uppercase());
        }
        text.push_str(&format!("{problem}. "));
    }
    if let Some(message) = &loc.tensorflow_message {
        let crash = crash_note(frame.status);
        if loc.matches_tensorflow {
            let why = if frame.status == FrameStatus::DataCrcMismatch {
                "the payload start, frame + 12"
            } else {
                "the frame start"
            };
            text.push_str(&format!(
                "This is exactly where TensorFlow reports \"{message}\"{crash} ({why}). "
            ));
        } else {
            text.push_str(&format!(
                "TensorFlow reports this frame as \"{message}\"{crash}. "
            ));
        }
    }
    text
}

/// How many frames before the byte's frame are intact, and which after it.
fn intact_around(loc: &Location) -> String {
    let mut text = format!(
        "{} before it {} intact",
        plural(loc.intact_before, "frame"),
        if loc.intact_before == 1 { "is" } else { "are" }
    );
    if loc.tensorflow_fails {
        text.push_str(&format!(
            " (a strict reader such as TensorFlow returns {} before its first error)",
            plural(loc.strict_reads, "record")
        ));
    } else if loc.damaged_frames > 0 {
        text.push_str(&format!(
            " (TensorFlow reads all {} and stops at the short trailing bytes without an error)",
            plural(loc.strict_reads, "record")
        ));
    } else {
        text.push_str(" (no frame of this file is damaged)");
    }
    let which = if loc.intact_after_count == 1 {
        "frame"
    } else {
        "frames"
    };
    if loc.intact_after_count == 0 {
        text.push_str("; no intact frame follows it.");
    } else if loc.damaged_frames > 0 {
        text.push_str(&format!(
            "; after it, resync finds {} intact: {which} {}.",
            plural(loc.intact_after_count, "more frame"),
            ranges_text(&loc.intact_after)
        ));
    } else {
        // Nothing to resynchronise after: the frames simply follow.
        text.push_str(&format!(
            "; after it, {} {} intact: {which} {}.",
            plural(loc.intact_after_count, "more frame"),
            if loc.intact_after_count == 1 {
                "is"
            } else {
                "are"
            },
            ranges_text(&loc.intact_after)
        ));
    }
    text
}

/// Which frames a salvage keeps, and what it leaves behind.
#[derive(Debug, Clone)]
pub struct SalvagePlan<'a> {
    /// Intact frames, in stream order.
    pub kept: Vec<Frame>,
    /// Damaged frames (each may stand for several lost records).
    pub dropped: Vec<Frame>,
    /// `[start, end)` byte ranges covered by no intact frame.
    pub skipped: Vec<FileRange>,
    /// Intact frames inside dropped records that hold a TFRecord stream, by dropped frame in
    /// stream order: not records of this stream, so written only by [`SalvagePlan::write_nested`].
    pub nested: Vec<NestedFrames<'a>>,
    /// Byte ranges the resync passed over without checking (see
    /// [`FrameIndex::unverified_ranges`]): intact records there may be missing from `kept`.
    pub unverified: Vec<FileRange>,
}

impl<'a> SalvagePlan<'a> {
    /// Sorts the frames of a complete `index` into kept and dropped.
    pub fn new<S: ByteSource + ?Sized>(index: &FrameIndex, data: &'a S) -> SalvagePlan<'a> {
        let mut plan = SalvagePlan {
            kept: Vec::new(),
            dropped: Vec::new(),
            skipped: Vec::new(),
            nested: Vec::new(),
            unverified: index.unverified_ranges().to_vec(),
        };
        let mut covered_to = FileOffset::ZERO;
        for frame in index.frames(data) {
            if !frame.status.is_intact() {
                plan.nested.extend(NestedFrames::find(index, data, &frame));
                plan.dropped.push(frame);
                continue;
            }
            if frame.offset > covered_to {
                plan.skipped.push(FileRange::new(covered_to, frame.offset));
            }
            covered_to = frame.frame_end().unwrap_or(frame.region_end);
            plan.kept.push(frame);
        }
        let end = FileOffset(data.len());
        if end > covered_to {
            plan.skipped.push(FileRange::new(covered_to, end));
        }
        plan
    }

    pub fn skipped_bytes(&self) -> u64 {
        self.skipped.iter().map(FileRange::len).sum()
    }

    /// Frames nested inside dropped records, over all of them.
    pub fn nested_count(&self) -> usize {
        self.nested.iter().map(NestedFrames::count).sum()
    }

    pub fn unverified_bytes(&self) -> u64 {
        self.unverified.iter().map(FileRange::len).sum()
    }

    /// Writes the kept records as a new TFRecord stream; returns the bytes written.
    /// A payload that cannot be read fails the write, naming the record and where it failed.
    pub fn write<S: ByteSource + ?Sized>(
        &self,
        data: &S,
        out: &mut (impl Write + ?Sized),
    ) -> io::Result<u64> {
        let mut written = 0u64;
        for frame in &self.kept {
            let no_payload = || {
                io::Error::other(format!(
                    "frame {} has no payload in the stream",
                    frame.index
                ))
            };
            let range = frame.payload_range().ok_or_else(no_payload)?;
            let payload = data.read(range).map_err(|e| {
                io::Error::other(format!(
                    "record {}: cannot read at byte {}: {e}",
                    frame.index,
                    e.range().start
                ))
            })?;
            written += crate::frame::write_record(payload, out)?;
        }
        Ok(written)
    }

    /// Writes the nested frames, re-framed, in stream order; returns the bytes written.
    pub fn write_nested(&self, out: &mut (impl Write + ?Sized)) -> io::Result<u64> {
        let mut written = 0u64;
        for payload in self.nested.iter().flat_map(NestedFrames::payloads) {
            written += crate::frame::write_record(payload, out)?;
        }
        Ok(written)
    }
}

/// What `verify` adds to TensorFlow's message for a frame of status `status`.
fn crash_note(status: FrameStatus) -> &'static str {
    if status == FrameStatus::LengthExceedsFile {
        crate::damage::HUGE_LENGTH_CRASH
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::encode_records;

    fn locate_in(data: &[u8], offset: u64) -> Location {
        locate(&FrameIndex::build(data), data, FileOffset(offset))
    }

    #[test]
    fn short_trailing_bytes_are_not_a_tensorflow_error() {
        let mut data = encode_records(&[b"first", b"second"]);
        let end = data.len() as u64;
        data.extend_from_slice(&[1, 2, 3, 4, 5]);
        let loc = locate_in(&data, end);
        assert_eq!(loc.case, Case::Damaged(FrameStatus::PartialHeader));
        assert!(!loc.tensorflow_fails);
        assert_eq!(loc.tensorflow_message, None);
        assert!(
            !loc.explanation.contains("before its first error"),
            "{}",
            loc.explanation
        );
        assert!(
            loc.explanation
                .contains("TensorFlow reads all 2 records and stops at the short trailing bytes without an error"),
            "{}",
            loc.explanation
        );

        // Real damage before them: TensorFlow does fail there.
        data[21 + 12 + 2] ^= 0x10;
        let loc = locate_in(&data, end);
        assert!(loc.tensorflow_fails);
        assert!(
            loc.explanation
                .contains("returns 1 record before its first error")
        );
    }

    #[test]
    fn payload_crc_offset_is_frame_plus_twelve() {
        let mut data = encode_records(&[b"first", b"second", b"third"]);
        data[21 + 12 + 2] ^= 0x10;
        let loc = locate_in(&data, 33);
        assert_eq!(loc.case, Case::Damaged(FrameStatus::DataCrcMismatch));
        assert_eq!(loc.frame.unwrap().index, 1);
        assert_eq!(loc.part, Some(Part::Payload));
        assert!(loc.matches_tensorflow);
        let crc = loc.crc.unwrap();
        assert_eq!(crc.field, CrcField::Payload);
        assert_ne!(crc.stored, crc.expected);
        assert_eq!((loc.intact_before, loc.strict_reads), (1, 1));
        assert_eq!(loc.intact_after, vec![2..3]);
        assert!(loc.explanation.contains("corrupted record at 33"));

        // The frame start of the same frame is not where TensorFlow points.
        let loc = locate_in(&data, 21);
        assert!(!loc.matches_tensorflow);
        assert_eq!(loc.part, Some(Part::LengthField));
    }

    #[test]
    fn length_crc_and_truncation_point_at_the_frame_start() {
        let mut data = encode_records(&[b"first", b"second", b"third"]);
        data[29] ^= 1;
        let loc = locate_in(&data, 21);
        assert_eq!(loc.case, Case::Damaged(FrameStatus::LengthCrcMismatch));
        assert!(loc.matches_tensorflow);
        assert_eq!(loc.crc.unwrap().field, CrcField::Length);

        let data = encode_records(&[b"first", b"second"]);
        let loc = locate_in(&data[..36], 21);
        assert_eq!(loc.case, Case::Damaged(FrameStatus::TruncatedRecord));
        assert_eq!(loc.available_after_header, Some(3));
        assert_eq!(
            loc.tensorflow_message.as_deref(),
            Some("truncated record at 21")
        );
    }

    #[test]
    fn offsets_in_intact_frames_name_the_part() {
        let data = encode_records(&[b"first", b"second"]);
        let parts: Vec<_> = [21, 29, 33, 39, 40]
            .iter()
            .map(|&o| locate_in(&data, o).part.unwrap())
            .collect();
        assert_eq!(
            parts,
            vec![
                Part::LengthField,
                Part::LengthCrc,
                Part::Payload,
                Part::PayloadCrc,
                Part::PayloadCrc
            ]
        );
        let loc = locate_in(&data, 1);
        assert_eq!(loc.case, Case::IntactFrame);
        assert!(!loc.matches_tensorflow);
        // In a file without damage, the frames after it simply follow: nothing is resynchronised.
        assert!(
            loc.explanation
                .ends_with("after it, 1 more frame is intact: frame 1."),
            "{}",
            loc.explanation
        );
        let loc = locate_in(&data, 21);
        assert_eq!(loc.case, Case::IntactFrame);
        assert!(!loc.matches_tensorflow);
        assert_eq!(locate_in(&data, 43).case, Case::PastEnd);
        assert_eq!(locate_in(&[], 0).case, Case::PastEnd);
    }

    #[test]
    fn salvage_keeps_intact_frames_and_lists_gaps() {
        let mut data = encode_records(&[b"first", b"second", b"third"]);
        data[35] ^= 0x10;
        data.extend_from_slice(b"tail");
        let index = FrameIndex::build(&data);
        let plan = SalvagePlan::new(&index, &data);
        assert_eq!(plan.kept.len(), 2);
        assert_eq!(plan.dropped.len(), 2);
        let range = |start, end| FileRange::new(FileOffset(start), FileOffset(end));
        assert_eq!(plan.skipped, vec![range(21, 43), range(64, 68)]);
        let mut out = Vec::new();
        plan.write(&data, &mut out).unwrap();
        assert_eq!(out, encode_records(&[b"first", b"third"]));
        assert!(plan.nested.is_empty() && plan.unverified.is_empty());
    }

    #[test]
    fn salvage_leaves_nested_frames_out_unless_asked() {
        let inner = encode_records(&[b"inner0", b"inner1"]);
        let mut damaged = encode_records(&[&inner]);
        damaged[20] ^= 1; // inside the stream's first header: the outer CRC fails
        let mut data = encode_records(&[b"outer0"]);
        data.extend_from_slice(&damaged);
        data.extend_from_slice(&encode_records(&[b"outer2"]));
        let index = FrameIndex::build(&data);
        let plan = SalvagePlan::new(&index, &data);
        assert_eq!(plan.kept.len(), 2);
        assert_eq!(plan.dropped.len(), 1);
        assert_eq!(plan.nested_count(), 1);
        assert_eq!(plan.nested[0].parent.index, 1);
        let mut out = Vec::new();
        plan.write(&data, &mut out).unwrap();
        assert_eq!(out, encode_records(&[b"outer0", b"outer2"]));
        plan.write_nested(&mut out).unwrap();
        assert_eq!(out, encode_records(&[b"outer0", b"outer2", b"inner1"]));
    }

    /// Found by the `frame_index` fuzz target: frame 1 (data CRC mismatch at 11) has its
    /// TensorFlow offset 23 exactly where resync finds intact frame 2.
    #[rustfmt::skip]
    const OVERLAP: [u8; 130] = [
        0x53, 0x00, 0x00, 0x9c, 0xc6, 0x18, 0x40, 0x69, 0x97, 0xfb, 0x30, 0x53, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x0d, 0x7d, 0x4e, 0x91, 0x53, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0d,
        0x7d, 0x4e, 0x91, 0x0a, 0x51, 0x0a, 0x11, 0x0a, 0x08, 0x66, 0x65, 0x61, 0x74, 0x75, 0x72, 0x65,
        0x30, 0x12, 0x05, 0x1a, 0x03, 0x0a, 0x01, 0x01, 0x0a, 0x11, 0x0a, 0x08, 0x66, 0x65, 0x61, 0x74,
        0x75, 0x72, 0x65, 0x31, 0x12, 0x05, 0x1a, 0x03, 0x0a, 0x01, 0x01, 0x0a, 0x13, 0x0a, 0x08, 0x66,
        0x65, 0x61, 0x74, 0x75, 0x72, 0x65, 0x32, 0x12, 0x07, 0x0a, 0x05, 0x0a, 0x03, 0x64, 0x6f, 0x67,
        0x0a, 0x14, 0x0a, 0x08, 0x66, 0x65, 0x61, 0x74, 0x75, 0x72, 0x65, 0x33, 0x12, 0x08, 0x12, 0x06,
        0x0a, 0x04, 0x1a, 0x29, 0xb6, 0xbe, 0x56, 0x06, 0x0f, 0x73, 0x54, 0x00, 0x00, 0x00, 0x00, 0x69,
        0xbb, 0x9e,
    ];

    #[test]
    fn a_tensorflow_offset_at_an_overlapping_intact_frame_names_the_damaged_one() {
        let index = FrameIndex::build(&OVERLAP);
        let statuses: Vec<_> = index
            .frames(&OVERLAP)
            .map(|f| (f.offset.0, f.status))
            .collect();
        assert_eq!(statuses[1], (11, FrameStatus::DataCrcMismatch));
        assert_eq!(statuses[2], (23, FrameStatus::Intact));
        let loc = locate(&index, &OVERLAP, FileOffset(23));
        assert_eq!(loc.frame.unwrap().index, 1);
        assert_eq!(loc.case, Case::Damaged(FrameStatus::DataCrcMismatch));
        assert!(loc.matches_tensorflow);
        assert_eq!(loc.part, Some(Part::Payload));
        // Any other byte of frame 2 still names frame 2.
        assert_eq!(
            locate(&index, &OVERLAP, FileOffset(24))
                .frame
                .unwrap()
                .index,
            2
        );
    }

    #[test]
    fn ranges_are_compressed() {
        let r = ranges([0, 1, 2, 5, 7, 8].into_iter());
        assert_eq!(r, vec![0..3, 5..6, 7..9]);
        assert_eq!(ranges_text(&r), "0-2, 5, 7-8");
    }
}
