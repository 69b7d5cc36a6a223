//! Each token class derived on a message built for it, and the fixtures the rule notes' tests
//! share: a proto3 and a proto2 message type compiled from a temporary directory.

use super::*;
use crate::annotate::Annotated;
use crate::crafted::encode_records;
use crate::frame::FrameIndex;
use crate::payload::{Decoded, Decoder, Reading};
use crate::schema::Schema;

pub(crate) const PROTO3: &str = "syntax = \"proto3\"; package t;\n\
    enum Color { ZERO = 0; RED = 1; }\n\
    message Inner { int32 a = 1; int32 b = 2; }\n\
    message M {\n\
      int32 i32 = 1; int64 i64 = 2; sint32 s32 = 3; sint64 s64 = 4; bool b = 5;\n\
      fixed32 f32 = 6; fixed64 f64 = 7; sfixed32 sf32 = 8; float fl = 9; double d = 10;\n\
      string s = 11; Inner inner = 12; repeated Inner inners = 13;\n\
      oneof pick { int32 x = 14; string y = 15; }\n\
      repeated int32 nums = 16; Color c = 17; uint64 u = 18;\n\
    }\n";

pub(crate) const PROTO2: &str = "syntax = \"proto2\"; package p;\n\
    enum Color { ZERO = 0; RED = 1; }\n\
    message P {\n\
      optional Color c = 1; optional string s = 2;\n\
      repeated int32 packed = 3 [packed = true]; repeated int32 plain = 4;\n\
    }\n";

/// A schema with one user message type, compiled from `source`.
pub(crate) fn schema(source: &str, message: &str) -> Schema {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("teach.proto");
    std::fs::write(&path, source).unwrap();
    Schema::with_user_protos(&[path], Some(message)).unwrap()
}

/// One record framed in a file, decoded as the schema's user message.
pub(crate) struct Fixture {
    pub file: Vec<u8>,
    pub decoder: Decoder,
    pub decoded: Decoded,
}

impl Fixture {
    pub fn new(schema: Schema, payload: &[u8]) -> Fixture {
        let reading = match schema.user_message() {
            Some(m) => Reading::As(m),
            None => Reading::Auto,
        };
        let decoder = Decoder::new(schema, reading);
        let decoded = decoder.decode(payload);
        Fixture {
            file: encode_records(&[payload]),
            decoder,
            decoded,
        }
    }

    pub fn proto3(payload: &[u8]) -> Fixture {
        Fixture::new(schema(PROTO3, "t.M"), payload)
    }

    pub fn proto2(payload: &[u8]) -> Fixture {
        Fixture::new(schema(PROTO2, "p.P"), payload)
    }

    pub fn annotated(&self) -> Annotated<'_> {
        let index = FrameIndex::build(&self.file);
        let frame = index.get(&self.file, 0).unwrap();
        Annotated::new(
            &self.file,
            &frame,
            Some(&self.decoded),
            self.decoder.table(),
        )
    }
}

/// Every token of the fixture's frame: its bytes, its meaning and its derivation.
fn derive(fixture: &Fixture) -> Vec<(String, String, Vec<String>)> {
    let annotated = fixture.annotated();
    let explainer = Explainer::new(&annotated, &fixture.file, Radix::Decimal);
    annotated
        .tokens()
        .map(|t| {
            let hex = number::hex_bytes(explainer.bytes(&t));
            (hex, annotated.meaning(&t), explainer.derivation(&t))
        })
        .collect()
}

/// The derivation of the token whose bytes are `hex`, after the frame header (the first such).
fn derivation_of(fixture: &Fixture, hex: &str) -> Vec<String> {
    derive(fixture)
        .into_iter()
        .skip(2)
        .find(|(h, _, _)| h == hex)
        .unwrap_or_else(|| panic!("no token {hex} in {:#?}", derive(fixture)))
        .2
}

fn has(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

#[test]
fn tags_lengths_and_the_frame_are_derived() {
    // inner { a: 1 }
    let fixture = Fixture::proto3(&[0x62, 0x02, 0x08, 0x01]);
    let all = derive(&fixture);
    let length = &all[0].2;
    assert!(
        has(length, "04 00 00 00 00 00 00 00 -> little-endian, reversed"),
        "{length:?}"
    );
    assert!(has(length, "= 4: the payload's length"), "{length:?}");
    let crc = &all[1].2;
    assert!(has(crc, "is the mask of crc32c 0x"), "{crc:?}");
    let tag = derivation_of(&fixture, "62");
    assert_eq!(
        tag,
        [
            "62 -> 0110 0010 -> continuation 0, group 1100010 -> field 1100 = 12, wire type 010 = 2 (LEN): \
          12 << 3 | 2 = 98 = 0x62"
        ]
    );
    let length = derivation_of(&fixture, "02");
    assert_eq!(
        length[0],
        "02 -> 0000 0010 -> groups 0000010 -> 0000010 = 2 = 0x02"
    );
    assert_eq!(
        length[1],
        "covers payload 2..4 (file 14..16), 2 bytes; after them 0 of the 4 bytes of the payload remain"
    );
    let inner_tag = derivation_of(&fixture, "08");
    assert!(inner_tag[0].contains("wire type 000 = 0 (VARINT): 1 << 3 | 0 = 8"));
}

#[test]
fn a_negative_int32_is_ten_bytes_sign_extended() {
    let mut payload = vec![0x08];
    payload.extend_from_slice(&[0x85, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    let fixture = Fixture::proto3(&payload);
    let lines = derivation_of(&fixture, "85 ff ff ff ff ff ff ff ff 01");
    assert!(lines[0].starts_with("85 ff ff ff ff ff ff ff ff 01 -> 1000 0101 1111 1111"));
    assert!(
        lines[0].ends_with("= 18446744073709551493 = 0xffffffffffffff85"),
        "{lines:?}"
    );
    assert!(has(&lines, "sign-extended to 64 bits"), "{lines:?}");
    assert!(
        has(&lines, "0xffffff85 in two's complement = -123"),
        "{lines:?}"
    );
}

#[test]
fn a_sint64_is_zigzag_decoded() {
    // s64: -2 is zigzag 3.
    let fixture = Fixture::proto3(&[0x20, 0x03]);
    let lines = derivation_of(&fixture, "03");
    assert!(
        has(
            &lines,
            "zigzag: (n >> 1) ^ -(n & 1) = (3 >> 1) ^ -(3 & 1) = 1 ^ -1 = -2"
        ),
        "{lines:?}"
    );
}

#[test]
fn fixed32_and_float_are_reversed_and_split() {
    let mut payload = vec![0x35];
    payload.extend_from_slice(&0xdead_beefu32.to_le_bytes());
    payload.push(0x4d);
    payload.extend_from_slice(&25.4f32.to_le_bytes());
    let fixture = Fixture::proto3(&payload);
    let fixed = derivation_of(&fixture, "ef be ad de");
    assert_eq!(
        fixed,
        ["ef be ad de -> little-endian, reversed: de ad be ef -> 0xdeadbeef = 3735928559"]
    );
    let float = derivation_of(&fixture, "33 33 cb 41");
    assert_eq!(
        float[0],
        "33 33 cb 41 -> little-endian, reversed: 41 cb 33 33 -> 0x41cb3333 = 1103835955"
    );
    assert!(
        float[1].starts_with("0x41cb3333 = 0 10000011 10010110011001100110011 -> sign 0 (+)"),
        "{float:?}"
    );
    assert!(
        float[1].ends_with("+1.5875 × 2^4 ≈ 25.4 (exactly 25.3999996185302734375)"),
        "{float:?}"
    );
}

#[test]
fn a_double_nan_is_named() {
    let mut payload = vec![0x51];
    payload.extend_from_slice(&f64::NAN.to_bits().to_le_bytes());
    let fixture = Fixture::proto3(&payload);
    let lines = derivation_of(&fixture, "00 00 00 00 00 00 f8 7f");
    assert!(has(&lines, "0x7ff8000000000000"), "{lines:?}");
    assert!(
        has(&lines, "exponent all ones, mantissa not 0: NaN (quiet)"),
        "{lines:?}"
    );
}

#[test]
fn an_over_long_varint_shows_its_zero_groups() {
    // u: 1 written in four bytes.
    let fixture = Fixture::proto3(&[0x90, 0x01, 0x81, 0x80, 0x80, 0x00]);
    let lines = derivation_of(&fixture, "81 80 80 00");
    assert_eq!(
        lines[0],
        "81 80 80 00 -> 1000 0001 1000 0000 1000 0000 0000 0000 -> groups 0000001, 0000000, \
         0000000, 0000000 -> 0000000 0000000 0000000 0000001 = 1 = 0x01"
    );
    // The two-byte tag of field 18 is a varint first.
    let tag = derivation_of(&fixture, "90 01");
    assert!(tag[0].ends_with("= 144 = 0x90"), "{tag:?}");
    assert!(tag[1].ends_with("18 << 3 | 0 = 144 = 0x90"), "{tag:?}");
}

#[test]
fn bools_and_enums_read_the_number() {
    let fixture = Fixture::proto3(&[0x28, 0x02, 0x88, 0x01, 0x01]);
    let lines = derivation_of(&fixture, "02");
    assert!(has(&lines, "as bool: 2 is not 0 or 1"), "{lines:?}");
    let lines = derivation_of(&fixture, "01");
    assert!(has(&lines, "as enum Color: 1 is RED"), "{lines:?}");
    let fixture = Fixture::proto2(&[0x08, 0x63]);
    let lines = derivation_of(&fixture, "63");
    assert!(
        has(
            &lines,
            "99 is not one of its values, and the enum is closed"
        ),
        "{lines:?}"
    );
}

#[test]
fn packed_elements_and_strings() {
    // nums: [1, 300] packed; s: "hi".
    let fixture = Fixture::proto3(&[0x82, 0x01, 0x03, 0x01, 0xac, 0x02, 0x5a, 0x02, b'h', b'i']);
    let lines = derivation_of(&fixture, "ac 02");
    assert!(lines[0].ends_with("= 300 = 0x12c"), "{lines:?}");
    let data = derivation_of(&fixture, "68 69");
    assert_eq!(
        data,
        ["2 bytes at payload 8..10 (file 20..22), as many as the length before them says"]
    );
}

#[test]
fn radix_hex_counts_like_the_encoding_guide() {
    assert_eq!(Radix::Hex.num(856), "0x358");
    assert_eq!(Radix::Hex.signed(-123), "-0x7b");
    assert_eq!(Radix::Decimal.range(3, 875), "3..875");
    let fixture = Fixture::proto3(&[0x62, 0x02, 0x08, 0x01]);
    let annotated = fixture.annotated();
    let explainer = Explainer::new(&annotated, &fixture.file, Radix::Hex);
    let length = annotated.tokens().nth(3).unwrap();
    assert_eq!(
        explainer.derivation(&length)[1],
        "covers payload 0x2..0x4 (file 0xe..0x10), 0x2 bytes; after them 0x0 of the 0x4 bytes of the payload remain"
    );
}

#[test]
fn a_byte_is_explained_within_its_token() {
    // u: 856 (d8 06).
    let fixture = Fixture::proto3(&[0x90, 0x01, 0xd8, 0x06]);
    let annotated = fixture.annotated();
    let explainer = Explainer::new(&annotated, &fixture.file, Radix::Decimal);
    let value = annotated.tokens().nth(3).unwrap();
    let first = explainer.byte(&value, value.start).unwrap();
    assert_eq!(
        first,
        "byte 1 of 2: 1101 1000: continuation 1: more bytes follow; group 1011000 = 88, adds 88 << 0 = 88 to 856"
    );
    let second = explainer.byte(&value, value.start + 1).unwrap();
    assert!(second.contains("continuation 0: the last byte"), "{second}");
    assert!(second.contains("adds 6 << 7 = 768 to 856"), "{second}");
    let tag = annotated.tokens().nth(2).unwrap();
    let first = explainer.byte(&tag, tag.start).unwrap();
    assert!(
        first.contains("low 3 bits 000 are the wire type 0 (VARINT)"),
        "{first}"
    );
    let header = annotated.tokens().next().unwrap();
    let byte = explainer.byte(&header, 0).unwrap();
    assert!(
        byte.contains("bits 0..7 of the little-endian value 0x0000000000000004"),
        "{byte}"
    );
}

#[test]
fn open_messages_count_down() {
    // inners { a: 1 b: 2 }
    let fixture = Fixture::proto3(&[0x6a, 0x04, 0x08, 0x01, 0x10, 0x02]);
    let annotated = fixture.annotated();
    let explainer = Explainer::new(&annotated, &fixture.file, Radix::Decimal);
    let tokens: Vec<Token> = annotated.tokens().collect();
    // The value 1 of `a`: inside the payload and `inners`.
    let open = explainer.open_messages(&tokens[5]);
    assert_eq!(open.len(), 2, "{open:?}");
    assert_eq!(open[0].name, "payload (t.M)");
    assert_eq!((open[0].length, open[0].remaining), (6, 2));
    assert_eq!(open[1].name, "`inners` (Inner)");
    assert_eq!((open[1].length, open[1].remaining), (4, 2));
    // The length of `inners` is read before `inners` is entered.
    let open = explainer.open_messages(&tokens[3]);
    assert_eq!(open.len(), 1, "{open:?}");
}

#[test]
fn values_wider_than_32_bits_are_cut_as_parsers_cut_them() {
    // Python protobuf parses `08 85 80 80 80 10` as i32: 5 and `18 83 80 80 80 10` as s32: -2.
    let fixture = Fixture::proto3(&[0x08, 0x85, 0x80, 0x80, 0x80, 0x10]);
    let lines = derivation_of(&fixture, "85 80 80 80 10");
    assert!(
        !has(&lines, "sign-extended to 64 bits on the wire"),
        "{lines:?}"
    );
    assert!(has(&lines, "no encoder writes"), "{lines:?}");
    assert!(
        has(&lines, "keep the low 32 bits 0x00000005 = 5"),
        "{lines:?}"
    );
    let fixture = Fixture::proto3(&[0x18, 0x83, 0x80, 0x80, 0x80, 0x10]);
    let lines = derivation_of(&fixture, "83 80 80 80 10");
    assert!(
        has(
            &lines,
            "sint32 keeps the low 32 bits: 4294967299 = 0x100000003 -> 0x00000003 = 3"
        ),
        "{lines:?}"
    );
    assert!(has(&lines, "= 1 ^ -1 = -2"), "{lines:?}");
}

#[test]
fn a_one_byte_tag_drops_its_continuation_bit_first() {
    let fixture = Fixture::proto3(&[0x62, 0x00]);
    let lines = derivation_of(&fixture, "62");
    assert!(
        lines[0].starts_with("62 -> 0110 0010 -> continuation 0, group 1100010 -> field 1100 = 12"),
        "{lines:?}"
    );
}

#[test]
fn a_subnormal_double_is_written_without_binary_hex_digits() {
    // d = 5e-324, the smallest subnormal (Python: 4.94065645841247e-324).
    let fixture = Fixture::proto3(&[0x51, 1, 0, 0, 0, 0, 0, 0, 0]);
    let lines = derivation_of(&fixture, "01 00 00 00 00 00 00 00");
    assert!(!has(&lines, "(binary)"), "{lines:?}");
    assert!(
        has(
            &lines,
            "0x0000000000001 / 2^52 × 2^-1022 = +1 × 2^-1074 ≈ 5e-324"
        ),
        "{lines:?}"
    );
}

#[test]
fn malformed_bytes_are_derived_up_to_the_fault() {
    // Each of these Python protobuf rejects ("Wire format was corrupt").
    let mut eleven = vec![0x08];
    eleven.extend([0xff; 10]);
    eleven.push(0x01);
    let cases: [(&[u8], &str, &str); 7] = [
        (
            &eleven,
            "invalid at payload byte 10: a varint longer than 10 bytes",
            "payload byte 1: a varint starts",
        ),
        (
            &[0x0e],
            "invalid at payload byte 0: wire type 6 does not exist",
            "wire type 110 = 6",
        ),
        (
            &[0x0f],
            "invalid at payload byte 0: wire type 7 does not exist",
            "wire type 111 = 7",
        ),
        (
            &[0x80, 0x80, 0x80, 0x80, 0x10],
            "invalid at payload byte 4: field 2^29, one above the largest field number 536870911",
            "= 536870912",
        ),
        (
            &[0x0a, 0x05, 0x01],
            "invalid at payload byte 1: a length of 5 runs past the end",
            "only 1 remain",
        ),
        (
            &[0x00, 0x01],
            "invalid at payload byte 0: field number 0",
            "field 0000 = 0",
        ),
        (
            &[0xd4, 0x01],
            "invalid at payload byte 0: an end-group tag (EGROUP) for field 26 where no group is open",
            "field 11010 = 26, wire type 100 = 4 (EGROUP)",
        ),
    ];
    for (payload, meaning, step) in cases {
        let fixture = Fixture::proto3(payload);
        let all = derive(&fixture);
        let (_, said, lines) = &all[2];
        assert!(said.starts_with(meaning), "{said}");
        assert!(said.contains("parsers reject the message"), "{said}");
        assert!(lines[0].starts_with("payload byte 0: "), "{lines:?}");
        assert!(has(lines, step), "{step}: {lines:?}");
        assert!(has(lines, "parsers reject the whole message"), "{lines:?}");
    }
}
