//! How each token's meaning is obtained, in steps a learner can redo by hand.
//!
//! `hex` says that `e8 06` is "varint 872: length of `features`"; this module says why: the two
//! bytes in binary, their continuation bits, the 7-bit groups put back least significant first,
//! 872 = 0x368, and which bytes of the payload those 872 bytes are. It does the same for tags
//! (`field << 3 | wire type`), signed and zigzag numbers, little-endian fixed-width values, the
//! fields of a float, and the frame's own length and CRCs, and it explains a single byte within
//! its token for the inspector's cursor. It reads the same tokens and wire tree as the annotation
//! ([`crate::annotate`]), so a derivation cannot disagree with the meaning printed beside it.

pub mod encode;
pub mod encode_message;
pub mod fault;
pub mod number;
pub mod protoscope;

use crate::annotate::{Annotated, PayloadTokens, Role, Site, Token};
use crate::bytes::ByteSource;
use crate::crc;
use crate::schema::table::{Field, Kind, Table};
use crate::span::{FileOffset, FileRange, Span};
use crate::wire::{self, NodeKind, ROOT, WireTree};

pub use number::wire_name;

pub use crate::words::Radix;

/// ` (file 14..30)`: where payload bytes lie in the file, when the payload lies in one.
fn in_file(payload: &PayloadTokens<'_>, r: Radix, start: u64, end: u64) -> String {
    if payload.is_framed() {
        format!(" (file {})", r.range(start, end))
    } else {
        String::new()
    }
}

/// Derivations of the tokens of one annotated frame.
pub struct Explainer<'a> {
    annotated: &'a Annotated<'a>,
    data: &'a dyn ByteSource,
    radix: Radix,
}

/// A payload token's node, with what reading it needs.
struct At<'a> {
    payload: &'a PayloadTokens<'a>,
    tree: &'a WireTree,
    node: wire::Node,
    node_index: usize,
    field: Option<&'a Field>,
}

impl<'a> At<'a> {
    fn kind(&self) -> Option<Kind> {
        self.field.map(|f| f.kind)
    }

    fn table(&self) -> &'a Table {
        self.payload.table()
    }
}

impl<'a> Explainer<'a> {
    /// Derivations for the tokens of `annotated`, whose frame lies in the file bytes `data`.
    pub fn new(
        annotated: &'a Annotated<'a>,
        data: &'a dyn ByteSource,
        radix: Radix,
    ) -> Explainer<'a> {
        Explainer {
            annotated,
            data,
            radix,
        }
    }

    /// The bytes of `token`.
    pub fn bytes(&self, token: &Token) -> &'a [u8] {
        let range = FileRange::new(FileOffset(token.start), FileOffset(token.end));
        self.data.read(range).unwrap_or_default()
    }

    fn at(&self, token: &Token) -> Option<At<'a>> {
        let payload = self.annotated.payload()?;
        let tree = payload.decoded().structure()?;
        let n = token.node()?;
        let node = *tree.node(n)?;
        let field = node.field().and_then(|f| payload.table().field(f));
        Some(At {
            payload,
            tree,
            node,
            node_index: n,
            field,
        })
    }

    /// The steps from `token`'s bytes to its meaning, one line each (none for string or bytes
    /// data beyond where it lies, and for bytes that did not parse).
    pub fn derivation(&self, token: &Token) -> Vec<String> {
        let bytes = self.bytes(token);
        if let Site::Frame(_) = token.site {
            return self.frame_derivation(token, bytes);
        }
        let Some(at) = self.at(token) else {
            return Vec::new();
        };
        match token.site {
            Site::Tag(_) | Site::EndTag(_) => number::tag(bytes),
            Site::Length(_) => {
                let (_, line) = number::varint(bytes);
                vec![line, self.covers(&at)]
            }
            Site::Value(_) => {
                let fixed = matches!(at.node.kind(), NodeKind::Fixed32 | NodeKind::Fixed64);
                self.value(at.kind(), at.table(), bytes, fixed)
            }
            Site::Element(_) => {
                let kind = at.kind();
                let fixed = kind.and_then(Kind::fixed_width).is_some();
                self.value(kind, at.table(), bytes, fixed)
            }
            Site::Data(_) => vec![self.data_range(token, &at)],
            Site::StringLength { index, count, .. } => {
                let (_, line) = number::varint(bytes);
                vec![
                    line,
                    format!(
                        "the length of string {index}: TensorFlow writes all {count} lengths, \
                         then the strings' bytes one after another"
                    ),
                ]
            }
            Site::StringData {
                index, length_at, ..
            } => {
                let r = self.radix;
                let base = at.payload.base();
                let (start, end) = (
                    token.start.saturating_sub(base),
                    token.end.saturating_sub(base),
                );
                vec![format!(
                    "{} at payload {}{}, as many as the length of string {index} \
                     (at payload {}) says",
                    r.bytes(end - start),
                    r.range(start, end),
                    in_file(at.payload, r, token.start, token.end),
                    r.num(u64::from(length_at)),
                )]
            }
            Site::Invalid(_) => {
                let Some(error) = at.tree.error_of(at.node_index) else {
                    return Vec::new();
                };
                fault::explain(
                    at.payload.bytes(),
                    error.at,
                    at.node.end(),
                    &error.kind,
                    self.radix,
                )
                .steps
            }
            Site::PackedInvalid(_) | Site::Frame(_) | Site::Payload => Vec::new(),
        }
    }

    fn frame_derivation(&self, token: &Token, bytes: &[u8]) -> Vec<String> {
        if !matches!(token.role, Role::Frame | Role::BadCrc) {
            return Vec::new();
        }
        let (value, line) = number::little_endian(bytes);
        match bytes.len() {
            8 => vec![format!("{line}: the payload's length")],
            4 => {
                let raw = crc::unmask(value as u32);
                vec![
                    line,
                    format!(
                        "TFRecord stores the CRC32C masked: ((crc >> 15) | (crc << 17)) + 0xa282ead8, \
                         so 0x{value:08x} is the mask of crc32c 0x{raw:08x}"
                    ),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// A scalar's steps: the varint or the byte reversal, then how its type reads the number.
    fn value(&self, kind: Option<Kind>, table: &Table, bytes: &[u8], fixed: bool) -> Vec<String> {
        let (raw, first) = if fixed {
            number::little_endian(bytes)
        } else {
            number::varint(bytes)
        };
        let mut lines = vec![first];
        lines.extend(reading(kind, table, raw, fixed, bytes.len()));
        lines
    }

    /// Where a length prefix's bytes lie and what is left of the message around them.
    fn covers(&self, at: &At<'_>) -> String {
        let r = self.radix;
        let data = at.node.data_span();
        let base = at.payload.base();
        let parent = at.node.parent().unwrap_or(ROOT);
        let enclosing = at
            .tree
            .node(parent)
            .map_or(Span::default(), wire::Node::data_span);
        let remain = enclosing.end.saturating_sub(at.node.end());
        let label = if parent == ROOT {
            "the payload".to_string()
        } else {
            let field = at
                .tree
                .node(parent)
                .and_then(wire::Node::field)
                .and_then(|f| at.table().field(f));
            match field {
                Some(f) => format!("`{}`", f.name),
                None => format!(
                    "field {}",
                    at.tree.node(parent).map_or(0, wire::Node::number)
                ),
            }
        };
        format!(
            "covers payload {}{}, {}; after them {} of the {} bytes of {label} remain",
            r.range(data.start as u64, data.end as u64),
            in_file(
                at.payload,
                r,
                base + data.start as u64,
                base + data.end as u64
            ),
            r.bytes(data.len() as u64),
            r.num(remain as u64),
            r.num(enclosing.len() as u64),
        )
    }

    fn data_range(&self, token: &Token, at: &At<'_>) -> String {
        let r = self.radix;
        let base = at.payload.base();
        let start = token.start.saturating_sub(base);
        let end = token.end.saturating_sub(base);
        format!(
            "{} at payload {}{}, as many as the length before them says",
            r.bytes(end - start),
            r.range(start, end),
            in_file(at.payload, r, token.start, token.end),
        )
    }

    /// The open messages around `token`, outermost first: each one's name, its length and how
    /// many of its bytes are left after the token (the countdown a parser keeps).
    pub fn open_messages(&self, token: &Token) -> Vec<OpenMessage> {
        let Some(payload) = self.annotated.payload() else {
            return Vec::new();
        };
        let Some(tree) = payload.decoded().structure() else {
            return Vec::new();
        };
        let Some(pos) = token.end.checked_sub(payload.base()) else {
            return Vec::new();
        };
        let pos = usize::try_from(pos).unwrap_or(usize::MAX);
        let mut chain = Vec::new();
        let mut at = token.node();
        // A token of a container itself (its tag or length) is not inside it yet.
        if matches!(token.site, Site::Tag(_) | Site::Length(_)) {
            at = at.and_then(|n| tree.node(n)).and_then(wire::Node::parent);
        }
        while let Some(n) = at {
            let Some(node) = tree.node(n) else {
                break;
            };
            if node.kind().is_container() || n == ROOT {
                let data = node.data_span();
                let name = if n == ROOT {
                    let kind = payload.decoded().kind.name().to_string();
                    format!("payload ({kind})")
                } else {
                    let field = node.field().and_then(|f| payload.table().field(f));
                    let type_name = tree
                        .message_type(n, payload.table())
                        .and_then(|m| payload.table().message(m))
                        .map_or(String::new(), |m| format!(" ({})", m.name));
                    match field {
                        Some(f) => format!("`{}`{type_name}", f.name),
                        None => format!("field {}{type_name}", node.number()),
                    }
                };
                chain.push(OpenMessage {
                    name,
                    length: data.len() as u64,
                    remaining: data.end.saturating_sub(pos.max(data.start)) as u64,
                });
            }
            at = node.parent();
        }
        chain.reverse();
        chain
    }

    /// What byte `offset` is within `token`: its bits, and for a varint its continuation bit and
    /// what its group adds to the value.
    pub fn byte(&self, token: &Token, offset: u64) -> Option<String> {
        let bytes = self.bytes(token);
        let i = usize::try_from(offset.checked_sub(token.start)?).ok()?;
        let b = *bytes.get(i)?;
        let of = format!("byte {} of {}", i + 1, bytes.len());
        let varint = match token.site {
            Site::Tag(_) | Site::EndTag(_) | Site::Length(_) | Site::StringLength { .. } => true,
            Site::Value(_) => self
                .at(token)
                .is_some_and(|at| at.node.kind() == NodeKind::Varint),
            Site::Element(_) => self
                .at(token)
                .is_some_and(|at| at.kind().and_then(Kind::fixed_width).is_none()),
            _ => false,
        };
        let fixed = match token.site {
            Site::Value(_) | Site::Element(_) => !varint,
            Site::Frame(_) => matches!(token.role, Role::Frame | Role::BadCrc),
            _ => false,
        };
        if varint {
            let (value, _) = number::varint_value(bytes);
            let group = u64::from(b & 0x7f);
            let shift = 7 * i as u32;
            let more = if b & 0x80 != 0 {
                "continuation 1: more bytes follow"
            } else {
                "continuation 0: the last byte"
            };
            let mut text = format!(
                "{of}: {}: {more}; group {:07b} = {group}, adds {group} << {shift} = {} to {value}",
                number::byte_bits(b),
                b & 0x7f,
                group.checked_shl(shift).unwrap_or(0),
            );
            if i == 0 && matches!(token.site, Site::Tag(_) | Site::EndTag(_)) {
                let wire = b & 7;
                text.push_str(&format!(
                    "; its low 3 bits {} are the wire type {wire} ({})",
                    number::low_bits(u64::from(wire), 3),
                    wire_name(u64::from(wire))
                ));
                if bytes.len() == 1 {
                    text.push_str(&format!(", the 4 above them field {}", b >> 3));
                }
            }
            return Some(text);
        }
        if fixed {
            let (value, _) = number::little_endian(bytes);
            let digits = bytes.len().min(8) * 2;
            return Some(format!(
                "{of}: 0x{b:02x} = {}, bits {}..{} of the little-endian value 0x{value:0digits$x}",
                number::byte_bits(b),
                8 * i,
                8 * i + 7
            ));
        }
        let shown = if b.is_ascii_graphic() || b == b' ' {
            format!(" '{}'", char::from(b))
        } else {
            String::new()
        };
        Some(format!("{of}: 0x{b:02x} = {}{shown}", number::byte_bits(b)))
    }
}

/// One message a token lies in, with the bytes of it still to read after the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenMessage {
    pub name: String,
    pub length: u64,
    pub remaining: u64,
}

/// How a field of `kind` reads the raw number (steps beyond the varint or byte reversal).
fn reading(kind: Option<Kind>, table: &Table, raw: u64, fixed: bool, width: usize) -> Vec<String> {
    let line = match kind {
        Some(Kind::Int64) => number::int64(raw),
        Some(Kind::Int32) => number::int32(raw),
        Some(Kind::Sint32) => Some(number::zigzag(raw, true)),
        Some(Kind::Sint64) => Some(number::zigzag(raw, false)),
        Some(Kind::Bool) => Some(number::bool_reading(raw)),
        Some(Kind::Float) => Some(number::float(raw as u32)),
        Some(Kind::Double) => Some(number::double(raw)),
        Some(Kind::Sfixed32) => ((raw as u32 as i32) < 0).then(|| {
            format!(
                "as sfixed32: the top bit is set, so two's complement: 0x{raw:08x} - 2^32 = {}",
                raw as u32 as i32
            )
        }),
        Some(Kind::Sfixed64) => ((raw as i64) < 0).then(|| {
            format!(
                "as sfixed64: the top bit is set, so two's complement: 0x{raw:016x} - 2^64 = {}",
                raw as i64
            )
        }),
        Some(Kind::Enum(e)) => {
            let mut lines: Vec<String> = number::int32(raw).into_iter().collect();
            let number = raw as u32 as i32;
            let line = match table.enum_type(e) {
                Some(en) => match en.value_name(number) {
                    Some(name) => format!("as enum {}: {number} is {name}", en.name),
                    None if en.closed => format!(
                        "as enum {}: {number} is not one of its values, and the enum is closed (proto2)",
                        en.name
                    ),
                    None => format!(
                        "as enum {}: {number} is not one of its values; the enum is open (proto3), so it keeps the number",
                        en.name
                    ),
                },
                None => format!("as enum: {number}"),
            };
            lines.push(line);
            return lines;
        }
        None if fixed && width == 4 => Some(format!(
            "no schema: as a float, {}",
            number::float(raw as u32)
        )),
        None if fixed && width == 8 => {
            Some(format!("no schema: as a double, {}", number::double(raw)))
        }
        _ => None,
    };
    line.into_iter().collect()
}

#[cfg(test)]
pub(crate) mod tests;
