//! Two encodings side by side: what differs on the wire, and whether parsers see the same
//! message.
//!
//! Both payloads are read through the one wire tree their annotations come from. Every value
//! (a scalar field, one number of a packed run, string or bytes data) becomes a leaf under its
//! field path (`collect`), and the n-th value of a path on one side is set beside the n-th of
//! the same path on the other: values line up by what they are, not by where their bytes are, so
//! a field sent first on one side and last on the other still faces itself. The work is one pass
//! over each tree and one over the paths (linear in the two payloads, however they are built).
//!
//! The verdicts name each kind of wire difference with what parsers make of it; whether the two
//! are the same message is then decided by parsing both (`same`), not from the verdicts.

mod collect;
mod same;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use prost_reflect::DescriptorPool;

use crate::annotate::PayloadTokens;
use crate::explain::number::{hex_bytes, varint_bytes};
use crate::schema::table::{Cardinality, Kind};
use crate::words::plural;

pub use collect::{LongVarint, MAX_LEAVES};
pub use same::{Check, Same, Sameness};

use collect::{Gathered, Held, Leaf, Paths};

/// How a row's two values relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// The same bytes, sent the same way.
    Same,
    /// The same value, encoded differently (a longer varint, packed on one side only).
    SameValue,
    /// Different values.
    Differs,
    OnlyA,
    OnlyB,
}

impl Mark {
    /// The one-character mark printed at the start of a row.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Same => "=",
            Mark::SameValue => "~",
            Mark::Differs => "≠",
            Mark::OnlyA => "<",
            Mark::OnlyB => ">",
        }
    }
}

/// One value of one side: its node and its bytes' payload position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub node: usize,
    /// The value's first byte in the payload, and just past its last.
    pub start: usize,
    pub end: usize,
    /// One number of a packed run.
    pub packed: bool,
}

/// One aligned row: the n-th value of a path on each side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Shared by the rows of one path.
    pub path: std::sync::Arc<str>,
    /// Which value of the path this is (0-based).
    pub ordinal: usize,
    pub a: Option<Cell>,
    pub b: Option<Cell>,
    pub mark: Mark,
}

/// One difference on the wire and what parsers make of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub kind: VerdictKind,
    pub text: String,
}

/// The kinds of difference the comparison names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictKind {
    FieldOrder,
    MapOrder,
    PackedUnpacked,
    PackedSplit,
    MessagePieces,
    LastWins,
    LongVarint,
    DifferentValue,
    OnlyOne,
    /// Leaves past [`MAX_LEAVES`] were not aligned.
    Truncated,
}

/// The comparison of two payloads.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub rows: Vec<Row>,
    pub verdicts: Vec<Verdict>,
    pub sameness: Sameness,
}

/// Differing rows and one-sided paths listed in a verdict before the rest are only counted.
const LISTED: usize = 3;

/// Compares payload `a` with payload `b`; `pool` holds the type both may have been read as.
pub fn compare(a: &PayloadTokens<'_>, b: &PayloadTokens<'_>, pool: &DescriptorPool) -> Comparison {
    let mut paths = Paths::new();
    let ga = collect::gather(a, &mut paths);
    let gb = collect::gather(b, &mut paths);
    let (rows, row_paths) = align(&paths, &ga, &gb, a.bytes(), b.bytes());
    let mut verdicts = Vec::new();
    let sides = Sides {
        paths: &paths,
        a: &ga,
        b: &gb,
        bytes: (a.bytes(), b.bytes()),
        shadowed: shadowed(&paths, &ga, &gb),
    };
    sides.order(&mut verdicts);
    sides.forms(&mut verdicts);
    sides.long_varints(&mut verdicts);
    let rows_compared = rows
        .iter()
        .zip(&row_paths)
        .filter(|(_, p)| !sides.is_shadowed(**p))
        .map(|(r, _)| r);
    differing(rows_compared, &mut verdicts);
    if ga.truncated || gb.truncated {
        verdicts.push(Verdict {
            kind: VerdictKind::Truncated,
            text: format!(
                "values past the first {MAX_LEAVES} of a side were not set side by side (the verdict below still parses all of both)"
            ),
        });
    }
    Comparison {
        rows,
        verdicts,
        sameness: same::sameness(a, b, pool),
    }
}

fn cell(leaf: &Leaf) -> Cell {
    Cell {
        node: leaf.node as usize,
        start: leaf.span.start,
        end: leaf.span.end,
        packed: leaf.packed,
    }
}

fn held<'a>(leaf: &Leaf, bytes: &'a [u8]) -> (Option<u64>, &'a [u8]) {
    match leaf.held {
        Held::Number(n) => (Some(n), &[]),
        Held::Data(span) => (None, span.slice(bytes).unwrap_or_default()),
    }
}

/// Rows for every path (in the order A first sends them, then those only B sends), the n-th
/// value of each side beside each other.
fn align(paths: &Paths, a: &Gathered, b: &Gathered, ab: &[u8], bb: &[u8]) -> (Vec<Row>, Vec<u32>) {
    let mut rows = Vec::new();
    let mut row_paths = Vec::new();
    for id in 0..paths.infos.len() {
        let id = u32::try_from(id).unwrap_or(u32::MAX);
        let (la, lb) = (a.leaves_of(id), b.leaves_of(id));
        if la.is_empty() && lb.is_empty() {
            continue;
        }
        let text: std::sync::Arc<str> = paths.text(id).into();
        // A singular scalar keeps its last occurrence: the last of each side face each other.
        let last_wins = paths.infos.get(id as usize).is_some_and(|i| {
            matches!(
                i.cardinality,
                Some(Cardinality::Implicit | Cardinality::Explicit)
            ) && !matches!(i.kind, Some(Kind::Message(_) | Kind::Group(_)))
        });
        let n = la.len().max(lb.len());
        let at = |list: &[u32], ordinal: usize| {
            let skip = if last_wins { n - list.len() } else { 0 };
            ordinal.checked_sub(skip).and_then(|k| list.get(k).copied())
        };
        for ordinal in 0..n {
            let x = at(la, ordinal).and_then(|i| a.leaves.get(i as usize));
            let y = at(lb, ordinal).and_then(|i| b.leaves.get(i as usize));
            let mark = match (x, y) {
                (Some(x), Some(y)) => {
                    let (vx, vy) = (held(x, ab), held(y, bb));
                    let same_bytes = x.span.slice(ab) == y.span.slice(bb);
                    if vx != vy {
                        Mark::Differs
                    } else if same_bytes && x.packed == y.packed {
                        Mark::Same
                    } else {
                        Mark::SameValue
                    }
                }
                (Some(_), None) => Mark::OnlyA,
                _ => Mark::OnlyB,
            };
            row_paths.push(id);
            rows.push(Row {
                path: text.clone(),
                ordinal,
                a: x.map(cell),
                b: y.map(cell),
                mark,
            });
        }
    }
    (rows, row_paths)
}

struct Sides<'s> {
    paths: &'s Paths,
    a: &'s Gathered,
    b: &'s Gathered,
    bytes: (&'s [u8], &'s [u8]),
    /// By path id: whether the path lies under a map entry whose key comes more than once on a
    /// side. Only the last such entry counts, whole, so what lies under it is not compared
    /// value by value (the entry's own verdict says why).
    shadowed: Vec<bool>,
}

/// [`Sides::shadowed`]: a parent is interned before its children, so one pass in id order
/// settles every path.
fn shadowed(paths: &Paths, a: &Gathered, b: &Gathered) -> Vec<bool> {
    let mut out = vec![false; paths.infos.len()];
    for id in 1..paths.infos.len() {
        let id32 = u32::try_from(id).unwrap_or(u32::MAX);
        let parent = paths.parent(id32) as usize;
        let parent_repeats = parent != 0
            && paths
                .infos
                .get(parent)
                .is_some_and(|i| i.step.key.is_some())
            && {
                let p = u32::try_from(parent).unwrap_or(u32::MAX);
                a.stats(p).containers > 1 || b.stats(p).containers > 1
            };
        let above = out.get(parent).copied().unwrap_or(false);
        if let Some(slot) = out.get_mut(id) {
            *slot = above || parent_repeats;
        }
    }
    out
}

impl Sides<'_> {
    fn is_shadowed(&self, id: u32) -> bool {
        self.shadowed.get(id as usize).copied().unwrap_or(false)
    }

    /// Containers whose fields (or map entries) arrive in another order on each side.
    fn order(&self, out: &mut Vec<Verdict>) {
        let none: &[u32] = &[];
        for id in 0..self.paths.infos.len() {
            if self.is_shadowed(u32::try_from(id).unwrap_or(u32::MAX)) {
                continue;
            }
            let oa = self.a.child_order.get(id).map_or(none, Vec::as_slice);
            let ob = self.b.child_order.get(id).map_or(none, Vec::as_slice);
            // Only the paths both sides send: one sent by one side alone is said apart.
            let in_b: std::collections::HashSet<u32> = ob.iter().copied().collect();
            let in_a: std::collections::HashSet<u32> = oa.iter().copied().collect();
            let ca: Vec<u32> = oa.iter().copied().filter(|p| in_b.contains(p)).collect();
            let cb: Vec<u32> = ob.iter().copied().filter(|p| in_a.contains(p)).collect();
            let Some((&x, &y)) = ca.iter().zip(&cb).find(|(x, y)| x != y) else {
                continue;
            };
            let info = |p: u32| self.paths.infos.get(p as usize);
            let is_entry = |p: u32| info(p).is_some_and(|i| i.step.key.is_some());
            let container = self.paths.text(u32::try_from(id).unwrap_or(0));
            if is_entry(x) && is_entry(y) {
                out.push(Verdict {
                    kind: VerdictKind::MapOrder,
                    text: format!(
                        "map entries in another order in {container}: A sends {} before {}, B the other way; a map has no order, so parsers build the same map",
                        self.paths.text(x),
                        self.paths.text(y)
                    ),
                });
            } else {
                out.push(Verdict {
                    kind: VerdictKind::FieldOrder,
                    text: format!(
                        "fields in another order in {container}: A sends {} first where B sends {}; parsers place a field by its number, not its position (same message)",
                        self.paths.text(x),
                        self.paths.text(y)
                    ),
                });
            }
        }
    }

    /// Packed and unpacked runs, split runs, messages in pieces, and repeated singular fields.
    fn forms(&self, out: &mut Vec<Verdict>) {
        // One-sided paths named so far (counted here: scanning `out` for them on every path would
        // cost paths times verdicts).
        let mut one_sided = 0;
        for id in 0..self.paths.infos.len() {
            let Some(info) = self.paths.infos.get(id) else {
                continue;
            };
            let id = u32::try_from(id).unwrap_or(u32::MAX);
            if self.is_shadowed(id) {
                continue;
            }
            let (sa, sb) = (self.a.stats(id), self.b.stats(id));
            if sa.occurrences == 0 || sb.occurrences == 0 {
                if sa.occurrences + sb.occurrences > 0 {
                    self.one_sided(id, sa.occurrences > 0, &mut one_sided, out);
                }
                continue;
            }
            let path = self.paths.text(id);
            let (ua, ub) = (
                sa.occurrences
                    .saturating_sub(sa.packed_runs)
                    .saturating_sub(sa.containers),
                sb.occurrences
                    .saturating_sub(sb.packed_runs)
                    .saturating_sub(sb.containers),
            );
            let values = |side: &Gathered| plural(side.leaves_of(id).len() as u64, "value");
            if (sa.packed_runs > 0 && ub > 0) || (sb.packed_runs > 0 && ua > 0) {
                let form = |runs: u32, single: u32, values: String| match (runs, single) {
                    (0, _) => format!("one field per value ({values})"),
                    (_, 0) => format!("packed ({}, {values})", plural(u64::from(runs), "run")),
                    _ => format!(
                        "both ({} and {single} single fields, {values})",
                        plural(u64::from(runs), "packed run")
                    ),
                };
                out.push(Verdict {
                    kind: VerdictKind::PackedUnpacked,
                    text: format!(
                        "{path}: A sends it {}, B {}; parsers accept either form of a repeated number field and keep the values in order (same values)",
                        form(sa.packed_runs, ua, values(self.a)),
                        form(sb.packed_runs, ub, values(self.b)),
                    ),
                });
            } else if sa.packed_runs > 0 && sb.packed_runs > 0 && sa.packed_runs != sb.packed_runs {
                out.push(Verdict {
                    kind: VerdictKind::PackedSplit,
                    text: format!(
                        "{path}: a packed run split in pieces: A sends {}, B {}; parsers append each run's numbers to the field (same values)",
                        plural(u64::from(sa.packed_runs), "run"),
                        plural(u64::from(sb.packed_runs), "run"),
                    ),
                });
            }
            let singular = matches!(
                info.cardinality,
                Some(Cardinality::Implicit | Cardinality::Explicit)
            );
            let message = matches!(info.kind, Some(Kind::Message(_) | Kind::Group(_)));
            let is_entry = info.step.key.is_some();
            if sa.containers != sb.containers && sa.containers > 0 && sb.containers > 0 {
                let text = if is_entry {
                    let entries = |n: u32| match n {
                        1 => "1 entry".to_string(),
                        n => format!("{n} entries"),
                    };
                    format!(
                        "{path}: the map key comes in {} in A and {} in B; parsers keep the last entry of a key, whole",
                        entries(sa.containers),
                        entries(sb.containers),
                    )
                } else if singular && message {
                    format!(
                        "{path}: a singular message sent in {} in A and {} in B; parsers merge the pieces into one message",
                        plural(u64::from(sa.containers), "piece"),
                        plural(u64::from(sb.containers), "piece"),
                    )
                } else {
                    format!(
                        "{path}: {} in A, {} in B; if the field is a singular message parsers merge them into one, if repeated they are separate messages",
                        plural(u64::from(sa.containers), "message"),
                        plural(u64::from(sb.containers), "message"),
                    )
                };
                let kind = if is_entry {
                    VerdictKind::LastWins
                } else {
                    VerdictKind::MessagePieces
                };
                out.push(Verdict { kind, text });
            }
            if !message && (singular || info.cardinality.is_none()) {
                self.last_wins(id, &path, singular, out);
            }
        }
    }

    /// A scalar path sent more than once on a side: for a singular field the last wins.
    fn last_wins(&self, id: u32, path: &str, singular: bool, out: &mut Vec<Verdict>) {
        let (la, lb) = (self.a.leaves_of(id), self.b.leaves_of(id));
        if la.len() <= 1 && lb.len() <= 1 {
            return;
        }
        if !singular && la.len() == lb.len() {
            return;
        }
        let last = |side: &Gathered, list: &[u32], bytes: &[u8]| {
            let leaf = list.last().and_then(|&i| side.leaves.get(i as usize));
            match leaf.map(|l| l.held) {
                Some(Held::Number(n)) => format!("raw {n}"),
                Some(Held::Data(span)) => {
                    plural(span.slice(bytes).map_or(0, |s| s.len()) as u64, "byte")
                }
                None => "nothing".into(),
            }
        };
        let text = format!(
            "{path}: sent {} in A (last {}) and {} in B (last {}); {}",
            plural(la.len() as u64, "time"),
            last(self.a, la, self.bytes.0),
            plural(lb.len() as u64, "time"),
            last(self.b, lb, self.bytes.1),
            if singular {
                "a singular field keeps the last occurrence, earlier ones are overwritten"
            } else {
                "without the schema: if the field is singular the last occurrence wins, if repeated all are kept"
            }
        );
        out.push(Verdict {
            kind: VerdictKind::LastWins,
            text,
        });
    }

    fn one_sided(&self, id: u32, in_a: bool, listed: &mut usize, out: &mut Vec<Verdict>) {
        // Only the outermost path sent by one side is named: its fields go with it.
        let parent = self.paths.parent(id);
        let parent_one_sided = parent != 0 && {
            let (pa, pb) = (self.a.stats(parent), self.b.stats(parent));
            (pa.occurrences == 0) != (pb.occurrences == 0)
        };
        if parent_one_sided {
            return;
        }
        let (side, stats) = if in_a {
            ("A", self.a.stats(id))
        } else {
            ("B", self.b.stats(id))
        };
        if *listed >= LISTED {
            return;
        }
        let info = self.paths.infos.get(id as usize);
        let number = info.map_or(0, |i| i.step.number);
        let what = if stats.unknown {
            format!(
                "unknown field {number}: parsers keep it as an unknown field, so the messages differ"
            )
        } else {
            "parsers see a field on one side only (different message, unless it holds its default)"
                .to_string()
        };
        *listed += 1;
        out.push(Verdict {
            kind: VerdictKind::OnlyOne,
            text: format!(
                "{} only in {side} ({}); {what}",
                self.paths.text(id),
                plural(u64::from(stats.occurrences), "occurrence")
            ),
        });
    }

    fn long_varints(&self, out: &mut Vec<Verdict>) {
        for (side, g) in [("A", self.a), ("B", self.b)] {
            for long in &g.long_varints {
                out.push(Verdict {
                    kind: VerdictKind::LongVarint,
                    text: format!(
                        "{side}: the {} of {} at payload byte {} is a varint of {} ({}) for {}, which `{}` says in {}; parsers read the same number",
                        long.what,
                        long.path,
                        long.at,
                        plural(long.bytes.len() as u64, "byte"),
                        hex_bytes(&long.bytes),
                        long.value,
                        hex_bytes(&varint_bytes(long.value)),
                        plural(varint_bytes(long.value).len() as u64, "byte"),
                    ),
                });
            }
            let more = g.long_count.saturating_sub(g.long_varints.len() as u64);
            if more > 0 {
                out.push(Verdict {
                    kind: VerdictKind::LongVarint,
                    text: format!(
                        "{side}: {} more written longer than needed",
                        plural(more, "varint")
                    ),
                });
            }
        }
    }
}

/// Rows whose values differ, the first few named.
fn differing<'r>(rows: impl Iterator<Item = &'r Row>, out: &mut Vec<Verdict>) {
    let differ: Vec<&Row> = rows.filter(|r| r.mark == Mark::Differs).collect();
    let mut text = String::new();
    for row in differ.iter().take(LISTED) {
        if !text.is_empty() {
            text.push_str(", ");
        }
        let _ = write!(text, "{} (value {})", row.path, row.ordinal + 1);
    }
    if differ.len() > LISTED {
        let _ = write!(text, " and {} more", differ.len() - LISTED);
    }
    if !differ.is_empty() {
        out.push(Verdict {
            kind: VerdictKind::DifferentValue,
            text: format!(
                "different values at {text}: the n-th value of a field differs (different message, unless a later occurrence overwrites it)"
            ),
        });
    }
}
