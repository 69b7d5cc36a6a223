//! How an encoded image stores its pixels (colour type and bits per channel), read from its header
//! without decoding it: the PNG `IHDR`, the JPEG start-of-frame segment, the BMP info header, the
//! WebP chunk header. A GIF is always a palette.

use image::ImageFormat;

/// An image's colour type and bits per channel, as its header declares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelFormat {
    /// `gray`, `gray+alpha`, `RGB`, `RGBA`, `palette` or `CMYK`.
    pub colour: &'static str,
    /// Bits per channel (per pixel for a palette).
    pub bits: u8,
}

/// `RGBA`, `16-bit gray`, `4-bit palette`: the bits only when they are not 8.
impl std::fmt::Display for PixelFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.bits != 8 {
            write!(f, "{}-bit ", self.bits)?;
        }
        f.write_str(self.colour)
    }
}

/// The pixel format the header of `bytes`, an image of `format`, declares.
pub fn pixel_format(bytes: &[u8], format: ImageFormat) -> Option<PixelFormat> {
    let at = |i: usize| bytes.get(i).copied();
    let of = |colour, bits| Some(PixelFormat { colour, bits });
    match format {
        ImageFormat::Png => {
            // The signature, then IHDR: length, type, width, height, bit depth, colour type.
            if bytes.get(12..16)? != b"IHDR" {
                return None;
            }
            let colour = match at(25)? {
                0 => "gray",
                2 => "RGB",
                3 => "palette",
                4 => "gray+alpha",
                6 => "RGBA",
                _ => return None,
            };
            of(colour, at(24)?)
        }
        ImageFormat::Jpeg => jpeg(bytes),
        ImageFormat::Gif => of("palette", 8),
        ImageFormat::Bmp => {
            // After the 14-byte file header: the info header's size, then (for the old 12-byte
            // core header) 16-bit or (for the others) 32-bit width and height, planes, bits.
            let size = u32::from_le_bytes(bytes.get(14..18)?.try_into().ok()?);
            let bits_at = if size == 12 { 24 } else { 28 };
            let bits = u16::from_le_bytes([at(bits_at)?, at(bits_at + 1)?]);
            // An alpha mask (in headers of 56 bytes or more) makes 32 bits RGBA.
            let alpha = size >= 56
                && bytes
                    .get(66..70)
                    .is_some_and(|mask| mask.iter().any(|b| *b != 0));
            match bits {
                1 | 2 | 4 | 8 => of("palette", u8::try_from(bits).ok()?),
                16 | 24 => of("RGB", 8),
                32 if alpha => of("RGBA", 8),
                32 => of("RGB", 8),
                _ => None,
            }
        }
        ImageFormat::WebP => match bytes.get(12..16)? {
            b"VP8 " => of("RGB", 8),
            // The lossless header's alpha bit: bit 28 of the four bytes after the signature.
            b"VP8L" => of(if at(24)? & 0x10 != 0 { "RGBA" } else { "RGB" }, 8),
            b"VP8X" => of(if at(20)? & 0x10 != 0 { "RGBA" } else { "RGB" }, 8),
            _ => None,
        },
        _ => None,
    }
}

/// The start-of-frame segment's precision and component count: the segments before it are
/// skipped by their lengths, each step moving forward, so a crafted stream ends the walk at the
/// end of the bytes.
fn jpeg(bytes: &[u8]) -> Option<PixelFormat> {
    let mut at = 2usize;
    loop {
        if *bytes.get(at)? != 0xff {
            return None;
        }
        while *bytes.get(at)? == 0xff {
            at += 1;
        }
        let marker = *bytes.get(at)?;
        at += 1;
        match marker {
            // Markers without a length.
            0x01 | 0xd0..=0xd8 => continue,
            // The scan or the end, before any frame header.
            0xd9 | 0xda => return None,
            // Start of frame (not DHT, JPG or DAC): length, precision, height, width, components.
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                let precision = *bytes.get(at + 2)?;
                let colour = match *bytes.get(at + 7)? {
                    1 => "gray",
                    3 => "RGB",
                    4 => "CMYK",
                    _ => return None,
                };
                return Some(PixelFormat {
                    colour,
                    bits: precision,
                });
            }
            _ => {
                let length =
                    usize::from(u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]));
                if length < 2 {
                    return None;
                }
                at = at.checked_add(length)?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ExtendedColorType, ImageEncoder};

    fn png(width: u32, height: u32, colour: ExtendedColorType) -> Vec<u8> {
        let bytes_per_pixel = usize::from(colour.bits_per_pixel() / 8);
        let pixels = vec![0u8; width as usize * height as usize * bytes_per_pixel];
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new(&mut out)
            .write_image(&pixels, width, height, colour)
            .unwrap();
        out
    }

    #[test]
    fn png_headers_say_colour_and_depth() {
        let format = |bytes: &[u8]| pixel_format(bytes, ImageFormat::Png).map(|p| p.to_string());
        assert_eq!(
            format(&png(30, 20, ExtendedColorType::Rgba8)).as_deref(),
            Some("RGBA")
        );
        assert_eq!(
            format(&png(3, 2, ExtendedColorType::L16)).as_deref(),
            Some("16-bit gray")
        );
        assert_eq!(
            format(&png(3, 2, ExtendedColorType::La8)).as_deref(),
            Some("gray+alpha")
        );
        assert_eq!(
            format(&png(3, 2, ExtendedColorType::Rgb8)).as_deref(),
            Some("RGB")
        );
        assert_eq!(format(&png(3, 2, ExtendedColorType::Rgb8)[..20]), None);
    }

    #[test]
    fn jpeg_frame_headers_say_components_and_precision() {
        let mut gray = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut gray)
            .write_image(&[128u8; 64], 8, 8, ExtendedColorType::L8)
            .unwrap();
        assert_eq!(
            pixel_format(&gray, ImageFormat::Jpeg)
                .map(|p| p.to_string())
                .as_deref(),
            Some("gray")
        );
        let mut rgb = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut rgb)
            .write_image(&[128u8; 192], 8, 8, ExtendedColorType::Rgb8)
            .unwrap();
        assert_eq!(
            pixel_format(&rgb, ImageFormat::Jpeg)
                .map(|p| p.to_string())
                .as_deref(),
            Some("RGB")
        );
        // A 12-bit frame header after an APP0 segment.
        let crafted = [
            0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc1, 0x00, 0x0b, 12, 0x00, 0x08,
            0x00, 0x08, 0x01, 0x01, 0x11, 0x00,
        ];
        assert_eq!(
            pixel_format(&crafted, ImageFormat::Jpeg)
                .map(|p| p.to_string())
                .as_deref(),
            Some("12-bit gray")
        );
        // A segment length of zero, and a stream cut inside a length, end the walk.
        assert_eq!(
            pixel_format(&[0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00], ImageFormat::Jpeg),
            None
        );
        assert_eq!(
            pixel_format(&[0xff, 0xd8, 0xff, 0xe0, 0x00], ImageFormat::Jpeg),
            None
        );
        assert_eq!(
            pixel_format(&[0xff, 0xd8, 0xff, 0xff, 0xff], ImageFormat::Jpeg),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_read_without_panic(
            tail in proptest::collection::vec(proptest::num::u8::ANY, 0..200)
        ) {
            for head in [&[0xff, 0xd8, 0xff][..], b"\x89PNG\r\n\x1a\n", b"BM", b"GIF89a"] {
                let bytes = [head, &tail].concat();
                for format in [ImageFormat::Jpeg, ImageFormat::Png, ImageFormat::Bmp, ImageFormat::WebP] {
                    let _ = pixel_format(&bytes, format);
                }
            }
        }
    }
}
