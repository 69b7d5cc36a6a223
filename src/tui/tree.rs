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

use crate::annotate::Token;
use crate::example;
use crate::frame::{FOOTER_LEN, Frame, HEADER_LEN, Header};
use crate::payload::Decoded;
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
    /// The file bytes this node covers.
    pub range: Range<u64>,
    /// Indices of the wire fields from the payload root (as in [`Token::path`]).
    pub path: Vec<usize>,
    /// The file bytes of a bytes/string value, for previews and search.
    pub value: Option<Range<u64>>,
    /// True for bytes that are damaged or could not be parsed (drawn in red).
    pub damaged: bool,
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
            if node.range.contains(&offset)
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

/// Builds the tree of `frame`: header, payload (decoded when possible), footer, skipped bytes.
pub fn build(data: &[u8], frame: &Frame, decoded: Option<&Decoded<'_>>) -> Tree {
    let mut b = Builder {
        nodes: Vec::new(),
        payload: &[],
        base: 0,
        shape: None,
    };
    let offset = frame.offset.0;
    let region_end = frame.region_end.0.max(offset);
    match Header::read(data, offset) {
        None => {
            b.push(
                0,
                None,
                "trailing bytes",
                format!(
                    "{} bytes, too short for a frame header",
                    region_end - offset
                ),
                offset..region_end,
                Vec::new(),
            );
            b.mark_damaged();
        }
        Some(header) => {
            let crc = if header.crc_ok() { "ok" } else { "MISMATCH" };
            let h = b.push(
                0,
                None,
                "header",
                format!("length {}, length crc {crc}", header.length),
                offset..offset + HEADER_LEN,
                Vec::new(),
            );
            b.push(
                1,
                Some(h),
                "length",
                format!("{} (u64 little-endian)", header.length),
                offset..offset + 8,
                Vec::new(),
            );
            let crc_node = b.push(
                1,
                Some(h),
                "length crc",
                format!("0x{:08x} stored, {crc}", header.stored_length_crc),
                offset + 8..offset + HEADER_LEN,
                Vec::new(),
            );
            if !header.crc_ok() {
                b.mark(h);
                b.mark(crc_node);
            }
            b.body(data, frame, decoded, region_end);
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

pub(super) struct Builder<'a> {
    pub(super) nodes: Vec<Node>,
    pub(super) payload: &'a [u8],
    /// File offset of payload position 0.
    base: u64,
    pub(super) shape: Option<(u32, u32, u32)>,
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
            path,
            value: None,
            damaged: false,
        });
        self.nodes.len() - 1
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

    fn body(&mut self, data: &'a [u8], frame: &Frame, decoded: Option<&Decoded<'a>>, end: u64) {
        let offset = frame.offset.0;
        let payload_start = offset + HEADER_LEN;
        let Some(range) = frame.payload_range() else {
            if end > payload_start {
                let what = if frame.status.length_crc_ok() == Some(true) {
                    "bytes until the end of the file (the frame does not fit)"
                } else {
                    "bytes skipped until the next intact frame"
                };
                self.push(
                    0,
                    None,
                    "unreadable",
                    format!("{} {what}", end - payload_start),
                    payload_start..end,
                    Vec::new(),
                );
                self.mark_damaged();
            }
            return;
        };
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
        if let Some(decoded) = decoded {
            self.payload = decoded.payload;
            self.base = range.start;
            if let Some(typed) = decoded.typed() {
                self.shape = example::declared_shape(&example::top_features(&typed));
            }
            let structured =
                decoded.kind.is_typed() || decoded.kind == crate::payload::PayloadKind::Protobuf;
            if structured {
                self.message(&decoded.tree, 1, p, &mut Vec::new());
            } else if len > 0 {
                let bytes = decoded.payload;
                let i = self.push(
                    1,
                    Some(p),
                    "data",
                    crate::image::describe_bytes(bytes, false),
                    range.clone(),
                    Vec::new(),
                );
                if let Some(n) = self.nodes.get_mut(i) {
                    n.value = Some(range.clone());
                }
            }
        }
        if let Some((stored, computed)) = frame.data_crcs(data) {
            let ok = stored == computed;
            let detail = if ok {
                format!("payload crc 0x{stored:08x}, ok")
            } else {
                format!("payload crc 0x{stored:08x} stored, 0x{computed:08x} computed: MISMATCH")
            };
            let f = self.push(
                0,
                None,
                "footer",
                detail,
                range.end..range.end + FOOTER_LEN,
                Vec::new(),
            );
            if !ok {
                self.mark(f);
                self.mark(p);
            }
            let after = range.end + FOOTER_LEN;
            if end > after {
                self.push(
                    0,
                    None,
                    "skipped",
                    format!("{} bytes hold no intact frame", end - after),
                    after..end,
                    Vec::new(),
                );
                self.mark_damaged();
            }
        }
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
                    Some("Features") => {
                        let n = self.push(
                            depth,
                            Some(parent),
                            label,
                            String::new(),
                            range,
                            path.clone(),
                        );
                        let count = self.features(message, depth + 1, n, path);
                        self.set_detail(n, format!("{count} features"));
                    }
                    Some("FeatureLists") => {
                        let n = self.push(
                            depth,
                            Some(parent),
                            label,
                            String::new(),
                            range,
                            path.clone(),
                        );
                        let count = self.feature_lists(message, depth + 1, n, path);
                        self.set_detail(n, format!("{count} feature lists"));
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

fn scalar_text(kind: Option<&Kind>, raw: u64, width: usize) -> String {
    match kind.and_then(|k| crate::decode::Scalar::from_raw(k, raw)) {
        Some(scalar) => crate::textformat::scalar_text(&scalar),
        None if width == 4 => format!("0x{raw:08x}"),
        None if width == 8 => format!("0x{raw:016x}"),
        None => raw.to_string(),
    }
}
