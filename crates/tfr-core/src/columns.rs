//! Examples as columns: one list column per feature, laid out as Arrow lays out a list array
//! (an offset per row into one run of values, and which rows have the feature at all), so that a
//! caller hands the buffers to Arrow as they are instead of building values one by one.
//!
//! A feature's kind is the first one a record gives it; a record that gives it another kind is
//! an error naming both, since one column holds one type.

use std::collections::HashMap;

use thiserror::Error;

use crate::decode::MessageView;
use crate::example::{FeatureKind, FeatureValues, top_features};

mod wire;

/// The values of one column, of the kind its first typed record gave it.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValues {
    /// Every value is of a feature with no list set so far.
    Unset,
    Int64(Vec<i64>),
    Float(Vec<f32>),
    /// Byte strings, one after the other, with where each ends (Arrow's binary layout:
    /// `ends.len() + 1` offsets once a leading zero is put in front).
    Bytes {
        ends: Vec<i64>,
        data: Vec<u8>,
    },
}

impl ColumnValues {
    fn len(&self) -> usize {
        match self {
            ColumnValues::Unset => 0,
            ColumnValues::Int64(v) => v.len(),
            ColumnValues::Float(v) => v.len(),
            ColumnValues::Bytes { ends, .. } => ends.len(),
        }
    }

    fn kind_name(&self) -> &'static str {
        match self {
            ColumnValues::Unset => "none",
            ColumnValues::Int64(_) => "int64",
            ColumnValues::Float(_) => "float",
            ColumnValues::Bytes { .. } => "bytes",
        }
    }
}

/// One feature across the rows of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    /// Where each row's values start in `values`, and where the last ends (rows + 1 entries).
    pub offsets: Vec<i32>,
    /// Whether each row has the feature (a row without it is null, not an empty list).
    pub present: Vec<bool>,
    pub values: ColumnValues,
}

#[derive(Debug, Error, PartialEq)]
pub enum ColumnError {
    #[error("feature {feature:?} is {had} in earlier records and {got} in this one")]
    KindConflict {
        feature: String,
        had: &'static str,
        got: &'static str,
    },
    #[error("feature {feature:?} has more than 2^31 values in one batch; ask for smaller batches")]
    TooManyValues { feature: String },
}

/// Examples gathered into columns, a row per record pushed.
#[derive(Debug, Default)]
pub struct ExampleColumns {
    rows: usize,
    columns: Vec<Column>,
    by_name: HashMap<String, usize>,
    /// Only these features are kept, in this order, when the caller named them.
    only: bool,
    /// What reading records from their bytes keeps from one record to the next.
    scratch: wire::Scratch,
}

impl ExampleColumns {
    /// Columns for every feature the records have, in the order they first appear.
    pub fn new() -> ExampleColumns {
        ExampleColumns::default()
    }

    /// Columns for the features named, in that order, whether the records have them or not.
    pub fn only(names: &[String]) -> ExampleColumns {
        let mut columns = ExampleColumns {
            only: true,
            ..ExampleColumns::default()
        };
        for name in names {
            columns.add_column(name);
        }
        columns
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Adds one Example as the next row. On a kind conflict the row is not added; past 2^31
    /// values in a column ([`ColumnError::TooManyValues`]) the row is half written and the batch
    /// is not to be used further (its callers drop it).
    pub fn push(&mut self, example: &MessageView<'_>) -> Result<(), ColumnError> {
        let features = top_features(example);
        // Checked before anything is written, so that a failed row leaves no trace.
        for feature in features.iter() {
            if let Some(&at) = self.by_name.get(feature.name().as_ref()) {
                check_kind(&self.columns[at], &feature.values)?;
            }
        }
        for feature in features.iter() {
            let name = feature.name();
            let at = match self.by_name.get(name.as_ref()) {
                Some(&at) => at,
                None if self.only => continue,
                None => self.add_column(&name),
            };
            let column = &mut self.columns[at];
            // A feature given twice in one record (a map entry repeated) keeps its last values,
            // as protobuf's parsers do.
            if column.present.len() > self.rows {
                truncate_row(column);
            }
            append_values(column, &feature.values);
            column.present.push(true);
        }
        self.rows += 1;
        for column in &mut self.columns {
            if column.present.len() < self.rows {
                column.present.push(false);
            }
            let end =
                i32::try_from(column.values.len()).map_err(|_| ColumnError::TooManyValues {
                    feature: column.name.clone(),
                })?;
            column.offsets.push(end);
        }
        Ok(())
    }

    /// The columns, each with a row per record pushed.
    pub fn finish(self) -> Vec<Column> {
        self.columns
    }

    fn add_column(&mut self, name: &str) -> usize {
        let at = self.columns.len();
        self.columns.push(Column {
            name: name.to_string(),
            offsets: vec![0; self.rows + 1],
            present: vec![false; self.rows],
            values: ColumnValues::Unset,
        });
        self.by_name.insert(name.to_string(), at);
        at
    }
}

fn check_kind(column: &Column, values: &FeatureValues<'_>) -> Result<(), ColumnError> {
    let got = match values.kind() {
        FeatureKind::Int64 => "int64",
        FeatureKind::Float => "float",
        FeatureKind::Bytes => "bytes",
        FeatureKind::Empty => return Ok(()),
    };
    let had = column.values.kind_name();
    if had == "none" || had == got {
        Ok(())
    } else {
        Err(ColumnError::KindConflict {
            feature: column.name.clone(),
            had,
            got,
        })
    }
}

/// Drops the values of the row being built (the feature came again in the same record).
fn truncate_row(column: &mut Column) {
    let start = column.offsets.last().copied().unwrap_or(0).max(0) as usize;
    match &mut column.values {
        ColumnValues::Unset => {}
        ColumnValues::Int64(v) => v.truncate(start),
        ColumnValues::Float(v) => v.truncate(start),
        ColumnValues::Bytes { ends, data } => {
            ends.truncate(start);
            data.truncate(ends.last().copied().unwrap_or(0).max(0) as usize);
        }
    }
    column.present.pop();
}

fn append_values(column: &mut Column, values: &FeatureValues<'_>) {
    if matches!(column.values, ColumnValues::Unset) {
        column.values = match values.kind() {
            FeatureKind::Int64 => ColumnValues::Int64(Vec::new()),
            FeatureKind::Float => ColumnValues::Float(Vec::new()),
            FeatureKind::Bytes => ColumnValues::Bytes {
                ends: Vec::new(),
                data: Vec::new(),
            },
            FeatureKind::Empty => ColumnValues::Unset,
        };
    }
    match &mut column.values {
        ColumnValues::Unset => {}
        ColumnValues::Int64(v) => v.extend(values.ints()),
        ColumnValues::Float(v) => v.extend(values.floats()),
        ColumnValues::Bytes { ends, data } => {
            for (bytes, _) in values.bytes() {
                data.extend_from_slice(bytes);
                ends.push(data.len() as i64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::Decoded;
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;

    /// An Example's payload from `(name, kind, values)`: kind 1 bytes, 2 float, 3 int64.
    fn example(features: &[(&str, u8, &[i64])]) -> Vec<u8> {
        fn varint(n: u64, out: &mut Vec<u8>) {
            out.extend(crate::explain::number::varint_bytes(n));
        }
        fn field(number: u8, body: &[u8], out: &mut Vec<u8>) {
            out.extend(crate::crafted::length_delimited(number.into(), body));
        }
        let mut map = Vec::new();
        for (name, kind, values) in features {
            let mut list = Vec::new();
            match kind {
                1 => values
                    .iter()
                    .for_each(|v| field(1, v.to_string().as_bytes(), &mut list)),
                2 => {
                    let packed: Vec<u8> = values
                        .iter()
                        .flat_map(|&v| (v as f32).to_le_bytes())
                        .collect();
                    field(1, &packed, &mut list);
                }
                _ => {
                    let mut packed = Vec::new();
                    values.iter().for_each(|&v| varint(v as u64, &mut packed));
                    field(1, &packed, &mut list);
                }
            }
            let mut feature = Vec::new();
            field(*kind, &list, &mut feature);
            let mut entry = Vec::new();
            field(1, name.as_bytes(), &mut entry);
            field(2, &feature, &mut entry);
            field(1, &entry, &mut map);
        }
        let mut out = Vec::new();
        field(1, &map, &mut out);
        out
    }

    fn gather(columns: &mut ExampleColumns, payloads: &[Vec<u8>]) -> Vec<Result<(), ColumnError>> {
        let schema = Schema::builtin();
        let id = schema
            .table()
            .message_by_name("tensorflow.Example")
            .unwrap();
        let decoder = Decoder::new(schema, Reading::As(id));
        payloads
            .iter()
            .map(|payload| {
                let decoded: Decoded = decoder.decode(payload);
                let message = decoded.typed(payload, decoder.table()).unwrap();
                columns.push(&message)
            })
            .collect()
    }

    #[test]
    fn rows_without_a_feature_are_null_and_offsets_run_over_all_rows() {
        let payloads = [
            example(&[("label", 3, &[7]), ("score", 2, &[1, 2])]),
            example(&[("label", 3, &[8, 9])]),
            example(&[("tag", 1, &[42]), ("label", 3, &[])]),
        ];
        let mut columns = ExampleColumns::new();
        assert!(gather(&mut columns, &payloads).iter().all(Result::is_ok));
        assert_eq!(columns.rows(), 3);
        let columns = columns.finish();
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["label", "score", "tag"]);
        assert_eq!(columns[0].offsets, [0, 1, 3, 3]);
        assert_eq!(columns[0].present, [true, true, true]);
        assert_eq!(columns[0].values, ColumnValues::Int64(vec![7, 8, 9]));
        assert_eq!(columns[1].offsets, [0, 2, 2, 2]);
        assert_eq!(columns[1].present, [true, false, false]);
        assert_eq!(columns[1].values, ColumnValues::Float(vec![1.0, 2.0]));
        assert_eq!(columns[2].offsets, [0, 0, 0, 1]);
        assert_eq!(columns[2].present, [false, false, true]);
        assert_eq!(
            columns[2].values,
            ColumnValues::Bytes {
                ends: vec![2],
                data: b"42".to_vec()
            }
        );
    }

    #[test]
    fn a_kind_that_changes_is_an_error_and_the_row_leaves_no_trace() {
        let payloads = [
            example(&[("x", 3, &[1])]),
            example(&[("y", 3, &[5]), ("x", 2, &[1])]),
            example(&[("x", 3, &[2])]),
        ];
        let mut columns = ExampleColumns::new();
        let results = gather(&mut columns, &payloads);
        assert_eq!(
            results[1],
            Err(ColumnError::KindConflict {
                feature: "x".into(),
                had: "int64",
                got: "float"
            })
        );
        assert!(results[0].is_ok() && results[2].is_ok());
        let columns = columns.finish();
        assert_eq!(columns.len(), 1, "the failed row added no column");
        assert_eq!(columns[0].offsets, [0, 1, 2]);
        assert_eq!(columns[0].values, ColumnValues::Int64(vec![1, 2]));
    }

    #[test]
    fn named_columns_come_in_their_order_and_others_are_left_out() {
        let payloads = [example(&[("a", 3, &[1]), ("b", 3, &[2])])];
        let mut columns = ExampleColumns::only(&["b".into(), "missing".into()]);
        assert!(gather(&mut columns, &payloads).iter().all(Result::is_ok));
        let columns = columns.finish();
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b", "missing"]);
        assert_eq!(columns[1].present, [false]);
        assert_eq!(columns[1].values, ColumnValues::Unset);
    }
}
