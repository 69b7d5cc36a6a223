//! `show`: the readable tree, ranges, and payloads that are not the expected type.

use super::{
    HOSTILE_NAMES, acts_on_a_terminal, hostile_example, run as spawn, run_in_process as run,
    stderr, stdout, temp_file, testdata, tfrecord,
};

#[test]
fn tree_summarises_images_and_raw_pixels() {
    let output = run([
        "show".as_ref(),
        testdata("images.tfrecord").as_os_str(),
        "-n".as_ref(),
        "1".as_ref(),
    ]);
    let text = stdout(&output);
    assert!(
        text.contains("image/encoded") && text.contains("[PNG 320x213 RGB]"),
        "{text}"
    );
    let output = run([
        "show".as_ref(),
        testdata("mnist_like.tfrecord").as_os_str(),
        "-n".as_ref(),
        "0".as_ref(),
    ]);
    let text = stdout(&output);
    assert!(
        text.contains("[784 bytes (raw 28x28x1 uint8 grayscale)]"),
        "{text}"
    );
    let output = run([
        "show".as_ref(),
        testdata("cifar_like.tfrecord").as_os_str(),
        "-n".as_ref(),
        "0".as_ref(),
    ]);
    assert!(stdout(&output).contains("[3072 bytes (raw 32x32x3 uint8 channel-first)]"));
}

#[test]
fn ranges_select_records() {
    let file = testdata("examples.tfrecord");
    let output = spawn([
        "show".as_ref(),
        file.as_os_str(),
        "--range".as_ref(),
        "3..5".as_ref(),
        "--format".as_ref(),
        "text".as_ref(),
    ]);
    let text = stdout(&output);
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("# record")).collect();
    assert_eq!(headers, ["# record 3", "# record 4"]);
    let output = spawn([
        "show".as_ref(),
        file.as_os_str(),
        "--range".as_ref(),
        "198..".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(stdout(&output).lines().count(), 2);
    let output = spawn([
        "show".as_ref(),
        file.as_os_str(),
        "-n".as_ref(),
        "200".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("record 200 does not exist (the file has 200 frames)"));
    let one = super::testdata("teach/steps.tfrecord");
    let output = spawn([
        "show".as_ref(),
        one.as_os_str(),
        "-n".as_ref(),
        "5".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("record 5 does not exist (the file has 1 frame)"));
}

#[test]
fn a_payload_that_is_not_the_requested_type_falls_back_to_bytes() {
    let (_dir, path) = temp_file(
        "odd.tfrecord",
        &tfrecord(&[&[0x0a, 0x05, 0x0a, 0x09, 0xff]]),
    );
    let output = spawn([
        "show".as_ref(),
        path.as_os_str(),
        "--message".as_ref(),
        "tensorflow.Example".as_ref(),
        "--format".as_ref(),
        "text".as_ref(),
    ]);
    assert_eq!(stdout(&output), "# record 0\n\"\\n\\005\\n\\t\\377\"\n");
    let err = stderr(&output);
    assert!(
        err.contains("odd.tfrecord: record 0: not a valid tensorflow.Example"),
        "{err}"
    );
    assert!(
        err.contains("field 1 declares 5 bytes but only 3 remain (payload byte 0, file byte 12)"),
        "{err}"
    );
}

#[test]
fn user_proto_decodes_other_message_types() {
    let dir = tempfile::tempdir().expect("tempdir");
    let proto = dir.path().join("point.proto");
    std::fs::write(&proto, "syntax = \"proto3\";\npackage geo;\nmessage Point { int32 x = 1; sint64 y = 2; string name = 3; }\n")
        .expect("write proto");
    // x=150, y=-2 (zigzag 3), name="a"
    let payload = [0x08, 0x96, 0x01, 0x10, 0x03, 0x1a, 0x01, b'a'];
    let data = tfrecord(&[&payload]);
    let file = dir.path().join("points.tfrecord");
    std::fs::write(&file, data).expect("write");
    let output = run([
        "show".as_ref(),
        file.as_os_str(),
        "--proto".as_ref(),
        proto.as_os_str(),
        "--message".as_ref(),
        "geo.Point".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(
        stdout(&output),
        "{\"name\": \"a\", \"x\": 150, \"y\": \"-2\"}\n",
        "{}",
        stderr(&output)
    );
    let output = run([
        "show".as_ref(),
        file.as_os_str(),
        "--message".as_ref(),
        "geo.Nope".as_ref(),
        "--proto".as_ref(),
        proto.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no message named `geo.Nope`"));
}

#[test]
fn names_and_values_from_the_file_cannot_act_on_the_terminal() {
    let payload = hostile_example();
    let (_dir, path) = temp_file("hostile.tfrecord", &tfrecord(&[&payload]));
    let output = run(["show".as_ref(), path.as_os_str()]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(!acts_on_a_terminal(&text), "{text:?}");
    for shown in [
        "\\033]2;owned\\007",
        "a\\rDAMAGED",
        "del\\177",
        "\\u202egpj",
    ] {
        assert!(text.contains(shown), "{shown} in {text}");
    }
    // A short string value keeps its quotes, escaped rather than summarised as a byte count.
    assert!(text.contains("[\"new\\nline\"]"), "{text}");
    assert_eq!(
        text.lines().count(),
        1 + HOSTILE_NAMES.len() + 1,
        "one line per feature"
    );
}

#[test]
fn an_empty_feature_key_is_shown_as_empty_quotes_and_no_features_leave_no_colon() {
    use tfr_core::crafted::{FeatureValue, example, sequence_example};
    let empty_key = example(&[
        ("", FeatureValue::Ints(vec![1])),
        ("b", FeatureValue::Ints(vec![2])),
    ]);
    let no_features = example(&[]);
    let (_dir, path) = temp_file("keys.tfrecord", &tfrecord(&[&empty_key, &no_features]));
    let show = stdout(&run(["show".as_ref(), path.as_os_str()]));
    assert!(show.contains("\n  \"\"  int64[1]     [1]\n"), "{show}");
    assert!(show.contains("\n  b   int64[1]     [2]\n"), "{show}");
    let list = stdout(&run(["list".as_ref(), path.as_os_str()]));
    let rows: Vec<&str> = list.lines().skip(1).take(2).collect();
    assert!(rows[0].ends_with("2 features: \"\", b"), "{list}");
    assert!(
        rows[1].ends_with("Example             0 features"),
        "{list}"
    );
    let stats = stdout(&run(["stats".as_ref(), path.as_os_str()]));
    assert!(stats.contains("\n\n\"\"\n  kind "), "{stats}");
    // A SequenceExample with feature lists but no context features, and one feature list.
    let lists_only = sequence_example(&[], &[("frames", vec![FeatureValue::Ints(vec![1])])]);
    let (_dir, path) = temp_file("lists.tfrecord", &tfrecord(&[&lists_only]));
    let list = stdout(&run(["list".as_ref(), path.as_os_str()]));
    assert!(
        list.lines()
            .nth(1)
            .unwrap()
            .ends_with("SequenceExample     0 features, 1 feature list"),
        "{list}"
    );
}

#[test]
fn images_say_their_colour_type_and_bit_depth_from_the_header() {
    use image::{ExtendedColorType, ImageEncoder};
    use tfr_core::crafted::{FeatureValue, example};
    let png = |w: u32, h: u32, colour: ExtendedColorType| {
        let pixels = vec![0u8; (w * h) as usize * usize::from(colour.bits_per_pixel() / 8)];
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new(&mut out)
            .write_image(&pixels, w, h, colour)
            .unwrap();
        out
    };
    let record = example(&[
        (
            "a",
            FeatureValue::Bytes(vec![png(30, 20, ExtendedColorType::Rgba8)]),
        ),
        (
            "b",
            FeatureValue::Bytes(vec![png(5, 4, ExtendedColorType::L16)]),
        ),
    ]);
    let (_dir, path) = temp_file("pixels.tfrecord", &tfrecord(&[&record]));
    let text = stdout(&run(["show".as_ref(), path.as_os_str()]));
    assert!(
        text.contains("  a  bytes[1]     [PNG 30x20 RGBA]\n"),
        "{text}"
    );
    assert!(
        text.contains("  b  bytes[1]     [PNG 5x4 16-bit gray]\n"),
        "{text}"
    );
    // The fixtures' images agree with the channels TensorFlow decoded them to.
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(testdata("images.meta.json")).unwrap())
            .unwrap();
    let records = meta.as_array().unwrap();
    for (i, record) in records.iter().enumerate() {
        let shown = stdout(&run([
            "show".as_ref(),
            testdata("images.tfrecord").as_os_str(),
            "-n".as_ref(),
            i.to_string().as_ref(),
        ]));
        let colour = match record["channels"].as_u64().unwrap() {
            1 => "gray]",
            3 => "RGB]",
            4 => "RGBA]",
            other => panic!("{other} channels"),
        };
        let line = shown.lines().find(|l| l.contains("image/encoded")).unwrap();
        assert!(line.ends_with(colour), "record {i}: {line}");
    }
}

#[test]
fn records_of_unknown_protobuf_are_compared_with_example_once_per_file() {
    // Each starts like an Example (field 1, length-delimited) and holds an invalid wire type.
    let payloads: Vec<Vec<u8>> = (0..5u8).map(|i| vec![0x0a, 0x02, 0x0f, i]).collect();
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let (_dir, path) = temp_file("unknown.tfrecord", &tfrecord(&refs));
    let output = spawn(["show".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    let err = stderr(&output);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].ends_with(
            "record 0: not a valid tf.train.Example: invalid wire type 7 (payload byte 2, file byte 14)"
        ),
        "{err}"
    );
    assert!(
        lines[1].contains("5 records in all are not a valid tf.train.Example"),
        "{err}"
    );
    assert_eq!(
        stdout(&output).matches("protobuf of unknown type").count(),
        5
    );
    // One record asked for by number: its own reason.
    let output = spawn([
        "show".as_ref(),
        path.as_os_str(),
        "-n".as_ref(),
        "3".as_ref(),
    ]);
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("record 3: not a valid tf.train.Example"),
        "{err}"
    );
}

/// A YouTube-8M-style SequenceExample: context `id` and `labels`, feature lists `rgb` (1024
/// quantized bytes a frame) and `audio` (128), `frames` frames.
pub(crate) fn youtube8m_like(frames: usize) -> Vec<u8> {
    use tfr_core::crafted::{FeatureValue, sequence_example};
    let step = |len: usize, k: usize| {
        FeatureValue::Bytes(vec![(0..len).map(|i| ((i * 7 + k) % 256) as u8).collect()])
    };
    sequence_example(
        &[
            ("id", FeatureValue::Bytes(vec![b"XyZ1".to_vec()])),
            ("labels", FeatureValue::Ints(vec![330, 3517])),
        ],
        &[
            ("audio", (0..frames).map(|k| step(128, k)).collect()),
            ("rgb", (0..frames).map(|k| step(1024, k)).collect()),
        ],
    )
}

#[test]
fn quantized_bytes_are_shown_as_uint8_arrays_when_asked() {
    let (_dir, path) = temp_file("yt8m.tfrecord", &tfrecord(&[&youtube8m_like(2)]));
    let plain = stdout(&spawn(["show".as_ref(), path.as_os_str()]));
    assert!(plain.contains("      [0] [1024 bytes]\n"), "{plain}");
    let output = spawn([
        "show".as_ref(),
        path.as_os_str(),
        "--bytes-as".as_ref(),
        "rgb,audio=uint8".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("      [1] [uint8[1024] [1, 8, 15, 22, 29, 36, 43, 50, … 1016 more]]\n"),
        "{text}"
    );
    assert!(
        text.contains("      [0] [uint8[128] [0, 7, 14, 21, 28, 35, 42, 49, … 120 more]]\n"),
        "{text}"
    );
    // Features not named stay as they were.
    assert!(text.contains("id      bytes[1]     [\"XyZ1\"]"), "{text}");
    // A dtype without a fixed width, or no dtype at all, is refused with the reason.
    for bad in ["rgb=string", "rgb=uint9", "=uint8", "rgb"] {
        let output = spawn([
            "show".as_ref(),
            path.as_os_str(),
            "--bytes-as".as_ref(),
            bad.as_ref(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&output).contains("--bytes-as"),
            "{bad}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_compressed_stream_damaged_after_its_last_whole_record_is_damage() {
    use std::io::Write as _;
    let records = std::fs::read(testdata("cifar_like.tfrecord")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&records).unwrap();
    let whole = encoder.finish().unwrap();
    // The trailer's CRC broken: every record decompresses whole, the stream does not check.
    let mut bad_trailer = whole.clone();
    let crc_at = bad_trailer.len() - 8;
    bad_trailer[crc_at] ^= 0xff;
    // The trailer missing: the stream ends early, right after the last record.
    let cut = whole[..whole.len() - 8].to_vec();
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, why) in [
        (
            "bad_trailer.tfrecord.gz",
            bad_trailer,
            "incorrect data check",
        ),
        ("cut.tfrecord.gz", cut, "the compressed data ends early"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let all = spawn(["show".as_ref(), path.as_os_str()]);
        assert_eq!(all.status.code(), Some(1), "{}", stderr(&all));
        assert!(
            stderr(&all).contains("compressed stream damaged"),
            "{}",
            stderr(&all)
        );
        assert!(stderr(&all).contains(why), "{}", stderr(&all));
        // Every record is shown all the same.
        assert_eq!(
            stdout(&all).matches("record 19 ").count(),
            1,
            "{}",
            stdout(&all)
        );
        // A record before the end is whole, and so is what shows it.
        let first = spawn([
            "show".as_ref(),
            path.as_os_str(),
            "-n".as_ref(),
            "0".as_ref(),
        ]);
        assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
        assert_eq!(stderr(&first), "");
    }
}

#[test]
fn stats_of_a_compressed_stream_damaged_after_its_last_record_is_damage() {
    use std::io::Write as _;
    let records = std::fs::read(testdata("cifar_like.tfrecord")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&records).unwrap();
    let whole = encoder.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.tfrecord.gz");
    std::fs::write(&path, &whole[..whole.len() - 8]).unwrap();
    let output = spawn(["stats".as_ref(), path.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("cut.tfrecord.gz: compressed stream damaged: the compressed data ends early"),
        "{}",
        stderr(&output)
    );
    // Every record is summarised all the same.
    assert!(
        stdout(&output).contains("20 records"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn json_envelope_lines_say_where_each_record_comes_from() {
    // A damaged length: a frame is skipped and the records after it are found by resync, so a
    // line's place among the lines is not its record number; each line names its own.
    let file = testdata("corrupt/length_bitflip.tfrecord");
    let bare = run(["show".as_ref(), file.as_os_str(), "--json".as_ref()]);
    let wrapped = run(["show".as_ref(), file.as_os_str(), "--envelope".as_ref()]);
    assert_eq!(wrapped.status.code(), bare.status.code());
    let listed = spawn(["list".as_ref(), file.as_os_str(), "--json".as_ref()]);
    let frames: Vec<serde_json::Value> = stdout(&listed)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v.get("index").is_some())
        .collect();
    let bare = stdout(&bare);
    let wrapped = stdout(&wrapped);
    assert!(wrapped.lines().count() > 0);
    assert_eq!(bare.lines().count(), wrapped.lines().count());
    for (plain, line) in bare.lines().zip(wrapped.lines()) {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["file", "index", "offset", "record"]);
        assert_eq!(line["file"], file.to_str().unwrap());
        let frame = frames
            .iter()
            .find(|f| f["index"] == line["index"])
            .expect("a frame of that index");
        assert_eq!(line["offset"], frame["offset"]);
        let plain: serde_json::Value = serde_json::from_str(plain).unwrap();
        assert_eq!(line["record"], plain);
    }
    // Only with JSON.
    let refused = spawn([
        "show".as_ref(),
        file.as_os_str(),
        "--envelope".as_ref(),
        "--format".as_ref(),
        "text".as_ref(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
}
