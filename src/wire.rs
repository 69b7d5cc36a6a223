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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::schema::table::{FieldId, Kind, MessageId, Table};
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

    fn next(&mut self) -> Option<(Span, u64)> {
        let next = read_element(self.bytes, self.at, self.end, self.width)?;
        let span = Span::new(self.at, next.1);
        self.at = next.1;
        Some((span, next.0))
    }
}

/// One packed element at `at`: its value and the position after it.
fn read_element(bytes: &[u8], at: usize, end: usize, width: Option<usize>) -> Option<(u64, usize)> {
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

fn fixed_le(bytes: &[u8]) -> u64 {
    let mut raw = [0u8; 8];
    for (slot, byte) in raw.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    u64::from_le_bytes(raw)
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

/// Lets another thread follow a long walk and stop it.
#[derive(Debug, Default)]
pub struct Progress {
    /// Payload bytes walked so far by the current walk.
    pub walked: AtomicU64,
    /// Set to make the walk give up.
    pub cancel: AtomicBool,
}

/// Nodes walked between two progress reports.
const REPORT_EVERY: u32 = 4096;

/// Walks `bytes` as a message of type `root` (or schema-less when `None`).
pub fn walk(bytes: &[u8], table: &Table, root: Option<MessageId>) -> WireTree {
    walk_observed(bytes, table, root, None).unwrap_or_default()
}

/// [`walk`], reporting progress to `progress` and giving up (`None`) when it is cancelled.
pub fn walk_observed(
    bytes: &[u8],
    table: &Table,
    root: Option<MessageId>,
    progress: Option<&Progress>,
) -> Option<WireTree> {
    // Room for as many nodes as the bytes could hold at three bytes a field, so that the arena is
    // not copied as it grows: pages never written stay virtual, costing no memory.
    let mut nodes = Vec::new();
    if nodes.try_reserve(bytes.len() / 3 + 1).is_err() {
        nodes = Vec::new();
    }
    let mut walker = Walker {
        bytes,
        table,
        nodes,
        errors: Vec::new(),
        progress,
        until_report: REPORT_EVERY,
        cancelled: false,
    };
    walker.nodes.push(Node {
        start: 0,
        end: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
        next: 1,
        parent: NONE,
        tag: 0,
        field: NONE,
        kind: NodeKind::Message,
        tag_len: 0,
        extra_len: 0,
        flags: 0,
    });
    if u32::try_from(bytes.len()).is_err() {
        let length = bytes.len() as u64;
        walker.fail(
            ROOT,
            WireError {
                at: 0,
                kind: WireErrorKind::TooLarge { length },
            },
        );
    } else {
        let walked = walker.body(ROOT, 0, bytes.len(), root, 0, Terminator::RegionEnd);
        walker.close(ROOT, walked.error, bytes.len());
    }
    if walker.cancelled {
        return None;
    }
    let mut errors = walker.errors;
    errors.sort_by_key(|(n, _)| *n);
    Some(WireTree {
        nodes: walker.nodes,
        errors,
        root_type: root,
    })
}

struct Walker<'a> {
    bytes: &'a [u8],
    table: &'a Table,
    nodes: Vec<Node>,
    errors: Vec<(u32, WireError)>,
    progress: Option<&'a Progress>,
    until_report: u32,
    cancelled: bool,
}

/// How a message body ends: at its region's end, or (for a group) at an end-group tag.
#[derive(Clone, Copy)]
enum Terminator {
    RegionEnd,
    EndGroup(u32),
}

/// Where a body's walk ended.
struct Walked {
    /// The end of the fields (the end-group tag's start, for a group).
    body_end: usize,
    /// The position after the body (after the end-group tag, for a group).
    next: usize,
    error: Option<WireError>,
}

/// How the value after a tag was read.
enum Read {
    /// A leaf node: its kind, end and length-prefix size.
    Leaf(NodeKind, usize, u8),
    /// A container already pushed and closed (its subtree included).
    Pushed,
}

impl Walker<'_> {
    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.until_report = self.until_report.saturating_sub(1);
        if self.until_report == 0 {
            self.until_report = REPORT_EVERY;
            if let Some(progress) = self.progress {
                progress
                    .walked
                    .store(u64::from(node.start), Ordering::Relaxed);
                self.cancelled |= progress.cancel.load(Ordering::Relaxed);
            }
        }
        self.nodes.len() - 1
    }

    fn fail(&mut self, node: usize, error: WireError) {
        if let Some(n) = self.nodes.get_mut(node) {
            n.flags |= HAS_ERROR;
        }
        self.errors.push((node as u32, error));
    }

    /// Records where container `node` ends and that its subtree is complete.
    fn close(&mut self, node: usize, error: Option<WireError>, end: usize) {
        let next = self.nodes.len() as u32;
        if let Some(n) = self.nodes.get_mut(node) {
            n.next = next;
            n.end = end as u32;
        }
        if let Some(error) = error {
            self.fail(node, error);
        }
    }

    /// Walks fields from `start` until `end` or the matching end-group tag, as children of
    /// `container`.
    fn body(
        &mut self,
        container: usize,
        start: usize,
        end: usize,
        message: Option<MessageId>,
        depth: usize,
        terminator: Terminator,
    ) -> Walked {
        let stop = |at: usize, kind| Walked {
            body_end: end,
            next: end,
            error: Some(WireError { at, kind }),
        };
        if depth > MAX_DEPTH {
            return stop(start, WireErrorKind::TooDeep);
        }
        let mut pos = start;
        while pos < end {
            if self.cancelled {
                return Walked {
                    body_end: end,
                    next: end,
                    error: None,
                };
            }
            let tag_start = pos;
            let (tag, after_tag) = match read_varint(self.bytes, pos, end) {
                Ok(v) => v,
                Err(kind) => return stop(tag_start, kind),
            };
            if tag > u64::from(u32::MAX) {
                return stop(tag_start, WireErrorKind::TagTooLarge);
            }
            let number = (tag >> 3) as u32;
            let Some(wire_type) = WireType::from_bits(tag & 7) else {
                return stop(tag_start, WireErrorKind::InvalidWireType((tag & 7) as u8));
            };
            if number == 0 {
                return stop(tag_start, WireErrorKind::FieldNumberZero);
            }
            if wire_type == WireType::EndGroup {
                return match terminator {
                    Terminator::EndGroup(open) if open == number => Walked {
                        body_end: tag_start,
                        next: after_tag,
                        error: None,
                    },
                    Terminator::EndGroup(open) => stop(
                        tag_start,
                        WireErrorKind::MismatchedEndGroup {
                            expected: open,
                            found: number,
                        },
                    ),
                    Terminator::RegionEnd => stop(
                        tag_start,
                        WireErrorKind::UnexpectedEndGroup { field: number },
                    ),
                };
            }
            let field = message
                .and_then(|m| self.table.field_by_number(m, number))
                .filter(|f| {
                    self.table
                        .field(*f)
                        .is_some_and(|info| info.accepts(wire_type))
                });
            let head = Node {
                start: tag_start as u32,
                end: after_tag as u32,
                next: 0,
                parent: container as u32,
                tag: tag as u32,
                field: field.map_or(NONE, |f| f.0),
                kind: NodeKind::Varint,
                tag_len: (after_tag - tag_start) as u8,
                extra_len: 0,
                flags: 0,
            };
            match self.value(head, after_tag, end, wire_type, depth) {
                Ok((Read::Leaf(kind, value_end, prefix), _)) => {
                    let at = self.push(Node {
                        end: value_end as u32,
                        kind,
                        extra_len: prefix,
                        ..head
                    });
                    self.close_leaf(at, number, kind);
                    pos = value_end;
                }
                Ok((Read::Pushed, next)) => pos = next,
                Err(kind) => return stop(tag_start, kind),
            }
        }
        match terminator {
            Terminator::RegionEnd => Walked {
                body_end: end,
                next: end,
                error: None,
            },
            Terminator::EndGroup(field) => stop(end, WireErrorKind::UnterminatedGroup { field }),
        }
    }

    /// Sets a leaf's subtree end and checks a packed run's elements.
    fn close_leaf(&mut self, at: usize, number: u32, kind: NodeKind) {
        let next = self.nodes.len() as u32;
        let Some(node) = self.nodes.get_mut(at) else {
            return;
        };
        node.next = next;
        if kind != NodeKind::Packed {
            return;
        }
        let data = node.data_span();
        let width = node
            .field()
            .and_then(|f| self.table.field(f))
            .and_then(|f| f.kind.fixed_width());
        let mut pos = data.start;
        while let Some((_, after)) = read_element(self.bytes, pos, data.end, width) {
            pos = after;
        }
        if pos < data.end {
            let error = WireError {
                at: pos,
                kind: WireErrorKind::PackedTruncated { field: number },
            };
            self.fail(at, error);
        }
    }

    /// Reads the value after a tag; returns how, and the position after it.
    fn value(
        &mut self,
        head: Node,
        pos: usize,
        end: usize,
        wire_type: WireType,
        depth: usize,
    ) -> Result<(Read, usize), WireErrorKind> {
        let number = head.number();
        let fixed = |width: usize, kind: NodeKind| {
            let available = end - pos;
            if available < width {
                return Err(WireErrorKind::TruncatedFixed {
                    field: number,
                    needed: width,
                    available,
                });
            }
            Ok((Read::Leaf(kind, pos + width, 0), pos + width))
        };
        match wire_type {
            WireType::Varint => {
                let (_, next) = read_varint(self.bytes, pos, end)?;
                Ok((Read::Leaf(NodeKind::Varint, next, 0), next))
            }
            WireType::I64 => fixed(8, NodeKind::Fixed64),
            WireType::I32 => fixed(4, NodeKind::Fixed32),
            WireType::EndGroup => Err(WireErrorKind::UnexpectedEndGroup { field: number }),
            WireType::StartGroup => {
                let group_type = head.field().and_then(|f| self.table.message_of(f));
                let at = self.push(Node {
                    kind: NodeKind::Group,
                    ..head
                });
                let walked = self.body(
                    at,
                    pos,
                    end,
                    group_type,
                    depth + 1,
                    Terminator::EndGroup(number),
                );
                let end_tag = if walked.error.is_none() {
                    (walked.next - walked.body_end) as u8
                } else {
                    0
                };
                if let Some(n) = self.nodes.get_mut(at) {
                    n.extra_len = end_tag;
                }
                self.close(at, walked.error, walked.next);
                Ok((Read::Pushed, walked.next))
            }
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
                let data = Span::new(data_start, data_start + length as usize);
                let prefix = (data_start - pos) as u8;
                Ok((self.length_delimited(head, prefix, data, depth), data.end))
            }
        }
    }

    fn length_delimited(&mut self, head: Node, prefix: u8, data: Span, depth: usize) -> Read {
        let info = head.field().and_then(|f| self.table.field(f));
        let leaf = |kind| Read::Leaf(kind, data.end, prefix);
        match info.map(|f| (f.kind, f.packable)) {
            Some((Kind::Message(message), _)) => {
                let at = self.push(Node {
                    kind: NodeKind::Message,
                    extra_len: prefix,
                    ..head
                });
                let walked = self.body(
                    at,
                    data.start,
                    data.end,
                    Some(message),
                    depth + 1,
                    Terminator::RegionEnd,
                );
                self.close(at, walked.error, data.end);
                Read::Pushed
            }
            Some((Kind::String | Kind::Bytes, _)) => leaf(NodeKind::Bytes),
            Some((_, true)) => leaf(NodeKind::Packed),
            _ => {
                // Unknown field: a message if it parses cleanly (as protoc --decode_raw decides).
                if data.is_empty() || depth >= MAX_DEPTH {
                    return leaf(NodeKind::Bytes);
                }
                let at = self.push(Node {
                    kind: NodeKind::Guessed,
                    extra_len: prefix,
                    ..head
                });
                let errors = self.errors.len();
                let walked = self.body(
                    at,
                    data.start,
                    data.end,
                    None,
                    depth + 1,
                    Terminator::RegionEnd,
                );
                if walked.error.is_none() && self.groups_clean(at) {
                    self.close(at, None, data.end);
                } else {
                    self.nodes.truncate(at + 1);
                    self.errors.truncate(errors);
                    if let Some(n) = self.nodes.get_mut(at) {
                        n.kind = NodeKind::Bytes;
                        n.end = data.end as u32;
                        n.next = (at + 1) as u32;
                    }
                }
                Read::Pushed
            }
        }
    }

    /// Whether the groups directly inside container `at` (and the groups inside those) closed
    /// properly: a detected message only counts as one if they did.
    fn groups_clean(&self, at: usize) -> bool {
        let end = self.nodes.len();
        let mut child = at + 1;
        while child < end {
            let Some(node) = self.nodes.get(child) else {
                return true;
            };
            if node.kind == NodeKind::Group && (node.has_error() || !self.groups_clean(child)) {
                return false;
            }
            child = node.next().max(child + 1);
        }
        true
    }
}

#[cfg(test)]
mod tests {
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
        let tree = walk(&bytes, schema.table(), Some(schema.sequence_example()));
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
        let tree = walk(&bytes, &Table::default(), None);
        assert!(tree.is_clean()); // the deepest detected level falls back to bytes
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
