//! Any typed message, field by field: the user's `--message` type, and what a registered type
//! shows where it does not render differently (the [`PayloadType`] defaults call these).

use std::io::{self, Write};

use super::{PayloadType, PayloadView, Summary, fallback};
use crate::textformat::{bytes_to_text, message_to_text};
use crate::wire::ROOT;
use crate::words::plural;

/// The message type named with `--message`; its kind carries the name.
pub struct TypedMessage;

pub static TYPED_MESSAGE: TypedMessage = TypedMessage;

impl PayloadType for TypedMessage {
    /// A placeholder: a payload of this type is named by its message ([`super::PayloadKind::name`]).
    fn name(&self) -> &'static str {
        "message"
    }
}

/// `3 fields set`.
pub(super) fn summary(view: &PayloadView<'_>) -> Summary {
    match view.typed() {
        Some(typed) => Summary {
            features: None,
            line: format!("{} set", plural(typed.fields().len() as u64, "field")),
        },
        None => fallback::bytes_summary(view),
    }
}

/// The heading and the type's name, the text format indented, then a note for each top-level
/// field the type does not declare (text format leaves them out; the tree says they exist).
pub(super) fn write_tree(
    view: &PayloadView<'_>,
    heading: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Some(typed) = view.typed() else {
        return fallback::write_plain(view, heading, out);
    };
    let name = view.kind().name();
    writeln!(out, "{heading}  {name}")?;
    for line in message_to_text(&typed).lines() {
        writeln!(out, "  {line}")?;
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

/// The text format of the typed message, or the payload as one quoted string.
pub(super) fn text(view: &PayloadView<'_>) -> String {
    match view.typed() {
        Some(typed) => message_to_text(&typed),
        None => bytes_to_text(view.payload),
    }
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
        assert_eq!(view.summary().line, "1 field set");
        let mut out = Vec::new();
        view.write_tree("record 0", &mut out).unwrap();
        let tree = String::from_utf8(out).unwrap();
        assert_eq!(
            tree,
            "record 0  tensorflow.Features\n  feature {\n    key: \"a\"\n    value {\n    }\n  }\n  \
             # field 9 not in tensorflow.Features: wire type 0 (varint), 1 byte at payload bytes 5..7\n"
        );
        assert!(view.text().starts_with("feature {\n"));
    }
}
