//! Whether an image decodes completely: what `verify --images` asks of every image candidate.
//!
//! A record can pass both CRCs and still hold an image a training job cannot decode: a JPEG cut
//! short before its end-of-image marker (TensorFlow's `decode_jpeg` fails on it, while lenient
//! decoders fill in grey), a PNG whose chunk CRC is wrong, or an image whose size is not the one
//! `image/height` and `image/width` declare. Each check gives a reason in words.
//!
//! An image is decoded within the budget of its check ([`super::budget`]); one larger is not
//! decoded, and that is a note beside the verdict, not damage. Decodes that take much memory are
//! made one at a time across the files checked in parallel, so `verify --images` holds at most
//! one of them ([`super::budget::DECODE_MAX_BYTES`]) plus [`ALONGSIDE_BYTES`] per core.

use std::sync::Mutex;

use image::ImageFormat;

use super::budget::{NotDecoded, Purpose, decode_cost, decode_within};
use super::found::images_in;
use super::{ImageHeader, raw_shape, sniff_format};
use crate::frame::FrameIndex;
use crate::payload::Decoder;
use crate::span::{FileOffset, FileRange};

/// Decodes that may run beside each other (one per core) at most this large; larger ones wait
/// for each other.
pub const ALONGSIDE_BYTES: u64 = 32 << 20;

/// Held while a decode larger than [`ALONGSIDE_BYTES`] runs.
static LARGE_DECODE: Mutex<()> = Mutex::new(());

/// An image of an intact record that does not decode (or, among [`ImageChecks::not_decoded`],
/// that was not decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecodable {
    pub record: usize,
    /// The record's frame.
    pub frame: FileRange,
    /// The feature (escaped for a terminal), with the step for a frame of a feature list.
    pub feature: String,
    pub step: Option<usize>,
    /// Which value of the feature.
    pub value: usize,
    /// Where the image's bytes start in the file.
    pub at: FileOffset,
    pub reason: String,
}

impl Undecodable {
    /// `record 3, feature image/encoded (image at byte 9120): undecodable image: truncated JPEG…`
    pub fn describe(&self) -> String {
        let step = self.step.map(|s| format!(" step {s}")).unwrap_or_default();
        let value = match self.value {
            0 => String::new(),
            v => format!(" value {v}"),
        };
        format!(
            "record {}, feature {}{step}{value} (image at byte {}): undecodable image: {}",
            self.record, self.feature, self.at, self.reason
        )
    }

    /// `record 3, feature image/encoded (image at byte 9120): not decoded: 20000x20000 needs…`
    pub fn describe_note(&self) -> String {
        let step = self.step.map(|s| format!(" step {s}")).unwrap_or_default();
        let value = match self.value {
            0 => String::new(),
            v => format!(" value {v}"),
        };
        format!(
            "record {}, feature {}{step}{value} (image at byte {}): {}",
            self.record, self.feature, self.at, self.reason
        )
    }
}

/// What checking the images of a file found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageChecks {
    /// Images that do not decode: damage.
    pub undecodable: Vec<Undecodable>,
    /// Images too large to decode within [`super::budget::DECODE_MAX_BYTES`]: notes.
    pub not_decoded: Vec<Undecodable>,
}

/// How many images of `payload` fail [`check_structure`]: what the inspector's list marks
/// before a record is selected (selecting it decodes its images).
pub fn structural_problems(payload: &[u8], decoder: &Decoder) -> usize {
    let decoded = decoder.decode(payload);
    let found = images_in(&decoded.view(payload, decoder.table()), None);
    found
        .images
        .iter()
        .filter(|image| check_structure(image.bytes, found.shape).is_err())
        .count()
}

/// Every image of every intact frame of `index` that [`check_image`] refuses, or leaves
/// undecoded as too large, in file order.
pub fn undecodable<S: crate::bytes::ByteSource + ?Sized>(
    data: &S,
    index: &FrameIndex,
    decoder: &Decoder,
) -> ImageChecks {
    let mut out = ImageChecks::default();
    for frame in index.frames(data) {
        if !frame.status.is_intact() {
            continue;
        }
        let (Some(payload), Some(range)) = (frame.payload(data), frame.payload_range()) else {
            continue;
        };
        let decoded = decoder.decode(payload);
        let found = images_in(&decoded.view(payload, decoder.table()), None);
        for image in &found.images {
            let Err(why) = check_image(image.bytes, found.shape, Purpose::Check) else {
                continue;
            };
            let list = match why {
                NotDecoded::Broken(_) => &mut out.undecodable,
                NotDecoded::TooLarge(_) => &mut out.not_decoded,
            };
            list.push(Undecodable {
                record: frame.index,
                frame: frame.region(),
                feature: image.name.clone(),
                step: image.step,
                value: image.value,
                at: range.start.offset_by(image.span.start),
                reason: why.reason().to_string(),
            });
        }
    }
    out
}

/// Checks that `bytes` decode completely as the image they claim to be, within the budget of
/// `purpose`, and that an encoded image's size matches the declared (height, width, channels)
/// when there is one. `Err` says why not: broken, or too large to decode (a note).
pub fn check_image(
    bytes: &[u8],
    declared: Option<(u32, u32, u32)>,
    purpose: Purpose,
) -> Result<(), NotDecoded> {
    check_structure(bytes, declared).map_err(NotDecoded::Broken)?;
    if sniff_format(bytes).is_none() {
        return Ok(());
    }
    let name = ImageHeader::read(bytes).map_or("image", |h| h.format);
    let named = |e: NotDecoded| match e {
        NotDecoded::Broken(why) => NotDecoded::Broken(format!("{name} {why}")),
        NotDecoded::TooLarge(why) => NotDecoded::TooLarge(format!("{name} {why}")),
    };
    let large = decode_cost(bytes).map_err(named)?.bytes > ALONGSIDE_BYTES;
    // A poisoned lock only means another decode panicked; the lock guards no data.
    let _turn = large.then(|| LARGE_DECODE.lock().unwrap_or_else(|e| e.into_inner()));
    decode_within(bytes, purpose).map(drop).map_err(named)
}

/// The checks of [`check_image`] that need no decoding: a JPEG's end-of-image marker, and the
/// size in an encoded image's header against the declared one. Cheap enough to run on every
/// image of a record whenever it is selected.
pub fn check_structure(bytes: &[u8], declared: Option<(u32, u32, u32)>) -> Result<(), String> {
    let Some(format) = sniff_format(bytes) else {
        // Raw pixels: found by a shape their length fits, so they always fill it.
        return match raw_shape(bytes.len(), declared) {
            Some(_) => Ok(()),
            None => Err(format!("{} bytes are no image", bytes.len())),
        };
    };
    let name = ImageHeader::read(bytes).map_or("image", |h| h.format);
    if format == ImageFormat::Jpeg && !jpeg_has_end(bytes) {
        return Err(format!(
            "truncated JPEG: no end-of-image marker after the image data ({} bytes)",
            bytes.len()
        ));
    }
    let size = ImageHeader::read(bytes).and_then(|h| h.size);
    if let (Some((height, width, _)), Some((w, h))) = (declared, size) {
        if (w, h) != (width, height) {
            return Err(format!(
                "{name} is {w}x{h} but the features declare {width}x{height} (width x height)"
            ));
        }
    }
    Ok(())
}

/// Whether a JPEG's entropy-coded data is followed by an end-of-image marker (FF D9): the
/// markers are walked from the start to the first start-of-scan, and the marker is looked for
/// after it.
fn jpeg_has_end(bytes: &[u8]) -> bool {
    let mut at = 2;
    let scan = loop {
        match (bytes.get(at), bytes.get(at + 1)) {
            (Some(0xff), Some(0xff)) => at += 1,
            (Some(0xff), Some(0xda)) => break at,
            (Some(0xff), Some(0xd9)) => return true,
            (Some(0xff), Some(marker)) if (0xd0..=0xd7).contains(marker) || *marker == 0x01 => {
                at += 2
            }
            (Some(0xff), Some(_)) => {
                let len = match (bytes.get(at + 2), bytes.get(at + 3)) {
                    (Some(hi), Some(lo)) => usize::from(*hi) << 8 | usize::from(*lo),
                    _ => return false,
                };
                at += 2 + len;
            }
            _ => return false,
        }
    };
    bytes
        .get(scan..)
        .is_some_and(|rest| rest.windows(2).any(|w| w == [0xff, 0xd9]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageEncoder, Rgb, RgbImage};

    fn jpeg(w: u32, h: u32) -> Vec<u8> {
        let image = RgbImage::from_fn(w, h, |x, y| Rgb([(x * 7) as u8, (y * 5) as u8, 90]));
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut out)
            .encode_image(&image)
            .unwrap();
        out
    }

    fn png(w: u32, h: u32) -> Vec<u8> {
        let image = RgbImage::from_fn(w, h, |x, y| Rgb([x as u8, y as u8, 3]));
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new(&mut out)
            .write_image(image.as_raw(), w, h, image::ExtendedColorType::Rgb8)
            .unwrap();
        out
    }

    fn check_image(bytes: &[u8], declared: Option<(u32, u32, u32)>) -> Result<(), String> {
        super::check_image(bytes, declared, Purpose::Check).map_err(|e| e.to_string())
    }

    #[test]
    fn whole_images_pass() {
        assert_eq!(check_image(&jpeg(40, 30), Some((30, 40, 3))), Ok(()));
        assert_eq!(check_image(&png(9, 4), None), Ok(()));
        assert_eq!(check_image(&[7; 784], None), Ok(()));
    }

    #[test]
    fn too_large_to_check_is_a_note() {
        let huge = crate::crafted::zero_png(20000, 20000);
        let note = super::check_image(&huge, None, Purpose::Check).unwrap_err();
        assert!(!note.is_broken(), "{note}");
        assert_eq!(
            note.reason(),
            "PNG not decoded: 20000x20000 needs 381.5 MiB to decode, over the 256 MiB an image may take"
        );
        // What a check decodes, a preview may not: weighed from the header, before any decoding.
        let big = crate::crafted::zero_png(8000, 8000);
        assert!(
            !super::check_image(&big, None, Purpose::Show)
                .unwrap_err()
                .is_broken()
        );
        let whole = crate::crafted::zero_png(300, 200);
        assert_eq!(super::check_image(&whole, None, Purpose::Show), Ok(()));
    }

    #[test]
    fn a_cut_jpeg_fails() {
        let whole = jpeg(40, 30);
        let cut = whole.get(..whole.len() * 2 / 3).unwrap();
        let why = check_image(cut, None).unwrap_err();
        assert!(why.starts_with("truncated JPEG"), "{why}");
        // Cut inside its header too.
        assert!(check_image(whole.get(..40).unwrap(), None).is_err());
    }

    #[test]
    fn a_png_with_a_bad_crc_fails() {
        let mut bad = png(9, 4);
        // The last byte of the IDAT chunk's CRC (the IEND chunk takes the last 12 bytes).
        let at = bad.len() - 13;
        *bad.get_mut(at).unwrap() ^= 0xff;
        let why = check_image(&bad, None).unwrap_err();
        assert!(why.starts_with("PNG"), "{why}");
        // The chunk is named, not shown in the decoder's debug form.
        assert!(why.contains("while decoding IDAT chunk"), "{why}");
        assert!(!why.contains("ChunkType"), "{why}");
    }

    #[test]
    fn a_size_other_than_declared_fails() {
        let why = check_image(&jpeg(40, 30), Some((30, 41, 3))).unwrap_err();
        assert_eq!(
            why,
            "JPEG is 40x30 but the features declare 41x30 (width x height)"
        );
    }
}
