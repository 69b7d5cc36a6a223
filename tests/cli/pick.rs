//! `head`, `tail` and `sample`: the records they pick, shown exactly as `show` shows them, on
//! clean, damaged, empty and dataset files; a sample's seed; a closed output.
//!
//! The commands run in process, as the binary runs them, errors and status included; the binary
//! itself is run for a directory it refuses, a closed output and standard input.

use std::path::{Path, PathBuf};

use super::count::numbered;
use super::dataset::toy_parcels;
use super::{Ran, run, run_in_process, run_in_process_as_binary, stderr, stdout, testdata};

/// `show`'s output for `args` after the file (e.g. `--range 3..5 --format text`), in process.
fn show(file: &Path, args: &[&str]) -> String {
    let mut all = vec![std::ffi::OsStr::new("show"), file.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    stdout(&run_in_process_as_binary(all))
}

/// `command` over `file` with `args` after it, in process.
fn picked(command: &[&str], file: &Path, args: &[&str]) -> Ran {
    let mut all: Vec<&std::ffi::OsStr> = command.iter().map(std::ffi::OsStr::new).collect();
    all.push(file.as_os_str());
    all.extend(args.iter().map(std::ffi::OsStr::new));
    run_in_process_as_binary(all)
}

/// The record numbers of `--format text` output (its `# record N` headers).
fn numbers(text: &str) -> Vec<usize> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# record "))
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn head_and_tail_print_what_show_prints_for_their_records() {
    let file = testdata("mnist_like.tfrecord");
    for format in [
        &["--format", "tree"][..],
        &["--format", "text"],
        &["--json"],
    ] {
        let head = picked(&["head", "-n", "3"], &file, format);
        assert_eq!(head.status.code(), Some(0));
        assert_eq!(
            stdout(&head),
            show(&file, &[&["--range", "0..3"], format].concat())
        );
        let tail = picked(&["tail", "-n", "3"], &file, format);
        assert_eq!(tail.status.code(), Some(0));
        assert_eq!(
            stdout(&tail),
            show(&file, &[&["--range", "17..20"], format].concat())
        );
        assert_eq!(stderr(&tail), "");
    }
    // Ten by default, as `head` means it.
    let head = picked(&["head"], &file, &["--format", "text"]);
    assert_eq!(numbers(&stdout(&head)), (0..10).collect::<Vec<_>>());
    let tail = picked(&["tail"], &file, &["--format", "text"]);
    assert_eq!(numbers(&stdout(&tail)), (10..20).collect::<Vec<_>>());
    // `--notes` as show takes it.
    let notes = picked(&["head", "-n", "1"], &file, &["--notes"]);
    assert_eq!(stdout(&notes), show(&file, &["--range", "0..1", "--notes"]));
}

#[test]
fn more_than_the_file_has_is_the_whole_file_and_zero_is_nothing() {
    let file = testdata("images.tfrecord");
    let whole = show(&file, &["--json"]);
    for command in ["head", "tail"] {
        let all = picked(&[command, "-n", "1000"], &file, &["--json"]);
        assert_eq!(all.status.code(), Some(0));
        assert_eq!(stdout(&all), whole, "{command}");
        assert_eq!(stderr(&all), "", "{command}");
        let none = picked(&[command, "-n", "0"], &file, &[]);
        assert_eq!(none.status.code(), Some(0));
        assert_eq!(
            (stdout(&none), stderr(&none)),
            (String::new(), String::new())
        );
    }
    let all = picked(&["sample", "1000"], &file, &["--json", "--seed", "3"]);
    assert_eq!(stdout(&all), whole);
    let none = picked(&["sample", "0"], &file, &["--seed", "3"]);
    assert_eq!(
        (none.status.code(), stdout(&none)),
        (Some(0), String::new())
    );
}

#[test]
fn an_empty_file_shows_nothing_and_is_no_error() {
    let file = testdata("empty.tfrecord");
    for command in [&["head"][..], &["tail"], &["sample", "4", "--seed", "1"]] {
        let mut args: Vec<&str> = command.to_vec();
        let path = file.to_str().unwrap();
        args.push(path);
        let output = run_in_process_as_binary(&args);
        assert_eq!(output.status.code(), Some(0), "{command:?}");
        assert_eq!(stdout(&output), "", "{command:?}");
        assert_eq!(stderr(&output), "", "{command:?}");
    }
}

#[test]
fn damaged_records_are_said_as_show_says_them_and_exit_one() {
    // Record 199 of 200 is cut short: the last of the file.
    let file = testdata("corrupt/truncated_mid_payload.tfrecord");
    let tail = picked(&["tail", "-n", "2"], &file, &["--json"]);
    assert_eq!(tail.status.code(), Some(1));
    let shown = run_in_process_as_binary([
        "show".as_ref(),
        file.as_os_str(),
        "--range".as_ref(),
        "198..200".as_ref(),
        "--json".as_ref(),
    ]);
    assert_eq!(stdout(&tail), stdout(&shown));
    assert_eq!(stderr(&tail), stderr(&shown));
    assert!(
        stderr(&tail).contains("record 199 at byte 19982: skipped: truncated"),
        "{}",
        stderr(&tail)
    );
    assert_eq!(stdout(&tail).lines().count(), 1);
    // The head of the same file is clean.
    let head = picked(&["head", "-n", "5"], &file, &[]);
    assert_eq!(head.status.code(), Some(0));
    // A sample of every record meets the damage too.
    let sample = picked(&["sample", "500"], &file, &["--seed", "1", "--json"]);
    assert_eq!(sample.status.code(), Some(1));
    assert_eq!(stdout(&sample).lines().count(), 199);
}

#[test]
fn a_shard_of_a_dataset_is_worded_by_its_features_json_and_a_directory_is_refused() {
    let (_tmp, dir) = toy_parcels();
    let shard = dir.join("toy_parcels-train.tfrecord-00001-of-00002");
    let head = picked(&["head", "-n", "2"], &shard, &[]);
    assert_eq!(head.status.code(), Some(0), "{}", stderr(&head));
    assert_eq!(stdout(&head), show(&shard, &["--range", "0..2"]));
    assert!(stdout(&head).contains("(as features.json describes them)"));
    let tail = picked(&["tail", "-n", "1"], &shard, &[]);
    assert!(
        stdout(&tail).starts_with("record 14  "),
        "{}",
        stdout(&tail)
    );
    let refused = run(["head".as_ref(), dir.as_os_str()]);
    assert_eq!(refused.status.code(), Some(2));
    let in_process = picked(&["head"], &dir, &[]);
    assert_eq!(
        (
            in_process.status.code(),
            stdout(&in_process),
            stderr(&in_process)
        ),
        (Some(2), stdout(&refused), stderr(&refused))
    );
    assert!(
        stderr(&refused).contains("is a directory, not a TFRecord file"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn a_seed_draws_the_same_records_and_no_seed_names_the_one_it_drew() {
    let dir = tempfile::tempdir().unwrap();
    let file = numbered(dir.path(), "numbers.tfrecord", 100);
    let draw = |seed: &str| {
        let output = picked(
            &["sample", "5"],
            &file,
            &["--seed", seed, "--format", "text"],
        );
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(stderr(&output), "");
        numbers(&stdout(&output))
    };
    let first = draw("7");
    assert_eq!(first.len(), 5);
    assert!(
        first.windows(2).all(|w| w[0] < w[1]),
        "file order: {first:?}"
    );
    assert_eq!(draw("7"), first);
    assert_ne!(draw("8"), first);
    // A record drawn is shown as `show` shows it.
    let one = picked(&["sample", "1"], &file, &["--seed", "7", "--json"]);
    let n = draw_one(&file, "7");
    assert_eq!(stdout(&one), show(&file, &["-n", &n.to_string(), "--json"]));

    let random = picked(&["sample", "5"], &file, &["--format", "text"]);
    let said = stderr(&random);
    let seed = said
        .strip_prefix("sample: drawn with seed ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{said}"));
    assert_eq!(
        said,
        format!("sample: drawn with seed {seed} (`--seed {seed}` draws the same records again)\n")
    );
    assert_eq!(draw(seed), numbers(&stdout(&random)));
}

/// The record `sample 1 --seed SEED` draws.
fn draw_one(file: &Path, seed: &str) -> usize {
    let output = picked(
        &["sample", "1"],
        file,
        &["--seed", seed, "--format", "text"],
    );
    numbers(&stdout(&output))[0]
}

#[test]
fn every_record_is_drawn_as_often_over_many_seeds() {
    use tfr_core::report::pick::{Pick, Picked};
    let dir = tempfile::tempdir().unwrap();
    let file = numbered(dir.path(), "ten.tfrecord", 10);
    let path = file.to_str().unwrap().to_string();
    // `sample` prints exactly the records the report draws for its seed, whatever the seed.
    let draw = |seed: u64| Picked::of(Pick::Sample { size: 3, seed }, 10).only.unwrap();
    for seed in (0..2000).step_by(41).chain([1999, u64::MAX]) {
        let shown = seed.to_string();
        let ran = run_in_process(["sample", "3", &path, "--seed", &shown, "--format", "text"]);
        assert_eq!(numbers(&stdout(&ran)), draw(seed), "seed {seed}");
    }
    // And what it draws is uniform: each record is in 3 draws of 10, 600 times in 2000, give or
    // take chance (a standard deviation is about 20.5; these bounds are 6 of them). The seeds
    // are fixed, so this is the same every run.
    let mut drawn = [0u32; 10];
    for seed in 0..2000 {
        let picked = draw(seed);
        assert_eq!(picked.len(), 3);
        for n in picked {
            drawn[n] += 1;
        }
    }
    assert!(drawn.iter().all(|d| (477..723).contains(d)), "{drawn:?}");
    assert_eq!(drawn.iter().sum::<u32>(), 6000);
}

#[test]
fn a_closed_output_ends_them_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let file = numbered(dir.path(), "many.tfrecord", 20_000);
    for command in ["head -n 20000", "tail -n 20000", "sample 20000 --seed 1"] {
        let err = dir.path().join("err");
        let status = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "\"$0\" {command} \"$1\" 2>\"$2\" | head -c 100 >/dev/null; exit ${{PIPESTATUS[0]}}"
            ))
            .arg(env!("CARGO_BIN_EXE_tfr-inspect"))
            .arg(&file)
            .arg(&err)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "{command}");
        assert_eq!(std::fs::read_to_string(&err).unwrap(), "", "{command}");
    }
}

#[test]
fn standard_input_is_read_as_a_file() {
    let file: PathBuf = testdata("examples.tfrecord");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(["tail", "-n", "2", "-", "--json"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let whole = show(&file, &["--json"]);
    let last: Vec<&str> = whole.lines().rev().take(2).collect();
    let last: String = last.iter().rev().map(|l| format!("{l}\n")).collect();
    assert_eq!(stdout(&output), last);
}
