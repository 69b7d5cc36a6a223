//! `export`'s rows: one flat row per Example (or SequenceExample, its context), as a user loads
//! it into pandas or jq: where the record is (`file`, `index`, `offset`), then each feature by
//! name, its values as values (int64 as integers, floats as the float32 they are, bytes that are
//! UTF-8 text as text), one value as a scalar unless every feature is asked for as a list.
//!
//! A row is written as one line of JSON (ASCII only, so it is safe on a terminal) or as a CSV
//! line over the columns of every row (lists joined with `;`). Floats are written as protobuf's
//! JSON writes them (the shortest text that reads back as the same float32); NaN and infinities,
//! which JSON has no numbers for, as the strings protobuf uses (`"NaN"`, `"Infinity"`).

use std::fmt::Write as _;

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::decode::MessageView;
use crate::example::{FeatureKind, top_features};
use crate::frame::Frame;
use crate::pyfmt::{json_string, write_text_f32};

/// Column names a feature cannot take, as the row's own: such a feature is `feature:NAME`.
pub const PLACE_COLUMNS: [&str; 3] = ["file", "index", "offset"];
/// Separates the values of a list in a CSV cell.
pub const CSV_LIST_SEPARATOR: char = ';';

/// How bytes values are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BytesAs {
    /// UTF-8 text as text; other bytes as what they are (`<JPEG 64x48 RGB, 1247 bytes>`,
    /// `<12 bytes>`).
    #[default]
    Text,
    /// Every bytes value in base64 (standard alphabet, padded), as protobuf's JSON writes bytes.
    Base64,
}

/// What a row holds of each feature.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowOptions {
    /// Every feature as a list, even of one value.
    pub lists: bool,
    pub bytes: BytesAs,
}

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Int(i64),
    Float(f32),
    /// A bytes value as `BytesAs` says: its text, base64, or its description.
    Bytes(String),
}

impl Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Int(v) => s.serialize_i64(*v),
            Cell::Float(v) if v.is_finite() => s.serialize_f64(crate::pyfmt::shortest_f32(*v)),
            Cell::Float(v) => s.serialize_str(not_finite(*v)),
            Cell::Bytes(text) => s.serialize_str(text),
        }
    }
}

/// A feature's values, written as a scalar when `scalar`.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The column's name: the feature's (`feature:NAME` for one of [`PLACE_COLUMNS`]).
    pub name: String,
    pub values: Vec<Cell>,
    pub scalar: bool,
}

impl Serialize for Column {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.scalar, self.values.first()) {
            (true, Some(only)) => only.serialize(s),
            _ => self.values.serialize(s),
        }
    }
}

/// One record's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The file, as the user named it.
    pub file: String,
    pub index: usize,
    pub offset: u64,
    /// Its features, by name.
    pub columns: Vec<Column>,
}

/// The row as JSON keys in this order: `file`, `index`, `offset`, then the features by name.
impl Serialize for Row {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.columns.len() + 3))?;
        map.serialize_entry("file", &self.file)?;
        map.serialize_entry("index", &self.index)?;
        map.serialize_entry("offset", &self.offset)?;
        for column in &self.columns {
            map.serialize_entry(&column.name, column)?;
        }
        map.end()
    }
}

/// The name of the column a feature called `name` is written in.
pub fn column_name(name: &[u8]) -> String {
    let name = String::from_utf8_lossy(name);
    match PLACE_COLUMNS.contains(&name.as_ref()) {
        true => format!("feature:{name}"),
        false => name.into_owned(),
    }
}

/// Whether `message` is a record a row is made of: an Example or a SequenceExample.
pub fn has_row(message: &MessageView<'_>) -> bool {
    matches!(message.type_name(), "Example" | "SequenceExample")
}

/// The names of the columns `message`'s row has, in order.
pub fn column_names(message: &MessageView<'_>) -> Vec<String> {
    let mut names: Vec<String> = top_features(message).keys().map(column_name).collect();
    names.sort_unstable();
    names
}

impl Row {
    /// The row of the record in `frame` of `file`, decoded as `message`; `None` when it is no
    /// Example or SequenceExample.
    pub fn of(
        file: &str,
        frame: &Frame,
        message: &MessageView<'_>,
        options: RowOptions,
    ) -> Option<Row> {
        if !has_row(message) {
            return None;
        }
        let mut columns: Vec<Column> = top_features(message)
            .iter()
            .map(|feature| {
                let values = &feature.values;
                let cells: Vec<Cell> = match values.kind() {
                    FeatureKind::Int64 => values.ints().map(Cell::Int).collect(),
                    FeatureKind::Float => values.floats().map(Cell::Float).collect(),
                    FeatureKind::Bytes => values
                        .bytes()
                        .map(|(bytes, _)| Cell::Bytes(bytes_text(bytes, options.bytes)))
                        .collect(),
                    FeatureKind::Empty => Vec::new(),
                };
                Column {
                    name: column_name(feature.key),
                    scalar: !options.lists && cells.len() == 1,
                    values: cells,
                }
            })
            .collect();
        // In the order of their names as written (a renamed feature moves).
        columns.sort_by(|a, b| a.name.cmp(&b.name));
        Some(Row {
            file: file.to_string(),
            index: frame.index,
            offset: frame.offset.0,
            columns,
        })
    }

    /// Appends the row as one line of JSON (with its newline), keys in the row's order.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"file\": ");
        json_string(&self.file, out);
        let _ = write!(
            out,
            ", \"index\": {}, \"offset\": {}",
            self.index, self.offset
        );
        for column in &self.columns {
            out.push_str(", ");
            json_string(&column.name, out);
            out.push_str(": ");
            match (column.scalar, column.values.first()) {
                (true, Some(only)) => write_json_cell(only, out),
                _ => {
                    out.push('[');
                    for (i, cell) in column.values.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write_json_cell(cell, out);
                    }
                    out.push(']');
                }
            }
        }
        out.push_str("}\n");
    }

    /// Appends the row as one CSV line over `columns` (the header's, after `file,index,offset`):
    /// a feature the row lacks is an empty cell, a list its values joined with `;`.
    pub fn write_csv(&self, columns: &[String], out: &mut String) {
        csv_field(&self.file, out);
        let _ = write!(out, ",{},{}", self.index, self.offset);
        let mut mine = self.columns.iter().peekable();
        for name in columns {
            out.push(',');
            // Both are in name order: the row's columns are met as the header's pass them.
            while mine.next_if(|c| c.name < *name).is_some() {}
            let Some(column) = mine.next_if(|c| c.name == *name) else {
                continue;
            };
            let mut cell = String::new();
            for (i, value) in column.values.iter().enumerate() {
                if i > 0 {
                    cell.push(CSV_LIST_SEPARATOR);
                }
                match value {
                    Cell::Int(v) => {
                        let _ = write!(cell, "{v}");
                    }
                    Cell::Float(v) if v.is_finite() => write_text_f32(*v, &mut cell),
                    Cell::Float(v) => cell.push_str(csv_not_finite(*v)),
                    Cell::Bytes(text) => cell.push_str(text),
                }
            }
            csv_field(&cell, out);
        }
        out.push('\n');
    }
}

/// The CSV header line over `columns`.
pub fn csv_header(columns: &[String], out: &mut String) {
    out.push_str("file,index,offset");
    for name in columns {
        out.push(',');
        csv_field(name, out);
    }
    out.push('\n');
}

/// A bytes value as `how` writes it.
fn bytes_text(bytes: &[u8], how: BytesAs) -> String {
    if how == BytesAs::Base64 {
        let mut out = String::new();
        crate::jsonformat::write_base64(bytes, &mut out);
        return out;
    }
    let image = crate::image::ImageHeader::read(bytes);
    match (image, std::str::from_utf8(bytes)) {
        (None, Ok(text)) => text.to_string(),
        (Some(image), _) => format!(
            "<{image}, {}>",
            crate::words::plural(bytes.len() as u64, "byte")
        ),
        (None, Err(_)) => format!("<{}>", crate::words::plural(bytes.len() as u64, "byte")),
    }
}

fn write_json_cell(cell: &Cell, out: &mut String) {
    match cell {
        Cell::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Cell::Float(v) if v.is_finite() => write_text_f32(*v, out),
        Cell::Float(v) => json_string(not_finite(*v), out),
        Cell::Bytes(text) => json_string(text, out),
    }
}

/// How protobuf's JSON spells a float that is no number.
fn not_finite(v: f32) -> &'static str {
    match v {
        v if v.is_nan() => "NaN",
        v if v < 0.0 => "-Infinity",
        _ => "Infinity",
    }
}

/// How pandas reads a float that is no number.
fn csv_not_finite(v: f32) -> &'static str {
    match v {
        v if v.is_nan() => "NaN",
        v if v < 0.0 => "-inf",
        _ => "inf",
    }
}

/// Appends `text` as a CSV field (RFC 4180): quoted, its quotes doubled, when it holds a comma,
/// a quote or a line break, or starts or ends with a space.
fn csv_field(text: &str, out: &mut String) {
    let quoted =
        text.contains([',', '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ');
    if !quoted {
        out.push_str(text);
        return;
    }
    out.push('"');
    out.push_str(&text.replace('"', "\"\""));
    out.push('"');
}

/// One scalar of a TensorBoard event, as TensorBoard's "download CSV" gives it with its run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScalarRow {
    pub run: String,
    /// The tag, as text (bytes that are not UTF-8 replaced).
    pub tag: String,
    pub step: i64,
    pub wall_time: f64,
    pub value: f64,
}

/// The CSV header of scalar rows.
pub const SCALAR_HEADER: &str = "run,tag,step,wall_time,value\n";

/// The scalars of `event` (a `tensorflow.Event`; none for any other message) of run `run`.
pub fn scalar_rows(run: &str, event: &MessageView<'_>) -> Vec<ScalarRow> {
    if event.type_name() != "Event" {
        return Vec::new();
    }
    let step = crate::event::step_of(event);
    let wall_time = crate::event::wall_time_of(event);
    crate::event::scalars(event)
        .into_iter()
        .map(|(tag, value)| ScalarRow {
            run: run.to_string(),
            tag: String::from_utf8_lossy(tag).into_owned(),
            step,
            wall_time,
            value,
        })
        .collect()
}

impl ScalarRow {
    /// Appends the row as one line of JSON: `run`, `tag`, `step`, `wall_time`, `value`.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"run\": ");
        json_string(&self.run, out);
        out.push_str(", \"tag\": ");
        json_string(&self.tag, out);
        let _ = write!(out, ", \"step\": {}, \"wall_time\": ", self.step);
        write_json_f64(self.wall_time, out);
        out.push_str(", \"value\": ");
        write_json_f64(self.value, out);
        out.push_str("}\n");
    }

    /// Appends the row as one CSV line under [`SCALAR_HEADER`].
    pub fn write_csv(&self, out: &mut String) {
        csv_field(&self.run, out);
        out.push(',');
        csv_field(&self.tag, out);
        let _ = write!(out, ",{},", self.step);
        out.push_str(&csv_f64(self.wall_time));
        out.push(',');
        out.push_str(&csv_f64(self.value));
        out.push('\n');
    }
}

/// A double as Python's `repr` writes it, or protobuf JSON's string for one that is no number.
fn write_json_f64(v: f64, out: &mut String) {
    match v.is_finite() {
        true => crate::pyfmt::write_repr_f64(v, out),
        false => json_string(not_finite_f64(v), out),
    }
}

fn csv_f64(v: f64) -> String {
    match v.is_finite() {
        true => crate::pyfmt::repr_f64(v),
        false if v.is_nan() => "NaN".to_string(),
        false if v < 0.0 => "-inf".to_string(),
        false => "inf".to_string(),
    }
}

fn not_finite_f64(v: f64) -> &'static str {
    match v {
        v if v.is_nan() => "NaN",
        v if v < 0.0 => "-Infinity",
        _ => "Infinity",
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::crafted::{FeatureValue, example};
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;

    /// The row of an Example with `features`, as record 3 at byte 40 of `f.tfrecord`.
    fn row_of(features: &[(&str, FeatureValue)], options: RowOptions) -> Row {
        let payload = example(features);
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let decoded = decoder.decode(&payload);
        let message = decoded.typed(&payload, decoder.table()).unwrap();
        let frame = Frame {
            index: 3,
            offset: crate::span::FileOffset(40),
            status: crate::frame::FrameStatus::Intact,
            declared_length: Some(payload.len() as u64),
            region_end: crate::span::FileOffset(56 + payload.len() as u64),
            after_resync: false,
        };
        Row::of("f.tfrecord", &frame, &message, options).unwrap()
    }

    fn features() -> Vec<(&'static str, FeatureValue)> {
        vec![
            ("label", FeatureValue::Ints(vec![-3])),
            (
                "values",
                FeatureValue::Floats(vec![0.1, f32::NAN, f32::NEG_INFINITY]),
            ),
            ("text", FeatureValue::Bytes(vec!["a,\"b\"\u{202e}".into()])),
            ("blob", FeatureValue::Bytes(vec![vec![0xff, 0, 1]])),
            ("index", FeatureValue::Ints(vec![7, 8])),
            ("none", FeatureValue::Floats(vec![])),
        ]
    }

    #[test]
    fn a_row_is_flat_json_with_numbers_as_numbers_and_one_value_as_a_scalar() {
        let mut out = String::new();
        row_of(&features(), RowOptions::default()).write_json(&mut out);
        assert_eq!(
            out,
            "{\"file\": \"f.tfrecord\", \"index\": 3, \"offset\": 40, \"blob\": \"<3 bytes>\", \
             \"feature:index\": [7, 8], \"label\": -3, \"none\": [], \"text\": \
             \"a,\\\"b\\\"\\u202e\", \"values\": [0.1, \"NaN\", \"-Infinity\"]}\n"
        );
        // The same through serde, as a binding would take it.
        let row = row_of(&features(), RowOptions::default());
        let value = serde_json::to_value(&row).unwrap();
        assert_eq!(value["label"], -3);
        assert_eq!(value["feature:index"], serde_json::json!([7, 8]));
        assert_eq!(value["values"][1], "NaN");
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed["values"][0].as_f64().unwrap() as f32, 0.1f32);
    }

    #[test]
    fn lists_and_base64_are_asked_for() {
        let options = RowOptions {
            lists: true,
            bytes: BytesAs::Base64,
        };
        let mut out = String::new();
        row_of(&features(), options).write_json(&mut out);
        assert!(out.contains("\"label\": [-3]"), "{out}");
        assert!(out.contains("\"blob\": [\"/wAB\"]"), "{out}");
        assert!(out.contains("\"text\": [\"YSwiYiLigK4=\"]"), "{out}");
    }

    #[test]
    fn an_image_is_described_and_csv_cells_are_quoted_joined_and_aligned_to_the_header() {
        let png = crate::crafted::zero_png(5, 4);
        let row = row_of(
            &[
                ("image", FeatureValue::Bytes(vec![png.clone()])),
                ("label", FeatureValue::Ints(vec![1])),
            ],
            RowOptions::default(),
        );
        let mut out = String::new();
        row.write_json(&mut out);
        assert!(
            out.contains(&format!(
                "\"image\": \"<PNG 5x4 gray, {} bytes>\"",
                png.len()
            )),
            "{out}"
        );
        let row = row_of(&features(), RowOptions::default());
        let columns: Vec<String> = ["a", "blob", "feature:index", "label", "text", "values", "z"]
            .map(String::from)
            .to_vec();
        let mut csv = String::new();
        csv_header(&columns, &mut csv);
        row.write_csv(&columns, &mut csv);
        assert_eq!(
            csv,
            "file,index,offset,a,blob,feature:index,label,text,values,z\n\
             f.tfrecord,3,40,,<3 bytes>,7;8,-3,\"a,\"\"b\"\"\u{202e}\",0.1;NaN;-inf,\n"
        );
    }

    #[test]
    fn scalar_rows_write_runs_tags_and_numbers_as_python_reads_them() {
        let row = |value| ScalarRow {
            run: "a,b".into(),
            tag: "loss\u{1b}".into(),
            step: -2,
            wall_time: 1.5,
            value,
        };
        let (mut json, mut csv) = (String::new(), String::new());
        row(0.1).write_json(&mut json);
        row(f64::NEG_INFINITY).write_csv(&mut csv);
        assert_eq!(
            json,
            "{\"run\": \"a,b\", \"tag\": \"loss\\u001b\", \"step\": -2, \"wall_time\": 1.5, \"value\": 0.1}\n"
        );
        assert_eq!(csv, "\"a,b\",loss\u{1b},-2,1.5,-inf\n");
        json.clear();
        row(f64::NAN).write_json(&mut json);
        assert!(json.ends_with("\"value\": \"NaN\"}\n"), "{json}");
    }
}
