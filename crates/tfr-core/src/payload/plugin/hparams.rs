//! The `hparams` plugin: its content is a `tensorboard.hparams.HParamsPluginData` holding one of
//! the experiment (each hyperparameter's name, type and domain, and the metrics), a session's
//! start (the values it ran with) or a session's end (its status). TensorBoard's API writes it on
//! an empty float tensor; tensorboardX's `add_hparams` on a value with no tensor at all.

use super::{
    Nested, PluginValue, ROWS_SHOWN, Row, SummaryPlugin, enum_field, messages, more_row,
    number_field, quoted, singular, text_field,
};
use crate::decode::{MessageView, Scalar, Value};
use crate::escape;
use crate::event::wall_time;
use crate::pyfmt::repr_f64;
use crate::schema::{ProtoFile, builtin};
use crate::span::Span;
use crate::words::plural;

/// The message the plugin's content is.
pub const CONTENT_MESSAGE: &str = "tensorboard.hparams.HParamsPluginData";

/// The tags TensorBoard's and tensorboardX's writers give the three kinds of value.
pub const TAGS: [&[u8]; 3] = [
    b"_hparams_/experiment",
    b"_hparams_/session_start_info",
    b"_hparams_/session_end_info",
];

/// Hyperparameters a line names before counting the rest.
const IN_LINE: usize = 8;

/// `google.protobuf.Value`s nested deeper than this are shown as `…`.
const VALUE_DEPTH: usize = 8;

pub struct Hparams;

pub static HPARAMS: Hparams = Hparams;

/// A `google.protobuf.Value`: what a hyperparameter's value and a discrete domain's members are.
#[derive(Debug, Clone, PartialEq)]
pub enum HValue {
    Null,
    Number(f64),
    String(String),
    Bool(bool),
    List(Vec<HValue>),
    Struct(Vec<(String, HValue)>),
    /// A value with no kind set, or nested past `VALUE_DEPTH`.
    Unset,
}

impl HValue {
    fn read(message: &MessageView<'_>, depth: usize) -> HValue {
        if depth > VALUE_DEPTH {
            return HValue::Unset;
        }
        for field in message.fields() {
            let value = field.singular();
            return match (&*field.info().name, value) {
                ("null_value", _) => HValue::Null,
                ("number_value", Some(Value::Scalar(Scalar::F64(x)))) => HValue::Number(x),
                ("string_value", Some(Value::String(s, _))) => {
                    HValue::String(String::from_utf8_lossy(s).into_owned())
                }
                ("bool_value", Some(Value::Scalar(Scalar::Bool(b)))) => HValue::Bool(b),
                ("list_value", Some(Value::Message(list))) => HValue::List(
                    messages(list.field("values"))
                        .iter()
                        .map(|(v, _)| HValue::read(v, depth + 1))
                        .collect(),
                ),
                ("struct_value", Some(Value::Message(fields))) => {
                    HValue::Struct(value_map(fields.field("fields"), depth + 1))
                }
                _ => continue,
            };
        }
        HValue::Unset
    }

    /// As Python would write it: `0.01`, `"adam"`, `true`, `[1.0, "a"]`.
    pub fn text(&self) -> String {
        match self {
            HValue::Null => "null".into(),
            HValue::Number(x) => repr_f64(*x),
            HValue::String(s) => quoted(s.as_bytes()),
            HValue::Bool(b) => b.to_string(),
            HValue::List(items) => {
                let items: Vec<String> = items.iter().map(HValue::text).collect();
                format!("[{}]", items.join(", "))
            }
            HValue::Struct(fields) => {
                let fields: Vec<String> = fields
                    .iter()
                    .map(|(k, v)| format!("{}: {}", quoted(k.as_bytes()), v.text()))
                    .collect();
                format!("{{{}}}", fields.join(", "))
            }
            HValue::Unset => "…".into(),
        }
    }
}

/// A `map<string, google.protobuf.Value>` in key order, with where each entry lies.
fn value_entries(
    field: Option<crate::decode::FieldValues<'_>>,
    depth: usize,
) -> Vec<(String, HValue, Span)> {
    let Some(field) = field else {
        return Vec::new();
    };
    let map = field.map();
    map.entries()
        .map(|entry| {
            let key = String::from_utf8_lossy(map.key_bytes(entry)).into_owned();
            let value = match map.value(entry) {
                Some(Value::Message(v)) => HValue::read(&v, depth),
                _ => HValue::Unset,
            };
            (key, value, map.span(entry))
        })
        .collect()
}

fn value_map(field: Option<crate::decode::FieldValues<'_>>, depth: usize) -> Vec<(String, HValue)> {
    value_entries(field, depth)
        .into_iter()
        .map(|(k, v, _)| (k, v))
        .collect()
}

/// A hyperparameter's domain, as the experiment declares it.
#[derive(Debug, Clone, PartialEq)]
pub enum Domain {
    None,
    Interval { min: f64, max: f64 },
    Discrete(Vec<HValue>),
}

/// One `HParamInfo` of an experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct HparamInfo {
    pub name: String,
    pub display_name: String,
    pub description: String,
    /// `DATA_TYPE_FLOAT64`, when set.
    pub data_type: Option<String>,
    pub domain: Domain,
    pub span: Span,
}

/// One `MetricInfo` of an experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricInfo {
    pub group: String,
    pub tag: String,
    pub display_name: String,
    pub description: String,
    pub dataset_type: Option<String>,
    pub span: Span,
}

/// What an hparams value holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    Experiment {
        name: String,
        description: String,
        user: String,
        time_created_secs: Option<f64>,
        hparams: Vec<HparamInfo>,
        metrics: Vec<MetricInfo>,
    },
    SessionStart {
        /// In key order, each with where its entry lies.
        hparams: Vec<(String, HValue, Span)>,
        group_name: String,
        start_time_secs: Option<f64>,
        model_uri: String,
        monitor_url: String,
    },
    SessionEnd {
        status: Option<String>,
        end_time_secs: Option<f64>,
    },
    /// Plugin data with none of the three set.
    Nothing,
}

impl Reading {
    /// The reading of `value`'s content, or why it has none.
    pub fn of(value: &PluginValue<'_>) -> Result<Reading, String> {
        let nested = value.content_as(CONTENT_MESSAGE)?;
        let root = nested.root().ok_or("content unreadable")?;
        Ok(read_data(&root, &nested))
    }
}

fn read_data(root: &MessageView<'_>, nested: &Nested<'_>) -> Reading {
    let at = |span: Span| nested.in_payload(span);
    if let Some(Value::Message(e)) = singular(root, "experiment") {
        let hparams = messages(e.field("hparam_infos"))
            .into_iter()
            .map(|(info, span)| HparamInfo {
                name: text_field(&info, "name"),
                display_name: text_field(&info, "display_name"),
                description: text_field(&info, "description"),
                data_type: enum_field(&info, "type"),
                domain: domain_of(&info),
                span: at(span),
            })
            .collect();
        let metrics = messages(e.field("metric_infos"))
            .into_iter()
            .map(|(info, span)| {
                let name = match singular(&info, "name") {
                    Some(Value::Message(name)) => Some(name),
                    _ => None,
                };
                MetricInfo {
                    group: name
                        .as_ref()
                        .map(|n| text_field(n, "group"))
                        .unwrap_or_default(),
                    tag: name
                        .as_ref()
                        .map(|n| text_field(n, "tag"))
                        .unwrap_or_default(),
                    display_name: text_field(&info, "display_name"),
                    description: text_field(&info, "description"),
                    dataset_type: enum_field(&info, "dataset_type"),
                    span: at(span),
                }
            })
            .collect();
        return Reading::Experiment {
            name: text_field(&e, "name"),
            description: text_field(&e, "description"),
            user: text_field(&e, "user"),
            time_created_secs: number_field(&e, "time_created_secs"),
            hparams,
            metrics,
        };
    }
    if let Some(Value::Message(s)) = singular(root, "session_start_info") {
        let hparams = value_entries(s.field("hparams"), 0)
            .into_iter()
            .map(|(k, v, span)| (k, v, at(span)))
            .collect();
        return Reading::SessionStart {
            hparams,
            group_name: text_field(&s, "group_name"),
            start_time_secs: number_field(&s, "start_time_secs"),
            model_uri: text_field(&s, "model_uri"),
            monitor_url: text_field(&s, "monitor_url"),
        };
    }
    if let Some(Value::Message(s)) = singular(root, "session_end_info") {
        return Reading::SessionEnd {
            status: enum_field(&s, "status"),
            end_time_secs: number_field(&s, "end_time_secs"),
        };
    }
    Reading::Nothing
}

fn domain_of(info: &MessageView<'_>) -> Domain {
    if let Some(Value::Message(interval)) = singular(info, "domain_interval") {
        return Domain::Interval {
            min: number_field(&interval, "min_value").unwrap_or(0.0),
            max: number_field(&interval, "max_value").unwrap_or(0.0),
        };
    }
    if let Some(Value::Message(list)) = singular(info, "domain_discrete") {
        let values = messages(list.field("values"))
            .iter()
            .map(|(v, _)| HValue::read(v, 0))
            .collect();
        return Domain::Discrete(values);
    }
    Domain::None
}

/// `float64` for `DATA_TYPE_FLOAT64`.
fn type_word(data_type: &str) -> String {
    data_type
        .strip_prefix("DATA_TYPE_")
        .unwrap_or(data_type)
        .to_ascii_lowercase()
}

impl Domain {
    /// `[0.0001, 0.1]`, `{"adam", "sgd"}`; empty for none.
    fn text(&self) -> String {
        match self {
            Domain::None => String::new(),
            Domain::Interval { min, max } => format!("[{}, {}]", repr_f64(*min), repr_f64(*max)),
            Domain::Discrete(values) => {
                let values: Vec<String> = values.iter().map(HValue::text).collect();
                format!("{{{}}}", values.join(", "))
            }
        }
    }
}

impl HparamInfo {
    /// `lr [0.0001, 0.1]` with a domain, else `lr float64`, else the name.
    fn short(&self) -> String {
        let name = escape::for_terminal(&self.name);
        match (&self.domain, &self.data_type) {
            (Domain::None, Some(t)) => format!("{name} {}", type_word(t)),
            (Domain::None, None) => name.into_owned(),
            (domain, _) => format!("{name} {}", domain.text()),
        }
    }
}

impl MetricInfo {
    /// `train/accuracy`: the group, when set, then the tag.
    fn name(&self) -> String {
        let name = if self.group.is_empty() {
            self.tag.clone()
        } else {
            format!("{}/{}", self.group, self.tag)
        };
        escape::for_terminal(&name).into_owned()
    }
}

/// `a, b, c` of the first [`IN_LINE`] items, then how many more.
fn listed(items: impl ExactSizeIterator<Item = String>) -> String {
    let total = items.len();
    let mut shown: Vec<String> = items.take(IN_LINE).collect();
    if total > IN_LINE {
        shown.push(format!("… {} more", total - IN_LINE));
    }
    shown.join(", ")
}

impl SummaryPlugin for Hparams {
    fn name(&self) -> &'static str {
        "hparams"
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::TENSORBOARD_PLUGINS
    }

    fn shows_tag(&self, tag: &[u8]) -> bool {
        !TAGS.contains(&tag)
    }

    fn line(&self, value: &PluginValue<'_>) -> String {
        let reading = match Reading::of(value) {
            Ok(reading) => reading,
            Err(why) => return format!("hparams: {why}"),
        };
        match reading {
            Reading::Experiment {
                hparams, metrics, ..
            } => {
                let mut line = format!(
                    "hparams experiment: {}",
                    listed(hparams.iter().map(HparamInfo::short))
                );
                if !metrics.is_empty() {
                    let noun = if metrics.len() == 1 {
                        "metric"
                    } else {
                        "metrics"
                    };
                    line.push_str(&format!(
                        "; {noun} {}",
                        listed(metrics.iter().map(MetricInfo::name))
                    ));
                }
                line
            }
            Reading::SessionStart {
                hparams,
                group_name,
                ..
            } => {
                let values = hparams
                    .iter()
                    .map(|(k, v, _)| format!("{}={}", escape::for_terminal(k), v.text()));
                let mut line = format!("hparams session start: {}", listed(values));
                if !group_name.is_empty() {
                    line.push_str(&format!("; group {}", quoted(group_name.as_bytes())));
                }
                line
            }
            Reading::SessionEnd {
                status,
                end_time_secs,
            } => {
                let mut line = format!(
                    "hparams session end: {}",
                    status.as_deref().unwrap_or("STATUS_UNKNOWN")
                );
                if let Some(end) = end_time_secs {
                    line.push_str(&format!(" at {}", wall_time(end)));
                }
                line
            }
            Reading::Nothing => "hparams: no experiment or session in its plugin data".into(),
        }
    }

    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        let Ok(reading) = Reading::of(value) else {
            return Vec::new();
        };
        let text = |s: &str| escape::for_terminal(s).into_owned();
        let mut rows = Vec::new();
        let mut some = |label: &str, detail: &str| {
            if !detail.is_empty() {
                rows.push(Row::new(label, text(detail)));
            }
        };
        match reading {
            Reading::Experiment {
                name,
                description,
                user,
                time_created_secs,
                hparams,
                metrics,
            } => {
                some("name", &name);
                some("description", &description);
                some("user", &user);
                if let Some(time) = time_created_secs {
                    rows.push(Row::new("time_created", wall_time(time)));
                }
                let shown = hparams.iter().take(ROWS_SHOWN).map(hparam_info_row);
                let mut children: Vec<Row> = shown.collect();
                if hparams.len() > ROWS_SHOWN {
                    children.push(more_row((hparams.len() - ROWS_SHOWN) as u64, "hparam"));
                }
                rows.push(Row::new("hparams", plural(hparams.len(), "hparam")).with(children));
                let mut children: Vec<Row> = metrics
                    .iter()
                    .take(ROWS_SHOWN)
                    .map(metric_info_row)
                    .collect();
                if metrics.len() > ROWS_SHOWN {
                    children.push(more_row((metrics.len() - ROWS_SHOWN) as u64, "metric"));
                }
                rows.push(Row::new("metrics", plural(metrics.len(), "metric")).with(children));
            }
            Reading::SessionStart {
                hparams,
                group_name,
                start_time_secs,
                model_uri,
                monitor_url,
            } => {
                let mut children: Vec<Row> = hparams
                    .iter()
                    .take(ROWS_SHOWN)
                    .map(|(k, v, span)| Row::new(text(k), v.text()).at(*span))
                    .collect();
                if hparams.len() > ROWS_SHOWN {
                    children.push(more_row((hparams.len() - ROWS_SHOWN) as u64, "hparam"));
                }
                rows.push(Row::new("hparams", plural(hparams.len(), "value")).with(children));
                if !group_name.is_empty() {
                    rows.push(Row::new("group_name", quoted(group_name.as_bytes())));
                }
                if let Some(time) = start_time_secs {
                    rows.push(Row::new("start_time", wall_time(time)));
                }
                let mut some = |label: &str, detail: &str| {
                    if !detail.is_empty() {
                        rows.push(Row::new(label, text(detail)));
                    }
                };
                some("model_uri", &model_uri);
                some("monitor_url", &monitor_url);
            }
            Reading::SessionEnd {
                status,
                end_time_secs,
            } => {
                rows.push(Row::new(
                    "status",
                    status.unwrap_or_else(|| "STATUS_UNKNOWN".into()),
                ));
                if let Some(time) = end_time_secs {
                    rows.push(Row::new("end_time", wall_time(time)));
                }
            }
            Reading::Nothing => {}
        }
        rows
    }
}

/// An experiment's hparam as a row: its name, then its type, domain, display name and
/// description, those it has.
fn hparam_info_row(h: &HparamInfo) -> Row {
    let mut detail: Vec<String> = Vec::new();
    if let Some(t) = &h.data_type {
        detail.push(type_word(t));
    }
    match &h.domain {
        Domain::Interval { .. } => detail.push(format!("interval {}", h.domain.text())),
        Domain::Discrete(_) => detail.push(format!("one of {}", h.domain.text())),
        Domain::None => {}
    }
    if !h.display_name.is_empty() {
        detail.push(format!("shown as {}", quoted(h.display_name.as_bytes())));
    }
    if !h.description.is_empty() {
        detail.push(quoted(h.description.as_bytes()));
    }
    Row::new(
        escape::for_terminal(&h.name).into_owned(),
        detail.join(", "),
    )
    .at(h.span)
}

/// An experiment's metric as a row: its name, then its display name, dataset type and
/// description, those it has.
fn metric_info_row(m: &MetricInfo) -> Row {
    let mut detail: Vec<String> = Vec::new();
    if !m.display_name.is_empty() {
        detail.push(format!("shown as {}", quoted(m.display_name.as_bytes())));
    }
    if let Some(kind) = &m.dataset_type {
        detail.push(kind.clone());
    }
    if !m.description.is_empty() {
        detail.push(quoted(m.description.as_bytes()));
    }
    Row::new(m.name(), detail.join(", ")).at(m.span)
}
