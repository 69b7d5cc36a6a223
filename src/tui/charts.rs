//! TensorBoard's two plots, for event files: a scalar tag as a line over the steps of the file,
//! and a histogram as bars. Built from the core's event readings; drawn in the preview pane
//! when the record holds no image.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Bar, BarChart, BarGroup, Block, Chart, Dataset, GraphType, Widget};

use tfr_core::escape::bytes_for_terminal;
use tfr_core::event::Bucket;
use tfr_core::input::Input;

/// Records read for a scalar's series: a longer file plots its first ones, and says so.
pub const SERIES_RECORDS: usize = 50_000;

/// What the preview pane plots for an event record.
#[derive(Debug, Clone, PartialEq)]
pub enum Plot {
    /// A scalar tag's values over the steps of the file, and the selected record's step.
    Scalars {
        tag: String,
        points: Vec<(f64, f64)>,
        step: f64,
        /// Whether the file has records after those read.
        partial: bool,
    },
    /// The selected record's histogram.
    Histogram { tag: String, buckets: Vec<Bucket> },
}

/// A scalar tag's series, kept for the selections that follow: reading it decodes up to
/// [`SERIES_RECORDS`] records, too much to repeat on every key press.
#[derive(Debug, Default)]
pub struct SeriesCache {
    /// The file (its position and generation), the records read and the tag.
    key: Option<(usize, u64, usize, Vec<u8>)>,
    series: (Vec<(f64, f64)>, bool),
}

/// The plot for record `record` of `input`, when it is an event with a scalar or a histogram.
/// `file` (position, generation) keys the series kept in `cache`.
pub fn plot_for(
    input: &Input,
    record: usize,
    file: (usize, u64),
    cache: &mut SeriesCache,
) -> Option<Plot> {
    let decoder = input.decoder();
    // Only files of a type that plots (events) are: other files' records are not decoded again
    // here.
    if !decoder
        .likely
        .as_ref()
        .is_some_and(|k| k.payload_type().plots())
    {
        return None;
    }
    let data = input.data();
    let payload = input.index.get(data, record)?.payload(data)?;
    let decoded = decoder.decode(payload);
    let view = decoded.view(payload, decoder.table());
    if !view.payload_type().plots() {
        return None;
    }
    let scalars = view.scalars()?;
    if let Some((tag, _)) = scalars.values.first() {
        let tag = tag.to_vec();
        let step = scalars.step as f64;
        let key = (
            file.0,
            file.1,
            input.index.len().min(SERIES_RECORDS),
            tag.clone(),
        );
        if cache.key.as_ref() != Some(&key) {
            cache.series = series(input, &tag);
            cache.key = Some(key);
        }
        let (points, partial) = cache.series.clone();
        return Some(Plot::Scalars {
            tag: bytes_for_terminal(&tag).into_owned(),
            points,
            step,
            partial,
        });
    }
    let histogram = view.histograms().into_iter().next()?;
    let mut tag = bytes_for_terminal(histogram.tag).into_owned();
    if histogram.left_out() > 0 {
        tag.push_str(&format!(
            " (first {} of {} buckets)",
            histogram.buckets.len(),
            histogram.total_buckets
        ));
    }
    Some(Plot::Histogram {
        tag,
        buckets: histogram.buckets,
    })
}

/// `(step, value)` of every scalar tagged `tag` in the file's first [`SERIES_RECORDS`] records.
fn series(input: &Input, tag: &[u8]) -> (Vec<(f64, f64)>, bool) {
    let decoder = input.decoder();
    let data = input.data();
    let mut points = Vec::new();
    let frames = input.index.frames(data);
    let mut read = 0;
    for frame in frames.take(SERIES_RECORDS) {
        read += 1;
        let Some(payload) = frame.payload(data).filter(|_| frame.status.is_intact()) else {
            continue;
        };
        let decoded = decoder.decode(payload);
        let Some(scalars) = decoded.view(payload, decoder.table()).scalars() else {
            continue;
        };
        let step = scalars.step as f64;
        for (t, value) in scalars.values {
            if t == tag && value.is_finite() {
                points.push((step, value));
            }
        }
    }
    (points, read < input.index.len())
}

/// Draws `plot` in `rect`.
pub fn render(plot: &Plot, rect: Rect, buf: &mut Buffer) {
    match plot {
        Plot::Scalars {
            tag,
            points,
            step,
            partial,
        } => render_scalars(tag, points, *step, *partial, rect, buf),
        Plot::Histogram { tag, buckets } => render_histogram(tag, buckets, rect, buf),
    }
}

fn render_scalars(
    tag: &str,
    points: &[(f64, f64)],
    step: f64,
    partial: bool,
    rect: Rect,
    buf: &mut Buffer,
) {
    let bounds = |values: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        if lo.is_finite() && hi > lo {
            [lo, hi]
        } else if lo.is_finite() {
            // A constant series: a band of a tenth of its value around it (or 1 around 0).
            let pad = if lo == 0.0 { 1.0 } else { lo.abs() / 10.0 };
            [lo - pad, lo + pad]
        } else {
            [0.0, 1.0]
        }
    };
    let x = bounds(&mut points.iter().map(|p| p.0));
    let y = bounds(&mut points.iter().map(|p| p.1));
    let here: Vec<(f64, f64)> = points.iter().filter(|p| p.0 == step).copied().collect();
    let label = |v: f64| Span::raw(tfr_core::pyfmt::repr_f64(v));
    // Steps are whole numbers, but the padded bounds of a single step need not be.
    let step_label = |v: f64| Span::raw(tfr_core::words::short(v));
    let more = if partial {
        format!(", first {SERIES_RECORDS} records")
    } else {
        String::new()
    };
    let title = format!(" scalar {tag} · {} points over steps{more} ", points.len());
    let chart = Chart::new(vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Cyan))
            .data(points),
        Dataset::default()
            .marker(Marker::Block)
            .graph_type(GraphType::Scatter)
            .style(Style::default().fg(Color::Yellow))
            .data(&here),
    ])
    .block(
        Block::bordered()
            .title(title)
            .border_style(Style::default().fg(Color::DarkGray)),
    )
    .x_axis(
        Axis::default()
            .bounds(x)
            .labels([step_label(x[0]), step_label(x[1])]),
    )
    .y_axis(Axis::default().bounds(y).labels([label(y[0]), label(y[1])]));
    chart.render(rect, buf);
}

fn render_histogram(tag: &str, buckets: &[Bucket], rect: Rect, buf: &mut Buffer) {
    let (lo, hi) = match (buckets.first(), buckets.last()) {
        (Some(first), Some(last)) => (first.left, last.right),
        _ => (0.0, 0.0),
    };
    let title = format!(
        " histogram {tag} · {} buckets, {} .. {} ",
        buckets.len(),
        tfr_core::pyfmt::repr_f64(lo),
        tfr_core::pyfmt::repr_f64(hi)
    );
    // Counts may be fractional (TF2 interpolates); bars are drawn to a thousandth.
    let bars: Vec<Bar> = buckets
        .iter()
        .map(|b| {
            Bar::default()
                .value((b.count.max(0.0) * 1000.0).round() as u64)
                .text_value(String::new())
        })
        .collect();
    let block = Block::bordered()
        .title(title)
        .border_style(Style::default().fg(Color::DarkGray));
    let inner_width = block.inner(rect).width.max(1);
    let count = u16::try_from(buckets.len().max(1)).unwrap_or(u16::MAX);
    let width = (inner_width / count).clamp(1, 3);
    let gap = u16::from(width > 1);
    BarChart::default()
        .block(block)
        .data(BarGroup::default().bars(&bars))
        .bar_width(width.saturating_sub(gap).max(1))
        .bar_gap(gap)
        .bar_style(Style::default().fg(Color::Magenta))
        .render(rect, buf);
}
