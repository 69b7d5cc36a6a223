//! TensorBoard's plugin summaries as the real writers wrote them (`testdata/writers/`): what the
//! plugin decoders read agrees with what the writer's own library reads (`*.reading.json`:
//! EventAccumulator's and EventFileLoader's values, TensorBoard's `plugin_data_pb2` parses), and
//! `list` and `show` name what each summary is.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use sha2::{Digest, Sha256};
use tfr_core::decode::Value;
use tfr_core::frame::FrameIndex;
use tfr_core::payload::plugin::audio::Clips;
use tfr_core::payload::plugin::custom_scalars::{self, ChartContent};
use tfr_core::payload::plugin::hparams::{self, Domain, HValue};
use tfr_core::payload::plugin::mesh::MeshData;
use tfr_core::payload::plugin::pr_curve::Curve;
use tfr_core::payload::plugin::text::TextCells;
use tfr_core::payload::plugin::{self, PluginValue, Row, TensorValue};
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;

use super::{run_in_process as run, stdout, testdata, tfrecord};

/// The event file in `testdata/writers/<dir>` (the one not a golden or a reading).
fn writer_file(dir: &str) -> PathBuf {
    let dir = testdata(&format!("writers/{dir}"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("writers directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            p.is_file()
                && name.starts_with("events.out.tfevents")
                && !name.contains(".golden.")
                && !name.contains(".reading.")
        })
        .collect();
    assert_eq!(files.len(), 1, "{dir:?}");
    files.remove(0)
}

/// What the writer's own library read from `file`.
fn reading(file: &Path) -> Json {
    let mut name = file.file_name().unwrap().to_os_string();
    name.push(".reading.json");
    serde_json::from_str(&std::fs::read_to_string(file.with_file_name(name)).unwrap()).unwrap()
}

/// Calls `visit` with every summary value of every record of `file`, and its record's index.
fn each_value(file: &Path, mut visit: impl FnMut(usize, &PluginValue<'_>)) {
    let data = std::fs::read(file).unwrap();
    let index = FrameIndex::build(&data);
    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    for frame in index.frames(&data) {
        let payload = frame.payload(&data).unwrap();
        let decoded = decoder.decode(payload);
        let event = decoded.typed(payload, decoder.table()).unwrap();
        let Some(Value::Message(summary)) = event.field("summary").and_then(|f| f.singular())
        else {
            continue;
        };
        for (value, _) in summary.field("value").unwrap().values() {
            let Value::Message(value) = value else {
                panic!("a value that is no message")
            };
            visit(frame.index, &PluginValue::of(&value));
        }
    }
}

/// The value tagged `tag` in `file`, read by `read`.
fn value_read<T>(file: &Path, tag: &str, read: impl Fn(&PluginValue<'_>) -> T) -> T {
    let mut found = None;
    each_value(file, |_, value| {
        if value.tag == tag.as_bytes() {
            found = Some(read(value));
        }
    });
    found.unwrap_or_else(|| panic!("{file:?} has no value {tag}"))
}

/// The rows the value's plugin lays it out as.
fn rows_of(value: &PluginValue<'_>) -> Vec<Row> {
    plugin::plugin_for(value).expect("a plugin").rows(value)
}

fn line_of(value: &PluginValue<'_>) -> String {
    plugin::plugin_for(value).expect("a plugin").line(value)
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The elements of a nested JSON array, row-major.
fn flat(json: &Json) -> Vec<Json> {
    match json {
        Json::Array(items) => items.iter().flat_map(flat).collect(),
        other => vec![other.clone()],
    }
}

#[test]
fn pr_curves_agree_with_event_accumulator_value_for_value() {
    for (dir, tag) in [
        ("tensorboardx", "pr"),
        ("tensorboard/plugins", "pr/pr_curves"),
    ] {
        let file = writer_file(dir);
        let theirs = &reading(&file)["tensors"][tag];
        let values = &theirs["events"][0]["values"];
        let n = values[0].as_array().unwrap().len() as u64;
        let declared = theirs["plugin_data"]["parsed"]["num_thresholds"].as_u64();
        value_read(&file, tag, |value| {
            let curve = Curve::read(value).unwrap();
            assert_eq!((curve.thresholds, curve.declared), (n, declared), "{dir}");
            for j in 0..n {
                let point = curve.point(j).unwrap();
                for (row, ours) in point.values.iter().enumerate() {
                    let theirs = values[row][j as usize].as_f64().unwrap();
                    assert_eq!(*ours, theirs, "{dir}: row {row}, threshold {j}");
                }
            }
            // TensorBoard's thresholds: np.linspace(0, 1, 5).
            let thresholds: Vec<f64> = (0..n).map(|j| curve.point(j).unwrap().threshold).collect();
            assert_eq!(thresholds, [0.0, 0.25, 0.5, 0.75, 1.0]);
            assert_eq!(line_of(value), "pr_curve 5 thresholds");
        });
    }
}

/// A `google.protobuf.Value` as `MessageToDict` gives it.
fn hvalue_json(value: &HValue) -> Json {
    match value {
        HValue::Null | HValue::Unset => Json::Null,
        HValue::Number(x) => json!(x),
        HValue::String(s) => json!(s),
        HValue::Bool(b) => json!(b),
        HValue::List(items) => Json::Array(items.iter().map(hvalue_json).collect()),
        HValue::Struct(fields) => Json::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), hvalue_json(v)))
                .collect(),
        ),
    }
}

/// Members with a value, as `MessageToDict` leaves proto3 defaults out.
fn set(members: &[(&str, Json)]) -> Json {
    let kept = members.iter().filter(|(_, v)| match v {
        Json::String(s) => !s.is_empty(),
        Json::Number(n) => n.as_f64() != Some(0.0),
        Json::Array(items) => !items.is_empty(),
        Json::Null => false,
        _ => true,
    });
    Json::Object(kept.map(|(k, v)| (k.to_string(), v.clone())).collect())
}

/// What our hparams reading holds, in `MessageToDict(preserving_proto_field_name=True)`'s shape.
fn hparams_json(reading: &hparams::Reading) -> Json {
    match reading {
        hparams::Reading::Experiment {
            name,
            description,
            user,
            time_created_secs,
            hparams,
            metrics,
        } => {
            let infos: Vec<Json> = hparams
                .iter()
                .map(|h| {
                    let domain = match &h.domain {
                        Domain::None => None,
                        Domain::Interval { min, max } => Some((
                            "domain_interval",
                            set(&[("min_value", json!(min)), ("max_value", json!(max))]),
                        )),
                        Domain::Discrete(values) => Some((
                            "domain_discrete",
                            Json::Array(values.iter().map(hvalue_json).collect()),
                        )),
                    };
                    let mut members = vec![
                        ("name", json!(h.name)),
                        ("display_name", json!(h.display_name)),
                        ("description", json!(h.description)),
                        ("type", json!(h.data_type)),
                    ];
                    members.extend(domain);
                    set(&members)
                })
                .collect();
            let metrics: Vec<Json> = metrics
                .iter()
                .map(|m| {
                    set(&[
                        (
                            "name",
                            set(&[("group", json!(m.group)), ("tag", json!(m.tag))]),
                        ),
                        ("display_name", json!(m.display_name)),
                        ("description", json!(m.description)),
                        ("dataset_type", json!(m.dataset_type)),
                    ])
                })
                .collect();
            json!({"experiment": set(&[
                ("name", json!(name)),
                ("description", json!(description)),
                ("user", json!(user)),
                ("time_created_secs", json!(time_created_secs)),
                ("hparam_infos", Json::Array(infos)),
                ("metric_infos", Json::Array(metrics)),
            ])})
        }
        hparams::Reading::SessionStart {
            hparams,
            group_name,
            start_time_secs,
            model_uri,
            monitor_url,
        } => {
            let values = hparams
                .iter()
                .map(|(k, v, _)| (k.clone(), hvalue_json(v)))
                .collect();
            json!({"session_start_info": set(&[
                ("hparams", Json::Object(values)),
                ("group_name", json!(group_name)),
                ("start_time_secs", json!(start_time_secs)),
                ("model_uri", json!(model_uri)),
                ("monitor_url", json!(monitor_url)),
            ])})
        }
        hparams::Reading::SessionEnd {
            status,
            end_time_secs,
        } => json!({"session_end_info": set(&[
            ("status", json!(status)),
            ("end_time_secs", json!(end_time_secs)),
        ])}),
        hparams::Reading::Nothing => json!({}),
    }
}

#[test]
fn hparams_experiments_sessions_and_statuses_agree_with_tensorboards_parse() {
    for dir in ["tensorboardx/hparams", "tensorboard", "tensorboard/trial_1"] {
        let file = writer_file(dir);
        let theirs = &reading(&file)["hparams"];
        let mut seen = 0;
        each_value(&file, |_, value| {
            let tag = String::from_utf8(value.tag.to_vec()).unwrap();
            let Some(events) = theirs.get(&tag) else {
                return;
            };
            let parsed = &events[0]["plugin_data"]["parsed"];
            let ours = hparams::Reading::of(value).unwrap();
            assert_eq!(&hparams_json(&ours), parsed, "{dir} {tag}");
            seen += 1;
        });
        assert_eq!(seen, theirs.as_object().unwrap().len(), "{dir}");
    }
    // What list says of each.
    let line = |dir: &str, tag: &str| value_read(&writer_file(dir), tag, line_of);
    assert_eq!(
        line("tensorboard", "_hparams_/experiment"),
        "hparams experiment: lr [0.0001, 0.1], layers [1.0, 4.0], optimizer {\"adam\", \"sgd\"}, \
         dropout {false, true}; metric accuracy"
    );
    assert_eq!(
        line("tensorboardx/hparams", "_hparams_/experiment"),
        "hparams experiment: lr float64, layers float64, optimizer string, dropout bool; \
         metric hparam/accuracy"
    );
    assert_eq!(
        line("tensorboard/trial_1", "_hparams_/session_start_info"),
        "hparams session start: dropout=true, layers=2.0, lr=0.01, optimizer=\"adam\"; \
         group \"trial_1\""
    );
    assert_eq!(
        line("tensorboard/trial_1", "_hparams_/session_end_info"),
        "hparams session end: STATUS_SUCCESS at 2023-11-14 22:14:20.000 UTC"
    );
    assert_eq!(
        line("tensorboardx/hparams", "_hparams_/session_end_info"),
        "hparams session end: STATUS_SUCCESS"
    );
}

#[test]
fn custom_scalar_layouts_agree_with_tensorboards_parse() {
    for (dir, expected) in [
        ("tensorboardx", "multiline train/loss, train/accuracy"),
        ("tensorboard/plugins", "multiline train/.*"),
    ] {
        let file = writer_file(dir);
        let theirs = &reading(&file)["tensors"]["custom_scalars__config__"]["events"][0]["layout"];
        let ours = value_read(&file, "custom_scalars__config__", |v| {
            custom_scalars::read(v).unwrap()
        });
        let categories: Vec<Json> = ours
            .iter()
            .map(|c| {
                let charts: Vec<Json> = c
                    .charts
                    .iter()
                    .map(|chart| {
                        let content = match &chart.content {
                            ChartContent::Multiline(tags) => ("multiline", json!({"tag": tags})),
                            ChartContent::Margin(series) => {
                                let series: Vec<Json> = series
                                    .iter()
                                    .map(|(v, l, u)| json!({"value": v, "lower": l, "upper": u}))
                                    .collect();
                                ("margin", json!({ "series": series }))
                            }
                            ChartContent::None => ("none", Json::Null),
                        };
                        set(&[("title", json!(chart.title)), content])
                    })
                    .collect();
                set(&[
                    ("title", json!(c.title)),
                    ("chart", Json::Array(charts)),
                    ("closed", json!(c.closed)),
                ])
                .as_object()
                .map(|o| {
                    let mut o = o.clone();
                    if o.get("closed") == Some(&json!(false)) {
                        o.remove("closed");
                    }
                    Json::Object(o)
                })
                .unwrap()
            })
            .collect();
        assert_eq!(&json!({ "category": categories }), theirs, "{dir}");
        let rows = value_read(&file, "custom_scalars__config__", rows_of);
        assert_eq!(rows[0].label, "category \"Training\"");
        assert_eq!(rows[0].children[0].detail, expected);
    }
}

#[test]
fn audio_clips_agree_with_the_writers_sample_rate_length_and_bytes() {
    // tensorboardX: TF1's Summary.Audio, as EventAccumulator reads it.
    let file = writer_file("tensorboardx");
    let theirs = &reading(&file)["audio"]["tone"][0];
    let rate = theirs["sample_rate"].as_f64().unwrap();
    let frames = theirs["length_frames"].as_u64().unwrap();
    value_read(&file, "tone", |value| {
        let clips = Clips::read(value).unwrap();
        let legacy = clips.legacy.clone().unwrap();
        assert_eq!(legacy.sample_rate, rate);
        assert_eq!(legacy.length_frames as u64, frames);
        assert_eq!(json!(legacy.content_type), theirs["content_type"]);
        let clip = &clips.clips[0];
        assert_eq!(json!(clip.encoded.len()), theirs["encoded_length"]);
        assert_eq!(json!(sha256(clip.encoded)), theirs["encoded_sha256"]);
        // The WAV header soundfile wrote says what the proto's fields say.
        let wav = clip.wav.clone().unwrap();
        assert_eq!(
            (f64::from(wav.sample_rate), wav.frames()),
            (rate, Some(frames))
        );
        assert_eq!(wav.seconds(), Some(frames as f64 / rate));
        assert_eq!(line_of(value), "audio 1 clip 8000 Hz mono 0.01 s");
    });
    // TensorBoard: a [1, 2] string tensor of the WAV TensorFlow encoded and an empty label.
    let file = writer_file("tensorboard/plugins");
    let theirs = &reading(&file)["tensors"]["tone"];
    let elements = flat(&theirs["events"][0]["values"]);
    value_read(&file, "tone", |value| {
        let clips = Clips::read(value).unwrap();
        assert_eq!(clips.count, 1);
        assert_eq!(
            json!(clips.encoding),
            theirs["plugin_data"]["parsed"]["encoding"]
        );
        let clip = &clips.clips[0];
        assert_eq!(
            [json!(sha256(clip.encoded)), json!(clip.encoded.len())],
            elements[..2]
        );
        assert_eq!(
            [json!(sha256(clip.label)), json!(clip.label.len())],
            elements[2..]
        );
        // The same tone: TensorFlow's WAV header gives tensorboardX's rate and length.
        let wav = clip.wav.clone().unwrap();
        assert_eq!(
            (f64::from(wav.sample_rate), wav.frames()),
            (rate, Some(frames))
        );
        assert_eq!((wav.channels, wav.format, wav.bits_per_sample), (1, 1, 16));
        assert_eq!(line_of(value), "audio 1 clip 8000 Hz mono 0.01 s");
    });
}

#[test]
fn text_summaries_of_every_shape_agree_with_event_file_loader() {
    for (dir, tag, table) in [
        (
            "tensorboard/plugins",
            "table",
            vec!["[0]  \"name\"  \"value\"", "[1]  \"lr\"    \"0.01\""],
        ),
        ("tensorboard/plugins", "note", vec!["a *markdown* note"]),
        (
            "tensorboardx",
            "table/text_summary",
            vec![
                "| name | value |",
                "| --- | --- |",
                "| lr | 0.01 |",
                "| layers | 2 |",
            ],
        ),
    ] {
        let file = writer_file(dir);
        let theirs = &reading(&file)["tensors"][tag]["events"][0];
        value_read(&file, tag, |value| {
            let tensor = TensorValue::read(value.tensor().unwrap());
            let cells = TextCells::read(&tensor).unwrap();
            let shape: Vec<u64> = theirs["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .collect();
            assert_eq!(cells.shape, shape, "{tag}");
            let ours: Vec<Json> = cells
                .cells
                .iter()
                .map(|c| json!(String::from_utf8(c.to_vec()).unwrap()))
                .collect();
            assert_eq!(ours, flat(&theirs["values"]), "{tag}");
            // Laid out as a table: rows of cells, or a single text's lines.
            let mut shown = Vec::new();
            let mut walk = |rows: &[Row]| {
                for row in rows {
                    let label = row.label.trim_end();
                    shown.push(match (label.is_empty(), row.children.is_empty()) {
                        (true, _) => row.detail.clone(),
                        (false, true) => format!("{label}  {}", row.detail),
                        (false, false) => {
                            shown.extend(row.children.iter().map(|c| c.detail.clone()));
                            continue;
                        }
                    });
                }
            };
            walk(&rows_of(value));
            assert_eq!(shown, table, "{tag}");
        });
    }
}

#[test]
fn meshes_agree_with_tensorboards_parse_and_values() {
    for (dir, parts) in [
        (
            "tensorboardx",
            [
                ("tetrahedron_1", "vertices"),
                ("tetrahedron_2", "faces"),
                ("tetrahedron_3", "colors"),
            ],
        ),
        (
            "tensorboard/plugins",
            [
                ("tetrahedron_VERTEX", "vertices"),
                ("tetrahedron_FACE", "faces"),
                ("tetrahedron_COLOR", "colors"),
            ],
        ),
    ] {
        let file = writer_file(dir);
        let all = reading(&file);
        for (tag, part) in parts {
            let theirs = &all["tensors"][tag];
            value_read(&file, tag, |value| {
                let data = MeshData::read(value).unwrap();
                let ours = set(&[
                    ("name", json!(data.name)),
                    ("content_type", json!(data.content_type)),
                    ("json_config", json!(data.json_config)),
                    ("shape", json!(data.shape)),
                    ("components", json!(data.components)),
                ]);
                assert_eq!(&ours, &theirs["plugin_data"]["parsed"], "{tag}");
                assert_eq!(data.part(), part);
                let tensor = TensorValue::read(value.tensor().unwrap());
                let values: Vec<Json> = (0..tensor.tensor().unwrap().len())
                    .map(|i| json!(tensor.number(i).unwrap()))
                    .collect();
                let expected: Vec<Json> = flat(&theirs["events"][0]["values"])
                    .iter()
                    .map(|v| json!(v.as_f64().unwrap()))
                    .collect();
                assert_eq!(values, expected, "{tag}");
                assert!(line_of(value).starts_with(&format!("mesh \"tetrahedron\" {part} ")));
            });
        }
    }
}

#[test]
fn the_keras_model_config_is_the_json_keras_wrote_indented() {
    let file = writer_file("keras/train");
    let theirs = &reading(&file)["tensors"]["keras"]["events"][0]["model_config"];
    value_read(&file, "keras", |value| {
        // The indented lines are the same JSON, key for key.
        let lines: Vec<String> = rows_of(value).iter().map(|r| r.detail.clone()).collect();
        let ours: Json = serde_json::from_str(&lines.join("\n")).unwrap();
        assert_eq!(&ours, theirs);
        assert_eq!(lines[0], "{");
        assert_eq!(lines[1], "  \"module\": \"keras\",");
        assert_eq!(line_of(value), "keras model Sequential \"tiny\", 3 layers");
    });
}

/// The ops of the nodes under a graph's row.
fn ops(row: &Row) -> Vec<String> {
    row.children.iter().map(|n| n.detail.clone()).collect()
}

#[test]
fn graph_traces_and_graphs_list_the_nodes_tensorboard_reads() {
    let file = writer_file("tensorboard/graph");
    let theirs = reading(&file);
    let run = &theirs["tensors"]["affine"]["events"][0]["run_metadata"];
    value_read(&file, "affine", |value| {
        let tensor = TensorValue::read(value.tensor().unwrap());
        assert_eq!(
            json!(tensor.bytes(0).unwrap().len()),
            run["serialized_length"]
        );
        let rows = rows_of(value);
        let functions: Vec<&Row> = rows
            .iter()
            .filter(|r| r.label.starts_with("function_graphs["))
            .collect();
        assert_eq!(json!(functions.len()), run["function_graphs"]);
        let pre: Vec<Vec<String>> = functions
            .iter()
            .map(|f| {
                let graph = f
                    .children
                    .iter()
                    .find(|c| c.label == "pre_optimization_graph")
                    .unwrap();
                ops(graph)
            })
            .collect();
        assert_eq!(json!(pre), run["pre_optimization_nodes"]);
        assert_eq!(
            line_of(value),
            "graph trace: 1 function, 7 nodes before optimization"
        );
    });
    // TF1's graph_def, as EventAccumulator's Graph() reads it.
    let data = std::fs::read(&file).unwrap();
    let index = FrameIndex::build(&data);
    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let frame = index.frames(&data).nth(1).unwrap();
    let payload = frame.payload(&data).unwrap();
    let event = decoder.decode(payload);
    let event = event.typed(payload, decoder.table()).unwrap();
    let Some(Value::Bytes(graph, span)) = event.field("graph_def").and_then(|f| f.singular())
    else {
        panic!("no graph_def")
    };
    let row = plugin::graph::serialized_graph_row("graph_def", graph, span.start, decoder.table());
    let mut ops = ops(&row);
    assert_eq!(json!(ops.len()), theirs["graph"]["nodes"]);
    ops.sort();
    ops.dedup();
    assert_eq!(json!(ops), theirs["graph"]["ops"]);
}

#[test]
fn list_names_what_each_plugin_summary_is() {
    let list = |dir: &str| stdout(&run(["list".as_ref(), writer_file(dir).as_os_str()]));
    for (dir, expected) in [
        (
            "tensorboard/plugins",
            &[
                "step 1, 2023-11-14 22:13:20.000 UTC: pr/pr_curves pr_curve 5 thresholds",
                "custom_scalars__config__ custom_scalars layout, 1 category: \"Training\" (2 charts)",
                "tone audio 1 clip 8000 Hz mono 0.01 s",
                "table text [2,2] [[\"name\", \"value\"], [\"lr\", \"0.01\"]]",
                "tetrahedron_FACE mesh \"tetrahedron\" faces int32[1,4,3]",
            ][..],
        ),
        (
            "tensorboard/trial_1",
            &[
                "step 0, 2023-11-14 22:13:20.000 UTC: hparams session start: dropout=true, layers=2.0, \
               lr=0.01, optimizer=\"adam\"; group \"trial_1\"",
            ][..],
        ),
        (
            "tensorboardx",
            &[
                "pr pr_curve 5 thresholds",
                "tone audio 1 clip 8000 Hz mono 0.01 s",
                "tetrahedron_1 mesh \"tetrahedron\" vertices float32[1,4,3], tetrahedron_2 mesh",
            ][..],
        ),
        (
            "keras/train",
            &["keras keras model Sequential \"tiny\", 3 layers"][..],
        ),
        (
            "tensorboard/graph",
            &["affine graph trace: 1 function, 7 nodes before optimization"][..],
        ),
    ] {
        let list = list(dir);
        for line in expected {
            assert!(list.contains(line), "{dir}: {line}\n{list}");
        }
    }
}

#[test]
fn show_lays_each_plugin_out_under_its_value() {
    let show = |dir: &str, n: &str| {
        stdout(&run([
            "show".as_ref(),
            writer_file(dir).as_os_str(),
            "-n".as_ref(),
            n.as_ref(),
        ]))
    };
    assert_eq!(
        show("tensorboard/plugins", "1"),
        "record 1  (offset 78, 191 bytes)  Event step 1, 2023-11-14 22:13:20.000 UTC: \
         pr/pr_curves pr_curve 5 thresholds\n  \
         pr/pr_curves pr_curve 5 thresholds\n    \
         threshold  TP  FP  TN  FN  precision  recall\n    \
         0.0        4   4   0   0   0.5        1.0\n    \
         0.25       4   2   2   0   0.6666667  1.0\n    \
         0.5        3   1   3   1   0.75       0.75\n    \
         0.75       2   0   4   2   1.0        0.5\n    \
         1.0        0   0   4   4   0.0        0.0\n"
    );
    let tree = show("tensorboard/plugins", "4");
    assert!(
        tree.contains("\n    [0]  \"name\"  \"value\"\n    [1]  \"lr\"    \"0.01\"\n"),
        "{tree}"
    );
    let tree = show("tensorboard", "1");
    for line in [
        "    time_created  2023-11-14 22:13:20.000 UTC\n",
        "      lr         float64, interval [0.0001, 0.1]\n",
        "      optimizer  string, one of {\"adam\", \"sgd\"}\n",
        "      accuracy  shown as \"Accuracy\"\n",
    ] {
        assert!(tree.contains(line), "{line}{tree}");
    }
}

#[test]
fn files_whose_name_or_first_record_says_they_hold_events_say_no_record_is_no_example() {
    for file in super::golden::writer_event_files() {
        let tree = stdout(&run(["show".as_ref(), file.as_os_str()]));
        assert!(!tree.contains("# not Example"), "{file:?}\n{tree}");
    }
    // Named otherwise, the first record's file_version says so.
    let data = std::fs::read(writer_file("tensorboardx/hparams")).unwrap();
    let (_dir, renamed) = super::temp_file("run.tfrecord", &data);
    let tree = stdout(&run(["show".as_ref(), renamed.as_os_str()]));
    assert!(tree.contains("hparams session start"), "{tree}");
    assert!(!tree.contains("# not Example"), "{tree}");
    // Without either, an event says why it is no Example, as any record of another type does.
    let payload: &[u8] = &data[12..12 + 24];
    let mut second = vec![0x10, 0x05];
    second.extend_from_slice(&payload[..9]);
    let bytes = tfrecord(&[&second, payload]);
    let (_other, plain) = super::temp_file("steps.tfrecord", &bytes);
    let tree = stdout(&run(["show".as_ref(), plain.as_os_str()]));
    assert!(tree.contains("# not Example"), "{tree}");
}
