//! The inspector as users of Unix tools expect it: without colour (NO_COLOR, `--color never`) the
//! cursor and selections stay visible in reverse video.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::{Action, Mode, key_action};
use tfr_inspect::tui::view;

use super::{line, screen};

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

const IMAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/images.tfrecord");
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/examples.tfrecord");

#[test]
fn eighty_by_twenty_four_shows_whole_tree_labels_and_whole_hex_rows() {
    for (width, height) in [(80, 24), (200, 60)] {
        let mut app = open_all(&[IMAGES], width, height);
        let buf = render(&app, width, height, true);
        let text = screen(&buf);
        for label in ["image/class/label", "image/class/text"] {
            assert!(text.contains(label), "{width}x{height}: {label} in\n{text}");
        }
        // A hex row holds its 16 bytes and their text column.
        let row = text
            .lines()
            .find(|l| l.contains("│         0  "))
            .unwrap_or_else(|| panic!("{text}"));
        let after = &row[row.find("         0  ").unwrap() + 12..];
        let pairs = after
            .split_whitespace()
            .take_while(|w| w.len() == 2 && w.chars().all(|c| c.is_ascii_hexdigit()))
            .count();
        assert_eq!(pairs, 16, "{width}x{height}: {row}");
        assert!(
            after.contains('|') || after.trim_end().len() > 16 * 3 + 1,
            "{row}"
        );
        // Scrolling the hex pane keeps the rows whole.
        app.update(Action::NextPane);
        app.update(Action::NextPane);
        let text = screen(&render(&app, width, height, true));
        assert!(text.contains("│        16  "), "{text}");
    }
}

#[test]
fn hex_rows_start_at_multiples_of_sixteen() {
    for (width, height) in [(80, 24), (200, 60)] {
        let mut app = open_all(&[EXAMPLES], width, height);
        app.update(Action::Down);
        let text = screen(&render(&app, width, height, true));
        // Record 1 starts at byte 99: its first row is the one at 96, its first byte the fourth.
        let row = text
            .lines()
            .find(|l| l.contains("        96  "))
            .unwrap_or_else(|| panic!("{width}x{height}:\n{text}"));
        let after = &row[row.find("        96  ").unwrap() + 12..];
        assert!(after.starts_with("         54 00 00 00"), "{row}");
        assert!(text.contains("       112  "), "{text}");
    }
}

/// `frames` empty records, then a header declaring 2^64 - 1 bytes (with a valid length CRC).
fn many_frames_then_a_huge_length(frames: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(frames * 16 + 16);
    for _ in 0..frames {
        tfr_core::frame::write_record(b"", &mut out).unwrap();
    }
    let length = u64::MAX.to_le_bytes();
    out.extend_from_slice(&length);
    out.extend_from_slice(&tfr_core::crc::masked_crc32c(&length).to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    out
}

#[test]
fn frame_list_columns_hold_seven_digit_indexes_and_huge_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.tfrecord");
    std::fs::write(&path, many_frames_then_a_huge_length(1_000_001)).unwrap();
    // Indexed once (a million frames), then drawn at both sizes.
    let mut app = open_all(&[path.to_str().unwrap()], 80, 24);
    for (width, height) in [(80, 24), (200, 60)] {
        app.update(Action::Resize { width, height });
        app.update(Action::End);
        let buf = render(&app, width, height, true);
        let text = screen(&buf);
        let header = text.lines().find(|l| l.contains("index")).unwrap();
        let last = text
            .lines()
            .find(|l| l.contains("1000001 "))
            .unwrap_or_else(|| panic!("{text}"));
        // A space between the border and the widest index.
        assert!(last.starts_with("│ 1000001 "), "{last}");
        let huge = u64::MAX.to_string();
        assert!(last.contains(&huge), "{last}");
        // The length values end where the header's `length` ends; so do the verdicts.
        let end_of =
            |l: &str, word: &str| l.find(word).map(|i| l[..i + word.len()].chars().count());
        assert_eq!(
            end_of(header, "length"),
            end_of(last, &huge),
            "{header}\n{last}"
        );
        let above = text.lines().find(|l| l.contains(" 1000000 ")).unwrap();
        assert_eq!(
            end_of(header, "length"),
            end_of(above, " 0"),
            "{header}\n{above}"
        );
        assert_eq!(
            header.find("lcrc").map(|i| header[..i].chars().count()),
            above.find("ok").map(|i| above[..i].chars().count()),
            "{header}\n{above}"
        );
    }
}

#[test]
fn strings_with_control_characters_show_escaped_in_the_tree() {
    // A message that is no Example: field 5 holds text with a newline and a bell.
    let text = b"new\nline\x07";
    let mut payload = vec![(5 << 3) | 2, text.len() as u8];
    payload.extend_from_slice(text);
    let mut file = Vec::new();
    tfr_core::frame::write_record(&payload, &mut file).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("text.tfrecord");
    std::fs::write(&path, file).unwrap();
    for (width, height) in [(80, 24), (200, 60)] {
        let app = open_all(&[path.to_str().unwrap()], width, height);
        let text = screen(&render(&app, width, height, true));
        assert!(text.contains(r#""new\nline\007""#), "{text}");
        assert!(!text.contains("bytes, 9 bytes"), "{text}");
    }
}

/// Text with box-drawing characters (borders, the status line's separators) dropped and runs of
/// spaces and line ends made one space, to compare wrapped text with the text it wraps.
fn flowed(text: &str) -> String {
    text.replace(|c: char| "│┌┐└┘─".contains(c), " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn text_cut_at_eighty_columns_is_readable_whole_in_the_w_overlay() {
    for (width, height) in [(80, 24), (200, 60)] {
        let mut app = open_all(&[LENGTH_BITFLIP], width, height);
        app.update(Action::NextDamaged);
        let summary = app.rows.get(&56).map(|r| r.summary.clone()).unwrap();
        let before = screen(&render(&app, width, height, true));
        if width == 80 {
            assert!(
                !flowed(&before).contains(&flowed(&summary)),
                "cut at 80 columns"
            );
        }
        app.update(Action::Details);
        let text = screen(&render(&app, width, height, true));
        assert!(text.contains("whole text"), "{text}");
        let whole = flowed(&text);
        assert!(whole.contains(&flowed(&summary)), "{summary}\n{text}");
        assert!(whole.contains(&flowed(&app.view.explain)), "{text}");
        assert!(
            whole.contains(&flowed(&app.status_text().unwrap())),
            "{text}"
        );
        // `w` and Esc close it; other keys do nothing meanwhile.
        assert_eq!(app.mode(), Mode::Whole);
        let press = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(key_action(app.mode(), press(KeyCode::Down)), None);
        assert_eq!(
            key_action(app.mode(), press(KeyCode::Char('w'))),
            Some(Action::Details)
        );
        app.update(Action::Cancel);
        assert!(!app.details && !app.quit);
        app.update(Action::Details);
        app.update(Action::Details);
        assert!(!app.details);
    }
}

#[test]
fn the_frame_list_names_as_many_features_as_fit() {
    let mut app = open_all(&[IMAGES], 200, 60);
    let text = screen(&render(&app, 200, 60, true));
    let row = text.lines().find(|l| l.contains("│      0 ")).unwrap();
    assert!(
        row.contains("7 features: image/class/label, image/class/text, image/depth, image/encoded, image/format, image/height, image/width"),
        "{row}"
    );
    assert!(!row.contains('…'), "{row}");
    app.update(Action::Resize {
        width: 80,
        height: 24,
    });
    let text = screen(&render(&app, 80, 24, true));
    let row = text.lines().find(|l| l.contains("│      0 ")).unwrap();
    assert!(row.contains("7 features: "), "{row}");
}

#[test]
fn c_and_shift_c_go_across_files_at_both_sizes() {
    for (width, height) in [(80, 24), (200, 60)] {
        let mut app = open_all(&[EXAMPLES, LENGTH_BITFLIP], width, height);
        app.update(Action::NextDamaged);
        assert_eq!((app.current, app.selected()), (1, 56), "{}", app.message);
        let text = screen(&render(&app, width, height, true));
        assert!(text.contains("length_bitflip.tfrecord"), "{text}");
        // Back past the first file's start: it has no damage, so the damaged frame stays.
        app.update(Action::PrevDamaged);
        assert_eq!((app.current, app.selected()), (1, 56), "{}", app.message);
    }
}
