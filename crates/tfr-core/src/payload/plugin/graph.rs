//! The graphs plugin's summaries, and graphs wherever an event holds one: a `tensorflow.GraphDef`
//! is listed node by node (name and op), whether it is TF1's `Event.graph_def` or one of the
//! graphs of the `tensorflow.RunMetadata` a TF2 graph trace writes (`tf.summary.trace_export`:
//! plugin `graph_run_metadata_graph`, or `graph_run_metadata` with the profiler's step stats). A
//! Keras model's config (plugin `graph_keras_model`, from Keras' TensorBoard callback) is JSON in
//! a string scalar, shown indented.

use super::{
    Nested, PluginValue, ROWS_SHOWN, Row, SummaryPlugin, TensorValue, messages, more_row, singular,
    span_within, string_field,
};
use crate::decode::{MessageView, Value};
use crate::escape;
use crate::schema::{ProtoFile, builtin};
use crate::span::Span;
use crate::words::plural;

/// The message a graph is.
pub const GRAPH_MESSAGE: &str = "tensorflow.GraphDef";

/// The message a graph trace is.
pub const RUN_METADATA_MESSAGE: &str = "tensorflow.RunMetadata";

/// Lines of a model's JSON shown before the rest are counted.
pub const JSON_LINES: usize = 1000;

/// A graph's nodes, as rows: `label  tensorflow.GraphDef, 6 nodes`, then each node's name and op.
pub fn graph_row(label: String, graph: &MessageView<'_>, nested: &Nested<'_>) -> Row {
    let nodes = messages(graph.field("node"));
    let mut children: Vec<Row> = nodes
        .iter()
        .take(ROWS_SHOWN)
        .map(|(node, span)| {
            let name = escape::bytes_for_terminal(string_field(node, "name")).into_owned();
            let op = escape::bytes_for_terminal(string_field(node, "op")).into_owned();
            Row::new(name, op).at(nested.in_payload(*span))
        })
        .collect();
    if nodes.len() > ROWS_SHOWN {
        children.push(more_row((nodes.len() - ROWS_SHOWN) as u64, "node"));
    }
    let spans = graph
        .spans()
        .map(|s| nested.in_payload(s))
        .collect::<Vec<_>>();
    Row::new(
        label,
        format!("{GRAPH_MESSAGE}, {}", plural(nodes.len(), "node")),
    )
    .at_all(spans)
    .with(children)
}

/// Serialized GraphDef `bytes` (at payload position `base`) as a row labelled `label`, or a row
/// saying why they are no GraphDef.
pub fn serialized_graph_row(
    label: &str,
    bytes: &[u8],
    base: usize,
    table: &crate::schema::table::Table,
) -> Row {
    let span = Span::new(base, base.saturating_add(bytes.len()));
    match Nested::walk(bytes, base, table, GRAPH_MESSAGE) {
        Ok(nested) => match nested.root() {
            Some(graph) => graph_row(label.to_string(), &graph, &nested),
            None => Row::new(label, "unreadable").at(span),
        },
        Err(why) => Row::new(label, why).at(span),
    }
}

/// The serialized message a string scalar value holds, with where it lies in the payload.
fn string_scalar<'a>(value: &PluginValue<'a>) -> Result<(&'a [u8], usize), String> {
    let tensor = TensorValue::read(value.tensor().ok_or("no tensor")?);
    let bytes = tensor
        .bytes(0)
        .filter(|_| tensor.tensor().is_some_and(|t| t.len() == 1))
        .ok_or_else(|| format!("tensor {} is no string scalar", tensor.signature()))?;
    let base = span_within(value.payload(), bytes).map_or(0, |s| s.start);
    Ok((bytes, base))
}

/// `graph_run_metadata_graph` and `graph_run_metadata`: a serialized `RunMetadata`.
pub struct RunMetadataGraph {
    name: &'static str,
}

pub static RUN_METADATA_GRAPH: RunMetadataGraph = RunMetadataGraph {
    name: "graph_run_metadata_graph",
};

pub static RUN_METADATA: RunMetadataGraph = RunMetadataGraph {
    name: "graph_run_metadata",
};

/// What a trace holds: its functions with the nodes of their graphs before optimization (the
/// graph TensorBoard draws), and its own partition graphs with theirs.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub functions: u64,
    pub pre_optimization_nodes: u64,
    pub partition_graphs: u64,
    pub partition_nodes: u64,
    /// Devices the profiler's step stats cover.
    pub devices: Option<u64>,
}

/// How many nodes a graph has.
fn nodes_of(graph: &MessageView<'_>) -> u64 {
    graph.field("node").map_or(0, |f| f.count()) as u64
}

/// The graphs of a `RunMetadata` as rows, and what it holds counted.
struct TraceRows<'n, 'a> {
    nested: &'n Nested<'a>,
    counts: Counts,
}

impl TraceRows<'_, '_> {
    /// The graphs of repeated field `field` of `message`, the first [`ROWS_SHOWN`] as rows; with
    /// `count`, counted as the trace's own partition graphs.
    fn graphs(&mut self, field: &str, message: &MessageView<'_>, count: bool, into: &mut Vec<Row>) {
        let all = messages(message.field(field));
        let total = all.len();
        for (i, (graph, _)) in all.into_iter().enumerate() {
            if count {
                self.counts.partition_graphs += 1;
                self.counts.partition_nodes += nodes_of(&graph);
            }
            if i < ROWS_SHOWN {
                into.push(graph_row(format!("{field}[{i}]"), &graph, self.nested));
            }
        }
        if total > ROWS_SHOWN {
            into.push(more_row((total - ROWS_SHOWN) as u64, "graph"));
        }
    }

    /// Its partition graphs, then per function its partition graphs and its graphs before and
    /// after optimization, then what the profiler adds.
    fn rows(&mut self, run: &MessageView<'_>) -> Vec<Row> {
        let mut rows = Vec::new();
        self.graphs("partition_graphs", run, true, &mut rows);
        let functions = messages(run.field("function_graphs"));
        let total = functions.len();
        for (i, (function, span)) in functions.into_iter().enumerate() {
            self.counts.functions += 1;
            if let Some(Value::Message(graph)) = singular(&function, "pre_optimization_graph") {
                self.counts.pre_optimization_nodes += nodes_of(&graph);
            }
            if i < ROWS_SHOWN {
                let mut children = Vec::new();
                self.graphs("partition_graphs", &function, false, &mut children);
                for field in ["pre_optimization_graph", "post_optimization_graph"] {
                    if let Some(Value::Message(graph)) = singular(&function, field) {
                        children.push(graph_row(field.to_string(), &graph, self.nested));
                    }
                }
                let detail = plural(children.len(), "graph");
                let span = self.nested.in_payload(span);
                rows.push(
                    Row::new(format!("function_graphs[{i}]"), detail)
                        .at(span)
                        .with(children),
                );
            }
        }
        if total > ROWS_SHOWN {
            rows.push(more_row((total - ROWS_SHOWN) as u64, "function"));
        }
        if let Some(Value::Message(stats)) = singular(run, "step_stats") {
            let devices = stats.field("dev_stats").map_or(0, |f| f.count());
            self.counts.devices = Some(devices as u64);
            rows.push(Row::new("step_stats", plural(devices, "device")));
        }
        if let Some(Value::Message(cost)) = singular(run, "cost_graph") {
            let nodes = cost.field("node").map_or(0, |f| f.count());
            rows.push(Row::new("cost_graph", plural(nodes, "node")));
        }
        rows
    }
}

impl RunMetadataGraph {
    fn read(&self, value: &PluginValue<'_>) -> Result<(Vec<Row>, Counts), String> {
        let (bytes, base) = string_scalar(value)?;
        let nested = Nested::walk(bytes, base, value.table(), RUN_METADATA_MESSAGE)?;
        let run = nested.root().ok_or("unreadable")?;
        let mut trace = TraceRows {
            nested: &nested,
            counts: Counts::default(),
        };
        let rows = trace.rows(&run);
        Ok((rows, trace.counts))
    }
}

impl SummaryPlugin for RunMetadataGraph {
    fn name(&self) -> &'static str {
        self.name
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::RUN_METADATA
    }

    fn line(&self, value: &PluginValue<'_>) -> String {
        match self.read(value) {
            Ok((_, counts)) => {
                let mut line = if counts.functions > 0 || counts.partition_graphs == 0 {
                    format!(
                        "graph trace: {}, {} before optimization",
                        plural(counts.functions, "function"),
                        plural(counts.pre_optimization_nodes, "node")
                    )
                } else {
                    format!(
                        "graph trace: {}, {}",
                        plural(counts.partition_graphs, "partition graph"),
                        plural(counts.partition_nodes, "node")
                    )
                };
                if let Some(devices) = counts.devices {
                    line.push_str(&format!(", step stats of {}", plural(devices, "device")));
                }
                line
            }
            Err(why) => format!("graph trace: {why}"),
        }
    }

    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        self.read(value).map(|(rows, _)| rows).unwrap_or_default()
    }
}

/// `graph_keras_model`: a Keras model's config as JSON.
pub struct KerasModel;

pub static KERAS_MODEL: KerasModel = KerasModel;

/// The model's JSON, checked to be JSON.
fn model_json<'a>(value: &PluginValue<'a>) -> Result<(&'a str, serde_json::Value), String> {
    let (bytes, _) = string_scalar(value)?;
    let text = std::str::from_utf8(bytes).map_err(|e| format!("config is not UTF-8: {e}"))?;
    let json = serde_json::from_str(text).map_err(|e| format!("config is not JSON: {e}"))?;
    Ok((text, json))
}

impl SummaryPlugin for KerasModel {
    fn name(&self) -> &'static str {
        "graph_keras_model"
    }

    /// `keras model Sequential "tiny", 3 layers`.
    fn line(&self, value: &PluginValue<'_>) -> String {
        let json = match model_json(value) {
            Ok((_, json)) => json,
            Err(why) => return format!("keras model: {why}"),
        };
        let text = |v: Option<&serde_json::Value>| {
            v.and_then(serde_json::Value::as_str)
                .map(|s| escape::for_terminal(s).into_owned())
        };
        let mut line = "keras model".to_string();
        if let Some(class) = text(json.get("class_name")) {
            line.push(' ');
            line.push_str(&class);
        }
        let config = json.get("config");
        if let Some(name) = text(config.and_then(|c| c.get("name"))) {
            line.push_str(&format!(" \"{name}\""));
        }
        if let Some(layers) = config
            .and_then(|c| c.get("layers"))
            .and_then(serde_json::Value::as_array)
        {
            line.push_str(&format!(", {}", plural(layers.len(), "layer")));
        }
        line
    }

    /// The JSON indented as Python's `json.dumps(indent=2)` writes it, keys in their order.
    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        let Ok((text, _)) = model_json(value) else {
            return Vec::new();
        };
        let (lines, total) = pretty_json(text, JSON_LINES);
        let mut rows: Vec<Row> = lines.into_iter().map(|l| Row::new("", l)).collect();
        if total > rows.len() {
            rows.push(more_row((total - rows.len()) as u64, "line"));
        }
        rows
    }
}

/// Valid JSON `text` indented two spaces a level, a member or item a line, keys in the order
/// written: the first `keep` lines (escaped for a terminal) and how many there are in all.
pub fn pretty_json(text: &str, keep: usize) -> (Vec<String>, usize) {
    let mut lines = Vec::new();
    let mut total = 0usize;
    let mut line = String::new();
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut end = |line: &mut String, depth: usize| {
        let done = std::mem::replace(line, "  ".repeat(depth));
        if lines.len() < keep {
            lines.push(escape::for_terminal(&done).into_owned());
        }
        total += 1;
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            line.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                line.push(c);
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                line.push(c);
                if chars.peek() == Some(&close) {
                    chars.next();
                    line.push(close);
                } else {
                    depth += 1;
                    end(&mut line, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                end(&mut line, depth);
                line.push(c);
            }
            ',' => {
                line.push(c);
                end(&mut line, depth);
            }
            ':' => line.push_str(": "),
            c if c.is_whitespace() => {}
            c => line.push(c),
        }
    }
    if !line.trim().is_empty() {
        end(&mut line, 0);
    }
    (lines, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_indented_with_its_keys_in_order() {
        let (lines, total) = pretty_json(
            r#"{"z": 1, "a": [1, {"b": "x,\"y\"]"}], "e": {}, "f": [ ]}"#,
            100,
        );
        assert_eq!(
            lines,
            [
                "{",
                "  \"z\": 1,",
                "  \"a\": [",
                "    1,",
                "    {",
                "      \"b\": \"x,\\\"y\\\"]\"",
                "    }",
                "  ],",
                "  \"e\": {},",
                "  \"f\": []",
                "}",
            ]
        );
        assert_eq!(total, 11);
        let (kept, total) = pretty_json(r#"[1, 2, 3]"#, 2);
        assert_eq!((kept.len(), total), (2, 5));
        assert_eq!(pretty_json("7", 10).0, ["7"]);
    }

    #[test]
    fn json_strings_reach_a_terminal_escaped() {
        let (lines, _) = pretty_json("[\"\u{202e}x\"]", 10);
        assert!(lines.iter().all(|l| !l.contains('\u{202e}')), "{lines:?}");
    }
}
