//! Image previews: bytes to pixels, and pixels to terminal cells.
//!
//! Decoding is a pure function ([`decode_image`]) so tests can check that a CIFAR-style record
//! comes out the right way round; encoded images are decoded with [`Limits`] so a hostile header
//! cannot make the inspector allocate gigabytes, and a broken image yields a reason, not an error.
//! The [`HalfBlocks`] widget draws two pixel rows per cell with '▀' (foreground = upper pixel,
//! background = lower), which every colour terminal can show.

use std::io::Cursor;

use ::image::{DynamicImage, ImageReader, Limits, Rgb, RgbImage};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::widgets::Widget;

use crate::image::{Layout, RawShape, encoded_image_info, raw_shape, sniff_format};

/// Largest width or height decoded.
pub const MAX_SIDE: u32 = 16384;
/// Most memory one decode may allocate.
pub const MAX_ALLOC: u64 = 256 << 20;

/// Decoded pixels with a line saying what they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    pub pixels: RgbImage,
    /// E.g. `JPEG 64x48` or `raw 32x32x3 uint8 channel-first`.
    pub description: String,
}

/// Whether `bytes` look like an image (encoded, or raw pixels of a known or declared shape).
pub fn is_image(bytes: &[u8], declared: Option<(u32, u32, u32)>) -> bool {
    sniff_format(bytes).is_some() || raw_shape(bytes.len(), declared).is_some()
}

/// Decodes `bytes` as an image: `None` when they are not one, `Some(Err(why))` when they look like
/// one but cannot be decoded.
pub fn decode_image(
    bytes: &[u8],
    declared: Option<(u32, u32, u32)>,
) -> Option<Result<Picture, String>> {
    if let Some((name, dims)) = encoded_image_info(bytes) {
        let description = match dims {
            Some((w, h)) => format!("{name} {w}x{h}, {} bytes", bytes.len()),
            None => format!("{name}, {} bytes", bytes.len()),
        };
        return Some(decode_encoded(bytes).map(|image| Picture {
            pixels: image.to_rgb8(),
            description,
        }));
    }
    let shape = raw_shape(bytes.len(), declared)?;
    Some(
        raw_pixels(bytes, shape)
            .map(|pixels| Picture {
                pixels,
                description: format!("raw {}", shape.describe()),
            })
            .ok_or_else(|| format!("{} bytes do not fill {}", bytes.len(), shape.describe())),
    )
}

/// Decodes an encoded image (JPEG, PNG, GIF, BMP, WebP) within [`MAX_SIDE`] and [`MAX_ALLOC`].
pub fn decode_encoded(bytes: &[u8]) -> Result<DynamicImage, String> {
    let format = sniff_format(bytes).ok_or("not a known image format")?;
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    reader.decode().map_err(|e| format!("cannot decode: {e}"))
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

/// Draws an image with half blocks, scaled (up or down, keeping its aspect) to fit the area.
pub struct HalfBlocks<'a>(pub &'a RgbImage);

/// The drawn size in cells (width, height) of an image of `iw`x`ih` pixels in `area`.
pub fn fitted_size(iw: u32, ih: u32, area: Rect) -> (u16, u16) {
    if iw == 0 || ih == 0 || area.width == 0 || area.height == 0 {
        return (0, 0);
    }
    let scale =
        (f64::from(area.width) / f64::from(iw)).min(f64::from(area.height) * 2.0 / f64::from(ih));
    let w = (f64::from(iw) * scale).floor().max(1.0) as u16;
    let h_px = (f64::from(ih) * scale).floor().max(1.0) as u32;
    (
        w.min(area.width),
        (h_px.div_ceil(2) as u16).min(area.height),
    )
}

impl Widget for HalfBlocks<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let image = self.0;
        let (iw, ih) = image.dimensions();
        let (w, h) = fitted_size(iw, ih, area);
        if w == 0 || h == 0 {
            return;
        }
        // Pixel rows drawn: twice the cell rows, each mapped back onto the source.
        let rows_px = u64::from(h) * 2;
        let scale_y = |py: u64| -> u32 {
            let scale = (f64::from(w) / f64::from(iw)).min(rows_px as f64 / f64::from(ih));
            ((py as f64 + 0.5) / scale) as u32
        };
        let scale_x = |px: u16| -> u32 { (u64::from(px) * u64::from(iw) / u64::from(w)) as u32 };
        let left = area.x + (area.width - w) / 2;
        for cy in 0..h {
            for cx in 0..w {
                let sx = scale_x(cx);
                let top = image.get_pixel_checked(sx, scale_y(u64::from(cy) * 2));
                let bottom = image.get_pixel_checked(sx, scale_y(u64::from(cy) * 2 + 1));
                let Some(cell) = buf.cell_mut((left + cx, area.y + cy)) else {
                    continue;
                };
                let colour = |p: &Rgb<u8>| Color::Rgb(p.0[0], p.0[1], p.0[2]);
                match (top, bottom) {
                    (Some(t), Some(b)) => {
                        cell.set_symbol("▀").set_fg(colour(t)).set_bg(colour(b));
                    }
                    (Some(t), None) => {
                        cell.set_symbol("▀").set_fg(colour(t)).set_bg(Color::Reset);
                    }
                    _ => {}
                }
            }
        }
    }
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
    }

    #[test]
    fn broken_encoded_image_says_why() {
        let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
        png.extend_from_slice(&[0; 20]);
        let err = decode_image(&png, None).unwrap().unwrap_err();
        assert!(err.starts_with("cannot decode"), "{err}");
    }

    #[test]
    fn half_blocks_fill_the_fitted_area() {
        let image = RgbImage::from_pixel(4, 4, Rgb([10, 20, 30]));
        let area = Rect::new(0, 0, 8, 2);
        let mut buf = Buffer::empty(area);
        HalfBlocks(&image).render(area, &mut buf);
        let cell = buf.cell((2, 0)).unwrap();
        assert_eq!(cell.symbol(), "▀");
        assert_eq!(cell.fg, Color::Rgb(10, 20, 30));
    }
}
