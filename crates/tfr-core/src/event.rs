//! TensorBoard's event files (`events.out.tfevents.*`): each record is a `tensorflow.Event`, and
//! what a reader wants from one is its step, its time and, per summary value, the tag with what it
//! holds: a scalar, a histogram, an image, a text. This module reads that from the typed view, the
//! way TensorBoard's plugins read it (TF1 fields such as `simple_value` and `histo`, and TF2
//! tensors marked by their `plugin_data`).

use std::fmt::Write as _;

use crate::decode::{MessageView, Scalar, Value};
use crate::escape;
use crate::payload::plugin::{self, PluginValue};
use crate::pyfmt::{repr_f64, text_f32};
use crate::tensor::{self, Element};
use crate::words::plural;

/// The value the first record of every event file holds (`file_version: "brain.Event:2"`).
pub const FILE_VERSION_PREFIX: &[u8] = b"brain.Event:";

/// Whether a file name is TensorBoard's (`events.out.tfevents.<time>.<host>…`).
pub fn is_event_file_name(name: &str) -> bool {
    name.contains("tfevents")
}

/// What one summary value holds, as TensorBoard shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    Scalar(f64),
    Histogram {
        buckets: u64,
    },
    Image {
        width: u64,
        height: u64,
    },
    /// What the plugin the value is for reads in it ([`crate::payload::plugin`]), and whether
    /// its line names the tag.
    Plugin {
        line: String,
        shows_tag: bool,
    },
    /// A tensor no plugin claims: its dtype and shape.
    Tensor(String),
    Nothing,
}

/// One value of a summary: its tag and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TaggedValue<'a> {
    pub tag: &'a [u8],
    pub reading: Reading,
}

/// The one-line description of an event: step and time, then what it carries.
pub fn summarize(event: &MessageView<'_>) -> String {
    let mut line = String::new();
    // proto3 leaves a zero step out: a summary without one is TensorBoard's step 0.
    let step = int_field(event, "step").or_else(|| singular(event, "summary").map(|_| 0));
    if let Some(step) = step {
        let _ = write!(line, "step {step}");
    }
    if let Some(Value::Scalar(Scalar::F64(wall))) = singular(event, "wall_time") {
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(&wall_time(wall));
    }
    let what = what_it_holds(event);
    if !what.is_empty() {
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&what);
    }
    line
}

/// The part of the `what` oneof that is set, described.
fn what_it_holds(event: &MessageView<'_>) -> String {
    if let Some(Value::String(version, _)) = singular(event, "file_version") {
        return format!("file_version \"{}\"", escape::bytes_for_terminal(version));
    }
    if let Some(Value::Bytes(graph, _)) = singular(event, "graph_def") {
        return format!("graph_def, {}", plural(graph.len() as u64, "byte"));
    }
    if let Some(Value::Bytes(graph, _)) = singular(event, "meta_graph_def") {
        return format!("meta_graph_def, {}", plural(graph.len() as u64, "byte"));
    }
    if let Some(Value::Message(summary)) = singular(event, "summary") {
        let values: Vec<String> = summary_values(&summary).iter().map(describe).collect();
        return values.join(", ");
    }
    if let Some(Value::Message(log)) = singular(event, "session_log") {
        let status = match singular(&log, "status") {
            Some(Value::Scalar(Scalar::Enum(_, Some(name)))) => name.to_string(),
            _ => "STATUS_UNSPECIFIED".into(),
        };
        return format!("session_log {status}");
    }
    if let Some(Value::Message(log)) = singular(event, "log_message") {
        let text = match singular(&log, "message") {
            Some(Value::String(text, _)) => escape::bytes_for_terminal(text).into_owned(),
            _ => String::new(),
        };
        return format!("log_message \"{text}\"");
    }
    if let Some(Value::Message(run)) = singular(event, "tagged_run_metadata") {
        let tag = match singular(&run, "tag") {
            Some(Value::String(tag, _)) => escape::bytes_for_terminal(tag).into_owned(),
            _ => String::new(),
        };
        return format!("run metadata \"{tag}\"");
    }
    String::new()
}

/// `tag value`, `tag histogram 30 buckets`, `tag image 40x24`, `tag text "…"`.
pub fn describe(value: &TaggedValue<'_>) -> String {
    let tag = escape::bytes_for_terminal(value.tag);
    match &value.reading {
        Reading::Scalar(x) => format!("{tag} {}", repr_f64(*x)),
        Reading::Histogram { buckets } => {
            format!("{tag} histogram {}", plural(*buckets, "bucket"))
        }
        Reading::Image { width, height } => format!("{tag} image {width}x{height}"),
        Reading::Plugin { line, shows_tag } if *shows_tag => format!("{tag} {line}"),
        Reading::Plugin { line, .. } => line.clone(),
        Reading::Tensor(signature) => format!("{tag} {signature}"),
        Reading::Nothing => tag.into_owned(),
    }
}

/// The values of a `tensorflow.Summary`, read as TensorBoard's plugins read them.
pub fn summary_values<'a>(summary: &MessageView<'a>) -> Vec<TaggedValue<'a>> {
    value_messages(summary).iter().map(tagged_value).collect()
}

/// The `Summary.Value` messages of a `tensorflow.Summary`, in the order sent.
pub fn value_messages<'a>(summary: &MessageView<'a>) -> Vec<MessageView<'a>> {
    let Some(values) = summary.field("value") else {
        return Vec::new();
    };
    values
        .values()
        .filter_map(|(value, _)| match value {
            Value::Message(value) => Some(value),
            _ => None,
        })
        .collect()
}

/// The tag of a `Summary.Value`: empty when it has none.
pub fn tag_of<'a>(value: &MessageView<'a>) -> &'a [u8] {
    match singular(value, "tag") {
        Some(Value::String(tag, _)) => tag,
        _ => &[],
    }
}

/// One `Summary.Value`, read as TensorBoard's plugins read it.
pub fn tagged_value<'a>(value: &MessageView<'a>) -> TaggedValue<'a> {
    TaggedValue {
        tag: tag_of(value),
        reading: reading_of(value),
    }
}

fn reading_of(value: &MessageView<'_>) -> Reading {
    if let Some(Value::Scalar(Scalar::F32(x))) = singular(value, "simple_value") {
        return Reading::Scalar(shortest(x));
    }
    if let Some(Value::Message(histogram)) = singular(value, "histo") {
        let buckets = histogram.field("bucket").map_or(0, |f| f.count()) as u64;
        return Reading::Histogram { buckets };
    }
    if let Some(Value::Message(image)) = singular(value, "image") {
        return Reading::Image {
            width: int_field(&image, "width").unwrap_or(0).max(0) as u64,
            height: int_field(&image, "height").unwrap_or(0).max(0) as u64,
        };
    }
    let plugin_value = PluginValue::of(value);
    if let Some(plugin) = plugin::plugin_for(&plugin_value) {
        return Reading::Plugin {
            line: plugin.line(&plugin_value),
            shows_tag: plugin.shows_tag(plugin_value.tag),
        };
    }
    match singular(value, "tensor") {
        Some(Value::Message(tensor)) => tensor_reading(&tensor, plugin_value.plugin_name),
        _ => Reading::Nothing,
    }
}

/// The plugin a TF2 summary value is written for (`scalars`, `histograms`, `images`, `text`).
fn plugin_name(value: &MessageView<'_>) -> Vec<u8> {
    let Some(Value::Message(metadata)) = singular(value, "metadata") else {
        return Vec::new();
    };
    let Some(Value::Message(plugin)) = singular(&metadata, "plugin_data") else {
        return Vec::new();
    };
    match singular(&plugin, "plugin_name") {
        Some(Value::String(name, _)) => name.to_vec(),
        _ => Vec::new(),
    }
}

/// A TF2 summary tensor of a plugin that reads no more than it: scalars are 0-d, histograms
/// `[k, 3]` (left edge, right edge, count per bucket), images `[width, height, encoded…]` strings.
fn tensor_reading(message: &MessageView<'_>, plugin: &[u8]) -> Reading {
    let info = tensor::read(message);
    let Ok(tensor) = &info.tensor else {
        return Reading::Tensor(info.signature());
    };
    let first = tensor.get(0);
    let as_number = |e: Option<Element<'_>>| e.and_then(|e| e.as_f64());
    let as_count = |e: Option<Element<'_>>| match e {
        Some(Element::Bytes(b)) => std::str::from_utf8(b).ok().and_then(|s| s.parse().ok()),
        _ => None,
    };
    match (plugin, tensor.shape()) {
        (b"histograms", [buckets, 3]) => Reading::Histogram { buckets: *buckets },
        (b"images", [n, ..]) if *n >= 2 => match (as_count(first), as_count(tensor.get(1))) {
            (Some(width), Some(height)) => Reading::Image { width, height },
            _ => Reading::Tensor(info.signature()),
        },
        (_, []) => match (first, as_number(first)) {
            (Some(Element::F32(x)), _) => Reading::Scalar(shortest(x)),
            (_, Some(x)) => Reading::Scalar(x),
            _ => Reading::Tensor(info.signature()),
        },
        _ => Reading::Tensor(info.signature()),
    }
}

/// A float32 widened to the double its shortest text reads as (0.1f32 prints as 0.1).
fn shortest(x: f32) -> f64 {
    text_f32(x).parse().unwrap_or(f64::from(x))
}

/// The set value of field `name`, if any.
fn singular<'a>(message: &MessageView<'a>, name: &str) -> Option<Value<'a>> {
    message.field(name).and_then(|f| f.singular())
}

fn int_field(message: &MessageView<'_>, name: &str) -> Option<i64> {
    match singular(message, name)? {
        Value::Scalar(Scalar::I64(i)) => Some(i),
        Value::Scalar(Scalar::I32(i)) => Some(i64::from(i)),
        _ => None,
    }
}

/// One bucket of a histogram: its edges and how many values fell in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    pub left: f64,
    pub right: f64,
    pub count: f64,
}

/// The step an event is at (proto3 leaves step 0 out).
pub fn step_of(event: &MessageView<'_>) -> i64 {
    int_field(event, "step").unwrap_or(0)
}

/// When an event was written, in seconds since the Unix epoch (proto3 leaves 0 out).
pub fn wall_time_of(event: &MessageView<'_>) -> f64 {
    match singular(event, "wall_time") {
        Some(Value::Scalar(Scalar::F64(wall))) => wall,
        _ => 0.0,
    }
}

/// One histogram of an event's summary: its tag, its first buckets (at most [`MAX_BUCKETS`] are
/// read) and how many it has.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram<'a> {
    pub tag: &'a [u8],
    pub buckets: Vec<Bucket>,
    /// Every bucket the record holds, read or not.
    pub total_buckets: u64,
}

impl Histogram<'_> {
    /// The buckets left out of [`Histogram::buckets`].
    pub fn left_out(&self) -> u64 {
        self.total_buckets.saturating_sub(self.buckets.len() as u64)
    }
}

/// The histograms of an event's summary, by tag: TF1 `histo` (bucket limits and counts) and TF2
/// `histograms` tensors (`[k, 3]`: left edge, right edge, count).
pub fn histograms<'a>(event: &MessageView<'a>) -> Vec<Histogram<'a>> {
    let Some(Value::Message(summary)) = singular(event, "summary") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for value in value_messages(&summary) {
        let tag = tag_of(&value);
        if let Some(Value::Message(histo)) = singular(&value, "histo") {
            let (buckets, total_buckets) = tf1_buckets(&histo);
            found.push(Histogram {
                tag,
                buckets,
                total_buckets,
            });
        } else if let Some(Value::Message(tensor)) = singular(&value, "tensor") {
            if plugin_name(&value) != b"histograms" {
                continue;
            }
            let info = tensor::read(&tensor);
            let Ok(tensor) = &info.tensor else {
                continue;
            };
            let [rows, 3] = *tensor.shape() else {
                continue;
            };
            let at = |i: u64| tensor.get(i).and_then(|e| e.as_f64()).unwrap_or(0.0);
            let buckets = (0..rows.min(MAX_BUCKETS))
                .map(|r| Bucket {
                    left: at(r * 3),
                    right: at(r * 3 + 1),
                    count: at(r * 3 + 2),
                })
                .collect();
            found.push(Histogram {
                tag,
                buckets,
                total_buckets: rows,
            });
        }
    }
    found
}

/// Buckets read and drawn at most (TensorBoard writes 30; a file may claim any number).
pub const MAX_BUCKETS: u64 = 4096;

/// TF1's `HistogramProto`: bucket `i` spans from limit `i - 1` (or `min`) to limit `i`. The
/// first [`MAX_BUCKETS`] buckets, and how many there are (a limit and a count each).
fn tf1_buckets(histo: &MessageView<'_>) -> (Vec<Bucket>, u64) {
    let doubles = |name: &str| -> (Vec<f64>, u64) {
        let Some(field) = histo.field(name) else {
            return (Vec::new(), 0);
        };
        let mut total = 0u64;
        let mut read = Vec::new();
        for (value, _) in field.values() {
            if let Value::Scalar(Scalar::F64(x)) = value {
                total += 1;
                if read.len() < MAX_BUCKETS as usize {
                    read.push(x);
                }
            }
        }
        (read, total)
    };
    let (limits, total_limits) = doubles("bucket_limit");
    let (counts, total_counts) = doubles("bucket");
    let min = match singular(histo, "min") {
        Some(Value::Scalar(Scalar::F64(x))) => x,
        _ => limits.first().copied().unwrap_or(0.0),
    };
    let mut left = min;
    let buckets = limits
        .iter()
        .zip(&counts)
        .map(|(&right, &count)| {
            let bucket = Bucket { left, right, count };
            left = right;
            bucket
        })
        .collect();
    (buckets, total_limits.min(total_counts))
}

/// The scalars of an event's summary, by tag.
pub fn scalars<'a>(event: &MessageView<'a>) -> Vec<(&'a [u8], f64)> {
    let Some(Value::Message(summary)) = singular(event, "summary") else {
        return Vec::new();
    };
    summary_values(&summary)
        .into_iter()
        .filter_map(|v| match v.reading {
            Reading::Scalar(x) => Some((v.tag, x)),
            _ => None,
        })
        .collect()
}

/// Seconds since the Unix epoch as a UTC date and time to the millisecond.
pub fn wall_time(seconds: f64) -> String {
    if !seconds.is_finite() || seconds.abs() > 1e14 {
        return format!("wall_time {}", repr_f64(seconds));
    }
    let millis = (seconds * 1000.0).round() as i64;
    let (days, in_day) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, ms) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02}:{s:02}.{ms:03} UTC")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_times_are_utc_dates() {
        assert_eq!(wall_time(0.0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(
            wall_time(1_795_330_064.869_381),
            "2026-11-22 06:47:44.869 UTC"
        );
        assert_eq!(wall_time(951_782_400.0), "2000-02-29 00:00:00.000 UTC");
        assert_eq!(wall_time(-1.0), "1969-12-31 23:59:59.000 UTC");
        assert_eq!(wall_time(f64::NAN), "wall_time nan");
    }

    #[test]
    fn values_are_described_as_tensorboard_shows_them() {
        let value = |reading| TaggedValue { tag: b"t", reading };
        assert_eq!(describe(&value(Reading::Scalar(0.5))), "t 0.5");
        assert_eq!(
            describe(&value(Reading::Histogram { buckets: 30 })),
            "t histogram 30 buckets"
        );
        assert_eq!(
            describe(&value(Reading::Image {
                width: 40,
                height: 24
            })),
            "t image 40x24"
        );
        assert_eq!(
            describe(&value(Reading::Plugin {
                line: "pr_curve 5 thresholds".into(),
                shows_tag: true
            })),
            "t pr_curve 5 thresholds"
        );
        assert_eq!(
            describe(&value(Reading::Plugin {
                line: "hparams session end: STATUS_SUCCESS".into(),
                shows_tag: false
            })),
            "hparams session end: STATUS_SUCCESS"
        );
        let tag = TaggedValue {
            tag: b"\x1b]2;x\x07",
            reading: Reading::Nothing,
        };
        assert!(!describe(&tag).contains('\x1b'));
    }
}
