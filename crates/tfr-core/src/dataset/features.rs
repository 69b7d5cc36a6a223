//! What tensorflow-datasets' `features.json` says each feature of its Examples is, and the
//! record shown that way: ClassLabel ids with their names (from `NAME.labels.txt`), Tensor
//! features with their dtype and shape (a bool 3x3 grid as a grid of bools), Image features with
//! their declared shape, BBoxFeature values as `[ymin, xmin, ymax, xmax]` boxes, Sequence features
//! element by element, Text as text. Values are read through the same typed views as every other
//! rendering; only the wording follows the metadata.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde_json::Value;

use crate::decode::MessageView;
use crate::example::{FeatureKind, FeatureValues, Features, bytes_summary, quoted, top_features};
use crate::pyfmt::text_f32;
use crate::words::{column_width, display_width, pad_to, plural};

/// The file tensorflow-datasets describes its features in.
pub const FEATURES_FILE: &str = "features.json";
/// Values shown per feature before the rest is counted.
const SHOWN: usize = 8;
/// The most dimensions a Tensor shape may have: TensorFlow's `TensorShape` allows 254.
pub const MAX_DIMS: usize = 254;

/// What one feature is, as `features.json` says.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Class ids with their names (empty when no labels file was found).
    ClassLabel {
        names: Vec<String>,
        classes: Option<u64>,
    },
    Tensor {
        dtype: String,
        shape: Vec<i64>,
    },
    Image {
        shape: Vec<i64>,
        format: Option<String>,
    },
    BBox,
    Text,
    /// A Sequence of the inner features (stored flattened as `NAME/INNER`).
    Sequence(BTreeMap<String, Spec>),
    /// Another feature class, by its Python class name.
    Other(String),
}

/// The features of a tensorflow-datasets dataset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeatureSpecs {
    pub features: BTreeMap<String, Spec>,
}

/// The shape of a Tensor or Image feature; more than [`MAX_DIMS`] dimensions is an error, as it is
/// to TensorFlow.
fn dims(value: &Value, path: &str) -> Result<Vec<i64>, String> {
    let Some(dimensions) = value
        .get("shape")
        .and_then(|s| s.get("dimensions"))
        .and_then(Value::as_array)
    else {
        return Ok(Vec::new());
    };
    if dimensions.len() > MAX_DIMS {
        return Err(format!(
            "feature `{path}`: a shape of {} dimensions (TensorFlow allows at most {MAX_DIMS})",
            dimensions.len()
        ));
    }
    Ok(dimensions
        .iter()
        .filter_map(|x| match x {
            Value::String(s) => s.parse().ok(),
            other => other.as_i64(),
        })
        .collect())
}

/// Reads the features of a `featuresDict`, `prefix` naming where they sit for labels files.
fn parse_dict(dict: &Value, prefix: &str, dir: &Path) -> Result<BTreeMap<String, Spec>, String> {
    let mut specs = BTreeMap::new();
    let Some(features) = dict.get("features").and_then(Value::as_object) else {
        return Ok(specs);
    };
    for (name, feature) in features {
        let path = format!("{prefix}{name}");
        specs.insert(name.clone(), parse_feature(feature, &path, dir)?);
    }
    Ok(specs)
}

fn parse_feature(feature: &Value, path: &str, dir: &Path) -> Result<Spec, String> {
    if let Some(label) = feature.get("classLabel") {
        let file = dir.join(format!("{}.labels.txt", path.replace('/', "-")));
        let names = std::fs::read_to_string(file)
            .map(|t| t.lines().map(String::from).collect())
            .unwrap_or_default();
        let classes = label.get("numClasses").and_then(|n| match n {
            Value::String(s) => s.parse().ok(),
            other => other.as_u64(),
        });
        return Ok(Spec::ClassLabel { names, classes });
    }
    if let Some(tensor) = feature.get("tensor") {
        let dtype = tensor.get("dtype").and_then(Value::as_str).unwrap_or("?");
        return Ok(Spec::Tensor {
            dtype: dtype.to_string(),
            shape: dims(tensor, path)?,
        });
    }
    if let Some(image) = feature.get("image") {
        return Ok(Spec::Image {
            shape: dims(image, path)?,
            format: image
                .get("encodingFormat")
                .and_then(Value::as_str)
                .map(String::from),
        });
    }
    if feature.get("boundingBox").is_some() {
        return Ok(Spec::BBox);
    }
    if feature.get("text").is_some() {
        return Ok(Spec::Text);
    }
    if let Some(inner) = feature.get("sequence").and_then(|s| s.get("feature")) {
        return Ok(match inner.get("featuresDict") {
            Some(dict) => Spec::Sequence(parse_dict(dict, &format!("{path}/"), dir)?),
            None => Spec::Sequence(BTreeMap::from([(
                String::new(),
                parse_feature(inner, path, dir)?,
            )])),
        });
    }
    let class = feature
        .get("pythonClassName")
        .and_then(Value::as_str)
        .and_then(|c| c.rsplit('.').next())
        .unwrap_or("?");
    Ok(Spec::Other(class.to_string()))
}

impl FeatureSpecs {
    /// Reads `dir/features.json` and the labels files beside it: `None` when there is none.
    pub fn load(dir: &Path) -> Option<Result<FeatureSpecs, String>> {
        let text = std::fs::read(dir.join(FEATURES_FILE)).ok()?;
        Some(FeatureSpecs::parse(&text, dir))
    }

    pub fn parse(text: &[u8], dir: &Path) -> Result<FeatureSpecs, String> {
        let json: Value = serde_json::from_slice(text).map_err(|e| e.to_string())?;
        let dict = json
            .get("featuresDict")
            .ok_or("no featuresDict: not a tensorflow-datasets features.json")?;
        Ok(FeatureSpecs {
            features: parse_dict(dict, "", dir)?,
        })
    }
}

/// `bool[3, 3]`, `float32`, `Image 32x48x3 png`, `ClassLabel (4 classes)`; a dimension of
/// unknown or varying size (`-1`, Python's `None`) as `?`: `float32[?]`, `Image ?x?x3 png`.
fn spec_name(spec: &Spec) -> String {
    let shape = |s: &[i64]| {
        s.iter()
            .map(|d| crate::tensor::dim_text(*d))
            .collect::<Vec<_>>()
    };
    match spec {
        Spec::ClassLabel { classes, names } => match classes.unwrap_or(names.len() as u64) {
            1 => "ClassLabel (1 class)".to_string(),
            n => format!("ClassLabel ({n} classes)"),
        },
        Spec::Tensor { dtype, shape: s } if s.is_empty() => dtype.clone(),
        Spec::Tensor { dtype, shape: s } => format!("{dtype}[{}]", shape(s).join(", ")),
        Spec::Image { shape: s, format } => {
            let format = format
                .as_deref()
                .map(|f| format!(" {f}"))
                .unwrap_or_default();
            format!("Image {}{format}", shape(s).join("x"))
        }
        Spec::BBox => "BBox".into(),
        Spec::Text => "Text".into(),
        Spec::Sequence(_) => "Sequence".into(),
        Spec::Other(class) => class.clone(),
    }
}

fn label(id: i64, names: &[String]) -> String {
    match usize::try_from(id).ok().and_then(|i| names.get(i)) {
        Some(name) => format!("{id} {}", quoted(name)),
        None => id.to_string(),
    }
}

fn number(values: &FeatureValues<'_>) -> Vec<String> {
    match values.kind() {
        FeatureKind::Float => values.floats().map(text_f32).collect(),
        FeatureKind::Int64 => values.ints().map(|i| i.to_string()).collect(),
        FeatureKind::Bytes => values
            .bytes()
            .map(|(b, _)| quoted(&String::from_utf8_lossy(b)))
            .collect(),
        FeatureKind::Empty => Vec::new(),
    }
}

/// The number of elements `dims` hold, when it is representable.
fn elements(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |n, d| n.checked_mul(*d))
}

/// Nests `items` by `shape` (`[[a, b], [c, d]]`); flat when the shape does not fit them.
fn nested(items: &[String], shape: &[i64]) -> String {
    let dims: Vec<usize> = shape
        .iter()
        .filter_map(|d| usize::try_from(*d).ok())
        .collect();
    let fits = dims.len() == shape.len() && elements(&dims) == Some(items.len());
    let mut out = String::new();
    if !fits || dims.len() < 2 {
        out.push('[');
        out.push_str(&items.join(", "));
        out.push(']');
    } else {
        nest_into(&mut out, items, &dims);
    }
    out
}

/// Writes `items` (as many as `dims` hold) nested by `dims` into one string: each level appends
/// its brackets, so no level copies what the levels inside it wrote. Recursion is as deep as
/// `dims` is long, at most [`MAX_DIMS`].
fn nest_into(out: &mut String, items: &[String], dims: &[usize]) {
    out.push('[');
    match dims {
        [] | [_] => out.push_str(&items.join(", ")),
        [_, inner @ ..] => {
            let step = elements(inner).unwrap_or(1).max(1);
            for (i, chunk) in items.chunks(step).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                nest_into(out, chunk, inner);
            }
        }
    }
    out.push(']');
}

fn limited(items: Vec<String>) -> String {
    let more = items.len().saturating_sub(SHOWN);
    let mut shown: Vec<String> = items.into_iter().take(SHOWN).collect();
    if more > 0 {
        shown.push(format!("… {more} more"));
    }
    shown.join(", ")
}

/// The values of one feature as its spec words them.
fn value_text(spec: &Spec, values: &FeatureValues<'_>) -> String {
    match spec {
        Spec::ClassLabel { names, .. } => limited(values.ints().map(|i| label(i, names)).collect()),
        Spec::Tensor { dtype, shape } if dtype == "bool" => {
            let items: Vec<String> = values.ints().map(|i| (i != 0).to_string()).collect();
            nested(&items, shape)
        }
        Spec::Tensor { shape, .. } if !shape.is_empty() => nested(&number(values), shape),
        Spec::BBox => boxes(&values.floats().collect::<Vec<f32>>()),
        Spec::Image { .. } | Spec::Text => limited(
            values
                .bytes()
                .map(|(b, _)| match (spec, std::str::from_utf8(b)) {
                    (Spec::Text, Ok(text)) => quoted(text),
                    _ => bytes_summary(b, None),
                })
                .collect(),
        ),
        _ => limited(number(values)),
    }
}

/// `[ymin, xmin, ymax, xmax]` per box.
fn boxes(floats: &[f32]) -> String {
    let boxes: Vec<String> = floats
        .chunks(4)
        .map(|b| {
            format!(
                "[{}]",
                b.iter()
                    .map(|f| text_f32(*f))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    limited(boxes)
}

/// How many values one element of a Sequence's inner feature takes.
fn per_element(spec: &Spec) -> usize {
    match spec {
        Spec::BBox => 4,
        Spec::Tensor { shape, .. } => shape
            .iter()
            .map(|d| usize::try_from(*d).unwrap_or(1))
            .try_fold(1usize, usize::checked_mul)
            .unwrap_or(usize::MAX)
            .max(1),
        _ => 1,
    }
}

/// One element's value of a Sequence's inner feature.
fn element_text(spec: &Spec, values: &FeatureValues<'_>, i: usize) -> String {
    let n = per_element(spec);
    let skip = i.saturating_mul(n);
    match (spec, values.kind()) {
        (Spec::ClassLabel { names, .. }, _) => values
            .ints()
            .nth(i)
            .map_or("-".into(), |id| label(id, names)),
        (Spec::BBox, _) => boxes(&values.floats().skip(skip).take(4).collect::<Vec<f32>>()),
        (_, FeatureKind::Bytes) => values
            .bytes()
            .nth(i)
            .map_or("-".into(), |(b, _)| bytes_summary(b, None)),
        _ => {
            let items: Vec<String> = number(values).into_iter().skip(skip).take(n).collect();
            match items.as_slice() {
                [one] => one.clone(),
                _ => format!("[{}]", items.join(", ")),
            }
        }
    }
}

/// One feature's kind and values as the dataset's features describe it (`ClassLabel (4
/// classes)  2 "large"`), for a feature named `name` as stored (a Sequence's inner features are
/// stored flattened as `NAME/INNER`); `None` for a feature the metadata does not name.
pub fn describe(specs: &FeatureSpecs, name: &[u8], values: &FeatureValues<'_>) -> Option<String> {
    let name = std::str::from_utf8(name).ok()?;
    let spec = match specs.features.get(name) {
        Some(Spec::Sequence(_)) => return None,
        Some(spec) => spec,
        None => {
            let (outer, inner) = name.split_once('/')?;
            match specs.features.get(outer)? {
                Spec::Sequence(parts) => parts.get(inner)?,
                _ => return None,
            }
        }
    };
    let text = match spec {
        Spec::BBox | Spec::ClassLabel { .. } if !specs.features.contains_key(name) => {
            // Per element of a Sequence.
            let n = values.len() / per_element(spec).max(1);
            let items: Vec<String> = (0..n.min(SHOWN))
                .map(|i| element_text(spec, values, i))
                .collect();
            let more = if n > SHOWN { ", …" } else { "" };
            format!("[{}{more}]", items.join(", "))
        }
        _ => value_text(spec, values),
    };
    Some(format!("{}  {text}", spec_name(spec)))
}

/// Writes an Example as the dataset's features describe it; features the metadata does not name
/// are left for the caller (returned by name).
pub fn write_example(
    out: &mut dyn Write,
    heading: &str,
    typed: &MessageView<'_>,
    specs: &FeatureSpecs,
) -> io::Result<()> {
    let features: Features<'_> = top_features(typed);
    writeln!(
        out,
        "{heading}  Example, {} (as features.json describes them)",
        plural(features.len(), "feature")
    )?;
    let width = column_width(
        features
            .iter()
            .map(|f| display_width(&f.shown_name()))
            .chain(specs.features.keys().map(|k| display_width(k))),
    );
    let kind_width = column_width(
        specs
            .features
            .values()
            .map(|s| display_width(&spec_name(s)))
            .chain(std::iter::once(11)),
    );
    let mut done: Vec<String> = Vec::new();
    for (name, spec) in &specs.features {
        if let Spec::Sequence(inner) = spec {
            let parts: Vec<(&String, &Spec, FeatureValues<'_>)> = inner
                .iter()
                .filter_map(|(k, s)| {
                    let flat = if k.is_empty() {
                        name.clone()
                    } else {
                        format!("{name}/{k}")
                    };
                    let f = features.named(&flat)?;
                    done.push(flat);
                    Some((k, s, f.values))
                })
                .collect();
            let elements = parts
                .iter()
                .map(|(_, s, v)| v.len() / per_element(s))
                .max()
                .unwrap_or(0);
            writeln!(
                out,
                "  {}  Sequence of {}",
                pad_to(name, width),
                plural(elements, "element")
            )?;
            for i in 0..elements.min(SHOWN) {
                let cells: Vec<String> = parts
                    .iter()
                    .map(|(k, s, v)| {
                        let value = element_text(s, v, i);
                        if k.is_empty() {
                            value
                        } else {
                            format!("{k} {value}")
                        }
                    })
                    .collect();
                writeln!(out, "    [{i}] {}", cells.join("  "))?;
            }
            if elements > SHOWN {
                writeln!(out, "    … {} more elements", elements - SHOWN)?;
            }
            continue;
        }
        let Some(feature) = features.named(name) else {
            writeln!(
                out,
                "  {}  {}  (absent)",
                pad_to(name, width),
                pad_to(&spec_name(spec), kind_width)
            )?;
            continue;
        };
        done.push(name.clone());
        writeln!(
            out,
            "  {}  {}  {}",
            pad_to(name, width),
            pad_to(&spec_name(spec), kind_width),
            value_text(spec, &feature.values)
        )?;
    }
    for feature in features.iter() {
        if done.iter().any(|d| d.as_bytes() == feature.key) {
            continue;
        }
        let kind = format!("{}[{}]", feature.values.kind_name(), feature.values.len());
        let name = feature.shown_name();
        writeln!(
            out,
            "  {}  {}  {}  (not in features.json)",
            pad_to(&name, width),
            pad_to(&kind, kind_width),
            crate::example::values_summary(&feature.values, None, SHOWN)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragged_dimensions_read_as_unknown() {
        let ragged = Spec::Tensor {
            dtype: "float32".into(),
            shape: vec![-1],
        };
        assert_eq!(spec_name(&ragged), "float32[?]");
        let matrix = Spec::Tensor {
            dtype: "int64".into(),
            shape: vec![-1, 3],
        };
        assert_eq!(spec_name(&matrix), "int64[?, 3]");
        let image = Spec::Image {
            shape: vec![-1, -1, 3],
            format: Some("jpeg".into()),
        };
        assert_eq!(spec_name(&image), "Image ?x?x3 jpeg");
    }

    #[test]
    fn grids_nest_by_shape() {
        let items: Vec<String> = (0..9).map(|i| (i % 2 == 0).to_string()).collect();
        assert_eq!(
            nested(&items, &[3, 3]),
            "[[true, false, true], [false, true, false], [true, false, true]]"
        );
        assert_eq!(nested(&items, &[4, 2]), format!("[{}]", items.join(", ")));
        assert_eq!(boxes(&[0.25, 0.5, 0.75, 1.0]), "[0.25, 0.5, 0.75, 1.0]");
        assert_eq!(
            label(2, &["a".into(), "b".into(), "large".into()]),
            "2 \"large\""
        );
        assert_eq!(label(7, &[]), "7");
    }
}
