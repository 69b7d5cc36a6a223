//! One side of a comparison, gathered in one pass over its wire tree: every value as a leaf under
//! its field path, what each path holds on this side, and the varints written longer than they
//! need to be.
//!
//! A path is the chain of field numbers from the payload down to a value, with a map entry's key
//! in place of its position: `features.feature["label"].int64_list.value`. Paths are interned
//! (one id per parent and step), so a path costs one entry however deep it is, and both sides
//! share the ids: the same id on both sides is the same field.

use std::collections::HashMap;

use crate::annotate::PayloadTokens;
use crate::explain::number::varint_bytes;
use crate::schema::table::{Cardinality, FieldId, Kind, Table};
use crate::span::Span;
use crate::wire::{self, NodeKind, ROOT, WireTree};

/// Leaves gathered per side at most: a packed run of millions of numbers is aligned up to here
/// (more rows than anyone reads side by side), and the comparison says where it stopped.
pub const MAX_LEAVES: usize = 1 << 16;

/// Columns of a map key shown in a path; a longer key is cut with an ellipsis, so that a path
/// stays short however long the keys the input chose.
const KEY_COLUMNS: usize = 40;

/// Varints written longer than needed that are listed per side (the rest are counted).
const LISTED_LONG: usize = 4;

/// One step of a path: a field number, and for a map entry its key (the key's bytes for a
/// string key, its decimal number otherwise).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Step {
    pub parent: u32,
    pub number: u32,
    pub key: Option<Box<[u8]>>,
}

/// A path as the table of the side that first met it names it.
#[derive(Debug, Clone)]
pub(super) struct PathInfo {
    pub step: Step,
    /// The field's name, when the schema knows it.
    pub name: Option<crate::schema::table::Name>,
    /// The schema's field, on the side that first met it.
    pub cardinality: Option<Cardinality>,
    pub kind: Option<Kind>,
}

/// Every path either side has, interned.
#[derive(Debug, Default)]
pub(super) struct Paths {
    pub infos: Vec<PathInfo>,
    ids: HashMap<Step, u32>,
}

impl Paths {
    /// The root path (the payload itself) is id 0.
    pub fn new() -> Paths {
        let mut paths = Paths::default();
        paths.infos.push(PathInfo {
            step: Step {
                parent: 0,
                number: 0,
                key: None,
            },
            name: None,
            cardinality: None,
            kind: None,
        });
        paths
    }

    fn intern(&mut self, step: Step, field: Option<&crate::schema::table::Field>) -> u32 {
        if let Some(&id) = self.ids.get(&step) {
            return id;
        }
        let id = u32::try_from(self.infos.len()).unwrap_or(u32::MAX);
        self.infos.push(PathInfo {
            step: step.clone(),
            name: field.map(|f| f.name.clone()),
            cardinality: field.map(|f| f.cardinality),
            kind: field.map(|f| f.kind),
        });
        self.ids.insert(step, id);
        id
    }

    /// The path as text: field names where known, numbers elsewhere, map keys quoted and
    /// escaped for a terminal.
    pub fn text(&self, id: u32) -> String {
        let mut steps = Vec::new();
        let mut at = id;
        while at != 0 {
            let Some(info) = self.infos.get(at as usize) else {
                break;
            };
            steps.push(info);
            at = info.step.parent;
        }
        let mut out = String::new();
        for info in steps.iter().rev() {
            // A map entry's step is written `[key]` after its map's name.
            if !out.is_empty() {
                out.push('.');
            }
            match &info.name {
                Some(name) => out.push_str(&crate::escape::for_terminal(name)),
                None => out.push_str(&info.step.number.to_string()),
            }
            if let Some(key) = &info.step.key {
                out.push('[');
                let key = crate::escape::bytes_for_terminal(key);
                out.push_str(&crate::words::clip(&key, KEY_COLUMNS));
                out.push(']');
            }
        }
        if out.is_empty() {
            out.push_str("(payload)");
        }
        out
    }

    pub fn parent(&self, id: u32) -> u32 {
        self.infos.get(id as usize).map_or(0, |i| i.step.parent)
    }
}

/// What a leaf holds, to compare across the sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Held {
    /// A varint or fixed-width number, raw.
    Number(u64),
    /// String or bytes data (its payload span).
    Data(Span),
}

/// One value: a scalar field, one number of a packed run, or string/bytes data.
#[derive(Debug, Clone, Copy)]
pub(super) struct Leaf {
    /// The wire node it belongs to.
    pub node: u32,
    /// The value's bytes in the payload.
    pub span: Span,
    pub held: Held,
    /// One number of a packed run.
    pub packed: bool,
}

/// What one path holds on one side.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PathStats {
    /// Field occurrences (tags) of this path.
    pub occurrences: u32,
    /// Of those, packed runs.
    pub packed_runs: u32,
    /// Of those, messages, groups or data parsed as a message.
    pub containers: u32,
    /// Whether the schema does not know the field (on a side walked with a type).
    pub unknown: bool,
}

/// A varint written in more bytes than its value needs.
#[derive(Debug, Clone)]
pub struct LongVarint {
    pub path: String,
    /// What it is: `tag`, `length` or `value`.
    pub what: &'static str,
    /// Its payload position.
    pub at: usize,
    pub bytes: Vec<u8>,
    pub value: u64,
}

/// One side, gathered.
#[derive(Debug, Default)]
pub(super) struct Gathered {
    pub leaves: Vec<Leaf>,
    /// Leaves by path id, in wire order.
    pub by_path: Vec<Vec<u32>>,
    pub stats: Vec<PathStats>,
    /// Each container path's child paths, in the order this side first sends them.
    pub child_order: Vec<Vec<u32>>,
    pub long_varints: Vec<LongVarint>,
    pub long_count: u64,
    /// Leaves left out past [`MAX_LEAVES`].
    pub truncated: bool,
}

impl Gathered {
    fn grow(&mut self, paths: usize) {
        if self.stats.len() < paths {
            self.stats.resize(paths, PathStats::default());
            self.by_path.resize(paths, Vec::new());
            self.child_order.resize(paths, Vec::new());
        }
    }

    pub fn stats(&self, path: u32) -> PathStats {
        self.stats.get(path as usize).copied().unwrap_or_default()
    }

    pub fn leaves_of(&self, path: u32) -> &[u32] {
        self.by_path.get(path as usize).map_or(&[], Vec::as_slice)
    }
}

/// Gathers `side`'s leaves under `paths`, interning the paths it is the first to meet.
pub(super) fn gather(side: &PayloadTokens<'_>, paths: &mut Paths) -> Gathered {
    let mut gathered = Gathered::default();
    let Some(tree) = side.decoded().structure() else {
        return gathered;
    };
    let mut walk = Walk {
        tree,
        bytes: side.bytes(),
        table: side.table(),
        typed: tree.root_type().is_some(),
        paths,
        out: &mut gathered,
        seen: Vec::new(),
    };
    walk.container(ROOT, 0);
    let len = walk.paths.infos.len();
    gathered.grow(len);
    gathered
}

struct Walk<'a, 'p> {
    tree: &'a WireTree,
    bytes: &'a [u8],
    table: &'a Table,
    typed: bool,
    paths: &'p mut Paths,
    out: &'p mut Gathered,
    /// Paths this side has sent already (for the order each container first sends them in).
    seen: Vec<bool>,
}

impl<'a> Walk<'a, '_> {
    fn field(&self, node: &wire::Node) -> Option<(FieldId, &'a crate::schema::table::Field)> {
        let id = node.field()?;
        let table: &'a Table = self.table;
        Some((id, table.field(id)?))
    }

    /// The key of map entry `entry`, as its step names it.
    fn map_key(&self, entry: usize) -> Option<Box<[u8]>> {
        let key = self
            .tree
            .children(entry)
            .filter(|&c| self.tree.node(c).is_some_and(|n| n.number() == 1))
            .last()?;
        let node = self.tree.node(key)?;
        match node.kind() {
            NodeKind::Bytes => Some(node.data_span().slice(self.bytes)?.into()),
            NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                let raw = self.tree.scalar(key, self.bytes)?;
                Some(raw.to_string().into_bytes().into())
            }
            _ => None,
        }
    }

    fn container(&mut self, container: usize, path: u32) {
        let children: Vec<usize> = self.tree.children(container).collect();
        for child in children {
            let Some(node) = self.tree.node(child).copied() else {
                continue;
            };
            let field = self.field(&node);
            let is_map = field.is_some_and(|(_, f)| f.cardinality == Cardinality::Map);
            let key = if is_map { self.map_key(child) } else { None };
            let step = Step {
                parent: path,
                number: node.number(),
                key,
            };
            let id = self.paths.intern(step, field.map(|(_, f)| f));
            self.out.grow(self.paths.infos.len());
            if self.seen.len() < self.paths.infos.len() {
                self.seen.resize(self.paths.infos.len(), false);
            }
            if let Some(seen) = self.seen.get_mut(id as usize).filter(|s| !**s) {
                *seen = true;
                if let Some(order) = self.out.child_order.get_mut(path as usize) {
                    order.push(id);
                }
            }
            self.check_varint(node.tag_span(), "tag", id);
            if let Some(prefix) = node.prefix_span() {
                self.check_varint(prefix, "length", id);
            }
            if let Some(stats) = self.out.stats.get_mut(id as usize) {
                stats.occurrences = stats.occurrences.saturating_add(1);
                stats.unknown |= self.typed && field.is_none();
            }
            match node.kind() {
                NodeKind::Message | NodeKind::Guessed | NodeKind::Group => {
                    if let Some(stats) = self.out.stats.get_mut(id as usize) {
                        stats.containers = stats.containers.saturating_add(1);
                    }
                    self.container(child, id);
                }
                NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                    let span = node.data_span();
                    if node.kind() == NodeKind::Varint {
                        self.check_varint(span, "value", id);
                    }
                    let raw = self.tree.scalar(child, self.bytes).unwrap_or_default();
                    self.leaf(id, child, span, Held::Number(raw), false);
                }
                NodeKind::Bytes => {
                    let span = node.data_span();
                    self.leaf(id, child, span, Held::Data(span), false);
                }
                NodeKind::Packed => {
                    if let Some(stats) = self.out.stats.get_mut(id as usize) {
                        stats.packed_runs = stats.packed_runs.saturating_add(1);
                    }
                    let kind = field.map_or(Kind::Uint64, |(_, f)| f.kind);
                    let varints = kind.fixed_width().is_none();
                    for (span, raw) in self.tree.elements(child, self.bytes, kind) {
                        if varints {
                            self.check_varint(span, "value", id);
                        }
                        self.leaf(id, child, span, Held::Number(raw), true);
                    }
                }
            }
        }
    }

    fn leaf(&mut self, path: u32, node: usize, span: Span, held: Held, packed: bool) {
        if self.out.leaves.len() >= MAX_LEAVES {
            self.out.truncated = true;
            return;
        }
        let index = u32::try_from(self.out.leaves.len()).unwrap_or(u32::MAX);
        self.out.leaves.push(Leaf {
            node: u32::try_from(node).unwrap_or(u32::MAX),
            span,
            held,
            packed,
        });
        if let Some(list) = self.out.by_path.get_mut(path as usize) {
            list.push(index);
        }
    }

    /// Notes the varint at `span` when it is longer than its value needs.
    fn check_varint(&mut self, span: Span, what: &'static str, path: u32) {
        let Some(bytes) = span.slice(self.bytes) else {
            return;
        };
        let Ok((value, end)) = wire::read_varint(self.bytes, span.start, span.end) else {
            return;
        };
        if end != span.end || varint_bytes(value).len() >= bytes.len() {
            return;
        }
        self.out.long_count = self.out.long_count.saturating_add(1);
        if self.out.long_varints.len() < LISTED_LONG {
            self.out.long_varints.push(LongVarint {
                path: self.paths.text(path),
                what,
                at: span.start,
                bytes: bytes.to_vec(),
                value,
            });
        }
    }
}
