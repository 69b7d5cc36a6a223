//! The six wire types of the protobuf encoding, on their own so that the schema table (which
//! says which wire types a field accepts) and the wire walker (which reads them) both build on
//! them without depending on each other.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireType {
    Varint,
    I64,
    Len,
    StartGroup,
    EndGroup,
    I32,
}

impl WireType {
    /// The wire type in a tag's low three bits.
    pub fn from_bits(bits: u64) -> Option<WireType> {
        Some(match bits {
            0 => WireType::Varint,
            1 => WireType::I64,
            2 => WireType::Len,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::I32,
            _ => return None,
        })
    }

    pub fn code(self) -> u8 {
        self as u8
    }

    /// Bytes a value of this wire type takes: 4 or 8 for the fixed-width types, `None` for the
    /// others (a varint's length, a length prefix's data, a group's fields vary).
    pub fn fixed_width(self) -> Option<usize> {
        match self {
            WireType::I32 => Some(4),
            WireType::I64 => Some(8),
            _ => None,
        }
    }

    /// The name protobuf's documentation uses.
    pub fn description(self) -> &'static str {
        match self {
            WireType::Varint => "varint",
            WireType::I64 => "64-bit",
            WireType::Len => "length-delimited",
            WireType::StartGroup => "start group",
            WireType::EndGroup => "end group",
            WireType::I32 => "32-bit",
        }
    }
}
