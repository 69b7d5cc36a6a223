//! The records of a `tf.data` snapshot's shard grouped into elements, for `list` and `show`.
//!
//! Records are rendered one by one on every core as usual, each twice: as it is shown alone, and
//! as the component its place makes it. Handed over in order, they are held until their element
//! is whole; an element whose every record is its component is written as one (a line in `list`,
//! a tree in `show`), any other's records are written one by one, with a note saying which record
//! did not fit and why. Records before the first whole element of a selection, and after the
//! last, are written one by one too; a shard that ends inside an element is named.

use std::path::Path;
use std::sync::Arc;

use super::Messages;
use tfr_core::dataset::snapshot::Snapshot;
use tfr_core::dataset::snapshot::element::Placed;

/// The snapshot a file lies in, when its records are grouped into elements, with what was said
/// about its side files said through `messages`.
pub fn snapshot_of(path: &Path, messages: &Messages) -> Option<Arc<Snapshot>> {
    let snapshot = Snapshot::for_shard(path)?;
    for note in &snapshot.notes {
        // As a features.json that cannot be used: named, and the records shown without it.
        messages.unusable(&note.to_string());
    }
    let grouped = snapshot.components() > 0;
    grouped.then(|| Arc::new(snapshot))
}

/// One record as handed over: its index, its output alone, and as its component.
pub struct Part {
    pub record: usize,
    pub plain: String,
    /// What the record is as a component, and its output as one.
    pub placed: Option<(Placed, String)>,
}

/// How an element is written.
pub trait Layout {
    /// The element's output from its parts, all of which fit.
    fn element(&self, snapshot: &Snapshot, element: usize, parts: &[Part]) -> String;
    /// Written once before the first record shown alone (a table's header).
    fn before_plain(&self) -> String {
        String::new()
    }
}

/// The records of one shard, gathered into elements as they are handed over in order.
pub struct Grouper {
    snapshot: Arc<Snapshot>,
    pending: Vec<Part>,
    /// Whether a record has been written alone yet (so the header went out).
    plain_written: bool,
    /// Whole elements written as elements.
    pub elements: u64,
    /// Records written one by one although the snapshot groups them, for the status.
    pub ungrouped: u64,
    /// Whether a record did not fit its place, or the shard ends inside an element: damage.
    pub damaged: bool,
}

impl Grouper {
    pub fn new(snapshot: Arc<Snapshot>) -> Grouper {
        Grouper {
            snapshot,
            pending: Vec::new(),
            plain_written: false,
            elements: 0,
            ungrouped: 0,
            damaged: false,
        }
    }

    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The snapshot, for the workers that place records.
    pub fn shared(&self) -> Arc<Snapshot> {
        Arc::clone(&self.snapshot)
    }

    fn element_of(&self, record: usize) -> usize {
        record / self.snapshot.components().max(1)
    }

    /// Takes the next record; returns what to write now, and notes for standard error.
    pub fn push(&mut self, part: Part, layout: &dyn Layout, notes: &mut Vec<String>) -> String {
        let mut out = String::new();
        let element = self.element_of(part.record);
        let same = self
            .pending
            .first()
            .is_some_and(|p| self.element_of(p.record) == element);
        if !same {
            // The element before began before the selection did: written one by one.
            self.flush_plain(layout, &mut out);
        }
        self.pending.push(part);
        let n = self.snapshot.components();
        let whole = self.pending.len() == n
            && self
                .pending
                .first()
                .is_some_and(|p| p.record % n.max(1) == 0);
        if whole {
            let problems: Vec<String> = self
                .pending
                .iter()
                .filter_map(|p| match &p.placed {
                    Some((placed, _)) => placed.value.clone().err(),
                    None => Some(format!("record {} has no place", p.record)),
                })
                .collect();
            if problems.is_empty() {
                out.push_str(&layout.element(&self.snapshot, element, &self.pending));
                self.elements += 1;
                self.pending.clear();
            } else {
                self.damaged = true;
                for problem in problems {
                    notes.push(format!(
                        "{problem}; element {element} shown record by record"
                    ));
                }
                self.flush_plain(layout, &mut out);
            }
        }
        out
    }

    /// Ends the records handed over: those of an element not whole are written one by one, and
    /// named when the file (of `frames` frames) ends inside it.
    pub fn finish(
        &mut self,
        frames: usize,
        layout: &dyn Layout,
        notes: &mut Vec<String>,
    ) -> String {
        let mut out = String::new();
        let ends_file = self.pending.last().is_some_and(|p| p.record + 1 == frames);
        if ends_file {
            for part in &self.pending {
                if let Some((
                    Placed {
                        value: Err(problem),
                        ..
                    },
                    _,
                )) = &part.placed
                {
                    notes.push(problem.clone());
                }
            }
        }
        if let (true, Some(first)) = (ends_file, self.pending.first()) {
            let n = self.snapshot.components();
            let element = self.element_of(first.record);
            let have = frames - element * n;
            self.damaged = true;
            notes.push(format!(
                "records {}..={} are {have} of element {element}'s {n} components: the shard ends \
                 inside an element (cut short); shown record by record",
                element * n,
                frames - 1,
            ));
        }
        self.flush_plain(layout, &mut out);
        out
    }

    fn flush_plain(&mut self, layout: &dyn Layout, out: &mut String) {
        if self.pending.is_empty() {
            return;
        }
        if !self.plain_written {
            self.plain_written = true;
            out.push_str(&layout.before_plain());
        }
        for part in self.pending.drain(..) {
            out.push_str(&part.plain);
            self.ungrouped += 1;
        }
    }
}

/// `tf.data snapshot (Dataset.save): elements of 5 components: id int64, …`
pub fn heading(snapshot: &Snapshot) -> String {
    format!(
        "tf.data snapshot ({}): {}",
        snapshot.writer(),
        snapshot.describe_element()
    )
}

/// `element 3: id int64 3, name "three", pair (uint8 254, bool False), vec float32[3] [...]`:
/// the element's components in its structure, from each part's value.
pub fn element_line(snapshot: &Snapshot, element: usize, parts: &[Part]) -> String {
    let Some(spec) = &snapshot.element else {
        return String::new();
    };
    let mut leaf = |n: usize| {
        parts
            .get(n)
            .and_then(|p| p.placed.as_ref())
            .and_then(|(placed, _)| placed.value.clone().ok())
            .unwrap_or_default()
    };
    format!("element {element}: {}\n", spec.write(&mut leaf))
}
