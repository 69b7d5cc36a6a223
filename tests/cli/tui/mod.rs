//! The inspector without a terminal: the App model driven through `update` and drawn on a
//! `TestBackend`, one module per part (panes and keymap, images, search, tutor, Unix habits),
//! and the helpers they share.

mod app;
mod images;
mod remote;
mod screens;
mod search;
mod tutor;
mod unix;

use std::path::{Path, PathBuf};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::Action;

/// The decoder the inspector starts with: the built-in schema, payloads detected.
pub fn decoder() -> Decoder {
    Decoder::new(Schema::builtin(), Reading::Auto)
}

/// The inspector on `path`, indexed.
pub fn open(path: &(impl AsRef<Path> + ?Sized)) -> App {
    open_all(&[path.as_ref().to_path_buf()])
}

/// The inspector on `paths`, indexed.
pub fn open_all(paths: &[PathBuf]) -> App {
    let mut app = App::open(paths, &OpenOptions::new(decoder())).unwrap();
    app.index_now();
    app
}

/// Types `text` into the open prompt.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(Action::Input(c));
    }
}

/// `app` drawn on a `width` by `height` TestBackend.
pub fn render(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    terminal.backend().buffer().clone()
}

/// Row `y` of `buf` as text.
pub fn line(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf.cell((x, y)).map_or(" ", |c| c.symbol()))
        .collect()
}

/// Every row of `buf` as text, one line each.
pub fn screen(buf: &Buffer) -> String {
    (0..buf.area.height)
        .map(|y| line(buf, y))
        .collect::<Vec<_>>()
        .join("\n")
}
