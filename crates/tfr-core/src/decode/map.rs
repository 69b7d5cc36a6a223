//! Map fields: entries read without resolving each one as a message, and keyed as protobuf keys
//! them.
//!
//! A map of a million entries is resolved by sorting (key, position) pairs: the occurrences of
//! each key fall together in wire order, the first giving the entry's place and the last its value,
//! and the entries come out in key order, which is the order every view prints them in.

use super::{FieldValues, NO_FIELD, Nodes, Parsed, Scalar, Value, leaf_value};
use crate::schema::table::{Field, FieldId, Kind};
use crate::span::Span;
use crate::wire::{self, NodeKind};

/// Reads the key and value of a map's entries without resolving each entry as a message.
#[derive(Debug, Clone, Copy)]
pub struct EntryReader<'a> {
    parsed: Parsed<'a>,
    key: FieldId,
    value: FieldId,
}

impl<'a> EntryReader<'a> {
    /// The reader for the entries of map field `map`.
    pub fn of(parsed: Parsed<'a>, map: FieldId) -> Option<EntryReader<'a>> {
        let (key, value) = parsed.table.map_fields(map)?;
        Some(EntryReader { parsed, key, value })
    }

    /// The entry's key, `None` when absent (then it is the key type's default).
    pub fn entry_key(&self, entry: &MapEntry) -> Option<Value<'a>> {
        self.key(entry.last)
    }

    /// The entry's value (the merge of its occurrences for a message), `None` when absent.
    /// Inlined into the writers' loops over entries (as [`FieldValues::singular`] is).
    #[inline(always)]
    pub fn entry_value(&self, entry: &MapEntry) -> Option<Value<'a>> {
        match entry.value {
            EntryValue::Absent => None,
            EntryValue::Once(node) => self.value_of(Nodes::one(node)),
            EntryValue::Several => self.value(entry.last),
        }
    }

    /// The bytes of a string key (empty when the key is absent or not a string).
    pub fn key_bytes(&self, entry: &MapEntry) -> &'a [u8] {
        match self.key(entry.last) {
            Some(Value::String(b, _) | Value::Bytes(b, _)) => b,
            _ => b"",
        }
    }

    /// The entry holding the value, tag through data.
    pub fn span(&self, entry: &MapEntry) -> Span {
        self.parsed
            .node(entry.last)
            .map_or(Span::default(), wire::Node::span)
    }

    /// Whether a parser keeps `entry` in the map. upb moves an entry that carries any field other
    /// than a well-formed key and value (an unknown number, a key or value of the wrong wire type,
    /// a number a closed enum does not define) to the unknown fields of the message holding the
    /// map, and so does Python protobuf: such entries are not map entries at all.
    pub(super) fn kept(&self, entry: u32) -> bool {
        self.kept_nodes(entry, self.enums()).is_some()
    }

    /// Whether the key and the value are enums (whose numbers [`EntryReader::kept`] checks).
    fn enums(&self) -> (bool, bool) {
        let is_enum =
            |f: FieldId| matches!(self.parsed.field(f).map(|f| f.kind), Some(Kind::Enum(_)));
        (is_enum(self.key), is_enum(self.value))
    }

    /// [`EntryReader::kept`], the entry's last key occurrence and its value occurrences, in one
    /// pass over its fields: `None` when the entry is not kept. `enums` is
    /// [`EntryReader::enums`], worked out once per map by callers that check every entry.
    fn kept_nodes(&self, entry: u32, enums: (bool, bool)) -> Option<(Option<u32>, EntryValue)> {
        let mut key = None;
        let mut value = EntryValue::Absent;
        for child in self.parsed.tree.children(entry as usize) {
            let field = self.parsed.node(child as u32)?.field()?;
            let is_enum = if field == self.key {
                key = Some(child as u32);
                enums.0
            } else if field == self.value {
                value = match value {
                    EntryValue::Absent => EntryValue::Once(child as u32),
                    _ => EntryValue::Several,
                };
                enums.1
            } else {
                return None;
            };
            if is_enum {
                let info = self.parsed.field(field).unwrap_or_else(|| &NO_FIELD);
                leaf_value(self.parsed, info, child as u32)?;
            }
        }
        Some((key, value))
    }

    /// The entry's last key occurrence.
    fn key_node(&self, entry: u32) -> Option<u32> {
        self.parsed
            .tree
            .children(entry as usize)
            .filter(|c| self.parsed.node(*c as u32).and_then(wire::Node::field) == Some(self.key))
            .last()
            .map(|c| c as u32)
    }

    /// The entry's value occurrences (usually one).
    fn value_nodes(&self, entry: u32) -> Option<Nodes> {
        let mut values = self
            .parsed
            .tree
            .children(entry as usize)
            .filter(|c| self.parsed.node(*c as u32).and_then(wire::Node::field) == Some(self.value))
            .map(|c| c as u32);
        let first = values.next()?;
        match values.next() {
            None => Some(Nodes::one(first)),
            Some(second) => {
                let mut all = vec![first, second];
                all.extend(values);
                Some(Nodes::new(&all))
            }
        }
    }

    fn key(&self, entry: u32) -> Option<Value<'a>> {
        let node = self.key_node(entry)?;
        FieldValues::new(self.parsed, self.key, &[node]).singular()
    }

    fn value(&self, entry: u32) -> Option<Value<'a>> {
        self.value_of(self.value_nodes(entry)?)
    }

    /// The value the occurrences `nodes` of the value field hold (merged, for a message).
    #[inline(always)]
    fn value_of(&self, nodes: Nodes) -> Option<Value<'a>> {
        FieldValues {
            parsed: self.parsed,
            id: self.value,
            nodes,
        }
        .singular()
    }
}

/// A map key as protobuf compares keys: a missing key is the key type's default. Keys of one map
/// are all of one variant, ordered as Python's `sorted()` orders them (strings by their UTF-8
/// bytes, which is code point order; numbers and bools by value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum MapKey<'a> {
    Int(i64),
    /// A `uint64` or `fixed64` key above `i64::MAX`.
    Large(u64),
    Bytes(&'a [u8]),
}

impl<'a> MapKey<'a> {
    /// A string key's bytes; empty for a number key (as [`MapView::key_bytes`] reads it).
    fn bytes(self) -> &'a [u8] {
        match self {
            MapKey::Bytes(bytes) => bytes,
            MapKey::Int(_) | MapKey::Large(_) => b"",
        }
    }
}

fn map_key<'a>(key: Option<&Value<'a>>) -> MapKey<'a> {
    match key {
        Some(Value::String(b, _) | Value::Bytes(b, _)) => MapKey::Bytes(b),
        Some(Value::Scalar(Scalar::U64(v))) if *v > i64::MAX as u64 => MapKey::Large(*v),
        Some(Value::Scalar(s)) => MapKey::Int(scalar_int(s) as i64),
        Some(Value::Message(_)) | None => MapKey::Int(0),
    }
}

/// An integer or bool scalar as one comparable number.
pub fn scalar_int(scalar: &Scalar<'_>) -> i128 {
    match scalar {
        Scalar::I32(v) => i128::from(*v),
        Scalar::I64(v) => i128::from(*v),
        Scalar::U32(v) => i128::from(*v),
        Scalar::U64(v) => i128::from(*v),
        Scalar::Bool(v) => i128::from(*v),
        Scalar::Enum(v, _) => i128::from(*v),
        Scalar::F32(_) | Scalar::F64(_) => 0,
    }
}

/// One entry of a map: where its key first appeared, and the entry holding its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapEntry {
    pub first: u32,
    pub last: u32,
    /// The value's occurrences in entry `last`, as keying the map found them: the writers ask
    /// every entry for its value, and looking through the entry again for it took about 1% of
    /// `show --format json`'s instructions.
    value: EntryValue,
}

/// How often an entry holds its value field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryValue {
    Absent,
    /// Once, as this node (nearly every entry).
    Once(u32),
    /// More than once: a message value is the merge of them all, a scalar the last.
    Several,
}

/// A map field's entries as protobuf keeps them: entries that carry unknown fields dropped, one
/// entry per key with the last value given for it, in key order (the order text format prints
/// them in and names are listed in).
#[derive(Debug, Clone)]
pub struct MapView<'a> {
    shape: Option<EntryReader<'a>>,
    entries: Vec<Keyed<'a>>,
}

/// An entry with its key, as it was read for ordering the entries.
#[derive(Debug, Clone, Copy)]
struct Keyed<'a> {
    /// A string key's first eight bytes as a big-endian number (zero-padded), `0` for others:
    /// ordered as the keys are wherever two differ, so that most comparisons of names are
    /// settled by one of numbers.
    prefix: u64,
    key: MapKey<'a>,
    entry: MapEntry,
}

/// See [`Keyed::prefix`].
fn key_prefix(key: MapKey<'_>) -> u64 {
    let MapKey::Bytes(bytes) = key else {
        return 0;
    };
    // Byte by byte: copying a slice of unknown length is a call of the C library's `memcpy`.
    bytes
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |prefix, (i, &byte)| {
            prefix | u64::from(byte) << (56 - 8 * i)
        })
}

impl<'a> MapView<'a> {
    /// A map with no entries.
    pub fn empty() -> MapView<'a> {
        MapView {
            shape: None,
            entries: Vec::new(),
        }
    }

    pub(super) fn new(field: &FieldValues<'a>) -> MapView<'a> {
        let shape = field
            .parsed
            .table
            .map_fields(field.id)
            .map(|(key, value)| EntryReader {
                parsed: field.parsed,
                key,
                value,
            });
        let Some(shape) = shape else {
            return MapView::empty();
        };
        let key_info = shape.parsed.field(shape.key).unwrap_or_else(|| &NO_FIELD);
        let key_is_bytes = matches!(key_info.kind, Kind::String | Kind::Bytes);
        let enums = shape.enums();
        // The last key occurrence's value, read straight from its node (`key` would also drop a
        // proto3 default, which keys the same: `Int(0)`, or the empty string below). A string
        // key is its bytes, taken without making a value of them: maps are keyed for every record.
        let key_of = |key_node: Option<u32>| {
            let node = key_node.and_then(|k| Some((k, shape.parsed.node(k)?)));
            if let Some((_, n)) = node.filter(|(_, n)| key_is_bytes && n.kind() == NodeKind::Bytes)
            {
                return MapKey::Bytes(shape.parsed.slice(n.data_span()));
            }
            let value = node.and_then(|(k, _)| leaf_value(shape.parsed, key_info, k));
            match map_key(value.map(|(v, _)| v).as_ref()) {
                MapKey::Int(0) if key_is_bytes => MapKey::Bytes(b""),
                key => key,
            }
        };
        // Sorting by key, then by position, puts the occurrences of each key together in wire
        // order: the first gives the entry's place, the last its value. No hashing, and the
        // entries come out in key order.
        // One list, sized for every entry at once (a filtered collect starts small and grows),
        // sorted and then merged in place.
        let mut entries: Vec<Keyed<'a>> = Vec::with_capacity(field.nodes().len());
        entries.extend(field.nodes().iter().filter_map(|&e| {
            let (key_node, value) = shape.kept_nodes(e, enums)?;
            let key = key_of(key_node);
            Some(Keyed {
                prefix: key_prefix(key),
                key,
                entry: MapEntry {
                    first: e,
                    last: e,
                    value,
                },
            })
        }));
        entries.sort_unstable_by_key(|k| (k.prefix, k.key, k.entry.first));
        entries.dedup_by(|later, kept| {
            let same = later.key == kept.key;
            if same {
                kept.entry.last = later.entry.last;
                kept.entry.value = later.entry.value;
            }
            same
        });
        MapView {
            shape: Some(shape),
            entries,
        }
    }

    /// The kept entries, in key order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &MapEntry> + Clone + '_ {
        self.entries.iter().map(|k| &k.entry)
    }

    /// The `i`-th entry in key order.
    pub fn entry(&self, i: usize) -> Option<&MapEntry> {
        self.entries.get(i).map(|k| &k.entry)
    }

    /// Where the entry of string key `key` is in key order.
    pub fn position_of(&self, key: &[u8]) -> Option<usize> {
        self.entries
            .binary_search_by(|k| k.key.bytes().cmp(key))
            .ok()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry's key, `None` when absent (then it is the key type's default).
    pub fn key(&self, entry: &MapEntry) -> Option<Value<'a>> {
        self.shape.as_ref()?.entry_key(entry)
    }

    /// The entry's value (the merge of its occurrences for a message), `None` when absent.
    /// Inlined, as [`EntryReader::entry_value`] is: a call returned the value through memory,
    /// for every entry the writers print (0.3% of `show --format json`'s instructions).
    #[inline(always)]
    pub fn value(&self, entry: &MapEntry) -> Option<Value<'a>> {
        self.shape.as_ref()?.entry_value(entry)
    }

    /// The bytes of a string key (empty when the key is absent or not a string).
    pub fn key_bytes(&self, entry: &MapEntry) -> &'a [u8] {
        self.shape.as_ref().map_or(b"", |s| s.key_bytes(entry))
    }

    /// [`MapView::key_bytes`] of every entry, in key order, without reading the keys again.
    pub fn keys_bytes(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + '_ {
        self.entries.iter().map(|k| k.key.bytes())
    }

    /// The entry holding the value, tag through data.
    pub fn span(&self, entry: &MapEntry) -> Span {
        self.shape
            .as_ref()
            .map_or(Span::default(), |s| s.span(entry))
    }

    /// The reader of the entries.
    pub fn reader(&self) -> Option<EntryReader<'a>> {
        self.shape
    }

    /// The schema's key and value fields.
    pub fn key_field(&self) -> Option<&'a Field> {
        self.shape.and_then(|s| s.parsed.field(s.key))
    }

    pub fn value_field(&self) -> Option<&'a Field> {
        self.shape.and_then(|s| s.parsed.field(s.value))
    }

    /// The value's field id (for a message value, its type is the field's message type).
    pub fn value_id(&self) -> Option<FieldId> {
        self.shape.map(|s| s.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_prefixes_never_order_two_keys_against_their_bytes() {
        // Every string of up to ten bytes from a few bytes that matter (zero, as padding is; one;
        // the largest), in byte order: their prefixes must never decrease. Strings that differ
        // only after eight bytes, or by trailing zeros, share a prefix and are compared whole.
        let mut keys: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..10 {
            last = last
                .iter()
                .flat_map(|k| {
                    [0u8, 1, 0xff].map(|b| {
                        let mut longer = k.clone();
                        longer.push(b);
                        longer
                    })
                })
                .collect();
            keys.extend(last.iter().cloned());
        }
        keys.sort();
        let prefixes: Vec<u64> = keys.iter().map(|k| key_prefix(MapKey::Bytes(k))).collect();
        assert!(prefixes.is_sorted());
        assert_eq!(key_prefix(MapKey::Bytes(b"id")), 0x6964 << 48);
        assert_eq!(key_prefix(MapKey::Int(-3)), 0);
        // Sorting by prefix, then key, then position is sorting by key, then position.
        let mut by_prefix: Vec<(u64, MapKey<'_>)> = keys
            .iter()
            .rev()
            .map(|k| (key_prefix(MapKey::Bytes(k)), MapKey::Bytes(k)))
            .collect();
        by_prefix.sort_unstable();
        let by_key: Vec<&[u8]> = by_prefix.iter().map(|(_, k)| k.bytes()).collect();
        assert!(
            by_key
                .iter()
                .eq(keys.iter().map(Vec::as_slice).collect::<Vec<_>>().iter())
        );
    }
}
