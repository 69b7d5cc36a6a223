//! Rows for wire fields: messages shown field by field (any type other than the Example view's
//! containers, and payloads read without a schema), length-delimited data, packed runs a page of
//! numbers at a time, and the invalid tail where a walk stopped. Where the payload's type reads
//! more in a node than its fields (a TensorBoard summary value's plugin), the node's row says what
//! and opens that reading's rows before its fields.

use super::{Children, Ctx, FIELD_PAGE, LIST_LIMIT, Node, Source, Tree};
use tfr_core::decode::MessageView;
use tfr_core::payload::NodeReading;
use tfr_core::payload::inner::ValueReading;
use tfr_core::payload::plugin::{Row, label_width, padded_label};
use tfr_core::schema::table::{Kind, Table};
use tfr_core::span::Span;
use tfr_core::wire::NodeKind;
use tfr_core::words::plural;

impl Tree {
    pub(super) fn wire_fields(&mut self, ctx: &Ctx<'_>, parent: usize, container: u32, from: u32) {
        let tree = ctx.parsed.tree;
        let Some(node) = tree.node(container as usize) else {
            return;
        };
        if from == container + 1 {
            if let Some(reading) = self.node_reading(ctx, container) {
                self.reading_rows(ctx, parent, &reading.rows);
            }
        }
        let mut child = from as usize;
        let mut shown = 0;
        while child < node.next() && shown < FIELD_PAGE {
            self.wire_field(ctx, parent, child as u32);
            child = tree
                .node(child)
                .map_or(node.next(), |c| c.next().max(child + 1));
            shown += 1;
        }
        if child < node.next() {
            let rest = tree
                .children(container as usize)
                .filter(|c| *c >= child)
                .count();
            self.work += rest as u64;
            let start = tree.node(child).map_or(node.end(), |c| c.start());
            let range = ctx.file(Span::new(start, node.end()));
            self.more_row(
                parent,
                format!("… {rest} more fields"),
                range,
                Source::Wire {
                    container,
                    from: child as u32,
                },
            );
            return;
        }
        if let Some(error) = tree.error_of(container as usize) {
            let depth = self.depth(parent) + 1;
            let range = ctx.file(Span::new(error.at.min(node.end()), node.end()));
            let n = self.push(Node::new(depth, Some(parent), "invalid", range));
            self.set_detail(n, error.to_string());
            self.mark(n);
        }
    }

    /// One wire field occurrence.
    pub(in crate::tui) fn wire_field(&mut self, ctx: &Ctx<'_>, parent: usize, n: u32) {
        let tree = ctx.parsed.tree;
        let Some(node) = tree.node(n as usize) else {
            return;
        };
        self.work += 1;
        let table = ctx.parsed.table;
        let info = node.field().and_then(|f| table.field(f));
        let label = info.map_or_else(|| format!("#{}", node.number()), |f| f.name.to_string());
        let depth = self.depth(parent) + 1;
        let mut row = Node::new(depth, Some(parent), label, ctx.file(node.span()));
        row.wire = Some(n);
        let count_fields = |c: u32| tree.children(c as usize).count();
        match node.kind() {
            NodeKind::Message => self.message_field(ctx, row, n),
            NodeKind::Guessed | NodeKind::Group => {
                let what = if node.kind() == NodeKind::Group {
                    "group"
                } else {
                    "message"
                };
                row.detail = format!("{what}, {}", plural(count_fields(n) as u64, "field"));
                row.children = Children::Later(Source::Wire {
                    container: n,
                    from: n + 1,
                });
                self.push(row);
            }
            NodeKind::Bytes => self.bytes_field(ctx, row, n),
            NodeKind::Packed => {
                let kind = info.map_or(Kind::Uint64, |f| f.kind);
                let count = tree.elements(n as usize, ctx.parsed.bytes, kind).count();
                self.work += count as u64;
                row.detail = format!("packed, {count} values");
                let data = node.data_span();
                row.children = Children::Later(Source::Packed {
                    node: n,
                    from: 0,
                    at: data.start as u32,
                });
                self.push(row);
            }
            NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                let raw = tree
                    .scalar(n as usize, ctx.parsed.bytes)
                    .unwrap_or_default();
                row.detail = scalar_text(table, info.map(|f| f.kind), raw, node.data_span().len());
                self.push(row);
            }
        }
    }

    /// The row of message field occurrence `n`: a `Features` or `FeatureLists` by feature name,
    /// any other message field by field (or as its payload type reads it).
    fn message_field(&mut self, ctx: &Ctx<'_>, mut row: Node, n: u32) {
        let tree = ctx.parsed.tree;
        let table = ctx.parsed.table;
        let Some(id) = tree.message_type(n as usize, table) else {
            return;
        };
        let message = MessageView::new(ctx.parsed, id, &[n]);
        match message.type_name() {
            // Feature containers inside other messages are shown through the typed layer.
            "Features" | "FeatureLists" => {
                let r = self.push(row);
                self.container_row(r, &message);
            }
            name => {
                row.detail = match self.node_reading(ctx, n) {
                    Some(reading) => reading.detail,
                    None => format!(
                        "{name}, {}",
                        plural(tree.children(n as usize).count() as u64, "field")
                    ),
                };
                row.children = Children::Later(Source::Wire {
                    container: n,
                    from: n + 1,
                });
                self.push(row);
            }
        }
    }

    /// The row of length-delimited data occurrence `n`: a string tensor's list of strings, what
    /// the payload's type reads in it, or a bytes value (which may hold a payload of its own).
    fn bytes_field(&mut self, ctx: &Ctx<'_>, mut row: Node, n: u32) {
        let table = ctx.parsed.table;
        let Some(node) = ctx.parsed.tree.node(n as usize) else {
            return;
        };
        let info = node.field().and_then(|f| table.field(f));
        let data = node.data_span();
        let is_string = info.is_some_and(|f| f.kind == Kind::String);
        row.detail = bytes_detail(ctx.parsed.slice(data), is_string);
        row.value = Some(ctx.file(data));
        let strings = tfr_core::payload::tensor_content_field(table)
            .and_then(|field| tfr_core::payload::string_list_at(ctx.parsed, n as usize, field));
        let damaged = match strings {
            Some(Ok(list)) => {
                row.detail = format!(
                    "{}: their lengths, then their bytes",
                    plural(list.len(), "string")
                );
                row.children = Children::Later(Source::Strings { node: n, from: 0 });
                false
            }
            Some(Err(problem)) => {
                row.detail = format!("{}; not a string list: {problem}", row.detail);
                true
            }
            None => {
                if let Some(reading) = self.node_reading(ctx, n) {
                    row.detail = reading.detail;
                    row.children = Children::Later(Source::Reading { node: n });
                } else if info.is_some_and(|f| f.kind == Kind::Bytes) {
                    // A bytes field may hold a payload of its own, as a feature's
                    // value may.
                    let reading = ValueReading {
                        table,
                        bytes_as: None,
                        declared: None,
                        depth: ctx.depth,
                    };
                    self.inner_value(ctx, &mut row, &reading, data);
                }
                false
            }
        };
        let r = self.push(row);
        if damaged {
            self.mark(r);
        }
    }

    pub(super) fn packed(&mut self, ctx: &Ctx<'_>, parent: usize, n: u32, from: usize, at: u32) {
        let tree = ctx.parsed.tree;
        let Some(node) = tree.node(n as usize) else {
            return;
        };
        let table = ctx.parsed.table;
        let kind = node
            .field()
            .and_then(|f| table.field(f))
            .map_or(Kind::Uint64, |f| f.kind);
        let depth = self.depth(parent) + 1;
        let mut elements = tree
            .elements(n as usize, ctx.parsed.bytes, kind)
            .resume(at as usize);
        for (i, (span, raw)) in elements.by_ref().take(LIST_LIMIT).enumerate() {
            let row = self.push(Node::new(
                depth,
                Some(parent),
                format!("[{}]", from + i),
                ctx.file(span),
            ));
            self.set_detail(row, scalar_text(table, Some(kind), raw, span.len()));
        }
        let next = elements.position();
        let rest = elements.count();
        self.work += rest as u64;
        if rest > 0 {
            let data = node.data_span();
            let end = tree.error_of(n as usize).map_or(data.end, |e| e.at);
            let range = ctx.file(Span::new(next, end.max(next)));
            self.more_row(
                parent,
                format!("… {rest} more"),
                range,
                Source::Packed {
                    node: n,
                    from: from + LIST_LIMIT,
                    at: next as u32,
                },
            );
        }
        if from == 0 {
            if let Some(error) = tree.error_of(n as usize) {
                let range = ctx.file(Span::new(error.at.min(node.end()), node.end()));
                let r = self.push(Node::new(depth, Some(parent), "invalid", range));
                self.set_detail(r, error.to_string());
                self.mark(r);
            }
        }
    }
}

impl Tree {
    /// What the payload's type reads in wire node `n` beyond its fields.
    pub(super) fn node_reading(&self, ctx: &Ctx<'_>, n: u32) -> Option<NodeReading> {
        // The type reads its own walk: a payload shown as the walk of a type it failed is not
        // one of the type's.
        if ctx.decoded.expected_tree.is_some() {
            return None;
        }
        let view = ctx.decoded.view(ctx.parsed.bytes, ctx.parsed.table);
        view.node_reading(n as usize)
    }

    /// The rows of a reading under row `parent`, each over its bytes (or its parent's), with
    /// theirs under them, closed.
    pub(super) fn reading_rows(&mut self, ctx: &Ctx<'_>, parent: usize, rows: &[Row]) {
        let depth = self.depth(parent) + 1;
        let whole = self
            .nodes
            .get(parent)
            .map(|n| n.range.clone())
            .unwrap_or_default();
        // Labels line up among siblings, as `show` prints them: a table's columns stay columns.
        let width = label_width(rows);
        for row in rows {
            self.work += 1;
            let (range, more) = match row.spans.split_first() {
                Some((first, rest)) => (
                    ctx.file(*first),
                    rest.iter().map(|s| ctx.file(*s)).collect(),
                ),
                None => (whole.clone(), Vec::new()),
            };
            let mut node = Node::new(depth, Some(parent), padded_label(row, width), range);
            node.detail = row.detail.clone();
            node.more_ranges = more;
            let i = self.push(node);
            self.reading_rows(ctx, i, &row.children);
        }
    }

    /// A page of the strings of the string list in `tensor_content` node `n`: on the first page
    /// a row for the lengths, then a row per string covering its bytes and its length.
    pub(super) fn strings(&mut self, ctx: &Ctx<'_>, parent: usize, n: u32, from: u64) {
        let Some(node) = ctx.parsed.tree.node(n as usize) else {
            return;
        };
        let list = tfr_core::payload::tensor_content_field(ctx.parsed.table)
            .and_then(|field| tfr_core::payload::string_list_at(ctx.parsed, n as usize, field));
        let Some(Ok(list)) = list else {
            return;
        };
        let data = node.data_span();
        let at = |r: std::ops::Range<usize>| Span::new(data.start + r.start, data.start + r.end);
        let depth = self.depth(parent) + 1;
        if from == 0 {
            let lengths = at(0..list.lengths_end());
            let r = self.push(Node::new(depth, Some(parent), "lengths", ctx.file(lengths)));
            self.set_detail(
                r,
                format!(
                    "{}, one per string, before their bytes",
                    plural(list.len(), "varint")
                ),
            );
        }
        let end = from.saturating_add(LIST_LIMIT as u64).min(list.len());
        for i in from..end {
            let Some(entry) = list.entry(i) else {
                break;
            };
            let (length, bytes) = (at(entry.length), at(entry.data));
            // The string's bytes, and its length among the lengths.
            let first = if bytes.is_empty() { length } else { bytes };
            let mut row = Node::new(depth, Some(parent), format!("[{i}]"), ctx.file(first));
            if !bytes.is_empty() {
                row.more_ranges.push(ctx.file(length));
            }
            row.detail = bytes_detail(ctx.parsed.slice(bytes), true);
            row.value = Some(ctx.file(bytes));
            self.push(row);
        }
        if end < list.len() {
            let next = list
                .entry(end)
                .map_or(data.end, |e| data.start + e.data.start);
            self.more_row(
                parent,
                format!("… {} more", list.len() - end),
                ctx.file(Span::new(next, data.end)),
                Source::Strings { node: n, from: end },
            );
        }
    }
}

fn scalar_text(table: &Table, kind: Option<Kind>, raw: u64, width: usize) -> String {
    match kind.and_then(|k| tfr_core::decode::Scalar::from_raw(k, raw, table)) {
        Some(scalar) => tfr_core::textformat::scalar_text(&scalar),
        None if width == 4 => format!("0x{raw:08x}"),
        None if width == 8 => format!("0x{raw:016x}"),
        None => raw.to_string(),
    }
}

/// A length-delimited value the schema-less walk could not open as a message: text (control
/// characters escaped visibly, `"new\nline"`), or what the image code says of other bytes.
fn bytes_detail(bytes: &[u8], is_string: bool) -> String {
    if tfr_core::image::ImageHeader::read(bytes).is_none() {
        if let Ok(text) = std::str::from_utf8(bytes) {
            let kind = if is_string { "string" } else { "bytes" };
            let shown: String = text.chars().take(48).collect();
            let more = if shown.len() < text.len() { "…" } else { "" };
            return format!("{kind} {}{more}", tfr_core::example::quoted(&shown));
        }
    }
    tfr_core::image::describe_bytes(bytes, is_string)
}
