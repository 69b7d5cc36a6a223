use super::*;
use crate::crafted::compare_pairs;
use crate::payload::{Decoder, Reading};
use crate::schema::Schema;

fn decoder(message: Option<&str>) -> Decoder {
    let schema = Schema::builtin();
    let reading = match message {
        Some(name) => Reading::As(schema.message(name).unwrap()),
        None => Reading::Wire,
    };
    Decoder::new(schema, reading)
}

fn run(decoder: &Decoder, a: &[u8], b: &[u8]) -> Comparison {
    let (da, db) = (decoder.decode(a), decoder.decode(b));
    let table = decoder.table();
    let ta = PayloadTokens::new(&da, a, table, 0);
    let tb = PayloadTokens::new(&db, b, table, 100);
    compare(&ta, &tb, decoder.schema.pool())
}

fn pair(name: &str) -> crate::crafted::ComparePair {
    compare_pairs()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap()
}

fn kinds(c: &Comparison) -> Vec<VerdictKind> {
    c.verdicts.iter().map(|v| v.kind).collect()
}

#[test]
fn every_pair_gets_the_verdict_python_protobuf_gives_and_its_bytes_match_the_goldens() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/compare_goldens.json"
    ))
    .unwrap();
    let goldens: serde_json::Value = serde_json::from_str(&text).unwrap();
    let goldens = goldens["pairs"].as_array().unwrap();
    let pairs = compare_pairs();
    assert_eq!(pairs.len(), goldens.len());
    for (p, g) in pairs.iter().zip(goldens) {
        assert_eq!(p.name, g["name"].as_str().unwrap());
        assert_eq!(p.message, g["message"].as_str().unwrap());
        assert_eq!(hex_bytes(&p.a), g["a"].as_str().unwrap(), "{}", p.name);
        assert_eq!(hex_bytes(&p.b), g["b"].as_str().unwrap(), "{}", p.name);
        let c = run(&decoder(Some(p.message)), &p.a, &p.b);
        assert_eq!(
            c.sameness.check,
            Check::Parsed(p.message.into()),
            "{}",
            p.name
        );
        let same = g["same"].as_bool().unwrap();
        let expected = if same { Same::Same } else { Same::Different };
        assert_eq!(c.sameness.same, expected, "{}", p.name);
    }
}

#[test]
fn each_pair_names_its_wire_difference() {
    let expect = [
        ("field_order", VerdictKind::FieldOrder),
        ("packed_vs_unpacked", VerdictKind::PackedUnpacked),
        ("packed_split", VerdictKind::PackedSplit),
        ("message_pieces", VerdictKind::MessagePieces),
        ("map_order", VerdictKind::MapOrder),
        ("non_minimal_varint", VerdictKind::LongVarint),
        ("different_value", VerdictKind::DifferentValue),
        ("unknown_field_in_one", VerdictKind::OnlyOne),
        ("last_occurrence_wins", VerdictKind::LastWins),
        ("map_key_repeated_last_wins", VerdictKind::LastWins),
    ];
    for (name, kind) in expect {
        let p = pair(name);
        let c = run(&decoder(Some(p.message)), &p.a, &p.b);
        assert!(kinds(&c).contains(&kind), "{name}: {:?}", c.verdicts);
    }
}

#[test]
fn values_line_up_by_field_path_not_by_offset() {
    let p = pair("field_order");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    let paths: Vec<&str> = c.rows.iter().map(|r| &*r.path).collect();
    assert_eq!(paths, ["dtype", "tensor_shape.dim.size", "int_val"]);
    assert!(c.rows.iter().all(|r| r.mark == Mark::Same), "{:?}", c.rows);
    // int_val's value is the last byte of A and byte 2 of B.
    let ints = &c.rows[2];
    assert_eq!(ints.a.unwrap().start, p.a.len() - 1);
    assert_eq!(ints.b.unwrap().start, 2);
}

#[test]
fn packed_and_unpacked_values_face_each_other_as_the_same_value() {
    let p = pair("packed_vs_unpacked");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    let marks: Vec<Mark> = c.rows.iter().map(|r| r.mark).collect();
    assert_eq!(
        marks,
        [
            Mark::Same,
            Mark::SameValue,
            Mark::SameValue,
            Mark::SameValue
        ]
    );
    assert_eq!(
        &*c.rows[1].path,
        "features.feature[x].value.int64_list.value"
    );
    assert!(c.rows[1].a.unwrap().packed && !c.rows[1].b.unwrap().packed);
}

#[test]
fn a_long_varint_is_shown_with_its_minimal_form() {
    let p = pair("non_minimal_varint");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    let long = c
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::LongVarint)
        .unwrap();
    assert!(
        long.text
            .starts_with("A: the value of dtype at payload byte 1"),
        "{}",
        long.text
    );
    assert!(
        long.text
            .contains("(96 81 00) for 150, which `96 01` says in 2 bytes"),
        "{}",
        long.text
    );
    assert_eq!(c.rows[0].mark, Mark::SameValue);
}

#[test]
fn map_entries_line_up_by_key() {
    let p = pair("map_order");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    assert!(c.rows.iter().all(|r| r.mark == Mark::Same), "{:?}", c.rows);
    assert_eq!(kinds(&c), [VerdictKind::MapOrder]);
}

#[test]
fn an_unknown_field_is_named_unknown() {
    let p = pair("unknown_field_in_one");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    let only = c
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::OnlyOne)
        .unwrap();
    assert!(
        only.text
            .starts_with("99 only in A (1 occurrence); unknown field 99"),
        "{}",
        only.text
    );
    assert_eq!(c.rows.last().unwrap().mark, Mark::OnlyA);
}

#[test]
fn without_a_type_the_raw_reading_decides_and_merges_nothing() {
    let raw = decoder(None);
    // Fields in another order: the same under decode_raw.
    let p = pair("field_order");
    let c = run(&raw, &p.a, &p.b);
    assert_eq!(
        c.sameness,
        Sameness {
            check: Check::Raw,
            same: Same::Same
        }
    );
    // A long varint is the same number.
    let p = pair("non_minimal_varint");
    assert_eq!(run(&raw, &p.a, &p.b).sameness.same, Same::Same);
    // Packed against unpacked cannot be told the same without the schema.
    let p = pair("packed_vs_unpacked");
    assert_eq!(run(&raw, &p.a, &p.b).sameness.same, Same::Different);
    let p = pair("different_value");
    assert_eq!(run(&raw, &p.a, &p.b).sameness.same, Same::Different);
}

#[test]
fn a_payload_parsers_reject_is_said_rejected() {
    let d = decoder(Some("tensorflow.TensorProto"));
    // Field 1 with a varint that runs past the end.
    let c = run(&d, &[0x08, 0x96], &[0x08, 0x96, 0x01]);
    assert!(
        matches!(c.sameness.same, Same::Rejected(Some(_), None)),
        "{:?}",
        c.sameness
    );
    let raw = decoder(None);
    let c = run(&raw, &[0x08, 0x96], &[0x08, 0x96, 0x01]);
    assert!(
        matches!(c.sameness.same, Same::Rejected(Some(_), None)),
        "{:?}",
        c.sameness
    );
}

#[test]
fn a_huge_packed_run_is_aligned_up_to_the_cap_in_linear_work() {
    // Two runs of MAX_LEAVES + 10 one-byte numbers: rows stop at the cap, the parse still
    // compares everything.
    let n = MAX_LEAVES + 10;
    let run_of = |byte: u8| {
        let x = length_delimited_feature(&vec![byte; n]);
        crate::crafted::length_delimited(1, &crate::crafted::length_delimited(1, &x))
    };
    let (a, b) = (run_of(1), run_of(1));
    let c = run(&decoder(Some("tensorflow.Example")), &a, &b);
    assert_eq!(c.rows.len(), MAX_LEAVES);
    assert!(kinds(&c).contains(&VerdictKind::Truncated));
    assert_eq!(c.sameness.same, Same::Same);
}

/// A map entry `k` whose Feature packs `values` into `int64_list`.
fn length_delimited_feature(values: &[u8]) -> Vec<u8> {
    use crate::crafted::length_delimited as ld;
    let feature = ld(3, &ld(1, values));
    [ld(1, b"k"), ld(2, &feature)].concat()
}

#[test]
fn map_keys_and_unknown_names_reach_the_path_escaped() {
    use crate::crafted::length_delimited as ld;
    let feature = ld(3, &ld(1, &[1]));
    let entry = [ld(1, b"a\x1b[31m"), ld(2, &feature)].concat();
    let a = ld(1, &ld(1, &entry));
    let c = run(&decoder(Some("tensorflow.Example")), &a, &a);
    assert!(!c.rows[0].path.contains('\x1b'), "{}", c.rows[0].path);
    assert!(
        c.rows[0].path.starts_with("features.feature[a"),
        "{}",
        c.rows[0].path
    );
}

#[test]
fn a_singular_field_sent_twice_faces_the_other_side_with_its_last_occurrence() {
    let p = pair("last_occurrence_wins");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    let marks: Vec<Mark> = c.rows.iter().map(|r| r.mark).collect();
    assert_eq!(marks, [Mark::OnlyA, Mark::Same]);
    assert_eq!(kinds(&c), [VerdictKind::LastWins]);
    let p = pair("last_occurrence_differs");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    assert_eq!(c.rows[1].mark, Mark::Differs);
}

#[test]
fn under_a_repeated_map_key_only_the_entry_is_judged() {
    let p = pair("map_key_repeated_last_wins");
    let c = run(&decoder(Some(p.message)), &p.a, &p.b);
    assert_eq!(kinds(&c), [VerdictKind::LastWins], "{:?}", c.verdicts);
    assert!(
        c.verdicts[0]
            .text
            .contains("2 entries in A and 1 entry in B")
    );
}
