//! The bytes a number can lie in on the wire, to pass over payloads that cannot hold it without
//! walking them.
//!
//! A field the typed layer reads as a number equal to the needle holds one of a few encodings of
//! it: a varint of the number (64-bit, or the low 32 bits an `int32`, `uint32` or enum keeps), a
//! varint of its zigzag form (`sint32`, `sint64`), four or eight little-endian bytes (`fixed32`,
//! `sfixed64`…), or the bits of the `float` or `double` nearest it, and in a TensorProto's
//! `tensor_content` also one- and two-byte integers and 16-bit floats. The walker gives a field its
//! type only when the wire type fits it, so these are all. A varint may be padded or carry bits a
//! 32-bit field drops, so its pattern is the bytes every encoding of the value starts with: the
//! full groups below the last significant one, then a byte whose low seven bits are that last
//! group (continuation bit either way), or the first four bytes of a longer one.

use memchr::memmem;

use super::Number;
use crate::tensor::dtype::{bf16_to_f32, f16_to_f32};

/// The byte patterns one of which any payload holding the number contains.
pub(super) struct Encodings {
    patterns: Vec<Pattern>,
    /// No pattern tells (a NaN needle matches every NaN): every payload may hold it.
    always: bool,
}

struct Pattern {
    prefix: memmem::Finder<'static>,
    /// The low seven bits of the byte after the prefix, for a varint's last group.
    last: Option<u8>,
}

impl Encodings {
    pub(super) fn of(number: &Number) -> Encodings {
        let mut patterns: Vec<(Vec<u8>, Option<u8>)> = Vec::new();
        if let Some(n) = number.int {
            let raw64 = i64::try_from(n)
                .map(|v| v as u64)
                .ok()
                .or_else(|| u64::try_from(n).ok());
            let raw32 = i32::try_from(n)
                .map(|v| v as u32)
                .ok()
                .or_else(|| u32::try_from(n).ok());
            if let Some(raw) = raw64 {
                patterns.push(varint(raw));
                patterns.push((raw.to_le_bytes().to_vec(), None));
            }
            if let Some(raw) = raw32 {
                patterns.push(varint(raw.into()));
                patterns.push((raw.to_le_bytes().to_vec(), None));
            }
            if let Ok(v) = i64::try_from(n) {
                patterns.push(varint(((v << 1) ^ (v >> 63)) as u64));
            }
            if let Ok(v) = i32::try_from(n) {
                patterns.push(varint(u64::from(((v << 1) ^ (v >> 31)) as u32)));
            }
            // One- and two-byte integers of a tensor's content.
            let small = i16::try_from(n)
                .map(|v| v as u16)
                .ok()
                .or_else(|| u16::try_from(n).ok());
            if let Some(v) = small {
                let bytes = v.to_le_bytes();
                let one_byte = i8::try_from(n).is_ok() || u8::try_from(n).is_ok();
                let width = if one_byte { 1 } else { 2 };
                patterns.push((bytes[..width].to_vec(), None));
            }
        }
        if let Some(bits) = number.f32_bits {
            patterns.push((bits.to_le_bytes().to_vec(), None));
            // The 16-bit floats of a tensor's content that read as this float.
            for half in 0..=u16::MAX {
                if f16_to_f32(half).to_bits() == bits || bf16_to_f32(half).to_bits() == bits {
                    patterns.push((half.to_le_bytes().to_vec(), None));
                }
            }
        }
        if let Some(bits) = number.f64_bits {
            patterns.push((bits.to_le_bytes().to_vec(), None));
        }
        patterns.sort();
        patterns.dedup();
        Encodings {
            patterns: patterns
                .into_iter()
                .map(|(prefix, last)| Pattern {
                    prefix: memmem::Finder::new(&prefix).into_owned(),
                    last,
                })
                .collect(),
            always: number.nan,
        }
    }

    /// Whether `bytes` may hold the number (false only when no encoding of it is there).
    pub(super) fn may_hold(&self, bytes: &[u8]) -> bool {
        self.always || self.patterns.iter().any(|p| p.occurs(bytes))
    }
}

impl Pattern {
    fn occurs(&self, bytes: &[u8]) -> bool {
        let Some(last) = self.last else {
            return self.prefix.find(bytes).is_some();
        };
        let len = self.prefix.needle().len();
        if len == 0 {
            return memchr::memchr2(last, last | 0x80, bytes).is_some();
        }
        self.prefix
            .find_iter(bytes)
            .any(|at| bytes.get(at + len).is_some_and(|b| b & 0x7f == last))
    }
}

/// The bytes every varint encoding of `value` starts with, and its last group's seven bits (see
/// the module's note); at most four bytes, so that bits a 32-bit field drops never count.
fn varint(value: u64) -> (Vec<u8>, Option<u8>) {
    let mut groups = Vec::new();
    let mut v = value;
    loop {
        groups.push((v & 0x7f) as u8);
        v >>= 7;
        if v == 0 {
            break;
        }
    }
    if groups.len() > 4 {
        return (groups.iter().take(4).map(|g| g | 0x80).collect(), None);
    }
    let last = groups.pop();
    (groups.iter().map(|g| g | 0x80).collect(), last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(needle: &str, bytes: &[u8]) -> bool {
        Encodings::of(&Number::parse(needle).unwrap()).may_hold(bytes)
    }

    #[test]
    fn varints_are_found_padded_or_with_bits_a_32_bit_field_drops() {
        assert!(holds("856", &[0x00, 0xd8, 0x06]));
        assert!(holds("856", &[0xd8, 0x86, 0x00]), "padded");
        assert!(!holds("856", &[0xd8, 0x07]));
        assert!(!holds("856", &[0x58, 0x06]), "88, then another varint");
        // 2^32 + 2 read by an int32 is 2.
        assert!(holds("2", &[0x82, 0x80, 0x80, 0x80, 0x10]));
        // -3: ten bytes as an int64 or int32, five as some encoders write an int32.
        assert!(holds(
            "-3",
            &[0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        ));
        assert!(holds("-3", &[0xfd, 0xff, 0xff, 0xff, 0x0f]));
        assert!(holds("-3", &[0x05]), "zigzag");
        assert!(!holds("-3", &[0x06, 0x07]));
    }

    #[test]
    fn fixed_width_and_float_encodings_are_found() {
        assert!(holds("856", &856u32.to_le_bytes()));
        assert!(holds("856", &856.0f32.to_le_bytes()));
        assert!(holds("0.1", &0.1f32.to_le_bytes()));
        assert!(holds("0.1", &0.1f64.to_le_bytes()));
        assert!(!holds("0.1", &0.2f32.to_le_bytes()));
        assert!(holds("nan", &[]), "any NaN bits");
    }
}
