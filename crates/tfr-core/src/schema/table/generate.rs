//! A table as Rust source: how the built-in table is compiled into the binary.
//!
//! Every process that decodes takes the built-in table, so taking it is part of every start.
//! Written as statics, it is ready when the process is: no bytes are read, nothing is allocated,
//! and what numbering derives from the fields (each message's tag slots and JSON order, the index
//! by name) is written out as numbering derived it. A test checks the committed source against
//! numbering the committed descriptor set now, and rewrites it when asked.
//!
//! The source is compiled into the crate whose tests write it: after a change to the table's
//! types that it no longer fits, replace it with an empty table first, then rewrite it:
//!
//! ```text
//! static BUILTIN: Table = Table { messages: Cow::Borrowed(&[]), fields: Cow::Borrowed(&[]),
//!     enums: Cow::Borrowed(&[]), packed: Cow::Borrowed(&[]), by_name: Cow::Borrowed(&[]),
//!     bytes_as: Vec::new(), feature_types: Vec::new() };
//! ```

use std::fmt::Write;

use super::{Enum, Field, Message, Slot, Table};

/// The first lines of the committed source.
const HEADER: &str = "\
// The built-in schema's table: `schema/builtin.binpb` numbered by `Table::new`. Written by
// `TFR_WRITE_BUILTIN_SET=1 cargo test -p tfr-core the_committed_built_in`; not to be edited.
// Included by `schema/table.rs`, whose helpers (`field`, `slot`, `message`, `enumeration`) each
// build one entry. If the table's types change so that this no longer compiles, see
// `schema/table/generate.rs`.
";

/// `table` as the source of a `static BUILTIN: Table` (what the user's flags add is not kept).
pub(super) fn rust_source(table: &Table) -> String {
    let mut out = String::from(HEADER);
    // One entry a line, as written: a formatter would split them, and the test compares text.
    out.push_str("#[rustfmt::skip]\n");
    out.push_str("static BUILTIN: Table = Table {\n    messages: Cow::Borrowed(&[\n");
    for m in table.messages.iter() {
        message(&mut out, m);
    }
    out.push_str("    ]),\n    fields: Cow::Borrowed(&[\n");
    for f in table.fields.iter() {
        field(&mut out, f);
    }
    out.push_str("    ]),\n    enums: Cow::Borrowed(&[\n");
    for e in table.enums.iter() {
        enumeration(&mut out, e);
    }
    out.push_str("    ]),\n    packed: Cow::Borrowed(&[\n");
    for chunk in table.packed.chunks(16) {
        let flags: Vec<&str> = chunk
            .iter()
            .map(|p| if *p { "true" } else { "false" })
            .collect();
        let _ = writeln!(out, "        {},", flags.join(", "));
    }
    out.push_str("    ]),\n    by_name: Cow::Borrowed(&[\n");
    for (name, id) in table.by_name.iter() {
        let _ = writeln!(
            out,
            "        (Cow::Borrowed({name:?}), MessageId({})),",
            id.0
        );
    }
    out.push_str("    ]),\n    bytes_as: Vec::new(),\n    feature_types: Vec::new(),\n};\n");
    out
}

/// One bit for each flag that is set, `flags` listing each flag's value and bit.
fn bits(flags: &[(bool, u8)]) -> u8 {
    flags
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |bits, (_, bit)| bits | bit)
}

fn message(out: &mut String, m: &Message) {
    let slots: Vec<String> = m.slots.iter().map(slot).collect();
    let order: Vec<String> = m.json_order.iter().map(u32::to_string).collect();
    let flags = bits(&[
        (m.json_follows_numbers, super::JSON_FOLLOWS_NUMBERS),
        (m.map_entry, super::MAP_ENTRY),
        (m.proto3, super::PROTO3),
    ]);
    let _ = writeln!(
        out,
        "        message([{:?}, {:?}], {}, {}, &[{}], &[{}], {flags}),",
        m.full_name,
        m.name,
        m.first,
        m.count,
        slots.join(", "),
        order.join(", "),
    );
}

fn slot(slot: &Option<Slot>) -> String {
    match slot {
        None => "None".to_string(),
        Some(s) => {
            let flags = bits(&[
                (s.reading.packable, super::PACKABLE),
                (s.reading.utf8, super::UTF8),
            ]);
            format!(
                "slot({}, {}, Kind::{:?}, {flags})",
                s.field.0, s.accepts, s.reading.kind
            )
        }
    }
}

fn field(out: &mut String, f: &Field) {
    let flags = bits(&[(f.packable, super::PACKABLE), (f.utf8, super::UTF8)]);
    let names = [&f.name, &f.text_name, &f.json_name, &f.json_member];
    let _ = writeln!(
        out,
        "        field({}, {names:?}, Kind::{:?}, Cardinality::{:?}, {flags}, {:?}, {:?}),",
        f.number, f.kind, f.cardinality, f.oneof, f.embedded,
    );
}

fn enumeration(out: &mut String, e: &Enum) {
    let values: Vec<String> = (e.values.iter())
        .map(|(number, name)| format!("({number}, Cow::Borrowed({name:?}))"))
        .collect();
    let _ = writeln!(
        out,
        "        enumeration([{:?}, {:?}], {}, &[{}]),",
        e.full_name,
        e.name,
        e.closed,
        values.join(", ")
    );
}
