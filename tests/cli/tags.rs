//! `tags`: each run's tags, equal to what TensorBoard's `EventAccumulator` reads.
//!
//! `testdata/tags.golden.json` is written by `scripts/tags_golden.py`, which read every run of
//! each log directory with `EventAccumulator` (every value kept, nothing purged) and described
//! each tag; `testdata/tags/restart` holds a run whose job restarted (steps go back).

use super::{acts_on_a_terminal, run_in_process, stderr, stdout, temp_file, testdata, tfrecord};

const FIELDS: [&str; 10] = [
    "tag",
    "kind",
    "count",
    "first_step",
    "last_step",
    "min_step",
    "max_step",
    "first_wall_time",
    "last_wall_time",
    "out_of_order",
];

#[test]
fn every_run_and_tag_is_what_event_accumulator_reads() {
    let text = std::fs::read_to_string(testdata("tags.golden.json")).unwrap();
    let golden: serde_json::Value = serde_json::from_str(&text).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let logdirs = golden.as_object().unwrap();
    assert!(logdirs.len() >= 5);
    for (logdir, runs) in logdirs {
        let output = run_in_process([
            "tags".as_ref(),
            "--json".as_ref(),
            root.join(logdir).as_os_str(),
        ]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{logdir}: {}",
            stderr(&output)
        );
        let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        let ours = report["runs"].as_array().unwrap();
        let names = |runs: &[serde_json::Value]| -> Vec<String> {
            runs.iter()
                .map(|r| r["run"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names(ours), names(runs.as_array().unwrap()), "{logdir}");
        for (mine, theirs) in ours.iter().zip(runs.as_array().unwrap()) {
            let mine = mine["tags"].as_array().unwrap();
            let theirs = theirs["tags"].as_array().unwrap();
            assert_eq!(mine.len(), theirs.len(), "{logdir}");
            for (a, b) in mine.iter().zip(theirs) {
                for field in FIELDS {
                    assert_eq!(a[field], b[field], "{logdir} {} {field}", b["tag"]);
                }
            }
        }
    }
}

#[test]
fn steps_that_go_back_are_flagged_and_tag_restricts() {
    let output = run_in_process([
        "tags".as_ref(),
        testdata("tags").as_os_str(),
        "--tag".as_ref(),
        "loss".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("run restart: 2 files, 20 events (file_version 2)\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  loss  scalar  9       0..5   0..5   "),
        "{text}"
    );
    assert!(!text.contains("weights"), "{text}");
    assert!(
        text.ends_with("  out of order: loss: 1 step went back (4 -> 2)\n"),
        "{text}"
    );
    let missing = run_in_process([
        "tags".as_ref(),
        testdata("tags").as_os_str(),
        "--tag".as_ref(),
        "nope".as_ref(),
    ]);
    assert!(
        stderr(&missing).contains("no tag nope in any run"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn hostile_tags_are_escaped_and_damage_is_named() {
    // An Event (wall_time 1.0, step 3) whose summary value's tag holds terminal controls.
    let tag = "x\u{1b}]2;owned\u{7}\u{202e}";
    let value = [
        super::len_field(1, tag.as_bytes()),
        vec![0x15, 0, 0, 0x80, 0x3f],
    ]
    .concat();
    let summary = super::len_field(1, &value);
    let event = [
        vec![0x09],
        1.0f64.to_le_bytes().to_vec(),
        vec![0x10, 3],
        super::len_field(5, &summary),
    ]
    .concat();
    let mut bytes = tfrecord(&[&event, &event]);
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let (_dir, path) = temp_file("events.out.tfevents.1.host", &bytes);
    for json in [false, true] {
        let mut args = vec!["tags".as_ref(), path.as_os_str()];
        if json {
            args.push("--json".as_ref());
        }
        let output = run_in_process(args);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(!acts_on_a_terminal(&stdout(&output)), "{}", stdout(&output));
        assert!(stdout(&output).contains("scalar"), "{}", stdout(&output));
        assert!(
            stderr(&output).contains("record 1 at byte"),
            "{}",
            stderr(&output)
        );
    }
}
