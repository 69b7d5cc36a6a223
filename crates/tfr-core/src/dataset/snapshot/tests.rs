use std::path::Path;

use super::spec::{self, Structure};
use super::*;

/// The writers' fixtures: `Dataset.save` and `tf.data.experimental.snapshot` of TensorFlow 2.21.
fn writers(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/writers")
        .join(dir)
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Field `n` holding `body` (length-delimited).
fn ld(n: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint(u64::from(n) << 3 | 2, &mut out);
    varint(body.len() as u64, &mut out);
    out.extend_from_slice(body);
    out
}

/// Field `n` holding varint `v`.
fn vi(n: u32, v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    varint(u64::from(n) << 3, &mut out);
    varint(v, &mut out);
    out
}

/// A `StructuredValue` holding a `TensorSpecProto` of `dtype` and `dims`.
fn tensor(dtype: u64, dims: &[i64]) -> Vec<u8> {
    let shape: Vec<u8> = dims.iter().flat_map(|d| ld(2, &vi(1, *d as u64))).collect();
    ld(33, &[ld(2, &shape), vi(3, dtype)].concat())
}

fn tuple(items: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = items.iter().flat_map(|i| ld(1, i)).collect();
    ld(52, &body)
}

fn dict(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let body: Vec<u8> = entries
        .iter()
        .flat_map(|(k, v)| ld(1, &[ld(1, k.as_bytes()), ld(2, v)].concat()))
        .collect();
    ld(53, &body)
}

/// `inner` inside `levels` one-item tuples, built from the outside in (wrapping it level by level
/// copies it each time).
fn nest(inner: &[u8], levels: usize) -> Vec<u8> {
    // The length of each level's body, innermost first.
    let mut headers = Vec::with_capacity(levels);
    let mut len = inner.len();
    for _ in 0..levels {
        let mut item = Vec::new();
        varint(1 << 3 | 2, &mut item);
        varint(len as u64, &mut item);
        let body = item.len() + len;
        let mut outer = Vec::new();
        varint(52 << 3 | 2, &mut outer);
        varint(body as u64, &mut outer);
        outer.extend(item);
        len += outer.len();
        headers.push(outer);
    }
    let mut out: Vec<u8> = headers.into_iter().rev().flatten().collect();
    out.extend_from_slice(inner);
    out
}

fn paths(spec: &ElementSpec) -> Vec<&str> {
    spec.components.iter().map(|c| c.path.as_str()).collect()
}

#[test]
fn dataset_save_spec_names_the_components_in_tf_nest_order() {
    let dir = writers("dataset_save/none");
    let snapshot = Snapshot::load(&dir).expect("a snapshot");
    assert!(snapshot.notes.is_empty(), "{:?}", snapshot.notes);
    let metadata = snapshot.metadata.as_ref().expect("metadata");
    assert_eq!(metadata.run_id, "9843000220232823379");
    assert_eq!(metadata.version, 2);
    assert_eq!(metadata.num_elements, Some(5));
    assert_eq!(metadata.dtypes, vec![9, 7, 4, 10, 1]);
    assert!(metadata.finalized);
    assert!(snapshot.named);
    let element = snapshot.element.as_ref().expect("grouped");
    assert_eq!(paths(element), ["id", "name", "pair[0]", "pair[1]", "vec"]);
    let types: Vec<String> = element.components.iter().map(|c| c.type_text()).collect();
    assert_eq!(types, ["int64", "string", "uint8", "bool", "float32[3]"]);
    assert_eq!(
        snapshot.describe_element(),
        "elements of 5 components: id int64, name string, pair (uint8, bool), vec float32[3]"
    );
    assert_eq!(snapshot.writer(), "Dataset.save");
    // Record 7 is the third element's pair[0].
    let (element, component) = snapshot.place(7).expect("placed");
    assert_eq!((element, component.path.as_str()), (1, "pair[0]"));
}

#[test]
fn a_shard_finds_its_snapshot_two_levels_up() {
    let shard = writers("dataset_save/gzip/6564307705707922557/00000000.shard/00000000.snapshot");
    let snapshot = Snapshot::for_shard(&shard).expect("found");
    assert_eq!(snapshot.dir, writers("dataset_save/gzip"));
    assert_eq!(snapshot.components(), 5);
    // A file not in a `.shard` directory is no shard.
    assert_eq!(
        Snapshot::dir_of(&writers("dataset_save/none/dataset_spec.pb")),
        None
    );
}

#[test]
fn experimental_snapshot_has_no_spec_and_numbers_its_components() {
    let shard = writers(
        "snapshot/5803252516650369584/13344139573591169944/00000001.shard/00000000.snapshot",
    );
    let snapshot = Snapshot::for_shard(&shard).expect("found");
    assert!(snapshot.notes.is_empty(), "{:?}", snapshot.notes);
    assert!(!snapshot.named);
    assert_eq!(snapshot.writer(), "tf.data.experimental.snapshot");
    let metadata = snapshot.metadata.as_ref().expect("metadata");
    assert_eq!(metadata.num_elements, None);
    assert_eq!(metadata.graph_hash, "5803252516650369584");
    assert_eq!(
        snapshot.describe_element(),
        "elements of 2 components (no dataset_spec.pb: numbered): int64[<unknown rank>], \
         float32[<unknown rank>]"
    );
}

#[test]
fn a_bare_tensor_spec_is_one_component_of_no_name() {
    let spec = spec::parse(&fs_bytes(&writers(
        "dataset_save/snappy_blocks/dataset_spec.pb",
    )))
    .expect("parsed");
    assert_eq!(spec.structure, Structure::Component(0));
    assert_eq!(paths(&spec), [""]);
    assert_eq!(spec.components[0].type_text(), "uint8[?]");
}

fn fs_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("fixture")
}

#[test]
fn dict_keys_are_sorted_and_the_last_entry_of_a_key_kept() {
    let bytes = dict(&[
        ("b", tensor(1, &[])),
        (
            "a",
            tuple(&[tensor(9, &[]), dict(&[("z", tensor(7, &[2]))])]),
        ),
        ("b", tensor(3, &[-1, 2])),
    ]);
    let spec = spec::parse(&bytes).expect("parsed");
    assert_eq!(paths(&spec), ["a[0]", "a[1].z", "b"]);
    let types: Vec<String> = spec.components.iter().map(|c| c.type_text()).collect();
    assert_eq!(types, ["int64", "string[2]", "int32[?,2]"]);
    let mut leaf = |n: usize| spec.components[n].type_text();
    assert_eq!(
        spec.write(&mut leaf),
        "a (int64, {z string[2]}), b int32[?,2]"
    );
}

#[test]
fn composites_are_one_variant_and_none_is_nothing() {
    // As TensorFlow 2.21 writes them: a RaggedTensorSpec (num_flat_components 2, stored as one
    // variant tensor) and a NoneTensorSpec (no component).
    let ragged = ld(
        34,
        &[vi(1, 3), ld(3, b"RaggedTensorSpec"), vi(4, 2)].concat(),
    );
    let none = ld(
        34,
        &[vi(1, 12), ld(2, &tuple(&[])), ld(3, b"tf.NoneTensorSpec")].concat(),
    );
    let spec = spec::parse(&dict(&[("r", ragged), ("z", none), ("n", ld(1, &[]))])).unwrap();
    assert_eq!(paths(&spec), ["r"]);
    assert_eq!(spec.components[0].dtype, spec::DT_VARIANT);
    assert_eq!(spec.components[0].type_text(), "variant (RaggedTensorSpec)");
    let mut leaf = |n: usize| spec.components[n].type_text();
    assert_eq!(
        spec.write(&mut leaf),
        "n None, r variant (RaggedTensorSpec), z None"
    );
}

#[test]
fn hostile_specs_are_refused_within_their_bounds() {
    // 10^5 components in one tuple (about 1 MB): refused at the bound, not built.
    let one = tensor(1, &[]);
    let many: Vec<u8> = std::iter::repeat_n(ld(1, &one), 100_000)
        .flatten()
        .collect();
    let err = spec::parse(&ld(52, &many)).unwrap_err();
    assert_eq!(err, "more than 10000 components: refused");
    // 10^4 levels of nesting: refused at the bound.
    let nested = nest(&one, 10_000);
    let err = spec::parse(&nested).unwrap_err();
    assert_eq!(err, "nested deeper than 32 levels: refused");
    // A name past the bound.
    let long = "k".repeat(2000);
    let err = spec::parse(&dict(&[(long.as_str(), one.clone())])).unwrap_err();
    assert_eq!(err, "a component's path is longer than 1024 bytes: refused");
    // Empty tuples by the hundred thousand: bounded as nodes.
    let empties: Vec<u8> = std::iter::repeat_n(ld(1, &tuple(&[])), 200_000)
        .flatten()
        .collect();
    let err = spec::parse(&ld(52, &empties)).unwrap_err();
    assert_eq!(err, "more than 100000 values in the structure: refused");
    // Invalid bytes, a value that is no spec, a StructuredValue of no kind.
    assert_eq!(
        spec::parse(&[0x0a, 0x05]).unwrap_err(),
        "invalid StructuredValue: a length past the end at its byte 0"
    );
    assert_eq!(
        spec::parse(&dict(&[("x", vi(14, 1))])).unwrap_err(),
        "x holds a bool_value, not a spec of tensors"
    );
    assert_eq!(
        spec::parse(&[]).unwrap_err(),
        "a StructuredValue at the element sets no kind"
    );
}

#[test]
fn names_are_escaped_when_written() {
    let spec = spec::parse(&dict(&[
        ("a\u{1b}[2J", tensor(1, &[])),
        ("", tensor(9, &[])),
    ]))
    .expect("parsed");
    let mut leaf = |n: usize| spec.components[n].type_text();
    let written = spec.write(&mut leaf);
    assert_eq!(written, "\"\" int64, a\\033[2J float32");
}

/// A snapshot directory of the given side files.
fn side_dir(metadata: Option<&[u8]>, spec: Option<&[u8]>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    if let Some(m) = metadata {
        std::fs::write(dir.path().join(METADATA_FILE), m).unwrap();
    }
    if let Some(s) = spec {
        std::fs::write(dir.path().join(SPEC_FILE), s).unwrap();
    }
    dir
}

fn metadata_bytes(dtypes: &[u64], packed: bool) -> Vec<u8> {
    let mut out = [ld(2, b"77"), vi(4, 2), vi(6, 3)].concat();
    if packed {
        let mut body = Vec::new();
        for d in dtypes {
            varint(*d, &mut body);
        }
        out.extend(ld(5, &body));
    } else {
        for d in dtypes {
            out.extend(vi(5, *d));
        }
    }
    out
}

#[test]
fn metadata_dtypes_read_packed_or_not() {
    for packed in [true, false] {
        let m = Metadata::parse(&metadata_bytes(&[9, 1], packed)).unwrap();
        assert_eq!(m.dtypes, vec![9, 1]);
        assert_eq!(m.run_id, "77");
        assert_eq!(m.num_elements, Some(3));
    }
    let many: Vec<u64> = vec![1; 10_001];
    assert_eq!(
        Metadata::parse(&metadata_bytes(&many, true)).unwrap_err(),
        "more than 10000 dtypes: refused"
    );
}

#[test]
fn a_spec_that_cannot_be_used_is_named_and_nothing_grouped() {
    let metadata = metadata_bytes(&[9, 1], true);
    // Disagreeing with the metadata's dtypes.
    let spec = dict(&[("a", tensor(9, &[])), ("b", tensor(7, &[]))]);
    let dir = side_dir(Some(&metadata), Some(&spec));
    let snapshot = Snapshot::load(dir.path()).unwrap();
    assert_eq!(snapshot.element, None);
    assert_eq!(snapshot.notes.len(), 1);
    assert_eq!(snapshot.notes[0].path, dir.path().join(SPEC_FILE));
    assert_eq!(
        snapshot.notes[0].message,
        "its 2 components (int64, string) disagree with snapshot.metadata's 2 dtypes (int64, \
         float32); records are shown one by one"
    );
    // Refused.
    let dir = side_dir(Some(&metadata), Some(&[0x0a, 0x05]));
    let snapshot = Snapshot::load(dir.path()).unwrap();
    assert_eq!(snapshot.element, None);
    assert_eq!(
        snapshot.notes[0].message,
        "not used: invalid StructuredValue: a length past the end at its byte 0; records are \
         shown one by one"
    );
    // Too large to be read.
    let big = vec![0u8; (SIDE_LIMIT + 1) as usize];
    let dir = side_dir(Some(&metadata), Some(&big));
    let snapshot = Snapshot::load(dir.path()).unwrap();
    assert_eq!(snapshot.element, None);
    assert!(
        snapshot.notes[0].message.starts_with("not read: too large"),
        "{:?}",
        snapshot.notes
    );
    // No spec at all: the metadata's dtypes, numbered.
    let dir = side_dir(Some(&metadata), None);
    let snapshot = Snapshot::load(dir.path()).unwrap();
    assert!(snapshot.notes.is_empty());
    assert_eq!(snapshot.components(), 2);
    // Neither file: no snapshot.
    let dir = side_dir(None, None);
    assert_eq!(Snapshot::load(dir.path()), None);
}

#[cfg(unix)]
#[test]
fn a_side_file_that_is_a_pipe_is_not_read() {
    let dir = side_dir(Some(&metadata_bytes(&[9], true)), None);
    let fifo = dir.path().join(SPEC_FILE);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let snapshot = Snapshot::load(dir.path()).unwrap();
    assert_eq!(snapshot.element, None);
    assert_eq!(
        snapshot.notes[0].message,
        "not read: a named pipe, not a regular file; records are shown one by one"
    );
}

#[test]
fn another_version_is_not_grouped() {
    let metadata = [vi(4, 1), vi(5, 9)].concat();
    let dir = side_dir(Some(&metadata), None);
    let snapshot = Snapshot::load(dir.path()).unwrap();
    assert_eq!(snapshot.element, None);
    assert!(
        snapshot.notes[0]
            .message
            .starts_with("snapshot version 1, not 2"),
        "{:?}",
        snapshot.notes
    );
}
