//! How summaries are written into a partial ([`super::partial`]) and read back: through serde,
//! with the few shapes JSON cannot hold as they are. A double is kept as its IEEE 754 bits (as
//! 16 hex digits), so that NaN, the infinities and every last bit survive the trip, and merges of
//! read summaries are the merges of the summaries written; a 64-bit hash is kept as hex too. A
//! map whose keys are not strings is a list of pairs. Sets are written in sorted order, so a
//! partial's bytes depend only on what it summarises.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A 64-bit number as 16 hex digits.
fn hex(bits: u64) -> String {
    format!("{bits:016x}")
}

fn unhex<E: serde::de::Error>(text: &str) -> Result<u64, E> {
    if text.len() != 16 {
        return Err(E::custom(format!(
            "expected 16 hex digits, found {} characters",
            text.len()
        )));
    }
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(E::custom("expected 16 hex digits"));
    }
    u64::from_str_radix(text, 16).map_err(|_| E::custom("expected 16 hex digits"))
}

/// A `u64` hash as hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hash(pub u64);

impl Serialize for Hash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex(self.0))
    }
}

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        unhex(&text).map(Hash)
    }
}

/// A double as the hex of its bits.
#[derive(Debug, Clone, Copy)]
pub struct Bits(pub f64);

impl Serialize for Bits {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex(self.0.to_bits()))
    }
}

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bits, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        unhex(&text).map(|b| Bits(f64::from_bits(b)))
    }
}

/// `#[serde(with = "bits")]` for an `f64`.
pub mod bits {
    use super::*;

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        Bits(*v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Bits::deserialize(d).map(|b| b.0)
    }
}

/// `#[serde(with = "opt_bits")]` for an `Option<f64>`.
pub mod opt_bits {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(Bits).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<Bits>::deserialize(d).map(|b| b.map(|b| b.0))
    }
}

/// `#[serde(with = "step_value")]` for a `(step, value)` pair.
pub mod step_value {
    use super::*;

    pub fn serialize<S: Serializer>(v: &(i64, f64), s: S) -> Result<S::Ok, S::Error> {
        (v.0, Bits(v.1)).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<(i64, f64), D::Error> {
        <(i64, Bits)>::deserialize(d).map(|(step, v)| (step, v.0))
    }
}

/// `#[serde(with = "pairs")]` for a map whose keys JSON cannot hold as object keys: a list of
/// `[key, value]` in key order. A key given twice is an error.
pub mod pairs {
    use super::*;

    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(
        map: &BTreeMap<K, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(map.iter())
    }

    pub fn deserialize<'de, K, V, D>(d: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        let list = Vec::<(K, V)>::deserialize(d)?;
        let n = list.len();
        let map: BTreeMap<K, V> = list.into_iter().collect();
        if map.len() != n {
            return Err(D::Error::custom("a key is given twice"));
        }
        Ok(map)
    }
}

/// `#[serde(with = "images")]` for image sizes by format: the format names are the ones
/// [`crate::image::encoded_image_info`] gives; any other is an error.
pub mod images {
    use super::*;
    use crate::stats::ImageSizes;

    pub fn serialize<S: Serializer>(
        map: &BTreeMap<&'static str, ImageSizes>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        map.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<&'static str, ImageSizes>, D::Error> {
        let read = BTreeMap::<String, ImageSizes>::deserialize(d)?;
        read.into_iter()
            .map(|(name, sizes)| {
                let known = crate::image::FORMAT_NAMES
                    .iter()
                    .find(|n| **n == name)
                    .copied()
                    .ok_or_else(|| D::Error::custom("an unknown image format"))?;
                if sizes.without_size > sizes.count {
                    return Err(D::Error::custom("more images without a size than images"));
                }
                Ok((known, sizes))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_keep_every_bit_and_hex_is_checked() {
        for v in [0.1, -0.0, f64::NAN, f64::INFINITY, f64::MIN_POSITIVE / 3.0] {
            let text = serde_json::to_string(&Bits(v)).unwrap_or_default();
            let back: Bits = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back.0.to_bits(), v.to_bits(), "{text}");
        }
        for bad in [
            "\"3ff\"",
            "\"zzzzzzzzzzzzzzzz\"",
            "1.5",
            "\"+fffffffffffffff\"",
        ] {
            assert!(serde_json::from_str::<Bits>(bad).is_err(), "{bad}");
        }
    }
}
