//! The help overlay: every key binding, drawn over the panes.
//!
//! The table sits next to the keymap's semantics (one line per action) and a test checks that every
//! key it lists really maps to an action, so the overlay cannot advertise a key that does nothing.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Clear, Widget};

/// (keys, what they do), in the order shown.
pub const BINDINGS: &[(&str, &str)] = &[
    (
        "↑ ↓ ← → / h j k l",
        "move in the focused pane (← → fold and unfold in the tree)",
    ),
    ("PgUp PgDn", "move a page"),
    ("Home End / g G", "first / last frame, node or byte"),
    ("Tab Shift-Tab", "next / previous pane: frames, tree, hex"),
    ("Enter Space", "expand or collapse the tree node"),
    (":", "go to record N (0-based, as in the list)"),
    (
        "o",
        "go to byte offset N (decimal or 0x…): the frame holding it",
    ),
    ("/", "search feature names and string values (exact bytes)"),
    ("n N", "next / previous match"),
    ("c C", "next / previous damaged frame"),
    ("[ ]", "previous / next file"),
    ("i", "show the previewed image large (any key returns)"),
    ("mouse", "wheel scrolls the pane under it, click selects"),
    ("?", "this help"),
    ("Esc", "close help or prompt; quit when none is open"),
    ("q Ctrl-C", "quit"),
];

/// The overlay, centred in the area it is given.
pub struct Help;

impl Widget for Help {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let width = 78.min(area.width);
        let height = (BINDINGS.len() as u16 + 4).min(area.height);
        let rect = Rect::new(
            area.x + (area.width - width) / 2,
            area.y + (area.height - height) / 2,
            width,
            height,
        );
        Clear.render(rect, buf);
        let block = Block::bordered()
            .title(" keys (? or Esc closes) ")
            .border_style(Style::default().fg(Color::Yellow));
        let inner = block.inner(rect);
        block.render(rect, buf);
        for (i, (keys, what)) in BINDINGS.iter().enumerate() {
            let y = inner.y + 1 + i as u16;
            if y >= inner.bottom() {
                break;
            }
            let key_style = Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD);
            buf.set_stringn(inner.x + 1, y, keys, 20, key_style);
            let room = usize::from(inner.width.saturating_sub(22));
            buf.set_stringn(inner.x + 22, y, what, room, Style::default());
        }
    }
}
