//! The one-line description of a frame: its payload kind and a summary of what the payload holds,
//! or what is wrong with the frame. `list` prints it as a table row or a JSON object, and the
//! inspector's frame list shows it.

use crate::damage;
use crate::frame::Frame;
use crate::input::Input;
use crate::jsonformat::Json;
use crate::payload::{Decoded, Decoder, PayloadKind};

/// What `list` says about one frame.
pub struct FrameRow {
    pub frame: Frame,
    pub kind: Option<PayloadKind>,
    pub feature_count: Option<usize>,
    pub summary: String,
}

/// Describes one frame: its payload kind and a summary, or what is wrong with it.
pub fn describe_frame(input: &Input, frame: Frame) -> FrameRow {
    describe_frame_with(input, input.decoder(), frame)
}

/// [`describe_frame`] with a given decoder (one per worker thread).
pub fn describe_frame_with(input: &Input, decoder: &Decoder, frame: Frame) -> FrameRow {
    let data = input.data();
    let is_last = input.is_last(frame.index);
    if !frame.status.is_intact() {
        let summary = damage::describe(&frame, data, is_last);
        return FrameRow {
            frame,
            kind: None,
            feature_count: None,
            summary,
        };
    }
    let Some(payload) = frame.payload(data) else {
        return FrameRow {
            frame,
            kind: None,
            feature_count: None,
            summary: String::new(),
        };
    };
    let decoded = decoder.decode(payload);
    let (feature_count, summary) = summarize(decoder, &decoded, payload);
    FrameRow {
        frame,
        kind: Some(decoded.kind),
        feature_count,
        summary,
    }
}

/// The feature count (for types made of features) and the one-line summary of a payload, as its
/// type words it.
pub fn summarize(decoder: &Decoder, decoded: &Decoded, payload: &[u8]) -> (Option<usize>, String) {
    let summary = decoded.view(payload, decoder.table()).summary();
    (summary.features, summary.line)
}

/// The frame as one JSON object, as `list --json` prints it.
pub fn row_json(file: &str, row: &FrameRow) -> Json {
    let f = &row.frame;
    let bool_or_null = |v: Option<bool>| v.map_or(Json::Null, |b| Json::Literal(b.to_string()));
    let mut members = vec![
        ("file".to_string(), Json::String(file.to_string())),
        ("index".into(), Json::Literal(f.index.to_string())),
        ("offset".into(), Json::Literal(f.offset.0.to_string())),
        (
            "length".into(),
            f.declared_length
                .map_or(Json::Null, |l| Json::Literal(l.to_string())),
        ),
        (
            "length_crc_ok".into(),
            bool_or_null(f.status.length_crc_ok()),
        ),
        ("data_crc_ok".into(), bool_or_null(f.status.data_crc_ok())),
        ("status".into(), Json::String(f.status.name().into())),
        (
            "kind".into(),
            row.kind
                .as_ref()
                .map_or(Json::Null, |k| Json::String(k.name().into())),
        ),
        ("end".into(), Json::Literal(f.region_end.0.to_string())),
        (
            "after_resync".into(),
            Json::Literal(f.after_resync.to_string()),
        ),
    ];
    if let Some(n) = row.feature_count {
        members.push(("features".into(), Json::Literal(n.to_string())));
    }
    if let Some(tf) = f.tensorflow_offset() {
        members.push(("tensorflow_offset".into(), Json::Literal(tf.0.to_string())));
    }
    if !f.status.is_intact() {
        members.push(("problem".into(), Json::String(row.summary.clone())));
    }
    Json::Object(members)
}
