//! Canonical protobuf JSON, as Python's `json_format.MessageToJson(indent=None, sort_keys=True)`
//! prints it: lowerCamelCase names, 64-bit integers as strings, bytes as base64, floats printed
//! the way Python prints them.

use base64::Engine as _;
use prost_reflect::{FieldDescriptor, Kind};

use crate::decode::{FieldValues, MapEntry, Scalar, TypedMessage, TypedValue};
use crate::pyfmt::{json_string, repr_f64, shortest_f32};

/// A JSON value whose numbers are already formatted, so printing cannot change them.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Literal(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Serialises with Python's default separators (`", "` and `": "`) and sorted keys.
    pub fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Literal(text) => out.push_str(text),
            Json::String(text) => json_string(text, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                let mut sorted: Vec<&(String, Json)> = members.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(&b.0));
                out.push('{');
                for (i, (key, value)) in sorted.into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    json_string(key, out);
                    out.push_str(": ");
                    value.write(out);
                }
                out.push('}');
            }
        }
    }

    pub fn to_string_sorted(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

/// The JSON object of a typed message.
pub fn message_to_json(message: &TypedMessage<'_>) -> Json {
    let members = message
        .fields
        .iter()
        .map(|field| {
            let name = field.descriptor.json_name().to_string();
            let value = match &field.values {
                FieldValues::Singular(v) => value_to_json(&field.descriptor, v),
                FieldValues::Repeated(values) => Json::Array(
                    values
                        .iter()
                        .map(|v| value_to_json(&field.descriptor, v))
                        .collect(),
                ),
                FieldValues::Map(entries) => map_to_json(&field.descriptor, entries),
            };
            (name, value)
        })
        .collect();
    Json::Object(members)
}

fn map_to_json(field: &FieldDescriptor, entries: &[MapEntry<'_>]) -> Json {
    let Kind::Message(entry_type) = field.kind() else {
        return Json::Object(Vec::new());
    };
    let (Some(key_field), Some(value_field)) = (entry_type.get_field(1), entry_type.get_field(2))
    else {
        return Json::Object(Vec::new());
    };
    let members = entries
        .iter()
        .map(|entry| {
            let key = match &entry.key {
                Some(TypedValue::String(b, _) | TypedValue::Bytes(b, _)) => {
                    String::from_utf8_lossy(b).into_owned()
                }
                Some(TypedValue::Scalar(Scalar::Bool(b))) => b.to_string(),
                Some(TypedValue::Scalar(s)) => crate::textformat::scalar_text(s),
                _ => default_key(&key_field),
            };
            let value = match &entry.value {
                Some(v) => value_to_json(&value_field, v),
                None => default_json(&value_field),
            };
            (key, value)
        })
        .collect();
    Json::Object(members)
}

fn default_key(field: &FieldDescriptor) -> String {
    match field.kind() {
        Kind::String => String::new(),
        Kind::Bool => "false".into(),
        _ => "0".into(),
    }
}

fn default_json(field: &FieldDescriptor) -> Json {
    match field.kind() {
        Kind::Message(_) => Json::Object(Vec::new()),
        Kind::String | Kind::Bytes => Json::String(String::new()),
        Kind::Bool => Json::Literal("false".into()),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Uint64 | Kind::Fixed64 => {
            Json::String("0".into())
        }
        Kind::Float | Kind::Double => Json::Literal("0.0".into()),
        Kind::Enum(e) => e
            .get_value(0)
            .map_or(Json::Literal("0".into()), |v| Json::String(v.name().into())),
        _ => Json::Literal("0".into()),
    }
}

fn float_json(value: f64, shortest: f64) -> Json {
    if value.is_nan() {
        Json::String("NaN".into())
    } else if value.is_infinite() {
        Json::String(if value < 0.0 { "-Infinity" } else { "Infinity" }.into())
    } else {
        Json::Literal(repr_f64(shortest))
    }
}

fn value_to_json(field: &FieldDescriptor, value: &TypedValue<'_>) -> Json {
    match value {
        TypedValue::Message(m) => message_to_json(m),
        TypedValue::Bytes(b, _) => {
            Json::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        TypedValue::String(b, _) => Json::String(String::from_utf8_lossy(b).into_owned()),
        TypedValue::Scalar(scalar) => match scalar {
            Scalar::I32(v) => Json::Literal(v.to_string()),
            Scalar::U32(v) => Json::Literal(v.to_string()),
            Scalar::I64(v) => Json::String(v.to_string()),
            Scalar::U64(v) => Json::String(v.to_string()),
            Scalar::Bool(v) => Json::Literal(v.to_string()),
            Scalar::F32(v) => float_json(f64::from(*v), shortest_f32(*v)),
            Scalar::F64(v) => float_json(*v, *v),
            Scalar::Enum(n, name) => match (name, field.kind()) {
                (_, Kind::Enum(e)) if e.full_name() == "google.protobuf.NullValue" => Json::Null,
                (Some(name), _) => Json::String(name.clone()),
                (None, _) => Json::Literal(n.to_string()),
            },
        },
    }
}

/// The JSON line for a payload that is not a message: its length, whether protobuf would accept it
/// as a `tf.train.Example`, and the bytes in base64.
pub fn raw_payload_json(payload: &[u8], parses_as_example: bool) -> Json {
    Json::Object(vec![
        ("length".into(), Json::Literal(payload.len().to_string())),
        (
            "parses_as_example".into(),
            Json::Literal(parses_as_example.to_string()),
        ),
        (
            "payload_base64".into(),
            Json::String(base64::engine::general_purpose::STANDARD.encode(payload)),
        ),
    ])
}
