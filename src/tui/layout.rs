//! Where each pane goes on the screen, as one pure function of the screen size.
//!
//! `update` needs the same rectangles as drawing does (how many rows a page is, which pane a mouse
//! click landed in), so both call [`panes`] instead of each guessing.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Clear, Widget};

use super::hexview::ROW_WIDTH;

/// Smallest usable screen; below it only a message is drawn.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 12;
/// Narrowest screen on which the tree sits beside the hex pane, each with room to be read; below
/// it they are stacked.
pub const SIDE_BY_SIDE_WIDTH: u16 = ROW_WIDTH + 2 + 40;

/// The outer rectangles (with borders) of every pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Panes {
    pub list: Rect,
    pub tree: Rect,
    /// Present when the selection has an image to preview.
    pub preview: Option<Rect>,
    pub hex: Rect,
    /// The line explaining the token under the hex cursor.
    pub explain: Rect,
    /// Lines above the explanation that list inputs that could not be opened (height 0 if none).
    pub notices: Rect,
    /// The answer of the last action on a line of its own, above the status bar, when it does
    /// not fit on the bar (height 0 otherwise).
    pub message: Rect,
    pub status: Rect,
}

/// What the panes hold, so that each gets the rows its content needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wants {
    /// The selection has an image (or a plot) to preview.
    pub preview: bool,
    /// Lines of messages that stay on screen.
    pub notices: u16,
    /// The last action's answer needs a line of its own.
    pub message: bool,
    /// Rows of the frame list's content: its header and every frame (`usize::MAX` when unknown).
    pub list_rows: usize,
    /// Rows the step panel's lines take, when it shows.
    pub band_rows: Option<usize>,
    /// Rows of the hex pane's content (the selected frame's bytes), when known.
    pub hex_rows: Option<usize>,
    /// The band holds step mode (or the parsed view or the quiz), which takes rows from the frame
    /// list and the hex pane until it has what it needs.
    pub band_first: bool,
}

impl Wants {
    /// The layout of a screen whose content is not known: every pane its share.
    pub fn shares(preview: bool, notices: u16) -> Wants {
        Wants {
            preview,
            notices,
            message: false,
            list_rows: usize::MAX,
            band_rows: None,
            hex_rows: None,
            band_first: false,
        }
    }
}

/// The fewest rows of a frame list: its border, header and the selected frame.
pub const LIST_MIN: u16 = 4;
/// The fewest rows of the hex pane when the tree's band takes what it needs: its border and 3 rows.
pub const HEX_MIN: u16 = 5;

/// A window of `width` x `height` (no larger than `area`) in the middle of `area`, rounded up and
/// to the left, cleared for an overlay drawn over the panes (the help, the whole text).
pub fn cleared_middle(area: Rect, (width, height): (u16, u16), buf: &mut Buffer) -> Rect {
    let (width, height) = (width.min(area.width), height.min(area.height));
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(rect, buf);
    rect
}

/// Whether `area` is too small to lay the panes out.
pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// The panes for a screen of `area` whose content is not known (see [`panes_for`]).
pub fn panes(area: Rect, preview: bool, notices: u16) -> Panes {
    panes_for(area, Wants::shares(preview, notices))
}

/// `rows` as a screen's rows, a count too large for a screen being as many as any screen has.
fn as_rows(rows: usize) -> u16 {
    u16::try_from(rows).unwrap_or(u16::MAX)
}

/// The panes for a screen of `area` holding what `wants` says.
///
/// From the bottom up: the status line, the answer of the last action when it needs its own line,
/// the explanation, the notices; above them the frame list (three tenths of the body, at least 5
/// rows, and no more than its frames need) and the main band, which holds the tree (and the
/// preview) beside or above the hex pane. Stacked, the tree gets half the band, or more when the
/// selected frame's bytes need fewer rows than the other half; step mode takes rows from the list
/// and the hex pane until its panel fits. (The tree's own rows do not move the panes: they change
/// with every node opened, and a pane that moves under a click would be a trap.)
pub fn panes_for(area: Rect, wants: Wants) -> Panes {
    // Notices and the message line never take the rows the panes need at the smallest usable
    // size.
    let spare = area.height.saturating_sub(MIN_HEIGHT);
    let notices = wants.notices.min(spare);
    let message = u16::from(wants.message).min(spare.saturating_sub(notices));
    let [body, notice_rect, explain, message_rect, status] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(notices),
        Constraint::Length(1),
        Constraint::Length(message),
        Constraint::Length(1),
    ])
    .areas(area);
    let share_height = share(body.height, 3, 10).max(5).min(body.height);
    let needed = as_rows(wants.list_rows.saturating_add(2)).max(LIST_MIN);
    let mut list_height = share_height.min(needed);
    let wide = area.width >= SIDE_BY_SIDE_WIDTH;
    let band_needs = wants.band_rows.map(|rows| as_rows(rows).saturating_add(2));
    if let (true, Some(need)) = (wants.band_first, band_needs) {
        // Rows the band lacks come out of the frame list first, down to its fewest.
        let main = body.height - list_height;
        let band_has = if wide {
            main
        } else {
            main.saturating_sub(HEX_MIN)
        };
        let lacking = need.saturating_sub(band_has);
        list_height = list_height
            .saturating_sub(lacking)
            .max(LIST_MIN.min(list_height));
    }
    let [list, main] =
        Layout::vertical([Constraint::Length(list_height), Constraint::Fill(1)]).areas(body);
    let [tree_area, hex] = if wide {
        // Wide: the tree beside a hex pane that shows whole rows.
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(ROW_WIDTH + 2)]).areas(main)
    } else {
        // Narrow (80 columns): the tree above the hex pane, both the screen's width, so tree
        // labels are not cut to a few letters and hex rows keep all 16 bytes and their text.
        let half = main.height / 2;
        let hex_needs = wants.hex_rows.map(|rows| as_rows(rows).saturating_add(2));
        let tree_height = match (band_needs, hex_needs) {
            // Step mode: what its panel needs, leaving the hex pane its fewest rows.
            (Some(need), _) if wants.band_first => {
                need.min(main.height.saturating_sub(HEX_MIN)).max(half)
            }
            // A short frame leaves the rest to the tree.
            (_, Some(hex)) if hex < main.height - half => {
                main.height - hex.max(HEX_MIN.min(main.height - half))
            }
            _ => half,
        };
        Layout::vertical([Constraint::Length(tree_height), Constraint::Fill(1)]).areas(main)
    };
    let (tree, preview) =
        match preview_split(tree_area, wide && wants.preview, !wide && wants.preview) {
            Some([tree, preview]) => (tree, Some(preview)),
            None => (tree_area, None),
        };
    Panes {
        list,
        tree,
        preview,
        hex,
        explain,
        notices: notice_rect,
        message: message_rect,
        status,
    }
}

/// The tree's band split into the tree and an image preview, when one is wanted and there is
/// room: below the tree on a wide screen (`below`), in the right third of the band when the tree
/// is stacked over the hex pane (`beside`).
fn preview_split(band: Rect, below: bool, beside: bool) -> Option<[Rect; 2]> {
    if below && band.height >= 10 {
        let preview_height = share(band.height, 55, 100).clamp(8, 22);
        Some(
            Layout::vertical([Constraint::Fill(1), Constraint::Length(preview_height)]).areas(band),
        )
    } else if beside && band.height >= 6 {
        Some(
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(band.width / 3)])
                .areas(band),
        )
    } else {
        None
    }
}

/// `parts` of `rows` in `of`, rounded down (a screen's rows, any number of them).
fn share(rows: u16, parts: u16, of: u16) -> u16 {
    let share = u32::from(rows) * u32::from(parts) / u32::from(of.max(1));
    u16::try_from(share).unwrap_or(rows)
}

/// The inside of a bordered pane, as its block draws it.
pub fn inner(rect: Rect) -> Rect {
    Block::bordered().inner(rect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_screens_give_the_hex_pane_a_full_row() {
        let p = panes(Rect::new(0, 0, 160, 48), true, 0);
        assert_eq!(p.hex.width, ROW_WIDTH + 2);
        assert!(p.preview.is_some());
        assert_eq!(p.status.y, 47);
        assert_eq!(p.tree.width + p.hex.width, 160);
    }

    #[test]
    fn eighty_columns_stack_the_tree_over_a_hex_pane_of_whole_rows() {
        let p = panes(Rect::new(0, 0, 80, 24), true, 0);
        assert_eq!(p.hex.width, 80);
        assert!(p.hex.width >= ROW_WIDTH + 2, "16 bytes and their text");
        assert_eq!(p.tree.x, 0);
        assert!(p.tree.width >= 50, "{:?}", p.tree);
        assert_eq!(p.tree.bottom(), p.hex.y);
        assert!(p.hex.height >= 6 && p.tree.height >= 6, "{p:?}");
        let preview = p.preview.unwrap_or_default();
        assert_eq!(preview.right(), 80);
        assert_eq!(preview.y, p.tree.y);
        assert_eq!(p.hex.bottom(), p.explain.y);
        // Every pane is on screen and none overlaps another.
        let all = [p.list, p.tree, preview, p.hex, p.explain, p.status];
        for (i, a) in all.iter().enumerate() {
            assert!(a.bottom() <= 24 && a.right() <= 80);
            for b in &all[i + 1..] {
                assert!(!a.intersects(*b), "{a:?} {b:?}");
            }
        }
    }

    /// The rectangles as they were computed before the panes were laid out by constraints,
    /// kept to show the layout did not move a cell.
    fn by_arithmetic(area: Rect, preview: bool, notices: u16) -> Panes {
        let status = Rect::new(area.x, area.bottom() - 1, area.width, 1);
        let explain = Rect::new(area.x, area.bottom() - 2, area.width, 1);
        let notices = notices.min(area.height - MIN_HEIGHT);
        let notice_rect = Rect::new(area.x, area.bottom() - 2 - notices, area.width, notices);
        let body_height = area.height - 2 - notices;
        let list_height = (body_height * 3 / 10).max(5).min(body_height);
        let list = Rect::new(area.x, area.y, area.width, list_height);
        let main_y = area.y + list_height;
        let main_height = body_height - list_height;
        let wide = area.width >= SIDE_BY_SIDE_WIDTH;
        let (tree_area, hex) = if wide {
            let hex_width = ROW_WIDTH + 2;
            let tree_width = area.width - hex_width;
            (
                Rect::new(area.x, main_y, tree_width, main_height),
                Rect::new(area.x + tree_width, main_y, hex_width, main_height),
            )
        } else {
            let tree_height = main_height / 2;
            (
                Rect::new(area.x, main_y, area.width, tree_height),
                Rect::new(
                    area.x,
                    main_y + tree_height,
                    area.width,
                    main_height - tree_height,
                ),
            )
        };
        let (tree, preview) = if preview && wide && main_height >= 10 {
            let preview_height = (main_height * 55 / 100).clamp(8, 22);
            let tree_height = main_height - preview_height;
            (
                Rect::new(area.x, main_y, tree_area.width, tree_height),
                Some(Rect::new(
                    area.x,
                    main_y + tree_height,
                    tree_area.width,
                    preview_height,
                )),
            )
        } else if preview && !wide && tree_area.height >= 6 {
            let preview_width = area.width / 3;
            let tree_width = area.width - preview_width;
            (
                Rect::new(area.x, main_y, tree_width, tree_area.height),
                Some(Rect::new(
                    area.x + tree_width,
                    main_y,
                    preview_width,
                    tree_area.height,
                )),
            )
        } else {
            (tree_area, None)
        };
        Panes {
            list,
            tree,
            preview,
            hex,
            explain,
            notices: notice_rect,
            message: Rect::new(area.x, area.bottom() - 1, area.width, 0),
            status,
        }
    }

    #[test]
    fn usable_screens_lay_out_cell_for_cell_as_before() {
        // The sizes the rendering tests use, and those where a rule changes (the minimum, the
        // side-by-side width, a preview's or the list's minimum height, odd and even rows).
        let widths = [60, 70, 79, 80, 81, 120, 160, 200, 240];
        let widths = widths
            .into_iter()
            .chain([SIDE_BY_SIDE_WIDTH - 1, SIDE_BY_SIDE_WIDTH]);
        for width in widths {
            for height in [12, 13, 19, 20, 24, 25, 40, 48, 60, 61] {
                for (preview, notices) in [(false, 0), (true, 0), (false, 3), (true, 40)] {
                    // Off the origin too: a pane's place is relative to the screen's.
                    for (x, y) in [(0, 0), (3, 2)].into_iter().take(1 + usize::from(preview)) {
                        let area = Rect::new(x, y, width, height);
                        assert_eq!(
                            panes(area, preview, notices),
                            by_arithmetic(area, preview, notices),
                            "{area:?} preview {preview} notices {notices}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn any_screen_lays_out_panes_inside_it_that_do_not_overlap() {
        let widths = (0..=8).chain([MIN_WIDTH - 1, SIDE_BY_SIDE_WIDTH - 1, SIDE_BY_SIDE_WIDTH]);
        for width in widths.chain([u16::MAX]) {
            for height in (0..=MIN_HEIGHT + 2).chain([u16::MAX]) {
                for wants in wants_to_try() {
                    let area = Rect::new(0, 0, width, height);
                    let p = panes_for(area, wants);
                    let all = [
                        p.list,
                        p.tree,
                        p.preview.unwrap_or_default(),
                        p.hex,
                        p.notices,
                        p.explain,
                        p.message,
                        p.status,
                    ];
                    for (i, a) in all.iter().enumerate() {
                        let inside = a.is_empty() || area.intersection(*a) == *a;
                        assert!(inside, "{a:?} outside {area:?}");
                        let inner = inner(*a);
                        assert!(inner.is_empty() || a.intersection(inner) == inner);
                        for b in &all[i + 1..] {
                            let apart = a.is_empty() || b.is_empty() || !a.intersects(*b);
                            assert!(apart, "{a:?} {b:?} on {area:?}");
                        }
                    }
                }
            }
        }
    }

    /// Contents from none to more than any screen holds.
    fn wants_to_try() -> Vec<Wants> {
        let mut out = vec![Wants::shares(false, 0), Wants::shares(true, u16::MAX)];
        for (list_rows, band_rows, hex_rows) in [
            (0, Some(0), Some(0)),
            (1, Some(3), Some(1)),
            (2, Some(40), Some(2)),
            (usize::MAX, Some(usize::MAX), Some(usize::MAX)),
            (5, None, Some(7)),
        ] {
            for (preview, message, band_first) in [
                (false, true, true),
                (true, false, true),
                (true, true, false),
            ] {
                out.push(Wants {
                    preview,
                    notices: 2,
                    message,
                    list_rows,
                    band_rows,
                    hex_rows,
                    band_first,
                });
            }
        }
        out
    }

    #[test]
    fn the_list_takes_only_the_rows_its_frames_fill() {
        let area = Rect::new(0, 0, 80, 24);
        let one = Wants {
            list_rows: 2,
            ..Wants::shares(false, 0)
        };
        let p = panes_for(area, one);
        assert_eq!(p.list.height, LIST_MIN);
        assert_eq!(p.tree.y, LIST_MIN);
        // Many frames: three tenths, as before.
        let many = Wants {
            list_rows: 1000,
            ..one
        };
        assert_eq!(panes_for(area, many), panes(area, false, 0));
    }

    #[test]
    fn step_mode_takes_rows_from_the_hex_pane_then_the_list() {
        let area = Rect::new(0, 0, 80, 24);
        let step = |rows| Wants {
            list_rows: 100,
            band_rows: Some(rows),
            band_first: true,
            ..Wants::shares(false, 0)
        };
        // A short panel keeps the band's half.
        let p = panes_for(area, step(2));
        assert_eq!(p, panes(area, false, 0));
        // 10 lines: the hex pane gives rows down to its fewest, then the list the one left.
        let p = panes_for(area, step(10));
        assert_eq!(p.tree.height, 12, "{p:?}");
        assert_eq!(p.hex.height, HEX_MIN);
        assert_eq!(p.list.height, 5);
        // More than the screen: the list and the hex pane keep their fewest rows.
        let p = panes_for(area, step(1000));
        assert_eq!((p.list.height, p.hex.height), (LIST_MIN, HEX_MIN), "{p:?}");
    }

    #[test]
    fn the_message_line_sits_above_the_status_bar() {
        let area = Rect::new(0, 0, 80, 24);
        let wants = Wants {
            message: true,
            ..Wants::shares(false, 0)
        };
        let p = panes_for(area, wants);
        assert_eq!(p.message, Rect::new(0, 22, 80, 1));
        assert_eq!(p.explain.y, 21);
        assert_eq!(p.hex.bottom(), 21);
        // At the smallest size it gives way to the panes.
        let p = panes_for(Rect::new(0, 0, MIN_WIDTH, MIN_HEIGHT), wants);
        assert_eq!(p.message.height, 0);
    }

    #[test]
    fn notices_sit_above_the_explanation_and_shrink_the_body() {
        let p = panes(Rect::new(0, 0, 160, 48), false, 2);
        assert_eq!(p.notices, Rect::new(0, 44, 160, 2));
        assert_eq!(p.explain.y, 46);
        assert_eq!(p.hex.bottom(), 44);
        // At the minimum size there is no room for them.
        let p = panes(Rect::new(0, 0, MIN_WIDTH, MIN_HEIGHT), false, 2);
        assert_eq!(p.notices.height, 0);
    }
}
