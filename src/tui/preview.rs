//! Image previews drawn in terminal cells.
//!
//! The pixels come from the core ([`crate::image::decode_image`], capped and pure); the
//! [`HalfBlocks`] widget draws two pixel rows per cell with '▀' (foreground = upper pixel,
//! background = lower), which every colour terminal can show.

use ::image::{Rgb, RgbImage};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::widgets::Widget;

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
