//! Plain `tf.train.Example`s read in one pass over their bytes, without a wire tree.
//!
//! Nearly every record of a file of Examples is laid out the one way TensorFlow and protobuf
//! write it: the features, one map entry per feature (its key, then its value), each value one
//! list, each list of numbers one packed run. `show` (JSON and text) and `list` spend most of
//! their time walking such records into a tree and reading it back; a record of exactly that
//! layout is read here instead, and what it prints is what the tree would print. Anything else
//! (an unknown or repeated field, a list written unpacked or empty, a varint written longer than
//! it needs, a key that is not UTF-8 or occurs twice, a Feature without a list) is not a plain
//! Example, and takes the general path.

use std::cell::RefCell;

use smallvec::SmallVec;

/// Features held inline: most Examples have a few dozen at most.
type Entries<'a> = SmallVec<[PlainFeature<'a>; 16]>;

/// The places of a record's features in key order.
type Order = SmallVec<[u8; 32]>;

/// An Example laid out plainly (its keys are distinct).
#[derive(Debug, Clone)]
pub struct PlainExample<'a> {
    /// The features in the record's order (in key order beyond 255 features, which no order
    /// of places in a byte can list).
    features: Entries<'a>,
    /// Their places in key order; empty when the record's order is the keys'.
    order: Order,
}

/// One feature of a [`PlainExample`]: its name (UTF-8) and its one list of values.
#[derive(Debug, Clone, Copy)]
pub struct PlainFeature<'a> {
    pub key: &'a [u8],
    pub values: PlainValues<'a>,
}

/// A feature's values: the body of its one list, checked to read as the list says.
#[derive(Debug, Clone, Copy)]
pub enum PlainValues<'a> {
    /// `bytes_list`: the list's body, one or more values each tagged `0a`.
    Bytes(&'a [u8]),
    /// `float_list`: the packed run of one or more little-endian floats.
    Floats(&'a [u8]),
    /// `int64_list`: the packed run of one or more shortest varints.
    Int64s(&'a [u8]),
}

impl<'a> PlainExample<'a> {
    /// The payload read as a plain Example, or `None` when it is laid out any other way.
    pub fn parse(payload: &'a [u8]) -> Option<PlainExample<'a>> {
        let mut top = Fields(payload);
        let features = top.only(0x0a)?;
        let mut entries = Fields(features);
        let mut out = Entries::new();
        while !entries.0.is_empty() {
            out.push(entry(entries.next(0x0a)?)?);
        }
        if out.is_empty() {
            return None;
        }
        let order = if increasing(out.iter().map(|f| f.key)) {
            Order::new()
        } else {
            key_order(&mut out)?
        };
        Some(PlainExample {
            features: out,
            order,
        })
    }

    /// The number of features.
    pub fn len(&self) -> usize {
        self.features.len()
    }

    /// Whether there are no features (never, for a plain Example).
    pub fn is_empty(&self) -> bool {
        self.features.is_empty()
    }

    /// The features, in key order.
    pub fn features(&self) -> InKeyOrder<'_, 'a> {
        InKeyOrder {
            features: &self.features,
            order: &self.order,
            next: 0,
        }
    }
}

/// The features of a [`PlainExample`] in key order.
pub struct InKeyOrder<'e, 'a> {
    features: &'e [PlainFeature<'a>],
    /// Places in `features`, or empty for `features` as they are.
    order: &'e [u8],
    next: usize,
}

impl<'e, 'a> Iterator for InKeyOrder<'e, 'a> {
    type Item = &'e PlainFeature<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let place = if self.order.is_empty() {
            self.next
        } else {
            usize::from(*self.order.get(self.next)?)
        };
        let feature = self.features.get(place)?;
        self.next += 1;
        Some(feature)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.features.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for InKeyOrder<'_, '_> {}

impl<'a> PlainValues<'a> {
    /// Calls `visit` with each value of a `bytes_list`.
    pub fn each_bytes(body: &'a [u8], mut visit: impl FnMut(&'a [u8])) {
        let mut values = Fields(body);
        while let Some(value) = values.next(0x0a) {
            visit(value);
        }
    }

    /// Calls `visit` with each value of a `float_list`'s run.
    pub fn each_f32(run: &'a [u8], mut visit: impl FnMut(f32)) {
        for bytes in run.chunks_exact(4) {
            if let Ok(bytes) = <[u8; 4]>::try_from(bytes) {
                visit(f32::from_le_bytes(bytes));
            }
        }
    }

    /// Calls `visit` with each value of an `int64_list`'s run.
    pub fn each_i64(run: &'a [u8], mut visit: impl FnMut(i64)) {
        let mut pos = 0;
        while let Some(value) = shortest_varint(run, &mut pos) {
            // int64 values are their two's complement on the wire.
            visit(value as i64);
        }
    }
}

/// Whether `keys` are in order and distinct.
fn increasing<'k>(mut keys: impl Iterator<Item = &'k [u8]>) -> bool {
    let Some(mut last) = keys.next() else {
        return true;
    };
    keys.all(|key| {
        let after = last < key;
        last = key;
        after
    })
}

thread_local! {
    /// The order that sorted the last record's features this thread read, by their places in
    /// the record. The records of a file write their features in one order, which is seldom
    /// the keys' (protobuf writes a map in its own order): checking that this order sorts a
    /// record costs one comparison per feature, where sorting costs several.
    static LAST_ORDER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The places of `entries` in key order, or `None` when a key occurs twice (a key sent twice
/// leaves its last value: the general path settles that). Beyond 255 features, `entries` are
/// sorted instead, and the order is empty.
fn key_order(entries: &mut Entries<'_>) -> Option<Order> {
    let Ok(count) = u8::try_from(entries.len()) else {
        entries.sort_unstable_by(|a, b| a.key.cmp(b.key));
        return increasing(entries.iter().map(|f| f.key)).then(Order::new);
    };
    let key_at = |place: &u8| entries.get(usize::from(*place)).map(|e| e.key);
    let in_order = |order: &[u8]| increasing(order.iter().map_while(key_at));
    LAST_ORDER
        .try_with(|last| {
            let mut last = last.try_borrow_mut().ok()?;
            if last.len() != entries.len() || !in_order(&last) {
                last.clear();
                last.extend(0..count);
                last.sort_unstable_by_key(key_at);
                if !in_order(&last) {
                    return None;
                }
            }
            Some(Order::from_slice(&last))
        })
        .ok()
        .flatten()
}

/// A map entry of `Features.feature`: the key (field 1), then the value (field 2), nothing else.
fn entry(bytes: &[u8]) -> Option<PlainFeature<'_>> {
    let mut fields = Fields(bytes);
    let key = fields.next(0x0a)?;
    let feature = fields.next(0x12)?;
    // Names are nearly always ASCII, which a quicker test settles.
    if !fields.0.is_empty() || !(key.is_ascii() || std::str::from_utf8(key).is_ok()) {
        return None;
    }
    // A Feature: one of its lists, once.
    let (&tag, _) = feature.split_first()?;
    let list = Fields(feature).only(tag)?;
    let values = match tag {
        0x0a => {
            // One or more values, each tagged 0a.
            let mut values = Fields(list);
            values.next(0x0a)?;
            while !values.0.is_empty() {
                values.next(0x0a)?;
            }
            PlainValues::Bytes(list)
        }
        0x12 => {
            let run = Fields(list).only(0x0a)?;
            if run.is_empty() || run.len() % 4 != 0 {
                return None;
            }
            PlainValues::Floats(run)
        }
        0x1a => {
            let run = Fields(list).only(0x0a)?;
            if !shortest_varints(run) {
                return None;
            }
            PlainValues::Int64s(run)
        }
        _ => return None,
    };
    Some(PlainFeature { key, values })
}

/// The length-delimited fields of a message body, read from the front.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    /// The body of the next field, when its tag is the one byte `tag` and its length is a
    /// shortest varint that fits; `None` otherwise (or at the end).
    fn next(&mut self, tag: u8) -> Option<&'a [u8]> {
        let (&first, rest) = self.0.split_first()?;
        if first != tag {
            return None;
        }
        // Most lengths are one byte.
        let (length, pos) = match rest.first() {
            Some(&byte) if byte < 0x80 => (usize::from(byte), 1),
            _ => {
                let mut pos = 0;
                (usize::try_from(shortest_varint(rest, &mut pos)?).ok()?, pos)
            }
        };
        let end = pos.checked_add(length)?;
        let body = rest.get(pos..end)?;
        self.0 = rest.get(end..)?;
        Some(body)
    }

    /// The body of the one field the message holds, tagged `tag`.
    fn only(&mut self, tag: u8) -> Option<&'a [u8]> {
        let body = self.next(tag)?;
        self.0.is_empty().then_some(body)
    }
}

/// The varint at `*pos` when it is written in the fewest bytes its value needs (at most ten, the
/// tenth holding only the top bit), moving `*pos` past it; `None` for any other (or none).
#[inline]
fn shortest_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..10 {
        let byte = *bytes.get(*pos + i)?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            // A last byte of zero (after the first) is a longer encoding than needed; the tenth
            // byte holds one bit.
            if (i > 0 && byte == 0) || (i == 9 && byte > 1) {
                return None;
            }
            *pos += i + 1;
            return Some(value);
        }
    }
    None
}

/// Whether `run` is one or more varints, each written as [`shortest_varint`] reads them: in one
/// pass over the bytes, without taking their values.
fn shortest_varints(run: &[u8]) -> bool {
    // The bytes of the varint being read so far, all with the top bit set.
    let mut continued = 0usize;
    for &byte in run {
        if byte >= 0x80 {
            continued += 1;
            // Ten bytes at most, the tenth without the top bit.
            if continued == 10 {
                return false;
            }
        } else {
            if (continued > 0 && byte == 0) || (continued == 9 && byte > 1) {
                return false;
            }
            continued = 0;
        }
    }
    continued == 0 && !run.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::length_delimited as ld;
    use crate::payload::{Decoder, EXAMPLE, FeatureNames, PayloadKind, Reading};
    use crate::schema::Schema;

    /// A decoder of a file learnt to hold Examples.
    fn decoder() -> Decoder {
        let mut decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        decoder.likely = Some(PayloadKind::Builtin(&EXAMPLE));
        decoder
    }

    /// A record's JSON and text format, and its summary line and names with names kept and
    /// without.
    type Printed = (String, String, [(String, Vec<String>); 2]);

    /// What the general path prints.
    fn general(decoder: &Decoder, payload: &[u8]) -> Printed {
        let decoded = decoder.decode(payload);
        let (json, text) = match decoded.typed(payload, decoder.table()) {
            Some(typed) if decoded.kind == PayloadKind::Builtin(&EXAMPLE) => (
                crate::jsonformat::message_to_json(&typed),
                decoded.view(payload, decoder.table()).text(),
            ),
            _ => (format!("not an Example: {:?}", decoded.kind), String::new()),
        };
        let summary = |names| {
            let s = crate::summary::summarize(decoder, &decoded, payload, names);
            (s.line, s.names.iter().map(str::to_string).collect())
        };
        (
            json,
            text,
            [summary(FeatureNames::Kept), summary(FeatureNames::Skipped)],
        )
    }

    /// What the plain reading prints, when it reads the payload.
    fn plain(decoder: &Decoder, payload: &[u8]) -> Option<Printed> {
        let example = decoder.plain_example(payload)?;
        let mut json = String::new();
        crate::jsonformat::write_plain_example(&example, &mut json);
        let mut text = String::new();
        crate::textformat::write_plain_example(&example, &mut text);
        let summary = |names| {
            let s = crate::payload::plain_summary(&example, names);
            (s.line, s.names.iter().map(str::to_string).collect())
        };
        Some((
            json,
            text,
            [summary(FeatureNames::Kept), summary(FeatureNames::Skipped)],
        ))
    }

    /// Whether the plain reading takes `payload`; when it does, it must print what the general
    /// path prints.
    fn same(decoder: &Decoder, payload: &[u8]) -> bool {
        let Some(plain) = plain(decoder, payload) else {
            return false;
        };
        assert_eq!(plain, general(decoder, payload), "payload {payload:02x?}");
        true
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn varint(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out
    }

    /// Keys that need escaping, that are not UTF-8, that sort by code point, or repeat.
    const KEYS: &[&[u8]] = &[
        b"a",
        b"b",
        b"label",
        b"image/encoded",
        b"q\"uote",
        b"back\\slash",
        b"\x01ctl",
        b"\xc3\xa9t\xc3\xa9",
        b"\xe2\x80\xae",
        b"\xff",
        b"",
        b"z",
        b"\x7f",
        b"\xf0\x9f\x98\x80",
        b"Z",
        b"tab\t",
    ];

    /// Float bit patterns worth printing: NaNs, infinities, zeros, subnormals, extremes.
    const FLOATS: &[u32] = &[
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0000,
        0xff80_0000,
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x007f_ffff,
        0x7f7f_ffff,
        0x3dcc_cccd,
        0x4b18_9680,
        0x3f80_0000,
        0x38d1_b717,
        0x5368_d4a5,
    ];

    /// A feature's list of values, laid out plainly or (now and then) another way protobuf
    /// also reads.
    fn list(rng: &mut Rng) -> Vec<u8> {
        let count = rng.below(4) as usize;
        let odd = rng.below(8) == 0;
        match rng.below(3) {
            0 => {
                let mut body = Vec::new();
                for _ in 0..count {
                    let len = rng.below(60) as usize;
                    let value: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                    body.extend(ld(1, &value));
                }
                ld(1, &body)
            }
            1 => {
                let floats: Vec<u8> = (0..count)
                    .flat_map(|_| {
                        match rng.below(2) {
                            0 => FLOATS[rng.below(FLOATS.len() as u64) as usize],
                            _ => rng.next() as u32,
                        }
                        .to_le_bytes()
                    })
                    .collect();
                let body = match odd {
                    // Unpacked.
                    true => floats
                        .chunks(4)
                        .flat_map(|f| [&[0x0d][..], f].concat())
                        .collect(),
                    false => ld(1, &floats),
                };
                ld(2, &body)
            }
            _ => {
                let ints: Vec<u64> = (0..count)
                    .map(|_| match rng.below(3) {
                        0 => rng.below(300),
                        1 => (-(rng.below(1000) as i64)) as u64,
                        _ => rng.next(),
                    })
                    .collect();
                let body = match odd {
                    true => ints
                        .iter()
                        .flat_map(|v| [vec![0x08], varint(*v)].concat())
                        .collect(),
                    false => ld(
                        1,
                        &ints.iter().flat_map(|v| varint(*v)).collect::<Vec<u8>>(),
                    ),
                };
                ld(3, &body)
            }
        }
    }

    /// An Example of a few features, mostly laid out plainly.
    fn example(rng: &mut Rng) -> Vec<u8> {
        let mut features = Vec::new();
        for _ in 0..rng.below(6) {
            let key = KEYS[rng.below(KEYS.len() as u64) as usize];
            let entry = match rng.below(20) {
                // The value before the key, or the key alone.
                0 => [ld(2, &list(rng)), ld(1, key)].concat(),
                1 => ld(1, key),
                _ => [ld(1, key), ld(2, &list(rng))].concat(),
            };
            features.extend(ld(1, &entry));
        }
        ld(1, &features)
    }

    #[test]
    fn plain_examples_print_as_their_trees_do() {
        let decoder = decoder();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut plain, mut total) = (0, 0);
        for _ in 0..20_000 {
            let payload = example(&mut rng);
            total += 1;
            plain += usize::from(same(&decoder, &payload));
            // The same bytes mutated: a byte changed, cut short, or something appended.
            let mut mutated = payload.clone();
            match rng.below(3) {
                0 if !mutated.is_empty() => {
                    let at = rng.below(mutated.len() as u64) as usize;
                    mutated[at] = rng.next() as u8;
                }
                1 => mutated.truncate(rng.below(mutated.len() as u64 + 1) as usize),
                _ => mutated.extend_from_slice(&[0x10, 0x01]),
            }
            same(&decoder, &mutated);
        }
        // Many are plain (about one in five: empty lists, keys that are not UTF-8 or repeat and
        // the other layouts are not): the test compares outputs, not only fallbacks.
        assert!(plain > total / 8, "{plain} of {total}");
    }

    #[test]
    fn layouts_protobuf_also_reads_take_the_general_path() {
        let decoder = decoder();
        let key = ld(1, b"k");
        let entry = |list: &[u8]| ld(1, &ld(1, &[key.clone(), ld(2, list)].concat()));
        let ints = |body: &[u8]| entry(&ld(3, body));
        assert!(same(&decoder, &ints(&ld(1, &[1, 2]))));
        // Unpacked, two runs, an empty run, an over-long varint, an unknown field.
        assert!(!same(&decoder, &ints(&[0x08, 1, 0x08, 2])));
        assert!(!same(&decoder, &ints(&[ld(1, &[1]), ld(1, &[2])].concat())));
        assert!(!same(&decoder, &ints(&ld(1, &[]))));
        assert!(!same(&decoder, &ints(&ld(1, &[0x81, 0x00]))));
        assert!(!same(
            &decoder,
            &ints(&[ld(1, &[1]), vec![0x10, 1]].concat())
        ));
        // A Feature with two lists, and none.
        assert!(!same(
            &decoder,
            &entry(&[ld(3, &ld(1, &[1])), ld(2, &ld(1, &[0; 4]))].concat())
        ));
        assert!(!same(&decoder, &entry(&[])));
        // A key twice, and one not UTF-8.
        let twice = [ints(&ld(1, &[1])), ints(&ld(1, &[2]))].concat();
        let twice = ld(1, &[ld(1, &twice[2..]), vec![]].concat());
        assert!(!same(&decoder, &twice));
        let bad_key = ld(
            1,
            &ld(1, &[ld(1, b"\xff"), ld(2, &ld(3, &ld(1, &[1])))].concat()),
        );
        assert!(!same(&decoder, &bad_key));
        // A file not learnt to hold Examples, or read as a named message: the general path.
        let plain = ints(&ld(1, &[1, 2]));
        assert!(!same(
            &Decoder::new(Schema::builtin(), Reading::Auto),
            &plain
        ));
        let schema = Schema::builtin();
        let message = schema.message(crate::payload::EXAMPLE_MESSAGE).unwrap();
        assert!(!same(&Decoder::new(schema, Reading::As(message)), &plain));
    }

    #[test]
    fn a_run_is_checked_as_its_varints_are_read() {
        let by_values = |run: &[u8]| {
            let mut pos = 0;
            while pos < run.len() {
                if shortest_varint(run, &mut pos).is_none() {
                    return false;
                }
            }
            !run.is_empty()
        };
        // Runs of the bytes where the rules change, of every length up to 12.
        const BYTES: [u8; 6] = [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut valid, mut runs) = (0, 0);
        for _ in 0..200_000 {
            let len = rng.below(13) as usize;
            let run: Vec<u8> = (0..len)
                .map(|_| BYTES[rng.below(BYTES.len() as u64) as usize])
                .collect();
            let expected = by_values(&run);
            assert_eq!(shortest_varints(&run), expected, "{run:02x?}");
            valid += usize::from(expected);
            runs += 1;
        }
        // Ten-byte varints are among them: nine bytes with the top bit, then 1.
        let longest = [[0xff; 9].as_slice(), &[0x01]].concat();
        assert!(shortest_varints(&longest) && by_values(&longest));
        assert!(!shortest_varints(&[[0xff; 9].as_slice(), &[0x02]].concat()));
        assert!(valid > runs / 10 && valid < runs, "{valid} of {runs}");
    }

    #[test]
    fn a_file_s_order_of_features_sorts_its_records_and_others_are_sorted_too() {
        let feature = |key| PlainFeature {
            key,
            values: PlainValues::Int64s(&[1]),
        };
        let read = |names: &[&'static [u8]]| {
            let mut features: Entries<'static> = names.iter().map(|&k| feature(k)).collect();
            let order = key_order(&mut features)?;
            let example = PlainExample { features, order };
            let keys: Vec<Vec<u8>> = example.features().map(|f| f.key.to_vec()).collect();
            assert_eq!(example.features().len(), keys.len());
            Some(keys)
        };
        // The same order twice (the second from the first's), then one it does not sort, then
        // one as long with a key twice.
        let expected = Some(vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(read(&[b"c", b"a", b"b"]), expected);
        assert_eq!(read(&[b"c", b"a", b"b"]), expected);
        assert_eq!(read(&[b"b", b"c", b"a"]), expected);
        assert_eq!(read(&[b"b", b"c", b"b"]), None);
        assert_eq!(read(&[b"c", b"a", b"b"]), expected);
        // More features than the order remembers.
        let many: Vec<&'static [u8]> = (0..300u16)
            .rev()
            .map(|n| &*Box::leak(format!("{n:03}").into_bytes().into_boxed_slice()))
            .collect();
        let got = read(&many).unwrap();
        assert!(got.is_sorted() && got.len() == 300);
    }

    #[test]
    fn varints_are_read_only_in_their_shortest_form() {
        let read = |bytes: &[u8]| {
            let mut pos = 0;
            shortest_varint(bytes, &mut pos).map(|v| (v, pos))
        };
        assert_eq!(read(&[0]), Some((0, 1)));
        assert_eq!(read(&[0x96, 0x01]), Some((150, 2)));
        assert_eq!(read(&[0x80, 0x00]), None);
        assert_eq!(
            read(&[0xff; 9].iter().chain(&[1]).copied().collect::<Vec<_>>()),
            Some((u64::MAX, 10))
        );
        assert_eq!(
            read(&[0xff; 9].iter().chain(&[2]).copied().collect::<Vec<_>>()),
            None
        );
        assert_eq!(read(&[0xff; 10]), None);
        assert_eq!(read(&[0x80]), None);
    }
}
