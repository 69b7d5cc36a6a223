//! TensorBoard's `tensorflow.Event` as a payload type: the records of `events.out.tfevents.*`
//! files. Its views say what TensorBoard would show of a record (step, time, each summary value
//! with its scalar, histogram or image, built on [`crate::event`], or what the plugin it is for
//! reads in it, [`super::plugin`]), and decode the `graph_def` bytes as the `tensorflow.GraphDef`
//! they hold.

use std::io::{self, Write};

use super::plugin::{self, PluginValue, Row, write_rows};
use super::{
    Declared, ImageCandidates, Names, NodeReading, PayloadKind, PayloadType, PayloadView, Probe,
    Scalars, Summary, Typed,
};
use crate::decode::{MessageView, Value};
use crate::event::{self as events, FILE_VERSION_PREFIX, Histogram};
use crate::schema::builtin;
use crate::span::Span;
use crate::textformat::message_to_text;
use crate::wire::{NodeKind, ROOT, WireType};

/// The message an event payload is.
pub const EVENT_MESSAGE: &str = "tensorflow.Event";

/// The message `Event.graph_def` holds.
pub const GRAPH_MESSAGE: &str = plugin::graph::GRAPH_MESSAGE;

/// The message a summary value is.
const VALUE_MESSAGE: &str = "tensorflow.Summary.Value";

/// `tensorflow.Event`.
pub struct Event;

pub static EVENT: Event = Event;

impl PayloadType for Event {
    fn declared(&self) -> &Declared {
        const DECLARED: Declared = Declared::message("Event", EVENT_MESSAGE, builtin::EVENT);
        &DECLARED
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

    fn typed_summary(&self, typed: &Typed<'_>) -> Summary {
        Summary {
            features: None,
            names: Names::default(),
            line: events::summarize(&typed.message),
        }
    }

    fn write_typed_tree(&self, typed: &Typed<'_>, out: &mut dyn Write) -> io::Result<()> {
        let Typed { view, message } = typed;
        writeln!(out, "Event {}", events::summarize(message))?;
        if let Some(Value::Message(summary)) = message.field("summary").and_then(|f| f.singular()) {
            write_summary_values(&summary, out)?;
        }
        for histogram in events::histograms(message) {
            write_histogram(&histogram, out)?;
        }
        if let Some(Value::Bytes(graph, span)) =
            message.field("graph_def").and_then(|f| f.singular())
        {
            let row =
                plugin::graph::serialized_graph_row("graph_def", graph, span.start, view.table);
            write_rows(out, &[row], 2)?;
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
        for line in message_to_text(message).lines() {
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

    /// A summary value's row says what it holds, and opens what its plugin reads in it; a
    /// `graph_def` opens into the graph's nodes.
    fn node_reading(&self, view: &PayloadView<'_>, node: usize) -> Option<NodeReading> {
        let parsed = view.parsed();
        let wire = parsed.tree.node(node)?;
        match wire.kind() {
            NodeKind::Message => {
                let id = parsed.tree.message_type(node, parsed.table)?;
                if &*parsed.table.message(id)?.full_name != VALUE_MESSAGE {
                    return None;
                }
                let value = MessageView::new(parsed, id, &[u32::try_from(node).ok()?]);
                Some(NodeReading {
                    detail: events::describe(&events::tagged_value(&value)),
                    rows: plugin_rows(&value),
                })
            }
            NodeKind::Bytes if node == graph_def_node(view)? => {
                let span = wire.data_span();
                let graph = span.slice(view.payload)?;
                let row =
                    plugin::graph::serialized_graph_row("graph_def", graph, span.start, view.table);
                Some(NodeReading {
                    detail: row.detail.clone(),
                    rows: row.children,
                })
            }
            _ => None,
        }
    }

    /// The `file_version` event TensorFlow's and tensorboardX's writers begin every file with.
    fn names_file(&self, view: &PayloadView<'_>) -> bool {
        view.typed().is_some_and(|event| {
            matches!(
                event.field("file_version").and_then(|f| f.singular()),
                Some(Value::String(version, _)) if version.starts_with(FILE_VERSION_PREFIX)
            )
        })
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

    /// An event file's scalars plot as lines over its steps.
    fn plots(&self) -> bool {
        true
    }

    fn scalars<'a>(&self, view: &PayloadView<'a>) -> Option<Scalars<'a>> {
        let typed = view.typed()?;
        Some(Scalars {
            step: events::step_of(&typed),
            values: events::scalars(&typed),
        })
    }

    fn histograms<'a>(&self, view: &PayloadView<'a>) -> Vec<Histogram<'a>> {
        view.typed()
            .map(|typed| events::histograms(&typed))
            .unwrap_or_default()
    }
}

/// One line per value of an event's summary (its tag and what it holds), each followed by the
/// rows its plugin reads in it.
fn write_summary_values(summary: &MessageView<'_>, out: &mut dyn Write) -> io::Result<()> {
    let values: Vec<MessageView<'_>> = summary
        .field("value")
        .map(|f| {
            f.values()
                .filter_map(|(v, _)| match v {
                    Value::Message(m) => Some(m),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let tags: Vec<String> = values
        .iter()
        .map(|v| crate::escape::bytes_for_terminal(plugin::string_field(v, "tag")).into_owned())
        .collect();
    let width = crate::words::column_width(tags.iter().map(|t| crate::words::display_width(t)));
    for (value, tag) in values.iter().zip(&tags) {
        let tagged = events::tagged_value(value);
        let what = match &tagged.reading {
            events::Reading::Plugin { line, .. } => line.clone(),
            reading => events::describe(&events::TaggedValue {
                tag: b"",
                reading: reading.clone(),
            })
            .trim_start()
            .to_string(),
        };
        writeln!(out, "  {} {what}", crate::words::pad_to(tag, width))?;
        write_rows(out, &plugin_rows(value), 4)?;
    }
    Ok(())
}

/// A histogram's range, total and bucket counts, as TensorBoard's distribution shows it.
fn write_histogram(histogram: &Histogram<'_>, out: &mut dyn Write) -> io::Result<()> {
    let buckets = &histogram.buckets;
    let (Some(first), Some(last)) = (buckets.first(), buckets.last()) else {
        return Ok(());
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
    Ok(())
}

/// The wire node of the event's `graph_def` a parser keeps.
fn graph_def_node(view: &PayloadView<'_>) -> Option<usize> {
    let typed = view.typed()?;
    let field = typed.field("graph_def")?;
    field.nodes().last().map(|n| *n as usize)
}

/// Where a summary's encoded images lie.
fn summary_images(summary: &MessageView<'_>, into: &mut Vec<Span>) {
    for value in crate::event::value_messages(summary) {
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

/// What the plugin a summary value is for reads in it, as rows.
fn plugin_rows(value: &MessageView<'_>) -> Vec<Row> {
    let plugin_value = PluginValue::of(value);
    plugin::plugin_for(&plugin_value).map_or_else(Vec::new, |p| p.rows(&plugin_value))
}

/// Whether a file's name says it holds events, for decoders that learn a file's kind.
pub fn file_kind_from_name(name: &str) -> Option<PayloadKind> {
    events::is_event_file_name(name).then_some(PayloadKind::Builtin(&EVENT))
}
