//! The needle as a number: parsed once into the integer, the `f32` and the `f64` it stands for
//! and its decimal digits, and compared with a value the way the tree shows that value (integers
//! exactly, floats by their bits and then by the digits they print as).

use crate::decode::Scalar;
use crate::pyfmt::{write_repr_f64, write_text_f32};

/// A number as the user typed it: `856`, `-3`, `0.25`, `1e-5`, `nan`, `-inf`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Number {
    /// Its value when it is a whole number a 128-bit integer holds.
    pub(super) int: Option<i128>,
    /// The float nearest it, when there is one (`1e40` has no float32).
    pub(super) f32_bits: Option<u32>,
    pub(super) f64_bits: Option<u64>,
    /// Finite needles: the digits the printed value must have.
    pub(super) decimal: Option<Decimal>,
    pub(super) nan: bool,
}

impl Number {
    pub(super) fn parse(text: &str) -> Option<Number> {
        let as_f64: f64 = text.parse().ok()?;
        let as_f32: f32 = text.parse().ok()?;
        let decimal = Decimal::parse(text);
        if decimal.is_none() && as_f64.is_finite() {
            return None;
        }
        // A finite needle never stands for an infinity, however large it is.
        let finite = decimal.is_some();
        let usable = |infinite: bool| !finite || !infinite;
        Some(Number {
            int: decimal.as_ref().and_then(Decimal::integer),
            f32_bits: usable(as_f32.is_infinite()).then_some(as_f32.to_bits()),
            f64_bits: usable(as_f64.is_infinite()).then_some(as_f64.to_bits()),
            decimal,
            nan: as_f64.is_nan(),
        })
    }

    /// Whether `scalar` is this number as the tree shows it; `scratch` holds printed floats.
    pub(super) fn matches(&self, scalar: &Scalar<'_>, scratch: &mut String) -> bool {
        let int = |v: i128| self.int == Some(v);
        match *scalar {
            Scalar::I32(v) => int(v.into()),
            Scalar::I64(v) => int(v.into()),
            Scalar::U32(v) => int(v.into()),
            Scalar::U64(v) => int(v.into()),
            Scalar::Enum(v, _) => int(v.into()),
            Scalar::Bool(_) => false,
            Scalar::F32(v) => {
                if self.nan || v.is_nan() {
                    return self.nan && v.is_nan();
                }
                if Some(v.to_bits()) != self.f32_bits {
                    return false;
                }
                scratch.clear();
                write_text_f32(v, scratch);
                self.printed_is(scratch, v.is_finite())
            }
            Scalar::F64(v) => {
                if self.nan || v.is_nan() {
                    return self.nan && v.is_nan();
                }
                if Some(v.to_bits()) != self.f64_bits {
                    return false;
                }
                scratch.clear();
                write_repr_f64(v, scratch);
                self.printed_is(scratch, v.is_finite())
            }
        }
    }

    fn printed_is(&self, printed: &str, finite: bool) -> bool {
        if !finite {
            // Same bits, and infinities print as `inf` and `-inf` whatever the needle's spelling.
            return true;
        }
        self.decimal.is_some() && Decimal::parse(printed) == self.decimal
    }
}

/// A finite decimal number in a normal form: sign, significant digits without leading or
/// trailing zeros, and the power of ten of the first digit, so that `0.250`, `.25` and `2.5e-1`
/// compare equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

impl Decimal {
    /// `None` unless `text` is `[+-]digits[.digits][(e|E)[+-]digits]` with at least one digit.
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let (mantissa, power) = match rest.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(whole) || !all_digits(fraction) || whole.len() + fraction.len() == 0 {
            return None;
        }
        let digits: Vec<u8> = whole.bytes().chain(fraction.bytes()).collect();
        let leading = digits.iter().take_while(|d| **d == b'0').count();
        let mut significant = digits.get(leading..).unwrap_or_default().to_vec();
        while significant.last() == Some(&b'0') {
            significant.pop();
        }
        let exponent = (whole.len() as i64)
            .saturating_sub(leading as i64)
            .saturating_sub(1)
            .saturating_add(power);
        Some(Decimal {
            // -0 and 0 are one integer; floats tell them apart by their bits.
            negative: negative && !significant.is_empty(),
            exponent: if significant.is_empty() { 0 } else { exponent },
            digits: significant,
        })
    }

    /// The value, when it is a whole number an `i128` holds.
    fn integer(&self) -> Option<i128> {
        let places = self.exponent.checked_add(1)?;
        if places < self.digits.len() as i64 || places > 39 {
            return (self.digits.is_empty()).then_some(0);
        }
        let mut value: i128 = 0;
        for i in 0..places {
            let digit = self.digits.get(i as usize).map_or(0, |d| d - b'0');
            value = value.checked_mul(10)?.checked_add(i128::from(digit))?;
        }
        Some(if self.negative { -value } else { value })
    }
}
