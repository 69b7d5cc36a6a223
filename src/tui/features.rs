//! The Example view inside the tree: `Features` and `FeatureLists` shown as feature name → values
//! rather than as the map entries and list messages they are on the wire.
//!
//! The rows come from the typed layer ([`TypedMessage`] and [`crate::example`]), the same values
//! `show` prints: protobuf's merge rules apply (a message field occurring twice merges, a repeated
//! map key keeps its last value, a singular field its last occurrence). Each node still carries
//! the byte spans the typed layer recorded, so the hex pane lines up with the tree.

use super::tree::{Builder, LIST_LIMIT};
use crate::decode::{FieldValues, TypedMessage, TypedValue};
use crate::example::{self, Feature, FeatureValues};
use crate::pyfmt::text_f32;
use crate::span::Span;
use crate::wire;

/// Values shown in a feature's one-line summary before "… N more".
const SUMMARY_VALUES: usize = 3;

impl Builder<'_> {
    /// The fields of an Example or SequenceExample (`features`, `context`, `feature_lists`) from
    /// the typed message, then any top-level fields protobuf does not know (kept as wire fields).
    pub(super) fn example(
        &mut self,
        typed: &TypedMessage<'_>,
        tree: &wire::Message,
        depth: usize,
        parent: usize,
    ) {
        for field in &typed.fields {
            let FieldValues::Singular(TypedValue::Message(message)) = &field.values else {
                continue;
            };
            let label = field.descriptor.name().to_string();
            let spans = message.spans.clone();
            let n = self.push_spans(depth, parent, label, String::new(), &spans);
            match message.descriptor.name() {
                "Features" => {
                    let count = self.features(&example::features_of(message), depth + 1, n);
                    self.set_detail(n, format!("{count} features"));
                }
                "FeatureLists" => {
                    let count = self.feature_lists(message, depth + 1, n);
                    self.set_detail(n, format!("{count} feature lists"));
                }
                other => self.set_detail(n, other.to_string()),
            }
        }
        for (i, field) in tree.fields.iter().enumerate() {
            if field.descriptor.is_none() {
                self.unknown_field(field, depth, parent, i);
            }
        }
    }

    /// A `Features` message met inside another message type, shown like an Example's features.
    pub(super) fn nested_features(
        &mut self,
        features: &wire::Message,
        depth: usize,
        parent: usize,
    ) -> usize {
        match TypedMessage::new(self.payload, features) {
            Some(typed) => self.features(&example::features_of(&typed), depth, parent),
            None => 0,
        }
    }

    /// A `FeatureLists` message met inside another message type.
    pub(super) fn nested_feature_lists(
        &mut self,
        lists: &wire::Message,
        depth: usize,
        parent: usize,
    ) -> usize {
        match TypedMessage::new(self.payload, lists) {
            Some(typed) => self.feature_lists(&typed, depth, parent),
            None => 0,
        }
    }

    /// One node per feature (sorted by name, as `show` prints them); returns how many.
    fn features(&mut self, features: &[Feature<'_>], depth: usize, parent: usize) -> usize {
        for feature in features {
            let n = self.push_spans(
                depth,
                parent,
                feature.name.clone(),
                String::new(),
                &[feature.span],
            );
            let detail = self.values(&feature.values, &feature.value_spans, depth + 1, n);
            self.set_detail(n, detail);
        }
        features.len()
    }

    /// The entries of a typed `FeatureLists` map: name → steps → values; returns how many.
    fn feature_lists(&mut self, lists: &TypedMessage<'_>, depth: usize, parent: usize) -> usize {
        let lists = example::feature_lists_in(lists);
        for list in &lists {
            let n = self.push_spans(
                depth,
                parent,
                list.name.clone(),
                String::new(),
                &[list.span],
            );
            for (i, step) in list.steps.iter().enumerate() {
                if i == LIST_LIMIT {
                    let last = list.steps.last().map_or(step.span.end, |l| l.span.end);
                    let label = format!("… {} more steps", list.steps.len() - LIST_LIMIT);
                    let hull = Span::new(step.span.start, last.max(step.span.start));
                    self.push_spans(depth + 1, n, label, String::new(), &[hull]);
                    break;
                }
                let s = self.push_spans(
                    depth + 1,
                    n,
                    format!("step {i}"),
                    String::new(),
                    &[step.span],
                );
                let detail = self.values(&step.values, &step.value_spans, depth + 2, s);
                self.set_detail(s, detail);
            }
            self.set_detail(n, crate::words::plural(list.steps.len() as u64, "step"));
        }
        lists.len()
    }

    /// `[i]` nodes for a feature's values; returns the feature's one-line summary
    /// (`int64[2] [10, 20]`, worded as `show` words it).
    fn values(
        &mut self,
        values: &FeatureValues<'_>,
        spans: &[Span],
        depth: usize,
        parent: usize,
    ) -> String {
        let texts: Vec<String> = match values {
            FeatureValues::Bytes(v) => v
                .iter()
                .take(LIST_LIMIT)
                .map(|(b, _)| example::bytes_summary(b, self.shape))
                .collect(),
            FeatureValues::Float(v) => v.iter().take(LIST_LIMIT).map(|f| text_f32(*f)).collect(),
            FeatureValues::Int64(v) => v.iter().take(LIST_LIMIT).map(i64::to_string).collect(),
            FeatureValues::Empty => Vec::new(),
        };
        let is_bytes = matches!(values, FeatureValues::Bytes(_));
        for (i, (text, span)) in texts.into_iter().zip(spans).enumerate() {
            let node = self.push_spans(depth, parent, format!("[{i}]"), text, &[*span]);
            if is_bytes {
                let range = self.file(*span);
                if let Some(nd) = self.nodes.get_mut(node) {
                    nd.value = Some(range);
                }
            }
        }
        if let (Some(first), Some(last)) = (spans.get(LIST_LIMIT), spans.last()) {
            let hull = Span::new(first.start, last.end.max(first.start));
            let label = format!("… {} more", values.len().saturating_sub(LIST_LIMIT));
            self.push_spans(depth, parent, label, String::new(), &[hull]);
        }
        let summary = example::values_summary(values, self.shape, SUMMARY_VALUES);
        match values {
            FeatureValues::Empty => summary,
            _ => format!("{}[{}] {summary}", values.kind_name(), values.len()),
        }
    }
}
