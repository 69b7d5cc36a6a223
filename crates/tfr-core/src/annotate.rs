//! The annotated walkthrough of a frame: every token of header, payload and footer with its bytes
//! and what they mean, in file order. `hex` prints these tokens and the inspector's hex pane draws
//! them, so both read the payload through the same wire tree.
//!
//! Tokens are found, not stored: [`PayloadTokens::token_at`] finds the token under a byte from the
//! wire tree in O(log n + depth), and iterating a frame's tokens walks from one token to the next,
//! so `hex` streams a record of millions of fields and the hex pane looks up only what is on
//! screen. What a token means is worded only when asked for ([`Annotated::meaning`]).

use std::ops::Range;

use crate::bytes::ByteSource;
use crate::decode::{Parsed, Scalar};
use crate::frame::{FOOTER_LEN, Frame, HEADER_LEN, Header};
use crate::payload::Decoded;
use crate::schema::table::{Cardinality, Field, FieldId, Kind, Table};
use crate::span::{FileOffset, Span};
use crate::tensor::{StringList, TensorProblem};
use crate::textformat::scalar_text;
use crate::wire::{self, NodeKind, ROOT, WireTree, WireType};
use crate::words::Radix;
use crate::words::plural;

/// The most bytes a varint takes (64 bits, seven a byte).
const MAX_VARINT: usize = 10;

/// What a token is, for colouring and for the inspector's explanation line.
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

/// Which part of the frame or of the wire tree a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// One of the frame's own tokens (header, CRCs, skipped bytes), by position in the frame.
    Frame(u8),
    /// A payload shown as plain bytes.
    Payload,
    /// The tag of tree node `n`.
    Tag(u32),
    /// The length prefix of node `n`.
    Length(u32),
    /// The scalar value of node `n`.
    Value(u32),
    /// The string or bytes data of node `n`.
    Data(u32),
    /// One number of packed run `n`.
    Element(u32),
    /// The end-group tag of group `n`.
    EndTag(u32),
    /// The bytes of container `n` from where its walk stopped to its end.
    Invalid(u32),
    /// The bytes of packed run `n` from where it breaks to its end.
    PackedInvalid(u32),
    /// Length `index` of the `count` varint lengths that open `tensor_content` node `node` of a
    /// string tensor (TensorFlow's string list: every length, then every string's bytes).
    StringLength { node: u32, index: u32, count: u32 },
    /// The bytes of string `index` of that list, whose length is at payload position
    /// `length_at`.
    StringData {
        node: u32,
        index: u32,
        length_at: u32,
    },
}

/// One annotated token: a byte range of the file and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub start: u64,
    pub end: u64,
    /// Nesting depth (0 for the frame header and top-level fields).
    pub depth: usize,
    pub role: Role,
    pub site: Site,
}

impl Token {
    pub fn range(&self) -> Range<u64> {
        self.start..self.end
    }

    /// The tree node a payload token belongs to.
    pub fn node(&self) -> Option<usize> {
        match self.site {
            Site::Frame(_) | Site::Payload => None,
            Site::Tag(n)
            | Site::Length(n)
            | Site::Value(n)
            | Site::Data(n)
            | Site::Element(n)
            | Site::EndTag(n)
            | Site::Invalid(n)
            | Site::PackedInvalid(n)
            | Site::StringLength { node: n, .. }
            | Site::StringData { node: n, .. } => Some(n as usize),
        }
    }
}

/// The tokens of one decoded payload that starts at file offset `base`.
#[derive(Debug, Clone, Copy)]
pub struct PayloadTokens<'a> {
    decoded: &'a Decoded,
    payload: &'a [u8],
    table: &'a Table,
    base: u64,
    /// Whether the payload lies in a frame of a file (else it stands alone, as the bytes an
    /// encoder wrote, and its offsets are its own).
    framed: bool,
    /// `tensorflow.TensorProto.tensor_content`, whose bytes may be a list of strings.
    tensor_content: Option<FieldId>,
}

impl<'a> PayloadTokens<'a> {
    pub fn new(
        decoded: &'a Decoded,
        payload: &'a [u8],
        table: &'a Table,
        base: u64,
    ) -> PayloadTokens<'a> {
        let tensor_content = crate::payload::tensor_content_field(table);
        PayloadTokens {
            decoded,
            payload,
            table,
            base,
            framed: true,
            tensor_content,
        }
    }

    /// The tokens of a payload standing alone, framed by no file: the bytes an encoder wrote,
    /// counted from their first byte.
    pub fn standalone(decoded: &'a Decoded, payload: &'a [u8], table: &'a Table) -> Self {
        PayloadTokens {
            framed: false,
            ..PayloadTokens::new(decoded, payload, table, 0)
        }
    }

    /// Whether the payload lies in a frame of a file (offsets into the file mean something).
    pub fn is_framed(&self) -> bool {
        self.framed
    }

    /// The strings node `n` holds, when it is the `tensor_content` a string tensor reads its
    /// values from (`Err` when it does not hold them as TensorFlow encodes them).
    pub fn string_list(&self, n: usize) -> Option<Result<StringList<'a>, TensorProblem>> {
        let tree = self.decoded.structure()?;
        let parsed = Parsed::new(tree, self.payload, self.table);
        crate::payload::string_list_at(parsed, n, self.tensor_content?)
    }

    /// The token of a string list (a length, or a string's bytes) holding payload position
    /// `pos` of node `n`, whose data is `data`.
    fn string_token(
        &self,
        list: &StringList<'_>,
        n: u32,
        data: Span,
        depth: usize,
        pos: usize,
    ) -> Option<Token> {
        let (index, entry) = list.entry_at(pos.checked_sub(data.start)?)?;
        let index = u32::try_from(index).ok()?;
        let at = |r: std::ops::Range<usize>| Span::new(data.start + r.start, data.start + r.end);
        if pos - data.start < list.lengths_end() {
            let count = u32::try_from(list.len()).ok()?;
            let site = Site::StringLength {
                node: n,
                index,
                count,
            };
            return self.token(at(entry.length), depth, Role::Length, site);
        }
        let length_at = u32::try_from(data.start + entry.length.start).ok()?;
        let site = Site::StringData {
            node: n,
            index,
            length_at,
        };
        self.token(at(entry.data), depth, Role::Data, site)
    }

    /// The first non-empty string from string `index` on, whose length is at payload position
    /// `length_at` and whose bytes start at `data_at`; `None` when the rest are empty.
    fn next_string(
        &self,
        n: u32,
        depth: usize,
        mut index: u32,
        mut length_at: usize,
        data_at: usize,
    ) -> Option<Token> {
        let data = self.decoded.structure()?.node(n as usize)?.data_span();
        // The list was checked when its first token was found: every string left before the
        // content's end has its length before `data_at`.
        while data_at < data.end && length_at < data_at {
            let (length, next) = wire::read_varint(self.payload, length_at, data_at).ok()?;
            if length > 0 {
                let end = data_at.checked_add(usize::try_from(length).ok()?)?;
                let site = Site::StringData {
                    node: n,
                    index,
                    length_at: u32::try_from(length_at).ok()?,
                };
                return self.token(
                    Span::new(data_at, end.min(data.end)),
                    depth,
                    Role::Data,
                    site,
                );
            }
            (index, length_at) = (index.checked_add(1)?, next);
        }
        None
    }

    /// The decoding the tokens come from.
    pub fn decoded(&self) -> &'a Decoded {
        self.decoded
    }

    /// The payload's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.payload
    }

    /// The schema the payload was walked with.
    pub fn table(&self) -> &'a Table {
        self.table
    }

    /// The file offset of the payload's first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    fn file(&self, span: Span) -> (u64, u64) {
        (self.base + span.start as u64, self.base + span.end as u64)
    }

    fn token(&self, span: Span, depth: usize, role: Role, site: Site) -> Option<Token> {
        let (start, end) = self.file(span);
        (end > start).then_some(Token {
            start,
            end,
            depth,
            role,
            site,
        })
    }

    /// The token holding file byte `offset`, if it lies in the payload.
    pub fn token_at(&self, offset: u64) -> Option<Token> {
        let pos = usize::try_from(offset.checked_sub(self.base)?).ok()?;
        if pos >= self.payload.len() {
            return None;
        }
        let Some(tree) = self.decoded.structure() else {
            let span = Span::new(0, self.payload.len());
            return self.token(span, 0, Role::Unparsed, Site::Payload);
        };
        let n = tree.node_at(pos)?;
        let node = tree.node(n)?;
        let id = n as u32;
        let depth = tree.depth(n);
        let inner = if n == ROOT { 0 } else { depth + 1 };
        let invalid = |site| {
            let error = tree.error_of(n)?;
            let span = Span::new(error.at.min(node.end()), node.end());
            self.token(span, inner, Role::Unparsed, site)
        };
        if n != ROOT && node.tag_span().contains(pos) {
            return self.token(node.tag_span(), depth, Role::Tag, Site::Tag(id));
        }
        if let Some(prefix) = node.prefix_span().filter(|p| p.contains(pos)) {
            return self.token(prefix, depth, Role::Length, Site::Length(id));
        }
        let data = node.data_span();
        match node.kind() {
            NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                self.token(data, depth, Role::Value, Site::Value(id))
            }
            NodeKind::Bytes => {
                if let Some(Ok(list)) = self.string_list(n) {
                    if let Some(token) = self.string_token(&list, id, data, inner, pos) {
                        return Some(token);
                    }
                }
                self.token(data, depth, Role::Data, Site::Data(id))
            }
            NodeKind::Packed => {
                if tree.error_of(n).is_some_and(|e| pos >= e.at) {
                    return invalid(Site::PackedInvalid(id));
                }
                let span = self.element_at(tree, n, pos)?;
                self.token(span, inner, Role::Value, Site::Element(id))
            }
            NodeKind::Group if node.end_tag_span().is_some_and(|t| t.contains(pos)) => {
                let tag = node.end_tag_span()?;
                self.token(tag, depth, Role::Tag, Site::EndTag(id))
            }
            NodeKind::Message | NodeKind::Guessed | NodeKind::Group => invalid(Site::Invalid(id)),
        }
    }

    /// The element of packed run `n` holding payload position `pos`.
    fn element_at(&self, tree: &WireTree, n: usize, pos: usize) -> Option<Span> {
        let kind = self.element_kind(tree, n);
        let data = tree.node(n)?.data_span();
        if let Some(width) = kind.fixed_width() {
            let start = data.start + (pos - data.start) / width * width;
            return Some(Span::new(start, start + width));
        }
        // A varint ends at its first byte without the high bit, so the one holding `pos` starts
        // after the last such byte before it and ends at the first from it on: both at most ten
        // bytes away in a run that is valid up to `pos`. Walking the run from its start instead
        // made every lookup (one for each move of the inspector's cursor) cost the run's length.
        let run = self.payload.get(data.start..data.end)?;
        let at = pos.checked_sub(data.start)?;
        let ends = |b: &u8| b & 0x80 == 0;
        let back = run.get(at.saturating_sub(MAX_VARINT)..at)?;
        let start = match back.iter().rposition(ends) {
            Some(end) => at - back.len() + end + 1,
            None if at <= MAX_VARINT => 0,
            // No end within reach: not a run of varints here; the walk says what it is.
            None => return self.element_walked(tree, n, kind, pos),
        };
        let ahead = run.get(at..(at + MAX_VARINT).min(run.len()))?;
        let end = at + ahead.iter().position(ends)? + 1;
        Some(Span::new(data.start + start, data.start + end))
    }

    /// The element of packed run `n` holding `pos`, found by walking the run from its start.
    fn element_walked(&self, tree: &WireTree, n: usize, kind: Kind, pos: usize) -> Option<Span> {
        tree.elements(n, self.payload, kind)
            .map(|(span, _)| span)
            .find(|span| span.contains(pos))
    }

    fn element_kind(&self, tree: &WireTree, n: usize) -> Kind {
        tree.node(n)
            .and_then(wire::Node::field)
            .and_then(|f| self.table.field(f))
            .map_or(Kind::Uint64, |f| f.kind)
    }

    /// The token after `token`, within the payload.
    pub fn next_token(&self, token: &Token) -> Option<Token> {
        // The next number of a packed run follows directly: no search from the run's start.
        if let (Site::Element(n), Some(tree)) = (token.site, self.decoded.structure()) {
            let node = tree.node(n as usize)?;
            let data = node.data_span();
            let at = usize::try_from(token.end.checked_sub(self.base)?).ok()?;
            let broken = tree.error_of(n as usize).map_or(data.end, |e| e.at);
            if at < broken.min(data.end) {
                let kind = self.element_kind(tree, n as usize);
                let (span, _) = tree
                    .elements(n as usize, self.payload, kind)
                    .resume(at)
                    .next()?;
                return self.token(span, token.depth, Role::Value, token.site);
            }
        }
        // The next length or string of a string list follows from this one, without a search
        // from the list's start.
        let at = usize::try_from(token.end.checked_sub(self.base)?).ok()?;
        let start = usize::try_from(token.start.checked_sub(self.base)?).ok()?;
        match token.site {
            Site::StringLength { node, index, count }
                if index.checked_add(1).is_some_and(|next| next < count) =>
            {
                let (_, end) = wire::read_varint(self.payload, at, self.payload.len()).ok()?;
                let site = Site::StringLength {
                    node,
                    index: index + 1,
                    count,
                };
                self.token(Span::new(at, end), token.depth, Role::Length, site)
            }
            Site::StringLength { node, .. } => {
                let first = self
                    .decoded
                    .structure()?
                    .node(node as usize)?
                    .data_span()
                    .start;
                self.next_string(node, token.depth, 0, first, at)
                    .or_else(|| self.token_at(token.end))
            }
            Site::StringData {
                node,
                index,
                length_at,
            } => {
                let length_at = length_at as usize;
                let (_, next) = wire::read_varint(self.payload, length_at, start).ok()?;
                self.next_string(node, token.depth, index.checked_add(1)?, next, at)
                    .or_else(|| self.token_at(token.end))
            }
            _ => self.token_at(token.end),
        }
    }

    /// Every token of the payload, in file order.
    pub fn iter(&self) -> impl Iterator<Item = Token> + '_ {
        std::iter::successors(self.token_at(self.base), |t| self.next_token(t))
    }

    /// What a payload token means.
    pub fn meaning(&self, token: &Token) -> String {
        self.meaning_in(token, Radix::Decimal)
    }

    /// What a payload token means, its numbers written in `radix`.
    pub fn meaning_in(&self, token: &Token, radix: Radix) -> String {
        let Some(tree) = self.decoded.structure() else {
            let len = self.payload.len() as u64;
            return format!(
                "{} payload, {}",
                self.decoded.kind.name(),
                plural(len, "byte")
            );
        };
        let Some(n) = token.node() else {
            return String::new();
        };
        let Some(node) = tree.node(n) else {
            return String::new();
        };
        let field = node.field().and_then(|f| self.table.field(f));
        let describe = Describe {
            table: self.table,
            node,
            field,
            radix,
        };
        let bytes = |t: &Token| {
            let start = usize::try_from(t.start.saturating_sub(self.base)).unwrap_or(0);
            let end = usize::try_from(t.end.saturating_sub(self.base)).unwrap_or(0);
            self.payload.get(start..end).unwrap_or_default()
        };
        match token.site {
            Site::Tag(_) => describe.tag(),
            Site::Length(_) => describe.length(self.length_what(tree, n, node, field)),
            Site::Value(_) => {
                let raw = tree.scalar(n, self.payload).unwrap_or_default();
                scalar_meaning(
                    self.table,
                    field.map(|f| f.kind),
                    raw,
                    node.wire_type(),
                    radix,
                )
            }
            Site::Data(_) => {
                let is_string = field.is_some_and(|f| f.kind == Kind::String);
                let what = crate::image::describe_bytes_in(bytes(token), is_string, radix);
                match self.string_list(n) {
                    Some(Err(problem)) => format!("{what}; not a string list: {problem}"),
                    _ => what,
                }
            }
            Site::Element(_) => {
                let kind = field.map(|f| f.kind);
                let raw = element_raw(bytes(token), kind);
                scalar_meaning(
                    self.table,
                    kind,
                    raw,
                    kind.map_or(WireType::Varint, |k| k.wire_type()),
                    radix,
                )
            }
            Site::EndTag(_) => {
                format!("end of group {}, wire type 4 (end group)", describe.label())
            }
            Site::Invalid(_) => match tree.error_of(n) {
                Some(error) => {
                    let fault = crate::explain::fault::explain(
                        self.payload,
                        error.at,
                        node.end(),
                        &error.kind,
                        radix,
                    );
                    format!(
                        "invalid at payload byte {}: {}; parsers reject the message ({} not parsed)",
                        radix.num(fault.byte as u64),
                        fault.headline,
                        radix.bytes(token.end - token.start)
                    )
                }
                None => String::new(),
            },
            Site::PackedInvalid(_) => match tree.error_of(n) {
                Some(error) => format!("invalid: {error}"),
                None => String::new(),
            },
            Site::StringLength { index, count, .. } => {
                let length =
                    wire::read_varint(bytes(token), 0, token_len(token)).map_or(0, |(v, _)| v);
                format!(
                    "varint {}: length of string {index} of {count}",
                    radix.num(length)
                )
            }
            Site::StringData { index, .. } => string_meaning(index, bytes(token), radix),
            Site::Frame(_) | Site::Payload => String::new(),
        }
    }

    /// What a length prefix announces: "map entry", "message Features", "packed, 3 elements"…
    fn length_what(
        &self,
        tree: &WireTree,
        n: usize,
        node: &wire::Node,
        field: Option<&Field>,
    ) -> LengthOf {
        match node.kind() {
            NodeKind::Packed => {
                let kind = self.element_kind(tree, n);
                LengthOf::Packed(tree.elements(n, self.payload, kind).count())
            }
            NodeKind::Message if field.is_some_and(|f| f.cardinality == Cardinality::Map) => {
                LengthOf::Message("map entry".into())
            }
            NodeKind::Message => {
                let name = field.map_or("", |f| self.table.kind_name(f.kind));
                LengthOf::Message(format!("message {name}"))
            }
            NodeKind::Guessed => LengthOf::Message("message (detected without a schema)".into()),
            _ => LengthOf::Bytes,
        }
    }
}

/// How many bytes `token` covers.
fn token_len(token: &Token) -> usize {
    usize::try_from(token.end - token.start).unwrap_or(usize::MAX)
}

/// `string 0, 5 bytes: "north"`, `string 1, 812 bytes: PNG 30x20`, `string 2, 5 bytes`.
fn string_meaning(index: u32, bytes: &[u8], radix: Radix) -> String {
    let size = radix.bytes(bytes.len() as u64);
    if let Some(image) = crate::image::ImageHeader::read(bytes) {
        return format!("string {index}, {size}: {image}");
    }
    match crate::words::text_start(bytes) {
        Some((shown, more)) => format!(
            "string {index}, {size}: {}{more}",
            crate::example::quoted(&shown)
        ),
        None => format!("string {index}, {size}"),
    }
}

/// The raw number of a packed element's bytes.
fn element_raw(bytes: &[u8], kind: Option<Kind>) -> u64 {
    let width = kind.and_then(Kind::fixed_width);
    wire::read_element(bytes, 0, bytes.len(), width).map_or(0, |(raw, _)| raw)
}

enum LengthOf {
    Bytes,
    Packed(usize),
    Message(String),
}

/// Words for one field occurrence.
struct Describe<'a> {
    table: &'a Table,
    node: &'a wire::Node,
    field: Option<&'a Field>,
    radix: Radix,
}

impl Describe<'_> {
    fn label(&self) -> String {
        match self.field {
            Some(f) => format!("`{}`", f.name),
            None => format!("field {}", self.node.number()),
        }
    }

    fn tag(&self) -> String {
        let wire_type = self.node.wire_type();
        let (name_part, type_part) = match self.field {
            None => (String::new(), String::new()),
            Some(f) => {
                let kind = match f.kind {
                    Kind::Message(_) if f.cardinality == Cardinality::Map => {
                        format!("map entry {}", self.table.kind_name(f.kind))
                    }
                    kind => self.table.kind_name(kind).to_string(),
                };
                let type_part = if f.cardinality == Cardinality::Repeated {
                    format!(" (repeated {kind})")
                } else {
                    format!(" ({kind})")
                };
                (format!(" `{}`", f.name), type_part)
            }
        };
        format!(
            "field {}{name_part}, wire type {} ({}){type_part}",
            self.node.number(),
            wire_type.code(),
            wire_type.description(),
        )
    }

    fn length(&self, what: LengthOf) -> String {
        let length = self.node.data_span().len() as u64;
        let label = self.label();
        let bytes = match self.radix {
            Radix::Decimal => plural(length, "byte"),
            radix => format!("{} bytes", radix.num(length)),
        };
        let length = self.radix.num(length);
        match what {
            LengthOf::Bytes => format!("varint {length}: length of {label}, {bytes}"),
            LengthOf::Packed(n) => format!(
                "varint {length}: length of {label}, packed, {}",
                plural(n, "element")
            ),
            LengthOf::Message(what) => {
                format!("varint {length}: length of {label}, {what} of {bytes}")
            }
        }
    }
}

fn scalar_meaning(
    table: &Table,
    kind: Option<Kind>,
    raw: u64,
    wire_type: WireType,
    radix: Radix,
) -> String {
    let text = |scalar: &Scalar<'_>| match (radix, scalar) {
        (Radix::Decimal, _) => scalar_text(scalar),
        (_, Scalar::I32(v)) => radix.signed(i128::from(*v)),
        (_, Scalar::I64(v)) => radix.signed(i128::from(*v)),
        (_, Scalar::U32(v)) => radix.num(u64::from(*v)),
        (_, Scalar::U64(v)) => radix.num(*v),
        (_, Scalar::Enum(v, None)) => radix.signed(i128::from(*v)),
        _ => scalar_text(scalar),
    };
    match kind.and_then(|k| Scalar::from_raw(k, raw, table).map(|s| (k, s))) {
        Some((k, scalar)) => {
            let type_name = table.kind_name(k);
            match (wire_type, &scalar) {
                (WireType::Varint, Scalar::Enum(n, Some(_))) => {
                    let n = radix.signed(i128::from(*n));
                    format!("varint {n}: {type_name} {}", text(&scalar))
                }
                (WireType::Varint, _) => {
                    format!("varint {}: {type_name} {}", radix.num(raw), text(&scalar))
                }
                _ => format!("{type_name} {}", text(&scalar)),
            }
        }
        None => match wire_type {
            WireType::Varint => format!("varint {}", radix.num(raw)),
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

/// A frame's own tokens (header, CRCs, what follows the payload) with their meanings: the part
/// of the walkthrough that does not depend on the payload's decoding.
#[derive(Debug, Clone, Default)]
pub struct FrameTokens {
    /// Whether the frame has a complete header (else its bytes are one "trailing bytes" token).
    pub header: bool,
    /// The payload length the header declares.
    pub length: Option<u64>,
    /// Before the payload.
    pub head: Vec<(Token, String)>,
    /// A payload that was not decoded: one token.
    pub undecoded: Option<(Token, String)>,
    /// After the payload.
    pub tail: Vec<(Token, String)>,
}

impl FrameTokens {
    /// The tokens of `frame` over the file bytes `data`; `decoded` says whether the payload will be
    /// annotated from a decoding (else it is one token).
    pub fn new<S: ByteSource + ?Sized>(data: &S, frame: &Frame, decoded: bool) -> FrameTokens {
        let mut own = FrameTokens::default();
        let offset = frame.offset.0;
        let mut site = 0u8;
        let mut plain = |start: u64, len: u64, role: Role, meaning: String| {
            site += 1;
            let token = Token {
                start,
                end: start + len,
                depth: 0,
                role,
                site: Site::Frame(site - 1),
            };
            (token, meaning)
        };
        let Some(header) = Header::read(data, FileOffset(offset)) else {
            let len = frame.region_end.0.saturating_sub(offset);
            own.head.push(plain(
                offset,
                len,
                Role::Unparsed,
                format!("{len} trailing bytes: too short for a frame header"),
            ));
            return own;
        };
        own.header = true;
        own.length = Some(header.length);
        own.head.push(plain(
            offset,
            8,
            Role::Frame,
            format!("length {} (u64 little-endian)", header.length),
        ));
        let (crc_role, crc_meaning) = length_crc_meaning(&header);
        own.head.push(plain(offset + 8, 4, crc_role, crc_meaning));
        let payload_start = offset + HEADER_LEN;
        match frame.payload_range() {
            Some(range) if !decoded => {
                let len = range.len();
                if len > 0 {
                    own.undecoded = Some(plain(
                        range.start.0,
                        len,
                        Role::Unparsed,
                        format!("payload, {len} bytes"),
                    ));
                }
            }
            Some(_) => {}
            None => {
                let len = frame.region_end.0.saturating_sub(payload_start);
                if len > 0 {
                    let what = cut_payload_meaning(&header, frame, len, data.len());
                    own.head
                        .push(plain(payload_start, len, Role::Unparsed, what));
                }
            }
        }
        if let Some((stored, computed)) = frame.data_crcs(data) {
            let footer = frame.payload_range().map_or(payload_start, |r| r.end.0);
            let (role, meaning) = payload_crc_meaning(stored, computed);
            own.tail.push(plain(footer, FOOTER_LEN, role, meaning));
            let after = footer + FOOTER_LEN;
            if frame.region_end.0 > after {
                let len = frame.region_end.0 - after;
                let what = skipped(len, frame.region_end.0, data.len());
                own.tail.push(plain(after, len, Role::Unparsed, what));
            }
        }
        own
    }

    /// Every token with its meaning, in file order (the payload's own tokens left out).
    pub fn iter(&self) -> impl Iterator<Item = &(Token, String)> {
        self.head.iter().chain(&self.undecoded).chain(&self.tail)
    }

    /// The token starting at `start`, with its meaning.
    pub fn starting_at(&self, start: u64) -> Option<&(Token, String)> {
        self.iter().find(|(t, _)| t.start == start)
    }
}

/// The meaning of a frame's length CRC: it matches, or the length cannot be trusted.
fn length_crc_meaning(header: &Header) -> (Role, String) {
    if header.crc_ok() {
        (
            Role::Frame,
            format!(
                "masked crc32c of the length: 0x{:08x}, matches",
                header.stored_length_crc
            ),
        )
    } else {
        (
            Role::BadCrc,
            format!(
                "masked crc32c of the length: stored 0x{:08x}, expected 0x{:08x}: MISMATCH, the length is not trustworthy",
                header.stored_length_crc, header.computed_length_crc
            ),
        )
    }
}

/// The meaning of the `len` bytes after a header that announces more than the frame's region
/// holds: what is there, and (if the header itself is sound) what the header announced.
fn cut_payload_meaning(header: &Header, frame: &Frame, len: u64, file_len: u64) -> String {
    if header.crc_ok() {
        let end = frame.region_end.0;
        let held = if end >= file_len {
            format!("the file's last {}", plural(len, "byte"))
        } else {
            format!(
                "{}, up to the next intact frame at byte {end}",
                plural(len, "byte")
            )
        };
        format!(
            "{held}, where the header announces a {}-byte payload and its 4-byte CRC",
            header.length
        )
    } else {
        skipped(len, frame.region_end.0, file_len)
    }
}

/// The meaning of a frame's payload CRC: it matches, or stored and expected differ.
fn payload_crc_meaning(stored: u32, computed: u32) -> (Role, String) {
    if stored == computed {
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
    }
}

/// A frame's tokens: its own bytes and its payload's.
#[derive(Debug, Clone)]
pub struct Annotated<'a> {
    own: std::borrow::Cow<'a, FrameTokens>,
    payload: Option<PayloadTokens<'a>>,
}

impl<'a> Annotated<'a> {
    /// The tokens of `frame` over the file bytes `data`, its payload read as `decoded`.
    pub fn new<S: ByteSource + ?Sized>(
        data: &'a S,
        frame: &Frame,
        decoded: Option<&'a Decoded>,
        table: &'a Table,
    ) -> Annotated<'a> {
        let own = FrameTokens::new(data, frame, decoded.is_some());
        Annotated::with(std::borrow::Cow::Owned(own), data, frame, decoded, table)
    }

    /// [`Annotated::new`] with the frame's own tokens already made.
    pub fn with<S: ByteSource + ?Sized>(
        own: std::borrow::Cow<'a, FrameTokens>,
        data: &'a S,
        frame: &Frame,
        decoded: Option<&'a Decoded>,
        table: &'a Table,
    ) -> Annotated<'a> {
        let payload = match (frame.payload_range(), decoded) {
            (Some(range), Some(decoded)) => {
                let bytes = frame.payload(data).unwrap_or_default();
                Some(PayloadTokens::new(decoded, bytes, table, range.start.0))
            }
            _ => None,
        };
        Annotated { own, payload }
    }

    /// The tokens of a payload standing alone ([`PayloadTokens::standalone`]), with no frame
    /// around it: offsets count from its first byte.
    pub fn of_payload(payload: &'a [u8], decoded: &'a Decoded, table: &'a Table) -> Annotated<'a> {
        Annotated {
            own: std::borrow::Cow::Owned(FrameTokens::default()),
            payload: Some(PayloadTokens::standalone(decoded, payload, table)),
        }
    }

    /// Where the frame's bytes after its payload start (the payload's CRC), when it has them.
    pub fn trailer_start(&self) -> Option<u64> {
        self.own.tail.first().map(|(t, _)| t.start)
    }

    /// The payload's tokens, when it was decoded.
    pub fn payload(&self) -> Option<&PayloadTokens<'a>> {
        self.payload.as_ref()
    }

    /// The token holding file byte `offset`.
    pub fn token_at(&self, offset: u64) -> Option<Token> {
        let own = self
            .own
            .iter()
            .find(|(t, _)| t.start <= offset && offset < t.end);
        if let Some((token, _)) = own {
            return Some(*token);
        }
        self.payload.as_ref()?.token_at(offset)
    }

    /// The token after `token`.
    pub fn next_token(&self, token: &Token) -> Option<Token> {
        let follows = matches!(
            token.site,
            Site::Element(_) | Site::StringLength { .. } | Site::StringData { .. }
        );
        if let (Some(payload), true) = (&self.payload, follows) {
            if let Some(next) = payload.next_token(token) {
                return Some(next);
            }
        }
        self.token_at(token.end)
    }

    /// The tokens from the one holding `offset` on, in file order.
    pub fn tokens_from(&self, offset: u64) -> impl Iterator<Item = Token> + '_ {
        std::iter::successors(self.token_at(offset), |t| self.next_token(t))
    }

    /// Every token of the frame, in file order.
    pub fn tokens(&self) -> impl Iterator<Item = Token> + '_ {
        let first = self.own.iter().map(|(t, _)| t.start).min().or_else(|| {
            let payload = self.payload.as_ref()?;
            (!payload.bytes().is_empty()).then(|| payload.base())
        });
        first.into_iter().flat_map(|s| self.tokens_from(s))
    }

    /// What `token` means, in words.
    pub fn meaning(&self, token: &Token) -> String {
        self.meaning_in(token, Radix::Decimal)
    }

    /// What `token` means, its payload's numbers written in `radix`.
    pub fn meaning_in(&self, token: &Token, radix: Radix) -> String {
        if let (Site::Frame(0), true, Radix::Hex) = (token.site, self.own.header, radix) {
            if let Some(length) = self.own.length {
                return format!("length {} (u64 little-endian)", radix.num(length));
            }
        }
        if let Site::Frame(_) = token.site {
            return self
                .own
                .starting_at(token.start)
                .map_or_else(String::new, |(_, m)| m.clone());
        }
        self.payload
            .as_ref()
            .map_or_else(String::new, |p| p.meaning_in(token, radix))
    }
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
