//! Whether parsers see the same message in two encodings: a parse, not a guess from the tokens.
//!
//! When both sides were read as one message type, both are parsed as that type with
//! prost-reflect and the parsed messages compared: fields by number whatever order they came in,
//! repeated values in order, maps as maps (entry order does not count), pieces of a singular
//! message merged, the last of a repeated singular scalar kept, unknown fields kept per number
//! in order. These are the rules Python protobuf's `==` follows after `ParseFromString`
//! (`testdata/compare_goldens.json` checks the two agree).
//!
//! Without a common type, both are compared as `protoc --decode_raw` reads them: fields by
//! number, occurrences of one number in order (a parser without the schema cannot tell a
//! repeated field from a singular one, so it merges nothing), numbers by value (a varint written
//! long is the same number), data that parses as a message compared field by field.

use prost_reflect::{DescriptorPool, DynamicMessage};

use crate::annotate::PayloadTokens;
use crate::wire::{self, NodeKind, ROOT, WireTree};

/// How the sameness was decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Both parsed as this message type with prost-reflect and the messages compared.
    Parsed(String),
    /// Compared as `protoc --decode_raw` reads them (no type both sides were read as).
    Raw,
}

/// The verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Same {
    Same,
    Different,
    /// Parsers reject one side or both (why, for A and for B): there is no message to compare.
    Rejected(Option<String>, Option<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sameness {
    pub check: Check,
    pub same: Same,
}

/// The one message type both sides were read as, by full name.
fn common_type(a: &PayloadTokens<'_>, b: &PayloadTokens<'_>) -> Option<String> {
    let name = |side: &PayloadTokens<'_>| {
        let id = side.decoded().structure()?.root_type()?;
        Some(side.table().message(id)?.full_name.to_string())
    };
    let (x, y) = (name(a)?, name(b)?);
    (x == y).then_some(x)
}

/// Decides whether `a` and `b` are the same message, with `pool` for the type both were read as.
pub fn sameness(a: &PayloadTokens<'_>, b: &PayloadTokens<'_>, pool: &DescriptorPool) -> Sameness {
    if let Some(name) = common_type(a, b) {
        if let Some(descriptor) = pool.get_message_by_name(&name) {
            let x = DynamicMessage::decode(descriptor.clone(), a.bytes());
            let y = DynamicMessage::decode(descriptor, b.bytes());
            let same = match (x, y) {
                (Ok(x), Ok(y)) if x == y => Same::Same,
                (Ok(_), Ok(_)) => Same::Different,
                (x, y) => Same::Rejected(
                    x.err().map(|e| e.to_string()),
                    y.err().map(|e| e.to_string()),
                ),
            };
            return Sameness {
                check: Check::Parsed(name),
                same,
            };
        }
    }
    Sameness {
        check: Check::Raw,
        same: raw_same(a, b),
    }
}

/// A value as a parser without the schema keeps it.
#[derive(Debug, PartialEq)]
enum Canon<'a> {
    /// A number and the wire type it came with.
    Number(u8, u64),
    Data(&'a [u8]),
    /// Fields by number; occurrences of one number in wire order.
    Message(Vec<(u32, Canon<'a>)>),
}

fn raw_same(a: &PayloadTokens<'_>, b: &PayloadTokens<'_>) -> Same {
    // Walked again without a type: the reading `protoc --decode_raw` gives, whatever type
    // each side was shown as.
    let walk = |side: &PayloadTokens<'_>| wire::walk(side.bytes(), side.table(), None);
    let (ta, tb) = (walk(a), walk(b));
    let rejected = |tree: &WireTree| tree.first_error().map(ToString::to_string);
    let (x, y) = (rejected(&ta), rejected(&tb));
    if x.is_some() || y.is_some() {
        return Same::Rejected(x, y);
    }
    if fields(&ta, a.bytes(), ROOT) == fields(&tb, b.bytes(), ROOT) {
        Same::Same
    } else {
        Same::Different
    }
}

/// Container `i`'s fields, stably sorted by number.
fn fields<'a>(tree: &WireTree, bytes: &'a [u8], i: usize) -> Vec<(u32, Canon<'a>)> {
    let mut out: Vec<(u32, Canon<'a>)> = tree
        .children(i)
        .filter_map(|c| {
            let node = tree.node(c)?;
            let value = match node.kind() {
                NodeKind::Message | NodeKind::Guessed | NodeKind::Group => {
                    Canon::Message(fields(tree, bytes, c))
                }
                NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                    Canon::Number(node.wire_type().code(), tree.scalar(c, bytes)?)
                }
                NodeKind::Bytes | NodeKind::Packed => {
                    Canon::Data(node.data_span().slice(bytes).unwrap_or_default())
                }
            };
            Some((node.number(), value))
        })
        .collect();
    out.sort_by_key(|(number, _)| *number);
    out
}
