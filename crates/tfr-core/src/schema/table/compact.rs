//! A table as compact bytes: how the built-in table is compiled into the binary.
//!
//! Every process that decodes loads the built-in table, so loading it is part of every start.
//! Loading this form allocates only the lists: names are borrowed from the bytes, numbers are
//! varints, and what follows from the fields (each message's tag slots and JSON order, the index
//! by name) is derived as numbering a pool derives it, instead of being stored.
//!
//! Layout: the magic line; the names, all of them one UTF-8 text, its length first; then the
//! fields, the messages and the enums, each list its length first. A number is a varint (an enum
//! value's number as its 32 bits); a name is its length, taken from the names in the order the
//! lists name them; an optional number is 0 for none, else the number plus one. The names are
//! checked as UTF-8 once, as one text, rather than name by name.

use std::borrow::Cow;

use super::{Cardinality, Enum, EnumId, Field, Kind, Message, MessageId, Name, Table};

/// The first bytes, naming the format and its version.
const MAGIC: &[u8] = b"tfr-inspect table 1\n";

/// The bytes are not a table this build wrote: the byte offset where reading failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    pub offset: usize,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed table at byte {}", self.offset)
    }
}

/// The scalar kinds in the order their codes number them; the codes after them are enums,
/// messages and groups, each followed by the type's id.
const SCALARS: [Kind; 15] = [
    Kind::Double,
    Kind::Float,
    Kind::Int64,
    Kind::Uint64,
    Kind::Int32,
    Kind::Fixed64,
    Kind::Fixed32,
    Kind::Bool,
    Kind::String,
    Kind::Bytes,
    Kind::Uint32,
    Kind::Sfixed32,
    Kind::Sfixed64,
    Kind::Sint32,
    Kind::Sint64,
];
const ENUM: u32 = SCALARS.len() as u32;
const MESSAGE: u32 = ENUM + 1;
const GROUP: u32 = ENUM + 2;

const CARDINALITIES: [Cardinality; 4] = [
    Cardinality::Implicit,
    Cardinality::Explicit,
    Cardinality::Repeated,
    Cardinality::Map,
];

// A field's flags.
const PACKABLE: u32 = 1;
const UTF8: u32 = 2;
const PACKED: u32 = 4;
// A message's flags.
const MAP_ENTRY: u32 = 1;
const PROTO3: u32 = 2;

/// `table` as bytes [`decode`] reads back (what the user's flags add is not kept).
#[cfg(test)]
pub fn encode(table: &Table) -> Vec<u8> {
    let mut out = Writer::default();
    out.number(table.fields.len() as u32);
    for (position, field) in table.fields.iter().enumerate() {
        out.number(field.number);
        out.name(&field.name);
        out.name(&field.text_name);
        out.name(&field.json_name);
        out.name(&field.json_member);
        let (code, id) = match field.kind {
            Kind::Enum(EnumId(id)) => (ENUM, Some(id)),
            Kind::Message(MessageId(id)) => (MESSAGE, Some(id)),
            Kind::Group(MessageId(id)) => (GROUP, Some(id)),
            scalar => {
                let code = SCALARS.iter().position(|k| *k == scalar);
                (code.unwrap_or_default() as u32, None)
            }
        };
        out.number(code);
        if let Some(id) = id {
            out.number(id);
        }
        let cardinality = CARDINALITIES.iter().position(|c| *c == field.cardinality);
        out.number(cardinality.unwrap_or_default() as u32);
        let packed = table.packed.get(position).copied().unwrap_or(false);
        out.number(flags(&[
            (field.packable, PACKABLE),
            (field.utf8, UTF8),
            (packed, PACKED),
        ]));
        out.optional(field.oneof);
        out.optional(field.embedded.map(|m| m.0));
    }
    out.number(table.messages.len() as u32);
    for message in &table.messages {
        out.name(&message.full_name);
        out.name(&message.name);
        out.number(message.first);
        out.number(message.count);
        out.number(flags(&[
            (message.map_entry, MAP_ENTRY),
            (message.proto3, PROTO3),
        ]));
    }
    out.number(table.enums.len() as u32);
    for e in &table.enums {
        out.name(&e.full_name);
        out.name(&e.name);
        out.number(u32::from(e.closed));
        out.number(e.values.len() as u32);
        for (number, name) in &e.values {
            out.number(*number as u32);
            out.name(name);
        }
    }
    let mut bytes = MAGIC.to_vec();
    bytes.extend(crate::explain::number::varint_bytes(out.names.len() as u64));
    bytes.extend(out.names.as_bytes());
    bytes.extend(out.lists);
    bytes
}

/// The flags that are set, as one number.
#[cfg(test)]
fn flags(set: &[(bool, u32)]) -> u32 {
    set.iter()
        .filter(|(on, _)| *on)
        .fold(0, |flags, (_, flag)| flags | flag)
}

#[cfg(test)]
#[derive(Default)]
struct Writer {
    names: String,
    lists: Vec<u8>,
}

#[cfg(test)]
impl Writer {
    fn number(&mut self, value: u32) {
        self.lists
            .extend(crate::explain::number::varint_bytes(u64::from(value)));
    }

    fn name(&mut self, name: &str) {
        self.number(name.len() as u32);
        self.names.push_str(name);
    }

    fn optional(&mut self, value: Option<u32>) {
        self.number(value.map_or(0, |v| v + 1));
    }
}

/// The table [`encode`] wrote into `bytes`, its names borrowed from them.
pub fn decode(bytes: &'static [u8]) -> Result<Table, Malformed> {
    decode_with(bytes, Cow::Borrowed)
}

/// The table [`encode`] wrote into `bytes`, each name kept as `keep` keeps it (borrowed from
/// bytes that live as long as the process, copied from any others).
fn decode_with<'a>(bytes: &'a [u8], keep: fn(&'a str) -> Name) -> Result<Table, Malformed> {
    if bytes.get(..MAGIC.len()) != Some(MAGIC) {
        return Err(Malformed { offset: 0 });
    }
    let mut input = Reader {
        bytes,
        at: MAGIC.len(),
        names: "",
        named: 0,
        keep,
    };
    let length = input.count()?;
    let start = input.at;
    input.names = (bytes.get(start..start + length))
        .and_then(|names| std::str::from_utf8(names).ok())
        .ok_or(Malformed { offset: start })?;
    input.at = start + length;
    let mut table = Table::default();
    let count = input.count()?;
    table.fields.reserve(count);
    table.packed.reserve(count);
    for _ in 0..count {
        let (field, packed) = input.field()?;
        table.fields.push(field);
        table.packed.push(packed);
    }
    let count = input.count()?;
    table.messages.reserve(count);
    // Messages hold the fields one after another, each its own in increasing number order, as
    // numbering a pool lays them out: anything else is refused rather than looked up wrongly.
    let mut next_first = 0;
    for _ in 0..count {
        let at = input.at;
        let full_name = input.name()?;
        let name = input.name()?;
        let first = input.number()?;
        let count = input.number()?;
        let flags = input.number()?;
        let fields = (first == next_first)
            .then(|| first.checked_add(count))
            .flatten()
            .and_then(|end| table.fields.get(first as usize..end as usize));
        let in_order = fields.is_some_and(|f| f.is_sorted_by(|a, b| a.number < b.number));
        if !in_order {
            return Err(Malformed { offset: at });
        }
        next_first = first + count;
        table.push_message(Message {
            full_name,
            name,
            first,
            count,
            slots: Vec::new(),
            json_order: Vec::new(),
            json_follows_numbers: true,
            map_entry: flags & MAP_ENTRY != 0,
            proto3: flags & PROTO3 != 0,
        });
    }
    if next_first as usize != table.fields.len() {
        return Err(input.malformed());
    }
    let count = input.count()?;
    table.enums.reserve(count);
    for _ in 0..count {
        let full_name = input.name()?;
        let name = input.name()?;
        let closed = input.number()? != 0;
        let values = input.count()?;
        let mut numbered = Vec::with_capacity(values);
        for _ in 0..values {
            let number = input.number()? as i32;
            numbered.push((number, input.name()?));
        }
        table.enums.push(Enum {
            full_name,
            name,
            values: numbered,
            closed,
        });
    }
    if input.at != bytes.len() || input.named != input.names.len() {
        return Err(input.malformed());
    }
    table.by_name = (table.messages.iter())
        .enumerate()
        .map(|(i, m)| (m.full_name.clone(), MessageId(i as u32)))
        .collect();
    Ok(table)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Every name, and how much of it the names read so far took.
    names: &'a str,
    named: usize,
    keep: fn(&'a str) -> Name,
}

impl Reader<'_> {
    fn malformed(&self) -> Malformed {
        Malformed { offset: self.at }
    }

    fn number(&mut self) -> Result<u32, Malformed> {
        let (value, next) = crate::wire::read_varint(self.bytes, self.at, self.bytes.len())
            .map_err(|_| self.malformed())?;
        let value = u32::try_from(value).map_err(|_| self.malformed())?;
        self.at = next;
        Ok(value)
    }

    /// A list's length: never more than the bytes left could hold, so that reserving for it is
    /// bounded by the input.
    fn count(&mut self) -> Result<usize, Malformed> {
        let count = self.number()? as usize;
        if count > self.bytes.len() - self.at.min(self.bytes.len()) {
            return Err(self.malformed());
        }
        Ok(count)
    }

    fn optional(&mut self) -> Result<Option<u32>, Malformed> {
        Ok(self.number()?.checked_sub(1))
    }

    fn name(&mut self) -> Result<Name, Malformed> {
        let at = self.at;
        let length = self.number()? as usize;
        let names = self.names;
        let text = (self.named.checked_add(length))
            .and_then(|end| names.get(self.named..end))
            .ok_or(Malformed { offset: at })?;
        self.named += length;
        Ok((self.keep)(text))
    }

    /// A field and whether it is declared packed.
    fn field(&mut self) -> Result<(Field, bool), Malformed> {
        let number = self.number()?;
        let name = self.name()?;
        let text_name = self.name()?;
        let json_name = self.name()?;
        let json_member = self.name()?;
        let at = self.at;
        let code = self.number()?;
        let kind = match code {
            ENUM => Kind::Enum(EnumId(self.number()?)),
            MESSAGE => Kind::Message(MessageId(self.number()?)),
            GROUP => Kind::Group(MessageId(self.number()?)),
            _ => *SCALARS.get(code as usize).ok_or(Malformed { offset: at })?,
        };
        let at = self.at;
        let cardinality = *CARDINALITIES
            .get(self.number()? as usize)
            .ok_or(Malformed { offset: at })?;
        let flags = self.number()?;
        let oneof = self.optional()?;
        let embedded = self.optional()?.map(MessageId);
        let field = Field {
            number,
            json_member,
            name,
            text_name,
            json_name,
            kind,
            cardinality,
            packable: flags & PACKABLE != 0,
            oneof,
            utf8: flags & UTF8 != 0,
            embedded,
        };
        Ok((field, flags & PACKED != 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    fn copied(bytes: &[u8]) -> Result<Table, Malformed> {
        decode_with(bytes, |name| Cow::Owned(name.to_owned()))
    }

    /// A table numbered from a pool, written and read back, is that table: what reading derives
    /// (each message's tag slots and JSON order) is what numbering derived. The schema has what
    /// derivation has to get right: proto2 and proto3, groups, a map, a oneof, an empty message,
    /// field numbers past the directly indexed ones, and JSON names out of number order.
    #[test]
    fn a_numbered_table_read_back_is_the_table_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.proto");
        std::fs::write(
            &path,
            "syntax = \"proto2\"; package t;\n\
             enum Color { RED = 1; GREEN = 2; }\n\
             message Empty {}\n\
             message M { optional Color c = 1; repeated int32 far = 100000 [packed = true];\n\
               optional group G = 7 { optional int32 x = 1; } map<string, Empty> m = 63;\n\
               optional int64 zeta = 2; optional int64 alpha = 64; optional int64 mid = 65;\n\
               oneof pick { string a = 3; bytes b = 4; } repeated group R = 200 { } }",
        )
        .unwrap();
        let user = Schema::with_user_protos(&[path], Some("t.M")).unwrap();
        for table in [user.table(), Schema::builtin().table()] {
            let bytes = encode(table);
            let read = copied(&bytes).unwrap();
            assert_eq!(format!("{read:?}"), format!("{table:?}"));
            assert_eq!(encode(&read), bytes);
        }
    }

    /// Cut anywhere (in the names and the last bytes at every byte; in the lists at one in five,
    /// as each cut there reads all before it), the bytes are refused; with a byte of the lists
    /// changed (one in 13, flipped in its low bit, its high bit or all of them), they are refused
    /// or read as some table, and reading ends either way.
    #[test]
    fn cut_or_changed_bytes_are_refused_or_read_without_panic() {
        let bytes = encode(Schema::builtin().table());
        let (length, names) = crate::wire::read_varint(&bytes, MAGIC.len(), bytes.len()).unwrap();
        let lists = names + length as usize;
        // Cuts borrow their names from one copy that lives as long as the process.
        let whole: &'static [u8] = Box::leak(bytes.clone().into_boxed_slice());
        let cuts =
            (0..whole.len()).filter(|end| *end < lists || end % 5 == 0 || end + 64 > whole.len());
        for end in cuts {
            assert!(
                decode(&whole[..end]).is_err(),
                "a table cut at {end} was read"
            );
        }
        let mut changed = bytes.clone();
        let (mut refused, mut read) = (0, 0);
        for (at, flip) in (lists..bytes.len())
            .step_by(13)
            .zip([1, 0x80, 0xff].iter().cycle())
        {
            changed[at] ^= flip;
            match copied(&changed) {
                Ok(_) => read += 1,
                Err(_) => refused += 1,
            }
            changed[at] ^= flip;
        }
        // Both happen: a changed count or layout is refused; a changed number or flag is read.
        assert!(refused > 0 && read > 0, "{refused} refused, {read} read");
    }
}
