//! The statistics as TensorFlow Data Validation's `DatasetFeatureStatisticsList`
//! (`tensorflow_metadata/proto/v0/statistics.proto`, vendored under `proto/`), which TFDV's
//! `load_statistics` and Facets Overview read: one `DatasetFeatureStatistics` per split.
//!
//! The message is built through the compiled descriptor (prost-reflect), so its field numbers are
//! the vendored file's and nothing is written by hand. What `stats` computes maps as follows:
//! a feature's kind gives its type (int64 and bool `INT`, float `FLOAT`, bytes `STRING` when its
//! frequent values are text and it holds no image, `BYTES` otherwise); presence and values per
//! record give `common_stats`; the numeric figures give `num_stats` with a `STANDARD` histogram
//! (the report's 10 equal-width buckets) and a `QUANTILES` one (buckets between the extremes and
//! the report's quantiles p1..p99, each holding the share of values the quantiles bound); bytes
//! give `string_stats` (distinct values, frequent values and their rank histogram, mean length)
//! or `bytes_stats` (distinct values, lengths). Figures the report does not keep (a histogram of
//! values per record, weighted statistics, cross-feature statistics) are left out.

use prost_reflect::prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, ReflectMessage, Value};
use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};

use super::figures::{
    BytesFigures, FeatureFigures, HistogramFigures, Number, NumericFigures, SplitFigures,
    StatsReport,
};

/// The vendored `.proto` files, by the paths they import each other by.
const FILES: [(&str, &str); 3] = [
    (
        "tensorflow_metadata/proto/v0/statistics.proto",
        include_str!("../../../../proto/tensorflow_metadata/proto/v0/statistics.proto"),
    ),
    (
        "tensorflow_metadata/proto/v0/derived_feature.proto",
        include_str!("../../../../proto/tensorflow_metadata/proto/v0/derived_feature.proto"),
    ),
    (
        "tensorflow_metadata/proto/v0/path.proto",
        include_str!("../../../../proto/tensorflow_metadata/proto/v0/path.proto"),
    ),
];

/// The full name of the message written.
pub const LIST: &str = "tensorflow.metadata.v0.DatasetFeatureStatisticsList";

/// Why the message could not be built (a descriptor that is not what this code expects).
#[derive(Debug, thiserror::Error)]
#[error("the TFDV statistics cannot be written: {0}")]
pub struct TfdvError(String);

struct Vendored;

impl FileResolver for Vendored {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        FILES.iter().find(|(path, _)| *path == name).map_or_else(
            || Err(protox::Error::file_not_found(name)),
            |(path, source)| File::from_source(path, source),
        )
    }
}

/// The compiled `statistics.proto` (with what it imports).
pub fn descriptors() -> Result<DescriptorPool, TfdvError> {
    let mut resolver = ChainFileResolver::new();
    resolver.add(Vendored);
    resolver.add(GoogleFileResolver::new());
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_imports(true);
    compiler
        .open_file(FILES[0].0)
        .map_err(|e| TfdvError(e.to_string()))?;
    Ok(compiler.descriptor_pool())
}

/// A message under construction, by field name.
struct Builder {
    message: DynamicMessage,
}

impl Builder {
    fn new(pool: &DescriptorPool, name: &str) -> Result<Builder, TfdvError> {
        let descriptor = pool
            .get_message_by_name(name)
            .ok_or_else(|| TfdvError(format!("no message {name}")))?;
        Ok(Builder {
            message: DynamicMessage::new(descriptor),
        })
    }

    /// A builder of the message field `field` holds.
    fn child(&self, field: &str) -> Result<Builder, TfdvError> {
        let descriptor: MessageDescriptor = self
            .message
            .descriptor()
            .get_field_by_name(field)
            .and_then(|f| f.kind().as_message().cloned())
            .ok_or_else(|| TfdvError(format!("no message field {field}")))?;
        Ok(Builder {
            message: DynamicMessage::new(descriptor),
        })
    }

    fn set(&mut self, field: &str, value: Value) -> Result<&mut Builder, TfdvError> {
        self.message
            .try_set_field_by_name(field, value)
            .map_err(|e| TfdvError(format!("{field}: {e}")))?;
        Ok(self)
    }

    fn set_message(&mut self, field: &str, value: Builder) -> Result<&mut Builder, TfdvError> {
        self.set(field, Value::Message(value.message))
    }

    fn set_list(&mut self, field: &str, items: Vec<Builder>) -> Result<&mut Builder, TfdvError> {
        let items = items
            .into_iter()
            .map(|b| Value::Message(b.message))
            .collect();
        self.set(field, Value::List(items))
    }

    /// The number of the value `value` of the enum field `field` holds.
    fn set_enum(&mut self, field: &str, value: &str) -> Result<&mut Builder, TfdvError> {
        let number = self
            .message
            .descriptor()
            .get_field_by_name(field)
            .and_then(|f| f.kind().as_enum().cloned())
            .and_then(|e| e.get_value_by_name(value))
            .map(|v| v.number())
            .ok_or_else(|| TfdvError(format!("no value {value} of {field}")))?;
        self.set(field, Value::EnumNumber(number))
    }
}

/// The report as a `DatasetFeatureStatisticsList`, encoded.
pub fn encode(report: &StatsReport, pool: &DescriptorPool) -> Result<Vec<u8>, TfdvError> {
    Ok(build(report, pool)?.encode_to_vec())
}

/// The report as a `DatasetFeatureStatisticsList`.
pub fn build(report: &StatsReport, pool: &DescriptorPool) -> Result<DynamicMessage, TfdvError> {
    let mut list = Builder::new(pool, LIST)?;
    let mut datasets = Vec::with_capacity(report.splits.len());
    for split in &report.splits {
        datasets.push(dataset(&list, split)?);
    }
    list.set_list("datasets", datasets)?;
    Ok(list.message)
}

fn dataset(list: &Builder, split: &SplitFigures) -> Result<Builder, TfdvError> {
    let mut dataset = list.child("datasets")?;
    dataset
        .set("name", Value::String(split.name.clone()))?
        .set("num_examples", Value::U64(split.records))?;
    let mut features = Vec::with_capacity(split.features.len());
    for figures in &split.features {
        features.push(feature(&dataset, figures, split.records)?);
    }
    dataset.set_list("features", features)?;
    Ok(dataset)
}

/// How a feature's values are shown: its TFDV type.
fn type_of(f: &FeatureFigures) -> &'static str {
    match f.kind.as_str() {
        "int64" | "bool" => "INT",
        "float" => "FLOAT",
        _ => match &f.bytes {
            Some(bytes) if is_text(bytes) => "STRING",
            _ => "BYTES",
        },
    }
}

/// Whether a bytes feature reads as text: no images, every frequent value UTF-8.
fn is_text(bytes: &BytesFigures) -> bool {
    bytes.images.is_empty()
        && bytes
            .top
            .iter()
            .all(|t| std::str::from_utf8(&t.value.0).is_ok())
}

fn feature(dataset: &Builder, f: &FeatureFigures, records: u64) -> Result<Builder, TfdvError> {
    let mut feature = dataset.child("features")?;
    let kind = type_of(f);
    feature
        .set("name", Value::String(f.feature.clone()))?
        .set_enum("type", kind)?;
    let mut common = feature.child("num_stats")?.child("common_stats")?;
    let per = &f.values_per_record;
    let total = match (&f.numeric, &f.bytes, &f.bool) {
        (Some(n), _, _) => n.count,
        (_, Some(b), _) => b.count,
        (_, _, Some(b)) => b.trues.saturating_add(b.falses),
        _ => (per.mean * f.present as f64).round() as u64,
    };
    common
        .set("num_non_missing", Value::U64(f.present))?
        .set("num_missing", Value::U64(records.saturating_sub(f.present)))?
        .set("min_num_values", Value::U64(per.min))?
        .set("max_num_values", Value::U64(per.max))?
        .set("avg_num_values", Value::F32(per.mean as f32))?
        .set("tot_num_values", Value::U64(total))?;
    match kind {
        "INT" | "FLOAT" => {
            let mut stats = feature.child("num_stats")?;
            stats.set_message("common_stats", common)?;
            if let Some(n) = &f.numeric {
                numeric(&mut stats, n)?;
            } else if let Some(b) = &f.bool {
                let count = b.trues.saturating_add(b.falses);
                let mean = match count {
                    0 => 0.0,
                    n => b.trues as f64 / n as f64,
                };
                let std = (mean * (1.0 - mean)).max(0.0).sqrt();
                stats
                    .set("mean", Value::F64(mean))?
                    .set("std_dev", Value::F64(std))?
                    .set("num_zeros", Value::U64(b.falses))?
                    .set("min", Value::F64(if b.falses > 0 { 0.0 } else { 1.0 }))?
                    .set("max", Value::F64(if b.trues > 0 { 1.0 } else { 0.0 }))?
                    .set(
                        "median",
                        Value::F64(if b.trues > b.falses { 1.0 } else { 0.0 }),
                    )?;
            }
            feature.set_message("num_stats", stats)?;
        }
        "STRING" => {
            let mut stats = feature.child("string_stats")?;
            stats.set_message("common_stats", common)?;
            if let Some(b) = &f.bytes {
                strings(&mut stats, b)?;
            }
            feature.set_message("string_stats", stats)?;
        }
        _ => {
            let mut stats = feature.child("bytes_stats")?;
            stats.set_message("common_stats", common)?;
            if let Some(b) = &f.bytes {
                stats
                    .set("unique", Value::U64(b.distinct))?
                    .set("avg_num_bytes", Value::F32(b.length.mean as f32))?
                    .set("min_num_bytes", Value::F32(b.length.min as f32))?
                    .set("max_num_bytes", Value::F32(b.length.max as f32))?
                    .set("max_num_bytes_int", Value::I64(b.length.max as i64))?;
            }
            feature.set_message("bytes_stats", stats)?;
        }
    }
    Ok(feature)
}

fn number(n: Number) -> f64 {
    match n {
        Number::Int(i) => i as f64,
        Number::Float(f) => f,
    }
}

fn numeric(stats: &mut Builder, n: &NumericFigures) -> Result<(), TfdvError> {
    stats
        .set("mean", Value::F64(n.mean))?
        .set("std_dev", Value::F64(n.std))?
        .set("num_zeros", Value::U64(n.zeros))?;
    if let Some(min) = n.min {
        stats.set("min", Value::F64(number(min)))?;
    }
    if let Some(max) = n.max {
        stats.set("max", Value::F64(number(max)))?;
    }
    let mut histograms = Vec::new();
    if let Some(q) = &n.quantiles {
        stats.set("median", Value::F64(q.median))?;
    }
    if let Some(h) = &n.histogram {
        histograms.push(standard(stats, h, n.nan)?);
    }
    if let (Some(q), Some(min), Some(max)) = (&n.quantiles, n.min, n.max) {
        let finite = n.count.saturating_sub(n.nan).saturating_sub(n.inf);
        histograms.push(quantiles(
            stats,
            q,
            number(min),
            number(max),
            finite,
            n.nan,
        )?);
    }
    stats.set_list("histograms", histograms)?;
    Ok(())
}

/// The report's equal-width buckets over `[low, high]`.
fn standard(stats: &Builder, h: &HistogramFigures, nan: u64) -> Result<Builder, TfdvError> {
    let mut histogram = stats.child("histograms")?;
    let width = (h.high - h.low) / h.counts.len().max(1) as f64;
    let last = h.counts.len().saturating_sub(1);
    let mut buckets = Vec::with_capacity(h.counts.len());
    for (i, count) in h.counts.iter().enumerate() {
        let mut bucket = histogram.child("buckets")?;
        let low = h.low + width * i as f64;
        // The last edge is the range's, not a sum that may miss it by a rounding.
        let high = if i == last {
            h.high
        } else {
            h.low + width * (i + 1) as f64
        };
        bucket
            .set("low_value", Value::F64(low))?
            .set("high_value", Value::F64(high))?
            .set("sample_count", Value::F64(*count as f64))?;
        buckets.push(bucket);
    }
    histogram
        .set("num_nan", Value::U64(nan))?
        .set_enum("type", "STANDARD")?;
    histogram.set_list("buckets", buckets)?;
    Ok(histogram)
}

/// Buckets between the extremes and the quantiles, each with the share of the finite values
/// its quantiles bound.
fn quantiles(
    stats: &Builder,
    q: &super::figures::QuantileFigures,
    min: f64,
    max: f64,
    finite: u64,
    nan: u64,
) -> Result<Builder, TfdvError> {
    let mut histogram = stats.child("histograms")?;
    let ranks = [0.0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1.0];
    let values = q.values();
    let mut edges = Vec::with_capacity(9);
    edges.push(min);
    edges.extend_from_slice(&values);
    edges.push(max);
    let mut buckets = Vec::with_capacity(8);
    for i in 0..8 {
        let (Some(low), Some(high), Some(from), Some(to)) = (
            edges.get(i),
            edges.get(i + 1),
            ranks.get(i),
            ranks.get(i + 1),
        ) else {
            continue;
        };
        let mut bucket = histogram.child("buckets")?;
        bucket
            .set("low_value", Value::F64(*low))?
            .set("high_value", Value::F64(*high))?
            .set("sample_count", Value::F64((to - from) * finite as f64))?;
        buckets.push(bucket);
    }
    histogram
        .set("num_nan", Value::U64(nan))?
        .set_enum("type", "QUANTILES")?;
    histogram.set_list("buckets", buckets)?;
    Ok(histogram)
}

fn strings(stats: &mut Builder, b: &BytesFigures) -> Result<(), TfdvError> {
    stats
        .set("unique", Value::U64(b.distinct))?
        .set("avg_length", Value::F32(b.length.mean as f32))?;
    let mut top = Vec::with_capacity(b.top.len());
    let mut ranks = Vec::with_capacity(b.top.len());
    let mut rank_histogram = stats.child("rank_histogram")?;
    for (rank, value) in b.top.iter().enumerate() {
        let text = String::from_utf8_lossy(&value.value.0).into_owned();
        let mut entry = stats.child("top_values")?;
        entry
            .set("value", Value::String(text.clone()))?
            .set("frequency", Value::F64(value.count as f64))?;
        top.push(entry);
        let mut bucket = rank_histogram.child("buckets")?;
        bucket
            .set("low_rank", Value::U64(rank as u64))?
            .set("high_rank", Value::U64(rank as u64))?
            .set("label", Value::String(text))?
            .set("sample_count", Value::F64(value.count as f64))?;
        ranks.push(bucket);
    }
    stats.set_list("top_values", top)?;
    rank_histogram.set_list("buckets", ranks)?;
    stats.set_message("rank_histogram", rank_histogram)?;
    Ok(())
}
