//! A whole message in, its serialization out: `encode --message tensorflow.Example --text '…'`.
//!
//! The text is protobuf's text format, read by prost-reflect's parser against the schema. The
//! bytes are written here rather than by prost-reflect's encoder, because that encoder writes a
//! map's entries in the order of a hash table, different from run to run. Here they are written
//! as protobuf's deterministic serialization writes them: fields by number, extensions after
//! them, map entries in key order (strings by their bytes, numbers by value), each entry's key
//! and value always written. Python protobuf's `SerializeToString(deterministic=True)` writes the
//! same bytes; its default order of map entries follows its own hash table.
//!
//! The text is input like a file: it is read up to [`MAX_TEXT_BYTES`], and its brackets are
//! counted (outside strings and comments) before the parser, which recurses per bracket, sees
//! them, so a text nested deeper than [`MAX_TEXT_NESTING`] is refused instead of overflowing the
//! stack.

use prost_reflect::{DynamicMessage, Kind, MapKey, MessageDescriptor, Value};

use super::number::varint_bytes;
use crate::schema::table::packed_by_declaration;

/// The most bytes a message's text may hold.
pub const MAX_TEXT_BYTES: usize = 4 * 1024 * 1024;
/// How deeply the brackets of a message's text (`{`, `<`, `[`) may nest.
pub const MAX_TEXT_NESTING: usize = 64;

/// A mistake in a message's text, where it is: line and column count from 1, the column in
/// characters. The message is escaped for a terminal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct TextError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl TextError {
    pub(crate) fn at(text: &str, byte: usize, message: &str) -> TextError {
        let before = text.get(..byte.min(text.len())).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
        TextError {
            line,
            column,
            message: crate::escape::for_terminal(message).into_owned(),
        }
    }

    /// The line of the mistake as a terminal may show it, and a line with a caret under its
    /// column (counted in the escaped text, so escapes before it move it along).
    pub fn pointed(&self, text: &str) -> (String, String) {
        let line = text
            .split('\n')
            .nth(self.line.saturating_sub(1))
            .unwrap_or_default();
        let before: String = line.chars().take(self.column.saturating_sub(1)).collect();
        let width = crate::escape::for_terminal(&before).chars().count();
        (
            crate::escape::for_terminal(line).into_owned(),
            format!("{}^", " ".repeat(width)),
        )
    }
}

/// The message of type `desc` that `text` describes, serialized; or where the text is wrong.
pub fn from_text(desc: &MessageDescriptor, text: &str) -> Result<Vec<u8>, TextError> {
    check_text(text)?;
    let message = DynamicMessage::parse_text_format(desc.clone(), text).map_err(|e| {
        let at = error_offset(&e).unwrap_or(text.len());
        TextError::at(text, at, &e.to_string())
    })?;
    Ok(serialize(&message))
}

/// Where prost-reflect's parser found its mistake (the end of the text for one that ran out).
fn error_offset(error: &prost_reflect::text_format::ParseError) -> Option<usize> {
    use miette::Diagnostic;
    let mut labels = error.labels()?;
    labels.next().map(|label| label.offset())
}

/// Refuses a text longer than [`MAX_TEXT_BYTES`] or nested deeper than [`MAX_TEXT_NESTING`],
/// skipping strings and `#` comments as the text format's lexer does.
pub fn check_text(text: &str) -> Result<(), TextError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(TextError::at(
            text,
            MAX_TEXT_BYTES,
            &format!("the text holds more than {} MiB", MAX_TEXT_BYTES >> 20),
        ));
    }
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if let Some(q) = quote {
            match c {
                '\\' => {
                    chars.next();
                }
                '\n' => quote = None,
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '#' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '{' | '<' | '[' => {
                depth += 1;
                if depth > MAX_TEXT_NESTING {
                    return Err(TextError::at(
                        text,
                        at,
                        &format!("nested more than {MAX_TEXT_NESTING} levels deep"),
                    ));
                }
            }
            '}' | '>' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// `message`'s bytes in protobuf's deterministic serialization (see the module's note).
pub fn serialize(message: &DynamicMessage) -> Vec<u8> {
    let mut out = Vec::new();
    write_message(message, &mut out);
    out
}

/// What writing a field needs from its descriptor (a field's or an extension's). Whether it is
/// packed is read from its declaration: prost-reflect's `is_packed` misses `[packed = true]`.
struct Shape {
    number: u32,
    kind: Kind,
    packed: bool,
    group: bool,
    presence: bool,
}

fn write_message(message: &DynamicMessage, out: &mut Vec<u8>) {
    for (field, value) in message.fields() {
        let shape = Shape {
            number: field.number(),
            kind: field.kind(),
            packed: packed_by_declaration(
                &field.kind(),
                field.is_list(),
                &field.parent_file(),
                field.field_descriptor_proto(),
            ),
            group: field.is_group(),
            presence: field.supports_presence(),
        };
        write_field(&shape, value, out);
    }
    let mut extensions: Vec<_> = message.extensions().collect();
    extensions.sort_by_key(|(ext, _)| ext.number());
    for (ext, value) in extensions {
        let shape = Shape {
            number: ext.number(),
            kind: ext.kind(),
            packed: packed_by_declaration(
                &ext.kind(),
                ext.is_list(),
                &ext.parent_file(),
                ext.field_descriptor_proto(),
            ),
            group: ext.is_group(),
            presence: ext.supports_presence(),
        };
        write_field(&shape, value, out);
    }
}

const VARINT: u32 = 0;
const I64: u32 = 1;
const LEN: u32 = 2;
const SGROUP: u32 = 3;
const EGROUP: u32 = 4;
const I32: u32 = 5;

fn write_tag(number: u32, wire: u32, out: &mut Vec<u8>) {
    out.extend(varint_bytes((u64::from(number) << 3) | u64::from(wire)));
}

fn write_len(bytes: &[u8], out: &mut Vec<u8>) {
    out.extend(varint_bytes(bytes.len() as u64));
    out.extend_from_slice(bytes);
}

fn write_field(shape: &Shape, value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::List(items) if shape.packed => {
            if items.is_empty() {
                return;
            }
            let mut body = Vec::new();
            for item in items {
                write_scalar(&shape.kind, item, &mut body);
            }
            write_tag(shape.number, LEN, out);
            write_len(&body, out);
        }
        Value::List(items) => {
            for item in items {
                write_one(shape, item, out);
            }
        }
        Value::Map(map) => {
            let Kind::Message(entry) = &shape.kind else {
                return;
            };
            let key_field = entry.map_entry_key_field();
            let value_field = entry.map_entry_value_field();
            let mut entries: Vec<(&MapKey, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (key, value) in entries {
                let mut body = Vec::new();
                let key = Value::from(key.clone());
                write_tag(key_field.number(), wire_type(&key_field.kind()), &mut body);
                write_scalar(&key_field.kind(), &key, &mut body);
                let value_shape = Shape {
                    number: value_field.number(),
                    kind: value_field.kind(),
                    packed: false,
                    group: false,
                    presence: true,
                };
                write_one(&value_shape, value, &mut body);
                write_tag(shape.number, LEN, out);
                write_len(&body, out);
            }
        }
        value => {
            if !shape.presence && value.is_default(&shape.kind) {
                return;
            }
            write_one(shape, value, out);
        }
    }
}

/// One value with its tag.
fn write_one(shape: &Shape, value: &Value, out: &mut Vec<u8>) {
    if shape.group {
        if let Value::Message(inner) = value {
            write_tag(shape.number, SGROUP, out);
            write_message(inner, out);
            write_tag(shape.number, EGROUP, out);
        }
        return;
    }
    write_tag(shape.number, wire_type(&shape.kind), out);
    write_scalar(&shape.kind, value, out);
}

fn wire_type(kind: &Kind) -> u32 {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => I64,
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => I32,
        Kind::String | Kind::Bytes | Kind::Message(_) => LEN,
        _ => VARINT,
    }
}

/// A value without its tag: a varint, little-endian bytes, or a length and what it covers.
fn write_scalar(kind: &Kind, value: &Value, out: &mut Vec<u8>) {
    let varint = |v: u64, out: &mut Vec<u8>| out.extend(varint_bytes(v));
    match (kind, value) {
        // Negative int32s and enum numbers are sign-extended to 64 bits: ten bytes.
        (Kind::Int32, Value::I32(v)) | (Kind::Enum(_), Value::EnumNumber(v)) => {
            varint(i64::from(*v) as u64, out);
        }
        (Kind::Int64, Value::I64(v)) => varint(*v as u64, out),
        (Kind::Uint32, Value::U32(v)) => varint(u64::from(*v), out),
        (Kind::Uint64, Value::U64(v)) => varint(*v, out),
        (Kind::Sint32, Value::I32(v)) => varint(u64::from(((v << 1) ^ (v >> 31)) as u32), out),
        (Kind::Sint64, Value::I64(v)) => varint(((v << 1) ^ (v >> 63)) as u64, out),
        (Kind::Bool, Value::Bool(v)) => varint(u64::from(*v), out),
        (Kind::Fixed32, Value::U32(v)) => out.extend(v.to_le_bytes()),
        (Kind::Sfixed32, Value::I32(v)) => out.extend(v.to_le_bytes()),
        (Kind::Float, Value::F32(v)) => out.extend(v.to_le_bytes()),
        (Kind::Fixed64, Value::U64(v)) => out.extend(v.to_le_bytes()),
        (Kind::Sfixed64, Value::I64(v)) => out.extend(v.to_le_bytes()),
        (Kind::Double, Value::F64(v)) => out.extend(v.to_le_bytes()),
        (Kind::String, Value::String(s)) => write_len(s.as_bytes(), out),
        (Kind::Bytes, Value::Bytes(b)) => write_len(b, out),
        (Kind::Message(_), Value::Message(m)) => write_len(&serialize(m), out),
        // The parser gives each kind its own value; no other pair reaches here.
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    fn desc(name: &str) -> MessageDescriptor {
        Schema::builtin().pool().get_message_by_name(name).unwrap()
    }

    fn hex(bytes: &[u8]) -> String {
        super::super::number::hex_bytes(bytes)
    }

    #[test]
    fn an_example_is_serialized_as_tensorflow_writes_it() {
        let text = r#"features { feature { key: "label" value { int64_list { value: 7 } } } }"#;
        let bytes = from_text(&desc("tensorflow.Example"), text).unwrap();
        assert_eq!(
            hex(&bytes),
            "0a 10 0a 0e 0a 05 6c 61 62 65 6c 12 05 1a 03 0a 01 07"
        );
    }

    #[test]
    fn map_entries_are_written_in_key_order_whatever_the_text_order() {
        let text = r#"features {
            feature { key: "zeta" value { int64_list { value: 1 } } }
            feature { key: "alpha" value { int64_list { value: 2 } } }
            feature { key: "mid" value { int64_list { value: 3 } } }
        }"#;
        let bytes = from_text(&desc("tensorflow.Example"), text).unwrap();
        let shown = String::from_utf8_lossy(&bytes);
        let (a, m, z) = (
            shown.find("alpha").unwrap(),
            shown.find("mid").unwrap(),
            shown.find("zeta").unwrap(),
        );
        assert!(a < m && m < z, "{}", hex(&bytes));
        // The same every time: nothing of a hash table's order reaches the bytes.
        for _ in 0..8 {
            assert_eq!(from_text(&desc("tensorflow.Example"), text).unwrap(), bytes);
        }
    }

    #[test]
    fn number_keys_are_ordered_by_value_zero_among_them() {
        // tensorflow.ClusterDef's jobs: JobDef { name = 1; map<int32, string> tasks = 2 }.
        let text = r#"job { tasks { key: 7 value: "c" } tasks { key: 0 value: "b" } tasks { key: -5 value: "a" } }"#;
        let bytes = from_text(&desc("tensorflow.ClusterDef"), text).unwrap();
        let shown = String::from_utf8_lossy(&bytes);
        let order: Vec<usize> = ["a", "b", "c"]
            .iter()
            .map(|v| shown.find(v).unwrap())
            .collect();
        assert!(
            order[0] < order[1] && order[1] < order[2],
            "{}",
            hex(&bytes)
        );
        // The entry of key -5 writes the key sign-extended, ten bytes; the value always.
        assert!(
            hex(&bytes).contains("12 0e 08 fb ff ff ff ff ff ff ff ff 01 12 01 61 12 05 08 00"),
            "{}",
            hex(&bytes)
        );
    }

    #[test]
    fn negative_int32s_take_ten_bytes_and_proto3_defaults_none() {
        // tensorflow.TensorProto: dtype (enum, 1), tensor_shape (2), int_val (packed int32, 7).
        let text = "dtype: DT_INT32 int_val: [-1, 0, 5] version_number: 0";
        let bytes = from_text(&desc("tensorflow.TensorProto"), text).unwrap();
        assert_eq!(
            hex(&bytes),
            "08 03 3a 0c ff ff ff ff ff ff ff ff ff 01 00 05"
        );
    }

    #[test]
    fn a_mistake_is_named_by_line_and_column() {
        let text = "features {\n  feture { }\n}";
        let e = from_text(&desc("tensorflow.Example"), text).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3), "{e}");
        assert!(e.message.contains("feture"), "{e}");
        let (shown, caret) = e.pointed(text);
        assert_eq!(shown, "  feture { }");
        assert_eq!(caret, "  ^");
        // Running out of text points past its end.
        let e = from_text(&desc("tensorflow.Example"), "features {").unwrap_err();
        assert_eq!((e.line, e.column), (1, 11), "{e}");
    }

    #[test]
    fn control_characters_in_a_mistake_are_escaped() {
        let text = "features { \u{1b}]0;x\u{7} }";
        let e = from_text(&desc("tensorflow.Example"), text).unwrap_err();
        assert_eq!((e.line, e.column), (1, 12), "{e}");
        let (shown, caret) = e.pointed(text);
        assert_eq!(shown, "features { \\033]0;x\\007 }");
        // The caret stands under the escape of the character the parser stopped at.
        assert_eq!(caret.find('^'), shown.find('\\'));
        // The parser's message quotes the token it found: escaped too.
        let e = from_text(&desc("tensorflow.Example"), "features: \"a\u{1b}b\"").unwrap_err();
        assert!(!e.to_string().contains('\u{1b}'), "{e}");
    }

    #[test]
    fn deep_nesting_is_refused_before_the_parser_recurses() {
        let deep = "features { ".repeat(100_000);
        let e = from_text(&desc("tensorflow.Example"), &deep).unwrap_err();
        assert!(e.message.contains("nested more than 64"), "{e}");
        assert_eq!(e.line, 1);
        // Brackets in strings and comments do not count.
        let quoted = format!(
            "# {}\nfeatures {{ feature {{ key: \"{}\" }} }}",
            "{".repeat(200),
            "[".repeat(200)
        );
        assert!(from_text(&desc("tensorflow.Example"), &quoted).is_ok());
    }

    #[test]
    fn a_text_past_the_limit_is_refused() {
        let long = " ".repeat(MAX_TEXT_BYTES + 1);
        let e = check_text(&long).unwrap_err();
        assert!(e.message.contains("more than 4 MiB"), "{e}");
    }
}
