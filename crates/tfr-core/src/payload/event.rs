//! TensorBoard's `tensorflow.Event` as a payload type: the records of `events.out.tfevents.*`
//! files. Its views say what TensorBoard would show of a record (step, time, each summary value
//! with its scalar, histogram, image or text, built on [`crate::event`]), and decode the
//! `graph_def` bytes as the `tensorflow.GraphDef` they hold.

use std::io::{self, Write};

use super::{
    ImageCandidates, Names, PayloadKind, PayloadType, PayloadView, Probe, Summary, fallback,
};
use crate::decode::{self, MessageView, Parsed, Value};
use crate::event::{self as events, FILE_VERSION_PREFIX};
use crate::schema::table::Table;
use crate::schema::{ProtoFile, builtin};
use crate::span::Span;
use crate::textformat::message_to_text;
use crate::wire::{self, ROOT, WireType};
use crate::words::plural;

/// The message an event payload is.
pub const EVENT_MESSAGE: &str = "tensorflow.Event";

/// The message `Event.graph_def` holds.
pub const GRAPH_MESSAGE: &str = "tensorflow.GraphDef";

/// GraphDef nodes listed in the `show` tree before the rest are counted.
const NODES_SHOWN: usize = 64;

/// `tensorflow.Event`.
pub struct Event;

pub static EVENT: Event = Event;

impl PayloadType for Event {
    fn name(&self) -> &'static str {
        "Event"
    }

    fn message(&self) -> Option<&'static str> {
        Some(EVENT_MESSAGE)
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::EVENT
    }

    /// A valid Event whose every top-level field is one Event declares, carrying what every
    /// event writer sets: a `wall_time` (field 1, a double) or TensorBoard's `file_version`. In
    /// a file of events (learnt, or named `events.out.tfevents.*`) any such valid Event is one.
    fn detect(&self, probe: &mut Probe<'_>) -> bool {
        let payload = probe.payload();
        let likely = probe.likely().is_some_and(|k| k.is(self));
        let Some(tree) = probe.valid_walk(EVENT_MESSAGE) else {
            return false;
        };
        let mut marked = false;
        for node in tree.children(ROOT).filter_map(|c| tree.node(c)) {
            if node.field().is_none() {
                return false;
            }
            let version = node.number() == 3
                && node
                    .data_span()
                    .slice(payload)
                    .is_some_and(|v| v.starts_with(FILE_VERSION_PREFIX));
            marked |= (node.number() == 1 && node.wire_type() == WireType::I64) || version;
        }
        marked || (likely && tree.children(ROOT).next().is_some())
    }

    fn summary(&self, view: &PayloadView<'_>) -> Summary {
        match view.typed() {
            Some(typed) => Summary {
                features: None,
                names: Names::default(),
                line: events::summarize(&typed),
            },
            None => fallback::bytes_summary(view),
        }
    }

    fn write_tree(
        &self,
        view: &PayloadView<'_>,
        heading: &str,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let Some(typed) = view.typed() else {
            return fallback::write_plain(view, heading, out);
        };
        writeln!(out, "{heading}  Event {}", events::summarize(&typed))?;
        if let Some(Value::Message(summary)) = typed.field("summary").and_then(|f| f.singular()) {
            let values = events::summary_values(&summary);
            let width =
                crate::words::column_width(values.iter().map(|v| {
                    crate::words::display_width(&crate::escape::bytes_for_terminal(v.tag))
                }));
            for value in &values {
                let tag = crate::escape::bytes_for_terminal(value.tag);
                let what = events::describe(&events::TaggedValue {
                    tag: b"",
                    reading: value.reading.clone(),
                });
                let tag = crate::words::pad_to(&tag, width);
                writeln!(out, "  {tag} {}", what.trim_start())?;
            }
        }
        // A histogram's range, total and bucket counts, as TensorBoard's distribution shows it.
        for histogram in events::histograms(&typed) {
            let buckets = &histogram.buckets;
            let (Some(first), Some(last)) = (buckets.first(), buckets.last()) else {
                continue;
            };
            let number = crate::words::short;
            let total: f64 = buckets.iter().map(|b| b.count).sum();
            let counts: Vec<String> = buckets.iter().map(|b| number(b.count)).collect();
            // A histogram cut at the buckets read says so: its range and total are theirs.
            let cut = match histogram.left_out() {
                0 => String::new(),
                left_out => format!(
                    " in the first {} of {} buckets ({left_out} not shown)",
                    buckets.len(),
                    histogram.total_buckets
                ),
            };
            writeln!(
                out,
                "  {} range {}..{}, {} values{cut}, counts [{}]",
                crate::escape::bytes_for_terminal(histogram.tag),
                number(first.left),
                number(last.right),
                number(total),
                counts.join(", ")
            )?;
        }
        if let Some(Value::Bytes(graph, _)) = typed.field("graph_def").and_then(|f| f.singular()) {
            write_graph(out, graph, view.table)?;
        }
        // What the lines above leave out (file_version, session logs, source metadata…), in
        // text format: the top-level blocks of the fields not yet described.
        // `meta_graph_def` is a serialized MetaGraphDef: its size is in the heading, and its
        // escaped bytes would fill screens.
        let described = [
            "wall_time",
            "step",
            "summary",
            "graph_def",
            "meta_graph_def",
        ];
        let mut skipping = false;
        for line in message_to_text(&typed).lines() {
            if !line.starts_with(' ') && !line.starts_with('}') {
                let name = line.split([':', ' ']).next().unwrap_or_default();
                skipping = described.contains(&name);
            }
            if !skipping {
                writeln!(out, "  {line}")?;
            }
        }
        Ok(())
    }

    /// Summary images: TF1 `image.encoded_image_string` and the encoded strings of TF2 image
    /// tensors (after their width and height).
    fn image_candidates(&self, view: &PayloadView<'_>, budget: usize) -> ImageCandidates {
        let Some(typed) = view.typed() else {
            return ImageCandidates::default();
        };
        let mut values = Vec::new();
        if let Some(Value::Message(summary)) = typed.field("summary").and_then(|f| f.singular()) {
            summary_images(&summary, &mut values);
        }
        values.truncate(budget);
        ImageCandidates {
            shape: None,
            values,
        }
    }
}

/// Where a summary's encoded images lie.
fn summary_images(summary: &MessageView<'_>, into: &mut Vec<Span>) {
    let Some(values) = summary.field("value") else {
        return;
    };
    for (value, _) in values.values() {
        let Value::Message(value) = value else {
            continue;
        };
        if let Some(Value::Message(image)) = value.field("image").and_then(|f| f.singular()) {
            if let Some(encoded) = image.field("encoded_image_string") {
                into.push(encoded.singular_span());
            }
        }
        if let Some(Value::Message(tensor)) = value.field("tensor").and_then(|f| f.singular()) {
            if let Some(strings) = tensor.field("string_val") {
                // An image summary tensor is [width, height, encoded...].
                into.extend(strings.values().skip(2).map(|(_, span)| span));
            }
        }
    }
}

/// `graph_def` decoded as a GraphDef: its node count and each node's name and op.
fn write_graph(out: &mut dyn Write, graph: &[u8], table: &Table) -> io::Result<()> {
    let Some(message) = table.message_by_name(GRAPH_MESSAGE) else {
        return Ok(());
    };
    let tree = wire::walk(graph, table, Some(message));
    let parsed = Parsed::new(&tree, graph, table);
    if let Err(invalid) = decode::validate(parsed) {
        return writeln!(out, "  graph_def: not a GraphDef: {invalid}");
    }
    let Some(root) = parsed.root() else {
        return Ok(());
    };
    let nodes: Vec<(String, String)> = root
        .field("node")
        .map(|nodes| {
            nodes
                .values()
                .filter_map(|(node, _)| match node {
                    Value::Message(node) => Some((text_of(&node, "name"), text_of(&node, "op"))),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    writeln!(
        out,
        "  graph_def  {GRAPH_MESSAGE}, {}",
        plural(nodes.len() as u64, "node")
    )?;
    let width = crate::words::column_width(
        nodes
            .iter()
            .take(NODES_SHOWN)
            .map(|(name, _)| crate::words::display_width(name)),
    );
    for (name, op) in nodes.iter().take(NODES_SHOWN) {
        writeln!(out, "    {}  {op}", crate::words::pad_to(name, width))?;
    }
    if nodes.len() > NODES_SHOWN {
        writeln!(out, "    … {} more nodes", nodes.len() - NODES_SHOWN)?;
    }
    Ok(())
}

/// A string field's value, escaped for a terminal.
fn text_of(message: &MessageView<'_>, name: &str) -> String {
    match message.field(name).and_then(|f| f.singular()) {
        Some(Value::String(text, _)) => crate::escape::bytes_for_terminal(text).into_owned(),
        _ => String::new(),
    }
}

/// Whether a file's name says it holds events, for decoders that learn a file's kind.
pub fn file_kind_from_name(name: &str) -> Option<PayloadKind> {
    events::is_event_file_name(name).then_some(PayloadKind::Builtin(&EVENT))
}
