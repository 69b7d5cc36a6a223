//! `verify`: exit status and reports over the corrupt fixtures.

use super::{run, run_in_process, stdout, testdata};

#[test]
fn clean_files_exit_zero() {
    for name in [
        "examples",
        "images",
        "mnist_like",
        "cifar_like",
        "sequence",
        "raw_strings",
        "empty",
        "corrupt/concatenated",
    ] {
        let output = run([
            "verify".as_ref(),
            testdata(&format!("{name}.tfrecord")).as_os_str(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stdout(&output));
        assert!(stdout(&output).contains(": OK: "));
    }
}

#[test]
fn every_damaged_fixture_exits_one_and_names_the_frame() {
    let dir = testdata("corrupt");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("corrupt dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !name.ends_with(".tfrecord")
            || name == "concatenated.tfrecord"
            || name.starts_with("gzip")
        {
            continue;
        }
        let expect: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expect.json")).expect("expect"),
        )
        .expect("json");
        let problem = &expect["strict_reader"]["first_problem"];
        let output = run_in_process(["verify".as_ref(), path.as_os_str(), "--json".as_ref()]);
        assert_eq!(output.status.code(), Some(1), "{name}");
        let report: serde_json::Value =
            serde_json::from_str(stdout(&output).trim()).expect("verify json");
        let first = &report["problems"][0];
        assert_eq!(first["offset"], problem["frame_offset"], "{name}");
        assert_eq!(first["status"], problem["kind"], "{name}");
        if problem["tf_reported_offset"].is_number() {
            assert_eq!(
                first["tensorflow_offset"], problem["tf_reported_offset"],
                "{name}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 16);
}

#[test]
fn a_quoted_wildcard_checks_every_matching_shard() {
    let pattern = testdata("corrupt/truncated_*.tfrecord");
    let output = run(["verify".as_ref(), pattern.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let verdicts: Vec<&str> = text.lines().filter(|l| l.contains(": DAMAGED: ")).collect();
    assert_eq!(verdicts.len(), 3, "{text}");
    assert!(
        verdicts[0].contains("truncated_in_footer")
            && verdicts[2].contains("truncated_mid_payload")
    );
}

#[test]
fn one_job_finds_what_every_core_finds_and_none_is_refused() {
    let dataset = testdata("realworld/tfds/toy_parcels/2.0.0");
    let dataset = dataset.to_str().unwrap();
    for command in [["verify", "--json"], ["stats", "--json"]] {
        let all = run([command[0], command[1], dataset]);
        let one = run([command[0], "--jobs", "1", command[1], dataset]);
        assert!(!one.stdout.is_empty(), "{command:?}");
        assert_eq!(one.stdout, all.stdout, "{command:?}");
        assert_eq!(one.stderr, all.stderr, "{command:?}");
        assert_eq!(one.status.code(), all.status.code(), "{command:?}");
    }
    let none = run(["verify", "--jobs", "0", dataset]);
    assert_eq!(none.status.code(), Some(2));
    let said = String::from_utf8_lossy(&none.stderr);
    assert!(said.contains("--jobs"), "{said}");
}
