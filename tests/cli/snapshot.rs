//! `tf.data` snapshots as TensorFlow 2.21 wrote them (`testdata/writers/dataset_save/` and
//! `snapshot/`): shards grouped into elements against what `tf.data.Dataset.load` read
//! (`*.reading.json`), the directory checked against `snapshot.metadata`, and hostile side files.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{run as spawn, run_in_process as run, testdata};
use crate::proto::ld;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The shards of `writers/dataset_save/<dir>`, in name order.
fn shards(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "snapshot") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn reading(name: &str) -> Value {
    let path = testdata(&format!("writers/dataset_save/{name}.reading.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One element as `list` writes it, taken apart: id, name, pair and vec.
#[derive(Debug, PartialEq)]
struct Listed {
    element: usize,
    id: i64,
    name: String,
    pair: (u64, bool),
    vec: Vec<f32>,
}

fn parse_line(line: &str) -> Listed {
    let fail = || -> ! { panic!("not an element line: {line}") };
    let (head, rest) = line.split_once(": ").unwrap_or_else(|| fail());
    let element = head
        .strip_prefix("element ")
        .unwrap_or_else(|| fail())
        .parse()
        .unwrap();
    let rest = rest.strip_prefix("id int64 ").unwrap_or_else(|| fail());
    let (id, rest) = rest.split_once(", name \"").unwrap_or_else(|| fail());
    let (name, rest) = rest
        .split_once("\", pair (uint8 ")
        .unwrap_or_else(|| fail());
    let (byte, rest) = rest.split_once(", bool ").unwrap_or_else(|| fail());
    let (flag, rest) = rest
        .split_once("), vec float32[3] [")
        .unwrap_or_else(|| fail());
    let vec = rest.strip_suffix(']').unwrap_or_else(|| fail());
    Listed {
        element,
        id: id.parse().unwrap(),
        name: name.to_string(),
        pair: (byte.parse().unwrap(), flag == "True"),
        vec: vec.split(", ").map(|v| v.parse().unwrap()).collect(),
    }
}

/// What `Dataset.load` read, by id.
fn loaded(reading: &Value) -> Vec<Listed> {
    let elements = reading["load"]["elements"].as_array().unwrap();
    elements
        .iter()
        .map(|e| Listed {
            element: 0,
            id: e["id"].as_i64().unwrap(),
            name: e["name"].as_str().unwrap().to_string(),
            pair: (
                e["pair"][0].as_u64().unwrap(),
                e["pair"][1].as_bool().unwrap(),
            ),
            vec: e["vec"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap() as f32)
                .collect(),
        })
        .collect()
}

#[test]
fn list_groups_dataset_save_shards_into_the_elements_tensorflow_loads() {
    for dir in ["none", "gzip", "snappy"] {
        let reading = reading(dir);
        let mut expected = loaded(&reading);
        let mut seen = Vec::new();
        for shard in shards(&testdata(&format!("writers/dataset_save/{dir}"))) {
            let output = spawn(["list".as_ref(), shard.as_os_str()]);
            let stdout = text(&output.stdout);
            assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
            assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
            let mut lines = stdout.lines();
            assert_eq!(
                lines.next(),
                Some(
                    "tf.data snapshot (Dataset.save): elements of 5 components: id int64, name \
                     string, pair (uint8, bool), vec float32[3]"
                )
            );
            let elements: Vec<Listed> = lines
                .take_while(|l| l.starts_with("element "))
                .map(parse_line)
                .collect();
            // As many elements as the reading's records over 5, numbered from 0 in the shard.
            let key = shard
                .strip_prefix(testdata(&format!("writers/dataset_save/{dir}")))
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let records = reading["files"][&key]["records"].as_array().unwrap().len();
            assert_eq!(elements.len() * 5, records, "{stdout}");
            for (i, e) in elements.iter().enumerate() {
                assert_eq!(e.element, i);
            }
            assert!(
                stdout.contains(&format!("; {} of 5 components\n", {
                    let n = elements.len();
                    if n == 1 {
                        "1 element".into()
                    } else {
                        format!("{n} elements")
                    }
                })),
                "{stdout}"
            );
            seen.extend(elements);
        }
        seen.sort_by_key(|e| e.id);
        for e in &mut seen {
            e.element = 0;
        }
        expected.sort_by_key(|e| e.id);
        assert_eq!(seen, expected, "{dir}");
    }
}

#[test]
fn list_json_names_each_records_element_and_component() {
    let shard = &shards(&testdata("writers/dataset_save/none"))[1];
    let output = run(["list".as_ref(), "--json".as_ref(), shard.as_os_str()]);
    assert!(output.status.success());
    let rows: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 10);
    let paths = ["id", "name", "pair[0]", "pair[1]", "vec"];
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["index"], i);
        assert_eq!(row["element"], i / 5);
        assert_eq!(row["component"], paths[i % 5]);
    }
    assert_eq!(rows[6]["summary"], "string[] \"three\"");
}

#[test]
fn show_writes_a_tree_per_element_and_leaves_text_and_json_as_python_prints_them() {
    let shard = &shards(&testdata("writers/dataset_save/none"))[1];
    let output = run(["show".as_ref(), shard.as_os_str()]);
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with(
            "element 0  (records 0..=4)\n  id: record 0  (offset 0, 14 bytes)  TensorProto \
             int64[]\n    1\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "element 1  (records 5..=9)\n  id: record 5  (offset 140, 14 bytes)  TensorProto \
             int64[]\n    3\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout
            .contains("  pair[0]: record 7  (offset 198, 7 bytes)  TensorProto uint8[]\n    254\n"),
        "{stdout}"
    );
    // The file's records are TensorProtos: no record is told why it is no Example.
    assert!(!stdout.contains("not Example"), "{stdout}");
    // One record alone says where it belongs.
    let one = run(["show", "-n", "7"]
        .map(AsRef::as_ref)
        .into_iter()
        .chain([shard.as_os_str()]));
    assert!(
        text(&one.stdout).starts_with(
            "record 7  (offset 198, 7 bytes)  element 1's pair[0]  TensorProto uint8[]\n"
        ),
        "{}",
        text(&one.stdout)
    );
    // Text format and JSON are Python's, record by record, for every shard.
    for dir in ["none", "gzip", "snappy"] {
        for shard in shards(&testdata(&format!("writers/dataset_save/{dir}"))) {
            for (format, ext) in [("text", "golden.txt"), ("json", "golden.jsonl")] {
                let output = run([
                    "show".as_ref(),
                    "--format".as_ref(),
                    format.as_ref(),
                    shard.as_os_str(),
                ]);
                let mut golden = shard.file_name().unwrap().to_os_string();
                golden.push(format!(".{ext}"));
                let golden = std::fs::read(shard.with_file_name(golden)).unwrap();
                assert_eq!(text(&output.stdout), text(&golden), "{shard:?} {format}");
            }
        }
    }
}

#[test]
fn a_snapshot_directory_is_recognised_and_checked_against_its_metadata() {
    for (dir, shards, compression) in [
        ("none", 2, "uncompressed"),
        ("gzip", 1, "gzip"),
        ("snappy", 1, "snappy"),
    ] {
        let path = testdata(&format!("writers/dataset_save/{dir}"));
        for command in ["list", "verify"] {
            let output = run([command.as_ref(), path.as_os_str()]);
            let stdout = text(&output.stdout);
            assert!(output.status.success(), "{stdout}");
            let shards = if shards == 1 {
                "1 shard".to_string()
            } else {
                format!("{shards} shards")
            };
            assert!(
                stdout.contains(&format!(
                    "{}: tf.data snapshot (Dataset.save): 5 elements in {shards}, {compression}; \
                     elements of 5 components: id int64, name string, pair (uint8, bool), vec \
                     float32[3]; agrees with snapshot.metadata\n",
                    path.display()
                )),
                "{stdout}"
            );
        }
    }
    // Without dataset_spec.pb (as tf.data.experimental.snapshot writes, whose SNAPPY shards are
    // not read here): the metadata's dtypes, numbered.
    let dir = copy_none();
    std::fs::remove_file(dir.path().join("dataset_spec.pb")).unwrap();
    let output = run(["verify".as_ref(), "--json".as_ref(), dir.path().as_os_str()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: Value = serde_json::from_str(text(&output.stdout).lines().last().unwrap()).unwrap();
    let snapshot = &json["dataset"]["snapshots"][0];
    assert_eq!(snapshot["named"], false);
    assert_eq!(snapshot["elements"], 5);
    assert_eq!(snapshot["num_elements"], 5);
    assert_eq!(snapshot["components"][1]["path"], "component 1");
    assert_eq!(snapshot["components"][4]["dtype"], "float32");
    let output = run(["list".as_ref(), shard0(dir.path()).as_os_str()]);
    assert!(
        text(&output.stdout).contains(
            "\nelement 2: int64 4, \"four\", uint8 255, bool True, float32[3] [4.0, 5.0, 6.0]\n"
        ),
        "{}",
        text(&output.stdout)
    );
}

/// A copy of `writers/dataset_save/none` to change.
fn copy_none() -> tempfile::TempDir {
    let from = testdata("writers/dataset_save/none");
    let to = tempfile::tempdir().unwrap();
    let mut dirs = vec![from.clone()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let target = to.path().join(path.strip_prefix(&from).unwrap());
            if path.is_dir() {
                std::fs::create_dir_all(&target).unwrap();
                dirs.push(path);
            } else if !path.to_string_lossy().contains(".golden.") {
                std::fs::copy(&path, &target).unwrap();
            }
        }
    }
    to
}

fn shard0(dir: &Path) -> PathBuf {
    dir.join("9843000220232823379/00000000.shard/00000000.snapshot")
}

#[test]
fn a_cut_short_shard_is_shown_record_by_record_and_is_damage() {
    let dir = copy_none();
    let shard = shard0(dir.path());
    // Keep the first 7 records (one element and two components of the next).
    let data = std::fs::read(&shard).unwrap();
    let mut at = 0;
    for _ in 0..7 {
        let len = u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) as usize;
        at += 16 + len;
    }
    std::fs::write(&shard, &data[..at]).unwrap();
    let output = spawn(["list".as_ref(), shard.as_os_str()]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("\nelement 0: id int64 0, name \"zero\""),
        "{stdout}"
    );
    // The rest, as a table of records.
    assert!(stdout.contains("  index        offset"), "{stdout}");
    assert!(
        stdout.contains("TensorProto         string[] \"two\"\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "00000000.snapshot: records 5..=6 are 2 of element 1's 5 components: the shard ends \
             inside an element (cut short); shown record by record"
        ),
        "{stderr}"
    );
    assert!(
        stdout.contains("; 1 element of 5 components, 2 records shown alone"),
        "{stdout}"
    );
    // The directory: a shard that does not hold whole elements, and a count other than
    // snapshot.metadata's.
    let output = spawn(["verify".as_ref(), dir.path().as_os_str()]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("00000000.snapshot holds 7 records, not whole elements of 5 components"),
        "{stdout}"
    );
    assert!(
        stdout.contains("snapshot.metadata says 5 elements; the shards hold 3"),
        "{stdout}"
    );
}

#[test]
fn a_record_of_another_dtype_than_the_spec_says_is_named() {
    let dir = copy_none();
    // Swap records 2 (uint8) and 3 (bool) of the first shard: both are 7 bytes, framed alike.
    let shard = shard0(dir.path());
    let mut data = std::fs::read(&shard).unwrap();
    let (a, b) = (57, 80);
    let first: Vec<u8> = data[a..b].to_vec();
    let second: Vec<u8> = data[b..b + 23].to_vec();
    data[a..a + 23].copy_from_slice(&second);
    data[a + 23..a + 46].copy_from_slice(&first);
    std::fs::write(&shard, &data).unwrap();
    let output = spawn(["list".as_ref(), shard.as_os_str()]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "record 2 is bool[], but element 0's pair[0] is uint8; element 0 shown record by record"
        ),
        "{stderr}"
    );
    assert!(
        stdout.contains("      2            57           7  ok"),
        "{stdout}"
    );
    assert!(stdout.contains("\nelement 1: id int64 2"), "{stdout}");
}

#[test]
fn hostile_specs_are_refused_and_the_records_listed_one_by_one() {
    let one = ld(33, &[ld(2, &[]), vec![3 << 3, 9]].concat());
    // 10^6 components: over the read limit. 10^4 levels: past the nesting bound.
    let items: Vec<u8> = std::iter::repeat_n(ld(1, &one), 1_000_000)
        .flatten()
        .collect();
    let million = ld(52, &items);
    let mut deep = one.clone();
    for _ in 0..10_000 {
        deep = ld(52, &ld(1, &deep));
        if deep.len() > 200_000 {
            break;
        }
    }
    let cases: [(&[u8], &str); 2] = [
        (&million, "dataset_spec.pb: not read: too large: "),
        (
            &deep,
            "dataset_spec.pb: not used: nested deeper than 32 levels: refused; records are shown one by one",
        ),
    ];
    for (spec, said) in cases {
        let dir = copy_none();
        std::fs::write(dir.path().join("dataset_spec.pb"), spec).unwrap();
        let shard = shard0(dir.path());
        let output = spawn(["list".as_ref(), shard.as_os_str()]);
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(stderr.contains(said), "{stderr}");
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        // Listed as before: a table of 15 records.
        assert!(stdout.starts_with("  index        offset"), "{stdout}");
        assert_eq!(
            stdout.lines().filter(|l| l.contains("TensorProto")).count(),
            15
        );
    }
}

#[test]
fn component_names_from_the_spec_are_escaped() {
    let dir = copy_none();
    // The spec with the key `id` renamed to ESC[2J (same length as the key... written anew).
    let tensor = |dtype: u8, dims: &[u8]| {
        let shape: Vec<u8> = dims.iter().flat_map(|d| ld(2, &[1 << 3, *d])).collect();
        ld(33, &[ld(2, &shape), vec![3 << 3, dtype]].concat())
    };
    let entry = |k: &[u8], v: Vec<u8>| ld(1, &[ld(1, k), ld(2, &v)].concat());
    let pair = ld(
        52,
        &[ld(1, &tensor(4, &[])), ld(1, &tensor(10, &[]))].concat(),
    );
    let spec = ld(
        53,
        &[
            entry(b"\x1b[2J", tensor(9, &[])),
            entry(b"name", tensor(7, &[])),
            entry(b"pair", pair),
            entry(b"vec", tensor(1, &[3])),
        ]
        .concat(),
    );
    std::fs::write(dir.path().join("dataset_spec.pb"), spec).unwrap();
    let output = run(["list".as_ref(), shard0(dir.path()).as_os_str()]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(
        stdout.contains("element 0: \\033[2J int64 0, name \"zero\""),
        "{stdout}"
    );
    assert!(!stdout.contains('\x1b'));
}

#[test]
fn an_experimental_snapshot_without_a_spec_numbers_the_components_tensorflow_read() {
    let path = testdata("writers/snapshot.reading.json");
    let reading: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let files = reading["files"].as_object().unwrap();
    assert!(!files.is_empty());
    let shards = files
        .iter()
        .filter(|(_, file)| file.get("records").is_some());
    assert_eq!(shards.clone().count(), 2);
    for (name, file) in shards {
        let records = file["records"].as_array().unwrap();
        // Elements of (int64, float32), one record each, in the order TensorFlow read them.
        let expected: Vec<String> = records
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| {
                format!(
                    "element {i}: int64 {}, float32 {:?}",
                    pair[0]["parse_tensor"].as_i64().unwrap(),
                    pair[1]["parse_tensor"].as_f64().unwrap() as f32
                )
            })
            .collect();
        let listed = run([
            "list".as_ref(),
            testdata(&format!("writers/snapshot/{name}")).as_os_str(),
        ]);
        assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
        let stdout = text(&listed.stdout);
        let elements: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("element "))
            .collect();
        assert_eq!(elements, expected, "{stdout}");
    }
}
