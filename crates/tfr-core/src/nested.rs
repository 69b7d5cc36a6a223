//! Frames stored inside a damaged record: a record whose payload is itself a TFRecord stream.
//!
//! When a record's payload CRC fails but its length is trusted (the frame ends exactly where the
//! file ends or an intact frame begins, see [`crate::frame`]), the scan does not look inside it, so
//! the frames of a TFRecord file stored as that record's payload are not taken for records of this
//! file. They are still worth knowing about: they are found here by indexing the payload on its own,
//! and every command reports them as nested in the damaged record rather than as records.

use crate::bytes::ByteSource;
use crate::frame::{Frame, FrameIndex, FrameStatus};
use crate::span::FileOffset;

/// Offsets shown in a sentence before the rest are elided (JSON lists them all).
const OFFSETS_IN_TEXT: usize = 8;

/// The intact frames found inside the payload of one damaged record.
#[derive(Debug, Clone)]
pub struct NestedFrames<'a> {
    /// The damaged frame whose payload holds them.
    pub parent: Frame,
    payload_start: FileOffset,
    payload: &'a [u8],
    index: FrameIndex,
    intact: usize,
}

impl<'a> NestedFrames<'a> {
    /// The intact frames inside `frame`'s payload, when `frame` is a damaged record whose length the
    /// scan trusted; `None` for any other frame or when nothing intact is inside. The payload is
    /// indexed with `index`'s resync budget.
    pub fn find<S: ByteSource + ?Sized>(
        index: &FrameIndex,
        data: &'a S,
        frame: &Frame,
    ) -> Option<NestedFrames<'a>> {
        if !length_trusted(index, data, frame) {
            return None;
        }
        let payload = frame.payload(data)?;
        let payload_start = frame.payload_range()?.start;
        let nested = FrameIndex::build_with(payload, index.budget());
        let intact = nested.len() - nested.damaged_count();
        (intact > 0).then_some(NestedFrames {
            parent: *frame,
            payload_start,
            payload,
            index: nested,
            intact,
        })
    }

    /// How many intact frames the payload holds.
    pub fn count(&self) -> usize {
        self.intact
    }

    /// The intact nested frames, with offsets in the file (their `index` counts within the
    /// payload's own stream).
    pub fn frames(&self) -> impl Iterator<Item = Frame> + '_ {
        // A nested offset counts from the payload's start, as if the payload were a file.
        let shift = |offset: FileOffset| self.payload_start.saturating_add(offset.0);
        self.index
            .frames(self.payload)
            .filter(|f| f.status.is_intact())
            .map(move |f| Frame {
                offset: shift(f.offset),
                region_end: shift(f.region_end),
                ..f
            })
    }

    /// The payloads of the intact nested frames, in order.
    pub fn payloads(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.index
            .frames(self.payload)
            .filter(|f| f.status.is_intact())
            .filter_map(|f| f.payload(self.payload))
    }

    /// One clause for a damaged frame's description: how many frames its payload holds, where.
    pub fn describe(&self) -> String {
        let mut offsets: Vec<String> = self
            .frames()
            .take(OFFSETS_IN_TEXT)
            .map(|f| f.offset.to_string())
            .collect();
        if self.intact > OFFSETS_IN_TEXT {
            offsets.push(format!("and {} more", self.intact - OFFSETS_IN_TEXT));
        }
        let (frames, they) = match self.intact {
            1 => ("1 intact frame".to_string(), "it is"),
            n => (format!("{n} intact frames"), "they are"),
        };
        format!(
            "its payload holds a TFRecord stream of {frames} (at bytes {}): {they} nested in this record, not records of this file",
            offsets.join(", ")
        )
    }

    /// How many frames it holds and where: `{"count": N, "offsets": [...]}` in JSON.
    pub fn counted(&self) -> NestedCount {
        NestedCount {
            count: self.intact as u64,
            offsets: self.frames().map(|f| f.offset.0).collect(),
        }
    }
}

/// The intact frames nested in a damaged record: how many, and their offsets in the file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NestedCount {
    pub count: u64,
    pub offsets: Vec<u64>,
}

/// Whether the scan trusted `frame`'s length: a payload CRC mismatch whose extent ends exactly
/// where the file ends or the next frame, intact, begins.
fn length_trusted<S: ByteSource + ?Sized>(index: &FrameIndex, data: &S, frame: &Frame) -> bool {
    if frame.status != FrameStatus::DataCrcMismatch || frame.frame_end() != Some(frame.region_end) {
        return false;
    }
    frame.region_end == FileOffset(data.len())
        || index
            .get(data, frame.index + 1)
            .is_some_and(|next| next.status.is_intact())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::encode_records;

    /// `outer0`, a record holding a TFRecord stream of `inner` records with its payload CRC broken,
    /// then `outer2`.
    fn record_holding_a_stream(inner: usize) -> Vec<u8> {
        let names: Vec<Vec<u8>> = (0..inner)
            .map(|i| format!("inner{i}").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = names.iter().map(|n| n.as_slice()).collect();
        let stream = encode_records(&refs);
        let mut damaged = encode_records(&[&stream]);
        if let Some(last) = damaged.last_mut() {
            *last ^= 1;
        }
        let mut data = encode_records(&[b"outer0"]);
        data.extend_from_slice(&damaged);
        data.extend_from_slice(&encode_records(&[b"outer2"]));
        data
    }

    #[test]
    fn frames_inside_a_trusted_damaged_record_are_nested_not_records() {
        let data = record_holding_a_stream(10);
        let index = FrameIndex::build(&data);
        let statuses: Vec<_> = index
            .frames(&data)
            .map(|f| (f.offset.0, f.status))
            .collect();
        let outer2 = data.len() as u64 - 22;
        assert_eq!(
            statuses,
            vec![
                (0, FrameStatus::Intact),
                (22, FrameStatus::DataCrcMismatch),
                (outer2, FrameStatus::Intact)
            ]
        );
        let damaged = index.get(&data, 1).unwrap();
        let nested = NestedFrames::find(&index, &data, &damaged).unwrap();
        assert_eq!(nested.count(), 10);
        let offsets: Vec<u64> = nested.frames().map(|f| f.offset.0).collect();
        assert_eq!(offsets, (0..10).map(|i| 34 + 22 * i).collect::<Vec<_>>());
        let payloads: Vec<&[u8]> = nested.payloads().collect();
        assert_eq!(payloads[9], b"inner9");
        assert!(
            nested
                .frames()
                .zip(nested.payloads())
                .all(|(f, p)| f.payload(&data) == Some(p))
        );
        assert!(
            nested
                .describe()
                .contains("a TFRecord stream of 10 intact frames (at bytes 34, 56, "),
            "{}",
            nested.describe()
        );
        assert!(
            nested
                .describe()
                .contains(", 188, and 2 more): they are nested")
        );
        let json = crate::pyjson::to_string(&nested.counted()).unwrap();
        assert!(
            json.starts_with("{\"count\": 10, \"offsets\": [34, 56, "),
            "{json}"
        );
        for frame in [0, 2] {
            let frame = index.get(&data, frame).unwrap();
            assert!(NestedFrames::find(&index, &data, &frame).is_none());
        }
    }

    #[test]
    fn a_trusted_damaged_record_at_the_end_of_the_file_keeps_its_frames() {
        let mut data = record_holding_a_stream(3);
        data.truncate(data.len() - 22);
        let index = FrameIndex::build(&data);
        assert_eq!(index.len(), 2);
        let damaged = index.get(&data, 1).unwrap();
        let nested = NestedFrames::find(&index, &data, &damaged).unwrap();
        assert_eq!(nested.count(), 3);
        assert!(
            nested
                .describe()
                .contains("3 intact frames (at bytes 34, 56, 78)")
        );
    }

    #[test]
    fn an_untrusted_length_leaves_inner_frames_as_records() {
        // The damaged record's declared length ends one byte short of the next frame, so the
        // length is not trusted: resync looks inside and its frames are records, as before.
        let mut data = record_holding_a_stream(2);
        let outer2 = data.len() - 22;
        data.insert(outer2, 0);
        let index = FrameIndex::build(&data);
        let intact = index.frames(&data).filter(|f| f.status.is_intact()).count();
        assert_eq!(intact, 4);
        let damaged = index.get(&data, 1).unwrap();
        assert_eq!(damaged.status, FrameStatus::DataCrcMismatch);
        assert!(NestedFrames::find(&index, &data, &damaged).is_none());
    }
}
