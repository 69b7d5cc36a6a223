//! The annotated walkthrough of a frame: every token of header, payload and footer with its bytes
//! and what they mean, in file order. `hex` prints these tokens and the TUI's hex pane draws them,
//! so both read the payload through the same wire tree.

use prost_reflect::Kind;

use crate::decode::Scalar;
use crate::frame::{FOOTER_LEN, Frame, HEADER_LEN, Header};
use crate::payload::Decoded;
use crate::textformat::scalar_text;
use crate::wire::{self, Field, Value, WireType};
use crate::words::plural;

/// What a token is, for colouring and for the TUI's explanation line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Frame header or footer bytes (length, CRCs).
    Frame,
    /// A CRC that does not match.
    BadCrc,
    Tag,
    /// A length prefix.
    Length,
    /// A scalar value or packed element.
    Value,
    /// String or bytes data.
    Data,
    /// Bytes the walk could not parse, or a payload shown as bytes.
    Unparsed,
}

/// One annotated token: a byte range of the file and its meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub start: u64,
    pub end: u64,
    /// Nesting depth (0 for the frame header and top-level fields).
    pub depth: usize,
    pub role: Role,
    pub meaning: String,
    /// Indices of the wire fields leading to this token (empty for frame bytes).
    pub path: Vec<usize>,
}

/// Tokens of the frame header, the payload and the footer.
pub fn frame_tokens(data: &[u8], frame: &Frame, decoded: Option<&Decoded<'_>>) -> Vec<Token> {
    let mut tokens = Vec::new();
    let offset = frame.offset.0;
    let plain = |start: u64, len: u64, role: Role, meaning: String| Token {
        start,
        end: start + len,
        depth: 0,
        role,
        meaning,
        path: Vec::new(),
    };
    let Some(header) = Header::read(data, offset) else {
        let len = frame.region_end.0.saturating_sub(offset);
        tokens.push(plain(
            offset,
            len,
            Role::Unparsed,
            format!("{len} trailing bytes: too short for a frame header"),
        ));
        return tokens;
    };
    tokens.push(plain(
        offset,
        8,
        Role::Frame,
        format!("length {} (u64 little-endian)", header.length),
    ));
    let crc_meaning = if header.crc_ok() {
        format!(
            "masked crc32c of the length: 0x{:08x}, matches",
            header.stored_length_crc
        )
    } else {
        format!(
            "masked crc32c of the length: stored 0x{:08x}, expected 0x{:08x}: MISMATCH, the length is not trustworthy",
            header.stored_length_crc, header.computed_length_crc
        )
    };
    let crc_role = if header.crc_ok() {
        Role::Frame
    } else {
        Role::BadCrc
    };
    tokens.push(plain(offset + 8, 4, crc_role, crc_meaning));
    let payload_start = offset + HEADER_LEN;
    match (frame.payload_range(), decoded) {
        (Some(range), Some(decoded)) => payload_tokens(decoded, range.start, &mut tokens),
        (Some(range), None) => {
            let len = range.end - range.start;
            tokens.push(plain(
                range.start,
                len,
                Role::Unparsed,
                format!("payload, {len} bytes"),
            ));
        }
        (None, _) => {
            let len = frame.region_end.0.saturating_sub(payload_start);
            if len > 0 {
                let what = if header.crc_ok() {
                    format!(
                        "the file's last {len} bytes, where the header announces a {}-byte payload and its 4-byte CRC",
                        header.length
                    )
                } else {
                    skipped(len, frame.region_end.0, data.len() as u64)
                };
                tokens.push(plain(payload_start, len, Role::Unparsed, what));
            }
        }
    }
    if let Some((stored, computed)) = frame.data_crcs(data) {
        let footer = frame.payload_range().map_or(payload_start, |r| r.end);
        let (role, meaning) = if stored == computed {
            (
                Role::Frame,
                format!("masked crc32c of the payload: 0x{stored:08x}, matches"),
            )
        } else {
            (
                Role::BadCrc,
                format!(
                    "masked crc32c of the payload: stored 0x{stored:08x}, expected 0x{computed:08x}: MISMATCH"
                ),
            )
        };
        tokens.push(plain(footer, FOOTER_LEN, role, meaning));
        let after = footer + FOOTER_LEN;
        if frame.region_end.0 > after {
            let len = frame.region_end.0 - after;
            let what = skipped(len, frame.region_end.0, data.len() as u64);
            tokens.push(plain(after, len, Role::Unparsed, what));
        }
    }
    tokens
}

/// Bytes skipped after damage, ending at `end`: at the next intact frame or at the end of the file.
fn skipped(len: u64, end: u64, file_len: u64) -> String {
    let bytes = plural(len, "byte");
    if end >= file_len {
        format!("{bytes} to the end of the file, holding no intact frame")
    } else {
        format!("{bytes} skipped up to the next intact frame, at byte {end}")
    }
}

/// Tokens of a decoded payload that starts at file offset `base`.
pub fn payload_tokens(decoded: &Decoded<'_>, base: u64, tokens: &mut Vec<Token>) {
    let len = decoded.payload.len() as u64;
    let Some(structure) = decoded.structure() else {
        if len > 0 {
            let meaning = format!("{} payload, {}", decoded.kind.name(), plural(len, "byte"));
            tokens.push(Token {
                start: base,
                end: base + len,
                depth: 0,
                role: Role::Unparsed,
                meaning,
                path: Vec::new(),
            });
        }
        return;
    };
    let mut path = Vec::new();
    message_tokens(decoded.payload, structure, base, 0, &mut path, tokens);
}

fn message_tokens(
    payload: &[u8],
    message: &wire::Message,
    base: u64,
    depth: usize,
    path: &mut Vec<usize>,
    tokens: &mut Vec<Token>,
) {
    for (i, field) in message.fields.iter().enumerate() {
        path.push(i);
        field_tokens(payload, field, base, depth, path, tokens);
        path.pop();
    }
    if let Some(error) = &message.error {
        let start = base + error.at as u64;
        let end = base + message.span.end as u64;
        if end > start {
            tokens.push(Token {
                start,
                end,
                depth,
                role: Role::Unparsed,
                meaning: format!("invalid: {error}; {} bytes not parsed", end - start),
                path: path.clone(),
            });
        }
    }
}

fn field_label(field: &Field) -> String {
    match &field.descriptor {
        Some(d) => format!("`{}`", d.name()),
        None => format!("field {}", field.number),
    }
}

fn type_name(field: &Field) -> String {
    match &field.descriptor {
        None => String::new(),
        Some(d) => {
            let kind = match d.kind() {
                Kind::Message(m) if d.is_map() => format!("map entry {}", m.name()),
                Kind::Message(m) => m.name().to_string(),
                Kind::Enum(e) => e.name().to_string(),
                other => format!("{other:?}").to_lowercase(),
            };
            if d.is_list() {
                format!(" (repeated {kind})")
            } else {
                format!(" ({kind})")
            }
        }
    }
}

fn field_tokens(
    payload: &[u8],
    field: &Field,
    base: u64,
    depth: usize,
    path: &mut Vec<usize>,
    tokens: &mut Vec<Token>,
) {
    let at = |span: crate::span::Span| (base + span.start as u64, base + span.end as u64);
    let mut push =
        |span: crate::span::Span, depth: usize, role: Role, meaning: String, path: &[usize]| {
            let (start, end) = at(span);
            tokens.push(Token {
                start,
                end,
                depth,
                role,
                meaning,
                path: path.to_vec(),
            });
        };
    let label = field_label(field);
    let name_part = match &field.descriptor {
        Some(d) => format!(" `{}`", d.name()),
        None => String::new(),
    };
    let tag_meaning = format!(
        "field {}{}, wire type {} ({}){}",
        field.number,
        name_part,
        field.wire_type.code(),
        field.wire_type.description(),
        type_name(field)
    );
    push(field.tag, depth, Role::Tag, tag_meaning, path);
    let kind = field.descriptor.as_ref().map(|d| d.kind());
    match &field.value {
        Value::Varint { span, raw } | Value::Fixed64 { span, raw } => {
            let meaning = scalar_meaning(kind.as_ref(), *raw, field.wire_type);
            push(*span, depth, Role::Value, meaning, path);
        }
        Value::Fixed32 { span, raw } => {
            let meaning = scalar_meaning(kind.as_ref(), u64::from(*raw), field.wire_type);
            push(*span, depth, Role::Value, meaning, path);
        }
        Value::Bytes {
            prefix,
            length,
            data,
        } => {
            push(
                *prefix,
                depth,
                Role::Length,
                format!(
                    "varint {length}: length of {label}, {}",
                    plural(*length, "byte")
                ),
                path,
            );
            if !data.is_empty() {
                let bytes = data.slice(payload).unwrap_or_default();
                let is_string = kind == Some(Kind::String);
                push(
                    *data,
                    depth,
                    Role::Data,
                    crate::image::describe_bytes(bytes, is_string),
                    path,
                );
            }
        }
        Value::Packed {
            prefix,
            length,
            elements,
            error,
            ..
        } => {
            let n = elements.len();
            let meaning = format!(
                "varint {length}: length of {label}, packed, {n} element{}",
                if n == 1 { "" } else { "s" }
            );
            push(*prefix, depth, Role::Length, meaning, path);
            // The element encoding follows from the declared type, as the walker split them.
            let wire_type = match kind {
                Some(Kind::Float | Kind::Fixed32 | Kind::Sfixed32) => WireType::I32,
                Some(Kind::Double | Kind::Fixed64 | Kind::Sfixed64) => WireType::I64,
                _ => WireType::Varint,
            };
            for element in elements {
                let meaning = scalar_meaning(kind.as_ref(), element.raw, wire_type);
                push(element.span, depth + 1, Role::Value, meaning, path);
            }
            if let Some(error) = error {
                let span = crate::span::Span::new(error.at, field.span.end);
                push(
                    span,
                    depth + 1,
                    Role::Unparsed,
                    format!("invalid: {error}"),
                    path,
                );
            }
        }
        Value::Message {
            prefix,
            length,
            message,
        } => {
            let what = match (&field.descriptor, message.descriptor.as_ref()) {
                (Some(d), _) if d.is_map() => "map entry".to_string(),
                (_, Some(m)) => format!("message {}", m.name()),
                (_, None) => "message (detected without a schema)".to_string(),
            };
            push(
                *prefix,
                depth,
                Role::Length,
                format!(
                    "varint {length}: length of {label}, {what} of {}",
                    plural(*length, "byte")
                ),
                path,
            );
            message_tokens(payload, message, base, depth + 1, path, tokens);
        }
        Value::Group { message, end_tag } => {
            message_tokens(payload, message, base, depth + 1, path, tokens);
            if let Some(end_tag) = end_tag {
                let (start, end) = at(*end_tag);
                let meaning = format!("end of group {label}, wire type 4 (end group)");
                tokens.push(Token {
                    start,
                    end,
                    depth,
                    role: Role::Tag,
                    meaning,
                    path: path.clone(),
                });
            }
        }
    }
}

fn scalar_meaning(kind: Option<&Kind>, raw: u64, wire_type: WireType) -> String {
    match kind.and_then(|k| Scalar::from_raw(k, raw).map(|s| (k, s))) {
        Some((k, scalar)) => {
            let type_name = match k {
                Kind::Enum(e) => e.name().to_string(),
                other => format!("{other:?}").to_lowercase(),
            };
            match (wire_type, &scalar) {
                (WireType::Varint, Scalar::Enum(n, Some(_))) => {
                    format!("varint {n}: {type_name} {}", scalar_text(&scalar))
                }
                (WireType::Varint, _) => {
                    format!("varint {raw}: {type_name} {}", scalar_text(&scalar))
                }
                _ => format!("{type_name} {}", scalar_text(&scalar)),
            }
        }
        None => match wire_type {
            WireType::Varint => format!("varint {raw}"),
            WireType::I32 => format!(
                "fixed32 0x{raw:08x} (float {})",
                scalar_text(&Scalar::F32(f32::from_bits(raw as u32)))
            ),
            _ => format!(
                "fixed64 0x{raw:016x} (double {})",
                scalar_text(&Scalar::F64(f64::from_bits(raw)))
            ),
        },
    }
}
