//! Typed values on top of the wire tree: what a protobuf library would hand you after parsing.
//!
//! This layer does not read the payload again. It takes the [`wire`](crate::wire) tree, groups
//! field occurrences by number and applies protobuf's merge rules (last value wins for singular
//! fields, occurrences of a singular message merge, repeated fields concatenate, one member of a
//! oneof survives, map entries are keyed). The text and JSON formats are rendered from the result.

use std::collections::{BTreeMap, HashMap};

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor, Syntax};

use crate::span::Span;
use crate::wire::{self, Value};

/// A scalar as its declared type reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    I32(i32),
    I64(i64),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
    /// An enum number, with its name when the enum defines it.
    Enum(i32, Option<String>),
}

impl Scalar {
    /// The scalar a field of `kind` stores in the raw wire value `raw`.
    pub fn from_raw(kind: &Kind, raw: u64) -> Option<Scalar> {
        Some(match kind {
            Kind::Int32 | Kind::Sfixed32 => Scalar::I32(raw as u32 as i32),
            Kind::Int64 | Kind::Sfixed64 => Scalar::I64(raw as i64),
            Kind::Uint32 | Kind::Fixed32 => Scalar::U32(raw as u32),
            Kind::Uint64 | Kind::Fixed64 => Scalar::U64(raw),
            Kind::Sint32 => {
                let n = raw as u32;
                Scalar::I32((n >> 1) as i32 ^ -((n & 1) as i32))
            }
            Kind::Sint64 => Scalar::I64((raw >> 1) as i64 ^ -((raw & 1) as i64)),
            Kind::Float => Scalar::F32(f32::from_bits(raw as u32)),
            Kind::Double => Scalar::F64(f64::from_bits(raw)),
            Kind::Bool => Scalar::Bool(raw != 0),
            Kind::Enum(e) => {
                let number = raw as u32 as i32;
                Scalar::Enum(number, e.get_value(number).map(|v| v.name().to_string()))
            }
            Kind::String | Kind::Bytes | Kind::Message(_) => return None,
        })
    }

    fn is_default(&self) -> bool {
        match self {
            Scalar::I32(v) => *v == 0,
            Scalar::I64(v) => *v == 0,
            Scalar::U32(v) => *v == 0,
            Scalar::U64(v) => *v == 0,
            // -0.0 is not the default: protobuf compares bit patterns.
            Scalar::F32(v) => v.to_bits() == 0,
            Scalar::F64(v) => v.to_bits() == 0,
            Scalar::Bool(v) => !*v,
            Scalar::Enum(v, _) => *v == 0,
        }
    }
}

/// One value of a field.
#[derive(Debug, Clone)]
pub enum TypedValue<'a> {
    Scalar(Scalar),
    /// A `string` field's bytes (valid UTF-8 when the message [`TypedMessage::is_valid`]).
    String(&'a [u8], Span),
    Bytes(&'a [u8], Span),
    Message(TypedMessage<'a>),
}

/// A map entry: key and value, each possibly absent on the wire (then the type's default).
#[derive(Debug, Clone)]
pub struct MapEntry<'a> {
    pub key: Option<TypedValue<'a>>,
    pub value: Option<TypedValue<'a>>,
    /// The entry on the wire: its tag through the end of its data.
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum FieldValues<'a> {
    Singular(TypedValue<'a>),
    Repeated(Vec<TypedValue<'a>>),
    /// Entries in wire order, later duplicates of a key removed (the last one wins).
    Map(Vec<MapEntry<'a>>),
}

#[derive(Debug, Clone)]
pub struct TypedField<'a> {
    pub descriptor: FieldDescriptor,
    pub values: FieldValues<'a>,
    /// Where each value of `values` lies (the data after tag and length), in the same order; for
    /// a map, the spans of the surviving entries.
    pub value_spans: Vec<Span>,
}

/// A message as a protobuf library holds it: set fields in field-number order.
#[derive(Debug, Clone)]
pub struct TypedMessage<'a> {
    pub descriptor: MessageDescriptor,
    pub fields: Vec<TypedField<'a>>,
    /// The wire bodies merged into this message (one unless the field occurred several times).
    pub spans: Vec<Span>,
}

impl<'a> TypedMessage<'a> {
    /// Builds the typed view of `message` (walked with a descriptor) over `payload`.
    pub fn new(payload: &'a [u8], message: &wire::Message) -> Option<TypedMessage<'a>> {
        let descriptor = message.descriptor.clone()?;
        Some(build(payload, &[message], descriptor))
    }

    pub fn field(&self, name: &str) -> Option<&TypedField<'a>> {
        self.fields.iter().find(|f| f.descriptor.name() == name)
    }
}

fn build<'a>(
    payload: &'a [u8],
    parts: &[&wire::Message],
    descriptor: MessageDescriptor,
) -> TypedMessage<'a> {
    // Occurrences of each known field, with their position in the wire order for oneof resolution.
    let mut by_number: BTreeMap<u32, Vec<&wire::Field>> = BTreeMap::new();
    let mut last_seen: BTreeMap<u32, usize> = BTreeMap::new();
    let mut order = 0usize;
    for part in parts {
        for field in &part.fields {
            if field.descriptor.is_some() {
                by_number.entry(field.number).or_default().push(field);
                last_seen.insert(field.number, order);
            }
            order += 1;
        }
    }
    let mut fields = Vec::new();
    for (number, occurrences) in &by_number {
        let Some(field_descriptor) = descriptor.get_field(*number) else {
            continue;
        };
        if let Some(oneof) = field_descriptor.containing_oneof() {
            // Only the member set last survives.
            let winner = oneof
                .fields()
                .filter_map(|f| last_seen.get(&f.number()).map(|pos| (*pos, f.number())))
                .max()
                .map(|(_, n)| n);
            if winner != Some(*number) {
                continue;
            }
        }
        if let Some((values, value_spans)) = field_values(payload, &field_descriptor, occurrences) {
            fields.push(TypedField {
                descriptor: field_descriptor,
                values,
                value_spans,
            });
        }
    }
    let spans = parts.iter().map(|p| p.span).collect();
    TypedMessage {
        descriptor,
        fields,
        spans,
    }
}

fn field_values<'a>(
    payload: &'a [u8],
    field: &FieldDescriptor,
    occurrences: &[&wire::Field],
) -> Option<(FieldValues<'a>, Vec<Span>)> {
    if field.is_map() {
        let Kind::Message(entry_type) = field.kind() else {
            return None;
        };
        // Later entries replace earlier ones with the same key, keeping the first one's place.
        let mut entries: Vec<MapEntry<'a>> = Vec::new();
        let mut slot_of_key: HashMap<Vec<u8>, usize> = HashMap::new();
        for occurrence in occurrences {
            let Some(entry_message) = occurrence.nested_message() else {
                continue;
            };
            let entry = build(payload, &[entry_message], entry_type.clone());
            let pick = |number: u32| {
                entry
                    .fields
                    .iter()
                    .find(|f| f.descriptor.number() == number)
                    .and_then(|f| match &f.values {
                        FieldValues::Singular(v) => Some(v.clone()),
                        _ => None,
                    })
            };
            let new = MapEntry {
                key: pick(1),
                value: pick(2),
                span: occurrence.span,
            };
            match slot_of_key.entry(map_key(&new)) {
                std::collections::hash_map::Entry::Occupied(slot) => {
                    if let Some(old) = entries.get_mut(*slot.get()) {
                        *old = new;
                    }
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(entries.len());
                    entries.push(new);
                }
            }
        }
        let spans = entries.iter().map(|e| e.span).collect();
        return Some((FieldValues::Map(entries), spans));
    }
    if field.is_list() {
        let (values, spans): (Vec<_>, Vec<_>) = occurrences
            .iter()
            .flat_map(|o| occurrence_values(payload, field, o))
            .unzip();
        // An empty packed run leaves the field unset, as protobuf parsers see it.
        return (!values.is_empty()).then_some((FieldValues::Repeated(values), spans));
    }
    if let Kind::Message(message_type) = field.kind() {
        let parts: Vec<&wire::Message> = occurrences
            .iter()
            .filter_map(|o| o.nested_message())
            .collect();
        let message = build(payload, &parts, message_type);
        let span = message.spans.last().copied().unwrap_or_default();
        return Some((
            FieldValues::Singular(TypedValue::Message(message)),
            vec![span],
        ));
    }
    let (last, span) = occurrence_values(payload, field, occurrences.last()?).pop()?;
    let implicit_default = !field.supports_presence()
        && match &last {
            TypedValue::Scalar(s) => s.is_default(),
            TypedValue::String(b, _) | TypedValue::Bytes(b, _) => b.is_empty(),
            TypedValue::Message(_) => false,
        };
    (!implicit_default).then_some((FieldValues::Singular(last), vec![span]))
}

/// A comparable form of a map key (raw bytes for strings, the number otherwise).
fn map_key(entry: &MapEntry<'_>) -> Vec<u8> {
    match &entry.key {
        Some(TypedValue::String(b, _) | TypedValue::Bytes(b, _)) => b.to_vec(),
        Some(TypedValue::Scalar(s)) => format!("{s:?}").into_bytes(),
        _ => Vec::new(),
    }
}

/// The values one wire occurrence holds (several for a packed run), each with its span.
fn occurrence_values<'a>(
    payload: &'a [u8],
    field: &FieldDescriptor,
    occurrence: &wire::Field,
) -> Vec<(TypedValue<'a>, Span)> {
    let kind = field.kind();
    let bytes_at = |span: Span| span.slice(payload).unwrap_or_default();
    let scalar =
        |raw: u64, span: Span| Scalar::from_raw(&kind, raw).map(|s| (TypedValue::Scalar(s), span));
    match &occurrence.value {
        Value::Varint { raw, span } | Value::Fixed64 { raw, span } => {
            scalar(*raw, *span).into_iter().collect()
        }
        Value::Fixed32 { raw, span } => scalar(u64::from(*raw), *span).into_iter().collect(),
        Value::Packed { elements, .. } => elements
            .iter()
            .filter_map(|e| scalar(e.raw, e.span))
            .collect(),
        Value::Bytes { data, .. } => match kind {
            Kind::String => vec![(TypedValue::String(bytes_at(*data), *data), *data)],
            _ => vec![(TypedValue::Bytes(bytes_at(*data), *data), *data)],
        },
        Value::Message { message, .. } | Value::Group { message, .. } => match kind {
            Kind::Message(m) => vec![(
                TypedValue::Message(build(payload, &[message], m)),
                message.span,
            )],
            _ => Vec::new(),
        },
    }
}

/// Why a payload does not parse as its message type, the way protobuf libraries judge it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    Wire(wire::WireError),
    /// A proto3 `string` field whose bytes are not UTF-8 (protobuf rejects the whole message).
    NotUtf8 {
        field: String,
        at: usize,
    },
}

impl Invalid {
    /// The payload position the problem is at.
    pub fn at(&self) -> usize {
        match self {
            Invalid::Wire(e) => e.at,
            Invalid::NotUtf8 { at, .. } => *at,
        }
    }

    /// What is wrong, without the position.
    pub fn what(&self) -> String {
        match self {
            Invalid::Wire(e) => e.kind.to_string(),
            Invalid::NotUtf8 { field, .. } => format!("string field `{field}` is not UTF-8"),
        }
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Invalid::Wire(e) => write!(f, "{e}"),
            Invalid::NotUtf8 { field, at } => {
                write!(f, "string field `{field}` is not UTF-8 (payload byte {at})")
            }
        }
    }
}

/// Checks that the walked message is what a protobuf parser would accept.
pub fn validate(payload: &[u8], message: &wire::Message) -> Result<(), Invalid> {
    if let Some(error) = message.first_error() {
        return Err(Invalid::Wire(error.clone()));
    }
    check_strings(payload, message)
}

fn check_strings(payload: &[u8], message: &wire::Message) -> Result<(), Invalid> {
    for field in &message.fields {
        match (&field.value, &field.descriptor) {
            (Value::Bytes { data, .. }, Some(d))
                if d.kind() == Kind::String
                    && requires_utf8(d)
                    && std::str::from_utf8(data.slice(payload).unwrap_or_default()).is_err() =>
            {
                return Err(Invalid::NotUtf8 {
                    field: d.name().to_string(),
                    at: data.start,
                });
            }
            (Value::Message { message, .. } | Value::Group { message, .. }, Some(_)) => {
                check_strings(payload, message)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn requires_utf8(field: &FieldDescriptor) -> bool {
    field.parent_file().syntax() == Syntax::Proto3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;
    use crate::wire::walk;

    #[test]
    fn singular_messages_merge_and_maps_keep_the_last_key() {
        let schema = Schema::builtin();
        // features { feature { key "a" value { int64_list { 1 } } } } twice, the second with value 2
        let entry = |v: u8| {
            vec![
                0x0a, 0x09, 0x0a, 0x01, b'a', 0x12, 0x04, 0x1a, 0x02, 0x08, v,
            ]
        };
        let mut bytes = Vec::new();
        for v in [1u8, 2] {
            let e = entry(v);
            bytes.extend_from_slice(&[0x0a, e.len() as u8]);
            bytes.extend_from_slice(&e);
        }
        let message = walk(&bytes, Some(schema.example()));
        assert!(validate(&bytes, &message).is_ok());
        let typed = TypedMessage::new(&bytes, &message).unwrap();
        let FieldValues::Singular(TypedValue::Message(features)) = &typed.fields[0].values else {
            panic!()
        };
        let FieldValues::Map(entries) = &features.fields[0].values else {
            panic!()
        };
        assert_eq!(entries.len(), 1);
        let Some(TypedValue::Message(feature)) = &entries[0].value else {
            panic!()
        };
        let FieldValues::Singular(TypedValue::Message(list)) = &feature.fields[0].values else {
            panic!()
        };
        let FieldValues::Repeated(values) = &list.fields[0].values else {
            panic!()
        };
        assert!(matches!(values[..], [TypedValue::Scalar(Scalar::I64(2))]));
    }

    #[test]
    fn a_repeated_map_key_keeps_its_first_place_and_its_last_value() {
        let schema = Schema::builtin();
        let features = schema
            .pool()
            .get_message_by_name("tensorflow.Features")
            .unwrap();
        // entries b, a, b (again, with an int64 value 7): b stays first, now with the value 7
        let entry = |key: u8, value: &[u8]| {
            let mut e = vec![0x0a, 0x01, key, 0x12, value.len() as u8];
            e.extend_from_slice(value);
            let mut out = vec![0x0a, e.len() as u8];
            out.extend_from_slice(&e);
            out
        };
        let bytes = [
            entry(b'b', &[]),
            entry(b'a', &[]),
            entry(b'b', &[0x1a, 0x02, 0x08, 0x07]),
        ]
        .concat();
        let message = walk(&bytes, Some(&features));
        let typed = TypedMessage::new(&bytes, &message).unwrap();
        let FieldValues::Map(entries) = &typed.fields[0].values else {
            panic!()
        };
        let keys: Vec<_> = entries
            .iter()
            .map(|e| match &e.key {
                Some(TypedValue::String(k, _)) => k.to_vec(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(keys, [b"b".to_vec(), b"a".to_vec()]);
        assert_eq!(entries[0].span, Span::new(14, 25));
        assert_eq!(
            typed.fields[0].value_spans,
            vec![Span::new(14, 25), Span::new(7, 14)]
        );
    }

    #[test]
    fn zigzag_and_truncating_conversions() {
        assert_eq!(Scalar::from_raw(&Kind::Sint32, 3), Some(Scalar::I32(-2)));
        assert_eq!(Scalar::from_raw(&Kind::Sint64, 4), Some(Scalar::I64(2)));
        assert_eq!(
            Scalar::from_raw(&Kind::Int32, u64::MAX),
            Some(Scalar::I32(-1))
        );
    }

    #[test]
    fn invalid_utf8_in_a_proto3_string_is_rejected() {
        let schema = Schema::builtin();
        let features = schema
            .pool()
            .get_message_by_name("tensorflow.Features")
            .unwrap();
        let bytes = [0x0a, 0x03, 0x0a, 0x01, 0xff];
        let message = walk(&bytes, Some(&features));
        assert_eq!(
            validate(&bytes, &message),
            Err(Invalid::NotUtf8 {
                field: "key".into(),
                at: 4
            })
        );
    }
}
