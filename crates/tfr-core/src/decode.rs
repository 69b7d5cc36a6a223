//! Typed values on top of the wire tree: what a protobuf library would hand you after parsing.
//!
//! This layer does not read the payload again and builds no tree of its own. A [`MessageView`] is
//! a message type plus the wire occurrences merged into it; asking it for its fields groups their
//! occurrences by number and applies protobuf's rules (last value wins for singular fields,
//! occurrences of a singular message merge, repeated fields concatenate packed runs and single
//! values alike, the member of a oneof set last survives, map entries are keyed, values a closed
//! enum does not define are dropped). Values are read from the bytes as they are iterated, so a
//! list of ten million floats costs nothing until it is printed, and then nothing per element.
//! The text and JSON formats, the Example view and the inspector are rendered from these views.

use std::sync::LazyLock;

use crate::schema::table::{Cardinality, Field, FieldId, Kind, MessageId, Table};
use crate::span::Span;
use crate::wire::{self, Elements, NodeKind, ROOT, WireTree};

/// A walked payload and what reading it needs: its tree, its bytes and the schema.
#[derive(Debug, Clone, Copy)]
pub struct Parsed<'a> {
    pub tree: &'a WireTree,
    pub bytes: &'a [u8],
    pub table: &'a Table,
}

impl<'a> Parsed<'a> {
    pub fn new(tree: &'a WireTree, bytes: &'a [u8], table: &'a Table) -> Parsed<'a> {
        Parsed { tree, bytes, table }
    }

    /// The payload as the message type it was walked as.
    pub fn root(self) -> Option<MessageView<'a>> {
        let id = self.tree.root_type()?;
        Some(MessageView::new(self, id, &[ROOT as u32]))
    }

    pub fn field(&self, id: FieldId) -> Option<&'a Field> {
        self.table.field(id)
    }

    pub fn node(&self, i: u32) -> Option<&'a wire::Node> {
        self.tree.node(i as usize)
    }

    /// The bytes of `span`.
    pub fn slice(&self, span: Span) -> &'a [u8] {
        span.slice(self.bytes).unwrap_or_default()
    }
}

/// A scalar as its declared type reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    I32(i32),
    I64(i64),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
    /// An enum number, with its name when the enum defines it.
    Enum(i32, Option<&'a str>),
}

impl<'a> Scalar<'a> {
    /// The scalar a field of `kind` stores in the raw wire value `raw`.
    #[inline]
    pub fn from_raw(kind: Kind, raw: u64, table: &'a Table) -> Option<Scalar<'a>> {
        Some(match kind {
            Kind::Int32 | Kind::Sfixed32 => Scalar::I32(raw as u32 as i32),
            Kind::Int64 | Kind::Sfixed64 => Scalar::I64(raw as i64),
            Kind::Uint32 | Kind::Fixed32 => Scalar::U32(raw as u32),
            Kind::Uint64 | Kind::Fixed64 => Scalar::U64(raw),
            Kind::Sint32 => {
                let n = raw as u32;
                Scalar::I32((n >> 1) as i32 ^ -((n & 1) as i32))
            }
            Kind::Sint64 => Scalar::I64((raw >> 1) as i64 ^ -((raw & 1) as i64)),
            Kind::Float => Scalar::F32(f32::from_bits(raw as u32)),
            Kind::Double => Scalar::F64(f64::from_bits(raw)),
            Kind::Bool => Scalar::Bool(raw != 0),
            Kind::Enum(e) => {
                let number = raw as u32 as i32;
                let name = table.enum_type(e).and_then(|e| e.value_name(number));
                Scalar::Enum(number, name)
            }
            Kind::String | Kind::Bytes | Kind::Message(_) | Kind::Group(_) => return None,
        })
    }

    /// Whether this is the type's default (for proto3 fields without presence: "not set").
    pub fn is_default(&self) -> bool {
        match self {
            Scalar::I32(v) => *v == 0,
            Scalar::I64(v) => *v == 0,
            Scalar::U32(v) => *v == 0,
            Scalar::U64(v) => *v == 0,
            // -0.0 is not the default: protobuf compares bit patterns.
            Scalar::F32(v) => v.to_bits() == 0,
            Scalar::F64(v) => v.to_bits() == 0,
            Scalar::Bool(v) => !*v,
            Scalar::Enum(v, _) => *v == 0,
        }
    }
}

/// One value of a field.
#[derive(Debug, Clone)]
pub enum Value<'a> {
    Scalar(Scalar<'a>),
    /// A `string` field's bytes (valid UTF-8 when the payload [`validate`]s).
    String(&'a [u8], Span),
    Bytes(&'a [u8], Span),
    Message(MessageView<'a>),
}

impl Value<'_> {
    /// Whether a field without presence holding this value counts as not set.
    pub fn is_default(&self) -> bool {
        match self {
            Value::Scalar(s) => s.is_default(),
            Value::String(b, _) | Value::Bytes(b, _) => b.is_empty(),
            Value::Message(_) => false,
        }
    }
}

/// Tree nodes: the wire occurrences of a field, or the parts merged into a message. Usually one,
/// or a few (the entries of a small map); those are held inline, so that viewing a message
/// allocates nothing for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nodes {
    Few { len: u8, nodes: [u32; FEW] },
    Many(Vec<u32>),
}

/// The most nodes held inline.
const FEW: usize = 7;

impl Nodes {
    pub fn new(nodes: &[u32]) -> Nodes {
        // One node is the usual case, and copying a slice of unknown length is a call of the C
        // library's `memcpy`, made for every view of every record.
        if let [one] = nodes {
            return Nodes::one(*one);
        }
        match u8::try_from(nodes.len()) {
            Ok(len) if nodes.len() <= FEW => {
                let mut few = [0; FEW];
                few[..nodes.len()].copy_from_slice(nodes);
                Nodes::Few { len, nodes: few }
            }
            _ => Nodes::Many(nodes.into()),
        }
    }

    pub fn one(node: u32) -> Nodes {
        let mut nodes = [0; FEW];
        nodes[0] = node;
        Nodes::Few { len: 1, nodes }
    }

    /// Adds a node after the others.
    #[inline]
    fn push(&mut self, node: u32) {
        match self {
            Nodes::Few { len, nodes } if usize::from(*len) < FEW => {
                nodes[usize::from(*len)] = node;
                *len += 1;
            }
            Nodes::Few { nodes, .. } => {
                let mut many = nodes.to_vec();
                many.push(node);
                *self = Nodes::Many(many);
            }
            Nodes::Many(many) => many.push(node),
        }
    }

    pub fn as_slice(&self) -> &[u32] {
        match self {
            Nodes::Few { len, nodes } => &nodes[..usize::from(*len)],
            Nodes::Many(many) => many,
        }
    }
}

/// A message as a protobuf library holds it, read from the wire occurrences merged into it.
#[derive(Debug, Clone)]
pub struct MessageView<'a> {
    parsed: Parsed<'a>,
    id: MessageId,
    parts: Nodes,
}

impl<'a> MessageView<'a> {
    /// Message `id` made of the containers `parts` of the tree (in wire order).
    pub fn new(parsed: Parsed<'a>, id: MessageId, parts: &[u32]) -> MessageView<'a> {
        MessageView {
            parsed,
            id,
            parts: Nodes::new(parts),
        }
    }

    pub fn id(&self) -> MessageId {
        self.id
    }

    pub fn parsed(&self) -> Parsed<'a> {
        self.parsed
    }

    /// The message type's short name (`Features`).
    pub fn type_name(&self) -> &'a str {
        self.parsed.table.message(self.id).map_or("", |m| &m.name)
    }

    /// The tree nodes merged into this message (one unless the field occurred several times).
    pub fn parts(&self) -> &[u32] {
        self.parts.as_slice()
    }

    /// The bodies of the merged occurrences, in wire order.
    pub fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.parts()
            .iter()
            .filter_map(|p| self.parsed.node(*p))
            .map(wire::Node::data_span)
    }

    /// The set fields, in field-number order, as protobuf's merge rules leave them. Held inline
    /// up to two: most messages set a field or two, and views are made for every record (a
    /// larger inline list costs more to move than the allocation it saves).
    pub fn fields(&self) -> FieldList<'a> {
        let mut fields = FieldList::new();
        if let Some(only) = self.only_field() {
            if only.last_set().is_some() {
                fields.push(only);
            }
            return fields;
        }
        let Some(part) = self.usual_part() else {
            return self.merged_fields();
        };
        self.each_usual_field(part, true, |f| fields.push(f));
        fields
    }

    /// [`MessageView::fields`] for any message: occurrences collected from every part, sorted by
    /// field and grouped before the rules apply.
    fn merged_fields(&self) -> FieldList<'a> {
        let parsed = self.parsed;
        let mut occurrences: Vec<(u32, u32)> = Vec::new();
        for part in self.parts() {
            for child in parsed.tree.children(*part as usize) {
                if let Some(field) = parsed.node(child as u32).and_then(wire::Node::field) {
                    occurrences.push((field.0, child as u32));
                }
            }
        }
        if !occurrences.is_sorted_by_key(|(f, _)| *f) {
            occurrences.sort_by_key(|(f, _)| *f);
        }
        // Each set field with the range of `occurrences` it was read from and its last setting.
        let mut fields: Vec<(FieldValues<'a>, std::ops::Range<usize>, u32)> = Vec::new();
        let mut nodes: Vec<u32> = Vec::new();
        let mut start = 0;
        while let Some(&(field, _)) = occurrences.get(start) {
            let len = occurrences[start..]
                .iter()
                .take_while(|(f, _)| *f == field)
                .count();
            let run = start..start + len;
            start += len;
            nodes.clear();
            nodes.extend(occurrences[run.clone()].iter().map(|(_, n)| *n));
            let values = FieldValues::new(parsed, FieldId(field), &nodes);
            if let Some(last) = values.last_set() {
                fields.push((values, run, last));
            }
        }
        if fields.iter().all(|(f, _, _)| f.info().oneof.is_none()) {
            return fields.into_iter().map(|(f, _, _)| f).collect();
        }
        // Of the members of a oneof, only the one set last survives, and setting another member
        // cleared it: occurrences of the survivor before the others' last setting are gone
        // (A, B, A leaves only the second A, as protobuf's parsers do).
        let oneof = |f: &FieldValues<'_>| f.info().oneof;
        let mut kept = FieldList::with_capacity(fields.len());
        for (values, run, _) in &fields {
            let Some(o) = oneof(values) else {
                kept.push(values.clone());
                continue;
            };
            let members = || fields.iter().filter(|(f, _, _)| oneof(f) == Some(o));
            let winner = members()
                .max_by_key(|(_, _, last)| *last)
                .map(|(f, _, _)| f.id);
            if winner != Some(values.id) {
                continue;
            }
            let cleared_at = members()
                .filter(|(f, _, _)| f.id != values.id)
                .map(|(_, _, last)| *last)
                .max();
            match cleared_at {
                None => kept.push(values.clone()),
                Some(cut) => {
                    nodes.clear();
                    nodes.extend(
                        occurrences[run.clone()]
                            .iter()
                            .map(|(_, n)| *n)
                            .filter(|n| *n > cut),
                    );
                    kept.push(FieldValues::new(parsed, values.id, &nodes));
                }
            }
        }
        kept
    }

    /// Calls `visit` with each field [`MessageView::fields`] lists, in the same order, and also,
    /// in the usual message, with fields that occur but end up unset (a repeated field whose
    /// packed runs hold no whole value, a map whose entries a parser drops, a proto3 default, a
    /// number a closed enum does not define). It is for writers, which visit every message of
    /// every record: they write nothing for such a field, or take back what they wrote, so need
    /// not ask first (asking cost about as much as writing the field), and no list is made.
    pub fn for_each_occurring_field(&self, mut visit: impl FnMut(&FieldValues<'a>)) {
        // Most messages set one field, in one run (a list's values, a map's entries, a oneof's
        // member): the rules leave such a field as it is (there is no other to merge with or to
        // clear it), so it is read in one pass, without the check.
        if let Some(only) = self.only_field() {
            return visit(&only);
        }
        match self.usual_part() {
            Some(part) => self.each_usual_field(part, false, |f| visit(&f)),
            None => self.merged_fields().iter().for_each(visit),
        }
    }

    /// The field of a message of one part whose known fields are all one field, in one run:
    /// `None` for any other message (and for one with no known field).
    ///
    /// Always inlined, as [`FieldValues::singular`] is: writers ask both of every message of
    /// every record, and a call returns the view (72 bytes) through memory; inlining each took
    /// about 1% off the instructions of `show --format json`.
    #[inline(always)]
    fn only_field(&self) -> Option<FieldValues<'a>> {
        let parsed = self.parsed;
        let [part] = self.parts() else {
            return None;
        };
        let field_of = |child: usize| parsed.node(child as u32).and_then(wire::Node::field);
        let mut children = parsed.tree.children(*part as usize);
        let (first, field) = children.find_map(|c| Some((c as u32, field_of(c)?)))?;
        let mut only = FieldValues::new(parsed, field, &[first]);
        for child in children {
            match field_of(child) {
                None => {}
                Some(other) if other == field => only.nodes.push(child as u32),
                Some(_) => return None,
            }
        }
        Some(only)
    }

    /// The part of the usual message: one part whose known fields each occur in one run, in
    /// field-number order (a repeated field's values, a map's entries), no two of them members
    /// of one oneof. Its fields are read as they come ([`MessageView::each_usual_field`]), with
    /// no occurrence sorted or collected before the rules apply; `None` for any other message.
    fn usual_part(&self) -> Option<usize> {
        let parsed = self.parsed;
        let [part] = self.parts() else {
            return None;
        };
        let mut last: Option<FieldId> = None;
        // The oneofs seen, one bit each (a member of a oneof numbered 64 or more makes the message
        // not usual).
        let mut oneofs: u64 = 0;
        for child in parsed.tree.children(*part as usize) {
            let Some(field) = parsed.node(child as u32).and_then(wire::Node::field) else {
                continue;
            };
            match last {
                Some(previous) if previous == field => continue,
                Some(previous) if previous.0 > field.0 => return None,
                _ => last = Some(field),
            }
            if let Some(oneof) = parsed.field(field).and_then(|f| f.oneof) {
                let bit = 1u64.checked_shl(oneof).unwrap_or(0);
                if bit == 0 || oneofs & bit != 0 {
                    return None;
                }
                oneofs |= bit;
            }
        }
        Some(*part as usize)
    }

    /// Visits the fields of [`MessageView::usual_part`] `part`, a run of occurrences at a time:
    /// those a parser leaves set, or with `only_set` false every field that occurs.
    fn each_usual_field(
        &self,
        part: usize,
        only_set: bool,
        mut visit: impl FnMut(FieldValues<'a>),
    ) {
        let parsed = self.parsed;
        let mut run: Option<FieldValues<'a>> = None;
        for child in parsed.tree.children(part) {
            let Some(field) = parsed.node(child as u32).and_then(wire::Node::field) else {
                continue;
            };
            match &mut run {
                Some(values) if values.id == field => values.nodes.push(child as u32),
                _ => {
                    let done = run.replace(FieldValues::new(parsed, field, &[child as u32]));
                    if let Some(values) = done.filter(|v| !only_set || v.last_set().is_some()) {
                        visit(values);
                    }
                }
            }
        }
        if let Some(values) = run.filter(|v| !only_set || v.last_set().is_some()) {
            visit(values);
        }
    }

    /// The set field called `name`.
    pub fn field(&self, name: &str) -> Option<FieldValues<'a>> {
        self.fields().into_iter().find(|f| &*f.info().name == name)
    }
}

/// The set fields of a message (see [`MessageView::fields`]).
pub type FieldList<'a> = smallvec::SmallVec<[FieldValues<'a>; 2]>;

/// A field that does not resolve (never the case for a tree walked with the same table).
static NO_FIELD: LazyLock<Field> = LazyLock::new(|| Field {
    number: 0,
    name: "".into(),
    text_name: "".into(),
    json_name: "".into(),
    json_member: crate::schema::table::json_member(""),
    kind: Kind::Bytes,
    cardinality: Cardinality::Explicit,
    packable: false,
    oneof: None,
    utf8: false,
    embedded: None,
});

/// One field of a message: its occurrences on the wire and the values they hold.
#[derive(Debug, Clone)]
pub struct FieldValues<'a> {
    parsed: Parsed<'a>,
    id: FieldId,
    nodes: Nodes,
}

impl<'a> FieldValues<'a> {
    /// Field `id` occurring as the tree nodes `nodes` (in wire order).
    pub fn new(parsed: Parsed<'a>, id: FieldId, nodes: &[u32]) -> FieldValues<'a> {
        FieldValues {
            parsed,
            id,
            nodes: Nodes::new(nodes),
        }
    }

    pub fn id(&self) -> FieldId {
        self.id
    }

    pub fn info(&self) -> &'a Field {
        self.parsed.field(self.id).unwrap_or_else(|| &NO_FIELD)
    }

    pub fn parsed(&self) -> Parsed<'a> {
        self.parsed
    }

    /// The tree nodes of the field's occurrences, in wire order.
    pub fn nodes(&self) -> &[u32] {
        self.nodes.as_slice()
    }

    /// The node of the last occurrence a parser keeps, when the field ends up set at all.
    fn last_set(&self) -> Option<u32> {
        let info = self.info();
        let last = *self.nodes().last()?;
        match info.cardinality {
            Cardinality::Map => self.map_has_entries().then_some(last),
            Cardinality::Repeated => self.has_values(info.kind).then_some(last),
            _ if info.kind.message().is_some() => Some(last),
            Cardinality::Implicit => {
                let (node, value) = self.last_kept()?;
                (!value.is_default()).then_some(node)
            }
            Cardinality::Explicit => self.last_kept().map(|(node, _)| node),
        }
    }

    /// The last occurrence whose value a parser keeps (a closed enum drops unknown numbers).
    fn last_kept(&self) -> Option<(u32, Value<'a>)> {
        let info = self.info();
        self.nodes()
            .iter()
            .rev()
            .find_map(|n| leaf_value(self.parsed, info, *n).map(|(v, _)| (*n, v)))
    }

    /// The value of a singular field: the last one, or the merge of every occurrence of a
    /// message; `None` when not set (a proto3 default counts as not set).
    #[inline(always)]
    pub fn singular(&self) -> Option<Value<'a>> {
        let info = self.info();
        if let Some(message) = info.kind.message() {
            return Some(Value::Message(MessageView::new(
                self.parsed,
                message,
                self.nodes(),
            )));
        }
        let (_, value) = self.last_kept()?;
        (info.cardinality != Cardinality::Implicit || !value.is_default()).then_some(value)
    }

    /// Where the singular value lies: the last occurrence's value (for a message, its last part).
    pub fn singular_span(&self) -> Span {
        let last = self.nodes().last().and_then(|n| self.parsed.node(*n));
        last.map_or(Span::default(), wire::Node::data_span)
    }

    /// Every value of a repeated field, packed runs and single values alike, in wire order.
    pub fn values(&self) -> Values<'a, '_> {
        self.values_from(ValuesAt::default())
    }

    /// The numbers of a repeated number field (packed runs and single values alike, in wire
    /// order): what [`FieldValues::values`] yields for it, without the spans, read in a loop the
    /// caller inlines. `None` for fields of strings, bytes or messages.
    pub fn scalars(&self) -> Option<Scalars<'a, '_>> {
        let kind = self.info().kind;
        if matches!(
            kind,
            Kind::String | Kind::Bytes | Kind::Message(_) | Kind::Group(_)
        ) {
            return None;
        }
        Some(Scalars {
            parsed: self.parsed,
            kind,
            nodes: self.nodes().iter(),
            packed: None,
        })
    }

    /// Whether a repeated field of `kind` yields a value ([`FieldValues::values`] does not end at
    /// once), without making any value but an enum's: a string or bytes occurrence is a value, so
    /// is a message's, and a number of any kind but an enum is always kept, so a packed run holds
    /// one if its first element is whole. This relies on the walk giving a field only nodes of a
    /// wire type it accepts ([`Field::accepts`]): a string field's are bytes, a message field's
    /// messages or groups.
    fn has_values(&self, kind: Kind) -> bool {
        let node_kinds = || self.nodes().iter().filter_map(|&n| self.parsed.node(n));
        match kind {
            Kind::String | Kind::Bytes => {
                return node_kinds().any(|node| node.kind() == NodeKind::Bytes);
            }
            Kind::Message(_) | Kind::Group(_) => {
                return node_kinds()
                    .any(|node| matches!(node.kind(), NodeKind::Message | NodeKind::Group));
            }
            Kind::Enum(_) => {
                return self
                    .scalars()
                    .is_some_and(|mut numbers| numbers.next().is_some());
            }
            _ => {}
        }
        let (tree, bytes) = (self.parsed.tree, self.parsed.bytes);
        self.nodes().iter().any(|&n| {
            let Some(node) = self.parsed.node(n) else {
                return false;
            };
            match node.kind() {
                NodeKind::Packed => tree.elements(n as usize, bytes, kind).next().is_some(),
                NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                    tree.scalar(n as usize, bytes).is_some()
                }
                _ => false,
            }
        })
    }

    /// Calls `visit` with each number [`FieldValues::scalars`] yields, in the same order; `false`
    /// (and no call) for fields that are not numbers. Numbers no enum can drop are read a packed
    /// run at a time, in a loop per kind: the floats of a feature are most of what `show` prints.
    /// The conversions are [`Scalar::from_raw`]'s, written out so that each loop has its own.
    #[inline]
    pub fn each_scalar(&self, mut visit: impl FnMut(Scalar<'a>)) -> bool {
        match self.info().kind {
            Kind::Float => self.each_raw::<4>(Kind::Float, |raw| {
                visit(Scalar::F32(f32::from_bits(raw as u32)))
            }),
            Kind::Double => {
                self.each_raw::<8>(Kind::Double, |raw| visit(Scalar::F64(f64::from_bits(raw))))
            }
            Kind::Fixed32 => {
                self.each_raw::<4>(Kind::Fixed32, |raw| visit(Scalar::U32(raw as u32)))
            }
            Kind::Sfixed32 => {
                self.each_raw::<4>(Kind::Sfixed32, |raw| visit(Scalar::I32(raw as u32 as i32)))
            }
            Kind::Fixed64 => self.each_raw::<8>(Kind::Fixed64, |raw| visit(Scalar::U64(raw))),
            Kind::Sfixed64 => {
                self.each_raw::<8>(Kind::Sfixed64, |raw| visit(Scalar::I64(raw as i64)))
            }
            // Varints: every number is kept (only enums drop some).
            kind @ (Kind::Int32
            | Kind::Int64
            | Kind::Uint32
            | Kind::Uint64
            | Kind::Sint32
            | Kind::Sint64
            | Kind::Bool) => self.each_raw::<0>(kind, |raw| {
                if let Some(scalar) = Scalar::from_raw(kind, raw, self.parsed.table) {
                    visit(scalar);
                }
            }),
            _ => match self.scalars() {
                Some(numbers) => numbers.for_each(visit),
                None => return false,
            },
        }
        true
    }

    /// Calls `visit` with each value of a `float` field, as [`FieldValues::each_scalar`] would;
    /// `false` (and no call) for fields of any other kind. A writer's loop of floats (most of
    /// what `show` prints) inlines its code here: `each_scalar` calls its visitor from a loop per
    /// kind, too many places for it to be inlined, so there each float paid a call and a match.
    #[inline]
    pub fn each_f32(&self, mut visit: impl FnMut(f32)) -> bool {
        if self.info().kind != Kind::Float {
            return false;
        }
        self.each_raw::<4>(Kind::Float, |raw| visit(f32::from_bits(raw as u32)));
        true
    }

    /// Calls `visit` with the bytes of each value of a repeated string or bytes field, in wire
    /// order, as [`FieldValues::values`] yields them; `false` (and no call) for other fields.
    /// Each occurrence is one value, read straight from its node.
    #[inline]
    pub fn each_bytes(&self, mut visit: impl FnMut(&'a [u8])) -> bool {
        if !matches!(self.info().kind, Kind::String | Kind::Bytes) {
            return false;
        }
        for node in self.nodes().iter().filter_map(|&n| self.parsed.node(n)) {
            if node.kind() == NodeKind::Bytes {
                visit(self.parsed.slice(node.data_span()));
            }
        }
        true
    }

    /// The raw values of a field of `kind`, numbers `WIDTH` bytes wide (varints for a `WIDTH` of
    /// 0), as [`Scalars`] reads them: each whole element of a packed run, and each single value.
    /// The tree must have been walked with the table it is read with, which gives a field only
    /// occurrences of the wire types it accepts.
    #[inline]
    fn each_raw<const WIDTH: usize>(&self, kind: Kind, mut visit: impl FnMut(u64)) {
        let (tree, bytes) = (self.parsed.tree, self.parsed.bytes);
        for &n in self.nodes() {
            let Some(node) = self.parsed.node(n) else {
                continue;
            };
            match node.kind() {
                NodeKind::Packed if WIDTH == 0 => {
                    for (_, raw) in tree.elements(n as usize, bytes, kind) {
                        visit(raw);
                    }
                }
                // A single value of a fixed-width field is one element of its width (a field
                // accepts no other wire type of number), read in the loop of packed runs: with
                // one call of `visit` per kind, the visitor is inlined into the loop. (A second
                // call, even a cold one for the numbers of another width only a tree read with
                // another table than its walk's could hold, kept the visitor out of line.)
                NodeKind::Packed | NodeKind::Fixed32 | NodeKind::Fixed64 if WIDTH > 0 => {
                    debug_assert!(
                        node.kind() == NodeKind::Packed || node.data_span().len() == WIDTH,
                        "a {WIDTH}-byte field holds a {:?} node: read with another table?",
                        node.kind()
                    );
                    for element in self.parsed.slice(node.data_span()).chunks_exact(WIDTH) {
                        visit(wire::fixed_le(element));
                    }
                }
                NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 if WIDTH == 0 => {
                    if let Some(raw) = tree.scalar(n as usize, bytes) {
                        visit(raw);
                    }
                }
                _ => {}
            }
        }
    }

    /// The values from position `at` on (a position [`Values::at`] gave).
    pub fn values_from(&self, at: ValuesAt) -> Values<'a, '_> {
        let info = self.info();
        let packed = at.element.and_then(|pos| {
            let node = *self.nodes().get(at.node)?;
            let elements = self
                .parsed
                .tree
                .elements(node as usize, self.parsed.bytes, info.kind);
            Some(elements.resume(pos))
        });
        Values {
            field: self,
            info,
            next: at.node + usize::from(packed.is_some()),
            packed,
        }
    }

    /// How many values [`FieldValues::values`] yields.
    pub fn count(&self) -> usize {
        let info = self.info();
        let plain_width = match info.kind {
            Kind::Enum(_) => None,
            kind => kind.fixed_width(),
        };
        let Some(width) = plain_width else {
            return self.values().count();
        };
        // Fixed-width numbers are counted from the lengths alone.
        self.nodes()
            .iter()
            .filter_map(|n| self.parsed.node(*n))
            .map(|node| match node.kind() {
                NodeKind::Packed => node.data_span().len() / width,
                _ => 1,
            })
            .sum()
    }

    /// The entries of a map field, keyed as protobuf keys them.
    pub fn map(&self) -> MapView<'a> {
        MapView::new(self)
    }

    /// Whether a map field keeps at least one entry.
    fn map_has_entries(&self) -> bool {
        let Some(reader) = EntryReader::of(self.parsed, self.id) else {
            return false;
        };
        self.nodes().iter().any(|e| reader.kept(*e))
    }
}

/// The value a single (not packed) occurrence holds, with where it lies.
fn leaf_value<'a>(parsed: Parsed<'a>, info: &Field, node: u32) -> Option<(Value<'a>, Span)> {
    let tree_node = parsed.node(node)?;
    let span = tree_node.data_span();
    let value = match tree_node.kind() {
        NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
            let raw = parsed.tree.scalar(node as usize, parsed.bytes)?;
            Value::Scalar(kept_scalar(parsed, info.kind, raw)?)
        }
        NodeKind::Bytes if info.kind == Kind::String => Value::String(parsed.slice(span), span),
        NodeKind::Bytes => Value::Bytes(parsed.slice(span), span),
        NodeKind::Message | NodeKind::Group => {
            let message = info.kind.message()?;
            Value::Message(MessageView::new(parsed, message, &[node]))
        }
        NodeKind::Packed | NodeKind::Guessed => return None,
    };
    Some((value, span))
}

/// The scalar `raw` holds, unless it is a number a closed enum does not define (parsers keep
/// those as unknown fields).
#[inline]
fn kept_scalar<'a>(parsed: Parsed<'a>, kind: Kind, raw: u64) -> Option<Scalar<'a>> {
    let scalar = Scalar::from_raw(kind, raw, parsed.table)?;
    if let (Kind::Enum(e), Scalar::Enum(number, _)) = (kind, scalar) {
        if !parsed.table.enum_type(e).is_none_or(|e| e.keeps(number)) {
            return None;
        }
    }
    Some(scalar)
}

/// The values of a repeated field, read from the bytes as they are iterated.
pub struct Values<'a, 'f> {
    field: &'f FieldValues<'a>,
    info: &'a Field,
    next: usize,
    packed: Option<Elements<'a>>,
}

/// Where in a field's values an iteration is, to continue from there later.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValuesAt {
    /// The occurrence.
    node: usize,
    /// Inside a packed run: the payload position of the next element.
    element: Option<usize>,
}

impl Values<'_, '_> {
    /// The position of the next value.
    pub fn at(&self) -> ValuesAt {
        match &self.packed {
            Some(elements) => ValuesAt {
                node: self.next.saturating_sub(1),
                element: Some(elements.position()),
            },
            None => ValuesAt {
                node: self.next,
                element: None,
            },
        }
    }
}

impl<'a> Iterator for Values<'a, '_> {
    type Item = (Value<'a>, Span);

    fn next(&mut self) -> Option<(Value<'a>, Span)> {
        let parsed = self.field.parsed;
        loop {
            if let Some(elements) = &mut self.packed {
                match elements.next() {
                    Some((span, raw)) => match kept_scalar(parsed, self.info.kind, raw) {
                        Some(scalar) => return Some((Value::Scalar(scalar), span)),
                        None => continue,
                    },
                    None => self.packed = None,
                }
            }
            let node = *self.field.nodes().get(self.next)?;
            self.next += 1;
            if parsed
                .node(node)
                .is_some_and(|n| n.kind() == NodeKind::Packed)
            {
                self.packed = Some(parsed.tree.elements(
                    node as usize,
                    parsed.bytes,
                    self.info.kind,
                ));
                continue;
            }
            if let Some(value) = leaf_value(parsed, self.info, node) {
                return Some(value);
            }
        }
    }
}

/// See [`FieldValues::scalars`].
pub struct Scalars<'a, 'f> {
    parsed: Parsed<'a>,
    kind: Kind,
    nodes: std::slice::Iter<'f, u32>,
    packed: Option<Elements<'a>>,
}

impl<'a> Iterator for Scalars<'a, '_> {
    type Item = Scalar<'a>;

    #[inline]
    fn next(&mut self) -> Option<Scalar<'a>> {
        // The next element of the packed run being read, the usual case, small enough to be
        // inlined into the loops that print numbers; the rest of the work is out of line.
        if let Some((_, raw)) = self.packed.as_mut().and_then(Iterator::next) {
            if let Some(scalar) = kept_scalar(self.parsed, self.kind, raw) {
                return Some(scalar);
            }
        }
        self.next_occurrence()
    }
}

impl<'a> Scalars<'a, '_> {
    #[inline(never)]
    fn next_occurrence(&mut self) -> Option<Scalar<'a>> {
        let parsed = self.parsed;
        loop {
            if let Some(elements) = &mut self.packed {
                match elements.next() {
                    Some((_, raw)) => match kept_scalar(parsed, self.kind, raw) {
                        Some(scalar) => return Some(scalar),
                        None => continue,
                    },
                    None => self.packed = None,
                }
            }
            // A number field's occurrences are numbers or packed runs (the walk takes other wire
            // types for unknown fields), as in [`Values`].
            let node = *self.nodes.next()?;
            match parsed.node(node).map(wire::Node::kind) {
                Some(NodeKind::Packed) => {
                    self.packed =
                        Some(parsed.tree.elements(node as usize, parsed.bytes, self.kind));
                }
                Some(NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64) => {
                    let scalar = parsed
                        .tree
                        .scalar(node as usize, parsed.bytes)
                        .and_then(|raw| kept_scalar(parsed, self.kind, raw));
                    if scalar.is_some() {
                        return scalar;
                    }
                }
                _ => {}
            }
        }
    }
}

mod map;

pub use map::{EntryReader, MapEntry, MapView, scalar_int};

/// Why a payload does not parse as its message type, the way protobuf libraries judge it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    Wire(wire::WireError),
    /// A proto3 `string` field whose bytes are not UTF-8 (protobuf rejects the whole message).
    NotUtf8 {
        field: String,
        at: usize,
    },
}

impl Invalid {
    /// The payload position the problem is at.
    pub fn at(&self) -> usize {
        match self {
            Invalid::Wire(e) => e.at,
            Invalid::NotUtf8 { at, .. } => *at,
        }
    }

    /// What is wrong, without the position.
    pub fn what(&self) -> String {
        match self {
            Invalid::Wire(e) => e.kind.to_string(),
            Invalid::NotUtf8 { field, .. } => format!("string field `{field}` is not UTF-8"),
        }
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Invalid::Wire(e) => write!(f, "{e}"),
            Invalid::NotUtf8 { field, at } => {
                write!(f, "string field `{field}` is not UTF-8 (payload byte {at})")
            }
        }
    }
}

/// Checks that the walked payload is what a protobuf parser would accept. `parsed` holds the tree
/// as walked with its table (the walk notes strings that must be UTF-8 and are not).
pub fn validate(parsed: Parsed<'_>) -> Result<(), Invalid> {
    if let Some(error) = parsed.tree.first_error() {
        return Err(Invalid::Wire(error.clone()));
    }
    // The walk found the first string that must be UTF-8 and is not, as it read the field.
    let Some(node) = parsed
        .tree
        .first_not_utf8()
        .and_then(|i| parsed.node(i as u32))
    else {
        return Ok(());
    };
    let name = node.field().and_then(|f| parsed.field(f)).map(|f| &f.name);
    Err(Invalid::NotUtf8 {
        field: name.map_or_else(String::new, |n| n.to_string()),
        at: node.data_span().start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;
    use crate::wire::walk;

    fn ld(field: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![(field << 3) | 2, body.len() as u8];
        out.extend_from_slice(body);
        out
    }

    fn int64s(feature: &FieldValues<'_>) -> Vec<i64> {
        let Some(Value::Message(list)) = feature.singular() else {
            panic!("no list")
        };
        let values = list.field("value").unwrap();
        values
            .values()
            .map(|(v, _)| match v {
                Value::Scalar(Scalar::I64(i)) => i,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn singular_messages_merge_and_maps_keep_the_last_key() {
        let schema = Schema::builtin();
        // features { feature { key "a" value { int64_list { 1 } } } } twice, the second with value 2
        let entry = |v: u8| ld(1, &[ld(1, b"a"), ld(2, &ld(3, &[0x08, v]))].concat());
        let bytes = [ld(1, &entry(1)), ld(1, &entry(2))].concat();
        let tree = walk(&bytes, schema.table(), schema.message("tensorflow.Example"));
        let parsed = Parsed::new(&tree, &bytes, schema.table());
        assert!(validate(parsed).is_ok());
        let example = parsed.root().unwrap();
        let Some(Value::Message(features)) = example.field("features").unwrap().singular() else {
            panic!()
        };
        assert_eq!(features.parts().len(), 2);
        let map = features.field("feature").unwrap().map();
        assert_eq!(map.len(), 1);
        let Some(Value::Message(feature)) = map.value(map.entry(0).unwrap()) else {
            panic!()
        };
        let kind = feature.fields();
        assert_eq!(&*kind[0].info().name, "int64_list");
        assert_eq!(int64s(&kind[0]), [2]);
    }

    #[test]
    fn a_repeated_map_key_keeps_its_last_value_and_keys_come_in_order() {
        let schema = Schema::builtin();
        let features = schema
            .table()
            .message_by_name("tensorflow.Features")
            .unwrap();
        // entries b, a, b (again, with an int64 value 7): one b, with the value 7
        let entry = |key: u8, value: &[u8]| ld(1, &[ld(1, &[key]), ld(2, value)].concat());
        let bytes = [
            entry(b'b', &[]),
            entry(b'a', &[]),
            entry(b'b', &[0x1a, 0x02, 0x08, 0x07]),
        ]
        .concat();
        let tree = walk(&bytes, schema.table(), Some(features));
        let parsed = Parsed::new(&tree, &bytes, schema.table());
        let map = parsed.root().unwrap().fields()[0].map();
        let keys: Vec<&[u8]> = map.entries().map(|e| map.key_bytes(e)).collect();
        assert_eq!(keys, [b"a", b"b"]);
        assert_eq!(map.span(map.entry(0).unwrap()), Span::new(7, 14));
        assert_eq!(map.span(map.entry(1).unwrap()), Span::new(14, 25));
        assert_eq!(
            map.entry(1).unwrap().first,
            1,
            "b first appeared as the first entry"
        );
    }

    #[test]
    fn packed_and_unpacked_values_concatenate_and_are_counted() {
        let schema = Schema::builtin();
        let table = schema.table();
        let list = table.message_by_name("tensorflow.FloatList").unwrap();
        let mut bytes = ld(1, &[1f32.to_le_bytes(), 2f32.to_le_bytes()].concat());
        bytes.push(0x0d);
        bytes.extend_from_slice(&3f32.to_le_bytes());
        let tree = walk(&bytes, table, Some(list));
        let parsed = Parsed::new(&tree, &bytes, table);
        let values = parsed.root().unwrap().field("value").unwrap();
        assert_eq!(values.count(), 3);
        let floats: Vec<f32> = values
            .values()
            .map(|(v, _)| match v {
                Value::Scalar(Scalar::F32(f)) => f,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(floats, [1.0, 2.0, 3.0]);
        // The scalar iterator yields the same numbers, runs and single values alike.
        let scalars: Vec<Scalar<'_>> = values.scalars().unwrap().collect();
        assert_eq!(
            scalars,
            [Scalar::F32(1.0), Scalar::F32(2.0), Scalar::F32(3.0)]
        );
        // An empty packed run leaves the field unset.
        let empty = [0x0a, 0x00];
        let tree = walk(&empty, table, Some(list));
        assert!(
            Parsed::new(&tree, &empty, table)
                .root()
                .unwrap()
                .fields()
                .is_empty()
        );
    }

    #[test]
    fn numbers_visited_in_a_loop_per_kind_are_the_numbers_the_iterator_yields() {
        let schema = crate::explain::tests::schema(
            "syntax = \"proto2\"; package p;\n\
             enum E { A = 1; B = 2; }\n\
             message M { repeated float f = 1; repeated double d = 2; repeated fixed32 u = 3;\n\
             repeated sfixed32 s = 4; repeated fixed64 w = 5; repeated sfixed64 t = 6;\n\
             repeated int32 i = 7; repeated E e = 8; repeated sint64 z = 9; repeated string x = 10;\n\
             repeated M m = 11; repeated bytes y = 12; }\n",
            "p.M",
        );
        let table = schema.table();
        let message = schema.user_message().unwrap();
        // One value of field `n` written on its own (not packed), with the wire type of its width.
        let single = |n: u8, element: &[u8]| {
            let wire_type = match element.len() {
                4 => 5,
                8 => 1,
                _ => 0,
            };
            [&[(n << 3) | wire_type][..], element].concat()
        };
        let kinds: [(u8, &[u8], &[u8]); 9] = [
            (1, &1.5f32.to_le_bytes(), &(-2f32).to_le_bytes()),
            (2, &1.5f64.to_le_bytes(), &(-2f64).to_le_bytes()),
            (3, &7u32.to_le_bytes(), &u32::MAX.to_le_bytes()),
            (4, &(-7i32).to_le_bytes(), &9i32.to_le_bytes()),
            (5, &7u64.to_le_bytes(), &u64::MAX.to_le_bytes()),
            (6, &(-7i64).to_le_bytes(), &9i64.to_le_bytes()),
            (7, &[0x96, 0x01], &[0x7f]),
            // 7 is no value of the closed enum: dropped wherever it occurs.
            (8, &[0x07], &[0x02]),
            (9, &[0x03], &[0x04]),
        ];
        let mut compared = 0;
        let mut floats_compared = 0;
        for (n, a, b) in kinds {
            let partial = &a[..a.len() - 1];
            let varint = a.len() < 4;
            let cases: Vec<Vec<u8>> = vec![
                ld(n, b""),
                // Only a broken element: a partial fixed-width one, or a varint cut short.
                ld(n, if varint { &[0x80] } else { partial }),
                single(n, a),
                [
                    ld(n, &[a, b, partial].concat()),
                    single(n, b),
                    ld(n, b),
                    ld(n, b""),
                ]
                .concat(),
                [ld(n, a), single(n, a)].concat(),
            ];
            for bytes in &cases {
                let tree = walk(bytes, table, Some(message));
                let parsed = Parsed::new(&tree, bytes, table);
                let nodes: Vec<u32> = tree.children(ROOT).map(|c| c as u32).collect();
                let field = parsed.node(nodes[0]).and_then(wire::Node::field).unwrap();
                let values = FieldValues::new(parsed, field, &nodes);
                let mut visited = Vec::new();
                assert!(!values.each_bytes(|_| panic!("visited as bytes: {bytes:02x?}")));
                assert!(values.each_scalar(|s| visited.push(s)));
                let yielded: Vec<Scalar<'_>> = values.scalars().unwrap().collect();
                assert_eq!(visited, yielded, "field {n}, bytes {bytes:02x?}");
                // The float loop visits the same numbers, and only a float field's.
                let mut floats = Vec::new();
                let float = values.each_f32(|v| floats.push(v.to_bits()));
                assert_eq!(float, values.info().kind == Kind::Float, "field {n}");
                if float {
                    let bits = yielded.iter().map(|s| match s {
                        Scalar::F32(v) => v.to_bits(),
                        other => panic!("a float field yielded {other:?}"),
                    });
                    assert!(bits.eq(floats), "field {n}, bytes {bytes:02x?}");
                    floats_compared += 1;
                }
                // The field is set exactly when a number is kept.
                assert_eq!(
                    values.last_set().is_some(),
                    !yielded.is_empty(),
                    "{bytes:02x?}"
                );
                compared += yielded.len();
            }
        }
        // Seven numbers a kind (none from the empty or broken runs, one single, four from the
        // mixed runs, two from the last case); the enum keeps only its three 2s.
        assert_eq!(compared, 8 * 7 + 3);
        assert_eq!(floats_compared, 5, "one float field, five cases");
        // Strings and messages are no numbers: nothing is visited. Any occurrence of one is a
        // value, empty or (for a message) broken. A string's are visited as bytes, each the
        // bytes the iterator yields.
        for bytes in [
            ld(10, b"abc"),
            ld(10, b""),
            [ld(10, b""), ld(10, b"a")].concat(),
            ld(11, b""),
            ld(11, &[0xff]),
            [ld(11, &ld(10, b"a")), ld(11, b"")].concat(),
            [ld(12, b"\xff"), ld(12, b"")].concat(),
        ] {
            let tree = walk(&bytes, table, Some(message));
            let parsed = Parsed::new(&tree, &bytes, table);
            let nodes: Vec<u32> = tree.children(ROOT).map(|c| c as u32).collect();
            let field = parsed.node(nodes[0]).and_then(wire::Node::field).unwrap();
            let values = FieldValues::new(parsed, field, &nodes);
            assert!(!values.each_scalar(|_| panic!("visited as a number: {bytes:02x?}")));
            assert!(!values.each_f32(|_| panic!("visited as a float: {bytes:02x?}")));
            assert!(values.values().next().is_some());
            let mut visited: Vec<&[u8]> = Vec::new();
            let strings = values.each_bytes(|b| visited.push(b));
            let yielded: Vec<&[u8]> = values
                .values()
                .filter_map(|(value, _)| match value {
                    Value::String(b, _) | Value::Bytes(b, _) => Some(b),
                    _ => None,
                })
                .collect();
            assert_eq!(
                strings,
                matches!(values.info().kind, Kind::String | Kind::Bytes)
            );
            assert_eq!(visited, yielded, "{bytes:02x?}");
            assert!(values.last_set().is_some(), "{bytes:02x?}");
        }
    }

    #[test]
    fn zigzag_and_truncating_conversions() {
        let table = Table::default();
        assert_eq!(
            Scalar::from_raw(Kind::Sint32, 3, &table),
            Some(Scalar::I32(-2))
        );
        assert_eq!(
            Scalar::from_raw(Kind::Sint64, 4, &table),
            Some(Scalar::I64(2))
        );
        assert_eq!(
            Scalar::from_raw(Kind::Int32, u64::MAX, &table),
            Some(Scalar::I32(-1))
        );
    }

    #[test]
    fn invalid_utf8_in_a_proto3_string_is_rejected() {
        let schema = Schema::builtin();
        let features = schema
            .table()
            .message_by_name("tensorflow.Features")
            .unwrap();
        let one = vec![0x0a, 0x03, 0x0a, 0x01, 0xff];
        // Of two such strings, the first is the one reported.
        let two = vec![
            0x0a, 0x02, 0x0a, 0x00, 0x0a, 0x03, 0x0a, 0x01, 0xff, 0x0a, 0x03, 0x0a, 0x01, 0xfe,
        ];
        for (bytes, at) in [(one, 4), (two, 8)] {
            let tree = walk(&bytes, schema.table(), Some(features));
            assert_eq!(
                validate(Parsed::new(&tree, &bytes, schema.table())),
                Err(Invalid::NotUtf8 {
                    field: "key".into(),
                    at
                })
            );
        }
    }

    #[test]
    fn the_oneof_member_set_last_survives() {
        let schema = Schema::builtin();
        let feature = schema
            .table()
            .message_by_name("tensorflow.Feature")
            .unwrap();
        // int64_list { 1 }, bytes_list { "x" }, int64_list { 2 }: int64_list wins, and only its
        // second occurrence counts (bytes_list cleared the first), as Python protobuf reads it.
        let bytes = [
            ld(3, &[0x08, 0x01]),
            ld(1, &ld(1, b"x")),
            ld(3, &[0x08, 0x02]),
        ]
        .concat();
        let tree = walk(&bytes, schema.table(), Some(feature));
        let fields = Parsed::new(&tree, &bytes, schema.table())
            .root()
            .unwrap()
            .fields();
        assert_eq!(fields.len(), 1);
        assert_eq!(int64s(&fields[0]), [2]);
    }

    #[test]
    fn visiting_the_fields_of_a_usual_message_keeps_the_rules_of_merged_messages() {
        let schema = Schema::builtin();
        let table = schema.table();
        let feature = table.message_by_name("tensorflow.Feature").unwrap();
        let list = table.message_by_name("tensorflow.Int64List").unwrap();
        let sequence = table.message_by_name("tensorflow.SequenceExample").unwrap();
        // Whether the message is usual, and the fields visited, which must be what the rules for
        // any message (occurrences collected, sorted and grouped) make of it, and what
        // `fields()` lists.
        let seen = |bytes: &[u8], root| {
            let tree = walk(bytes, table, Some(root));
            let message = Parsed::new(&tree, bytes, table).root().unwrap();
            let ids_and_nodes = |fields: &[FieldValues<'_>]| -> Vec<(u32, Vec<u32>)> {
                fields
                    .iter()
                    .map(|f| (f.id().0, f.nodes().to_vec()))
                    .collect()
            };
            // The fields a writer is handed, less those it finds unset.
            let mut visited = Vec::new();
            message.for_each_occurring_field(|f| {
                if f.last_set().is_some() {
                    visited.push(f.clone());
                }
            });
            let visited = ids_and_nodes(&visited);
            assert_eq!(
                visited,
                ids_and_nodes(&message.merged_fields()),
                "{bytes:02x?}"
            );
            assert_eq!(visited, ids_and_nodes(&message.fields()), "{bytes:02x?}");
            // A message of one field in one run, read without the check, is that field with
            // every occurrence, as the rules for any message leave it.
            if let Some(only) = message.only_field() {
                let set = only.last_set().is_some().then(|| only.clone());
                assert_eq!(
                    ids_and_nodes(&message.merged_fields()),
                    ids_and_nodes(set.as_slice()),
                    "{bytes:02x?}"
                );
                let all: Vec<u32> = message
                    .parts()
                    .iter()
                    .flat_map(|p| {
                        tree.children(*p as usize)
                            .filter(|c| tree.node(*c).unwrap().field().is_some())
                    })
                    .map(|c| c as u32)
                    .collect();
                assert_eq!(only.nodes(), all, "{bytes:02x?}");
            }
            (message.usual_part().is_some(), visited)
        };
        let first = |root| table.field_ids(root).next().unwrap().0;
        let int64_list = first(feature) + 2;
        // One member of the oneof, with an unknown field (15) after it: usual.
        let (usual, fields) = seen(&[ld(3, &[0x08, 1]), vec![0x78, 0]].concat(), feature);
        assert!(usual);
        assert_eq!(fields, [(int64_list, vec![1])]);
        // Two members of one oneof, in number order: not usual, and the last set survives.
        let two = [ld(1, &ld(1, b"x")), ld(3, &[0x08, 1])].concat();
        let (usual, fields) = seen(&two, feature);
        assert!(!usual);
        let tree = walk(&two, table, Some(feature));
        assert!(
            Parsed::new(&tree, &two, table)
                .root()
                .unwrap()
                .only_field()
                .is_none()
        );
        assert_eq!(fields, [(int64_list, vec![3])]);
        // One field in two runs split by an unknown field: usual, one field of both runs (and
        // the only field).
        let runs = [vec![0x08, 1, 0x08, 2], vec![0x78, 0], vec![0x08, 3]].concat();
        let tree = walk(&runs, table, Some(list));
        let only = Parsed::new(&tree, &runs, table)
            .root()
            .unwrap()
            .only_field();
        assert_eq!(only.map(|f| f.nodes().to_vec()), Some(vec![1, 2, 4]));
        assert_eq!(
            seen(&runs, list),
            (true, vec![(first(list), vec![1, 2, 4])])
        );
        // A field set to nothing (an empty packed run) is not set...
        let empty_run = ld(1, &[]);
        assert_eq!(seen(&empty_run, list), (true, vec![]));
        // ...but it occurs: writers that take back an unset field are handed it.
        let tree = walk(&empty_run, table, Some(list));
        let message = Parsed::new(&tree, &empty_run, table).root().unwrap();
        let mut occurring = Vec::new();
        message.for_each_occurring_field(|f| occurring.push((f.id().0, f.nodes().to_vec())));
        assert_eq!(occurring, [(first(list), vec![1])]);
        // Fields out of number order (`feature_lists` before `context`): not usual; in order,
        // usual; both list the two fields.
        let out_of_order = [ld(2, &[]), ld(1, &[])].concat();
        let (usual, fields) = seen(&out_of_order, sequence);
        assert!(!usual && fields.len() == 2);
        let (usual, fields) = seen(&[ld(1, &[]), ld(2, &[])].concat(), sequence);
        assert!(usual && fields.len() == 2);
    }

    /// Map entries as Python protobuf (upb, 7.36.2) reads them: the text and JSON it prints for
    /// each of these Examples, taken from `text_format.MessageToString` and
    /// `json_format.MessageToJson(sort_keys=True, indent=None)`. An entry that carries any field
    /// other than a well-formed key and value goes to the unknown fields of `Features`.
    #[test]
    fn map_entries_are_kept_or_dropped_as_python_protobuf_does() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "an unknown varint after key and value",
                "0a0e0a0c0a016b12051a030a01051807",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "an unknown field before the key",
                "0a0e0a0c18070a016b12051a030a0105",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "an unknown fixed32",
                "0a110a0f0a016b1d0100000012051a030a0105",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "an unknown group",
                "0a0e0a0c0a016b12051a030a01052324",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "a key written as a varint",
                "0a0b0a09080112051a030a0105",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "a key written as fixed64",
                "0a120a1009000000000000000012051a030a0105",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "a value written as a varint",
                "0a070a050a016b1001",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "a value written as a group",
                "0a070a050a016b1314",
                "features {\n}\n",
                "{\"features\": {}}",
            ),
            (
                "no key",
                "0a090a0712051a030a0105",
                "features {\n  feature {\n    value {\n      int64_list {\n        value: 5\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"\": {\"int64List\": {\"value\": [\"5\"]}}}}}",
            ),
            (
                "no value",
                "0a050a030a016b",
                "features {\n  feature {\n    key: \"k\"\n    value {\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"k\": {}}}}",
            ),
            (
                "neither key nor value",
                "0a020a00",
                "features {\n  feature {\n    value {\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"\": {}}}}",
            ),
            (
                "the key twice (the last wins)",
                "0a0f0a0d0a01610a016212051a030a0105",
                "features {\n  feature {\n    key: \"b\"\n    value {\n      int64_list {\n        value: 5\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"b\": {\"int64List\": {\"value\": [\"5\"]}}}}}",
            ),
            (
                "the value twice (the two merge)",
                "0a160a140a016b12051a030a0105120812060a040000803f",
                "features {\n  feature {\n    key: \"k\"\n    value {\n      float_list {\n        value: 1.0\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"k\": {\"floatList\": {\"value\": [1.0]}}}}}",
            ),
            (
                "the value twice, one list in both (the lists concatenate)",
                "0a130a110a016b12051a030a010512051a030a0107",
                "features {\n  feature {\n    key: \"k\"\n    value {\n      int64_list {\n        value: 5\n        value: 7\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"k\": {\"int64List\": {\"value\": [\"5\", \"7\"]}}}}}",
            ),
            (
                "a repeated key (the last value wins)",
                "0a0c0a0a0a016b12051a030a01050a0c0a0a0a016b12050a030a0178",
                "features {\n  feature {\n    key: \"k\"\n    value {\n      bytes_list {\n        value: \"x\"\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"k\": {\"bytesList\": {\"value\": [\"eA==\"]}}}}}",
            ),
            (
                "a repeated key whose second entry carries an unknown field",
                "0a0c0a0a0a016b12050a030a01780a0e0a0c0a016b12051a030a01051807",
                "features {\n  feature {\n    key: \"k\"\n    value {\n      bytes_list {\n        value: \"x\"\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"k\": {\"bytesList\": {\"value\": [\"eA==\"]}}}}}",
            ),
            (
                "two entries, the second with an unknown field",
                "0a1a0a0a0a016112051a030a01050a0c0a016212051a030a01051801",
                "features {\n  feature {\n    key: \"a\"\n    value {\n      int64_list {\n        value: 5\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"a\": {\"int64List\": {\"value\": [\"5\"]}}}}}",
            ),
            (
                "an unknown field inside the value (kept: the entry itself is clean)",
                "0a0e0a0c0a016b12071a030a01052001",
                "features {\n  feature {\n    key: \"k\"\n    value {\n      int64_list {\n        value: 5\n      }\n    }\n  }\n}\n",
                "{\"features\": {\"feature\": {\"k\": {\"int64List\": {\"value\": [\"5\"]}}}}}",
            ),
        ];
        let schema = Schema::builtin();
        let table = schema.table();
        for (what, hex, text, json) in cases {
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let tree = walk(&bytes, table, schema.message("tensorflow.Example"));
            let parsed = Parsed::new(&tree, &bytes, table);
            assert!(validate(parsed).is_ok(), "{what}");
            let example = parsed.root().unwrap();
            assert_eq!(
                crate::textformat::message_to_text(&example),
                *text,
                "{what}"
            );
            assert_eq!(
                crate::jsonformat::message_to_json(&example),
                *json,
                "{what}"
            );
        }
    }

    /// Values a proto2 (closed) enum does not define are kept as unknown fields by parsers: a
    /// singular field keeps its earlier value, a list drops them, a map drops the entry. The
    /// expected text and JSON are what Python protobuf prints for the same bytes.
    #[test]
    fn closed_enums_drop_numbers_they_do_not_define() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("closed.proto");
        std::fs::write(
            &path,
            "syntax = \"proto2\"; package t;\n\
             enum Color { ZERO = 0; RED = 1; GREEN = 2; }\n\
             message M { optional Color c = 1; repeated Color cs = 2; \
             map<string, Color> by_name = 3; optional int32 n = 4; }",
        )
        .unwrap();
        let schema = Schema::with_user_protos(&[path], Some("t.M")).unwrap();
        let table = schema.table();
        let cases: [(&[u8], &str, &str); 5] = [
            (
                &[0x08, 0x02, 0x08, 0x07],
                "c: GREEN\n",
                "{\"c\": \"GREEN\"}",
            ),
            (&[0x08, 0x07], "", "{}"),
            (
                &[0x10, 0x01, 0x10, 0x09, 0x10, 0x02],
                "cs: RED\ncs: GREEN\n",
                "{\"cs\": [\"RED\", \"GREEN\"]}",
            ),
            (
                &[0x12, 0x03, 0x01, 0x09, 0x02],
                "cs: RED\ncs: GREEN\n",
                "{\"cs\": [\"RED\", \"GREEN\"]}",
            ),
            (
                &[
                    0x1a, 0x05, 0x0a, 0x01, b'a', 0x10, 0x02, 0x1a, 0x05, 0x0a, 0x01, b'b', 0x10,
                    0x09,
                ],
                "by_name {\n  key: \"a\"\n  value: GREEN\n}\n",
                "{\"byName\": {\"a\": \"GREEN\"}}",
            ),
        ];
        for (bytes, text, json) in cases {
            let tree = walk(bytes, table, schema.user_message());
            let message = Parsed::new(&tree, bytes, table).root().unwrap();
            assert_eq!(
                crate::textformat::message_to_text(&message),
                text,
                "{bytes:x?}"
            );
            assert_eq!(
                crate::jsonformat::message_to_json(&message),
                json,
                "{bytes:x?}"
            );
        }
    }
}
