//! A string tensor's `tensor_content` as TensorFlow encodes it (`port::EncodeStringList`, what
//! `Tensor::AsProtoTensorContent` and so `tf.data` snapshots and `Dataset.save` write): the
//! varint32 length of every string, then the strings' bytes one after another.
//! `tf.io.parse_tensor(payload, tf.string)` reads them back.
//!
//! Reading checks the whole list once, in time linear in the content: every length is a varint of
//! at most five bytes within the content, and the lengths add up to exactly the bytes that follow
//! them (TensorFlow's `DecodeStringList` refuses anything else). Nothing is allocated by a length:
//! the shape says how many strings there are, but a string takes at least the byte of its length,
//! so a count past the content's size fails at the content's end. Where every 64th string starts
//! is kept, so string `i` is found in constant time.

use std::ops::Range;

/// Strings between two kept starts.
const MARK_EVERY: u64 = 64;

/// Where one string is: its length varint and its bytes, as positions in `tensor_content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringEntry {
    pub length: Range<usize>,
    pub data: Range<usize>,
}

/// A checked string list over `tensor_content`.
#[derive(Debug, Clone, PartialEq)]
pub struct StringList<'a> {
    content: &'a [u8],
    count: u64,
    /// Where the lengths end and the strings' bytes begin.
    lengths_end: usize,
    /// For strings 0, 64, 128…: where the length varint and the bytes start.
    marks: Vec<(usize, usize)>,
}

/// Why `tensor_content` is not a list of `count` strings; positions are in `tensor_content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StringListError {
    /// The length of string `index`, from byte `at`, runs past the content's end.
    LengthPastEnd { index: u64, at: usize },
    /// The length of string `index` at byte `at` is no 32-bit varint.
    LengthTooLong { index: u64, at: usize },
    /// The lengths (ending at byte `at`) add up to `lengths` bytes, but `have` bytes follow them.
    Bytes {
        lengths: u64,
        have: usize,
        at: usize,
    },
}

impl StringListError {
    /// The position in `tensor_content` where the list goes wrong.
    pub fn at(&self) -> usize {
        match self {
            StringListError::LengthPastEnd { at, .. }
            | StringListError::LengthTooLong { at, .. }
            | StringListError::Bytes { at, .. } => *at,
        }
    }
}

impl std::fmt::Display for StringListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StringListError::LengthPastEnd { index, at } => write!(
                f,
                "the length of string {index}, at byte {at} of tensor_content, runs past its end"
            ),
            StringListError::LengthTooLong { index, at } => write!(
                f,
                "the length of string {index}, at byte {at} of tensor_content, is longer than a 32-bit varint"
            ),
            StringListError::Bytes { lengths, have, at } => write!(
                f,
                "the string lengths add up to {}, but {} follow them (from byte {at} of tensor_content)",
                crate::words::plural(*lengths, "byte"),
                crate::words::plural(*have, "byte")
            ),
        }
    }
}

/// The varint32 at `at`: its value and the position after it. TensorFlow's `GetVarint32` reads at
/// most five bytes; a value past 32 bits is refused here rather than cut.
fn varint32(content: &[u8], at: usize) -> Result<(u32, usize), bool> {
    match crate::wire::read_varint(content, at, content.len()) {
        Ok((value, end)) if end - at <= 5 => {
            u32::try_from(value).map(|v| (v, end)).map_err(|_| true)
        }
        Ok(_) | Err(crate::wire::WireErrorKind::VarintTooLong) => Err(true),
        Err(_) => Err(false),
    }
}

impl<'a> StringList<'a> {
    /// Reads `content` as the lengths of `count` strings, then their bytes.
    pub fn parse(content: &'a [u8], count: u64) -> Result<StringList<'a>, StringListError> {
        let mut marks = Vec::new();
        let mut at = 0usize;
        let mut total: u64 = 0;
        for index in 0..count {
            if index % MARK_EVERY == 0 {
                // The bytes' start is filled in below, once the lengths' end is known.
                marks.push((at, usize::try_from(total).unwrap_or(usize::MAX)));
            }
            let (length, next) = varint32(content, at).map_err(|too_long| {
                if too_long {
                    StringListError::LengthTooLong { index, at }
                } else {
                    StringListError::LengthPastEnd { index, at }
                }
            })?;
            total = total.saturating_add(u64::from(length));
            at = next;
        }
        let have = content.len() - at;
        if total != have as u64 {
            return Err(StringListError::Bytes {
                lengths: total,
                have,
                at,
            });
        }
        // The lengths are all read: the bytes of string k start `at` plus the lengths before it,
        // which total at most the content's size.
        for mark in &mut marks {
            mark.1 = mark.1.saturating_add(at);
        }
        Ok(StringList {
            content,
            count,
            lengths_end: at,
            marks,
        })
    }

    /// How many strings the list holds.
    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Where the lengths end and the strings' bytes begin, in `tensor_content`.
    pub fn lengths_end(&self) -> usize {
        self.lengths_end
    }

    /// Where string `i` is.
    pub fn entry(&self, i: u64) -> Option<StringEntry> {
        if i >= self.count {
            return None;
        }
        let mark = usize::try_from(i / MARK_EVERY).ok()?;
        let (mut length_at, mut data_at) = *self.marks.get(mark)?;
        for _ in 0..i % MARK_EVERY {
            let (length, next) = varint32(self.content, length_at).ok()?;
            data_at = data_at.checked_add(usize::try_from(length).ok()?)?;
            length_at = next;
        }
        let (length, next) = varint32(self.content, length_at).ok()?;
        let end = data_at.checked_add(usize::try_from(length).ok()?)?;
        Some(StringEntry {
            length: length_at..next,
            data: data_at..end,
        })
    }

    /// The bytes of string `i`.
    pub fn get(&self, i: u64) -> Option<&'a [u8]> {
        self.content.get(self.entry(i)?.data)
    }

    /// The string whose length or bytes hold position `pos` of `tensor_content`, with where it
    /// is. An empty string holds no bytes: a position among the bytes is in a non-empty one.
    pub fn entry_at(&self, pos: usize) -> Option<(u64, StringEntry)> {
        if pos >= self.content.len() {
            return None;
        }
        let in_lengths = pos < self.lengths_end;
        let key = |&(length_at, data_at): &(usize, usize)| {
            if in_lengths { length_at } else { data_at }
        };
        let mark = self
            .marks
            .partition_point(|m| key(m) <= pos)
            .checked_sub(1)?;
        let (mut length_at, mut data_at) = *self.marks.get(mark)?;
        let mut index = u64::try_from(mark).ok()?.checked_mul(MARK_EVERY)?;
        while index < self.count {
            let (length, next) = varint32(self.content, length_at).ok()?;
            let end = data_at.checked_add(usize::try_from(length).ok()?)?;
            let entry = StringEntry {
                length: length_at..next,
                data: data_at..end,
            };
            let range = if in_lengths {
                &entry.length
            } else {
                &entry.data
            };
            if range.contains(&pos) {
                return Some((index, entry));
            }
            (length_at, data_at, index) = (next, end, index + 1);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::number::varint_bytes;

    /// What `EncodeStringList` writes for `strings`.
    pub(crate) fn encode(strings: &[&[u8]]) -> Vec<u8> {
        let mut out: Vec<u8> = strings
            .iter()
            .flat_map(|s| varint_bytes(s.len() as u64))
            .collect();
        for s in strings {
            out.extend_from_slice(s);
        }
        out
    }

    #[test]
    fn lengths_then_bytes() {
        let content = encode(&[b"north", b"", b"\xff\x00raw"]);
        assert_eq!(content, b"\x05\x00\x05north\xff\x00raw");
        let list = StringList::parse(&content, 3).unwrap();
        assert_eq!(list.lengths_end(), 3);
        assert_eq!(list.get(0), Some(&b"north"[..]));
        assert_eq!(list.get(1), Some(&b""[..]));
        assert_eq!(list.get(2), Some(&b"\xff\x00raw"[..]));
        assert_eq!(list.get(3), None);
        assert_eq!(
            list.entry(2),
            Some(StringEntry {
                length: 2..3,
                data: 8..13
            })
        );
        assert_eq!(list.entry_at(1).map(|(i, _)| i), Some(1));
        assert_eq!(list.entry_at(7).map(|(i, _)| i), Some(0));
        assert_eq!(list.entry_at(8).map(|(i, _)| i), Some(2));
        assert_eq!(list.entry_at(13), None);
    }

    #[test]
    fn many_strings_are_found_by_position_and_index() {
        let strings: Vec<Vec<u8>> = (0..1000u32)
            .map(|i| vec![b'a' + (i % 26) as u8; (i % 200) as usize])
            .collect();
        let refs: Vec<&[u8]> = strings.iter().map(Vec::as_slice).collect();
        let content = encode(&refs);
        let list = StringList::parse(&content, 1000).unwrap();
        for (i, s) in strings.iter().enumerate() {
            let entry = list.entry(i as u64).unwrap();
            assert_eq!(&content[entry.data.clone()], s.as_slice());
            assert_eq!(
                list.entry_at(entry.length.start),
                Some((i as u64, entry.clone()))
            );
            if !s.is_empty() {
                assert_eq!(list.entry_at(entry.data.end - 1), Some((i as u64, entry)));
            }
        }
    }

    #[test]
    fn damage_is_named_with_its_offset() {
        // Three strings in the shape, two lengths in the content.
        let err = StringList::parse(&[0x01, 0x01], 3).unwrap_err();
        assert_eq!(err, StringListError::LengthPastEnd { index: 2, at: 2 });
        // The first string's byte read as the third length.
        let err = StringList::parse(&[0x01, 0x01, b'a'], 3).unwrap_err();
        assert_eq!(
            err,
            StringListError::Bytes {
                lengths: 99,
                have: 0,
                at: 3
            }
        );
        // A length whose varint is cut by the content's end.
        let err = StringList::parse(&[0x01, 0x80], 2).unwrap_err();
        assert_eq!(err, StringListError::LengthPastEnd { index: 1, at: 1 });
        assert_eq!(
            err.to_string(),
            "the length of string 1, at byte 1 of tensor_content, runs past its end"
        );
        // A length past 32 bits.
        let err = StringList::parse(&[0x80, 0x80, 0x80, 0x80, 0x10], 1).unwrap_err();
        assert_eq!(err, StringListError::LengthTooLong { index: 0, at: 0 });
        // Lengths that promise more than follows.
        let err = StringList::parse(&[0x05, b'a', b'b'], 1).unwrap_err();
        assert_eq!(
            err,
            StringListError::Bytes {
                lengths: 5,
                have: 2,
                at: 1
            }
        );
        assert_eq!(
            err.to_string(),
            "the string lengths add up to 5 bytes, but 2 bytes follow them (from byte 1 of tensor_content)"
        );
    }

    proptest::proptest! {
        #[test]
        fn what_tensorflow_encodes_reads_back(
            strings in proptest::collection::vec(
                proptest::collection::vec(proptest::num::u8::ANY, 0..20), 0..150)
        ) {
            let refs: Vec<&[u8]> = strings.iter().map(Vec::as_slice).collect();
            let content = encode(&refs);
            let list = StringList::parse(&content, strings.len() as u64).unwrap();
            for (i, s) in strings.iter().enumerate() {
                proptest::prop_assert_eq!(list.get(i as u64), Some(s.as_slice()));
            }
            // Every byte belongs to one string's length or bytes, found from the position.
            for pos in 0..content.len() {
                let (i, entry) = list.entry_at(pos).unwrap();
                proptest::prop_assert_eq!(list.entry(i), Some(entry.clone()));
                proptest::prop_assert!(entry.length.contains(&pos) || entry.data.contains(&pos));
            }
        }

        #[test]
        fn any_bytes_and_count_read_or_fail_without_panic(
            content in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
            count in proptest::num::u64::ANY,
        ) {
            if let Ok(list) = StringList::parse(&content, count) {
                proptest::prop_assert!(count <= content.len() as u64);
                for i in 0..count {
                    proptest::prop_assert!(list.get(i).is_some());
                }
            }
        }
    }

    #[test]
    fn a_count_past_the_content_fails_at_its_end_without_allocating_for_it() {
        let err = StringList::parse(&[0x00; 10], u64::MAX).unwrap_err();
        assert_eq!(err, StringListError::LengthPastEnd { index: 10, at: 10 });
    }
}
