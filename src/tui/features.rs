//! The Example view inside the tree: `Features` and `FeatureLists` maps shown as feature name →
//! kind → values rather than as the map entries and list messages they are on the wire.
//!
//! Entries are sorted by name (as `show` and protobuf's text format print them), but every node
//! still carries the wire path and byte range of the entry it came from, so the hex pane lines up.

use super::tree::{Builder, LIST_LIMIT};
use crate::example;
use crate::pyfmt::text_f32;
use crate::span::Span;
use crate::wire::{self, Field, Value};

impl Builder<'_> {
    /// The entries of a `Features` map, sorted by name; returns how many.
    pub(super) fn features(
        &mut self,
        features: &wire::Message,
        depth: usize,
        parent: usize,
        path: &mut Vec<usize>,
    ) -> usize {
        let mut entries: Vec<(String, usize, &Field)> = features
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.number == 1)
            .map(|(i, f)| (entry_key(self.payload, f), i, f))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        let count = entries.len();
        for (name, i, field) in entries {
            path.push(i);
            let range = self.file(field.span);
            let n = self.push(
                depth,
                Some(parent),
                name,
                String::new(),
                range,
                path.clone(),
            );
            let value = field.nested_message().and_then(|m| {
                m.fields
                    .iter()
                    .enumerate()
                    .rev()
                    .find(|(_, f)| f.number == 2)
            });
            let detail = match value {
                Some((vi, vfield)) => {
                    path.push(vi);
                    let d = self.feature(vfield, depth + 1, n, path);
                    path.pop();
                    d
                }
                None => "(no value)".into(),
            };
            self.set_detail(n, detail);
            path.pop();
        }
        self.message_errors(features, depth, parent, path);
        count
    }

    pub(super) fn message_errors(
        &mut self,
        message: &wire::Message,
        depth: usize,
        parent: usize,
        path: &[usize],
    ) {
        if let Some(error) = &message.error {
            let range = self.file(Span::new(error.at.min(message.span.end), message.span.end));
            self.push(
                depth,
                Some(parent),
                "invalid",
                error.to_string(),
                range,
                path.to_vec(),
            );
            self.mark_damaged();
        }
    }

    /// The values of one `Feature` (the field holding it is `field`); returns the summary line.
    pub(super) fn feature(
        &mut self,
        field: &Field,
        depth: usize,
        parent: usize,
        path: &mut Vec<usize>,
    ) -> String {
        let Some(feature) = field.nested_message() else {
            return "(not a Feature message)".into();
        };
        let Some((ki, list_field)) = feature.fields.iter().enumerate().next_back() else {
            return "(no kind set)".into();
        };
        let kind = match list_field.number {
            1 => "bytes",
            2 => "float",
            3 => "int64",
            _ => "unknown",
        };
        let Some(list) = list_field.nested_message() else {
            return format!("{kind} (not a list)");
        };
        path.push(ki);
        let mut items: Vec<(Span, String)> = Vec::new();
        let mut item_paths: Vec<Vec<usize>> = Vec::new();
        for (fi, f) in list
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.number == 1)
        {
            let mut p = path.clone();
            p.push(fi);
            match &f.value {
                Value::Bytes { data, .. } => {
                    let bytes = data.slice(self.payload).unwrap_or_default();
                    items.push((*data, example::bytes_summary(bytes, self.shape)));
                    item_paths.push(p);
                }
                Value::Packed { elements, .. } => {
                    for e in elements {
                        items.push((e.span, number_text(kind, e.raw)));
                        item_paths.push(p.clone());
                    }
                }
                Value::Varint { span, raw } | Value::Fixed64 { span, raw } => {
                    items.push((*span, number_text(kind, *raw)));
                    item_paths.push(p);
                }
                Value::Fixed32 { span, raw } => {
                    items.push((*span, number_text(kind, u64::from(*raw))));
                    item_paths.push(p);
                }
                _ => {}
            }
        }
        let n = items.len();
        let shown: Vec<&str> = items.iter().take(3).map(|(_, t)| t.as_str()).collect();
        let more = if n > 3 {
            format!(", … {} more", n - 3)
        } else {
            String::new()
        };
        let summary = format!("{kind}[{n}] {}{more}", shown.join(", "));
        for (i, ((span, text), p)) in items.iter().zip(&item_paths).enumerate() {
            if i == LIST_LIMIT {
                let last = items.last().map_or(span.end, |l| l.0.end);
                let range = self.file(Span::new(span.start, last.max(span.start)));
                self.push(
                    depth,
                    Some(parent),
                    format!("… {} more", n - LIST_LIMIT),
                    String::new(),
                    range,
                    p.clone(),
                );
                break;
            }
            let range = self.file(*span);
            let node = self.push(
                depth,
                Some(parent),
                format!("[{i}]"),
                text.clone(),
                range,
                p.clone(),
            );
            if kind == "bytes" {
                let value = self.file(*span);
                if let Some(nd) = self.nodes.get_mut(node) {
                    nd.value = Some(value);
                }
            }
        }
        self.message_errors(list, depth, parent, path);
        path.pop();
        summary
    }

    /// The entries of a `FeatureLists` map: name → steps → values; returns how many.
    pub(super) fn feature_lists(
        &mut self,
        lists: &wire::Message,
        depth: usize,
        parent: usize,
        path: &mut Vec<usize>,
    ) -> usize {
        let mut entries: Vec<(String, usize, &Field)> = lists
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.number == 1)
            .map(|(i, f)| (entry_key(self.payload, f), i, f))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        let count = entries.len();
        for (name, i, field) in entries {
            path.push(i);
            let range = self.file(field.span);
            let n = self.push(
                depth,
                Some(parent),
                name,
                String::new(),
                range,
                path.clone(),
            );
            let value = field.nested_message().and_then(|m| {
                m.fields
                    .iter()
                    .enumerate()
                    .rev()
                    .find(|(_, f)| f.number == 2)
            });
            let mut steps = 0;
            if let Some((vi, vfield)) = value {
                path.push(vi);
                if let Some(list) = vfield.nested_message() {
                    for (si, step) in list
                        .fields
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| f.number == 1)
                    {
                        path.push(si);
                        let r = self.file(step.span);
                        let s = self.push(
                            depth + 1,
                            Some(n),
                            format!("step {steps}"),
                            String::new(),
                            r,
                            path.clone(),
                        );
                        let d = self.feature(step, depth + 2, s, path);
                        self.set_detail(s, d);
                        steps += 1;
                        path.pop();
                    }
                }
                path.pop();
            }
            self.set_detail(n, format!("{steps} steps"));
            path.pop();
        }
        count
    }
}

/// The key of a map entry field (its field 1 as text).
fn entry_key(payload: &[u8], entry: &Field) -> String {
    entry
        .nested_message()
        .and_then(|m| m.fields.iter().rev().find(|f| f.number == 1))
        .and_then(|k| match &k.value {
            Value::Bytes { data, .. } => data.slice(payload),
            _ => None,
        })
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

fn number_text(kind: &str, raw: u64) -> String {
    match kind {
        "float" => text_f32(f32::from_bits(raw as u32)),
        _ => (raw as i64).to_string(),
    }
}
