//! `stats --format tfdv`: TFDV's `DatasetFeatureStatisticsList`, decoded through the vendored
//! `statistics.proto`, holds the figures `stats --json` reports; it goes only to a new path, a
//! regular file, or standard output when that is no terminal.

use std::path::Path;

use prost_reflect::{DynamicMessage, ReflectMessage, Value};
use serde_json::Value as Json;

use super::dataset::toy_parcels;
use super::{run, stderr, stdout};

fn decode(bytes: &[u8]) -> DynamicMessage {
    let pool = tfr_core::stats::tfdv::descriptors().unwrap();
    let list = pool
        .get_message_by_name(tfr_core::stats::tfdv::LIST)
        .unwrap();
    DynamicMessage::decode(list, bytes).unwrap()
}

fn field(message: &DynamicMessage, name: &str) -> Value {
    assert!(
        message.descriptor().get_field_by_name(name).is_some(),
        "{} has no {name}",
        message.descriptor().full_name()
    );
    message.get_field_by_name(name).unwrap().into_owned()
}

fn message(message_: &DynamicMessage, name: &str) -> DynamicMessage {
    field(message_, name).as_message().unwrap().clone()
}

fn list(message: &DynamicMessage, name: &str) -> Vec<DynamicMessage> {
    field(message, name)
        .as_list()
        .unwrap()
        .iter()
        .map(|v| v.as_message().unwrap().clone())
        .collect()
}

fn f64_of(message: &DynamicMessage, name: &str) -> f64 {
    match field(message, name) {
        Value::F64(v) => v,
        Value::F32(v) => f64::from(v),
        other => panic!("{name}: {other:?}"),
    }
}

fn u64_of(message: &DynamicMessage, name: &str) -> u64 {
    field(message, name).as_u64().unwrap()
}

fn number(json: &Json) -> f64 {
    json.as_f64().unwrap()
}

/// Equal to what JSON printed, as far as JSON's decimal text is read back here (serde_json's
/// reading of a shortest decimal may miss the double by an ulp).
fn close(got: f64, printed: f64) {
    assert!(
        got == printed || (got - printed).abs() <= 1e-12 * printed.abs(),
        "{got} != {printed}"
    );
}

#[test]
fn the_tfdv_statistics_hold_what_stats_json_reports() {
    let (tmp, dir) = toy_parcels();
    let to = tmp.path().join("stats.pb");
    let output = run([
        "stats".as_ref(),
        "--format".as_ref(),
        "tfdv".as_ref(),
        "-o".as_ref(),
        to.as_os_str(),
        dir.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    let written = std::fs::read(&to).unwrap();
    // Without -o, to a pipe: the same bytes.
    let piped = run([
        "stats".as_ref(),
        "--format".as_ref(),
        "tfdv".as_ref(),
        dir.as_os_str(),
    ]);
    assert_eq!(piped.stdout, written);
    let json: Json = serde_json::from_str(&stdout(&run([
        "stats".as_ref(),
        "--json".as_ref(),
        dir.as_os_str(),
    ])))
    .unwrap();

    let decoded = decode(&written);
    let datasets = list(&decoded, "datasets");
    let splits = json["splits"].as_array().unwrap();
    assert_eq!(datasets.len(), splits.len());
    assert_eq!(splits.len(), 2);
    let mut seen = std::collections::BTreeSet::new();
    for (dataset, split) in datasets.iter().zip(splits) {
        assert_eq!(field(dataset, "name").as_str(), split["name"].as_str());
        assert_eq!(
            u64_of(dataset, "num_examples"),
            split["records"].as_u64().unwrap()
        );
        let features = list(dataset, "features");
        let reported = split["features"].as_array().unwrap();
        assert_eq!(features.len(), reported.len());
        for (feature, figures) in features.iter().zip(reported) {
            let name = field(feature, "name");
            assert_eq!(name.as_str(), figures["feature"].as_str());
            let kind = feature
                .descriptor()
                .get_field_by_name("type")
                .unwrap()
                .kind()
                .as_enum()
                .unwrap()
                .get_value(field(feature, "type").as_enum_number().unwrap())
                .unwrap()
                .name()
                .to_string();
            seen.insert(kind.clone());
            let stats = match kind.as_str() {
                "INT" | "FLOAT" => message(feature, "num_stats"),
                "STRING" => message(feature, "string_stats"),
                _ => message(feature, "bytes_stats"),
            };
            let common = message(&stats, "common_stats");
            let records = split["records"].as_u64().unwrap();
            let present = figures["present"].as_u64().unwrap();
            assert_eq!(u64_of(&common, "num_non_missing"), present);
            assert_eq!(u64_of(&common, "num_missing"), records - present);
            let per = &figures["values_per_record"];
            assert_eq!(
                u64_of(&common, "min_num_values"),
                per["min"].as_u64().unwrap()
            );
            assert_eq!(
                u64_of(&common, "max_num_values"),
                per["max"].as_u64().unwrap()
            );
            close(
                f64_of(&common, "avg_num_values"),
                number(&per["mean"]) as f32 as f64,
            );
            if let Some(n) = figures.get("numeric") {
                assert!(kind == "INT" || kind == "FLOAT", "{kind}");
                assert_eq!(
                    u64_of(&common, "tot_num_values"),
                    n["count"].as_u64().unwrap()
                );
                close(f64_of(&stats, "mean"), number(&n["mean"]));
                close(f64_of(&stats, "std_dev"), number(&n["std"]));
                assert_eq!(u64_of(&stats, "num_zeros"), n["zeros"].as_u64().unwrap());
                close(f64_of(&stats, "min"), number(&n["min"]));
                close(f64_of(&stats, "max"), number(&n["max"]));
                close(f64_of(&stats, "median"), number(&n["quantiles"]["median"]));
                let histograms = list(&stats, "histograms");
                assert_eq!(histograms.len(), 2);
                let standard = list(&histograms[0], "buckets");
                let counts: Vec<f64> = standard.iter().map(|b| f64_of(b, "sample_count")).collect();
                let expected: Vec<f64> = n["histogram"]["counts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(number)
                    .collect();
                assert_eq!(counts, expected);
                close(
                    f64_of(&standard[0], "low_value"),
                    number(&n["histogram"]["low"]),
                );
                close(
                    f64_of(standard.last().unwrap(), "high_value"),
                    number(&n["histogram"]["high"]),
                );
                let quantiles = list(&histograms[1], "buckets");
                assert_eq!(quantiles.len(), 8);
                close(
                    f64_of(&quantiles[3], "high_value"),
                    number(&n["quantiles"]["median"]),
                );
                let share: f64 = quantiles.iter().map(|b| f64_of(b, "sample_count")).sum();
                let finite = n["count"].as_u64().unwrap()
                    - n["nan"].as_u64().unwrap()
                    - n["inf"].as_u64().unwrap();
                assert!((share - finite as f64).abs() < 1e-9, "{share} {finite}");
            }
            if let Some(b) = figures.get("bytes") {
                assert_eq!(u64_of(&stats, "unique"), b["distinct"].as_u64().unwrap());
                if kind == "STRING" {
                    close(
                        f64_of(&stats, "avg_length"),
                        number(&b["length"]["mean"]) as f32 as f64,
                    );
                    let top = list(&stats, "top_values");
                    let expected = b["top"].as_array().unwrap();
                    assert_eq!(top.len(), expected.len());
                    for (got, want) in top.iter().zip(expected) {
                        assert_eq!(field(got, "value").as_str(), want["value"].as_str());
                        close(f64_of(got, "frequency"), number(&want["count"]));
                    }
                } else {
                    close(
                        f64_of(&stats, "max_num_bytes"),
                        number(&b["length"]["max"]) as f32 as f64,
                    );
                }
            }
        }
    }
    // toy_parcels has ints, floats, text and images.
    let kinds: Vec<&str> = seen.iter().map(String::as_str).collect();
    assert_eq!(kinds, ["BYTES", "FLOAT", "INT", "STRING"]);
}

#[test]
fn tfdv_statistics_go_only_where_outputs_may() {
    let (tmp, dir) = toy_parcels();
    let shard = dir.join("toy_parcels-train.tfrecord-00000-of-00002");
    let before = std::fs::read(&shard).unwrap();
    // Over an input: refused, the input untouched.
    let output = run([
        "stats".as_ref(),
        "--format".as_ref(),
        "tfdv".as_ref(),
        "-o".as_ref(),
        shard.as_os_str(),
        dir.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("refusing to write over the input"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&shard).unwrap(), before);
    // Into a directory: refused.
    let output = run([
        "stats".as_ref(),
        "--format".as_ref(),
        "tfdv".as_ref(),
        "-o".as_ref(),
        tmp.path().as_os_str(),
        dir.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    // -o with neither --partial nor --format tfdv: a usage error.
    let to = tmp.path().join("x.pb");
    let output = run([
        "stats".as_ref(),
        "-o".as_ref(),
        to.as_os_str(),
        dir.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("-o is where --partial or --format tfdv writes"));
    assert!(!Path::new(&to).exists());
    // A regular file is replaced.
    std::fs::write(&to, b"old").unwrap();
    let output = run([
        "stats".as_ref(),
        "--format".as_ref(),
        "tfdv".as_ref(),
        "-o".as_ref(),
        to.as_os_str(),
        dir.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        list(&decode(&std::fs::read(&to).unwrap()), "datasets").len(),
        2
    );
}
