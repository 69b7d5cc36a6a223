//! Number and string formatting exactly as Python's protobuf and `json` modules print them.
//!
//! The text and JSON outputs are compared byte for byte with what `text_format.MessageToString`
//! and `json_format.MessageToJson` print, so floats, escapes and exponents follow CPython's rules
//! rather than Rust's.

use std::fmt::Write as _;

/// CPython's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 or from 1e16.
pub fn repr_f64(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    // Rust's `{:e}` gives the same shortest round-trip digits, as "d.ddde-5".
    let sci = format!("{x:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa
        .strip_prefix('-')
        .map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if !(-4..16).contains(&exponent) {
        let mut out = format!("{sign}{}", &digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{exp_sign}{:02}", exponent.unsigned_abs());
        return out;
    }
    let point = exponent + 1; // digits before the decimal point
    let mut out = String::from(sign);
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        out.push_str(&digits);
    } else {
        let point = point as usize;
        if digits.len() <= point {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
}

/// protobuf's `ToShortestFloat`: the double with the fewest significant digits (at least 6) that
/// still rounds to the same 32-bit float.
pub fn shortest_f32(value: f32) -> f64 {
    if !value.is_finite() {
        return f64::from(value);
    }
    for precision in 6..=17usize {
        let rounded: f64 = format!("{:.*e}", precision - 1, f64::from(value))
            .parse()
            .unwrap_or(f64::from(value));
        if rounded as f32 == value || (rounded as f32).to_bits() == value.to_bits() {
            return rounded;
        }
    }
    f64::from(value)
}

/// A float field as `text_format` prints it.
pub fn text_f32(value: f32) -> String {
    repr_f64(shortest_f32(value))
}

const PRINTABLE: std::ops::RangeInclusive<u8> = 0x20..=0x7e;

fn escape_symbol(byte: u8) -> Option<&'static str> {
    Some(match byte {
        b'\t' => "\\t",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'"' => "\\\"",
        b'\'' => "\\'",
        b'\\' => "\\\\",
        _ => return None,
    })
}

/// `text_encoding.CEscape(bytes, as_utf8=False)`: octal escapes for bytes outside printable ASCII.
pub fn c_escape_bytes(bytes: &[u8], out: &mut String) {
    // Sized exactly first: a value can be tens of megabytes, and growing by doubling would
    // briefly hold twice that.
    let escaped: usize = bytes
        .iter()
        .map(|&b| match (escape_symbol(b), PRINTABLE.contains(&b)) {
            (Some(symbol), _) => symbol.len(),
            (None, true) => 1,
            (None, false) => 4,
        })
        .sum();
    out.reserve(escaped);
    for &byte in bytes {
        if let Some(symbol) = escape_symbol(byte) {
            out.push_str(symbol);
        } else if PRINTABLE.contains(&byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "\\{byte:03o}");
        }
    }
}

/// How `text_format` prints a `string` field (as_utf8): UTF-8 kept, only the six symbols escaped.
/// Bytes that are not UTF-8 (only possible in proto2) fall back to octal escapes.
pub fn c_escape_utf8(bytes: &[u8], out: &mut String) {
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            for ch in text.chars() {
                match u8::try_from(ch).ok().and_then(escape_symbol) {
                    Some(symbol) => out.push_str(symbol),
                    None => out.push(ch),
                }
            }
        }
        Err(_) => c_escape_bytes(bytes, out),
    }
}

/// A JSON string literal as Python's `json.dumps(ensure_ascii=True)` writes it.
pub fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(ch),
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_matches_cpython() {
        let cases = [
            (0.1, "0.1"),
            (100.0, "100.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (-0.0, "-0.0"),
            (3.4028235e38, "3.4028235e+38"),
            (1.5e-7, "1.5e-07"),
            (123456.789, "123456.789"),
            (-0.35578233, "-0.35578233"),
            (1e100, "1e+100"),
        ];
        for (value, expected) in cases {
            assert_eq!(repr_f64(value), expected, "{value:e}");
        }
    }

    #[test]
    fn float32_values_print_like_protobuf() {
        assert_eq!(text_f32(0.1), "0.1");
        assert_eq!(text_f32(30.0), "30.0");
        assert_eq!(text_f32(f32::MAX), "3.4028235e+38");
        assert_eq!(text_f32(1e-5), "1e-05");
        assert_eq!(text_f32(f32::NAN), "nan");
        assert_eq!(text_f32(f32::NEG_INFINITY), "-inf");
        assert_eq!(text_f32(-0.35578233), "-0.35578233");
        assert_eq!(text_f32(1.0 / 3.0), "0.33333334");
    }

    #[test]
    fn escapes_follow_cescape() {
        let mut out = String::new();
        c_escape_bytes("naïve\n\"\t\x00".as_bytes(), &mut out);
        assert_eq!(out, "na\\303\\257ve\\n\\\"\\t\\000");
        let mut out = String::new();
        c_escape_utf8("naïve'\x01".as_bytes(), &mut out);
        assert_eq!(out, "naïve\\'\x01");
    }

    #[test]
    fn json_strings_are_ascii() {
        let mut out = String::new();
        json_string("é☕😀\u{7f}/\"", &mut out);
        assert_eq!(out, "\"\\u00e9\\u2615\\ud83d\\ude00\\u007f/\\\"\"");
    }
}
