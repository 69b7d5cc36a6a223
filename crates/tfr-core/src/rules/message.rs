//! The notes a whole message decides: which occurrence of a singular field wins, which
//! occurrences of a message merge (and into what), which oneof member survives, which map entry a
//! repeated key keeps. Found by one pass over the typed views, each message merged as parsers
//! merge it, so that a scalar repeated across two occurrences of its parent is caught too.

use std::collections::HashMap;

use super::{DEPTH, Fate, Note, Rule, is_singular, occurrences};
use crate::decode::{MessageView, Parsed};
use crate::explain::Radix;
use crate::schema::table::{Cardinality, Field, FieldId, Kind};
use crate::textformat::message_to_text;
use crate::wire::{self, NodeKind};

/// At most this many characters of a merged message are quoted in a note.
const QUOTED: usize = 160;

/// Notes found so far, by node.
pub(super) struct Found<'a> {
    parsed: Parsed<'a>,
    radix: Radix,
    notes: Vec<(u32, Note)>,
}

impl<'a> Found<'a> {
    pub(super) fn new(parsed: Parsed<'a>, radix: Radix) -> Found<'a> {
        Found {
            parsed,
            radix,
            notes: Vec::new(),
        }
    }

    pub(super) fn into_notes(mut self) -> Vec<(u32, Note)> {
        self.notes.sort_by_key(|(n, _)| *n);
        self.notes
    }

    fn note(&mut self, node: u32, rule: Rule, text: String, fate: Fate) {
        self.notes.push((node, Note { rule, text, fate }));
    }

    /// Where node `n`'s tag is, as notes write it.
    fn at(&self, n: u32) -> String {
        let pos = self.parsed.node(n).map_or(0, wire::Node::start);
        format!("payload {}", self.radix.num(pos as u64))
    }

    /// Notes on `message` and every message inside it.
    pub(super) fn visit(&mut self, message: &MessageView<'a>, depth: usize) {
        if depth > DEPTH {
            return;
        }
        let table = self.parsed.table;
        let fields = occurrences(message);
        // Members of a oneof set alongside another member are noted as the oneof rule says.
        let mut oneofs: Vec<u32> = fields
            .iter()
            .filter_map(|(id, _)| table.field(*id)?.oneof)
            .collect();
        oneofs.sort_unstable();
        let contested =
            |o: Option<u32>| o.is_some_and(|o| oneofs.iter().filter(|x| **x == o).count() > 1);
        for (id, nodes) in &fields {
            let Some(info) = table.field(*id) else {
                continue;
            };
            let contested = contested(info.oneof);
            match (info.kind.message(), info.cardinality) {
                (Some(_), Cardinality::Map) => self.map(info, *id, nodes, depth),
                (Some(m), Cardinality::Repeated) => {
                    for node in nodes {
                        self.enter(m, &[*node], depth);
                    }
                }
                (Some(m), _) => {
                    if nodes.len() > 1 && !contested {
                        self.merged(info, m, nodes);
                    }
                    self.enter(m, nodes, depth);
                }
                (None, _) if is_singular(info) && nodes.len() > 1 && !contested => {
                    self.last_wins(info, nodes)
                }
                _ => {}
            }
        }
        self.oneofs(&fields);
    }

    /// Visits message type `m` made of the containers `nodes` (those the walk read as messages).
    fn enter(&mut self, m: crate::schema::table::MessageId, nodes: &[u32], depth: usize) {
        let parts: Vec<u32> = nodes
            .iter()
            .copied()
            .filter(|n| {
                self.parsed
                    .node(*n)
                    .is_some_and(|node| matches!(node.kind(), NodeKind::Message | NodeKind::Group))
            })
            .collect();
        if !parts.is_empty() {
            let view = MessageView::new(self.parsed, m, &parts);
            self.visit(&view, depth + 1);
        }
    }

    /// A singular scalar sent more than once: the last value a parser keeps wins.
    fn last_wins(&mut self, info: &Field, nodes: &[u32]) {
        let winner = nodes.iter().rev().copied().find(|n| self.kept(info, *n));
        let Some(winner) = winner else {
            return;
        };
        let before = nodes.iter().filter(|n| **n < winner).count();
        let kept = format!(
            "`{}` was set {} before (first at {}): the last value wins, and this is it",
            info.name,
            times(before),
            self.at(nodes.first().copied().unwrap_or(winner)),
        );
        let dropped = format!(
            "`{}` is set again at {}: the last value wins, so parsers drop this one",
            info.name,
            self.at(winner)
        );
        self.note_last_wins(nodes, winner, Rule::LastWins, [kept, dropped]);
    }

    /// Notes each of `nodes` under `rule`: `winner`, whose value parsers keep, with the first
    /// of `texts`, and every other, whose value they drop, with the second.
    fn note_last_wins(&mut self, nodes: &[u32], winner: u32, rule: Rule, texts: [String; 2]) {
        let [kept, dropped] = texts;
        for &node in nodes {
            if node == winner {
                self.note(node, rule, kept.clone(), Fate::Kept);
            } else {
                self.note(node, rule, dropped.clone(), Fate::Dropped);
            }
        }
    }

    /// Whether a parser keeps node `n`'s value (a closed enum drops numbers it does not define).
    fn kept(&self, info: &Field, n: u32) -> bool {
        let Kind::Enum(e) = info.kind else {
            return true;
        };
        let raw = self.parsed.tree.scalar(n as usize, self.parsed.bytes);
        let en = self.parsed.table.enum_type(e);
        match (raw, en) {
            (Some(raw), Some(en)) => en.keeps(raw as u32 as i32),
            _ => true,
        }
    }

    /// A singular message sent more than once: parsers merge the occurrences.
    fn merged(&mut self, info: &Field, m: crate::schema::table::MessageId, nodes: &[u32]) {
        let view = MessageView::new(self.parsed, m, nodes);
        let text = message_to_text(&view);
        // Text format quotes the record's strings: escaped like every other name a file chose.
        let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut merged = crate::escape::for_terminal(&one_line).into_owned();
        if merged.chars().count() > QUOTED {
            merged = merged.chars().take(QUOTED).collect::<String>() + " …";
        }
        if merged.is_empty() {
            merged = "(empty)".into();
        }
        let total = nodes.len();
        for (i, node) in nodes.iter().enumerate() {
            let text = format!(
                "`{}` occurs {total} times: parsers merge them into one {} (this is occurrence {} of {total}); \
                 merged: {merged}",
                info.name,
                view.type_name(),
                i + 1,
            );
            self.note(*node, Rule::MessagesMerge, text, Fate::Merged);
        }
    }

    /// Members of one oneof: the member set last survives, and setting another cleared it.
    fn oneofs(&mut self, fields: &[(FieldId, Vec<u32>)]) {
        let table = self.parsed.table;
        let mut by_oneof: HashMap<u32, Vec<(&Field, &[u32])>> = HashMap::new();
        for (id, nodes) in fields {
            if let Some(info) = table.field(*id) {
                if let Some(o) = info.oneof {
                    by_oneof.entry(o).or_default().push((info, nodes));
                }
            }
        }
        for members in by_oneof.values() {
            if members.len() < 2 {
                continue;
            }
            let last = |nodes: &[u32]| nodes.last().copied().unwrap_or(0);
            let Some(&(survivor, survivor_nodes)) =
                members.iter().max_by_key(|(_, nodes)| last(nodes))
            else {
                continue;
            };
            let names: Vec<String> = members
                .iter()
                .map(|(f, _)| format!("`{}`", f.name))
                .collect();
            let names = names.join(", ");
            // The last setting of another member: what cleared the survivor's earlier settings.
            let cut = members
                .iter()
                .filter(|(f, _)| f.number != survivor.number)
                .map(|(f, nodes)| (last(nodes), *f))
                .max_by_key(|(n, _)| *n);
            for (member, nodes) in members {
                for node in nodes.iter() {
                    let text = if member.number != survivor.number {
                        Some(format!(
                            "{names} are one oneof: `{}` is replaced by `{}` set at {}; parsers keep only \
                             the member set last",
                            member.name,
                            survivor.name,
                            self.at(last(survivor_nodes))
                        ))
                    } else {
                        cut.filter(|(c, _)| node < c).map(|(c, other)| {
                            format!(
                                "{names} are one oneof: this `{}` is cleared when `{}` is set at {}; only a \
                                 `{}` set after that stays",
                                member.name,
                                other.name,
                                self.at(c),
                                member.name
                            )
                        })
                    };
                    if let Some(text) = text {
                        self.note(*node, Rule::OneofReplaced, text, Fate::Cleared);
                    }
                }
            }
        }
    }

    /// A map's entries: a key sent again keeps the last entry; each value is visited.
    fn map(&mut self, info: &Field, id: FieldId, entries: &[u32], depth: usize) {
        let table = self.parsed.table;
        let Some((key, value)) = table.map_fields(id) else {
            return;
        };
        let mut seen: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
        for entry in entries {
            seen.entry(self.key_of(*entry, key))
                .or_default()
                .push(*entry);
            if let Some(m) = table.field(value).and_then(|f| f.kind.message()) {
                let values: Vec<u32> = self
                    .parsed
                    .tree
                    .children(*entry as usize)
                    .filter(|c| {
                        self.parsed.node(*c as u32).and_then(wire::Node::field) == Some(value)
                    })
                    .map(|c| c as u32)
                    .collect();
                if !values.is_empty() {
                    self.enter(m, &values, depth + 1);
                }
            }
        }
        let mut repeated: Vec<&Vec<u32>> = seen.values().filter(|v| v.len() > 1).collect();
        repeated.sort();
        for nodes in repeated {
            let Some(&winner) = nodes.last() else {
                continue;
            };
            let kept = format!(
                "this key of `{}` was sent {} before: the last entry wins, and this is it",
                info.name,
                times(nodes.len() - 1)
            );
            let dropped = format!(
                "this key of `{}` is sent again at {}: the last entry wins, so parsers drop this one",
                info.name,
                self.at(winner)
            );
            self.note_last_wins(nodes, winner, Rule::MapKeyRepeated, [kept, dropped]);
        }
    }

    /// What tells an entry's key apart: its data, or its number for a numeric key.
    fn key_of(&self, entry: u32, key: FieldId) -> Vec<u8> {
        let parsed = self.parsed;
        let last = parsed
            .tree
            .children(entry as usize)
            .filter(|c| parsed.node(*c as u32).and_then(wire::Node::field) == Some(key))
            .last();
        let Some(node) = last.and_then(|c| parsed.node(c as u32).map(|n| (c, n))) else {
            return Vec::new();
        };
        match node.1.kind() {
            NodeKind::Bytes => parsed.slice(node.1.data_span()).to_vec(),
            _ => parsed
                .tree
                .scalar(node.0, parsed.bytes)
                .unwrap_or_default()
                .to_le_bytes()
                .to_vec(),
        }
    }
}

fn times(n: usize) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}
