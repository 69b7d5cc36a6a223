//! Protoscope's text in, the bytes it stands for out: `encode --protoscope '1: 150 2: {"hi"}'`.
//!
//! Protoscope (github.com/protocolbuffers/protoscope) writes wire bytes token by token, with no
//! schema, so it can write invalid encodings as easily as valid ones. This is the part of its
//! language a lesson needs:
//!
//! - `N:` a tag of field N; its wire type given (`1:VARINT`, `2:I64`, `3:LEN`, `4:SGROUP`,
//!   `5:EGROUP`, `6:I32`, or a number 0 to 7) or, after `N:` and a space, taken from the next
//!   token: I32 or I64 for a fixed-width number or float, LEN for `{`, SGROUP for `!{`, else
//!   VARINT. Any field number is written, 0 and those past 2^29-1 too, so malformed tags can be
//!   made.
//! - `150`, `-1`, `0xff`: a varint (a negative number as its 64-bit two's complement, ten bytes);
//!   `-2z` zigzag; `5i32`, `-23i64` fixed-width little-endian; `true`, `false`.
//! - `1.5`, `-2.5e3`: a double, little-endian; `1.5i32` a float; `inf64`, `-inf32`.
//! - `"text"` the bytes of a string (escapes `\\ \" \n \xHH \OOO`); `` `0aff` `` hex bytes.
//! - `{ … }` what is inside, after its length as a varint; `N: !{ … }` a group, its closing tag
//!   written at `}`.
//! - `#` starts a comment to the end of the line.
//!
//! Left out: `long-form:N`, hex floats. A mistake is named by line and column.

use super::encode_message::{MAX_TEXT_BYTES, MAX_TEXT_NESTING, TextError};
use super::number::varint_bytes;

/// What a `{` opened: a length-prefixed run (its bytes start at `start`), or a group of `field`.
enum Open {
    Len { start: usize },
    Group { field: u64 },
}

/// The bytes `text` stands for, or where it is wrong.
pub fn assemble(text: &str) -> Result<Vec<u8>, TextError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(TextError::at(
            text,
            MAX_TEXT_BYTES,
            &format!("the text holds more than {} MiB", MAX_TEXT_BYTES >> 20),
        ));
    }
    Assembler {
        text,
        at: 0,
        out: Vec::new(),
        open: Vec::new(),
        group_tag: None,
    }
    .run()
}

struct Assembler<'a> {
    text: &'a str,
    at: usize,
    out: Vec<u8>,
    open: Vec<(Open, usize)>,
    /// A tag written with its wire type left to the next token: its field and where it starts.
    group_tag: Option<(u64, usize)>,
}

/// A token's text ends at whitespace, a brace, a quote or a comment.
fn ends_token(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\r' | b'\n' | b'{' | b'}' | b'"' | b'`' | b'#'
    )
}

impl Assembler<'_> {
    fn error(&self, at: usize, message: &str) -> TextError {
        TextError::at(self.text, at, message)
    }

    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn run(mut self) -> Result<Vec<u8>, TextError> {
        loop {
            self.skip_space();
            let start = self.at;
            let Some(&c) = self.bytes().get(start) else {
                break;
            };
            match c {
                b'{' => self.open_len(start)?,
                b'!' if self.bytes().get(start + 1) == Some(&b'{') => self.open_group(start)?,
                b'}' => self.close(start)?,
                b'"' => self.string(start)?,
                b'`' => self.hex(start)?,
                _ => self.word(start)?,
            }
        }
        if let Some((_, at)) = self.open.last() {
            return Err(self.error(*at, "this { is never closed"));
        }
        if let Some((_, at)) = self.group_tag {
            return Err(self.error(at, "this tag has no value after it"));
        }
        Ok(self.out)
    }

    fn skip_space(&mut self) {
        while let Some(&c) = self.bytes().get(self.at) {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => self.at += 1,
                b'#' => {
                    while self.bytes().get(self.at).is_some_and(|&c| c != b'\n') {
                        self.at += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// The wire type a tag left open takes from the token at `at`, written now.
    fn settle_tag(&mut self, wire: u64) {
        if let Some((field, _)) = self.group_tag.take() {
            self.out.extend(varint_bytes(field << 3 | wire));
        }
    }

    fn push_open(&mut self, open: Open, at: usize) -> Result<(), TextError> {
        if self.open.len() >= MAX_TEXT_NESTING {
            return Err(self.error(
                at,
                &format!("nested more than {MAX_TEXT_NESTING} levels deep"),
            ));
        }
        self.open.push((open, at));
        Ok(())
    }

    fn open_len(&mut self, at: usize) -> Result<(), TextError> {
        self.settle_tag(2);
        self.push_open(
            Open::Len {
                start: self.out.len(),
            },
            at,
        )?;
        self.at = at + 1;
        Ok(())
    }

    fn open_group(&mut self, at: usize) -> Result<(), TextError> {
        let Some((field, _)) = self.group_tag else {
            return Err(self.error(
                at,
                "a group `!{` comes right after a tag with no wire type (`5: !{ … }`)",
            ));
        };
        self.settle_tag(3);
        self.push_open(Open::Group { field }, at)?;
        self.at = at + 2;
        Ok(())
    }

    fn close(&mut self, at: usize) -> Result<(), TextError> {
        if let Some((_, tag_at)) = self.group_tag {
            return Err(self.error(tag_at, "this tag has no value after it"));
        }
        match self.open.pop() {
            None => return Err(self.error(at, "this } closes nothing")),
            Some((Open::Len { start }, _)) => {
                let len = self.out.len().saturating_sub(start);
                let prefix = varint_bytes(len as u64);
                self.out.splice(start..start, prefix);
            }
            Some((Open::Group { field }, _)) => self.out.extend(varint_bytes(field << 3 | 4)),
        }
        self.at = at + 1;
        Ok(())
    }

    fn string(&mut self, at: usize) -> Result<(), TextError> {
        self.settle_tag(2);
        let bytes = self.text.as_bytes();
        let mut i = at + 1;
        let mut value = Vec::new();
        loop {
            let Some(&c) = bytes.get(i) else {
                return Err(self.error(at, "this string is never closed"));
            };
            i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let escape_at = i - 1;
                    let Some(&e) = bytes.get(i) else {
                        return Err(self.error(at, "this string is never closed"));
                    };
                    i += 1;
                    match e {
                        b'\\' | b'"' => value.push(e),
                        b'n' => value.push(b'\n'),
                        b'x' => {
                            let digits = bytes.get(i..i + 2).and_then(|d| {
                                u8::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok()
                            });
                            let Some(byte) = digits else {
                                return Err(self.error(escape_at, "\\x takes two hex digits"));
                            };
                            value.push(byte);
                            i += 2;
                        }
                        b'0'..=b'7' => {
                            let mut n = u32::from(e - b'0');
                            for _ in 0..2 {
                                match bytes.get(i) {
                                    Some(&d @ b'0'..=b'7') => {
                                        n = n * 8 + u32::from(d - b'0');
                                        i += 1;
                                    }
                                    _ => break,
                                }
                            }
                            let Ok(byte) = u8::try_from(n) else {
                                return Err(self.error(escape_at, "an octal escape above \\377"));
                            };
                            value.push(byte);
                        }
                        _ => {
                            return Err(self.error(
                                escape_at,
                                "unknown escape (\\\\ \\\" \\n \\xHH \\OOO are known)",
                            ));
                        }
                    }
                }
                c => value.push(c),
            }
        }
        self.out.extend(value);
        self.at = i;
        Ok(())
    }

    fn hex(&mut self, at: usize) -> Result<(), TextError> {
        self.settle_tag(2);
        let rest = self.text.get(at + 1..).unwrap_or_default();
        let Some(len) = rest.find('`') else {
            return Err(self.error(at, "this hex literal is never closed"));
        };
        let digits = rest.get(..len).unwrap_or_default();
        if digits.len() % 2 != 0 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error(at, "a hex literal holds pairs of hex digits only"));
        }
        for pair in digits.as_bytes().chunks(2) {
            let pair = std::str::from_utf8(pair).unwrap_or_default();
            self.out
                .push(u8::from_str_radix(pair, 16).unwrap_or_default());
        }
        self.at = at + 1 + len + 1;
        Ok(())
    }

    /// A number, a tag, `true`/`false` or an infinity.
    fn word(&mut self, at: usize) -> Result<(), TextError> {
        let bytes = self.bytes();
        let mut end = at;
        while bytes.get(end).is_some_and(|&c| !ends_token(c)) {
            end += 1;
        }
        // A tag's colon ends it: `1:VARINT`, `1:` or `1:150` are two tokens.
        let word = self.text.get(at..end).unwrap_or_default();
        let (word, end) = match word.find(':') {
            Some(colon) if colon > 0 => (word.get(..=colon).unwrap_or_default(), at + colon + 1),
            _ => (word, end),
        };
        self.at = end;
        if let Some(field) = word.strip_suffix(':') {
            return self.tag(field, at, end);
        }
        let (wire, bytes) = scalar(word).map_err(|e| self.error(at, &e))?;
        self.settle_tag(wire);
        self.out.extend(bytes);
        Ok(())
    }

    fn tag(&mut self, field: &str, at: usize, end: usize) -> Result<(), TextError> {
        if let Some((_, tag_at)) = self.group_tag {
            return Err(self.error(tag_at, "this tag has no value after it"));
        }
        let field = match parse_int(field) {
            Some(Int::Unsigned(n)) if n < 1 << 61 => n,
            _ => {
                return Err(self.error(
                    at,
                    "a field number is a number from 0 to 2^61-1 (decimal or 0x…)",
                ));
            }
        };
        // The wire type, when it is written against the colon.
        let bytes = self.bytes();
        let mut type_end = end;
        while bytes.get(type_end).is_some_and(|&c| !ends_token(c)) {
            type_end += 1;
        }
        let name = self.text.get(end..type_end).unwrap_or_default();
        if name.is_empty() {
            self.group_tag = Some((field, at));
            return Ok(());
        }
        let wire = match name {
            "VARINT" => 0,
            "I64" => 1,
            "LEN" => 2,
            "SGROUP" => 3,
            "EGROUP" => 4,
            "I32" => 5,
            n if n.len() == 1 && n.as_bytes()[0].is_ascii_digit() && n < "8" => {
                u64::from(n.as_bytes()[0] - b'0')
            }
            _ => {
                return Err(self.error(
                    end,
                    "a wire type is VARINT, I64, LEN, SGROUP, EGROUP, I32 or 0 to 7",
                ));
            }
        };
        self.out.extend(varint_bytes(field << 3 | wire));
        self.at = type_end;
        Ok(())
    }
}

enum Int {
    Unsigned(u64),
    Negative(i64),
}

/// `150`, `0xff`, `-1`, `-0x10`: an integer that fits in 64 bits (signed or not).
fn parse_int(text: &str) -> Option<Int> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()?
        }
        Some(_) => return None,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse::<u64>().ok()?
        }
        None => return None,
    };
    if !negative {
        return Some(Int::Unsigned(magnitude));
    }
    if magnitude == 1 << 63 {
        return Some(Int::Negative(i64::MIN));
    }
    let value = i64::try_from(magnitude).ok()?;
    Some(Int::Negative(-value))
}

/// A value token's wire type and bytes.
fn scalar(word: &str) -> Result<(u64, Vec<u8>), String> {
    match word {
        "true" => return Ok((0, vec![1])),
        "false" => return Ok((0, vec![0])),
        "inf32" => return Ok((5, f32::INFINITY.to_le_bytes().to_vec())),
        "-inf32" => return Ok((5, f32::NEG_INFINITY.to_le_bytes().to_vec())),
        "inf64" => return Ok((1, f64::INFINITY.to_le_bytes().to_vec())),
        "-inf64" => return Ok((1, f64::NEG_INFINITY.to_le_bytes().to_vec())),
        _ => {}
    }
    let (body, width) = if let Some(b) = word.strip_suffix("i32") {
        (b, Some(32))
    } else if let Some(b) = word.strip_suffix("i64") {
        (b, Some(64))
    } else {
        (word, None)
    };
    let float = body.contains('.') && !body.contains("0x") && !body.contains("0X");
    if float {
        let valid = body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'e' | b'E'));
        let value: f64 = body
            .parse()
            .ok()
            .filter(|_| valid)
            .ok_or_else(|| format!("`{}` is no number", crate::escape::for_terminal(word)))?;
        return Ok(match width {
            Some(32) => (5, (value as f32).to_le_bytes().to_vec()),
            _ => (1, value.to_le_bytes().to_vec()),
        });
    }
    if let Some(zig) = body.strip_suffix('z').filter(|_| width.is_none()) {
        let value = match parse_int(zig) {
            Some(Int::Negative(v)) => v,
            Some(Int::Unsigned(v)) => i64::try_from(v)
                .map_err(|_| format!("{zig}z does not fit in a signed 64-bit number"))?,
            None => {
                return Err(format!(
                    "`{}` is no number",
                    crate::escape::for_terminal(word)
                ));
            }
        };
        return Ok((0, varint_bytes(((value << 1) ^ (value >> 63)) as u64)));
    }
    let value = parse_int(body).ok_or_else(|| {
        format!(
            "`{}` is no token of the language (a number, a tag `N:`, a \"string\", {{ … }}, true, false)",
            crate::escape::for_terminal(word)
        )
    })?;
    Ok(match (width, value) {
        (None, Int::Unsigned(v)) => (0, varint_bytes(v)),
        (None, Int::Negative(v)) => (0, varint_bytes(v as u64)),
        (Some(32), v) => {
            let v = match v {
                Int::Unsigned(v) => u32::try_from(v).ok(),
                Int::Negative(v) => i32::try_from(v).ok().map(|v| v as u32),
            }
            .ok_or_else(|| format!("{body} does not fit in 32 bits"))?;
            (5, v.to_le_bytes().to_vec())
        }
        (_, Int::Unsigned(v)) => (1, v.to_le_bytes().to_vec()),
        (_, Int::Negative(v)) => (1, v.to_le_bytes().to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> String {
        super::super::number::hex_bytes(&assemble(text).unwrap())
    }

    #[test]
    fn protobufs_encoding_guide_examples() {
        // The encoding guide's first message: field 1, 150.
        assert_eq!(hex("1: 150"), "08 96 01");
        // A string field, a nested message, a packed repeated field.
        assert_eq!(hex(r#"2: {"testing"}"#), "12 07 74 65 73 74 69 6e 67");
        assert_eq!(hex("3: {1: 150}"), "1a 03 08 96 01");
        assert_eq!(hex("4: {3 270 86942}"), "22 06 03 8e 02 9e a7 05");
    }

    #[test]
    fn protoscopes_own_examples() {
        assert_eq!(hex("-2z 3"), "03 03");
        assert_eq!(hex("0i32 -23i64"), "00 00 00 00 e9 ff ff ff ff ff ff ff");
        assert_eq!(hex("true false"), "01 00");
        assert_eq!(hex("1.5i32"), "00 00 c0 3f");
        assert_eq!(hex("1.0"), "00 00 00 00 00 00 f0 3f");
        assert_eq!(hex("inf32 -inf64"), "00 00 80 7f 00 00 00 00 00 00 f0 ff");
        assert_eq!(
            hex("1:VARINT 2:I64 3:LEN 4:SGROUP 5:EGROUP 6:I32"),
            "08 11 1a 23 2c 35"
        );
        assert_eq!(hex("0x10:0 8:6"), "80 01 46");
        assert_eq!(hex("1: 55z"), "08 6e");
        assert_eq!(hex("2: 1.23"), "11 ae 47 e1 7a 14 ae f3 3f");
        assert_eq!(hex(r#"3: {"text"}"#), "1a 04 74 65 78 74");
        assert_eq!(hex("6: -1i32"), "35 ff ff ff ff");
        assert_eq!(hex("8: !{42}"), "43 2a 44");
        assert_eq!(
            hex(r#"24: { 1: 5 2: {"nested string"} }"#).len(),
            3 * 20 - 1
        );
        assert_eq!(
            hex("25: { 1 2 3 4 5 6 7 }"),
            "ca 01 07 01 02 03 04 05 06 07"
        );
        assert_eq!(hex("2:LEN 5 \"abcd\""), "12 05 61 62 63 64");
        assert_eq!(hex("`00` `abcdef` `AbCdEf`"), "00 ab cd ef ab cd ef");
        assert_eq!(
            hex(r#""a\\\"\x41\101\n" # a comment { not a brace"#),
            "61 5c 22 41 41 0a"
        );
    }

    #[test]
    fn negative_numbers_are_ten_bytes_and_limits_hold() {
        assert_eq!(hex("1: -1"), "08 ff ff ff ff ff ff ff ff ff 01");
        assert_eq!(hex("18446744073709551615"), "ff ff ff ff ff ff ff ff ff 01");
        assert_eq!(
            hex("-9223372036854775808z"),
            "ff ff ff ff ff ff ff ff ff 01"
        );
        assert_eq!(hex("4294967295i32"), "ff ff ff ff");
        assert!(assemble("4294967296i32").is_err());
        assert!(assemble("18446744073709551616").is_err());
    }

    #[test]
    fn mistakes_name_line_and_column() {
        for (text, line, column, says) in [
            ("1: {2: 3", 1, 4, "never closed"),
            ("1: 2 }", 1, 6, "closes nothing"),
            ("1: 2\n  2: 3 4:FOO", 2, 10, "a wire type is"),
            ("1:\n  2: 3", 1, 1, "no value after it"),
            ("1: \"abc", 1, 4, "never closed"),
            ("1: 2\n3: hello", 2, 4, "is no token"),
            ("!{1}", 1, 1, "comes right after a tag"),
            ("1: 2 3:", 1, 6, "no value after it"),
            ("\"\\q\"", 1, 2, "unknown escape"),
            ("`abc`", 1, 1, "pairs of hex digits"),
        ] {
            let e = assemble(text).unwrap_err();
            assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
            assert!(e.message.contains(says), "{text:?}: {e}");
        }
        let deep = "1: {".repeat(10_000);
        assert!(
            assemble(&deep)
                .unwrap_err()
                .message
                .contains("nested more than 64")
        );
    }

    #[test]
    fn a_control_character_in_a_mistake_is_escaped() {
        let e = assemble("1: \u{1b}]0;x\u{7}").unwrap_err();
        assert!(
            !e.message.contains('\u{1b}') && !e.message.contains('\u{7}'),
            "{e}"
        );
    }
}
