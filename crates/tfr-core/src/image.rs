//! Recognising what a bytes value holds: an encoded image (by its magic bytes and header), raw
//! pixels of a well-known shape, text, or plain bytes. Only headers are read here; decoding
//! pixels is capped and happens only when a preview is asked for. An image is worded one way in
//! every view ([`ImageHeader`]'s `JPEG 320x213`).

use std::io::Cursor;

use image::{ImageFormat, ImageReader};

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
}

impl ImageHeader {
    /// The header of the encoded image `bytes` hold, if they hold one.
    pub fn read(bytes: &[u8]) -> Option<ImageHeader> {
        let (format, size) = encoded_image_info(bytes)?;
        Some(ImageHeader { format, size })
    }
}

/// The one wording of an image: `JPEG 320x213`, or the format alone when the size is unknown.
impl std::fmt::Display for ImageHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.size {
            Some((w, h)) => write!(f, "{} {w}x{h}", self.format),
            None => f.write_str(self.format),
        }
    }
}

/// A short description of a bytes value for annotations and summaries: an image and its size in
/// bytes, a string's first characters, or the size alone.
pub fn describe_bytes(bytes: &[u8], is_string: bool) -> String {
    if let Some(image) = ImageHeader::read(bytes) {
        let unreadable = if image.size.is_none() {
            " (header unreadable)"
        } else {
            ""
        };
        return format!(
            "{image}{unreadable}, {}",
            plural(bytes.len() as u64, "byte")
        );
    }
    let kind = if is_string { "string" } else { "bytes" };
    match std::str::from_utf8(bytes) {
        Ok(text)
            if !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t') =>
        {
            let shown: String = text.chars().take(48).collect();
            let more = if shown.len() < text.len() { "…" } else { "" };
            format!("{kind} {:?}{more}", shown)
        }
        _ => format!("{kind}, {}", plural(bytes.len() as u64, "byte")),
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

/// The raw pixel shape of `len` bytes: from a declared (height, width, channels) when it matches,
/// otherwise from well-known sizes (MNIST 28x28, CIFAR-10 32x32x3 channel-first).
pub fn raw_shape(len: usize, declared: Option<(u32, u32, u32)>) -> Option<RawShape> {
    if let Some((height, width, channels)) = declared {
        let expected = u64::from(height)
            .checked_mul(u64::from(width))
            .and_then(|n| n.checked_mul(u64::from(channels)));
        if expected == Some(len as u64) && matches!(channels, 1 | 3 | 4) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A black 3x2 PNG.
    const PNG_3X2: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x03\x00\x00\x00\x02\
        \x08\x02\x00\x00\x00\x12\x16\xf1\x4d\x00\x00\x00\x0bIDAT\x78\x9c\x63\x60\xc0\x04\x00\
        \x00\x14\x00\x01\x7d\xfe\x1e\xee\x00\x00\x00\x00IEND\xae\x42\x60\x82";

    #[test]
    fn an_image_is_worded_one_way_everywhere() {
        let png = ImageHeader::read(PNG_3X2).unwrap();
        assert_eq!(png.to_string(), "PNG 3x2");
        assert_eq!(describe_bytes(PNG_3X2, false), "PNG 3x2, 68 bytes");
        assert_eq!(crate::example::bytes_summary(PNG_3X2, None), "PNG 3x2");
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
