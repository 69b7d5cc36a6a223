//! The top-level fields of one small protobuf message, read one after another: what reading a
//! snapshot's two side files needs (a `SnapshotMetadataRecord`, a `StructuredValue`), without a
//! schema or a wire tree. Every length is checked against the bytes it claims; invalid data ends
//! the read with where it is.

use crate::wire::{WireType, read_varint};

/// One field's value as the wire holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

/// Why a message could not be read: what was wrong, at which byte of the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bad {
    pub at: usize,
    pub what: &'static str,
}

/// The fields of `bytes`, in order, each with its number; the first invalid one ends the
/// iteration with an error.
pub fn fields(bytes: &[u8]) -> Fields<'_> {
    Fields {
        bytes,
        pos: 0,
        failed: false,
    }
}

pub struct Fields<'a> {
    bytes: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> Fields<'a> {
    fn read(&mut self) -> Result<(u32, Wire<'a>), Bad> {
        let end = self.bytes.len();
        let at = self.pos;
        let bad = |what| Bad { at, what };
        let (tag, pos) = read_varint(self.bytes, at, end).map_err(|_| bad("a truncated tag"))?;
        let number = u32::try_from(tag >> 3).map_err(|_| bad("a field number too large"))?;
        if number == 0 {
            return Err(bad("field number 0"));
        }
        let wire_type = WireType::from_bits(tag & 7).ok_or(bad("an invalid wire type"))?;
        let (value, next) = match wire_type {
            WireType::Varint => {
                let (v, next) =
                    read_varint(self.bytes, pos, end).map_err(|_| bad("a truncated varint"))?;
                (Wire::Varint(v), next)
            }
            WireType::I64 => {
                let raw = self
                    .bytes
                    .get(pos..pos.saturating_add(8))
                    .and_then(|s| <[u8; 8]>::try_from(s).ok())
                    .ok_or(bad("a truncated 8-byte value"))?;
                (Wire::Fixed64(u64::from_le_bytes(raw)), pos + 8)
            }
            WireType::I32 => {
                let raw = self
                    .bytes
                    .get(pos..pos.saturating_add(4))
                    .and_then(|s| <[u8; 4]>::try_from(s).ok())
                    .ok_or(bad("a truncated 4-byte value"))?;
                (Wire::Fixed32(u32::from_le_bytes(raw)), pos + 4)
            }
            WireType::Len => {
                let (len, start) =
                    read_varint(self.bytes, pos, end).map_err(|_| bad("a truncated length"))?;
                let data = usize::try_from(len)
                    .ok()
                    .and_then(|len| start.checked_add(len))
                    .and_then(|stop| self.bytes.get(start..stop))
                    .ok_or(bad("a length past the end"))?;
                (Wire::Bytes(data), start + data.len())
            }
            WireType::StartGroup | WireType::EndGroup => return Err(bad("a group")),
        };
        self.pos = next;
        Ok((number, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Wire<'a>), Bad>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.bytes.len() {
            return None;
        }
        let field = self.read();
        self.failed = field.is_err();
        Some(field)
    }
}

/// A varint as the `int32` (or enum) protobuf reads it: its low 32 bits.
pub fn as_i32(v: u64) -> i32 {
    (v as u32) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_in_order_and_bad_data_says_where() {
        let bytes = [0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 1, 0, 0, 0];
        let read: Vec<_> = fields(&bytes).collect();
        assert_eq!(
            read,
            vec![
                Ok((1, Wire::Varint(150))),
                Ok((2, Wire::Bytes(b"hi"))),
                Ok((3, Wire::Fixed32(1)))
            ]
        );
        // A length past the end, then nothing more.
        let read: Vec<_> = fields(&[0x08, 0x01, 0x12, 0x05, b'a']).collect();
        assert_eq!(
            read,
            vec![
                Ok((1, Wire::Varint(1))),
                Err(Bad {
                    at: 2,
                    what: "a length past the end"
                })
            ]
        );
        assert_eq!(
            fields(&[0x00]).next(),
            Some(Err(Bad {
                at: 0,
                what: "field number 0"
            }))
        );
        assert_eq!(as_i32(u64::MAX), -1);
    }
}
