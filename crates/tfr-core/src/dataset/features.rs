//! What tensorflow-datasets' `features.json` says each feature of its Examples is, and the
//! record shown that way: ClassLabel ids with their names (from `NAME.labels.txt`), Tensor
//! features with their dtype and shape (a bool 3x3 grid as a grid of bools), Image features with
//! their declared shape, BBoxFeature values as `[ymin, xmin, ymax, xmax]` boxes, Sequence features
//! element by element, Text as text. Values are read through the same typed views as every other
//! rendering; only the wording follows the metadata.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::decode::MessageView;
use crate::escape::{for_terminal, path_for_terminal};
use crate::example::{FeatureKind, FeatureValues, Features, bytes_summary, quoted, top_features};
use crate::pyfmt::text_f32;
use crate::sidefile;
use crate::words::{column_width, display_width, pad_to, plural};

/// The file tensorflow-datasets describes its features in.
pub const FEATURES_FILE: &str = "features.json";
/// Values shown per feature before the rest is counted.
const SHOWN: usize = 8;
/// The most dimensions a Tensor shape may have: TensorFlow's `TensorShape` allows 254.
pub const MAX_DIMS: usize = 254;

/// The most bytes of labels files read for one `features.json` (several ClassLabel features
/// may each have a file of up to [`sidefile::METADATA_LIMIT`]); files past it are not read.
pub const LABELS_BUDGET: u64 = 4 * sidefile::METADATA_LIMIT;

/// The class names of a labels file, one a line, held as one string and the ends of its lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labels {
    text: String,
    /// Where each line ends in `text` (before its `\n`).
    ends: Vec<u32>,
}

impl Labels {
    /// The lines of `bytes` (a final newline ends the last line, `\r\n` ends a line too); a line
    /// that is not UTF-8 is kept with U+FFFD for its bad bytes, so later lines keep their class
    /// ids. Also the 1-based numbers of the lines that were not UTF-8.
    pub fn parse(bytes: &[u8]) -> (Labels, Vec<usize>) {
        let mut labels = Labels::default();
        let mut bad = Vec::new();
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        if bytes.is_empty() {
            return (labels, bad);
        }
        for (i, line) in body.split(|b| *b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            match std::str::from_utf8(line) {
                Ok(text) => labels.text.push_str(text),
                Err(_) => {
                    bad.push(i + 1);
                    labels.text.push_str(&String::from_utf8_lossy(line));
                }
            }
            // Lossy decoding at most triples a line, and files are capped far below 4 GiB.
            labels
                .ends
                .push(u32::try_from(labels.text.len()).unwrap_or(u32::MAX));
        }
        (labels, bad)
    }

    /// The name of class `id`.
    pub fn get(&self, id: usize) -> Option<&str> {
        let end = usize::try_from(*self.ends.get(id)?).ok()?;
        let start = match id.checked_sub(1) {
            Some(before) => usize::try_from(*self.ends.get(before)?).ok()?,
            None => 0,
        };
        self.text.get(start..end)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// What one feature is, as `features.json` says.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Class ids with their names (empty when no labels file was read), shared by every feature
    /// whose labels file is the same file.
    ClassLabel {
        names: Arc<Labels>,
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

/// Something said about the metadata as it was read: a file not read (and why), or read in part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}",
            path_for_terminal(&self.path),
            for_terminal(&self.message)
        )
    }
}

/// The features of a tensorflow-datasets dataset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeatureSpecs {
    pub features: BTreeMap<String, Spec>,
    /// Labels files not read, or not read whole.
    pub notes: Vec<Note>,
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

/// Where the labels of a ClassLabel feature come from: given the file's name
/// (`NAME.labels.txt`), its class names.
pub type LabelsFor<'a> = dyn FnMut(&str) -> Arc<Labels> + 'a;

/// Reads the features of a `featuresDict`, `prefix` naming where they sit for labels files.
fn parse_dict(
    dict: &Value,
    prefix: &str,
    labels: &mut LabelsFor<'_>,
) -> Result<BTreeMap<String, Spec>, String> {
    let mut specs = BTreeMap::new();
    let Some(features) = dict.get("features").and_then(Value::as_object) else {
        return Ok(specs);
    };
    for (name, feature) in features {
        let path = format!("{prefix}{name}");
        specs.insert(name.clone(), parse_feature(feature, &path, labels)?);
    }
    Ok(specs)
}

fn parse_feature(feature: &Value, path: &str, labels: &mut LabelsFor<'_>) -> Result<Spec, String> {
    if let Some(label) = feature.get("classLabel") {
        let names = labels(&format!("{}.labels.txt", path.replace('/', "-")));
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
            Some(dict) => Spec::Sequence(parse_dict(dict, &format!("{path}/"), labels)?),
            None => Spec::Sequence(BTreeMap::from([(
                String::new(),
                parse_feature(inner, path, labels)?,
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

/// Reads the labels files of one `features.json`: each file once however many features (or
/// names) lead to it, regular files only, each up to [`sidefile::METADATA_LIMIT`] and all of
/// them up to [`LABELS_BUDGET`].
struct LabelsReader<'a> {
    dir: &'a Path,
    read: HashMap<(u64, u64), Arc<Labels>>,
    budget: u64,
    notes: Vec<Note>,
}

impl LabelsReader<'_> {
    fn labels(&mut self, name: &str) -> Arc<Labels> {
        let path = self.dir.join(name);
        // An object named by URL has no identity to share and is read (and sized) at once.
        let (id, len) = if crate::source::remote::claiming(&path).is_some() {
            (None, 0)
        } else {
            let (file, meta) = match sidefile::open_regular(&path) {
                Ok(opened) => opened,
                // No labels file: ids are shown as numbers, as they always were.
                Err(why) if why.is_missing() => return Arc::default(),
                Err(why) => return self.unread(path, format!("not read: {why}")),
            };
            drop(file);
            (sidefile::identity(&meta), meta.len())
        };
        if let Some(labels) = id.and_then(|id| self.read.get(&id)) {
            return Arc::clone(labels);
        }
        if len > self.budget {
            let message = format!(
                "not read: the labels files of one features.json are read up to {} in all",
                sidefile::size_text(LABELS_BUDGET)
            );
            return self.unread(path, message);
        }
        let bytes = match sidefile::read(&path, sidefile::METADATA_LIMIT.min(self.budget)) {
            Ok(side) => side.bytes,
            Err(why) if why.is_missing() => return Arc::default(),
            Err(why) => return self.unread(path, format!("not read: {why}")),
        };
        self.budget = self.budget.saturating_sub(bytes.len() as u64);
        let (labels, bad) = Labels::parse(&bytes);
        if let Some(first) = bad.first() {
            let message = match bad.len() {
                1 => format!("line {first} is not UTF-8; its bad bytes are shown as U+FFFD"),
                n => format!(
                    "{n} lines are not UTF-8, the first line {first}; their bad bytes are shown as U+FFFD"
                ),
            };
            self.notes.push(Note {
                path: path.clone(),
                message,
            });
        }
        let labels = Arc::new(labels);
        if let Some(id) = id {
            self.read.insert(id, Arc::clone(&labels));
        }
        labels
    }

    fn unread(&mut self, path: PathBuf, message: String) -> Arc<Labels> {
        if !self.notes.iter().any(|n| n.path == path) {
            self.notes.push(Note { path, message });
        }
        Arc::default()
    }
}

/// The `features.json` of each directory inputs come from, read once per directory: the one
/// place every command and the inspector find the specs that word a file's features.
#[derive(Debug, Default)]
pub struct SpecsBeside {
    by_dir: HashMap<PathBuf, Option<Arc<FeatureSpecs>>>,
}

/// What reading a `features.json` found to say (each names its file).
#[derive(Debug, Clone, PartialEq)]
pub enum SpecNote {
    /// A `features.json` that cannot be used: its files are read without it.
    Unusable(String),
    /// A note on one that is used (a labels file not read, for one).
    Note(String),
}

impl SpecsBeside {
    /// The `features.json` beside `input` (a file), when there is one that can be used. The
    /// first time its directory is asked, what reading it found to say goes to `said`.
    pub fn beside(
        &mut self,
        input: &Path,
        mut said: impl FnMut(SpecNote),
    ) -> Option<Arc<FeatureSpecs>> {
        let dir = input.parent().map(Path::to_path_buf).unwrap_or_default();
        self.by_dir
            .entry(dir)
            .or_insert_with(|| match FeatureSpecs::load_beside(input)? {
                Ok(specs) => {
                    for note in &specs.notes {
                        said(SpecNote::Note(note.to_string()));
                    }
                    Some(Arc::new(specs))
                }
                Err(note) => {
                    said(SpecNote::Unusable(note.to_string()));
                    None
                }
            })
            .clone()
    }
}

impl FeatureSpecs {
    /// Reads `dir/features.json` and the labels files beside it: `None` when there is none, a
    /// note when it is there but cannot be used (not a regular file, too large, not the JSON
    /// tensorflow-datasets writes).
    pub fn load(dir: &Path) -> Option<Result<FeatureSpecs, Note>> {
        let path = dir.join(FEATURES_FILE);
        let note = |message: String| Note {
            path: path.clone(),
            message,
        };
        let text = match sidefile::read_if_there(&path, sidefile::METADATA_LIMIT)? {
            Ok(side) => side.bytes,
            Err(why) => return Some(Err(note(format!("not read: {why}")))),
        };
        let mut reader = LabelsReader {
            dir,
            read: HashMap::new(),
            budget: LABELS_BUDGET,
            notes: Vec::new(),
        };
        let parsed = FeatureSpecs::parse(&text, &mut |name| reader.labels(name));
        Some(match parsed {
            Ok(mut specs) => {
                specs.notes = reader.notes;
                Ok(specs)
            }
            Err(message) => Err(note(format!("not used: {message}"))),
        })
    }

    /// [`FeatureSpecs::load`] for the directory `input` (a file) is in.
    pub fn load_beside(input: &Path) -> Option<Result<FeatureSpecs, Note>> {
        let dir = input.parent().filter(|d| !d.as_os_str().is_empty());
        FeatureSpecs::load(dir.unwrap_or(Path::new(".")))
    }

    /// Parses the bytes of a `features.json`, asking `labels` for the class names of each
    /// ClassLabel feature by its labels file's name.
    pub fn parse(text: &[u8], labels: &mut LabelsFor<'_>) -> Result<FeatureSpecs, String> {
        let json: Value = serde_json::from_slice(text).map_err(|e| e.to_string())?;
        let dict = json
            .get("featuresDict")
            .ok_or("no featuresDict: not a tensorflow-datasets features.json")?;
        Ok(FeatureSpecs {
            features: parse_dict(dict, "", labels)?,
            notes: Vec::new(),
        })
    }
}

/// `bool[3, 3]`, `float32`, `Image 32x48x3 png`, `ClassLabel (4 classes)`, with anything
/// `features.json` says escaped for a terminal; a dimension of unknown or varying size (`-1`,
/// Python's `None`) as `?`: `float32[?]`, `Image ?x?x3 png`.
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
        Spec::Tensor { dtype, shape: s } if s.is_empty() => for_terminal(dtype).into_owned(),
        Spec::Tensor { dtype, shape: s } => {
            format!("{}[{}]", for_terminal(dtype), shape(s).join(", "))
        }
        Spec::Image { shape: s, format } => {
            let format = format
                .as_deref()
                .map(|f| format!(" {}", for_terminal(f)))
                .unwrap_or_default();
            format!("Image {}{format}", shape(s).join("x"))
        }
        Spec::BBox => "BBox".into(),
        Spec::Text => "Text".into(),
        Spec::Sequence(_) => "Sequence".into(),
        Spec::Other(class) => for_terminal(class).into_owned(),
    }
}

fn label(id: i64, names: &Labels) -> String {
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
            .chain(
                specs
                    .features
                    .keys()
                    .map(|k| display_width(&for_terminal(k))),
            ),
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
        let shown = for_terminal(name);
        if let Spec::Sequence(inner) = spec {
            write_sequence(out, name, inner, &features, width, &mut done)?;
            continue;
        }
        let Some(feature) = features.named(name) else {
            writeln!(
                out,
                "  {}  {}  (absent)",
                pad_to(&shown, width),
                pad_to(&spec_name(spec), kind_width)
            )?;
            continue;
        };
        done.push(name.clone());
        writeln!(
            out,
            "  {}  {}  {}",
            pad_to(&shown, width),
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

/// A sequence feature of features.json, stored flat as one feature per part (`name/part`): its
/// first elements, one line each with every part's value. The parts found are added to `done`.
fn write_sequence(
    out: &mut dyn Write,
    name: &str,
    inner: &BTreeMap<String, Spec>,
    features: &Features<'_>,
    width: usize,
    done: &mut Vec<String>,
) -> io::Result<()> {
    let shown = for_terminal(name);
    let parts: Vec<(&String, &Spec, FeatureValues<'_>)> = inner
        .iter()
        .filter_map(|(k, s)| {
            let flat = if k.is_empty() {
                name.to_string()
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
        pad_to(&shown, width),
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
                    format!("{} {value}", for_terminal(k))
                }
            })
            .collect();
        writeln!(out, "    [{i}] {}", cells.join("  "))?;
    }
    if elements > SHOWN {
        writeln!(out, "    … {} more elements", elements - SHOWN)?;
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
        assert_eq!(label(2, &Labels::parse(b"a\nb\nlarge\n").0), "2 \"large\"");
        assert_eq!(label(7, &Labels::default()), "7");
    }

    #[test]
    fn labels_keep_their_numbers_when_a_line_is_not_utf8() {
        let (labels, bad) = Labels::parse(b"small\r\ncaf\xe9\n\nlarge");
        assert_eq!(bad, [2]);
        let names: Vec<Option<&str>> = (0..5).map(|i| labels.get(i)).collect();
        assert_eq!(
            names,
            [
                Some("small"),
                Some("caf\u{fffd}"),
                Some(""),
                Some("large"),
                None
            ]
        );
        assert_eq!(Labels::parse(b"").0.len(), 0);
        assert_eq!(Labels::parse(b"\n").0.get(0), Some(""));
    }

    /// A features.json naming `n` ClassLabel features, `cl0` .. `cl{n-1}`.
    fn class_labels(n: usize) -> String {
        let features: Vec<String> = (0..n)
            .map(|i| format!("\"cl{i}\": {{\"classLabel\": {{\"numClasses\": \"3\"}}}}"))
            .collect();
        format!(
            "{{\"featuresDict\": {{\"features\": {{{}}}}}}}",
            features.join(", ")
        )
    }

    #[cfg(unix)]
    #[test]
    fn one_labels_file_behind_many_names_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shared.txt"), b"a\nb\nc\n").unwrap();
        for i in 0..8 {
            std::os::unix::fs::symlink("shared.txt", dir.path().join(format!("cl{i}.labels.txt")))
                .unwrap();
        }
        std::fs::write(dir.path().join(FEATURES_FILE), class_labels(8)).unwrap();
        let specs = FeatureSpecs::load(dir.path()).unwrap().unwrap();
        let all: Vec<&Arc<Labels>> = specs
            .features
            .values()
            .filter_map(|s| match s {
                Spec::ClassLabel { names, .. } => Some(names),
                _ => None,
            })
            .collect();
        assert_eq!(all.len(), 8);
        assert!(
            all.iter()
                .all(|l| Arc::ptr_eq(l, all[0]) && l.get(2) == Some("c"))
        );
        assert!(specs.notes.is_empty(), "{:?}", specs.notes);
    }

    #[cfg(unix)]
    #[test]
    fn metadata_that_is_no_regular_file_or_too_large_is_named_and_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FEATURES_FILE), class_labels(2)).unwrap();
        // A named pipe with no writer, and a sparse file past the limit.
        let fifo = dir.path().join("cl0.labels.txt");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let big = std::fs::File::create(dir.path().join("cl1.labels.txt")).unwrap();
        big.set_len(sidefile::METADATA_LIMIT + 1).unwrap();
        let specs = FeatureSpecs::load(dir.path()).unwrap().unwrap();
        let notes: Vec<String> = specs.notes.iter().map(|n| n.message.clone()).collect();
        assert_eq!(
            notes,
            [
                "not read: a named pipe, not a regular file".to_string(),
                format!(
                    "not read: too large: {} bytes, more than the 8 MiB read of such a file",
                    sidefile::METADATA_LIMIT + 1
                ),
            ]
        );
        std::fs::remove_file(dir.path().join(FEATURES_FILE)).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join(FEATURES_FILE))
            .status()
            .unwrap();
        assert!(made.success());
        let note = FeatureSpecs::load(dir.path()).unwrap().err().unwrap();
        assert_eq!(note.message, "not read: a named pipe, not a regular file");
    }
}
