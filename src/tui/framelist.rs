//! The frame list pane: one row per frame, virtualised.
//!
//! Only the rows on screen are ever described: the offset, length and CRC verdicts come straight
//! from the frame index (O(1) per row) and the kind and summary from `list`'s own
//! [`describe_frame`], computed by `update` for the visible rows and cached, so scrolling a
//! million-frame file costs the same as scrolling ten.

use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;

use tfr_core::bytes::ByteSource;
use tfr_core::frame::{Frame, FrameIndex};
use tfr_core::input::Input;
use tfr_core::summary::describe_frame;

/// What the list shows about a frame beyond what the index knows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowText {
    pub kind: String,
    pub summary: String,
    /// The record's feature count and names, to list as many names as the pane's width holds
    /// ([`tfr_core::summary::fit_names`]); none for other rows, whose summary is shown as it is.
    pub feature_count: Option<usize>,
    pub feature_names: tfr_core::payload::Names,
}

/// Describes frame `index` of `input` for the list (kind and one-line summary).
pub fn describe(input: &Input, frame: Frame) -> RowText {
    let row = describe_frame(input, frame);
    let kind = row
        .kind
        .as_ref()
        .map_or_else(|| frame.status.name().to_string(), |k| k.name().to_string());
    RowText {
        kind,
        summary: row.summary,
        feature_count: row.feature_count,
        feature_names: row.feature_names,
    }
}

/// The narrowest the kind column gets.
pub const MIN_KIND_WIDTH: usize = 15;

/// The widths of the list's columns: at least as wide as their usual values, and as wide as the
/// widest value on screen (a 7-digit index keeps a space from the border, a length field holding
/// 2^64 - 1 keeps the columns after it aligned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub index: usize,
    pub offset: usize,
    pub length: usize,
    pub kind: usize,
}

impl Default for Columns {
    fn default() -> Columns {
        Columns {
            index: 7,
            offset: 13,
            length: 10,
            kind: MIN_KIND_WIDTH,
        }
    }
}

impl Columns {
    /// Widens the columns to hold one row's values (a leading space before the numbers).
    pub fn fit(&mut self, index: usize, offset: u64, length: &str, kind: &str) {
        self.index = self.index.max(digits(index as u64) + 1);
        self.offset = self.offset.max(digits(offset) + 1);
        self.length = self.length.max(length.chars().count() + 1);
        self.kind = self.kind.max(tfr_core::words::column_width([
            tfr_core::words::display_width(kind),
        ]));
    }
}

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// The header line of the list, aligned with rows laid out in `columns`.
pub fn header(columns: Columns) -> String {
    let Columns {
        index,
        offset,
        length,
        kind,
    } = columns;
    let (right, left) = (tfr_core::words::pad_left_to, tfr_core::words::pad_to);
    format!(
        "{} {} {} lcrc dcrc {} summary",
        right("index", index),
        right("offset", offset),
        right("length", length),
        left("kind", kind)
    )
}

fn verdict(ok: Option<bool>) -> (&'static str, Style) {
    match ok {
        Some(true) => ("ok", Style::default().fg(Color::Green)),
        Some(false) => (
            "BAD",
            Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
        ),
        None => ("-", Style::default().fg(Color::DarkGray)),
    }
}

/// The length column's text: the declared length, or `-` when the header is unreadable.
fn length_text(frame: &Frame) -> String {
    frame
        .declared_length
        .map_or_else(|| "-".to_string(), |l| l.to_string())
}

/// The frame list for the visible rows.
pub struct FrameList<'a> {
    pub data: &'a dyn ByteSource,
    pub index: &'a FrameIndex,
    pub rows: &'a HashMap<usize, RowText>,
    pub top: usize,
    pub selected: usize,
    pub focused: bool,
}

impl Widget for FrameList<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        let shown: Vec<(u16, usize, Frame)> = (1..area.height)
            .map_while(|line| {
                let i = self.top.saturating_add(usize::from(line - 1));
                self.index.get(self.data, i).map(|f| (line, i, f))
            })
            .collect();
        let kind_of = |i: usize, frame: &Frame| match self.rows.get(&i) {
            Some(row) => row.kind.clone(),
            None => frame.status.name().to_string(),
        };
        // As wide as the widest value on screen (`data_crc_mismatch`, a long message type name,
        // a length field of 2^64 - 1).
        let mut columns = Columns::default();
        for (_, i, f) in &shown {
            columns.fit(*i, f.offset.0, &length_text(f), &kind_of(*i, f));
        }
        buf.set_stringn(
            area.x,
            area.y,
            header(columns),
            width,
            Style::default().add_modifier(Modifier::BOLD),
        );
        for (line, i, frame) in shown {
            let kind = kind_of(i, &frame);
            self.render_row(
                Rect::new(area.x, area.y + line, area.width, 1),
                i,
                &frame,
                &kind,
                columns,
                buf,
            );
        }
    }
}

impl FrameList<'_> {
    /// Frame `i`'s row in `row` (one line high): index, offset, length, both CRC verdicts, its
    /// kind padded to the kind column's width, and its summary.
    fn render_row(
        &self,
        row: Rect,
        i: usize,
        frame: &Frame,
        kind: &str,
        columns: Columns,
        buf: &mut Buffer,
    ) {
        let Columns {
            index: index_width,
            offset: offset_width,
            length: length_width,
            kind: kind_width,
        } = columns;
        let y = row.y;
        let damaged = !frame.status.is_intact();
        let mut base = if damaged {
            Style::default().fg(Color::Red)
        } else {
            Style::default()
        };
        if i == self.selected {
            base = base.add_modifier(Modifier::REVERSED);
            if self.focused {
                base = base.add_modifier(Modifier::BOLD);
            }
            buf.set_style(row, base);
        }
        let length = length_text(frame);
        let right = tfr_core::words::pad_left_to;
        let lead = format!(
            "{} {} {} ",
            right(&i.to_string(), index_width),
            right(&frame.offset.0.to_string(), offset_width),
            right(&length, length_width)
        );
        let remaining = |x: u16| usize::from(row.right().saturating_sub(x));
        // Each part cut where the row ends, with an ellipsis: a cut offset or value never passes
        // for a whole one.
        let put = |buf: &mut Buffer, x: u16, text: &str, style: Style| {
            let room = remaining(x);
            buf.set_stringn(x, y, tfr_core::words::clip(text, room), room, style)
                .0
        };
        let x = put(buf, row.x, &lead, base);
        let (lcrc, lstyle) = verdict(frame.status.length_crc_ok());
        let (dcrc, dstyle) = verdict(frame.status.data_crc_ok());
        let x = put(buf, x, &format!("{lcrc:<4} "), base.patch(lstyle));
        let x = put(buf, x, &format!("{dcrc:<4} "), base.patch(dstyle));
        let kind_style = if damaged {
            base.add_modifier(Modifier::BOLD)
        } else {
            base.fg(Color::Cyan)
        };
        let x = put(
            buf,
            x,
            &format!("{} ", tfr_core::words::pad_to(kind, kind_width)),
            kind_style,
        );
        // As many feature names as the row has room for.
        let summary = self.rows.get(&i).map_or(String::new(), |text| {
            tfr_core::summary::fit_names(
                &text.summary,
                text.feature_count,
                text.feature_names.iter(),
                remaining(x),
            )
        });
        put(buf, x, &summary, base);
    }
}
