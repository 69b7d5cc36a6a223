//! Inputs built to order for tests, here and in the application: well-formed streams, and
//! crafted damage that is costly to index.

use crate::crc::masked_crc32c;
use crate::explain::number::varint_bytes;
use crate::frame::write_record;

/// Frames `payloads` the way a TFRecord writer does.
pub fn encode_records(payloads: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for payload in payloads {
        // Writing into memory cannot fail.
        let _ = write_record(payload, &mut out);
    }
    out
}

/// Damage, then a header with a valid CRC whose declared frame fits in the file but fails its
/// payload CRC, then `records` intact records of 500 bytes inside that declared extent: the
/// crafted frame costs the resync so much work that a small budget is spent at once.
/// Returns the bytes and the offsets of the intact records.
pub fn budget_exhaustion(records: usize) -> (Vec<u8>, Vec<u64>) {
    let mut data = vec![0xff; 3];
    let body: Vec<Vec<u8>> = (0..records).map(|i| vec![i as u8; 500]).collect();
    let refs: Vec<&[u8]> = body.iter().map(|b| b.as_slice()).collect();
    let stream = encode_records(&refs);
    // Ends 7 bytes into a record three quarters of the way through.
    let declared = (records * 3 / 4 * 516 + 7) as u64;
    data.extend_from_slice(&declared.to_le_bytes());
    data.extend_from_slice(&masked_crc32c(&declared.to_le_bytes()).to_le_bytes());
    let first = data.len() as u64;
    data.extend_from_slice(&stream);
    let offsets = (0..records as u64).map(|i| first + i * 516).collect();
    (data, offsets)
}

/// The values of one `tf.train.Feature`, for [`example`] and [`sequence_example`].
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureValue {
    Bytes(Vec<Vec<u8>>),
    Floats(Vec<f32>),
    Ints(Vec<i64>),
}

/// Field `field` of wire type 2 holding `body`, appended to `out`.
fn delimited(field: u64, body: &[u8], out: &mut Vec<u8>) {
    out.extend(varint_bytes(field << 3 | 2));
    out.extend(varint_bytes(body.len() as u64));
    out.extend_from_slice(body);
}

/// Field `field` of wire type 2 holding `body`: tag, varint length, body.
pub fn length_delimited(field: u64, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 8);
    delimited(field, body, &mut out);
    out
}

/// A `tf.train.Feature` message.
pub fn feature(value: &FeatureValue) -> Vec<u8> {
    let mut list = Vec::new();
    let field = match value {
        FeatureValue::Bytes(values) => {
            for v in values {
                delimited(1, v, &mut list);
            }
            1
        }
        FeatureValue::Floats(values) => {
            let packed: Vec<u8> = values.iter().flat_map(|f| f.to_le_bytes()).collect();
            delimited(1, &packed, &mut list);
            2
        }
        FeatureValue::Ints(values) => {
            let mut packed = Vec::new();
            for v in values {
                packed.extend(varint_bytes(*v as u64));
            }
            delimited(1, &packed, &mut list);
            3
        }
    };
    let mut out = Vec::new();
    delimited(field, &list, &mut out);
    out
}

/// A map of names to messages (`Features.feature`, `FeatureLists.feature_list`).
fn named(entries: impl Iterator<Item = (String, Vec<u8>)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in entries {
        let mut entry = Vec::new();
        delimited(1, name.as_bytes(), &mut entry);
        delimited(2, &value, &mut entry);
        delimited(1, &entry, &mut out);
    }
    out
}

fn features(entries: &[(&str, FeatureValue)]) -> Vec<u8> {
    named(entries.iter().map(|(n, v)| (n.to_string(), feature(v))))
}

/// A `tf.train.Example` with these features.
pub fn example(entries: &[(&str, FeatureValue)]) -> Vec<u8> {
    let mut out = Vec::new();
    delimited(1, &features(entries), &mut out);
    out
}

/// A `tf.train.SequenceExample`: context features, and feature lists of one `Feature` per step.
pub fn sequence_example(
    context: &[(&str, FeatureValue)],
    lists: &[(&str, Vec<FeatureValue>)],
) -> Vec<u8> {
    let mut out = Vec::new();
    delimited(1, &features(context), &mut out);
    let lists = named(lists.iter().map(|(name, steps)| {
        let mut list = Vec::new();
        for step in steps {
            delimited(1, &feature(step), &mut list);
        }
        (name.to_string(), list)
    }));
    delimited(2, &lists, &mut out);
    out
}

/// Two encodings to set side by side (`hex --compare`), read as message type `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComparePair {
    pub name: &'static str,
    pub message: &'static str,
    pub a: Vec<u8>,
    pub b: Vec<u8>,
}

/// A map entry `key` → `feature` of `Features.feature`.
fn feature_entry(key: &str, feature: &[u8]) -> Vec<u8> {
    let mut body = length_delimited(1, key.as_bytes());
    delimited(2, feature, &mut body);
    length_delimited(1, &body)
}

/// A `Feature` whose `int64_list` packs `values` (each below 128) into one run.
fn packed_int64s(values: &[u8]) -> Vec<u8> {
    length_delimited(3, &length_delimited(1, values))
}

/// The pairs `scripts/compare_goldens.py` builds, byte for byte, each a wire difference of its
/// own: fields in another order, packed against unpacked, a split packed run, a message sent in
/// two pieces, map entries in another order, a varint written long, a different value, an
/// unknown field, and a repeated singular field whose last occurrence wins.
pub fn compare_pairs() -> Vec<ComparePair> {
    const EXAMPLE: &str = "tensorflow.Example";
    const TENSOR: &str = "tensorflow.TensorProto";
    let example = |entries: &[&[u8]]| length_delimited(1, &entries.concat());
    let a = feature_entry("a", &packed_int64s(&[1]));
    let b = feature_entry("b", &packed_int64s(&[2]));
    let x = |feature: Vec<u8>| example(&[&feature_entry("x", &feature)]);
    // TensorProto: dtype = DT_FLOAT; tensor_shape { dim { size: 3 } }; int_val = [5].
    let dtype = vec![0x08, 0x01];
    let shape = length_delimited(2, &length_delimited(2, &[0x08, 0x03]));
    let ints = length_delimited(7, &[0x05]);
    let unpacked = length_delimited(3, &[0x08, 1, 0x08, 2, 0x08, 3]);
    let split = length_delimited(
        3,
        &[length_delimited(1, &[1, 2]), length_delimited(1, &[3])].concat(),
    );
    let pair = |name, message, a: Vec<u8>, b: Vec<u8>| ComparePair {
        name,
        message,
        a,
        b,
    };
    vec![
        pair(
            "field_order",
            TENSOR,
            [&dtype[..], &shape, &ints].concat(),
            [&ints[..], &dtype, &shape].concat(),
        ),
        pair(
            "packed_vs_unpacked",
            EXAMPLE,
            x(packed_int64s(&[1, 2, 3])),
            x(unpacked),
        ),
        pair(
            "packed_split",
            EXAMPLE,
            x(split),
            x(packed_int64s(&[1, 2, 3])),
        ),
        pair(
            "message_pieces",
            EXAMPLE,
            [length_delimited(1, &a), length_delimited(1, &b)].concat(),
            example(&[&a, &b]),
        ),
        pair("map_order", EXAMPLE, example(&[&a, &b]), example(&[&b, &a])),
        pair(
            "non_minimal_varint",
            TENSOR,
            vec![0x08, 0x96, 0x81, 0x00],
            vec![0x08, 0x96, 0x01],
        ),
        pair(
            "different_value",
            EXAMPLE,
            x(packed_int64s(&[7])),
            x(packed_int64s(&[8])),
        ),
        pair(
            "unknown_field_in_one",
            EXAMPLE,
            [example(&[&a]), vec![0x98, 0x06, 0x01]].concat(),
            example(&[&a]),
        ),
        pair(
            "unknown_fields_reordered",
            EXAMPLE,
            [example(&[&a]), vec![0x98, 0x06, 0x01, 0xa0, 0x06, 0x02]].concat(),
            [example(&[&a]), vec![0xa0, 0x06, 0x02, 0x98, 0x06, 0x01]].concat(),
        ),
        pair(
            "last_occurrence_wins",
            TENSOR,
            vec![0x08, 0x01, 0x08, 0x03],
            vec![0x08, 0x03],
        ),
        pair(
            "last_occurrence_differs",
            TENSOR,
            vec![0x08, 0x03, 0x08, 0x01],
            vec![0x08, 0x03],
        ),
        pair(
            "map_key_repeated_last_wins",
            EXAMPLE,
            example(&[&feature_entry("a", &packed_int64s(&[9])), &a]),
            example(&[&a]),
        ),
    ]
}

/// A SequenceExample of `frames` PNG frames of 32x24 (feature list `image/encoded`), a square
/// moving right by 2 pixels a frame, with its box in `region/bbox/*` (class `ball`) and context
/// `image/height`, `image/width` and `clip/media_id`.
pub fn video_sequence(frames: usize) -> Vec<u8> {
    use image::{ImageEncoder, Rgb, RgbImage};
    let mut images = Vec::new();
    let mut boxes: [Vec<FeatureValue>; 4] = Default::default();
    let mut labels = Vec::new();
    for k in 0..frames {
        let left = (k as u32 * 2) % 24;
        let image = RgbImage::from_fn(32, 24, |x, y| {
            let inside = (left..left + 8).contains(&x) && (8..16).contains(&y);
            if inside {
                Rgb([250, 250, 250])
            } else {
                Rgb([10 * (k as u8 % 20), 40, 90])
            }
        });
        let mut png = Vec::new();
        let _ = image::codecs::png::PngEncoder::new(&mut png).write_image(
            image.as_raw(),
            32,
            24,
            image::ExtendedColorType::Rgb8,
        );
        images.push(FeatureValue::Bytes(vec![png]));
        let [ymin, xmin, ymax, xmax] = &mut boxes;
        ymin.push(FeatureValue::Floats(vec![8.0 / 24.0]));
        xmin.push(FeatureValue::Floats(vec![left as f32 / 32.0]));
        ymax.push(FeatureValue::Floats(vec![16.0 / 24.0]));
        xmax.push(FeatureValue::Floats(vec![(left + 8) as f32 / 32.0]));
        labels.push(FeatureValue::Bytes(vec![b"ball".to_vec()]));
    }
    let [ymin, xmin, ymax, xmax] = boxes;
    sequence_example(
        &[
            (
                "clip/media_id",
                FeatureValue::Bytes(vec![b"clip-0".to_vec()]),
            ),
            ("image/height", FeatureValue::Ints(vec![24])),
            ("image/width", FeatureValue::Ints(vec![32])),
        ],
        &[
            ("image/encoded", images),
            ("region/bbox/xmax", xmax),
            ("region/bbox/xmin", xmin),
            ("region/bbox/ymax", ymax),
            ("region/bbox/ymin", ymin),
            ("region/label/string", labels),
        ],
    )
}

/// A PNG of `width` x `height` 8-bit grey pixels, all zero, valid to its last CRC: its deflate
/// stream is one fixed-Huffman block of a zero and then copies of 258 zeros, so 16384x16383
/// pixels (268 MB decoded) take 1.7 MB, made in a moment.
pub fn zero_png(width: u32, height: u32) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        /// Appends the low `n` bits of `v`, least significant first.
        fn put(&mut self, v: u64, n: u32) {
            self.acc |= v << self.n;
            self.n += n;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        /// Appends a Huffman code of `n` bits, most significant first.
        fn code(&mut self, code: u64, n: u32) {
            let reversed = (0..n).fold(0, |r, i| r | ((code >> i) & 1) << (n - 1 - i));
            self.put(reversed, n);
        }
    }
    let total = (u64::from(width) + 1) * u64::from(height);
    let mut bits = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // the last block
    bits.put(1, 2); // fixed Huffman codes
    bits.code(0x30, 8); // literal 0
    let mut left = total.saturating_sub(1);
    while left >= 258 {
        bits.code(0b1100_0101, 8); // length 258 (code 285)
        bits.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        bits.code(0x30, 8);
    }
    bits.code(0, 7); // end of block (256)
    bits.put(0, 7);
    let mut zlib = bits.out;
    let adler = (total % 65521) << 16 | 1;
    zlib.extend_from_slice(&(adler as u32).to_be_bytes());
    let chunk = |out: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &zlib);
    chunk(&mut png, b"IEND", b"");
    png
}

/// What a [`Ranged`] source served: reads answered, their bytes, and reads it refused.
#[derive(Debug, Default)]
pub struct ReadCounts {
    pub reads: std::sync::atomic::AtomicU64,
    pub bytes: std::sync::atomic::AtomicU64,
    pub refused: std::sync::atomic::AtomicU64,
}

impl ReadCounts {
    pub const fn new() -> ReadCounts {
        ReadCounts {
            reads: std::sync::atomic::AtomicU64::new(0),
            bytes: std::sync::atomic::AtomicU64::new(0),
            refused: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Counts of its own for one test, alive as long as the test process.
    pub fn leaked() -> &'static ReadCounts {
        Box::leak(Box::default())
    }

    /// Bytes served so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Reads answered so far.
    pub fn reads(&self) -> u64 {
        self.reads.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A stand-in for an object store read by ranges: it serves any range of `inner` up to `limit`
/// bytes, refuses longer ones with [`ReadError::TooLarge`] (so nothing can take the stream as
/// one slice), fails reads that touch `failing` with [`ReadError::Unavailable`], and counts what
/// it served.
pub struct Ranged<S: ?Sized> {
    limit: u64,
    counts: &'static ReadCounts,
    failing: Option<crate::span::FileRange>,
    /// The first read that failed, as a remote source remembers it.
    failed: std::sync::OnceLock<ReadError>,
    inner: S,
}

use crate::bytes::{ByteSource, ReadError};
use crate::span::FileRange;

impl<S: ByteSource> Ranged<S> {
    pub fn new(inner: S, limit: u64, counts: &'static ReadCounts) -> Ranged<S> {
        Ranged {
            limit,
            counts,
            failing: None,
            failed: std::sync::OnceLock::new(),
            inner,
        }
    }

    /// Reads that touch `range` fail as a failed fetch would.
    pub fn failing(self, range: FileRange) -> Ranged<S> {
        Ranged {
            failing: Some(range),
            ..self
        }
    }
}

impl<S: ByteSource + ?Sized> ByteSource for Ranged<S> {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
        use std::sync::atomic::Ordering::Relaxed;
        if range.len() > self.limit {
            self.counts.refused.fetch_add(1, Relaxed);
            return Err(ReadError::TooLarge {
                range,
                limit: self.limit,
            });
        }
        if self
            .failing
            .is_some_and(|bad| bad.overlaps(&range) || bad.contains(range.start))
        {
            let error = ReadError::Unavailable {
                range,
                reason: "the object changed since it was opened".into(),
            };
            let _ = self.failed.set(error.clone());
            return Err(error);
        }
        let bytes = self.inner.read(range)?;
        self.counts.reads.fetch_add(1, Relaxed);
        self.counts.bytes.fetch_add(bytes.len() as u64, Relaxed);
        Ok(bytes)
    }

    fn faulted(&self) -> bool {
        self.inner.faulted()
    }

    fn failure(&self) -> Option<ReadError> {
        self.failed.get().cloned().or_else(|| self.inner.failure())
    }

    fn will_walk(&self, range: FileRange) {
        self.inner.will_walk(range)
    }

    fn walked(&self, range: FileRange) {
        self.inner.walked(range)
    }
}
