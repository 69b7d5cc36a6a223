//! The inspector's search (`/`, `n`, `N`, Esc) over decoded content, on the App model and a
//! `TestBackend`: numbers found as the tree shows them, hits counted in the status line, the
//! worker thread's search giving the same answers as the one run at once, and Esc stopping it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::{Action, PromptKind};

use super::open;
use crate::proto::tagged;

fn entry(name: &str, feature: &[u8]) -> Vec<u8> {
    tagged(
        0x0a,
        &[tagged(0x0a, name.as_bytes()), tagged(0x12, feature)].concat(),
    )
}

/// Record `i`: `label` int64 [i % 4], `score` float [i + 0.5], `id` int64 [1000 + i] (packed),
/// `name` bytes ["item"].
fn example(i: u64) -> Vec<u8> {
    let label = tagged(0x1a, &[0x08, (i % 4) as u8]);
    let score = tagged(0x12, &tagged(0x0a, &(i as f32 + 0.5).to_le_bytes()));
    let mut id = Vec::new();
    let mut v = 1000 + i;
    while v >= 0x80 {
        id.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    id.push(v as u8);
    let id = tagged(0x1a, &tagged(0x0a, &id));
    let name = tagged(0x0a, &tagged(0x0a, b"item"));
    let features = [
        entry("label", &label),
        entry("score", &score),
        entry("id", &id),
        entry("name", &name),
    ]
    .concat();
    tagged(0x0a, &features)
}

fn write_file(dir: &Path, records: u64) -> PathBuf {
    let mut data = Vec::new();
    for i in 0..records {
        tfr_core::frame::write_record(&example(i), &mut data).unwrap();
    }
    let path = dir.join("search.tfrecord");
    std::fs::write(&path, data).unwrap();
    path
}

fn search(app: &mut App, text: &str) {
    app.update(Action::Prompt(PromptKind::Search));
    for c in text.chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Submit);
}

fn status_line(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(200, 48)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = terminal.backend().buffer();
    // The status line is the screen's last.
    let y = buf.area.height - 1;
    (0..buf.area.width)
        .map(|x| buf.cell((x, y)).map_or(" ", |c| c.symbol()))
        .collect()
}

/// The label of the selected tree node and of its parent.
fn node_and_parent(app: &App) -> (String, String) {
    let tree = &app.view.tree;
    let node = &tree.nodes[app.view.node];
    let parent = tree.ancestors(app.view.node)[0];
    (node.label.clone(), tree.nodes[parent].label.clone())
}

#[test]
fn a_number_selects_the_record_and_the_value_holding_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(&write_file(dir.path(), 40));
    // 1025 is the packed int64 of record 25 (bytes 0x81 0x08, never text).
    search(&mut app, "1025");
    assert!(!app.searching());
    assert_eq!(app.selected(), 25, "{}", app.message);
    assert_eq!(node_and_parent(&app), ("[0]".into(), "id".into()));
    assert!(
        app.message.contains("record 25 (1 of 1 record)") && app.message.ends_with(", id[0]"),
        "{}",
        app.message
    );
    // The cursor is on the varint, so the hex pane marks its bytes.
    let data = tfr_core::bytes::whole(app.file().unwrap().data()).unwrap();
    let at = usize::try_from(app.view.cursor).unwrap();
    assert_eq!(&data[at..at + 2], [0x81, 0x08]);
    // A float as the tree prints it.
    search(&mut app, "7.5");
    assert_eq!(app.selected(), 7, "{}", app.message);
    assert_eq!(node_and_parent(&app), ("[0]".into(), "score".into()));
    search(&mut app, "7.25");
    assert!(app.message.contains("not found"), "{}", app.message);
}

#[test]
fn the_status_line_counts_the_records_and_n_steps_through_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(&write_file(dir.path(), 40));
    app.go_to_record(5);
    // label 3: records 3, 7, …, 39 (ten); the first from the selected record on is 7.
    search(&mut app, "3");
    assert_eq!(app.selected(), 7);
    assert!(
        status_line(&app).contains("record 7 (2 of 10 records), label[0]"),
        "{}",
        status_line(&app)
    );
    app.update(Action::SearchNext);
    assert_eq!(app.selected(), 11);
    assert!(app.message.contains("(3 of 10 records)"), "{}", app.message);
    app.go_to_record(39);
    app.update(Action::SearchNext);
    assert_eq!(app.selected(), 3, "wraps to the first");
    app.update(Action::SearchPrev);
    assert_eq!(app.selected(), 39, "and back to the last");
    assert!(
        app.message.contains("(10 of 10 records)"),
        "{}",
        app.message
    );
    // Text still finds names and strings: every record has a feature called "name".
    search(&mut app, "item");
    assert!(
        app.message.contains("of 40 records), name[0]"),
        "{}",
        app.message
    );
}

#[test]
fn the_worker_finds_what_the_search_at_once_finds_and_esc_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), 3000);
    let mut app = open(&path);
    // Every file goes to the worker.
    app.search_inline = 0;
    search(&mut app, "2");
    assert!(app.searching());
    assert!(
        app.message.contains("searching \"2\"") && app.message.contains('%'),
        "{}",
        app.message
    );
    app.finish_search();
    assert!(!app.searching());
    assert_eq!(app.selected(), 2);
    assert!(
        app.message
            .contains("record 2 (1 of 750 records), label[0]"),
        "{}",
        app.message
    );
    let first = app.message.clone();
    app.update(Action::SearchPrev);
    assert_eq!(app.selected(), 2998, "{}", app.message);
    // The same search at once, on the UI thread.
    let mut inline = open(&path);
    search(&mut inline, "2");
    assert_eq!(inline.selected(), 2);
    assert_eq!(inline.message, first);
    // Esc stops a running search without quitting, and drops it: `n` searches again.
    app.go_to_record(0);
    search(&mut app, "1500.5");
    assert!(app.searching());
    app.update(Action::Cancel);
    assert!(!app.searching() && !app.quit);
    assert_eq!(app.message, "search stopped");
    app.update(Action::SearchNext);
    app.finish_search();
    assert_eq!(app.selected(), 1500, "{}", app.message);
}
