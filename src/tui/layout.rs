//! Where each pane goes on the screen, as one pure function of the screen size.
//!
//! `update` needs the same rectangles as drawing does (how many rows a page is, which pane a mouse
//! click landed in), so both call [`panes`] instead of each guessing.

use ratatui::layout::Rect;

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
    pub status: Rect,
}

/// Whether `area` is too small to lay the panes out.
pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// The panes for a screen of `area`, with room for a preview when `preview` is set and `notices`
/// lines for messages that stay on screen.
pub fn panes(area: Rect, preview: bool, notices: u16) -> Panes {
    let status = Rect::new(
        area.x,
        area.bottom().saturating_sub(1),
        area.width,
        1.min(area.height),
    );
    let explain = Rect::new(
        area.x,
        area.bottom().saturating_sub(2),
        area.width,
        1.min(area.height.saturating_sub(1)),
    );
    // Notices never take the rows the panes need at the smallest usable size.
    let notices = notices.min(area.height.saturating_sub(MIN_HEIGHT));
    let notice_rect = Rect::new(
        area.x,
        area.bottom().saturating_sub(2 + notices),
        area.width,
        notices,
    );
    let body_height = area.height.saturating_sub(2 + notices);
    let list_height = (body_height * 3 / 10).max(5).min(body_height);
    let list = Rect::new(area.x, area.y, area.width, list_height);
    let main_y = area.y + list_height;
    let main_height = body_height - list_height;
    let (tree_area, hex) = if area.width >= SIDE_BY_SIDE_WIDTH {
        // Wide: the tree beside a hex pane that shows whole rows.
        let hex_width = ROW_WIDTH + 2;
        let tree_width = area.width - hex_width;
        (
            Rect::new(area.x, main_y, tree_width, main_height),
            Rect::new(area.x + tree_width, main_y, hex_width, main_height),
        )
    } else {
        // Narrow (80 columns): the tree above the hex pane, both the screen's width, so tree
        // labels are not cut to a few letters and hex rows keep all 16 bytes and their text.
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
    let (tree, preview) = if !preview {
        (tree_area, None)
    } else if area.width >= SIDE_BY_SIDE_WIDTH && main_height >= 10 {
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
    } else if area.width < SIDE_BY_SIDE_WIDTH && tree_area.height >= 6 {
        // Stacked: the preview takes the right third of the tree's band.
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
        status,
    }
}

/// The inside of a bordered pane.
pub fn inner(rect: Rect) -> Rect {
    Rect::new(
        rect.x.saturating_add(1),
        rect.y.saturating_add(1),
        rect.width.saturating_sub(2),
        rect.height.saturating_sub(2),
    )
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
