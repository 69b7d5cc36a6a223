//! TensorBoard's summary plugins: a summary value's `metadata.plugin_data.plugin_name` says which
//! dashboard it is for, and only that plugin knows what its tensor and its `content` bytes mean (a
//! `[6, N]` float tensor is a PR curve, a string scalar a custom-scalar layout or a Keras model, a
//! value without a tensor an hparams session).
//!
//! Each plugin TensorBoard ships is a [`SummaryPlugin`] in a module of its own, listed once in
//! [`super::PLUGINS`] beside the payload types. A plugin reads a value into plain data, says in
//! one line what it is (`list`, the Event's line in `show`, the inspector's row of the value), and
//! lays it out as [`Row`]s, each knowing its payload bytes, which `show`'s tree prints and the
//! inspector's tree opens: one reading for every view.

pub mod audio;
pub mod custom_scalars;
pub mod graph;
pub mod hparams;
pub mod mesh;
pub mod pr_curve;
pub mod text;
pub mod wav;

use std::io::{self, Write};

use crate::decode::{self, FieldValues, MessageView, Parsed, Scalar, Value};
use crate::escape;
use crate::schema::ProtoFile;
use crate::schema::table::Table;
use crate::span::Span;
use crate::tensor::{self, Element, Tensor, TensorInfo};
use crate::wire::{self, WireTree};

/// Rows of one list (thresholds, nodes, cells, lines) shown before the rest are counted.
pub const ROWS_SHOWN: usize = 64;

/// A summary value (`tensorflow.Summary.Value`) with what its plugin reads it by.
pub struct PluginValue<'a> {
    pub tag: &'a [u8],
    /// The `Summary.Value` message.
    pub value: MessageView<'a>,
    /// `metadata.plugin_data.plugin_name`; empty for a value without one.
    pub plugin_name: &'a [u8],
    /// `metadata.plugin_data.content`, and where it lies in the payload.
    pub content: &'a [u8],
    pub content_span: Span,
}

impl<'a> PluginValue<'a> {
    pub fn of(value: &MessageView<'a>) -> PluginValue<'a> {
        let tag = match singular(value, "tag") {
            Some(Value::String(tag, _)) => tag,
            _ => &[],
        };
        let plugin_data = match singular(value, "metadata") {
            Some(Value::Message(metadata)) => match singular(&metadata, "plugin_data") {
                Some(Value::Message(plugin)) => Some(plugin),
                _ => None,
            },
            _ => None,
        };
        let (mut plugin_name, mut content, mut content_span) = (&[][..], &[][..], Span::default());
        if let Some(plugin) = &plugin_data {
            if let Some(Value::String(name, _)) = singular(plugin, "plugin_name") {
                plugin_name = name;
            }
            if let Some(Value::Bytes(bytes, span)) = singular(plugin, "content") {
                (content, content_span) = (bytes, span);
            }
        }
        PluginValue {
            tag,
            value: value.clone(),
            plugin_name,
            content,
            content_span,
        }
    }

    pub fn table(&self) -> &'a Table {
        self.value.parsed().table
    }

    /// The payload the value lies in.
    pub fn payload(&self) -> &'a [u8] {
        self.value.parsed().bytes
    }

    /// The value's `tensor`, when it has one.
    pub fn tensor(&self) -> Option<MessageView<'a>> {
        match singular(&self.value, "tensor") {
            Some(Value::Message(tensor)) => Some(tensor),
            _ => None,
        }
    }

    /// The plugin's `content` walked as message `name`, when protobuf would accept it as one.
    pub fn content_as(&self, name: &str) -> Result<Nested<'a>, String> {
        Nested::walk(self.content, self.content_span.start, self.table(), name)
    }
}

/// One plugin TensorBoard ships: what it calls its summaries and how it reads them.
pub trait SummaryPlugin: Sync {
    /// The `plugin_data.plugin_name` it reads (`pr_curves`).
    fn name(&self) -> &'static str;

    /// The field of `Summary.Value` that TF1 writers (tensorboardX) set instead of a tensor with
    /// plugin data, when the plugin also reads such values (`audio`).
    fn legacy_field(&self) -> Option<&'static str> {
        None
    }

    /// The `.proto` files its content or values are (they join the built-in schema).
    fn protos(&self) -> &'static [ProtoFile] {
        &[]
    }

    /// Whether the value's line names its tag: a plugin whose tags are fixed names says what the
    /// value is instead.
    fn shows_tag(&self, _tag: &[u8]) -> bool {
        true
    }

    /// What the value is, in one line (`pr_curve 5 thresholds`), escaped for a terminal.
    fn line(&self, value: &PluginValue<'_>) -> String;

    /// What the value holds, laid out as rows under its line.
    fn rows(&self, _value: &PluginValue<'_>) -> Vec<Row> {
        Vec::new()
    }
}

/// The plugin that reads `value`: the one its plugin data names, else one whose legacy field it
/// sets.
pub fn plugin_for(value: &PluginValue<'_>) -> Option<&'static dyn SummaryPlugin> {
    let plugins = super::PLUGINS.iter().copied();
    if !value.plugin_name.is_empty() {
        return plugins
            .into_iter()
            .find(|p| p.name().as_bytes() == value.plugin_name);
    }
    plugins.into_iter().find(|p| {
        p.legacy_field()
            .is_some_and(|f| value.value.field(f).is_some())
    })
}

/// One row of a plugin's reading: a label, what it holds, the payload bytes it stands for, and
/// rows under it. Labels and details are escaped for a terminal when they are made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    pub label: String,
    pub detail: String,
    /// The payload bytes the row shows, the first the main part; empty when it stands for the
    /// whole value.
    pub spans: Vec<Span>,
    pub children: Vec<Row>,
}

impl Row {
    pub fn new(label: impl Into<String>, detail: impl Into<String>) -> Row {
        Row {
            label: label.into(),
            detail: detail.into(),
            ..Row::default()
        }
    }

    /// This row, standing for the bytes of `span`.
    pub fn at(mut self, span: Span) -> Row {
        self.spans.push(span);
        self
    }

    /// This row, also standing for the bytes of each of `spans`.
    pub fn at_all(mut self, spans: impl IntoIterator<Item = Span>) -> Row {
        self.spans.extend(spans);
        self
    }

    pub fn with(mut self, children: Vec<Row>) -> Row {
        self.children = children;
        self
    }
}

/// The width sibling rows' labels are padded to, so that their details line up (a table's
/// columns): the widest label among those with a detail.
pub fn label_width(rows: &[Row]) -> usize {
    // Labels come from the file (tags, node and hparam names): one long label must not
    // widen every row, so the column is clamped as every name column is.
    crate::words::column_width(
        rows.iter()
            .filter(|r| !r.detail.is_empty())
            .map(|r| crate::words::display_width(&r.label)),
    )
}

/// `row`'s label padded to `width` ([`label_width`] of its siblings) when it has a detail.
pub fn padded_label(row: &Row, width: usize) -> String {
    if row.detail.is_empty() {
        row.label.clone()
    } else {
        crate::words::pad_to(&row.label, width)
    }
}

/// `rows` as `show`'s tree prints them: each at `indent` spaces, its label padded to the widest
/// label among its siblings that have a detail, then its detail; children two spaces further in.
pub fn write_rows(out: &mut dyn Write, rows: &[Row], indent: usize) -> io::Result<()> {
    let width = label_width(rows);
    let pad = " ".repeat(indent);
    for row in rows {
        match (row.label.is_empty(), row.detail.is_empty()) {
            (_, true) => writeln!(out, "{pad}{}", row.label)?,
            (true, false) => writeln!(out, "{pad}{}", row.detail)?,
            (false, false) => writeln!(out, "{pad}{}  {}", padded_label(row, width), row.detail)?,
        }
        write_rows(out, &row.children, indent + 2)?;
    }
    Ok(())
}

/// "… 12 more thresholds": the row that stands for the rows of a list not shown.
pub fn more_row(hidden: u64, what: &str) -> Row {
    Row::new(
        format!("… {hidden} more {}", crate::words::noun_for(hidden, what)),
        "",
    )
}

/// Bytes walked as a message of their own (a plugin's `content`, a serialized message in a
/// string tensor), with where they lie in the payload.
pub struct Nested<'a> {
    tree: WireTree,
    bytes: &'a [u8],
    table: &'a Table,
    /// The payload position the bytes start at.
    base: usize,
}

impl<'a> Nested<'a> {
    /// `bytes` (at payload position `base`) walked as message `name`; `Err` says why protobuf
    /// would not accept them as one.
    pub fn walk(
        bytes: &'a [u8],
        base: usize,
        table: &'a Table,
        name: &str,
    ) -> Result<Nested<'a>, String> {
        let message = table
            .message_by_name(name)
            .ok_or_else(|| format!("the schema has no {name}"))?;
        let tree = wire::walk(bytes, table, Some(message));
        decode::validate(Parsed::new(&tree, bytes, table))
            .map_err(|invalid| format!("not a valid {name}: {invalid}"))?;
        Ok(Nested {
            tree,
            bytes,
            table,
            base,
        })
    }

    /// The message the bytes are.
    pub fn root(&self) -> Option<MessageView<'_>> {
        Parsed::new(&self.tree, self.bytes, self.table).root()
    }

    /// Where a span of the bytes lies in the payload.
    pub fn in_payload(&self, span: Span) -> Span {
        shifted(span, self.base)
    }
}

/// `span` moved `base` bytes on.
pub fn shifted(span: Span, base: usize) -> Span {
    Span::new(
        span.start.saturating_add(base),
        span.end.saturating_add(base),
    )
}

/// Where `inner`, a part of `outer`, lies in it.
pub fn span_within(outer: &[u8], inner: &[u8]) -> Option<Span> {
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    let end = start.checked_add(inner.len())?;
    (end <= outer.len()).then(|| Span::new(start, end))
}

/// The set value of field `name`, if any.
pub fn singular<'a>(message: &MessageView<'a>, name: &str) -> Option<Value<'a>> {
    message.field(name).and_then(|f| f.singular())
}

/// A string field's bytes (empty when not set).
pub fn string_field<'a>(message: &MessageView<'a>, name: &str) -> &'a [u8] {
    match singular(message, name) {
        Some(Value::String(bytes, _) | Value::Bytes(bytes, _)) => bytes,
        _ => &[],
    }
}

/// A string field as text (protobuf has checked a `string` is UTF-8; other bytes are replaced).
pub fn text_field(message: &MessageView<'_>, name: &str) -> String {
    String::from_utf8_lossy(string_field(message, name)).into_owned()
}

/// A number field's value, when set.
pub fn number_field(message: &MessageView<'_>, name: &str) -> Option<f64> {
    match singular(message, name)? {
        Value::Scalar(Scalar::F64(x)) => Some(x),
        Value::Scalar(Scalar::F32(x)) => Some(f64::from(x)),
        Value::Scalar(Scalar::I64(i)) => Some(i as f64),
        Value::Scalar(Scalar::I32(i)) => Some(f64::from(i)),
        Value::Scalar(Scalar::U32(u)) => Some(f64::from(u)),
        Value::Scalar(Scalar::U64(u)) => Some(u as f64),
        _ => None,
    }
}

/// An integer field's value, when set.
pub fn int_field(message: &MessageView<'_>, name: &str) -> Option<i128> {
    match singular(message, name)? {
        Value::Scalar(Scalar::I64(i)) => Some(i128::from(i)),
        Value::Scalar(Scalar::I32(i)) => Some(i128::from(i)),
        Value::Scalar(Scalar::U32(u)) => Some(i128::from(u)),
        Value::Scalar(Scalar::U64(u)) => Some(i128::from(u)),
        _ => None,
    }
}

/// An enum field's value name (`STATUS_SUCCESS`), its number when the enum does not name it, or
/// `None` when not set.
pub fn enum_field(message: &MessageView<'_>, name: &str) -> Option<String> {
    match singular(message, name)? {
        Value::Scalar(Scalar::Enum(_, Some(name))) => Some(name.to_string()),
        Value::Scalar(Scalar::Enum(number, None)) => Some(number.to_string()),
        _ => None,
    }
}

/// The messages of a repeated message field, with where each lies.
pub fn messages<'a>(field: Option<FieldValues<'a>>) -> Vec<(MessageView<'a>, Span)> {
    field.map_or_else(Vec::new, |f| {
        f.values()
            .filter_map(|(value, span)| match value {
                Value::Message(m) => Some((m, span)),
                _ => None,
            })
            .collect()
    })
}

/// The strings of a repeated string field, as text.
pub fn texts(field: Option<FieldValues<'_>>) -> Vec<String> {
    field.map_or_else(Vec::new, |f| {
        f.values()
            .filter_map(|(value, _)| match value {
                Value::String(bytes, _) | Value::Bytes(bytes, _) => {
                    Some(String::from_utf8_lossy(bytes).into_owned())
                }
                _ => None,
            })
            .collect()
    })
}

/// A number as a whole number when it is one (`4`, `8000`), else as Python prints the double
/// (`2.5`): a PR curve's counts (fractions when weighted), a sample rate.
pub fn whole_or_repr(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
        format!("{x:.0}")
    } else {
        crate::pyfmt::repr_f64(x)
    }
}

/// `text` quoted and escaped for a terminal: `"adam"`.
pub fn quoted(text: &[u8]) -> String {
    format!("\"{}\"", escape::bytes_for_terminal(text))
}

/// At most `chars` characters of `text` escaped for a terminal, with `…` when cut.
pub fn cut(text: &[u8], chars: usize) -> String {
    let shown = escape::bytes_for_terminal(text);
    match shown.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", shown.get(..at).unwrap_or_default()),
        None => shown.into_owned(),
    }
}

/// A value's tensor read, and where its elements lie in the payload.
pub struct TensorValue<'a> {
    pub info: TensorInfo<'a>,
    message: MessageView<'a>,
}

impl<'a> TensorValue<'a> {
    pub fn read(message: MessageView<'a>) -> TensorValue<'a> {
        TensorValue {
            info: tensor::read(&message),
            message,
        }
    }

    /// The tensor, when its values can be read.
    pub fn tensor(&self) -> Option<&Tensor<'a>> {
        self.info.tensor.as_ref().ok()
    }

    /// `float32[6,5]`.
    pub fn signature(&self) -> String {
        self.info.signature()
    }

    /// Element `i` of a string tensor.
    pub fn bytes(&self, i: u64) -> Option<&'a [u8]> {
        match self.tensor()?.get(i)? {
            Element::Bytes(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// Element `i` as a real number.
    pub fn number(&self, i: u64) -> Option<f64> {
        self.tensor()?.get(i)?.as_f64()
    }

    /// Where the elements numbered `wanted` (ascending) lie in the payload, in that order; `None`
    /// for an element stored nowhere (past the values given, which repeat the last). One pass
    /// over the stored values.
    pub fn spans(&self, wanted: &[u64]) -> Vec<Option<Span>> {
        let Some(tensor) = self.tensor() else {
            return vec![None; wanted.len()];
        };
        let payload = self.message.parsed().bytes;
        if let Some(width) = tensor
            .dtype()
            .width()
            .filter(|_| tensor.strings().is_none())
        {
            let content = self
                .message
                .field("tensor_content")
                .filter(|f| !f.singular_span().is_empty())
                .map(|f| f.singular_span());
            if let Some(content) = content {
                return wanted
                    .iter()
                    .map(|&i| {
                        let start = usize::try_from(i).ok()?.checked_mul(width)?;
                        let start = content.start.checked_add(start)?;
                        let end = start.checked_add(width)?;
                        (end <= content.end).then(|| Span::new(start, end))
                    })
                    .collect();
            }
        }
        if tensor.dtype() == tensor::DType::String {
            return wanted
                .iter()
                .map(|&i| span_within(payload, self.bytes(i)?))
                .collect();
        }
        let mut found = vec![None; wanted.len()];
        let Some(values) = self.message.field(tensor.dtype().val_field().name()) else {
            return found;
        };
        let mut next = wanted.iter().enumerate().peekable();
        for (i, (_, span)) in values.values().enumerate() {
            let Some(&(slot, &want)) = next.peek() else {
                break;
            };
            if want == i as u64 {
                if let Some(place) = found.get_mut(slot) {
                    *place = Some(span);
                }
                next.next();
            }
        }
        found
    }
}

/// Summary values built to order, for the plugins' tests.
#[cfg(test)]
pub(crate) mod crafted {
    use super::PluginValue;
    use crate::crafted::length_delimited;
    use crate::decode::Parsed;
    use crate::explain::number::varint_bytes;
    use crate::schema::Schema;
    use crate::wire;

    /// A `TensorProto` of dtype number `dtype` and shape `dims`, then `fields` as they are.
    pub fn tensor(dtype: u64, dims: &[u64], fields: &[u8]) -> Vec<u8> {
        let shape: Vec<u8> = dims
            .iter()
            .flat_map(|d| length_delimited(2, &[&[0x08][..], &varint_bytes(*d)].concat()))
            .collect();
        [
            vec![0x08],
            varint_bytes(dtype),
            length_delimited(2, &shape),
            fields.to_vec(),
        ]
        .concat()
    }

    /// A string tensor of `dims` holding `strings` in `string_val`.
    pub fn strings(dims: &[u64], strings: &[&[u8]]) -> Vec<u8> {
        let values: Vec<u8> = strings
            .iter()
            .flat_map(|s| length_delimited(8, s))
            .collect();
        tensor(7, dims, &values)
    }

    /// A `Summary.Value` tagged `tag` for plugin `plugin` with `content`, holding `tensor` (and
    /// `more`, other fields as they are).
    pub fn value(tag: &[u8], plugin: &[u8], content: &[u8], tensor: &[u8], more: &[u8]) -> Vec<u8> {
        let plugin_data = [length_delimited(1, plugin), length_delimited(2, content)].concat();
        [
            length_delimited(1, tag),
            length_delimited(9, &length_delimited(1, &plugin_data)),
            length_delimited(8, tensor),
            more.to_vec(),
        ]
        .concat()
    }

    /// Calls `read` with the summary value `bytes` hold.
    pub fn with_value<T>(bytes: &[u8], read: impl FnOnce(&PluginValue<'_>) -> T) -> T {
        let schema = Schema::builtin();
        let table = schema.table();
        let message = table.message_by_name("tensorflow.Summary.Value");
        let tree = wire::walk(bytes, table, message);
        let root = Parsed::new(&tree, bytes, table).root();
        read(&PluginValue::of(
            &root.unwrap_or_else(|| panic!("no value")),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_print_with_their_labels_aligned_among_siblings() {
        let rows = vec![
            Row::new("graph_def", "GraphDef, 2 nodes").with(vec![
                Row::new("x", "Placeholder"),
                Row::new("longer_name", "Const"),
                more_row(3, "node"),
            ]),
            Row::new("", "a line alone"),
        ];
        let mut out = Vec::new();
        write_rows(&mut out, &rows, 2).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  graph_def  GraphDef, 2 nodes\n    x            Placeholder\n    \
             longer_name  Const\n    … 3 more nodes\n  a line alone\n"
        );
    }

    #[test]
    fn a_part_is_found_within_its_whole_and_nothing_else_is() {
        let whole = b"0123456789";
        assert_eq!(span_within(whole, &whole[3..7]), Some(Span::new(3, 7)));
        assert_eq!(span_within(whole, &whole[10..]), Some(Span::new(10, 10)));
        let other = b"0123456789".to_vec();
        assert_eq!(span_within(whole, &other[..20.min(other.len())]), None);
    }

    /// Every row's text, depth first, and how many rows there are.
    fn texts(rows: &[Row], into: &mut Vec<String>) {
        for row in rows {
            into.push(format!("{}  {}", row.label, row.detail));
            texts(&row.children, into);
        }
    }

    /// Some bytes a field of a summary value may hold: a few of any, or a number that makes a
    /// shape or a count large.
    fn hostile_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..48),
            Just(b"RIFF\xff\xff\xff\xffWAVEfmt \x10\0\0\0\x01\0\x02\0".to_vec()),
            Just("\x1b]2;title\x07\u{202e}".as_bytes().to_vec()),
            Just(b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[".to_vec()),
        ]
    }

    proptest::proptest! {
        /// Whatever a summary value holds, each plugin's line and rows are made without a panic,
        /// bounded, escaped, and over bytes of the payload.
        #[test]
        fn any_value_of_any_plugin_reads_bounded_and_escaped(
            plugin in 0usize..12,
            content in hostile_bytes(),
            dtype in proptest::prop_oneof![proptest::prelude::Just(1u64), proptest::prelude::Just(2), proptest::prelude::Just(3), proptest::prelude::Just(4), proptest::prelude::Just(7), 0u64..40],
            dims in proptest::collection::vec(proptest::prop_oneof![0u64..7, proptest::prelude::Just(1u64 << 20), proptest::prelude::Just(1u64 << 40), proptest::prelude::Just(u64::MAX >> 1)], 0..4),
            values in proptest::collection::vec(hostile_bytes(), 0..4),
            field in proptest::prop_oneof![proptest::prelude::Just(4u64), proptest::prelude::Just(5), proptest::prelude::Just(8), 1u64..20],
            legacy in proptest::option::of(hostile_bytes()),
        ) {
            use crate::crafted::length_delimited;
            let names: Vec<&str> = super::super::PLUGINS.iter().map(|p| p.name()).collect();
            let name = names.get(plugin).copied().unwrap_or("");
            let fields: Vec<u8> = values.iter().flat_map(|v| length_delimited(field, v)).collect();
            let tensor = crafted::tensor(dtype, &dims, &fields);
            let more = legacy.map(|l| length_delimited(6, &length_delimited(4, &l))).unwrap_or_default();
            let bytes = crafted::value(b"t\x1b", name.as_bytes(), &content, &tensor, &more);
            crafted::with_value(&bytes, |value| {
                let Some(plugin) = plugin_for(value) else {
                    return Ok(());
                };
                let line = plugin.line(value);
                let rows = plugin.rows(value);
                let mut all = vec![line];
                texts(&rows, &mut all);
                proptest::prop_assert!(all.len() < 4 * ROWS_SHOWN + 1100, "{}", all.len());
                for text in &all {
                    proptest::prop_assert!(!text.chars().any(escape::is_unsafe), "{text:?}");
                }
                let mut stack: Vec<&Row> = rows.iter().collect();
                while let Some(row) = stack.pop() {
                    for span in &row.spans {
                        proptest::prop_assert!(span.end <= bytes.len(), "{span} of {}", bytes.len());
                    }
                    stack.extend(&row.children);
                }
                Ok(())
            })?;
        }
    }

    #[test]
    fn a_curve_of_a_trillion_thresholds_from_one_value_shows_a_page_of_them() {
        let tensor = crafted::tensor(1, &[6, 1 << 40], &[0x2d, 0, 0, 0x80, 0x3f]);
        let bytes = crafted::value(b"pr", b"pr_curves", &[0x10, 0x05], &tensor, &[]);
        crafted::with_value(&bytes, |value| {
            let plugin = plugin_for(value).unwrap();
            assert_eq!(
                plugin.line(value),
                "pr_curve 1099511627776 thresholds (its plugin data says 5)"
            );
            let rows = plugin.rows(value);
            assert_eq!(rows.len(), ROWS_SHOWN + 2);
            assert_eq!(rows[1].detail, "1   1   1   1   1.0        1.0");
            assert_eq!(
                rows.last().unwrap().label,
                "… 1099511627712 more thresholds"
            );
        });
    }

    #[test]
    fn damaged_plugin_data_is_named_not_guessed() {
        let tensor = crafted::tensor(1, &[0], &[]);
        for (plugin, content, line) in [
            (
                &b"hparams"[..],
                &b"\x12\x05\x0a"[..],
                "hparams: not a valid tensorboard.hparams.HParamsPluginData",
            ),
            (
                b"hparams",
                b"",
                "hparams: no experiment or session in its plugin data",
            ),
            (
                b"mesh",
                b"\x18",
                "mesh: not a valid tensorboard.mesh.MeshPluginData",
            ),
            (
                b"pr_curves",
                b"",
                "pr_curve: tensor float32[0] is no [6, N] of numbers",
            ),
            (
                b"audio",
                b"",
                "audio: tensor float32[0] is no string tensor",
            ),
            (
                b"custom_scalars",
                b"",
                "custom_scalars layout: tensor float32[0] is no string scalar",
            ),
            (
                b"graph_keras_model",
                b"1",
                "keras model: tensor float32[0] is no string scalar",
            ),
        ] {
            let bytes = crafted::value(b"t", plugin, content, &tensor, &[]);
            crafted::with_value(&bytes, |value| {
                let said = plugin_for(value).unwrap().line(value);
                assert!(said.starts_with(line), "{said}");
            });
        }
        // A model whose JSON nests past serde_json's limit is named as no JSON.
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let bytes = crafted::value(
            b"keras",
            b"graph_keras_model",
            b"1",
            &crafted::strings(&[], &[deep.as_bytes()]),
            &[],
        );
        crafted::with_value(&bytes, |value| {
            let said = plugin_for(value).unwrap().line(value);
            assert!(
                said.starts_with("keras model: config is not JSON: recursion limit"),
                "{said}"
            );
        });
    }

    #[test]
    fn whole_numbers_print_whole_and_others_as_python_prints_them() {
        assert_eq!(whole_or_repr(4.0), "4");
        assert_eq!(whole_or_repr(0.0), "0");
        assert_eq!(whole_or_repr(44100.0), "44100");
        assert_eq!(whole_or_repr(2.5), "2.5");
        assert_eq!(whole_or_repr(44100.5), "44100.5");
        assert_eq!(whole_or_repr(1e300), "1e+300");
        assert_eq!(whole_or_repr(f64::NAN), "nan");
    }

    #[test]
    fn cut_text_is_escaped_and_ends_in_an_ellipsis() {
        assert_eq!(cut(b"abcdef", 3), "abc…");
        assert_eq!(cut(b"ab", 3), "ab");
        assert_eq!(cut(b"\x1b]2;x", 8), "\\033]2;x");
    }
}
