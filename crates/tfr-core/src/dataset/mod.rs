//! A dataset: the TFRecord files the arguments name, found by content in directories and by
//! full glob syntax in patterns, grouped into shard sets (splits) by their `-NNNNN-of-MMMMM`
//! names, with the tensorflow-datasets metadata beside them.
//!
//! Resolving the arguments checks what the names alone can tell (a shard missing, twice, or sets
//! that disagree on their size); what needs the shards read (record counts and bytes against
//! `dataset_info.json`) is checked by [`Dataset::check_counts`] once a command has counted them.
//! One file named alone is taken as it is, as it always was; among several, files that are not
//! TFRecord files are set aside with the reason rather than called damaged.

pub mod discover;
pub mod features;
pub mod numbering;
mod problem;
mod regroup;
pub mod report;
pub mod run;
pub mod shards;
pub mod snapshot;
pub mod tfds;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use crate::escape::Untrusted;
use crate::sidefile::Unread;
pub use problem::Problem;
pub use report::{Summary, Tally, Verdict};
use shards::{ShardName, ShardSet};
use snapshot::Snapshot;
pub use tfds::{DatasetInfo, ShardCount, SplitInfo};

/// One split: a shard set, named, with what `dataset_info.json` says of it.
#[derive(Debug, Clone)]
pub struct Split {
    /// `train`, from `dataset_info.json` or the shards' prefix (so escaped when shown).
    pub name: Untrusted,
    pub set: ShardSet,
    /// The split's entry in `dataset_info.json`, and that file's path.
    pub info: Option<(PathBuf, SplitInfo)>,
}

impl Split {
    /// How the split is named in a message about shard `number` (`train shard 00002 of 00004`).
    pub fn shard_label(&self, number: u64) -> String {
        let total = self
            .set
            .total()
            .map(|t| format!(" of {}", self.set.number_text(t)))
            .unwrap_or_default();
        format!(
            "{} shard {}{total}",
            self.name,
            self.set.number_text(number)
        )
    }
}

/// A TFRecord file to read, and where in the dataset it belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub path: PathBuf,
    /// The split (an index into [`Dataset::splits`]) and the shard's number, for a shard.
    pub shard: Option<(usize, u64)>,
}

/// A file found among the inputs that is not a TFRecord file, with why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    #[serde(rename = "file", serialize_with = "report::lossy_path")]
    pub path: PathBuf,
    pub reason: String,
}

/// The resolved inputs of a command.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// The files to read, split by split, each split's shards in number order.
    pub members: Vec<Member>,
    pub splits: Vec<Split>,
    pub skipped: Vec<Skipped>,
    /// What the names and metadata alone show to be wrong.
    pub problems: Vec<Problem>,
    /// Arguments that could not be used (a pattern that matched nothing, an unreadable directory).
    pub errors: Vec<String>,
    /// Whether the inputs form a dataset (a directory, or shard-named files), so commands report
    /// it as one.
    pub is_dataset: bool,
    /// The `tf.data` snapshots the members are shards of.
    pub snapshots: Vec<SnapshotSet>,
    /// Per member, the snapshot (an index into [`Dataset::snapshots`]) it is a shard of.
    member_snapshot: Vec<Option<usize>>,
}

/// A `tf.data` snapshot and which members are its shards.
#[derive(Debug, Clone)]
pub struct SnapshotSet {
    pub snapshot: Arc<Snapshot>,
    /// Indexes into [`Dataset::members`], in order.
    pub members: Vec<usize>,
    /// Whether every shard of it was searched for (its directory is, or is inside, a directory
    /// argument), so that its element count can be checked.
    pub complete: bool,
}

/// Where a candidate file came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Named on the command line.
    Named,
    /// Found in a directory or by a pattern.
    Found,
}

impl Dataset {
    /// Takes the paths a pattern matched: directories are searched, links to directories set
    /// aside (as a directory's search does), files kept as candidates.
    fn matched(&mut self, found: Vec<PathBuf>, candidates: &mut Vec<(PathBuf, Origin)>) {
        for path in found {
            let link = std::fs::symlink_metadata(&path);
            if link.as_ref().is_ok_and(|m| m.is_dir()) {
                match discover::walk(&path) {
                    Ok(walk) => self.found(walk, candidates),
                    Err(e) => self.errors.push(format!(
                        "{}: cannot be searched: {e}",
                        crate::escape::path_for_terminal(&path)
                    )),
                }
            } else if link.is_ok_and(|m| m.is_symlink()) && path.is_dir() {
                self.skipped.push(Skipped {
                    path,
                    reason: "a link to a directory, not followed (name it to search it)".into(),
                });
            } else {
                candidates.push((path, Origin::Found));
            }
        }
    }

    /// Resolves command-line arguments: files, directories and glob patterns.
    pub fn resolve(args: &[PathBuf]) -> Dataset {
        let mut dataset = Dataset::default();
        let mut candidates: Vec<(PathBuf, Origin)> = Vec::new();
        let mut dirs: Vec<PathBuf> = Vec::new();
        // Directories part of which could not be searched (named already).
        let mut not_searched: Vec<PathBuf> = Vec::new();
        for arg in args {
            if let Some(remote) = crate::source::remote::claiming(arg) {
                dataset.take_url(arg, remote, &mut candidates, &mut dirs, &mut not_searched);
            } else if arg.is_dir() {
                match discover::walk(arg) {
                    Ok(walk) => {
                        if !walk.errors.is_empty() {
                            not_searched.push(arg.clone());
                        }
                        dataset.found(walk, &mut candidates);
                    }
                    Err(e) => dataset
                        .errors
                        .push(format!("{}: {e}", crate::escape::path_for_terminal(arg))),
                }
                dirs.push(arg.clone());
            } else if !arg.exists() && discover::is_pattern(arg) {
                let shown = crate::escape::path_for_terminal(arg);
                match discover::expand_glob(arg) {
                    Ok(found) if found.is_empty() => dataset
                        .errors
                        .push(format!("{shown}: pattern matched nothing")),
                    Ok(found) => dataset.matched(found, &mut candidates),
                    Err(e) => dataset
                        .errors
                        .push(format!("{shown}: not a valid pattern: {e}")),
                }
            } else {
                candidates.push((arg.clone(), Origin::Named));
            }
        }
        let files = dataset.sniffed(candidates);
        dataset.name_empty_dirs(&files, &dirs, &not_searched);
        dataset.group(files, &dirs);
        dataset.find_snapshots(&dirs);
        dataset.is_dataset =
            !dataset.members.is_empty() && (!dirs.is_empty() || !dataset.splits.is_empty());
        dataset
    }

    /// Takes the URL `arg`, read by `remote`: one object as a named file, a prefix as a
    /// directory, a pattern as a glob.
    fn take_url(
        &mut self,
        arg: &Path,
        remote: &dyn crate::source::remote::RemoteInputs,
        candidates: &mut Vec<(PathBuf, Origin)>,
        dirs: &mut Vec<PathBuf>,
        not_searched: &mut Vec<PathBuf>,
    ) {
        if !remote.names_many(arg) {
            candidates.push((arg.to_path_buf(), Origin::Named));
            return;
        }
        let shown = crate::escape::path_for_terminal(arg);
        let prefix = arg.to_string_lossy().ends_with('/');
        match remote.expand(arg) {
            Ok(found) if found.is_empty() && !prefix => self
                .errors
                .push(format!("{shown}: pattern matched nothing")),
            Ok(found) => candidates.extend(found.into_iter().map(|p| (p, Origin::Found))),
            Err(e) => {
                self.errors
                    .push(crate::escape::for_terminal(&e).into_owned());
                not_searched.push(arg.to_path_buf());
            }
        }
        if prefix {
            dirs.push(arg.to_path_buf());
        }
    }

    /// The candidates that are to be read: those whose first bytes are not another kind of file
    /// (set aside in `skipped`, with why). A single file named alone is read whatever it is.
    fn sniffed(&mut self, candidates: Vec<(PathBuf, Origin)>) -> Vec<PathBuf> {
        let alone = candidates.len() == 1 && candidates.iter().all(|(_, o)| *o == Origin::Named);
        let mut files = Vec::new();
        for (path, origin) in candidates {
            if alone {
                files.push(path);
                continue;
            }
            match discover::sniff(&path) {
                Ok(discover::Sniff::Other(reason)) => {
                    let reason = metadata_role(&path).unwrap_or(reason).to_string();
                    self.skipped.push(Skipped { path, reason })
                }
                // A named pipe, or a device, named as an argument: read as it is asked for, once
                // (standard input given as `-` among files is one).
                Err(Unread::NotRegular(_)) if origin == Origin::Named => files.push(path),
                Err(Unread::NotRegular(kind)) => self.skipped.push(Skipped {
                    path,
                    reason: format!("{kind}, not a regular file"),
                }),
                // A file that cannot even be opened stays, so that its error is reported.
                _ => files.push(path),
            }
        }
        files
    }

    /// Names each directory of `dirs` that holds none of `files` (unless it could not be
    /// searched, which was said already).
    fn name_empty_dirs(&mut self, files: &[PathBuf], dirs: &[PathBuf], not_searched: &[PathBuf]) {
        // The directories some file lies in, each file's ancestors looked up once.
        let wanted: HashSet<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        let mut holding: HashSet<&Path> = HashSet::new();
        for file in files {
            holding.extend(file.ancestors().skip(1).filter(|a| wanted.contains(a)));
        }
        for dir in dirs {
            if !holding.contains(dir.as_path()) && !not_searched.contains(dir) {
                self.errors.push(format!(
                    "{}: is a directory with no TFRecord file in it",
                    crate::escape::path_for_terminal(dir)
                ));
            }
        }
    }

    /// Finds the `tf.data` snapshots the members are shards of, reading each one's side files
    /// once.
    fn find_snapshots(&mut self, dirs: &[PathBuf]) {
        let mut by_dir: HashMap<PathBuf, Option<usize>> = HashMap::new();
        self.member_snapshot = vec![None; self.members.len()];
        for (i, member) in self.members.iter().enumerate() {
            let Some(dir) = Snapshot::dir_of(&member.path) else {
                continue;
            };
            let set = *by_dir.entry(dir.clone()).or_insert_with(|| {
                let snapshot = Snapshot::load(&dir)?;
                let complete = dirs.iter().any(|d| dir.starts_with(d));
                self.snapshots.push(SnapshotSet {
                    snapshot: Arc::new(snapshot),
                    members: Vec::new(),
                    complete,
                });
                Some(self.snapshots.len() - 1)
            });
            if let Some(set) = set.and_then(|s| self.snapshots.get_mut(s)) {
                set.members.push(i);
            }
            if let Some(slot) = self.member_snapshot.get_mut(i) {
                *slot = set;
            }
        }
    }

    /// The snapshot member `member` is a shard of, when it groups its records into elements.
    pub fn grouping(&self, member: usize) -> Option<Arc<Snapshot>> {
        let set = self.member_snapshot.get(member).copied().flatten()?;
        self.snapshots
            .get(set)
            .map(|s| Arc::clone(&s.snapshot))
            .filter(|s| s.components() > 0)
    }

    /// Takes in what searching a directory found: its files as candidates, the rest named.
    fn found(&mut self, walk: discover::Walk, candidates: &mut Vec<(PathBuf, Origin)>) {
        candidates.extend(walk.files.into_iter().map(|f| (f, Origin::Found)));
        self.skipped.extend(walk.skipped);
        self.errors.extend(walk.errors);
    }

    /// Sorts `files` into splits and loose files, loads the metadata beside the splits and
    /// checks the shard names.
    fn group(&mut self, files: Vec<PathBuf>, dirs: &[PathBuf]) {
        let shard_name = |path: &Path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .and_then(ShardName::parse)
        };
        let named: Vec<(PathBuf, ShardName)> = files
            .iter()
            .filter_map(|p| Some((p.clone(), shard_name(p)?)))
            .collect();
        let sets = shards::group(named);
        let mut infos: HashMap<PathBuf, Option<DatasetInfo>> = HashMap::new();
        for set in sets {
            let info = info_for(&set.dir, &mut infos, &mut self.problems);
            let split_info = info.and_then(|i| {
                i.split_for_prefix(&set.prefix)
                    .map(|s| (i.path.clone(), s.clone()))
            });
            let name = split_info.as_ref().map_or_else(
                || derived_name(&set.prefix, info.and_then(|i| i.name.as_deref())),
                |(_, s)| s.name.clone(),
            );
            let name = Untrusted::new(name);
            self.splits.push(Split {
                name,
                set,
                info: split_info,
            });
        }
        self.disambiguate_names();
        for split in &self.splits {
            self.problems.extend(split.set.problems(split.name.raw()));
        }
        // Splits the metadata of a directory argument lists, and no shard of which was found.
        let found: HashSet<(PathBuf, String)> = self
            .splits
            .iter()
            .filter_map(|s| s.info.as_ref())
            .map(|(path, info)| (path.clone(), info.name.clone()))
            .collect();
        for dir in dirs {
            let Some(info) = info_for(dir, &mut infos, &mut self.problems).cloned() else {
                continue;
            };
            for split in &info.splits {
                let found = found.contains(&(info.path.clone(), split.name.clone()));
                if let (false, Some(prefix)) = (found, &split.file_prefix) {
                    self.problems.push(Problem::SplitMissing {
                        split: split.name.clone(),
                        info: info.path.clone(),
                        prefix: prefix.clone(),
                    });
                }
            }
        }
        self.members = self.placed(&files);
    }

    /// The members `files` make: each split's shards in shard order, where the split first
    /// appears among `files`; files of no split where they are.
    fn placed(&self, files: &[PathBuf]) -> Vec<Member> {
        let split_of: HashMap<&Path, usize> = self
            .splits
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.set.shards.iter().map(move |sh| (sh.path.as_path(), i)))
            .collect();
        let mut placed = vec![false; self.splits.len()];
        let mut members = Vec::with_capacity(files.len());
        for path in files {
            match split_of.get(path.as_path()).copied() {
                Some(i) => {
                    if let Some(done) = placed.get_mut(i).filter(|d| !**d) {
                        *done = true;
                        if let Some(split) = self.splits.get(i) {
                            members.extend(split.set.shards.iter().map(|sh| Member {
                                path: sh.path.clone(),
                                shard: Some((i, sh.name.number)),
                            }));
                        }
                    }
                }
                None => members.push(Member {
                    path: path.clone(),
                    shard: None,
                }),
            }
        }
        members
    }

    /// Gives splits that would share a name their whole prefix, then their directory too.
    fn disambiguate_names(&mut self) {
        for step in 0..2 {
            let mut uses: HashMap<Untrusted, usize> = HashMap::new();
            for split in &self.splits {
                *uses.entry(split.name.clone()).or_default() += 1;
            }
            for split in &mut self.splits {
                let clash = uses.get(&split.name).is_some_and(|n| *n > 1);
                if clash {
                    split.name = match step {
                        0 => Untrusted::new(split.set.prefix.clone()),
                        _ => Untrusted::new(
                            split
                                .set
                                .dir
                                .join(&split.set.prefix)
                                .to_string_lossy()
                                .into_owned(),
                        ),
                    };
                }
            }
        }
    }

    /// Checks what the shards were counted to hold against `dataset_info.json`. `counts` has one
    /// entry per member (`None` for a member that could not be read).
    pub fn check_counts(&self, counts: &[Option<ShardCount>]) -> Vec<Problem> {
        // Each split's counts, and how many of its members could not be read, gathered in one
        // pass over the members.
        let mut by_split: Vec<(Vec<ShardCount>, u64)> = vec![(Vec::new(), 0); self.splits.len()];
        for (member, count) in self.members.iter().zip(counts) {
            let Some((split, _)) = member.shard else {
                continue;
            };
            let Some((shards, unread)) = by_split.get_mut(split) else {
                continue;
            };
            match count {
                Some(count) => shards.push(count.clone()),
                None => *unread += 1,
            }
        }
        let mut problems = Vec::new();
        for (split, (shards, unread)) in self.splits.iter().zip(&by_split) {
            if let Some((info_path, info)) = &split.info {
                problems.extend(info.check(info_path, shards, *unread));
            }
        }
        problems
    }
}

/// The metadata of `dir`, loaded once per directory.
fn info_for<'a>(
    dir: &Path,
    infos: &'a mut HashMap<PathBuf, Option<DatasetInfo>>,
    problems: &mut Vec<Problem>,
) -> Option<&'a DatasetInfo> {
    infos
        .entry(dir.to_path_buf())
        .or_insert_with(|| match DatasetInfo::load(dir) {
            Some(Ok(info)) => Some(info),
            Some(Err(problem)) => {
                problems.push(problem);
                None
            }
            None => None,
        })
        .as_ref()
}

/// What a tensorflow-datasets metadata file is for, said instead of "not a TFRecord file".
fn metadata_role(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    match name {
        tfds::INFO_FILE => Some("dataset metadata (shard lengths and sizes, checked)"),
        "features.json" => Some("dataset metadata (feature types)"),
        snapshot::METADATA_FILE => {
            Some("tf.data snapshot metadata (dtypes and element count, checked)")
        }
        snapshot::SPEC_FILE => Some("tf.data element spec (component names, dtypes, shapes)"),
        _ if name.ends_with(".labels.txt") => Some("class label names"),
        _ => None,
    }
}

/// A split's name from its shards' prefix: `toy_parcels-train.tfrecord` is `train`.
fn derived_name(prefix: &str, dataset: Option<&str>) -> String {
    let bare = [".tfrecords", ".tfrecord", ".tfrec", ".records", ".record"]
        .iter()
        .find_map(|ext| prefix.strip_suffix(ext))
        .unwrap_or(prefix);
    let without_dataset = dataset
        .and_then(|d| bare.strip_prefix(d))
        .and_then(|rest| rest.strip_prefix('-'));
    without_dataset
        .or_else(|| bare.rsplit('-').next())
        .filter(|n| !n.is_empty())
        .unwrap_or(bare)
        .to_string()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests;
