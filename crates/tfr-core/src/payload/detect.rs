//! What detection knows about one payload: its walks as the messages the registered types ask
//! about, each made once and shared, so that two types built on the same message (a
//! SequenceExample looks at the Example walk first) cost one walk.

use super::{BUILTIN, PayloadKind, PayloadType};
use crate::decode::{self, Invalid, Parsed};
use crate::schema::table::{MessageId, Table};
use crate::wire::{self, Progress, WireTree, WireType};
use std::sync::OnceLock;

/// The walks of one payload, all reporting to the same progress.
pub(super) struct Walks<'a> {
    pub(super) payload: &'a [u8],
    pub(super) table: &'a Table,
    pub(super) progress: Option<&'a Progress>,
    /// The registered types' messages, resolved once per decoder: detection names them for
    /// every record, and a scan of a few short names is cheaper than hashing them each time.
    pub(super) known: &'a [(&'static str, MessageId)],
    /// By the payload's first byte, when it is a one-byte tag: the types that start like it
    /// ([`starting_types`]), worked out once per decoder instead of for every record; `None`
    /// walks every payload as each registered type.
    pub(super) starting: Option<&'a Starting>,
}

/// For each one-byte tag (`0x00` to `0x7f`), the types whose message declares the tag's field
/// with its wire type: the types a payload starting with that byte is walked as. A tag's types
/// are worked out when a payload first starts with it, once per decoder: a process that decodes
/// one record works out one tag, not all 128.
#[derive(Clone)]
pub(super) struct Starting(std::sync::Arc<StartingTypes>);

struct StartingTypes {
    /// The registered types ([`BUILTIN`]) the schema has the message of, with that message.
    messages: Box<[(&'static dyn PayloadType, MessageId)]>,
    by_tag: [OnceLock<Box<[&'static dyn PayloadType]>>; 0x80],
}

impl std::fmt::Debug for Starting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Starting").finish_non_exhaustive()
    }
}

impl Starting {
    /// The types a payload starting with `tag` is walked as (`None` past one-byte tags), in
    /// `table`, the schema's table the list was made for.
    pub(super) fn types(&self, tag: u8, table: &Table) -> Option<&[&'static dyn PayloadType]> {
        let types = self.0.by_tag.get(usize::from(tag))?;
        Some(types.get_or_init(|| {
            (self.0.messages.iter())
                .filter(|(_, m)| tag_starts(table, *m, tag))
                .map(|(ty, _)| *ty)
                .collect()
        }))
    }
}

/// [`Starting`] for the registered types ([`BUILTIN`], which [`Probe::candidates`] falls back
/// to) in the schema `table`.
pub(super) fn starting_types(table: &Table) -> Starting {
    // Each type's message looked up once, not once for each tag.
    let messages = (BUILTIN.iter())
        .filter_map(|ty| Some((*ty, table.message_by_name(ty.message()?)?)))
        .collect();
    Starting(std::sync::Arc::new(StartingTypes {
        messages,
        by_tag: std::array::from_fn(|_| OnceLock::new()),
    }))
}

/// Whether `tag` is the one-byte tag of a field `message` declares, with a wire type the field
/// is read with.
pub(super) fn tag_starts(table: &Table, message: MessageId, tag: u8) -> bool {
    let Some(wire_type) = WireType::from_bits(u64::from(tag & 7)).filter(|_| tag < 0x80) else {
        return false;
    };
    table
        .field_by_number(message, u32::from(tag >> 3))
        .and_then(|f| table.field(f))
        .is_some_and(|f| f.accepts(wire_type))
}

impl Walks<'_> {
    /// The message called `name`.
    pub(super) fn message(&self, name: &str) -> Option<MessageId> {
        // The types name their messages with the same constants the list was made from, so the
        // pointers usually settle it before the text is compared.
        let same = |known: &str| std::ptr::eq(known, name) || known == name;
        match self.known.iter().find(|(known, _)| same(known)) {
            Some((_, id)) => Some(*id),
            None => self.table.message_by_name(name),
        }
    }

    /// The walk as `root` (schema-less without one); `None` when it was cancelled.
    pub(super) fn walk(&self, root: Option<MessageId>) -> Option<WireTree> {
        wire::walk_observed(self.payload, self.table, root, self.progress)
    }

    pub(super) fn validate(&self, tree: &WireTree) -> Result<(), Invalid> {
        decode::validate(Parsed::new(tree, self.payload, self.table))
    }
}

/// One walk as a message, with protobuf's verdict on it.
struct Walk {
    message: MessageId,
    tree: WireTree,
    verdict: Result<(), Invalid>,
}

/// A payload under detection: the types ask it for walks.
pub struct Probe<'a> {
    walks: &'a Walks<'a>,
    likely: Option<&'a PayloadKind>,
    /// Usually one walk or two, held inline: a probe is made for every record.
    made: smallvec::SmallVec<[Walk; 2]>,
    cancelled: bool,
}

impl<'a> Probe<'a> {
    pub(super) fn new(walks: &'a Walks<'a>, likely: Option<&'a PayloadKind>) -> Probe<'a> {
        Probe {
            walks,
            likely,
            made: smallvec::SmallVec::new(),
            cancelled: false,
        }
    }

    /// The payload's bytes.
    pub fn payload(&self) -> &'a [u8] {
        self.walks.payload
    }

    /// The kind most records of the file have, once learnt.
    pub fn likely(&self) -> Option<&'a PayloadKind> {
        self.likely
    }

    /// The payload walked as message `name` (a full name), when protobuf would accept it as
    /// one; `None` when it would not, when the schema has no such message, or when decoding was
    /// cancelled.
    pub fn valid_walk(&mut self, name: &str) -> Option<&WireTree> {
        let message = self.walks.message(name)?;
        let walk = self.walk(message)?;
        walk.verdict.is_ok().then_some(&walk.tree)
    }

    fn walk(&mut self, message: MessageId) -> Option<&Walk> {
        let at = match self.made.iter().position(|w| w.message == message) {
            Some(at) => at,
            None => {
                let Some(tree) = self.walks.walk(Some(message)) else {
                    self.cancelled = true;
                    return None;
                };
                let verdict = self.walks.validate(&tree);
                self.made.push(Walk {
                    message,
                    tree,
                    verdict,
                });
                self.made.len() - 1
            }
        };
        self.made.get(at)
    }

    /// Whether a walk was cancelled: detection gives up.
    pub(super) fn cancelled(&self) -> bool {
        self.cancelled
    }

    /// Takes the walk as message `name` out, when it is valid.
    pub(super) fn take_valid(&mut self, name: &str) -> Option<WireTree> {
        self.valid_walk(name)?;
        let message = self.walks.message(name)?;
        let at = self.made.iter().position(|w| w.message == message)?;
        Some(self.made.swap_remove(at).tree)
    }

    /// Why the payload is not of type `ty`, with the walk up to where it broke: only for a
    /// payload that starts like one (its first byte is the tag of a field the type's message
    /// declares), so that bytes of another kind are not reported as a broken one.
    pub(super) fn mismatch(&mut self, ty: &dyn PayloadType) -> Option<(Invalid, WireTree)> {
        let message = self.walks.message(ty.message()?)?;
        if !self.starts_like(message) {
            return None;
        }
        self.walk(message)?.verdict.as_ref().err()?;
        let at = self.made.iter().position(|w| w.message == message)?;
        let walk = self.made.swap_remove(at);
        walk.verdict.err().map(|invalid| (invalid, walk.tree))
    }

    /// Whether the payload's first byte is a one-byte tag of a field `message` declares, with a
    /// wire type the field is read with.
    fn starts_like(&self, message: MessageId) -> bool {
        self.payload()
            .first()
            .is_some_and(|&tag| tag_starts(self.walks.table, message, tag))
    }
}

impl<'a> Probe<'a> {
    /// The types worth walking the payload as: those whose message declares the payload's first
    /// field with its wire type (writers emit fields in number order, so a payload of a type
    /// starts with one of its fields); every type when none does.
    pub(super) fn candidates(&self) -> &'a [&'static dyn PayloadType] {
        let walks: &'a Walks<'a> = self.walks;
        let starting = self
            .payload()
            .first()
            .zip(walks.starting)
            .and_then(|(&tag, starting)| starting.types(tag, walks.table));
        match starting {
            Some(types) if !types.is_empty() => types,
            _ => BUILTIN,
        }
    }

    /// Whether type `ty` explains any of the payload's bytes ([`Probe::explained`] is `Some`),
    /// found without counting them: the top-level fields of a valid walk cover the payload, and
    /// a field the type's message declares explains at least its tag, while one it does not
    /// declare explains nothing of itself.
    pub(super) fn explains_any(&mut self, ty: &dyn PayloadType) -> bool {
        let Some(message) = ty.message().and_then(|name| self.walks.message(name)) else {
            return false;
        };
        let Some(walk) = self.walk(message) else {
            return false;
        };
        let tree = &walk.tree;
        walk.verdict.is_ok()
            && tree
                .children(wire::ROOT)
                .any(|c| tree.node(c).and_then(wire::Node::field).is_some())
    }

    /// How many of the payload's bytes type `ty` explains: all but those inside fields its
    /// messages do not declare. `None` when it has no valid walk, and `Some(0)` is never
    /// returned for a payload with a field: a type that explains no byte is no candidate.
    pub(super) fn explained(&mut self, ty: &dyn PayloadType) -> Option<usize> {
        let walk = self.walk(self.walks.message(ty.message()?)?)?;
        walk.verdict.as_ref().ok()?;
        let unknown = unexplained(&walk.tree);
        let explained = self.payload().len().saturating_sub(unknown);
        (explained > 0).then_some(explained)
    }
}

/// A type detection did not choose, and why: shown beside the chosen type so that a reader
/// knows why a file of tensors is not called Examples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    /// The type's name (`Example`).
    pub name: &'static str,
    /// Why (`all fields unknown to Example`).
    pub reason: String,
}

impl PassedOver {
    /// `ty` explained `explained` of `total` bytes, fewer than the chosen type.
    pub(super) fn explains_less(
        ty: &dyn PayloadType,
        explained: usize,
        total: usize,
    ) -> PassedOver {
        PassedOver {
            name: ty.name(),
            reason: format!("{} explains {explained} of {total} bytes", ty.name()),
        }
    }

    /// Why `ty` does not fit the payload `tree` holds, judged from its top-level fields: all of
    /// them, or some, are fields `ty`'s message does not declare with their wire type. `None`
    /// when every field is one it declares.
    pub(super) fn of(ty: &dyn PayloadType, tree: &WireTree, table: &Table) -> Option<PassedOver> {
        let message = table.message_by_name(ty.message()?)?;
        let mut unknown: Vec<u32> = Vec::new();
        let (mut total, mut undeclared) = (0, 0);
        for node in tree.children(wire::ROOT).filter_map(|c| tree.node(c)) {
            total += 1;
            let declared = table
                .field_by_number(message, node.number())
                .and_then(|f| table.field(f))
                .is_some_and(|f| f.accepts(node.wire_type()));
            if !declared {
                undeclared += 1;
                if !unknown.contains(&node.number()) {
                    unknown.push(node.number());
                }
            }
        }
        let name = ty.name();
        let reason = if unknown.is_empty() || total == 0 {
            return None;
        } else if undeclared == total {
            format!("all fields unknown to {name}")
        } else {
            let numbers: Vec<String> = unknown.iter().map(u32::to_string).collect();
            let noun = if unknown.len() == 1 {
                "field"
            } else {
                "fields"
            };
            format!("{noun} {} unknown to {name}", numbers.join(", "))
        };
        Some(PassedOver { name, reason })
    }
}

impl std::fmt::Display for PassedOver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not {}: {}", self.name, self.reason)
    }
}

/// How many bytes of a walk lie inside fields their message does not declare (counted once, at
/// the outermost unknown field).
pub(super) fn unexplained(tree: &WireTree) -> usize {
    (wire::ROOT + 1..tree.len())
        .filter_map(|i| tree.node(i))
        .filter(|node| node.field().is_none())
        .filter(|node| {
            node.parent().is_none_or(|p| {
                p == wire::ROOT || tree.node(p).is_some_and(|p| p.field().is_some())
            })
        })
        .map(|node| node.span().len())
        .sum()
}
