//! The Example view: features by name, with their kind, count and values, for summaries, the
//! readable `show` tree and the TUI. Built on the typed message, never on the bytes directly.

use crate::decode::{FieldValues, Scalar, TypedMessage, TypedValue};
use crate::image;
use crate::pyfmt::text_f32;
use crate::span::Span;
use crate::words::plural;

/// One feature's values.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureValues<'a> {
    Bytes(Vec<(&'a [u8], Span)>),
    Float(Vec<f32>),
    Int64(Vec<i64>),
    /// A Feature with no kind set.
    Empty,
}

impl FeatureValues<'_> {
    pub fn kind_name(&self) -> &'static str {
        match self {
            FeatureValues::Bytes(_) => "bytes",
            FeatureValues::Float(_) => "float",
            FeatureValues::Int64(_) => "int64",
            FeatureValues::Empty => "none",
        }
    }

    pub fn len(&self) -> usize {
        match self {
            FeatureValues::Bytes(v) => v.len(),
            FeatureValues::Float(v) => v.len(),
            FeatureValues::Int64(v) => v.len(),
            FeatureValues::Empty => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The only integer, when the feature is one int64 (height, width, label…).
    pub fn single_int(&self) -> Option<i64> {
        match self {
            FeatureValues::Int64(v) if v.len() == 1 => v.first().copied(),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Feature<'a> {
    pub name: String,
    pub values: FeatureValues<'a>,
    /// The map entry holding this feature (payload positions), for highlighting.
    pub span: Span,
    /// Where each value lies, in the order of `values`.
    pub value_spans: Vec<Span>,
}

/// The features of a `Features` message, sorted by name.
pub fn features_of<'a>(features: &TypedMessage<'a>) -> Vec<Feature<'a>> {
    let mut out = Vec::new();
    let Some(map) = features.fields.first() else {
        return out;
    };
    let FieldValues::Map(entries) = &map.values else {
        return out;
    };
    for entry in entries {
        let name = match &entry.key {
            Some(TypedValue::String(b, _)) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        };
        let (values, value_spans) = match &entry.value {
            Some(TypedValue::Message(feature)) => {
                (feature_values(feature), feature_value_spans(feature))
            }
            _ => (FeatureValues::Empty, Vec::new()),
        };
        out.push(Feature {
            name,
            values,
            span: entry.span,
            value_spans,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Where the values of one `Feature` message lie.
pub fn feature_value_spans(feature: &TypedMessage<'_>) -> Vec<Span> {
    match feature.fields.first().map(|f| &f.values) {
        Some(FieldValues::Singular(TypedValue::Message(list))) => list
            .fields
            .first()
            .map(|f| f.value_spans.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The values of one `Feature` message.
pub fn feature_values<'a>(feature: &TypedMessage<'a>) -> FeatureValues<'a> {
    let Some(kind) = feature.fields.first() else {
        return FeatureValues::Empty;
    };
    let FieldValues::Singular(TypedValue::Message(list)) = &kind.values else {
        return FeatureValues::Empty;
    };
    let items: &[TypedValue<'a>] = match list.fields.first().map(|f| &f.values) {
        Some(FieldValues::Repeated(items)) => items,
        _ => &[],
    };
    match kind.descriptor.name() {
        "bytes_list" => FeatureValues::Bytes(
            items
                .iter()
                .filter_map(|v| match v {
                    TypedValue::Bytes(b, s) => Some((*b, *s)),
                    _ => None,
                })
                .collect(),
        ),
        "float_list" => FeatureValues::Float(
            items
                .iter()
                .filter_map(|v| match v {
                    TypedValue::Scalar(Scalar::F32(f)) => Some(*f),
                    _ => None,
                })
                .collect(),
        ),
        "int64_list" => FeatureValues::Int64(
            items
                .iter()
                .filter_map(|v| match v {
                    TypedValue::Scalar(Scalar::I64(i)) => Some(*i),
                    _ => None,
                })
                .collect(),
        ),
        _ => FeatureValues::Empty,
    }
}

/// The `Features` inside an Example (`features`) or SequenceExample (`context`).
pub fn top_features<'a>(message: &TypedMessage<'a>) -> Vec<Feature<'a>> {
    ["features", "context"]
        .iter()
        .find_map(|name| match message.field(name).map(|f| &f.values) {
            Some(FieldValues::Singular(TypedValue::Message(m))) => Some(features_of(m)),
            _ => None,
        })
        .unwrap_or_default()
}

/// One step of a feature list: a `Feature` and where its values lie.
#[derive(Debug, Clone, PartialEq)]
pub struct Step<'a> {
    pub values: FeatureValues<'a>,
    /// The step's `Feature` message (payload positions).
    pub span: Span,
    pub value_spans: Vec<Span>,
}

/// A named feature list of a SequenceExample.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureList<'a> {
    pub name: String,
    /// The map entry holding the list.
    pub span: Span,
    pub steps: Vec<Step<'a>>,
}

/// The feature lists of a SequenceExample, sorted by name.
pub fn feature_lists_of<'a>(message: &TypedMessage<'a>) -> Vec<FeatureList<'a>> {
    match message.field("feature_lists").map(|f| &f.values) {
        Some(FieldValues::Singular(TypedValue::Message(lists))) => feature_lists_in(lists),
        _ => Vec::new(),
    }
}

/// The entries of a `FeatureLists` message, sorted by name.
pub fn feature_lists_in<'a>(lists: &TypedMessage<'a>) -> Vec<FeatureList<'a>> {
    let mut out = Vec::new();
    let Some(FieldValues::Map(entries)) = lists.fields.first().map(|f| &f.values) else {
        return out;
    };
    for entry in entries {
        let name = match &entry.key {
            Some(TypedValue::String(b, _)) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        };
        let mut steps = Vec::new();
        if let Some(TypedValue::Message(list)) = &entry.value {
            if let Some(field) = list.fields.first() {
                if let FieldValues::Repeated(items) = &field.values {
                    for (item, span) in items.iter().zip(&field.value_spans) {
                        if let TypedValue::Message(feature) = item {
                            steps.push(Step {
                                values: feature_values(feature),
                                span: *span,
                                value_spans: feature_value_spans(feature),
                            });
                        }
                    }
                }
            }
        }
        out.push(FeatureList {
            name,
            span: entry.span,
            steps,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Image dimensions the features declare for raw pixels (height, width, channels).
pub fn declared_shape(features: &[Feature<'_>]) -> Option<(u32, u32, u32)> {
    let find = |names: &[&str]| {
        names.iter().find_map(|n| {
            features
                .iter()
                .find(|f| f.name == *n)
                .and_then(|f| f.values.single_int())
        })
    };
    let height = find(&["height", "image/height", "rows"])?;
    let width = find(&["width", "image/width", "cols"])?;
    let depth = find(&["depth", "image/depth", "channels", "image/channels"]).unwrap_or(1);
    let fit = |v: i64| u32::try_from(v).ok().filter(|v| *v > 0);
    Some((fit(height)?, fit(width)?, fit(depth)?))
}

/// A one-line rendering of a feature's values, long lists and large bytes abbreviated.
pub fn values_summary(
    values: &FeatureValues<'_>,
    shape: Option<(u32, u32, u32)>,
    limit: usize,
) -> String {
    let more = |n: usize| {
        if n > limit {
            format!(", … {} more", n - limit)
        } else {
            String::new()
        }
    };
    match values {
        FeatureValues::Empty => "(no kind set)".into(),
        FeatureValues::Int64(v) => {
            let shown: Vec<String> = v.iter().take(limit).map(|i| i.to_string()).collect();
            format!("[{}{}]", shown.join(", "), more(v.len()))
        }
        FeatureValues::Float(v) => {
            let shown: Vec<String> = v.iter().take(limit).map(|f| text_f32(*f)).collect();
            format!("[{}{}]", shown.join(", "), more(v.len()))
        }
        FeatureValues::Bytes(v) => {
            let shown: Vec<String> = v
                .iter()
                .take(limit)
                .map(|(b, _)| bytes_summary(b, shape))
                .collect();
            format!("[{}{}]", shown.join(", "), more(v.len()))
        }
    }
}

/// What a bytes value is, in a few words: `JPEG 320x213`, `784 bytes (raw 28x28 pixels?)`, `"dog"`.
pub fn bytes_summary(bytes: &[u8], shape: Option<(u32, u32, u32)>) -> String {
    if let Some((name, dims)) = image::encoded_image_info(bytes) {
        return match dims {
            Some((w, h)) => format!("{name} {w}x{h}"),
            None => format!("{name}, {}", plural(bytes.len() as u64, "byte")),
        };
    }
    if let Some(raw) = image::raw_shape(bytes.len(), shape) {
        return format!("{} bytes (raw {})", bytes.len(), raw.describe());
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if bytes.len() <= 64 && !text.chars().any(char::is_control) => format!("{text:?}"),
        _ => plural(bytes.len() as u64, "byte"),
    }
}
