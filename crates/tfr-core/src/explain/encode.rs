//! The other direction: a value and a type in, the bytes an encoder writes out, with the working
//! a learner would do by hand (the inverse of [`super::number`]'s derivations). `300` as a varint
//! is `300 = 0b10_0101100 -> groups 0101100, 0000010 -> 1 0101100, 0 0000010 -> ac 02`.

use super::number::{self, byte_bits, hex_bytes, varint_bytes, wire_name};

/// A scalar type of protobuf, as `encode --type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Bool,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Float,
    Double,
    String,
    Bytes,
}

impl ScalarType {
    /// Every type, with its name in a `.proto` file.
    pub const ALL: [(&'static str, ScalarType); 15] = [
        ("int32", ScalarType::Int32),
        ("int64", ScalarType::Int64),
        ("uint32", ScalarType::Uint32),
        ("uint64", ScalarType::Uint64),
        ("sint32", ScalarType::Sint32),
        ("sint64", ScalarType::Sint64),
        ("bool", ScalarType::Bool),
        ("fixed32", ScalarType::Fixed32),
        ("fixed64", ScalarType::Fixed64),
        ("sfixed32", ScalarType::Sfixed32),
        ("sfixed64", ScalarType::Sfixed64),
        ("float", ScalarType::Float),
        ("double", ScalarType::Double),
        ("string", ScalarType::String),
        ("bytes", ScalarType::Bytes),
    ];

    pub fn from_name(name: &str) -> Option<ScalarType> {
        let name = name.to_ascii_lowercase();
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, t)| *t == self)
            .map_or("", |(n, _)| n)
    }

    /// The wire type a field of this type is written with.
    pub fn wire_type(self) -> u64 {
        match self {
            ScalarType::Fixed64 | ScalarType::Sfixed64 | ScalarType::Double => 1,
            ScalarType::String | ScalarType::Bytes => 2,
            ScalarType::Fixed32 | ScalarType::Sfixed32 | ScalarType::Float => 5,
            _ => 0,
        }
    }
}

/// Bytes and the steps that give them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub steps: Vec<String>,
}

/// Why a value cannot be encoded as the type asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{text:?} is not a number {ty} holds ({reason})")]
    BadValue {
        text: String,
        ty: &'static str,
        reason: String,
    },
    #[error("field number {0} is out of range: field numbers are 1 to 536870911 (2^29 - 1)")]
    FieldOutOfRange(u64),
    #[error("{0:?} is no wire type: say 0 to 5 or VARINT, I64, LEN, SGROUP, EGROUP, I32")]
    BadWireType(String),
}

/// `0b10_0101100`: a number in binary, its 7-bit groups separated.
fn grouped_binary(value: u64) -> String {
    let bits = format!("{value:b}");
    let mut groups: Vec<&str> = Vec::new();
    let mut end = bits.len();
    while end > 7 {
        groups.push(bits.get(end - 7..end).unwrap_or_default());
        end -= 7;
    }
    groups.push(bits.get(..end).unwrap_or_default());
    groups.reverse();
    format!("0b{}", groups.join("_"))
}

/// `300 = 0b10_0101100 -> groups 0101100, 0000010 -> 1 0101100, 0 0000010 -> ac 02`.
pub fn varint_working(value: u64) -> (Vec<u8>, String) {
    let bytes = varint_bytes(value);
    let groups: Vec<String> = bytes.iter().map(|b| format!("{:07b}", b & 0x7f)).collect();
    let flagged: Vec<String> = bytes
        .iter()
        .map(|b| format!("{} {:07b}", b >> 7, b & 0x7f))
        .collect();
    let line = format!(
        "{value} = {} -> groups {} (least significant first) -> {} (continuation bit in front) -> {}",
        grouped_binary(value),
        groups.join(", "),
        flagged.join(", "),
        hex_bytes(&bytes)
    );
    (bytes, line)
}

/// `41 cb 33 33 -> little-endian, lowest byte first: 33 33 cb 41`.
fn little_endian_working(value: u64, width: usize) -> (Vec<u8>, String) {
    let all = value.to_le_bytes();
    let bytes = all.get(..width).unwrap_or_default().to_vec();
    let reversed: Vec<u8> = bytes.iter().rev().copied().collect();
    let line = format!(
        "0x{value:0digits$x} = {} -> little-endian, lowest byte first: {}",
        hex_bytes(&reversed),
        hex_bytes(&bytes),
        digits = width * 2
    );
    (bytes, line)
}

/// An integer written in decimal or `0x…`, with an optional minus sign.
fn parse_integer(text: &str) -> Option<i128> {
    let trimmed = text.trim();
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u128>().ok()?,
    };
    let magnitude = i128::try_from(magnitude).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// `value` encoded as a field of type `ty` is (without its tag).
pub fn scalar(ty: ScalarType, value: &str) -> Result<Encoded, EncodeError> {
    let bad = |reason: &str| EncodeError::BadValue {
        text: value.to_string(),
        ty: ty.name(),
        reason: reason.to_string(),
    };
    let integer = |min: i128, max: i128| -> Result<i128, EncodeError> {
        let n = parse_integer(value).ok_or_else(|| bad("not an integer"))?;
        if n < min || n > max {
            return Err(bad(&format!("{min} to {max}")));
        }
        Ok(n)
    };
    let mut steps = Vec::new();
    let bytes = match ty {
        ScalarType::Int32 | ScalarType::Int64 => {
            let (min, max) = if ty == ScalarType::Int32 {
                (i128::from(i32::MIN), i128::from(i32::MAX))
            } else {
                (i128::from(i64::MIN), i128::from(i64::MAX))
            };
            let n = integer(min, max)?;
            let raw = n as i64 as u64;
            if n < 0 {
                steps.push(format!(
                    "{n} is negative: {} sign-extends it to 64 bits, two's complement 2^64 - {} = {raw} \
                     = 0x{raw:016x} (so a negative {} always takes 10 bytes)",
                    ty.name(),
                    n.unsigned_abs(),
                    ty.name()
                ));
            }
            let (bytes, line) = varint_working(raw);
            steps.push(line);
            bytes
        }
        ScalarType::Uint32 | ScalarType::Uint64 => {
            let max = if ty == ScalarType::Uint32 {
                i128::from(u32::MAX)
            } else {
                i128::from(u64::MAX)
            };
            let n = integer(0, max)? as u64;
            let (bytes, line) = varint_working(n);
            steps.push(line);
            bytes
        }
        ScalarType::Sint32 | ScalarType::Sint64 => {
            let (raw, line) = if ty == ScalarType::Sint32 {
                let n = integer(i128::from(i32::MIN), i128::from(i32::MAX))? as i32;
                let z = ((n << 1) ^ (n >> 31)) as u32;
                (
                    u64::from(z),
                    format!(
                        "zigzag: (n << 1) ^ (n >> 31) = ({n} << 1) ^ ({n} >> 31) = {} ^ {} = {z}",
                        n.wrapping_shl(1),
                        n >> 31
                    ),
                )
            } else {
                let n = integer(i128::from(i64::MIN), i128::from(i64::MAX))? as i64;
                let z = ((n << 1) ^ (n >> 63)) as u64;
                (
                    z,
                    format!(
                        "zigzag: (n << 1) ^ (n >> 63) = ({n} << 1) ^ ({n} >> 63) = {} ^ {} = {z}",
                        n.wrapping_shl(1),
                        n >> 63
                    ),
                )
            };
            steps.push(line);
            let (bytes, line) = varint_working(raw);
            steps.push(line);
            bytes
        }
        ScalarType::Bool => {
            let truth = match value.trim().to_ascii_lowercase().as_str() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => return Err(bad("true, false, 1 or 0")),
            };
            steps.push(format!(
                "{truth} is written as the varint {}",
                u8::from(truth)
            ));
            vec![u8::from(truth)]
        }
        ScalarType::Fixed32 | ScalarType::Sfixed32 | ScalarType::Fixed64 | ScalarType::Sfixed64 => {
            let (min, max, width) = match ty {
                ScalarType::Fixed32 => (0, i128::from(u32::MAX), 4),
                ScalarType::Sfixed32 => (i128::from(i32::MIN), i128::from(i32::MAX), 4),
                ScalarType::Fixed64 => (0, i128::from(u64::MAX), 8),
                _ => (i128::from(i64::MIN), i128::from(i64::MAX), 8),
            };
            let n = integer(min, max)?;
            let raw = if width == 4 {
                u64::from(n as i32 as u32)
            } else {
                n as i64 as u64
            };
            if n < 0 {
                steps.push(format!(
                    "{n} is negative: two's complement in {} bits, 2^{} - {} = {raw}",
                    width * 8,
                    width * 8,
                    n.unsigned_abs()
                ));
            }
            let (bytes, line) = little_endian_working(raw, width);
            steps.push(line);
            bytes
        }
        ScalarType::Float | ScalarType::Double => {
            let x: f64 = match value.trim().to_ascii_lowercase().as_str() {
                "nan" => f64::NAN,
                "inf" | "+inf" | "infinity" => f64::INFINITY,
                "-inf" | "-infinity" => f64::NEG_INFINITY,
                text => text.parse().map_err(|_| bad("not a number"))?,
            };
            if ty == ScalarType::Float {
                let bits = (x as f32).to_bits();
                steps.push(format!(
                    "{} as the nearest float: {}",
                    value.trim(),
                    number::float(bits)
                ));
                let (bytes, line) = little_endian_working(u64::from(bits), 4);
                steps.push(line);
                bytes
            } else {
                let bits = x.to_bits();
                steps.push(format!(
                    "{} as the nearest double: {}",
                    value.trim(),
                    number::double(bits)
                ));
                let (bytes, line) = little_endian_working(bits, 8);
                steps.push(line);
                bytes
            }
        }
        ScalarType::String | ScalarType::Bytes => {
            let data = value.as_bytes();
            let (mut bytes, line) = varint_working(data.len() as u64);
            steps.push(format!(
                "{} of UTF-8, so the length prefix is {line}",
                crate::words::plural(data.len() as u64, "byte")
            ));
            steps.push(format!("then the bytes themselves: {}", hex_bytes(data)));
            bytes.extend_from_slice(data);
            bytes
        }
    };
    Ok(Encoded { bytes, steps })
}

/// A wire type by number or by the name the encoding guide gives it.
pub fn parse_wire_type(text: &str) -> Result<u64, EncodeError> {
    let upper = text.trim().to_ascii_uppercase();
    let code = match upper.as_str() {
        "VARINT" => 0,
        "I64" => 1,
        "LEN" => 2,
        "SGROUP" => 3,
        "EGROUP" => 4,
        "I32" => 5,
        other => other
            .parse::<u64>()
            .ok()
            .filter(|c| *c <= 5)
            .ok_or_else(|| EncodeError::BadWireType(text.to_string()))?,
    };
    Ok(code)
}

/// The tag of field `field` with wire type `wire`: `2 << 3 | 2 = 18 -> 12`.
pub fn tag(field: u64, wire: u64) -> Result<Encoded, EncodeError> {
    if field == 0 || field > super::fault::MAX_FIELD {
        return Err(EncodeError::FieldOutOfRange(field));
    }
    let value = field << 3 | wire;
    let mut steps = vec![format!(
        "tag = field << 3 | wire type = {field} << 3 | {wire} ({}) = {value}",
        wire_name(wire)
    )];
    let (bytes, line) = varint_working(value);
    if let [one] = bytes.as_slice() {
        steps.push(format!(
            "{value} fits in 7 bits: one byte, continuation bit 0: {} -> {one:02x}",
            byte_bits(*one)
        ));
    } else {
        steps.push(line);
    }
    if (19000..=19999).contains(&field) {
        steps.push(
            "field numbers 19000 to 19999 are reserved for protobuf's own use: protoc refuses \
             them in a .proto file, though parsers read them"
                .to_string(),
        );
    }
    Ok(Encoded { bytes, steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_of(ty: ScalarType, value: &str) -> String {
        hex_bytes(&scalar(ty, value).unwrap().bytes)
    }

    #[test]
    fn varints_are_worked_out() {
        let e = scalar(ScalarType::Uint64, "300").unwrap();
        assert_eq!(e.bytes, [0xac, 0x02]);
        assert_eq!(
            e.steps[0],
            "300 = 0b10_0101100 -> groups 0101100, 0000010 (least significant first) -> \
             1 0101100, 0 0000010 (continuation bit in front) -> ac 02"
        );
        assert_eq!(
            hex_of(ScalarType::Int32, "-1"),
            "ff ff ff ff ff ff ff ff ff 01"
        );
        let e = scalar(ScalarType::Sint64, "-150").unwrap();
        assert_eq!(hex_bytes(&e.bytes), "ab 02");
        assert!(e.steps[0].ends_with("= -300 ^ -1 = 299"), "{:?}", e.steps);
        assert_eq!(hex_of(ScalarType::Float, "25.4"), "33 33 cb 41");
        assert_eq!(hex_of(ScalarType::Fixed64, "1"), "01 00 00 00 00 00 00 00");
        assert_eq!(hex_of(ScalarType::String, "hi"), "02 68 69");
        assert!(scalar(ScalarType::Int32, "2147483648").is_err());
        assert!(scalar(ScalarType::Uint32, "-1").is_err());
    }

    #[test]
    fn tags_are_worked_out() {
        let e = tag(2, parse_wire_type("LEN").unwrap()).unwrap();
        assert_eq!(e.bytes, [0x12]);
        assert_eq!(
            e.steps[0],
            "tag = field << 3 | wire type = 2 << 3 | 2 (LEN) = 18"
        );
        assert_eq!(tag(16, 0).unwrap().bytes, [0x80, 0x01]);
        assert!(tag(0, 0).is_err());
        assert!(tag(1 << 29, 0).is_err());
        assert!(parse_wire_type("6").is_err());
    }
}
