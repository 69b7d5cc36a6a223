//! What a record's payload is: an Example, a SequenceExample, the user's message type, some other
//! protobuf, text, or opaque bytes, decided per record from the wire walk.

use crate::decode::{self, Invalid, MessageView, Parsed};
use crate::schema::Schema;
use crate::schema::table::{MessageId, Table};
use crate::wire::{self, Progress, ROOT, WireTree, WireType};

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum PayloadKind {
    Example,
    SequenceExample,
    /// The message type named with `--message` (its full name).
    Message(String),
    /// Valid protobuf of a type we have no descriptor for.
    Protobuf,
    /// UTF-8 text.
    Text,
    /// Neither protobuf nor text.
    #[default]
    Binary,
    /// A zero-length payload in a file whose other records are not messages.
    Empty,
}

impl PayloadKind {
    /// Stable name used in `list` and JSON output.
    pub fn name(&self) -> &str {
        match self {
            PayloadKind::Example => "Example",
            PayloadKind::SequenceExample => "SequenceExample",
            PayloadKind::Message(name) => name,
            PayloadKind::Protobuf => "protobuf",
            PayloadKind::Text => "text",
            PayloadKind::Binary => "binary",
            PayloadKind::Empty => "empty",
        }
    }

    /// True for kinds shown as a typed message tree.
    pub fn is_typed(&self) -> bool {
        matches!(
            self,
            PayloadKind::Example | PayloadKind::SequenceExample | PayloadKind::Message(_)
        )
    }
}

/// How the user asked payloads to be read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Reading {
    /// Detect per record, preferring `likely` where the bytes allow more than one reading.
    #[default]
    Auto,
    /// Decode as this message type, falling back to schema-less tokens when it does not fit.
    As(MessageId),
    /// Never decode: show bytes.
    Raw,
}

/// A payload's kind and its wire tree. It holds positions, not the bytes: views take the payload
/// and the decoder's table alongside it ([`Decoded::parsed`]).
#[derive(Debug, Clone, Default)]
pub struct Decoded {
    pub kind: PayloadKind,
    /// The walk behind every view: as the payload's type for typed kinds, schema-less for other
    /// protobuf and for binary payloads (where it may stop early); not walked for text, empty
    /// payloads and `--raw`, which views show as bytes.
    pub tree: WireTree,
    /// Why the requested or expected type did not fit, when it did not.
    pub invalid: Option<Invalid>,
    /// The walk as that type, up to where it broke, for views that show where a damaged record
    /// stops making sense.
    pub expected_tree: Option<WireTree>,
}

impl Decoded {
    /// The wire tree to show token by token: the walk as the expected type when it failed part
    /// way, else the tree of a protobuf payload; `None` for payloads shown as plain bytes.
    pub fn structure(&self) -> Option<&WireTree> {
        match (&self.expected_tree, &self.kind) {
            (Some(tree), _) => Some(tree),
            (None, kind) if kind.is_typed() || *kind == PayloadKind::Protobuf => Some(&self.tree),
            _ => None,
        }
    }

    /// The tree with the bytes and schema views read it with.
    pub fn parsed<'a>(&'a self, payload: &'a [u8], table: &'a Table) -> Parsed<'a> {
        Parsed::new(&self.tree, payload, table)
    }

    /// The typed message, for typed kinds.
    pub fn typed<'a>(&'a self, payload: &'a [u8], table: &'a Table) -> Option<MessageView<'a>> {
        if self.kind.is_typed() {
            self.parsed(payload, table).root()
        } else {
            None
        }
    }
}

/// Payloads larger than this are left out of the sample [`Decoder::learn`] reads, so that learning
/// a file's kind stays quick whatever its records hold.
pub const LEARN_MAX_BYTES: usize = 1 << 20;

/// The decoding context of one file: the schema, the user's choice, and the file's usual kind.
#[derive(Debug, Clone)]
pub struct Decoder {
    pub schema: Schema,
    pub reading: Reading,
    /// The kind most records of the file have, used for empty and ambiguous payloads.
    pub likely: Option<PayloadKind>,
}

impl Decoder {
    pub fn new(schema: Schema, reading: Reading) -> Decoder {
        Decoder {
            schema,
            reading,
            likely: None,
        }
    }

    /// The schema table views read decoded payloads with.
    pub fn table(&self) -> &Table {
        self.schema.table()
    }

    /// Learns the file's usual kind from a sample of its payloads (the first non-empty ones).
    pub fn learn<'p>(&mut self, payloads: impl Iterator<Item = &'p [u8]>) {
        let mut counts: Vec<(PayloadKind, usize)> = Vec::new();
        let sample = payloads
            .filter(|p| !p.is_empty() && p.len() <= LEARN_MAX_BYTES)
            .take(16);
        for payload in sample {
            let kind = self.decode(payload).kind;
            match counts.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((kind, 1)),
            }
        }
        // A SequenceExample file may hold records whose bytes also read as Examples (context only).
        if counts
            .iter()
            .any(|(k, _)| *k == PayloadKind::SequenceExample)
        {
            self.likely = Some(PayloadKind::SequenceExample);
            return;
        }
        self.likely = counts.into_iter().max_by_key(|(_, n)| *n).map(|(k, _)| k);
    }

    pub fn decode(&self, payload: &[u8]) -> Decoded {
        self.decode_observed(payload, None).unwrap_or_default()
    }

    /// [`Decoder::decode`], reporting progress to `progress` and giving up (`None`) when it is
    /// cancelled.
    pub fn decode_observed(&self, payload: &[u8], progress: Option<&Progress>) -> Option<Decoded> {
        let walker = Walks {
            payload,
            table: self.table(),
            progress,
        };
        match self.reading {
            Reading::Raw => self.untyped(&walker, None),
            Reading::As(message) => {
                let tree = walker.walk(Some(message))?;
                match walker.validate(&tree) {
                    Ok(()) => Some(Decoded {
                        kind: PayloadKind::Message(self.schema.message_name(message).into()),
                        tree,
                        invalid: None,
                        expected_tree: None,
                    }),
                    Err(invalid) => self.untyped(&walker, Some((invalid, tree))),
                }
            }
            Reading::Auto => self.detect(&walker),
        }
    }

    fn detect(&self, walker: &Walks<'_>) -> Option<Decoded> {
        let schema = &self.schema;
        let payload = walker.payload;
        let typed = |kind, tree| {
            Some(Decoded {
                kind,
                tree,
                invalid: None,
                expected_tree: None,
            })
        };
        if payload.is_empty() {
            return match &self.likely {
                Some(PayloadKind::SequenceExample) => typed(
                    PayloadKind::SequenceExample,
                    walker.walk(Some(schema.sequence_example()))?,
                ),
                Some(PayloadKind::Example) | None => {
                    typed(PayloadKind::Example, walker.walk(Some(schema.example()))?)
                }
                Some(_) => self.untyped(walker, None),
            };
        }
        if looks_like_text(payload) {
            return Some(Decoded {
                kind: PayloadKind::Text,
                ..Decoded::default()
            });
        }
        let example = walker.walk(Some(schema.example()))?;
        match walker.validate(&example) {
            Ok(()) => {
                let top: Vec<&wire::Node> = example
                    .children(ROOT)
                    .filter_map(|c| example.node(c))
                    .collect();
                let has_known = top.iter().any(|n| n.field().is_some());
                let has_lists = top
                    .iter()
                    .any(|n| n.number() == 2 && n.wire_type() == WireType::Len);
                let prefer_sequence =
                    has_lists || self.likely == Some(PayloadKind::SequenceExample);
                if prefer_sequence && (has_known || has_lists) {
                    let sequence = walker.walk(Some(schema.sequence_example()))?;
                    if walker.validate(&sequence).is_ok() {
                        return typed(PayloadKind::SequenceExample, sequence);
                    }
                }
                if has_known {
                    return typed(PayloadKind::Example, example);
                }
                self.untyped(walker, None)
            }
            Err(invalid) => {
                // Only report why it is not an Example when it started like one.
                let started_like_one = payload.first() == Some(&0x0a);
                self.untyped(walker, started_like_one.then_some((invalid, example)))
            }
        }
    }

    fn untyped(
        &self,
        walker: &Walks<'_>,
        mismatch: Option<(Invalid, WireTree)>,
    ) -> Option<Decoded> {
        let payload = walker.payload;
        let (invalid, expected_tree) = mismatch.unzip();
        let (kind, tree) = if payload.is_empty() {
            (PayloadKind::Empty, WireTree::default())
        } else if looks_like_text(payload) {
            (PayloadKind::Text, WireTree::default())
        } else if self.reading == Reading::Raw {
            (PayloadKind::Binary, WireTree::default())
        } else {
            let tree = walker.walk(None)?;
            let kind = if tree.is_clean() {
                PayloadKind::Protobuf
            } else {
                PayloadKind::Binary
            };
            (kind, tree)
        };
        Some(Decoded {
            kind,
            tree,
            invalid,
            expected_tree,
        })
    }

    /// The type payloads are expected to have, for messages about those that do not.
    pub fn expected_name(&self) -> String {
        match (&self.reading, &self.likely) {
            (Reading::As(message), _) => self.schema.message_name(*message).to_string(),
            (_, Some(PayloadKind::SequenceExample)) => "tf.train.SequenceExample".into(),
            _ => "tf.train.Example".into(),
        }
    }

    /// Whether Python protobuf would accept the payload as a `tf.train.Example`.
    pub fn parses_as_example(&self, payload: &[u8]) -> bool {
        let tree = wire::walk(payload, self.table(), Some(self.schema.example()));
        decode::validate(Parsed::new(&tree, payload, self.table())).is_ok()
    }
}

/// The walks of one payload, all reporting to the same progress.
struct Walks<'a> {
    payload: &'a [u8],
    table: &'a Table,
    progress: Option<&'a Progress>,
}

impl Walks<'_> {
    fn walk(&self, root: Option<MessageId>) -> Option<WireTree> {
        wire::walk_observed(self.payload, self.table, root, self.progress)
    }

    fn validate(&self, tree: &WireTree) -> Result<(), Invalid> {
        decode::validate(Parsed::new(tree, self.payload, self.table))
    }
}

/// UTF-8 with no control characters other than tab, newline and carriage return.
pub fn looks_like_text(payload: &[u8]) -> bool {
    !payload.is_empty()
        && std::str::from_utf8(payload).is_ok_and(|text| {
            text.chars()
                .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoder() -> Decoder {
        Decoder::new(Schema::builtin(), Reading::Auto)
    }

    #[test]
    fn kinds_are_detected() {
        let d = decoder();
        // features { feature { key: "a" value { int64_list { value: 1 } } } }
        let example = [
            0x0a, 0x0b, 0x0a, 0x09, 0x0a, 0x01, b'a', 0x12, 0x04, 0x1a, 0x02, 0x08, 0x01,
        ];
        assert_eq!(d.decode(&example).kind, PayloadKind::Example);
        // context {} feature_lists {}
        assert_eq!(
            d.decode(&[0x0a, 0x00, 0x12, 0x00]).kind,
            PayloadKind::SequenceExample
        );
        assert_eq!(
            d.decode(b"plain ASCII text record number 7").kind,
            PayloadKind::Text
        );
        assert_eq!(d.decode(&[0x08, 0x96, 0x01]).kind, PayloadKind::Protobuf);
        assert_eq!(d.decode(&[0xff, 0xff]).kind, PayloadKind::Binary);
    }

    #[test]
    fn a_broken_example_says_why() {
        let decoded = decoder().decode(&[0x0a, 0x05, 0x0a, 0x09]);
        assert_eq!(decoded.kind, PayloadKind::Binary);
        assert!(
            decoded
                .invalid
                .unwrap()
                .to_string()
                .contains("field 1 declares 5 bytes but only 2 remain")
        );
    }

    #[test]
    fn empty_payload_follows_the_file() {
        let mut d = decoder();
        assert_eq!(d.decode(b"").kind, PayloadKind::Example);
        d.learn([&b"some text"[..], b"more text"].into_iter());
        assert_eq!(d.decode(b"").kind, PayloadKind::Empty);
    }

    #[test]
    fn raw_reading_walks_nothing() {
        let d = Decoder::new(Schema::builtin(), Reading::Raw);
        let decoded = d.decode(&[0x08, 0x96, 0x01]);
        assert_eq!(decoded.kind, PayloadKind::Binary);
        assert!(decoded.tree.is_empty() && decoded.structure().is_none());
    }
}
