//! Examples read straight from their wire bytes into columns, for batches of many records: no
//! wire tree, no schema lookups, no value objects, only the core's varint reader over the bytes.
//!
//! It takes only the plain shape every writer of Examples produces (one `features`, map entries
//! of one key and one value each, a feature setting at most one list, lists of their one field)
//! and nothing else: for that shape the bytes have one meaning, the one protobuf and the
//! decoder's typed view give them. Anything else (an unknown field, a repeated key, a map entry
//! without its value, a name that is not UTF-8, a malformed varint) is declined, and the caller
//! reads that record through the decoder as before, so that both give the same columns.

use std::collections::HashMap;

use super::{Column, ColumnError, ColumnValues, ExampleColumns, truncate_row};
use crate::wire::{MAX_TAG_OR_LENGTH_BYTES, read_varint};

const LEN: u64 = 2;
const VARINT: u64 = 0;
const FIXED32: u64 = 5;

/// A feature's list as its bytes hold it (the list message's body, read when appended).
#[derive(Clone, Copy)]
enum List<'a> {
    Empty,
    Bytes(&'a [u8]),
    Float(&'a [u8]),
    Int64(&'a [u8]),
}

impl List<'_> {
    fn kind_name(self) -> Option<&'static str> {
        match self {
            List::Empty => None,
            List::Bytes(_) => Some("bytes"),
            List::Float(_) => Some("float"),
            List::Int64(_) => Some("int64"),
        }
    }

    /// Whether the list's body is plain, read without keeping its values.
    fn is_plain(self) -> bool {
        match self {
            List::Empty => true,
            List::Bytes(body) => each_bytes(body, |_| ()).is_some(),
            List::Float(body) => each_float(body, |_| ()).is_some(),
            List::Int64(body) => each_int(body, |_| ()).is_some(),
        }
    }
}

/// One feature of a record: its name (not yet known to be UTF-8 when it is a new one), its
/// list and the column it goes to (`None`: a new column, or left out when only named columns
/// are kept).
struct Found<'a> {
    name: &'a [u8],
    list: List<'a>,
    column: Option<usize>,
}

/// What reading a record keeps for the next one.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Per position in the last record, the column its feature went to: records of a dataset
    /// mostly give their features in one order, so a name is first compared with that column's.
    order: Vec<usize>,
    /// Per column, the last record a feature of it was found in (counted by `records`).
    seen: Vec<u64>,
    /// Records read so far, declined ones too.
    records: u64,
    /// Per feature written of the record being read, whether its column had no kind before.
    untyped: Vec<bool>,
}

/// The fields of a message body, as `(field number, wire type, value)`: the data of a
/// length-delimited field, or the bytes of a varint or fixed32 value. `None` ends the walk on
/// anything protobuf would refuse or read otherwise than plainly.
struct Fields<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    fn of(bytes: &'a [u8]) -> Fields<'a> {
        Fields { bytes, pos: 0 }
    }

    /// The next field; `Some(None)` when the bytes are not plain protobuf.
    fn next_field(&mut self) -> Option<Option<(u64, u64, &'a [u8])>> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        Some(self.read())
    }

    fn read(&mut self) -> Option<(u64, u64, &'a [u8])> {
        let end = self.bytes.len();
        let (tag, at) = read_varint(self.bytes, self.pos, end).ok()?;
        if at - self.pos > MAX_TAG_OR_LENGTH_BYTES || tag > u64::from(u32::MAX) {
            return None;
        }
        let (number, wire_type) = (tag >> 3, tag & 7);
        if number == 0 {
            return None;
        }
        let (value, next) = match wire_type {
            LEN => {
                let (len, start) = read_varint(self.bytes, at, end).ok()?;
                if start - at > MAX_TAG_OR_LENGTH_BYTES || len > i32::MAX as u64 {
                    return None;
                }
                let stop = start.checked_add(usize::try_from(len).ok()?)?;
                (self.bytes.get(start..stop)?, stop)
            }
            VARINT => {
                let (_, next) = plain_varint(self.bytes, at)?;
                (self.bytes.get(at..next)?, next)
            }
            FIXED32 => {
                let stop = at.checked_add(4)?;
                (self.bytes.get(at..stop)?, stop)
            }
            _ => return None,
        };
        self.pos = next;
        Some((number, wire_type, value))
    }
}

/// A varint at `pos` as protobuf reads an int64: its value and the position after it; `None`
/// for one that is cut short or longer than ten bytes, or whose tenth byte holds more than the
/// 64th bit (which protobuf's parsers would drop).
fn plain_varint(bytes: &[u8], pos: usize) -> Option<(u64, usize)> {
    let (value, next) = read_varint(bytes, pos, bytes.len()).ok()?;
    if next - pos == 10 && bytes.get(next - 1).is_none_or(|&last| last > 1) {
        return None;
    }
    Some((value, next))
}

/// Calls `each` with every value of an Int64List's body; `None` when it is not plain.
fn each_int(body: &[u8], mut each: impl FnMut(i64)) -> Option<()> {
    let mut fields = Fields::of(body);
    while let Some(field) = fields.next_field() {
        match field? {
            (1, VARINT, bytes) => each(plain_varint(bytes, 0)?.0 as i64),
            (1, LEN, packed) => {
                let mut pos = 0;
                while pos < packed.len() {
                    let (value, next) = plain_varint(packed, pos)?;
                    each(value as i64);
                    pos = next;
                }
            }
            _ => return None,
        }
    }
    Some(())
}

/// Calls `each` with every value of a FloatList's body; `None` when it is not plain.
fn each_float(body: &[u8], mut each: impl FnMut(f32)) -> Option<()> {
    let mut fields = Fields::of(body);
    while let Some(field) = fields.next_field() {
        let values = match field? {
            (1, FIXED32, value) => value,
            (1, LEN, packed) if packed.len() % 4 == 0 => packed,
            _ => return None,
        };
        for chunk in values.chunks_exact(4) {
            each(f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]));
        }
    }
    Some(())
}

/// Calls `each` with every string of a BytesList's body; `None` when it is not plain.
fn each_bytes<'a>(body: &'a [u8], mut each: impl FnMut(&'a [u8])) -> Option<()> {
    let mut fields = Fields::of(body);
    while let Some(field) = fields.next_field() {
        match field? {
            (1, LEN, value) => each(value),
            _ => return None,
        }
    }
    Some(())
}

/// A `Feature`'s list: at most one of its three fields (whose body is read when appended).
fn feature_list(body: &[u8]) -> Option<List<'_>> {
    let mut fields = Fields::of(body);
    let list = match fields.next_field() {
        None => return Some(List::Empty),
        Some(field) => match field? {
            (1, LEN, list) => List::Bytes(list),
            (2, LEN, list) => List::Float(list),
            (3, LEN, list) => List::Int64(list),
            _ => return None,
        },
    };
    fields.next_field().is_none().then_some(list)
}

/// A map entry of `Features`: exactly one key and one value.
fn entry(body: &[u8]) -> Option<(&[u8], List<'_>)> {
    let mut fields = Fields::of(body);
    let (mut key, mut value) = (None, None);
    while let Some(field) = fields.next_field() {
        match field? {
            (1, LEN, k) if key.is_none() => key = Some(k),
            (2, LEN, v) if value.is_none() => value = Some(feature_list(v)?),
            _ => return None,
        }
    }
    Some((key?, value?))
}

/// The body of an Example's one `features` field.
fn features(payload: &[u8]) -> Option<&[u8]> {
    let mut fields = Fields::of(payload);
    let body = match fields.next_field()?? {
        (1, LEN, body) => body,
        _ => return None,
    };
    fields.next_field().is_none().then_some(body)
}

impl ExampleColumns {
    /// Adds the Example whose bytes are `payload` as the next row, read straight from its bytes:
    /// `None` when they are not of the plain shape this reads (see the module's documentation),
    /// and then nothing is added and the caller reads the record through the decoder.
    ///
    /// Call it only for records the decoder reads as Examples (a file of Examples): then, for
    /// the records it takes, it gives what [`ExampleColumns::push`] gives from their typed view.
    pub fn push_wire(&mut self, payload: &[u8]) -> Option<Result<(), ColumnError>> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let pushed = self.push_found(payload, &mut scratch);
        self.scratch = scratch;
        pushed
    }

    fn push_found(
        &mut self,
        payload: &[u8],
        scratch: &mut Scratch,
    ) -> Option<Result<(), ColumnError>> {
        let mut found: Vec<Found<'_>> = Vec::with_capacity(scratch.order.len());
        let mut entries = Fields::of(features(payload)?);
        while let Some(field) = entries.next_field() {
            let (name, list) = match field? {
                (1, LEN, body) => entry(body)?,
                _ => return None,
            };
            let column = self.column_of(name, found.len(), scratch)?;
            found.push(Found { name, list, column });
        }
        // Each name once in the record and each list of its column's kind (else the record is
        // read through the decoder): checked before anything is written.
        scratch.records += 1;
        scratch.seen.resize(self.columns.len(), 0);
        let mut new_names: Option<HashMap<&[u8], ()>> = None;
        for f in &found {
            match f.column {
                Some(at) => {
                    let seen = scratch.seen.get_mut(at)?;
                    if *seen == scratch.records {
                        return None;
                    }
                    *seen = scratch.records;
                    // A kind unlike the column's is an error the decoder's reading words (it
                    // names the first such feature in name order).
                    let had = self.columns.get(at)?.values.kind_name();
                    if f.list
                        .kind_name()
                        .is_some_and(|got| had != "none" && had != got)
                    {
                        return None;
                    }
                }
                None => {
                    let names = new_names.get_or_insert_with(HashMap::new);
                    if names.insert(f.name, ()).is_some() {
                        return None;
                    }
                }
            }
        }
        // New columns come in name order, as the typed view lists a record's features.
        let known = self.columns.len();
        if !self.only && new_names.is_some() {
            let mut new: Vec<usize> = (0..found.len())
                .filter(|&i| found.get(i).is_some_and(|f| f.column.is_none()))
                .collect();
            new.sort_by_key(|&i| found.get(i).map(|f| f.name));
            for i in new {
                if let Some(f) = found.get_mut(i) {
                    // Known to be UTF-8: column_of looked it up by name.
                    let Ok(name) = std::str::from_utf8(f.name) else {
                        self.undo(&[], &[], known);
                        return None;
                    };
                    f.column = Some(self.add_column(name));
                }
            }
        }
        // The lists are read as they are appended; one that is not plain undoes the record.
        scratch.untyped.clear();
        for f in &found {
            let appended = match f.column.and_then(|at| self.columns.get_mut(at)) {
                Some(column) => {
                    scratch
                        .untyped
                        .push(matches!(column.values, ColumnValues::Unset));
                    column.present.push(true);
                    append_list(column, f.list)
                }
                None => f.list.is_plain(),
            };
            if !appended {
                self.undo(&found, &scratch.untyped, known);
                return None;
            }
        }
        scratch.order.clear();
        scratch
            .order
            .extend(found.iter().map(|f| f.column.unwrap_or(usize::MAX)));
        self.rows += 1;
        for column in &mut self.columns {
            if column.present.len() < self.rows {
                column.present.push(false);
            }
            let end = i32::try_from(column.values.len()).map_err(|_| ColumnError::TooManyValues {
                feature: column.name.clone(),
            });
            match end {
                Ok(end) => column.offsets.push(end),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(()))
    }

    /// Takes back what the first features of `found` wrote to the row being built (`untyped`
    /// saying, for each of them, whether its column had no kind before) and the columns from
    /// `known` on that it added: the record is declined as if it had not been read.
    fn undo(&mut self, found: &[Found<'_>], untyped: &[bool], known: usize) {
        let written = found.iter().filter_map(|f| f.column).zip(untyped);
        for (at, &untyped) in written {
            if let Some(column) = self.columns.get_mut(at) {
                truncate_row(column);
                if untyped {
                    column.values = ColumnValues::Unset;
                }
            }
        }
        for column in self.columns.drain(known..) {
            self.by_name.remove(&column.name);
        }
    }

    /// The column of feature `name`, the `position`-th of its record, when there is one
    /// (`Some(None)`: none yet); `None` when the name is not UTF-8.
    fn column_of(&self, name: &[u8], position: usize, scratch: &Scratch) -> Option<Option<usize>> {
        let guess = scratch.order.get(position).copied();
        if let Some(at) = guess.filter(|&at| {
            self.columns
                .get(at)
                .is_some_and(|c| c.name.as_bytes() == name)
        }) {
            return Some(Some(at));
        }
        let name = std::str::from_utf8(name).ok()?;
        Some(self.by_name.get(name).copied())
    }
}

/// Appends a list to `column`, whose kind it matches or sets, reading its body; `false` when
/// the body is not plain. What it appended then is taken back with the rest of the record
/// ([`ExampleColumns::undo`]: the row is cut back to its start, and a kind set here unset).
fn append_list(column: &mut Column, list: List<'_>) -> bool {
    if matches!(column.values, ColumnValues::Unset) {
        column.values = match list {
            List::Int64(_) => ColumnValues::Int64(Vec::new()),
            List::Float(_) => ColumnValues::Float(Vec::new()),
            List::Bytes(_) => ColumnValues::Bytes {
                ends: Vec::new(),
                data: Vec::new(),
            },
            List::Empty => ColumnValues::Unset,
        };
    }
    let plain = match (&mut column.values, list) {
        (ColumnValues::Int64(v), List::Int64(body)) => each_int(body, |x| v.push(x)),
        (ColumnValues::Float(v), List::Float(body)) => each_float(body, |x| v.push(x)),
        (ColumnValues::Bytes { ends, data }, List::Bytes(body)) => each_bytes(body, |s| {
            data.extend_from_slice(s);
            ends.push(data.len() as i64);
        }),
        _ => Some(()),
    };
    plain.is_some()
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
