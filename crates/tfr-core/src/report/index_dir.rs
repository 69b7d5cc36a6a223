//! `index DIR -o OUTDIR`: one record index per shard, as `tfrecord2idx` is run over a directory,
//! each named as DALI's examples name them (`idx_files/train-00001-of-01024.idx`): the shard's
//! file name with `.idx` added.
//!
//! What may be written is settled before anything is: every index gets its own name (two shards
//! of the same name in different directories are refused, not one written over the other), the
//! output directory is neither an input directory nor inside one (so the dataset's directories
//! never change, and a later run over them never finds the indexes among the shards), and a path
//! already taken is replaced only when it is a regular file that reads as an index and the user
//! asked for it (`--force`); anything else there (a shard, a device, a symbolic link, a file that
//! is no index) is refused.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::escape::path_for_terminal;

/// A shard and the index written for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub shard: PathBuf,
    pub index: PathBuf,
}

/// Why no index is written at all.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    #[error(
        "refusing to write indexes into {}: it is {} {}; give a directory of their own (e.g. -o {}), so that the dataset's directory does not change",
        path_for_terminal(outdir),
        if outdir_is_input(outdir, input) { "the input directory" } else { "inside the input directory" },
        path_for_terminal(input),
        path_for_terminal(&suggested(input))
    )]
    InsideInput { outdir: PathBuf, input: PathBuf },

    #[error(
        "{} and {} would both be indexed as {}: index them one directory at a time",
        path_for_terminal(first),
        path_for_terminal(second),
        path_for_terminal(index)
    )]
    SameName {
        first: PathBuf,
        second: PathBuf,
        index: PathBuf,
    },

    #[error("{}: has no file name to name its index by", path_for_terminal(shard))]
    NoName { shard: PathBuf },
}

fn outdir_is_input(outdir: &Path, input: &Path) -> bool {
    absolute(outdir) == absolute(input)
}

/// `data_idx` beside `data`.
fn suggested(input: &Path) -> PathBuf {
    let mut name = input
        .file_name()
        .map(OsString::from)
        .unwrap_or_else(|| OsString::from("data"));
    name.push("_idx");
    input.with_file_name(name)
}

/// The name of a shard's index: its file name with `.idx` added.
pub fn index_name(shard: &Path) -> Option<OsString> {
    let mut name = shard.file_name()?.to_os_string();
    name.push(".idx");
    Some(name)
}

/// The index each shard gets in `outdir`, or every reason none may be written. `input_dirs` are
/// the directories given as inputs; the shards' own directories count as inputs too.
pub fn plan(
    shards: &[PathBuf],
    input_dirs: &[PathBuf],
    outdir: &Path,
) -> Result<Vec<Target>, Vec<PlanError>> {
    let mut errors = Vec::new();
    let out = absolute(outdir);
    let mut inputs: Vec<&Path> = input_dirs.iter().map(PathBuf::as_path).collect();
    inputs.extend(shards.iter().filter_map(|s| s.parent()));
    let mut seen = std::collections::BTreeSet::new();
    for input in inputs {
        let dir = absolute(if input.as_os_str().is_empty() {
            Path::new(".")
        } else {
            input
        });
        if out.starts_with(&dir) && seen.insert(dir) {
            errors.push(PlanError::InsideInput {
                outdir: outdir.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    let mut taken: BTreeMap<OsString, &Path> = BTreeMap::new();
    let mut targets = Vec::with_capacity(shards.len());
    for shard in shards {
        let Some(name) = index_name(shard) else {
            errors.push(PlanError::NoName {
                shard: shard.clone(),
            });
            continue;
        };
        let index = outdir.join(&name);
        if let Some(first) = taken.get(&name) {
            errors.push(PlanError::SameName {
                first: first.to_path_buf(),
                second: shard.clone(),
                index,
            });
            continue;
        }
        taken.insert(name, shard);
        targets.push(Target {
            shard: shard.clone(),
            index,
        });
    }
    match errors.is_empty() {
        true => Ok(targets),
        false => Err(errors),
    }
}

/// Whether `index` may be written: a new path, or (with `replace`) a regular file that reads as
/// an index. The reason it may not, in words, otherwise.
pub fn may_write(index: &Path, replace: bool) -> Result<(), String> {
    let name = path_for_terminal(index);
    let meta = match fs::symlink_metadata(index) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{name}: {e}")),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(format!(
            "refusing to replace {name}: it is a symbolic link, not an index this command wrote"
        ));
    }
    if !kind.is_file() {
        let what = match kind.is_dir() {
            true => "a directory",
            false => "not a regular file",
        };
        return Err(format!("refusing to replace {name}: it is {what}"));
    }
    let is_index = fs::File::open(index)
        .and_then(|f| crate::record_index::is_index(&mut io::BufReader::new(f)))
        .map_err(|e| format!("{name}: {e}"))?;
    match (is_index, replace) {
        (false, _) => Err(format!(
            "refusing to replace {name}: it is no record index (only index files are replaced)"
        )),
        (true, false) => Err(format!(
            "{name} already exists; --force replaces index files"
        )),
        (true, true) => Ok(()),
    }
}

/// `path` made absolute without resolving what does not exist: the longest existing ancestor is
/// resolved (its links followed), the rest appended as written, `..` and `.` taken lexically.
fn absolute(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut base = path;
    loop {
        if let Ok(found) = fs::canonicalize(if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        }) {
            let mut full = found;
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        full.pop();
                    }
                    Component::Normal(name) => full.push(name),
                    _ => {}
                }
            }
            return full;
        }
        let mut components = base.components();
        match components.next_back() {
            Some(last) => {
                rest.push(last);
                base = components.as_path();
            }
            None => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shards(names: &[&str]) -> Vec<PathBuf> {
        names.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn each_shard_gets_its_name_with_idx_added_in_outdir() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let out = dir.path().join("idx");
        let shards = vec![data.join("train-00000-of-00002"), data.join("a.tfrecord")];
        let targets = plan(&shards, std::slice::from_ref(&data), &out).unwrap();
        assert_eq!(
            targets.iter().map(|t| t.index.clone()).collect::<Vec<_>>(),
            [
                out.join("train-00000-of-00002.idx"),
                out.join("a.tfrecord.idx")
            ]
        );
    }

    #[test]
    fn outdir_in_an_input_directory_and_shards_of_one_name_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        fs::create_dir(&data).unwrap();
        let inside = data.join("new").join("idx");
        let errors = plan(&shards(&[]), std::slice::from_ref(&data), &inside).unwrap_err();
        assert!(matches!(errors.as_slice(), [PlanError::InsideInput { .. }]));
        assert!(
            errors[0].to_string().contains("inside the input"),
            "{}",
            errors[0]
        );
        // The shards' own directory is an input too, and `..` does not get out of it.
        let sneaky = dir.path().join("other").join("..").join("data");
        let shard = data.join("x.tfrecord");
        let errors = plan(std::slice::from_ref(&shard), &[], &sneaky).unwrap_err();
        assert!(
            errors[0].to_string().contains("it is the input directory"),
            "{}",
            errors[0]
        );
        let errors = plan(
            &[data.join("a/x.tfrecord"), data.join("b/x.tfrecord")],
            &[],
            &dir.path().join("idx"),
        )
        .unwrap_err();
        assert!(matches!(errors.as_slice(), [PlanError::SameName { .. }]));
    }

    #[test]
    fn only_an_existing_index_is_replaced_and_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.idx");
        assert_eq!(may_write(&new, false), Ok(()));
        let index = dir.path().join("old.idx");
        fs::write(&index, "0 17\n17 16\n").unwrap();
        assert!(may_write(&index, false).unwrap_err().contains("--force"));
        assert_eq!(may_write(&index, true), Ok(()));
        let other = dir.path().join("notes.idx");
        fs::write(&other, "keep me\n").unwrap();
        assert!(
            may_write(&other, true)
                .unwrap_err()
                .contains("no record index")
        );
        assert!(
            may_write(dir.path(), true)
                .unwrap_err()
                .contains("directory")
        );
        #[cfg(unix)]
        {
            let link = dir.path().join("link.idx");
            std::os::unix::fs::symlink(&index, &link).unwrap();
            assert!(
                may_write(&link, true)
                    .unwrap_err()
                    .contains("symbolic link")
            );
        }
    }
}
