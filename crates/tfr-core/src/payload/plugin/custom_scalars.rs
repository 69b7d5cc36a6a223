//! The `custom_scalars` plugin: a string scalar (tag `custom_scalars__config__`) holding a
//! serialized `tensorboard.Layout`, the dashboard's categories of charts, each a multiline chart
//! of tags (or regular expressions of tags) or a margin chart of value, lower and upper series.

use super::{
    Nested, PluginValue, ROWS_SHOWN, Row, SummaryPlugin, TensorValue, messages, more_row, quoted,
    singular, text_field, texts,
};
use crate::decode::{MessageView, Scalar, Value};
use crate::escape;
use crate::schema::{ProtoFile, builtin};
use crate::span::Span;
use crate::words::plural;

/// The message the value's string is.
pub const LAYOUT_MESSAGE: &str = "tensorboard.Layout";

/// Categories a line names before counting the rest.
const IN_LINE: usize = 4;

pub struct CustomScalars;

pub static CUSTOM_SCALARS: CustomScalars = CustomScalars;

/// What a chart draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartContent {
    /// Tags or regular expressions of tags, one line each.
    Multiline(Vec<String>),
    /// (value, lower, upper) tags, a band each.
    Margin(Vec<(String, String, String)>),
    None,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    pub title: String,
    pub content: ChartContent,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    pub title: String,
    pub closed: bool,
    pub charts: Vec<Chart>,
    pub span: Span,
}

/// The layout a value holds, or why it holds none.
pub fn read(value: &PluginValue<'_>) -> Result<Vec<Category>, String> {
    let tensor = TensorValue::read(value.tensor().ok_or("no tensor")?);
    let bytes = tensor
        .bytes(0)
        .filter(|_| tensor.tensor().is_some_and(|t| t.len() == 1))
        .ok_or_else(|| format!("tensor {} is no string scalar", tensor.signature()))?;
    let base = super::span_within(value.payload(), bytes).map_or(0, |s| s.start);
    let nested = Nested::walk(bytes, base, value.table(), LAYOUT_MESSAGE)?;
    let layout = nested.root().ok_or("layout unreadable")?;
    Ok(categories(&layout, &nested))
}

fn categories(layout: &MessageView<'_>, nested: &Nested<'_>) -> Vec<Category> {
    messages(layout.field("category"))
        .into_iter()
        .map(|(category, span)| Category {
            title: text_field(&category, "title"),
            closed: matches!(
                singular(&category, "closed"),
                Some(Value::Scalar(Scalar::Bool(true)))
            ),
            charts: messages(category.field("chart"))
                .into_iter()
                .map(|(chart, span)| Chart {
                    title: text_field(&chart, "title"),
                    content: content_of(&chart),
                    span: nested.in_payload(span),
                })
                .collect(),
            span: nested.in_payload(span),
        })
        .collect()
}

fn content_of(chart: &MessageView<'_>) -> ChartContent {
    if let Some(Value::Message(multiline)) = singular(chart, "multiline") {
        return ChartContent::Multiline(texts(multiline.field("tag")));
    }
    if let Some(Value::Message(margin)) = singular(chart, "margin") {
        let series = messages(margin.field("series"))
            .iter()
            .map(|(s, _)| {
                (
                    text_field(s, "value"),
                    text_field(s, "lower"),
                    text_field(s, "upper"),
                )
            })
            .collect();
        return ChartContent::Margin(series);
    }
    ChartContent::None
}

/// `1 category`, `2 categories`.
fn categories_text(n: usize) -> String {
    match n {
        1 => "1 category".into(),
        n => format!("{n} categories"),
    }
}

fn tag_text(tag: &str) -> String {
    escape::for_terminal(tag).into_owned()
}

impl ChartContent {
    /// `multiline train/loss, train/accuracy`, `margin train/loss in [lo, hi]`.
    fn text(&self) -> String {
        match self {
            ChartContent::Multiline(tags) => {
                let tags: Vec<String> = tags.iter().map(|t| tag_text(t)).collect();
                format!("multiline {}", tags.join(", "))
            }
            ChartContent::Margin(series) => {
                let series: Vec<String> = series
                    .iter()
                    .map(|(v, l, u)| {
                        format!("{} in [{}, {}]", tag_text(v), tag_text(l), tag_text(u))
                    })
                    .collect();
                format!("margin {}", series.join(", "))
            }
            ChartContent::None => "no content".into(),
        }
    }
}

impl SummaryPlugin for CustomScalars {
    fn name(&self) -> &'static str {
        "custom_scalars"
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::TENSORBOARD_PLUGINS
    }

    fn line(&self, value: &PluginValue<'_>) -> String {
        match read(value) {
            Ok(categories) => {
                let mut named: Vec<String> = categories
                    .iter()
                    .take(IN_LINE)
                    .map(|c| {
                        format!(
                            "{} ({})",
                            quoted(c.title.as_bytes()),
                            plural(c.charts.len(), "chart")
                        )
                    })
                    .collect();
                if categories.len() > IN_LINE {
                    named.push(format!("… {} more", categories.len() - IN_LINE));
                }
                format!(
                    "custom_scalars layout, {}: {}",
                    categories_text(categories.len()),
                    named.join(", ")
                )
            }
            Err(why) => format!("custom_scalars layout: {why}"),
        }
    }

    /// A row per category, a row per chart in it.
    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        let Ok(categories) = read(value) else {
            return Vec::new();
        };
        let mut rows: Vec<Row> = categories
            .iter()
            .take(ROWS_SHOWN)
            .map(|c| {
                let mut charts: Vec<Row> = c
                    .charts
                    .iter()
                    .take(ROWS_SHOWN)
                    .map(|chart| {
                        Row::new(quoted(chart.title.as_bytes()), chart.content.text())
                            .at(chart.span)
                    })
                    .collect();
                if c.charts.len() > ROWS_SHOWN {
                    charts.push(more_row((c.charts.len() - ROWS_SHOWN) as u64, "chart"));
                }
                let closed = if c.closed { ", closed" } else { "" };
                Row::new(
                    format!("category {}", quoted(c.title.as_bytes())),
                    format!("{}{closed}", plural(c.charts.len(), "chart")),
                )
                .at(c.span)
                .with(charts)
            })
            .collect();
        if categories.len() > ROWS_SHOWN {
            rows.push(Row::new(
                format!("… {} more categories", categories.len() - ROWS_SHOWN),
                "",
            ));
        }
        rows
    }
}
