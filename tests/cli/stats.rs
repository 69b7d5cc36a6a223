//! `stats`: agreement with statistics computed independently in Python
//! (`scripts/stats_golden.py`, golden in `testdata/toy_parcels.stats.golden.json`), and the text
//! view with its skew flags.

use std::path::Path;

use serde_json::Value;
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_inspect::cli::stats::{StatsArgs, run as stats};
use tfr_inspect::status::Status;

use super::{GIB, run_limited, stderr, stdout, temp_file, testdata, tfrecord};

/// `stats` (with `--json` when `json`) of `path`, run in process: its status and what it wrote.
fn stats_of(path: &Path, json: bool) -> (Status, String) {
    let args = StatsArgs {
        files: vec![path.to_path_buf()],
        json,
        format: None,
        partial: false,
        output: None,
        merge: false,
        decode: Default::default(),
        read: Default::default(),
    };
    let open = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
    let mut out = Vec::new();
    let messages = tfr_inspect::cli::Messages::to(std::io::sink());
    let env = tfr_inspect::cli::Env::plain();
    let status = stats(&args, &open, &env, &messages, &mut out).unwrap();
    (status, String::from_utf8(out).unwrap())
}

fn close(a: &Value, b: &Value, what: &str) {
    let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap_or(f64::NAN));
    let tolerance = 1e-9 * x.abs().max(1.0);
    assert!((x - y).abs() <= tolerance, "{what}: python {x}, stats {y}");
}

#[test]
fn stats_json_agrees_with_python() {
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(testdata("toy_parcels.stats.golden.json")).unwrap(),
    )
    .unwrap();
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let (status, json) = stats_of(&dir, true);
    assert_eq!(status, Status::Clean);
    let ours: Value = serde_json::from_str(&json).unwrap();
    let splits = golden["splits"].as_array().unwrap();
    assert_eq!(splits.len(), 2);
    let mut compared = 0;
    for split in splits {
        let name = split["name"].as_str().unwrap();
        let mine = ours["splits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("split {name}"));
        assert_eq!(mine["records"], split["records"], "{name}");
        let features = split["features"].as_object().unwrap();
        assert_eq!(mine["features"].as_array().unwrap().len(), features.len());
        for (key, want) in features {
            let got = mine["features"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["feature"] == key.as_str())
                .unwrap_or_else(|| panic!("{name}/{key}"));
            let at = |what: &str| format!("{name}/{key} {what}");
            assert_eq!(got["present"], want["present"], "{}", at("present"));
            assert_eq!(got["kinds"], want["kinds"], "{}", at("kinds"));
            let (vg, vw) = (&got["values_per_record"], &want["values_per_record"]);
            assert_eq!(vg["min"], vw["min"], "{}", at("values min"));
            assert_eq!(vg["max"], vw["max"], "{}", at("values max"));
            close(&vw["mean"], &vg["mean"], &at("values mean"));
            if let (Some(n), "bool") = (want.get("numeric"), got["kind"].as_str().unwrap()) {
                // features.json declares it bool: counted as TensorFlow Datasets reads it, 0
                // false and anything else true, where Python counted numbers.
                let (count, zeros) = (n["count"].as_u64().unwrap(), n["zeros"].as_u64().unwrap());
                assert_eq!(got["bool"]["false"], zeros, "{}", at("false"));
                assert_eq!(got["bool"]["true"], count - zeros, "{}", at("true"));
                assert!(got.get("numeric").is_none(), "{}", at("no numbers"));
                compared += 1;
            } else if let Some(n) = want.get("numeric") {
                let g = &got["numeric"];
                assert_eq!(g["count"], n["count"], "{}", at("count"));
                assert_eq!(g["zeros"], n["zeros"], "{}", at("zeros"));
                for stat in ["min", "max", "mean", "std"] {
                    close(&n[stat], &g[stat], &at(stat));
                }
                assert_eq!(
                    g["histogram"]["counts"],
                    n["histogram"]["counts"],
                    "{}",
                    at("histogram")
                );
                close(&n["histogram"]["low"], &g["histogram"]["low"], &at("low"));
                close(
                    &n["histogram"]["high"],
                    &g["histogram"]["high"],
                    &at("high"),
                );
                compared += 1;
            }
            if let Some(b) = want.get("bytes") {
                let g = &got["bytes"];
                assert_eq!(g["count"], b["count"], "{}", at("bytes count"));
                assert_eq!(g["distinct"], b["distinct"], "{}", at("distinct"));
                for stat in ["min", "mean", "max"] {
                    close(&b["length"][stat], &g["length"][stat], &at("length"));
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 14, "7 features in 2 splits");
}

#[test]
fn text_sets_splits_side_by_side_and_flags_skew() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let (status, text) = stats_of(&dir, false);
    assert_eq!(status, Status::Clean);
    assert!(
        text.starts_with("train: 30 records (30 Example)\nvalidation: 8 records (8 Example)\n")
    );
    let weight: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("weight_kg"))
        .collect();
    assert!(
        weight[0].contains("train") && weight[0].contains("validation"),
        "{text}"
    );
    assert!(
        weight
            .iter()
            .any(|l| l.starts_with("  min ") && l.contains("3.159") && l.contains("8.108"))
    );
    assert!(
        weight
            .iter()
            .any(|l| l.starts_with("  ! distribution skew: ")),
        "{text}"
    );
    assert!(text.contains("PNG 30 48x32"));
}

#[test]
fn a_kind_conflict_names_the_file_it_first_appears_in() {
    let dir = tempfile::tempdir().unwrap();
    let int_example = super::len_field(
        1,
        &super::len_field(
            1,
            &[
                super::len_field(1, b"x"),
                super::len_field(2, &super::len_field(3, &super::len_field(1, &[7]))),
            ]
            .concat(),
        ),
    );
    let float_example = super::len_field(
        1,
        &super::len_field(
            1,
            &[
                super::len_field(1, b"x"),
                super::len_field(
                    2,
                    &super::len_field(2, &super::len_field(1, &[0, 0, 0x80, 0x3f])),
                ),
            ]
            .concat(),
        ),
    );
    std::fs::write(
        dir.path().join("a.tfrecord"),
        super::tfrecord(&[&int_example]),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.tfrecord"),
        super::tfrecord(&[&float_example, &float_example]),
    )
    .unwrap();
    let (_, text) = stats_of(dir.path(), false);
    assert!(
        text.contains("CONFLICT: float 2 (first in b.tfrecord), int64 1 (first in a.tfrecord)"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&stats_of(dir.path(), true).1).unwrap();
    let x = &json["splits"][0]["features"][0];
    assert_eq!(x["kind_conflict"], true);
    assert_eq!(x["numeric"]["count"], 3);
    assert_eq!(x["numeric"]["max"], 7.0);
}

/// An Example of one float feature `x` and one int64 feature `y`.
fn float_and_int(x: f32, y: i64) -> Vec<u8> {
    use tfr_core::crafted::{FeatureValue, example};
    example(&[
        ("x", FeatureValue::Floats(vec![x])),
        ("y", FeatureValue::Ints(vec![y])),
    ])
}

/// The number a row of the text prints for `label` (`  max   3000`).
fn printed(text: &str, label: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no {label} in {text}"));
    line.trim_start()
        .trim_start_matches(label)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn text_prints_every_number_rounded_as_json_gives_it() {
    // YouTube-8M-style labels from 330 to 3517, floats whose integer part ends in zeros.
    let records = [
        float_and_int(3000.5, 330),
        float_and_int(-319.5, 3517),
        float_and_int(1340.5, 1689),
        float_and_int(1340.5, 1234),
    ];
    let payloads: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let (_dir, path) = super::temp_file("numbers.tfrecord", &super::tfrecord(&payloads));
    let text = stats_of(&path, false).1;
    let json: Value = serde_json::from_str(&stats_of(&path, true).1).unwrap();
    let features = json["splits"][0]["features"].as_array().unwrap();
    let sections: Vec<&str> = text.split("\n\n").collect();
    for (feature, section) in features.iter().zip(&sections[1..]) {
        let numeric = &feature["numeric"];
        for stat in ["min", "max", "mean", "std"] {
            let want = numeric[stat].as_f64().unwrap();
            let got = printed(section, stat);
            assert!(
                (got - want).abs() <= 5e-4 * want.abs(),
                "{} {stat}: text {got}, JSON {want}\n{section}",
                feature["feature"]
            );
        }
        let histogram = &numeric["histogram"];
        let label = format!(
            "histogram {}..{}",
            tfr_core::words::short(histogram["low"].as_f64().unwrap()),
            tfr_core::words::short(histogram["high"].as_f64().unwrap())
        );
        assert!(section.contains(&label), "{label} in {section}");
    }
    assert_eq!(printed(sections[1], "max"), 3000.0, "{text}");
    assert_eq!(printed(sections[1], "mean"), 1340.0, "{text}");
    assert!(text.contains("histogram -319.5..3000 "), "{text}");
}

#[test]
fn hundreds_of_thousands_of_names_do_not_take_a_sketch_each() {
    use tfr_core::crafted::{FeatureValue, example};
    use tfr_core::stats::MAX_FEATURES;
    // An address space a sketch per name would not fit in.
    const CAP: u64 = GIB / 2;
    // 150 records of 1000 names each, none repeated: 150,000 features in 2.9 MB.
    let payloads: Vec<Vec<u8>> = (0..150)
        .map(|r| {
            let names: Vec<String> = (0..1000).map(|i| format!("f{:07}", r * 1000 + i)).collect();
            let entries: Vec<(&str, FeatureValue)> = names
                .iter()
                .map(|n| (n.as_str(), FeatureValue::Ints(vec![1])))
                .collect();
            example(&entries)
        })
        .collect();
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let (_dir, path) = temp_file("names.tfrecord", &tfrecord(&refs));
    // A sketch per name took 1.9 GB for twice these names; the run needs about 30 MB.
    let output = run_limited(CAP, ["stats".as_ref(), "--json".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let split = &json["splits"][0];
    let features = split["features"].as_array().unwrap();
    assert_eq!(features.len(), MAX_FEATURES);
    assert_eq!(features[0]["name"], "f0000000");
    assert_eq!(
        features[MAX_FEATURES - 1]["name"],
        format!("f{:07}", MAX_FEATURES - 1)
    );
    let folded = &split["folded_features"];
    let rest = 150_000 - MAX_FEATURES as u64;
    assert_eq!(folded["present"], rest);
    assert_eq!(folded["values"], rest);
    assert_eq!(folded["count_exact"], false);
    // An estimate (HyperLogLog, about 1.6% standard error).
    let count = folded["count"].as_u64().unwrap();
    assert!(count.abs_diff(rest) < rest / 20, "{count}");

    let output = run_limited(CAP, ["stats".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("names.tfrecord: 150 records (150 Example); ~")
            && first.ends_with(&format!(
                " features past the first {MAX_FEATURES} by name folded into \"other features\""
            )),
        "{first}"
    );
    let other: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("other features"))
        .collect();
    assert_eq!(
        other[0],
        format!("other features (past the first {MAX_FEATURES} by name: counted, not summarised)")
    );
    assert_eq!(other[2], format!("  present   {rest}"));
    assert_eq!(other[3], format!("  values    {rest}"));
    assert_eq!(other.len(), 4, "{other:?}");
}

#[test]
fn quantiles_and_buckets_are_estimates_within_the_sketch_error() {
    // 2000 floats over four orders of magnitude, both signs, and small integers: two splits.
    let mut next = 0x2545_f491_4f6c_dd1du64;
    let mut rand = move || {
        next ^= next << 13;
        next ^= next >> 7;
        next ^= next << 17;
        (next >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut xs: Vec<f32> = Vec::new();
    let mut ys: Vec<i64> = Vec::new();
    let mut payloads = [Vec::new(), Vec::new()];
    for i in 0..2000 {
        let x = ((rand() * 9.0 - 2.0).exp() * if i % 3 == 0 { -1.0 } else { 1.0 }) as f32;
        let y = (rand() * 100.0) as i64 - 20;
        xs.push(x);
        ys.push(y);
        payloads[i % 2].push(float_and_int(x, y));
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, records) in [("train", &payloads[0]), ("test", &payloads[1])] {
        let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        std::fs::write(
            dir.path().join(format!("{name}.tfrecord-00000-of-00001")),
            super::tfrecord(&refs),
        )
        .unwrap();
    }
    let (status, json) = stats_of(dir.path(), true);
    assert_eq!(status, Status::Clean);
    let json: Value = serde_json::from_str(&json).unwrap();
    let split = |name: &str| {
        json["splits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{json}"))
            .clone()
    };
    let feature = |split: &Value, name: &str| {
        split["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["feature"] == name)
            .unwrap()["numeric"]
            .clone()
    };
    let names = ["p1", "p5", "p25", "median", "p75", "p95", "p99"];
    let shares = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99];
    for (offset, name) in [(0, "train"), (1, "test")] {
        let s = split(name);
        let mut x: Vec<f64> = xs
            .iter()
            .skip(offset)
            .step_by(2)
            .map(|v| f64::from(*v))
            .collect();
        let mut y: Vec<i64> = ys.iter().skip(offset).step_by(2).copied().collect();
        x.sort_by(f64::total_cmp);
        y.sort_unstable();
        let rank = |p: f64, n: usize| ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
        let (nx, ny) = (feature(&s, "x"), feature(&s, "y"));
        for (p, q) in shares.iter().zip(names) {
            let truth = x[rank(*p, x.len())];
            let got = nx["quantiles"][q].as_f64().unwrap();
            assert!(
                (got - truth).abs() <= truth.abs() / 128.0,
                "{name} x {q}: {got} vs {truth}"
            );
            // Integers below 128 in magnitude are exact.
            assert_eq!(
                ny["quantiles"][q],
                y[rank(*p, y.len())] as f64,
                "{name} y {q}"
            );
        }
        // The buckets share the edges of both splits; every value is counted once, and the
        // integers' buckets are exact.
        let (low, high) = (-20.0, 79.0);
        assert_eq!(ny["histogram"]["low"], low);
        let width = (high - low) / 10.0;
        let mut exact = [0u64; 10];
        for v in &y {
            let b = (((*v as f64 - low) / width).floor() as usize).min(9);
            exact[b] += 1;
        }
        assert_eq!(
            ny["histogram"]["counts"],
            serde_json::json!(exact),
            "{name}"
        );
        let counts: Vec<u64> = nx["histogram"]["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        assert_eq!(counts.iter().sum::<u64>(), x.len() as u64);
    }
    assert_eq!(
        feature(&split("train"), "x")["histogram"]["low"],
        feature(&split("test"), "x")["histogram"]["low"]
    );
}

/// An input that cannot be opened has no figures: no split of zero records, no statistics file.
#[test]
fn an_input_that_cannot_be_opened_gets_its_error_and_no_figures() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.tfrecord");
    let text = super::run([Path::new("stats"), &missing]);
    assert_eq!(text.status.code(), Some(2));
    assert_eq!(stdout(&text), "");
    assert!(
        stderr(&text).contains("missing.tfrecord: No such file"),
        "{}",
        stderr(&text)
    );

    let json = super::run([Path::new("stats"), Path::new("--json"), &missing]);
    assert_eq!(json.status.code(), Some(2));
    let report: Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(report["splits"], serde_json::json!([]));
    assert_eq!(report["unreadable"].as_array().map(Vec::len), Some(1));

    let written = dir.path().join("stats.pb");
    let tfdv = super::run([
        Path::new("stats"),
        Path::new("--format"),
        Path::new("tfdv"),
        Path::new("-o"),
        &written,
        &missing,
    ]);
    assert_eq!(tfdv.status.code(), Some(2));
    assert!(!written.exists());

    // An empty file is read: a split of 0 records, not nothing.
    let empty = super::run([Path::new("stats"), &testdata("empty.tfrecord")]);
    assert_eq!(empty.status.code(), Some(0), "{}", stderr(&empty));
    assert!(
        stdout(&empty).starts_with(&format!(
            "{}: 0 records",
            testdata("empty.tfrecord").display()
        )),
        "{}",
        stdout(&empty)
    );
}
