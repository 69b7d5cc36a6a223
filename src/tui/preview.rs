//! Image previews drawn in terminal cells.
//!
//! The pixels come from the core ([`tfr_core::image::decode_image`], capped, reduced and pure); the
//! [`HalfBlocks`] widget draws two pixel rows per cell with '▀' (foreground = upper pixel,
//! background = lower), which every colour terminal can show. [`Boxes`] draws a record's boxes,
//! class names and keypoints over it on the same grid of half cells, and [`PreviewPane`] puts the
//! two in the pane with a title (which image, which frame) and a legend of the classes.

use ::image::{Rgb, RgbImage};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::app::App;
use tfr_core::image::overlay::Overlay;

/// Draws an image with half blocks, scaled (up or down, keeping its aspect) to fit the area.
pub struct HalfBlocks<'a>(pub &'a RgbImage);

/// The drawn size in cells (width, height) of an image of `iw`x`ih` pixels in `area`.
pub fn fitted_size(iw: u32, ih: u32, area: Rect) -> (u16, u16) {
    let (w, h_px) = fitted_grid(iw, ih, area);
    (w, (h_px.div_ceil(2) as u16).min(area.height))
}

/// The drawn size in cell columns and half-cell rows (the pixel grid the preview shows).
fn fitted_grid(iw: u32, ih: u32, area: Rect) -> (u16, u32) {
    if iw == 0 || ih == 0 || area.width == 0 || area.height == 0 {
        return (0, 0);
    }
    let scale =
        (f64::from(area.width) / f64::from(iw)).min(f64::from(area.height) * 2.0 / f64::from(ih));
    let w = (f64::from(iw) * scale).floor().max(1.0) as u16;
    let h_px = (f64::from(ih) * scale).floor().max(1.0) as u32;
    (w.min(area.width), h_px.min(u32::from(area.height) * 2))
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

/// A record's boxes, class names and keypoints over an image drawn by [`HalfBlocks`] in the same
/// area: each edge on the half cell its pixels fall in, each name on the row above its box.
pub struct Boxes<'a> {
    pub overlay: &'a Overlay,
    /// The size in pixels of the picture drawn (reduced, when the image is large).
    pub image: (u32, u32),
    /// The image's own size, which boxes measured in pixels are measured against.
    pub size: (u32, u32),
}

impl Widget for Boxes<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (w, h_px) = fitted_grid(self.image.0, self.image.1, area);
        if w == 0 || h_px == 0 {
            return;
        }
        let left = area.x + (area.width - w) / 2;
        let mut half = |x: u32, y: u32, colour: [u8; 3]| {
            let (Ok(cx), Ok(cy)) = (u16::try_from(x), u16::try_from(y / 2)) else {
                return;
            };
            let Some(cell) = buf.cell_mut((left.saturating_add(cx), area.y.saturating_add(cy)))
            else {
                return;
            };
            let colour = Color::Rgb(colour[0], colour[1], colour[2]);
            cell.set_symbol("▀");
            if y % 2 == 0 {
                cell.set_fg(colour);
            } else {
                cell.set_bg(colour);
            }
        };
        let overlay = self.overlay;
        let grid = (u32::from(w), h_px);
        let mut names = Vec::new();
        for mark in &overlay.boxes {
            let (Some(r), Some(class)) = (
                overlay.rect_on(mark, grid, self.size),
                overlay.classes.get(mark.class),
            ) else {
                continue;
            };
            for x in r.x0..=r.x1 {
                half(x, r.y0, class.colour);
                half(x, r.y1, class.colour);
            }
            for y in r.y0..=r.y1 {
                half(r.x0, y, class.colour);
                half(r.x1, y, class.colour);
            }
            names.push((r, class));
        }
        for p in &overlay.points {
            if let (Some((x, y)), Some(class)) = (
                overlay.point_on(p, grid, self.size),
                overlay.classes.get(p.class),
            ) {
                half(x, y, class.colour);
            }
        }
        for (r, class) in names {
            // On the row above the box, or its top row when it touches the top.
            let row = (r.y0 / 2).saturating_sub(1);
            let (Ok(x), Ok(y)) = (u16::try_from(r.x0), u16::try_from(row)) else {
                continue;
            };
            let room = usize::from(w.saturating_sub(x));
            let [red, green, blue] = class.colour;
            let style = Style::default()
                .bg(Color::Rgb(red, green, blue))
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD);
            buf.set_stringn(left + x, area.y + y, &class.name, room, style);
        }
    }
}

/// The preview pane: its border and title, the image, its boxes, and a legend line.
pub struct PreviewPane<'a>(pub &'a App);

impl Widget for PreviewPane<'_> {
    fn render(self, rect: Rect, buf: &mut Buffer) {
        let app = self.0;
        // The frame first: a long description is what the border cuts.
        let frame = app
            .preview_info
            .frame
            .as_ref()
            .map(|f| format!(" {f} (< >) ·"))
            .unwrap_or_default();
        let (title, style) = match &app.preview {
            Some(Ok(p)) => (
                format!("{frame} image · {} · i: full size ", p.description),
                Color::DarkGray,
            ),
            Some(Err(why)) if why.is_broken() => (format!("{frame} image (broken) "), Color::Red),
            Some(Err(_)) => (format!("{frame} image (not shown) "), Color::DarkGray),
            None => (" image ".to_string(), Color::DarkGray),
        };
        let block = Block::bordered()
            .title(title)
            .border_style(Style::default().fg(style));
        let mut inner = block.inner(rect);
        block.render(rect, buf);
        match &app.preview {
            Some(Ok(picture)) => {
                let overlay = app.shown_overlay();
                if let Some(overlay) = overlay.filter(|_| inner.height > 2) {
                    inner.height -= 1;
                    let y = inner.y + inner.height;
                    legend_line(overlay).render(Rect::new(inner.x, y, inner.width, 1), buf);
                }
                let pixels = match (overlay, &app.preview_info.masked) {
                    (Some(_), Some(masked)) => masked,
                    _ => &picture.pixels,
                };
                HalfBlocks(pixels).render(inner, buf);
                if let Some(overlay) = overlay {
                    Boxes {
                        overlay,
                        image: picture.pixels.dimensions(),
                        size: picture.size,
                    }
                    .render(inner, buf);
                }
            }
            Some(Err(why)) => {
                let colour = if why.is_broken() {
                    Color::Red
                } else {
                    Color::Reset
                };
                Paragraph::new(why.to_string())
                    .wrap(Wrap { trim: true })
                    .style(Style::default().fg(colour))
                    .render(inner, buf)
            }
            None => {}
        }
    }
}

/// `■ person ■ tree  b: hide` with each square in its class colour.
fn legend_line(overlay: &Overlay) -> Line<'static> {
    let mut spans = Vec::new();
    for class in &overlay.classes {
        let [r, g, b] = class.colour;
        spans.push(Span::styled("■ ", Style::default().fg(Color::Rgb(r, g, b))));
        spans.push(Span::raw(format!("{} ", class.name)));
    }
    if overlay.left_out > 0 {
        spans.push(Span::raw(format!("(+{} not drawn) ", overlay.left_out)));
    }
    spans.push(Span::styled(
        "b: hide",
        Style::default().fg(Color::DarkGray),
    ));
    Line::from(spans)
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
