//! What a record's payload is: one of the registered payload types (an Example, a
//! SequenceExample), the user's message type, some other protobuf, text, or opaque bytes, decided
//! per record from the wire walk.
//!
//! Payload types are an open set: each is a [`PayloadType`] in a module of its own, listed once in
//! [`BUILTIN`]. The type brings its `.proto` files to the built-in schema, says whether it explains
//! a payload, and renders what the views show of it (the `list` summary, the `show` tree, the text
//! format, the inspector's tree and image candidates). Views never match on the kind: they ask
//! its type through a [`PayloadView`]. The user's `--message` type is one generic type, and
//! unknown protobuf, text, binary and empty payloads are the fallbacks when no type fits.

mod detect;
mod event;
mod example;
mod fallback;
pub mod inner;
mod message;
mod plain;
pub mod plugin;
pub mod tensor;
mod types;

pub use crate::escape::looks_like_text;
pub use detect::{PassedOver, Probe};
pub use event::{EVENT, EVENT_MESSAGE, GRAPH_MESSAGE};
pub use example::{EXAMPLE, EXAMPLE_MESSAGE, SEQUENCE_EXAMPLE, plain_summary};
pub use plain::{InKeyOrder, PlainExample, PlainFeature, PlainValues};
pub use tensor::{TENSOR, TENSOR_MESSAGE, string_list_at, strings_text, tensor_content_field};
pub use types::{
    BUILTIN, Declared, EXPECTED, FeatureNames, Found, ImageCandidates, NAMES_KEPT, Names,
    NodeReading, PLUGINS, PayloadType, PayloadView, Scalars, Summary, TreeRow, Typed,
};

use crate::decode::{self, Invalid, MessageView, Parsed};
use crate::schema::Schema;
use crate::schema::table::{MessageId, Table};
use crate::wire::{self, Progress, WireTree};
use crate::words::plural;
use detect::Walks;

/// The type a payload was found to be: the value `list` names in its kind column and JSON gives as
/// "kind". Views ask [`PayloadKind::payload_type`] for what to show rather than match on it.
#[derive(Clone, Default)]
pub enum PayloadKind {
    /// A registered type detection chose.
    Builtin(&'static dyn PayloadType),
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
    /// The type that renders payloads of this kind.
    pub fn payload_type(&self) -> &'static dyn PayloadType {
        match self {
            PayloadKind::Builtin(ty) => *ty,
            PayloadKind::Message(_) => &message::TYPED_MESSAGE,
            PayloadKind::Protobuf => &fallback::PROTOBUF,
            PayloadKind::Text => &fallback::TEXT,
            PayloadKind::Binary => &fallback::BINARY,
            PayloadKind::Empty => &fallback::EMPTY,
        }
    }

    /// Stable name used in `list` and JSON output.
    pub fn name(&self) -> &str {
        match self {
            PayloadKind::Message(name) => name,
            other => other.payload_type().name(),
        }
    }

    /// True for kinds shown as a typed message tree.
    pub fn is_typed(&self) -> bool {
        match self {
            PayloadKind::Builtin(ty) => ty.message().is_some(),
            PayloadKind::Message(_) => true,
            _ => false,
        }
    }

    /// Whether this is registered type `ty`.
    pub fn is(&self, ty: &dyn PayloadType) -> bool {
        matches!(self, PayloadKind::Builtin(own) if own.name() == ty.name())
    }
}

impl PartialEq for PayloadKind {
    fn eq(&self, other: &PayloadKind) -> bool {
        match (self, other) {
            (PayloadKind::Builtin(a), PayloadKind::Builtin(b)) => a.name() == b.name(),
            (PayloadKind::Message(a), PayloadKind::Message(b)) => a == b,
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

impl Eq for PayloadKind {}

impl std::fmt::Debug for PayloadKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PayloadKind::Message(name) => f.debug_tuple("Message").field(name).finish(),
            other => f.write_str(other.name()),
        }
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
    /// Never decode: show bytes (`--bytes`).
    Bytes,
    /// The schema-less walk of every payload, as `protoc --decode_raw` reads one: field numbers
    /// and wire values, whatever type the payload is (`--raw`; an Example too).
    Wire,
}

/// A payload's kind and its wire tree. It holds positions, not the bytes: views take the payload
/// and the decoder's table alongside it ([`Decoded::view`]).
#[derive(Debug, Clone, Default)]
pub struct Decoded {
    pub kind: PayloadKind,
    /// The walk behind every view: as the payload's type for typed kinds, schema-less for other
    /// protobuf and for binary payloads (where it may stop early); not walked for text, empty
    /// payloads and `--bytes`, which views show as bytes.
    pub tree: WireTree,
    /// Why the requested or expected type did not fit, when it did not.
    pub invalid: Option<Invalid>,
    /// The walk as that type, up to where it broke, for views that show where a damaged record
    /// stops making sense.
    pub expected_tree: Option<WireTree>,
    /// The type detection did not choose although the file or the bytes made it a candidate,
    /// and why.
    pub passed_over: Option<PassedOver>,
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

    /// The decoded payload with its bytes and schema, for asking its type what to show.
    pub fn view<'a>(&'a self, payload: &'a [u8], table: &'a Table) -> PayloadView<'a> {
        PayloadView::new(self, payload, table)
    }
}

/// Payloads larger than this are left out of the sample [`Decoder::learn`] reads, so that learning
/// a file's kind stays quick whatever its records hold.
pub const LEARN_MAX_BYTES: usize = 1 << 20;

/// How many payloads [`Decoder::learn`] reads: the first this many that are not empty and not
/// larger than [`LEARN_MAX_BYTES`].
pub const LEARN_PAYLOADS: usize = 16;

/// Whether [`Decoder::learn`] would read `payload`.
pub fn learns_from(payload: &[u8]) -> bool {
    !payload.is_empty() && payload.len() <= LEARN_MAX_BYTES
}

/// The decoding context of one file: the schema, the user's choice, and the file's usual kind.
#[derive(Debug, Clone)]
pub struct Decoder {
    pub schema: Schema,
    pub reading: Reading,
    /// The kind most records of the file have, used for empty and ambiguous payloads.
    pub likely: Option<PayloadKind>,
    /// The kind the file's name (`events.out.tfevents.*`) or its first record (TensorBoard's
    /// `file_version` event) says its records are: used until the records say otherwise, and
    /// records of it are not told why they are no other type.
    pub named: Option<PayloadKind>,
    /// What learning found wrong with the user's schema for this file (no message of it explains
    /// the records, or several do), for the front ends to say.
    pub note: Option<String>,
    /// The registered types' messages in this schema, by full name.
    known: std::sync::Arc<[(&'static str, MessageId)]>,
    /// The types worth walking a payload as, by its first byte (see
    /// [`detect::starting_types`]).
    starting: detect::Starting,
    /// The schema is the built-in one: records may be read as [`PlainExample`]s.
    builtin: bool,
}

impl Decoder {
    pub fn new(schema: Schema, reading: Reading) -> Decoder {
        let known = BUILTIN
            .iter()
            .filter_map(|ty| ty.message())
            .filter_map(|name| Some((name, schema.message(name)?)))
            .collect();
        let starting = detect::starting_types(schema.table());
        Decoder {
            builtin: schema.is_builtin(),
            known,
            starting,
            schema,
            reading,
            likely: None,
            named: None,
            note: None,
        }
    }

    /// Takes the kind a file's name promises (TensorBoard's `events.out.tfevents.*` hold
    /// events, a `tf.data` snapshot's `*.shard/*.snapshot` tensors) as the kind of its records
    /// until they are learnt.
    pub fn hint_file_name(&mut self, path: &std::path::Path) {
        let name = path.file_name().map(|n| n.to_string_lossy());
        let shard_dir = path.parent().and_then(|d| d.file_name());
        // A tf.data snapshot's shard (`<N>.shard/<C>.snapshot`) holds TensorProtos.
        let snapshot_shard = name.as_ref().is_some_and(|n| n.ends_with(".snapshot"))
            && shard_dir.is_some_and(|d| d.to_string_lossy().ends_with(".shard"));
        self.named = match name {
            _ if snapshot_shard => Some(PayloadKind::Builtin(&tensor::TENSOR)),
            Some(n) => event::file_kind_from_name(&n),
            None => None,
        };
    }

    /// Whether every record protobuf reads as a plain `tf.train.Example` is decoded as one: the
    /// user asked for Examples, or the file's records were learnt to be Examples (then no other
    /// type is preferred for a record that is a valid Example: see `FeatureMessage::detect`).
    pub fn takes_examples(&self) -> bool {
        match &self.reading {
            Reading::Auto => self
                .likely
                .as_ref()
                .is_some_and(|k| k.is(&example::EXAMPLE)),
            Reading::As(message) => self
                .table()
                .message(*message)
                .is_some_and(|m| m.full_name.as_ref() == example::EXAMPLE_MESSAGE),
            Reading::Bytes | Reading::Wire => false,
        }
    }

    /// The payload as a plain Example ([`PlainExample`]), when [`Decoder::decode`] would read it
    /// as a valid Example of the built-in schema and nothing else: read detecting types, in a
    /// file learnt to hold Examples. A plain Example has only the Example's fields, so no other
    /// type explains more of it, and holds a Feature's tag (`12`, a control character), so it
    /// is not text.
    pub fn plain_example<'p>(&self, payload: &'p [u8]) -> Option<PlainExample<'p>> {
        if !(self.builtin && self.reading == Reading::Auto && self.takes_examples()) {
            return None;
        }
        PlainExample::parse(payload)
    }

    /// The kind used for empty and ambiguous payloads: the learnt one, else the named one.
    fn usual(&self) -> Option<&PayloadKind> {
        self.likely.as_ref().or(self.named.as_ref())
    }

    /// The schema table views read decoded payloads with.
    pub fn table(&self) -> &Table {
        self.schema.table()
    }

    /// Learns the file's usual kind from a sample of its payloads (the first non-empty ones).
    pub fn learn<'p>(&mut self, payloads: impl Iterator<Item = &'p [u8]>) {
        let mut counts: Vec<(PayloadKind, usize)> = Vec::new();
        let sample: Vec<&[u8]> = payloads
            .filter(|p| learns_from(p))
            .take(LEARN_PAYLOADS)
            .collect();
        self.choose_user_message(&sample);
        for (i, &payload) in sample.iter().enumerate() {
            let decoded = self.decode(payload);
            // The first record may say what the file is (TensorBoard's `file_version` event).
            let view = decoded.view(payload, self.table());
            if i == 0 && view.payload_type().names_file(&view) {
                self.named = Some(decoded.kind.clone());
            }
            let kind = decoded.kind;
            match counts.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((kind, 1)),
            }
        }
        // A type that extends another names the file as soon as one record is of it: the others
        // are records whose bytes also read as the type it extends.
        let extending = BUILTIN
            .iter()
            .find(|ty| ty.extends().is_some() && counts.iter().any(|(k, _)| k.is(**ty)));
        if let Some(ty) = extending {
            self.likely = Some(PayloadKind::Builtin(*ty));
            return;
        }
        let most = counts.into_iter().max_by_key(|(_, n)| *n).map(|(k, _)| k);
        self.likely = most.or_else(|| self.named.clone());
    }

    /// With a user schema and no message named: the one top-level message of it that explains
    /// every sampled record (no byte left to unknown fields) becomes the reading. A named
    /// message that explains none of them, or a schema none or several of whose messages do, is
    /// noted rather than silently decoded by field numbers.
    fn choose_user_message(&mut self, sample: &[&[u8]]) {
        let table = self.schema.table().clone();
        let explains = |message: MessageId, payload: &[u8]| {
            let tree = wire::walk(payload, &table, Some(message));
            decode::validate(Parsed::new(&tree, payload, &table)).is_ok()
                && detect::unexplained(&tree) == 0
        };
        let name = |m: MessageId| self.schema.message_name(m).to_string();
        let records = plural(sample.len() as u64, "sampled record");
        match self.reading {
            Reading::As(message)
                if !sample.is_empty() && !sample.iter().any(|p| explains(message, p)) =>
            {
                self.note = Some(format!(
                    "`{}` explains none of the {records}: each has fields it does not declare or is not valid as it",
                    name(message)
                ));
            }
            Reading::Auto if !self.schema.candidates().is_empty() => {
                let candidates = self.schema.candidates().to_vec();
                let fitting: Vec<MessageId> = candidates
                    .iter()
                    .copied()
                    .filter(|m| sample.iter().all(|p| explains(*m, p)))
                    .collect();
                let names = |ms: &[MessageId]| ms.iter().map(|m| name(*m)).collect::<Vec<_>>();
                match fitting.as_slice() {
                    [only] => self.reading = Reading::As(*only),
                    [] => {
                        self.note = Some(format!(
                            "no message of the given schema explains the {records} (tried {}); records are detected one by one",
                            names(&candidates).join(", ")
                        ))
                    }
                    several => {
                        self.note = Some(format!(
                            "several messages explain the {records}: {}; name the one they are",
                            names(several).join(", ")
                        ))
                    }
                }
            }
            _ => {}
        }
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
            known: &self.known,
            starting: Some(&self.starting),
        };
        match self.reading {
            Reading::Bytes | Reading::Wire => self.untyped(&walker, None),
            Reading::As(message) => {
                let tree = walker.walk(Some(message))?;
                match walker.validate(&tree) {
                    Ok(()) => Some(typed(
                        PayloadKind::Message(self.schema.message_name(message).into()),
                        tree,
                    )),
                    Err(invalid) => self.untyped(&walker, Some((invalid, tree))),
                }
            }
            Reading::Auto => self.detect(&walker),
        }
    }

    /// Asks the registered types, in order, whether they explain the payload.
    fn detect(&self, walker: &Walks<'_>) -> Option<Decoded> {
        let payload = walker.payload;
        if payload.is_empty() {
            // An empty record is an empty message of the file's type.
            let ty = match self.usual() {
                Some(PayloadKind::Builtin(ty)) => Some(*ty),
                None => Some(EXPECTED),
                Some(_) => None,
            };
            let root = ty.and_then(|ty| Some((ty, self.schema.message(ty.message()?)?)));
            return match root {
                Some((ty, message)) => {
                    Some(typed(PayloadKind::Builtin(ty), walker.walk(Some(message))?))
                }
                None => self.untyped(walker, None),
            };
        }
        if looks_like_text(payload) {
            return Some(Decoded {
                kind: PayloadKind::Text,
                ..Decoded::default()
            });
        }
        let mut probe = Probe::new(walker, self.usual());
        // The types that say they explain the payload, in the order asked.
        let mut chosen: smallvec::SmallVec<[&'static dyn PayloadType; 2]> =
            smallvec::SmallVec::new();
        for &ty in probe.candidates() {
            let says = ty.detect(&mut probe);
            if probe.cancelled() {
                return None;
            }
            if says {
                chosen.push(ty);
            }
        }
        // Types are ranked by how many of the payload's bytes they explain; of equals, the one
        // asked first (an extending type before the type it extends) is chosen. Counting them
        // looks at every node, which only a choice between types needs: a type chosen alone
        // has only to explain some byte (nearly every record of a file is so).
        let mut best: Option<(&'static dyn PayloadType, usize)> = None;
        let mut runner_up: Option<(&'static dyn PayloadType, usize)> = None;
        if let [only] = chosen[..] {
            best = probe.explains_any(only).then_some((only, 0));
        } else {
            for ty in chosen {
                let Some(explained) = probe.explained(ty) else {
                    continue;
                };
                match best {
                    Some((_, most)) if most >= explained => {
                        if runner_up.is_none_or(|(_, e)| e < explained) {
                            runner_up = Some((ty, explained));
                        }
                    }
                    _ => {
                        runner_up = best;
                        best = Some((ty, explained));
                    }
                }
            }
        }
        if let Some((ty, _)) = best {
            if let Some(tree) = ty.message().and_then(|m| probe.take_valid(m)) {
                let mut decoded = typed(PayloadKind::Builtin(ty), tree);
                let extends = |other: &dyn PayloadType| ty.extends() == Some(other.name());
                let named = self.named.as_ref().is_some_and(|k| k.is(ty));
                decoded.passed_over = match runner_up {
                    // The file says what its records are: no record of it is asked why it is
                    // no other type.
                    _ if named => None,
                    Some((other, explained)) if !extends(other) => {
                        Some(PassedOver::explains_less(other, explained, payload.len()))
                    }
                    _ if ty.name() != EXPECTED.name() && !extends(EXPECTED) => {
                        PassedOver::of(EXPECTED, &decoded.tree, walker.table)
                    }
                    _ => None,
                };
                return Some(decoded);
            }
        }
        let mismatch = probe.mismatch(EXPECTED);
        if probe.cancelled() {
            return None;
        }
        let mut decoded = self.untyped(walker, mismatch)?;
        if decoded.invalid.is_none() && decoded.kind == PayloadKind::Protobuf {
            decoded.passed_over = PassedOver::of(EXPECTED, &decoded.tree, walker.table);
        }
        Some(decoded)
    }

    fn untyped(
        &self,
        walker: &Walks<'_>,
        mismatch: Option<(Invalid, WireTree)>,
    ) -> Option<Decoded> {
        let payload = walker.payload;
        let (invalid, expected_tree) = mismatch.unzip();
        let wire = self.reading == Reading::Wire;
        // Read without a type, an empty payload is an empty message (`protoc --decode_raw`
        // prints nothing for it).
        let (kind, tree) = if payload.is_empty() && !wire {
            (PayloadKind::Empty, WireTree::default())
        } else if looks_like_text(payload) && !wire {
            (PayloadKind::Text, WireTree::default())
        } else if self.reading == Reading::Bytes {
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
            passed_over: None,
        })
    }

    /// The type payloads are expected to have, for messages about those that do not.
    pub fn expected_name(&self) -> String {
        match (&self.reading, &self.likely) {
            (Reading::As(message), _) => self.schema.message_name(*message).to_string(),
            (_, Some(PayloadKind::Builtin(ty))) => ty.expected_name().into(),
            _ => EXPECTED.expected_name().into(),
        }
    }

    /// Whether Python protobuf would accept the payload as a `tf.train.Example`.
    pub fn parses_as_example(&self, payload: &[u8]) -> bool {
        let Some(example) = self.schema.message(EXAMPLE_MESSAGE) else {
            return false;
        };
        let tree = wire::walk(payload, self.table(), Some(example));
        decode::validate(Parsed::new(&tree, payload, self.table())).is_ok()
    }
}

/// A payload of `kind` walked as its message type.
fn typed(kind: PayloadKind, tree: WireTree) -> Decoded {
    Decoded {
        kind,
        tree,
        invalid: None,
        expected_tree: None,
        passed_over: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree `show` prints for `view` as record 0 (tests of the payload types compare it).
    pub(super) fn tree_of_record_0(view: &PayloadView<'_>) -> String {
        let mut out = Vec::new();
        view.write_tree("record 0", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn decoder() -> Decoder {
        Decoder::new(Schema::builtin(), Reading::Auto)
    }

    #[test]
    fn the_types_tried_for_a_payload_are_those_its_first_tag_starts() {
        let d = decoder();
        let names = |payload: &[u8]| {
            let walks = Walks {
                payload,
                table: d.table(),
                progress: None,
                known: &d.known,
                starting: Some(&d.starting),
            };
            let probe = detect::Probe::new(&walks, None);
            probe
                .candidates()
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
        };
        let every: Vec<_> = BUILTIN.iter().map(|t| t.name()).collect();
        // Field 1, length-delimited: Example's features and SequenceExample's context.
        let with_features = names(&[0x0a, 0x00]);
        assert!(with_features.contains(&"Example"));
        assert!(with_features.contains(&"SequenceExample"));
        assert!(with_features.len() < every.len());
        // Field 15 as a varint, which no type declares, and a tag longer than a byte: every type.
        assert_eq!(names(&[0x78, 0x01]), every);
        assert_eq!(names(&[0x80, 0x01, 0x00]), every);
    }

    /// A payload of fields `(number, wire type, content)`, each written as its wire type reads.
    fn fields_payload(fields: &[(u8, u8, Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (number, wire_type, content) in fields {
            let wire_type = [0, 1, 2, 5][usize::from(*wire_type % 4)];
            out.push(number << 3 | wire_type);
            match wire_type {
                0 => out.push(content.first().map_or(0, |b| b & 0x7f)),
                1 => out.extend(content.iter().chain([0; 8].iter()).take(8)),
                5 => out.extend(content.iter().chain([0; 4].iter()).take(4)),
                _ => {
                    out.push(content.len() as u8);
                    out.extend_from_slice(content);
                }
            }
        }
        out
    }

    proptest::proptest! {
        /// Detection asks whether a type chosen alone explains any byte without counting them:
        /// the answer is the count's.
        #[test]
        fn a_type_explains_some_byte_exactly_when_its_count_is_above_zero(
            fields in proptest::collection::vec(
                (1u8..=5, 0u8..4, proptest::collection::vec(proptest::prelude::any::<u8>(), 0..6)),
                1..5,
            ),
            nested in proptest::collection::vec(
                (1u8..=3, 0u8..4, proptest::collection::vec(0u8..0x40, 0..4)),
                0..3,
            ),
        ) {
            let d = decoder();
            let inner = fields_payload(&nested);
            let mut payload = fields_payload(&fields);
            // A field holding fields, so that nested known and unknown ones are counted too.
            payload.extend(fields_payload(&[(1, 2, inner)]));
            let walks = Walks {
                payload: &payload,
                table: d.table(),
                progress: None,
                known: &d.known,
                starting: Some(&d.starting),
            };
            let mut probe = detect::Probe::new(&walks, None);
            for &ty in BUILTIN {
                let any = probe.explains_any(ty);
                proptest::prop_assert_eq!(any, probe.explained(ty).is_some(), "{}", ty.name());
            }
        }
    }

    #[test]
    fn kinds_are_detected() {
        let d = decoder();
        // features { feature { key: "a" value { int64_list { value: 1 } } } }
        let example = [
            0x0a, 0x0b, 0x0a, 0x09, 0x0a, 0x01, b'a', 0x12, 0x04, 0x1a, 0x02, 0x08, 0x01,
        ];
        assert_eq!(d.decode(&example).kind, PayloadKind::Builtin(&EXAMPLE));
        // context {} feature_lists {}
        assert_eq!(
            d.decode(&[0x0a, 0x00, 0x12, 0x00]).kind,
            PayloadKind::Builtin(&SEQUENCE_EXAMPLE)
        );
        assert_eq!(
            d.decode(b"plain ASCII text record number 7").kind,
            PayloadKind::Text
        );
        assert_eq!(d.decode(&[0x08, 0x96, 0x01]).kind, PayloadKind::Protobuf);
        assert_eq!(d.decode(&[0xff, 0xff]).kind, PayloadKind::Binary);
    }

    #[test]
    fn a_context_only_sequence_example_follows_the_file() {
        // context { feature { key: "a" value { int64_list { value: 1 } } } }: an Example's bytes.
        let context = [
            0x0a, 0x0b, 0x0a, 0x09, 0x0a, 0x01, b'a', 0x12, 0x04, 0x1a, 0x02, 0x08, 0x01,
        ];
        let mut d = decoder();
        assert_eq!(d.decode(&context).kind.name(), "Example");
        // One record with feature lists names the file: the context-only record follows it.
        d.learn([&context[..], &[0x0a, 0x00, 0x12, 0x00]].into_iter());
        assert_eq!(d.likely, Some(PayloadKind::Builtin(&SEQUENCE_EXAMPLE)));
        assert_eq!(d.decode(&context).kind.name(), "SequenceExample");
        assert_eq!(d.expected_name(), "tf.train.SequenceExample");
    }

    #[test]
    fn a_file_whose_first_record_is_a_file_version_event_holds_events() {
        // wall_time 1.0, file_version "brain.Event:2"; then wall_time 1.0, step 5.
        let mut version = vec![0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x1a, 13];
        version.extend(b"brain.Event:2");
        let step = [0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x10, 0x05];
        let mut d = decoder();
        let unnamed = d.decode(&step);
        assert_eq!(unnamed.kind, PayloadKind::Builtin(&EVENT));
        assert!(unnamed.passed_over.is_some());
        d.learn([&version[..], &step[..]].into_iter());
        assert_eq!(d.named, Some(PayloadKind::Builtin(&EVENT)));
        assert_eq!(d.decode(&step).passed_over, None);
        // A file_version past the first record names nothing.
        let mut d = decoder();
        d.learn([&step[..], &version[..]].into_iter());
        assert_eq!(d.named, None);
        assert!(d.decode(&step).passed_over.is_some());
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
        // Bytes that do not start like an Example are not reported as a broken one.
        let decoded = decoder().decode(&[0x12, 0x05, 0x0a, 0x09]);
        assert!(decoded.invalid.is_none() && decoded.expected_tree.is_none());
    }

    #[test]
    fn empty_payload_follows_the_file() {
        let mut d = decoder();
        assert_eq!(d.decode(b"").kind, PayloadKind::Builtin(&EXAMPLE));
        d.learn([&b"some text"[..], b"more text"].into_iter());
        assert_eq!(d.decode(b"").kind, PayloadKind::Empty);
    }

    #[test]
    fn bytes_reading_walks_nothing() {
        let d = Decoder::new(Schema::builtin(), Reading::Bytes);
        let decoded = d.decode(&[0x08, 0x96, 0x01]);
        assert_eq!(decoded.kind, PayloadKind::Binary);
        assert!(decoded.tree.is_empty() && decoded.structure().is_none());
    }

    #[test]
    fn wire_reading_walks_every_payload_without_a_type() {
        let d = Decoder::new(Schema::builtin(), Reading::Wire);
        let example =
            crate::crafted::example(&[("a", crate::crafted::FeatureValue::Ints(vec![1]))]);
        let decoded = d.decode(&example);
        assert_eq!(decoded.kind, PayloadKind::Protobuf, "an Example too");
        assert!(!decoded.tree.is_empty());
        // Text is walked too, and is a message when it parses (`Hi` is field 9 = 105)...
        assert_eq!(d.decode(b"Hi").kind, PayloadKind::Protobuf);
        let auto = Decoder::new(Schema::builtin(), Reading::Auto);
        assert_eq!(auto.decode(b"Hi").kind, PayloadKind::Text);
        // ... and are binary when they do not.
        assert_eq!(d.decode(b"plain text").kind, PayloadKind::Binary);
    }

    #[test]
    fn kinds_compare_by_what_they_name() {
        assert_ne!(
            PayloadKind::Builtin(&EXAMPLE),
            PayloadKind::Message("Example".into())
        );
        assert_ne!(PayloadKind::Text, PayloadKind::Binary);
        assert_eq!(
            PayloadKind::Message("tensorflow.Example".into()).name(),
            "tensorflow.Example"
        );
        assert!(PayloadKind::Builtin(&SEQUENCE_EXAMPLE).is(&SEQUENCE_EXAMPLE));
        assert!(!PayloadKind::Builtin(&SEQUENCE_EXAMPLE).is(&EXAMPLE));
    }
}
