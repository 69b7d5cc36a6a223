//! The whole-text overlay (`w`): everything the panes cut to their width, wrapped whole.
//!
//! A frame's summary, a damage explanation, a tree node's value, the explanation of the byte under
//! the cursor and the status line are each one line on screen, cut where their pane ends; at 80
//! columns most of them are. This overlay shows them again, each in full, wrapped at spaces.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Widget};

use super::app::App;
use super::help::wrap;

/// The overlay's sections: a heading and its whole text.
pub fn sections(app: &App) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let selected = app.selected();
    if let Some(row) = app.rows.get(&selected) {
        let frame = app
            .view
            .frame
            .map(|f| format!("record {} at byte {}: ", f.index, f.offset.0))
            .unwrap_or_default();
        out.push(("frame", format!("{frame}{}: {}", row.kind, row.summary)));
    }
    if let Some(node) = app.view.tree.nodes.get(app.view.node) {
        out.push(("tree", format!("{}  {}", node.label, node.detail)));
    }
    if !app.view.explain.is_empty() {
        out.push(("byte", app.view.explain.clone()));
    }
    if let Some(status) = app.status_text() {
        out.push(("status", status));
    }
    for notice in app.notices() {
        out.push(("notice", notice));
    }
    out
}

/// The lines of the overlay for text `room` columns wide.
pub fn lines(app: &App, room: u16) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for (heading, text) in sections(app) {
        out.push((true, heading.to_string()));
        out.extend(
            wrap(&text, room)
                .into_iter()
                .map(|l| (false, format!("  {l}"))),
        );
    }
    out
}

/// The overlay, drawn over the panes, a column from each side of the screen.
pub struct Details<'a>(pub &'a App);

impl Widget for Details<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let width = area.width.saturating_sub(2).max(1);
        let room = width.saturating_sub(2 + 2 + 2);
        let lines = lines(self.0, room);
        let height = u16::try_from(lines.len())
            .unwrap_or(u16::MAX)
            .saturating_add(2)
            .min(area.height);
        let rect = super::layout::cleared_middle(area, (width, height), buf);
        let block = Block::bordered().title(" whole text · w or Esc closes ");
        let inner = block.inner(rect);
        block.render(rect, buf);
        for (y, (heading, line)) in (inner.y..inner.bottom()).zip(lines) {
            let style = if heading {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            buf.set_stringn(inner.x + 1, y, line, usize::from(inner.width - 1), style);
        }
    }
}
