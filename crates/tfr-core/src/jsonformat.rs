//! Canonical protobuf JSON, as Python's `json_format.MessageToJson(indent=None, sort_keys=True)`
//! prints it: lowerCamelCase names, 64-bit integers as strings, bytes as base64, floats printed
//! the way Python prints them.
//!
//! Records are written straight from the views into one `String`, with no intermediate tree. The
//! tool's own reports are serde types printed by [`crate::pyjson`].

use std::borrow::Cow;

use base64::Engine as _;

use crate::decode::{FieldValues, MapEntry, MapView, MessageView, Scalar, Value};
use crate::keytext::{KeyTexts, write_key};
use crate::payload::{PlainExample, PlainValues};
use crate::pyfmt::{json_bytes, json_string, write_repr_f64, write_text_f32};
use crate::schema::table::{Cardinality, Field, Kind, Table};
use crate::textformat::scalar_text;

/// The JSON object of a typed message, on one line.
pub fn message_to_json(message: &MessageView<'_>) -> String {
    let mut out = String::new();
    write_message(message, &mut out);
    out
}

/// Appends the JSON object of `message` to `out`.
pub fn write_message(message: &MessageView<'_>, out: &mut String) {
    out.push('{');
    let mut first = true;
    let mut member = |field: &FieldValues<'_>| {
        let mark = out.len();
        if !first {
            out.push_str(", ");
        }
        out.push_str(&field.info().json_member);
        if write_field(field, out) {
            first = false;
        } else {
            out.truncate(mark);
        }
    };
    // Members are sorted by name; where the names follow the field numbers, the fields already
    // come in that order. A field that turns out unset is taken back (see `write_field`): that is
    // cheaper than asking each field first, and nothing below it was written.
    if message.parsed().table.json_follows_numbers(message.id()) {
        message.for_each_occurring_field(member);
    } else {
        let mut fields = message.fields();
        fields.sort_by(|a, b| a.info().json_name.cmp(&b.info().json_name));
        fields.iter().for_each(&mut member);
    }
    out.push('}');
}

/// Appends the value of `field`; `false` when the field ends up unset, having written at most
/// `[]` (an unset map or singular field writes nothing), which the caller takes back.
fn write_field(field: &FieldValues<'_>, out: &mut String) -> bool {
    let info = field.info();
    let table = field.parsed().table;
    match info.cardinality {
        Cardinality::Map => write_map(field, out),
        Cardinality::Repeated => {
            out.push('[');
            let mut first = true;
            let mut separate = |out: &mut String| {
                if !first {
                    out.push_str(", ");
                }
                first = false;
            };
            let written = field.each_f32(|value| {
                separate(out);
                write_f32(value, out);
            }) || field.each_scalar(|scalar| {
                separate(out);
                write_scalar(info, &scalar, table, out);
            }) || field.each_bytes(|bytes| {
                separate(out);
                write_bytes_value(info, bytes, out);
            });
            if !written {
                for (value, _) in field.values() {
                    separate(out);
                    write_value(info, &value, table, out);
                }
            }
            out.push(']');
            !first
        }
        _ => match field.singular() {
            Some(value) => {
                write_value(info, &value, table, out);
                true
            }
            None => false,
        },
    }
}

/// Appends a map field's entries; `false` when it keeps none.
fn write_map(field: &FieldValues<'_>, out: &mut String) -> bool {
    let map = field.map();
    let table = field.parsed().table;
    let (Some(key_field), Some(value_field)) = (map.key_field(), map.value_field()) else {
        return false;
    };
    if map.is_empty() {
        return false;
    }
    // UTF-8 string keys are already in JSON's order: the view keeps them in byte order, which is
    // code point order. All are checked before anything is written, unless the walk found every
    // string that must be UTF-8 to be so.
    let walk_checked = key_field.utf8 && field.parsed().tree.first_not_utf8().is_none();
    if key_field.kind == Kind::String
        && (walk_checked || map.keys_bytes().all(|k| std::str::from_utf8(k).is_ok()))
    {
        write_entries(
            map.keys_bytes().zip(map.entries()),
            &map,
            value_field,
            table,
            out,
        );
        return true;
    }
    // Other keys sort as the text they print as.
    let mut keyed: Vec<(Cow<'_, str>, &MapEntry)> = map
        .entries()
        .map(|entry| (key_text(map.key(entry), key_field), entry))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let members = keyed.iter().map(|(key, entry)| (key.as_bytes(), *entry));
    write_entries(members, &map, value_field, table, out);
    true
}

/// Appends a map's entries, given in order with their keys as UTF-8 bytes, as a JSON object.
fn write_entries<'m>(
    members: impl Iterator<Item = (&'m [u8], &'m MapEntry)>,
    map: &MapView<'_>,
    value_field: &Field,
    table: &Table,
    out: &mut String,
) {
    out.push('{');
    for (n, (key, entry)) in members.enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        write_key(&KEY_MEMBERS, n, key, out, |key, out| {
            json_bytes(key, out);
            out.push_str(": ");
        });
        match map.value(entry) {
            Some(value) => write_value(value_field, &value, table, out),
            None => write_default(value_field, table, out),
        }
    }
    out.push('}');
}

/// Appends the JSON object of a plain Example, as [`write_message`] writes the same Example
/// from its tree.
pub fn write_plain_example(example: &PlainExample<'_>, out: &mut String) {
    out.push_str("{\"features\": {\"feature\": {");
    for (n, feature) in example.features().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        write_key(&KEY_MEMBERS, n, feature.key, out, |key, out| {
            json_bytes(key, out);
            out.push_str(": ");
        });
        let mut first = true;
        let mut separate = |out: &mut String| {
            if !first {
                out.push_str(", ");
            }
            first = false;
        };
        match feature.values {
            PlainValues::Bytes(list) => {
                out.push_str("{\"bytesList\": {\"value\": [");
                PlainValues::each_bytes(list, |bytes| {
                    separate(out);
                    out.push('"');
                    write_base64(bytes, out);
                    out.push('"');
                });
            }
            PlainValues::Floats(run) => {
                out.push_str("{\"floatList\": {\"value\": [");
                PlainValues::each_f32(run, |value| {
                    separate(out);
                    write_f32(value, out);
                });
            }
            PlainValues::Int64s(run) => {
                out.push_str("{\"int64List\": {\"value\": [");
                let mut digits = itoa::Buffer::new();
                PlainValues::each_i64(run, |value| {
                    separate(out);
                    quoted(digits.format(value), out);
                });
            }
        }
        out.push_str("]}}");
    }
    out.push_str("}}}");
}

thread_local! {
    /// The member names (`"key": `) of the map keys this thread wrote last, by place, for every
    /// map at any depth: each call writes a key's name the same way, from its bytes alone.
    static KEY_MEMBERS: KeyTexts = const { KeyTexts::new() };
}

/// A map key as a JSON member name.
fn key_text<'a>(key: Option<Value<'a>>, field: &Field) -> Cow<'a, str> {
    match key {
        Some(Value::String(b, _) | Value::Bytes(b, _)) => String::from_utf8_lossy(b),
        Some(Value::Scalar(Scalar::Bool(b))) => Cow::Borrowed(if b { "true" } else { "false" }),
        Some(Value::Scalar(s)) => Cow::Owned(scalar_text(&s)),
        _ => Cow::Borrowed(match field.kind {
            Kind::String => "",
            Kind::Bool => "false",
            _ => "0",
        }),
    }
}

/// What JSON shows for a field the wire leaves unset (a map entry without its value).
fn write_default(field: &Field, table: &Table, out: &mut String) {
    let text = match field.kind {
        Kind::Message(_) | Kind::Group(_) => "{}",
        Kind::String | Kind::Bytes => "\"\"",
        Kind::Bool => "false",
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Uint64 | Kind::Fixed64 => "\"0\"",
        Kind::Float | Kind::Double => "0.0",
        Kind::Enum(e) => match table.enum_type(e).and_then(|e| e.value_name(0)) {
            Some(name) => return json_string(name, out),
            None => "0",
        },
        _ => "0",
    };
    out.push_str(text);
}

/// The string JSON spells NaN and infinities with.
#[cold]
fn write_not_finite(value: f64, out: &mut String) {
    out.push_str(if value.is_nan() {
        "\"NaN\""
    } else if value < 0.0 {
        "\"-Infinity\""
    } else {
        "\"Infinity\""
    });
}

/// Appends a value of `field`. This and the small writers it calls are inlined into the loops
/// over fields and entries: they run for every value of every record, and their calls cost
/// about 1% of `show --format json`'s instructions (callgrind).
#[inline(always)]
fn write_value(field: &Field, value: &Value<'_>, table: &Table, out: &mut String) {
    match value {
        Value::Message(m) => write_message(m, out),
        Value::Bytes(b, _) | Value::String(b, _) => write_bytes_value(field, b, out),
        Value::Scalar(scalar) => write_scalar(field, scalar, table, out),
    }
}

/// A string field's value (`bytes` as text), or a bytes field's (in base64).
#[inline(always)]
fn write_bytes_value(field: &Field, bytes: &[u8], out: &mut String) {
    if field.kind == Kind::String {
        json_bytes(bytes, out);
    } else {
        out.push('"');
        write_base64(bytes, out);
        out.push('"');
    }
}

/// Appends `bytes` in base64. Short values (labels, ids, names) are encoded on the stack:
/// `encode_string` zeroes a 1 KiB buffer for every value, which cost more than encoding them.
#[inline(always)]
pub(crate) fn write_base64(bytes: &[u8], out: &mut String) {
    const SHORT: usize = 48;
    let engine = &base64::engine::general_purpose::STANDARD;
    let mut encoded = [0u8; SHORT / 3 * 4];
    // Longer values do not fit: `encode_slice` refuses them before encoding anything.
    match engine.encode_slice(bytes, &mut encoded) {
        // Base64 is ASCII, so always UTF-8.
        Ok(len) => out.push_str(
            std::str::from_utf8(encoded.get(..len).unwrap_or_default()).unwrap_or_default(),
        ),
        _ => engine.encode_string(bytes, out),
    }
}

// Inlined into each kind's loop of numbers, where the match below is settled at compile time.
#[inline(always)]
fn write_scalar(field: &Field, scalar: &Scalar<'_>, table: &Table, out: &mut String) {
    let mut digits = itoa::Buffer::new();
    match scalar {
        Scalar::I32(v) => out.push_str(digits.format(*v)),
        Scalar::U32(v) => out.push_str(digits.format(*v)),
        // 64-bit integers are strings in protobuf's JSON.
        Scalar::I64(v) => quoted(digits.format(*v), out),
        Scalar::U64(v) => quoted(digits.format(*v), out),
        Scalar::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        Scalar::F32(v) => write_f32(*v, out),
        Scalar::F64(v) if v.is_finite() => write_repr_f64(*v, out),
        Scalar::F64(v) => write_not_finite(*v, out),
        Scalar::Enum(n, name) => {
            let null = match field.kind {
                Kind::Enum(e) => table
                    .enum_type(e)
                    .is_some_and(|e| &*e.full_name == "google.protobuf.NullValue"),
                _ => false,
            };
            match (null, name) {
                (true, _) => out.push_str("null"),
                (false, Some(name)) => json_string(name, out),
                (false, None) => out.push_str(digits.format(*n)),
            }
        }
    }
}

#[inline(always)]
fn write_f32(value: f32, out: &mut String) {
    // Floats print in their shortest form, which the usual (finite) one is asked for first.
    if value.is_finite() {
        write_text_f32(value, out);
    } else {
        write_not_finite(f64::from(value), out);
    }
}

#[inline(always)]
fn quoted(text: &str, out: &mut String) {
    out.push('"');
    out.push_str(text);
    out.push('"');
}

/// What JSON says of a payload that is not a message: its length, whether protobuf would accept it
/// as a `tf.train.Example`, and the bytes in base64; with the message type asked for (`--message`),
/// that type and that the payload is not one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RawPayload {
    pub length: usize,
    pub parses_as_example: bool,
    pub payload_base64: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parses_as_message: Option<bool>,
}

impl RawPayload {
    pub fn new(payload: &[u8], parses_as_example: bool) -> RawPayload {
        RawPayload {
            length: payload.len(),
            parses_as_example,
            payload_base64: base64::engine::general_purpose::STANDARD.encode(payload),
            message: None,
            parses_as_message: None,
        }
    }

    /// The payload, read as `message` and found not to be one.
    pub fn not_a(self, message: &str) -> RawPayload {
        RawPayload {
            message: Some(message.to_string()),
            parses_as_message: Some(false),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::length_delimited as ld;
    use crate::decode::Parsed;
    use crate::explain::tests::schema;
    use crate::wire::walk;

    /// `levels` maps inside each other: each holds "a" (the next level in) and a key that is not
    /// UTF-8 (an empty message).
    fn nested(levels: usize) -> Vec<u8> {
        let mut inner = Vec::new();
        for _ in 0..levels {
            let a = ld(1, &[ld(1, b"a"), ld(2, &inner)].concat());
            let bad = ld(1, &[ld(1, b"\xff"), ld(2, b"")].concat());
            inner = [a, bad].concat();
        }
        inner
    }

    fn json(levels: usize) -> String {
        let schema = schema(
            "syntax = \"proto2\"; package p;\nmessage N { map<string, N> c = 1; }\n",
            "p.N",
        );
        let bytes = nested(levels);
        let table = schema.table();
        let tree = walk(&bytes, table, schema.user_message());
        message_to_json(&Parsed::new(&tree, &bytes, table).root().unwrap())
    }

    #[test]
    fn fields_that_occur_but_end_up_unset_leave_no_member_and_no_separator() {
        let schema = schema(
            "syntax = \"proto3\"; package p;\n\
             message M { int32 a = 1; int32 b = 2; repeated int32 c = 3; map<string, int32> d = 4;\n\
             int32 e = 5; }\n",
            "p.M",
        );
        let table = schema.table();
        let json = |bytes: &[u8]| {
            let tree = walk(bytes, table, schema.user_message());
            message_to_json(&Parsed::new(&tree, bytes, table).root().unwrap())
        };
        // `b` is proto3's default, `c` an empty packed run, `d` an entry carrying an unknown
        // field (field 3), which a parser does not keep as an entry. The names follow the field
        // numbers, so the fields are visited as they occur.
        let unset = [vec![0x10, 0], ld(3, &[]), ld(4, &[0x18, 1])].concat();
        assert_eq!(
            json(&[vec![0x08, 1], unset.clone(), vec![0x28, 4]].concat()),
            r#"{"a": 1, "e": 4}"#
        );
        assert_eq!(
            json(&[unset.clone(), vec![0x28, 4]].concat()),
            r#"{"e": 4}"#
        );
        assert_eq!(
            json(&[vec![0x08, 1], unset.clone()].concat()),
            r#"{"a": 1}"#
        );
        assert_eq!(json(&unset), "{}");
    }

    #[test]
    fn a_payload_that_is_no_message_is_its_length_and_base64_and_says_what_it_is_not() {
        let raw = RawPayload::new(b"\xff\x1b[31m", false);
        assert_eq!(
            crate::pyjson::to_string(&raw).unwrap(),
            r#"{"length": 6, "parses_as_example": false, "payload_base64": "/xtbMzFt"}"#
        );
        assert_eq!(
            crate::pyjson::to_string(&raw.not_a("tensorflow.Event")).unwrap(),
            r#"{"length": 6, "message": "tensorflow.Event", "parses_as_example": false, "parses_as_message": false, "payload_base64": "/xtbMzFt"}"#
        );
    }

    #[test]
    fn base64_on_the_stack_and_past_it_is_the_standard_encoding() {
        let bytes: Vec<u8> = (0..=255u8).rev().collect();
        for len in 0..100 {
            let mut out = String::new();
            write_base64(&bytes[..len], &mut out);
            assert_eq!(
                out,
                base64::engine::general_purpose::STANDARD.encode(&bytes[..len])
            );
        }
    }

    #[test]
    fn floats_that_are_not_finite_are_strings() {
        let schema = schema(
            "syntax = \"proto3\"; package p;\n\
             message M { repeated float f = 1; repeated double d = 2; float s = 3; }\n",
            "p.M",
        );
        let table = schema.table();
        // What protobuf 7.36.2 (upb) serialises and prints for
        // M(f=[nan, inf, -inf, 1.5, -0.0, 0.1], d=[-inf, 0.1], s=inf).
        let hex = "0a180000c07f0000807f000080ff0000c03f00000080cdcccc3d1210000000000000f0ff\
                   9a9999999999b93f1d0000807f";
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let tree = walk(&bytes, table, schema.user_message());
        assert_eq!(
            message_to_json(&Parsed::new(&tree, &bytes, table).root().unwrap()),
            r#"{"d": ["-Infinity", 0.1], "f": ["NaN", "Infinity", "-Infinity", 1.5, -0.0, 0.1], "s": "Infinity"}"#
        );
    }

    /// Records printed one after another on one thread, as `show` prints a file's: keys that
    /// change at a place, move, or need escaping print as their own, in JSON and in text.
    #[test]
    fn map_keys_print_as_themselves_whatever_the_records_before_them_had() {
        use crate::crafted::{FeatureValue, example};
        use crate::schema::Schema;
        use crate::textformat::message_to_text;
        let schema = Schema::builtin();
        let table = schema.table();
        let root = schema.message("tensorflow.Example");
        let printed = |names: &[&str]| {
            let features: Vec<(&str, FeatureValue)> = names
                .iter()
                .map(|n| (*n, FeatureValue::Ints(vec![1])))
                .collect();
            let bytes = example(&features);
            let tree = walk(&bytes, table, root);
            let example = Parsed::new(&tree, &bytes, table).root().unwrap();
            (message_to_json(&example), message_to_text(&example))
        };
        let member = |key: &str| format!(r#"{key}: {{"int64List": {{"value": ["1"]}}}}"#);
        let entry = |key: &str| {
            format!(
                "  feature {{\n    key: {key}\n    value {{\n      int64_list {{\n        value: 1\n      }}\n    }}\n  }}\n"
            )
        };
        let cases: [&[&str]; 5] = [
            &["a", "b"],
            &["a", "b"],
            &["a", "bb"],
            &["b", "c"],
            &["a\"q\u{e9}", "b"],
        ];
        let quoted_json = |k: &str| match k {
            "a\"q\u{e9}" => r#""a\"q\u00e9""#.to_string(),
            k => format!("\"{k}\""),
        };
        let quoted_text = |k: &str| match k {
            "a\"q\u{e9}" => "\"a\\\"q\u{e9}\"".to_string(),
            k => format!("\"{k}\""),
        };
        for names in cases {
            let (json, text) = printed(names);
            let members: Vec<String> = names.iter().map(|k| member(&quoted_json(k))).collect();
            assert_eq!(
                json,
                format!(
                    r#"{{"features": {{"feature": {{{}}}}}}}"#,
                    members.join(", ")
                )
            );
            let entries: String = names.iter().map(|k| entry(&quoted_text(k))).collect();
            assert_eq!(text, format!("features {{\n{entries}}}\n"));
        }
    }

    #[test]
    fn maps_with_keys_that_are_not_utf8_sort_as_their_text_at_every_depth() {
        assert_eq!(json(1), r#"{"c": {"a": {}, "\ufffd": {}}}"#);
        assert_eq!(
            json(2),
            r#"{"c": {"a": {"c": {"a": {}, "\ufffd": {}}}, "\ufffd": {}}}"#
        );
        // Each level's keys are judged before anything of it is written: writing a level and
        // taking it back doubled the work per level, which 40 levels would not survive.
        let deep = json(40);
        assert_eq!(deep.matches(r#""\ufffd": {}"#).count(), 40);
    }
}
