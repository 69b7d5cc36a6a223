//! Where a quiz question's token sits: the message the payload is, the fields opened on the way
//! down, and the field the token belongs to, as `in tensorflow.Example > features >
//! feature["label"] > Feature.int64_list` (for a tag, whose field is the answer, only the message
//! it is in: `in tensorflow.Example > features > feature["label"] (a Feature message)`). A map entry is named by its key (a feature's name,
//! which the file chose: escaped, and cut when long), and its `value` message is folded into it.

use crate::annotate::{PayloadTokens, Site, Token};
use crate::escape;
use crate::wire::{self, NodeKind, ROOT, WireTree};

/// The most bytes of a key shown; a longer one ends in `…`.
const KEY_BYTES: usize = 48;
/// The steps shown at most; a deeper place keeps its first and last ones around `…`.
const STEPS: usize = 10;
/// The children of a map entry looked at for its key (an entry is a key and a value; a hostile
/// one with many fields is not searched through for every question inside it).
const ENTRY_CHILDREN: usize = 8;

/// `in …` for `token`, or `None` when the payload has no wire tree or the token no node.
pub fn place(payload: &PayloadTokens<'_>, token: &Token) -> Option<String> {
    let tree = payload.decoded().structure()?;
    let own = token.node()?;
    let node = tree.node(own)?;
    let table = payload.table();
    // The containers above the token's own field, root first.
    let mut chain = Vec::new();
    let mut at = if own == ROOT { None } else { node.parent() };
    while let Some(n) = at {
        chain.push(n);
        at = if n == ROOT {
            None
        } else {
            tree.node(n).and_then(wire::Node::parent)
        };
    }
    chain.reverse();
    let mut steps: Vec<String> = Vec::new();
    let mut folded = None;
    for (i, &n) in chain.iter().enumerate() {
        if Some(n) == folded {
            continue;
        }
        if n == ROOT {
            let name = tree
                .message_type(ROOT, table)
                .and_then(|m| table.message(m))
                .map_or_else(
                    || format!("payload ({})", payload.decoded().kind.name()),
                    |m| m.full_name.to_string(),
                );
            steps.push(escape::for_terminal(&name).into_owned());
            continue;
        }
        let mut step = field_name(tree, n, payload);
        let entry = tree
            .message_type(n, table)
            .and_then(|m| table.message(m))
            .is_some_and(|m| m.map_entry);
        if entry {
            step.push_str(&format!("[{}]", entry_key(tree, n, payload)));
            // The entry's value, when it is the next container down, is the entry itself.
            let next = chain.get(i + 1).copied();
            if next
                .and_then(|c| tree.node(c))
                .is_some_and(|c| c.number() == 2)
            {
                folded = next;
            }
        }
        steps.push(step);
    }
    let parent = chain.last().copied().unwrap_or(ROOT);
    let owner = tree
        .message_type(parent, table)
        .and_then(|m| table.message(m));
    let tag = matches!(token.site, Site::Tag(_) | Site::EndTag(_));
    let mut text = String::from("in ");
    if tag {
        // A tag's field is its answer: only the message it is in is said.
        text.push_str(&join(steps));
        if let Some(m) = owner.filter(|_| parent != ROOT) {
            let name = escape::for_terminal(&m.name);
            let vowel = name.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']);
            let article = if vowel { "an" } else { "a" };
            text.push_str(&format!(" ({article} {name} message)"));
        }
        return Some(text);
    }
    if own != ROOT {
        let field = field_name(tree, own, payload);
        let last = match (owner, node.field()) {
            (Some(m), Some(_)) => format!("{}.{field}", escape::for_terminal(&m.name)),
            _ => field,
        };
        steps.push(last);
    }
    text.push_str(&join(steps));
    Some(text)
}

/// The steps joined by ` > `, a deep place's middle left out.
fn join(mut steps: Vec<String>) -> String {
    if steps.len() > STEPS {
        let tail = steps.split_off(steps.len() - (STEPS - 2));
        steps.truncate(1);
        steps.push("…".into());
        steps.extend(tail);
    }
    steps.join(" > ")
}

/// A node's field by name (escaped), or `field N` without a schema for it.
fn field_name(tree: &WireTree, n: usize, payload: &PayloadTokens<'_>) -> String {
    let Some(node) = tree.node(n) else {
        return String::new();
    };
    match node.field().and_then(|f| payload.table().field(f)) {
        Some(f) => escape::for_terminal(&f.name).into_owned(),
        None => format!("field {}", node.number()),
    }
}

/// A map entry's key as it reads: a string quoted and escaped (cut after [`KEY_BYTES`]), a
/// number as it is, `""` when the entry has none (the default key).
fn entry_key(tree: &WireTree, entry: usize, payload: &PayloadTokens<'_>) -> String {
    let bytes = payload.bytes();
    let key = tree
        .children(entry)
        .take(ENTRY_CHILDREN)
        .filter_map(|c| tree.node(c).map(|node| (c, node)))
        .find(|(_, node)| node.number() == 1);
    let Some((c, node)) = key else {
        return "\"\"".into();
    };
    match node.kind() {
        NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => tree
            .scalar(c, bytes)
            .map_or_else(|| "?".into(), |v| v.to_string()),
        _ => {
            let span = node.data_span();
            let text = bytes.get(span.start..span.end).unwrap_or_default();
            let mut head = text.get(..KEY_BYTES).unwrap_or(text);
            // Cut at a character's end when the cut falls inside one.
            if let Err(e) = std::str::from_utf8(head) {
                if e.error_len().is_none() && head.len() < text.len() {
                    head = head.get(..e.valid_up_to()).unwrap_or(head);
                }
            }
            let shown = escape::bytes_for_terminal(head).replace('"', "\\\"");
            let more = if head.len() < text.len() { "…" } else { "" };
            format!("\"{shown}{more}\"")
        }
    }
}
