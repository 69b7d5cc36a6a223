//! The one-line description of a frame: its payload kind and a summary of what the payload holds,
//! or what is wrong with the frame. `list` prints it as a table row or a JSON object, and the
//! inspector's frame list shows it.

use crate::damage;
use crate::frame::Frame;
use crate::input::Input;
use crate::payload::{Decoded, Decoder, Names, PayloadKind, Summary};
use serde::Serialize;

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
    // A plain Example is summed up as its tree would be, read without one.
    if let Some(example) = decoder.plain_example(payload) {
        let summary = crate::payload::plain_summary(&example, names);
        return FrameRow {
            frame,
            kind: Some(PayloadKind::Builtin(&crate::payload::EXAMPLE)),
            feature_count: summary.features,
            summary: summary.line,
            feature_names: summary.names,
        };
    }
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
    fit_names(
        &row.summary,
        row.feature_count,
        row.feature_names.iter(),
        room,
    )
}

/// [`fitted_summary`] over its parts: `summary` is `HEAD: a, b, c, d, …` as the payload type
/// words it, `count` the number of features and `names` their names (as the file holds them).
pub fn fit_names<'n>(
    summary: &str,
    count: Option<usize>,
    names: impl IntoIterator<Item = &'n str>,
    room: usize,
) -> String {
    let (Some(count), Some((head, _))) = (count, summary.split_once(": ")) else {
        return summary.to_string();
    };
    let mut names = names.into_iter().peekable();
    if names.peek().is_none() {
        return summary.to_string();
    }
    let width = crate::words::display_width;
    let mut line = format!("{head}: ");
    let mut listed = 0;
    for name in names {
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

/// What every JSON output says about a frame the same way: where it is, its CRC verdicts, its
/// status and where the bytes it owns end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrameFacts {
    pub index: u64,
    pub offset: u64,
    /// The declared payload length (`None` when the header is unreadable).
    pub length: Option<u64>,
    /// `None` when not checked.
    pub length_crc_ok: Option<bool>,
    pub data_crc_ok: Option<bool>,
    pub status: &'static str,
    pub end: u64,
    pub after_resync: bool,
    /// The offset TensorFlow names in its error, for frames it fails on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensorflow_offset: Option<u64>,
}

impl FrameFacts {
    pub fn of(frame: &Frame) -> FrameFacts {
        FrameFacts {
            index: frame.index as u64,
            offset: frame.offset.0,
            length: frame.declared_length,
            length_crc_ok: frame.status.length_crc_ok(),
            data_crc_ok: frame.status.data_crc_ok(),
            status: frame.status.name(),
            end: frame.region_end.0,
            after_resync: frame.after_resync,
            tensorflow_offset: frame.tensorflow_offset().map(|tf| tf.0),
        }
    }
}

/// One frame as `list --json` prints it: its facts, its file, and what its payload holds (or
/// what is wrong with it), with where it lies in a dataset's split or a snapshot's element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListRow<'a> {
    #[serde(flatten)]
    pub frame: FrameFacts,
    /// The file's path as JSON gives paths.
    pub file: &'a str,
    /// The payload's kind (`None` for a damaged frame).
    pub kind: Option<&'a str>,
    /// The number of features, for payloads made of features.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub features: Option<usize>,
    /// Their names, as the file holds them, at most [`NAMES_KEPT`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_names: Option<&'a Names>,
    /// An intact frame's summary: a tensor's dtype, shape and values, an event's step, tags and
    /// values, a message's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'a str>,
    /// What is wrong with a damaged frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<&'a str>,
    /// The intact frames a damaged record holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nested_frames: Option<crate::nested::NestedCount>,
    /// In a dataset, the split and the split-wide number of the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split_record: Option<u64>,
    /// In a tf.data snapshot, the element and the component the record is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<&'a str>,
}

impl<'a> ListRow<'a> {
    /// The row of `row`, a frame of `file` (named as JSON names paths), borrowing its text:
    /// `list` prints millions of rows, and copying each row's strings cost as much as reading
    /// its record.
    pub fn new(file: &'a str, row: &'a FrameRow) -> ListRow<'a> {
        let features = row.feature_count;
        let intact = row.frame.status.is_intact();
        ListRow {
            frame: FrameFacts::of(&row.frame),
            file,
            kind: row.kind.as_ref().map(PayloadKind::name),
            features,
            feature_names: features.map(|_| &row.feature_names),
            summary: intact.then_some(row.summary.as_str()),
            problem: (!intact).then_some(row.summary.as_str()),
            nested_frames: None,
            split: None,
            split_record: None,
            element: None,
            component: None,
        }
    }
}

#[cfg(test)]
mod fit_tests {
    use super::{Names, fit_names};

    #[test]
    fn as_many_names_as_fit_then_an_ellipsis() {
        let names: Names = ["alpha", "beta", "gamma", "delta", "epsilon"]
            .into_iter()
            .collect();
        let line = "5 features: alpha, beta, gamma, delta, …";
        assert_eq!(
            fit_names(line, Some(5), names.iter(), 200),
            "5 features: alpha, beta, gamma, delta, epsilon"
        );
        assert_eq!(
            fit_names(line, Some(5), names.iter(), 30),
            "5 features: alpha, beta, …"
        );
        assert_eq!(
            fit_names(line, Some(5), names.iter(), 5),
            "5 features: alpha, …"
        );
        // A row of more features than names kept ends with the ellipsis.
        assert_eq!(
            fit_names(line, Some(9), names.iter(), 200),
            "5 features: alpha, beta, gamma, delta, epsilon, …"
        );
        // Names are escaped for the terminal; rows without features are kept.
        let hostile: Names = ["a\x1b[31m"].into_iter().collect();
        assert_eq!(
            fit_names("1 feature: x", Some(1), hostile.iter(), 80),
            "1 feature: a\\033[31m"
        );
        assert_eq!(
            fit_names("payload CRC mismatch: x", None, Names::default().iter(), 80),
            "payload CRC mismatch: x"
        );
    }
}
