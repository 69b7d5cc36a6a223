//! A 3x5 pixel font, enough to write class names on exported images without a font file.
//!
//! Lower case is drawn as upper case; a character the font lacks is drawn as `?`. Each glyph is
//! five rows of three bits, the high bit on the left.

/// Glyph width and height in font pixels.
pub const GLYPH_W: u32 = 3;
pub const GLYPH_H: u32 = 5;

const GLYPHS: &[(char, [u8; 5])] = &[
    (' ', [0b000, 0b000, 0b000, 0b000, 0b000]),
    ('A', [0b010, 0b101, 0b111, 0b101, 0b101]),
    ('B', [0b110, 0b101, 0b110, 0b101, 0b110]),
    ('C', [0b011, 0b100, 0b100, 0b100, 0b011]),
    ('D', [0b110, 0b101, 0b101, 0b101, 0b110]),
    ('E', [0b111, 0b100, 0b110, 0b100, 0b111]),
    ('F', [0b111, 0b100, 0b110, 0b100, 0b100]),
    ('G', [0b011, 0b100, 0b101, 0b101, 0b011]),
    ('H', [0b101, 0b101, 0b111, 0b101, 0b101]),
    ('I', [0b111, 0b010, 0b010, 0b010, 0b111]),
    ('J', [0b001, 0b001, 0b001, 0b101, 0b010]),
    ('K', [0b101, 0b101, 0b110, 0b101, 0b101]),
    ('L', [0b100, 0b100, 0b100, 0b100, 0b111]),
    ('M', [0b101, 0b111, 0b111, 0b101, 0b101]),
    ('N', [0b110, 0b101, 0b101, 0b101, 0b101]),
    ('O', [0b010, 0b101, 0b101, 0b101, 0b010]),
    ('P', [0b110, 0b101, 0b110, 0b100, 0b100]),
    ('Q', [0b010, 0b101, 0b101, 0b110, 0b011]),
    ('R', [0b110, 0b101, 0b110, 0b101, 0b101]),
    ('S', [0b011, 0b100, 0b010, 0b001, 0b110]),
    ('T', [0b111, 0b010, 0b010, 0b010, 0b010]),
    ('U', [0b101, 0b101, 0b101, 0b101, 0b111]),
    ('V', [0b101, 0b101, 0b101, 0b101, 0b010]),
    ('W', [0b101, 0b101, 0b111, 0b111, 0b101]),
    ('X', [0b101, 0b101, 0b010, 0b101, 0b101]),
    ('Y', [0b101, 0b101, 0b010, 0b010, 0b010]),
    ('Z', [0b111, 0b001, 0b010, 0b100, 0b111]),
    ('0', [0b111, 0b101, 0b101, 0b101, 0b111]),
    ('1', [0b010, 0b110, 0b010, 0b010, 0b111]),
    ('2', [0b110, 0b001, 0b010, 0b100, 0b111]),
    ('3', [0b110, 0b001, 0b010, 0b001, 0b110]),
    ('4', [0b101, 0b101, 0b111, 0b001, 0b001]),
    ('5', [0b111, 0b100, 0b110, 0b001, 0b110]),
    ('6', [0b011, 0b100, 0b111, 0b101, 0b111]),
    ('7', [0b111, 0b001, 0b010, 0b010, 0b010]),
    ('8', [0b111, 0b101, 0b111, 0b101, 0b111]),
    ('9', [0b111, 0b101, 0b111, 0b001, 0b110]),
    ('-', [0b000, 0b000, 0b111, 0b000, 0b000]),
    ('_', [0b000, 0b000, 0b000, 0b000, 0b111]),
    ('.', [0b000, 0b000, 0b000, 0b000, 0b010]),
    (',', [0b000, 0b000, 0b000, 0b010, 0b100]),
    (':', [0b000, 0b010, 0b000, 0b010, 0b000]),
    ('/', [0b001, 0b001, 0b010, 0b100, 0b100]),
    ('(', [0b001, 0b010, 0b010, 0b010, 0b001]),
    (')', [0b100, 0b010, 0b010, 0b010, 0b100]),
    ('#', [0b101, 0b111, 0b101, 0b111, 0b101]),
    ('?', [0b110, 0b001, 0b010, 0b000, 0b010]),
];

/// The rows of `c`'s glyph.
pub fn glyph(c: char) -> [u8; 5] {
    let c = c.to_ascii_uppercase();
    let find = |c: char| GLYPHS.iter().find(|(g, _)| *g == c);
    find(c)
        .or_else(|| find('?'))
        .map_or([0; 5], |(_, rows)| *rows)
}

/// Whether font pixel (`x`, `y`) of `c` is set.
pub fn is_set(c: char, x: u32, y: u32) -> bool {
    let rows = glyph(c);
    let Some(row) = usize::try_from(y).ok().and_then(|y| rows.get(y)) else {
        return false;
    };
    x < GLYPH_W && row & (0b100 >> x) != 0
}

/// Writes `text` into `image` from (`x`, `y`), each font pixel `scale` pixels square, in `ink`;
/// what falls outside the image is cut.
pub fn write_text(
    image: &mut image::RgbImage,
    (x, y): (u32, u32),
    text: &str,
    scale: u32,
    ink: image::Rgb<u8>,
) {
    let advance = (GLYPH_W + 1) * scale;
    for (i, c) in text.chars().enumerate() {
        let Some(left) = u32::try_from(i).ok().and_then(|i| i.checked_mul(advance)) else {
            return;
        };
        for fy in 0..GLYPH_H * scale {
            for fx in 0..GLYPH_W * scale {
                if is_set(c, fx / scale, fy / scale) {
                    let at = (
                        x.saturating_add(left).saturating_add(fx),
                        y.saturating_add(fy),
                    );
                    if let Some(p) = image.get_pixel_mut_checked(at.0, at.1) {
                        *p = ink;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_and_unknowns() {
        assert_eq!(glyph('a'), glyph('A'));
        assert_eq!(glyph('é'), glyph('?'));
        assert!(is_set('I', 0, 0) && is_set('I', 1, 2) && !is_set('I', 0, 2));
        assert!(!is_set('1', 3, 0) && !is_set('1', 0, 5));
    }
}
