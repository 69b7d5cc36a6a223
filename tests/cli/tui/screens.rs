//! The inspector at 80x24 and 160x48 on a `TestBackend`: the help scrolls until every key is
//! seen, the last action's answer is whole on screen, the panes take the rows their content needs,
//! and the image pane and the hex pane keep to their own rectangles.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tfr_inspect::tui::app::{App, Pane};
use tfr_inspect::tui::help;
use tfr_inspect::tui::keymap::{Action, PromptKind};

use super::{open, render, screen, type_text};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/examples.tfrecord");
const MNIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/mnist_like.tfrecord");
const DETECTION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/realworld/detection_train.record-00000-of-00001"
);

/// The inspector on `path`, indexed, on a `width` x `height` screen.
fn open_at(path: &(impl AsRef<Path> + ?Sized), width: u16, height: u16) -> App {
    let mut app = open(path);
    app.update(Action::Resize { width, height });
    app
}

/// The help's rows on screen, as text.
fn help_text(app: &App, width: u16, height: u16) -> String {
    screen(&render(app, width, height))
}

#[test]
fn the_help_scrolls_at_80x24_until_every_key_has_been_seen() {
    let (width, height) = (80, 24);
    let mut app = open_at(EXAMPLES, width, height);
    app.update(Action::Help);
    let first = help_text(&app, width, height);
    assert!(first.contains("more below (j PgDn End)"), "{first}");
    assert!(!first.contains("more above"), "{first}");
    assert!(
        !first.contains("q Ctrl-C"),
        "the last key is past the first page at 80x24, or this test scrolls nothing: {first}"
    );
    // Row by row (j), every key of the help is seen on some page; the moves do not reach the panes.
    let mut seen = first.clone();
    let selected = app.selected();
    for _ in 0..200 {
        app.update(Action::Down);
        let text = help_text(&app, width, height);
        seen.push_str(&text);
        if !text.contains("more below") {
            break;
        }
    }
    assert_eq!(
        app.selected(),
        selected,
        "j scrolled the help, not the list"
    );
    for (keys, _) in help::lines() {
        assert!(seen.contains(&keys), "{keys} never shown");
    }
    let last = help_text(&app, width, height);
    assert!(last.contains("q Ctrl-C") && last.contains("quit"), "{last}");
    assert!(last.contains("more above"), "{last}");
    // Down past the end stays at the end; Home goes back; End and PgDn reach the end again.
    app.update(Action::Down);
    assert_eq!(help_text(&app, width, height), last);
    app.update(Action::Home);
    assert_eq!(help_text(&app, width, height), first);
    app.update(Action::End);
    assert_eq!(help_text(&app, width, height), last);
    app.update(Action::PageUp);
    app.update(Action::PageUp);
    app.update(Action::PageUp);
    assert_eq!(
        help_text(&app, width, height),
        first,
        "PgUp back to the top"
    );
    let mut pages = 0;
    while help_text(&app, width, height).contains("more below") {
        app.update(Action::PageDown);
        pages += 1;
        assert!(pages < 10, "PgDn does not reach the end");
    }
    assert!(pages >= 1);
    assert_eq!(help_text(&app, width, height), last);
    // `q` quits from the help.
    let q = crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('q'),
        crossterm::event::KeyModifiers::NONE,
    );
    let action = tfr_inspect::tui::keymap::key_action(app.mode(), q);
    assert_eq!(action, Some(Action::Quit));
    // Closed and opened again, the help starts at its top.
    app.update(Action::Help);
    app.update(Action::Help);
    assert_eq!(help_text(&app, width, height), first);
    // At 160x48 it all fits: nothing is said to be above or below.
    let app = {
        let mut app = open_at(EXAMPLES, 160, 48);
        app.update(Action::Help);
        app
    };
    let text = help_text(&app, 160, 48);
    assert!(text.contains("q Ctrl-C"), "{text}");
    assert!(!text.contains("more below") && !text.contains("more above"));
}

#[test]
fn the_wire_format_card_opens_with_k_and_scrolls_to_its_end_at_80x24() {
    let (width, height) = (80, 24);
    let mut app = open_at(EXAMPLES, width, height);
    let press = |mode, c| {
        tfr_inspect::tui::keymap::key_action(
            mode,
            crossterm::event::KeyEvent::new(
                crossterm::event::KeyCode::Char(c),
                crossterm::event::KeyModifiers::NONE,
            ),
        )
    };
    assert_eq!(press(app.mode(), 'K'), Some(Action::Guide));
    // The help names the key.
    assert!(
        help::lines()
            .iter()
            .any(|(k, what)| k == "K" && what.contains("wire format card")),
        "{:?}",
        help::lines()
    );
    app.update(Action::Guide);
    let first = help_text(&app, width, height);
    assert!(
        first.contains("wire format card (K or Esc closes)"),
        "{first}"
    );
    assert!(
        first.contains("The protobuf wire format and the TFRecord frame"),
        "{first}"
    );
    assert!(first.contains("more below (j PgDn End)"), "{first}");
    assert!(!first.contains("Malformed"), "{first}");
    // Row by row, every word of the card is seen, and the last line is on the last page.
    let selected = app.selected();
    let mut seen = first.clone();
    for _ in 0..200 {
        assert_eq!(press(app.mode(), 'j'), Some(Action::Down));
        app.update(Action::Down);
        let text = help_text(&app, width, height);
        seen.push_str(&text);
        if !text.contains("more below") {
            break;
        }
    }
    assert_eq!(
        app.selected(),
        selected,
        "j scrolled the card, not the list"
    );
    let words: Vec<&str> = seen
        .split(|c: char| c == '│' || c.is_whitespace())
        .collect();
    for word in tfr_inspect::cli::guide::CARD.split_whitespace() {
        assert!(words.contains(&word), "{word:?} never shown\n{seen}");
    }
    let last = help_text(&app, width, height);
    assert!(
        last.contains("Malformed") && last.contains("more above"),
        "{last}"
    );
    app.update(Action::Home);
    assert_eq!(help_text(&app, width, height), first);
    app.update(Action::End);
    assert_eq!(help_text(&app, width, height), last);
    // `?` over the card shows the keys instead; K comes back to the card's top; Esc closes it.
    assert_eq!(press(app.mode(), '?'), Some(Action::Help));
    app.update(Action::Help);
    assert!(help_text(&app, width, height).contains("keys (? or Esc closes)"));
    assert_eq!(press(app.mode(), 'K'), Some(Action::Guide));
    app.update(Action::Guide);
    assert_eq!(help_text(&app, width, height), first);
    app.update(Action::Cancel);
    assert!(!app.guide && !app.help && !app.quit);
    let closed = help_text(&app, width, height);
    assert!(!closed.contains("wire format card"), "{closed}");
    // At 160x48 the card fits whole, its lines unwrapped.
    let mut app = open_at(EXAMPLES, 160, 48);
    app.update(Action::Guide);
    let text = help_text(&app, 160, 48);
    for line in tfr_inspect::cli::guide::CARD.lines() {
        assert!(text.contains(line.trim_end()), "{line:?} cut\n{text}");
    }
    assert!(!text.contains("more below") && !text.contains("more above"));
}

/// Runs a prompt: `kind`, `text`, Enter.
fn prompt(app: &mut App, kind: PromptKind, text: &str) {
    app.update(Action::Prompt(kind));
    type_text(app, text);
    app.update(Action::Submit);
}

/// `:` counts back from the end with a minus sign, as `show -n -1` does.
#[test]
fn a_negative_record_number_counts_from_the_end() {
    let mut app = open_at(EXAMPLES, 160, 48);
    for (text, answer) in [
        ("-1", "record 199"),
        ("-200", "record 0"),
        (
            "-201",
            "no record -201: the file has 200 records (-200..-1)",
        ),
        ("-0x10", "record 184"),
        ("-1_0", "record 190"),
        ("-0", "not a record number (-1 is the last): \"-0\""),
    ] {
        prompt(&mut app, PromptKind::Record, text);
        assert_eq!(app.message, answer, "{text}");
    }
    prompt(&mut app, PromptKind::Record, "-3");
    let status = screen(&render(&app, 160, 48));
    assert!(status.contains("record 197 · 200 records"), "{status}");
}

#[test]
fn the_answer_of_the_last_action_is_whole_at_80_columns() {
    let (width, height) = (80, 24);
    let mut app = open_at(EXAMPLES, width, height);
    let cases: [(PromptKind, &str, &str); 3] = [
        (
            PromptKind::Record,
            "500",
            "no record 500: the file has 200 records (0..199)",
        ),
        (
            PromptKind::Search,
            "dog",
            "\"dog\" at offset 70: record 0 (1 of 41 records), feature2[0]",
        ),
        (
            PromptKind::Offset,
            "99999",
            "offset 99999 is past the end of the file (20083 bytes)",
        ),
    ];
    for (kind, text, answer) in cases {
        prompt(&mut app, kind, text);
        if kind == PromptKind::Search {
            app.finish_search();
        }
        assert_eq!(app.message, answer);
        let buf = render(&app, width, height);
        let lines: Vec<String> = screen(&buf).lines().map(str::to_string).collect();
        // On its own line, just above the status bar, which still says where the user is.
        assert_eq!(lines[22].trim(), answer, "{}", lines.join("\n"));
        assert!(
            lines[23].contains("record 0 · 200 records"),
            "{}",
            lines[23]
        );
        assert!(
            lines[21].starts_with("@"),
            "the explanation stays: {}",
            lines[21]
        );
        let panes = app.panes();
        assert_eq!(panes.message, Rect::new(0, 22, 80, 1));
        assert_eq!(panes.hex.bottom(), 21, "the panes make room for it");
    }
    // At 160 columns the answer fits on the status bar beside the rest: no line is taken.
    let mut app = open_at(EXAMPLES, 160, 48);
    prompt(&mut app, PromptKind::Record, "500");
    let text = screen(&render(&app, 160, 48));
    let last = text.lines().last().unwrap();
    assert!(
        last.contains("0 damaged │ no record 500: the file has 200 records (0..199)"),
        "{last}"
    );
    assert_eq!(app.panes().message.height, 0);
    // A prompt takes the status bar, and the line goes while it is typed.
    let mut app = open_at(EXAMPLES, width, height);
    prompt(&mut app, PromptKind::Record, "500");
    app.update(Action::Prompt(PromptKind::Record));
    assert_eq!(app.panes().message.height, 0);
    let text = screen(&render(&app, width, height));
    assert!(!text.contains("no record 500"), "{text}");
    // The next action moves on from the answer: the line goes and the panes take it back.
    let mut app = open_at(EXAMPLES, width, height);
    prompt(&mut app, PromptKind::Record, "500");
    app.update(Action::Resize { width, height });
    assert_eq!(app.panes().message.height, 1, "a resize is no new action");
    app.update(Action::Down);
    assert_eq!(app.message, "");
    assert_eq!(app.panes().message.height, 0);
    assert_eq!(app.panes().hex.bottom(), 22);
    let text = screen(&render(&app, width, height));
    assert!(!text.contains("no record 500"), "{text}");
}

/// A copy of the first `frames` frames of `path` in a new temporary directory.
fn first_frames(path: &str, bytes: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(path).unwrap();
    let copy = dir.path().join("one.tfrecord");
    std::fs::write(&copy, &data[..bytes]).unwrap();
    (dir, copy)
}

/// Rows of `area` in `buf` with nothing but spaces inside the border.
fn empty_rows(buf: &Buffer, area: Rect) -> usize {
    (area.y + 1..area.bottom().saturating_sub(1))
        .filter(|&y| {
            (area.x + 1..area.right().saturating_sub(1))
                .all(|x| buf.cell((x, y)).is_none_or(|c| c.symbol() == " "))
        })
        .count()
}

#[test]
fn a_one_record_file_gives_the_frame_list_only_the_rows_it_fills() {
    // The first frame of the MNIST fixture: 875 bytes of payload, framed.
    let (_dir, one) = first_frames(MNIST, 891);
    for (width, height) in [(80, 24), (160, 48)] {
        let app = open_at(&one, width, height);
        let buf = render(&app, width, height);
        let panes = app.panes();
        // Border, header and the one frame.
        assert_eq!(panes.list.height, 4, "{}", screen(&buf));
        assert_eq!(empty_rows(&buf, panes.list), 0, "{}", screen(&buf));
        // The rows go to the panes below.
        let many = open_at(MNIST, width, height);
        let before = many.panes();
        assert!(
            panes.tree.height > before.tree.height,
            "{panes:?} {before:?}"
        );
        assert_eq!(panes.list.bottom(), panes.tree.y);
    }
    // At 80x24 the tree shows the whole record's rows, footer included.
    let app = open_at(&one, 80, 24);
    let text = screen(&render(&app, 80, 24));
    assert!(text.contains("label  int64[1]"), "{text}");
}

#[test]
fn a_short_frame_leaves_the_rest_of_the_band_to_the_tree_at_80_columns() {
    // examples.tfrecord's records are ~99 bytes: 7 hex rows.
    let app = open_at(EXAMPLES, 80, 30);
    let panes = app.panes();
    assert_eq!(panes.hex.height, 7 + 2, "{panes:?}");
    let buf = render(&app, 80, 30);
    assert_eq!(empty_rows(&buf, panes.hex), 0, "{}", screen(&buf));
    assert!(panes.tree.height > panes.hex.height);
}

#[test]
fn step_mode_gets_the_rows_its_panel_needs_at_80x24() {
    let mut app = open_at(MNIST, 80, 24);
    prompt(&mut app, PromptKind::Offset, "12");
    app.update(Action::StepMode);
    let buf = render(&app, 80, 24);
    let text = screen(&buf);
    // The panel's last lines are on screen: its derivation is not cut.
    for line in [
        "open messages, bytes left after this token:",
        "payload (Example)  874 of 875 bytes left",
        ". next token · , previous · s back to the tree",
    ] {
        assert!(text.contains(line), "{line:?} cut:\n{text}");
    }
    let panes = app.panes();
    let band = app.tutor_rect();
    assert!(panes.list.height >= 4, "the list keeps its selected frame");
    assert!(
        panes.hex.height >= 5,
        "the hex pane keeps 3 rows: {panes:?}"
    );
    assert_eq!(band.bottom(), panes.hex.y);
    // Back to the tree, the panes are as before.
    app.update(Action::StepMode);
    assert_eq!(app.panes(), open_at(MNIST, 80, 24).panes());
}

/// Whether the cell at (x, y) is one of `symbols`.
fn is(buf: &Buffer, x: u16, y: u16, symbols: &[&str]) -> bool {
    buf.cell((x, y))
        .is_some_and(|c| symbols.contains(&c.symbol()))
}

/// The preview's and the hex pane's borders are whole, and each hex row's offset is inside the
/// hex pane, on every page of every record's bytes.
fn panes_keep_apart(width: u16, height: u16) -> usize {
    let mut app = open_at(DETECTION, width, height);
    // One terminal for every draw, as a session draws: a cell left over from an earlier screen
    // would show.
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let mut checked = 0;
    for record in 0..app.frame_count() {
        app.go_to_record(record);
        app.focus = Pane::Hex;
        app.update(Action::Home);
        for _page in 0..400 {
            terminal.draw(|f| f.render_widget(&app, f.area())).unwrap();
            let buf = terminal.backend().buffer().clone();
            assert_eq!(
                buf,
                render(&app, width, height),
                "what the terminal holds is the screen"
            );
            let panes = app.panes();
            let preview = panes.preview.expect("every record has an image");
            assert!(
                !preview.intersects(panes.hex),
                "{preview:?} {:?}",
                panes.hex
            );
            for y in preview.y + 1..preview.bottom() - 1 {
                let (left, right) = (preview.x, preview.right() - 1);
                assert!(
                    is(&buf, left, y, &["│"]),
                    "record {record} row {y}:\n{}",
                    screen(&buf)
                );
                assert!(
                    is(&buf, right, y, &["│"]),
                    "record {record} row {y}:\n{}",
                    screen(&buf)
                );
            }
            for x in preview.x + 1..preview.right() - 1 {
                assert!(
                    is(&buf, x, preview.bottom() - 1, &["─"]),
                    "{}",
                    screen(&buf)
                );
            }
            for y in panes.hex.y + 1..panes.hex.bottom() - 1 {
                assert!(is(&buf, panes.hex.x, y, &["│"]), "{}", screen(&buf));
                assert!(
                    is(&buf, panes.hex.right() - 1, y, &["│"]),
                    "{}",
                    screen(&buf)
                );
            }
            // Each row's offset, right-aligned in the 10 columns inside the hex pane's border.
            let geometry = app.hex_geometry();
            for line in 0..geometry.area.height {
                let Some(start) = geometry.row_start(line) else {
                    break;
                };
                let y = geometry.area.y + line;
                let label: String = (geometry.area.x..geometry.area.x + 10)
                    .map(|x| buf.cell((x, y)).unwrap().symbol().to_string())
                    .collect();
                assert_eq!(
                    label,
                    format!("{start:>10}"),
                    "row {line} of record {record}"
                );
                checked += 1;
            }
            let end = app.view.region.end;
            if geometry.visible().end >= end {
                break;
            }
            app.update(Action::PageDown);
        }
    }
    checked
}

#[test]
fn the_image_pane_and_the_hex_pane_do_not_overlap_on_the_detection_shard() {
    // 8 records of about 3 KiB: every hex row of each is drawn and checked.
    assert!(panes_keep_apart(160, 48) >= 8 * 160, "160x48");
    assert!(panes_keep_apart(80, 24) >= 8 * 160, "80x24");
}
