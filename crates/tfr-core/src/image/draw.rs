//! Drawing an [`Overlay`] into pixels: box outlines a few pixels wide (inwards from the box's
//! edges, so the edge pixels are the box's own), each class name on a bar of its colour above the
//! box (below it, or inside, when there is no room), keypoints as small crosses, and instance
//! masks tinted half way to their class colour. The exported PNGs of `images --boxes` and the
//! inspector's full-size view are drawn here; the terminal preview draws on its own cell grid.

use image::{Rgb, RgbImage};

use super::budget::Purpose;

use super::font::{self, GLYPH_H, GLYPH_W};
use super::overlay::{Class, GridRect, Overlay};

/// Characters of a class name drawn on an image.
const LABEL_CHARS: usize = 24;

impl Overlay {
    /// Paints the boxes (with their class names) and keypoints into `image`.
    pub fn draw(&self, image: &mut RgbImage) {
        let size = image.dimensions();
        self.draw_on(image, size);
    }

    /// Paints the overlay into `image`, the pixels of an image of `size` (reduced when smaller).
    pub fn draw_on(&self, image: &mut RgbImage, size: (u32, u32)) {
        self.tint_masks(image);
        let (w, h) = image.dimensions();
        let thick = w.min(h).div_ceil(256).max(1);
        for (r, class) in self.boxes_on((w, h), size) {
            outline(image, r, thick, Rgb(class.colour));
        }
        for p in &self.points {
            let (Some((x, y)), Some(class)) =
                (self.point_on(p, (w, h), size), self.classes.get(p.class))
            else {
                continue;
            };
            let arm = thick * 2;
            fill(
                image,
                x.saturating_sub(arm),
                y,
                x + arm,
                y,
                Rgb(class.colour),
            );
            fill(
                image,
                x,
                y.saturating_sub(arm),
                x,
                y + arm,
                Rgb(class.colour),
            );
        }
        // Names after every box, so that no box's edge crosses a name.
        let scale = if w.min(h) >= 400 { 2 } else { 1 };
        for (r, class) in self.boxes_on((w, h), size) {
            label(image, r, thick, scale, class);
        }
    }

    /// Each box that lands on a grid of `grid` pixels drawn for an image of `size`, with its
    /// class (a box of a class the overlay does not have is not drawn).
    fn boxes_on(
        &self,
        grid: (u32, u32),
        size: (u32, u32),
    ) -> impl Iterator<Item = (GridRect, &Class)> + '_ {
        self.boxes.iter().filter_map(move |mark| {
            Some((
                self.rect_on(mark, grid, size)?,
                self.classes.get(mark.class)?,
            ))
        })
    }
    /// Tints each mask's pixels half way to its class colour (a mask of another size than the
    /// image is scaled onto it; one that does not decode within what is decoded to be shown is
    /// left out).
    pub fn tint_masks(&self, image: &mut RgbImage) {
        let (w, h) = image.dimensions();
        for mask in &self.masks {
            let (Ok(decoded), Some(class)) = (
                super::decode_within(&mask.encoded, Purpose::Show),
                self.classes.get(mask.class),
            ) else {
                continue;
            };
            // Never more mask pixels than image pixels: a larger mask is reduced in its own
            // colour type before it becomes grey.
            let decoded = if decoded.width() > w || decoded.height() > h {
                decoded.thumbnail(w.max(1), h.max(1))
            } else {
                decoded
            };
            let decoded = decoded.into_luma8();
            let (mw, mh) = decoded.dimensions();
            if mw == 0 || mh == 0 {
                continue;
            }
            for (x, y, pixel) in image.enumerate_pixels_mut() {
                let mx = (u64::from(x) * u64::from(mw) / u64::from(w)) as u32;
                let my = (u64::from(y) * u64::from(mh) / u64::from(h)) as u32;
                if decoded
                    .get_pixel_checked(mx, my)
                    .is_some_and(|p| p.0[0] > 0)
                {
                    for (c, tint) in pixel.0.iter_mut().zip(class.colour) {
                        *c = ((u16::from(*c) + u16::from(tint)) / 2) as u8;
                    }
                }
            }
        }
    }
}

/// Fills the inclusive rectangle `x0..=x1`, `y0..=y1` (clipped to the image).
fn fill(image: &mut RgbImage, x0: u32, y0: u32, x1: u32, y1: u32, colour: Rgb<u8>) {
    let (w, h) = image.dimensions();
    if w == 0 || h == 0 {
        return;
    }
    for y in y0..=y1.min(h - 1) {
        for x in x0..=x1.min(w - 1) {
            image.put_pixel(x, y, colour);
        }
    }
}

/// A box outline `thick` pixels wide, drawn inwards from the box's edges.
fn outline(image: &mut RgbImage, r: GridRect, thick: u32, colour: Rgb<u8>) {
    let t = thick - 1;
    fill(image, r.x0, r.y0, r.x1, (r.y0 + t).min(r.y1), colour);
    fill(
        image,
        r.x0,
        r.y1.saturating_sub(t).max(r.y0),
        r.x1,
        r.y1,
        colour,
    );
    fill(image, r.x0, r.y0, (r.x0 + t).min(r.x1), r.y1, colour);
    fill(
        image,
        r.x1.saturating_sub(t).max(r.x0),
        r.y0,
        r.x1,
        r.y1,
        colour,
    );
}

/// The class name on a bar of the class colour: above the box when there is room, else below
/// it, else just inside its top edge; never on the box's edges.
fn label(image: &mut RgbImage, r: GridRect, thick: u32, scale: u32, class: &Class) {
    let (w, h) = image.dimensions();
    let text: Vec<char> = class.name.chars().take(LABEL_CHARS).collect();
    let bar_h = GLYPH_H * scale + 2;
    let bar_w = text.len() as u32 * (GLYPH_W + 1) * scale + 1;
    let top = if r.y0 >= bar_h {
        r.y0 - bar_h
    } else if r.y1 + 1 + bar_h <= h {
        r.y1 + 1
    } else {
        r.y0 + thick
    };
    if w == 0 || top >= h {
        return;
    }
    fill(
        image,
        r.x0,
        top,
        r.x0 + bar_w - 1,
        top + bar_h - 1,
        Rgb(class.colour),
    );
    let [red, green, blue] = class.colour.map(u32::from);
    let ink = if red * 299 + green * 587 + blue * 114 > 128_000 {
        Rgb([0, 0, 0])
    } else {
        Rgb([255, 255, 255])
    };
    let text: String = text.into_iter().collect();
    font::write_text(image, (r.x0 + 1, top + 1), &text, scale, ink);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::overlay::{Mask, PALETTE};

    fn overlay(boxes: &[[f64; 4]], names: &[&[u8]]) -> Overlay {
        Overlay::with_boxes(boxes, names)
    }

    #[test]
    fn drawing_keeps_the_inside_and_paints_the_edges() {
        let mut image = RgbImage::from_pixel(64, 48, Rgb([1, 2, 3]));
        let o = overlay(&[[0.5, 0.25, 0.9, 0.75]], &[b"car"]);
        o.draw(&mut image);
        let colour = Rgb(o.classes.first().unwrap().colour);
        for (x, y) in [(16, 24), (48, 24), (30, 24), (30, 43), (16, 40), (48, 40)] {
            assert_eq!(*image.get_pixel(x, y), colour, "{x},{y}");
        }
        assert_eq!(*image.get_pixel(30, 34), Rgb([1, 2, 3]));
        // The name sits on a bar above the box.
        assert_eq!(*image.get_pixel(16, 23), colour);
        let ink = (17..29).any(|x| (17..23).any(|y| *image.get_pixel(x, y) != colour));
        assert!(ink, "no letters drawn");
    }

    proptest::proptest! {
        #[test]
        fn any_coordinates_draw_inside_the_image(
            coords in proptest::collection::vec(proptest::num::f64::ANY, 4..40),
            w in 1u32..40,
            h in 1u32..40,
        ) {
            let boxes: Vec<[f64; 4]> = coords
                .chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect();
            let mut o = overlay(&boxes, &[b"a long class name that is cut"]);
            o.add_points(&[1e30, -3.0, f32::NAN], &[0.5, f32::INFINITY, 2.0]);
            let mut image = RgbImage::new(w, h);
            o.draw(&mut image);
            for mark in &o.boxes {
                if let Some(r) = o.rect_in(mark, w, h) {
                    proptest::prop_assert!(r.x0 <= r.x1 && r.x1 < w && r.y0 <= r.y1 && r.y1 < h);
                }
            }
        }
    }

    #[test]
    fn masks_are_tinted_in_their_class_colour() {
        use image::{GrayImage, ImageEncoder, Luma};
        // A 4x4 mask covering the left half, over an 8x8 image: scaled up.
        let mask = GrayImage::from_fn(4, 4, |x, _| Luma([if x < 2 { 255 } else { 0 }]));
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(mask.as_raw(), 4, 4, image::ExtendedColorType::L8)
            .unwrap();
        let mut o = Overlay::default();
        let class = o.class(Some(b"cat"), Some(0));
        o.masks.push(Mask {
            encoded: png,
            class,
        });
        let mut image = RgbImage::from_pixel(8, 8, Rgb([0, 0, 0]));
        o.tint_masks(&mut image);
        let [r, g, b] = PALETTE[0].map(|c| c / 2);
        assert_eq!(image.get_pixel(3, 5).0, [r, g, b]);
        assert_eq!(image.get_pixel(4, 5).0, [0, 0, 0]);
    }
}
