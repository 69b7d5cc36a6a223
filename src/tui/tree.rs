//! The tree pane's model: one frame as a tree of nodes, each owning a byte range of the file.
//!
//! The tree is built from the wire tree the decoder produced (never from a second parse), so every
//! node knows its file byte range and the wire path that annotate tokens carry: that is what lets the
//! tree and the hex pane select each other. `Features` and `FeatureLists` messages are shown the way
//! people think of an Example (feature name → kind → values); any other message is shown field by
//! field. The tree is flat (pre-order, with depths), and long lists stop at [`LIST_LIMIT`] items
//! followed by one "… N more" node that owns the remaining bytes.

use std::ops::Range;

use prost_reflect::Kind;

use crate::annotate::{Role, Token};
use crate::damage;
use crate::example;
use crate::frame::{Frame, HEADER_LEN, Header};
use crate::payload::{Decoded, PayloadKind};
use crate::span::Span;
use crate::wire::{self, Field, Value};

/// Items of one list shown before the rest is summarised as "… N more".
pub const LIST_LIMIT: usize = 64;

/// One row of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub depth: usize,
    pub parent: Option<usize>,
    /// Feature or field name, or `[i]` for list items.
    pub label: String,
    /// What the node holds, in a few words.
    pub detail: String,
    /// The file bytes this node covers (the first part, when it has several).
    pub range: Range<u64>,
    /// Further parts: the other wire occurrences protobuf merged into this node's value.
    pub more_ranges: Vec<Range<u64>>,
    /// Indices of the wire fields from the payload root (as in [`Token::path`]).
    pub path: Vec<usize>,
    /// The file bytes of a bytes/string value, for previews and search.
    pub value: Option<Range<u64>>,
    /// True for bytes that are damaged or could not be parsed (drawn in red).
    pub damaged: bool,
}

impl Node {
    /// Whether file byte `offset` lies in one of the node's parts.
    pub fn covers(&self, offset: u64) -> bool {
        self.range.contains(&offset) || self.more_ranges.iter().any(|r| r.contains(&offset))
    }

    /// Every part of the node's bytes.
    pub fn ranges(&self) -> impl Iterator<Item = &Range<u64>> {
        std::iter::once(&self.range).chain(&self.more_ranges)
    }
}

/// A frame as a flat pre-order tree with expansion state.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub expanded: Vec<bool>,
    /// Image shape declared by sibling features (height, width, depth), for raw pixel values.
    pub declared_shape: Option<(u32, u32, u32)>,
}

impl Tree {
    /// Whether node `i` has children (the next node is deeper).
    pub fn has_children(&self, i: usize) -> bool {
        match (self.nodes.get(i), self.nodes.get(i + 1)) {
            (Some(a), Some(b)) => b.depth > a.depth,
            _ => false,
        }
    }

    /// Indices of the rows shown, in order: nodes whose ancestors are all expanded.
    pub fn visible(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut hide_deeper_than: Option<usize> = None;
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some(d) = hide_deeper_than {
                if node.depth > d {
                    continue;
                }
                hide_deeper_than = None;
            }
            out.push(i);
            if !self.expanded.get(i).copied().unwrap_or(false) && self.has_children(i) {
                hide_deeper_than = Some(node.depth);
            }
        }
        out
    }

    /// Ancestors of node `i`, nearest first.
    pub fn ancestors(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.nodes.get(i).and_then(|n| n.parent);
        while let Some(p) = at {
            out.push(p);
            at = self.nodes.get(p).and_then(|n| n.parent);
        }
        out
    }

    /// Expands every ancestor of `i` so that it is visible.
    pub fn reveal(&mut self, i: usize) {
        for a in self.ancestors(i) {
            if let Some(e) = self.expanded.get_mut(a) {
                *e = true;
            }
        }
    }

    pub fn set_expanded(&mut self, i: usize, on: bool) {
        if let Some(e) = self.expanded.get_mut(i) {
            *e = on;
        }
    }

    pub fn is_expanded(&self, i: usize) -> bool {
        self.expanded.get(i).copied().unwrap_or(false)
    }

    /// The deepest node whose range contains file byte `offset`.
    pub fn owner_of(&self, offset: u64) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, node) in self.nodes.iter().enumerate() {
            if node.covers(offset)
                && best
                    .and_then(|b| self.nodes.get(b))
                    .is_none_or(|b| node.depth >= b.depth)
            {
                best = Some(i);
            }
        }
        best
    }

    /// The node matching an annotate token: the deepest node containing its first byte.
    pub fn node_of_token(&self, token: &Token) -> Option<usize> {
        self.owner_of(token.start)
    }
}

/// Builds the tree of `frame`: a damage summary when it is damaged, header, payload (decoded when
/// possible), footer, skipped bytes.
///
/// The frame's own bytes (header, CRCs, skipped bytes) are worded by the annotate `tokens` of the
/// frame, and the summary by [`damage::describe`], so the tree says what `hex` and `verify` say.
pub fn build<'d>(
    data: &[u8],
    frame: &Frame,
    decoded: Option<&'d Decoded<'d>>,
    tokens: &[Token],
    is_last: bool,
) -> Tree {
    let mut b: Builder<'d> = Builder {
        nodes: Vec::new(),
        payload: &[],
        base: 0,
        shape: None,
        root: None,
    };
    let offset = frame.offset.0;
    let region_end = frame.region_end.0.max(offset);
    // Depth-0 tokens with empty paths outside the payload are the frame's own bytes.
    let payload = frame.payload_range();
    let payload = &payload;
    let frame_token = |start: u64| {
        tokens.iter().find(|t| {
            t.start == start
                && t.depth == 0
                && t.path.is_empty()
                && matches!(t.role, Role::Frame | Role::BadCrc | Role::Unparsed)
                && !payload
                    .as_ref()
                    .is_some_and(|p| p.contains(&t.start) && t.end <= p.end)
        })
    };
    if !frame.status.is_intact() {
        let summary = damage::describe(frame, data, is_last);
        b.push(
            0,
            None,
            DAMAGE_LABEL,
            summary,
            offset..region_end,
            Vec::new(),
        );
        b.mark_damaged();
    }
    let token_node =
        |b: &mut Builder<'_>, depth: usize, parent: Option<usize>, label: &str, t: &Token| {
            let n = b.push(
                depth,
                parent,
                label,
                t.meaning.clone(),
                t.start..t.end,
                Vec::new(),
            );
            if t.role != Role::Frame {
                b.mark(n);
            }
            n
        };
    if Header::read(data, offset).is_none() {
        if let Some(t) = frame_token(offset) {
            token_node(&mut b, 0, None, "trailing bytes", t);
        }
    } else {
        let length = frame_token(offset);
        let crc = frame_token(offset + 8);
        // The header's line says what is wrong with it, or else what it declares.
        let detail = match (length, crc) {
            (_, Some(c)) if c.role == Role::BadCrc => c.meaning.clone(),
            (Some(l), _) => l.meaning.clone(),
            _ => String::new(),
        };
        let h = b.push(
            0,
            None,
            "header",
            detail,
            offset..offset + HEADER_LEN,
            Vec::new(),
        );
        if let Some(t) = length {
            token_node(&mut b, 1, Some(h), "length", t);
        }
        if let Some(t) = crc {
            token_node(&mut b, 1, Some(h), "length crc", t);
            if t.role == Role::BadCrc {
                b.mark(h);
            }
        }
        let p = b.body(frame, decoded);
        let footer_at = payload.as_ref().map(|r| r.end);
        let footer = footer_at.and_then(|at| frame_token(at).filter(|t| t.role != Role::Unparsed));
        if let Some(t) = footer {
            token_node(&mut b, 0, None, "footer", t);
            if t.role == Role::BadCrc {
                if let Some(p) = p {
                    b.mark(p);
                }
            }
        }
        let skipped_at = match (footer, &payload) {
            (Some(f), _) => Some(f.end),
            (None, None) => Some(offset + HEADER_LEN),
            (None, Some(_)) => None,
        };
        if let Some(t) = skipped_at.and_then(frame_token) {
            let label = if payload.is_some() {
                "skipped"
            } else {
                "unreadable"
            };
            token_node(&mut b, 0, None, label, t);
        }
    }
    let n = b.nodes.len();
    // Open what a reader wants to see first: the record and its features, not every value.
    let expanded = b
        .nodes
        .iter()
        .map(|node| node.depth < 2 && node.label != "header")
        .collect::<Vec<_>>();
    debug_assert_eq!(expanded.len(), n);
    Tree {
        nodes: b.nodes,
        expanded,
        declared_shape: b.shape,
    }
}

/// The label of the first node of a damaged frame, which says what is wrong with it.
pub const DAMAGE_LABEL: &str = "damaged";

pub(super) struct Builder<'a> {
    pub(super) nodes: Vec<Node>,
    pub(super) payload: &'a [u8],
    /// File offset of payload position 0.
    base: u64,
    pub(super) shape: Option<(u32, u32, u32)>,
    /// The payload's wire tree, to give typed nodes the wire path of their bytes.
    root: Option<&'a wire::Message>,
}

impl<'a> Builder<'a> {
    pub(super) fn push(
        &mut self,
        depth: usize,
        parent: Option<usize>,
        label: impl Into<String>,
        detail: String,
        range: Range<u64>,
        path: Vec<usize>,
    ) -> usize {
        self.nodes.push(Node {
            depth,
            parent,
            label: label.into(),
            detail,
            range,
            more_ranges: Vec::new(),
            path,
            value: None,
            damaged: false,
        });
        self.nodes.len() - 1
    }

    /// Pushes a node owning the payload `spans` (several when protobuf merged wire occurrences),
    /// with the wire path of the first.
    pub(super) fn push_spans(
        &mut self,
        depth: usize,
        parent: usize,
        label: impl Into<String>,
        detail: String,
        spans: &[Span],
    ) -> usize {
        let first = spans.first().copied().unwrap_or_default();
        let path = self.root.map(|r| wire_path(r, first)).unwrap_or_default();
        let range = self.file(first);
        let n = self.push(depth, Some(parent), label, detail, range, path);
        let more: Vec<Range<u64>> = spans.iter().skip(1).map(|s| self.file(*s)).collect();
        if let Some(node) = self.nodes.get_mut(n) {
            node.more_ranges = more;
        }
        n
    }

    pub(super) fn mark(&mut self, i: usize) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.damaged = true;
        }
    }

    pub(super) fn mark_damaged(&mut self) {
        let last = self.nodes.len().saturating_sub(1);
        self.mark(last);
    }

    pub(super) fn file(&self, span: Span) -> Range<u64> {
        self.base + span.start as u64..self.base + span.end as u64
    }

    /// The payload node and what it holds; returns the payload node, if the frame has a payload.
    fn body(&mut self, frame: &Frame, decoded: Option<&'a Decoded<'a>>) -> Option<usize> {
        let range = frame.payload_range()?;
        let len = range.end - range.start;
        let kind = decoded.map_or("payload", |d| d.kind.name());
        let p = self.push(
            0,
            None,
            kind.to_string(),
            format!("{len} bytes"),
            range.clone(),
            Vec::new(),
        );
        let Some(decoded) = decoded else {
            return Some(p);
        };
        self.payload = decoded.payload;
        self.base = range.start;
        self.root = decoded.structure().or(Some(&decoded.tree));
        let typed = decoded.typed();
        if let Some(typed) = &typed {
            self.shape = example::declared_shape(&example::top_features(typed));
        }
        match (&decoded.kind, &typed) {
            (PayloadKind::Example | PayloadKind::SequenceExample, Some(typed)) => {
                self.example(typed, &decoded.tree, 1, p);
            }
            (_, _) if decoded.structure().is_some() => {
                if let Some(structure) = decoded.structure() {
                    self.message(structure, 1, p, &mut Vec::new());
                }
            }
            _ if len > 0 => {
                let i = self.push(
                    1,
                    Some(p),
                    "data",
                    crate::image::describe_bytes(decoded.payload, false),
                    range.clone(),
                    Vec::new(),
                );
                if let Some(n) = self.nodes.get_mut(i) {
                    n.value = Some(range.clone());
                }
            }
            _ => {}
        }
        Some(p)
    }

    /// A field protobuf does not know (no descriptor), as a wire field at index `i`.
    pub(super) fn unknown_field(&mut self, field: &Field, depth: usize, parent: usize, i: usize) {
        self.field(field, depth, parent, &mut vec![i]);
    }

    fn message(
        &mut self,
        message: &wire::Message,
        depth: usize,
        parent: usize,
        path: &mut Vec<usize>,
    ) {
        for (i, field) in message.fields.iter().enumerate() {
            path.push(i);
            self.field(field, depth, parent, path);
            path.pop();
        }
        if let Some(error) = &message.error {
            let range = self.file(Span::new(error.at.min(message.span.end), message.span.end));
            self.push(
                depth,
                Some(parent),
                "invalid",
                error.to_string(),
                range,
                path.clone(),
            );
            self.mark_damaged();
        }
    }

    fn field(&mut self, field: &Field, depth: usize, parent: usize, path: &mut Vec<usize>) {
        let label = field
            .name()
            .map_or_else(|| format!("#{}", field.number), str::to_string);
        let range = self.file(field.span);
        let kind = field.descriptor.as_ref().map(|d| d.kind());
        match &field.value {
            Value::Message { message, .. } => {
                let type_name = message.descriptor.as_ref().map(|d| d.name().to_string());
                match type_name.as_deref() {
                    // Feature containers inside other messages are shown through the typed layer.
                    Some(container @ ("Features" | "FeatureLists")) => {
                        let n = self.push(
                            depth,
                            Some(parent),
                            label,
                            String::new(),
                            range,
                            path.clone(),
                        );
                        let detail = if container == "Features" {
                            let count = self.nested_features(message, depth + 1, n);
                            crate::words::plural(count as u64, "feature")
                        } else {
                            let count = self.nested_feature_lists(message, depth + 1, n);
                            crate::words::plural(count as u64, "feature list")
                        };
                        self.set_detail(n, detail);
                    }
                    _ => {
                        let what = type_name.unwrap_or_else(|| "message".into());
                        let detail = format!("{what}, {} fields", message.fields.len());
                        let n = self.push(depth, Some(parent), label, detail, range, path.clone());
                        self.message(message, depth + 1, n, path);
                    }
                }
            }
            Value::Group { message, .. } => {
                let detail = format!("group, {} fields", message.fields.len());
                let n = self.push(depth, Some(parent), label, detail, range, path.clone());
                self.message(message, depth + 1, n, path);
            }
            Value::Bytes { data, .. } => {
                let bytes = data.slice(self.payload).unwrap_or_default();
                let is_string = kind == Some(Kind::String);
                let detail = crate::image::describe_bytes(bytes, is_string);
                let n = self.push(depth, Some(parent), label, detail, range, path.clone());
                let value = self.file(*data);
                if let Some(node) = self.nodes.get_mut(n) {
                    node.value = Some(value);
                }
            }
            Value::Packed {
                elements, error, ..
            } => {
                let detail = format!("packed, {} values", elements.len());
                let n = self.push(depth, Some(parent), label, detail, range, path.clone());
                let items: Vec<(Span, String)> = elements
                    .iter()
                    .map(|e| (e.span, scalar_text(kind.as_ref(), e.raw, e.span.len())))
                    .collect();
                self.items(&items, depth + 1, n, path);
                if let Some(error) = error {
                    let r = self.file(Span::new(error.at.min(field.span.end), field.span.end));
                    self.push(
                        depth + 1,
                        Some(n),
                        "invalid",
                        error.to_string(),
                        r,
                        path.clone(),
                    );
                    self.mark_damaged();
                }
            }
            Value::Varint { span, raw } | Value::Fixed64 { span, raw } => {
                let detail = scalar_text(kind.as_ref(), *raw, span.len());
                self.push(depth, Some(parent), label, detail, range, path.clone());
            }
            Value::Fixed32 { span, raw } => {
                let detail = scalar_text(kind.as_ref(), u64::from(*raw), span.len());
                self.push(depth, Some(parent), label, detail, range, path.clone());
            }
        }
    }

    pub(super) fn set_detail(&mut self, i: usize, detail: String) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.detail = detail;
        }
    }

    /// List items as `[i]` nodes, the ones past [`LIST_LIMIT`] folded into one "… N more" node.
    pub(super) fn items(
        &mut self,
        items: &[(Span, String)],
        depth: usize,
        parent: usize,
        path: &[usize],
    ) {
        for (i, (span, text)) in items.iter().take(LIST_LIMIT).enumerate() {
            let range = self.file(*span);
            self.push(
                depth,
                Some(parent),
                format!("[{i}]"),
                text.clone(),
                range,
                path.to_vec(),
            );
        }
        if let (Some(first), Some(last)) = (items.get(LIST_LIMIT), items.last()) {
            let range = self.file(Span::new(first.0.start, last.0.end.max(first.0.start)));
            let more = items.len() - LIST_LIMIT;
            self.push(
                depth,
                Some(parent),
                format!("… {more} more"),
                String::new(),
                range,
                path.to_vec(),
            );
        }
    }
}

/// Indices of the wire fields leading to the field whose bytes are `target` (or the deepest one
/// holding them), as annotate tokens carry them.
fn wire_path(root: &wire::Message, target: Span) -> Vec<usize> {
    let mut path = Vec::new();
    let mut message = root;
    loop {
        let inside = message
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.span.start <= target.start && target.end <= f.span.end);
        let Some((i, field)) = inside else {
            return path;
        };
        path.push(i);
        match field.nested_message() {
            Some(nested) if field.span != target => message = nested,
            _ => return path,
        }
    }
}

fn scalar_text(kind: Option<&Kind>, raw: u64, width: usize) -> String {
    match kind.and_then(|k| crate::decode::Scalar::from_raw(k, raw)) {
        Some(scalar) => crate::textformat::scalar_text(&scalar),
        None if width == 4 => format!("0x{raw:08x}"),
        None if width == 8 => format!("0x{raw:016x}"),
        None => raw.to_string(),
    }
}
