//! `show` and `list` agree, record by record, with python protobuf's goldens.

use super::{run_in_process as run, stdout, testdata};

const FIXTURES: [&str; 7] = [
    "examples",
    "images",
    "mnist_like",
    "cifar_like",
    "sequence",
    "raw_strings",
    "empty",
];

/// Splits a text golden into its `# record N` blocks.
fn text_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks: Vec<(usize, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(n) = line.strip_prefix("# record ") {
            blocks.push((n.trim().parse().expect("record number"), String::new()));
        } else {
            blocks
                .last_mut()
                .expect("text before the first record header")
                .1
                .push_str(line);
        }
    }
    blocks
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).expect("golden readable")
}

#[test]
fn text_format_matches_python_text_format_record_by_record() {
    for name in FIXTURES {
        let file = testdata(&format!("{name}.tfrecord"));
        let golden = text_blocks(&read(&testdata(&format!("{name}.golden.txt"))));
        let output = run([
            "show".as_ref(),
            file.as_os_str(),
            "--format".as_ref(),
            "text".as_ref(),
        ]);
        assert!(output.status.success(), "{name}: {:?}", output);
        let ours = text_blocks(&stdout(&output));
        assert_eq!(ours.len(), golden.len(), "{name}: record count");
        for (o, g) in ours.iter().zip(&golden) {
            assert_eq!(o, g, "{name}: record {}", g.0);
        }
    }
}

#[test]
fn show_raw_prints_what_protoc_decode_raw_prints_record_by_record() {
    // `--raw` is the schema-less walk, an Example's too: field numbers and wire values, in
    // `protoc --decode_raw`'s words (the goldens are protoc's own output).
    for name in FIXTURES {
        let file = testdata(&format!("{name}.tfrecord"));
        let golden = text_blocks(&read(&testdata(&format!("{name}.golden_raw.txt"))));
        let output = run([
            "show".as_ref(),
            file.as_os_str(),
            "--raw".as_ref(),
            "--format".as_ref(),
            "text".as_ref(),
        ]);
        assert!(output.status.success(), "{name}: {:?}", output);
        let ours = text_blocks(&stdout(&output));
        assert_eq!(ours.len(), golden.len(), "{name}: record count");
        let mut compared = 0;
        for (o, g) in ours.iter().zip(&golden) {
            // What protoc cannot parse it refuses; we show its bytes, as one quoted string.
            if g.1
                .starts_with("# protoc --decode_raw: Failed to parse input.")
            {
                let body = o.1.trim_end_matches('\n');
                assert!(
                    !body.contains('\n') && body.len() >= 2,
                    "{name}: record {}: {body}",
                    g.0
                );
                assert!(
                    body.starts_with('"') && body.ends_with('"'),
                    "{name}: record {}: {body}",
                    g.0
                );
            } else {
                assert_eq!(o, g, "{name}: record {}", g.0);
                compared += 1;
            }
        }
        assert!(compared > 0 || golden.is_empty(), "{name}");
    }
}

#[test]
fn a_single_record_prints_its_golden_block_without_a_header() {
    let golden = text_blocks(&read(&testdata("sequence.golden.txt")));
    for n in [0usize, 4, 9] {
        let file = testdata("sequence.tfrecord");
        let output = run([
            "show".as_ref(),
            file.as_os_str(),
            "-n".as_ref(),
            n.to_string().as_ref(),
            "--format".as_ref(),
            "text".as_ref(),
        ]);
        assert_eq!(stdout(&output), golden[n].1, "record {n}");
    }
}

#[test]
fn json_matches_python_json_format_as_values_and_bytes() {
    for name in FIXTURES {
        let file = testdata(&format!("{name}.tfrecord"));
        let golden = read(&testdata(&format!("{name}.golden.jsonl")));
        let output = run([
            "show".as_ref(),
            file.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
        ]);
        assert!(output.status.success(), "{name}");
        let ours = stdout(&output);
        assert_eq!(
            ours.lines().count(),
            golden.lines().count(),
            "{name}: line count"
        );
        for (i, (o, g)) in ours.lines().zip(golden.lines()).enumerate() {
            let ov: serde_json::Value = serde_json::from_str(o).expect("our JSON parses");
            let gv: serde_json::Value = serde_json::from_str(g).expect("golden JSON parses");
            assert_eq!(ov, gv, "{name}: record {i} as JSON values");
            assert_eq!(o, g, "{name}: record {i} byte for byte");
        }
    }
}

#[test]
fn list_json_matches_the_frame_tables() {
    for name in FIXTURES {
        let file = testdata(&format!("{name}.tfrecord"));
        let table = read(&testdata(&format!("{name}.frames.tsv")));
        let output = run(["list".as_ref(), file.as_os_str(), "--json".as_ref()]);
        assert!(output.status.success(), "{name}");
        let rows: Vec<serde_json::Value> = stdout(&output)
            .lines()
            .map(|l| serde_json::from_str(l).expect("list --json line parses"))
            .collect();
        let expected: Vec<Vec<&str>> = table
            .lines()
            .skip(1)
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(rows.len(), expected.len(), "{name}: frame count");
        for (row, want) in rows.iter().zip(&expected) {
            assert_eq!(row["index"].to_string(), want[0], "{name}");
            assert_eq!(row["offset"].to_string(), want[1], "{name}");
            assert_eq!(row["length"].to_string(), want[2], "{name}");
            assert_eq!(row["length_crc_ok"].to_string(), want[3], "{name}");
            assert_eq!(row["data_crc_ok"].to_string(), want[4], "{name}");
            assert_eq!(row["file"], file.display().to_string());
            assert!(row["kind"].is_string());
        }
    }
}

#[test]
fn schemaless_walk_matches_protoc_decode_raw() {
    use tfr_core::decode::Parsed;
    use tfr_core::frame::FrameIndex;
    use tfr_core::schema::table::Table;
    use tfr_core::textformat::raw_message_to_text;
    use tfr_core::wire::walk;
    let table = Table::default();
    for name in FIXTURES {
        let data = std::fs::read(testdata(&format!("{name}.tfrecord"))).expect("fixture");
        let golden = text_blocks(&read(&testdata(&format!("{name}.golden_raw.txt"))));
        let index = FrameIndex::build(&data);
        assert_eq!(index.len(), golden.len(), "{name}");
        for (frame, (n, expected)) in index.frames(&data).zip(&golden) {
            let payload = frame.payload(&data).expect("intact frame");
            let tree = walk(payload, &table, None);
            if expected.starts_with("# protoc --decode_raw: Failed to parse input.") {
                assert!(
                    !tree.is_clean(),
                    "{name} record {n}: protoc could not parse it, we did"
                );
            } else {
                assert!(tree.is_clean(), "{name} record {n}");
                assert_eq!(
                    &raw_message_to_text(Parsed::new(&tree, payload, &table)),
                    expected,
                    "{name} record {n}"
                );
            }
        }
    }
}

/// Every event file the real writers wrote under `testdata/writers/` (tensorboardX, TensorBoard's
/// plugin APIs, Keras' callback), in name order.
pub fn writer_event_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = ["tensorboardx", "tensorboard", "keras"]
        .iter()
        .map(|d| testdata(&format!("writers/{d}")))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("writers directory") {
            let path = entry.expect("entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            } else if name.starts_with("events.out.tfevents")
                && !name.contains(".golden.")
                && !name.contains(".reading.")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every TFRecord file under `testdata/writers/` that Python's goldens were made of (events,
/// `Dataset.save` and snapshot shards of every compression, Examples), in name order.
fn writer_files_with_goldens() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![testdata("writers")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("writers directory") {
            let path = entry.expect("entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            } else if let Some(base) = name.strip_suffix(".golden.jsonl") {
                files.push(path.with_file_name(base));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_writer_file_matches_python_text_and_json_record_by_record() {
    let files = writer_files_with_goldens();
    // 8 event files, 6 snapshot shards (none, GZIP, SNAPPY, the experimental snapshot's),
    // 4 files of Examples.
    assert_eq!(files.len(), 18, "{files:?}");
    for event_file in writer_event_files() {
        assert!(files.contains(&event_file), "{event_file:?} has no goldens");
    }
    for file in files {
        let golden = |ext: &str| {
            let mut name = file.file_name().unwrap().to_os_string();
            name.push(format!(".golden.{ext}"));
            read(&file.with_file_name(name))
        };
        let show = |format: &str| {
            let output = run([
                "show".as_ref(),
                file.as_os_str(),
                "--format".as_ref(),
                format.as_ref(),
            ]);
            assert!(output.status.success(), "{file:?} {format}: {output:?}");
            stdout(&output)
        };
        let (ours, theirs) = (text_blocks(&show("text")), text_blocks(&golden("txt")));
        assert_eq!(ours.len(), theirs.len(), "{file:?}: record count");
        for (o, g) in ours.iter().zip(&theirs) {
            assert_eq!(o, g, "{file:?}: record {}", g.0);
        }
        let (ours, theirs) = (show("json"), golden("jsonl"));
        assert_eq!(ours.lines().count(), theirs.lines().count(), "{file:?}");
        for (i, (o, g)) in ours.lines().zip(theirs.lines()).enumerate() {
            assert_eq!(o, g, "{file:?}: record {i} as JSON");
        }
    }
}
