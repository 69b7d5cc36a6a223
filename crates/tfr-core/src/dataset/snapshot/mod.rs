//! `tf.data` snapshots: the directories `tf.data.Dataset.save` and
//! `tf.data.experimental.snapshot` write. A shard (`DIR/<run_id>/<N>.shard/<C>.snapshot`) is a
//! TFRecord file of `TensorProto`s, one record per component of an element, elements one after
//! another; nothing in a record says which component it is. What does is beside the shards:
//! `snapshot.metadata` (a `SnapshotMetadataRecord`: the components' dtypes, the element count,
//! the format version) and, from `Dataset.save`, `dataset_spec.pb` (the element spec, which
//! names the components). `tf.data.experimental.snapshot` puts its directory one level down,
//! under the graph's fingerprint, and writes no spec: its components are numbered, not named.
//!
//! Both files are read through the bounded side-file reader and parsed with bounds on what they
//! hold. What cannot be used is said ([`Snapshot::notes`]) and the shard's records are then shown
//! one by one, as any TFRecord file's.

pub mod count;
pub mod element;
mod fields;
pub mod spec;

use std::path::{Path, PathBuf};

use crate::sidefile;
pub use spec::{Component, ElementSpec, Structure};

pub const METADATA_FILE: &str = "snapshot.metadata";
pub const SPEC_FILE: &str = "dataset_spec.pb";
/// The most bytes read of either file (1 MiB): a spec of ten thousand components is a few
/// hundred kilobytes.
pub const SIDE_LIMIT: u64 = 1 << 20;
/// The snapshot format whose shards are TFRecord files of one component per record.
pub const TFRECORD_VERSION: i64 = 2;

/// What `snapshot.metadata` says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata {
    /// The graph's fingerprint (`tf.data.experimental.snapshot` only).
    pub graph_hash: String,
    /// The run whose shards are the snapshot's (the name of its directory).
    pub run_id: String,
    /// Microseconds since the epoch.
    pub creation_timestamp: i64,
    pub version: i64,
    /// The flattened components' dtypes.
    pub dtypes: Vec<i32>,
    /// The element count, when the writer gave it (`Dataset.save` does).
    pub num_elements: Option<i64>,
    pub finalized: bool,
}

impl Metadata {
    /// Reads a serialized `SnapshotMetadataRecord`.
    pub fn parse(bytes: &[u8]) -> Result<Metadata, String> {
        let mut metadata = Metadata::default();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        for field in fields::fields(bytes) {
            let (number, wire) = field.map_err(|b| {
                format!(
                    "invalid SnapshotMetadataRecord: {} at its byte {}",
                    b.what, b.at
                )
            })?;
            match (number, wire) {
                (1, fields::Wire::Bytes(b)) => metadata.graph_hash = text(b),
                (2, fields::Wire::Bytes(b)) => metadata.run_id = text(b),
                (3, fields::Wire::Varint(v)) => metadata.creation_timestamp = v as i64,
                (4, fields::Wire::Varint(v)) => metadata.version = v as i64,
                (5, fields::Wire::Varint(v)) => metadata.push_dtype(v)?,
                (5, fields::Wire::Bytes(packed)) => {
                    let mut at = 0;
                    while at < packed.len() {
                        let (v, next) = crate::wire::read_varint(packed, at, packed.len())
                            .map_err(|_| "invalid SnapshotMetadataRecord: a truncated dtype")?;
                        metadata.push_dtype(v)?;
                        at = next;
                    }
                }
                (6, fields::Wire::Varint(v)) => metadata.num_elements = Some(v as i64),
                (1000, fields::Wire::Varint(v)) => metadata.finalized = v != 0,
                _ => {}
            }
        }
        Ok(metadata)
    }

    fn push_dtype(&mut self, v: u64) -> Result<(), String> {
        if self.dtypes.len() >= spec::MAX_COMPONENTS {
            return Err(format!(
                "more than {} dtypes: refused",
                spec::MAX_COMPONENTS
            ));
        }
        self.dtypes.push(fields::as_i32(v));
        Ok(())
    }
}

/// A note about a snapshot's side file: which file, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            crate::escape::path_for_terminal(&self.path),
            crate::escape::for_terminal(&self.message)
        )
    }
}

/// A snapshot directory, as its side files describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The directory holding `snapshot.metadata` (and `dataset_spec.pb`).
    pub dir: PathBuf,
    pub metadata: Option<Metadata>,
    /// What an element is made of, when the side files say it and agree: named from
    /// `dataset_spec.pb`, or numbered from `snapshot.metadata`'s dtypes when there is no spec.
    /// `None`: records are not grouped (the notes say why).
    pub element: Option<ElementSpec>,
    /// Whether [`Snapshot::element`] names its components (from `dataset_spec.pb`).
    pub named: bool,
    /// What could not be read or used, naming the file.
    pub notes: Vec<Note>,
}

/// How a side file read.
enum Side {
    Missing,
    Read(Vec<u8>),
    Unread(String),
}

fn read_side(path: &Path) -> Side {
    match sidefile::read(path, SIDE_LIMIT) {
        Ok(file) => Side::Read(file.bytes),
        Err(why) if why.is_missing() => Side::Missing,
        Err(why) => Side::Unread(format!("not read: {why}")),
    }
}

impl Snapshot {
    /// The snapshot a shard lies in: `shard` is `<N>.shard/<C>.snapshot` in a run directory,
    /// and `snapshot.metadata` is beside the run directory (as both writers lay it out) or in
    /// it. `None` when the path is not laid out so, or neither directory has the side files.
    pub fn for_shard(shard: &Path) -> Option<Snapshot> {
        Snapshot::dir_of(shard).and_then(|dir| Snapshot::load(&dir))
    }

    /// The directory whose `snapshot.metadata` or `dataset_spec.pb` describes `shard`, without
    /// reading either (only whether one is there).
    pub fn dir_of(shard: &Path) -> Option<PathBuf> {
        let shard_dir = shard.parent()?;
        let name = shard_dir.file_name()?.to_string_lossy();
        if !name.ends_with(".shard") {
            return None;
        }
        let run_dir = shard_dir.parent()?;
        let candidates = [run_dir.parent(), Some(run_dir)];
        candidates.into_iter().flatten().find_map(|dir| {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            let there = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
            (there(METADATA_FILE) || there(SPEC_FILE)).then(|| dir.to_path_buf())
        })
    }

    /// Reads `dir/snapshot.metadata` and `dir/dataset_spec.pb`; `None` when neither is there.
    pub fn load(dir: &Path) -> Option<Snapshot> {
        let metadata_path = dir.join(METADATA_FILE);
        let spec_path = dir.join(SPEC_FILE);
        let metadata_side = read_side(&metadata_path);
        let spec_side = read_side(&spec_path);
        if matches!((&metadata_side, &spec_side), (Side::Missing, Side::Missing)) {
            return None;
        }
        let mut notes = Vec::new();
        let mut note = |path: &Path, message: String| {
            notes.push(Note {
                path: path.to_path_buf(),
                message,
            })
        };
        let metadata = match metadata_side {
            Side::Missing => None,
            Side::Read(bytes) => match Metadata::parse(&bytes) {
                Ok(m) => Some(m),
                Err(why) => {
                    note(&metadata_path, format!("not used: {why}"));
                    None
                }
            },
            Side::Unread(why) => {
                note(&metadata_path, why);
                None
            }
        };
        // The spec: absent (legitimately, from tf.data.experimental.snapshot), read, or there
        // but of no use.
        let spec = match spec_side {
            Side::Missing => None,
            Side::Read(bytes) => {
                Some(spec::parse(&bytes).map_err(|why| format!("not used: {why}")))
            }
            Side::Unread(why) => Some(Err(why)),
        };
        let grouped = "records are shown one by one";
        let (element, named) = match (spec, &metadata) {
            (Some(Err(why)), _) => {
                note(&spec_path, format!("{why}; {grouped}"));
                (None, false)
            }
            (_, Some(m)) if m.version != TFRECORD_VERSION => {
                note(
                    &metadata_path,
                    format!(
                        "snapshot version {}, not {TFRECORD_VERSION}: its shards are not one \
                         component per record; {grouped}",
                        m.version
                    ),
                );
                (None, false)
            }
            (Some(Ok(spec)), Some(m)) if spec.dtypes() != m.dtypes => {
                let list = |d: &[i32]| {
                    d.iter()
                        .map(|n| spec::dtype_name(*n))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                note(
                    &spec_path,
                    format!(
                        "its {} ({}) disagree with snapshot.metadata's {} ({}); {grouped}",
                        crate::words::plural(spec.components.len() as u64, "component"),
                        elided(&list(&spec.dtypes())),
                        crate::words::plural(m.dtypes.len() as u64, "dtype"),
                        elided(&list(&m.dtypes)),
                    ),
                );
                (None, false)
            }
            (Some(Ok(spec)), _) => (Some(spec), true),
            (None, Some(m)) => (Some(ElementSpec::unnamed(&m.dtypes)), false),
            (None, None) => (None, false),
        };
        // An element of no component cannot be told apart in the records.
        let element = element.filter(|e| !e.components.is_empty());
        Some(Snapshot {
            dir: dir.to_path_buf(),
            metadata,
            element,
            named,
            notes,
        })
    }

    /// How many records an element is (0 when records are not grouped).
    pub fn components(&self) -> usize {
        self.element.as_ref().map_or(0, |e| e.components.len())
    }

    /// The element and component record `record` of a shard is.
    pub fn place(&self, record: usize) -> Option<(usize, &Component)> {
        let element = self.element.as_ref()?;
        let n = element.components.len();
        let component = element.components.get(record.checked_rem(n)?)?;
        Some((record / n, component))
    }

    /// Which writer made it: `tf.data.experimental.snapshot` names its graph, `Dataset.save`
    /// does not.
    pub fn writer(&self) -> &'static str {
        match &self.metadata {
            Some(m) if !m.graph_hash.is_empty() => "tf.data.experimental.snapshot",
            _ => "Dataset.save",
        }
    }

    /// `elements of 5 components: id int64, name string, pair (uint8, bool), vec float32[3]`, or
    /// `records not grouped into elements` when they are not.
    pub fn describe_element(&self) -> String {
        let Some(element) = &self.element else {
            return "records not grouped into elements".into();
        };
        let mut leaf = |n: usize| {
            element
                .components
                .get(n)
                .map_or_else(String::new, Component::type_text)
        };
        let how = if self.named {
            ""
        } else {
            " (no dataset_spec.pb: numbered)"
        };
        format!(
            "elements of {}{how}: {}",
            crate::words::plural(element.components.len() as u64, "component"),
            elided(&element.write(&mut leaf))
        )
    }
}

/// The most characters of a spec written on one line.
const LINE_CHARS: usize = 400;

/// `text`, cut at `LINE_CHARS` characters with `…` when longer.
pub fn elided(text: &str) -> String {
    match text.char_indices().nth(LINE_CHARS) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or_default()),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests;
