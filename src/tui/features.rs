//! The Example view inside the tree: `Features` and `FeatureLists` shown as feature name → values
//! rather than as the map entries and list messages they are on the wire.
//!
//! The rows come from the typed views ([`MessageView`] and [`crate::example`]), the same values
//! `show` prints: protobuf's merge rules apply (a message field occurring twice merges, a repeated
//! map key keeps its last value, a singular field its last occurrence). Each row carries the byte
//! spans the views give, so the hex pane lines up with the tree. Features come a page at a time,
//! values and steps too, each page made when its row is opened.

use std::sync::Arc;

use super::tree::{Children, Ctx, FIELD_PAGE, LIST_LIMIT, Node, Source, Tree};
use crate::decode::{EntryReader, FieldValues, MapEntry, MessageView, Nodes, Value, ValuesAt};
use crate::example::{self, FeatureKind, FeatureValues};
use crate::schema::table::FieldId;
use crate::span::Span;
use crate::wire::ROOT;

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

    /// The fields of the typed message (an Example's or SequenceExample's), then any top-level
    /// fields protobuf does not know (kept as wire fields).
    pub(super) fn feature_view(&mut self, ctx: &Ctx<'_>, parent: usize) {
        let Some(typed) = ctx.parsed.root() else {
            return;
        };
        for field in typed.fields() {
            if let Some(Value::Message(message)) = field.singular() {
                self.message_row(ctx, parent, &field.info().name, &message);
            }
        }
        let tree = ctx.parsed.tree;
        for child in tree.children(ROOT) {
            if tree.node(child).is_some_and(|n| n.field().is_none()) {
                self.wire_field(ctx, parent, child as u32);
            }
        }
    }

    /// A `Features` or `FeatureLists` message met inside another message type, shown like an
    /// Example's.
    pub(super) fn container_row(&mut self, n: usize, message: &MessageView<'_>) {
        if message.type_name() == "Features" {
            let features = example::Features::of(message);
            self.work += features.len() as u64;
            self.set_detail(n, crate::words::plural(features.len() as u64, "feature"));
            self.later_named(n, features.map_field(), features.entries().collect(), false);
        } else {
            let lists = example::FeatureLists::of(message);
            self.work += lists.len() as u64;
            self.set_detail(n, crate::words::plural(lists.len() as u64, "feature list"));
            self.later_named(n, lists.map_field(), lists.entries().collect(), true);
        }
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
            if lists {
                let list = example::feature_list(&reader, entry);
                let mut row =
                    Node::new(depth, Some(parent), list.shown_name(), ctx.file(list.span));
                row.wire = Some(entry.last);
                row.detail = crate::words::plural(list.len() as u64, "step");
                if let Some(steps) = list.steps_field().filter(|_| !list.is_empty()) {
                    row.children = Children::Later(Source::Steps {
                        field: steps.id(),
                        nodes: Nodes::new(steps.nodes()),
                        from: 0,
                        at: ValuesAt::default(),
                    });
                }
                self.push(row);
            } else {
                let feature = example::feature(&reader, entry);
                let mut row = Node::new(
                    depth,
                    Some(parent),
                    feature.shown_name(),
                    ctx.file(feature.span),
                );
                row.wire = Some(entry.last);
                row.detail = self.values_line(&feature.values);
                row.children = values_source(&feature.values);
                self.push(row);
            }
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

    /// A feature's one-line summary: `int64[2] [10, 20]`, worded as `show` words it.
    pub(super) fn values_line(&self, values: &FeatureValues<'_>) -> String {
        let summary = example::values_summary(values, self.declared_shape, SUMMARY_VALUES);
        match values.kind() {
            FeatureKind::Empty => summary,
            _ => format!("{}[{}] {summary}", values.kind_name(), values.len()),
        }
    }

    /// `[i]` rows for a page of a feature's values.
    pub(super) fn value_rows(
        &mut self,
        ctx: &Ctx<'_>,
        parent: usize,
        field: FieldId,
        nodes: &Nodes,
        from: usize,
        at: ValuesAt,
    ) {
        let list = FieldValues::new(ctx.parsed, field, nodes.as_slice());
        let depth = self.depth(parent) + 1;
        let mut values = list.values_from(at);
        for i in 0..LIST_LIMIT {
            let Some((value, span)) = values.next() else {
                return;
            };
            let text = match &value {
                Value::Bytes(b, _) | Value::String(b, _) => {
                    example::bytes_summary(b, self.declared_shape)
                }
                Value::Scalar(s) => crate::textformat::scalar_text(s),
                Value::Message(_) => String::new(),
            };
            let mut row = Node::new(
                depth,
                Some(parent),
                format!("[{}]", from + i),
                ctx.file(span),
            );
            row.detail = text;
            if matches!(value, Value::Bytes(..) | Value::String(..)) {
                row.value = Some(ctx.file(span));
            }
            self.push(row);
        }
        let next_at = values.at();
        let Some((_, first)) = values.next() else {
            return;
        };
        let count = list.count().saturating_sub(from + LIST_LIMIT);
        let end = nodes
            .as_slice()
            .last()
            .and_then(|n| ctx.parsed_node_end(*n))
            .unwrap_or(first.end);
        let range = ctx.file(Span::new(first.start, end.max(first.start)));
        self.more_row(
            parent,
            format!("… {count} more"),
            range,
            Source::Values {
                field,
                nodes: nodes.clone(),
                from: from + LIST_LIMIT,
                at: next_at,
            },
        );
    }

    /// `step i` rows for a page of a feature list's steps.
    pub(super) fn step_rows(
        &mut self,
        ctx: &Ctx<'_>,
        parent: usize,
        field: FieldId,
        nodes: &Nodes,
        from: usize,
        at: ValuesAt,
    ) {
        let list = FieldValues::new(ctx.parsed, field, nodes.as_slice());
        let depth = self.depth(parent) + 1;
        let mut steps = list.values_from(at);
        for i in 0..LIST_LIMIT {
            let Some((value, span)) = steps.next() else {
                return;
            };
            let values = match &value {
                Value::Message(feature) => FeatureValues::of(feature),
                _ => continue,
            };
            let mut row = Node::new(
                depth,
                Some(parent),
                format!("step {}", from + i),
                ctx.file(span),
            );
            row.detail = self.values_line(&values);
            row.children = values_source(&values);
            self.push(row);
        }
        let next_at = steps.at();
        let Some((_, first)) = steps.next() else {
            return;
        };
        let count = list.count().saturating_sub(from + LIST_LIMIT);
        let end = nodes
            .as_slice()
            .last()
            .and_then(|n| ctx.parsed.node(*n))
            .map_or(first.end, |n| n.data_span().end);
        let range = ctx.file(Span::new(first.start, end.max(first.start)));
        self.more_row(
            parent,
            format!("… {count} more steps"),
            range,
            Source::Steps {
                field,
                nodes: nodes.clone(),
                from: from + LIST_LIMIT,
                at: next_at,
            },
        );
    }
}

/// Values shown in a feature's one-line summary before "… N more".
const SUMMARY_VALUES: usize = 3;

/// How a feature's `[i]` rows are made, when it has values.
fn values_source(values: &FeatureValues<'_>) -> Children {
    match values.list() {
        Some(list) if !values.is_empty() => Children::Later(Source::Values {
            field: list.id(),
            nodes: Nodes::new(list.nodes()),
            from: 0,
            at: ValuesAt::default(),
        }),
        _ => Children::None,
    }
}
