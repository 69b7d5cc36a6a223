//! Small helpers for words and numbers read and typed by people: one plural rule for every
//! message, and one way to read a number the user typed or pasted (the `locate` argument and the
//! inspector's prompts accept the same spellings).

use std::num::ParseIntError;

/// How many characters of a string a one-line description shows.
const TEXT_SHOWN: usize = 48;

/// When `bytes` read as text (UTF-8 with no control character but newline and tab): their first
/// characters, as many as a one-line description shows, and `…` when there are more.
pub fn text_start(bytes: &[u8]) -> Option<(String, &'static str)> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return None;
    }
    let shown: String = text.chars().take(TEXT_SHOWN).collect();
    let more = if shown.len() < text.len() { "…" } else { "" };
    Some((shown, more))
}

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
    /// `0x358`, as the MNIST walkthrough counts.
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

/// Significant digits [`short`] keeps (at least; every digit of the integer part is kept).
pub const SHORT_DIGITS: i32 = 4;

/// A number as a person reads it: integers whole, others rounded to four significant digits
/// (every digit before the point kept: `3000.5` is `3000`, never `3`), in scientific notation
/// below 0.001 and from a million on (`1.235e-5`, `3.000e7`). The printed number is always the
/// value rounded, within half a unit of its fourth significant digit.
pub fn short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    if !x.is_finite() {
        return x.to_string();
    }
    let magnitude = x.abs().log10().floor();
    if !(-3.0..6.0).contains(&magnitude) {
        return format!("{x:.3e}");
    }
    // `magnitude` is a whole number from -3 to 5 here.
    let decimals = usize::try_from(SHORT_DIGITS - 1 - magnitude as i32).unwrap_or(0);
    let text = format!("{x:.decimals$}");
    // Only zeros after a decimal point may go: those of the integer part are the number.
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `part` of `whole` in percent, rounded to one decimal (`42.9%`), except that a part that is
/// neither none nor all never reads as none or all: `<0.1%`, `>99.9%`.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 || part == 0 {
        return "0.0%".into();
    }
    if part >= whole {
        return "100.0%".into();
    }
    let tenths = (u128::from(part) * 1000 + u128::from(whole) / 2) / u128::from(whole);
    match tenths {
        0 => "<0.1%".into(),
        1000.. => ">99.9%".into(),
        _ => format!("{}.{}%", tenths / 10, tenths % 10),
    }
}

/// How far work of `total` units is after `done`, in whole percent, rounded: 100 only once all
/// is done, so a bar at 100 is never still working.
pub fn percent_done(done: u64, total: u64) -> u64 {
    if done >= total {
        return 100;
    }
    let rounded = (u128::from(done) * 100 + u128::from(total) / 2) / u128::from(total);
    u64::try_from(rounded).unwrap_or(99).min(99)
}

/// A byte count in binary units with one decimal, rounded: `812 B`, `2.3 KiB`, `1.0 MiB` (not
/// `1024.0 KiB`), `3.0 GiB`.
pub fn binary_size(n: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    // The next unit up, when the value rounded to a tenth would read 1024.0.
    while (value * 10.0).round() >= 10240.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS.get(unit).copied().unwrap_or("EiB"))
}

#[cfg(test)]
mod tests {
    use super::{binary_size, parse_number, percent, percent_done, plural, short};
    use proptest::prelude::*;

    /// How far `printed` is from `x`, relative to `x`: what rounding to four significant digits
    /// allows is 5e-4 (half a unit of the fourth digit of a number whose first digit is 1).
    fn relative_error(printed: &str, x: f64) -> f64 {
        let back: f64 = printed.parse().unwrap_or(f64::NAN);
        ((back - x) / x).abs()
    }

    /// Numbers of every magnitude from 1e-300 to 1e300, either sign, and the fractional numbers
    /// whose integer part ends in zeros (`3000.5`).
    fn any_magnitude() -> impl Strategy<Value = f64> {
        prop_oneof![
            (1.0f64..10.0, -300i32..=300, any::<bool>()).prop_map(|(m, e, negative)| {
                let x = m * 10f64.powi(e);
                if negative { -x } else { x }
            }),
            (-10_000_000i64..10_000_000, 1u32..8)
                .prop_map(|(n, k)| (n * 10i64.pow(k)) as f64 + 0.5),
            any::<f64>().prop_filter("finite", |x| x.is_finite() && *x != 0.0),
        ]
    }

    proptest! {
        #[test]
        fn short_numbers_are_the_number_rounded(x in any_magnitude()) {
            let printed = short(x);
            let error = relative_error(&printed, x);
            prop_assert!(error <= 5e-4 * (1.0 + 1e-9), "{x} printed {printed}, off by {error}");
        }

        #[test]
        fn whole_numbers_print_whole(n in -999_999_999_999_999i64..=999_999_999_999_999) {
            prop_assert_eq!(short(n as f64), n.to_string());
        }
    }

    #[test]
    fn shares_never_round_to_none_or_all() {
        assert_eq!(percent(30, 30), "100.0%");
        assert_eq!(percent(9996, 10_000), ">99.9%");
        assert_eq!(percent(9994, 10_000), "99.9%");
        assert_eq!(percent(1, 100_000), "<0.1%");
        assert_eq!(percent(3, 7), "42.9%");
        assert_eq!(percent(0, 7), "0.0%");
        assert_eq!(percent(0, 0), "0.0%");
        assert_eq!(percent(u64::MAX - 1, u64::MAX), ">99.9%");
        assert_eq!(percent_done(0, 10), 0);
        assert_eq!(percent_done(2, 3), 67);
        assert_eq!(percent_done(999, 1000), 99);
        assert_eq!(percent_done(1000, 1000), 100);
        assert_eq!(percent_done(u64::MAX / 2, u64::MAX), 50);
    }

    #[test]
    fn sizes_in_binary_units_carry_to_the_next_unit() {
        assert_eq!(binary_size(812), "812 B");
        assert_eq!(binary_size(1023), "1023 B");
        assert_eq!(binary_size(2369), "2.3 KiB");
        assert_eq!(binary_size(20083), "19.6 KiB");
        assert_eq!(binary_size(1024 * 1024 - 1), "1.0 MiB");
        assert_eq!(binary_size(1024 * 1023 + 900), "1023.9 KiB");
        assert_eq!(binary_size(3 << 30), "3.0 GiB");
        assert_eq!(binary_size(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn short_keeps_the_zeros_of_the_integer_part() {
        assert_eq!(short(3000.5), "3000");
        assert_eq!(short(1340.5), "1340");
        assert_eq!(short(1689.9), "1690");
        assert_eq!(short(10.5), "10.5");
        assert_eq!(short(-2000.25), "-2000");
        assert_eq!(short(100000.5), "100000");
        assert_eq!(short(0.5), "0.5");
        assert_eq!(short(0.001_234_5), "0.001234");
        assert_eq!(short(3.0e7 + 0.5), "3.000e7");
        assert_eq!(short(1.5e-300), "1.500e-300");
        assert_eq!(short(f64::NAN), "NaN");
        assert_eq!(short(f64::NEG_INFINITY), "-inf");
    }

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

/// The widest a column of a table gets when its cells decide its width. Names come from the input
/// (feature names, tags, split names, message names), and one of 70,000 characters would otherwise
/// pad every row of its table to that width; longer cells are printed whole and push only their
/// own row out of line.
pub const MAX_COLUMN: usize = 128;

/// The width of a column whose cells take `widths` terminal columns: the widest, at most
/// [`MAX_COLUMN`].
pub fn column_width(widths: impl IntoIterator<Item = usize>) -> usize {
    widths.into_iter().max().unwrap_or(0).min(MAX_COLUMN)
}

/// `text` followed by spaces up to `width` columns ([`display_width`]; `width` at most
/// [`MAX_COLUMN`]); longer text is kept whole.
///
/// Every table aligns its cells through here or [`pad_left_to`], never through `{:<width$}`: the
/// standard library's formatting panics on a width over 65,535, and a width taken from the input
/// can be anything.
pub fn pad_to(text: &str, width: usize) -> String {
    let mut out = text.to_string();
    out.extend(std::iter::repeat_n(' ', padding(text, width)));
    out
}

/// `text` cut to `width` terminal columns, its last column an ellipsis when it was cut, so that a
/// cut value never passes for a whole one (`3000.5` in 4 columns is `300…`, not `3000`). Blanks
/// at the end are no content: they are dropped without a mark.
pub fn clip(text: &str, width: usize) -> std::borrow::Cow<'_, str> {
    if display_width(text) <= width {
        return std::borrow::Cow::Borrowed(text);
    }
    let content = text.trim_end();
    if display_width(content) <= width {
        return std::borrow::Cow::Borrowed(content);
    }
    let room = width.saturating_sub(1);
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > room {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    std::borrow::Cow::Owned(out)
}

/// `text` after spaces up to `width` columns, right-aligned as [`pad_to`] left-aligns it.
pub fn pad_left_to(text: &str, width: usize) -> String {
    let mut out: String = std::iter::repeat_n(' ', padding(text, width)).collect();
    out.push_str(text);
    out
}

fn padding(text: &str, width: usize) -> usize {
    width.min(MAX_COLUMN).saturating_sub(display_width(text))
}

#[cfg(test)]
mod width_tests {
    use super::*;

    #[test]
    fn clipped_text_says_it_was_cut() {
        assert_eq!(clip("max 3000.5", 20), "max 3000.5");
        assert_eq!(clip("max 3000.5", 10), "max 3000.5");
        assert_eq!(clip("max 3000.5", 8), "max 300…");
        assert_eq!(clip("名前名前", 5), "名前…");
        assert_eq!(clip("abc", 1), "…");
        assert_eq!(clip("abc", 0), "");
        assert_eq!(clip("ok   ", 3), "ok");
        for width in 0..12 {
            assert!(display_width(&clip("label_名前x", width)) <= width);
        }
    }

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(display_width("label_名前"), 10);
        assert_eq!(pad_to("label_名前", 12), "label_名前  ");
        assert_eq!(pad_to("label", 12), "label       ");
        assert_eq!(pad_to("toolong", 3), "toolong");
        assert_eq!(pad_left_to("名前", 6), "  名前");
        assert_eq!(pad_left_to("toolong", 3), "toolong");
    }

    #[test]
    fn columns_are_clamped_whatever_width_the_input_asks_for() {
        // 70,000 columns: the standard library's `{:<70000}` panics ("Formatting argument out
        // of range"); a column is at most MAX_COLUMN wide, and a longer cell is kept whole.
        let long = "n".repeat(70_000);
        assert_eq!(column_width([3, 70_000, 9]), MAX_COLUMN);
        assert_eq!(column_width([3, 9]), 9);
        assert_eq!(column_width([]), 0);
        assert_eq!(pad_to("a", 70_000).len(), MAX_COLUMN);
        assert_eq!(pad_left_to("a", usize::MAX).len(), MAX_COLUMN);
        assert_eq!(pad_to(&long, 70_000), long);
        assert_eq!(pad_left_to(&long, MAX_COLUMN), long);
    }
}
