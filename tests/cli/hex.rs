//! `hex`: the annotated walkthrough.

use super::{
    acts_on_a_terminal, hostile_example, run, run_in_process, stdout, temp_file, testdata, tfrecord,
};
use crate::proto::ld;

fn int64_feature(v: u8) -> Vec<u8> {
    ld(3, &ld(1, &[v]))
}

fn entry(key: &str, feature: Vec<u8>) -> Vec<u8> {
    ld(1, &[ld(1, key.as_bytes()), ld(2, &feature)].concat())
}

/// The classic MNIST Example, features serialized in the order image_raw, label, height, width.
pub(crate) fn mnist_example() -> Vec<u8> {
    let pixels: Vec<u8> = (0..784u32).map(|i| (i % 251) as u8).collect();
    let features = [
        entry("image_raw", ld(1, &ld(1, &pixels))),
        entry("label", int64_feature(5)),
        entry("height", int64_feature(28)),
        entry("width", int64_feature(28)),
    ]
    .concat();
    ld(1, &features)
}

/// (offset, hex bytes, meaning) of each annotated line.
fn lines(text: &str) -> Vec<(u64, String, String)> {
    text.lines()
        .skip(2)
        .map(|line| {
            let offset = line[..10].trim().parse().expect("offset column");
            let bytes = line[12..41].trim_end().to_string();
            let meaning = line[41..].trim_start().to_string();
            (offset, bytes, meaning)
        })
        .collect()
}

#[test]
fn reproduces_the_classic_walkthrough() {
    let (_dir, path) = temp_file("mnist.tfrecord", &tfrecord(&[&mnist_example()]));
    let output = run_in_process([
        "hex".as_ref(),
        path.as_os_str(),
        "-n".as_ref(),
        "0".as_ref(),
    ]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(!text.contains('\x1b'), "no colour when piped");
    let lines = lines(&text);
    let expect = [
        (
            0,
            "5b 03 00 00 00 00 00 00",
            "length 859 (u64 little-endian)",
        ),
        (
            12,
            "0a",
            "field 1 `features`, wire type 2 (length-delimited)",
        ),
        (13, "d8 06", "varint 856: length of `features`"),
        (
            15,
            "0a",
            "field 1 `feature`, wire type 2 (length-delimited) (map entry",
        ),
        (
            16,
            "a4 06",
            "varint 804: length of `feature`, map entry of 804 bytes",
        ),
        (18, "0a", "field 1 `key`"),
        (19, "09", "varint 9: length of `key`"),
        (20, "69 6d 61 67 65 5f 72 61 77", "string \"image_raw\""),
        (29, "12", "field 2 `value`"),
        (
            30,
            "96 06",
            "varint 790: length of `value`, message Feature of 790 bytes",
        ),
        (32, "0a", "field 1 `bytes_list`"),
        (33, "93 06", "varint 787: length of `bytes_list`"),
        (
            35,
            "0a",
            "field 1 `value`, wire type 2 (length-delimited) (repeated bytes)",
        ),
        (36, "90 06", "varint 784: length of `value`, 784 bytes"),
        (38, "00 01 02 03 04 05 06 07 …", "bytes, 784 bytes"),
    ];
    // Line 1 is the length CRC; from line 2 on, the payload tokens follow one per line.
    let got_lines = lines.iter().take(1).chain(lines.iter().skip(2));
    for (want, got) in expect.iter().zip(got_lines) {
        assert_eq!(got.0, want.0, "offset of {want:?}");
        assert_eq!(got.1, want.1, "bytes at {}", want.0);
        assert!(
            got.2.contains(want.2),
            "meaning at {}: {:?} lacks {:?}",
            want.0,
            got.2,
            want.2
        );
    }
    // It goes on through label, height and width to the payload CRC.
    let find = |needle: &str| {
        lines
            .iter()
            .position(|l| l.2.contains(needle))
            .unwrap_or(usize::MAX)
    };
    assert!(find("string \"label\"") < find("varint 5: int64 5"));
    assert!(find("varint 5: int64 5") < find("string \"height\""));
    assert!(find("string \"height\"") < find("varint 28: int64 28"));
    assert!(find("string \"width\"") < lines.len());
    let last = lines.last().expect("lines");
    assert_eq!(last.0, 12 + 859);
    assert!(
        last.2.starts_with("masked crc32c of the payload"),
        "{last:?}"
    );
    assert!(last.2.ends_with("matches"));
}

#[test]
fn tokens_cover_every_byte_once() {
    use tfr_core::annotate::Annotated;
    use tfr_core::frame::FrameIndex;
    use tfr_core::payload::{Decoder, Reading};
    use tfr_core::schema::Schema;
    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    for name in [
        "mnist_like",
        "images",
        "sequence",
        "raw_strings",
        "corrupt/zeroed_block",
    ] {
        let data = std::fs::read(testdata(&format!("{name}.tfrecord"))).expect("fixture");
        let index = FrameIndex::build(&data);
        let mut next = 0u64;
        for frame in index.frames(&data) {
            let decoded = frame.payload(&data).map(|p| decoder.decode(p));
            let annotated = Annotated::new(&data, &frame, decoded.as_ref(), decoder.table());
            for token in annotated.tokens() {
                assert_eq!(token.start, next, "{name}: gap or overlap before {token:?}");
                assert!(token.end > token.start, "{name}: empty token {token:?}");
                next = token.end;
            }
        }
        assert_eq!(
            next,
            data.len() as u64,
            "{name}: tokens end at the end of the file"
        );
    }
}

#[test]
fn colour_only_on_request_and_no_color_respected() {
    // Piped output is plain; the colour decision is tested on the formatter directly.
    use tfr_core::annotate::{Role, Site, Token};
    let token = Token {
        start: 0,
        end: 1,
        depth: 0,
        role: Role::Tag,
        site: Site::Tag(1),
    };
    let tag = |_: &Token| "tag".to_string();
    let mut coloured = Vec::new();
    tfr_inspect::cli::hex::write_tokens(
        &mut coloured,
        &[0x0a],
        std::iter::once(token),
        tag,
        false,
        true,
    )
    .expect("write");
    assert!(String::from_utf8_lossy(&coloured).contains("\x1b[33m0a"));
    let mut plain = Vec::new();
    tfr_inspect::cli::hex::write_tokens(
        &mut plain,
        &[0x0a],
        std::iter::once(token),
        tag,
        false,
        false,
    )
    .expect("write");
    assert!(!String::from_utf8_lossy(&plain).contains('\x1b'));
}

#[test]
fn full_prints_every_byte_of_long_values() {
    let file = testdata("mnist_like.tfrecord");
    let output = run_in_process([
        "hex".as_ref(),
        file.as_os_str(),
        "-n".as_ref(),
        "3".as_ref(),
        "--full".as_ref(),
    ]);
    let text = stdout(&output);
    // 784 pixel bytes in rows of 16 = 49 rows of 47 hex characters.
    let rows = text
        .lines()
        .filter(|l| l.len() > 60 && l[12..59].split(' ').count() == 16)
        .count();
    assert!(rows >= 49, "{rows} full rows");
}

#[test]
fn a_damaged_record_is_walked_as_its_type_up_to_where_it_breaks() {
    let file = testdata("corrupt/zeroed_block.tfrecord");
    let output = run_in_process([
        "hex".as_ref(),
        file.as_os_str(),
        "-n".as_ref(),
        "81".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    // The zeroed block starts at byte 8192, inside the value of `feature2`.
    assert!(text.contains("string \"feature2\""), "{text}");
    let broken = text
        .lines()
        .find(|l| l.contains("invalid at payload byte"))
        .expect("an invalid token");
    assert!(
        broken.trim_start().starts_with("8197")
            && broken.contains("field number 0: field numbers start at 1")
            && broken.contains("parsers reject the message"),
        "{broken}"
    );
}

#[test]
fn strings_from_the_file_in_meanings_cannot_act_on_the_terminal() {
    let payload = hostile_example();
    let (_dir, path) = temp_file("hostile.tfrecord", &tfrecord(&[&payload]));
    let output = run([
        "hex".as_ref(),
        path.as_os_str(),
        "-n".as_ref(),
        "0".as_ref(),
    ]);
    let text = stdout(&output);
    assert!(!acts_on_a_terminal(&text), "{text:?}");
    // Keys with control characters are described, not shown; text with newlines is escaped.
    assert!(
        text.contains("1b 5d 32 3b 6f 77 6e 65 64 07      string, 10 bytes"),
        "{text}"
    );
    assert!(text.contains("bytes \"new\\nline\""), "{text}");
}

/// A string tensor of `count` strings as `Dataset.save` writes one: dtype DT_STRING, the shape,
/// and `tensor_content` holding every string's varint length, then their bytes.
pub(crate) fn string_tensor(strings: &[&[u8]]) -> Vec<u8> {
    use tfr_core::crafted::length_delimited;
    use tfr_core::explain::number::varint_bytes;
    let mut content: Vec<u8> = strings
        .iter()
        .flat_map(|s| varint_bytes(s.len() as u64))
        .collect();
    for s in strings {
        content.extend_from_slice(s);
    }
    let dim = [&[0x08][..], &varint_bytes(strings.len() as u64)].concat();
    [
        vec![0x08, 0x07],
        length_delimited(2, &length_delimited(2, &dim)),
        length_delimited(4, &content),
    ]
    .concat()
}

#[test]
fn a_string_tensor_s_content_is_annotated_length_by_length_and_string_by_string() {
    let payload = string_tensor(&[b"north", b"", b"south"]);
    let (_dir, path) = super::temp_file("strings.tfrecord", &super::tfrecord(&[&payload]));
    let text = stdout(&run(["hex".as_ref(), path.as_os_str()]));
    let rows = lines(&text);
    let meaning = |offset: u64| {
        rows.iter()
            .find(|(o, _, _)| *o == offset)
            .map(|(_, bytes, m)| (bytes.clone(), m.trim().to_string()))
            .unwrap_or_else(|| panic!("no token at {offset}\n{text}"))
    };
    // Header 12, dtype 2, shape 6, tensor_content tag and length 2: the lengths at 22.
    assert_eq!(
        meaning(22),
        ("05".into(), "varint 5: length of string 0 of 3".into())
    );
    assert_eq!(
        meaning(23),
        ("00".into(), "varint 0: length of string 1 of 3".into())
    );
    assert_eq!(
        meaning(24),
        ("05".into(), "varint 5: length of string 2 of 3".into())
    );
    assert_eq!(
        meaning(25),
        (
            "6e 6f 72 74 68".into(),
            "string 0, 5 bytes: \"north\"".into()
        )
    );
    assert_eq!(
        meaning(30),
        (
            "73 6f 75 74 68".into(),
            "string 2, 5 bytes: \"south\"".into()
        )
    );
    let show = stdout(&run(["show".as_ref(), path.as_os_str()]));
    assert!(show.contains(r#"  ["north", "", "south"]"#), "{show}");
    assert!(
        show.contains(
            "  tensor_content: 3 varint lengths (bytes 0..3), then the strings (bytes 3..13)"
        ),
        "{show}"
    );
    let list = stdout(&run(["list".as_ref(), path.as_os_str()]));
    assert!(
        list.contains(r#"string[3] ["north", "", "south"]"#),
        "{list}"
    );
}

#[test]
fn string_tensor_tokens_cover_every_byte_once_and_are_found_again_from_any_byte() {
    use tfr_core::annotate::Annotated;
    use tfr_core::frame::FrameIndex;
    use tfr_core::payload::{Decoder, Reading};
    use tfr_core::schema::Schema;
    let strings: Vec<Vec<u8>> = (0..300)
        .map(|i: usize| vec![b'a' + (i % 26) as u8; i % 7])
        .collect();
    let refs: Vec<&[u8]> = strings.iter().map(Vec::as_slice).collect();
    let data = super::tfrecord(&[&string_tensor(&refs)]);
    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let index = FrameIndex::build(&data);
    let frame = index.frames(&data).next().unwrap();
    let decoded = frame.payload(&data).map(|p| decoder.decode(p));
    let annotated = Annotated::new(&data, &frame, decoded.as_ref(), decoder.table());
    let mut next = 0u64;
    let mut strings_seen = 0;
    for token in annotated.tokens() {
        assert_eq!(token.start, next, "gap or overlap before {token:?}");
        for offset in token.start..token.end {
            assert_eq!(annotated.token_at(offset), Some(token));
        }
        if annotated.meaning(&token).starts_with("string ") {
            strings_seen += 1;
        }
        next = token.end;
    }
    assert_eq!(next, data.len() as u64);
    // Every non-empty string is a token of its own.
    assert_eq!(
        strings_seen,
        strings.iter().filter(|s| !s.is_empty()).count()
    );
}

/// A compressed file's offsets are those of its decompressed stream, and the header says so.
#[test]
fn a_compressed_file_s_offsets_are_said_to_be_the_decompressed_stream_s() {
    for (name, said) in [
        (
            "examples_gzip.tfrecord",
            " of the GZIP-decompressed stream, ",
        ),
        (
            "examples_zlib.tfrecord",
            " of the ZLIB-decompressed stream, ",
        ),
        ("examples.tfrecord", ", "),
    ] {
        let output = run([
            "hex".as_ref(),
            testdata(name).as_os_str(),
            "-n".as_ref(),
            "1".as_ref(),
        ]);
        let first = stdout(&output)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(
            first.contains(&format!("record 1: frame at byte 99{said}Example (intact)")),
            "{name}: {first}"
        );
    }
}
