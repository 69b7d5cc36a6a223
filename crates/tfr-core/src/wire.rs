//! The wire walker: protobuf bytes in, a flat tree of byte ranges out.
//!
//! Every byte of a payload ends up in exactly one token of this tree: a tag, a varint, a length
//! prefix, a fixed-width value, the data of a length-delimited field, or the region after the point
//! where the walk found invalid data. The hex annotation, the inspector's tree and the text and
//! JSON outputs are all views of this one tree, so they cannot disagree about where a field lives.
//!
//! The tree is an arena ([`WireTree`]): one 28-byte [`Node`] per field occurrence, in pre-order
//! (which is also file order), each knowing its parent and the index just past its subtree, so a
//! view skips siblings in O(1) and finds the node under a byte by binary search. Values are not
//! stored: they are read again from the bytes when asked for, and a packed run of ten million
//! floats is one node whose elements are iterated on demand.
//!
//! A schema [`Table`], when given, decides how length-delimited data is read (nested message,
//! packed numbers, or string/bytes) and names the fields. Without one, or for fields it does not
//! know, the walker does what `protoc --decode_raw` does: non-empty data that parses cleanly as a
//! message is shown as one, anything else as bytes.
//!
//! Invalid data stops the walk of the message it is in, never of its parent: the parent carries on
//! after the length-delimited region, and the error records the payload position it arose at.

use std::fmt;

use crate::schema::table::{FieldId, Kind, MessageId, Table};
use crate::span::Span;

/// Nesting deeper than this is reported instead of followed (protobuf's own default limit).
pub const MAX_DEPTH: usize = 100;

pub use crate::wire_type::WireType;

/// Why a walk stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireErrorKind {
    TruncatedVarint,
    VarintTooLong,
    TagTooLarge,
    /// A tag in more than [`MAX_TAG_OR_LENGTH_BYTES`] bytes: protobuf's parsers reject it even
    /// when the extra bytes are zero padding.
    TagTooLong,
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
    /// A length prefix in more than [`MAX_TAG_OR_LENGTH_BYTES`] bytes, rejected like
    /// [`WireErrorKind::TagTooLong`].
    LengthTooLong {
        field: u32,
    },
    TooDeep,
    /// A payload too large for 32-bit positions (protobuf caps messages at 2 GiB).
    TooLarge {
        length: u64,
    },
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
            TagTooLong => write!(
                f,
                "tag encoded in more than {MAX_TAG_OR_LENGTH_BYTES} bytes (protobuf parsers reject it)"
            ),
            LengthTooLong { field } => write!(
                f,
                "length of field {field} encoded in more than {MAX_TAG_OR_LENGTH_BYTES} bytes (protobuf parsers reject it)"
            ),
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
            TooLarge { length } => write!(
                f,
                "{length} bytes is more than protobuf parses as one message (2 GiB)"
            ),
        }
    }
}

/// What a node holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum NodeKind {
    /// The payload itself, or length-delimited data read as its declared message type (map entries
    /// included).
    Message,
    /// Length-delimited data of an unknown field that parses cleanly as a message.
    Guessed,
    /// Fields between a start-group tag and its end-group tag.
    Group,
    /// String or bytes data, or length-delimited data that is not a message.
    Bytes,
    /// Packed repeated numbers (one node for the whole run).
    Packed,
    Varint,
    Fixed32,
    Fixed64,
}

impl NodeKind {
    /// Whether the node holds fields of its own.
    pub fn is_container(self) -> bool {
        matches!(
            self,
            NodeKind::Message | NodeKind::Guessed | NodeKind::Group
        )
    }
}

const NONE: u32 = u32::MAX;
const HAS_ERROR: u8 = 1;

/// One field occurrence (or the payload itself, at index 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// The tag's first byte.
    start: u32,
    /// Just past the value (past the end-group tag for a group).
    end: u32,
    /// The index just past this node's subtree.
    next: u32,
    parent: u32,
    tag: u32,
    field: u32,
    kind: NodeKind,
    tag_len: u8,
    /// The length prefix of a length-delimited field, or the end-group tag of a group.
    extra_len: u8,
    flags: u8,
}

impl Node {
    /// The tag through the end of the value.
    pub fn span(&self) -> Span {
        Span::new(self.start as usize, self.end as usize)
    }

    pub fn start(&self) -> usize {
        self.start as usize
    }

    pub fn end(&self) -> usize {
        self.end as usize
    }

    pub fn tag_span(&self) -> Span {
        Span::new(self.start(), self.start() + usize::from(self.tag_len))
    }

    /// The length prefix of a length-delimited field.
    pub fn prefix_span(&self) -> Option<Span> {
        let has_prefix = !matches!(
            self.kind,
            NodeKind::Group | NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64
        ) && self.tag != 0;
        has_prefix.then(|| {
            let at = self.tag_span().end;
            Span::new(at, at + usize::from(self.extra_len))
        })
    }

    /// The value's bytes: after the tag and any length prefix; a group's fields; the whole payload
    /// for the root.
    pub fn data_span(&self) -> Span {
        let after_tag = self.tag_span().end;
        match self.kind {
            NodeKind::Group => Span::new(
                after_tag,
                self.end()
                    .saturating_sub(usize::from(self.extra_len))
                    .max(after_tag),
            ),
            NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                Span::new(after_tag, self.end())
            }
            _ => Span::new(after_tag + usize::from(self.extra_len), self.end()),
        }
    }

    /// A group's end-group tag, when it has one.
    pub fn end_tag_span(&self) -> Option<Span> {
        (self.kind == NodeKind::Group && self.extra_len > 0)
            .then(|| Span::new(self.end() - usize::from(self.extra_len), self.end()))
    }

    pub fn number(&self) -> u32 {
        self.tag >> 3
    }

    pub fn wire_type(&self) -> WireType {
        WireType::from_bits(u64::from(self.tag & 7)).unwrap_or(WireType::Len)
    }

    /// The schema's field for this occurrence, when the message type declares its number with
    /// this wire type.
    pub fn field(&self) -> Option<FieldId> {
        (self.field != NONE).then_some(FieldId(self.field))
    }

    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    /// The index just past this node's subtree (its next sibling, when it has one).
    pub fn next(&self) -> usize {
        self.next as usize
    }

    /// The message, group or root holding this node.
    pub fn parent(&self) -> Option<usize> {
        (self.parent != NONE).then_some(self.parent as usize)
    }

    /// Whether the walk of this container (or packed run) stopped at invalid data.
    pub fn has_error(&self) -> bool {
        self.flags & HAS_ERROR != 0
    }
}

/// A walked payload: its nodes in pre-order (index 0 is the payload itself) and the errors that
/// stopped the walk of some of them.
#[derive(Debug, Clone, Default)]
pub struct WireTree {
    nodes: Vec<Node>,
    /// By node index.
    errors: Vec<(u32, WireError)>,
    root_type: Option<MessageId>,
    /// The first node, in pre-order, of a string that must be UTF-8 (a proto3 `string`) and is
    /// not: found as the walk reads the field, so that judging the payload needs no second pass.
    not_utf8: Option<u32>,
}

impl Drop for WireTree {
    fn drop(&mut self) {
        arena::give_back(std::mem::take(&mut self.nodes));
    }
}

/// The root node's index.
pub const ROOT: usize = 0;

impl WireTree {
    /// The message type the payload was walked as, if any.
    pub fn root_type(&self) -> Option<MessageId> {
        self.root_type
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, i: usize) -> Option<&Node> {
        self.nodes.get(i)
    }

    /// The fields of container `i`, in wire order.
    pub fn children(&self, i: usize) -> Children<'_> {
        let end = self.node(i).map_or(0, |n| n.next());
        Children {
            tree: self,
            at: i + 1,
            end,
        }
    }

    /// The error that stopped the walk of node `i`.
    pub fn error_of(&self, i: usize) -> Option<&WireError> {
        let at = self
            .errors
            .binary_search_by_key(&(i as u32), |(n, _)| *n)
            .ok()?;
        self.errors.get(at).map(|(_, e)| e)
    }

    /// Every error, with the node it stopped.
    pub fn errors(&self) -> impl Iterator<Item = (usize, &WireError)> {
        self.errors.iter().map(|(n, e)| (*n as usize, e))
    }

    /// True when the payload and everything inside it walked without error.
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }

    /// The first node, in pre-order, of a string field that must be UTF-8 and is not.
    pub fn first_not_utf8(&self) -> Option<usize> {
        self.not_utf8.map(|i| i as usize)
    }

    /// The first wire error anywhere in the tree, by payload position.
    pub fn first_error(&self) -> Option<&WireError> {
        self.errors.iter().map(|(_, e)| e).min_by_key(|e| e.at)
    }

    /// The message type of container `i`: the root's type, or its field's message type.
    pub fn message_type(&self, i: usize, table: &Table) -> Option<MessageId> {
        if i == ROOT {
            return self.root_type;
        }
        let node = self.node(i)?;
        match node.kind {
            NodeKind::Message | NodeKind::Group => table.message_of(node.field()?),
            _ => None,
        }
    }

    /// The deepest node whose bytes hold payload position `pos`.
    pub fn node_at(&self, pos: usize) -> Option<usize> {
        let pos = u32::try_from(pos).ok()?;
        let mut at = self
            .nodes
            .partition_point(|n| n.start <= pos)
            .checked_sub(1)?;
        loop {
            let node = self.nodes.get(at)?;
            if node.start <= pos && pos < node.end {
                return Some(at);
            }
            at = node.parent()?;
        }
    }

    /// How deep node `i` is: 0 for the root and its direct fields' containers.
    pub fn depth(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut at = self.node(i).and_then(Node::parent);
        while let Some(p) = at {
            depth += 1;
            at = self.node(p).and_then(Node::parent);
        }
        depth.saturating_sub(1)
    }

    /// The raw number a scalar node holds, read again from `bytes`.
    pub fn scalar(&self, i: usize, bytes: &[u8]) -> Option<u64> {
        let node = self.node(i)?;
        let data = node.data_span();
        match node.kind {
            NodeKind::Varint => read_varint(bytes, data.start, data.end)
                .ok()
                .map(|(v, _)| v),
            NodeKind::Fixed32 | NodeKind::Fixed64 => Some(fixed_le(data.slice(bytes)?)),
            _ => None,
        }
    }

    /// The numbers of packed run `i`, read from `bytes` as `kind` lays them out; stops before the
    /// point where the run breaks (see [`WireTree::error_of`]).
    pub fn elements<'a>(&self, i: usize, bytes: &'a [u8], kind: Kind) -> Elements<'a> {
        let data = self.node(i).map_or(Span::default(), Node::data_span);
        Elements {
            bytes,
            at: data.start,
            end: data.end,
            width: kind.fixed_width(),
        }
    }
}

/// The fields of one container, in wire order.
#[derive(Debug, Clone)]
pub struct Children<'a> {
    tree: &'a WireTree,
    at: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.at >= self.end {
            return None;
        }
        let at = self.at;
        self.at = self
            .tree
            .node(at)
            .map_or(self.end, |n| n.next().max(at + 1));
        Some(at)
    }
}

/// The numbers of a packed run, each with its bytes.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    bytes: &'a [u8],
    at: usize,
    end: usize,
    width: Option<usize>,
}

impl Elements<'_> {
    /// The payload position of the next element.
    pub fn position(&self) -> usize {
        self.at
    }

    /// Continues from payload position `at` (an element boundary found earlier).
    pub fn resume(mut self, at: usize) -> Self {
        self.at = at.max(self.at).min(self.end);
        self
    }
}

impl Iterator for Elements<'_> {
    type Item = (Span, u64);

    #[inline]
    fn next(&mut self) -> Option<(Span, u64)> {
        let next = read_element(self.bytes, self.at, self.end, self.width)?;
        let span = Span::new(self.at, next.1);
        self.at = next.1;
        Some((span, next.0))
    }
}

/// One packed element at `at` (a fixed-width number of `width` bytes, or a varint): its value and
/// the position after it.
#[inline]
pub fn read_element(
    bytes: &[u8],
    at: usize,
    end: usize,
    width: Option<usize>,
) -> Option<(u64, usize)> {
    if at >= end {
        return None;
    }
    match width {
        Some(w) => {
            let slice = bytes
                .get(at..at.checked_add(w)?)
                .filter(|_| at + w <= end)?;
            Some((fixed_le(slice), at + w))
        }
        None => read_varint(bytes, at, end).ok(),
    }
}

#[inline]
pub(crate) fn fixed_le(bytes: &[u8]) -> u64 {
    // The two widths protobuf has, read directly: a copy of a variable length is a call to
    // memcpy for every element of a packed run.
    if let Ok(four) = <[u8; 4]>::try_from(bytes) {
        return u64::from(u32::from_le_bytes(four));
    }
    if let Ok(eight) = <[u8; 8]>::try_from(bytes) {
        return u64::from_le_bytes(eight);
    }
    let mut raw = [0u8; 8];
    for (slot, byte) in raw.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    u64::from_le_bytes(raw)
}

/// How many of `run`'s first bytes are whole varints, one after another: up to the end of the
/// last varint that ends inside `run` and takes at most ten bytes (as [`read_varint`] reads them
/// one by one). Packed runs are checked with it for every record: a varint ends at a byte below
/// `0x80`, which finding needs no value decoded.
pub(crate) fn whole_varints(run: &[u8]) -> usize {
    let mut whole = 0;
    // Bytes of the varint being read so far.
    let mut pending = 0;
    for &byte in run {
        pending += 1;
        if byte < 0x80 {
            whole += pending;
            pending = 0;
        } else if pending == 10 {
            break;
        }
    }
    whole
}

/// The most bytes a tag or a length prefix may take: both are 32-bit values, and protobuf's
/// parsers (upb, which Python uses; the C++ parser) refuse a longer encoding, padded or not.
pub const MAX_TAG_OR_LENGTH_BYTES: usize = 5;

/// Reads a varint at `pos` (not beyond `end`): the value and the position after it.
#[inline]
pub fn read_varint(bytes: &[u8], pos: usize, end: usize) -> Result<(u64, usize), WireErrorKind> {
    // Most tags, lengths and small numbers are one byte; most other lengths two (up to 16 KiB).
    if pos < end {
        if let Some(&byte) = bytes.get(pos) {
            if byte < 0x80 {
                return Ok((u64::from(byte), pos + 1));
            }
            if let Some(&next) = bytes.get(pos + 1).filter(|_| pos + 1 < end) {
                if next < 0x80 {
                    return Ok((u64::from(byte & 0x7f) | u64::from(next) << 7, pos + 2));
                }
            }
        }
    }
    read_long_varint(bytes, pos, end)
}

fn read_long_varint(bytes: &[u8], pos: usize, end: usize) -> Result<(u64, usize), WireErrorKind> {
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

mod arena;
mod walk;

pub use walk::{Progress, walk, walk_observed};

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::schema::Schema;

    fn kinds(tree: &WireTree, container: usize) -> Vec<NodeKind> {
        tree.children(container)
            .map(|c| tree.node(c).unwrap().kind())
            .collect()
    }

    #[test]
    fn nodes_stay_small() {
        assert!(std::mem::size_of::<Node>() <= 28);
    }

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

    /// Where reading varints one after another from the start of `run` stops.
    fn varints_read_end(run: &[u8]) -> usize {
        let mut pos = 0;
        while let Ok((_, after)) = read_varint(run, pos, run.len()) {
            pos = after;
        }
        pos
    }

    #[test]
    fn whole_varints_end_where_reading_them_one_by_one_stops() {
        assert_eq!(whole_varints(&[]), 0);
        assert_eq!(whole_varints(&[0x01, 0x96, 0x01, 0x80]), 3);
        // Ten bytes is the longest varint; an eleventh stops the run at its start.
        let mut run = vec![0x05];
        run.extend([0xff; 9]);
        run.push(0x01);
        assert_eq!(whole_varints(&run), 11);
        run.truncate(1);
        run.extend([0xff; 10]);
        run.push(0x01);
        assert_eq!(whole_varints(&run), 1);
        assert_eq!(varints_read_end(&run), 1);
    }

    use proptest::strategy::Just;

    proptest::proptest! {
        /// The one- and two-byte shortcuts read as the general loop does, up to any end.
        #[test]
        fn varint_shortcuts_read_as_the_loop_does(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
            end in 0usize..14,
        ) {
            let read = read_varint(&bytes, 0, end);
            proptest::prop_assert_eq!(read, read_long_varint(&bytes, 0, end));
        }

        #[test]
        fn whole_varints_agree_with_read_varint(
            run in proptest::collection::vec(
                // Runs of 0xff make varints of ten bytes and more.
                proptest::prop_oneof![0x00u8..0x80, 0x80u8..=0xff, Just(0xff)],
                0..64,
            )
        ) {
            proptest::prop_assert_eq!(whole_varints(&run), varints_read_end(&run));
        }
    }

    #[test]
    fn field_zero_is_read_only_inside_a_skipped_group_and_only_as_one_byte() {
        // Python's protobuf accepts each of these as an Example (checked against protobuf 7.36):
        // a group of field 1 (not a group in Example, so skipped) holding field-0 tags.
        let schema = Schema::builtin();
        let example = |bytes: &[u8]| {
            let tree = walk(bytes, schema.table(), schema.message("tensorflow.Example"));
            tree.is_clean()
        };
        assert!(example(&[0x0b, 0x00, 0x00, 0x0c]));
        assert!(example(&[0x0b, 0x02, 0x00, 0x0c]));
        assert!(example(&[0x0b, 0x05, 0, 0, 0, 0, 0x0c]));
        assert!(
            example(&[0x0b, 0x03, 0x04, 0x0c]),
            "a group of field 0 inside"
        );
        assert!(
            example(&[0x0a, 0x04, 0x0b, 0x00, 0x12, 0x0c]),
            "inside Features"
        );
        // ...and rejects these.
        assert!(!example(&[0x00, 0x00]), "field 0 outside a group");
        assert!(
            !example(&[0x0b, 0x80, 0x00, 0x00, 0x0c]),
            "a two-byte tag of field 0"
        );
        assert!(
            !example(&[0x0b, 0x00, 0x0c]),
            "0c is the value of field 0, the group is open"
        );
        assert!(
            !example(&[0x0b, 0x04, 0x0c]),
            "end of group 0 inside group 1"
        );
    }

    #[test]
    fn schemaless_walk_finds_nested_messages_and_strings() {
        // 1: { 1: "ab" }, 2: 150, 3: fixed32
        let bytes = [
            0x0a, 0x04, 0x0a, 0x02, b'a', b'b', 0x10, 0x96, 0x01, 0x1d, 1, 0, 0, 0,
        ];
        let table = Table::default();
        let tree = walk(&bytes, &table, None);
        assert!(tree.is_clean());
        assert_eq!(
            kinds(&tree, ROOT),
            [NodeKind::Guessed, NodeKind::Varint, NodeKind::Fixed32]
        );
        let nested: Vec<usize> = tree.children(ROOT).collect();
        let guessed = tree.node(nested[0]).unwrap();
        assert_eq!(guessed.data_span(), Span::new(2, 6));
        assert_eq!(guessed.prefix_span(), Some(Span::new(1, 2)));
        let inner = tree.children(nested[0]).next().unwrap();
        assert_eq!(tree.node(inner).unwrap().data_span(), Span::new(4, 6));
        assert_eq!(tree.scalar(nested[1], &bytes), Some(150));
        assert_eq!(tree.scalar(nested[2], &bytes), Some(1));
        assert_eq!(tree.node_at(5), Some(inner));
        assert_eq!(tree.node_at(7), Some(nested[1]));
        assert_eq!(tree.depth(inner), 1);
        assert_eq!(tree.node_at(14), None);
    }

    #[test]
    fn invalid_data_stops_only_the_affected_message() {
        // field 1 holds a message claiming 9 bytes it doesn't have, field 2 follows intact
        let schema = Schema::builtin();
        let bytes = [0x0a, 0x03, 0x0a, 0x09, 0x00, 0x12, 0x00];
        let sequence = schema.message("tensorflow.SequenceExample");
        let tree = walk(&bytes, schema.table(), sequence);
        let fields: Vec<usize> = tree.children(ROOT).collect();
        assert_eq!(fields.len(), 2);
        assert!(tree.error_of(ROOT).is_none());
        let error = tree.error_of(fields[0]).unwrap();
        assert!(tree.node(fields[0]).unwrap().has_error());
        assert_eq!(error.at, 2);
        assert!(matches!(
            error.kind,
            WireErrorKind::LengthPastEnd {
                field: 1,
                length: 9,
                available: 1
            }
        ));
        assert!(!tree.is_clean());
        assert_eq!(tree.first_error().unwrap().at, 2);
    }

    #[test]
    fn a_packed_run_is_one_node_read_on_demand() {
        let schema = Schema::builtin();
        let table = schema.table();
        let float_list = table.message_by_name("tensorflow.FloatList").unwrap();
        let mut bytes = vec![0x0a, 0x08];
        bytes.extend_from_slice(&1.5f32.to_le_bytes());
        bytes.extend_from_slice(&(-2.0f32).to_le_bytes());
        let tree = walk(&bytes, table, Some(float_list));
        assert_eq!(tree.len(), 2);
        let run = tree.children(ROOT).next().unwrap();
        assert_eq!(tree.node(run).unwrap().kind(), NodeKind::Packed);
        let elements: Vec<(Span, u64)> = tree.elements(run, &bytes, Kind::Float).collect();
        assert_eq!(elements.len(), 2);
        assert_eq!(f32::from_bits(elements[1].1 as u32), -2.0);
        assert_eq!(elements[1].0, Span::new(6, 10));
        // A run that ends mid-value keeps its whole elements and says where it broke.
        bytes[1] = 0x07;
        bytes.pop();
        let tree = walk(&bytes, table, Some(float_list));
        let run = tree.children(ROOT).next().unwrap();
        assert_eq!(tree.elements(run, &bytes, Kind::Float).count(), 1);
        assert_eq!(tree.error_of(run).unwrap().at, 6);
    }

    #[test]
    fn tags_and_lengths_longer_than_five_bytes_are_refused_as_protobuf_refuses_them() {
        let table = Table::default();
        // Field 1, LEN, 2 bytes "ab": the tag padded with zero groups to `n` bytes.
        let padded = |first: u8, n: usize| {
            let mut v = vec![first | 0x80];
            v.extend(std::iter::repeat_n(0x80, n - 2));
            v.push(0);
            v
        };
        let five = [padded(0x0a, 5), vec![2, b'a', b'b']].concat();
        assert!(walk(&five, &table, None).is_clean());
        let six = [padded(0x0a, 6), vec![2, b'a', b'b']].concat();
        assert_eq!(
            walk(&six, &table, None).error_of(ROOT),
            Some(&WireError {
                at: 0,
                kind: WireErrorKind::TagTooLong
            })
        );
        let five = [vec![0x0a], padded(2, 5), b"ab".to_vec()].concat();
        assert!(walk(&five, &table, None).is_clean());
        let six = [vec![0x0a], padded(2, 6), b"ab".to_vec()].concat();
        let tree = walk(&six, &table, None);
        assert_eq!(
            tree.first_error().map(|e| &e.kind),
            Some(&WireErrorKind::LengthTooLong { field: 1 })
        );
        // A value varint may still take ten bytes.
        let value = [vec![0x08], padded(1, 10)].concat();
        assert!(walk(&value, &table, None).is_clean());
    }

    #[test]
    fn a_tag_above_32_bits_is_too_large_unless_it_is_first_too_long() {
        let table = Table::default();
        let error = |bytes: &[u8]| walk(bytes, &table, None).error_of(ROOT).cloned();
        // 2^32 + 8 (field 2^29 + 1, varint) in five bytes: short enough, too large.
        let large = [0x88, 0x80, 0x80, 0x80, 0x10, 0x00];
        assert_eq!(
            error(&large),
            Some(WireError {
                at: 0,
                kind: WireErrorKind::TagTooLarge
            })
        );
        // The same value padded to six bytes is refused for its length first.
        let long_and_large = [0x88, 0x80, 0x80, 0x80, 0x90, 0x00, 0x00];
        assert_eq!(
            error(&long_and_large),
            Some(WireError {
                at: 0,
                kind: WireErrorKind::TagTooLong
            })
        );
        // A one-byte tag after a multi-byte one is read as usual.
        let mixed = [0x80, 0x01, 0x01, 0x08, 0x07];
        assert!(walk(&mixed, &table, None).is_clean());
    }

    #[test]
    fn groups_and_stray_end_groups() {
        let table = Table::default();
        let group = [0x0b, 0x10, 0x01, 0x0c, 0x18, 0x02];
        let tree = walk(&group, &table, None);
        assert!(tree.is_clean());
        let g = tree.children(ROOT).next().unwrap();
        let node = tree.node(g).unwrap();
        assert_eq!(node.end_tag_span(), Some(Span::new(3, 4)));
        assert_eq!(node.data_span(), Span::new(1, 3));
        let stray = walk(&[0x0c], &table, None);
        assert_eq!(
            stray.error_of(ROOT),
            Some(&WireError {
                at: 0,
                kind: WireErrorKind::UnexpectedEndGroup { field: 1 }
            })
        );
    }

    #[test]
    fn a_failed_guess_leaves_bytes_and_no_error() {
        let table = Table::default();
        // field 1 holds [0x0b] (an unterminated group): bytes, not a message
        let tree = walk(&[0x0a, 0x01, 0x0b, 0x10, 0x01], &table, None);
        assert!(tree.is_clean());
        assert_eq!(kinds(&tree, ROOT), [NodeKind::Bytes, NodeKind::Varint]);
        assert_eq!(tree.len(), 3);
    }

    /// `levels` messages in field 1 of each other, the innermost holding `inner`.
    fn nested(levels: usize, inner: &[u8]) -> Vec<u8> {
        let mut bytes = inner.to_vec();
        for _ in 0..levels {
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
        bytes
    }

    /// The nodes of `tree` in pre-order with their depth.
    fn depths(tree: &WireTree) -> Vec<(usize, &Node)> {
        (1..tree.len())
            .map(|i| (tree.depth(i), tree.node(i).unwrap()))
            .collect()
    }

    #[test]
    fn deep_nesting_is_bounded_without_a_schema() {
        // 200 levels of field 1, the innermost holding a varint field 2.
        let bytes = nested(200, &[0x10, 0x01]);
        let tree = walk(&bytes, &Table::default(), None);
        assert!(tree.is_clean());
        // Data is taken for a message only down to the limit; deeper, it is bytes.
        let nodes = depths(&tree);
        let guessed = nodes.iter().filter(|(_, n)| n.kind() == NodeKind::Guessed);
        assert_eq!(guessed.count(), MAX_DEPTH);
        let (depth, deepest) = nodes.last().unwrap();
        assert_eq!(*depth, MAX_DEPTH);
        assert_eq!(deepest.kind(), NodeKind::Bytes);
        assert_eq!(
            deepest.data_span().len(),
            nested(200 - MAX_DEPTH - 1, &[0x10, 0x01]).len()
        );
    }

    #[test]
    fn deep_nesting_of_a_recursive_type_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.proto");
        std::fs::write(
            &path,
            "syntax = \"proto3\"; package r; message R { R child = 1; }",
        )
        .unwrap();
        let schema = Schema::with_user_protos(&[path], Some("r.R")).unwrap();
        let bytes = nested(200, &[]);
        let tree = walk(&bytes, schema.table(), schema.user_message());
        // Messages are followed down to the limit; the one below reports the nesting.
        let error = tree.first_error().unwrap();
        assert_eq!(error.kind, WireErrorKind::TooDeep);
        let nodes = depths(&tree);
        assert_eq!(nodes.len(), MAX_DEPTH + 1);
        assert!(nodes.iter().all(|(_, n)| n.kind() == NodeKind::Message));
        let (_, deepest) = nodes.last().unwrap();
        assert_eq!(error.at, deepest.data_span().start);
        // Shallower recursion walks cleanly.
        assert!(
            walk(
                &nested(MAX_DEPTH, &[]),
                schema.table(),
                schema.user_message()
            )
            .is_clean()
        );
    }

    #[test]
    fn a_cancelled_walk_gives_up() {
        let bytes: Vec<u8> = std::iter::repeat_n([0x08, 0x01], 10_000)
            .flatten()
            .collect();
        let progress = Progress::default();
        progress.cancel.store(true, Ordering::Relaxed);
        assert!(walk_observed(&bytes, &Table::default(), None, Some(&progress)).is_none());
        let progress = Progress::default();
        let tree = walk_observed(&bytes, &Table::default(), None, Some(&progress)).unwrap();
        assert_eq!(tree.len(), 10_001);
        assert!(progress.walked.load(Ordering::Relaxed) > 0);
    }
}
