//! `stats` with what it can know of the records: TensorBoard's runs and tags (checked against
//! what TensorBoard's `EventAccumulator` read from the writers' files), a user schema's fields,
//! and the class names and declared dtypes of a tensorflow-datasets `features.json`.

use std::path::{Path, PathBuf};

use crate::proto::vi;

use serde_json::Value;

use super::{run_in_process_as_binary as run, stderr, stdout, temp_file, testdata, tfrecord};

fn realworld(name: &str) -> PathBuf {
    testdata("realworld").join(name)
}

fn json_of(args: &[&std::ffi::OsStr]) -> Value {
    let mut all = vec!["stats".as_ref(), "--json".as_ref()];
    all.extend_from_slice(args);
    let output = run(all);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

/// The `.reading.json` files under `dir`, each with its run (its directory under `dir`).
fn readings(dir: &Path, under: &Path, found: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            readings(&path, under, found);
        } else if path.to_string_lossy().ends_with(".reading.json") {
            let rel = path.parent().unwrap().strip_prefix(under).unwrap();
            let run = match rel.to_string_lossy().as_ref() {
                "" => ".".to_string(),
                other => other.to_string(),
            };
            found.push((run, path));
        }
    }
}

/// Per tag, the scalars a reading gives: `simple_value`s, and tensors of no dimensions.
fn scalars_read(reading: &Value) -> Vec<(String, Vec<(i64, f64)>)> {
    let mut found = Vec::new();
    if let Some(scalars) = reading["scalars"].as_object() {
        for (tag, events) in scalars {
            let values = events.as_array().unwrap().iter();
            let values =
                values.map(|e| (e["step"].as_i64().unwrap(), e["value"].as_f64().unwrap()));
            found.push((tag.clone(), values.collect()));
        }
    }
    if let Some(tensors) = reading["tensors"].as_object() {
        for (tag, tensor) in tensors {
            let events = tensor["events"].as_array().unwrap();
            let scalar =
                |e: &Value| e["shape"].as_array().unwrap().is_empty() && e["values"].is_f64();
            if events.iter().all(scalar) {
                let values = events
                    .iter()
                    .map(|e| (e["step"].as_i64().unwrap(), e["values"].as_f64().unwrap()));
                found.push((tag.clone(), values.collect()));
            }
        }
    }
    found
}

#[test]
fn event_stats_agree_with_what_event_accumulator_read() {
    let mut compared = 0;
    for root in ["tensorboard", "tensorboardx", "keras"] {
        let dir = testdata("writers").join(root);
        let json = json_of(&[dir.as_os_str()]);
        let runs = json["splits"][0]["runs"].as_array().unwrap();
        let mut found = Vec::new();
        readings(&dir, &dir, &mut found);
        assert!(!found.is_empty());
        assert_eq!(runs.len(), found.len(), "{root}: a run per event file");
        for (name, path) in found {
            let reading: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let ours = runs
                .iter()
                .find(|r| r["run"] == name.as_str())
                .unwrap_or_else(|| panic!("{root}: no run {name}"));
            let tag = |t: &str| {
                ours["tags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["tag"] == t)
                    .unwrap_or_else(|| panic!("{root}/{name}: no tag {t}"))
                    .clone()
            };
            // Every tag TensorBoard lists is there, counted under its plugin.
            for (kind, tags) in reading["tags"].as_object().unwrap() {
                for t in tags.as_array().into_iter().flatten() {
                    let ours = tag(t.as_str().unwrap());
                    let plugin = match kind.as_str() {
                        "tensors" => reading["tensors"][t.as_str().unwrap()]["plugin_name"].clone(),
                        "distributions" => continue,
                        other => Value::String(other.to_string()),
                    };
                    let plugin = plugin.as_str().unwrap();
                    assert!(
                        ours["plugins"][plugin].as_u64().unwrap() > 0,
                        "{root}/{name} {t}: {ours}"
                    );
                }
            }
            for (t, values) in scalars_read(&reading) {
                let ours = tag(&t);
                let at = format!("{root}/{name} {t}");
                let s = &ours["scalars"];
                assert_eq!(s["count"], values.len(), "{at}");
                assert_eq!(ours["values"], values.len(), "{at}");
                let (first, last) = (values[0], values[values.len() - 1]);
                assert_eq!(s["first"]["step"], first.0, "{at}");
                assert_eq!(s["first"]["value"].as_f64(), Some(first.1), "{at}");
                assert_eq!(s["last"]["step"], last.0, "{at}");
                assert_eq!(s["last"]["value"].as_f64(), Some(last.1), "{at}");
                let min = values.iter().map(|v| v.1).fold(f64::INFINITY, f64::min);
                let max = values.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
                assert_eq!(s["min"].as_f64(), Some(min), "{at}");
                assert_eq!(s["max"].as_f64(), Some(max), "{at}");
                let steps = values.iter().map(|v| v.0);
                assert_eq!(ours["steps"]["min"], steps.clone().min().unwrap(), "{at}");
                assert_eq!(ours["steps"]["max"], steps.max().unwrap(), "{at}");
                compared += 1;
            }
        }
    }
    // train/loss, train/accuracy, hparam/accuracy; accuracy; epoch_loss, epoch_learning_rate,
    // and validation's epoch_loss and evaluation_loss_vs_iterations.
    assert_eq!(compared, 8);
}

#[test]
fn event_stats_text_gives_a_table_per_run() {
    let dir = testdata("writers/keras");
    let output = run(["stats".as_ref(), dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("all files: 19 records (19 Event)\n"),
        "{text}"
    );
    let validation: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("run validation:"))
        .collect();
    assert_eq!(
        validation[0],
        "run validation: 5 events (1 file_version), steps 0..4"
    );
    let words = |line: &str| {
        line.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        words(validation[1]),
        [
            "tag", "values", "steps", "plugins", "first", "last", "min", "max"
        ]
    );
    // 4.625272274017334 then 3.7716822624206543, at steps 2 and 4.
    assert_eq!(
        words(validation[3]),
        [
            "evaluation_loss_vs_iterations",
            "2",
            "2..4",
            "scalars",
            "2",
            "4.625",
            "@2",
            "3.772",
            "@4",
            "3.772",
            "4.625"
        ]
    );
    let train = text
        .lines()
        .find(|l| l.trim_start().starts_with("keras "))
        .unwrap();
    assert_eq!(words(train), ["keras", "1", "0", "graph_keras_model", "1"]);
}

#[test]
fn a_user_schema_gives_statistics_per_field() {
    let file = realworld("sensor_readings.tfrecord");
    let include = realworld("user_protos");
    let args = [
        file.as_os_str(),
        "-I".as_ref(),
        include.as_os_str(),
        "--proto".as_ref(),
        "acme/reading.proto".as_ref(),
    ];
    // What Python's text format printed of each record.
    let golden = std::fs::read_to_string(realworld("sensor_readings.golden.txt")).unwrap();
    let numbers = |field: &str| -> Vec<f64> {
        golden
            .lines()
            .filter_map(|l| l.trim().strip_prefix(field))
            .map(|v| v.trim().parse().unwrap())
            .collect()
    };
    let (temperatures, deltas) = (numbers("value:"), numbers("deltas:"));
    assert_eq!((temperatures.len(), deltas.len()), (5, 15));

    let json = json_of(&args);
    let split = &json["splits"][0];
    assert_eq!(split["kinds"]["acme.Reading"], 5);
    let field = |path: &str| {
        split["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["feature"] == path)
            .unwrap_or_else(|| panic!("no {path}: {split}"))
            .clone()
    };
    let value = field("temperature.value");
    assert_eq!(value["section"], "fields");
    assert_eq!(value["kind"], "double");
    let mean = temperatures.iter().sum::<f64>() / 5.0;
    assert_eq!(value["numeric"]["mean"].as_f64(), Some(mean));
    assert_eq!(value["numeric"]["min"].as_f64(), Some(20.5));
    assert_eq!(
        value["numeric"]["histogram"]["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum::<u64>(),
        5
    );
    let d = field("deltas");
    assert_eq!(d["kind"], "repeated sint32");
    assert_eq!(d["values_per_record"]["min"], 3);
    assert_eq!(d["numeric"]["count"], 15);
    let min = deltas.iter().copied().fold(f64::INFINITY, f64::min);
    let max = deltas.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(d["numeric"]["min"].as_f64(), Some(min));
    assert_eq!(d["numeric"]["max"].as_f64(), Some(max));
    assert_eq!(field("temperature")["kind"], "message acme.common.Quantity");
    assert_eq!(
        field("temperature.unit")["bytes"]["top"][0],
        serde_json::json!({"value": "C", "count": 5})
    );

    let output = run(std::iter::once("stats".as_ref()).chain(args));
    let text = stdout(&output);
    let first = text.lines().next().unwrap();
    assert!(
        first.ends_with("sensor_readings.tfrecord: 5 records (5 acme.Reading)"),
        "{text}"
    );
    let section: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "temperature.value")
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        section[1].split_whitespace().collect::<Vec<_>>(),
        ["kind", "double"]
    );
    assert!(
        section.contains(&"  mean                  22.5"),
        "{section:?}"
    );
}

#[test]
fn enums_bools_and_repeated_messages_are_summarised_by_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let proto = dir.path().join("shop.proto");
    std::fs::write(
        &proto,
        "syntax = \"proto3\"; package shop;\n\
         enum Size { SIZE_UNKNOWN = 0; SMALL = 1; LARGE = 2; }\n\
         message Item { Size size = 1; bool gift = 2; }\n\
         message Order { repeated Item items = 1; bool paid = 2; }\n",
    )
    .unwrap();
    let item = |size: u64, gift: bool| {
        super::len_field(1, &[vi(1, size), vi(2, u64::from(gift))].concat())
    };
    // Three orders: [LARGE gift, SMALL], [LARGE, LARGE gift, 7 (no name)] paid, [] paid.
    let orders = [
        [item(2, true), item(1, false)].concat(),
        [item(2, false), item(2, true), item(7, false), vi(2, 1)].concat(),
        vi(2, 1),
    ];
    let payloads: Vec<&[u8]> = orders.iter().map(Vec::as_slice).collect();
    let (_keep, path) = temp_file("orders.tfrecord", &tfrecord(&payloads));
    let args = [
        path.as_os_str(),
        "--proto".as_ref(),
        proto.as_os_str(),
        "--message".as_ref(),
        "shop.Order".as_ref(),
    ];

    let json = json_of(&args);
    let split = &json["splits"][0];
    assert_eq!(split["kinds"]["shop.Order"], 3);
    let field = |path: &str| {
        split["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["feature"] == path)
            .unwrap_or_else(|| panic!("no {path}: {split}"))
            .clone()
    };
    let items = field("items");
    assert_eq!(items["kind"], "repeated message shop.Item");
    assert_eq!(items["present"], 2);
    assert_eq!(items["values_per_record"]["max"], 3);
    let size = field("items.size");
    assert_eq!(size["kind"], "enum shop.Size");
    assert_eq!(
        size["classes"]["top"],
        serde_json::json!([
            {"value": 2, "name": "LARGE", "count": 3},
            {"value": 1, "name": "SMALL", "count": 1},
            {"value": 7, "name": null, "count": 1},
        ])
    );
    assert!(size.get("numeric").is_none());
    // proto3 leaves `false` off the wire: two gifts among the items that say.
    assert_eq!(
        field("items.gift")["bool"],
        serde_json::json!({"true": 2, "false": 0})
    );
    assert_eq!(field("paid")["present"], 2);

    let text = stdout(&run(std::iter::once("stats".as_ref()).chain(args)));
    let size: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "items.size")
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        size[1].split_whitespace().collect::<Vec<_>>(),
        ["kind", "enum", "shop.Size"]
    );
    assert!(
        size.iter().any(|l| l.trim_start() == "top values     2 \"LARGE\" 3, 1 \"SMALL\" 1, 7 (no name) 1"),
        "{size:?}"
    );
    let paid: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "paid")
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        paid.iter()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["true/false", "2/0"]),
        "{paid:?}"
    );
}

#[test]
fn features_json_names_classes_and_counts_declared_bools() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let json = json_of(&[dir.as_os_str()]);
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(testdata("toy_parcels.stats.golden.json")).unwrap(),
    )
    .unwrap();
    let names: Vec<String> = std::fs::read_to_string(dir.join("label.labels.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    for split in json["splits"].as_array().unwrap() {
        let name = split["name"].as_str().unwrap();
        let label = split["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["feature"] == "label")
            .unwrap();
        assert_eq!(label["declared"], "ClassLabel");
        // Python's histogram of the ids over 0..3 in ten buckets: id i is in bucket 3i.
        let want = golden["splits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap();
        let buckets = want["features"]["label"]["numeric"]["histogram"]["counts"]
            .as_array()
            .unwrap();
        for class in label["classes"]["top"].as_array().unwrap() {
            let id = class["value"].as_u64().unwrap() as usize;
            assert_eq!(class["name"], names[id].as_str(), "{name}");
            assert_eq!(class["count"], buckets[3 * id], "{name} class {id}");
        }
        let grid = split["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["feature"] == "grid")
            .unwrap();
        assert_eq!(grid["kind"], "bool");
        assert_eq!(grid["declared"], "bool");
    }
    let text = stdout(&run(["stats".as_ref(), dir.as_os_str()]));
    let label: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("label "))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        label[1].contains("ClassLabel (stored as int64)"),
        "{label:?}"
    );
    assert!(
        label.iter().any(|l| l.starts_with("  top values")
            && l.contains("3 \"oversize\" 9, 0 \"small\" 8, 2 \"large\" 8")),
        "{label:?}"
    );
    let grid: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("grid "))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(grid[1].contains("bool (stored as int64)"), "{grid:?}");
    assert!(grid.iter().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["true/false", "130/140", "33/39"]), "{grid:?}");
    assert!(!grid.iter().any(|l| l.contains("histogram")), "{grid:?}");
}

#[test]
fn every_tag_and_its_count_is_what_event_accumulator_counts() {
    // `testdata/tags.golden.json`: each log directory's runs and tags as `EventAccumulator` read
    // them (scripts/tags_golden.py). A summary value of metadata alone (tensorboardX's hparams)
    // is no value of its tag there, and not here.
    let text = std::fs::read_to_string(testdata("tags.golden.json")).unwrap();
    let golden: Value = serde_json::from_str(&text).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let logdirs = golden.as_object().unwrap();
    assert!(logdirs.len() >= 5);
    let mut counted = 0;
    for (logdir, runs) in logdirs {
        let json = json_of(&[root.join(logdir).as_os_str()]);
        let mut ours = std::collections::BTreeMap::new();
        for split in json["splits"].as_array().unwrap() {
            for run in split["runs"].as_array().into_iter().flatten() {
                for tag in run["tags"].as_array().unwrap() {
                    let key = (run["run"].to_string(), tag["tag"].to_string());
                    *ours.entry(key).or_insert(0) += tag["values"].as_u64().unwrap();
                }
            }
        }
        let mut theirs = std::collections::BTreeMap::new();
        for run in runs.as_array().unwrap() {
            for tag in run["tags"].as_array().unwrap() {
                let key = (run["run"].to_string(), tag["tag"].to_string());
                theirs.insert(key, tag["count"].as_u64().unwrap());
            }
        }
        assert_eq!(ours, theirs, "{logdir}");
        counted += theirs.len();
    }
    assert!(counted >= 20, "{counted} tags");
}

#[test]
fn summary_metadata_without_a_value_is_counted_with_the_run_s_other_events() {
    let file =
        testdata("writers/tensorboardx/hparams/events.out.tfevents.1700000000.writer-fixtures");
    let json = json_of(&[file.as_os_str()]);
    let run = &json["splits"][0]["runs"][0];
    assert_eq!(run["other"]["summary metadata without a value"], 3, "{run}");
    let tags: Vec<&str> = run["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tag"].as_str().unwrap())
        .collect();
    assert_eq!(tags, ["hparam/accuracy"]);
}
