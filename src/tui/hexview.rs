//! The hex pane: a frame's bytes in rows of 16, coloured by the annotate token covering each byte.
//!
//! Rows start at file offsets that are multiples of 16, as in every hex viewer (the frame's first
//! row is the one holding its first byte; bytes of that row before the frame are left blank), and
//! only the rows on screen are formatted, which keeps a multi-gigabyte damaged region as cheap to show as a small record.
//! The selected tree node's bytes are highlighted and its ancestors shaded more faintly, the way
//! ImHex and the Kaitai visualizer tie a structure to its bytes.

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;

use tfr_core::annotate::{Role, Token};
use tfr_core::bytes::{ByteSource, read_up_to};
use tfr_core::span::{FileOffset, FileRange};

/// Bytes per row.
pub const ROW: u64 = 16;
/// Where a row's hex pairs start: after its offset (decimal, right-aligned in 10 columns as `hex`
/// prints it) and a gap of 2.
const HEX_X: u16 = 12;
/// Columns of one half row of hex pairs: eight times two digits and a space.
const HALF: u16 = 8 * 3;
/// Where the ASCII column starts: after both halves, the gap between them and a space.
const ASCII_X: u16 = HEX_X + 2 * HALF + 1 + 1;
/// Columns one row takes: offset, hex pairs with a gap after 8, and the ASCII column.
pub const ROW_WIDTH: u16 = ASCII_X + ROW as u16;

/// Where the hex pane puts each byte: drawing asks it where byte N goes and a mouse click asks it
/// which byte is under the pointer, so the two cannot disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HexGeometry {
    /// The pane's inside (its border excluded).
    pub area: Rect,
    /// The frame's bytes (its region: header through any skipped bytes).
    pub frame: Range<u64>,
    /// First row shown, counted from the row holding the frame's first byte.
    pub top_row: u64,
}

/// The file offset of the row holding `offset`: rows start at multiples of [`ROW`].
pub fn row_base(offset: u64) -> u64 {
    offset - offset % ROW
}

impl HexGeometry {
    pub fn new(area: Rect, frame: Range<u64>, top_row: u64) -> HexGeometry {
        HexGeometry {
            area,
            frame,
            top_row,
        }
    }

    /// Rows on screen.
    pub fn rows(&self) -> u64 {
        u64::from(self.area.height)
    }

    /// The bytes the rows on screen can show (cut at the frame's end).
    pub fn visible(&self) -> Range<u64> {
        let first_row = row_base(self.frame.start).saturating_add(self.top_row.saturating_mul(ROW));
        let end = first_row
            .saturating_add(self.rows().saturating_mul(ROW))
            .min(self.frame.end);
        first_row.max(self.frame.start).min(end)..end
    }

    /// The file offset of the first byte on screen line `line`, when that line shows any byte.
    pub fn row_start(&self, line: u16) -> Option<u64> {
        if line >= self.area.height {
            return None;
        }
        let start = self
            .top_row
            .checked_add(u64::from(line))?
            .checked_mul(ROW)?
            .checked_add(row_base(self.frame.start))?;
        (start < self.frame.end).then_some(start)
    }

    /// The screen line of `offset` and its place in the row (0..16), when it is on screen.
    fn place(&self, offset: u64) -> Option<(u16, u16)> {
        if !self.frame.contains(&offset) {
            return None;
        }
        let from_start = offset - row_base(self.frame.start);
        let line = (from_start / ROW).checked_sub(self.top_row)?;
        let line = u16::try_from(line).ok().filter(|l| *l < self.area.height)?;
        let column = u16::try_from(from_start % ROW).ok()?;
        Some((line, column))
    }

    /// Where the first of byte `offset`'s two hex digits is drawn, when both fit on screen.
    pub fn hex_cell(&self, offset: u64) -> Option<Position> {
        let (line, i) = self.place(offset)?;
        let x = self.area.x.checked_add(hex_column(i))?;
        (x.checked_add(2)? <= self.area.right()).then(|| Position::new(x, self.area.y + line))
    }

    /// Where byte `offset`'s character is drawn in the ASCII column, when it fits on screen.
    pub fn ascii_cell(&self, offset: u64) -> Option<Position> {
        let (line, i) = self.place(offset)?;
        let x = self.area.x.checked_add(ASCII_X + i)?;
        (x < self.area.right()).then(|| Position::new(x, self.area.y + line))
    }

    /// The byte under screen position `at`: on its hex pair (or the space after it) or on its
    /// ASCII cell. Past the frame's last byte it is the offset that would be drawn there; the
    /// caller clamps it.
    pub fn byte_at(&self, at: Position) -> Option<u64> {
        if !self.area.contains(at) {
            return None;
        }
        let i = column_byte(at.x - self.area.x)?;
        let line = self.top_row.checked_add(u64::from(at.y - self.area.y))?;
        line.checked_mul(ROW)?
            .checked_add(row_base(self.frame.start))?
            .checked_add(u64::from(i))
    }
}

/// The column of byte `i`'s first hex digit, from the pane's left edge.
fn hex_column(i: u16) -> u16 {
    HEX_X + i * 3 + u16::from(i >= 8)
}

/// Which byte of a row column `x` belongs to, if any.
fn column_byte(x: u16) -> Option<u16> {
    let second = HEX_X + HALF + 1;
    if (HEX_X..HEX_X + HALF).contains(&x) {
        Some((x - HEX_X) / 3)
    } else if (second..second + HALF).contains(&x) {
        Some(8 + (x - second) / 3)
    } else if (ASCII_X..ROW_WIDTH).contains(&x) {
        Some(x - ASCII_X)
    } else {
        None
    }
}

/// The colour of a token's bytes.
pub fn role_style(role: Role) -> Style {
    let fg = match role {
        Role::Frame => Color::Blue,
        Role::BadCrc | Role::Unparsed => Color::Red,
        Role::Tag => Color::Yellow,
        Role::Length => Color::Magenta,
        Role::Value => Color::Green,
        Role::Data => Color::Cyan,
    };
    let style = Style::default().fg(fg);
    match role {
        Role::BadCrc | Role::Unparsed => style.add_modifier(Modifier::BOLD),
        _ => style,
    }
}

/// What a role is called in the explanation line.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Frame => "frame",
        Role::BadCrc => "bad crc",
        Role::Tag => "tag",
        Role::Length => "length",
        Role::Value => "value",
        Role::Data => "data",
        Role::Unparsed => "unparsed",
    }
}

/// Background of the selected node's bytes.
pub const SELECTED_BG: Color = Color::Indexed(24);
/// Background of the bytes of the selected node's ancestors.
pub const ANCESTOR_BG: Color = Color::Indexed(236);

/// The token covering file byte `offset` (tokens sorted by start, not overlapping).
pub fn token_at(tokens: &[Token], offset: u64) -> Option<&Token> {
    let after = tokens.partition_point(|t| t.start <= offset);
    tokens.get(after.checked_sub(1)?).filter(|t| offset < t.end)
}

/// The explanation of the token under the cursor: its role, its bytes and what they mean.
pub fn explain(data: &dyn ByteSource, token: &Token, meaning: &str) -> String {
    let start = FileOffset(token.start);
    let end = FileOffset(token.end.min(token.start.saturating_add(8)));
    let bytes = data.read(FileRange::new(start, end)).unwrap_or_default();
    let mut hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if token.end - token.start > 8 {
        hex.push("…".into());
    }
    format!(
        "{}..{} {} {} = {}",
        token.start,
        token.end,
        role_name(token.role),
        hex.join(" "),
        meaning
    )
}

/// The hex pane's content for one frame.
pub struct HexPane<'a> {
    pub data: &'a dyn ByteSource,
    pub tokens: &'a [Token],
    /// The frame's bytes (its region: header through any skipped bytes).
    pub frame: Range<u64>,
    pub cursor: u64,
    /// First row shown (rows counted from the row holding the frame's first byte).
    pub top_row: u64,
    pub selected: &'a [Range<u64>],
    pub ancestors: &'a [Range<u64>],
    pub focused: bool,
}

impl HexPane<'_> {
    fn style_of(&self, offset: u64) -> Style {
        let mut style =
            token_at(self.tokens, offset).map_or(Style::default(), |t| role_style(t.role));
        if self.selected.iter().any(|r| r.contains(&offset)) {
            style = style.bg(SELECTED_BG);
        } else if self.ancestors.iter().any(|r| r.contains(&offset)) {
            style = style.bg(ANCESTOR_BG);
        }
        if offset == self.cursor {
            style = style.add_modifier(Modifier::REVERSED);
            if self.focused {
                style = style.add_modifier(Modifier::BOLD);
            }
        }
        style
    }
}

impl HexPane<'_> {
    fn draw_byte(&self, geometry: &HexGeometry, offset: u64, byte: u8, buf: &mut Buffer) {
        let style = self.style_of(offset);
        if let Some(at) = geometry.hex_cell(offset) {
            buf.set_string(at.x, at.y, format!("{byte:02x}"), style);
        }
        if let Some(at) = geometry.ascii_cell(offset) {
            let ch = if byte.is_ascii_graphic() || byte == b' ' {
                char::from(byte)
            } else {
                '.'
            };
            buf.set_string(at.x, at.y, ch.to_string(), style);
        }
    }
}

impl Widget for HexPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let geometry = HexGeometry::new(area, self.frame.clone(), self.top_row);
        let dim = Style::default().fg(Color::DarkGray);
        for line in 0..area.height {
            let Some(start) = geometry.row_start(line) else {
                break;
            };
            let offset_text = format!("{start:>10}");
            buf.set_stringn(
                area.x,
                area.y + line,
                offset_text,
                usize::from(area.width),
                dim,
            );
            // The row's bytes in one read (fewer where the file ends first).
            let first = start.max(self.frame.start);
            let end = start.saturating_add(ROW).min(self.frame.end).max(first);
            let row = read_up_to(self.data, FileOffset(first), end - first).unwrap_or_default();
            for (offset, byte) in (first..).zip(row) {
                self.draw_byte(&geometry, offset, *byte, buf);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(start: u64, end: u64) -> Token {
        Token {
            start,
            end,
            depth: 0,
            role: Role::Value,
            site: tfr_core::annotate::Site::Payload,
        }
    }

    #[test]
    fn token_lookup_uses_half_open_ranges() {
        let tokens = [token(0, 8), token(8, 12), token(14, 15)];
        assert_eq!(token_at(&tokens, 7).map(|t| t.start), Some(0));
        assert_eq!(token_at(&tokens, 8).map(|t| t.start), Some(8));
        assert!(token_at(&tokens, 12).is_none());
        assert!(token_at(&tokens, 15).is_none());
    }

    fn symbol(buf: &Buffer, at: Position) -> &str {
        buf.cell(at).map_or("", |c| c.symbol())
    }

    #[test]
    fn a_click_on_any_drawn_byte_selects_that_byte() {
        let data: Vec<u8> = (0..=255u8).cycle().take(300).collect();
        // Full rows, a short frame, panes too narrow for a whole row, scrolled panes.
        let cases = [
            (78, 5..300, 0),
            (80, 0..37, 0),
            (50, 20..300, 3),
            (64, 0..300, 1),
        ];
        for (width, frame, top_row) in cases {
            let area = Rect::new(3, 2, width, 6);
            let mut buf = Buffer::empty(Rect::new(0, 0, 90, 10));
            let pane = HexPane {
                data: &data,
                tokens: &[],
                frame: frame.clone(),
                cursor: u64::MAX,
                top_row,
                selected: &[],
                ancestors: &[],
                focused: false,
            };
            pane.render(area, &mut buf);
            let geometry = HexGeometry::new(area, frame.clone(), top_row);
            let mut drawn = (0, 0);
            for offset in frame.clone() {
                let byte = data[offset as usize];
                if let Some(at) = geometry.hex_cell(offset) {
                    let next = Position::new(at.x + 1, at.y);
                    let digits = format!("{}{}", symbol(&buf, at), symbol(&buf, next));
                    assert_eq!(digits, format!("{byte:02x}"), "offset {offset}");
                    assert_eq!(geometry.byte_at(at), Some(offset));
                    assert_eq!(geometry.byte_at(next), Some(offset));
                    drawn.0 += 1;
                }
                if let Some(at) = geometry.ascii_cell(offset) {
                    let shown = symbol(&buf, at).chars().next();
                    assert!(shown == Some(char::from(byte)) || shown == Some('.'));
                    assert_eq!(geometry.byte_at(at), Some(offset), "offset {offset}");
                    drawn.1 += 1;
                }
            }
            // A pane narrower than a row cuts the row's end: the ASCII column, then hex pairs.
            let shown = geometry.visible();
            let all = shown.end - shown.start;
            assert_eq!(
                drawn.0 == all,
                width >= ASCII_X,
                "{width} {frame:?} {top_row}"
            );
            assert_eq!(
                drawn.1 == all,
                width >= ROW_WIDTH,
                "{width} {frame:?} {top_row}"
            );
            assert!(drawn.0 > 0);
        }
    }

    #[test]
    fn rows_start_at_multiples_of_sixteen_and_the_frame_starts_mid_row() {
        let data: Vec<u8> = (0..=255u8).cycle().take(400).collect();
        let area = Rect::new(0, 0, ROW_WIDTH, 4);
        let geometry = HexGeometry::new(area, 303..400, 0);
        assert_eq!(geometry.row_start(0), Some(288));
        assert_eq!(geometry.row_start(1), Some(304));
        assert_eq!(geometry.visible(), 303..352);
        assert_eq!(
            geometry.hex_cell(303),
            Some(Position::new(hex_column(15), 0))
        );
        assert_eq!(geometry.hex_cell(304), Some(Position::new(HEX_X, 1)));
        let mut buf = Buffer::empty(area);
        HexPane {
            data: &data,
            tokens: &[],
            frame: 303..400,
            cursor: u64::MAX,
            top_row: 0,
            selected: &[],
            ancestors: &[],
            focused: false,
        }
        .render(area, &mut buf);
        let row: String = (0..area.width)
            .map(|x| symbol(&buf, Position::new(x, 0)))
            .collect();
        // Bytes 288..303 belong to the frame before: blank.
        assert!(
            row.starts_with(&format!("{:>10}{}2f", 288, " ".repeat(2 + 15 * 3 + 1))),
            "{row:?}"
        );
    }

    #[test]
    fn columns_between_the_bytes_select_nothing() {
        let geometry = HexGeometry::new(Rect::new(0, 0, ROW_WIDTH, 4), 0..64, 0);
        let at = |x| geometry.byte_at(Position::new(x, 1));
        assert_eq!(at(0), None, "the offset column");
        assert_eq!(at(HEX_X + HALF), None, "the gap between the halves");
        assert_eq!(at(ASCII_X - 1), None, "before the ASCII column");
        assert_eq!(at(HEX_X + 2), Some(16), "the space after a pair");
        assert_eq!(at(ROW_WIDTH - 1), Some(31));
        assert_eq!(at(ROW_WIDTH), None);
    }
}
