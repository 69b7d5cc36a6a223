//! Records far larger than the fixtures: one Example of 100,000 features and one of a million
//! floats (4 MB, sixteen times what the inspector decodes between two keys). The inspector must make only the rows it shows, with work linear in the record, and
//! `list`, `show` and `hex` must get through them without a decoded copy of every value.
//!
//! Every input is built here; nothing depends on files outside the repository.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use tfr_core::input::{Input, OpenOptions};
use tfr_inspect::cli::{DecodeArgs, Status, hex};
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::Action;

use crate::proto::{ld_into, varint};

/// An Example of `n` features `f000000`… each holding one int64 (its number).
fn many_features(n: u64) -> Vec<u8> {
    let mut entries = Vec::new();
    for i in 0..n {
        let mut value = Vec::new();
        varint(i, &mut value);
        let (mut list, mut feature, mut entry) = (Vec::new(), Vec::new(), Vec::new());
        ld_into(1, &value, &mut list);
        ld_into(3, &list, &mut feature);
        ld_into(1, format!("f{i:06}").as_bytes(), &mut entry);
        ld_into(2, &feature, &mut entry);
        ld_into(1, &entry, &mut entries);
    }
    let mut example = Vec::new();
    ld_into(1, &entries, &mut example);
    example
}

/// An Example with one feature `x` of `n` floats (0.5 each).
fn many_floats(n: usize) -> Vec<u8> {
    let floats: Vec<u8> = std::iter::repeat_n(0.5f32.to_le_bytes(), n)
        .flatten()
        .collect();
    let (mut packed, mut list, mut feature, mut entry, mut features) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    ld_into(1, &floats, &mut packed);
    ld_into(2, &packed, &mut list);
    ld_into(1, b"x", &mut entry);
    ld_into(2, &list, &mut entry);
    ld_into(1, &entry, &mut feature);
    ld_into(1, &feature, &mut features);
    features
}

fn write(dir: &Path, name: &str, payloads: &[&[u8]]) -> PathBuf {
    let mut out = Vec::new();
    for payload in payloads {
        tfr_core::frame::write_record(payload, &mut out).unwrap();
    }
    let path = dir.join(name);
    std::fs::write(&path, out).unwrap();
    path
}

/// The inspector on `path`, its first record decoded.
fn inspect(path: &Path) -> App {
    let decoder = DecodeArgs::default().decoder().unwrap();
    let mut app = App::open(&[path.to_path_buf()], &OpenOptions::new(decoder.clone())).unwrap();
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.finish_decoding();
    app
}

fn row(app: &App, label: &str) -> usize {
    app.view
        .tree
        .nodes
        .iter()
        .position(|n| n.label == label)
        .unwrap_or_else(|| panic!("no row {label}"))
}

#[test]
fn the_tree_of_100k_features_makes_only_what_it_shows_in_linear_work() {
    let dir = tempfile::tempdir().unwrap();
    let mut work = Vec::new();
    for n in [50_000u64, 100_000] {
        let path = write(
            dir.path(),
            &format!("features-{n}.tfrecord"),
            &[&many_features(n)],
        );
        let mut app = inspect(&path);
        let tree = &app.view.tree;
        assert!(
            tree.nodes.len() < 1_000,
            "{n}: {} rows made",
            tree.nodes.len()
        );
        let features = row(&app, "features");
        assert_eq!(
            app.view.tree.nodes[features].detail,
            format!("{n} features")
        );
        let more = format!("… {} more features", n - 256);
        let more = row(&app, &more);
        work.push(app.view.tree.work());

        // Opening a feature makes its value; the next page comes when asked for, in its place.
        let first = row(&app, "f000000");
        app.expand(first, true);
        let value = app.view.tree.children(first)[0];
        assert_eq!(app.view.tree.nodes[value].detail, "0");
        let made = app.view.tree.nodes.len();
        app.expand(more, true);
        assert_eq!(app.view.tree.nodes[more].label, "f000256");
        assert!(app.view.tree.nodes.len() - made <= 257);
        let next = format!("… {} more features", n - 512);
        row(&app, &next);
    }
    // Making the first screen reads each map entry a bounded number of times: twice the entries,
    // about twice the work, never its square.
    let (small, large) = (work[0], work[1]);
    assert!(large <= 4 * 100_000, "work {large}");
    assert!(large * 10 <= small * 22, "work {small} then {large}");
}

#[test]
fn a_million_floats_are_one_row_and_pages_of_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "floats.tfrecord", &[&many_floats(1_000_000)]);
    let mut app = inspect(&path);
    let x = row(&app, "x");
    assert_eq!(
        app.view.tree.nodes[x].detail,
        "float[1000000] [0.5, 0.5, 0.5, … 999997 more]"
    );
    app.expand(x, true);
    assert_eq!(app.view.tree.children(x).len(), 65);
    row(&app, "… 999936 more");
    assert!(app.view.tree.nodes.len() < 1_000);
    // The hex pane finds the token under a byte deep in the run without listing the run.
    let data_end = app.view.region.end - 4;
    app.set_cursor(data_end - 1);
    let token = app.token_under_cursor().unwrap();
    assert_eq!((token.start, token.end), (data_end - 4, data_end));
    assert_eq!(app.meaning(&token), "float 0.5");
}

fn run(args: &[&str], path: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(args)
        .arg(path)
        .output()
        .unwrap()
}

#[test]
fn list_show_and_hex_get_through_large_records() {
    let dir = tempfile::tempdir().unwrap();
    let features = write(dir.path(), "features.tfrecord", &[&many_features(100_000)]);
    let floats = write(dir.path(), "floats.tfrecord", &[&many_floats(1_000_000)]);

    let out = run(&["list"], &features);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("100000 features: f000000, f000001, f000002, f000003, …"),
        "{text}"
    );
    let out = run(&["list"], &floats);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("1 feature: x")
    );

    let out = run(&["show", "--format", "json"], &features);
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.starts_with("{\"features\": {\"feature\": {\"f000000\": {\"int64List\""));
    assert_eq!(json.matches("int64List").count(), 100_000);

    let out = run(&["show", "--format", "json"], &floats);
    assert!(out.status.success());
    let head = "{\"features\": {\"feature\": {\"x\": {\"floatList\": {\"value\": [";
    let tail = "]}}}}}\n";
    assert_eq!(
        out.stdout.len(),
        head.len() + 1_000_000 * 5 - 2 + tail.len()
    );
    assert!(out.stdout.starts_with(head.as_bytes()) && out.stdout.ends_with(tail.as_bytes()));

    // hex prints a dozen lines a feature: a record of 20,000 (420 KB) is enough to show it gets
    // through every token of a record larger than the inspector decodes between two keys.
    let some = write(dir.path(), "some.tfrecord", &[&many_features(20_000)]);
    let out = run(&["hex", "-n", "0"], &some);
    assert!(out.status.success());
    let lines = out.stdout.iter().filter(|b| **b == b'\n').count();
    // Two heading lines, length and CRC, tag and length of `features`, 12 tokens a feature (entry
    // 2, key 3, value 2, `int64_list` 2, packed `value` 3), the footer.
    assert_eq!(lines, 2 + 2 + 2 + 20_000 * 12 + 1);
}

#[test]
fn hex_checks_the_record_number_before_decoding_anything() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "one.tfrecord", &[&many_features(3)]);
    let decoder = DecodeArgs::default().decoder().unwrap();
    let mut input = Input::open(&path, &OpenOptions::new(decoder.clone())).unwrap();
    assert!(!input.has_learned(), "opening decodes nothing");
    let args = hex::HexArgs {
        files: vec![path.clone()],
        record: tfr_inspect::cli::argv::RecordArg::InFile(
            tfr_inspect::cli::argv::RecordNumber::FromStart(1),
        ),
        compare: None,
        full: false,
        json: false,
        teach: Default::default(),
        decode: Default::default(),
        read: Default::default(),
        bytes: Default::default(),
    };
    let mut out = Vec::new();
    let messages = tfr_inspect::cli::Messages::to(Vec::new());
    let status = hex::annotate_record(&mut input, &args, false, &messages, &mut out).unwrap();
    assert_eq!(status, Status::Unusable);
    assert!(out.is_empty());
    assert!(
        !input.has_learned(),
        "record 1 does not exist: nothing may be decoded to say so"
    );
    let args = hex::HexArgs {
        record: tfr_inspect::cli::argv::RecordArg::InFile(
            tfr_inspect::cli::argv::RecordNumber::FromStart(0),
        ),
        ..args
    };
    hex::annotate_record(&mut input, &args, false, &messages, &mut out).unwrap();
    assert!(input.has_learned());
}

#[test]
fn selecting_another_record_while_one_decodes_shows_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (many_features(20_000), many_features(30_000));
    let path = write(dir.path(), "two.tfrecord", &[&first, &second]);
    let decoder = DecodeArgs::default().decoder().unwrap();
    let mut app = App::open(&[path], &OpenOptions::new(decoder.clone())).unwrap();
    app.index_now();
    // Record 0 is too large to decode between two keys: it decodes in the background.
    assert!(app.decoding_percent().is_some());
    app.update(Action::Down);
    assert_eq!(app.selected(), 1);
    app.finish_decoding();
    let features = row(&app, "features");
    assert_eq!(app.view.tree.nodes[features].detail, "30000 features");
    assert_eq!(app.view.frame.map(|f| f.index), Some(1));
    // Both list rows were described by their decodings.
    assert!(app.rows[&1].summary.starts_with("30000 features"));
    app.update(Action::Up);
    app.finish_decoding();
    assert!(app.rows[&0].summary.starts_with("20000 features"));
}

#[test]
fn q_quits_while_a_record_decodes_without_waiting_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "one.tfrecord", &[&many_features(20_000)]);
    let decoder = DecodeArgs::default().decoder().unwrap();
    let mut app = App::open(&[path], &OpenOptions::new(decoder.clone())).unwrap();
    app.index_now();
    // The record is too large to decode between two keys: a worker decodes it, and the screen
    // says so.
    assert!(app.decoding_percent().is_some());
    let screen = screen_of(&app);
    assert!(screen.contains("decoding record 0"), "{screen}");
    // `q` ends the event loop at once; the decoding is left to the worker (dropped with the
    // app, which cancels it), not finished first.
    app.update(Action::Quit);
    assert!(app.quit);
    assert!(app.decoding_percent().is_some());
}

/// `app` drawn on a 160 by 48 TestBackend, as text.
fn screen_of(app: &App) -> String {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = terminal.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf.cell((x, y)).map_or(" ", |c| c.symbol()))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
