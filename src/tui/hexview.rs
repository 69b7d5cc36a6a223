//! The hex pane: a frame's bytes in rows of 16, coloured by the annotate token covering each byte.
//!
//! Rows start at the frame's first byte (so the header is always row 0) and only the rows on screen
//! are formatted, which keeps a multi-gigabyte damaged region as cheap to show as a small record.
//! The selected tree node's bytes are highlighted and its ancestors shaded more faintly, the way
//! ImHex and the Kaitai visualizer tie a structure to its bytes.

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;

use crate::annotate::{Role, Token};

/// Bytes per row.
pub const ROW: u64 = 16;
/// Columns one row takes: offset (decimal, right-aligned as `hex` prints it), hex pairs with a gap
/// after 8, and the ASCII column.
pub const ROW_WIDTH: u16 = 10 + 2 + 49 + 1 + 16;

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
pub fn explain(data: &[u8], token: &Token, meaning: &str) -> String {
    let bytes = usize::try_from(token.start)
        .ok()
        .zip(usize::try_from(token.end).ok())
        .and_then(|(s, e)| data.get(s..e.min(s.saturating_add(8))))
        .unwrap_or_default();
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
    pub data: &'a [u8],
    pub tokens: &'a [Token],
    /// The frame's bytes (its region: header through any skipped bytes).
    pub frame: Range<u64>,
    pub cursor: u64,
    /// First row shown (rows counted from the frame start).
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

impl Widget for HexPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let dim = Style::default().fg(Color::DarkGray);
        for line in 0..area.height {
            let row = self.top_row.saturating_add(u64::from(line));
            let Some(start) = row
                .checked_mul(ROW)
                .and_then(|r| r.checked_add(self.frame.start))
            else {
                break;
            };
            if start >= self.frame.end {
                break;
            }
            let y = area.y + line;
            let (x, _) = buf.set_stringn(
                area.x,
                y,
                format!("{start:>10}"),
                usize::from(area.width),
                dim,
            );
            for i in 0..ROW {
                let offset = start + i;
                if offset >= self.frame.end {
                    break;
                }
                let Some(byte) = usize::try_from(offset).ok().and_then(|o| self.data.get(o)) else {
                    break;
                };
                let style = self.style_of(offset);
                let gap = if i >= 8 { 1 } else { 0 };
                let hx = area.x + 12 + (i as u16) * 3 + gap;
                let ax = area.x + 12 + 49 + 1 + i as u16;
                if hx + 2 <= area.right() {
                    buf.set_string(hx, y, format!("{byte:02x}"), style);
                }
                if ax < area.right() {
                    let ch = if byte.is_ascii_graphic() || *byte == b' ' {
                        char::from(*byte)
                    } else {
                        '.'
                    };
                    buf.set_string(ax, y, ch.to_string(), style);
                }
            }
            let _ = x;
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
            site: crate::annotate::Site::Payload,
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
}
