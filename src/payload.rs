//! What a record's payload is: an Example, a SequenceExample, the user's message type, some other
//! protobuf, text, or opaque bytes, decided per record from the wire walk.

use prost_reflect::MessageDescriptor;

use crate::decode::{self, Invalid, TypedMessage};
use crate::schema::Schema;
use crate::wire::{self, WireType};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Reading {
    /// Detect per record, preferring `likely` where the bytes allow more than one reading.
    #[default]
    Auto,
    /// Decode as this message type, falling back to schema-less tokens when it does not fit.
    As(MessageDescriptor),
    /// Never decode: show bytes.
    Raw,
}

/// A payload with its kind and its wire tree.
#[derive(Debug, Clone)]
pub struct Decoded<'a> {
    pub payload: &'a [u8],
    pub kind: PayloadKind,
    /// The walk behind every view. For text and binary payloads it is the schema-less walk (which
    /// may stop early); views show those payloads as bytes.
    pub tree: wire::Message,
    /// Why the requested or expected type did not fit, when it did not.
    pub invalid: Option<Invalid>,
    /// The walk as that type, up to where it broke, for views that show where a damaged record
    /// stops making sense.
    pub expected_tree: Option<wire::Message>,
}

impl<'a> Decoded<'a> {
    /// The wire tree to show token by token: the walk as the expected type when it failed part
    /// way, else the tree of a protobuf payload; `None` for payloads shown as plain bytes.
    pub fn structure(&self) -> Option<&wire::Message> {
        match (&self.expected_tree, &self.kind) {
            (Some(tree), _) => Some(tree),
            (None, kind) if kind.is_typed() || *kind == PayloadKind::Protobuf => Some(&self.tree),
            _ => None,
        }
    }

    /// The typed message, for typed kinds.
    pub fn typed(&self) -> Option<TypedMessage<'a>> {
        if self.kind.is_typed() {
            TypedMessage::new(self.payload, &self.tree)
        } else {
            None
        }
    }
}

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

    /// A decoder that reads the same way but shares no descriptor pool with this one, for a worker
    /// thread (see [`Schema::independent_copy`]).
    pub fn independent_copy(&self) -> Decoder {
        let schema = self.schema.independent_copy();
        let reading = match (&self.reading, schema.user_message()) {
            (Reading::As(_), Some(message)) => Reading::As(message.clone()),
            (reading, _) => reading.clone(),
        };
        Decoder {
            schema,
            reading,
            likely: self.likely.clone(),
        }
    }

    /// Learns the file's usual kind from a sample of its payloads (the first non-empty ones).
    pub fn learn<'p>(&mut self, payloads: impl Iterator<Item = &'p [u8]>) {
        let mut counts: Vec<(PayloadKind, usize)> = Vec::new();
        for payload in payloads.filter(|p| !p.is_empty()).take(16) {
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

    pub fn decode<'a>(&self, payload: &'a [u8]) -> Decoded<'a> {
        match &self.reading {
            Reading::Raw => self.untyped(payload, None),
            Reading::As(descriptor) => {
                let tree = wire::walk(payload, Some(descriptor));
                match decode::validate(payload, &tree) {
                    Ok(()) => Decoded {
                        payload,
                        kind: PayloadKind::Message(descriptor.full_name().into()),
                        tree,
                        invalid: None,
                        expected_tree: None,
                    },
                    Err(invalid) => self.untyped(payload, Some((invalid, tree))),
                }
            }
            Reading::Auto => self.detect(payload),
        }
    }

    fn detect<'a>(&self, payload: &'a [u8]) -> Decoded<'a> {
        let schema = &self.schema;
        let as_sequence = || {
            let tree = wire::walk(payload, Some(schema.sequence_example()));
            decode::validate(payload, &tree).is_ok().then_some(tree)
        };
        if payload.is_empty() {
            return match &self.likely {
                Some(PayloadKind::SequenceExample) => {
                    let tree = wire::walk(payload, Some(schema.sequence_example()));
                    Decoded {
                        payload,
                        kind: PayloadKind::SequenceExample,
                        tree,
                        invalid: None,
                        expected_tree: None,
                    }
                }
                Some(PayloadKind::Example) | None => {
                    let tree = wire::walk(payload, Some(schema.example()));
                    Decoded {
                        payload,
                        kind: PayloadKind::Example,
                        tree,
                        invalid: None,
                        expected_tree: None,
                    }
                }
                Some(_) => self.untyped(payload, None),
            };
        }
        if looks_like_text(payload) {
            return Decoded {
                payload,
                kind: PayloadKind::Text,
                tree: wire::walk(payload, None),
                invalid: None,
                expected_tree: None,
            };
        }
        let example = wire::walk(payload, Some(schema.example()));
        match decode::validate(payload, &example) {
            Ok(()) => {
                let has_known = example.fields.iter().any(|f| f.descriptor.is_some());
                let has_lists = example
                    .fields
                    .iter()
                    .any(|f| f.number == 2 && f.wire_type == WireType::Len);
                let prefer_sequence =
                    has_lists || self.likely == Some(PayloadKind::SequenceExample);
                if prefer_sequence && (has_known || has_lists) {
                    if let Some(tree) = as_sequence() {
                        return Decoded {
                            payload,
                            kind: PayloadKind::SequenceExample,
                            tree,
                            invalid: None,
                            expected_tree: None,
                        };
                    }
                }
                if has_known {
                    return Decoded {
                        payload,
                        kind: PayloadKind::Example,
                        tree: example,
                        invalid: None,
                        expected_tree: None,
                    };
                }
                self.untyped(payload, None)
            }
            Err(invalid) => {
                // Only report why it is not an Example when it started like one.
                let started_like_one = payload.first() == Some(&0x0a);
                self.untyped(payload, started_like_one.then_some((invalid, example)))
            }
        }
    }

    fn untyped<'a>(
        &self,
        payload: &'a [u8],
        mismatch: Option<(Invalid, wire::Message)>,
    ) -> Decoded<'a> {
        let (invalid, expected_tree) = mismatch.unzip();
        let tree = wire::walk(payload, None);
        let kind = if payload.is_empty() {
            PayloadKind::Empty
        } else if looks_like_text(payload) {
            PayloadKind::Text
        } else if tree.is_clean() && self.reading != Reading::Raw {
            PayloadKind::Protobuf
        } else {
            PayloadKind::Binary
        };
        Decoded {
            payload,
            kind,
            tree,
            invalid,
            expected_tree,
        }
    }

    /// The type payloads are expected to have, for messages about those that do not.
    pub fn expected_name(&self) -> String {
        match (&self.reading, &self.likely) {
            (Reading::As(descriptor), _) => descriptor.full_name().to_string(),
            (_, Some(PayloadKind::SequenceExample)) => "tf.train.SequenceExample".into(),
            _ => "tf.train.Example".into(),
        }
    }

    /// Whether Python protobuf would accept the payload as a `tf.train.Example`.
    pub fn parses_as_example(&self, payload: &[u8]) -> bool {
        let tree = wire::walk(payload, Some(self.schema.example()));
        decode::validate(payload, &tree).is_ok()
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
}
