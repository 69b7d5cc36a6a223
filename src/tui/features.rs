//! The Example view inside the tree: `Features` and `FeatureLists` shown as feature name → values
//! rather than as the map entries and list messages they are on the wire.
//!
//! The rows come from the typed views ([`MessageView`] and [`tfr_core::example`]), the same values
//! `show` prints: protobuf's merge rules apply (a message field occurring twice merges, a repeated
//! map key keeps its last value, a singular field its last occurrence). Each row carries the byte
//! spans the views give, so the hex pane lines up with the tree. Features come a page at a time,
//! values and steps too, each page made when its row is opened.

use std::sync::Arc;

use super::tree::{Children, Ctx, FIELD_PAGE, LIST_LIMIT, Node, Page, Source, Tree};
use tfr_core::decode::{EntryReader, FieldValues, MapEntry, MessageView, Nodes, Value, ValuesAt};
use tfr_core::example::{self, FeatureKind, FeatureValues};
use tfr_core::payload::inner::{InnerReading, ValueReading};
use tfr_core::schema::table::{FieldId, MessageId};
use tfr_core::span::Span;
use tfr_core::tensor::DType;

impl Tree {
    /// A row for a typed message value of field `label` (its merged parts).
    pub(super) fn message_row(
        &mut self,
        ctx: &Ctx<'_>,
        parent: usize,
        label: &str,
        message: &MessageView<'_>,
    ) -> usize {
        let depth = self.depth(parent) + 1;
        let (range, more) = self.ranges_of(ctx, message.spans());
        let mut node = Node::new(depth, Some(parent), label, range);
        node.more_ranges = more;
        node.wire = message.parts().first().copied();
        let n = self.push(node);
        match message.type_name() {
            "Features" => {
                let features = example::Features::of(message);
                self.work += features.len() as u64;
                self.set_detail(n, format!("{} features", features.len()));
                self.later_named(n, features.map_field(), features.entries().collect(), false);
            }
            "FeatureLists" => {
                let lists = example::FeatureLists::of(message);
                self.work += lists.len() as u64;
                self.set_detail(n, format!("{} feature lists", lists.len()));
                self.later_named(n, lists.map_field(), lists.entries().collect(), true);
            }
            other => self.set_detail(n, other.to_string()),
        }
        n
    }

    pub(super) fn later_named(
        &mut self,
        n: usize,
        field: Option<FieldId>,
        sorted: Vec<MapEntry>,
        lists: bool,
    ) {
        if let (Some(field), false) = (field, sorted.is_empty()) {
            self.set_later(
                n,
                Source::Named {
                    field,
                    sorted: sorted.into(),
                    from: 0,
                    lists,
                },
            );
        }
    }

    /// A `Features` or `FeatureLists` message met inside another message type, shown like an
    /// Example's.
    pub(super) fn container_row(&mut self, n: usize, message: &MessageView<'_>) {
        if message.type_name() == "Features" {
            let features = example::Features::of(message);
            self.work += features.len() as u64;
            self.set_detail(n, tfr_core::words::plural(features.len() as u64, "feature"));
            self.later_named(n, features.map_field(), features.entries().collect(), false);
        } else {
            let lists = example::FeatureLists::of(message);
            self.work += lists.len() as u64;
            self.set_detail(
                n,
                tfr_core::words::plural(lists.len() as u64, "feature list"),
            );
            self.later_named(n, lists.map_field(), lists.entries().collect(), true);
        }
    }

    /// The row of one feature: its values' line (worded by the dataset's feature specs when it
    /// has them), and its values to open.
    fn feature_row(&self, ctx: &Ctx<'_>, feature: &example::Feature<'_>, at: Place) -> Node {
        let mut row = at.row(feature.shown_name(), ctx.file(feature.span));
        // A dataset's features name the record's own, not those of a payload inside it.
        let specs = self
            .record()
            .and_then(|r| r.specs.as_deref())
            .filter(|_| ctx.depth == 0);
        let bytes_as = ctx.parsed.table.bytes_as(feature.key);
        let declared = ctx.parsed.table.feature_type(feature.key);
        row.detail = specs
            .filter(|_| bytes_as.is_none() && declared.is_none())
            .and_then(|s| tfr_core::dataset::features::describe(s, feature.key, &feature.values))
            .unwrap_or_else(|| self.values_line(ctx, &feature.values, bytes_as, declared));
        row.children = values_source(&feature.values, bytes_as, declared);
        row
    }

    /// A page of features or feature lists, by name.
    pub(super) fn named_rows(
        &mut self,
        ctx: &Ctx<'_>,
        parent: usize,
        field: FieldId,
        sorted: &Arc<[MapEntry]>,
        from: usize,
        lists: bool,
    ) {
        let Some(reader) = EntryReader::of(ctx.parsed, field) else {
            return;
        };
        let depth = self.depth(parent) + 1;
        let page = sorted
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take(FIELD_PAGE);
        for entry in page {
            let at = Place {
                depth,
                parent,
                wire: entry.last,
            };
            let row = if lists {
                feature_list_row(ctx, &example::feature_list(&reader, entry), at)
            } else {
                self.feature_row(ctx, &example::feature(&reader, entry), at)
            };
            self.push(row);
        }
        let shown = (from + FIELD_PAGE).min(sorted.len());
        if shown < sorted.len() {
            let rest = sorted.len() - shown;
            let noun = if lists { "feature lists" } else { "features" };
            let range = self.nodes.get(parent).map_or(0..0, |p| p.range.clone());
            let more_ranges = self
                .nodes
                .get(parent)
                .map(|p| p.more_ranges.clone())
                .unwrap_or_default();
            self.more_row(
                parent,
                format!("… {rest} more {noun}"),
                range,
                Source::Named {
                    field,
                    sorted: sorted.clone(),
                    from: shown,
                    lists,
                },
            );
            if let Some(last) = self.nodes.last_mut() {
                last.more_ranges = more_ranges;
            }
        }
    }

    /// A feature's one-line summary: `int64[2] [10, 20]`, worded as `show` words it; bytes as
    /// arrays of `bytes_as` when given.
    pub(super) fn values_line(
        &self,
        ctx: &Ctx<'_>,
        values: &FeatureValues<'_>,
        bytes_as: Option<DType>,
        declared: Option<MessageId>,
    ) -> String {
        let reading = ValueReading {
            table: ctx.parsed.table,
            bytes_as,
            declared,
            depth: ctx.depth,
        };
        let summary = example::values_summary_with(values, SUMMARY_VALUES, |b| {
            reading.value_text(b, self.declared_shape, SUMMARY_VALUES)
        });
        match values.kind() {
            FeatureKind::Empty => summary,
            _ => format!("{}[{}] {summary}", values.kind_name(), values.len()),
        }
    }

    /// `[i]` rows for a page of a feature's values.
    pub(super) fn value_rows(&mut self, ctx: &Ctx<'_>, parent: usize, page: Page) {
        let declared_shape = self.declared_shape;
        let bytes_as = page.bytes_as;
        let rows = self.page_of(ctx, parent, &page, |index, value, span, depth| {
            let mut row = Node::new(depth, Some(parent), format!("[{index}]"), ctx.file(span));
            row.detail = match (&value, bytes_as) {
                (Value::Bytes(b, _) | Value::String(b, _), Some(dtype)) => {
                    example::bytes_as_numbers(b, dtype, LIST_LIMIT)
                }
                (Value::Bytes(b, _) | Value::String(b, _), None) => {
                    example::bytes_summary(b, declared_shape)
                }
                (Value::Scalar(s), _) => tfr_core::textformat::scalar_text(s),
                (Value::Message(_), _) => String::new(),
            };
            if matches!(value, Value::Bytes(..) | Value::String(..)) {
                row.value = Some(ctx.file(span));
            }
            Some(row)
        });
        // A value holding a payload (or declared to) opens into the payload's rows.
        let reading = ValueReading {
            table: ctx.parsed.table,
            bytes_as,
            declared: page.declared,
            depth: ctx.depth,
        };
        let mut rows = rows;
        if bytes_as.is_none() {
            for row in &mut rows.rows {
                let Some(value) = row.value.clone() else {
                    continue;
                };
                let span = ctx.span_of(&value);
                self.inner_value(ctx, row, &reading, span);
            }
        }
        self.finish_page(ctx, parent, page, rows, "", Source::Values);
    }

    /// `step i` rows for a page of a feature list's steps.
    pub(super) fn step_rows(&mut self, ctx: &Ctx<'_>, parent: usize, page: Page) {
        let bytes_as = page.bytes_as;
        let rows = self.page_of(ctx, parent, &page, |index, value, span, depth| {
            let Value::Message(feature) = &value else {
                return None;
            };
            let values = FeatureValues::of(feature);
            let mut row = Node::new(depth, Some(parent), format!("step {index}"), ctx.file(span));
            row.detail = self.values_line(ctx, &values, bytes_as, page.declared);
            row.children = values_source(&values, bytes_as, page.declared);
            Some(row)
        });
        self.finish_page(ctx, parent, page, rows, " steps", Source::Steps);
    }

    /// The rows `make` builds for one page ([`LIST_LIMIT`] values) of a repeated field, given each
    /// value's index, value, span and the rows' depth; values it returns no row for are skipped.
    fn page_of<'a>(
        &self,
        ctx: &Ctx<'a>,
        parent: usize,
        page: &Page,
        mut make: impl FnMut(usize, Value<'a>, Span, usize) -> Option<Node>,
    ) -> PageRows {
        let list = FieldValues::new(ctx.parsed, page.field, page.nodes.as_slice());
        let depth = self.depth(parent) + 1;
        let mut values = list.values_from(page.at);
        let mut rows = Vec::new();
        for i in 0..LIST_LIMIT {
            let Some((value, span)) = values.next() else {
                return PageRows { rows, rest: None };
            };
            rows.extend(make(page.from + i, value, span, depth));
        }
        let next_at = values.at();
        let rest = values.next().map(|(_, first)| Rest {
            at: next_at,
            first,
            count: list.count().saturating_sub(page.from + LIST_LIMIT),
        });
        PageRows { rows, rest }
    }

    /// Adds a page's rows under `parent`, then, when values follow, a "… N more{what}" row whose
    /// children are the next page (`source` names how they are made).
    fn finish_page(
        &mut self,
        ctx: &Ctx<'_>,
        parent: usize,
        page: Page,
        rows: PageRows,
        what: &str,
        source: impl FnOnce(Page) -> Source,
    ) {
        for row in rows.rows {
            self.push(row);
        }
        let Some(rest) = rows.rest else {
            return;
        };
        let end = page
            .nodes
            .as_slice()
            .last()
            .and_then(|n| ctx.parsed_node_end(*n))
            .unwrap_or(rest.first.end);
        let range = ctx.file(Span::new(rest.first.start, end.max(rest.first.start)));
        let next = Page {
            from: page.from + LIST_LIMIT,
            at: rest.at,
            ..page
        };
        self.more_row(
            parent,
            format!("… {} more{what}", rest.count),
            range,
            source(next),
        );
    }
}

impl Tree {
    /// Row `row` of a bytes value at `span` (payload positions): when the value reads as a
    /// payload, its detail says what and its children are the payload's rows; when it was declared
    /// to be a message it is not, its detail says why and where, in red.
    pub(super) fn inner_value(
        &mut self,
        ctx: &Ctx<'_>,
        row: &mut Node,
        reading: &ValueReading<'_>,
        span: Span,
    ) {
        let bytes = ctx.parsed.slice(span);
        match reading.read(bytes) {
            Some(InnerReading::Payload(inner)) => {
                self.work += 1;
                row.detail = inner.line(bytes, ctx.parsed.table, ctx.depth + 1);
                let source = self.inner_scope(inner.decoded, ctx.file(span), ctx.depth + 1);
                row.children = Children::Later(source);
            }
            Some(InnerReading::NotDeclared { message, invalid }) => {
                let at = ctx.file(Span::new(span.start, span.start)).start;
                row.detail = format!(
                    "not a {message}: {} at byte {}",
                    invalid.what(),
                    at.saturating_add(invalid.at() as u64)
                );
                row.damaged = true;
            }
            None => {}
        }
    }
}

/// A page's rows, and what follows them.
struct PageRows {
    rows: Vec<Node>,
    rest: Option<Rest>,
}

/// The values after a page: where they are read from, the first one's span, and how many.
struct Rest {
    at: ValuesAt,
    first: Span,
    count: usize,
}

/// Values shown in a feature's one-line summary before "… N more".
const SUMMARY_VALUES: usize = 3;

/// How a feature's `[i]` rows are made, when it has values.
fn values_source(
    values: &FeatureValues<'_>,
    bytes_as: Option<DType>,
    declared: Option<MessageId>,
) -> Children {
    match values.list() {
        Some(list) if !values.is_empty() => Children::Later(Source::Values(Page {
            field: list.id(),
            nodes: Nodes::new(list.nodes()),
            from: 0,
            at: ValuesAt::default(),
            bytes_as,
            declared,
        })),
        _ => Children::None,
    }
}

/// Where a feature's or a feature list's row goes: its depth, its parent row, and the wire node
/// of its map entry.
#[derive(Clone, Copy)]
struct Place {
    depth: usize,
    parent: usize,
    wire: u32,
}

impl Place {
    /// A row here, labelled `label`, over the file's bytes `range`.
    fn row(self, label: impl Into<String>, range: std::ops::Range<u64>) -> Node {
        let mut row = Node::new(self.depth, Some(self.parent), label, range);
        row.wire = Some(self.wire);
        row
    }
}

/// The row of one feature list: its number of steps, and its steps to open.
fn feature_list_row(ctx: &Ctx<'_>, list: &example::FeatureList<'_>, at: Place) -> Node {
    let mut row = at.row(list.shown_name(), ctx.file(list.span));
    row.detail = tfr_core::words::plural(list.len() as u64, "step");
    if let Some(steps) = list.steps_field().filter(|_| !list.is_empty()) {
        row.children = Children::Later(Source::Steps(Page {
            field: steps.id(),
            nodes: Nodes::new(steps.nodes()),
            from: 0,
            at: ValuesAt::default(),
            bytes_as: ctx.parsed.table.bytes_as(list.key),
            declared: ctx.parsed.table.feature_type(list.key),
        }));
    }
    row
}
