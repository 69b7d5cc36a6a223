//! The arithmetic of the wire format written out: each function takes the bytes of one token (or
//! the number they hold) and returns the steps a learner would take by hand to get from one to
//! the other, as text. Nothing here knows about fields or schemas; [`super`] picks which steps a
//! token needs.

use std::fmt::Write as _;

use crate::decode::Scalar;
use crate::textformat::scalar_text;

/// The name today's encoding guide gives wire type `code` (VARINT, I64, LEN, SGROUP, EGROUP, I32).
pub fn wire_name(code: u64) -> &'static str {
    match code {
        0 => "VARINT",
        1 => "I64",
        2 => "LEN",
        3 => "SGROUP",
        4 => "EGROUP",
        5 => "I32",
        _ => "invalid",
    }
}

/// `d8 06`: bytes as two hex digits each.
pub fn hex_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `1101 1000`: a byte in binary, as two nibbles.
pub fn byte_bits(b: u8) -> String {
    format!("{:04b} {:04b}", b >> 4, b & 0x0f)
}

/// The `n` low bits of `value` in binary, zero-padded.
pub fn low_bits(value: u64, n: u32) -> String {
    let masked = if n >= 64 {
        value
    } else {
        value & ((1u64 << n) - 1)
    };
    format!("{masked:0width$b}", width = n as usize)
}

/// The number a varint's bytes hold, as protobuf's parsers read it (bits past 64 dropped), and
/// whether its last byte ends it (a varint cut short has none).
pub fn varint_value(bytes: &[u8]) -> (u64, bool) {
    let mut value = 0u64;
    for (i, b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f).checked_shl(7 * i as u32).unwrap_or(0);
        if b & 0x80 == 0 {
            return (value, i + 1 == bytes.len());
        }
    }
    (value, false)
}

/// How many bytes the shortest varint of `value` takes.
pub fn varint_len(value: u64) -> usize {
    let bits = 64 - value.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// The shortest varint of `value`.
pub fn varint_bytes(mut value: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
    out
}

/// `d8 06 -> 1101 1000 0000 0110 -> groups 1011000, 0000110 -> 0000110 1011000 = 856 = 0x358`:
/// each byte in binary (its first bit the continuation bit), the 7-bit groups in wire order, the
/// groups put back most significant first, and the value.
pub fn varint(bytes: &[u8]) -> (u64, String) {
    let (value, _) = varint_value(bytes);
    let binary: Vec<String> = bytes.iter().map(|b| byte_bits(*b)).collect();
    let groups: Vec<String> = bytes.iter().map(|b| format!("{:07b}", b & 0x7f)).collect();
    let reversed: Vec<&str> = groups.iter().rev().map(String::as_str).collect();
    let mut line = format!(
        "{} -> {} -> groups {} -> {} = {value} = 0x{value:02x}",
        hex_bytes(bytes),
        binary.join(" "),
        groups.join(", "),
        reversed.join(" "),
    );
    if bytes.len() == 10 && bytes.last().is_some_and(|b| b & 0x7e != 0) {
        line.push_str(" (bits past the 64th dropped)");
    }
    (value, line)
}

/// `field 00010 = 2, wire type 010 = 2 (LEN): 2 << 3 | 2 = 18 = 0x12` for the tag `value`;
/// `single` spells the field in the four bits a one-byte tag has for it (below its continuation
/// bit).
pub fn tag_fields(value: u64, single: bool) -> String {
    let field = value >> 3;
    let wire = value & 7;
    let field_bits = if single {
        low_bits(field, 4)
    } else {
        format!("{field:b}")
    };
    format!(
        "field {field_bits} = {field}, wire type {} = {wire} ({}): {field} << 3 | {wire} = {value} = 0x{value:02x}",
        low_bits(wire, 3),
        wire_name(wire),
    )
}

/// A tag's derivation: `12 -> 0001 0010 -> continuation 0, group 0010010 -> field 0010 = 2, wire
/// type 010 = 2 (LEN): 2 << 3 | 2 = 18 = 0x12`; a tag of several bytes is read as a varint first.
pub fn tag(bytes: &[u8]) -> Vec<String> {
    match bytes {
        [one] if one & 0x80 == 0 => vec![format!(
            "{one:02x} -> {} -> continuation 0, group {:07b} -> {}",
            byte_bits(*one),
            one & 0x7f,
            tag_fields(u64::from(*one), true)
        )],
        _ => {
            let (value, line) = varint(bytes);
            vec![
                line,
                format!(
                    "{value} = {:b} {} -> {}",
                    value >> 3,
                    low_bits(value & 7, 3),
                    tag_fields(value, false)
                ),
            ]
        }
    }
}

/// `33 33 cb 41 -> little-endian, reversed: 41 cb 33 33 -> 0x41cb3333 = 1103835955`.
pub fn little_endian(bytes: &[u8]) -> (u64, String) {
    let mut raw = [0u8; 8];
    for (slot, byte) in raw.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    let value = u64::from_le_bytes(raw);
    let reversed: Vec<u8> = bytes.iter().rev().copied().collect();
    let digits = bytes.len().min(8) * 2;
    let line = format!(
        "{} -> little-endian, reversed: {} -> 0x{value:0digits$x} = {value}",
        hex_bytes(bytes),
        hex_bytes(&reversed),
    );
    (value, line)
}

/// How a 64-bit int64 reads the raw value, when it is negative.
pub fn int64(raw: u64) -> Option<String> {
    let signed = raw as i64;
    (signed < 0).then(|| {
        format!(
            "as int64: the top bit is set, so two's complement: 0x{raw:016x} - 2^64 = {signed} \
             (a negative number always takes 10 bytes)"
        )
    })
}

/// How an int32 (or an enum number) reads the raw value, when it is negative or written wide.
///
/// An encoder writes a negative int32 sign-extended to 64 bits (ten bytes, the top 33 bits all
/// ones); any other value above 32 bits is bytes no encoder writes, whose bits 32 and up parsers
/// drop.
pub fn int32(raw: u64) -> Option<String> {
    let low = raw as u32;
    let signed = low as i32;
    if raw > u64::from(u32::MAX) {
        let sign_extended = signed < 0 && raw >> 32 == u64::from(u32::MAX);
        if sign_extended {
            Some(format!(
                "as int32: sign-extended to 64 bits on the wire; the low 32 bits 0x{low:08x} in two's complement = {signed}"
            ))
        } else {
            Some(format!(
                "as int32: 0x{raw:x} has bits above the 32nd set, which no encoder writes (an int32 is at most 5 bytes, \
                 or 10 when negative and sign-extended); parsers drop bits 32 and up and keep the low 32 bits \
                 0x{low:08x} = {signed}"
            ))
        }
    } else if signed < 0 {
        Some(format!(
            "as int32: 0x{low:08x} in two's complement = {signed} (written as 32 bits, where encoders sign-extend to 64)"
        ))
    } else {
        None
    }
}

/// `zigzag: (n >> 1) ^ -(n & 1) = (3 >> 1) ^ -(3 & 1) = 1 ^ -1 = -2` for a sint64 (or a sint32,
/// which reads the low 32 bits first: a step of its own when the varint holds more).
pub fn zigzag(raw: u64, bits32: bool) -> String {
    let mut keep = String::new();
    let (n, half, sign, value) = if bits32 {
        let n = raw as u32;
        if raw > u64::from(u32::MAX) {
            keep = format!(
                "sint32 keeps the low 32 bits: {raw} = 0x{raw:x} -> 0x{n:08x} = {n} (no encoder writes more); "
            );
        }
        let sign = -((n & 1) as i64);
        (
            u64::from(n),
            u64::from(n >> 1),
            sign,
            ((n >> 1) as i32 ^ -((n & 1) as i32)) as i64,
        )
    } else {
        let sign = -((raw & 1) as i64);
        (raw, raw >> 1, sign, (raw >> 1) as i64 ^ sign)
    };
    format!(
        "{keep}zigzag: (n >> 1) ^ -(n & 1) = ({n} >> 1) ^ -({n} & 1) = {half} ^ {sign} = {value}"
    )
}

/// What a bool reads from the raw value.
pub fn bool_reading(raw: u64) -> String {
    match raw {
        0 => "as bool: 0 is false".into(),
        1 => "as bool: 1 is true".into(),
        n => format!("as bool: {n} is not 0 or 1; parsers read any value but 0 as true"),
    }
}

/// An IEEE 754 number's fields: sign, exponent, mantissa.
struct Layout {
    exponent_bits: u32,
    mantissa_bits: u32,
    bias: i64,
}

/// `0x41cb3333 = 0 10000011 10010110011001100110011 -> sign 0 (+), exponent 10000011 = 131,
/// 131 - 127 = 4, mantissa 1.10010110011001100110011 ≈ 1.5875 -> +1.5875 × 2^4 ≈ 25.4 (exactly
/// 25.3999996185302734375)`: a number printed short is marked `≈` unless it is exact.
pub fn float(bits: u32) -> String {
    let layout = Layout {
        exponent_bits: 8,
        mantissa_bits: 23,
        bias: 127,
    };
    let mantissa = bits & 0x7f_ffff;
    let one_point = f32::from_bits(0x3f80_0000 | mantissa);
    let value = f32::from_bits(bits);
    ieee(
        u64::from(bits),
        &layout,
        Shown::new(scalar_text(&Scalar::F32(one_point)), f64::from(one_point)),
        Shown::new(scalar_text(&Scalar::F32(value)), f64::from(value)),
    )
}

/// [`float`] for a double: 11 exponent bits, a 52-bit mantissa (shown in hex).
pub fn double(bits: u64) -> String {
    let layout = Layout {
        exponent_bits: 11,
        mantissa_bits: 52,
        bias: 1023,
    };
    let mantissa = bits & ((1u64 << 52) - 1);
    let one_point = f64::from_bits(0x3ff0_0000_0000_0000 | mantissa);
    let value = f64::from_bits(bits);
    ieee(
        bits,
        &layout,
        Shown::new(scalar_text(&Scalar::F64(one_point)), one_point),
        Shown::new(scalar_text(&Scalar::F64(value)), value),
    )
}

/// The longest exact decimal a derivation spells out; longer ones are only marked `≈`.
const EXACT_DIGITS: usize = 40;

/// A binary floating-point number as a derivation writes it: the short form its type prints,
/// and its exact decimal value when that is another number.
struct Shown {
    short: String,
    /// The exact value, when it differs from `short` and is short enough to print.
    exact: Option<String>,
    /// Whether `short` is the exact value.
    is_exact: bool,
}

impl Shown {
    fn new(short: String, value: f64) -> Shown {
        let exact = exact_decimal(value);
        // `3.0` is 3 exactly; `25.4` is only the float nearest it.
        let is_exact = exact.is_some() && exact == plain_decimal(&short);
        let exact = exact.filter(|e| !is_exact && e.len() <= EXACT_DIGITS);
        Shown {
            short,
            exact,
            is_exact,
        }
    }

    /// `= 1.5` or `≈ 1.5875`.
    fn equals(&self) -> String {
        let sign = if self.is_exact { '=' } else { '≈' };
        format!("{sign} {}", self.short)
    }

    /// [`Shown::equals`], with the exact value in parentheses when it is printable.
    fn equals_exactly(&self) -> String {
        match &self.exact {
            Some(exact) => format!("{} (exactly {exact})", self.equals()),
            None => self.equals(),
        }
    }
}

/// Every decimal digit of a finite binary floating-point number (a binary fraction has as many
/// decimal digits after the point as binary ones), `None` for an infinity or a NaN.
fn exact_decimal(value: f64) -> Option<String> {
    if !value.is_finite() {
        return None;
    }
    if value == 0.0 {
        return Some(if value.is_sign_negative() { "-0" } else { "0" }.into());
    }
    let bits = value.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let mantissa = bits & ((1u64 << 52) - 1);
    let (significand, power) = if exponent == 0 {
        (mantissa, -1074)
    } else {
        (mantissa | 1 << 52, exponent - 1075)
    };
    let power = power + i64::from(significand.trailing_zeros());
    let decimals = usize::try_from(-power).unwrap_or(0);
    // Rust formats a float to a given precision exactly.
    let text = format!("{value:.decimals$}");
    Some(text)
}

/// `5e-324` as `0.000…5`, `3.0` as `3`: a number's decimal digits without an exponent or
/// trailing zeros, to compare with [`exact_decimal`] (`None` when it is not such a number).
fn plain_decimal(text: &str) -> Option<String> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = whole.chars().chain(fraction.chars()).collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || exponent.abs() > 400 {
        return None;
    }
    // The position of the decimal point within `digits`.
    let point = whole.len() as i64 + exponent;
    let (int_part, frac_part) = if point <= 0 {
        let zeros = "0".repeat(usize::try_from(-point).ok()?);
        ("0".to_string(), format!("{zeros}{digits}"))
    } else if point as usize >= digits.len() {
        let zeros = "0".repeat(point as usize - digits.len());
        (format!("{digits}{zeros}"), String::new())
    } else {
        let (i, f) = digits.split_at(point as usize);
        (i.to_string(), f.to_string())
    };
    let int_part = int_part.trim_start_matches('0');
    let int_part = if int_part.is_empty() { "0" } else { int_part };
    let frac_part = frac_part.trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    Some(if frac_part.is_empty() {
        format!("{sign}{int_part}")
    } else {
        format!("{sign}{int_part}.{frac_part}")
    })
}

fn ieee(bits: u64, layout: &Layout, one_point: Shown, value: Shown) -> String {
    let m = layout.mantissa_bits;
    let e = layout.exponent_bits;
    let mantissa = bits & ((1u64 << m) - 1);
    let exponent = (bits >> m) & ((1u64 << e) - 1);
    let sign = bits >> (m + e) & 1;
    let sign_char = if sign == 1 { '-' } else { '+' };
    let exponent_text = low_bits(exponent, e);
    let width = ((m + e + 1) / 4) as usize;
    let binary = m <= 23;
    let pattern = if binary {
        let bits_text = low_bits(mantissa, m);
        format!("0x{bits:0width$x} = {sign} {exponent_text} {bits_text}")
    } else {
        format!(
            "0x{bits:0width$x}: sign {sign}, exponent {exponent_text}, mantissa 0x{mantissa:013x}"
        )
    };
    let all_ones = (1u64 << e) - 1;
    let rest = if exponent == all_ones && mantissa == 0 {
        format!("sign {sign}, exponent all ones, mantissa 0: {sign_char}inf")
    } else if exponent == all_ones {
        let quiet = mantissa >> (m - 1) & 1 == 1;
        let kind = if quiet { "quiet" } else { "signalling" };
        format!("sign {sign}, exponent all ones, mantissa not 0: NaN ({kind})")
    } else if exponent == 0 && mantissa == 0 {
        let zero = if sign == 1 { "-0" } else { "0" };
        format!("sign {sign}, exponent 0, mantissa 0: {zero}")
    } else if exponent == 0 {
        // No implicit 1: the mantissa is a whole number of the smallest steps, 2^(1 - bias - m).
        let fraction = if binary {
            format!("0.{} (binary)", low_bits(mantissa, m))
        } else {
            format!("0x{mantissa:013x} / 2^{m}")
        };
        format!(
            "sign {sign} ({sign_char}), exponent 0: subnormal, {fraction} × 2^{} = {sign_char}{mantissa} × 2^{} {}",
            1 - layout.bias,
            1 - layout.bias - i64::from(m),
            value.equals_exactly()
        )
    } else {
        let unbiased = exponent as i64 - layout.bias;
        let mantissa_shown = if binary {
            format!("1.{}", low_bits(mantissa, m))
        } else {
            format!("1 + 0x{mantissa:013x} / 2^{m}")
        };
        format!(
            "sign {sign} ({sign_char}), exponent {exponent_text} = {exponent}, {exponent} - {} = {unbiased}, \
             mantissa {mantissa_shown} {} -> {sign_char}{} × 2^{unbiased} {}",
            layout.bias,
            one_point.equals(),
            one_point.short,
            value.equals_exactly()
        )
    };
    format!("{pattern} -> {rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_show_bits_groups_and_value() {
        let (value, line) = varint(&[0xd8, 0x06]);
        assert_eq!(value, 856);
        assert_eq!(
            line,
            "d8 06 -> 1101 1000 0000 0110 -> groups 1011000, 0000110 -> 0000110 1011000 = 856 = 0x358"
        );
        let (value, line) = varint(&[0xe8, 0x06]);
        assert_eq!(value, 872);
        assert!(line.contains("1110 1000 0000 0110"), "{line}");
        assert!(line.contains("groups 1101000, 0000110"), "{line}");
        assert!(line.ends_with("= 872 = 0x368"), "{line}");
        // Over-long: four bytes for 1, the zero groups in front once reassembled.
        let (value, line) = varint(&[0x81, 0x80, 0x80, 0x00]);
        assert_eq!(value, 1);
        assert!(
            line.ends_with("0000000 0000000 0000000 0000001 = 1 = 0x01"),
            "{line}"
        );
    }

    #[test]
    fn tags_split_into_field_and_wire_type() {
        assert_eq!(
            tag(&[0x12]),
            [
                "12 -> 0001 0010 -> continuation 0, group 0010010 -> field 0010 = 2, wire type 010 = 2 (LEN): \
                 2 << 3 | 2 = 18 = 0x12"
            ]
        );
        assert_eq!(
            tag(&[0x0d]),
            [
                "0d -> 0000 1101 -> continuation 0, group 0001101 -> field 0001 = 1, wire type 101 = 5 (I32): \
                 1 << 3 | 5 = 13 = 0x0d"
            ]
        );
        let lines = tag(&[0x8a, 0x01]);
        assert!(lines[0].ends_with("= 138 = 0x8a"), "{lines:?}");
        assert_eq!(
            lines[1],
            "138 = 10001 010 -> field 10001 = 17, wire type 010 = 2 (LEN): 17 << 3 | 2 = 138 = 0x8a"
        );
        assert_eq!(wire_name(3), "SGROUP");
        assert_eq!(wire_name(4), "EGROUP");
        assert_eq!(wire_name(1), "I64");
    }

    #[test]
    fn signed_readings() {
        // -123 as int64: ten bytes, top bit set.
        let raw = (-123i64) as u64;
        let line = int64(raw).unwrap();
        assert!(line.contains("0xffffffffffffff85 - 2^64 = -123"), "{line}");
        let line = int32(raw).unwrap();
        assert!(line.contains("sign-extended to 64 bits"), "{line}");
        assert!(
            line.contains("0xffffff85 in two's complement = -123"),
            "{line}"
        );
        // 08 85 80 80 80 10: a 33-bit varint is no sign extension; parsers drop bit 32.
        let line = int32(0x1_0000_0005).unwrap();
        assert!(
            !line.contains("sign-extended to 64 bits on the wire"),
            "{line}"
        );
        assert!(line.contains("no encoder writes"), "{line}");
        assert!(
            line.ends_with("keep the low 32 bits 0x00000005 = 5"),
            "{line}"
        );
        assert!(int32(5).is_none() && int64(5).is_none());
        assert_eq!(
            zigzag(3, false),
            "zigzag: (n >> 1) ^ -(n & 1) = (3 >> 1) ^ -(3 & 1) = 1 ^ -1 = -2"
        );
        assert_eq!(
            zigzag(4, true),
            "zigzag: (n >> 1) ^ -(n & 1) = (4 >> 1) ^ -(4 & 1) = 2 ^ 0 = 2"
        );
        assert!(bool_reading(2).contains("2 is not 0 or 1"));
        // 28 83 80 80 80 10: sint32 keeps the low 32 bits before the zigzag.
        assert_eq!(
            zigzag(4_294_967_299, true),
            "sint32 keeps the low 32 bits: 4294967299 = 0x100000003 -> 0x00000003 = 3 (no encoder writes more); \
             zigzag: (n >> 1) ^ -(n & 1) = (3 >> 1) ^ -(3 & 1) = 1 ^ -1 = -2"
        );
    }

    #[test]
    fn little_endian_reverses_the_bytes() {
        let (value, line) = little_endian(&[0x33, 0x33, 0xcb, 0x41]);
        assert_eq!(value, 0x41cb_3333);
        assert_eq!(
            line,
            "33 33 cb 41 -> little-endian, reversed: 41 cb 33 33 -> 0x41cb3333 = 1103835955"
        );
    }

    #[test]
    fn floats_split_into_sign_exponent_and_mantissa() {
        let line = float(0x41cb_3333);
        assert_eq!(
            line,
            "0x41cb3333 = 0 10000011 10010110011001100110011 -> sign 0 (+), exponent 10000011 = 131, \
             131 - 127 = 4, mantissa 1.10010110011001100110011 ≈ 1.5875 -> +1.5875 × 2^4 ≈ 25.4 \
             (exactly 25.3999996185302734375)"
        );
        assert!(float(0x7f80_0000).ends_with("mantissa 0: +inf"));
        assert!(float(0x8000_0000).ends_with("mantissa 0: -0"));
        assert!(float(0x7fc0_0000).ends_with("NaN (quiet)"));
        assert!(float(1).contains("subnormal"), "{}", float(1));
        // Exact values take `=`: 1.5 × 2^1 is 3 exactly.
        let three = float(3.0f32.to_bits());
        assert!(three.ends_with("= 1.5 -> +1.5 × 2^1 = 3.0"), "{three}");
        // A subnormal double's mantissa is hex, so it is written as hex over 2^52, never as a
        // binary fraction.
        let tiny = double(1);
        assert!(
            tiny.ends_with("subnormal, 0x0000000000001 / 2^52 × 2^-1022 = +1 × 2^-1074 ≈ 5e-324"),
            "{tiny}"
        );
        assert!(!tiny.contains("(binary)"), "{tiny}");
        let tiny = float(1);
        assert!(
            tiny.contains("0.00000000000000000000001 (binary) × 2^-126 = +1 × 2^-149 ≈ 1.4013e-45"),
            "{tiny}"
        );
        let nan = double(f64::NAN.to_bits());
        assert!(nan.starts_with("0x7ff8000000000000"), "{nan}");
        assert!(nan.ends_with("NaN (quiet)"), "{nan}");
        let line = double((-2.5f64).to_bits());
        assert!(line.ends_with("= 1.25 -> -1.25 × 2^1 = -2.5"), "{line}");
        let line = double(0.1f64.to_bits());
        assert!(
            line.ends_with("≈ 1.6 -> +1.6 × 2^-4 ≈ 0.1"),
            "the exact value of 0.1 is 55 digits long, too long to print: {line}"
        );
    }

    #[test]
    fn plain_decimals() {
        assert_eq!(plain_decimal("3.0").as_deref(), Some("3"));
        assert_eq!(plain_decimal("5e-3").as_deref(), Some("0.005"));
        assert_eq!(plain_decimal("-1.5e2").as_deref(), Some("-150"));
        assert_eq!(plain_decimal("25.4").as_deref(), Some("25.4"));
        assert_eq!(plain_decimal("nan"), None);
        assert_eq!(
            exact_decimal(25.4f32.into()).as_deref(),
            Some("25.3999996185302734375")
        );
        assert_eq!(exact_decimal(-0.5).as_deref(), Some("-0.5"));
    }

    #[test]
    fn shortest_varints() {
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(u64::MAX), 10);
        assert_eq!(varint_bytes(856), [0xd8, 0x06]);
        assert_eq!(varint_value(&[0x81, 0x80, 0x80, 0x00]), (1, true));
    }
}
