//! Where each pane goes on the screen, as one pure function of the screen size.
//!
//! `update` needs the same rectangles as drawing does (how many rows a page is, which pane a mouse
//! click landed in), so both call [`panes`] instead of each guessing.

use ratatui::layout::Rect;

use super::hexview::ROW_WIDTH;

/// Smallest usable screen; below it only a message is drawn.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 12;

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
    let hex_width = (ROW_WIDTH + 2)
        .min(area.width.saturating_sub(24))
        .max(area.width / 2);
    let tree_width = area.width.saturating_sub(hex_width);
    let hex = Rect::new(area.x + tree_width, main_y, hex_width, main_height);
    let (tree, preview) = if preview && main_height >= 10 {
        let preview_height = (main_height * 55 / 100).clamp(8, 22);
        let tree_height = main_height - preview_height;
        (
            Rect::new(area.x, main_y, tree_width, tree_height),
            Some(Rect::new(
                area.x,
                main_y + tree_height,
                tree_width,
                preview_height,
            )),
        )
    } else {
        (Rect::new(area.x, main_y, tree_width, main_height), None)
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
