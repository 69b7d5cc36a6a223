//! Small helpers for words and numbers read and typed by people: one plural rule for every
//! message, and one way to read a number the user typed or pasted (the `locate` argument and the
//! inspector's prompts accept the same spellings).

use std::num::ParseIntError;

/// `1 byte`, `2 bytes`, `0 frames`: the one plural rule of every message.
pub fn plural(n: impl Count, noun: &str) -> String {
    let n = n.count();
    format!("{n} {}", noun_for(n, noun))
}

/// The noun alone, in the number `n` asks for (`feature`, `features`), for phrases that put words
/// between the count and the noun (`3 context features`).
pub fn noun_for(n: impl Count, noun: &str) -> String {
    match n.count() {
        1 => noun.to_string(),
        _ => format!("{noun}s"),
    }
}

/// An unsigned count [`plural`] can word, whether it is a length (`usize`) or a byte count (`u64`).
pub trait Count {
    fn count(self) -> u64;
}

impl Count for u64 {
    fn count(self) -> u64 {
        self
    }
}

impl Count for u32 {
    fn count(self) -> u64 {
        u64::from(self)
    }
}

impl Count for usize {
    fn count(self) -> u64 {
        // usize is at most 64 bits wide on every target Rust supports.
        u64::try_from(self).unwrap_or(u64::MAX)
    }
}

/// A count or byte offset as typed or pasted: decimal, or hexadecimal after `0x`; `_` separators,
/// surrounding blanks and a trailing quote, period or comma (left over when the number is copied
/// out of an error message such as TensorFlow's "corrupted record at 5630.") are ignored.
///
/// The error names the cleaned text and why it is not a number, e.g. `"ten" (invalid digit…)`.
pub fn parse_number(text: &str) -> Result<u64, NumberError> {
    let cleaned = text.trim().trim_end_matches(['\'', '"', '.', ',']);
    let digits = cleaned.replace('_', "");
    let parsed = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => digits.parse(),
    };
    parsed.map_err(|reason| NumberError {
        text: cleaned.to_string(),
        reason,
    })
}

/// Text that [`parse_number`] could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberError {
    /// The text, trimmed as the parser saw it.
    pub text: String,
    pub reason: ParseIntError,
}

impl std::fmt::Display for NumberError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} ({})", self.text, self.reason)
    }
}

impl std::error::Error for NumberError {}

/// How numbers (offsets, lengths, values) are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Radix {
    #[default]
    Decimal,
    /// `0x358`, as the encoding guide's walkthrough counts.
    Hex,
}

impl Radix {
    pub fn num(self, n: u64) -> String {
        match self {
            Radix::Decimal => n.to_string(),
            Radix::Hex => format!("0x{n:x}"),
        }
    }

    /// A signed number: `-0x7b` in hex.
    pub fn signed(self, n: i128) -> String {
        match self {
            Radix::Decimal => n.to_string(),
            Radix::Hex if n < 0 => format!("-0x{:x}", n.unsigned_abs()),
            Radix::Hex => format!("0x{n:x}"),
        }
    }

    /// `1 byte`, `5 bytes`, `0x358 bytes`.
    pub fn bytes(self, n: u64) -> String {
        match self {
            Radix::Decimal => plural(n, "byte"),
            Radix::Hex => format!("0x{n:x} bytes"),
        }
    }

    /// `a..b`.
    pub fn range(self, start: u64, end: u64) -> String {
        format!("{}..{}", self.num(start), self.num(end))
    }
}

/// A number as a person reads it: integers whole, others to four significant digits.
pub fn short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let magnitude = x.abs().log10().floor();
    if !(-3.0..6.0).contains(&magnitude) {
        return format!("{x:.3e}");
    }
    let decimals = (3.0 - magnitude).clamp(0.0, 6.0) as usize;
    let text = format!("{x:.decimals$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::{parse_number, plural};

    #[test]
    fn plurals() {
        assert_eq!(plural(1u64, "byte"), "1 byte");
        assert_eq!(plural(0u64, "frame"), "0 frames");
        assert_eq!(plural(784u64, "byte"), "784 bytes");
        assert_eq!(plural(1usize, "more frame"), "1 more frame");
        assert_eq!(plural(3u32, "record"), "3 records");
    }

    #[test]
    fn numbers_read_in_decimal_and_hex_with_separators() {
        assert_eq!(parse_number("5630"), Ok(5630));
        assert_eq!(parse_number("19288"), Ok(19288));
        assert_eq!(parse_number(" 0x10 "), Ok(16));
        assert_eq!(parse_number("0XfF"), Ok(255));
        assert_eq!(parse_number("1_000"), Ok(1000));
        assert_eq!(parse_number("0x_1_0"), Ok(16));
        assert_eq!(parse_number("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn numbers_pasted_from_a_message_lose_their_punctuation() {
        assert_eq!(parse_number("11138'"), Ok(11138));
        assert_eq!(parse_number("5630."), Ok(5630));
        assert_eq!(parse_number("42\","), Ok(42));
    }

    #[test]
    fn what_is_not_a_number_says_why() {
        let err = parse_number(" ten ").unwrap_err();
        assert_eq!(err.text, "ten");
        assert!(err.to_string().starts_with("\"ten\" ("), "{err}");
        for bad in [
            "-1",
            "",
            "_",
            "0x",
            "1.5",
            "0xg",
            "18446744073709551616",
            "1 000",
        ] {
            assert!(parse_number(bad).is_err(), "{bad:?}");
        }
    }
}

/// How many terminal columns `text` takes: 2 for each wide (CJK) character, 0 for a combining
/// mark, so that columns of names line up as a terminal draws them.
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` followed by spaces up to `width` columns ([`display_width`]); longer text is kept whole.
pub fn pad_to(text: &str, width: usize) -> String {
    let mut out = text.to_string();
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(display_width(text)),
    ));
    out
}

#[cfg(test)]
mod width_tests {
    use super::*;

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(display_width("label_名前"), 10);
        assert_eq!(pad_to("label_名前", 12), "label_名前  ");
        assert_eq!(pad_to("label", 12), "label       ");
        assert_eq!(pad_to("toolong", 3), "toolong");
    }
}
