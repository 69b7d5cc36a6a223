//! The inspector as users of Unix tools expect it: without colour (NO_COLOR, `--color never`) the
//! cursor and selections stay visible in reverse video.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use tfr_inspect::input::OpenOptions;
use tfr_inspect::payload::{Decoder, Reading};
use tfr_inspect::schema::Schema;
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::Action;
use tfr_inspect::tui::view;

const LENGTH_BITFLIP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/corrupt/length_bitflip.tfrecord"
);

fn open_all(paths: &[&str], width: u16, height: u16) -> App {
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let mut app = App::open(&paths, &OpenOptions::new(decoder)).unwrap();
    app.index_now();
    app.update(Action::Resize { width, height });
    app
}

fn render(app: &App, width: u16, height: u16, colour: bool) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| {
            f.render_widget(app, f.area());
            if !colour {
                view::monochrome(f.buffer_mut());
            }
        })
        .unwrap();
    terminal.backend().buffer().clone()
}

fn line(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf.cell((x, y)).map_or(" ", |c| c.symbol()))
        .collect()
}

fn row_of(buf: &Buffer, text: &str) -> u16 {
    (0..buf.area.height)
        .find(|&y| line(buf, y).contains(text))
        .unwrap_or_else(|| panic!("no row holds {text:?}"))
}

#[test]
fn without_colour_the_selection_stays_in_reverse_video_and_damage_in_bold() {
    for (width, height) in [(80, 24), (200, 60)] {
        let mut app = open_all(&[LENGTH_BITFLIP], width, height);
        app.update(Action::NextDamaged);
        let buf = render(&app, width, height, false);
        assert!(
            buf.content
                .iter()
                .all(|c| c.fg == Color::Reset && c.bg == Color::Reset),
            "no colour at {width}x{height}"
        );
        // The selected frame (56, damaged) is the reversed row of the frame list.
        let y = row_of(&buf, "     56 ");
        let row = line(&buf, y);
        let x = u16::try_from(row.chars().position(|c| c == '5').unwrap()).unwrap();
        let cell = buf.cell((x, y)).unwrap();
        assert!(cell.modifier.contains(Modifier::REVERSED), "{row}");
        assert!(
            cell.modifier.contains(Modifier::BOLD),
            "damage is bold: {row}"
        );
        // The hex cursor is reversed too.
        assert!(
            buf.content
                .iter()
                .filter(|c| c.modifier.contains(Modifier::REVERSED))
                .count()
                > row.trim().chars().count(),
            "the hex cursor is drawn as well"
        );
        // With colour, the same screen is coloured.
        let coloured = render(&app, width, height, true);
        assert!(coloured.content.iter().any(|c| c.fg == Color::Red));
    }
}
