//! The wire walker: protobuf bytes in, a tree of byte spans out.
//!
//! Every byte of a payload ends up in exactly one token of this tree: a tag, a varint, a length
//! prefix, a fixed-width value, the data of a length-delimited field, or the region after the point
//! where the walk found invalid data. The hex annotation, the TUI tree and the text and JSON outputs
//! are all views of this one tree, so they cannot disagree about where a field lives.
//!
//! A descriptor, when given, decides how length-delimited data is read (nested message, packed
//! numbers, or string/bytes) and names the fields. Without one, or for fields it does not know, the
//! walker does what `protoc --decode_raw` does: non-empty data that parses cleanly as a message is
//! shown as one, anything else as bytes.
//!
//! Invalid data stops the walk of the message it is in, never of its parent: the parent carries on
//! after the length-delimited region, and the error records the payload position it arose at.

use std::fmt;

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};

use crate::span::Span;

/// Nesting deeper than this is reported instead of followed (protobuf's own default limit).
pub const MAX_DEPTH: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireType {
    Varint,
    I64,
    Len,
    StartGroup,
    EndGroup,
    I32,
}

impl WireType {
    fn from_bits(bits: u64) -> Option<WireType> {
        Some(match bits {
            0 => WireType::Varint,
            1 => WireType::I64,
            2 => WireType::Len,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::I32,
            _ => return None,
        })
    }

    pub fn code(self) -> u8 {
        self as u8
    }

    /// The name protobuf's documentation uses.
    pub fn description(self) -> &'static str {
        match self {
            WireType::Varint => "varint",
            WireType::I64 => "64-bit",
            WireType::Len => "length-delimited",
            WireType::StartGroup => "start group",
            WireType::EndGroup => "end group",
            WireType::I32 => "32-bit",
        }
    }
}

/// Why a walk stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireErrorKind {
    TruncatedVarint,
    VarintTooLong,
    TagTooLarge,
    FieldNumberZero,
    InvalidWireType(u8),
    LengthPastEnd {
        field: u32,
        length: u64,
        available: u64,
    },
    TruncatedFixed {
        field: u32,
        needed: usize,
        available: usize,
    },
    UnexpectedEndGroup {
        field: u32,
    },
    MismatchedEndGroup {
        expected: u32,
        found: u32,
    },
    UnterminatedGroup {
        field: u32,
    },
    PackedTruncated {
        field: u32,
    },
    TooDeep,
}

/// Invalid wire data at payload position `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    pub at: usize,
    pub kind: WireErrorKind,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (payload byte {})", self.kind, self.at)
    }
}

impl fmt::Display for WireErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use WireErrorKind::*;
        match self {
            TruncatedVarint => write!(f, "varint runs past the end of its message"),
            VarintTooLong => write!(f, "varint longer than 10 bytes"),
            TagTooLarge => write!(f, "tag does not fit in 32 bits"),
            FieldNumberZero => write!(f, "field number 0 is not allowed"),
            InvalidWireType(t) => write!(f, "invalid wire type {t}"),
            LengthPastEnd {
                field,
                length,
                available,
            } => {
                write!(
                    f,
                    "field {field} declares {length} bytes but only {available} remain"
                )
            }
            TruncatedFixed {
                field,
                needed,
                available,
            } => {
                write!(
                    f,
                    "field {field} needs {needed} bytes but only {available} remain"
                )
            }
            UnexpectedEndGroup { field } => {
                write!(f, "end-group tag for field {field} outside a group")
            }
            MismatchedEndGroup { expected, found } => {
                write!(
                    f,
                    "group {expected} closed by end-group tag of field {found}"
                )
            }
            UnterminatedGroup { field } => write!(f, "group {field} has no end-group tag"),
            PackedTruncated { field } => write!(f, "packed values of field {field} end mid-value"),
            TooDeep => write!(f, "messages nested deeper than {MAX_DEPTH} levels"),
        }
    }
}

/// One message: its fields in wire order, and where (if anywhere) its walk stopped early.
#[derive(Debug, Clone)]
pub struct Message {
    /// The bytes of the message body.
    pub span: Span,
    pub descriptor: Option<MessageDescriptor>,
    pub fields: Vec<Field>,
    /// Set when invalid data ended the walk; the bytes from `error.at` to `span.end` are unparsed.
    pub error: Option<WireError>,
}

impl Message {
    /// True when this message and everything inside it walked without error.
    pub fn is_clean(&self) -> bool {
        self.error.is_none() && self.fields.iter().all(Field::is_clean)
    }

    /// The first wire error anywhere in the tree, depth first.
    pub fn first_error(&self) -> Option<&WireError> {
        self.fields
            .iter()
            .filter_map(|f| {
                f.nested_message()
                    .and_then(Message::first_error)
                    .or(f.packed_error())
            })
            .chain(self.error.as_ref())
            .min_by_key(|e| e.at)
    }
}

/// One field occurrence on the wire.
#[derive(Debug, Clone)]
pub struct Field {
    /// Tag through the end of the value.
    pub span: Span,
    pub tag: Span,
    pub number: u32,
    pub wire_type: WireType,
    /// The descriptor's field, when the message type knows this number with this wire type.
    pub descriptor: Option<FieldDescriptor>,
    pub value: Value,
}

impl Field {
    pub fn name(&self) -> Option<&str> {
        self.descriptor.as_ref().map(|d| d.name())
    }

    pub fn nested_message(&self) -> Option<&Message> {
        match &self.value {
            Value::Message { message, .. } | Value::Group { message, .. } => Some(message),
            _ => None,
        }
    }

    fn packed_error(&self) -> Option<&WireError> {
        match &self.value {
            Value::Packed { error, .. } => error.as_ref(),
            _ => None,
        }
    }

    fn is_clean(&self) -> bool {
        match &self.value {
            Value::Message { message, .. } | Value::Group { message, .. } => message.is_clean(),
            Value::Packed { error, .. } => error.is_none(),
            _ => true,
        }
    }

    /// The bytes of the value (after the tag, and after the length prefix if there is one).
    pub fn data_span(&self) -> Span {
        match &self.value {
            Value::Varint { span, .. }
            | Value::Fixed32 { span, .. }
            | Value::Fixed64 { span, .. } => *span,
            Value::Bytes { data, .. } | Value::Packed { data, .. } => *data,
            Value::Message { message, .. } | Value::Group { message, .. } => message.span,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Value {
    Varint {
        span: Span,
        raw: u64,
    },
    Fixed64 {
        span: Span,
        raw: u64,
    },
    Fixed32 {
        span: Span,
        raw: u32,
    },
    /// String or bytes data, or length-delimited data that is not a message.
    Bytes {
        prefix: Span,
        length: u64,
        data: Span,
    },
    /// A nested message (by descriptor, or detected without one); `message.span` is its data.
    Message {
        prefix: Span,
        length: u64,
        message: Message,
    },
    /// Packed repeated numbers.
    Packed {
        prefix: Span,
        length: u64,
        data: Span,
        elements: Vec<Element>,
        error: Option<WireError>,
    },
    /// A group: its fields, then the end-group tag.
    Group {
        message: Message,
        end_tag: Option<Span>,
    },
}

/// One number of a packed run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    pub span: Span,
    pub raw: u64,
}

/// Walks `bytes` as a message of type `descriptor` (or schema-less when `None`).
pub fn walk(bytes: &[u8], descriptor: Option<&MessageDescriptor>) -> Message {
    let mut walker = Walker { bytes };
    let region = Span::new(0, bytes.len());
    walker.message(region, descriptor.cloned(), 0).0
}

/// Reads a varint at `pos` (not beyond `end`): the value and the position after it.
pub fn read_varint(bytes: &[u8], pos: usize, end: usize) -> Result<(u64, usize), WireErrorKind> {
    let mut value = 0u64;
    for i in 0..10 {
        let Some(&byte) = bytes.get(pos + i).filter(|_| pos + i < end) else {
            return Err(WireErrorKind::TruncatedVarint);
        };
        // Bits beyond 64 in a tenth byte are dropped, as protobuf's own parsers do.
        value |= u64::from(byte & 0x7f)
            .checked_shl(7 * i as u32)
            .unwrap_or(0);
        if byte & 0x80 == 0 {
            return Ok((value, pos + i + 1));
        }
    }
    Err(WireErrorKind::VarintTooLong)
}

/// The wire type a field of this descriptor is written with (groups aside).
fn expected_wire_type(field: &FieldDescriptor) -> WireType {
    match field.kind() {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::I64,
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::I32,
        Kind::String | Kind::Bytes => WireType::Len,
        Kind::Message(_) if field.is_group() => WireType::StartGroup,
        Kind::Message(_) => WireType::Len,
        _ => WireType::Varint,
    }
}

/// Whether this field may arrive as a packed run (repeated numeric scalar).
fn is_packable(field: &FieldDescriptor) -> bool {
    field.is_list() && !matches!(field.kind(), Kind::String | Kind::Bytes | Kind::Message(_))
}

struct Walker<'a> {
    bytes: &'a [u8],
}

/// How a message body ends: at its region's end, or (for a group) at an end-group tag.
enum Terminator {
    RegionEnd,
    EndGroup(u32),
}

impl Walker<'_> {
    /// Walks the message occupying `region`.
    fn message(
        &mut self,
        region: Span,
        descriptor: Option<MessageDescriptor>,
        depth: usize,
    ) -> (Message, usize) {
        self.body(
            region.start,
            region.end,
            descriptor,
            depth,
            Terminator::RegionEnd,
        )
    }

    /// Walks fields from `start` until `end` or the matching end-group tag. Returns the message
    /// and the position after it (after the end-group tag for a group).
    fn body(
        &mut self,
        start: usize,
        end: usize,
        descriptor: Option<MessageDescriptor>,
        depth: usize,
        terminator: Terminator,
    ) -> (Message, usize) {
        let mut fields = Vec::new();
        let mut pos = start;
        let finish = |fields, error: Option<WireError>, body_end: usize, next: usize| {
            let message = Message {
                span: Span::new(start, body_end),
                descriptor: descriptor.clone(),
                fields,
                error,
            };
            (message, next)
        };
        if depth > MAX_DEPTH {
            let error = WireError {
                at: start,
                kind: WireErrorKind::TooDeep,
            };
            return finish(fields, Some(error), end, end);
        }
        while pos < end {
            let tag_start = pos;
            let stop = |kind| {
                Some(WireError {
                    at: tag_start,
                    kind,
                })
            };
            let (tag, after_tag) = match read_varint(self.bytes, pos, end) {
                Ok(v) => v,
                Err(kind) => return finish(fields, stop(kind), end, end),
            };
            if tag > u64::from(u32::MAX) {
                return finish(fields, stop(WireErrorKind::TagTooLarge), end, end);
            }
            let number = (tag >> 3) as u32;
            let Some(wire_type) = WireType::from_bits(tag & 7) else {
                return finish(
                    fields,
                    stop(WireErrorKind::InvalidWireType((tag & 7) as u8)),
                    end,
                    end,
                );
            };
            if number == 0 {
                return finish(fields, stop(WireErrorKind::FieldNumberZero), end, end);
            }
            let tag_span = Span::new(tag_start, after_tag);
            if wire_type == WireType::EndGroup {
                return match terminator {
                    Terminator::EndGroup(open) if open == number => {
                        finish(fields, None, tag_start, after_tag)
                    }
                    Terminator::EndGroup(open) => {
                        let kind = WireErrorKind::MismatchedEndGroup {
                            expected: open,
                            found: number,
                        };
                        finish(fields, stop(kind), end, end)
                    }
                    Terminator::RegionEnd => finish(
                        fields,
                        stop(WireErrorKind::UnexpectedEndGroup { field: number }),
                        end,
                        end,
                    ),
                };
            }
            let field_descriptor = descriptor
                .as_ref()
                .and_then(|d| d.get_field(number))
                .filter(|f| {
                    expected_wire_type(f) == wire_type
                        || (wire_type == WireType::Len && is_packable(f))
                });
            match self.value(
                after_tag,
                end,
                number,
                wire_type,
                field_descriptor.as_ref(),
                depth,
            ) {
                Ok((value, next)) => {
                    fields.push(Field {
                        span: Span::new(tag_start, next),
                        tag: tag_span,
                        number,
                        wire_type,
                        descriptor: field_descriptor,
                        value,
                    });
                    pos = next;
                }
                Err(kind) => return finish(fields, stop(kind), end, end),
            }
        }
        match terminator {
            Terminator::RegionEnd => finish(fields, None, end, end),
            Terminator::EndGroup(field) => {
                let error = WireError {
                    at: end,
                    kind: WireErrorKind::UnterminatedGroup { field },
                };
                finish(fields, Some(error), end, end)
            }
        }
    }

    fn value(
        &mut self,
        pos: usize,
        end: usize,
        number: u32,
        wire_type: WireType,
        descriptor: Option<&FieldDescriptor>,
        depth: usize,
    ) -> Result<(Value, usize), WireErrorKind> {
        let fixed = |width: usize| -> Result<(Span, u64), WireErrorKind> {
            let available = end - pos;
            if available < width {
                return Err(WireErrorKind::TruncatedFixed {
                    field: number,
                    needed: width,
                    available,
                });
            }
            let mut raw = [0u8; 8];
            raw[..width].copy_from_slice(
                self.bytes
                    .get(pos..pos + width)
                    .ok_or(WireErrorKind::TruncatedVarint)?,
            );
            Ok((Span::new(pos, pos + width), u64::from_le_bytes(raw)))
        };
        match wire_type {
            WireType::Varint => {
                let (raw, next) = read_varint(self.bytes, pos, end)?;
                Ok((
                    Value::Varint {
                        span: Span::new(pos, next),
                        raw,
                    },
                    next,
                ))
            }
            WireType::I64 => {
                let (span, raw) = fixed(8)?;
                Ok((Value::Fixed64 { span, raw }, span.end))
            }
            WireType::I32 => {
                let (span, raw) = fixed(4)?;
                Ok((
                    Value::Fixed32 {
                        span,
                        raw: raw as u32,
                    },
                    span.end,
                ))
            }
            WireType::StartGroup => {
                let group_type = descriptor.and_then(|f| match f.kind() {
                    Kind::Message(m) => Some(m),
                    _ => None,
                });
                let (message, next) = self.body(
                    pos,
                    end,
                    group_type,
                    depth + 1,
                    Terminator::EndGroup(number),
                );
                let end_tag = (message.error.is_none()).then(|| Span::new(message.span.end, next));
                Ok((Value::Group { message, end_tag }, next))
            }
            WireType::EndGroup => Err(WireErrorKind::UnexpectedEndGroup { field: number }),
            WireType::Len => {
                let (length, data_start) = read_varint(self.bytes, pos, end)?;
                let available = (end - data_start) as u64;
                if length > available {
                    return Err(WireErrorKind::LengthPastEnd {
                        field: number,
                        length,
                        available,
                    });
                }
                let prefix = Span::new(pos, data_start);
                let data = Span::new(data_start, data_start + length as usize);
                Ok((
                    self.length_delimited(prefix, length, data, number, descriptor, depth),
                    data.end,
                ))
            }
        }
    }

    fn length_delimited(
        &mut self,
        prefix: Span,
        length: u64,
        data: Span,
        number: u32,
        descriptor: Option<&FieldDescriptor>,
        depth: usize,
    ) -> Value {
        match descriptor.map(|f| (f.kind(), is_packable(f))) {
            Some((Kind::Message(message_type), _)) => {
                let (message, _) = self.message(data, Some(message_type), depth + 1);
                Value::Message {
                    prefix,
                    length,
                    message,
                }
            }
            Some((Kind::String | Kind::Bytes, _)) => Value::Bytes {
                prefix,
                length,
                data,
            },
            Some((kind, true)) => {
                let (elements, error) = self.packed(data, number, &kind);
                Value::Packed {
                    prefix,
                    length,
                    data,
                    elements,
                    error,
                }
            }
            _ => {
                // Unknown field: a message if it parses cleanly (as protoc --decode_raw decides).
                if !data.is_empty() && depth < MAX_DEPTH {
                    let (message, _) = self.message(data, None, depth + 1);
                    if message.error.is_none() && message.fields.iter().all(group_is_clean) {
                        return Value::Message {
                            prefix,
                            length,
                            message,
                        };
                    }
                }
                Value::Bytes {
                    prefix,
                    length,
                    data,
                }
            }
        }
    }

    fn packed(
        &mut self,
        data: Span,
        number: u32,
        kind: &Kind,
    ) -> (Vec<Element>, Option<WireError>) {
        let width = match kind {
            Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => Some(8),
            Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => Some(4),
            _ => None,
        };
        let mut elements = Vec::new();
        let mut pos = data.start;
        while pos < data.end {
            let element = match width {
                Some(w) if data.end - pos >= w => {
                    let mut raw = [0u8; 8];
                    if let Some(b) = self.bytes.get(pos..pos + w) {
                        raw[..w].copy_from_slice(b);
                    }
                    Ok((u64::from_le_bytes(raw), pos + w))
                }
                Some(_) => Err(WireErrorKind::PackedTruncated { field: number }),
                None => read_varint(self.bytes, pos, data.end)
                    .map_err(|_| WireErrorKind::PackedTruncated { field: number }),
            };
            match element {
                Ok((raw, next)) => {
                    elements.push(Element {
                        span: Span::new(pos, next),
                        raw,
                    });
                    pos = next;
                }
                Err(kind) => return (elements, Some(WireError { at: pos, kind })),
            }
        }
        (elements, None)
    }
}

/// A detected nested message only counts as one if its own groups closed properly too.
fn group_is_clean(field: &Field) -> bool {
    match &field.value {
        Value::Group { message, .. } => {
            message.error.is_none() && message.fields.iter().all(group_is_clean)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    #[test]
    fn varints_decode_like_protobuf() {
        assert_eq!(read_varint(&[0xd8, 0x06], 0, 2), Ok((856, 2)));
        assert_eq!(read_varint(&[0x96, 0x01], 0, 2), Ok((150, 2)));
        assert_eq!(
            read_varint(&[0x80], 0, 1),
            Err(WireErrorKind::TruncatedVarint)
        );
        assert_eq!(
            read_varint(&[0xff; 11], 0, 11),
            Err(WireErrorKind::VarintTooLong)
        );
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(read_varint(&max, 0, 10), Ok((u64::MAX, 10)));
    }

    #[test]
    fn schemaless_walk_finds_nested_messages_and_strings() {
        // 1: { 1: "ab" }, 2: 150, 3: fixed32
        let bytes = [
            0x0a, 0x04, 0x0a, 0x02, b'a', b'b', 0x10, 0x96, 0x01, 0x1d, 1, 0, 0, 0,
        ];
        let message = walk(&bytes, None);
        assert!(message.is_clean());
        assert_eq!(message.fields.len(), 3);
        let nested = message.fields[0].nested_message().unwrap();
        assert_eq!(nested.span, Span::new(2, 6));
        assert!(
            matches!(nested.fields[0].value, Value::Bytes { data, .. } if data == Span::new(4, 6))
        );
        assert!(matches!(
            message.fields[1].value,
            Value::Varint { raw: 150, .. }
        ));
        assert!(matches!(
            message.fields[2].value,
            Value::Fixed32 { raw: 1, .. }
        ));
    }

    #[test]
    fn invalid_data_stops_only_the_affected_message() {
        // field 1 holds a message claiming 9 bytes it doesn't have, field 2 follows intact
        let schema = Schema::builtin();
        let bytes = [0x0a, 0x03, 0x0a, 0x09, 0x00, 0x12, 0x00];
        let message = walk(&bytes, Some(schema.sequence_example()));
        assert_eq!(message.fields.len(), 2);
        assert!(message.error.is_none());
        let nested = message.fields[0].nested_message().unwrap();
        let error = nested.error.as_ref().unwrap();
        assert_eq!(error.at, 2);
        assert!(matches!(
            error.kind,
            WireErrorKind::LengthPastEnd {
                field: 1,
                length: 9,
                available: 1
            }
        ));
        assert!(!message.is_clean());
        assert_eq!(message.first_error().unwrap().at, 2);
    }

    #[test]
    fn packed_floats_are_split_into_elements() {
        let schema = Schema::builtin();
        let float_list = schema
            .pool()
            .get_message_by_name("tensorflow.FloatList")
            .unwrap();
        let mut bytes = vec![0x0a, 0x08];
        bytes.extend_from_slice(&1.5f32.to_le_bytes());
        bytes.extend_from_slice(&(-2.0f32).to_le_bytes());
        let message = walk(&bytes, Some(&float_list));
        let Value::Packed {
            elements,
            error: None,
            ..
        } = &message.fields[0].value
        else {
            panic!()
        };
        assert_eq!(elements.len(), 2);
        assert_eq!(f32::from_bits(elements[1].raw as u32), -2.0);
        assert_eq!(elements[1].span, Span::new(6, 10));
    }

    #[test]
    fn groups_and_stray_end_groups() {
        let group = [0x0b, 0x10, 0x01, 0x0c, 0x18, 0x02];
        let message = walk(&group, None);
        assert!(message.is_clean());
        assert!(
            matches!(&message.fields[0].value, Value::Group { end_tag: Some(s), .. } if *s == Span::new(3, 4))
        );
        let stray = walk(&[0x0c], None);
        assert!(matches!(
            stray.error,
            Some(WireError {
                at: 0,
                kind: WireErrorKind::UnexpectedEndGroup { field: 1 }
            })
        ));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        // 200 levels of field 1 nesting, built inside-out.
        let mut bytes: Vec<u8> = Vec::new();
        for _ in 0..200 {
            let mut outer = vec![0x0a];
            let mut len = bytes.len();
            while len >= 0x80 {
                outer.push((len as u8) | 0x80);
                len >>= 7;
            }
            outer.push(len as u8);
            outer.extend_from_slice(&bytes);
            bytes = outer;
        }
        let message = walk(&bytes, None);
        assert!(message.error.is_none()); // the deepest detected level falls back to bytes
    }
}
