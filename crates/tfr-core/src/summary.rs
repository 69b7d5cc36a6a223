//! The one-line description of a frame: its payload kind and a summary of what the payload holds,
//! or what is wrong with the frame. `list` prints it as a table row or a JSON object, and the
//! inspector's frame list shows it.

use crate::damage;
use crate::frame::Frame;
use crate::input::Input;
use crate::jsonformat::Json;
use crate::payload::{Decoded, Decoder, Names, PayloadKind, Summary};

/// What `list` says about one frame.
pub struct FrameRow {
    pub frame: Frame,
    pub kind: Option<PayloadKind>,
    pub feature_count: Option<usize>,
    pub summary: String,
    /// The names of its features (of an Example, or a SequenceExample's context), in the order
    /// the summary lists them, at most [`NAMES_KEPT`]; as the file holds them (JSON escapes them;
    /// [`fitted_summary`] escapes them for a terminal). Empty when described with
    /// [`FeatureNames::Skipped`].
    pub feature_names: Names,
}

pub use crate::payload::{FeatureNames, NAMES_KEPT};

/// Describes one frame: its payload kind and a summary, or what is wrong with it.
pub fn describe_frame(input: &Input, frame: Frame) -> FrameRow {
    describe_frame_with(input, input.decoder(), frame, FeatureNames::Kept)
}

/// [`describe_frame`] with a given decoder (one per worker thread).
pub fn describe_frame_with(
    input: &Input,
    decoder: &Decoder,
    frame: Frame,
    names: FeatureNames,
) -> FrameRow {
    let data = input.data();
    let is_last = input.is_last(frame.index);
    if !frame.status.is_intact() {
        let summary = damage::describe(&frame, data, is_last);
        return FrameRow {
            frame,
            kind: None,
            feature_count: None,
            summary,
            feature_names: Names::default(),
        };
    }
    let Some(payload) = frame.payload(data) else {
        return FrameRow {
            frame,
            kind: None,
            feature_count: None,
            summary: String::new(),
            feature_names: Names::default(),
        };
    };
    let decoded = decoder.decode(payload);
    let summary = summarize(decoder, &decoded, payload, names);
    FrameRow {
        frame,
        kind: Some(decoded.kind),
        feature_count: summary.features,
        summary: summary.line,
        feature_names: summary.names,
    }
}

/// The summary of a row of features reworded to list as many names as fit in `room` columns
/// (`7 features: image/class/label, image/class/text, …`), names escaped for a terminal; other
/// rows' summaries as they are.
pub fn fitted_summary(row: &FrameRow, room: usize) -> String {
    fit_names(&row.summary, row.feature_count, &row.feature_names, room)
}

/// [`fitted_summary`] over its parts: `summary` is `HEAD: a, b, c, d, …` as the payload type
/// words it, `count` the number of features and `names` their names.
pub fn fit_names(summary: &str, count: Option<usize>, names: &Names, room: usize) -> String {
    let (Some(count), Some((head, _))) = (count, summary.split_once(": ")) else {
        return summary.to_string();
    };
    if names.is_empty() {
        return summary.to_string();
    }
    let width = crate::words::display_width;
    let mut line = format!("{head}: ");
    let mut listed = 0;
    for name in names.iter() {
        let name = crate::escape::name_for_terminal(name.as_bytes());
        let sep = if listed == 0 { "" } else { ", " };
        // Room is kept for the closing ", …" unless this is the last name.
        let tail = if listed + 1 < count { 3 } else { 0 };
        if listed > 0 && width(&line) + sep.len() + width(&name) + tail > room {
            break;
        }
        line.push_str(sep);
        line.push_str(&name);
        listed += 1;
    }
    if listed < count {
        line.push_str(", …");
    }
    line
}

/// The feature count (for types made of features) and the one-line summary of a payload, as its
/// type words it.
pub fn summarize(
    decoder: &Decoder,
    decoded: &Decoded,
    payload: &[u8],
    names: FeatureNames,
) -> Summary {
    let mut summary = decoded
        .view(payload, decoder.table())
        .keeping_names(names)
        .summary();
    // Why the file's usual type (or, for unknown protobuf, an Example) was not chosen, where a
    // reader would wonder: on records unlike the file's others.
    let unusual = decoder.likely.as_ref() != Some(&decoded.kind);
    match &decoded.passed_over {
        Some(passed) if unusual || decoded.kind == PayloadKind::Protobuf => {
            summary.line = format!("{}; {passed}", summary.line);
        }
        _ => {}
    }
    summary
}

/// What a JSON object describing a frame says about it; each output picks the members it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameField {
    Index,
    Offset,
    /// The declared payload length (`null` when the header is unreadable).
    Length,
    /// `length_crc_ok` and `data_crc_ok` (`null` when not checked).
    CrcVerdicts,
    Status,
    /// Where the bytes the frame owns end.
    End,
    AfterResync,
    /// The offset TensorFlow names in its error, present only for frames it fails on.
    TensorflowOffset,
    /// The same, `null` for frames TensorFlow reads.
    TensorflowOffsetOrNull,
}

/// The members describing `frame`, worded the same in every output (`list`, `locate`, `salvage`).
pub fn frame_members(frame: &Frame, fields: &[FrameField]) -> Vec<(String, Json)> {
    let number = |n: u64| Json::Literal(n.to_string());
    let bool_or_null = |v: Option<bool>| v.map_or(Json::Null, |b| Json::Literal(b.to_string()));
    let tensorflow = frame.tensorflow_offset().map(|tf| number(tf.0));
    let mut members = Vec::new();
    for field in fields {
        let mut add = |name: &str, value: Json| members.push((name.to_string(), value));
        match field {
            FrameField::Index => add("index", number(frame.index as u64)),
            FrameField::Offset => add("offset", number(frame.offset.0)),
            FrameField::Length => add("length", frame.declared_length.map_or(Json::Null, number)),
            FrameField::CrcVerdicts => {
                add("length_crc_ok", bool_or_null(frame.status.length_crc_ok()));
                add("data_crc_ok", bool_or_null(frame.status.data_crc_ok()));
            }
            FrameField::Status => add("status", Json::String(frame.status.name().into())),
            FrameField::End => add("end", number(frame.region_end.0)),
            FrameField::AfterResync => add(
                "after_resync",
                Json::Literal(frame.after_resync.to_string()),
            ),
            FrameField::TensorflowOffset => {
                if let Some(tf) = &tensorflow {
                    add("tensorflow_offset", tf.clone());
                }
            }
            FrameField::TensorflowOffsetOrNull => add(
                "tensorflow_offset",
                tensorflow.clone().unwrap_or(Json::Null),
            ),
        }
    }
    members
}

/// The frame as one JSON object, as `list --json` prints it.
pub fn row_json(file: &str, row: &FrameRow) -> Json {
    use FrameField::*;
    let fields = [
        Index,
        Offset,
        Length,
        CrcVerdicts,
        Status,
        End,
        AfterResync,
        TensorflowOffset,
    ];
    let mut members = frame_members(&row.frame, &fields);
    members.push(("file".to_string(), Json::String(file.to_string())));
    members.push((
        "kind".into(),
        row.kind
            .as_ref()
            .map_or(Json::Null, |k| Json::String(k.name().into())),
    ));
    if let Some(n) = row.feature_count {
        members.push(("features".into(), Json::Literal(n.to_string())));
        let names = row
            .feature_names
            .iter()
            .map(|name| Json::String(name.into()))
            .collect();
        members.push(("feature_names".into(), Json::Array(names)));
    }
    if row.frame.status.is_intact() {
        // What the table's summary column says: a tensor's dtype, shape and values, an event's
        // step, tags and values, a message's fields.
        members.push(("summary".into(), Json::String(row.summary.clone())));
    } else {
        members.push(("problem".into(), Json::String(row.summary.clone())));
    }
    Json::Object(members)
}

#[cfg(test)]
mod fit_tests {
    use super::{Names, fit_names};

    #[test]
    fn as_many_names_as_fit_then_an_ellipsis() {
        let names = ["alpha", "beta", "gamma", "delta", "epsilon"]
            .into_iter()
            .collect();
        let line = "5 features: alpha, beta, gamma, delta, …";
        assert_eq!(
            fit_names(line, Some(5), &names, 200),
            "5 features: alpha, beta, gamma, delta, epsilon"
        );
        assert_eq!(
            fit_names(line, Some(5), &names, 30),
            "5 features: alpha, beta, …"
        );
        assert_eq!(fit_names(line, Some(5), &names, 5), "5 features: alpha, …");
        // A row of more features than names kept ends with the ellipsis.
        assert_eq!(
            fit_names(line, Some(9), &names, 200),
            "5 features: alpha, beta, gamma, delta, epsilon, …"
        );
        // Names are escaped for the terminal; rows without features are kept.
        let hostile = ["a\x1b[31m"].into_iter().collect();
        assert_eq!(
            fit_names("1 feature: x", Some(1), &hostile, 80),
            "1 feature: a\\033[31m"
        );
        assert_eq!(
            fit_names("payload CRC mismatch: x", None, &Names::default(), 80),
            "payload CRC mismatch: x"
        );
    }
}
