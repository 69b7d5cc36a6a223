//! The Example view: features by name, with their kind, count and values, for summaries, the
//! readable `show` tree and the inspector. Built on the typed views, never on the bytes directly.
//!
//! Nothing here is collected ahead of use: a feature's values are iterated from the wire tree when
//! they are shown, and its count comes from lengths where it can, so summarising a feature of ten
//! million floats reads eight of them.

use std::borrow::Cow;

use crate::decode::{EntryReader, FieldValues, MapEntry, MapView, MessageView, Scalar, Value};
use crate::escape;
use crate::image;
use crate::pyfmt::text_f32;
use crate::schema::table::FieldId;
use crate::span::Span;
use crate::words::plural;

/// Which list a `Feature` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureKind {
    Bytes,
    Float,
    Int64,
    /// A Feature with no kind set.
    Empty,
}

/// One feature's values, read on demand.
#[derive(Debug, Clone)]
pub struct FeatureValues<'a> {
    kind: FeatureKind,
    /// The list's `value` field, when it holds any value.
    list: Option<FieldValues<'a>>,
}

impl<'a> FeatureValues<'a> {
    /// The values of one `Feature` message.
    pub fn of(feature: &MessageView<'a>) -> FeatureValues<'a> {
        let empty = FeatureValues {
            kind: FeatureKind::Empty,
            list: None,
        };
        let Some(set) = feature.fields().into_iter().next() else {
            return empty;
        };
        let kind = match &*set.info().name {
            "bytes_list" => FeatureKind::Bytes,
            "float_list" => FeatureKind::Float,
            "int64_list" => FeatureKind::Int64,
            _ => return empty,
        };
        let list = match set.singular() {
            Some(Value::Message(list)) => list.fields().into_iter().next(),
            _ => None,
        };
        FeatureValues { kind, list }
    }

    pub fn kind(&self) -> FeatureKind {
        self.kind
    }

    /// The list's repeated `value` field, when it holds values.
    pub fn list(&self) -> Option<&FieldValues<'a>> {
        self.list.as_ref()
    }

    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            FeatureKind::Bytes => "bytes",
            FeatureKind::Float => "float",
            FeatureKind::Int64 => "int64",
            FeatureKind::Empty => "none",
        }
    }

    pub fn len(&self) -> usize {
        self.list.as_ref().map_or(0, FieldValues::count)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every value with where it lies.
    pub fn values(&self) -> impl Iterator<Item = (Value<'a>, Span)> + '_ {
        self.list.iter().flat_map(FieldValues::values)
    }

    /// Where each value lies.
    pub fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.values().map(|(_, span)| span)
    }

    /// The values of a bytes feature.
    pub fn bytes(&self) -> impl Iterator<Item = (&'a [u8], Span)> + '_ {
        self.values().filter_map(|(v, span)| match v {
            Value::Bytes(b, _) | Value::String(b, _) => Some((b, span)),
            _ => None,
        })
    }

    /// The values of a float feature.
    pub fn floats(&self) -> impl Iterator<Item = f32> + '_ {
        self.scalars().filter_map(|s| match s {
            Scalar::F32(f) => Some(f),
            _ => None,
        })
    }

    /// The numbers of a float or int64 feature, read without their spans.
    fn scalars(&self) -> impl Iterator<Item = Scalar<'a>> + '_ {
        self.list
            .iter()
            .flat_map(|list| list.scalars().into_iter().flatten())
    }

    /// The values of an int64 feature.
    pub fn ints(&self) -> impl Iterator<Item = i64> + '_ {
        self.scalars().filter_map(|s| match s {
            Scalar::I64(i) => Some(i),
            _ => None,
        })
    }

    /// The only integer, when the feature is one int64 (height, width, label…).
    pub fn single_int(&self) -> Option<i64> {
        if self.kind != FeatureKind::Int64 {
            return None;
        }
        let mut ints = self.ints();
        let first = ints.next()?;
        ints.next().is_none().then_some(first)
    }
}

/// One feature of a `Features` map.
#[derive(Debug, Clone)]
pub struct Feature<'a> {
    /// The key's bytes (UTF-8 in a payload that parses).
    pub key: &'a [u8],
    /// The map entry holding this feature (payload positions), for highlighting.
    pub span: Span,
    pub values: FeatureValues<'a>,
}

impl Feature<'_> {
    /// The name as text (bytes that are not UTF-8 replaced).
    pub fn name(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.key)
    }

    /// The name as a terminal may show it (control characters escaped, an empty name `""`).
    pub fn shown_name(&self) -> Cow<'_, str> {
        escape::name_for_terminal(self.key)
    }
}

/// The entries of a map whose keys are names, sorted by name.
#[derive(Debug, Clone)]
struct Named<'a> {
    field: Option<FieldId>,
    /// Its entries come in key order, which is name order.
    map: MapView<'a>,
}

impl<'a> Named<'a> {
    fn of(container: &MessageView<'a>) -> Named<'a> {
        match container.fields().into_iter().next() {
            Some(map) => Named {
                field: Some(map.id()),
                map: map.map(),
            },
            None => Named::empty(),
        }
    }

    fn empty() -> Named<'a> {
        Named {
            field: None,
            map: MapView::empty(),
        }
    }

    fn len(&self) -> usize {
        self.map.len()
    }

    /// The entries in name order.
    fn entries(&self) -> impl Iterator<Item = MapEntry> + '_ {
        self.map.entries().copied()
    }

    fn get(&self, i: usize) -> Option<(&'a [u8], Span, Option<Value<'a>>)> {
        let entry = self.map.entry(i)?;
        Some((
            self.map.key_bytes(entry),
            self.map.span(entry),
            self.map.value(entry),
        ))
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.map.position_of(name.as_bytes())
    }
}

/// The features of a `Features` message, sorted by name.
#[derive(Debug, Clone)]
pub struct Features<'a> {
    named: Named<'a>,
}

impl<'a> Features<'a> {
    /// The features of a `Features` message.
    pub fn of(features: &MessageView<'a>) -> Features<'a> {
        Features {
            named: Named::of(features),
        }
    }

    /// The map field holding the features, when any is set.
    pub fn map_field(&self) -> Option<FieldId> {
        self.named.field
    }

    /// The map entries, in name order (for reading features later with [`feature`]).
    pub fn entries(&self) -> impl Iterator<Item = MapEntry> + '_ {
        self.named.entries()
    }

    pub fn empty() -> Features<'a> {
        Features {
            named: Named::empty(),
        }
    }

    pub fn len(&self) -> usize {
        self.named.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th feature by name.
    pub fn get(&self, i: usize) -> Option<Feature<'a>> {
        let (key, span, value) = self.named.get(i)?;
        Some(Feature {
            key,
            span,
            values: values_of(value),
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = Feature<'a>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The feature called `name`.
    pub fn named(&self, name: &str) -> Option<Feature<'a>> {
        self.get(self.named.position(name)?)
    }

    /// The key bytes of every feature, by name.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + '_ {
        self.named.map.keys_bytes()
    }
}

fn values_of(value: Option<Value<'_>>) -> FeatureValues<'_> {
    match value {
        Some(Value::Message(feature)) => FeatureValues::of(&feature),
        _ => FeatureValues {
            kind: FeatureKind::Empty,
            list: None,
        },
    }
}

/// The feature a `Features` map entry holds.
pub fn feature<'a>(reader: &EntryReader<'a>, entry: &MapEntry) -> Feature<'a> {
    Feature {
        key: reader.key_bytes(entry),
        span: reader.span(entry),
        values: values_of(reader.entry_value(entry)),
    }
}

/// The feature list a `FeatureLists` map entry holds.
pub fn feature_list<'a>(reader: &EntryReader<'a>, entry: &MapEntry) -> FeatureList<'a> {
    let steps = match reader.entry_value(entry) {
        Some(Value::Message(list)) => list.fields().into_iter().next(),
        _ => None,
    };
    FeatureList {
        key: reader.key_bytes(entry),
        span: reader.span(entry),
        steps,
    }
}

/// The `Features` inside an Example (`features`) or SequenceExample (`context`).
pub fn top_features<'a>(message: &MessageView<'a>) -> Features<'a> {
    ["features", "context"]
        .iter()
        .find_map(|name| match message.field(name)?.singular() {
            Some(Value::Message(m)) => Some(Features::of(&m)),
            _ => None,
        })
        .unwrap_or_else(Features::empty)
}

/// One step of a feature list: a `Feature` and where it lies.
#[derive(Debug, Clone)]
pub struct Step<'a> {
    pub values: FeatureValues<'a>,
    /// The step's `Feature` message (payload positions).
    pub span: Span,
}

/// A named feature list of a SequenceExample.
#[derive(Debug, Clone)]
pub struct FeatureList<'a> {
    pub key: &'a [u8],
    /// The map entry holding the list.
    pub span: Span,
    /// The list's repeated `feature` field, when it has steps.
    steps: Option<FieldValues<'a>>,
}

impl<'a> FeatureList<'a> {
    pub fn name(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.key)
    }

    pub fn shown_name(&self) -> Cow<'_, str> {
        escape::name_for_terminal(self.key)
    }

    pub fn len(&self) -> usize {
        self.steps.as_ref().map_or(0, FieldValues::count)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The list's repeated `feature` field, when it has steps.
    pub fn steps_field(&self) -> Option<&FieldValues<'a>> {
        self.steps.as_ref()
    }

    pub fn steps(&self) -> impl Iterator<Item = Step<'a>> + '_ {
        self.steps
            .iter()
            .flat_map(FieldValues::values)
            .filter_map(|(value, span)| match value {
                Value::Message(feature) => Some(Step {
                    values: FeatureValues::of(&feature),
                    span,
                }),
                _ => None,
            })
    }
}

/// The entries of a `FeatureLists` message, sorted by name.
#[derive(Debug, Clone)]
pub struct FeatureLists<'a> {
    named: Named<'a>,
}

impl<'a> FeatureLists<'a> {
    pub fn of(lists: &MessageView<'a>) -> FeatureLists<'a> {
        FeatureLists {
            named: Named::of(lists),
        }
    }

    /// The map field holding the lists, when any is set.
    pub fn map_field(&self) -> Option<FieldId> {
        self.named.field
    }

    /// The map entries, in name order (for reading lists later with [`feature_list`]).
    pub fn entries(&self) -> impl Iterator<Item = MapEntry> + '_ {
        self.named.entries()
    }

    pub fn len(&self) -> usize {
        self.named.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<FeatureList<'a>> {
        let (key, span, value) = self.named.get(i)?;
        let steps = match value {
            Some(Value::Message(list)) => list.fields().into_iter().next(),
            _ => None,
        };
        Some(FeatureList { key, span, steps })
    }

    pub fn iter(&self) -> impl Iterator<Item = FeatureList<'a>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// The feature lists of a SequenceExample, sorted by name.
pub fn feature_lists_of<'a>(message: &MessageView<'a>) -> FeatureLists<'a> {
    match message.field("feature_lists").and_then(|f| f.singular()) {
        Some(Value::Message(lists)) => FeatureLists::of(&lists),
        _ => FeatureLists {
            named: Named::empty(),
        },
    }
}

/// Image dimensions the features declare for raw pixels (height, width, channels).
pub fn declared_shape(features: &Features<'_>) -> Option<(u32, u32, u32)> {
    let find = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| features.named(n).and_then(|f| f.values.single_int()))
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
    values_summary_as(values, shape, limit, None)
}

/// [`values_summary`], bytes values read as arrays of `bytes_as` when given (`--bytes-as`).
pub fn values_summary_as(
    values: &FeatureValues<'_>,
    shape: Option<(u32, u32, u32)>,
    limit: usize,
    bytes_as: Option<crate::tensor::DType>,
) -> String {
    values_summary_with(values, limit, |b| match bytes_as {
        Some(dtype) => bytes_as_numbers(b, dtype, limit),
        None => bytes_summary(b, shape),
    })
}

/// [`values_summary`], each bytes value in the words `bytes_text` gives.
pub fn values_summary_with(
    values: &FeatureValues<'_>,
    limit: usize,
    bytes_text: impl Fn(&[u8]) -> String,
) -> String {
    let count = values.len();
    let more = if count > limit {
        format!(", … {} more", count - limit)
    } else {
        String::new()
    };
    let shown: Vec<String> = match values.kind {
        FeatureKind::Empty => return "(no kind set)".into(),
        FeatureKind::Int64 => values.ints().take(limit).map(|i| i.to_string()).collect(),
        FeatureKind::Float => values.floats().take(limit).map(text_f32).collect(),
        FeatureKind::Bytes => values
            .bytes()
            .take(limit)
            .map(|(b, _)| bytes_text(b))
            .collect(),
    };
    format!("[{}{more}]", shown.join(", "))
}

/// A bytes value read as a little-endian array of `dtype` (YouTube-8M's quantized `rgb` and
/// `audio` are uint8 arrays): `uint8[1024] [12, 200, 7, … 1021 more]`, the first `limit` numbers
/// and how many more; or why the bytes are no such array.
pub fn bytes_as_numbers(bytes: &[u8], dtype: crate::tensor::DType, limit: usize) -> String {
    let Some(width) = dtype.width() else {
        return format!(
            "{} (no {} array)",
            plural(bytes.len() as u64, "byte"),
            dtype.name()
        );
    };
    let count = bytes.len() / width.max(1);
    let tensor = i64::try_from(count)
        .ok()
        .and_then(|n| crate::tensor::Tensor::from_content(dtype, &[n], bytes).ok());
    let Some(tensor) = tensor else {
        return format!(
            "{}, not a whole number of {}-byte {} values",
            plural(bytes.len() as u64, "byte"),
            width,
            dtype.name()
        );
    };
    let mut shown = String::new();
    for i in 0..tensor.len().min(limit as u64) {
        if i > 0 {
            shown.push_str(", ");
        }
        if let Some(element) = tensor.get(i) {
            crate::tensor::write_element(&mut shown, element);
        }
    }
    let more = tensor.len().saturating_sub(limit as u64);
    if more > 0 {
        shown.push_str(&format!(", … {more} more"));
    }
    format!("{}[{count}] [{shown}]", dtype.name())
}

/// What a bytes value is, in a few words: `JPEG 320x213`, `784 bytes (raw 28x28 pixels?)`,
/// `"dog"`. Short text is shown in quotes, escaped so that it cannot act on a terminal.
pub fn bytes_summary(bytes: &[u8], shape: Option<(u32, u32, u32)>) -> String {
    if let Some(image) = image::ImageHeader::read(bytes) {
        return match image.size {
            Some(_) => image.to_string(),
            None => format!("{image}, {}", plural(bytes.len() as u64, "byte")),
        };
    }
    let raw = image::raw_shape(bytes.len(), shape);
    let text = std::str::from_utf8(bytes)
        .ok()
        .filter(|_| bytes.len() <= 64);
    match (text, raw) {
        // Text stays text; the pixels it could also be are said beside it.
        (Some(text), Some(raw)) if crate::escape::looks_like_text(bytes) => {
            format!("{} (or raw {}?)", quoted(text), raw.describe())
        }
        (_, Some(raw)) => format!("{} bytes (raw {})", bytes.len(), raw.describe()),
        (Some(text), None) => quoted(text),
        (None, None) => plural(bytes.len() as u64, "byte"),
    }
}

/// Text in double quotes, with quotes, backslashes and anything a terminal would act on escaped.
pub fn quoted(text: &str) -> String {
    if !text.chars().any(escape::is_unsafe) {
        return format!("{text:?}");
    }
    let mut out = String::from("\"");
    for part in text.split_inclusive(['"', '\\']) {
        let (body, special) = match part.strip_suffix(['"', '\\']) {
            Some(body) => (body, part.get(body.len()..)),
            None => (part, None),
        };
        out.push_str(&escape::for_terminal(body));
        if let Some(special) = special {
            out.push('\\');
            out.push_str(special);
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_numbers_say_their_dtype_count_and_what_is_left_out() {
        use crate::tensor::DType;
        let quantized: Vec<u8> = (0..=255).cycle().take(1024).collect();
        assert_eq!(
            bytes_as_numbers(&quantized, DType::Uint8, 4),
            "uint8[1024] [0, 1, 2, 3, … 1020 more]"
        );
        assert_eq!(
            bytes_as_numbers(&[255, 1], DType::Int8, 8),
            "int8[2] [-1, 1]"
        );
        let floats: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        assert_eq!(
            bytes_as_numbers(&floats, DType::Float32, 8),
            "float32[2] [1.5, -2.0]"
        );
        assert_eq!(
            bytes_as_numbers(&[0; 7], DType::Float32, 8),
            "7 bytes, not a whole number of 4-byte float32 values"
        );
        assert_eq!(bytes_as_numbers(&[], DType::Uint8, 8), "uint8[0] []");
    }

    #[test]
    fn short_text_is_quoted_and_escaped() {
        assert_eq!(bytes_summary(b"dog", None), "\"dog\"");
        assert_eq!(bytes_summary(b"say \"hi\"", None), "\"say \\\"hi\\\"\"");
        assert_eq!(bytes_summary(b"new\nline", None), "\"new\\nline\"");
        assert_eq!(
            bytes_summary(b"\x1b]2;owned\x07 \"q\" \\", None),
            "\"\\033]2;owned\\007 \\\"q\\\" \\\\\""
        );
        assert_eq!(bytes_summary(b"\xff", None), "1 byte");
        assert_eq!(bytes_summary(&[b'a'; 65], None), "65 bytes");
    }

    #[test]
    fn short_text_is_never_hidden_by_a_declared_shape() {
        // `image/format` = "png" beside a declared 1x1x3 image: three bytes, one pixel.
        assert_eq!(bytes_summary(b"png", Some((1, 1, 3))), "\"png\"");
        // A plausible shape is said beside the text, not instead of it.
        assert_eq!(
            bytes_summary(b"abcdefghijklmnop", Some((4, 4, 1))),
            "\"abcdefghijklmnop\" (or raw 4x4x1 uint8 grayscale?)"
        );
        assert_eq!(
            bytes_summary(&[0; 16], Some((4, 4, 1))),
            "16 bytes (raw 4x4x1 uint8 grayscale)"
        );
    }
}
