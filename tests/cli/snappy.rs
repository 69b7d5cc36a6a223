//! SNAPPY files as TensorFlow's writer writes them (`testdata/writers/dataset_save/snappy*`,
//! checked against what TensorFlow read from them) and as nobody should (generated damage).

use base64::Engine;
use sha2::Digest;

use super::{
    GIB, run as spawn, run_in_process_as_binary as run, run_limited, stderr, stdout, temp_file,
    testdata, tfrecord,
};

const SHARD: &str =
    "writers/dataset_save/snappy/16892623115098237266/00000000.shard/00000000.snapshot";
const BLOCKS_SHARD: &str =
    "writers/dataset_save/snappy_blocks/4791107556439151042/00000000.shard/00000000.snapshot";

/// TensorFlow's framing of `chunks`: each a raw snappy block behind its big-endian length.
fn blocks(chunks: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in chunks {
        let block = snap::raw::Encoder::new().compress_vec(chunk).unwrap();
        out.extend_from_slice(&(block.len() as u32).to_be_bytes());
        out.extend_from_slice(&block);
    }
    out
}

/// The records TensorFlow read from `shard` (in `NAME.reading.json`).
fn reading(name: &str, shard: &str) -> Vec<serde_json::Value> {
    let path = testdata(&format!("writers/dataset_save/{name}.reading.json"));
    let reading: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let key = shard.split_once(&format!("{name}/")).unwrap().1;
    reading["files"][key]["records"].as_array().unwrap().clone()
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// A tensor's values from its `tensor_content`, as `tf.io.parse_tensor` gives them in JSON.
fn values(dtype: &str, content: &[u8]) -> Vec<serde_json::Value> {
    match dtype {
        "DT_INT64" => content
            .chunks(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap()).into())
            .collect(),
        "DT_UINT8" => content.iter().map(|&b| b.into()).collect(),
        "DT_BOOL" => content.iter().map(|&b| (b != 0).into()).collect(),
        "DT_FLOAT" => content
            .chunks(4)
            .map(|b| f64::from(f32::from_le_bytes(b.try_into().unwrap())).into())
            .collect(),
        // One short string: its length (one varint byte), then its bytes.
        "DT_STRING" => {
            assert_eq!(usize::from(content[0]), content.len() - 1);
            vec![String::from_utf8(content[1..].to_vec()).unwrap().into()]
        }
        other => panic!("no values for {other}"),
    }
}

#[test]
fn a_dataset_save_shard_reads_as_tensorflow_read_it() {
    let path = testdata(SHARD);
    let expected = reading("snappy", SHARD);
    let listed = run(["list".as_ref(), path.as_os_str(), "--json".as_ref()]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let rows = json_lines(&stdout(&listed));
    assert_eq!(rows.len(), 25);
    assert_eq!(rows.len(), expected.len());
    let shown = run([
        "show".as_ref(),
        path.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert!(shown.status.success());
    let tensors = json_lines(&stdout(&shown));
    for ((row, tensor), want) in rows.iter().zip(&tensors).zip(&expected) {
        assert_eq!(row["status"], "intact");
        assert_eq!(row["length"], want["payload_length"]);
        assert_eq!(tensor["dtype"], want["dtype"]);
        let content = base64::engine::general_purpose::STANDARD
            .decode(tensor["tensorContent"].as_str().unwrap())
            .unwrap();
        let ours = values(want["dtype"].as_str().unwrap(), &content);
        let theirs = match &want["parse_tensor"] {
            serde_json::Value::Array(values) => values.clone(),
            scalar => vec![scalar.clone()],
        };
        assert_eq!(ours, theirs, "{row}");
    }
}

#[test]
fn a_block_tensorflow_cannot_hold_is_read_and_noted() {
    let path = testdata(BLOCKS_SHARD);
    let expected = reading("snappy_blocks", BLOCKS_SHARD);
    let shown = run([
        "show".as_ref(),
        path.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert!(shown.status.success());
    let tensors = json_lines(&stdout(&shown));
    assert_eq!(tensors.len(), expected.len());
    let content = base64::engine::general_purpose::STANDARD
        .decode(tensors[0]["tensorContent"].as_str().unwrap())
        .unwrap();
    assert_eq!(content.len(), 300_000);
    let sha = format!("{:x}", sha2::Sha256::digest(&content));
    assert_eq!(sha, expected[0]["parse_tensor_sha256"]);
    assert_eq!(
        values("DT_UINT8", &content[..1]),
        expected[0]["parse_tensor_distinct"]
            .as_array()
            .unwrap()
            .clone()
    );

    let verified = run(["verify".as_ref(), path.as_os_str()]);
    assert_eq!(verified.status.code(), Some(0), "intact, so not damage");
    let text = stdout(&verified);
    assert!(
        text.contains("OK: SNAPPY-compressed, 14154 bytes on disk"),
        "{text}"
    );
    // The error TensorFlow itself fails with on this file (in the reading).
    assert!(
        text.contains(
            "SNAPPY block 1 at compressed byte 18 (14091 bytes compressed, 300014 decompressed)"
        ) && text.contains(
            "Output buffer(size: 262144 bytes) too small. Should be larger than 300014 bytes."
        ),
        "{text}"
    );
    let json = run(["verify".as_ref(), "--json".as_ref(), path.as_os_str()]);
    let report: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(report["compression"], "snappy");
    assert_eq!(report["beyond_tensorflow"]["compressed_offset"], 18);
    assert_eq!(report["beyond_tensorflow"]["decompressed_length"], 300_014);
}

#[test]
fn the_shards_show_as_their_goldens() {
    use std::io::Read;
    let gunzip = |path: std::path::PathBuf| {
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        text
    };
    for (shard, format, golden) in [
        (
            SHARD,
            "text",
            std::fs::read_to_string(testdata(&format!("{SHARD}.golden.txt"))).unwrap(),
        ),
        (
            SHARD,
            "json",
            std::fs::read_to_string(testdata(&format!("{SHARD}.golden.jsonl"))).unwrap(),
        ),
        (
            BLOCKS_SHARD,
            "text",
            gunzip(testdata(&format!("{BLOCKS_SHARD}.golden.txt.gz"))),
        ),
        (
            BLOCKS_SHARD,
            "json",
            gunzip(testdata(&format!("{BLOCKS_SHARD}.golden.jsonl.gz"))),
        ),
    ] {
        let output = run([
            "show",
            testdata(shard).to_str().unwrap(),
            "--format",
            format,
        ]);
        assert!(output.status.success(), "{shard} {format}");
        assert!(
            stdout(&output) == golden,
            "{shard} as {format} differs from its golden"
        );
    }
}

#[test]
fn a_snappy_dataset_directory_and_a_pipe_are_read() {
    let dir = testdata("writers/dataset_save/snappy");
    let output = run(["verify".as_ref(), dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("OK: SNAPPY-compressed, 381 bytes on disk"),
        "{text}"
    );
    assert!(
        text.contains("1 file, 25 frames, 25 intact, 0 damaged"),
        "{text}"
    );

    let shard = std::fs::read(testdata(SHARD)).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(["list", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&shard).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert!(stdout(&output).contains("SNAPPY-compressed, 381 bytes on disk"));
    assert_eq!(stdout(&output).matches("TensorProto").count(), 25);
}

#[test]
fn compression_snappy_forces_the_reading_and_refuses_a_plain_file() {
    let plain = testdata("examples.tfrecord");
    let output = spawn(["verify", "--compression", "snappy", plain.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not a SNAPPY stream"),
        "{}",
        stderr(&output)
    );
    let shard = testdata(SHARD);
    let output = spawn(["verify", "--compression", "none", shard.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("it was probably written with compression_type='SNAPPY'"));
}

/// Two records in three blocks, then `tail`.
fn damaged(tail: &[u8]) -> (Vec<u8>, u64) {
    let stream = tfrecord(&[b"first record", b"second record"]);
    let mut packed = blocks(&[&stream[..12], &stream[12..]]);
    let at = packed.len() as u64;
    packed.extend_from_slice(tail);
    (packed, at)
}

#[test]
fn damage_names_the_file_and_the_compressed_byte_and_keeps_the_records_before() {
    let (huge, at) = damaged(&[0xff, 0xff, 0xff, 0xff, 1, 2]);
    let (zero, _) = damaged(&[0, 0, 0, 0]);
    let (junk, _) = damaged(b"\x00\x00\x00\x03abc");
    for (bytes, what) in [
        (huge, "gives 4294967295 bytes where 2 remain"),
        (zero, "Parsing error in Snappy_GetUncompressedLength"),
        (junk, "corrupt SNAPPY block 2"),
    ] {
        let (_dir, path) = temp_file("shard.tfrecord", &bytes);
        // A length field of 4 GB must allocate nothing: run in 1 GiB of address space.
        let output = run_limited(GIB, ["verify".as_ref(), path.as_os_str()]);
        assert_eq!(output.status.code(), Some(1), "{what}: {}", stderr(&output));
        let text = stdout(&output);
        assert!(
            text.contains(&format!("{}: compressed stream damaged", path.display())),
            "{text}"
        );
        assert!(text.contains(&format!("at compressed byte {at}")), "{text}");
        assert!(text.contains(what), "{text}");
        assert!(text.contains("2 frames, 2 intact"), "{text}");
        let listed = run(["list".as_ref(), path.as_os_str()]);
        assert_eq!(listed.status.code(), Some(1));
        let rows = stdout(&listed);
        assert_eq!(
            rows.lines().filter(|l| l.contains(" ok ")).count(),
            2,
            "{rows}"
        );
        assert!(stderr(&listed).contains("compressed stream damaged"));
    }
}

#[test]
fn a_cut_block_in_the_middle_of_a_record_shows_the_records_before() {
    let stream = tfrecord(&[b"kept", b"cut in its block"]);
    // The first block ends inside the second record's header.
    let packed = blocks(&[&stream[..25], &stream[25..]]);
    let cut = &packed[..packed.len() - 3];
    let (_dir, path) = temp_file("shard.tfrecord", cut);
    let output = run(["show".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("kept"), "{}", stdout(&output));
    let output = run(["verify".as_ref(), path.as_os_str()]);
    let text = stdout(&output);
    assert!(text.contains("Failed to read"), "{text}");
    assert!(text.contains("1 intact, 1 damaged"), "{text}");
}

#[test]
fn the_decompressed_limit_bounds_snappy_as_it_does_gzip() {
    let stream = tfrecord(&[&[9; 10_000]]);
    let packed = blocks(&[&stream[..5000], &stream[5000..]]);
    let (_dir, path) = temp_file("shard.tfrecord", &packed);
    let output = run([
        "verify",
        "--max-decompressed",
        "6000",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("decompressed SNAPPY stream exceeds the limit of 6000 bytes")
            && message.contains("--max-decompressed"),
        "{message}"
    );
}

#[test]
fn a_block_over_the_block_limit_is_refused_before_it_is_decoded() {
    let first = tfrecord(&[b"kept"]);
    let big = vec![0u8; tfr_core::compress::SNAPPY_BLOCK_LIMIT + 1];
    let packed = blocks(&[&first, &big]);
    let (_dir, path) = temp_file("shard.tfrecord", &packed);
    let output = run(["verify".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("SNAPPY block 1 decompresses to 67108865 bytes, more than the 67108864 a block may hold here"), "{text}");
    assert!(text.contains("1 frame, 1 intact"), "{text}");
}
