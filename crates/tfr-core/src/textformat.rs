//! Protobuf text format, as Python's `text_format.MessageToString` prints it, and the
//! schema-less form `protoc --decode_raw` prints.
//!
//! Both are written straight from the views into one `String`: no value is collected first, so a
//! record of ten million floats costs its output and nothing more.

use std::fmt::Write as _;

use crate::decode::{FieldValues, MessageView, Parsed, Scalar, Value};
use crate::keytext::{KeyTexts, write_key};
use crate::payload::{PlainExample, PlainValues};
use crate::pyfmt::{c_escape_bytes, c_escape_utf8, write_repr_f64, write_text_f32};
use crate::schema::table::{Cardinality, Field, Kind, Table};
use crate::wire::{NodeKind, ROOT};

/// The text format of a typed message (empty for an empty message).
pub fn message_to_text(message: &MessageView<'_>) -> String {
    let mut out = String::new();
    write_message(message, 0, &mut out);
    out
}

/// How a payload that is not a message is shown: the C-escaped bytes in quotes, on one line.
pub fn bytes_to_text(payload: &[u8]) -> String {
    let mut out = String::new();
    write_bytes_text(payload, &mut out);
    out
}

/// Appends [`bytes_to_text`] to `out`.
pub fn write_bytes_text(payload: &[u8], out: &mut String) {
    out.push('"');
    c_escape_bytes(payload, out);
    out.push_str("\"\n");
}

fn pad(out: &mut String, indent: usize) {
    // Indents are a few spaces. Eight at a time, the last eight cut back to what is due, are
    // copies of a known length, which compile to a store; a slice of spaces of any length
    // compiled to a call of the C library's `memset` for every line.
    const EIGHT: &str = "        ";
    let mut left = indent;
    while left > 0 {
        out.push_str(EIGHT);
        if left < EIGHT.len() {
            out.truncate(out.len() - (EIGHT.len() - left));
            return;
        }
        left -= EIGHT.len();
    }
}

/// Starts the line of a value of the field called `name`.
#[inline(always)]
fn start_line(name: &str, indent: usize, out: &mut String) {
    pad(out, indent);
    out.push_str(name);
    out.push_str(": ");
}

/// Appends the fields of `message` at `indent`.
pub fn write_message(message: &MessageView<'_>, indent: usize, out: &mut String) {
    // A field that ends up unset writes no line: none of its values is kept.
    message.for_each_occurring_field(|field| {
        let info = field.info();
        match info.cardinality {
            Cardinality::Map => write_map(field, indent, out),
            Cardinality::Repeated => {
                // Floats (most of what is printed) have a loop of their own, which inlines
                // their formatting.
                let written = field.each_f32(|value| {
                    start_line(&info.text_name, indent, out);
                    write_text_f32(value, out);
                    out.push('\n');
                }) || field.each_scalar(|scalar| {
                    start_line(&info.text_name, indent, out);
                    write_scalar(&scalar, out);
                    out.push('\n');
                }) || field
                    .each_bytes(|bytes| write_quoted_line(info, bytes, indent, out));
                if !written {
                    for (value, _) in field.values() {
                        write_field(info, &value, indent, out);
                    }
                }
            }
            _ => {
                if let Some(value) = field.singular() {
                    write_field(info, &value, indent, out);
                }
            }
        }
    });
}

fn write_map(field: &FieldValues<'_>, indent: usize, out: &mut String) {
    let map = field.map();
    let (Some(key_field), Some(value_field)) = (map.key_field(), map.value_field()) else {
        return;
    };
    let table = field.parsed().table;
    let name = &field.info().text_name;
    // Python prints an entry as a message built from its key and value (`Entry(key=k,
    // value=v)`), the default standing in for whichever the wire left out. Where fields have
    // presence (proto2), both are set, so both are printed; in proto3 a key or scalar value equal
    // to its default is not set, and the map view already leaves it out (the one default rule,
    // [`Value::is_default`]); a message value is always printed.
    // The entries come in key order, as Python's `sorted()` orders the keys.
    let string_keys = matches!(key_field.kind, Kind::String | Kind::Bytes);
    for (place, (entry, key_bytes)) in map.entries().zip(map.keys_bytes()).enumerate() {
        pad(out, indent);
        out.push_str(name);
        out.push_str(" {\n");
        if !string_keys {
            write_entry_field(key_field, map.key(entry), table, indent + 2, out);
        } else if !key_bytes.is_empty() || key_field.cardinality != Cardinality::Implicit {
            // Written from the bytes the entries were keyed by (empty for a missing key), not
            // read again: the key of every entry of every record is printed.
            pad(out, indent + 2);
            out.push_str(&key_field.text_name);
            match key_field.kind {
                Kind::String => write_key(&STRING_KEYS, place, key_bytes, out, |key, out| {
                    write_quoted(key, true, out);
                }),
                _ => write_quoted(key_bytes, false, out),
            }
        }
        write_entry_field(value_field, map.value(entry), table, indent + 2, out);
        pad(out, indent);
        out.push_str("}\n");
    }
}

thread_local! {
    /// The quoted lines (`: "key"` and the line's end) of the string keys this thread wrote last,
    /// by place, for every map at any depth: each is written from the key's bytes alone.
    static STRING_KEYS: KeyTexts = const { KeyTexts::new() };
}

/// The key or the value of a map entry: `value`, or what stands in for it when it is `None`.
fn write_entry_field(
    field: &Field,
    value: Option<Value<'_>>,
    table: &Table,
    indent: usize,
    out: &mut String,
) {
    if let Some(value) = value {
        return write_field(field, &value, indent, out);
    }
    if field.kind.message().is_some() {
        pad(out, indent);
        out.push_str(&field.text_name);
        out.push_str(" {\n");
        pad(out, indent);
        return out.push_str("}\n");
    }
    if field.cardinality == Cardinality::Implicit {
        return;
    }
    // The type's zero: the enum's value numbered 0 (not its first), as upb's maps default it.
    match Scalar::from_raw(field.kind, 0, table) {
        Some(zero) => write_field(field, &Value::Scalar(zero), indent, out),
        None => write_quoted_line(field, b"", indent, out),
    }
}

fn write_field(field: &Field, value: &Value<'_>, indent: usize, out: &mut String) {
    pad(out, indent);
    out.push_str(&field.text_name);
    match value {
        Value::Message(message) => {
            out.push_str(" {\n");
            write_message(message, indent + 2, out);
            pad(out, indent);
            out.push_str("}\n");
        }
        Value::String(bytes, _) => write_quoted(bytes, true, out),
        Value::Bytes(bytes, _) => write_quoted(bytes, false, out),
        Value::Scalar(scalar) => {
            out.push_str(": ");
            write_scalar(scalar, out);
            out.push('\n');
        }
    }
}

/// The line of string or bytes field `field` holding `bytes`.
fn write_quoted_line(field: &Field, bytes: &[u8], indent: usize, out: &mut String) {
    pad(out, indent);
    out.push_str(&field.text_name);
    write_quoted(bytes, field.kind == Kind::String, out);
}

/// Appends the text format of a plain Example, as [`write_message`] writes the same Example from
/// its tree: the layout is fixed, so each line's indent and name are written as one piece.
pub fn write_plain_example(example: &PlainExample<'_>, out: &mut String) {
    out.push_str("features {\n");
    for (place, feature) in example.features().enumerate() {
        out.push_str("  feature {\n");
        // proto3: an empty key is the default, which is not printed (as in [`write_map`]).
        if !feature.key.is_empty() {
            out.push_str("    key");
            write_key(&STRING_KEYS, place, feature.key, out, |key, out| {
                write_quoted(key, true, out);
            });
        }
        out.push_str("    value {\n");
        const VALUE: &str = "        value: ";
        match feature.values {
            PlainValues::Bytes(list) => {
                out.push_str("      bytes_list {\n");
                PlainValues::each_bytes(list, |bytes| {
                    out.push_str("        value");
                    write_quoted(bytes, false, out);
                });
            }
            PlainValues::Floats(run) => {
                out.push_str("      float_list {\n");
                PlainValues::each_f32(run, |value| {
                    out.push_str(VALUE);
                    write_text_f32(value, out);
                    out.push('\n');
                });
            }
            PlainValues::Int64s(run) => {
                out.push_str("      int64_list {\n");
                let mut digits = itoa::Buffer::new();
                PlainValues::each_i64(run, |value| {
                    out.push_str(VALUE);
                    out.push_str(digits.format(value));
                    out.push('\n');
                });
            }
        }
        out.push_str("      }\n    }\n  }\n");
    }
    out.push_str("}\n");
}

/// `: "…"` and the line's end, `bytes` escaped as a string's (`utf8`) or as bytes.
fn write_quoted(bytes: &[u8], utf8: bool, out: &mut String) {
    out.push_str(": \"");
    if utf8 {
        c_escape_utf8(bytes, out);
    } else {
        c_escape_bytes(bytes, out);
    }
    out.push_str("\"\n");
}

/// A scalar as `text_format` prints it.
pub fn scalar_text(scalar: &Scalar<'_>) -> String {
    let mut out = String::new();
    write_scalar(scalar, &mut out);
    out
}

// Inlined into each kind's loop of numbers, where the match below is settled at compile time.
#[inline(always)]
fn write_scalar(scalar: &Scalar<'_>, out: &mut String) {
    let mut digits = itoa::Buffer::new();
    match scalar {
        Scalar::I32(v) => out.push_str(digits.format(*v)),
        Scalar::I64(v) => out.push_str(digits.format(*v)),
        Scalar::U32(v) => out.push_str(digits.format(*v)),
        Scalar::U64(v) => out.push_str(digits.format(*v)),
        Scalar::F32(v) => write_text_f32(*v, out),
        Scalar::F64(v) => write_repr_f64(*v, out),
        Scalar::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        Scalar::Enum(_, Some(name)) => out.push_str(name),
        Scalar::Enum(n, None) => out.push_str(digits.format(*n)),
    }
}

/// The schema-less text `protoc --decode_raw` prints for a walked payload.
pub fn raw_message_to_text(parsed: Parsed<'_>) -> String {
    let mut out = String::new();
    write_raw_text(parsed, &mut out);
    out
}

/// Appends [`raw_message_to_text`] to `out`.
pub fn write_raw_text(parsed: Parsed<'_>, out: &mut String) {
    write_raw(parsed, ROOT, 0, out);
}

fn write_raw(parsed: Parsed<'_>, container: usize, indent: usize, out: &mut String) {
    for child in parsed.tree.children(container) {
        let Some(node) = parsed.tree.node(child) else {
            continue;
        };
        pad(out, indent);
        let n = node.number();
        let raw = parsed.tree.scalar(child, parsed.bytes).unwrap_or_default();
        let _ = match node.kind() {
            NodeKind::Varint => writeln!(out, "{n}: {raw}"),
            NodeKind::Fixed32 => writeln!(out, "{n}: 0x{raw:08x}"),
            NodeKind::Fixed64 => writeln!(out, "{n}: 0x{raw:016x}"),
            NodeKind::Bytes | NodeKind::Packed => {
                let _ = write!(out, "{n}: \"");
                c_escape_bytes(parsed.slice(node.data_span()), out);
                out.push_str("\"\n");
                Ok(())
            }
            NodeKind::Message | NodeKind::Guessed | NodeKind::Group => {
                let _ = writeln!(out, "{n} {{");
                write_raw(parsed, child, indent + 2, out);
                pad(out, indent);
                writeln!(out, "}}")
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;

    /// The text format of `payload` read as `t.M`, defined by `proto`.
    fn text_as(proto: &str, payload: &[u8]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.proto");
        std::fs::write(&path, proto).unwrap();
        let schema = Schema::with_user_protos(&[path], Some("t.M")).unwrap();
        let message = schema.user_message().unwrap();
        let decoder = Decoder::new(schema, Reading::As(message));
        let decoded = decoder.decode(payload);
        decoded.view(payload, decoder.table()).text()
    }

    #[test]
    fn padding_is_as_many_spaces_as_the_indent() {
        for indent in 0..40 {
            let mut out = String::from("x");
            super::pad(&mut out, indent);
            assert_eq!(out, format!("x{}", " ".repeat(indent)));
        }
    }

    #[test]
    fn a_map_entry_leaves_out_what_proto3_leaves_unset() {
        // Entries of map<string, float> holding key "a" and a value written out explicitly.
        let entry = |value: f32| {
            let mut entry = vec![0x0a, 0x01, b'a', 0x15];
            entry.extend_from_slice(&value.to_le_bytes());
            [&[0x0a, entry.len() as u8][..], &entry].concat()
        };
        let proto3 = "syntax = \"proto3\"; package t; message M { map<string, float> f = 1; }";
        // Python's text_format, as protobuf compares floats: 0.0 is unset, -0.0 is not.
        assert_eq!(text_as(proto3, &entry(0.0)), "f {\n  key: \"a\"\n}\n");
        assert_eq!(
            text_as(proto3, &entry(-0.0)),
            "f {\n  key: \"a\"\n  value: -0.0\n}\n"
        );
        // An empty key is unset too.
        assert_eq!(
            text_as(proto3, &[0x0a, 0x07, 0x0a, 0x00, 0x15, 0, 0, 0xc0, 0x3f]),
            "f {\n  value: 1.5\n}\n"
        );
        // In proto2 a map entry's fields have presence, and Python sets both when it builds
        // the entry it prints: what is written is printed, and so is the default of what is not.
        let proto2 = "syntax = \"proto2\"; package t; message M { map<string, float> f = 1; }";
        assert_eq!(
            text_as(proto2, &entry(0.0)),
            "f {\n  key: \"a\"\n  value: 0.0\n}\n"
        );
        let key_only = [0x0a, 0x03, 0x0a, 0x01, b'a'];
        let value_only = [0x0a, 0x05, 0x15, 0, 0, 0xc0, 0x3f];
        let empty_key = [0x0a, 0x07, 0x0a, 0x00, 0x15, 0, 0, 0xc0, 0x3f];
        assert_eq!(
            text_as(proto2, &key_only),
            "f {\n  key: \"a\"\n  value: 0.0\n}\n"
        );
        for written_or_not in [&value_only[..], &empty_key] {
            assert_eq!(
                text_as(proto2, written_or_not),
                "f {\n  key: \"\"\n  value: 1.5\n}\n"
            );
        }
        assert_eq!(text_as(proto3, &key_only), "f {\n  key: \"a\"\n}\n");
        assert_eq!(text_as(proto3, &value_only), "f {\n  value: 1.5\n}\n");
    }

    #[test]
    fn a_proto2_map_entry_missing_its_key_or_value_prints_their_zeros() {
        // As Python's text_format prints these entries of map<int32, E>, where E declares B = 2
        // before A = 0, with upb (the default backend, which JSON follows too): a missing enum
        // value is the value numbered 0. Pure Python prints the first declared (B) instead.
        let proto = "syntax = \"proto2\"; package t; enum E { B = 2; A = 0; } \
                     message M { map<int32, E> f = 1; map<bool, string> g = 2; }";
        assert_eq!(
            text_as(proto, &[0x0a, 0x02, 0x08, 0x07]),
            "f {\n  key: 7\n  value: A\n}\n"
        );
        assert_eq!(
            text_as(proto, &[0x0a, 0x00]),
            "f {\n  key: 0\n  value: A\n}\n"
        );
        assert_eq!(
            text_as(proto, &[0x12, 0x00]),
            "g {\n  key: false\n  value: \"\"\n}\n"
        );
    }
}
