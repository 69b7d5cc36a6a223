//! The help overlay: every key binding, drawn over the panes; and the same overlay showing the
//! wire-format card (`tfr-inspect guide`), scrolled the same way.
//!
//! The keys come from the keymap's own table ([`keymap::help_lines`]), the one that dispatches the
//! keys, so the overlay lists exactly the keys that do something and says what each does.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};

use super::keymap;

/// Columns between the keys and what they do, and around the text inside the border.
const GAP: u16 = 2;
const PAD: u16 = 1;

/// Display width of `text` in terminal columns.
fn width(text: &str) -> u16 {
    u16::try_from(ratatui::text::Span::raw(text).width()).unwrap_or(u16::MAX)
}

/// `text` broken at spaces into lines of at most `room` columns (a longer word is cut).
pub fn wrap(text: &str, room: u16) -> Vec<String> {
    let room = room.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if width(&candidate) <= room || line.is_empty() {
            line = candidate;
        } else {
            lines.push(std::mem::take(&mut line));
            line = word.to_string();
        }
    }
    lines.push(line);
    lines
}

/// What the overlay shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// Every key and what it does (`?`).
    Keys,
    /// The wire format and the TFRecord frame on one screen (`K`), as `tfr-inspect guide` prints.
    Guide,
}

/// Where a card line that wraps goes on: under the text of its first line (the card's second
/// column), or less on a narrow overlay.
const CARD_HANG: u16 = 16;

impl Page {
    /// The rows for an inner width of `inner`: (keys, one line of text).
    pub fn rows(self, inner: u16) -> Vec<(String, String)> {
        match self {
            Page::Keys => rows(inner),
            Page::Guide => card_rows(inner.saturating_sub(PAD * 2)),
        }
    }

    /// The width of the keys column and the gap after it.
    fn key_columns(self) -> (u16, u16) {
        match self {
            Page::Keys => (key_width(&lines()), GAP),
            Page::Guide => (0, 0),
        }
    }

    fn title(self) -> &'static str {
        match self {
            Page::Keys => TITLE,
            Page::Guide => GUIDE_TITLE,
        }
    }

    /// The width the overlay wants: its longest line unwrapped, plus padding and border.
    pub fn natural_width(self) -> u16 {
        match self {
            Page::Keys => natural_width(),
            Page::Guide => {
                let text = crate::cli::guide::CARD
                    .lines()
                    .map(width)
                    .max()
                    .unwrap_or(0);
                (PAD * 2 + text).max(width(GUIDE_TITLE) + 2) + 2
            }
        }
    }
}

/// The card's lines for text `room` columns wide: a line keeps its indent, and what does not fit
/// wraps at spaces under the card's second column.
pub fn card_rows(room: u16) -> Vec<(String, String)> {
    let room = room.max(1);
    let hang = CARD_HANG.min(room / 2);
    let mut out = Vec::new();
    for line in crate::cli::guide::CARD.lines() {
        let text = line.trim_start_matches(' ');
        let indent = width(line).saturating_sub(width(text));
        let indent = if indent >= room { 0 } else { indent };
        let mut first = true;
        let mut rest = text.to_string();
        loop {
            let lead = if first { indent } else { hang };
            let mut pieces = wrap(&rest, room.saturating_sub(lead)).into_iter();
            let head = pieces.next().unwrap_or_default();
            out.push((
                String::new(),
                format!("{}{head}", " ".repeat(usize::from(lead))),
            ));
            let tail: Vec<String> = pieces.collect();
            if tail.is_empty() {
                break;
            }
            rest = tail.join(" ");
            first = false;
        }
    }
    out
}

/// The help's lines: (keys, what they do), in the order shown.
pub fn lines() -> Vec<(String, &'static str)> {
    keymap::help_lines().map(|b| (b.label(), b.what)).collect()
}

/// The rows of the overlay for an inner width of `inner`: (keys, one line of description).
pub fn rows(inner: u16) -> Vec<(String, String)> {
    let lines = lines();
    let keys = key_width(&lines);
    let room = inner.saturating_sub(PAD * 2 + keys + GAP);
    lines
        .into_iter()
        .flat_map(|(k, what)| {
            wrap(what, room)
                .into_iter()
                .enumerate()
                .map(move |(i, line)| (if i == 0 { k.clone() } else { String::new() }, line))
        })
        .collect()
}

fn key_width(lines: &[(String, &str)]) -> u16 {
    lines.iter().map(|(k, _)| width(k)).max().unwrap_or(0)
}

/// The width the overlay wants: its longest line unwrapped, plus padding and border.
pub fn natural_width() -> u16 {
    let lines = lines();
    let what = lines.iter().map(|(_, w)| width(w)).max().unwrap_or(0);
    let title = width(TITLE) + 2;
    (PAD * 2 + key_width(&lines) + GAP + what).max(title) + 2
}

const TITLE: &str = " keys (? or Esc closes) ";
const GUIDE_TITLE: &str = " wire format card (K or Esc closes) ";

/// Where the overlay goes on a screen of `area` and how its rows fit in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The overlay, border included.
    pub rect: Rect,
    /// Its rows (keys, one line of description), wrapped to its width.
    pub rows: Vec<(String, String)>,
    /// How many rows show at once: the inside less a line above them and one below, which say
    /// when rows are scrolled out.
    pub visible: usize,
}

impl Placement {
    pub fn new(page: Page, area: Rect) -> Placement {
        let width = page.natural_width().min(area.width);
        let rows = page.rows(width.saturating_sub(2));
        let wanted = u16::try_from(rows.len())
            .unwrap_or(u16::MAX)
            .saturating_add(4);
        let height = wanted.min(area.height);
        let rect = Rect::new(
            area.x + (area.width - width) / 2,
            area.y + (area.height - height) / 2,
            width,
            height,
        );
        let visible = usize::from(height.saturating_sub(4));
        Placement {
            rect,
            rows,
            visible,
        }
    }

    /// The first row shown when the user scrolled to `top`: no further than the last page.
    pub fn top(&self, top: usize) -> usize {
        top.min(self.rows.len().saturating_sub(self.visible))
    }
}

/// The overlay scrolled to row `top` (clamped to the last page), centred in the area it is given,
/// as wide as its longest line (and no wider than the screen); descriptions that do not fit wrap
/// under themselves. Rows scrolled out above or below are said so on the lines around the rows.
pub struct Help {
    pub top: usize,
    pub page: Page,
}

impl Widget for Help {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let placement = Placement::new(self.page, area);
        let rect =
            super::layout::cleared_middle(area, (placement.rect.width, placement.rect.height), buf);
        let block = Block::bordered()
            .title(self.page.title())
            .border_style(Style::default().fg(Color::Yellow));
        let inner = block.inner(rect);
        block.render(rect, buf);
        let (keys, gap) = self.page.key_columns();
        let key_style = Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        let what_x = inner.x + PAD + keys + gap;
        let top = placement.top(self.top);
        let shown = placement.rows.iter().skip(top).take(placement.visible);
        for (i, (k, what)) in shown.enumerate() {
            let Some(y) = u16::try_from(i)
                .ok()
                .and_then(|i| (inner.y + 1).checked_add(i))
                .filter(|y| *y < inner.bottom())
            else {
                break;
            };
            buf.set_stringn(inner.x + PAD, y, k, usize::from(keys), key_style);
            let room = usize::from(inner.right().saturating_sub(what_x));
            buf.set_stringn(what_x, y, what, room, Style::default());
        }
        let hint = Style::default().fg(Color::Yellow);
        let room = usize::from(inner.width.saturating_sub(PAD * 2));
        if top > 0 && inner.height > 0 {
            let text = format!("↑ {top} more above (k PgUp Home)");
            buf.set_stringn(inner.x + PAD, inner.y, text, room, hint);
        }
        let below = placement
            .rows
            .len()
            .saturating_sub(top.saturating_add(placement.visible));
        if below > 0 && inner.height > 1 {
            let text = format!("↓ {below} more below (j PgDn End)");
            buf.set_stringn(inner.x + PAD, inner.bottom() - 1, text, room, hint);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_breaks_at_spaces_and_keeps_every_word() {
        assert_eq!(wrap("go to byte offset N", 10), ["go to byte", "offset N"]);
        assert_eq!(wrap("short", 40), ["short"]);
        for inner in [30u16, 58, 78, 158] {
            for (keys, what) in lines() {
                let lines: Vec<String> = rows(inner)
                    .into_iter()
                    .skip_while(|(k, _)| *k != keys)
                    .enumerate()
                    .take_while(|(i, (k, _))| *i == 0 || k.is_empty())
                    .map(|(_, (_, l))| l)
                    .collect();
                assert_eq!(lines.join(" "), what, "at {inner}");
            }
        }
    }
}
