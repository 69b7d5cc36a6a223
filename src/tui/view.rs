//! Drawing the whole screen from the [`App`] state, with no side effects.
//!
//! Each pane gets its rectangle from [`layout::panes`], the same function `update` uses for paging
//! and mouse hits, and is drawn by its own widget; this module adds the borders, the tree rows, the
//! explanation line, the status bar and the overlays.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::app::{App, Pane};
use super::framelist::FrameList;
use super::help::Help;
use super::hexview::{self, HexPane};
use super::keymap::PromptKind;
use super::layout::{self, MIN_HEIGHT, MIN_WIDTH};
use super::preview::PreviewPane;
use super::tree::Tree;
use tfr_core::compress::Compressed;
use tfr_core::words::plural;

/// Takes every colour out of a drawn screen for `--color never` and NO_COLOR, keeping what the
/// colours meant: a cell on a coloured background (a selection, the status bar) is drawn in
/// reverse video (underlined when it is also the cursor, already reversed), and red text (damage)
/// in bold.
pub fn monochrome(buf: &mut Buffer) {
    for cell in &mut buf.content {
        let mut modifier = cell.modifier;
        if cell.bg != Color::Reset {
            if modifier.contains(Modifier::REVERSED) {
                modifier |= Modifier::UNDERLINED;
            } else {
                modifier |= Modifier::REVERSED;
            }
        }
        if matches!(cell.fg, Color::Red | Color::LightRed) {
            modifier |= Modifier::BOLD;
        }
        cell.fg = Color::Reset;
        cell.bg = Color::Reset;
        cell.modifier = modifier;
    }
}

/// A pane's border with `title`, cut to fit `rect`'s top border (with an ellipsis when cut).
fn pane_block(title: String, focused: bool, rect: Rect) -> Block<'static> {
    let style = if focused {
        Style::default().fg(Color::Yellow)
    } else {
        Style::default().fg(Color::DarkGray)
    };
    let room = usize::from(rect.width.saturating_sub(2));
    let title = tfr_core::words::clip(&title, room).into_owned();
    Block::bordered().title(title).border_style(style)
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if layout::too_small(area) {
            let text = format!(
                "terminal too small: {}x{}, tfr-inspect needs at least {MIN_WIDTH}x{MIN_HEIGHT} (q quits)",
                area.width, area.height
            );
            Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .style(Style::default().fg(Color::Red))
                .render(area, buf);
            return;
        }
        let panes = self.panes_on(area);
        self.render_list(panes.list, buf);
        if self.tutor.shows_panel() {
            // Step mode, the parsed view or the quiz (whose answers the tree would give away),
            // over the tree and the preview.
            super::tutor::TutorPanel {
                tutor: &self.tutor,
                focused: self.focus == Pane::Tree,
            }
            .render(self.tutor_rect(), buf);
        } else {
            self.render_tree(panes.tree, buf);
            if let Some(rect) = panes.preview {
                self.render_preview(rect, buf);
            }
        }
        self.render_hex(panes.hex, buf);
        self.render_explain(panes.explain, buf);
        self.render_notices(panes.notices, buf);
        self.render_message(panes.message, buf);
        self.render_status(panes.status, buf);
        if self.details {
            super::details::Details(self).render(area, buf);
        }
        if self.help || self.guide {
            Help {
                top: self.help_top,
                page: self.help_page(),
            }
            .render(area, buf);
        }
    }
}

impl App {
    fn render_list(&self, rect: Rect, buf: &mut Buffer) {
        let Some(file) = self.file() else {
            return;
        };
        let title = format!(
            " frames · {} ",
            tfr_core::escape::path_for_terminal(file.input.source.path())
        );
        let block = pane_block(title, self.focus == Pane::List, rect);
        let inner = block.inner(rect);
        block.render(rect, buf);
        FrameList {
            data: file.data(),
            index: file.index(),
            rows: &self.rows,
            top: file.list_top,
            selected: file.selected,
            focused: self.focus == Pane::List,
        }
        .render(inner, buf);
    }

    fn render_tree(&self, rect: Rect, buf: &mut Buffer) {
        let title = match self.view.frame {
            Some(frame) => format!(" record {} ", frame.index),
            None => " no records ".to_string(),
        };
        let block = pane_block(title, self.focus == Pane::Tree, rect);
        let inner = block.inner(rect);
        block.render(rect, buf);
        let tree = &self.view.tree;
        let visible = tree.visible();
        let mut inner = inner;
        if let (Some(percent), Some(frame)) = (self.decoding_percent(), self.view.frame) {
            // A large record decodes in the background: say so above the frame's own rows.
            let text = format!(
                "decoding record {}… {percent}% (keys work meanwhile; q quits)",
                frame.index
            );
            let style = Style::default().fg(Color::Yellow);
            buf.set_stringn(inner.x, inner.y, text, usize::from(inner.width), style);
            inner.y = inner.y.saturating_add(1);
            inner.height = inner.height.saturating_sub(1);
        }
        for (line, n) in visible.iter().skip(self.view.tree_top).enumerate() {
            let Ok(line) = u16::try_from(line) else {
                break;
            };
            if line >= inner.height {
                break;
            }
            let Some(text) = tree_line(tree, *n) else {
                continue;
            };
            let y = inner.y + line;
            buf.set_line(inner.x, y, &clip_line(text, inner.width), inner.width);
            if *n == self.view.node {
                let mut style = Style::default().add_modifier(Modifier::REVERSED);
                if self.focus == Pane::Tree {
                    style = style.add_modifier(Modifier::BOLD);
                }
                buf.set_style(Rect::new(inner.x, y, inner.width, 1), style);
            }
        }
    }

    fn render_preview(&self, rect: Rect, buf: &mut Buffer) {
        if let (None, Some(plot)) = (&self.preview, &self.plot) {
            super::charts::render(plot, rect, buf);
            return;
        }
        PreviewPane(self).render(rect, buf);
    }

    fn render_hex(&self, rect: Rect, buf: &mut Buffer) {
        if let Some(stats) = &self.stats {
            let busy = if stats.computing() {
                " · computing…"
            } else {
                ""
            };
            let title = format!(" statistics{busy} · S or Esc closes ");
            let block = pane_block(title, self.focus == Pane::Hex, rect);
            let inner = block.inner(rect);
            block.render(rect, buf);
            let shown: Vec<Line> = stats
                .lines
                .iter()
                .skip(stats.scroll)
                .take(usize::from(inner.height))
                .map(|l| Line::raw(tfr_core::words::clip(l, usize::from(inner.width))))
                .collect();
            Paragraph::new(shown).render(inner, buf);
            return;
        }
        let region = &self.view.region;
        let title = format!(
            " hex · bytes {}..{} · cursor {} ",
            region.start, region.end, self.view.cursor
        );
        let block = pane_block(title, self.focus == Pane::Hex, rect);
        let inner = block.inner(rect);
        block.render(rect, buf);
        let Some(file) = self.file() else {
            return;
        };
        let (selected, ancestors) = self.highlight();
        HexPane {
            data: file.data(),
            tokens: &self.view.tokens,
            frame: region.clone(),
            cursor: self.view.cursor,
            top_row: self.view.hex_top,
            selected: &selected,
            ancestors: &ancestors,
            focused: self.focus == Pane::Hex,
        }
        .render(inner, buf);
    }

    fn render_explain(&self, rect: Rect, buf: &mut Buffer) {
        let text = &self.view.explain;
        let style = hexview::token_at(&self.view.tokens, self.view.cursor)
            .map_or(Style::default(), |t| hexview::role_style(t.role));
        let text = format!("@{} {text}", self.view.cursor);
        buf.set_stringn(
            rect.x,
            rect.y,
            tfr_core::words::clip(&text, usize::from(rect.width)),
            usize::from(rect.width),
            style,
        );
    }

    fn render_notices(&self, rect: Rect, buf: &mut Buffer) {
        let notices = self.notices();
        let rows = usize::from(rect.height);
        let style = Style::default()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD);
        for (i, notice) in notices.iter().take(rows).enumerate() {
            let text = if i + 1 == rows && notices.len() > rows {
                format!("{notice}  (and {} more)", notices.len() - rows)
            } else {
                notice.clone()
            };
            let y = rect.y + i as u16;
            let text = format!(" {text}");
            buf.set_stringn(
                rect.x,
                y,
                tfr_core::words::clip(&text, usize::from(rect.width)),
                usize::from(rect.width),
                style,
            );
        }
    }

    fn render_status(&self, rect: Rect, buf: &mut Buffer) {
        let bar = Style::default().bg(Color::Indexed(236)).fg(Color::White);
        buf.set_style(rect, bar);
        if let Some(prompt) = &self.prompt {
            let label = match prompt.kind {
                PromptKind::Record => "go to record:",
                PromptKind::Offset => "go to byte offset:",
                PromptKind::Search => "search:",
                PromptKind::Answer => "answer:",
            };
            let text = format!("{label} {}█  (Enter confirms, Esc cancels)", prompt.text);
            buf.set_stringn(
                rect.x,
                rect.y,
                text,
                usize::from(rect.width),
                bar.add_modifier(Modifier::BOLD),
            );
            return;
        }
        let Some((mut parts, damaged)) = self.status_parts() else {
            return;
        };
        let mut message_cut = false;
        if self.message_line(rect.width) {
            // The answer is on its own line above (cut there when longer than the screen).
            parts.pop();
            message_cut =
                tfr_core::words::display_width(&self.message) + 1 > usize::from(rect.width);
        }
        let text = format!(" {}", parts.join(" │ "));
        // The whole line is in the `w` overlay; here it is cut at the help hint.
        let style = if damaged {
            bar.fg(Color::LightRed)
        } else {
            bar
        };
        // When the line does not fit, the hint names the key that shows it whole.
        let help = if message_cut
            || tfr_core::words::display_width(&text) + HELP_HINT.len() > usize::from(rect.width)
        {
            " w whole · ? help "
        } else {
            HELP_HINT
        };
        let room = usize::from(rect.width).saturating_sub(help.chars().count());
        buf.set_stringn(
            rect.x,
            rect.y,
            tfr_core::words::clip(&text, room),
            room,
            style,
        );
        let hx = rect.right().saturating_sub(help.chars().count() as u16);
        buf.set_stringn(
            hx,
            rect.y,
            help,
            help.chars().count(),
            bar.add_modifier(Modifier::BOLD),
        );
    }
}

impl App {
    /// Whether the last action's answer (a search's result, why `:` or `o` went nowhere, what
    /// `i` or `R` did) gets a line of its own above the status bar: the bar, `width` columns wide,
    /// cannot hold it whole beside the rest and the help hint.
    pub fn message_line(&self, width: u16) -> bool {
        // An open prompt takes the status bar; the answer it is asked for comes after it (and
        // the quiz's question is not answered by the last message).
        if self.message.is_empty() || self.prompt.is_some() {
            return false;
        }
        let Some((parts, _)) = self.status_parts() else {
            return false;
        };
        let text = format!(" {}", parts.join(" │ "));
        tfr_core::words::display_width(&text) + HELP_HINT.len() > usize::from(width)
    }

    /// The last action's answer on its own line, cut with an ellipsis when even the line is too
    /// short for it (`w` shows it whole).
    fn render_message(&self, rect: Rect, buf: &mut Buffer) {
        if rect.height == 0 {
            return;
        }
        let bar = Style::default().bg(Color::Indexed(236)).fg(Color::White);
        buf.set_style(rect, bar);
        let text = format!(" {}", self.message);
        let room = usize::from(rect.width);
        buf.set_stringn(
            rect.x,
            rect.y,
            tfr_core::words::clip(&text, room),
            room,
            bar.add_modifier(Modifier::BOLD),
        );
    }

    /// The status line's parts (file, position, damage, compression, indexing, the last
    /// message), and whether the file or its compressed stream is damaged.
    /// The status line's text, whole.
    pub fn status_text(&self) -> Option<String> {
        self.status_parts().map(|(parts, _)| parts.join(" │ "))
    }

    fn status_parts(&self) -> Option<(Vec<String>, bool)> {
        let file = self.file()?;
        let index = file.index();
        let path = file.input.source.path();
        let name = tfr_core::escape::path_for_terminal(
            path.file_name().map_or(path, std::path::Path::new),
        );
        let mut parts = vec![name];
        if self.files.len() > 1 {
            parts.push(format!("file {}/{}", self.current + 1, self.files.len()));
        }
        parts.push(record_text(file.selected, index.len(), file.indexing));
        let damaged = index.damaged_count();
        parts.push(format!("{damaged} damaged"));
        let compression = file.input.source.compression();
        if let Some(c) = compression {
            parts.push(compression_text(c, index.file_len()));
        }
        if file.indexing {
            let pct = tfr_core::words::percent_done(index.scanned(), index.file_len()).min(99);
            parts.push(format!("indexing {pct}%"));
        }
        if let Some(fetched) = file.input.source.fetched().filter(|f| f.bytes < f.len) {
            parts.push(format!(
                "fetched {} of {}",
                tfr_core::words::binary_size(fetched.bytes),
                tfr_core::words::binary_size(fetched.len)
            ));
        }
        if !self.message.is_empty() {
            parts.push(self.message.clone());
        }
        let stream_damaged = compression.is_some_and(|c| c.problem.is_some());
        Some((parts, damaged > 0 || stream_damaged))
    }
}

/// The hint at the right of the status bar.
const HELP_HINT: &str = " ? help ";

/// Tree row `n` as drawn: indented, with its fold marker, label and detail (red when damaged).
fn tree_line(tree: &Tree, n: usize) -> Option<Line<'static>> {
    let node = tree.nodes.get(n)?;
    let marker = match (tree.has_children(n), tree.is_expanded(n)) {
        (false, _) => "  ",
        (true, true) => "▾ ",
        (true, false) => "▸ ",
    };
    let mut label_style = Style::default().add_modifier(Modifier::BOLD);
    let mut detail_style = Style::default().fg(Color::Gray);
    if node.damaged {
        label_style = label_style.fg(Color::Red);
        detail_style = detail_style.fg(Color::Red);
    }
    Some(Line::from(vec![
        Span::raw("  ".repeat(node.depth.min(20))),
        Span::raw(marker),
        Span::styled(node.label.clone(), label_style),
        Span::raw("  "),
        Span::styled(node.detail.clone(), detail_style),
    ]))
}

/// `line` cut to `width` columns, its last column an ellipsis when it was cut (see
/// [`tfr_core::words::clip`]), each span keeping its style.
pub fn clip_line(line: Line<'static>, width: u16) -> Line<'static> {
    let width = usize::from(width);
    if line.width() <= width {
        return line;
    }
    let mut used = 0;
    let mut spans = Vec::new();
    let mut rest = line
        .spans
        .into_iter()
        .collect::<std::collections::VecDeque<_>>();
    while let Some(span) = rest.pop_front() {
        let w = span.width();
        if used + w < width {
            used += w;
            spans.push(span);
            continue;
        }
        // This span reaches the last column: it ends the line, cut and marked (also when it fits
        // but text follows it).
        let style = span.style;
        let mut content = span.content.into_owned();
        if rest.iter().any(|s| !s.content.trim().is_empty()) {
            content.push('…');
        }
        let cut = tfr_core::words::clip(&content, width - used).into_owned();
        spans.push(Span::styled(cut, style));
        break;
    }
    Line::from(spans)
}

/// Where the selection is, 0-based as everywhere else (`list`, `show -n`, `:`): "record 4 · 6
/// records (0..5)", or "no records".
pub fn record_text(selected: usize, count: usize, indexing: bool) -> String {
    match (count, indexing) {
        (0, false) => "no records".into(),
        (0, true) => "no records yet".into(),
        (n, false) => format!("record {selected} · {} (0..{})", plural(n, "record"), n - 1),
        (n, true) => format!("record {selected} · {} so far", plural(n, "record")),
    }
}

/// "GZIP 2.3 KiB → 19.6 KiB", plus what went wrong with the stream, in a few words.
pub fn compression_text(info: &Compressed, decompressed: u64) -> String {
    let mut text = format!(
        "{} {} → {}",
        info.compression.tensorflow_name(),
        tfr_core::words::binary_size(info.compressed_len),
        tfr_core::words::binary_size(decompressed)
    );
    if let Some(p) = &info.problem {
        text.push_str(&format!(
            ", stream damaged at compressed byte {} ({})",
            p.compressed_offset,
            p.kind.name()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_positions_read_as_zero_based() {
        assert_eq!(record_text(4, 6, false), "record 4 · 6 records (0..5)");
        assert_eq!(record_text(0, 0, false), "no records");
        assert_eq!(record_text(0, 1, false), "record 0 · 1 record (0..0)");
        assert_eq!(record_text(0, 0, true), "no records yet");
        assert_eq!(record_text(3, 10, true), "record 3 · 10 records so far");
        assert_eq!(record_text(0, 1, true), "record 0 · 1 record so far");
    }
}
