//! What decoding an image may cost, and decoding within it.
//!
//! A few hundred kilobytes of PNG can declare a 16384x16383 image, and a record can hold dozens of
//! them: decoded whole, each costs its width times its height times its channels in memory, and
//! seconds. So every decode first reads the header and weighs what the decoder will hold
//! ([`decode_cost`]): an image over the budget of its purpose is not decoded, and says so in a note
//! ([`NotDecoded::TooLarge`]), which is never damage. Images are shown (previews, thumbnails,
//! masks, drawn boxes) within [`SHOW_MAX_PIXELS`] and checked whole (`verify --images`) within
//! [`DECODE_MAX_BYTES`]; what is kept for showing is reduced to [`PREVIEW_MAX_SIDE`] straight from
//! the decoder's own buffer, and a full-size RGB copy is made in that buffer
//! ([`into_rgb_in_place`]), never beside it.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageError, ImageFormat, ImageReader, Limits, RgbImage};

use super::sniff_format;

/// Most memory one decode may hold: the decoder's output buffer (the image in its own colour type,
/// one byte a pixel for 8-bit grey, eight for 16-bit RGBA) plus what the format's decoder keeps
/// beside it (see [`decode_cost`]). 256 MiB holds a 16384x16384 grey PNG or an 80-megapixel RGB
/// PNG, more than any photograph; `verify --images` checks every image within it.
pub const DECODE_MAX_BYTES: u64 = 256 << 20;

/// Most pixels an image may have to be decoded to be shown: a preview, a thumbnail of
/// `images --sheet`, an instance mask, a PNG with boxes drawn. 50 megapixels is above any camera's
/// frame (a 48-megapixel phone photo is 8000x6000), so only crafted or scientific images are left
/// out, each with a note; one decodes in well under a second.
pub const SHOW_MAX_PIXELS: u64 = 50_000_000;

/// Longest side of the pixels a preview keeps: more than a full-screen terminal shows (a 4K screen
/// is 3840 pixels wide). A larger image is reduced once, from the decoder's buffer, so a preview
/// holds at most 4096x4096 RGB (48 MiB) however large the image.
pub const PREVIEW_MAX_SIDE: u32 = 4096;

/// What an image is decoded for, and so the budget it is decoded within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// To be shown or drawn on: at most [`SHOW_MAX_PIXELS`] and [`DECODE_MAX_BYTES`].
    Show,
    /// To check that it decodes completely: at most [`DECODE_MAX_BYTES`].
    Check,
}

/// Why an image was not decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotDecoded {
    /// Its bytes do not decode (damage), and why.
    Broken(String),
    /// It is larger than the budget it was to be decoded within (a note, not damage), and by how much.
    TooLarge(String),
}

impl NotDecoded {
    pub fn is_broken(&self) -> bool {
        matches!(self, NotDecoded::Broken(_))
    }

    /// The reason in words.
    pub fn reason(&self) -> &str {
        match self {
            NotDecoded::Broken(why) | NotDecoded::TooLarge(why) => why,
        }
    }
}

impl std::fmt::Display for NotDecoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

/// The weight of one decode, read from the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeCost {
    pub width: u32,
    pub height: u32,
    /// Bytes the decoder holds at once (see [`decode_cost`]).
    pub bytes: u64,
}

impl DecodeCost {
    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// `None` when `purpose` allows this decode, else the note saying why not.
    pub fn refused(&self, purpose: Purpose) -> Option<String> {
        let (w, h) = (self.width, self.height);
        if purpose == Purpose::Show && self.pixels() > SHOW_MAX_PIXELS {
            return Some(format!(
                "not decoded: {w}x{h} is {} megapixels, over the {} an image is decoded to be shown",
                megapixels(self.pixels()),
                SHOW_MAX_PIXELS / 1_000_000
            ));
        }
        if self.bytes > DECODE_MAX_BYTES {
            return Some(format!(
                "not decoded: {w}x{h} needs {} MiB to decode, over the {} MiB an image may take",
                mebibytes(self.bytes),
                DECODE_MAX_BYTES >> 20
            ));
        }
        None
    }
}

/// `268.4`: megapixels to one decimal, rounded.
fn megapixels(pixels: u64) -> String {
    format!("{:.1}", pixels as f64 / 1e6)
}

/// `1536.0`: MiB to one decimal, rounded.
fn mebibytes(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / f64::from(1u32 << 20))
}

/// A decoder for `bytes`, with no size limit of its own but [`DECODE_MAX_BYTES`] of allocation
/// (the costs are weighed by [`decode_cost`] before anything is decoded).
fn decoder(bytes: &[u8]) -> Result<(ImageFormat, impl ImageDecoder + '_), NotDecoded> {
    let format =
        sniff_format(bytes).ok_or(NotDecoded::Broken("not a known image format".into()))?;
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = None;
    limits.max_image_height = None;
    limits.max_alloc = Some(DECODE_MAX_BYTES);
    reader.limits(limits);
    let decoder = reader.into_decoder().map_err(not_decoded)?;
    Ok((format, decoder))
}

/// What decoding `bytes` costs, from the header alone.
pub fn decode_cost(bytes: &[u8]) -> Result<DecodeCost, NotDecoded> {
    let (format, decoder) = decoder(bytes)?;
    Ok(cost_of(format, &decoder, bytes))
}

/// The output buffer, plus what the format's decoder keeps beside it: for a JPEG a copy of its
/// encoded bytes (the decoder reads them whole) and, when it is progressive, two bytes of DCT
/// coefficients per sample of each component at its sampling (it keeps all of them until its last
/// scan; a baseline JPEG is decoded a row of blocks at a time); for a GIF or WebP a second
/// frame-sized buffer (the canvas, or the lossless ARGB / lossy YUV planes). PNG and BMP decode row
/// by row into the output.
fn cost_of(format: ImageFormat, decoder: &impl ImageDecoder, bytes: &[u8]) -> DecodeCost {
    let (width, height) = decoder.dimensions();
    let output = decoder.total_bytes();
    let pixels = u64::from(width) * u64::from(height);
    let beside = match format {
        ImageFormat::Jpeg => {
            jpeg_coefficient_bytes(bytes, pixels).saturating_add(bytes.len() as u64)
        }
        ImageFormat::Gif | ImageFormat::WebP => output,
        _ => 0,
    };
    DecodeCost {
        width,
        height,
        bytes: output.saturating_add(beside),
    }
}

/// Decodes the encoded image `bytes` in its own colour type, if `purpose` allows what it costs.
pub fn decode_within(bytes: &[u8], purpose: Purpose) -> Result<DynamicImage, NotDecoded> {
    let (format, decoder) = decoder(bytes)?;
    if let Some(note) = cost_of(format, &decoder, bytes).refused(purpose) {
        return Err(NotDecoded::TooLarge(note));
    }
    DynamicImage::from_decoder(decoder).map_err(not_decoded)
}

/// A decoder's error as a reason: a limit it met is a note, anything else damage.
fn not_decoded(e: ImageError) -> NotDecoded {
    let why = plain_chunk_names(&e.to_string());
    match e {
        ImageError::Limits(_) => NotDecoded::TooLarge(format!("not decoded: {why}")),
        _ => NotDecoded::Broken(format!("cannot decode: {why}")),
    }
}

/// A decoder's message with the PNG decoder's debug form of a chunk type
/// (`ChunkType { type: IDAT, critical: true, … }`) reduced to the chunk's name (`IDAT`).
fn plain_chunk_names(message: &str) -> String {
    const OPEN: &str = "ChunkType { type: ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let name_end = after.find([',', ' ', '}']).unwrap_or(after.len());
        out.push_str(&after[..name_end]);
        rest = after.find('}').map_or("", |close| &after[close + 1..]);
    }
    out.push_str(rest);
    out
}

/// Bytes of DCT coefficients a JPEG decoder keeps for an image of `pixels`: none for a baseline
/// JPEG; for a progressive one two bytes per sample of each component its frame header (SOFn)
/// declares, at the component's sampling. A header that does not read counts as four full
/// components (CMYK).
fn jpeg_coefficient_bytes(bytes: &[u8], pixels: u64) -> u64 {
    let Some((kind, components)) = jpeg_frame(bytes) else {
        return pixels.saturating_mul(8);
    };
    // SOF2, SOF6, SOF10 and SOF14 are the progressive ones.
    if !matches!(kind, 0xc2 | 0xc6 | 0xca | 0xce) {
        return 0;
    }
    let most = |f: fn(u8) -> u8| {
        components
            .chunks(3)
            .filter_map(|c| c.get(1).copied())
            .map(f)
            .max()
    };
    let (Some(h_max), Some(v_max)) = (most(|s| s >> 4), most(|s| s & 15)) else {
        return 0;
    };
    let full = u64::from(h_max.max(1)) * u64::from(v_max.max(1));
    components
        .chunks(3)
        .filter_map(|c| c.get(1))
        .map(|s| {
            let share = u64::from(s >> 4) * u64::from(s & 15);
            pixels.saturating_mul(2 * share).div_ceil(full)
        })
        .fold(0, u64::saturating_add)
}

/// A JPEG's frame header: its marker (`0xc0` baseline, `0xc2` progressive…) and its component
/// specifications (id, sampling factors, quantisation table: three bytes each).
fn jpeg_frame(bytes: &[u8]) -> Option<(u8, &[u8])> {
    let mut at = 2usize;
    loop {
        let (&mark, &kind) = (bytes.get(at)?, bytes.get(at.checked_add(1)?)?);
        if mark != 0xff {
            return None;
        }
        match kind {
            0xff => at = at.checked_add(1)?,
            0xd0..=0xd7 | 0x01 => at = at.checked_add(2)?,
            0xd9 | 0xda => return None,
            // SOF0..SOF15, but DHT (C4), JPG (C8) and DAC (CC).
            0xc0..=0xcf if !matches!(kind, 0xc4 | 0xc8 | 0xcc) => {
                let count = usize::from(*bytes.get(at.checked_add(9)?)?);
                let start = at.checked_add(10)?;
                let specs = bytes.get(start..start.checked_add(count.checked_mul(3)?)?)?;
                return Some((kind, specs));
            }
            _ => {
                let hi = usize::from(*bytes.get(at.checked_add(2)?)?);
                let lo = usize::from(*bytes.get(at.checked_add(3)?)?);
                at = at.checked_add(2)?.checked_add(hi << 8 | lo)?;
            }
        }
    }
}

/// `image` reduced to fit `max_side` x `max_side` (kept as it is when it fits), as RGB: reduced in
/// its own colour type first, so the RGB copy is the small one.
pub fn reduced_rgb(image: DynamicImage, max_side: u32) -> RgbImage {
    if image.width() <= max_side && image.height() <= max_side {
        return into_rgb_in_place(image);
    }
    into_rgb_in_place(image.thumbnail(max_side, max_side))
}

/// `image` as 8-bit RGB, converted in its own buffer where it is 8-bit: grey and grey-alpha are
/// spread to three channels within the buffer grown in place, RGBA's alpha dropped within it. A
/// 16-bit or float image becomes 8-bit first (a smaller buffer than its own).
pub fn into_rgb_in_place(image: DynamicImage) -> RgbImage {
    let (width, height) = (image.width(), image.height());
    let image = match image {
        DynamicImage::ImageLuma16(_) => DynamicImage::ImageLuma8(image.to_luma8()),
        DynamicImage::ImageLumaA16(_) => DynamicImage::ImageLumaA8(image.to_luma_alpha8()),
        DynamicImage::ImageRgba16(_) | DynamicImage::ImageRgba32F(_) => {
            DynamicImage::ImageRgba8(image.to_rgba8())
        }
        other => other,
    };
    let (channels, mut samples) = match image {
        DynamicImage::ImageRgb8(rgb) => return rgb,
        DynamicImage::ImageLuma8(grey) => (1, grey.into_raw()),
        DynamicImage::ImageLumaA8(grey) => (2, grey.into_raw()),
        DynamicImage::ImageRgba8(rgba) => (4, rgba.into_raw()),
        other => return other.into_rgb8(),
    };
    let pixels = samples.len() / channels;
    if channels < 3 {
        // From the last pixel back: pixel i's three samples land at 3i.., at or after its own at
        // channels*i, so no pixel is overwritten before it is read.
        samples.resize(pixels * 3, 0);
        for i in (0..pixels).rev() {
            let Some(&grey) = samples.get(i * channels) else {
                continue;
            };
            if let Some(rgb) = samples.get_mut(i * 3..i * 3 + 3) {
                rgb.fill(grey);
            }
        }
    } else {
        // From the first pixel on: pixel i's samples land at 3i.., before its own at 4i.
        for i in 0..pixels {
            let Some(&[r, g, b, _]) = samples.get(i * 4..i * 4 + 4) else {
                continue;
            };
            if let Some(rgb) = samples.get_mut(i * 3..i * 3 + 3) {
                rgb.copy_from_slice(&[r, g, b]);
            }
        }
        samples.truncate(pixels * 3);
        samples.shrink_to_fit();
    }
    RgbImage::from_raw(width, height, samples).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ExtendedColorType, ImageEncoder, Rgba, RgbaImage};

    fn png(width: u32, height: u32, colour: ExtendedColorType, samples: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new(&mut out)
            .write_image(samples, width, height, colour)
            .unwrap();
        out
    }

    #[test]
    fn conversion_in_place_gives_what_a_copy_gives() {
        let rgba = RgbaImage::from_fn(5, 3, |x, y| Rgba([x as u8 * 40, y as u8 * 70, 9, 200]));
        for image in [
            DynamicImage::ImageRgba8(rgba.clone()),
            DynamicImage::ImageRgba8(rgba.clone()).grayscale(),
            DynamicImage::ImageLumaA8(DynamicImage::ImageRgba8(rgba.clone()).to_luma_alpha8()),
            DynamicImage::ImageRgb16(DynamicImage::ImageRgba8(rgba.clone()).to_rgb16()),
            DynamicImage::ImageLuma16(DynamicImage::ImageRgba8(rgba.clone()).to_luma16()),
            DynamicImage::ImageRgb8(DynamicImage::ImageRgba8(rgba.clone()).to_rgb8()),
        ] {
            let want = image.to_rgb8();
            assert_eq!(
                into_rgb_in_place(image.clone()),
                want,
                "{:?}",
                image.color()
            );
        }
    }

    #[test]
    fn a_large_image_is_a_note_and_a_wide_one_decodes() {
        // 20000x2: wider than any side limit, tiny in pixels.
        let wide = png(20000, 2, ExtendedColorType::L8, &vec![7; 40000]);
        let image = decode_within(&wide, Purpose::Check).unwrap();
        assert_eq!((image.width(), image.height()), (20000, 2));
        // 8000x8000 grey: 64 megapixels, 61 MiB: checked, not shown.
        let big = crate::crafted::zero_png(8000, 8000);
        let cost = decode_cost(&big).unwrap();
        assert_eq!((cost.pixels(), cost.bytes), (64_000_000, 64_000_000));
        let note = decode_within(&big, Purpose::Show).unwrap_err();
        assert_eq!(
            note,
            NotDecoded::TooLarge(
                "not decoded: 8000x8000 is 64.0 megapixels, over the 50 an image is decoded to be shown"
                    .into()
            )
        );
        assert_eq!(cost.refused(Purpose::Check), None);
        // 20000x20000 grey: 381.5 MiB, over what a check may take.
        let huge = decode_cost(&crate::crafted::zero_png(20000, 20000)).unwrap();
        assert_eq!(
            huge.refused(Purpose::Check).unwrap(),
            "not decoded: 20000x20000 needs 381.5 MiB to decode, over the 256 MiB an image may take"
        );
    }

    #[test]
    fn jpeg_costs_count_the_coefficients_a_progressive_one_keeps() {
        let rgb = RgbImage::from_fn(16, 8, |x, _| image::Rgb([x as u8, 1, 2]));
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
            .encode_image(&rgb)
            .unwrap();
        // Baseline: a copy of the bytes, decoded a row of blocks at a time into 3 bytes a pixel.
        assert_eq!(
            jpeg_frame(&jpeg).map(|(kind, c)| (kind, c.len())),
            Some((0xc0, 9))
        );
        assert_eq!(
            decode_cost(&jpeg).unwrap().bytes,
            16 * 8 * 3 + jpeg.len() as u64
        );
        // Progressive 4:2:0 (SOF2: Y sampled 2x2, Cb and Cr 1x1): 2 bytes a Y sample, and a
        // quarter of that for each chroma plane.
        let sof2 = [
            0xff, 0xd8, 0xff, 0xc2, 0, 17, 8, 0, 100, 0, 200, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
        ];
        assert_eq!(jpeg_coefficient_bytes(&sof2, 20_000), 40_000 + 2 * 10_000);
        // A header cut short counts as the worst: four full components.
        assert_eq!(jpeg_frame(sof2.get(..12).unwrap()), None);
        assert_eq!(jpeg_coefficient_bytes(sof2.get(..12).unwrap(), 100), 800);
    }
}
