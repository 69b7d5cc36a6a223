//! Moving around: arrows, pages and ends in whichever pane has focus, and the mouse.
//!
//! The same key means "next row" in the list, "next visible node" in the tree and "next 16 bytes"
//! in the hex pane; this is where that mapping from [`Action`] to pane-specific motion lives.

use ratatui::layout::{Position, Rect};

use super::{App, Pane};
use crate::tui::hexview::ROW;
use crate::tui::keymap::Action;
use crate::tui::layout;

impl App {
    pub(super) fn arrow(&mut self, action: Action) {
        let delta = if matches!(action, Action::Up | Action::Left) {
            -1
        } else {
            1
        };
        if self.scroll_stats(delta) {
            return;
        }
        match (self.focus, action) {
            (Pane::List, Action::Up) => self.select_frame(self.selected().saturating_sub(1)),
            (Pane::List, Action::Down) => self.select_frame(self.selected().saturating_add(1)),
            (Pane::List, Action::Right) => self.focus = Pane::Tree,
            (Pane::List, _) => {}
            // A tutor panel in the tree's place: the arrows step token by token.
            (Pane::Tree, Action::Up | Action::Left) if self.tutor.shows_panel() => {
                self.step_token(false)
            }
            (Pane::Tree, _) if self.tutor.shows_panel() => self.step_token(true),
            (Pane::Tree, Action::Up) => self.tree_step(-1),
            (Pane::Tree, Action::Down) => self.tree_step(1),
            (Pane::Tree, Action::Right) => {
                let n = self.view.node;
                if self.view.tree.has_children(n) && !self.view.tree.is_expanded(n) {
                    self.expand(n, true);
                } else {
                    self.tree_step(1);
                }
            }
            (Pane::Tree, _) => {
                let n = self.view.node;
                if self.view.tree.has_children(n) && self.view.tree.is_expanded(n) {
                    self.expand(n, false);
                } else if let Some(parent) = self.view.tree.nodes.get(n).and_then(|n| n.parent) {
                    self.select_node(parent, true);
                }
            }
            (Pane::Hex, a) => {
                let delta: i64 = match a {
                    Action::Up => -(ROW as i64),
                    Action::Down => ROW as i64,
                    Action::Left => -1,
                    _ => 1,
                };
                self.move_cursor(delta);
            }
        }
    }

    pub(super) fn page(&self, pane: Rect) -> usize {
        usize::from(layout::inner(pane).height).max(2) - 1
    }

    pub(super) fn jump(&mut self, action: Action) {
        let panes = self.panes();
        let page = isize::from(
            i16::try_from(layout::inner(panes.hex).height.max(2) - 1).unwrap_or(i16::MAX),
        );
        let delta = match action {
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Home => isize::MIN / 2,
            _ => isize::MAX / 2,
        };
        if self.scroll_stats(delta) {
            return;
        }
        match self.focus {
            Pane::List => {
                let page = self.page(panes.list).saturating_sub(1).max(1);
                let target = match action {
                    Action::PageUp => self.selected().saturating_sub(page),
                    Action::PageDown => self.selected().saturating_add(page),
                    Action::Home => 0,
                    _ => self.frame_count().saturating_sub(1),
                };
                self.select_frame(target);
            }
            Pane::Tree => {
                let visible = self.view.tree.visible();
                let at = visible
                    .iter()
                    .position(|n| *n == self.view.node)
                    .unwrap_or(0);
                let page = self.page(panes.tree);
                let target = match action {
                    Action::PageUp => at.saturating_sub(page),
                    Action::PageDown => at.saturating_add(page),
                    Action::Home => 0,
                    _ => visible.len().saturating_sub(1),
                };
                let target = target.min(visible.len().saturating_sub(1));
                if let Some(n) = visible.get(target) {
                    self.select_node(*n, true);
                }
            }
            Pane::Hex => {
                let page = (self.page(panes.hex) as i64 + 1) * ROW as i64;
                match action {
                    Action::PageUp => self.move_cursor(-page),
                    Action::PageDown => self.move_cursor(page),
                    Action::Home => self.set_cursor(self.view.region.start),
                    _ => self.set_cursor(self.view.region.end.saturating_sub(1)),
                }
            }
        }
    }

    pub(super) fn toggle(&mut self) {
        match self.focus {
            Pane::List => self.focus = Pane::Tree,
            _ => {
                let n = self.view.node;
                let open = self.view.tree.is_expanded(n);
                self.expand(n, !open);
            }
        }
    }

    pub(super) fn tree_step(&mut self, delta: isize) {
        let visible = self.view.tree.visible();
        let at = visible
            .iter()
            .position(|n| *n == self.view.node)
            .unwrap_or(0);
        let target = at
            .saturating_add_signed(delta)
            .min(visible.len().saturating_sub(1));
        if let Some(n) = visible.get(target) {
            self.select_node(*n, true);
        }
    }

    pub(super) fn move_cursor(&mut self, delta: i64) {
        let target = self.view.cursor.saturating_add_signed(delta);
        self.set_cursor(target);
    }

    pub(super) fn wheel(&mut self, column: u16, row: u16, down: bool) {
        let panes = self.panes();
        let at = Position::new(column, row);
        let step = if down { 3 } else { -3 };
        if panes.list.contains(at) {
            let target = self.selected().saturating_add_signed(step);
            self.select_frame(target);
        } else if self.tutor.shows_panel() && self.tutor_rect().contains(at) {
            self.step_token(down);
        } else if panes.tree.contains(at) {
            self.tree_step(step);
        } else if panes.hex.contains(at) && self.stats.is_some() {
            self.focus = Pane::Hex;
            self.scroll_stats(step);
        } else if panes.hex.contains(at) {
            self.move_cursor(step as i64 * ROW as i64);
        }
    }

    pub(super) fn click(&mut self, column: u16, row: u16) {
        let panes = self.panes();
        let at = Position::new(column, row);
        let list = layout::inner(panes.list);
        let tree = layout::inner(panes.tree);
        if panes.list.contains(at) {
            self.focus = Pane::List;
            if row > list.y && list.contains(at) {
                let top = self.file().map_or(0, |f| f.list_top);
                self.select_frame(top + usize::from(row - list.y - 1));
            }
        } else if self.tutor.shows_panel() && self.tutor_rect().contains(at) {
            self.focus = Pane::Tree;
        } else if panes.tree.contains(at) {
            self.focus = Pane::Tree;
            // While a record decodes in the background, its progress takes the pane's first line.
            let first = tree.y + u16::from(self.decoding_percent().is_some());
            if tree.contains(at) && row >= first {
                let visible = self.view.tree.visible();
                if let Some(n) = visible.get(self.view.tree_top + usize::from(row - first)) {
                    if *n == self.view.node {
                        self.toggle();
                    }
                    self.select_node(*n, true);
                }
            }
        } else if panes.hex.contains(at) {
            self.focus = Pane::Hex;
            if let Some(offset) = self.hex_geometry().byte_at(at) {
                self.set_cursor(offset);
            }
        }
    }
}
