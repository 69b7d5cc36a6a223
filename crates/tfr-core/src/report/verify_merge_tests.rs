//! Any split of a dataset's files into parts, each verified apart and written as `verify --json`
//! writes it, merges into the verdicts and the dataset summary of one run over all of them.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::dataset::Summary;
use crate::dataset::report::DatasetReport;
use crate::input::OpenOptions;
use crate::report::verify::{
    DatasetLine, FILE_LINE, FileLine, Outcome, VerifyOptions, VerifyReport,
};
use crate::resync::ResyncBudget;

/// Shards of two splits (one missing its last shard now and then), a loose file; records of
/// random lengths, some files with a flipped byte or cut short.
fn dataset(dir: &Path, seed: u64) -> Vec<PathBuf> {
    let mut state = seed;
    let mut below = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) % n.max(1)
    };
    let train = 1 + below(3);
    let test = below(3);
    let missing = below(2);
    let mut names: Vec<String> = (0..train)
        .map(|i| format!("train-{i:05}-of-{train:05}.tfrecord"))
        .collect();
    names.extend((0..test).map(|i| format!("test-{i:05}-of-{:05}.tfrecord", test + missing)));
    names.push("loose.tfrecord".into());
    names
        .iter()
        .map(|name| {
            let mut bytes = Vec::new();
            for _ in 0..below(20) {
                let payload = vec![b'x'; below(100) as usize];
                crate::frame::write_record(&payload, &mut bytes).unwrap_or_else(|e| panic!("{e}"));
            }
            match below(4) {
                0 if !bytes.is_empty() => {
                    let at = below(bytes.len() as u64) as usize;
                    bytes[at] ^= 0x40;
                }
                1 if !bytes.is_empty() => bytes.truncate(below(bytes.len() as u64) as usize),
                _ => {}
            }
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
            path
        })
        .collect()
}

/// `verify --json` of `files` (as the command line writes it, without the places, which a merge
/// recomputes) into `to`.
fn write_part(files: &[PathBuf], to: &Path) {
    let dataset = Dataset::resolve(files);
    let paths: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
    let options = VerifyOptions {
        budget: ResyncBudget::DEFAULT,
        images: false,
    };
    let report = VerifyReport::check(&paths, &open(), options, &());
    let mut out = String::new();
    for (path, verdict) in paths.iter().zip(&report.files) {
        let outcome = match verdict {
            Ok(v) => Outcome::Checked(v),
            Err(e) => Outcome::Unusable {
                error: e.to_string(),
            },
        };
        let line = FileLine {
            kind: FILE_LINE,
            file: crate::escape::path_for_json(path),
            place: None,
            outcome,
        };
        out.push_str(&crate::pyjson::to_string(&line).unwrap_or_else(|e| panic!("{e}")));
        out.push('\n');
    }
    if dataset.is_dataset {
        let tallies = report.tallies();
        let summary = Summary::new(&dataset, &tallies).report();
        let line = DatasetLine::new(&summary);
        out.push_str(&crate::pyjson::to_string(&line).unwrap_or_else(|e| panic!("{e}")));
        out.push('\n');
    }
    std::fs::write(to, out).unwrap_or_else(|e| panic!("{e}"));
}

fn open() -> OpenOptions {
    use crate::payload::{Decoder, Reading};
    OpenOptions::new(Decoder::new(
        crate::schema::Schema::builtin(),
        Reading::Auto,
    ))
}

/// One run over `files`: per member its path, what the text says and its tally; the summary.
type Verdicts = (Vec<(PathBuf, Option<(Said, Tally)>)>, DatasetReport);

fn one_run(files: &[PathBuf]) -> Verdicts {
    let dataset = Dataset::resolve(files);
    let paths: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
    let options = VerifyOptions {
        budget: ResyncBudget::DEFAULT,
        images: false,
    };
    let report = VerifyReport::check(&paths, &open(), options, &());
    let tallies = report.tallies();
    let summary = Summary::new(&dataset, &tallies).report();
    let verdicts = paths
        .iter()
        .zip(&report.files)
        .map(|(p, v)| (p.clone(), v.as_ref().ok().map(|v| (v.said(), v.tally))))
        .collect();
    (verdicts, summary)
}

fn merged(parts: &[PathBuf]) -> Verdicts {
    verdicts(merge(parts).unwrap_or_else(|e| panic!("{e}")))
}

/// The parts' texts read into memory first, then merged from there, as a pipeline merges what
/// its workers sent.
fn merged_from_memory(parts: &[PathBuf]) -> Verdicts {
    let texts = parts
        .iter()
        .map(|p| {
            let text = std::fs::read(p).unwrap_or_else(|e| panic!("{e}"));
            (p.clone(), std::io::Cursor::new(text))
        })
        .collect();
    verdicts(merge_readers(texts).unwrap_or_else(|e| panic!("{e}")))
}

fn verdicts(merged: Merged) -> Verdicts {
    let tallies: Vec<Option<Tally>> = merged
        .files
        .iter()
        .map(|f| f.outcome.as_ref().ok().map(|(_, t)| *t))
        .collect();
    let summary = Summary::new(&merged.dataset, &tallies).report();
    let verdicts = merged
        .files
        .into_iter()
        .map(|f| (f.path, f.outcome.ok()))
        .collect();
    (verdicts, summary)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn any_split_into_parts_merges_into_one_run(seed in any::<u64>(), cuts in any::<u64>()) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap_or_else(|e| panic!("{e}"));
        let mut files = dataset(&data, seed);
        files.sort();
        let whole = one_run(&files);
        // Each file to a part the bits of `cuts` choose; parts given in reverse.
        let mut groups: Vec<Vec<PathBuf>> = vec![Vec::new(); 3];
        for (i, file) in files.iter().enumerate() {
            groups[((cuts >> (2 * i)) % 3) as usize].push(file.clone());
        }
        let parts: Vec<PathBuf> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.is_empty())
            .map(|(i, group)| {
                let to = dir.path().join(format!("part{i}.json"));
                write_part(group, &to);
                to
            })
            .rev()
            .collect();
        prop_assert_eq!(merged_from_memory(&parts), merged(&parts));
        prop_assert_eq!(merged(&parts), whole);
    }
}

#[test]
fn a_part_read_from_memory_that_is_not_verify_json_is_refused_naming_it() {
    let parts = vec![(
        PathBuf::from("shard-3 verdict"),
        std::io::Cursor::new(b"not json\n".to_vec()),
    )];
    let error = merge_readers(parts).err().map(|e| e.to_string());
    let error = error.unwrap_or_default();
    assert!(
        error.starts_with("shard-3 verdict: line 1: not a line of `verify --json`"),
        "{error}"
    );
}
