//! Protobuf text format, as Python's `text_format.MessageToString` prints it, and the
//! schema-less form `protoc --decode_raw` prints.

use std::fmt::Write as _;

use prost_reflect::{FieldDescriptor, Kind, Syntax};

use crate::decode::{FieldValues, MapEntry, Scalar, TypedMessage, TypedValue};
use crate::pyfmt::{c_escape_bytes, c_escape_utf8, repr_f64, text_f32};
use crate::wire::{self, Value};

/// The text format of a typed message (empty for an empty message).
pub fn message_to_text(message: &TypedMessage<'_>) -> String {
    let mut out = String::new();
    write_message(message, 0, &mut out);
    out
}

/// How a payload that is not a message is shown: the C-escaped bytes in quotes, on one line.
pub fn bytes_to_text(payload: &[u8]) -> String {
    let mut out = String::from("\"");
    c_escape_bytes(payload, &mut out);
    out.push_str("\"\n");
    out
}

fn write_message(message: &TypedMessage<'_>, indent: usize, out: &mut String) {
    for field in &message.fields {
        match &field.values {
            FieldValues::Singular(value) => write_field(&field.descriptor, value, indent, out),
            FieldValues::Repeated(values) => {
                for value in values {
                    write_field(&field.descriptor, value, indent, out);
                }
            }
            FieldValues::Map(entries) => {
                let mut sorted: Vec<&MapEntry<'_>> = entries.iter().collect();
                sorted.sort_by(|a, b| compare_keys(a, b));
                for entry in sorted {
                    write_map_entry(&field.descriptor, entry, indent, out);
                }
            }
        }
    }
}

/// Orders map entries the way Python's `sorted()` orders their keys.
pub fn compare_keys(a: &MapEntry<'_>, b: &MapEntry<'_>) -> std::cmp::Ordering {
    use TypedValue::{Bytes, Scalar as S, String};
    let key = |e: &MapEntry<'_>| -> (i128, Vec<u8>) {
        match &e.key {
            Some(String(b, _) | Bytes(b, _)) => (0, b.to_vec()),
            Some(S(Scalar::I32(v))) => (i128::from(*v), Vec::new()),
            Some(S(Scalar::I64(v))) => (i128::from(*v), Vec::new()),
            Some(S(Scalar::U32(v))) => (i128::from(*v), Vec::new()),
            Some(S(Scalar::U64(v))) => (i128::from(*v), Vec::new()),
            Some(S(Scalar::Bool(v))) => (i128::from(*v), Vec::new()),
            _ => (0, Vec::new()),
        }
    };
    key(a).cmp(&key(b))
}

fn write_map_entry(field: &FieldDescriptor, entry: &MapEntry<'_>, indent: usize, out: &mut String) {
    let Kind::Message(entry_type) = field.kind() else {
        return;
    };
    let pad = " ".repeat(indent);
    let _ = writeln!(out, "{pad}{} {{", field.name());
    // The entry is printed as a message built from key and value, so proto3 rules drop a key or
    // scalar value equal to its default, while a message value is always present.
    let proto3 = entry_type.parent_file().syntax() == Syntax::Proto3;
    for (number, value) in [(1, &entry.key), (2, &entry.value)] {
        let Some(sub) = entry_type.get_field(number) else {
            continue;
        };
        match value {
            Some(v) if !(proto3 && is_default_scalar(v)) => write_field(&sub, v, indent + 2, out),
            None if matches!(sub.kind(), Kind::Message(_)) => {
                let _ = writeln!(out, "{pad}  {} {{\n{pad}  }}", sub.name());
            }
            _ => {}
        }
    }
    let _ = writeln!(out, "{pad}}}");
}

fn is_default_scalar(value: &TypedValue<'_>) -> bool {
    match value {
        TypedValue::Scalar(s) => matches!(
            s,
            Scalar::I32(0)
                | Scalar::I64(0)
                | Scalar::U32(0)
                | Scalar::U64(0)
                | Scalar::Bool(false)
                | Scalar::Enum(0, _)
        ),
        TypedValue::String(b, _) | TypedValue::Bytes(b, _) => b.is_empty(),
        TypedValue::Message(_) => false,
    }
}

fn write_field(field: &FieldDescriptor, value: &TypedValue<'_>, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let name = if field.is_group() {
        match field.kind() {
            Kind::Message(m) => m.name().to_string(),
            _ => field.name().to_string(),
        }
    } else {
        field.name().to_string()
    };
    match value {
        TypedValue::Message(message) => {
            let _ = writeln!(out, "{pad}{name} {{");
            write_message(message, indent + 2, out);
            let _ = writeln!(out, "{pad}}}");
        }
        TypedValue::String(bytes, _) => {
            let _ = write!(out, "{pad}{name}: \"");
            c_escape_utf8(bytes, out);
            out.push_str("\"\n");
        }
        TypedValue::Bytes(bytes, _) => {
            let _ = write!(out, "{pad}{name}: \"");
            c_escape_bytes(bytes, out);
            out.push_str("\"\n");
        }
        TypedValue::Scalar(scalar) => {
            let _ = writeln!(out, "{pad}{name}: {}", scalar_text(scalar));
        }
    }
}

/// A scalar as `text_format` prints it.
pub fn scalar_text(scalar: &Scalar) -> String {
    match scalar {
        Scalar::I32(v) => v.to_string(),
        Scalar::I64(v) => v.to_string(),
        Scalar::U32(v) => v.to_string(),
        Scalar::U64(v) => v.to_string(),
        Scalar::F32(v) => text_f32(*v),
        Scalar::F64(v) => repr_f64(*v),
        Scalar::Bool(v) => v.to_string(),
        Scalar::Enum(n, name) => name.clone().unwrap_or_else(|| n.to_string()),
    }
}

/// The schema-less text `protoc --decode_raw` prints for a walked message.
pub fn raw_message_to_text(payload: &[u8], message: &wire::Message) -> String {
    let mut out = String::new();
    write_raw(payload, message, 0, &mut out);
    out
}

fn write_raw(payload: &[u8], message: &wire::Message, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for field in &message.fields {
        let n = field.number;
        match &field.value {
            Value::Varint { raw, .. } => {
                let _ = writeln!(out, "{pad}{n}: {raw}");
            }
            Value::Fixed32 { raw, .. } => {
                let _ = writeln!(out, "{pad}{n}: 0x{raw:08x}");
            }
            Value::Fixed64 { raw, .. } => {
                let _ = writeln!(out, "{pad}{n}: 0x{raw:016x}");
            }
            Value::Bytes { data, .. } => {
                let _ = write!(out, "{pad}{n}: \"");
                c_escape_bytes(data.slice(payload).unwrap_or_default(), out);
                out.push_str("\"\n");
            }
            Value::Packed { data, .. } => {
                let _ = write!(out, "{pad}{n}: \"");
                c_escape_bytes(data.slice(payload).unwrap_or_default(), out);
                out.push_str("\"\n");
            }
            Value::Message { message, .. } | Value::Group { message, .. } => {
                let _ = writeln!(out, "{pad}{n} {{");
                write_raw(payload, message, indent + 2, out);
                let _ = writeln!(out, "{pad}}}");
            }
        }
    }
}
