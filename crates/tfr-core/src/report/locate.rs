//! `locate`'s answer: what TensorFlow's "corrupted record at N" / "truncated record at N" means
//! for a file, from [`crate::recover::locate`], with the file's compression.

use std::path::Path;

use serde::Serialize;

use super::ser;
use crate::error::Error;
use crate::frame::FrameIndex;
use crate::recover::{self, Case, Location};
use crate::source::{ReadOptions, Source};
use crate::span::FileOffset;

/// The frame holding the offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LocatedFrame {
    pub index: usize,
    #[serde(serialize_with = "ser::offset")]
    pub offset: FileOffset,
    pub status: &'static str,
    /// The declared payload length (`None` when the header is unreadable).
    pub length: Option<u64>,
    /// Where the bytes the frame owns end.
    #[serde(serialize_with = "ser::offset")]
    pub end: FileOffset,
    #[serde(serialize_with = "ser::optional_offset")]
    pub tensorflow_offset: Option<FileOffset>,
}

/// A CRC the offset points into, as stored and as computed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrcFacts {
    pub field: &'static str,
    /// `0x` and eight hex digits.
    pub stored: String,
    pub expected: String,
}

/// The compressed file the stream was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamFacts {
    pub compression: &'static str,
    pub compressed_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_problem: Option<String>,
    /// `GZIP`, as TensorFlow's `compression_type` names it.
    #[serde(skip)]
    pub tensorflow_name: &'static str,
}

/// Everything `locate` says about one offset of one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocateReport {
    /// The file's name, escaped for JSON.
    pub file: String,
    #[serde(serialize_with = "ser::offset")]
    pub offset: FileOffset,
    pub stream_bytes: u64,
    pub case: &'static str,
    pub part: Option<&'static str>,
    pub matches_tensorflow: bool,
    pub tensorflow_message: Option<String>,
    pub intact_before: usize,
    #[serde(rename = "strict_reader_reads")]
    pub strict_reads: usize,
    pub tensorflow_fails: bool,
    /// Index ranges of the intact frames after the located frame, `[start, end)`.
    pub intact_after: Vec<[usize; 2]>,
    pub intact_after_count: usize,
    pub explanation: String,
    pub frame: Option<LocatedFrame>,
    pub crc: Option<CrcFacts>,
    #[serde(flatten)]
    pub stream: Option<StreamFacts>,
    /// What the offset is: damage, an intact frame, or past the end.
    #[serde(skip)]
    pub verdict: Case,
}

/// Locates `offset` in the file at `path` (in its decompressed stream, when compressed).
pub fn locate(path: &Path, read: &ReadOptions, offset: u64) -> Result<LocateReport, Error> {
    let source = Source::open(path, read)?;
    let index = FrameIndex::build(&source);
    let found = recover::locate(&index, &source, FileOffset(offset));
    source.check_unchanged()?;
    let stream = source.compression().map(|info| StreamFacts {
        compression: info.compression.name(),
        compressed_bytes: info.compressed_len,
        stream_problem: info.problem.as_ref().map(ToString::to_string),
        tensorflow_name: info.compression.tensorflow_name(),
    });
    Ok(LocateReport::new(
        crate::escape::path_for_json(path),
        found,
        stream,
    ))
}

impl LocateReport {
    fn new(file: String, found: Location, stream: Option<StreamFacts>) -> LocateReport {
        LocateReport {
            file,
            offset: found.offset,
            stream_bytes: found.stream_len,
            case: found.case.name(),
            part: found.part.map(|p| p.name()),
            matches_tensorflow: found.matches_tensorflow,
            tensorflow_message: found.tensorflow_message,
            intact_before: found.intact_before,
            strict_reads: found.strict_reads,
            tensorflow_fails: found.tensorflow_fails,
            intact_after: found
                .intact_after
                .iter()
                .map(|r| [r.start, r.end])
                .collect(),
            intact_after_count: found.intact_after_count,
            explanation: found.explanation,
            frame: found.frame.map(|f| LocatedFrame {
                index: f.index,
                offset: f.offset,
                status: f.status.name(),
                length: f.declared_length,
                end: f.region_end,
                tensorflow_offset: f.tensorflow_offset(),
            }),
            crc: found.crc.map(|c| CrcFacts {
                field: c.field.name(),
                stored: format!("0x{:08x}", c.stored),
                expected: format!("0x{:08x}", c.expected),
            }),
            stream,
            verdict: found.case,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_in_a_broken_payload_crc_is_located_in_that_frame() {
        let mut bytes = Vec::new();
        for _ in 0..2 {
            crate::frame::write_record(&[1; 4], &mut bytes).unwrap();
        }
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.tfrecord");
        std::fs::write(&path, &bytes).unwrap();
        let report = locate(&path, &ReadOptions::as_is(), 36).unwrap();
        assert!(matches!(report.verdict, Case::Damaged(_)));
        assert_eq!(
            report.frame.map(|f| (f.index, f.offset)),
            Some((1, FileOffset(20)))
        );
        assert_eq!(report.crc.as_ref().map(|c| c.field), Some("payload"));
        let json = crate::pyjson::to_string(&report).unwrap();
        assert!(json.contains("\"part\": \"payload_crc\""), "{json}");
        assert!(!json.contains("compression"), "{json}");
    }
}
