//! The tree pane's model: one frame as a tree of rows, each owning a byte range of the file.
//!
//! Rows are made from the decoder's views (never from a second parse), so every row knows its
//! file bytes, which is what lets the tree and the hex pane select each other. `Features` and
//! `FeatureLists` messages are shown the way people think of an Example (feature name → kind →
//! values); any other message is shown field by field.
//!
//! The tree is built lazily: a row's children are made when it is expanded (or when the hex cursor
//! goes inside it), and long lists come in pages followed by one "… N more" row that loads the
//! next page. Opening a record of a million features therefore makes a few hundred rows, and each
//! row is made in constant time from the wire tree (the byte ranges come from its nodes, with no
//! search among siblings).

use std::ops::Range;
use std::sync::Arc;
use tfr_core::dataset::features::FeatureSpecs;

use tfr_core::annotate::{FrameTokens, Role, Token};
use tfr_core::bytes::ByteSource;
use tfr_core::decode::{MapEntry, Parsed};
use tfr_core::decode::{Nodes, ValuesAt};
use tfr_core::frame::{Frame, HEADER_LEN};
use tfr_core::payload::{Decoded, TreeRow};
use tfr_core::schema::table::{FieldId, Table};
use tfr_core::span::{FileOffset, FileRange, Span};
use tfr_core::wire::{ROOT, WireTree};

/// Values (and steps) of one list shown before the rest is summarised as "… N more".
pub const LIST_LIMIT: usize = 64;
/// Features, feature lists and message fields shown per page.
pub const FIELD_PAGE: usize = 256;

mod wire_rows;

/// A decoded record, shared by the tree and the hex pane.
#[derive(Debug)]
pub struct Record {
    pub decoded: Decoded,
    pub table: Arc<Table>,
    /// The payload's file bytes.
    pub payload: Range<u64>,
    /// The features of the tensorflow-datasets dataset the file belongs to, which word its
    /// feature rows.
    pub specs: Option<Arc<FeatureSpecs>>,
}

impl Record {
    /// The payload's bytes within the file bytes `data`.
    pub fn bytes<'a>(&self, data: &'a dyn ByteSource) -> &'a [u8] {
        let range = FileRange::new(FileOffset(self.payload.start), FileOffset(self.payload.end));
        data.read(range).unwrap_or_default()
    }

    /// The wire tree the rows show: the walk as the expected type when it failed part way.
    pub fn tree(&self) -> &WireTree {
        self.decoded.structure().unwrap_or(&self.decoded.tree)
    }
}

/// How a row's children are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Source {
    /// The fields of wire container `container`, from child node `from` on.
    Wire { container: u32, from: u32 },
    /// The rows the payload's type opens it with ([`tfr_core::payload::PayloadType::tree_rows`]).
    TypeRows,
    /// Features (or feature lists, with `lists`) in name order, from the `from`-th on.
    Named {
        field: FieldId,
        sorted: Arc<[MapEntry]>,
        from: usize,
        lists: bool,
    },
    /// A page of the values of a feature's list.
    Values(Page),
    /// A page of the steps of a feature list.
    Steps(Page),
    /// The numbers of packed run `node`, from element `from` (at payload position `at`) on.
    Packed { node: u32, from: usize, at: u32 },
    /// The strings a string tensor's `tensor_content` (wire node `node`) lists, from the
    /// `from`-th on (the row of their lengths first).
    Strings { node: u32, from: u64 },
    /// What the payload's type reads in wire node `node` (the nodes of a `graph_def`).
    Reading { node: u32 },
    /// The rows of the payload found inside a bytes value (see [`tfr_core::payload::inner`]):
    /// scope `scope` of the tree.
    Inner { scope: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Children {
    None,
    Later(Source),
    Built(Vec<usize>),
}

/// One row of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub depth: usize,
    pub parent: Option<usize>,
    /// Feature or field name (escaped for the terminal), or `[i]` for list items.
    pub label: String,
    /// What the row holds, in a few words.
    pub detail: String,
    /// The file bytes this row covers (the first part, when it has several).
    pub range: Range<u64>,
    /// Further parts: the other wire occurrences protobuf merged into this row's value.
    pub more_ranges: Vec<Range<u64>>,
    /// The wire tree node whose bytes the row shows, for rows of one field occurrence.
    pub wire: Option<u32>,
    /// The file bytes of a bytes/string value, for previews and search.
    pub value: Option<Range<u64>>,
    /// True for bytes that are damaged or could not be parsed (drawn in red).
    pub damaged: bool,
    /// A "… N more" row, standing for items not made yet.
    pub more: bool,
    /// Which payload the row's wire nodes and spans belong to: 0 for the record's, else a
    /// payload inside a bytes value ([`Tree::scopes`]).
    pub(super) scope: u32,
    expanded: bool,
    pub(super) children: Children,
}

impl Node {
    pub(super) fn new(
        depth: usize,
        parent: Option<usize>,
        label: impl Into<String>,
        range: Range<u64>,
    ) -> Node {
        Node {
            depth,
            parent,
            label: label.into(),
            detail: String::new(),
            range,
            more_ranges: Vec::new(),
            wire: None,
            value: None,
            damaged: false,
            more: false,
            scope: 0,
            expanded: false,
            children: Children::None,
        }
    }

    /// Whether file byte `offset` lies in one of the row's parts.
    pub fn covers(&self, offset: u64) -> bool {
        self.range.contains(&offset) || self.more_ranges.iter().any(|r| r.contains(&offset))
    }

    /// Every part of the row's bytes.
    pub fn ranges(&self) -> impl Iterator<Item = &Range<u64>> {
        std::iter::once(&self.range).chain(&self.more_ranges)
    }
}

/// A frame as a tree of rows with expansion state.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Every row made so far (rows replaced by a page load stay, detached).
    pub nodes: Vec<Node>,
    roots: Vec<usize>,
    /// Image shape declared by sibling features (height, width, depth), for raw pixel values.
    pub declared_shape: Option<(u32, u32, u32)>,
    record: Option<Arc<Record>>,
    /// Rows made plus wire nodes and map entries read to make them: what building cost.
    pub(super) work: u64,
    /// The byte ranges of the payload type's image candidates, then of the bytes values met so
    /// far, in the order met (for the image preview).
    values: Vec<Range<u64>>,
    /// The payloads found inside bytes values so far; scope `n` is `scopes[n - 1]`.
    scopes: Vec<Arc<Scope>>,
    /// The scope rows are being made in (set while a row's children are made).
    making: u32,
}

/// A payload inside a bytes value, whose rows are made from its own walk.
#[derive(Debug)]
pub(super) struct Scope {
    pub(super) decoded: Decoded,
    /// Its file bytes.
    pub(super) payload: Range<u64>,
    /// How many bytes values it lies inside.
    pub(super) depth: usize,
}

/// The label of the first row of a damaged frame, which says what is wrong with it.
pub const DAMAGE_LABEL: &str = "damaged";

/// What a tree is built from besides the frame: its own tokens, what is wrong with it, and the
/// decoded payload with its bytes.
pub struct Parts<'a> {
    pub own: &'a FrameTokens,
    pub damage: Option<String>,
    pub record: Option<(Arc<Record>, &'a [u8])>,
}

impl Tree {
    /// Builds the tree of `frame`: a damage summary when it is damaged, header, payload (decoded
    /// when possible), footer, skipped bytes. The frame's own rows are worded by its annotate
    /// tokens, so the tree says what `hex` and `verify` say.
    pub fn build(frame: &Frame, parts: Parts<'_>) -> Tree {
        let mut tree = Tree::default();
        let offset = frame.offset.0;
        let region_end = frame.region_end.0.max(offset);
        let payload = frame.payload_range().map(Range::from);
        let own = parts.own;
        let frame_token = |start: u64| {
            own.iter().find(|(t, _)| {
                t.start == start
                    && !payload
                        .as_ref()
                        .is_some_and(|p| p.contains(&t.start) && t.end <= p.end)
            })
        };
        if let Some(summary) = parts.damage {
            let n = tree.push(Node::new(0, None, DAMAGE_LABEL, offset..region_end));
            tree.set_detail(n, summary);
            tree.mark(n);
        }
        if !own.header {
            if let Some((t, meaning)) = frame_token(offset) {
                tree.token_row(None, "trailing bytes", t, meaning);
            }
            tree.open_defaults(None);
            return tree;
        }
        let length = frame_token(offset);
        let crc = frame_token(offset + 8);
        // The header's line says what is wrong with it, or else what it declares.
        let detail = match (length, crc) {
            (_, Some((c, m))) if c.role == Role::BadCrc => m.clone(),
            (Some((_, m)), _) => m.clone(),
            _ => String::new(),
        };
        let h = tree.push(Node::new(0, None, "header", offset..offset + HEADER_LEN));
        tree.set_detail(h, detail);
        if let Some((t, m)) = length {
            tree.token_row(Some(h), "length", t, m);
        }
        if let Some((t, m)) = crc {
            tree.token_row(Some(h), "length crc", t, m);
            if t.role == Role::BadCrc {
                tree.mark(h);
            }
        }
        let bytes = parts.record.as_ref().map(|(_, b)| *b);
        let p = payload
            .clone()
            .map(|range| tree.payload_row(range, parts.record));
        let footer = payload
            .as_ref()
            .and_then(|r| frame_token(r.end))
            .filter(|(t, _)| t.role != Role::Unparsed);
        if let Some((t, m)) = footer {
            tree.token_row(None, "footer", t, m);
            if let (Role::BadCrc, Some(p)) = (t.role, p) {
                tree.mark(p);
            }
        }
        let skipped_at = match (footer, &payload) {
            (Some((f, _)), _) => Some(f.end),
            (None, None) => Some(offset + HEADER_LEN),
            (None, Some(_)) => None,
        };
        if let Some((t, m)) = skipped_at.and_then(frame_token) {
            let label = if payload.is_some() {
                "skipped"
            } else {
                "unreadable"
            };
            tree.token_row(None, label, t, m);
        }
        tree.open_defaults(bytes);
        tree
    }

    /// The decoded record the rows show.
    pub fn record(&self) -> Option<&Arc<Record>> {
        self.record.as_ref()
    }

    /// The byte ranges the image preview considers: the payload type's image candidates (the
    /// first value of each bytes feature of an Example), then the rows' values in the order met.
    pub fn values(&self) -> impl Iterator<Item = &Range<u64>> {
        self.values.iter()
    }

    /// What building has cost so far: rows made, plus wire nodes and map entries read.
    pub fn work(&self) -> u64 {
        self.work
    }

    pub(super) fn push(&mut self, mut node: Node) -> usize {
        self.work += 1;
        node.scope = self.making;
        if let Some(value) = &node.value {
            self.values.push(value.clone());
        }
        let i = self.nodes.len();
        match node.parent {
            Some(p) => {
                if let Some(Node {
                    children: Children::Built(list),
                    ..
                }) = self.nodes.get_mut(p)
                {
                    list.push(i);
                } else if let Some(parent) = self.nodes.get_mut(p) {
                    parent.children = Children::Built(vec![i]);
                }
            }
            None => self.roots.push(i),
        }
        self.nodes.push(node);
        i
    }

    fn token_row(&mut self, parent: Option<usize>, label: &str, t: &Token, meaning: &str) -> usize {
        let depth = parent.map_or(0, |p| self.depth(p) + 1);
        let n = self.push(Node::new(depth, parent, label, t.start..t.end));
        self.set_detail(n, meaning.to_string());
        if t.role != Role::Frame {
            self.mark(n);
        }
        n
    }

    pub(super) fn depth(&self, i: usize) -> usize {
        self.nodes.get(i).map_or(0, |n| n.depth)
    }

    pub(super) fn set_detail(&mut self, i: usize, detail: String) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.detail = detail;
        }
    }

    pub(super) fn mark(&mut self, i: usize) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.damaged = true;
        }
    }

    pub(super) fn set_later(&mut self, i: usize, source: Source) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.children = Children::Later(source);
        }
    }

    /// The payload row and what it holds.
    fn payload_row(&mut self, range: Range<u64>, record: Option<(Arc<Record>, &[u8])>) -> usize {
        let len = range.end - range.start;
        let kind = record
            .as_ref()
            .map_or("payload", |(r, _)| r.decoded.kind.name())
            .to_string();
        let p = self.push(Node::new(0, None, kind, range.clone()));
        self.set_detail(p, format!("{len} bytes"));
        let Some((record, bytes)) = record else {
            return p;
        };
        self.record = Some(record.clone());
        let decoded = &record.decoded;
        let view = decoded.view(bytes, &record.table);
        // What the preview considers, as the payload's type says: as many as a page of rows.
        let images = view.image_candidates(FIELD_PAGE);
        self.declared_shape = images.shape;
        let base = record.payload.start;
        self.values.extend(
            images
                .values
                .iter()
                .map(|s| base + s.start as u64..base + s.end as u64),
        );
        let parsed = Parsed::new(record.tree(), bytes, &record.table);
        match view.tree_rows(&parsed) {
            Some(_) => self.set_later(p, Source::TypeRows),
            _ if decoded.structure().is_some() => {
                self.set_later(
                    p,
                    Source::Wire {
                        container: ROOT as u32,
                        from: 1,
                    },
                );
            }
            _ if len > 0 => {
                let i = self.push(Node::new(1, Some(p), "data", range.clone()));
                self.set_detail(i, tfr_core::image::describe_bytes(bytes, false));
                if let Some(n) = self.nodes.get_mut(i) {
                    n.value = Some(range);
                }
            }
            _ => {}
        }
        p
    }

    /// Opens what a reader wants to see first: the record and its features, not every value.
    fn open_defaults(&mut self, payload: Option<&[u8]>) {
        let mut at = 0;
        while at < self.nodes.len() {
            let open = self
                .nodes
                .get(at)
                .is_some_and(|n| n.depth < 2 && n.label != "header" && !n.more);
            if open {
                if let Some(payload) = payload {
                    self.make_children(at, payload);
                }
                if let Some(n) = self.nodes.get_mut(at) {
                    n.expanded = true;
                }
            }
            at += 1;
        }
    }

    // ---- shape and navigation ---------------------------------------------------------------

    /// The rows under row `i` made so far.
    pub fn children(&self, i: usize) -> &[usize] {
        match self.nodes.get(i).map(|n| &n.children) {
            Some(Children::Built(list)) => list,
            _ => &[],
        }
    }

    /// Whether row `i` has children (made or still to make).
    pub fn has_children(&self, i: usize) -> bool {
        match self.nodes.get(i).map(|n| &n.children) {
            Some(Children::Built(list)) => !list.is_empty(),
            Some(Children::Later(_)) => true,
            _ => false,
        }
    }

    /// Indices of the rows shown, in order: rows whose ancestors are all expanded.
    pub fn visible(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            if self.is_expanded(i) {
                stack.extend(self.children(i).iter().rev());
            }
        }
        out
    }

    /// Ancestors of row `i`, nearest first.
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
            if let Some(n) = self.nodes.get_mut(a) {
                n.expanded = true;
            }
        }
    }

    pub fn is_expanded(&self, i: usize) -> bool {
        self.nodes.get(i).is_some_and(|n| n.expanded)
    }

    /// Expands or collapses row `i`; expanding makes its children from `data` (the file's bytes)
    /// if they are not made yet. A "… N more" row loads the next page in its place instead.
    pub fn set_expanded(&mut self, i: usize, on: bool, data: &dyn ByteSource) {
        if on && self.nodes.get(i).is_some_and(|n| n.more) {
            self.load_more(i, data);
            return;
        }
        if on {
            if let Some(record) = self.record.clone() {
                self.make_children(i, record.bytes(data));
            }
        }
        if let Some(n) = self.nodes.get_mut(i) {
            n.expanded = on;
        }
    }

    /// The deepest row made so far whose bytes hold file byte `offset` (a "… N more" row only
    /// when no other row at its depth does).
    pub fn owner_of(&self, offset: u64) -> Option<usize> {
        let mut best: Option<usize> = None;
        let rank = |n: &Node| (n.depth, !n.more);
        for i in self.visible_or_made() {
            let Some(node) = self.nodes.get(i) else {
                continue;
            };
            let better = best
                .and_then(|b| self.nodes.get(b))
                .is_none_or(|b| rank(node) >= rank(b));
            if node.covers(offset) && better {
                best = Some(i);
            }
        }
        best
    }

    /// Every row still attached to the tree, in pre-order.
    fn visible_or_made(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.children(i).iter().rev());
        }
        out
    }

    /// The deepest row holding `offset`, making children along the way (but not loading pages):
    /// what the hex cursor selects.
    pub fn descend_to(&mut self, offset: u64, data: &dyn ByteSource) -> Option<usize> {
        let mut owner = self.owner_of(offset)?;
        let Some(record) = self.record.clone() else {
            return Some(owner);
        };
        let payload = record.bytes(data);
        loop {
            let unmade = matches!(
                self.nodes.get(owner).map(|n| &n.children),
                Some(Children::Later(_))
            );
            if !unmade || self.nodes.get(owner).is_some_and(|n| n.more) {
                return Some(owner);
            }
            self.make_children(owner, payload);
            match self.owner_of(offset) {
                Some(deeper) if deeper != owner => owner = deeper,
                _ => return Some(owner),
            }
        }
    }

    // ---- making children --------------------------------------------------------------------

    /// Makes the children of row `i` from the payload's bytes, if they are not made yet.
    fn make_children(&mut self, i: usize, payload: &[u8]) {
        let source = match self.nodes.get(i).map(|n| &n.children) {
            Some(Children::Later(source)) => source.clone(),
            _ => return,
        };
        if let Some(n) = self.nodes.get_mut(i) {
            n.children = Children::Built(Vec::new());
        }
        let scope = match source {
            Source::Inner { scope } => scope,
            _ => self.nodes.get(i).map_or(0, |n| n.scope),
        };
        self.make_from(i, &source, payload, scope);
    }

    /// Makes the rows `source` stands for under row `i`, from the wire tree and bytes of scope
    /// `scope` (`payload` is the record's payload, which holds every scope's).
    fn make_from(&mut self, i: usize, source: &Source, payload: &[u8], scope: u32) {
        let Some(record) = self.record.clone() else {
            return;
        };
        let inner = scope
            .checked_sub(1)
            .and_then(|s| self.scopes.get(s as usize))
            .cloned();
        let ctx = match &inner {
            None => Ctx {
                parsed: Parsed::new(record.tree(), payload, &record.table),
                base: record.payload.start,
                decoded: &record.decoded,
                depth: 0,
            },
            Some(inner) => {
                let start = inner.payload.start.saturating_sub(record.payload.start);
                let end = inner.payload.end.saturating_sub(record.payload.start);
                let bytes = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(end).ok())
                    .and_then(|(s, e)| payload.get(s..e))
                    .unwrap_or_default();
                Ctx {
                    parsed: Parsed::new(&inner.decoded.tree, bytes, &record.table),
                    base: inner.payload.start,
                    decoded: &inner.decoded,
                    depth: inner.depth,
                }
            }
        };
        let before = std::mem::replace(&mut self.making, scope);
        self.make_in(i, source, &ctx);
        self.making = before;
    }

    fn make_in(&mut self, i: usize, source: &Source, ctx: &Ctx<'_>) {
        match source.clone() {
            Source::Wire { container, from } => self.wire_fields(ctx, i, container, from),
            Source::TypeRows => {
                self.type_rows(ctx, i);
            }
            Source::Named {
                field,
                sorted,
                from,
                lists,
            } => self.named_rows(ctx, i, field, &sorted, from, lists),
            Source::Values(page) => self.value_rows(ctx, i, page),
            Source::Steps(page) => self.step_rows(ctx, i, page),
            Source::Packed { node, from, at } => self.packed(ctx, i, node, from, at),
            Source::Strings { node, from } => self.strings(ctx, i, node, from),
            Source::Reading { node } => {
                if let Some(reading) = self.node_reading(ctx, node) {
                    self.reading_rows(ctx, i, &reading.rows);
                }
            }
            Source::Inner { .. } => {
                if !self.type_rows(ctx, i) {
                    self.wire_fields(ctx, i, ROOT as u32, ROOT as u32 + 1);
                }
            }
        }
    }

    /// The rows the payload's type opens it with under row `i`; false when its type shows it
    /// field by field.
    fn type_rows(&mut self, ctx: &Ctx<'_>, i: usize) -> bool {
        let view = ctx.decoded.view(ctx.parsed.bytes, ctx.parsed.table);
        let Some(rows) = view.tree_rows(&ctx.parsed) else {
            return false;
        };
        for row in rows {
            match row {
                TreeRow::Message { label, message } => {
                    self.message_row(ctx, i, label, &message);
                }
                TreeRow::Wire(node) => {
                    self.wire_field(ctx, i, u32::try_from(node).unwrap_or(u32::MAX));
                }
            }
        }
        true
    }

    /// A new scope for the payload `decoded` found in file bytes `payload`, `depth` values deep:
    /// the source of its rows.
    pub(super) fn inner_scope(
        &mut self,
        decoded: Decoded,
        payload: Range<u64>,
        depth: usize,
    ) -> Source {
        self.scopes.push(Arc::new(Scope {
            decoded,
            payload,
            depth,
        }));
        Source::Inner {
            scope: u32::try_from(self.scopes.len()).unwrap_or(u32::MAX),
        }
    }

    /// Replaces "… N more" row `i` by the next page of its list (the first new item takes its
    /// place and index, so a selection on it stays in place).
    pub fn load_more(&mut self, i: usize, data: &dyn ByteSource) {
        let Some(node) = self.nodes.get(i) else {
            return;
        };
        let (Some(parent), Children::Later(source)) = (node.parent, node.children.clone()) else {
            return;
        };
        let Some(record) = self.record.clone() else {
            return;
        };
        // Make the page as children of the parent (in the scope of the row it replaces), then
        // move the first new row into slot `i`.
        let before = self.children(parent).len();
        self.make_from(parent, &source, record.bytes(data), node.scope);
        let made: Vec<usize> = self
            .children(parent)
            .get(before..)
            .unwrap_or_default()
            .to_vec();
        let Some((&first, rest)) = made.split_first() else {
            return;
        };
        let Some(mut moved) = self.nodes.get(first).cloned() else {
            return;
        };
        moved.parent = Some(parent);
        if let Some(slot) = self.nodes.get_mut(i) {
            *slot = moved;
        }
        // Rows made under the moved row now hang from slot `i`.
        let grandchildren: Vec<usize> = self.children(i).to_vec();
        for c in grandchildren {
            if let Some(n) = self.nodes.get_mut(c) {
                n.parent = Some(i);
            }
        }
        if let Some(Node {
            children: Children::Built(list),
            ..
        }) = self.nodes.get_mut(parent)
        {
            list.truncate(before);
            let at = list
                .iter()
                .position(|c| *c == i)
                .map_or(list.len(), |p| p + 1);
            list.splice(at..at, rest.iter().copied());
        }
    }

    pub(super) fn ranges_of(
        &self,
        ctx: &Ctx<'_>,
        spans: impl Iterator<Item = Span>,
    ) -> (Range<u64>, Vec<Range<u64>>) {
        let mut all = spans.map(|s| ctx.file(s));
        let first = all.next().unwrap_or_default();
        (first, all.collect())
    }

    pub(super) fn more_row(
        &mut self,
        parent: usize,
        label: String,
        range: Range<u64>,
        source: Source,
    ) {
        let depth = self.depth(parent) + 1;
        let mut node = Node::new(depth, Some(parent), label, range);
        node.more = true;
        node.children = Children::Later(source);
        self.push(node);
    }
}

/// One page of a repeated field's values: the field, the tree nodes holding it, the index of its
/// first value and where that value is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub field: FieldId,
    pub nodes: Nodes,
    pub from: usize,
    pub at: ValuesAt,
    /// The dtype the feature's bytes values are shown as (`--bytes-as`).
    pub bytes_as: Option<tfr_core::tensor::DType>,
    /// The message the feature's bytes values were declared to be (`--field-type feature:…`).
    pub declared: Option<tfr_core::schema::table::MessageId>,
}

/// What rows are made from: the payload's wire tree with its bytes, and where it starts in the
/// file.
pub(super) struct Ctx<'a> {
    pub(super) parsed: Parsed<'a>,
    base: u64,
    /// The decoded payload the rows show (the record's, or one inside a bytes value).
    pub(super) decoded: &'a Decoded,
    /// How many bytes values that payload lies inside.
    pub(super) depth: usize,
}

impl Ctx<'_> {
    pub(super) fn file(&self, span: Span) -> Range<u64> {
        self.base + span.start as u64..self.base + span.end as u64
    }

    /// The payload positions of file bytes `range` (which lie in this payload).
    pub(super) fn span_of(&self, range: &Range<u64>) -> Span {
        let at = |offset: u64| usize::try_from(offset.saturating_sub(self.base)).unwrap_or(0);
        Span::new(at(range.start), at(range.end))
    }

    pub(super) fn parsed_node_end(&self, n: u32) -> Option<usize> {
        self.parsed.node(n).map(|n| n.data_span().end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfr_core::annotate::FrameTokens;
    use tfr_core::crafted::{encode_records, length_delimited};
    use tfr_core::frame::FrameIndex;
    use tfr_core::payload::{Declared, Decoder, PayloadKind, PayloadType, Reading};
    use tfr_core::schema::Schema;

    /// A payload type the inspector knows nothing of, which opens its payloads with their
    /// top-level fields last first.
    struct Reversed;

    impl PayloadType for Reversed {
        fn declared(&self) -> &Declared {
            const DECLARED: Declared = Declared::named("Reversed");
            &DECLARED
        }

        fn tree_rows<'a>(&self, parsed: &Parsed<'a>) -> Option<Vec<TreeRow<'a>>> {
            let mut rows: Vec<TreeRow<'a>> =
                parsed.tree.children(ROOT).map(TreeRow::Wire).collect();
            rows.reverse();
            Some(rows)
        }
    }

    static REVERSED: Reversed = Reversed;

    /// The labels of the payload row's children, for a record of three string fields no built-in type declares, decoded as
    /// `kind`.
    fn payload_rows(kind: PayloadKind) -> Vec<String> {
        let payload = [5, 6, 7]
            .map(|field| length_delimited(field, b"v"))
            .concat();
        let data = encode_records(&[&payload]);
        let frame = FrameIndex::build(&data[..]).get(&data[..], 0).unwrap();
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let mut decoded = decoder.decode(&payload);
        decoded.kind = kind;
        let record = Record {
            decoded,
            table: decoder.schema.table().clone(),
            payload: frame.payload_range().map(Range::from).unwrap(),
            specs: None,
        };
        let own = FrameTokens::new(&data, &frame, true);
        let parts = Parts {
            own: &own,
            damage: None,
            record: Some((Arc::new(record), &payload)),
        };
        let tree = Tree::build(&frame, parts);
        let name = tree
            .nodes
            .iter()
            .position(|n| n.depth == 0 && n.label != "header");
        let rows = tree.children(name.unwrap());
        rows.iter().map(|&i| tree.nodes[i].label.clone()).collect()
    }

    #[test]
    fn a_payload_type_of_its_own_opens_with_the_rows_it_gives() {
        assert_eq!(payload_rows(PayloadKind::Protobuf), ["#5", "#6", "#7"]);
        assert_eq!(
            payload_rows(PayloadKind::Builtin(&REVERSED)),
            ["#7", "#6", "#5"]
        );
    }
}
