//! Payloads inside bytes values: a feature holding a serialized `TensorProto`
//! (`tf.io.serialize_tensor`) or a serialized `tf.train.Example` is read as one in the readable
//! views, as a record's payload is, instead of being shown as `[22 bytes]`.
//!
//! Detection here is stricter than for a record, because a short value of any kind may happen to
//! parse: a value is read as a registered type only when it is not an image, not printable text,
//! at least [`INNER_MIN_BYTES`] long, the type's message explains every one of its bytes (a valid
//! walk with no field the message does not declare, at any depth), the type says it starts like
//! it and detects it, and the type's own plausibility checks accept it
//! ([`PayloadType::fits_inside`](super::PayloadType::fits_inside): a tensor whose dtype is known and whose values fill its shape,
//! an Example with features that each hold a list). Values are read this way down to
//! [`INNER_DEPTH`] levels (a bytes value inside an Example inside a bytes value…), and each level
//! walks only the bytes inside the one above, so the work stays linear in the record.
//!
//! The user may also declare what a feature's values are (`--field-type feature:NAME=Type`): they
//! are then read as that message whatever they look like, and a value that does not parse as it
//! says why and where. Text and JSON output print bytes values as protobuf does; only the tree,
//! `list`'s summary and the inspector read them.

use super::detect::{Walks, tag_starts, unexplained};
use super::{BUILTIN, Decoded, PayloadKind, PayloadView, Probe, typed};
use crate::decode::{self, Invalid, Parsed};
use crate::schema::table::{MessageId, Table};
use crate::tensor::DType;
use crate::wire;

/// How many bytes values deep payloads are looked for: a value inside a record's Example is at
/// depth 1, a value inside that value's Example at depth 2, and so on; deeper values are shown as
/// bytes.
pub const INNER_DEPTH: usize = 4;

/// Values shorter than this are never taken for a payload by detection (a declared type still
/// reads them): the smallest tensor `serialize_tensor` writes with a value is 10 bytes, an Example
/// with one feature 11.
pub const INNER_MIN_BYTES: usize = 8;

/// A bytes value read as a payload.
#[derive(Debug, Clone)]
pub struct Inner {
    pub decoded: Decoded,
    /// Whether the user declared its type (`--field-type feature:…`) rather than detection
    /// finding it.
    pub declared: bool,
}

impl Inner {
    /// Its view, for a value at `depth` starting at byte `base` of the record's payload.
    pub fn view<'a>(
        &'a self,
        bytes: &'a [u8],
        table: &'a Table,
        depth: usize,
        base: usize,
    ) -> PayloadView<'a> {
        self.decoded
            .view(bytes, table)
            .keeping_names(super::FeatureNames::Skipped)
            .inside(depth, base)
    }

    /// The type's name and its one-line summary: `TensorProto float32[2,3] [[1.0, …]]`,
    /// `Example 2 features: label, text`.
    pub fn line(&self, bytes: &[u8], table: &Table, depth: usize) -> String {
        let view = self.view(bytes, table, depth, 0);
        format!("{} {}", self.decoded.kind.name(), view.summary().line)
    }
}

/// What a bytes value reads as.
#[derive(Debug, Clone)]
pub enum InnerReading {
    /// A payload of a registered type (or the declared message).
    Payload(Inner),
    /// The declared message (its full name), which the value does not parse as.
    NotDeclared { message: String, invalid: Invalid },
}

/// How the readable views read the bytes values of one feature (or field).
#[derive(Debug, Clone, Copy)]
pub struct ValueReading<'t> {
    pub table: &'t Table,
    /// `--bytes-as`: the values are arrays of numbers, never payloads.
    pub bytes_as: Option<DType>,
    /// `--field-type feature:…`: the message the values are.
    pub declared: Option<MessageId>,
    /// How many bytes values the values' container lies inside (0 for a record's payload).
    pub depth: usize,
}

impl<'t> ValueReading<'t> {
    /// The reading of feature (or feature list) `name`'s values in a payload `depth` values deep.
    pub fn of_feature(table: &'t Table, name: &[u8], depth: usize) -> ValueReading<'t> {
        ValueReading {
            table,
            bytes_as: table.bytes_as(name),
            declared: table.feature_type(name),
            depth,
        }
    }

    /// What `bytes` reads as; `None` when it is shown as bytes (or numbers).
    pub fn read(&self, bytes: &[u8]) -> Option<InnerReading> {
        if self.bytes_as.is_some() || self.depth >= INNER_DEPTH {
            return None;
        }
        match self.declared {
            Some(message) => Some(read_as(bytes, self.table, message)),
            None => detect(bytes, self.table).map(|decoded| {
                InnerReading::Payload(Inner {
                    decoded,
                    declared: false,
                })
            }),
        }
    }

    /// One value in a few words: what it reads as (`TensorProto float32[2] [1.0, 2.0]`), else
    /// as numbers or bytes are shown (`JPEG 320x213`, `"dog"`).
    pub fn value_text(&self, bytes: &[u8], shape: Option<(u32, u32, u32)>, limit: usize) -> String {
        if let Some(dtype) = self.bytes_as {
            return crate::example::bytes_as_numbers(bytes, dtype, limit);
        }
        match self.read(bytes) {
            Some(InnerReading::Payload(inner)) => inner.line(bytes, self.table, self.depth + 1),
            Some(InnerReading::NotDeclared { message, invalid }) => format!(
                "{}, not a {message}: {}",
                crate::words::plural(bytes.len() as u64, "byte"),
                invalid.what()
            ),
            None if self.depth >= INNER_DEPTH && self.declared.is_none() => {
                let shown = crate::example::bytes_summary(bytes, shape);
                match detect(bytes, self.table) {
                    Some(found) => format!(
                        "{shown} ({}, not opened: payloads are read {INNER_DEPTH} values deep)",
                        found.kind.name()
                    ),
                    None => shown,
                }
            }
            None => crate::example::bytes_summary(bytes, shape),
        }
    }
}

/// The registered type `bytes` is, by the rules in this module's heading, walked as it.
pub fn detect(bytes: &[u8], table: &Table) -> Option<Decoded> {
    let first = *bytes.first()?;
    if bytes.len() < INNER_MIN_BYTES
        || crate::image::ImageHeader::read(bytes).is_some()
        || crate::escape::looks_like_text(bytes)
    {
        return None;
    }
    let walks = Walks {
        payload: bytes,
        table,
        progress: None,
        known: &[],
        starting: None,
    };
    let mut probe = Probe::new(&walks, None);
    for &ty in BUILTIN {
        let Some(message) = ty.message().and_then(|name| table.message_by_name(name)) else {
            continue;
        };
        // Writers emit fields in number order: a value of the type starts with one of them.
        if !tag_starts(table, message, first) || !ty.detect(&mut probe) {
            continue;
        }
        let name = ty.message()?;
        let explains_all = probe
            .valid_walk(name)
            .is_some_and(|tree| unexplained(tree) == 0);
        if !explains_all {
            continue;
        }
        let Some(tree) = probe.take_valid(name) else {
            continue;
        };
        let decoded = typed(PayloadKind::Builtin(ty), tree);
        if ty.fits_inside(&decoded.view(bytes, table)) {
            return Some(decoded);
        }
    }
    None
}

/// `bytes` read as `message`, as the user declared it to be.
pub fn read_as(bytes: &[u8], table: &Table, message: MessageId) -> InnerReading {
    let name = table.message(message).map_or("", |m| &m.full_name);
    let tree = wire::walk(bytes, table, Some(message));
    match decode::validate(Parsed::new(&tree, bytes, table)) {
        Ok(()) => {
            // A registered type's message renders as that type (an Example as features).
            let kind = BUILTIN
                .iter()
                .find(|ty| ty.message() == Some(name))
                .map_or_else(
                    || PayloadKind::Message(name.to_string()),
                    |ty| PayloadKind::Builtin(*ty),
                );
            InnerReading::Payload(Inner {
                decoded: typed(kind, tree),
                declared: true,
            })
        }
        Err(invalid) => InnerReading::NotDeclared {
            message: name.to_string(),
            invalid,
        },
    }
}

/// Writes everything written through it to `out`, each line begun with `prefix`: a payload's
/// tree, indented under the value that holds it.
pub struct Indented<'w> {
    pub out: &'w mut dyn std::io::Write,
    pub prefix: &'w str,
    /// Whether the next byte begins a line.
    at_line_start: bool,
}

impl<'w> Indented<'w> {
    pub fn new(out: &'w mut dyn std::io::Write, prefix: &'w str) -> Indented<'w> {
        Indented {
            out,
            prefix,
            at_line_start: true,
        }
    }
}

impl std::io::Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for line in buf.split_inclusive(|b| *b == b'\n') {
            if self.at_line_start && line != b"\n" {
                self.out.write_all(self.prefix.as_bytes())?;
            }
            self.out.write_all(line)?;
            self.at_line_start = line.ends_with(b"\n");
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    use crate::crafted::length_delimited as field;

    /// An Example with one bytes feature `key` = [`value`].
    fn example(key: &[u8], value: &[u8]) -> Vec<u8> {
        let feature = field(1, &field(1, value));
        field(1, &field(1, &[field(1, key), field(2, &feature)].concat()))
    }

    /// A float32 TensorProto of shape `dims` with `content` as its tensor_content.
    fn tensor(dims: &[u64], content: &[u8]) -> Vec<u8> {
        let mut shape = Vec::new();
        for d in dims {
            let mut dim = vec![0x08];
            let mut n = *d;
            while n >= 0x80 {
                dim.push((n as u8) | 0x80);
                n >>= 7;
            }
            dim.push(n as u8);
            shape.extend(field(2, &dim));
        }
        [&[0x08, 0x01][..], &field(2, &shape), &field(4, content)].concat()
    }

    fn found(bytes: &[u8]) -> Option<String> {
        let schema = Schema::builtin();
        detect(bytes, schema.table()).map(|d| d.kind.name().to_string())
    }

    #[test]
    fn a_serialized_tensor_and_example_are_found_and_short_values_are_not() {
        let floats: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        assert_eq!(
            found(&tensor(&[2], &floats)).as_deref(),
            Some("TensorProto")
        );
        assert_eq!(found(&example(b"a", b"xyz")).as_deref(), Some("Example"));
        // Short values that parse, text, and an image stay what they are.
        for value in [
            &b"ab"[..],
            b"\x08\x01",
            b"\x0a\x00",
            b"",
            b"\x08\x01\x12\x00",
        ] {
            assert_eq!(found(value), None, "{value:?}");
        }
        let text = b"\n\x04text with a newline and a tag-like first byte";
        assert_eq!(found(text), None);
        let png = [&b"\x89PNG\r\n\x1a\n"[..], &[0; 24]].concat();
        assert_eq!(found(&png), None);
    }

    #[test]
    fn values_that_almost_parse_are_not_claimed() {
        let floats: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        // One byte short of its shape, a shape of 2^40 elements over 8 bytes, an unknown dtype.
        assert_eq!(found(&tensor(&[2], &floats[..7])), None);
        assert_eq!(found(&tensor(&[1 << 40], &floats)), None);
        let mut unknown_dtype = tensor(&[2], &floats);
        unknown_dtype[1] = 0x7f;
        assert_eq!(found(&unknown_dtype), None);
        // A shape and dtype with no values: TensorFlow would read zeros, no writer writes it.
        assert_eq!(found(&tensor(&[9], &[])), None);
        // An Example with a field it does not declare, one whose feature holds no list, and one
        // cut short.
        let mut extra = example(b"a", b"xyz");
        extra.extend([0x78, 0x01]);
        assert_eq!(found(&extra), None);
        let empty_feature = field(1, &field(1, &[field(1, b"key"), field(2, &[])].concat()));
        assert_eq!(found(&empty_feature), None);
        let whole = example(b"a", b"xyz");
        assert_eq!(found(&whole[..whole.len() - 1]), None);
    }

    #[test]
    fn nesting_is_opened_four_values_deep_and_no_deeper() {
        let schema = Schema::builtin();
        let table = schema.table();
        let mut payload = example(b"leaf", b"bottom");
        for _ in 0..40 {
            payload = example(b"nested", &payload);
        }
        let decoder = crate::payload::Decoder::new(schema.clone(), crate::payload::Reading::Auto);
        let decoded = decoder.decode(&payload);
        let mut out = Vec::new();
        decoded
            .view(&payload, table)
            .write_tree("record 0", &mut out)
            .unwrap();
        let tree = String::from_utf8(out).unwrap();
        // The record's Example and four inside it each have a heading; the fifth is bytes.
        assert_eq!(tree.matches("Example, 1 feature").count(), 5, "{tree}");
        assert!(tree.contains("(Example, not opened: payloads are read 4 values deep)"));
        assert!(tree.lines().count() < 20, "{tree}");
    }

    #[test]
    fn a_declared_message_reads_any_value_and_says_why_one_is_not_it() {
        let schema = Schema::builtin();
        let table = schema.table();
        let example_id = table.message_by_name("tensorflow.Example").unwrap();
        match read_as(&example(b"a", b"x"), table, example_id) {
            InnerReading::Payload(inner) => {
                assert!(inner.declared);
                assert_eq!(inner.decoded.kind.name(), "Example");
            }
            other => panic!("{other:?}"),
        }
        match read_as(&[0x0a, 0x05, 0x0a, 0x09], table, example_id) {
            InnerReading::NotDeclared { message, invalid } => {
                assert_eq!(message, "tensorflow.Example");
                assert_eq!(invalid.what(), "field 1 declares 5 bytes but only 2 remain");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn indented_output_prefixes_every_line_but_empty_ones() {
        let mut out = Vec::new();
        {
            let mut indented = Indented::new(&mut out, "  ");
            use std::io::Write;
            write!(indented, "a\nb").unwrap();
            write!(indented, "c\n\nd\n").unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "  a\n  bc\n\n  d\n");
    }

    proptest::proptest! {
        /// Whatever the bytes, detection ends, and what it claims explains every byte.
        #[test]
        fn detection_claims_only_payloads_that_explain_every_byte(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
            start in proptest::sample::select(vec![0x08u8, 0x0a, 0x09, 0x12]),
        ) {
            let schema = Schema::builtin();
            let mut bytes = bytes;
            bytes.insert(0, start);
            if let Some(decoded) = detect(&bytes, schema.table()) {
                proptest::prop_assert_eq!(unexplained(&decoded.tree), 0);
                proptest::prop_assert!(bytes.len() >= INNER_MIN_BYTES);
            }
        }
    }
}
