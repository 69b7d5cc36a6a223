//! Rule notes: where the bytes break or stretch an encoding rule that parsers nonetheless accept,
//! or where a parser keeps something other than what the bytes plainly say.
//!
//! Most of the wire format's surprises print as if nothing happened: `81 80 80 00` is 1, a bool
//! of 2 is true, a scalar sent twice keeps its last value, two occurrences of a message merge, a
//! later oneof member clears an earlier one, a closed enum's unknown number becomes an unknown
//! field. [`RuleBook`] names each of these on the token where it happens. Notes on one token
//! (over-long varints, bools, enums, UTF-8, unknown fields, packing) are found when the token is
//! asked about; notes that need a whole message (which occurrence wins, what merges, which oneof
//! member survives) are found once, by reading the typed views of [`crate::decode`], the layer
//! that applies those rules for every other output, so a note cannot disagree with what `show`
//! prints.

use crate::annotate::{Annotated, PayloadTokens, Site, Token};
use crate::decode::{MessageView, Parsed};
use crate::explain::{Radix, number};
use crate::schema::table::{Cardinality, Field, FieldId, Kind, MessageId};
use crate::span::Span;
use crate::wire::{self, MAX_DEPTH, NodeKind};

mod message;

/// Which rule a note is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A varint in more bytes than its value needs.
    OverlongVarint,
    /// A tenth varint byte above 1: bits past the 64th.
    TenthByte,
    /// A bool written as something other than 0 or 1.
    BoolNotCanonical,
    /// A singular scalar sent more than once: the last one wins.
    LastWins,
    /// A singular message sent more than once: the occurrences merge.
    MessagesMerge,
    /// A oneof member set, then another: the earlier is cleared.
    OneofReplaced,
    /// A number a closed enum does not define: kept as an unknown field.
    ClosedEnumUnknown,
    /// A string that is not UTF-8.
    InvalidUtf8,
    /// A field number (or wire type) the message type does not declare.
    UnknownField,
    /// Values of a field declared packed, sent one tag each.
    PackedSentUnpacked,
    /// Values of a field declared unpacked, sent as one packed run.
    UnpackedSentPacked,
    /// A map key sent again: the last entry wins.
    MapKeyRepeated,
    /// Bytes that break a rule of the wire format: parsers reject the whole message.
    Malformed,
}

impl Rule {
    /// The rule's short name, as notes are headed.
    pub fn name(self) -> &'static str {
        match self {
            Rule::OverlongVarint => "over-long varint",
            Rule::TenthByte => "10th byte out of range",
            Rule::BoolNotCanonical => "bool not 0 or 1",
            Rule::LastWins => "last one wins",
            Rule::MessagesMerge => "messages merge",
            Rule::OneofReplaced => "oneof member replaced",
            Rule::ClosedEnumUnknown => "closed enum value unknown",
            Rule::InvalidUtf8 => "invalid UTF-8",
            Rule::UnknownField => "unknown field",
            Rule::PackedSentUnpacked => "packed field sent unpacked",
            Rule::UnpackedSentPacked => "unpacked field sent packed",
            Rule::MapKeyRepeated => "map key repeated",
            Rule::Malformed => "malformed",
        }
    }
}

/// What a parser keeps of the wire occurrence a note is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fate {
    /// Kept as the bytes say.
    Kept,
    /// Merged with the field's other occurrences.
    Merged,
    /// Dropped: a later occurrence (or map entry with the same key) wins.
    Dropped,
    /// Cleared by a later member of its oneof.
    Cleared,
    /// Kept among the unknown fields, not as a field of the message.
    Unknown,
    /// The whole message is rejected.
    Rejected,
}

impl Fate {
    pub fn word(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Merged => "merged",
            Fate::Dropped => "dropped",
            Fate::Cleared => "cleared",
            Fate::Unknown => "unknown field",
            Fate::Rejected => "message rejected",
        }
    }
}

/// One rule applied to one token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub rule: Rule,
    pub text: String,
    /// What the parser keeps of the occurrence because of this rule.
    pub fate: Fate,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule.name(), self.text)
    }
}

/// The rule notes of one walked payload.
pub struct RuleBook<'a> {
    parsed: Parsed<'a>,
    base: u64,
    radix: Radix,
    /// Notes that need the whole message, on the tags of the occurrences they are about, sorted
    /// by node.
    by_node: Vec<(u32, Note)>,
}

impl<'a> RuleBook<'a> {
    /// The notes of `annotated`'s payload, when it was walked as protobuf.
    pub fn of(annotated: &Annotated<'a>, radix: Radix) -> Option<RuleBook<'a>> {
        RuleBook::new(annotated.payload()?, radix)
    }

    /// The notes of the payload `tokens` read.
    pub fn new(tokens: &PayloadTokens<'a>, radix: Radix) -> Option<RuleBook<'a>> {
        let tree = tokens.decoded().structure()?;
        let parsed = Parsed::new(tree, tokens.bytes(), tokens.table());
        let mut book = RuleBook {
            parsed,
            base: tokens.base(),
            radix,
            by_node: Vec::new(),
        };
        if let Some(root) = parsed.root() {
            let mut found = message::Found::new(parsed, radix);
            found.visit(&root, 0);
            book.by_node = found.into_notes();
        }
        Some(book)
    }

    /// The notes of single tokens only (no rule that needs a whole message), for a payload too
    /// large to read whole between two key presses.
    pub fn local(tokens: &PayloadTokens<'a>, radix: Radix) -> Option<RuleBook<'a>> {
        let tree = tokens.decoded().structure()?;
        Some(RuleBook {
            parsed: Parsed::new(tree, tokens.bytes(), tokens.table()),
            base: tokens.base(),
            radix,
            by_node: Vec::new(),
        })
    }

    /// A payload position as notes write it.
    fn at(&self, pos: usize) -> String {
        format!("payload {}", self.radix.num(pos as u64))
    }

    /// The notes on `token`.
    pub fn notes(&self, token: &Token) -> Vec<Note> {
        let Some(n) = token.node() else {
            return Vec::new();
        };
        let Some(node) = self.parsed.tree.node(n) else {
            return Vec::new();
        };
        let field = node.field().and_then(|f| self.parsed.field(f));
        let start = usize::try_from(token.start.saturating_sub(self.base)).unwrap_or(0);
        let end = usize::try_from(token.end.saturating_sub(self.base)).unwrap_or(0);
        let bytes = self.parsed.slice(Span::new(start, end.max(start)));
        let mut notes = Vec::new();
        match token.site {
            Site::Tag(_) => {
                notes.extend(varint_notes(bytes, self.radix));
                notes.extend(self.unknown(node));
                notes.extend(self.packing(n, node, field));
                notes.extend(self.message_notes(n));
            }
            Site::Length(_) | Site::EndTag(_) => notes.extend(varint_notes(bytes, self.radix)),
            Site::Value(_) if node.kind() == NodeKind::Varint => {
                notes.extend(varint_notes(bytes, self.radix));
                notes.extend(field.and_then(|f| self.scalar(f, bytes)));
            }
            Site::Element(_) => {
                let varint = field.is_none_or(|f| f.kind.fixed_width().is_none());
                if varint {
                    notes.extend(varint_notes(bytes, self.radix));
                    notes.extend(field.and_then(|f| self.scalar(f, bytes)));
                }
            }
            Site::Data(_) => notes.extend(field.and_then(|f| self.utf8(f, bytes, start))),
            Site::Invalid(_) => notes.extend(self.malformed(n)),
            _ => {}
        }
        notes
    }

    /// The fault where the walk of container `n` stopped: parsers reject the whole message.
    fn malformed(&self, n: usize) -> Option<Note> {
        let tree = self.parsed.tree;
        let error = tree.error_of(n)?;
        let end = tree.node(n)?.end();
        let fault = crate::explain::fault::explain(
            self.parsed.bytes,
            error.at,
            end,
            &error.kind,
            self.radix,
        );
        Some(Note {
            rule: Rule::Malformed,
            text: format!(
                "{} at {}: {}",
                fault.headline,
                self.at(fault.byte),
                crate::explain::fault::REJECTED
            ),
            fate: Fate::Rejected,
        })
    }

    /// Every note about wire occurrence `n` that bears on what a parser keeps of it (those on
    /// its tag, and on its value or data).
    pub fn node_notes(&self, n: usize) -> Vec<Note> {
        let Some(node) = self.parsed.tree.node(n) else {
            return Vec::new();
        };
        let field = node.field().and_then(|f| self.parsed.field(f));
        let mut notes: Vec<Note> = self.unknown(node).into_iter().collect();
        notes.extend(self.packing(n, node, field));
        notes.extend(self.message_notes(n));
        let data = node.data_span();
        let bytes = self.parsed.slice(data);
        match node.kind() {
            NodeKind::Varint => notes.extend(field.and_then(|f| self.scalar(f, bytes))),
            NodeKind::Bytes => notes.extend(field.and_then(|f| self.utf8(f, bytes, data.start))),
            _ => {}
        }
        notes
    }

    /// What a parser keeps of wire occurrence `n`, with the notes that say why.
    pub fn fate(&self, n: usize) -> (Fate, Vec<Note>) {
        let mut notes = self.node_notes(n);
        // Nothing of a message parsers reject is kept, however sound its own bytes.
        let faulty = self.parsed.tree.errors().next().map(|(node, _)| node);
        notes.extend(faulty.and_then(|node| self.malformed(node)));
        let not_utf8 = self.parsed.tree.first_not_utf8().filter(|m| *m != n);
        notes.extend(not_utf8.and_then(|m| {
            self.node_notes(m)
                .into_iter()
                .find(|note| note.fate == Fate::Rejected)
        }));
        let fate = notes.iter().map(|n| n.fate).max().unwrap_or(Fate::Kept);
        (fate, notes)
    }

    /// The walked payload the notes are about.
    pub fn parsed(&self) -> Parsed<'a> {
        self.parsed
    }

    fn message_notes(&self, n: usize) -> impl Iterator<Item = Note> + '_ {
        let n = n as u32;
        let first = self.by_node.partition_point(|(node, _)| *node < n);
        self.by_node
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(move |(node, _)| *node == n)
            .map(|(_, note)| note.clone())
    }

    /// A bool not 0 or 1; a number a closed enum does not define.
    fn scalar(&self, field: &Field, bytes: &[u8]) -> Option<Note> {
        let (raw, _) = number::varint_value(bytes);
        match field.kind {
            Kind::Bool if raw > 1 => Some(Note {
                fate: Fate::Kept,
                rule: Rule::BoolNotCanonical,
                text: format!(
                    "`{}` is written as {}; parsers read any value but 0 as true, and encoders write true as 01",
                    field.name,
                    self.radix.num(raw)
                ),
            }),
            Kind::Enum(e) => {
                let en = self.parsed.table.enum_type(e)?;
                let number = raw as u32 as i32;
                (!en.keeps(number)).then(|| Note {
                    fate: Fate::Unknown,
                    rule: Rule::ClosedEnumUnknown,
                    text: format!(
                        "{} is not a value of {}, a closed (proto2) enum: parsers keep the varint as an \
                         unknown field, not as a value of `{}`",
                        self.radix.signed(i128::from(number)),
                        en.name,
                        field.name
                    ),
                })
            }
            _ => None,
        }
    }

    /// A string field's bytes that are not UTF-8.
    fn utf8(&self, field: &Field, bytes: &[u8], start: usize) -> Option<Note> {
        if field.kind != Kind::String {
            return None;
        }
        let error = std::str::from_utf8(bytes).err()?;
        let bad = error.valid_up_to();
        let at = self.at(start + bad);
        let byte = bytes.get(bad).copied().unwrap_or(0);
        let text = if field.utf8 {
            format!(
                "byte {bad} of `{}` ({at}, 0x{byte:02x}) is not UTF-8: `{}` is a proto3 string, so parsers \
                 reject the whole message",
                field.name, field.name
            )
        } else {
            format!(
                "byte {bad} of `{}` ({at}, 0x{byte:02x}) is not UTF-8: `{}` is a proto2 string, so parsers \
                 keep the bytes as they are",
                field.name, field.name
            )
        };
        Some(Note {
            rule: Rule::InvalidUtf8,
            text,
            fate: if field.utf8 {
                Fate::Rejected
            } else {
                Fate::Kept
            },
        })
    }

    /// A field the message type holding it does not declare (or not with this wire type).
    fn unknown(&self, node: &wire::Node) -> Option<Note> {
        if node.field().is_some() {
            return None;
        }
        let tree = self.parsed.tree;
        let table = self.parsed.table;
        let message = tree.message_type(node.parent()?, table)?;
        let info = table.message(message)?;
        let name = &info.name;
        let wire = node.wire_type();
        let wire_text = format!(
            "wire type {} ({})",
            wire.code(),
            number::wire_name(u64::from(wire.code()))
        );
        let text = match self.declared(message, node.number()) {
            // upb moves such an entry whole to the unknown fields of the message holding the map.
            _ if info.map_entry => format!(
                "{name} is a map entry, which holds only its key (1) and value (2): parsers keep the whole entry \
                 holding this {wire_text} as an unknown field of the message with the map, not as an entry"
            ),
            Some(f) => format!(
                "field {} of {name} is `{}`, declared {} (wire type {}), but it arrives as {wire_text}: parsers \
                 keep it as an unknown field",
                node.number(),
                f.name,
                table.kind_name(f.kind),
                f.kind.wire_type().code(),
            ),
            None => format!(
                "{name} declares no field {}: parsers keep it as an unknown field ({wire_text}) and write it back as it came",
                node.number()
            ),
        };
        Some(Note {
            rule: Rule::UnknownField,
            text,
            fate: Fate::Unknown,
        })
    }

    fn declared(&self, message: MessageId, number: u32) -> Option<&'a Field> {
        let table = self.parsed.table;
        table
            .field_by_number(message, number)
            .and_then(|f| table.field(f))
    }

    /// Values of a packable field sent the other way than declared (noted on the first of a run).
    fn packing(&self, n: usize, node: &wire::Node, field: Option<&Field>) -> Option<Note> {
        let field = field.filter(|f| f.packable)?;
        let id: FieldId = node.field()?;
        let packed = self.parsed.table.is_packed(id);
        let sent_packed = node.kind() == NodeKind::Packed;
        if packed == sent_packed {
            return None;
        }
        if !sent_packed {
            // One note for a run of single values, on its first.
            let previous = n.checked_sub(1).and_then(|p| self.parsed.tree.node(p));
            let same_run = previous.is_some_and(|p| {
                p.field() == Some(id) && p.parent() == node.parent() && p.kind() != NodeKind::Packed
            });
            if same_run {
                return None;
            }
        }
        let (rule, text) = if sent_packed {
            (
                Rule::UnpackedSentPacked,
                format!(
                    "`{}` is declared unpacked (proto2's default) but arrives packed, all values behind one \
                     length: parsers accept both",
                    field.name
                ),
            )
        } else {
            (
                Rule::PackedSentUnpacked,
                format!(
                    "`{}` is declared packed but arrives unpacked, one tag per value: parsers accept both",
                    field.name
                ),
            )
        };
        Some(Note {
            rule,
            text,
            fate: Fate::Kept,
        })
    }
}

/// Over-long varints and tenth bytes above 1.
fn varint_notes(bytes: &[u8], radix: Radix) -> Vec<Note> {
    let mut notes = Vec::new();
    let (value, whole) = number::varint_value(bytes);
    if !whole {
        return notes;
    }
    if bytes.len() == 10 {
        if let Some(last) = bytes.last().filter(|b| **b > 1) {
            notes.push(Note {
                fate: Fate::Kept,
                rule: Rule::TenthByte,
                text: format!(
                    "the 10th byte is 0x{last:02x}, above 1: only its lowest bit fits in 64 bits, and parsers drop \
                     the others (the value reads {})",
                    radix.num(value)
                ),
            });
        }
    }
    let shortest = number::varint_len(value);
    if bytes.len() > shortest {
        notes.push(Note {
            fate: Fate::Kept,
            rule: Rule::OverlongVarint,
            text: format!(
                "{} where {} suffice: the minimal form of {} is {}; parsers accept the longer one",
                radix.bytes(bytes.len() as u64),
                radix.num(shortest as u64),
                radix.num(value),
                number::hex_bytes(&number::varint_bytes(value))
            ),
        });
    }
    notes
}

/// Nesting deeper than this is not followed for notes (the walker stops earlier anyway).
const DEPTH: usize = MAX_DEPTH + 1;

/// The occurrences of one message's fields, grouped by field in wire order.
fn occurrences(message: &MessageView<'_>) -> Vec<(FieldId, Vec<u32>)> {
    let parsed = message.parsed();
    let mut all: Vec<(u32, u32)> = Vec::new();
    for part in message.parts() {
        for child in parsed.tree.children(*part as usize) {
            if let Some(f) = parsed.node(child as u32).and_then(wire::Node::field) {
                all.push((f.0, child as u32));
            }
        }
    }
    all.sort_unstable();
    let mut grouped: Vec<(FieldId, Vec<u32>)> = Vec::new();
    for (field, node) in all {
        match grouped.last_mut() {
            Some((f, nodes)) if f.0 == field => nodes.push(node),
            _ => grouped.push((FieldId(field), vec![node])),
        }
    }
    grouped
}

fn is_singular(field: &Field) -> bool {
    matches!(
        field.cardinality,
        Cardinality::Implicit | Cardinality::Explicit
    )
}

#[cfg(test)]
mod tests;
