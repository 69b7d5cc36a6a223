//! Per-field statistics of any message a schema describes: each field is summarised under its
//! path (`temperature.value`, a nested message's fields after its own name; a repeated field's
//! values all under one path, so that values per record count them), with the same summaries
//! features get: numbers, strings and bytes, an enum's values by name, a bool's trues and falses.
//! Messages deeper than [`MAX_DEPTH`] are counted but not opened, and paths past
//! [`super::MAX_FEATURES`] are folded like features.

use std::collections::HashMap;

use crate::decode::{MessageView, Scalar, Value};
use crate::schema::table::{Cardinality, Field, Kind, Table};

/// Messages within messages opened at most: a recursive type (a tree of nodes) would otherwise
/// give a path per level, as deep as its records nest.
pub const MAX_DEPTH: usize = 8;

/// One value met in a record, at its field's path.
#[derive(Debug, Clone, Copy)]
pub enum Leaf<'a> {
    /// A message (its fields come after it, under its path).
    Message,
    Scalar(Scalar<'a>),
    /// A `string` or `bytes` value.
    Bytes(&'a [u8]),
}

/// Calls `visit(path, field, leaf)` with every value of `message` and of the messages in it, in
/// field order, down to [`MAX_DEPTH`] messages deep.
pub fn walk<'a>(message: &MessageView<'a>, visit: &mut dyn FnMut(&str, &Field, Leaf<'a>)) {
    let mut path = String::new();
    walk_into(message, &mut path, 0, visit);
}

fn walk_into<'a>(
    message: &MessageView<'a>,
    path: &mut String,
    depth: usize,
    visit: &mut dyn FnMut(&str, &Field, Leaf<'a>),
) {
    for field in message.fields().iter() {
        let info = field.info();
        let mark = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&info.name);
        let mut one = |value: Value<'a>, path: &mut String| match value {
            Value::Scalar(s) => visit(path, info, Leaf::Scalar(s)),
            Value::String(b, _) | Value::Bytes(b, _) => visit(path, info, Leaf::Bytes(b)),
            Value::Message(inner) => {
                visit(path, info, Leaf::Message);
                if depth + 1 < MAX_DEPTH {
                    walk_into(&inner, path, depth + 1, visit);
                }
            }
        };
        match info.cardinality {
            Cardinality::Repeated | Cardinality::Map => {
                for (value, _) in field.values() {
                    one(value, path);
                }
            }
            Cardinality::Implicit | Cardinality::Explicit => {
                if let Some(value) = field.singular() {
                    one(value, path);
                }
            }
        }
        path.truncate(mark);
    }
}

/// The type a field declares, as `.proto` files write it (`int32`, `string`, `enum acme.Color`,
/// `message acme.Quantity`), `repeated ` before it for a repeated field and `map` for a map.
pub fn declared(field: &Field, table: &Table) -> String {
    let kind = match field.kind {
        Kind::Double => "double".to_string(),
        Kind::Float => "float".into(),
        Kind::Int64 => "int64".into(),
        Kind::Uint64 => "uint64".into(),
        Kind::Int32 => "int32".into(),
        Kind::Fixed64 => "fixed64".into(),
        Kind::Fixed32 => "fixed32".into(),
        Kind::Bool => "bool".into(),
        Kind::String => "string".into(),
        Kind::Bytes => "bytes".into(),
        Kind::Uint32 => "uint32".into(),
        Kind::Sfixed32 => "sfixed32".into(),
        Kind::Sfixed64 => "sfixed64".into(),
        Kind::Sint32 => "sint32".into(),
        Kind::Sint64 => "sint64".into(),
        Kind::Enum(e) => match table.enum_type(e) {
            Some(e) => format!("enum {}", e.full_name),
            None => "enum".into(),
        },
        Kind::Message(m) | Kind::Group(m) => match table.message(m) {
            Some(m) if field.cardinality == Cardinality::Map => format!("map {}", m.name),
            Some(m) => format!("message {}", m.full_name),
            None => "message".into(),
        },
    };
    match field.cardinality {
        Cardinality::Repeated => format!("repeated {kind}"),
        _ => kind,
    }
}

/// How many values each path held in the record being read, in the order first met.
#[derive(Debug, Default)]
pub struct Held {
    at: HashMap<String, usize>,
    pub counts: Vec<(String, u64)>,
}

impl Held {
    /// Counts one value at `path`.
    pub fn add(&mut self, path: &str) {
        match self.at.get(path) {
            Some(&i) => {
                if let Some((_, n)) = self.counts.get_mut(i) {
                    *n += 1;
                }
            }
            None => {
                self.at.insert(path.to_string(), self.counts.len());
                self.counts.push((path.to_string(), 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Parsed;
    use crate::schema::Schema;

    fn schema() -> Schema {
        let proto = r#"
            syntax = "proto3";
            package t;
            enum Color { RED = 0; GREEN = 1; }
            message Inner { double value = 1; repeated string tags = 2; Node node = 3; }
            message Node { Node child = 1; int32 depth = 2; }
            message Outer { int64 id = 1; Inner inner = 2; repeated Inner items = 3; Color color = 4;
                            bool ok = 5; map<string, int32> counts = 6; }
        "#;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("t.proto");
        std::fs::write(&path, proto).unwrap_or_else(|e| panic!("{e}"));
        Schema::with_user_protos(&[path], None).unwrap_or_else(|e| panic!("{e}"))
    }

    fn varint(mut n: u64, out: &mut Vec<u8>) {
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }

    #[test]
    fn every_value_is_visited_under_its_path() {
        let schema = schema();
        let table = schema.table();
        let outer = schema
            .message("t.Outer")
            .unwrap_or_else(|| panic!("no Outer"));
        // id 7, inner { value 1.5 tags "a" tags "b" }, items [{value 2}, {value 3}], color
        // GREEN, ok true, counts {"x": 4}.
        let payload: Vec<u8> = [
            &[0x08, 0x07][..],
            &[0x12, 0x0f, 0x09],
            &1.5f64.to_le_bytes(),
            &[0x12, 0x01, b'a', 0x12, 0x01, b'b'],
            &[0x1a, 0x09, 0x09],
            &2.0f64.to_le_bytes(),
            &[0x1a, 0x09, 0x09],
            &3.0f64.to_le_bytes(),
            &[0x20, 0x01, 0x28, 0x01],
            &[0x32, 0x05, 0x0a, 0x01, b'x', 0x10, 0x04],
        ]
        .concat();
        let tree = crate::wire::walk(&payload, table, Some(outer));
        let message = Parsed::new(&tree, &payload, table)
            .root()
            .unwrap_or_else(|| panic!("no root"));
        let mut seen = Vec::new();
        walk(&message, &mut |path, field, leaf| {
            let what = match leaf {
                Leaf::Message => "message".to_string(),
                Leaf::Scalar(s) => format!("{s:?}"),
                Leaf::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            };
            seen.push(format!("{path} {} {what}", declared(field, table)));
        });
        assert_eq!(
            seen,
            [
                "id int64 I64(7)",
                "inner message t.Inner message",
                "inner.value double F64(1.5)",
                "inner.tags repeated string a",
                "inner.tags repeated string b",
                "items repeated message t.Inner message",
                "items.value double F64(2.0)",
                "items repeated message t.Inner message",
                "items.value double F64(3.0)",
                "color enum t.Color Enum(1, Some(\"GREEN\"))",
                "ok bool Bool(true)",
                "counts map CountsEntry message",
                "counts.key string x",
                "counts.value int32 I32(4)",
            ]
        );
    }

    #[test]
    fn a_recursive_message_is_opened_to_the_depth_cap() {
        let schema = schema();
        let table = schema.table();
        let node = schema
            .message("t.Node")
            .unwrap_or_else(|| panic!("no Node"));
        // 100 nodes, each the child of the one before.
        let mut payload = vec![0x10, 0x01];
        for _ in 0..100 {
            let mut outer = vec![0x0a];
            varint(payload.len() as u64, &mut outer);
            outer.extend_from_slice(&payload);
            payload = outer;
        }
        let tree = crate::wire::walk(&payload, table, Some(node));
        let message = Parsed::new(&tree, &payload, table)
            .root()
            .unwrap_or_else(|| panic!("no root"));
        let mut paths = Vec::new();
        walk(&message, &mut |path, _, _| paths.push(path.to_string()));
        assert_eq!(paths.len(), MAX_DEPTH);
        assert_eq!(paths.last().map(|p| p.split('.').count()), Some(MAX_DEPTH));
    }
}
