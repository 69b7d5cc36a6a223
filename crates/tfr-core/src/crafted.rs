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
