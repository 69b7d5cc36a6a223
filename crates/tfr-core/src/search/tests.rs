use super::*;
use crate::frame::write_record;
use crate::payload::Reading;
use crate::schema::Schema;

use crate::crafted::length_delimited as ld;
use crate::explain::number::varint_bytes as varint;

/// An Example of one feature `name` whose Feature message body is `feature`.
fn example(name: &str, feature: &[u8]) -> Vec<u8> {
    ld(
        1,
        &ld(1, &[ld(1, name.as_bytes()), ld(2, feature)].concat()),
    )
}

fn int64_feature(values: &[i64]) -> Vec<u8> {
    let packed: Vec<u8> = values.iter().flat_map(|v| varint(*v as u64)).collect();
    ld(3, &ld(1, &packed))
}

fn float_feature(values: &[f32]) -> Vec<u8> {
    let packed: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    ld(2, &ld(1, &packed))
}

fn builtin() -> Decoder {
    Decoder::new(Schema::builtin(), Reading::Auto)
}

/// The text of the first hit in `payload`, as (start, bytes).
fn hit(needle: &str, payload: &[u8], decoder: &Decoder) -> Option<(usize, Vec<u8>)> {
    let span = record_hit(&Needle::new(needle), payload, decoder)?;
    assert!(payload_matches(&Needle::new(needle), payload, decoder));
    Some((span.start, payload[span.start..span.end].to_vec()))
}

fn misses(needle: &str, payload: &[u8], decoder: &Decoder) -> bool {
    let none = record_hit(&Needle::new(needle), payload, decoder).is_none();
    assert_eq!(
        none,
        !payload_matches(&Needle::new(needle), payload, decoder)
    );
    none
}

#[test]
fn integers_match_exactly_wherever_the_varint_lies() {
    let decoder = builtin();
    let payload = example("label", &int64_feature(&[3, 856, -7]));
    let (at, bytes) = hit("856", &payload, &decoder).unwrap();
    assert_eq!(bytes, varint(856));
    assert_eq!(&payload[at..at + 2], [0xd8, 0x06]);
    assert_eq!(
        hit("-7", &payload, &decoder).unwrap().1,
        varint(-7i64 as u64)
    );
    // Whole numbers written otherwise are the same number; neighbours and fractions are not.
    assert!(hit("856.0", &payload, &decoder).is_some());
    assert!(hit("8.56e2", &payload, &decoder).is_some());
    for other in ["85", "8560", "856.5", "7", "-856"] {
        assert!(misses(other, &payload, &decoder), "{other}");
    }
}

#[test]
fn negative_sint_values_are_read_through_zigzag() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.proto");
    std::fs::write(
        &path,
        "syntax = \"proto3\"; package t;\n\
         enum Color { ZERO = 0; RED = 1; GREEN = 2; }\n\
         message M { sint64 s = 1; Color c = 2; repeated double d = 3; int32 i = 4; }",
    )
    .unwrap();
    let schema = Schema::with_user_protos(&[path], Some("t.M")).unwrap();
    let message = schema.user_message().unwrap();
    let decoder = Decoder::new(schema, Reading::As(message));
    // s = -3 (zigzag 5), c = GREEN (2), d = [0.25, 1e-5], i = 2 written as a ten-byte varint of
    // 2^32 + 2 (an int32 reads the low 32 bits).
    let mut payload = vec![0x08, 0x05, 0x10, 0x02];
    payload.extend(ld(
        3,
        &[0.25f64.to_le_bytes(), 1e-5f64.to_le_bytes()].concat(),
    ));
    payload.push(0x20);
    payload.extend(varint((1 << 32) + 2));
    let decoded = decoder.decode(&payload);
    assert!(
        decoded.kind.is_typed(),
        "{:?} {:?}",
        decoded.kind,
        decoded.invalid
    );
    assert_eq!(hit("-3", &payload, &decoder).unwrap(), (1, vec![0x05]));
    assert!(
        misses("5", &payload, &decoder),
        "the zigzag bytes are not the value"
    );
    assert!(misses("3", &payload, &decoder));
    // The enum by its number (its name is not in the bytes); the int32 by the value it reads as.
    let (at, _) = hit("2", &payload, &decoder).unwrap();
    assert_eq!(at, 3, "the enum comes first");
    assert!(misses("GREEN", &payload, &decoder));
    assert!(misses("4294967298", &payload, &decoder));
    // Doubles as their shortest digits.
    let doubles = 4 + 2;
    assert_eq!(hit("0.25", &payload, &decoder).unwrap().0, doubles);
    assert_eq!(hit("1e-5", &payload, &decoder).unwrap().0, doubles + 8);
    assert!(hit("0.00001", &payload, &decoder).is_some());
    assert!(misses("0.2500000000000001", &payload, &decoder));
}

#[test]
fn floats_match_the_value_the_tree_prints() {
    let decoder = builtin();
    let values = [0.25f32, 0.1, 16777216.0, -0.0, f32::NAN, f32::INFINITY];
    let payload = example("f", &float_feature(&values));
    let start = payload.len() - 4 * values.len();
    let at = |needle: &str| hit(needle, &payload, &decoder).map(|(at, _)| (at - start) / 4);
    assert_eq!(at("0.25"), Some(0));
    assert_eq!(at(".25"), Some(0));
    assert_eq!(at("0.1"), Some(1), "the float32 nearest 0.1 prints as 0.1");
    assert_eq!(
        at("0.10000000149"),
        None,
        "nearest the same float, but not what is shown"
    );
    assert_eq!(at("16777216"), Some(2));
    assert_eq!(
        at("16777217"),
        None,
        "rounds to the same float32, prints otherwise"
    );
    assert_eq!(at("-0"), Some(3));
    assert_eq!(at("nan"), Some(4));
    assert_eq!(at("inf"), Some(5));
    assert_eq!(at("1e400"), None, "a finite number is no infinity");
    assert_eq!(at("0.3"), None);
}

#[test]
fn packed_floats_of_a_tensor_are_searched_without_a_type_of_their_own() {
    let decoder = builtin();
    // TensorProto { dtype: DT_FLOAT, tensor_shape {}, float_val: [1.5, 2.5, 3.5] }
    let floats: Vec<u8> = [1.5f32, 2.5, 3.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let payload = [vec![0x08, 0x01], ld(2, &[]), ld(5, &floats)].concat();
    let decoded = decoder.decode(&payload);
    assert!(decoded.kind.is_typed(), "{:?}", decoded.kind);
    let span = first_hit(&Needle::new("2.5"), &payload, &decoded, decoder.table()).unwrap();
    assert_eq!(&payload[span.start..span.end], 2.5f32.to_le_bytes());
}

#[test]
fn text_is_found_in_keys_and_values_but_not_in_other_bytes() {
    let decoder = builtin();
    let bytes = ld(1, &ld(1, b"a horse"));
    let payload = [
        example("class_name", &bytes),
        example("id", &int64_feature(&[42])),
    ]
    .concat();
    let (at, found) = hit("name", &payload, &decoder).unwrap();
    assert_eq!(found, b"name");
    assert_eq!(&payload[at - 6..at], b"class_");
    assert_eq!(hit("horse", &payload, &decoder).unwrap().1, b"horse");
    // The number 42 is found; the byte '*' (42) in a tag or a length is not text.
    assert_eq!(hit("42", &payload, &decoder).unwrap().1, [42]);
    assert!(misses("*", &payload, &decoder));
    assert!(misses("zebra", &payload, &decoder));
    assert!(misses("43", &payload, &decoder));
}

#[test]
fn unknown_protobuf_numbers_are_raw_varints() {
    let decoder = builtin();
    // Field 7 = 856, field 9 = "x": no registered type explains it.
    let payload = [vec![0x38], varint(856), ld(9, b"xyz")].concat();
    let decoded = decoder.decode(&payload);
    assert_eq!(decoded.kind, PayloadKind::Protobuf);
    assert_eq!(hit("856", &payload, &decoder).unwrap().0, 1);
    assert_eq!(hit("yz", &payload, &decoder).unwrap().0, 6);
}

#[test]
fn needles_parse_as_numbers_only_when_they_are_numbers() {
    assert!(Needle::new("856").is_number());
    assert!(Needle::new("-0.25e3").is_number());
    assert!(Needle::new("nan").is_number());
    for text in ["horse", "", "1.2.3", "0x10", "12abc", " 5"] {
        assert!(!Needle::new(text).is_number(), "{text}");
    }
    let int = |t: &str| Number::parse(t).and_then(|n| n.int);
    assert_eq!(int("856"), Some(856));
    assert_eq!(int("-0"), Some(0));
    assert_eq!(int("1e3"), Some(1000));
    assert_eq!(int("12.50e1"), Some(125));
    assert_eq!(int("0.5"), None);
    assert_eq!(int("1e60"), None);
    assert_eq!(int("18446744073709551615"), Some(u64::MAX.into()));
}

fn file_of(payloads: &[Vec<u8>]) -> Vec<u8> {
    let mut data = Vec::new();
    for p in payloads {
        write_record(p, &mut data).unwrap();
    }
    data
}

#[test]
fn a_search_over_frames_hands_hits_on_in_file_order_and_stops_when_cancelled() {
    let decoder = builtin();
    let payloads: Vec<Vec<u8>> = (0..5000i64)
        .map(|i| example("label", &int64_feature(&[i % 7])))
        .collect();
    let data = file_of(&payloads);
    let index = FrameIndex::build(data.as_slice());
    let progress = SearchProgress::default();
    let mut hits = Vec::new();
    let finished = search_frames(
        &data,
        &index,
        0..index.len(),
        &decoder,
        &Needle::new("3"),
        &progress,
        |wave, _| hits.extend(wave),
    );
    assert_eq!(finished, Finished::Done);
    let expected: Vec<u64> = (0..5000).filter(|i| i % 7 == 3).collect();
    assert_eq!(hits, expected);
    assert_eq!(progress.examined.load(Ordering::Relaxed), 5000);
    // A cancelled search looks at nothing more.
    let progress = SearchProgress::default();
    progress.cancel.store(true, Ordering::Relaxed);
    let mut any = false;
    let finished = search_frames(
        &data,
        &index,
        0..index.len(),
        &decoder,
        &Needle::new("3"),
        &progress,
        |_, _| any = true,
    );
    assert_eq!(finished, Finished::Cancelled);
    assert!(!any);
    assert_eq!(progress.examined.load(Ordering::Relaxed), 0);
}

proptest::proptest! {
    /// Every value is found by the text the tree prints for it, whatever bytes the prefilter of
    /// encodings passes over.
    #[test]
    fn every_value_is_found_by_what_the_tree_prints(
        ints in proptest::collection::vec(proptest::num::i64::ANY, 1..6),
        floats in proptest::collection::vec(proptest::num::f32::NORMAL, 1..6),
        pick in 0usize..12,
    ) {
        let decoder = builtin();
        let features = [
            ld(1, &[ld(1, b"i"), ld(2, &int64_feature(&ints))].concat()),
            ld(1, &[ld(1, b"f"), ld(2, &float_feature(&floats))].concat()),
        ]
        .concat();
        let payload = ld(1, &features);
        let text = if pick % 2 == 0 {
            ints[pick / 2 % ints.len()].to_string()
        } else {
            crate::pyfmt::text_f32(floats[pick / 2 % floats.len()])
        };
        proptest::prop_assert!(
            payload_matches(&Needle::new(&text), &payload, &decoder),
            "{text}"
        );
    }
}

/// A TensorProto of `dtype` shaped [n] whose values are the bytes `content`.
fn tensor(dtype: u8, n: u8, content: &[u8]) -> Vec<u8> {
    let shape = ld(2, &ld(2, &[0x08, n]));
    [vec![0x08, dtype], shape, ld(4, content)].concat()
}

#[test]
fn tensor_content_values_are_found_as_the_tree_prints_them() {
    let decoder = builtin();
    let floats: Vec<u8> = [1.5f32, 0.1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let payload = tensor(1, 2, &floats);
    assert!(decoder.decode(&payload).kind.is_typed());
    let content = payload.len() - 8;
    assert_eq!(
        hit("0.1", &payload, &decoder).unwrap(),
        (content + 4, 0.1f32.to_le_bytes().to_vec())
    );
    assert!(misses("0.2", &payload, &decoder));
    // int16 [856, -3]
    let ints: Vec<u8> = [856i16, -3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let payload = tensor(5, 2, &ints);
    let content = payload.len() - 4;
    assert_eq!(hit("856", &payload, &decoder).unwrap().0, content);
    assert_eq!(hit("-3", &payload, &decoder).unwrap().0, content + 2);
    // bfloat16 [0.5, 3.0]: 3.0 is 0x4040
    let payload = tensor(14, 2, &[0x00, 0x3f, 0x40, 0x40]);
    let content = payload.len() - 4;
    assert_eq!(hit("3", &payload, &decoder).unwrap().0, content + 2);
    // A shape claiming more than the content holds is not a readable tensor: nothing to find.
    let payload = tensor(1, 9, &floats);
    assert!(misses("0.1", &payload, &decoder));
}
