//! Finding records by what they hold as decoded: a needle's bytes inside a string or bytes value
//! (feature names are map keys, so they are strings too), or, when the needle reads as a number, a
//! number equal to it however the wire stores it (a varint, a zigzag varint, a fixed-width or
//! packed value, a float).
//!
//! Records are read with the one wire walk and typed layer every view uses: integers are compared
//! exactly as the typed layer reads them (`int32`, `sint64`, enum numbers…), and floats as the
//! value the tree prints. The needle is parsed once to the `f32` and the `f64` nearest it; a value
//! whose bits differ cannot print as the needle, and the rare value whose bits agree is printed
//! (shortest round-trip digits, as the tree and `show` print it) and compared digit for digit, so
//! `0.1` finds the float32 nearest 0.1 but `0.10000000149` does not, and `16777217` does not find
//! the float 16777216.
//!
//! [`search_frames`] runs a search over a file's frames on every core, in waves of chunks so that
//! hits come back in file order with memory bounded by [`HIT_CAP`], and stops as soon as asked.

use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use memchr::memmem;
use rayon::prelude::*;

use crate::decode::{MessageView, Scalar, Value};
use crate::frame::FrameIndex;
use crate::payload::{BUILTIN, Decoded, Decoder, PayloadKind, PayloadType};
use crate::schema::table::{Cardinality, MessageId, Table};
use crate::span::Span;
use crate::wire::{NodeKind, WireTree};
use encodings::Encodings;
use number::Number;

mod encodings;
mod number;

/// Payloads larger than this are not decoded by a search: any occurrence of the needle's bytes
/// in them counts, and their numbers are not looked at.
pub const DECODE_LIMIT: usize = 16 << 20;

/// Records a search remembers; past this many it says "at least".
pub const HIT_CAP: usize = 1_000_000;

/// Frames one task of a parallel search looks at before reporting progress.
const CHUNK: usize = 2048;
/// Chunks searched in parallel before their hits are handed on in order.
const WAVE_CHUNKS: usize = 64;

/// What to look for: the text as typed, and the number it reads as, if any.
pub struct Needle {
    finder: memmem::Finder<'static>,
    number: Option<Number>,
    /// The bytes the number may lie in, when it is one.
    encodings: Option<Encodings>,
}

impl std::fmt::Debug for Needle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Needle")
            .field("text", &String::from_utf8_lossy(self.text()))
            .field("number", &self.number)
            .finish()
    }
}

impl Needle {
    pub fn new(text: &str) -> Needle {
        let number = Number::parse(text);
        Needle {
            finder: memmem::Finder::new(text.as_bytes()).into_owned(),
            encodings: number.as_ref().map(Encodings::of),
            number,
        }
    }

    pub fn text(&self) -> &[u8] {
        self.finder.needle()
    }

    /// Whether numbers equal to the needle are looked for as well as its bytes.
    pub fn is_number(&self) -> bool {
        self.number.is_some()
    }

    fn find(&self, bytes: &[u8]) -> Option<usize> {
        if self.text().is_empty() {
            return None;
        }
        self.finder.find(bytes)
    }
}

/// Where the first hit lies in the payload, or (`any`) only whether there is one.
struct Best {
    span: Option<Span>,
    any: bool,
}

impl Best {
    fn offer(&mut self, span: Span) -> ControlFlow<()> {
        if self.span.is_none_or(|best| span.start < best.start) {
            self.span = Some(span);
        }
        if self.any {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// The first hit of `needle` in a decoded payload (payload positions): its bytes inside a string
/// or bytes value, or a number equal to it.
pub fn first_hit(
    needle: &Needle,
    payload: &[u8],
    decoded: &Decoded,
    table: &Table,
) -> Option<Span> {
    let mut best = Best {
        span: None,
        any: false,
    };
    let _ = hits(
        needle,
        payload,
        decoded,
        table,
        &mut best,
        &hiding_types(table),
    );
    best.span
}

/// Whether `payload` holds a hit of `needle`, decoding it with `decoder` only when its bytes
/// could hold one.
pub fn payload_matches(needle: &Needle, payload: &[u8], decoder: &Decoder) -> bool {
    matches_with(needle, payload, decoder, &hiding_types(decoder.table()))
}

fn matches_with(needle: &Needle, payload: &[u8], decoder: &Decoder, hiding: &[Hiding]) -> bool {
    let found = needle.find(payload).is_some();
    let may_hold_number = || {
        needle
            .encodings
            .as_ref()
            .is_some_and(|e| e.may_hold(payload))
    };
    if !found && !may_hold_number() {
        return false;
    }
    if payload.len() > DECODE_LIMIT {
        return found;
    }
    let decoded = decoder.decode(payload);
    let mut best = Best {
        span: None,
        any: true,
    };
    let _ = hits(
        needle,
        payload,
        &decoded,
        decoder.table(),
        &mut best,
        hiding,
    );
    best.span.is_some()
}

/// [`first_hit`] for a payload not yet decoded (large ones are not: their first occurrence of
/// the needle's bytes is the hit).
pub fn record_hit(needle: &Needle, payload: &[u8], decoder: &Decoder) -> Option<Span> {
    if payload.len() > DECODE_LIMIT {
        let at = needle.find(payload)?;
        return Some(Span::new(at, at + needle.text().len()));
    }
    first_hit(needle, payload, &decoder.decode(payload), decoder.table())
}

fn hits(
    needle: &Needle,
    payload: &[u8],
    decoded: &Decoded,
    table: &Table,
    best: &mut Best,
    hiding: &[Hiding],
) -> ControlFlow<()> {
    text_hits(needle, payload, decoded, best)?;
    let Some(number) = &needle.number else {
        return ControlFlow::Continue(());
    };
    let mut scratch = String::new();
    match decoded.typed(payload, table) {
        Some(root) => {
            // Every value the typed layer reads is a wire value read as its field's type (merge
            // rules only drop some), so a payload none of whose wire values matches is passed
            // over without building its views, unless it holds numbers beyond its fields (a
            // tensor's content).
            let mut any = Best {
                span: None,
                any: true,
            };
            let _ = wire_hits(
                number,
                &decoded.tree,
                payload,
                table,
                &mut any,
                &mut scratch,
            );
            if any.span.is_none() && !holds(&decoded.tree, table, hiding) {
                return ControlFlow::Continue(());
            }
            message_hits(number, &root, best, &mut scratch, hiding)
        }
        None => match decoded.structure() {
            Some(tree) => wire_hits(number, tree, payload, table, best, &mut scratch),
            None => ControlFlow::Continue(()),
        },
    }
}

/// The first occurrence of the needle's bytes that starts inside string or bytes data (what the
/// hex pane marks as data); a text payload is all data.
fn text_hits(
    needle: &Needle,
    payload: &[u8],
    decoded: &Decoded,
    best: &mut Best,
) -> ControlFlow<()> {
    let len = needle.text().len();
    if len == 0 {
        return ControlFlow::Continue(());
    }
    let Some(tree) = decoded.structure() else {
        if decoded.kind == PayloadKind::Text {
            if let Some(at) = needle.find(payload) {
                return best.offer(Span::new(at, at + len));
            }
        }
        return ControlFlow::Continue(());
    };
    for at in needle.finder.find_iter(payload) {
        let in_data = tree
            .node_at(at)
            .and_then(|n| tree.node(n))
            .is_some_and(|n| n.kind() == NodeKind::Bytes && n.data_span().contains(at));
        if in_data {
            // Occurrences come in order: the first in data is the earliest.
            return best.offer(Span::new(at, at + len));
        }
    }
    ControlFlow::Continue(())
}

/// Numbers of a typed message, read as the tree reads them (merged, last value wins).
fn message_hits(
    number: &Number,
    message: &MessageView<'_>,
    best: &mut Best,
    scratch: &mut String,
    hiding: &[Hiding],
) -> ControlFlow<()> {
    for field in message.fields() {
        let mut visit = |value: Value<'_>, span: Span| match value {
            Value::Scalar(scalar) if number.matches(&scalar, scratch) => best.offer(span),
            Value::Message(inner) => message_hits(number, &inner, best, scratch, hiding),
            Value::Scalar(_) | Value::String(..) | Value::Bytes(..) => ControlFlow::Continue(()),
        };
        match field.info().cardinality {
            Cardinality::Repeated | Cardinality::Map => {
                for (value, span) in field.values() {
                    visit(value, span)?;
                }
            }
            _ => {
                if let Some(value) = field.singular() {
                    visit(value, field.singular_span())?;
                }
            }
        }
    }
    // The numbers its type holds beyond its fields, for a message of a type that has them.
    if let Some((_, ty)) = hiding.iter().find(|(id, _)| *id == message.id()) {
        ty.hidden_numbers(message, &mut |scalar, span| {
            if number.matches(&scalar, scratch) {
                best.offer(span)
            } else {
                ControlFlow::Continue(())
            }
        })?;
    }
    ControlFlow::Continue(())
}

/// A message type whose registered payload type holds numbers beyond its fields' values (see
/// [`PayloadType::hides_numbers`]), by its id in the schema searched.
type Hiding = (MessageId, &'static dyn PayloadType);

/// Whether a typed walk holds a message of a type in `hiding`.
fn holds(tree: &WireTree, table: &Table, hiding: &[Hiding]) -> bool {
    !hiding.is_empty()
        && (0..tree.len()).any(|i| {
            tree.message_type(i, table)
                .is_some_and(|t| hiding.iter().any(|(id, _)| *id == t))
        })
}

/// The schema's messages whose types hold numbers beyond their fields (a TensorProto), looked up
/// once per search rather than per record.
fn hiding_types(table: &Table) -> Vec<Hiding> {
    BUILTIN
        .iter()
        .filter(|ty| ty.hides_numbers())
        .filter_map(|ty| Some((table.message_by_name(ty.message()?)?, *ty)))
        .collect()
}

/// Numbers of a payload walked without its type (or as the type it failed to be), as the tree's
/// wire rows show them: fields the schema knows read as their type, unknown varints as unsigned.
fn wire_hits(
    number: &Number,
    tree: &WireTree,
    payload: &[u8],
    table: &Table,
    best: &mut Best,
    scratch: &mut String,
) -> ControlFlow<()> {
    for i in 0..tree.len() {
        let Some(node) = tree.node(i) else {
            continue;
        };
        let kind = node.field().and_then(|f| table.field(f)).map(|f| f.kind);
        match node.kind() {
            NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                let Some(raw) = tree.scalar(i, payload) else {
                    continue;
                };
                let hit = match kind.and_then(|k| Scalar::from_raw(k, raw, table)) {
                    Some(scalar) => number.matches(&scalar, scratch),
                    None => node.kind() == NodeKind::Varint && number.int == Some(raw.into()),
                };
                if hit {
                    best.offer(node.data_span())?;
                }
            }
            NodeKind::Packed => {
                let Some(kind) = kind else {
                    continue;
                };
                for (span, raw) in tree.elements(i, payload, kind) {
                    let hit = Scalar::from_raw(kind, raw, table)
                        .is_some_and(|scalar| number.matches(&scalar, scratch));
                    if hit {
                        best.offer(span)?;
                    }
                }
            }
            _ => {}
        }
    }
    ControlFlow::Continue(())
}

/// Lets the thread that started a search follow it and stop it.
#[derive(Debug, Default)]
pub struct SearchProgress {
    /// Frames looked at so far.
    pub examined: AtomicU64,
    /// Set to make the search stop (it does within one chunk of frames per core).
    pub cancel: AtomicBool,
}

/// How a search over frames ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finished {
    /// Every frame was looked at.
    Done,
    /// [`HIT_CAP`] records were found; the rest of the file was not looked at.
    Capped,
    Cancelled,
}

/// Looks for `needle` in the payloads of frames `records` of `index`, on every core, handing
/// the indices of the frames that hold a hit to `found` in file order, a wave at a time, with
/// the frame number the search has covered up to.
pub fn search_frames<S: crate::bytes::ByteSource + ?Sized>(
    data: &S,
    index: &FrameIndex,
    records: Range<usize>,
    decoder: &Decoder,
    needle: &Needle,
    progress: &SearchProgress,
    mut found: impl FnMut(Vec<u64>, usize),
) -> Finished {
    let end = records.end.min(index.len());
    let mut total = 0usize;
    let mut at = records.start;
    let wave = CHUNK * WAVE_CHUNKS;
    while at < end {
        let stop = at.saturating_add(wave).min(end);
        let chunks: Vec<Range<usize>> = (at..stop)
            .step_by(CHUNK)
            .map(|s| s..s.saturating_add(CHUNK).min(stop))
            .collect();
        let results: Vec<Option<Vec<u64>>> = chunks
            .into_par_iter()
            .map(|chunk| search_chunk(data, index, chunk, decoder, needle, progress))
            .collect();
        let mut hits = Vec::new();
        for chunk in results {
            let Some(chunk) = chunk else {
                return Finished::Cancelled;
            };
            hits.extend(chunk);
        }
        let room = HIT_CAP - total;
        let capped = hits.len() >= room && stop < end || hits.len() > room;
        hits.truncate(room);
        total += hits.len();
        found(hits, stop);
        if capped {
            return Finished::Capped;
        }
        at = stop;
    }
    Finished::Done
}

/// The frames of `chunk` that hold a hit; `None` when the search was cancelled meanwhile.
fn search_chunk<S: crate::bytes::ByteSource + ?Sized>(
    data: &S,
    index: &FrameIndex,
    chunk: Range<usize>,
    decoder: &Decoder,
    needle: &Needle,
    progress: &SearchProgress,
) -> Option<Vec<u64>> {
    let mut hits = Vec::new();
    let len = chunk.len() as u64;
    let hiding = hiding_types(decoder.table());
    for i in chunk {
        if progress.cancel.load(Ordering::Relaxed) {
            return None;
        }
        let Some(payload) = index.get(data, i).and_then(|f| f.payload(data)) else {
            continue;
        };
        if matches_with(needle, payload, decoder, &hiding) {
            hits.push(i as u64);
        }
    }
    progress.examined.fetch_add(len, Ordering::Relaxed);
    Some(hits)
}

#[cfg(test)]
mod tests;
