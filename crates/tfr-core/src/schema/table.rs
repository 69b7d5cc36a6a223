//! The schema as plain data: every message, field and enum of a descriptor pool, numbered.
//!
//! prost-reflect's descriptors are reference-counted handles into a shared pool: asking one for a
//! field's kind, name or oneof clones handles, and threads decoding with one pool contend on those
//! counts. The walker and the typed layer touch a field for every field occurrence of every record,
//! so they read this table instead: built once per schema, indexed by small integers, shared across
//! threads behind an `Arc`, and answering "which field has number N" in O(1) for small numbers.

use std::borrow::Cow;
use std::collections::HashMap;

use prost_reflect::{DescriptorPool, FieldDescriptor, MessageDescriptor, Syntax};

use crate::wire_type::WireType;

#[cfg(test)]
mod generate;

/// A name from the schema (of a message, field, enum or enum value): borrowed from the built-in
/// table compiled into the binary, owned when a table is numbered from a pool at run time.
pub type Name = Cow<'static, str>;

/// A list of the table: borrowed from the built-in table compiled into the binary, owned when a
/// table is numbered from a pool at run time (or changed by the user's flags).
type List<T> = Cow<'static, [T]>;

/// `text` as an owned [`Name`].
fn owned(text: &str) -> Name {
    Cow::Owned(text.to_owned())
}

/// A message type of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageId(pub u32);

/// An enum type of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EnumId(pub u32);

/// A field of some message of the table (fields of one message are numbered consecutively, in
/// field-number order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldId(pub u32);

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Double,
    Float,
    Int64,
    Uint64,
    Int32,
    Fixed64,
    Fixed32,
    Bool,
    String,
    Bytes,
    Uint32,
    Sfixed32,
    Sfixed64,
    Sint32,
    Sint64,
    Enum(EnumId),
    Message(MessageId),
    /// A proto2 group: a message written between start- and end-group tags.
    Group(MessageId),
}

impl Kind {
    /// The wire type a value of this kind is written with (a packed run aside).
    pub fn wire_type(self) -> WireType {
        match self {
            Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::I64,
            Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::I32,
            Kind::String | Kind::Bytes | Kind::Message(_) => WireType::Len,
            Kind::Group(_) => WireType::StartGroup,
            _ => WireType::Varint,
        }
    }

    /// Bytes per element in a packed run: 4 or 8 for fixed-width kinds, `None` for varints.
    pub fn fixed_width(self) -> Option<usize> {
        self.wire_type().fixed_width()
    }

    /// The message type of a message or group field.
    pub fn message(self) -> Option<MessageId> {
        match self {
            Kind::Message(m) | Kind::Group(m) => Some(m),
            _ => None,
        }
    }

    /// The name of a scalar kind as `.proto` files spell it (`int64`, `sfixed32`, `string`).
    pub fn scalar_name(self) -> Option<&'static str> {
        Some(match self {
            Kind::Double => "double",
            Kind::Float => "float",
            Kind::Int64 => "int64",
            Kind::Uint64 => "uint64",
            Kind::Int32 => "int32",
            Kind::Fixed64 => "fixed64",
            Kind::Fixed32 => "fixed32",
            Kind::Bool => "bool",
            Kind::String => "string",
            Kind::Bytes => "bytes",
            Kind::Uint32 => "uint32",
            Kind::Sfixed32 => "sfixed32",
            Kind::Sfixed64 => "sfixed64",
            Kind::Sint32 => "sint32",
            Kind::Sint64 => "sint64",
            Kind::Enum(_) | Kind::Message(_) | Kind::Group(_) => return None,
        })
    }
}

/// How many values a field holds and how absence is told apart from the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cardinality {
    /// proto3 singular field without presence: the default value means "not set".
    Implicit,
    /// A singular field with presence (proto2 optional, proto3 `optional`, messages, oneofs).
    Explicit,
    Repeated,
    Map,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub number: u32,
    pub name: Name,
    /// The name text format prints: the group's type name for a group, else the field name.
    pub text_name: Name,
    pub json_name: Name,
    /// `json_name` as a JSON member name: quoted, escaped and followed by `: `, as every record's
    /// JSON writes it.
    pub json_member: Name,
    pub kind: Kind,
    pub cardinality: Cardinality,
    /// A repeated scalar number, which may arrive as a packed run.
    pub packable: bool,
    /// Index of the oneof it belongs to, within its message.
    pub oneof: Option<u32>,
    /// A proto3 `string`: parsers reject bytes that are not UTF-8.
    pub utf8: bool,
    /// For a bytes field known to hold a serialized message (`Event.graph_def`, or one the user
    /// names with `--field-type`): that message. Text and JSON still print the bytes, as
    /// protobuf does; the readable views decode them.
    pub embedded: Option<MessageId>,
}

/// A JSON member name for `name`, with the separator that follows it.
pub(crate) fn json_member(name: &str) -> Name {
    let mut member = String::new();
    crate::pyfmt::json_string(name, &mut member);
    member.push_str(": ");
    Cow::Owned(member)
}

impl Field {
    pub fn is_repeated(&self) -> bool {
        matches!(self.cardinality, Cardinality::Repeated | Cardinality::Map)
    }

    /// Whether a field occurrence with `wire_type` is read as this field (else it is unknown).
    pub fn accepts(&self, wire_type: WireType) -> bool {
        self.kind.wire_type() == wire_type || (self.packable && wire_type == WireType::Len)
    }
}

/// Whether a repeated number field is declared packed: `[packed = …]` when given, else packed in
/// proto3 and not in proto2. (Read from the options, which prost-reflect's own `is_packed` does
/// not always reflect.)
fn declared_packed(field: &FieldDescriptor) -> bool {
    packed_by_declaration(
        &field.kind(),
        field.is_list(),
        &field.parent_file(),
        field.field_descriptor_proto(),
    )
}

/// [`declared_packed`] from the parts a field and an extension both have.
pub(crate) fn packed_by_declaration(
    kind: &prost_reflect::Kind,
    list: bool,
    file: &prost_reflect::FileDescriptor,
    proto: &prost_reflect::prost_types::FieldDescriptorProto,
) -> bool {
    use prost_reflect::Kind as K;
    let number = !matches!(kind, K::String | K::Bytes | K::Message(_));
    let default = file.syntax() == Syntax::Proto3;
    let option = proto.options.as_ref().and_then(|o| o.packed);
    list && number && option.unwrap_or(default)
}

/// Field numbers below this are found by direct indexing.
const DENSE: usize = 64;

#[derive(Debug, Clone)]
pub struct Message {
    pub full_name: Name,
    pub name: Name,
    /// The first field's id; the message's fields are `first..first + count`.
    first: u32,
    count: u32,
    /// By field number, up to the highest number below [`DENSE`] that the message declares: the
    /// field with that number, if there is one.
    slots: List<Option<Slot>>,
    /// Field positions in the order of their JSON names.
    json_order: List<u32>,
    /// Whether that is field-number order (then any set of fields listed by number is in JSON
    /// order).
    json_follows_numbers: bool,
    pub map_entry: bool,
    pub proto3: bool,
}

/// What the walk reads a field's value by: the field's kind and flags, copied into its message's
/// slots so that looking a tag up reads one small entry, not the field's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    pub kind: Kind,
    /// [`Field::packable`].
    pub packable: bool,
    /// [`Field::utf8`].
    pub utf8: bool,
}

impl Reading {
    fn of(field: &Field) -> Reading {
        Reading {
            kind: field.kind,
            packable: field.packable,
            utf8: field.utf8,
        }
    }
}

/// What a tag of a declared field number reads as in a message.
#[derive(Debug, Clone, Copy)]
struct Slot {
    field: FieldId,
    /// The wire types the field accepts, one bit each (bit `n` for wire type `n`).
    accepts: u8,
    reading: Reading,
}

/// A message's tag lookup ([`Table::tags_of`]). The walk asks it for every field it reads:
/// holding the message's slots, instead of finding them through the table each time, takes
/// dependent loads off every field.
#[derive(Clone, Copy)]
pub struct Tags<'t> {
    table: &'t Table,
    id: MessageId,
    slots: &'t [Option<Slot>],
}

impl<'t> Tags<'t> {
    /// The field with `number` when it accepts `wire_type`, and how its value is read.
    #[inline]
    pub fn field(&self, number: u32, wire_type: WireType) -> Option<(FieldId, Reading)> {
        match self.slots.get(number as usize) {
            Some(slot) => slot
                .filter(|slot| slot.accepts & 1 << (wire_type as u8) != 0)
                .map(|slot| (slot.field, slot.reading)),
            None => {
                let id = self.table.field_by_number(self.id, number)?;
                let info = self.table.field(id)?;
                info.accepts(wire_type).then_some((id, Reading::of(info)))
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Enum {
    pub full_name: Name,
    pub name: Name,
    /// Value numbers and names, by number (one name per number).
    values: List<(i32, Name)>,
    /// A proto2 enum: a number it does not define is kept as an unknown field by parsers.
    pub closed: bool,
}

impl Enum {
    pub fn value_name(&self, number: i32) -> Option<&str> {
        self.values
            .binary_search_by_key(&number, |(n, _)| *n)
            .ok()
            .and_then(|i| self.values.get(i))
            .map(|(_, name)| &**name)
    }

    /// Whether a parser keeps `number` as a value of this enum.
    pub fn keeps(&self, number: i32) -> bool {
        !self.closed || self.value_name(number).is_some()
    }
}

/// Every message, field and enum of a descriptor pool.
#[derive(Debug, Clone, Default)]
pub struct Table {
    messages: List<Message>,
    fields: List<Field>,
    enums: List<Enum>,
    /// By field id: whether the field is declared packed (proto3's default for repeated
    /// numbers, `[packed = true]` in proto2), which is how encoders write it.
    packed: List<bool>,
    /// Every message's full name with its id, in name order (byte by byte), for lookups by
    /// binary search: an index that, unlike a hash map, can be compiled into the binary.
    by_name: List<(Name, MessageId)>,
    /// Bytes features (and feature lists) whose values the readable views show as arrays of
    /// numbers of a dtype (`--bytes-as rgb=uint8`), by feature name.
    bytes_as: Vec<(Box<[u8]>, crate::tensor::DType)>,
    /// Bytes features (and feature lists) whose values the readable views read as a message
    /// (`--field-type feature:NAME=pkg.Type`), by feature name.
    feature_types: Vec<(Box<[u8]>, MessageId)>,
}

// The built-in table, as `generate` writes it.
include!("table/builtin.rs");

// Flags of the built-in table's entries, one bit each.
const PACKABLE: u8 = 1;
const UTF8: u8 = 2;
const JSON_FOLLOWS_NUMBERS: u8 = 1;
const MAP_ENTRY: u8 = 2;
const PROTO3: u8 = 4;

/// A field of the built-in table; `names` are its name, text name, JSON name and JSON member.
const fn field(
    number: u32,
    [name, text_name, json_name, json_member]: [&'static str; 4],
    kind: Kind,
    cardinality: Cardinality,
    flags: u8,
    oneof: Option<u32>,
    embedded: Option<MessageId>,
) -> Field {
    Field {
        number,
        name: Cow::Borrowed(name),
        text_name: Cow::Borrowed(text_name),
        json_name: Cow::Borrowed(json_name),
        json_member: Cow::Borrowed(json_member),
        kind,
        cardinality,
        packable: flags & PACKABLE != 0,
        oneof,
        utf8: flags & UTF8 != 0,
        embedded,
    }
}

/// A tag slot of the built-in table: field `field` accepts the wire types in `accepts`.
const fn slot(field: u32, accepts: u8, kind: Kind, flags: u8) -> Option<Slot> {
    Some(Slot {
        field: FieldId(field),
        accepts,
        reading: Reading {
            kind,
            packable: flags & PACKABLE != 0,
            utf8: flags & UTF8 != 0,
        },
    })
}

/// A message of the built-in table; `names` are its full name and its name.
const fn message(
    [full_name, name]: [&'static str; 2],
    first: u32,
    count: u32,
    slots: &'static [Option<Slot>],
    json_order: &'static [u32],
    flags: u8,
) -> Message {
    Message {
        full_name: Cow::Borrowed(full_name),
        name: Cow::Borrowed(name),
        first,
        count,
        slots: Cow::Borrowed(slots),
        json_order: Cow::Borrowed(json_order),
        json_follows_numbers: flags & JSON_FOLLOWS_NUMBERS != 0,
        map_entry: flags & MAP_ENTRY != 0,
        proto3: flags & PROTO3 != 0,
    }
}

/// An enum of the built-in table; `names` are its full name and its name.
const fn enumeration(
    [full_name, name]: [&'static str; 2],
    closed: bool,
    values: &'static [(i32, Name)],
) -> Enum {
    Enum {
        full_name: Cow::Borrowed(full_name),
        name: Cow::Borrowed(name),
        values: Cow::Borrowed(values),
        closed,
    }
}

impl Table {
    /// The built-in schema's table, numbered ahead of time and compiled into the binary as
    /// statics ([`BUILTIN`]): taking it copies a few pointers.
    pub(crate) fn builtin() -> Table {
        BUILTIN.clone()
    }

    /// The table as Rust source that compiles to it (a `static` named `BUILTIN`), without what
    /// the user's flags add (`--bytes-as`, feature types).
    #[cfg(test)]
    pub(crate) fn to_rust(&self) -> String {
        generate::rust_source(self)
    }

    /// Numbers everything in `pool`.
    pub fn new(pool: &DescriptorPool) -> Table {
        let mut by_name: Vec<(Name, MessageId)> = pool
            .all_messages()
            .enumerate()
            .map(|(i, m)| (owned(m.full_name()), MessageId(i as u32)))
            .collect();
        by_name.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
        let enum_ids: HashMap<String, EnumId> = pool
            .all_enums()
            .enumerate()
            .map(|(i, e)| (e.full_name().to_string(), EnumId(i as u32)))
            .collect();
        let mut table = Table {
            by_name: Cow::Owned(by_name),
            bytes_as: Vec::new(),
            feature_types: Vec::new(),
            ..Table::default()
        };
        for message in pool.all_messages() {
            table.add_message(&message, &enum_ids);
        }
        table.enums = pool
            .all_enums()
            .map(|e| {
                let mut values: Vec<(i32, Name)> = Vec::new();
                for v in e.values() {
                    if values.iter().all(|(n, _)| *n != v.number()) {
                        // The name protobuf's own lookup by number gives, for aliases too.
                        let name = e
                            .get_value(v.number())
                            .map_or(owned(v.name()), |d| owned(d.name()));
                        values.push((v.number(), name));
                    }
                }
                values.sort_by_key(|(n, _)| *n);
                Enum {
                    full_name: owned(e.full_name()),
                    name: owned(e.name()),
                    values: Cow::Owned(values),
                    closed: e.parent_file().syntax() == Syntax::Proto2,
                }
            })
            .collect::<Vec<_>>()
            .into();
        table
    }

    fn add_message(&mut self, message: &MessageDescriptor, enums: &HashMap<String, EnumId>) {
        let mut descriptors: Vec<FieldDescriptor> = message.fields().collect();
        descriptors.sort_by_key(|f| f.number());
        let first = self.fields.len() as u32;
        for field in &descriptors {
            let made = self.make_field(field, enums);
            self.fields.to_mut().push(made);
            self.packed.to_mut().push(declared_packed(field));
        }
        self.push_message(Message {
            full_name: owned(message.full_name()),
            name: owned(message.name()),
            first,
            count: descriptors.len() as u32,
            slots: List::default(),
            json_order: List::default(),
            json_follows_numbers: true,
            map_entry: message.is_map_entry(),
            proto3: message.parent_file().syntax() == Syntax::Proto3,
        });
    }

    /// Adds `message`, whose fields (`first..first + count`) the table already holds, with what
    /// is derived from those fields: its tag slots and its JSON order.
    fn push_message(&mut self, mut message: Message) {
        let fields = self.fields_of(&message);
        let highest = fields.last().map_or(0, |f| f.number as usize);
        let mut slots = vec![None; (highest + 1).min(DENSE)];
        for (id, field) in (message.first..).map(FieldId).zip(fields) {
            if let Some(slot) = slots.get_mut(field.number as usize) {
                *slot = Some(Slot {
                    field: id,
                    accepts: (0..8)
                        .filter_map(WireType::from_bits)
                        .filter(|w| field.accepts(*w))
                        .fold(0, |mask, w| mask | 1 << (w as u8)),
                    reading: Reading::of(field),
                });
            }
        }
        // Positions within the message, as wide as field ids: a descriptor set may declare more
        // fields in one message than 16 bits count.
        let mut json_order: Vec<u32> = (0..message.count).collect();
        json_order.sort_by_key(|i| fields.get(*i as usize).map(|f| &*f.json_name));
        message.slots = Cow::Owned(slots);
        message.json_follows_numbers = json_order.is_sorted();
        message.json_order = Cow::Owned(json_order);
        self.messages.to_mut().push(message);
    }

    fn make_field(&self, field: &FieldDescriptor, enums: &HashMap<String, EnumId>) -> Field {
        use prost_reflect::Kind as K;
        let message_id = |m: &MessageDescriptor| {
            (self.message_by_name(m.full_name())).unwrap_or(MessageId(u32::MAX))
        };
        let descriptor_kind = field.kind();
        let kind = match &descriptor_kind {
            K::Double => Kind::Double,
            K::Float => Kind::Float,
            K::Int64 => Kind::Int64,
            K::Uint64 => Kind::Uint64,
            K::Int32 => Kind::Int32,
            K::Fixed64 => Kind::Fixed64,
            K::Fixed32 => Kind::Fixed32,
            K::Bool => Kind::Bool,
            K::String => Kind::String,
            K::Bytes => Kind::Bytes,
            K::Uint32 => Kind::Uint32,
            K::Sfixed32 => Kind::Sfixed32,
            K::Sfixed64 => Kind::Sfixed64,
            K::Sint32 => Kind::Sint32,
            K::Sint64 => Kind::Sint64,
            K::Enum(e) => Kind::Enum(
                enums
                    .get(e.full_name())
                    .copied()
                    .unwrap_or(EnumId(u32::MAX)),
            ),
            K::Message(m) if field.is_group() => Kind::Group(message_id(m)),
            K::Message(m) => Kind::Message(message_id(m)),
        };
        let cardinality = if field.is_map() {
            Cardinality::Map
        } else if field.is_list() {
            Cardinality::Repeated
        } else if field.supports_presence() {
            Cardinality::Explicit
        } else {
            Cardinality::Implicit
        };
        let text_name = match &descriptor_kind {
            K::Message(m) if field.is_group() => owned(m.name()),
            _ => owned(field.name()),
        };
        Field {
            number: field.number(),
            name: owned(field.name()),
            text_name,
            json_name: owned(field.json_name()),
            json_member: json_member(field.json_name()),
            kind,
            cardinality,
            packable: field.is_list()
                && !matches!(descriptor_kind, K::String | K::Bytes | K::Message(_)),
            oneof: field.containing_oneof().and_then(|o| {
                let message = field.parent_message();
                let position = message.oneofs().position(|other| other.name() == o.name());
                position.map(|p| p as u32)
            }),
            utf8: descriptor_kind == K::String && field.parent_file().syntax() == Syntax::Proto3,
            embedded: None,
        }
    }

    /// Shows the bytes values of feature (or feature list) `name` as arrays of `dtype`.
    pub fn show_bytes_as(&mut self, name: &str, dtype: crate::tensor::DType) {
        self.bytes_as.retain(|(n, _)| **n != *name.as_bytes());
        self.bytes_as.push((name.as_bytes().into(), dtype));
    }

    /// The dtype the bytes values of feature `name` are shown as, if one was asked for.
    pub fn bytes_as(&self, name: &[u8]) -> Option<crate::tensor::DType> {
        self.bytes_as
            .iter()
            .find(|(n, _)| **n == *name)
            .map(|(_, dtype)| *dtype)
    }

    /// Reads the bytes values of feature (or feature list) `name` as serialized `message`s.
    pub fn declare_feature_type(&mut self, name: &str, message: MessageId) {
        self.feature_types.retain(|(n, _)| **n != *name.as_bytes());
        self.feature_types.push((name.as_bytes().into(), message));
    }

    /// The message the bytes values of feature `name` were declared to be, if any.
    pub fn feature_type(&self, name: &[u8]) -> Option<MessageId> {
        if self.feature_types.is_empty() {
            return None;
        }
        self.feature_types
            .iter()
            .find(|(n, _)| **n == *name)
            .map(|(_, message)| *message)
    }

    /// Declares that bytes field `path` (`pkg.Message.field`) holds serialized `message`s.
    pub fn embed(&mut self, path: &str, message: &str) -> Result<(), String> {
        let (owner, name) = path
            .rsplit_once('.')
            .ok_or_else(|| format!("`{path}` is not a field path like pkg.Message.field"))?;
        let owner_id = self
            .message_by_name(owner)
            .ok_or_else(|| format!("no message named `{owner}`"))?;
        let embedded = self
            .message_by_name(message)
            .ok_or_else(|| format!("no message named `{message}`"))?;
        let id = self
            .field_ids(owner_id)
            .find(|id| self.field(*id).is_some_and(|f| &*f.name == name))
            .ok_or_else(|| format!("`{owner}` has no field `{name}`"))?;
        let field = (self.fields.to_mut())
            .get_mut(id.0 as usize)
            .ok_or_else(|| format!("`{owner}` has no field `{name}`"))?;
        if field.kind != Kind::Bytes {
            return Err(format!("`{path}` is not a bytes field"));
        }
        field.embedded = Some(embedded);
        Ok(())
    }

    pub fn message(&self, id: MessageId) -> Option<&Message> {
        self.messages.get(id.0 as usize)
    }

    /// Whether field `id` is declared packed, so that encoders write its values as one run.
    pub fn is_packed(&self, id: FieldId) -> bool {
        self.packed.get(id.0 as usize).copied().unwrap_or(false)
    }

    pub fn field(&self, id: FieldId) -> Option<&Field> {
        self.fields.get(id.0 as usize)
    }

    pub fn enum_type(&self, id: EnumId) -> Option<&Enum> {
        self.enums.get(id.0 as usize)
    }

    pub fn message_by_name(&self, full_name: &str) -> Option<MessageId> {
        let full_name = full_name.trim_start_matches('.');
        let found = (self.by_name).binary_search_by(|(name, _)| (**name).cmp(full_name));
        found
            .ok()
            .and_then(|i| self.by_name.get(i))
            .map(|(_, id)| *id)
    }

    /// The field of message `id` with `number`, if it declares one.
    pub fn field_by_number(&self, id: MessageId, number: u32) -> Option<FieldId> {
        let message = self.message(id)?;
        match message.slots.get(number as usize) {
            Some(slot) => slot.map(|slot| slot.field),
            None => {
                let fields = self.fields_of(message);
                let position = fields.binary_search_by_key(&number, |f| f.number).ok()?;
                Some(FieldId(message.first + position as u32))
            }
        }
    }

    /// How the walk reads message `id`'s tags (a tag is read as a field only when the field
    /// accepts its wire type), looked up once for a whole body.
    pub fn tags_of(&self, id: MessageId) -> Option<Tags<'_>> {
        let message = self.message(id)?;
        Some(Tags {
            table: self,
            id,
            slots: &message.slots,
        })
    }

    /// The fields of a message, in field-number order.
    pub fn fields_of(&self, message: &Message) -> &[Field] {
        let start = message.first as usize;
        self.fields
            .get(start..start + message.count as usize)
            .unwrap_or_default()
    }

    /// The field ids of message `id`, in field-number order.
    pub fn field_ids(&self, id: MessageId) -> impl Iterator<Item = FieldId> + use<> {
        let (first, count) = self.message(id).map_or((0, 0), |m| (m.first, m.count));
        (first..first + count).map(FieldId)
    }

    /// Whether message `id`'s fields in field-number order are in the order of their JSON names.
    pub fn json_follows_numbers(&self, id: MessageId) -> bool {
        self.message(id).is_some_and(|m| m.json_follows_numbers)
    }

    /// The field ids of message `id` in the order of their JSON names.
    pub fn json_order(&self, id: MessageId) -> impl Iterator<Item = FieldId> + '_ {
        let message = self.message(id);
        message
            .into_iter()
            .flat_map(|m| m.json_order.iter().map(|p| FieldId(m.first + *p)))
    }

    /// The message type a field's values are, for message and group fields.
    pub fn message_of(&self, field: FieldId) -> Option<MessageId> {
        self.field(field).and_then(|f| f.kind.message())
    }

    /// The key and value fields of a map field's entry type.
    pub fn map_fields(&self, map: FieldId) -> Option<(FieldId, FieldId)> {
        let entry = self.message_of(map)?;
        Some((
            self.field_by_number(entry, 1)?,
            self.field_by_number(entry, 2)?,
        ))
    }

    /// The name a kind is shown with: the scalar name, or the enum's or message's own name.
    pub fn kind_name(&self, kind: Kind) -> &str {
        match kind {
            Kind::Enum(e) => self.enum_type(e).map_or("enum", |e| &e.name),
            Kind::Message(m) | Kind::Group(m) => self.message(m).map_or("message", |m| &m.name),
            scalar => scalar.scalar_name().unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    #[test]
    fn a_json_member_name_is_quoted_escaped_and_followed_by_its_separator() {
        assert_eq!(&*json_member("int64List"), "\"int64List\": ");
        assert_eq!(&*json_member("a\"b\\c\u{1}"), "\"a\\\"b\\\\c\\u0001\": ");
    }

    #[test]
    fn the_walks_lookup_agrees_with_the_fields() {
        let schema = Schema::builtin();
        let table = schema.table();
        for m in 0..table.messages.len() as u32 {
            let id = MessageId(m);
            for number in 0..DENSE as u32 + 40 {
                for wire_type in (0..8).filter_map(WireType::from_bits) {
                    let expected = table
                        .field_by_number(id, number)
                        .filter(|f| table.field(*f).is_some_and(|i| i.accepts(wire_type)));
                    // The slots' copy of how the value is read is the field's own.
                    let found = table.tags_of(id).unwrap().field(number, wire_type);
                    let reading = expected.map(|f| (f, Reading::of(table.field(f).unwrap())));
                    assert_eq!(found, reading);
                }
            }
        }
    }

    #[test]
    fn example_fields_resolve_by_number() {
        let schema = Schema::builtin();
        let table = schema.table();
        let feature = table.message_by_name("tensorflow.Feature").unwrap();
        let int64_list = table.field_by_number(feature, 3).unwrap();
        let field = table.field(int64_list).unwrap();
        assert_eq!(&*field.name, "int64_list");
        assert_eq!(&*field.json_name, "int64List");
        assert_eq!(field.oneof, Some(0));
        assert_eq!(field.cardinality, Cardinality::Explicit);
        assert!(table.field_by_number(feature, 4).is_none());
        assert!(table.field_by_number(feature, 1 << 20).is_none());
        let list = table.message_of(int64_list).unwrap();
        let value = table
            .field(table.field_by_number(list, 1).unwrap())
            .unwrap();
        assert!(value.packable && value.accepts(WireType::Len) && value.accepts(WireType::Varint));
        assert!(!value.accepts(WireType::I32));
    }

    /// A message with more fields than 16 bits count lists each of them once in JSON order.
    #[test]
    fn a_message_of_seventy_thousand_fields_is_ordered_by_json_name() {
        let count = 70_000u32;
        let mut table = Table::default();
        for number in 1..=count {
            // Names that sort the other way round from the numbers.
            let json_name = format!("f{:06}", count - number);
            table.fields.to_mut().push(Field {
                number,
                name: owned(&json_name),
                text_name: owned(&json_name),
                json_member: json_member(&json_name),
                json_name: Cow::Owned(json_name),
                kind: Kind::Int64,
                cardinality: Cardinality::Implicit,
                packable: false,
                oneof: None,
                utf8: false,
                embedded: None,
            });
        }
        table.push_message(Message {
            full_name: owned("t.Wide"),
            name: owned("Wide"),
            first: 0,
            count,
            slots: List::default(),
            json_order: List::default(),
            json_follows_numbers: true,
            map_entry: false,
            proto3: true,
        });
        let order: Vec<u32> = table.json_order(MessageId(0)).map(|f| f.0).collect();
        assert_eq!(order, (0..count).rev().collect::<Vec<u32>>());
        assert!(!table.json_follows_numbers(MessageId(0)));
    }

    #[test]
    fn maps_strings_and_json_order() {
        let schema = Schema::builtin();
        let table = schema.table();
        let features = table.message_by_name("tensorflow.Features").unwrap();
        let map = table.field_by_number(features, 1).unwrap();
        assert_eq!(table.field(map).unwrap().cardinality, Cardinality::Map);
        let (key, value) = table.map_fields(map).unwrap();
        let key = table.field(key).unwrap();
        assert!(key.utf8 && key.cardinality == Cardinality::Implicit);
        assert_eq!(table.kind_name(table.field(value).unwrap().kind), "Feature");
        let sequence = schema.message("tensorflow.SequenceExample").unwrap();
        let names: Vec<&str> = table
            .json_order(sequence)
            .map(|f| &*table.field(f).unwrap().json_name)
            .collect();
        assert_eq!(names, ["context", "featureLists"]);
        assert!(table.json_follows_numbers(sequence));
        // `wallTime` (1) and `step` (2) are listed by name the other way round.
        let event = schema.message("tensorflow.Event").unwrap();
        assert!(!table.json_follows_numbers(event));
    }

    #[test]
    fn proto2_enums_are_closed_and_large_numbers_are_searched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.proto");
        std::fs::write(
            &path,
            "syntax = \"proto2\"; package t;\n\
             enum Color { RED = 1; GREEN = 2; }\n\
             message M { optional Color c = 1; repeated int32 far = 100000; \
             optional group G = 7 { optional int32 x = 1; } }",
        )
        .unwrap();
        let schema = Schema::with_user_protos(&[path], Some("t.M")).unwrap();
        let table = schema.table();
        let m = schema.user_message().unwrap();
        let c = table.field(table.field_by_number(m, 1).unwrap()).unwrap();
        let Kind::Enum(color) = c.kind else { panic!() };
        let color = table.enum_type(color).unwrap();
        assert!(color.closed && color.keeps(2) && !color.keeps(3));
        assert_eq!(color.value_name(1), Some("RED"));
        let far = table.field_by_number(m, 100000).unwrap();
        assert_eq!(&*table.field(far).unwrap().name, "far");
        let g = table.field(table.field_by_number(m, 7).unwrap()).unwrap();
        assert!(matches!(g.kind, Kind::Group(_)));
        assert_eq!(&*g.text_name, "G");
        assert_eq!(g.kind.wire_type(), WireType::StartGroup);
    }
}
