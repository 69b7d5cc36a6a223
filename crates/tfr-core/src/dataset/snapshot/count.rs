//! A snapshot's shards counted against its `snapshot.metadata`: how many elements they hold
//! (records over components), whether each shard holds whole elements, and whether the total is
//! the `num_elements` the writer recorded. Only shards of the run the metadata names count
//! (a run that was started again leaves the old run's directory beside the new one).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{METADATA_FILE, Snapshot};
use crate::dataset::{Member, Problem, SnapshotSet, Tally};
use crate::escape::path_for_terminal;
use crate::words::plural;

/// A snapshot's line in a dataset's summary, its figures, and what disagrees.
#[derive(Debug, Clone)]
pub struct Counted {
    pub line: String,
    pub figures: SnapshotCount,
    pub problems: Vec<Problem>,
}

/// What a snapshot's shards hold, against its metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SnapshotCount {
    #[serde(serialize_with = "crate::dataset::report::lossy_path")]
    pub dir: PathBuf,
    /// Which writer wrote it (`snapshot.metadata`'s version, or the one its files look like).
    pub writer: String,
    /// Whether the element spec gives the components' names.
    pub named: bool,
    /// The element's components, when its spec is known.
    pub components: Option<Vec<Component>>,
    /// Shards of the run the metadata names.
    pub shards: u64,
    pub records: u64,
    /// Records over components, when every shard was read.
    pub elements: Option<u64>,
    /// What the metadata promises.
    pub num_elements: Option<i64>,
    pub other_run_shards: u64,
}

/// One component of a snapshot's element.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Component {
    pub path: String,
    pub dtype: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// The name of the run directory a shard (`<run>/<N>.shard/<C>.snapshot`) lies in.
fn run_of(shard: &Path) -> Option<String> {
    let run = shard.parent()?.parent()?.file_name()?;
    Some(run.to_string_lossy().into_owned())
}

/// Counts `set`'s shards from their tallies (one per member of the dataset).
pub fn count(set: &SnapshotSet, members: &[Member], tallies: &[Option<Tally>]) -> Counted {
    let snapshot: &Snapshot = &set.snapshot;
    let n = snapshot.components() as u64;
    let run_id = snapshot.metadata.as_ref().map(|m| m.run_id.as_str());
    let mut problems = Vec::new();
    let (mut shards, mut other_runs, mut unread, mut records) = (0u64, 0u64, 0u64, 0u64);
    let mut compression = BTreeSet::new();
    for &i in &set.members {
        let Some(member) = members.get(i) else {
            continue;
        };
        let current = match (run_id, run_of(&member.path)) {
            (Some(id), Some(run)) if !id.is_empty() => id == run,
            _ => true,
        };
        if !current {
            other_runs += 1;
            continue;
        }
        shards += 1;
        let Some(tally) = tallies.get(i).copied().flatten() else {
            unread += 1;
            continue;
        };
        compression.insert(tally.compression.map_or("uncompressed", |c| c.name()));
        records += tally.frames;
        if n > 0 && tally.frames % n != 0 {
            problems.push(Problem::SnapshotPartialElement {
                path: member.path.clone(),
                records: tally.frames,
                components: n,
            });
        }
    }
    let elements = (n > 0 && unread == 0).then(|| records / n);
    let promised = snapshot.metadata.as_ref().and_then(|m| m.num_elements);
    let metadata = snapshot.dir.join(METADATA_FILE);
    let mut agrees = "";
    if let (Some(found), Some(promised), true) = (elements, promised, set.complete) {
        if i64::try_from(found).ok() == Some(promised) {
            agrees = "; agrees with snapshot.metadata";
        } else {
            problems.push(Problem::SnapshotElements {
                metadata: metadata.clone(),
                promised,
                found,
            });
        }
    }
    let held = match elements {
        Some(e) => plural(e, "element"),
        None if n == 0 => plural(records, "record"),
        None => format!("{} ({unread} shards not read)", plural(records, "record")),
    };
    let compressed = compression.into_iter().collect::<Vec<_>>().join(" and ");
    let stale = match other_runs {
        0 => String::new(),
        k => format!(" ({} of other runs not counted)", plural(k, "shard")),
    };
    let unfinished = match &snapshot.metadata {
        Some(m) if !m.finalized => "; not finalized (the writer did not finish)",
        _ => "",
    };
    let line = format!(
        "{}: tf.data snapshot ({}): {held} in {}{stale}, {compressed}; {}{agrees}{unfinished}",
        path_for_terminal(&snapshot.dir),
        snapshot.writer(),
        plural(shards, "shard"),
        snapshot.describe_element(),
    );
    let components = snapshot.element.as_ref().map(|e| {
        let component = |c: &super::spec::Component| Component {
            path: c.path.clone(),
            dtype: super::spec::dtype_name(c.dtype),
            kind: c.type_text(),
        };
        e.components.iter().map(component).collect()
    });
    let figures = SnapshotCount {
        dir: snapshot.dir.clone(),
        writer: snapshot.writer().to_string(),
        named: snapshot.named,
        components,
        shards,
        records,
        elements,
        num_elements: promised,
        other_run_shards: other_runs,
    };
    Counted {
        line,
        figures,
        problems,
    }
}
