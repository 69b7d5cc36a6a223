//! The walk itself: one pass over the bytes that pushes a node per field occurrence.
//!
//! Containers are walked recursively (depth bounded by [`MAX_DEPTH`]); a container's node is
//! pushed before its fields and closed after them, which is what keeps the arena in pre-order.
//! Length-delimited data of an unknown field is tried as a message and rolled back to bytes if it
//! does not parse cleanly, so a failed guess leaves neither nodes nor errors behind.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{
    HAS_ERROR, MAX_DEPTH, MAX_TAG_OR_LENGTH_BYTES, NONE, Node, NodeKind, ROOT, WireError,
    WireErrorKind, WireTree, WireType, read_varint, whole_varints,
};
use crate::schema::table::{Kind, MessageId, Reading, Table, Tags};
use crate::span::Span;

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
    let mut nodes = super::arena::take();
    if nodes.try_reserve(bytes.len() / 3 + 1).is_err() {
        nodes = Vec::new();
    }
    let mut walker = Walker {
        bytes,
        table,
        nodes,
        errors: Vec::new(),
        not_utf8: None,
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
        not_utf8: walker.not_utf8,
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
    /// The first node of a string that must be UTF-8 and is not (see [`WireTree`]).
    not_utf8: Option<u32>,
}

/// Whether a body is a group of no known type, which Python's protobuf (upb) skips more leniently
/// than it parses messages: there a one-byte tag of field number 0 (`00`, `01`, `02`, `03`,
/// `05`) is read as a field like any other, while a longer encoding of it, and field 0 anywhere
/// else, make the payload invalid.
fn skipped_group(terminator: Terminator, message: Option<MessageId>) -> bool {
    matches!(terminator, Terminator::EndGroup(_)) && message.is_none()
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

/// A body's walk stopped by an error at `at`: the rest of its region, to `end`, is not walked.
fn stopped(end: usize, at: usize, kind: WireErrorKind) -> Walked {
    Walked {
        body_end: end,
        next: end,
        error: Some(WireError { at, kind }),
    }
}

/// Where a body that meets an end-group tag of field `number` (at `tag`) ends: there, when it is
/// the group that tag closes; otherwise the tag is an error.
fn end_group(terminator: Terminator, number: u32, tag: Span, end: usize) -> Walked {
    match terminator {
        Terminator::EndGroup(open) if open == number => Walked {
            body_end: tag.start,
            next: tag.end,
            error: None,
        },
        Terminator::EndGroup(open) => stopped(
            end,
            tag.start,
            WireErrorKind::MismatchedEndGroup {
                expected: open,
                found: number,
            },
        ),
        Terminator::RegionEnd => stopped(
            end,
            tag.start,
            WireErrorKind::UnexpectedEndGroup { field: number },
        ),
    }
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
        let stop = |at: usize, kind| stopped(end, at, kind);
        if depth > MAX_DEPTH {
            return stop(start, WireErrorKind::TooDeep);
        }
        let tags = message.and_then(|m| self.table.tags_of(m));
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
            let (tag, after_tag) = match self.tag(pos, end) {
                Ok(read) => read,
                Err(kind) => return stop(tag_start, kind),
            };
            let number = (tag >> 3) as u32;
            let Some(wire_type) = WireType::from_bits(tag & 7) else {
                return stop(tag_start, WireErrorKind::InvalidWireType((tag & 7) as u8));
            };
            let one_byte_tag = after_tag - tag_start == 1;
            if number == 0 && !(one_byte_tag && skipped_group(terminator, message)) {
                return stop(tag_start, WireErrorKind::FieldNumberZero);
            }
            let tag_span = Span::new(tag_start, after_tag);
            if wire_type == WireType::EndGroup {
                return end_group(terminator, number, tag_span, end);
            }
            match self.field(container, tags, tag, wire_type, tag_span, end, depth) {
                Ok(next) => pos = next,
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

    /// Reads the tag at `pos`: its value and the position after it.
    #[inline]
    fn tag(&self, pos: usize, end: usize) -> Result<(u64, usize), WireErrorKind> {
        // Fields 1 to 15 have one-byte tags, which can be neither too long nor too large.
        match self.bytes.get(pos) {
            Some(&byte) if byte < 0x80 => Ok((u64::from(byte), pos + 1)),
            _ => match read_varint(self.bytes, pos, end) {
                Ok((_, after)) if after - pos > MAX_TAG_OR_LENGTH_BYTES => {
                    Err(WireErrorKind::TagTooLong)
                }
                Ok((tag, _)) if tag > u64::from(u32::MAX) => Err(WireErrorKind::TagTooLarge),
                read => read,
            },
        }
    }

    /// Walks the value of the field whose tag (`tag`, at `tag_span`) was just read, as a child
    /// of `container`; returns the position after it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn field(
        &mut self,
        container: usize,
        tags: Option<Tags<'_>>,
        tag: u64,
        wire_type: WireType,
        tag_span: Span,
        end: usize,
        depth: usize,
    ) -> Result<usize, WireErrorKind> {
        let number = (tag >> 3) as u32;
        // Looked up once here: the value's reading and a packed run's check both need it.
        let found = tags.and_then(|t| t.field(number, wire_type));
        let field = found.map(|(id, _)| id);
        let info = found.map(|(_, info)| info);
        let head = Node {
            start: tag_span.start as u32,
            end: tag_span.end as u32,
            next: 0,
            parent: container as u32,
            tag: tag as u32,
            field: field.map_or(NONE, |f| f.0),
            kind: NodeKind::Varint,
            tag_len: tag_span.len() as u8,
            extra_len: 0,
            flags: 0,
        };
        match self.value(head, info, tag_span.end, end, wire_type, depth)? {
            (Read::Leaf(kind, value_end, prefix), _) => {
                // A leaf has no subtree: its end is the next index, known before the push.
                let at = self.push(Node {
                    end: value_end as u32,
                    next: self.nodes.len() as u32 + 1,
                    kind,
                    extra_len: prefix,
                    ..head
                });
                if kind == NodeKind::Packed {
                    self.check_packed(at, number, info);
                }
                Ok(value_end)
            }
            (Read::Pushed, next) => Ok(next),
        }
    }

    /// Checks that packed run `at` of field `info` holds whole elements.
    fn check_packed(&mut self, at: usize, number: u32, info: Option<Reading>) {
        let Some(node) = self.nodes.get(at) else {
            return;
        };
        let data = node.data_span();
        let width = info.and_then(|f| f.kind.fixed_width());
        let pos = match width {
            // Whole elements fit up to the last multiple of the width.
            Some(width) => data.start + data.len() / width * width,
            None => {
                data.start + whole_varints(self.bytes.get(data.start..data.end).unwrap_or_default())
            }
        };
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
        info: Option<Reading>,
        pos: usize,
        end: usize,
        wire_type: WireType,
        depth: usize,
    ) -> Result<(Read, usize), WireErrorKind> {
        let number = head.number();
        // Called for the fixed-width wire types only, which have a width.
        let fixed = |kind: NodeKind| {
            let width = wire_type.fixed_width().unwrap_or_default();
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
            WireType::I64 => fixed(NodeKind::Fixed64),
            WireType::I32 => fixed(NodeKind::Fixed32),
            WireType::EndGroup => Err(WireErrorKind::UnexpectedEndGroup { field: number }),
            WireType::StartGroup => {
                let group_type = info.and_then(|f| f.kind.message());
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
                if data_start - pos > MAX_TAG_OR_LENGTH_BYTES {
                    return Err(WireErrorKind::LengthTooLong { field: number });
                }
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
                Ok((
                    self.length_delimited(head, info, prefix, data, depth),
                    data.end,
                ))
            }
        }
    }

    fn length_delimited(
        &mut self,
        head: Node,
        info: Option<Reading>,
        prefix: u8,
        data: Span,
        depth: usize,
    ) -> Read {
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
            Some((Kind::String | Kind::Bytes, _)) => {
                // The leaf is pushed next, at the end of the arena.
                let text = self.bytes.get(data.start..data.end).unwrap_or_default();
                let must_be_utf8 = info.is_some_and(|f| f.utf8);
                // Names and labels are nearly always ASCII, which a quicker test settles.
                if must_be_utf8
                    && self.not_utf8.is_none()
                    && !text.is_ascii()
                    && std::str::from_utf8(text).is_err()
                {
                    self.not_utf8 = Some(self.nodes.len() as u32);
                }
                leaf(NodeKind::Bytes)
            }
            Some((_, true)) => leaf(NodeKind::Packed),
            _ => {
                // Unknown field: a message if it parses cleanly (as protoc --decode_raw decides);
                // below the nesting limit the walk of its body fails, and it stays bytes.
                if data.is_empty() {
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
