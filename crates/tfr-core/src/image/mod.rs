//! Recognising what a bytes value holds: an encoded image (by its magic bytes and header), raw
//! pixels of a well-known shape, text, or plain bytes; and decoding an image into pixels when a
//! preview is asked for. An image is worded one way in every view ([`ImageHeader`]'s
//! `JPEG 320x213`).
//!
//! Decoding is a pure function ([`decode_image`]) so tests can check that a CIFAR-style record
//! comes out the right way round; every decode is weighed first against the budget of what it is
//! for ([`budget`]), so a hostile header cannot make a viewer allocate gigabytes, and a broken or
//! too large image yields a reason, not an error.
//! Drawing the pixels is the front end's business; what is drawn over them (boxes, class names,
//! keypoints) is [`overlay`]'s, which images a record holds is [`found`]'s, and whether each
//! decodes completely is [`check`]'s.

pub mod budget;
pub mod check;
pub mod draw;
pub mod font;
pub mod found;
pub mod overlay;
pub mod pixels;

use std::io::Cursor;

use image::flat::{FlatSamples, SampleLayout};
use image::{DynamicImage, ImageFormat, ImageReader, Luma, Rgb, RgbImage, Rgba, imageops};

pub use budget::{
    DECODE_MAX_BYTES, DecodeCost, NotDecoded, PREVIEW_MAX_SIDE, Purpose, SHOW_MAX_PIXELS,
    decode_cost, decode_within, into_rgb_in_place, reduced_rgb,
};

use crate::escape::looks_like_text;
use crate::words::plural;

/// The encoded image formats recognised by magic bytes.
pub fn sniff_format(bytes: &[u8]) -> Option<ImageFormat> {
    let format = match bytes {
        [0xff, 0xd8, 0xff, ..] => ImageFormat::Jpeg,
        [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, ..] => ImageFormat::Png,
        [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => ImageFormat::Gif,
        [b'B', b'M', ..] if bytes.len() > 26 => ImageFormat::Bmp,
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => ImageFormat::WebP,
        _ => return None,
    };
    Some(format)
}

/// Every format name [`encoded_image_info`] gives.
pub const FORMAT_NAMES: [&str; 6] = ["JPEG", "PNG", "GIF", "BMP", "WebP", "image"];

/// Format name and dimensions from an encoded image's header, e.g. ("JPEG", Some((320, 213))).
pub fn encoded_image_info(bytes: &[u8]) -> Option<(&'static str, Option<(u32, u32)>)> {
    let format = sniff_format(bytes)?;
    let name = match format {
        ImageFormat::Jpeg => "JPEG",
        ImageFormat::Png => "PNG",
        ImageFormat::Gif => "GIF",
        ImageFormat::Bmp => "BMP",
        ImageFormat::WebP => "WebP",
        _ => "image",
    };
    let dims = ImageReader::with_format(Cursor::new(bytes), format)
        .into_dimensions()
        .ok();
    Some((name, dims))
}

/// An encoded image as its header describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageHeader {
    /// `JPEG`, `PNG`, `GIF`, `BMP` or `WebP`.
    pub format: &'static str,
    /// Width and height, when the header can be read.
    pub size: Option<(u32, u32)>,
    /// Colour type and bits per channel, when the header says them.
    pub pixels: Option<pixels::PixelFormat>,
}

impl ImageHeader {
    /// The header of the encoded image `bytes` hold, if they hold one.
    pub fn read(bytes: &[u8]) -> Option<ImageHeader> {
        let (format, size) = encoded_image_info(bytes)?;
        let pixels = sniff_format(bytes).and_then(|f| pixels::pixel_format(bytes, f));
        Some(ImageHeader {
            format,
            size,
            pixels,
        })
    }
}

/// The one wording of an image: `JPEG 320x213 RGB`, `PNG 30x20 16-bit gray`, or as much of it as
/// the header says.
impl std::fmt::Display for ImageHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.format)?;
        if let Some((w, h)) = self.size {
            write!(f, " {w}x{h}")?;
        }
        if let Some(pixels) = self.pixels {
            write!(f, " {pixels}")?;
        }
        Ok(())
    }
}

/// A short description of a bytes value for annotations and summaries: an image and its size in
/// bytes, a string's first characters, or the size alone.
pub fn describe_bytes(bytes: &[u8], is_string: bool) -> String {
    describe_bytes_in(bytes, is_string, crate::words::Radix::Decimal)
}

/// [`describe_bytes`], the byte count written in `radix`.
pub fn describe_bytes_in(bytes: &[u8], is_string: bool, radix: crate::words::Radix) -> String {
    let size = radix.bytes(bytes.len() as u64);
    if let Some(image) = ImageHeader::read(bytes) {
        let unreadable = if image.size.is_none() {
            " (header unreadable)"
        } else {
            ""
        };
        return format!("{image}{unreadable}, {size}");
    }
    let kind = if is_string { "string" } else { "bytes" };
    match crate::words::text_start(bytes) {
        Some((shown, more)) => format!("{kind} {:?}{more}", shown),
        None => format!("{kind}, {size}"),
    }
}

/// How raw pixel bytes are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Interleaved channels, row by row (height x width x channels).
    Hwc,
    /// One plane per channel (channels x height x width), as CIFAR-10 stores images.
    Chw,
}

/// A raw uint8 image shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawShape {
    pub height: u32,
    pub width: u32,
    pub channels: u32,
    pub layout: Layout,
}

impl RawShape {
    pub fn describe(&self) -> String {
        let layout = match (self.channels, self.layout) {
            (1, _) => "grayscale",
            (_, Layout::Chw) => "channel-first",
            (_, Layout::Hwc) => "interleaved",
        };
        format!(
            "{}x{}x{} uint8 {layout}",
            self.height, self.width, self.channels
        )
    }
}

/// Fewer pixels than this are no plausible raw image: three bytes beside a declared 1x1x3 shape
/// are the text `"png"`, not a pixel.
pub const MIN_RAW_PIXELS: u64 = 16;

/// The raw pixel shape of `len` bytes: from a declared (height, width, channels) when it matches
/// and makes at least [`MIN_RAW_PIXELS`] pixels, otherwise from well-known sizes (MNIST 28x28,
/// CIFAR-10 32x32x3 channel-first).
pub fn raw_shape(len: usize, declared: Option<(u32, u32, u32)>) -> Option<RawShape> {
    if let Some((height, width, channels)) = declared {
        let pixels = u64::from(height).checked_mul(u64::from(width));
        let expected = pixels.and_then(|n| n.checked_mul(u64::from(channels)));
        let plausible = pixels.is_some_and(|p| p >= MIN_RAW_PIXELS);
        if expected == Some(len as u64) && plausible && matches!(channels, 1 | 3 | 4) {
            return Some(RawShape {
                height,
                width,
                channels,
                layout: Layout::Hwc,
            });
        }
    }
    match len {
        0 => None,
        784 => Some(RawShape {
            height: 28,
            width: 28,
            channels: 1,
            layout: Layout::Hwc,
        }),
        3072 => Some(RawShape {
            height: 32,
            width: 32,
            channels: 3,
            layout: Layout::Chw,
        }),
        _ => None,
    }
}

/// Decoded pixels with a line saying what they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The pixels, reduced when the image is larger than what they were decoded for.
    pub pixels: RgbImage,
    /// The image's own width and height (what boxes measured in pixels are measured against).
    pub size: (u32, u32),
    /// E.g. `JPEG 64x48, 1234 bytes` or `raw 32x32x3 uint8 channel-first`, and `reduced to
    /// 4096x2048` when the pixels are.
    pub description: String,
}

/// Whether `bytes` look like an image: encoded, or raw pixels of a known or declared shape that
/// do not read as text.
pub fn is_image(bytes: &[u8], declared: Option<(u32, u32, u32)>) -> bool {
    sniff_format(bytes).is_some()
        || (raw_shape(bytes.len(), declared).is_some() && !looks_like_text(bytes))
}

/// Decodes `bytes` as an image for a preview, within [`SHOW_MAX_PIXELS`] and reduced to
/// [`PREVIEW_MAX_SIDE`]: `None` when they are not one, `Some(Err(_))` when they look like one but
/// are not decoded (broken, or too large to show).
pub fn decode_image(
    bytes: &[u8],
    declared: Option<(u32, u32, u32)>,
) -> Option<Result<Picture, NotDecoded>> {
    decode_picture(bytes, declared, PREVIEW_MAX_SIDE)
}

/// Decodes `bytes` as an image to be shown, within [`SHOW_MAX_PIXELS`], reduced to fit
/// `max_side` x `max_side` (`u32::MAX` keeps the full size).
pub fn decode_picture(
    bytes: &[u8],
    declared: Option<(u32, u32, u32)>,
    max_side: u32,
) -> Option<Result<Picture, NotDecoded>> {
    if let Some(header) = ImageHeader::read(bytes) {
        let description = format!("{header}, {}", plural(bytes.len() as u64, "byte"));
        return Some(decode_within(bytes, Purpose::Show).map(|image| {
            let size = (image.width(), image.height());
            picture(reduced_rgb(image, max_side), size, description)
        }));
    }
    let shape = raw_shape(bytes.len(), declared).filter(|_| !looks_like_text(bytes))?;
    let description = format!("raw {}", shape.describe());
    let size = (shape.width, shape.height);
    let fits = shape.width <= max_side && shape.height <= max_side;
    let pixels = if fits {
        let pixels = u64::from(shape.width) * u64::from(shape.height);
        if pixels > SHOW_MAX_PIXELS {
            let note = DecodeCost {
                width: shape.width,
                height: shape.height,
                bytes: pixels.saturating_mul(3),
            }
            .refused(Purpose::Show)
            .unwrap_or_default();
            return Some(Err(NotDecoded::TooLarge(note)));
        }
        raw_pixels(bytes, shape)
    } else {
        raw_reduced(bytes, shape, max_side)
    };
    Some(
        pixels
            .map(|pixels| picture(pixels, size, description))
            .ok_or_else(|| {
                NotDecoded::Broken(format!(
                    "{} bytes do not fill {}",
                    bytes.len(),
                    shape.describe()
                ))
            }),
    )
}

/// A picture of `pixels` of an image of `size`, saying when they are reduced.
fn picture(pixels: RgbImage, size: (u32, u32), description: String) -> Picture {
    let (w, h) = pixels.dimensions();
    let description = if (w, h) == size {
        description
    } else {
        format!("{description}, reduced to {w}x{h}")
    };
    Picture {
        pixels,
        size,
        description,
    }
}

/// Decodes an encoded image (JPEG, PNG, GIF, BMP, WebP) whole, within [`DECODE_MAX_BYTES`]: what
/// `verify --images` asks of every image.
pub fn decode_encoded(bytes: &[u8]) -> Result<DynamicImage, NotDecoded> {
    decode_within(bytes, Purpose::Check)
}

/// Raw pixels reduced to fit `max_side` x `max_side`, read where they lie: the only copy made is
/// the reduced one.
fn raw_reduced(bytes: &[u8], shape: RawShape, max_side: u32) -> Option<RgbImage> {
    let (w, h, c) = (
        usize::try_from(shape.width).ok()?,
        usize::try_from(shape.height).ok()?,
        usize::try_from(shape.channels).ok()?,
    );
    let plane = w.checked_mul(h)?;
    if plane.checked_mul(c)? != bytes.len() {
        return None;
    }
    let (channel_stride, width_stride, height_stride) = match shape.layout {
        Layout::Hwc => (1, c, w.checked_mul(c)?),
        Layout::Chw => (plane, 1, w),
    };
    let samples = FlatSamples {
        samples: bytes,
        layout: SampleLayout {
            channels: u8::try_from(shape.channels).ok()?,
            channel_stride,
            width: shape.width,
            width_stride,
            height: shape.height,
            height_stride,
        },
        color_hint: None,
    };
    let (tw, th) = fit(shape.width, shape.height, max_side);
    let reduced = match shape.channels {
        1 => DynamicImage::ImageLuma8(imageops::thumbnail(
            &samples.as_view::<Luma<u8>>().ok()?,
            tw,
            th,
        )),
        3 => DynamicImage::ImageRgb8(imageops::thumbnail(
            &samples.as_view::<Rgb<u8>>().ok()?,
            tw,
            th,
        )),
        4 => DynamicImage::ImageRgba8(imageops::thumbnail(
            &samples.as_view::<Rgba<u8>>().ok()?,
            tw,
            th,
        )),
        _ => return None,
    };
    Some(into_rgb_in_place(reduced))
}

/// `width` x `height` scaled (down) to fit `max_side` x `max_side`, keeping the aspect.
fn fit(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let longest = width.max(height).max(1);
    if longest <= max_side {
        return (width, height);
    }
    let scale = |side: u32| {
        let scaled = u64::from(side) * u64::from(max_side) / u64::from(longest);
        u32::try_from(scaled).unwrap_or(max_side).max(1)
    };
    (scale(width), scale(height))
}

/// Raw uint8 pixels as RGB: grayscale is spread to three channels, alpha dropped, and
/// channel-first data (CIFAR-10: plane R, then G, then B) interleaved.
pub fn raw_pixels(bytes: &[u8], shape: RawShape) -> Option<RgbImage> {
    let (w, h, c) = (
        usize::try_from(shape.width).ok()?,
        usize::try_from(shape.height).ok()?,
        usize::try_from(shape.channels).ok()?,
    );
    let plane = w.checked_mul(h)?;
    if plane.checked_mul(c)? != bytes.len() || !matches!(c, 1 | 3 | 4) {
        return None;
    }
    let mut out = RgbImage::new(shape.width, shape.height);
    for (i, pixel) in out.pixels_mut().enumerate() {
        let channel = |k: usize| -> Option<u8> {
            let k = if c == 1 { 0 } else { k };
            let at = match shape.layout {
                Layout::Hwc => i.checked_mul(c)?.checked_add(k)?,
                Layout::Chw => k.checked_mul(plane)?.checked_add(i)?,
            };
            bytes.get(at).copied()
        };
        *pixel = Rgb([channel(0)?, channel(1)?, channel(2)?]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_first_pixels_are_interleaved() {
        // 2x1 image, planes R = [1, 2], G = [3, 4], B = [5, 6].
        let shape = RawShape {
            height: 1,
            width: 2,
            channels: 3,
            layout: Layout::Chw,
        };
        let image = raw_pixels(&[1, 2, 3, 4, 5, 6], shape).unwrap();
        assert_eq!(image.get_pixel(0, 0).0, [1, 3, 5]);
        assert_eq!(image.get_pixel(1, 0).0, [2, 4, 6]);
        // Grayscale is spread to all three channels; a wrong length is refused.
        let gray = RawShape {
            channels: 1,
            layout: Layout::Hwc,
            ..shape
        };
        assert_eq!(raw_pixels(&[7, 9], gray).unwrap().get_pixel(1, 0).0, [9; 3]);
        assert!(raw_pixels(&[7, 9, 1], gray).is_none());
    }

    #[test]
    fn broken_encoded_image_says_why() {
        let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
        png.extend_from_slice(&[0; 20]);
        let err = decode_image(&png, None).unwrap().unwrap_err();
        assert!(err.is_broken(), "{err}");
        assert!(err.reason().starts_with("cannot decode"), "{err}");
        assert!(decode_image(b"plain text", None).is_none());
    }

    /// A black 3x2 PNG.
    const PNG_3X2: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x03\x00\x00\x00\x02\
        \x08\x02\x00\x00\x00\x12\x16\xf1\x4d\x00\x00\x00\x0bIDAT\x78\x9c\x63\x60\xc0\x04\x00\
        \x00\x14\x00\x01\x7d\xfe\x1e\xee\x00\x00\x00\x00IEND\xae\x42\x60\x82";

    #[test]
    fn an_image_is_worded_one_way_everywhere() {
        let png = ImageHeader::read(PNG_3X2).unwrap();
        assert_eq!(png.to_string(), "PNG 3x2 RGB");
        assert_eq!(describe_bytes(PNG_3X2, false), "PNG 3x2 RGB, 68 bytes");
        assert_eq!(crate::example::bytes_summary(PNG_3X2, None), "PNG 3x2 RGB");
        // A header cut short: the format alone.
        let cut = PNG_3X2.get(..12).unwrap();
        assert_eq!(ImageHeader::read(cut).unwrap().to_string(), "PNG");
        assert_eq!(
            describe_bytes(cut, false),
            "PNG (header unreadable), 12 bytes"
        );
        assert_eq!(crate::example::bytes_summary(cut, None), "PNG, 12 bytes");
        assert_eq!(ImageHeader::read(b"not an image"), None);
    }
}
