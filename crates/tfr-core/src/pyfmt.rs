//! Number and string formatting exactly as Python's protobuf and `json` modules print them.
//!
//! The text and JSON outputs are compared byte for byte with what `text_format.MessageToString`
//! and `json_format.MessageToJson` print, so floats, escapes and exponents follow CPython's rules
//! rather than Rust's.

use std::borrow::Cow;
use std::fmt::Write as _;

/// A float's digits as `{:e}` writes them, on the stack: floats are formatted millions of times.
struct SciBuf {
    buf: [u8; 40],
    len: usize,
}

impl SciBuf {
    fn empty() -> SciBuf {
        SciBuf {
            buf: [0; 40],
            len: 0,
        }
    }

    fn of(x: impl std::fmt::LowerExp) -> SciBuf {
        let mut out = SciBuf::empty();
        let _ = write!(out, "{x:e}");
        out
    }

    fn as_str(&self) -> &str {
        self.buf
            .get(..self.len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or_default()
    }
}

impl std::fmt::Write for SciBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// A finite number in decimal: significant digits (no leading or trailing zeros; none for zero)
/// and the power of ten of the first one.
struct Decimal {
    negative: bool,
    digits: [u8; 24],
    len: usize,
    exponent: i32,
}

impl Decimal {
    /// Reads a finite number as Rust's `{:e}` (`-1.25e-7`) or Żmij (`0.00125`, `1.5e+30`) print it.
    fn parse(text: &str) -> Decimal {
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, power) = match text.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
            None => (text, 0),
        };
        let mut decimal = Decimal {
            negative,
            digits: [0; 24],
            len: 0,
            exponent: 0,
        };
        // Digits before the point, counted from the first significant one.
        let mut before_point: i32 = 0;
        let mut seen_point = false;
        for byte in mantissa.bytes() {
            match byte {
                b'.' => seen_point = true,
                b'0'..=b'9' => {
                    if decimal.len == 0 && byte == b'0' {
                        // A leading zero only moves the point.
                        if seen_point {
                            before_point -= 1;
                        }
                        continue;
                    }
                    if !seen_point {
                        before_point += 1;
                    }
                    if let Some(slot) = decimal.digits.get_mut(decimal.len) {
                        *slot = byte;
                        decimal.len += 1;
                    }
                }
                _ => {}
            }
        }
        while decimal.len > 0 && decimal.digits.get(decimal.len - 1) == Some(&b'0') {
            decimal.len -= 1;
        }
        decimal.exponent = before_point - 1 + power;
        decimal
    }

    fn digits(&self) -> &str {
        self.digits
            .get(..self.len)
            .and_then(|d| std::str::from_utf8(d).ok())
            .unwrap_or_default()
    }

    /// Appends the number as CPython's `repr(float)` lays it out: positional from 1e-4 up to
    /// 1e16, else `d.ddde-05`.
    fn write_repr(&self, out: &mut String) {
        if self.negative {
            out.push('-');
        }
        let digits = self.digits();
        if digits.is_empty() {
            out.push_str("0.0");
            return;
        }
        let exponent = self.exponent;
        if !(-4..16).contains(&exponent) {
            let (first, rest) = digits.split_at(1);
            out.push_str(first);
            if !rest.is_empty() {
                out.push('.');
                out.push_str(rest);
            }
            out.push_str(if exponent < 0 { "e-" } else { "e+" });
            let e = exponent.unsigned_abs();
            if e < 10 {
                out.push('0');
            }
            out.push_str(itoa::Buffer::new().format(e));
            return;
        }
        let point = exponent + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
            out.push_str(digits);
            return;
        }
        let point = point as usize;
        if digits.len() <= point {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
            out.push_str(".0");
        } else {
            let (before, after) = digits.split_at(point);
            out.push_str(before);
            out.push('.');
            out.push_str(after);
        }
    }
}

/// CPython's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 or from 1e16.
pub fn repr_f64(x: f64) -> String {
    let mut out = String::new();
    write_repr_f64(x, &mut out);
    out
}

/// Appends [`repr_f64`] of `x` to `out`, without allocating.
pub fn write_repr_f64(x: f64, out: &mut String) {
    if x.is_nan() {
        out.push_str("nan");
    } else if x.is_infinite() {
        out.push_str(if x < 0.0 { "-inf" } else { "inf" });
    } else {
        // Rust's `{:e}` gives the same shortest round-trip digits, as "d.ddde-5".
        Decimal::parse(SciBuf::of(x).as_str()).write_repr(out);
    }
}

/// protobuf's `ToShortestFloat`: the double with the fewest significant digits (at least 6) that
/// still rounds to the same 32-bit float.
pub fn shortest_f32(value: f32) -> f64 {
    match shortest_f32_quick(value) {
        Some(decimal) => {
            let mut text = String::new();
            decimal.write_repr(&mut text);
            text.parse().unwrap_or(f64::from(value))
        }
        None => shortest_f32_exact(value),
    }
}

/// The digits of [`shortest_f32`], found with one shortest formatting of the float (Żmij's):
/// `None` for the floats where that could differ from Python's answer (then
/// [`shortest_f32_exact`] decides).
///
/// Python rounds the float to 6, 7, 8… significant digits (half to even) and stops at the first
/// that reads back, through a double, as the same float. The shortest digits that read back as
/// the float are that answer when
/// - the floats that read back are centred on it: every float but a power of two, whose lower
///   neighbour is nearer than its upper one, so that the nearest k-digit decimal reads back
///   whenever any does (a power of two whose exact value has at most six significant digits
///   is taken as well: it is the only decimal that short that reads back);
/// - no two k-digit decimals are equally near (Python takes the even one): a tie needs an exact
///   value of at most k + 1 <= 10 significant digits, so floats whose exact decimal value has
///   fewer than 11 (`30.0`, `0.75`, `25075.8125`) are left to the loop, where they take one or two
///   rounds;
/// - fewer than 6 shortest digits are the 6-digit rounding without trailing zeros: 6-digit
///   decimals lie more than an `f32` step apart, so only one reads back (not so for subnormal
///   floats, whose steps are wide: they are left to the loop, as are zeros and infinities);
/// - reading back through a double (Python's way) agrees with reading back directly, which could
///   fail only for a decimal within a double's rounding of a midpoint between two floats. The
///   tests compare this with [`shortest_f32_exact`] over samples of every binade; an ignored test
///   compares every float (it takes CPU-hours, and has not been run to the end).
fn shortest_f32_quick(value: f32) -> Option<Decimal> {
    quick_f32(value).then(|| Decimal::parse(zmij::Buffer::new().format_finite(value)))
}

/// Whether `value` is one of the floats [`shortest_f32_quick`] answers for.
#[inline]
fn quick_f32(value: f32) -> bool {
    let bits = value.to_bits() & 0x7fff_ffff;
    let exponent = (bits >> 23) as i32;
    let fraction = bits & 0x7f_ffff;
    if fraction == 0 {
        // A power of two from 2^-8 to 2^19 is exact in at most six significant digits
        // (0.00390625, 1.0, 524288.0): Python's first rounding keeps it, and no other decimal
        // that short reads back, so its lopsided neighbours do not matter. (2^-9 and 2^20 take
        // seven.)
        return (119..=146).contains(&exponent);
    }
    if exponent == 0 || exponent == 0xff {
        return false;
    }
    // The value is odd * 2^power exactly; written in decimal it has as many significant digits
    // as odd * 5^-power (for a negative power) or odd * 2^power without its trailing zeros.
    let mantissa = fraction | 0x80_0000;
    let odd = mantissa >> mantissa.trailing_zeros();
    let power = exponent - 150 + mantissa.trailing_zeros() as i32;
    const TEN_DIGITS: u128 = 10_000_000_000;
    if power < 0 {
        // 5^15 alone has 11 digits.
        power < -14 || u128::from(odd) * 5u128.pow(power.unsigned_abs()) >= TEN_DIGITS
    } else {
        let mut exact = u128::from(odd) << power.unsigned_abs().min(104);
        while exact % 10 == 0 {
            exact /= 10;
        }
        exact >= TEN_DIGITS
    }
}

/// Python's own loop for [`shortest_f32`]: round to 6, 7, … significant digits until the double
/// reads back as the same float.
fn shortest_f32_exact(value: f32) -> f64 {
    if !value.is_finite() {
        return f64::from(value);
    }
    for precision in 6..=17usize {
        let mut digits = SciBuf::empty();
        let _ = write!(digits, "{:.*e}", precision - 1, f64::from(value));
        let rounded: f64 = digits.as_str().parse().unwrap_or(f64::from(value));
        if rounded as f32 == value || (rounded as f32).to_bits() == value.to_bits() {
            return rounded;
        }
    }
    f64::from(value)
}

/// A float field as `text_format` prints it.
pub fn text_f32(value: f32) -> String {
    let mut out = String::new();
    write_text_f32(value, &mut out);
    out
}

/// Appends [`text_f32`] of `value` to `out`: the float formatted once, nothing allocated.
///
/// The usual float's path (formatted once, laid out as Żmij lays it out) is inlined into the loops
/// over a list's floats, which took about 1.5% less of `show --format json`'s time than a call
/// per float; the rest is not inlined.
#[inline(always)]
pub fn write_text_f32(value: f32, out: &mut String) {
    // Żmij lays out numbers from 1e-4 up to 1e13 as `repr` does (`12.5`, `0.00125`, `30.0`).
    // Well inside that range (the shortest digits lie within half a step of the float) the text
    // is taken without looking for an exponent in it.
    if (1.0001e-4..9.9e12).contains(&value.abs()) && quick_f32(value) {
        // A decimal of at most 9 digits reads back from a double as itself, so `repr` of the
        // double Python holds prints these digits.
        return out.push_str(zmij::Buffer::new().format_finite(value));
    }
    write_other_f32(value, out);
}

/// [`write_text_f32`] of the floats it does not inline.
#[inline(never)]
fn write_other_f32(value: f32, out: &mut String) {
    // Zeros are common (padding, masks, sparse vectors) and Python prints them plainly.
    if value == 0.0 {
        return out.push_str(if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        });
    }
    if !quick_f32(value) {
        return write_repr_f64(shortest_f32_exact(value), out);
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(value);
    // Near the ends of Żmij's positional range, and outside it, the digits are laid out again.
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    if unsigned.contains('e') || unsigned.starts_with("0.0000") {
        Decimal::parse(text).write_repr(out);
    } else {
        out.push_str(text);
    }
}

const PRINTABLE: std::ops::RangeInclusive<u8> = 0x20..=0x7e;

const fn escape_symbol(byte: u8) -> Option<&'static str> {
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

/// How long each byte is once escaped: a symbol, itself, or four characters of octal. Looked up,
/// not worked out: every byte of every string and bytes value `show` prints is measured.
const ESCAPED_LEN: [u8; 256] = {
    let mut table = [4; 256];
    let mut byte = 0;
    while byte < table.len() {
        table[byte] = match escape_symbol(byte as u8) {
            Some(symbol) => symbol.len() as u8,
            None if byte >= *PRINTABLE.start() as usize && byte <= *PRINTABLE.end() as usize => 1,
            None => 4,
        };
        byte += 1;
    }
    table
};

fn escaped_len(byte: u8) -> usize {
    usize::from(ESCAPED_LEN[usize::from(byte)])
}

/// One byte as `CEscape` writes it: a symbol, printable ASCII as itself, anything else in octal.
fn push_escaped_byte(byte: u8, out: &mut String) {
    if let Some(symbol) = escape_symbol(byte) {
        out.push_str(symbol);
    } else if PRINTABLE.contains(&byte) {
        out.push(char::from(byte));
    } else {
        push_octal(byte, out);
    }
}

/// `\ooo`, written digit by digit: binary values are escaped a byte at a time, and the formatting
/// machinery cost several times the rest.
fn push_octal(byte: u8, out: &mut String) {
    out.push('\\');
    for shift in [6, 3, 0] {
        out.push(char::from(b'0' + ((byte >> shift) & 7)));
    }
}

/// Whether `CEscape` keeps `byte` as it is.
fn is_plain(byte: u8) -> bool {
    escaped_len(byte) == 1
}

/// Appends `bytes` escaped byte by byte, runs of bytes kept as they are copied whole.
fn push_escaped_runs(bytes: &[u8], out: &mut String) {
    let mut rest = bytes;
    while !rest.is_empty() {
        let run = rest
            .iter()
            .position(|b| !is_plain(*b))
            .unwrap_or(rest.len());
        let (plain, after) = rest.split_at(run);
        // Printable ASCII, so always UTF-8.
        out.push_str(std::str::from_utf8(plain).unwrap_or_default());
        let Some((&byte, after)) = after.split_first() else {
            break;
        };
        push_escaped_byte(byte, out);
        rest = after;
    }
}

/// `text_encoding.CEscape(bytes, as_utf8=False)`, as `text_format` prints a `bytes` field: octal
/// escapes for every byte outside printable ASCII (`\000`, `\033`, `\177`, `\303\251`).
pub fn c_escape_bytes(bytes: &[u8], out: &mut String) {
    // Names and labels are nearly always plain: one scan finds that, and they are copied whole.
    let plain = bytes
        .iter()
        .position(|&b| !is_plain(b))
        .unwrap_or(bytes.len());
    let (head, rest) = bytes.split_at(plain);
    // Sized exactly first: a value can be tens of megabytes, and growing by doubling would
    // briefly hold twice that.
    out.reserve(head.len() + rest.iter().map(|&b| escaped_len(b)).sum::<usize>());
    // Printable ASCII, so always UTF-8.
    out.push_str(std::str::from_utf8(head).unwrap_or_default());
    push_escaped_runs(rest, out);
}

/// `text_encoding.CEscape(text, as_utf8=True)`, as `text_format` prints a `string` field.
///
/// ASCII is escaped as in [`c_escape_bytes`], so control characters and DEL become octal
/// (`\000`, `\033`, `\177`); every other character is kept as UTF-8, including the C1 controls,
/// bidirectional controls and line separators that Python leaves raw (see
/// [`text_format_for_terminal`] for showing those on a terminal). Bytes that are not UTF-8 (only
/// possible in proto2) become octal one by one while the valid runs around them stay UTF-8, as
/// Python's `_DecodeUtf8EscapeErrors` does: `b"\xe2\x82\xe2\x82\xac"` prints as `\342\202€`.
pub fn c_escape_utf8(bytes: &[u8], out: &mut String) {
    // ASCII (most names and keys) is escaped as `bytes` are, without splitting it into chunks
    // of UTF-8 twice.
    if bytes.is_ascii() {
        return c_escape_bytes(bytes, out);
    }
    let escaped: usize = bytes
        .utf8_chunks()
        .map(|chunk| {
            let valid = chunk.valid().bytes();
            let kept: usize = valid
                .map(|b| if b.is_ascii() { escaped_len(b) } else { 1 })
                .sum();
            kept + 4 * chunk.invalid().len()
        })
        .sum();
    out.reserve(escaped);
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            match u8::try_from(ch) {
                Ok(byte) if byte.is_ascii() => push_escaped_byte(byte, out),
                _ => out.push(ch),
            }
        }
        for &byte in chunk.invalid() {
            push_octal(byte, out);
        }
    }
}

/// Text-format output made safe to show on a terminal, still valid text format.
///
/// Python's `text_format` keeps a `string` field's non-ASCII characters as UTF-8, and so does
/// [`c_escape_utf8`], so piped output stays byte-identical to Python's. On a terminal, though, the
/// C1 controls (U+0080..U+009F, e.g. U+009B, a one-character CSI), the bidirectional controls
/// (U+202E and its kin) and the line and paragraph separators (U+2028, U+2029) would act instead
/// of showing. This replaces each such character (any character [`crate::escape::is_unsafe`]
/// names, except the newlines that end lines) with the octal escapes of its UTF-8 bytes, so
/// U+009B becomes `\302\233`: text-format parsers read that back as the same string value.
///
/// Call it on the output of `message_to_text` when standard output is a terminal. In text
/// format such characters occur only inside quoted strings, where octal escapes are valid.
/// Borrows when nothing needs replacing.
pub fn text_format_for_terminal(text: &str) -> Cow<'_, str> {
    let replaced = |c: char| c != '\n' && crate::escape::is_unsafe(c);
    if !text.chars().any(replaced) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().saturating_add(64));
    for c in text.chars() {
        if replaced(c) {
            let mut utf8 = [0u8; 4];
            for byte in c.encode_utf8(&mut utf8).bytes() {
                let _ = write!(out, "\\{byte:03o}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A JSON string literal as Python's `json.dumps(ensure_ascii=True)` writes it.
pub fn json_string(text: &str, out: &mut String) {
    out.push('"');
    let mut rest = text;
    loop {
        // Printable ASCII other than the quote and the backslash is copied as it is, a run at a
        // time (everything before such a byte is ASCII, so the cut falls between characters).
        let plain = rest
            .bytes()
            .position(|b| !is_json_plain(b))
            .unwrap_or(rest.len());
        out.push_str(&rest[..plain]);
        rest = &rest[plain..];
        let Some(ch) = rest.chars().next() else {
            break;
        };
        rest = &rest[ch.len_utf8()..];
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

/// Whether JSON writes `byte` as it is (printable ASCII but the quote and the backslash).
fn is_json_plain(byte: u8) -> bool {
    (b' '..=b'~').contains(&byte) && byte != b'"' && byte != b'\\'
}

/// [`json_string`] of `bytes` read as UTF-8, each invalid sequence standing for U+FFFD (as
/// `String::from_utf8_lossy` reads them). Short plain names (map keys, labels) are copied a
/// character at a time: for those, validating the bytes as UTF-8 cost more than the copy.
pub fn json_bytes(bytes: &[u8], out: &mut String) {
    const SHORT: usize = 24;
    if bytes.len() <= SHORT && bytes.iter().all(|&b| is_json_plain(b)) {
        out.reserve(bytes.len() + 2);
        out.push('"');
        for &byte in bytes {
            out.push(char::from(byte));
        }
        out.push('"');
        return;
    }
    json_string(&String::from_utf8_lossy(bytes), out);
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

    /// Values spread over every binade, subnormals and the neighbours of powers of ten: the
    /// quick path gives what Python's loop gives.
    #[test]
    fn the_quick_shortest_float_agrees_with_pythons_loop() {
        let mut bits = Vec::new();
        for exponent in 0..=254u32 {
            for step in 0..64u32 {
                bits.push((exponent << 23) | step.wrapping_mul(0x0002_1f3d) & 0x7f_ffff);
            }
        }
        for power in -45..=38 {
            let near = 10f64.powi(power) as f32;
            for delta in -4i64..=4 {
                bits.push((i64::from(near.to_bits()) + delta) as u32);
            }
        }
        bits.extend(0..4096u32);
        for b in bits {
            for value in [f32::from_bits(b), -f32::from_bits(b)] {
                if !value.is_finite() {
                    continue;
                }
                let exact = shortest_f32_exact(value);
                assert_eq!(shortest_f32(value).to_bits(), exact.to_bits(), "{value:e}");
                assert_eq!(text_f32(value), repr_f64(exact), "{value:e}");
                if let Some(decimal) = shortest_f32_quick(value) {
                    let mut laid_out = String::new();
                    decimal.write_repr(&mut laid_out);
                    assert_eq!(text_f32(value), laid_out, "{value:e}");
                }
            }
        }
    }

    /// Every finite positive float (negatives print the same digits with a sign): run with
    /// `cargo test --release -p tfr-core every_float -- --ignored` (minutes on all cores).
    #[test]
    #[ignore]
    fn every_float_prints_as_pythons_loop_prints_it() {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        let end = f32::INFINITY.to_bits();
        std::thread::scope(|scope| {
            for t in 0..threads {
                scope.spawn(move || {
                    let mut b = t;
                    while b < end {
                        let value = f32::from_bits(b);
                        let quick = shortest_f32_quick(value).map(|d| {
                            let mut out = String::new();
                            d.write_repr(&mut out);
                            out
                        });
                        if let Some(quick) = quick {
                            assert_eq!(quick, repr_f64(shortest_f32_exact(value)), "{b:#x}");
                        }
                        b += threads;
                    }
                });
            }
        });
    }

    #[test]
    fn escapes_follow_cescape() {
        let mut out = String::new();
        c_escape_bytes("naïve\n\"\t\x00".as_bytes(), &mut out);
        assert_eq!(out, "na\\303\\257ve\\n\\\"\\t\\000");
        // Wholly plain, and plain up to an escape at the very end.
        assert_eq!(escaped(c_escape_bytes, b"item-01 ~"), "item-01 ~");
        assert_eq!(escaped(c_escape_bytes, b"cat\\"), "cat\\\\");
        let mut out = String::new();
        c_escape_utf8("naïve'\x01".as_bytes(), &mut out);
        assert_eq!(out, "naïve\\'\\001");
    }

    fn escaped(escape: fn(&[u8], &mut String), bytes: &[u8]) -> String {
        let mut out = String::new();
        escape(bytes, &mut out);
        out
    }

    // What Python protobuf 7.36.2 (`text_format.MessageToString`) prints for the bytes 0..=127,
    // in a `bytes` field and in a `string` field alike.
    const PYTHON_ASCII: &str = r##"\000\001\002\003\004\005\006\007\010\t\n\013\014\r\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037 !\"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\177"##;

    #[test]
    fn all_byte_values_in_a_bytes_field_match_python() {
        let all: Vec<u8> = (0..=255).collect();
        let high = r"\200\201\202\203\204\205\206\207\210\211\212\213\214\215\216\217\220\221\222\223\224\225\226\227\230\231\232\233\234\235\236\237\240\241\242\243\244\245\246\247\250\251\252\253\254\255\256\257\260\261\262\263\264\265\266\267\270\271\272\273\274\275\276\277\300\301\302\303\304\305\306\307\310\311\312\313\314\315\316\317\320\321\322\323\324\325\326\327\330\331\332\333\334\335\336\337\340\341\342\343\344\345\346\347\350\351\352\353\354\355\356\357\360\361\362\363\364\365\366\367\370\371\372\373\374\375\376\377";
        assert_eq!(
            escaped(c_escape_bytes, &all),
            format!("{PYTHON_ASCII}{high}")
        );
        // A proto2 `string` field holding the same bytes: 0x80..=0xff alone are not UTF-8.
        assert_eq!(
            escaped(c_escape_utf8, &all),
            format!("{PYTHON_ASCII}{high}")
        );
    }

    #[test]
    fn string_fields_escape_ascii_controls_and_keep_other_characters_like_python() {
        let ascii: Vec<u8> = (0..=127).collect();
        assert_eq!(escaped(c_escape_utf8, &ascii), PYTHON_ASCII);
        // U+0080..=U+00FF, the C1 controls among them, stay raw in a string field.
        let latin1: String = (0x80u8..=0xff).map(char::from).collect();
        assert_eq!(escaped(c_escape_utf8, latin1.as_bytes()), latin1);
        let cases = [
            ("\u{9b}", "\u{9b}", r"\302\233"),
            ("\u{85}", "\u{85}", r"\302\205"),
            ("\u{061c}", "\u{061c}", r"\330\234"),
            ("\u{200e}", "\u{200e}", r"\342\200\216"),
            ("\u{202e}", "\u{202e}", r"\342\200\256"),
            ("\u{2028}", "\u{2028}", r"\342\200\250"),
            ("\u{2029}", "\u{2029}", r"\342\200\251"),
            ("\u{2066}", "\u{2066}", r"\342\201\246"),
            ("\u{feff}", "\u{feff}", r"\357\273\277"),
            ("😀", "😀", r"\360\237\230\200"),
            ("\u{1b}]2;x\u{7}", r"\033]2;x\007", r"\033]2;x\007"),
        ];
        for (text, as_string, as_bytes) in cases {
            assert_eq!(
                escaped(c_escape_utf8, text.as_bytes()),
                as_string,
                "{text:?}"
            );
            assert_eq!(
                escaped(c_escape_bytes, text.as_bytes()),
                as_bytes,
                "{text:?}"
            );
        }
    }

    #[test]
    fn invalid_utf8_in_a_proto2_string_keeps_the_valid_runs_like_python() {
        let cases: [(&[u8], &str); 8] = [
            (b"ok\xff\x1b", r"ok\377\033"),
            (b"\xe2\x82\xe2\x82\xac", r"\342\202€"),
            (b"\xed\xa0\x80", r"\355\240\200"), // a surrogate
            (b"\xc0\x80", r"\300\200"),         // overlong
            (b"\xf4\x90\x80\x80", r"\364\220\200\200"), // past U+10FFFF
            (b"\xf0\x9f\x98", r"\360\237\230"), // cut short
            (b"a\xf0\x9f\x98\x80\xc3", r"a😀\303"),
            (b"a\"\\'\n\xffz", r#"a\"\\\'\n\377z"#),
        ];
        for (bytes, python) in cases {
            assert_eq!(escaped(c_escape_utf8, bytes), python, "{bytes:?}");
        }
    }

    /// Reads back the escapes text format output uses, as a text-format parser does.
    fn unescape(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = text.as_bytes();
        while let Some((&first, tail)) = rest.split_first() {
            rest = tail;
            if first != b'\\' {
                out.push(first);
                continue;
            }
            match rest {
                [a @ b'0'..=b'7', b @ b'0'..=b'7', c @ b'0'..=b'7', tail @ ..] => {
                    out.push((a - b'0') * 64 + (b - b'0') * 8 + (c - b'0'));
                    rest = tail;
                }
                [b'n', tail @ ..] => (out.push(b'\n'), rest = tail).1,
                [symbol, tail @ ..] => (out.push(*symbol), rest = tail).1,
                [] => {}
            }
        }
        out
    }

    #[test]
    fn terminal_text_format_escapes_what_python_leaves_raw() {
        let text = "key: \"a\u{9b}31m\u{202e}b\u{2028}c\u{85}é☕\"\nvalue: \"\\033\"\n";
        let shown = text_format_for_terminal(text);
        assert_eq!(
            shown,
            "key: \"a\\302\\23331m\\342\\200\\256b\\342\\200\\250c\\302\\205é☕\"\nvalue: \"\\033\"\n"
        );
        assert!(
            !shown
                .chars()
                .any(|c| c != '\n' && crate::escape::is_unsafe(c))
        );
        // Still text format: the escapes read back as the bytes of the original value.
        let quoted = |s: &str| s.split('"').nth(1).map(str::to_string).unwrap_or_default();
        assert_eq!(unescape(&quoted(&shown)), quoted(text).into_bytes());
    }

    #[test]
    fn terminal_text_format_borrows_plain_output() {
        let text = "features {\n  feature {\n    key: \"名前 é\\033\"\n  }\n}\n";
        assert!(matches!(text_format_for_terminal(text), Cow::Borrowed(_)));
    }

    #[test]
    fn json_strings_are_ascii() {
        let mut out = String::new();
        json_string("é☕😀\u{7f}/\"", &mut out);
        assert_eq!(out, "\"\\u00e9\\u2615\\ud83d\\ude00\\u007f/\\\"\"");
        // Runs of plain ASCII between characters that are escaped.
        out.clear();
        json_string("key \"a\"\\b\tc é end", &mut out);
        assert_eq!(out, "\"key \\\"a\\\"\\\\b\\tc \\u00e9 end\"");
    }

    #[test]
    fn json_bytes_are_the_json_string_of_their_lossy_text() {
        let long_plain = "x".repeat(40);
        let cases: [&[u8]; 9] = [
            b"",
            b"label",
            b"exactly twenty-four byte",
            long_plain.as_bytes(),
            b"a\"quote",
            b"back\\slash",
            b"tab\tand\x7f",
            "caf\u{e9}".as_bytes(),
            b"bad \xff\xfe utf-8",
        ];
        for bytes in cases {
            let (mut ours, mut expected) = (String::new(), String::new());
            json_bytes(bytes, &mut ours);
            json_string(&String::from_utf8_lossy(bytes), &mut expected);
            assert_eq!(ours, expected, "{bytes:?}");
        }
        let mut out = String::new();
        json_bytes(b"bad \xff", &mut out);
        assert_eq!(out, "\"bad \\ufffd\"");
    }
}
