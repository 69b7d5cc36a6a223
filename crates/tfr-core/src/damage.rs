//! Plain-language descriptions of damaged frames, with the offsets a user needs to act on them.

use crate::bytes::ByteSource;
use crate::frame::{FOOTER_LEN, Frame, FrameIndex, FrameStatus, HEADER_LEN, Header};
use crate::span::{FileOffset, FileRange};
use crate::words::plural;

/// Unverified ranges named in a sentence before the rest are summed up.
const RANGES_IN_TEXT: usize = 8;

/// What TensorFlow may do instead of reporting a frame whose header declares more bytes than the
/// file holds, with a valid length CRC: TensorFlow 2.21 allocates the declared length and crashes
/// (SIGSEGV) on lengths like 2^62. `verify`, `list` and `locate` all say so.
pub const HUGE_LENGTH_CRASH: &str =
    " (or crashes: TensorFlow 2.21 dies with SIGSEGV on a length this large)";

/// What is wrong with a frame, in one sentence, with the error TensorFlow reports for it
/// (empty for an intact frame).
pub fn describe<S: ByteSource + ?Sized>(frame: &Frame, data: &S, is_last: bool) -> String {
    let mut text = problem(frame, data, is_last);
    if let Some(message) = frame.tensorflow_message() {
        text.push_str(&format!("; TensorFlow reports \"{message}\""));
        if frame.status == FrameStatus::LengthExceedsFile {
            text.push_str(HUGE_LENGTH_CRASH);
        }
    }
    text
}

/// What is wrong with a frame, without TensorFlow's view of it (empty for an intact frame).
pub fn problem<S: ByteSource + ?Sized>(frame: &Frame, data: &S, is_last: bool) -> String {
    let at_start = frame.offset == FileOffset::ZERO;
    let skipped = frame.region().len();
    let file_len = data.len();
    let header = Header::read(data, frame.offset);
    match frame.status {
        FrameStatus::Intact => String::new(),
        FrameStatus::DataCrcMismatch => {
            let crcs = frame
                .data_crcs(data)
                .map(|(stored, computed)| {
                    format!(" (stored 0x{stored:08x}, computed 0x{computed:08x})")
                })
                .unwrap_or_default();
            let mut text = format!("payload CRC mismatch{crcs}: the payload or its CRC is damaged");
            if let Some(end) = frame.frame_end() {
                let extra = frame.region_end.distance_from(end);
                if extra > 0 && extra < HEADER_LEN + FOOTER_LEN {
                    text.push_str(&format!(
                        "; the next intact frame starts {extra} bytes after this frame's declared end, so the length field is probably wrong although its CRC is valid"
                    ));
                } else if extra > 0 {
                    text.push_str(&format!(
                        ", and the {extra} bytes after it ({}) hold no intact frame",
                        FileRange::new(end, frame.region_end)
                    ));
                } else if frame.region_end < end {
                    text.push_str(&format!(
                        "; its declared length overlaps the next intact frame at {}, so the length itself is wrong",
                        frame.region_end
                    ));
                }
            }
            text
        }
        FrameStatus::LengthCrcMismatch => {
            let crcs = header
                .map(|h| {
                    format!(
                        " (stored 0x{:08x}, expected 0x{:08x})",
                        h.stored_length_crc, h.computed_length_crc
                    )
                })
                .unwrap_or_default();
            let mut text = if at_start && is_last {
                format!(
                    "not a TFRecord file: no valid frame header anywhere in its {file_len} bytes{crcs}"
                )
            } else if is_last && frame.region_end == FileOffset(file_len) {
                format!(
                    "{skipped} trailing bytes at the end of the file are not a frame: length CRC mismatch{crcs}"
                )
            } else {
                format!(
                    "length CRC mismatch{crcs}: {skipped} bytes skipped to the next intact frame"
                )
            };
            if at_start {
                if let Some(kind) = crate::compress::sniff_start(data).map(|c| c.tensorflow_name())
                {
                    text.push_str(&format!(
                        "; the file starts like a {kind} stream: it was probably written with compression_type='{kind}'"
                    ));
                }
            }
            text
        }
        FrameStatus::TruncatedRecord => {
            let declared = header.map_or(0, |h| h.length);
            let available = FileOffset(file_len)
                .distance_from(frame.offset)
                .saturating_sub(HEADER_LEN);
            format!(
                "truncated: the header declares a {declared}-byte payload, so {} bytes (payload and its CRC) must follow the header, but the file ends {available} bytes after it",
                declared.saturating_add(FOOTER_LEN)
            )
        }
        FrameStatus::LengthExceedsFile => {
            let declared = header.map_or(0, |h| h.length);
            format!(
                "the header declares {declared} payload bytes, more than the whole file ({file_len} bytes), with a valid length CRC"
            )
        }
        FrameStatus::PartialHeader => format!(
            "{skipped} trailing bytes, too few for a frame header: a cut-off file or appended bytes (TensorFlow ignores them silently)"
        ),
    }
}

/// What the resync left unchecked when its work limit was reached, naming the byte ranges (`None`
/// when it checked everything).
pub fn unverified(index: &FrameIndex) -> Option<String> {
    let ranges = index.unverified_ranges();
    if ranges.is_empty() {
        return None;
    }
    Some(format!(
        "the resync work limit was reached, so {} inside damaged regions {} not checked: bytes {} ({}) may hold intact records that were not searched (the damaged bytes are full of valid-looking headers, which suggests crafted input)",
        plural(index.unverified_candidates(), "candidate frame header"),
        if index.unverified_candidates() == 1 {
            "was"
        } else {
            "were"
        },
        ranges_text(ranges),
        plural(index.unverified_bytes(), "byte"),
    ))
}

/// `a..b, c..d` for the first few ranges, then how many more.
fn ranges_text(ranges: &[FileRange]) -> String {
    let mut parts: Vec<String> = ranges
        .iter()
        .take(RANGES_IN_TEXT)
        .map(FileRange::to_string)
        .collect();
    if ranges.len() > RANGES_IN_TEXT {
        parts.push(format!("and {} more ranges", ranges.len() - RANGES_IN_TEXT));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{budget_exhaustion as crafted_budget_exhaustion, encode_records};
    use crate::resync::ResyncBudget;

    #[test]
    fn a_spent_resync_budget_is_named_with_its_byte_ranges() {
        let (data, _) = crafted_budget_exhaustion(200);
        let small = ResyncBudget::Limited {
            base: 1000,
            per_scanned_byte: 4,
        };
        let index = FrameIndex::build_with(&data, small);
        let range = index.unverified_ranges().first().cloned().unwrap();
        let note = unverified(&index).unwrap();
        let candidates = index.unverified_candidates();
        assert!(
            note.contains(&format!("so {candidates} candidate frame headers inside")),
            "{note}"
        );
        assert!(
            note.contains(&format!(
                "bytes {}..{} ({} bytes) may hold",
                range.start,
                range.end,
                range.len()
            )),
            "{note}"
        );
        assert!(unverified(&FrameIndex::build_with(&data, ResyncBudget::Unlimited)).is_none());
        let clean = encode_records(&[b"a"]);
        assert!(unverified(&FrameIndex::build(&clean)).is_none());
    }

    #[test]
    fn many_ranges_are_summed_up() {
        let ranges: Vec<FileRange> = (0..10)
            .map(|i| FileRange::new(FileOffset(i * 10), FileOffset(i * 10 + 5)))
            .collect();
        assert_eq!(
            ranges_text(&ranges),
            "0..5, 10..15, 20..25, 30..35, 40..45, 50..55, 60..65, 70..75, and 2 more ranges"
        );
    }
}
