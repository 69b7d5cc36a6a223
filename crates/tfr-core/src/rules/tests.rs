//! Each rule on a message built to break or stretch it.

use super::*;
use crate::explain::number::hex_bytes;
use crate::explain::tests::Fixture;
use crate::schema::Schema;

/// Every token with notes: its bytes and the notes.
fn all_notes(fixture: &Fixture) -> Vec<(String, Vec<Note>)> {
    let annotated = fixture.annotated();
    let book = RuleBook::of(&annotated, Radix::Decimal).unwrap();
    annotated
        .tokens()
        .filter_map(|t| {
            let notes = book.notes(&t);
            let start = t.start as usize;
            let bytes = fixture.file.get(start..t.end as usize).unwrap();
            (!notes.is_empty()).then(|| (hex_bytes(bytes), notes))
        })
        .collect()
}

/// The rules noted, token by token.
fn rules(fixture: &Fixture) -> Vec<(String, Vec<Rule>)> {
    all_notes(fixture)
        .into_iter()
        .map(|(hex, notes)| (hex, notes.iter().map(|n| n.rule).collect()))
        .collect()
}

fn text_of(fixture: &Fixture, hex: &str) -> String {
    all_notes(fixture)
        .into_iter()
        .filter(|(h, _)| h == hex)
        .flat_map(|(_, notes)| notes)
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn r(hex: &str, rules: &[Rule]) -> (String, Vec<Rule>) {
    (hex.to_string(), rules.to_vec())
}

#[test]
fn a_well_formed_message_has_no_notes() {
    // i32: 5, s: "ok", inner { a: 1 }, nums: [1, 2]
    let fixture = Fixture::proto3(&[
        0x08, 0x05, 0x5a, 0x02, b'o', b'k', 0x62, 0x02, 0x08, 0x01, 0x82, 0x01, 0x02, 0x01, 0x02,
    ]);
    assert_eq!(rules(&fixture), []);
}

#[test]
fn over_long_varints_and_tenth_bytes() {
    // u: 1 in four bytes; u: a ten-byte varint whose last byte is 0x7f.
    let mut payload = vec![0x90, 0x01, 0x81, 0x80, 0x80, 0x00, 0x90, 0x01];
    payload.extend_from_slice(&[0xff; 9]);
    payload.push(0x7f);
    let fixture = Fixture::proto3(&payload);
    let found = rules(&fixture);
    assert_eq!(found[1], r("81 80 80 00", &[Rule::OverlongVarint]));
    let text = text_of(&fixture, "81 80 80 00");
    assert!(
        text.contains("4 bytes where 1 suffice: the minimal form of 1 is 01"),
        "{text}"
    );
    let tenth = found.iter().find(|(h, _)| h.ends_with("ff 7f")).unwrap();
    assert_eq!(tenth.1, [Rule::TenthByte]);
    // Both are `u`: the second one wins.
    assert!(found[0].1.contains(&Rule::LastWins), "{found:?}");
}

#[test]
fn a_bool_of_two() {
    let fixture = Fixture::proto3(&[0x28, 0x02]);
    assert_eq!(rules(&fixture), [r("02", &[Rule::BoolNotCanonical])]);
    assert!(text_of(&fixture, "02").contains("`b` is written as 2"));
}

#[test]
fn a_duplicate_scalar_keeps_its_last_value() {
    let fixture = Fixture::proto3(&[0x08, 0x01, 0x08, 0x02]);
    let found = all_notes(&fixture);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found
            .iter()
            .all(|(h, n)| h == "08" && n[0].rule == Rule::LastWins)
    );
    assert!(
        found[0].1[0]
            .text
            .contains("is set again at payload 2: the last value wins, so parsers drop this one")
    );
    assert!(
        found[1].1[0]
            .text
            .contains("was set once before (first at payload 0)")
    );
}

#[test]
fn a_repeated_message_field_merges() {
    // inner { a: 1 } inner { b: 2 }
    let fixture = Fixture::proto3(&[0x62, 0x02, 0x08, 0x01, 0x62, 0x02, 0x10, 0x02]);
    let text = text_of(&fixture, "62");
    assert!(
        text.contains("`inner` occurs 2 times: parsers merge them into one Inner"),
        "{text}"
    );
    assert!(text.contains("merged: a: 1 b: 2"), "{text}");
    // Inside the merge, a scalar of both occurrences keeps the last.
    let fixture = Fixture::proto3(&[0x62, 0x02, 0x08, 0x01, 0x62, 0x02, 0x08, 0x02]);
    let found = rules(&fixture);
    assert!(found.contains(&r("08", &[Rule::LastWins])), "{found:?}");
    // A repeated message field does not merge.
    let fixture = Fixture::proto3(&[0x6a, 0x02, 0x08, 0x01, 0x6a, 0x02, 0x08, 0x02]);
    assert_eq!(rules(&fixture), []);
}

#[test]
fn a_later_oneof_member_replaces_the_earlier() {
    // x: 1, y: "a", x: 2: y clears the first x, the second x clears y.
    let fixture = Fixture::proto3(&[0x70, 0x01, 0x7a, 0x01, b'a', 0x70, 0x02]);
    let found = all_notes(&fixture);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|(_, n)| n[0].rule == Rule::OneofReplaced));
    assert!(
        found[0].1[0]
            .text
            .contains("this `x` is cleared when `y` is set at payload 2"),
        "{found:?}"
    );
    assert!(
        found[1].1[0]
            .text
            .contains("`y` is replaced by `x` set at payload 5"),
        "{found:?}"
    );
}

#[test]
fn a_closed_enum_keeps_99_as_unknown() {
    let fixture = Fixture::proto2(&[0x08, 0x63]);
    assert_eq!(rules(&fixture), [r("63", &[Rule::ClosedEnumUnknown])]);
    let text = text_of(&fixture, "63");
    assert!(
        text.contains("99 is not a value of Color, a closed (proto2) enum"),
        "{text}"
    );
    // An open enum keeps the number: no note.
    let fixture = Fixture::proto3(&[0x88, 0x01, 0x63]);
    assert_eq!(rules(&fixture), []);
}

#[test]
fn invalid_utf8_is_rejected_in_proto3_and_kept_in_proto2() {
    let fixture = Fixture::proto3(&[0x5a, 0x02, b'a', 0xff]);
    assert!(fixture.decoded.invalid.is_some(), "the message is rejected");
    assert_eq!(rules(&fixture), [r("61 ff", &[Rule::InvalidUtf8])]);
    let text = text_of(&fixture, "61 ff");
    assert!(
        text.contains("byte 1 of `s` (payload 3, 0xff) is not UTF-8"),
        "{text}"
    );
    assert!(
        text.contains("proto3 string, so parsers reject the whole message"),
        "{text}"
    );
    let fixture = Fixture::proto2(&[0x12, 0x02, b'a', 0xff]);
    assert!(fixture.decoded.invalid.is_none());
    let text = text_of(&fixture, "61 ff");
    assert!(
        text.contains("proto2 string, so parsers keep the bytes"),
        "{text}"
    );
}

#[test]
fn unknown_fields_name_their_wire_type() {
    // field 99 varint; field 1 (int32) sent as fixed32.
    let fixture = Fixture::proto3(&[0x98, 0x06, 0x01, 0x0d, 1, 0, 0, 0]);
    let found = all_notes(&fixture);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].1[0].text.contains(
            "M declares no field 99: parsers keep it as an unknown field (wire type 0 (VARINT))"
        ),
        "{found:?}"
    );
    assert!(
        found[1].1[0]
            .text
            .contains("field 1 of M is `i32`, declared int32 (wire type 0), but it arrives as wire type 5 (I32)"),
        "{found:?}"
    );
}

#[test]
fn packing_against_the_declaration() {
    // proto3 nums (packed by default) sent as two single values: one note, on the first.
    let fixture = Fixture::proto3(&[0x80, 0x01, 0x01, 0x80, 0x01, 0x02]);
    assert_eq!(rules(&fixture), [r("80 01", &[Rule::PackedSentUnpacked])]);
    // proto2 `plain` (unpacked) sent packed; proto2 `packed` sent packed: fine.
    let fixture = Fixture::proto2(&[0x22, 0x02, 0x01, 0x02, 0x1a, 0x01, 0x05]);
    assert_eq!(rules(&fixture), [r("22", &[Rule::UnpackedSentPacked])]);
}

#[test]
fn a_repeated_map_key_keeps_the_last_entry() {
    let schema = Schema::builtin();
    let features = schema
        .table()
        .message_by_name("tensorflow.Features")
        .unwrap();
    let reading = crate::payload::Reading::As(features);
    let decoder = crate::payload::Decoder::new(schema, reading);
    let entry = [0x0a, 0x05, 0x0a, 0x01, b'k', 0x12, 0x00];
    let payload = [entry, entry].concat();
    let decoded = decoder.decode(&payload);
    let fixture = Fixture {
        file: crate::crafted::encode_records(&[&payload]),
        decoder,
        decoded,
    };
    let found = rules(&fixture);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|(_, n)| n == &[Rule::MapKeyRepeated]));
}

#[test]
fn fates_say_what_a_parser_keeps() {
    // i32: 1, i32: 2 (the first dropped), field 99 (unknown), x: 1, y: "a" (x cleared).
    let fixture = Fixture::proto3(&[
        0x08, 0x01, 0x08, 0x02, 0x98, 0x06, 0x01, 0x70, 0x01, 0x7a, 0x01, b'a',
    ]);
    let annotated = fixture.annotated();
    let book = RuleBook::of(&annotated, Radix::Decimal).unwrap();
    let tree = fixture.decoded.structure().unwrap();
    let fates: Vec<Fate> = tree
        .children(crate::wire::ROOT)
        .map(|n| book.fate(n).0)
        .collect();
    assert_eq!(
        fates,
        [
            Fate::Dropped,
            Fate::Kept,
            Fate::Unknown,
            Fate::Cleared,
            Fate::Kept
        ]
    );
    // inner twice: both merged.
    let fixture = Fixture::proto3(&[0x62, 0x02, 0x08, 0x01, 0x62, 0x00]);
    let annotated = fixture.annotated();
    let book = RuleBook::of(&annotated, Radix::Decimal).unwrap();
    let tree = fixture.decoded.structure().unwrap();
    let fates: Vec<Fate> = tree
        .children(crate::wire::ROOT)
        .map(|n| book.fate(n).0)
        .collect();
    assert_eq!(fates, [Fate::Merged, Fate::Merged]);
    // Invalid UTF-8 in proto3: the message is rejected.
    let fixture = Fixture::proto3(&[0x5a, 0x01, 0xff]);
    let annotated = fixture.annotated();
    let book = RuleBook::of(&annotated, Radix::Decimal).unwrap();
    assert_eq!(book.fate(1).0, Fate::Rejected);
    // i32: 1 before it is rejected with the message too.
    let fixture = Fixture::proto3(&[0x08, 0x01, 0x5a, 0x01, 0xff]);
    let annotated = fixture.annotated();
    let book = RuleBook::of(&annotated, Radix::Decimal).unwrap();
    assert_eq!(book.fate(1).0, Fate::Rejected);
}

#[test]
fn nothing_of_a_malformed_message_is_kept() {
    // i32: 1, then a length past the end: Python protobuf rejects the message.
    let fixture = Fixture::proto3(&[0x08, 0x01, 0x5a, 0x05, 0x01]);
    let annotated = fixture.annotated();
    let book = RuleBook::of(&annotated, Radix::Decimal).unwrap();
    let (fate, notes) = book.fate(1);
    assert_eq!(fate, Fate::Rejected, "{notes:?}");
    assert!(notes.iter().any(|n| n.rule == Rule::Malformed), "{notes:?}");
    let text = text_of(&fixture, "5a 05 01");
    assert!(
        text.starts_with(
            "malformed: a length of 5 runs past the end of its message (1 remain) at payload 3"
        ),
        "{text}"
    );
}

#[test]
fn a_map_entry_with_an_unknown_field_is_unknown_as_a_whole() {
    let schema = Schema::builtin();
    let features = schema
        .table()
        .message_by_name("tensorflow.Features")
        .unwrap();
    let decoder = crate::payload::Decoder::new(schema, crate::payload::Reading::As(features));
    let payload = [0x0a, 0x07, 0x0a, 0x01, b'k', 0x12, 0x00, 0x18, 0x07];
    let decoded = decoder.decode(&payload);
    let fixture = Fixture {
        file: crate::crafted::encode_records(&[&payload]),
        decoder,
        decoded,
    };
    let text = text_of(&fixture, "18");
    assert!(
        text.contains("FeatureEntry is a map entry, which holds only its key (1) and value (2)"),
        "{text}"
    );
}
