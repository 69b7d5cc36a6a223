//! Partials merged in any grouping and order give the report of one pass, byte for byte; a
//! partial made with other parameters, cut short or mangled is an error naming it, never a panic.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::crafted::{self, FeatureValue};
use crate::dataset::Dataset;
use crate::payload::Reading;
use crate::schema::Schema;
use crate::stats::figures::StatsReport;
use crate::stats::report;

/// A small deterministic generator (an LCG), so that a failing case is its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn decoder() -> Decoder {
    Decoder::new(Schema::builtin(), Reading::Auto)
}

/// One record: a float (NaN and infinities now and then), an int, a string from a pool large
/// enough to push the frequent values past their slots, and a feature that is an int in some
/// files and a float in others (so the report names the file a kind was first seen in).
fn record(rng: &mut Rng, file: usize, pool: u64) -> Vec<u8> {
    let x = match rng.below(50) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        _ => (rng.below(1 << 20) as f32 - 5e5) / 37.0,
    };
    let s = format!("v{}", rng.below(pool));
    let mixed = if file % 3 == 1 {
        FeatureValue::Floats(vec![rng.below(100) as f32 / 7.0])
    } else {
        FeatureValue::Ints(vec![rng.below(1000) as i64 - 500])
    };
    let mut entries = vec![
        ("x", FeatureValue::Floats(vec![x, x * 0.5])),
        ("id", FeatureValue::Ints(vec![rng.next() as i64])),
        ("s", FeatureValue::Bytes(vec![s.into_bytes()])),
        ("mixed", mixed),
    ];
    if rng.below(4) == 0 {
        entries.pop();
    }
    crafted::example(&entries)
}

/// A dataset in `dir`: shards of `train` and `test` (a shard of `test` missing now and then), a
/// loose file, an empty one; a record damaged now and then.
fn dataset(dir: &Path, rng: &mut Rng) -> Vec<PathBuf> {
    let train = 1 + rng.below(3) as usize;
    let test = rng.below(3) as usize;
    let mut names: Vec<String> = (0..train)
        .map(|i| format!("train-{i:05}-of-{train:05}.tfrecord"))
        .collect();
    // `test` names one more shard than there is when its last is left out.
    let missing = rng.below(2) as usize;
    names.extend((0..test).map(|i| format!("test-{i:05}-of-{:05}.tfrecord", test + missing)));
    names.push("loose.tfrecord".into());
    if rng.below(2) == 0 {
        names.push("empty.tfrecord".into());
    }
    let pool = [50, 3000][rng.below(2) as usize];
    names
        .iter()
        .enumerate()
        .map(|(file, name)| {
            let path = dir.join(name);
            let mut bytes = Vec::new();
            let records = if name.starts_with("empty") {
                0
            } else {
                rng.below(1500)
            };
            for _ in 0..records {
                crate::frame::write_record(&record(rng, file, pool), &mut bytes)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            if records > 0 && rng.below(3) == 0 {
                if let Some(last) = bytes.last_mut() {
                    *last ^= 0xff;
                }
            }
            std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
            path
        })
        .collect()
}

/// The text and JSON reports of `outcome` over `files`, as `stats` prints them, and the
/// problems it says.
fn reports(
    outcome: &Outcome,
    files: &[PathBuf],
    problems: Vec<String>,
) -> (String, String, Vec<String>) {
    let skews = report::skews(&outcome.groups);
    let mut text = Vec::new();
    let json = StatsReport::new(&outcome.groups, files, &skews, &outcome.unreadable);
    report::write_text(&json, &mut text).unwrap_or_else(|e| panic!("{e}"));
    let json = crate::pyjson::to_string(&json).unwrap_or_else(|e| panic!("{e}"));
    let mut said = problems;
    said.extend(outcome.damaged_streams.iter().cloned());
    said.extend(outcome.changed.iter().cloned());
    (String::from_utf8_lossy(&text).into_owned(), json, said)
}

/// One pass over the arguments `args`, as `stats` makes it.
fn one_pass(args: &[PathBuf]) -> (String, String, Vec<String>) {
    let dataset = Dataset::resolve(args);
    let plan = Plan::of(&dataset).with_roots(args);
    let outcome = run::compute(&plan, &decoder(), &ReadOptions::as_is());
    let problems = dataset.problems.iter().map(|p| p.to_string()).collect();
    reports(&outcome, &plan.files, problems)
}

/// The partial of the files `args`, written to `to`.
fn write_partial(args: &[PathBuf], to: &Path) {
    let dataset = Dataset::resolve(args);
    let plan = Plan::of(&dataset).with_roots(args);
    let facts = Facts::of(&dataset, args, Vec::new());
    let mut bytes = Vec::new();
    write(
        &plan,
        &facts,
        (&decoder(), &ReadOptions::as_is()),
        &|_, _| {},
        &mut bytes,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(to, bytes).unwrap_or_else(|e| panic!("{e}"));
}

fn merged(partials: &[PathBuf]) -> (String, String, Vec<String>) {
    let merged = merge(partials).unwrap_or_else(|e| panic!("{e}"));
    reports(&merged.outcome, &merged.files, merged.problems)
}

/// `items` shuffled by `rng`.
fn shuffled<T>(mut items: Vec<T>, rng: &mut Rng) -> Vec<T> {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i as u64 + 1) as usize);
    }
    items
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn partials_in_any_grouping_and_order_merge_into_one_pass(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap_or_else(|e| panic!("{e}"));
        let files = dataset(&data, &mut rng);
        let whole = one_pass(std::slice::from_ref(&data));
        // The files in random order, cut into random parts, each summarised apart.
        let files = shuffled(files, &mut rng);
        let parts = 1 + rng.below(files.len() as u64) as usize;
        let mut groups: Vec<Vec<PathBuf>> = vec![Vec::new(); parts];
        for (i, file) in files.into_iter().enumerate() {
            // Every part gets one file; the rest go anywhere.
            let part = if i < parts { i } else { rng.below(parts as u64) as usize };
            groups[part].push(file);
        }
        let partials: Vec<PathBuf> = groups
            .iter()
            .enumerate()
            .map(|(i, group)| {
                let to = dir.path().join(format!("part{i}.tfrstats"));
                write_partial(group, &to);
                to
            })
            .collect();
        let partials = shuffled(partials, &mut rng);
        let got = merged(&partials);
        prop_assert_eq!(&got.0, &whole.0, "text, seed {}", seed);
        prop_assert_eq!(&got.1, &whole.1, "JSON, seed {}", seed);
        prop_assert_eq!(&got.2, &whole.2, "problems, seed {}", seed);
    }
}

/// A dataset of two shards and its two partials, in a temporary directory.
fn two_partials() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng(7);
    let mut partials = Vec::new();
    for i in 0..2 {
        let path = dir.path().join(format!("train-{i:05}-of-00002.tfrecord"));
        let mut bytes = Vec::new();
        for _ in 0..300 {
            crate::frame::write_record(&record(&mut rng, i, 400), &mut bytes)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        let to = dir.path().join(format!("p{i}.tfrstats"));
        write_partial(&[path], &to);
        partials.push(to);
    }
    (dir, partials)
}

#[test]
fn partials_held_in_memory_merge_as_their_files_do_and_are_named_in_errors() {
    let (dir, partials) = two_partials();
    let held: Vec<Vec<u8>> = partials
        .iter()
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let names = [Path::new("first"), Path::new("second")];
    // Given in reverse order: the merge puts the files in shard order whatever the order given.
    let sources = [
        PartialSource::Bytes {
            name: names[1],
            bytes: &held[1],
        },
        PartialSource::Bytes {
            name: names[0],
            bytes: &held[0],
        },
    ];
    let from_memory = merge_sources(&sources).unwrap_or_else(|e| panic!("{e}"));
    let from_memory = reports(
        &from_memory.outcome,
        &from_memory.files,
        from_memory.problems,
    );
    assert_eq!(from_memory, merged(&partials));
    assert!(
        from_memory.1.contains("\"records\": 600"),
        "{}",
        from_memory.1
    );
    // Cut short in memory: an error naming the partial by the name it was given.
    let cut = &held[1][..held[1].len() - 10];
    let error = merge_sources(&[
        PartialSource::Bytes {
            name: names[0],
            bytes: &held[0],
        },
        PartialSource::Bytes {
            name: names[1],
            bytes: cut,
        },
    ])
    .err()
    .unwrap_or_else(|| panic!("a cut partial merged"));
    assert!(error.to_string().starts_with("second: "), "{error}");
    drop(dir);
}

#[test]
fn partials_made_otherwise_are_refused_by_name() {
    let (dir, partials) = two_partials();
    let bytes = std::fs::read(&partials[1]).unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&bytes);
    let other = dir.path().join("other.tfrstats");
    for (from, to, says) in [
        (
            "\"version\":2",
            "\"version\":3",
            "written in format version 3; this tfr-inspect reads version 2",
        ),
        (
            "\"hll_precision\":12",
            "\"hll_precision\":14",
            "hll_precision 14 (here 12)",
        ),
        (
            "\"sub_bits\":6",
            "\"sub_bits\":7",
            "made with other parameters",
        ),
        (
            "tfr-inspect stats partial",
            "something else",
            "not a tfr-inspect stats partial",
        ),
    ] {
        std::fs::write(&other, text.replacen(from, to, 1)).unwrap_or_else(|e| panic!("{e}"));
        let error = merge(&[partials[0].clone(), other.clone()])
            .err()
            .unwrap_or_else(|| panic!("{to} merged"));
        let error = error.to_string();
        assert!(
            error.starts_with(&crate::escape::path_for_terminal(&other)),
            "{error}"
        );
        assert!(error.contains(says), "{error}");
    }
    // The same file in two partials.
    let error = merge(&[partials[0].clone(), partials[0].clone()])
        .err()
        .map(|e| e.to_string());
    assert!(error.is_some_and(|e| e.contains("each file must be in one partial")));
}

#[test]
fn cut_or_mangled_partials_are_errors_never_panics() {
    let (dir, partials) = two_partials();
    let good = merge(&partials).unwrap_or_else(|e| panic!("{e}"));
    let bytes = std::fs::read(&partials[1]).unwrap_or_else(|e| panic!("{e}"));
    let bad = dir.path().join("bad.tfrstats");
    let mut rng = Rng(11);
    let mut refused = 0;
    // Cut at every length near the line ends and at random ones; bytes flipped, replaced by
    // digits, quotes or brackets; lines doubled.
    let newlines: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let mut cuts: Vec<usize> = newlines
        .iter()
        .flat_map(|n| [*n, *n + 1, n.saturating_sub(1)])
        .collect();
    cuts.extend((0..40).map(|_| rng.below(bytes.len() as u64) as usize));
    let mut mutants: Vec<Vec<u8>> = cuts
        .iter()
        .map(|c| bytes[..(*c).min(bytes.len())].to_vec())
        .collect();
    for _ in 0..300 {
        let mut m = bytes.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(m.len() as u64) as usize;
            let by = [b'9', b'"', b'[', b'{', b'-', b'0', b'\n', 0xff][rng.below(8) as usize];
            m[at] = if rng.below(2) == 0 {
                by
            } else {
                m[at] ^ (1 << rng.below(8))
            };
        }
        mutants.push(m);
    }
    // Lengths that claim the summary is huge, or past the end.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    for len in [
        "\"len\":18446744073709551615",
        "\"len\":1073741825",
        "\"offset\":18446744073709551615",
    ] {
        let field = if len.contains("offset") {
            "\"offset\":0"
        } else {
            "\"len\":"
        };
        if let Some(at) = text.find(field) {
            let end = text[at..].find([',', '}']).map_or(text.len(), |e| at + e);
            mutants.push(format!("{}{len}{}", &text[..at], &text[end..]).into_bytes());
        }
    }
    for mutant in &mutants {
        std::fs::write(&bad, mutant).unwrap_or_else(|e| panic!("{e}"));
        match merge(&[partials[0].clone(), bad.clone()]) {
            Err(e) => {
                refused += 1;
                assert!(
                    e.to_string()
                        .starts_with(&crate::escape::path_for_terminal(&bad)),
                    "{e}"
                );
            }
            // A change that keeps it a partial (a digit of a count, a sample's byte) merges.
            Ok(m) => assert_eq!(m.outcome.groups.len(), good.outcome.groups.len()),
        }
    }
    assert!(
        refused > mutants.len() / 2,
        "{refused} of {}",
        mutants.len()
    );
}

#[test]
fn summaries_keep_every_bit_through_a_partial() {
    let (_dir, partials) = two_partials();
    let merged = merge(&partials).unwrap_or_else(|e| panic!("{e}"));
    let args: Vec<PathBuf> = merged.files.clone();
    let dataset = Dataset::resolve(&args);
    let plan = Plan::of(&dataset);
    let outcome = run::compute(&plan, &decoder(), &ReadOptions::as_is());
    // Whole summaries, not only what the report shows: sums of squares, registers, counters.
    assert_eq!(merged.outcome.groups, outcome.groups);
}
