//! Any typed message, field by field: the user's `--message` type, and what a registered type
//! shows where it does not render differently (the [`PayloadType`] defaults call these).

use std::io::{self, Write};

use super::{Declared, Names, PayloadType, PayloadView, Summary, TreeRow, Typed};
use crate::decode::{MessageView, Parsed, Value};
use crate::schema::table::MessageId;
use crate::textformat::message_to_text;
use crate::wire::ROOT;
use crate::words::plural;

/// The message type named with `--message`; its kind carries the name.
pub struct TypedMessage;

pub static TYPED_MESSAGE: TypedMessage = TypedMessage;

impl PayloadType for TypedMessage {
    /// A placeholder name: a payload of this type is named by its message
    /// ([`super::PayloadKind::name`]).
    fn declared(&self) -> &Declared {
        const DECLARED: Declared = Declared::named("message");
        &DECLARED
    }
}

/// Characters of a message's one-line text format `list` shows.
const SUMMARY_CHARS: usize = 96;

/// The message's text format on one line, shortened: `sensor: "s0" at_us: 17 temperature {…`.
pub(super) fn summary(typed: &MessageView<'_>) -> Summary {
    let text = message_to_text(typed);
    let line: Vec<&str> = text.lines().map(str::trim).collect();
    let mut line = line.join(" ");
    if let Some((cut, _)) = line.char_indices().nth(SUMMARY_CHARS) {
        line.truncate(cut);
        line.push('…');
    }
    if line.is_empty() {
        line = "no fields set".into();
    }
    Summary {
        features: None,
        names: Names::default(),
        line,
    }
}

/// The type's name, the text format indented, then a note for each top-level field the type does
/// not declare (text format leaves them out; the tree says they exist).
pub(super) fn write_tree(typed: &Typed<'_>, out: &mut dyn Write) -> io::Result<()> {
    let Typed { view, message } = typed;
    let name = view.kind().name();
    writeln!(out, "{name}")?;
    for line in message_to_text(message).lines() {
        writeln!(out, "  {line}")?;
    }
    let mut embedded = Vec::new();
    embedded_messages(message, 0, &mut embedded);
    for (field, inner_type, bytes) in embedded {
        let table = view.table;
        let type_name = table.message(inner_type).map_or("", |m| &m.full_name);
        let tree = crate::wire::walk(bytes, table, Some(inner_type));
        let parsed = crate::decode::Parsed::new(&tree, bytes, table);
        match crate::decode::validate(parsed) {
            Ok(()) => {
                writeln!(out, "  # {field} as {type_name}:")?;
                if let Some(inner) = parsed.root() {
                    for line in message_to_text(&inner).lines() {
                        writeln!(out, "    {line}")?;
                    }
                }
            }
            Err(invalid) => writeln!(out, "  # {field} is not a {type_name}: {invalid}")?,
        }
    }
    let tree = &view.decoded.tree;
    let unknown = tree
        .children(ROOT)
        .filter_map(|c| tree.node(c))
        .filter(|n| n.field().is_none());
    for node in unknown {
        let span = node.span();
        let wire_type = node.wire_type();
        writeln!(
            out,
            "  # field {} not in {name}: wire type {} ({}), {} at payload bytes {}..{}",
            node.number(),
            wire_type.code(),
            wire_type.description(),
            plural(node.data_span().len() as u64, "byte"),
            span.start,
            span.end
        )?;
    }
    Ok(())
}

/// Nested messages this deep are not searched for embedded ones.
const EMBED_DEPTH: usize = 8;
/// At most this many embedded messages are decoded per record.
const EMBED_COUNT: usize = 64;

/// The bytes values of fields declared to hold messages (`--field-type`), with the field's name
/// and the message, in field order, searching nested messages too.
fn embedded_messages<'a>(
    message: &MessageView<'a>,
    depth: usize,
    into: &mut Vec<(String, MessageId, &'a [u8])>,
) {
    if depth > EMBED_DEPTH {
        return;
    }
    for field in message.fields() {
        let info = field.info();
        for (value, _) in field.values() {
            if into.len() >= EMBED_COUNT {
                return;
            }
            match (value, info.embedded) {
                (Value::Bytes(bytes, _), Some(embedded)) => {
                    into.push((info.name.to_string(), embedded, bytes));
                }
                (Value::Message(inner), _) => embedded_messages(&inner, depth + 1, into),
                _ => {}
            }
        }
    }
}

/// The text format of the typed message, or the payload as one quoted string.
pub(super) fn write_text(view: &PayloadView<'_>, out: &mut String) {
    match view.typed() {
        Some(typed) => crate::textformat::write_message(&typed, 0, out),
        None => crate::textformat::write_bytes_text(view.payload, out),
    }
}

/// The inspector's rows for a typed message made of messages (an Example's `features`): each
/// message field it sets, by name, then the top-level fields its type does not declare, as the
/// wire holds them. `None` when `parsed` is not typed.
pub(super) fn message_rows<'a>(parsed: &Parsed<'a>) -> Option<Vec<TreeRow<'a>>> {
    let typed = parsed.root()?;
    let mut rows = Vec::new();
    for field in typed.fields() {
        if let Some(Value::Message(message)) = field.singular() {
            let label = &*field.info().name;
            rows.push(TreeRow::Message { label, message });
        }
    }
    let tree = parsed.tree;
    let unknown = tree
        .children(ROOT)
        .filter(|&child| tree.node(child).is_some_and(|n| n.field().is_none()));
    rows.extend(unknown.map(TreeRow::Wire));
    Some(rows)
}

#[cfg(test)]
mod tests {
    use crate::payload::{Decoder, PayloadKind, Reading};
    use crate::schema::Schema;

    #[test]
    fn a_message_type_shows_its_fields_and_what_it_does_not_declare() {
        let schema = Schema::builtin();
        let features = schema.message("tensorflow.Features").unwrap();
        let decoder = Decoder::new(schema, Reading::As(features));
        // feature { key: "a" } and an unknown varint field 9.
        let payload = [0x0a, 0x03, 0x0a, 0x01, b'a', 0x48, 0x01];
        let decoded = decoder.decode(&payload);
        assert_eq!(
            decoded.kind,
            PayloadKind::Message("tensorflow.Features".into())
        );
        let view = decoded.view(&payload, decoder.table());
        assert_eq!(view.summary().line, "feature { key: \"a\" value { } }");
        let tree = crate::payload::tests::tree_of_record_0(&view);
        assert_eq!(
            tree,
            "record 0  tensorflow.Features\n  feature {\n    key: \"a\"\n    value {\n    }\n  }\n  \
             # field 9 not in tensorflow.Features: wire type 0 (varint), 1 byte at payload bytes 5..7\n"
        );
        assert!(view.text().starts_with("feature {\n"));
    }
}
