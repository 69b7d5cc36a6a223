//! The payloads no type explains: protobuf of an unknown type (shown by field numbers, as
//! `protoc --decode_raw` does), text, opaque bytes, and empty records.

use std::io::{self, Write};

use super::{Declared, ImageCandidates, Names, PayloadType, PayloadView, Summary};
use crate::image::describe_bytes;
use crate::span::Span;
use crate::textformat::{raw_message_to_text, write_raw_text};
use crate::wire::{NodeKind, ROOT};
use crate::words::plural;

/// Valid protobuf of a type we have no descriptor for.
pub struct Protobuf;

/// Field numbers an unknown protobuf's summary lists.
const SUMMARY_NUMBERS: usize = 8;

/// A payload shown as its bytes: text, binary or empty. No message reads it, so the
/// [`PayloadType`] defaults show what its bytes are.
pub struct Plain(Declared);

pub static PROTOBUF: Protobuf = Protobuf;
pub static TEXT: Plain = Plain(Declared::named("text"));
pub static BINARY: Plain = Plain(Declared::named("binary"));
pub static EMPTY: Plain = Plain(Declared::named("empty"));

impl PayloadType for Protobuf {
    fn declared(&self) -> &Declared {
        const DECLARED: Declared = Declared::named("protobuf");
        &DECLARED
    }

    /// `4 fields: 1, 2, 3, 4`: the top-level field numbers, in wire order, each once.
    fn summary(&self, view: &PayloadView<'_>) -> Summary {
        let Some(tree) = view.decoded.structure() else {
            return bytes_summary(view);
        };
        let mut numbers: Vec<u32> = Vec::new();
        let mut count = 0u64;
        for node in tree.children(ROOT).filter_map(|c| tree.node(c)) {
            count += 1;
            if !numbers.contains(&node.number()) && numbers.len() <= SUMMARY_NUMBERS {
                numbers.push(node.number());
            }
        }
        let more = if numbers.len() > SUMMARY_NUMBERS {
            numbers.truncate(SUMMARY_NUMBERS);
            ", …"
        } else {
            ""
        };
        let numbers: Vec<String> = numbers.iter().map(u32::to_string).collect();
        Summary {
            features: None,
            names: Names::default(),
            line: format!("{}: {}{more}", plural(count, "field"), numbers.join(", ")),
        }
    }

    fn write_tree(&self, view: &PayloadView<'_>, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "protobuf of unknown type (field numbers only)")?;
        for line in raw_message_to_text(view.parsed()).lines() {
            writeln!(out, "  {line}")?;
        }
        Ok(())
    }

    fn write_text(&self, view: &PayloadView<'_>, out: &mut String) {
        write_raw_text(view.parsed(), out)
    }
}

impl PayloadType for Plain {
    fn declared(&self) -> &Declared {
        &self.0
    }
}

/// What the payload's bytes are, in a few words.
pub(super) fn bytes_summary(view: &PayloadView<'_>) -> Summary {
    Summary {
        features: None,
        names: Names::default(),
        line: describe_bytes(view.payload, false),
    }
}

/// The kind and what its bytes are, on one line.
pub(super) fn write_plain(view: &PayloadView<'_>, out: &mut dyn Write) -> io::Result<()> {
    let what = describe_bytes(view.payload, false);
    writeln!(out, "{}: {what}", view.kind().name())
}

/// The bytes values among the payload's first `budget` top-level fields, in wire order; the whole
/// payload when it is shown as bytes.
pub(super) fn image_candidates(view: &PayloadView<'_>, budget: usize) -> ImageCandidates {
    let values = match view.decoded.structure() {
        Some(tree) => tree
            .children(ROOT)
            .take(budget)
            .filter_map(|c| tree.node(c))
            .filter(|n| n.kind() == NodeKind::Bytes)
            .map(|n| n.data_span())
            .collect(),
        None if !view.payload.is_empty() && budget > 0 => vec![Span::new(0, view.payload.len())],
        None => Vec::new(),
    };
    ImageCandidates {
        shape: None,
        values,
    }
}
