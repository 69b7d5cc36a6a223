//! Records read from their bytes give the columns their typed view gives: random Examples of
//! every shape (packed and unpacked lists, empty ones, repeated names, unknown fields, names
//! that are not UTF-8, negative numbers), some with a byte flipped or cut short, gathered once
//! through the decoder and once from their bytes (falling back to the decoder where declined).

use proptest::prelude::*;

use super::*;
use crate::crafted::length_delimited;
use crate::explain::number::varint_bytes;
use crate::payload::{Decoder, Reading};
use crate::schema::Schema;

fn varint(n: u64, out: &mut Vec<u8>) {
    out.extend(varint_bytes(n));
}

fn field(number: u8, body: &[u8], out: &mut Vec<u8>) {
    out.extend(length_delimited(number.into(), body));
}

/// A small deterministic generator of Example payloads from a seed.
struct Maker(u64);

impl Maker {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) % n.max(1)
    }

    fn list(&mut self, kind: u64) -> Vec<u8> {
        let mut list = Vec::new();
        let count = self.below(4);
        match kind {
            0 => {
                for _ in 0..count {
                    let len = self.below(6) as usize;
                    let value: Vec<u8> = (0..len).map(|_| self.below(256) as u8).collect();
                    field(1, &value, &mut list);
                }
            }
            1 => {
                let values: Vec<f32> = (0..count).map(|_| self.below(1000) as f32 / 7.0).collect();
                if self.below(4) == 0 {
                    for v in values {
                        list.push(1 << 3 | 5);
                        list.extend_from_slice(&v.to_le_bytes());
                    }
                } else {
                    let packed: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    field(1, &packed, &mut list);
                }
            }
            _ => {
                let values: Vec<i64> = (0..count)
                    .map(|_| self.below(1 << 20) as i64 - (1 << 19))
                    .collect();
                if self.below(4) == 0 {
                    for v in values {
                        list.push(1 << 3);
                        varint(v as u64, &mut list);
                    }
                } else {
                    let mut packed = Vec::new();
                    values.iter().for_each(|&v| varint(v as u64, &mut packed));
                    field(1, &packed, &mut list);
                }
            }
        }
        list
    }

    fn example(&mut self, names: &[&[u8]]) -> Vec<u8> {
        let mut map = Vec::new();
        for name in names {
            // A name that is not UTF-8 now and then only, so that most records are plain.
            if self.below(3) == 0 || (name.first() == Some(&0xff) && self.below(8) != 0) {
                continue;
            }
            // Each name keeps its kind mostly, so that columns fill; now and then another.
            let kind = match self.below(12) {
                0 => self.below(3),
                _ => name.len() as u64 % 3,
            };
            let mut feature = Vec::new();
            if self.below(10) != 0 {
                let list = self.list(kind);
                field(kind as u8 + 1, &list, &mut feature);
            }
            let mut entry = Vec::new();
            field(1, name, &mut entry);
            match self.below(30) {
                0 => {}
                1 => {
                    field(2, &feature, &mut entry);
                    field(2, &feature, &mut entry);
                }
                2 => {
                    field(2, &feature, &mut entry);
                    entry.extend_from_slice(&[3 << 3, 1]);
                }
                _ => field(2, &feature, &mut entry),
            }
            field(1, &entry, &mut map);
            if self.below(40) == 0 {
                field(1, &entry, &mut map);
            }
        }
        let mut out = Vec::new();
        field(1, &map, &mut out);
        match self.below(25) {
            0 => out.extend_from_slice(&[2 << 3 | 2, 0]),
            1 => field(1, &map, &mut out),
            2 => out.extend_from_slice(&[5 << 3, 7]),
            3 if !out.is_empty() => {
                let at = self.below(out.len() as u64) as usize;
                out[at] ^= 1 << self.below(8);
            }
            4 if !out.is_empty() => out.truncate(self.below(out.len() as u64) as usize),
            _ => {}
        }
        out
    }
}

const NAMES: [&[u8]; 6] = [b"label", b"ids", b"score", b"name", b"\xffbad", b"w"];

/// A decoder that has learnt its file holds Examples, as `Input::decoder` learns it.
fn decoder(sample: &[Vec<u8>]) -> Decoder {
    let mut decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    decoder.learn(sample.iter().map(Vec::as_slice));
    assert!(decoder.takes_examples());
    decoder
}

/// Gathers `payloads` as the batches do: each record the decoder reads as an Example, through
/// its typed view (`wire` false) or from its bytes where they are plain (`wire` true).
fn gather(
    decoder: &Decoder,
    payloads: &[Vec<u8>],
    only: Option<&[String]>,
    wire: bool,
) -> (Vec<Column>, Vec<Result<(), ColumnError>>, usize) {
    let mut columns = only.map_or_else(ExampleColumns::new, ExampleColumns::only);
    let mut results = Vec::new();
    let mut taken = 0;
    for payload in payloads {
        if wire {
            if let Some(result) = columns.push_wire(payload) {
                taken += 1;
                results.push(result);
                continue;
            }
        }
        let decoded = decoder.decode(payload);
        let Some(message) = decoded.typed(payload, decoder.table()).filter(|m| {
            decoder
                .table()
                .message(m.id())
                .is_some_and(|m| m.full_name.as_ref() == "tensorflow.Example")
        }) else {
            results.push(Ok(()));
            continue;
        };
        results.push(columns.push(&message));
    }
    (columns.finish(), results, taken)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn records_read_from_their_bytes_give_the_columns_of_their_typed_view(
        seed in any::<u64>(),
        only in any::<bool>(),
    ) {
        let mut maker = Maker(seed);
        let sample: Vec<Vec<u8>> = (0..16).map(|_| {
            let mut m = Maker(maker.below(u64::MAX));
            let mut out = Vec::new();
            let mut map = Vec::new();
            let mut entry = Vec::new();
            field(1, b"label", &mut entry);
            let mut feature = Vec::new();
            field(3, &m.list(2), &mut feature);
            field(2, &feature, &mut entry);
            field(1, &entry, &mut map);
            field(1, &map, &mut out);
            out
        }).collect();
        let decoder = decoder(&sample);
        let payloads: Vec<Vec<u8>> = (0..60).map(|_| maker.example(&NAMES)).collect();
        let named: Vec<String> = vec!["score".into(), "missing".into(), "label".into()];
        let only = only.then_some(&named[..]);
        let typed = gather(&decoder, &payloads, only, false);
        let wire = gather(&decoder, &payloads, only, true);
        prop_assert_eq!(&wire.0, &typed.0);
        prop_assert_eq!(&wire.1, &typed.1);
        prop_assert!(wire.2 > 0, "no record was read from its bytes");
    }
}

#[test]
fn plain_records_are_read_from_their_bytes_and_others_are_declined() {
    let mut maker = Maker(7);
    let mut list = Vec::new();
    field(1, &maker.list(2), &mut list);
    let plain = {
        let mut feature = Vec::new();
        field(3, &maker.list(2), &mut feature);
        let mut entry = Vec::new();
        field(1, b"x", &mut entry);
        field(2, &feature, &mut entry);
        let mut map = Vec::new();
        field(1, &entry, &mut map);
        let mut out = Vec::new();
        field(1, &map, &mut out);
        out
    };
    let mut columns = ExampleColumns::new();
    assert_eq!(columns.push_wire(&plain), Some(Ok(())));
    let mut unknown = plain.clone();
    unknown.extend_from_slice(&[2 << 3 | 2, 0]);
    assert_eq!(columns.push_wire(&unknown), None);
    assert_eq!(columns.push_wire(&plain[..plain.len() - 1]), None);
    assert_eq!(columns.push_wire(&[]), None);
    assert_eq!(columns.rows(), 1, "a declined record adds no row");
}

#[test]
fn negative_numbers_and_every_float_come_back_as_written() {
    let mut ints = Vec::new();
    [-1i64, i64::MIN, i64::MAX, 0]
        .iter()
        .for_each(|&v| varint(v as u64, &mut ints));
    let floats: Vec<u8> = [f32::NAN, -0.0, f32::INFINITY, 1.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut map = Vec::new();
    for (name, kind, values) in [(&b"i"[..], 3, &ints), (b"f", 2, &floats)] {
        let mut list = Vec::new();
        field(1, values, &mut list);
        let mut feature = Vec::new();
        field(kind, &list, &mut feature);
        let mut entry = Vec::new();
        field(1, name, &mut entry);
        field(2, &feature, &mut entry);
        field(1, &entry, &mut map);
    }
    let mut payload = Vec::new();
    field(1, &map, &mut payload);
    let mut columns = ExampleColumns::new();
    assert_eq!(columns.push_wire(&payload), Some(Ok(())));
    let columns = columns.finish();
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["f", "i"],
        "a record's new columns come in name order"
    );
    assert_eq!(
        columns[1].values,
        ColumnValues::Int64(vec![-1, i64::MIN, i64::MAX, 0])
    );
    let ColumnValues::Float(got) = &columns[0].values else {
        panic!("{:?}", columns[0].values);
    };
    let bits: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
    let want: Vec<u32> = [f32::NAN, -0.0, f32::INFINITY, 1.5]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(bits, want);
}

/// An Example's payload from `(name, kind, list body)`, kind 0 for a feature with no list set.
fn example_of(features: &[(&str, u8, &[u8])]) -> Vec<u8> {
    let mut map = Vec::new();
    for &(name, kind, list) in features {
        let mut feature = Vec::new();
        if kind != 0 {
            field(kind, list, &mut feature);
        }
        let mut entry = Vec::new();
        field(1, name.as_bytes(), &mut entry);
        field(2, &feature, &mut entry);
        field(1, &entry, &mut map);
    }
    let mut payload = Vec::new();
    field(1, &map, &mut payload);
    payload
}

#[test]
fn a_list_found_not_plain_late_in_a_record_takes_back_all_the_record_wrote() {
    let ints = |values: &[u8]| {
        let mut list = Vec::new();
        field(1, values, &mut list);
        list
    };
    let mut columns = ExampleColumns::new();
    let first = example_of(&[("a", 3, &ints(&[1])), ("e", 0, &[])]);
    assert_eq!(columns.push_wire(&first), Some(Ok(())));
    let before = format!("{:?}", columns.columns);
    // "a", "e" and "b" are written (and "e" given a kind, "b" added) before "c"'s varint is
    // found cut short: the record is declined and leaves the columns as they were.
    let floats = 1.5f32.to_le_bytes();
    let cut = example_of(&[
        ("a", 3, &ints(&[2, 3])),
        ("e", 2, &ints(&floats)),
        ("b", 2, &ints(&floats)),
        ("c", 3, &ints(&[0x80])),
    ]);
    assert_eq!(columns.push_wire(&cut), None);
    assert_eq!(columns.rows(), 1);
    assert_eq!(format!("{:?}", columns.columns), before);
    assert!(!columns.by_name.contains_key("b") && !columns.by_name.contains_key("c"));
    // "e" has no kind still, so a later record may give it any.
    let later = example_of(&[("a", 3, &ints(&[4])), ("e", 3, &ints(&[5]))]);
    assert_eq!(columns.push_wire(&later), Some(Ok(())));
    let columns = columns.finish();
    assert_eq!(columns[0].values, ColumnValues::Int64(vec![1, 4]));
    assert_eq!(columns[1].values, ColumnValues::Int64(vec![5]));
    assert_eq!(columns[1].present, [true, true]);
}
