//! The inspector without a terminal: the keymap, `update` on the App model, each pane drawn on a
//! `TestBackend`, and image decoding checked against the fixtures' pixel hashes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::style::{Color, Modifier};
use sha2::{Digest, Sha256};
use tfr_core::frame::FrameStatus;
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_inspect::tui::app::{App, Pane};
use tfr_inspect::tui::help;
use tfr_inspect::tui::hexview::{ANCESTOR_BG, SELECTED_BG};
use tfr_inspect::tui::keymap::{self, Action, Input, Mode, PromptKind, key_action};

use super::{decoder, line, open, open_all, render, screen, type_text};
use crate::proto::tagged;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/examples.tfrecord");
const CIFAR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/cifar_like.tfrecord");
const CIFAR_META: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/cifar_like.meta.json");
const MNIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/mnist_like.tfrecord");
const IMAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/images.tfrecord");
const IMAGES_META: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/images.meta.json");
const LENGTH_BITFLIP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/corrupt/length_bitflip.tfrecord"
);

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn node_named(app: &App, label: &str) -> usize {
    app.view
        .tree
        .nodes
        .iter()
        .position(|n| n.label == label)
        .unwrap_or_else(|| panic!("no node {label}"))
}

// ---- keymap -----------------------------------------------------------------------------------

#[test]
fn every_key_the_help_lists_does_what_it_says() {
    let mut checked = 0;
    for line in keymap::help_lines() {
        for bind in line.binds() {
            let (code, modifiers) = match bind.input {
                Input::Key(code) => (code, KeyModifiers::NONE),
                Input::Ctrl(c) => (KeyCode::Char(c), KeyModifiers::CONTROL),
                // The mouse is checked by the keymap's own tests.
                _ => continue,
            };
            let action = key_action(Mode::Normal, KeyEvent::new(code, modifiers));
            assert_eq!(action, Some(bind.action), "{}: {}", line.label(), line.what);
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked}");
    // Ctrl-B / Ctrl-F page as PgUp / PgDn do, and the help says so.
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    assert_eq!(key_action(Mode::Normal, ctrl('b')), Some(Action::PageUp));
    assert_eq!(key_action(Mode::Normal, ctrl('f')), Some(Action::PageDown));
    assert!(help::lines().iter().any(|(k, _)| k == "Ctrl-B Ctrl-F"));
    assert_eq!(key_action(Mode::Normal, key(KeyCode::Char('Z'))), None);
}

#[test]
fn keymap_ignores_releases_and_respects_modes() {
    let release = KeyEvent {
        code: KeyCode::Char('j'),
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Release,
        state: KeyEventState::NONE,
    };
    assert_eq!(key_action(Mode::Normal, release), None);
    // In a prompt, letters are text (q does not quit) and Esc cancels.
    assert_eq!(
        key_action(Mode::Prompt, key(KeyCode::Char('q'))),
        Some(Action::Input('q'))
    );
    assert_eq!(
        key_action(Mode::Prompt, key(KeyCode::Esc)),
        Some(Action::Cancel)
    );
    assert_eq!(
        key_action(Mode::Prompt, key(KeyCode::Enter)),
        Some(Action::Submit)
    );
    // Over the help the moves scroll it; over the whole text nothing but closing or quitting acts.
    assert_eq!(
        key_action(Mode::Help, key(KeyCode::Char('j'))),
        Some(Action::Down)
    );
    assert_eq!(key_action(Mode::Help, key(KeyCode::Char('c'))), None);
    assert_eq!(key_action(Mode::Whole, key(KeyCode::Char('j'))), None);
    assert_eq!(
        key_action(Mode::Whole, key(KeyCode::Char('q'))),
        Some(Action::Quit)
    );
    assert_eq!(
        key_action(Mode::Help, key(KeyCode::Char('?'))),
        Some(Action::Help)
    );
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(key_action(Mode::Prompt, ctrl_c), Some(Action::Quit));
}

#[test]
fn help_lists_every_prompt_and_jump() {
    let shown: Vec<Action> = keymap::help_lines()
        .flat_map(|line| line.binds().map(|b| b.action))
        .collect();
    let kinds = [PromptKind::Record, PromptKind::Offset, PromptKind::Search];
    let jumps = [
        Action::SearchNext,
        Action::SearchPrev,
        Action::NextDamaged,
        Action::PrevDamaged,
        Action::NextFile,
        Action::PrevFile,
        Action::ShowImage,
        Action::Help,
        Action::Cancel,
    ];
    for action in kinds.map(Action::Prompt).into_iter().chain(jumps) {
        assert!(shown.contains(&action), "help does not list {action:?}");
    }
}

// ---- update -----------------------------------------------------------------------------------

#[test]
fn go_to_record_selects_it_and_escape_closes_the_prompt_first() {
    let mut app = open(EXAMPLES);
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "42");
    app.update(Action::Submit);
    assert_eq!(app.selected(), 42);
    assert_eq!(app.view.frame.unwrap().index, 42);
    app.update(Action::Prompt(PromptKind::Record));
    app.update(Action::Cancel);
    assert!(app.prompt.is_none());
    assert!(!app.quit, "Esc closed the prompt instead of quitting");
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "999");
    app.update(Action::Submit);
    assert_eq!(app.selected(), 42);
    assert!(app.message.contains("no record 999"), "{}", app.message);
    app.update(Action::Cancel);
    assert!(app.quit);
}

#[test]
fn go_to_offset_selects_the_frame_holding_it_and_says_what_is_there() {
    // TensorFlow: "corrupted record at 5630" for length_bitflip.
    let mut app = open(LENGTH_BITFLIP);
    app.update(Action::Prompt(PromptKind::Offset));
    type_text(&mut app, "5630");
    app.update(Action::Submit);
    let frame = app.view.frame.unwrap();
    assert_eq!(frame.offset.0, 5630);
    assert_eq!(frame.status, FrameStatus::LengthCrcMismatch);
    assert_eq!(app.view.cursor, 5630);
    assert!(
        app.message.contains("corrupted record at 5630"),
        "{}",
        app.message
    );
    // An offset inside an intact record: its payload byte, explained.
    let mut app = open(EXAMPLES);
    app.update(Action::Prompt(PromptKind::Offset));
    type_text(&mut app, "113");
    app.update(Action::Submit);
    let frame = app.view.frame.unwrap();
    assert_eq!(frame.index, 1);
    assert_eq!(app.view.cursor, 113);
    assert!(app.message.contains("record 1"), "{}", app.message);
}

#[test]
fn prompts_read_numbers_as_locate_does() {
    // Pasted from TensorFlow's message, with a separator, or in hex: the same byte as `locate` takes.
    for typed in ["5_630", "5630.", "0x15fe"] {
        let mut app = open(LENGTH_BITFLIP);
        app.update(Action::Prompt(PromptKind::Offset));
        type_text(&mut app, typed);
        app.update(Action::Submit);
        assert_eq!(app.view.cursor, 5630, "{typed}: {}", app.message);
    }
    let mut app = open(EXAMPLES);
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "0x2");
    app.update(Action::Submit);
    assert_eq!(app.selected(), 2, "{}", app.message);
    app.update(Action::Prompt(PromptKind::Offset));
    type_text(&mut app, "ten");
    app.update(Action::Submit);
    assert_eq!(app.message, "not a byte offset: \"ten\"");
}

#[test]
fn next_and_previous_damaged_frame() {
    let mut app = open(LENGTH_BITFLIP);
    app.update(Action::NextDamaged);
    let first = app.selected();
    let data = tfr_core::bytes::whole(app.file().unwrap().data()).unwrap();
    let index = app.file().unwrap().index();
    assert!(!index.get(data, first).unwrap().status.is_intact());
    assert!((0..first).all(|i| index.get(data, i).unwrap().status.is_intact()));
    assert_eq!(first, 56);
    assert!(app.message.contains("damaged"), "{}", app.message);
    app.update(Action::NextDamaged);
    assert_eq!(app.selected(), first, "only one damaged frame");
    assert!(app.message.contains("no damaged frame after"));
    app.update(Action::End);
    app.update(Action::PrevDamaged);
    assert_eq!(app.selected(), first);
}

#[test]
fn search_moves_through_matches_with_n_and_shift_n() {
    let mut app = open(EXAMPLES);
    app.update(Action::Prompt(PromptKind::Search));
    type_text(&mut app, "horse");
    app.update(Action::Submit);
    let first = (app.selected(), app.view.cursor);
    let data = tfr_core::bytes::whole(app.file().unwrap().data()).unwrap();
    let at = usize::try_from(first.1).unwrap();
    assert_eq!(&data[at..at + 5], b"horse");
    app.update(Action::SearchNext);
    let second = (app.selected(), app.view.cursor);
    assert!(
        second.1 > first.1 && second.0 > first.0,
        "{first:?} {second:?}"
    );
    app.update(Action::SearchPrev);
    assert_eq!((app.selected(), app.view.cursor), first);
    // Feature names are found too, and the node owning the match is selected.
    app.update(Action::Prompt(PromptKind::Search));
    type_text(&mut app, "feature3");
    app.update(Action::Submit);
    let node = &app.view.tree.nodes[app.view.node];
    assert_eq!(node.label, "feature3");
}

#[test]
fn expand_and_collapse_a_tree_node() {
    let mut app = open(EXAMPLES);
    app.update(Action::NextPane);
    assert_eq!(app.focus, Pane::Tree);
    let feature0 = node_named(&app, "feature0");
    app.select_node(feature0, true);
    let before = app.view.tree.visible().len();
    assert!(!app.view.tree.is_expanded(feature0));
    app.update(Action::Toggle);
    assert!(app.view.tree.is_expanded(feature0));
    assert_eq!(app.view.tree.visible().len(), before + 1);
    app.update(Action::Left);
    assert!(!app.view.tree.is_expanded(feature0));
    app.update(Action::Right);
    assert!(app.view.tree.is_expanded(feature0));
}

#[test]
fn tree_and_hex_select_each_other() {
    let mut app = open(EXAMPLES);
    // Tree -> hex: the cursor goes to the node's first byte.
    let feature2 = node_named(&app, "feature2");
    app.select_node(feature2, true);
    let range = app.view.tree.nodes[feature2].range.clone();
    assert_eq!(app.view.cursor, range.start);
    // Hex -> tree: a byte of "dog" selects the value node owning it.
    let data = tfr_core::bytes::whole(app.file().unwrap().data()).unwrap();
    let dog = data.windows(3).position(|w| w == b"dog").unwrap() as u64;
    app.set_cursor(dog + 1);
    let node = &app.view.tree.nodes[app.view.node];
    assert_eq!(node.label, "[0]");
    assert_eq!(node.parent, Some(feature2));
    assert!(node.range.contains(&(dog + 1)));
    assert!(app.view.tree.is_expanded(feature2), "revealed");
    // Moving the cursor with the keys keeps the two in step.
    app.update(Action::NextPane);
    app.update(Action::NextPane);
    assert_eq!(app.focus, Pane::Hex);
    app.update(Action::Home);
    assert_eq!(app.view.cursor, 0);
    assert_eq!(app.view.tree.nodes[app.view.node].label, "length");
    app.update(Action::Right);
    app.update(Action::Down);
    assert_eq!(app.view.cursor, 17);
    let owner = &app.view.tree.nodes[app.view.node];
    assert_eq!(owner.label, "feature0");
    // The row shows the first entry of `features`: wire node 2 (the payload is node 0, the
    // `features` field node 1).
    assert_eq!(owner.wire, Some(2));
    let token = app.token_under_cursor().unwrap();
    assert_eq!(app.meaning(&token), "varint 8: length of `key`, 8 bytes");
}

#[test]
fn a_click_on_a_drawn_byte_puts_the_hex_cursor_on_it() {
    for (width, height) in [(160, 48), (100, 30)] {
        let mut app = open(EXAMPLES);
        app.update(Action::Resize { width, height });
        let buf = render(&app, width, height);
        let geometry = app.hex_geometry();
        let data = tfr_core::bytes::whole(app.file().unwrap().data())
            .unwrap()
            .to_vec();
        let mut clicked = 0;
        let symbol = |x, y| buf.cell((x, y)).unwrap().symbol().to_string();
        for offset in geometry.visible() {
            let byte = data[offset as usize];
            let hex = geometry.hex_cell(offset).unwrap();
            let digits = symbol(hex.x, hex.y) + &symbol(hex.x + 1, hex.y);
            assert_eq!(digits, format!("{byte:02x}"), "offset {offset}");
            // At 100 columns the pane is too narrow for the ASCII column's right end.
            let ascii = geometry.ascii_cell(offset);
            if let Some(at) = ascii {
                let printable = byte.is_ascii_graphic() || byte == b' ';
                let shown = if printable { char::from(byte) } else { '.' };
                assert_eq!(symbol(at.x, at.y), shown.to_string(), "offset {offset}");
            }
            // A click on either digit or on the character selects the byte drawn there.
            let second = ratatui::layout::Position::new(hex.x + 1, hex.y);
            for at in [Some(hex), Some(second), ascii].into_iter().flatten() {
                app.update(Action::Click {
                    column: at.x,
                    row: at.y,
                });
                assert_eq!(app.focus, Pane::Hex);
                assert_eq!(app.view.cursor, offset, "click at {at:?}");
                assert_eq!(app.hex_geometry(), geometry, "the pane stays put");
                clicked += 1;
            }
        }
        assert!(clicked > 100, "{clicked}");
    }
}

// ---- rendering --------------------------------------------------------------------------------

#[test]
fn frame_list_and_hex_rows_render() {
    let mut app = open(EXAMPLES);
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    assert!(
        line(&buf, 2).starts_with(
            "│      0             0         83 ok   ok   Example         4 features: feature0, feature1, feature2, feature3"
        ),
        "{text}"
    );
    // Offsets are decimal and right-aligned, as `hex` prints them (not zero-padded like hex).
    let hex_row = text
        .lines()
        .find(|l| l.contains("         0  53 00"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        hex_row.contains(
            "         0  53 00 00 00 00 00 00 00  0d 7d 4e 91 0a 51 0a 11  S........}N..Q.."
        ),
        "{hex_row}"
    );
    assert!(
        text.contains("        16  0a 08 66 65 61 74 75 72"),
        "{text}"
    );
    assert!(!text.contains("0000000016"), "{text}");
    assert!(text.contains("▾ Example  83 bytes"), "{text}");
    assert!(text.contains("feature2  bytes[1] [\"dog\"]"), "{text}");
    assert!(text.contains("record 0 · 200 records (0..199)"), "{text}");
}

#[test]
fn hex_highlights_the_selected_node_and_fainter_ancestors() {
    let mut app = open(EXAMPLES);
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    let feature0 = node_named(&app, "feature0");
    app.select_node(feature0, true);
    app.refresh();
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    let (y, row) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("         0  53 00"))
        .unwrap();
    let x0 = row
        .find("         0  53 00")
        .map(|b| row[..b].chars().count())
        .unwrap() as u16;
    // Byte i of row 0 sits at x0 + 12 + 3i (+1 after the eighth).
    let cell = |i: u16| {
        let x = x0 + 12 + 3 * i + if i >= 8 { 1 } else { 0 };
        buf.cell((x, y as u16)).unwrap().clone()
    };
    // Bytes 14..33 are the first feature entry (selected); 12..14 belong to `features` (ancestor).
    assert_eq!(cell(14).bg, SELECTED_BG);
    assert_eq!(cell(15).bg, SELECTED_BG);
    assert_eq!(cell(12).bg, ANCESTOR_BG);
    assert_eq!(cell(0).bg, Color::Reset, "header bytes are not highlighted");
    // The cursor is on the node's first byte.
    assert!(cell(14).modifier.contains(Modifier::REVERSED));
    assert_eq!(cell(14).fg, Color::Yellow, "a tag");
}

#[test]
fn damaged_frames_stand_out_in_red() {
    let mut app = open(LENGTH_BITFLIP);
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.update(Action::NextDamaged);
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    let y = text.lines().position(|l| l.contains("     56 ")).unwrap();
    let row = line(&buf, y as u16);
    assert!(row.contains("BAD"), "{row}");
    let bad_x = row.chars().position(|c| c == 'B').unwrap() as u16;
    assert_eq!(buf.cell((bad_x, y as u16)).unwrap().fg, Color::Red);
    assert!(text.contains("1 damaged"), "{text}");
}

#[test]
fn a_small_terminal_gets_a_message_not_a_panic() {
    let app = open(EXAMPLES);
    let text = screen(&render(&app, 50, 10));
    assert!(text.contains("terminal too small: 50x10"), "{text}");
    // Exactly the minimum still lays out the panes.
    let text = screen(&render(&app, 60, 12));
    assert!(!text.contains("too small"), "{text}");
}

#[test]
fn help_overlay_lists_keys() {
    let mut app = open(EXAMPLES);
    app.update(Action::Help);
    assert_eq!(app.mode(), Mode::Help);
    let text = screen(&render(&app, 160, 48));
    assert!(text.contains("go to record N"), "{text}");
    assert!(text.contains("next / previous damaged frame"), "{text}");
    app.update(Action::Cancel);
    assert!(!app.help && !app.quit);
}

// ---- images -----------------------------------------------------------------------------------

/// The bytes of a feature's first value (its rows are made when the feature is opened).
fn value_bytes(app: &mut App, feature: &str) -> Vec<u8> {
    let f = node_named(app, feature);
    app.expand(f, true);
    let first = app.view.tree.children(f)[0];
    let value = app.view.tree.nodes[first].value.clone().unwrap();
    let data = tfr_core::bytes::whole(app.file().unwrap().data()).unwrap();
    data[value.start as usize..value.end as usize].to_vec()
}

fn hex_sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn cifar_records_decode_to_32x32_colour_the_right_way_round() {
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(CIFAR_META).unwrap()).unwrap();
    let mut app = open(CIFAR);
    for record in meta.as_array().unwrap() {
        let n = record["record"].as_u64().unwrap() as usize;
        app.go_to_record(n);
        let bytes = value_bytes(&mut app, "image");
        let picture = tfr_core::image::decode_image(&bytes, app.view.tree.declared_shape)
            .unwrap()
            .unwrap();
        assert_eq!(picture.pixels.dimensions(), (32, 32));
        assert!(picture.description.contains("32x32x3"));
        assert_eq!(
            hex_sha(picture.pixels.as_raw()),
            record["hwc_sha256"].as_str().unwrap(),
            "record {n}"
        );
        for (key, (x, y)) in [("pixel_0_0_rgb", (0, 0)), ("pixel_16_16_rgb", (16, 16))] {
            let want: Vec<u8> = record[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u8)
                .collect();
            assert_eq!(picture.pixels.get_pixel(x, y).0.to_vec(), want, "{n} {key}");
        }
    }
}

#[test]
fn the_preview_pane_draws_the_record_image_in_half_blocks() {
    let mut app = open(CIFAR);
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    let image = node_named(&app, "image");
    app.select_node(image + 1, true);
    let picture = app.preview.clone().unwrap().unwrap();
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    assert!(text.contains("raw 32x32x3 uint8 channel-first"), "{text}");
    let blocks = buf.content().iter().filter(|c| c.symbol() == "▀").count();
    assert!(blocks >= 32 * 16, "{blocks} half blocks\n{text}");
    // The first drawn cell shows pixel (0,0) on top.
    let first = buf.content().iter().find(|c| c.symbol() == "▀").unwrap();
    let [r, g, b] = picture.pixels.get_pixel(0, 0).0;
    assert_eq!(first.fg, Color::Rgb(r, g, b));
}

#[test]
fn mnist_and_encoded_images_decode() {
    let mut app = open(MNIST);
    let bytes = value_bytes(&mut app, "image_raw");
    let picture = tfr_core::image::decode_image(&bytes, app.view.tree.declared_shape)
        .unwrap()
        .unwrap();
    assert_eq!(picture.pixels.dimensions(), (28, 28));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(IMAGES_META).unwrap()).unwrap();
    let mut app = open(IMAGES);
    for record in meta.as_array().unwrap() {
        let n = record["record"].as_u64().unwrap() as usize;
        app.go_to_record(n);
        let bytes = value_bytes(&mut app, "image/encoded");
        let picture = tfr_core::image::decode_image(&bytes, None)
            .unwrap()
            .unwrap();
        let dims = (
            record["width"].as_u64().unwrap() as u32,
            record["height"].as_u64().unwrap() as u32,
        );
        assert_eq!(picture.pixels.dimensions(), dims, "record {n}");
        if record["decoded_pixels_exact"] == true && record["channels"] == 3 {
            assert_eq!(
                hex_sha(picture.pixels.as_raw()),
                record["decoded_pixels_sha256"].as_str().unwrap()
            );
        }
        // The record's image is previewed without selecting it.
        assert!(matches!(app.preview, Some(Ok(_))), "record {n}");
    }
}

// ---- one decoder: the tree shows what `show` shows --------------------------------------------

/// `feature { key: name value: <feature> }` where `feature` is the Feature message body.
fn feature_entry(name: &str, feature: &[u8]) -> Vec<u8> {
    tagged(
        0x0a,
        &[tagged(0x0a, name.as_bytes()), tagged(0x12, feature)].concat(),
    )
}

/// An Int64List with `values` (not packed), wrapped as the Feature field `int64_list`.
fn int64_list(values: &[u8]) -> Vec<u8> {
    let body: Vec<u8> = values.iter().flat_map(|v| [0x08, *v]).collect();
    tagged(0x1a, &body)
}

/// An Example on which a wire-order reading and protobuf's merge rules disagree: `features`
/// occurs twice (the occurrences merge), key `a` occurs in both (the last value wins) and `b`'s
/// Feature has its `int64_list` field twice (a singular message field: the occurrences merge).
fn merge_case() -> Vec<u8> {
    let first = [
        feature_entry("a", &int64_list(&[1])),
        feature_entry("c", &tagged(0x0a, &tagged(0x0a, b"cat"))),
    ]
    .concat();
    let second = [
        feature_entry("b", &[int64_list(&[10]), int64_list(&[20])].concat()),
        feature_entry("a", &int64_list(&[2])),
    ]
    .concat();
    [tagged(0x0a, &first), tagged(0x0a, &second)].concat()
}

/// One TFRecord frame around `payload`, as a writer frames it.
fn frame_record(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    tfr_core::frame::write_record(payload, &mut out).unwrap();
    out
}

#[test]
fn merged_features_in_the_tree_match_show() {
    use tfr_core::example;

    let payload = merge_case();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("merge.tfrecord");
    std::fs::write(&path, frame_record(&payload)).unwrap();
    let mut app = open(path.to_str().unwrap());
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });

    // The oracle: the typed layer `show` prints from.
    let decoder = decoder();
    let decoded = decoder.decode(&payload);
    let typed = decoded.typed(&payload, decoder.table()).unwrap();
    let want = example::top_features(&typed);
    let shape = example::declared_shape(&want);
    assert_eq!(
        want.iter()
            .map(|f| f.name().into_owned())
            .collect::<Vec<_>>(),
        ["a", "b", "c"]
    );

    let features: Vec<usize> = (0..app.view.tree.nodes.len())
        .filter(|i| app.view.tree.nodes[*i].label == "features")
        .collect();
    assert_eq!(
        features.len(),
        1,
        "one `features` node for both occurrences"
    );
    let features = features[0];
    assert_eq!(app.view.tree.nodes[features].detail, "3 features");
    let rows: Vec<usize> = app.view.tree.children(features).to_vec();
    // Value rows are made when a feature is opened.
    for row in &rows {
        app.expand(*row, true);
    }
    let tree = &app.view.tree;
    let base = 12u64;
    assert_eq!(rows.len(), want.len());
    for (row, feature) in rows.iter().zip(want.iter()) {
        let node = &tree.nodes[*row];
        assert_eq!(node.label, feature.name());
        let summary = example::values_summary(&feature.values, shape, 3);
        let kind = format!("{}[{}]", feature.values.kind_name(), feature.values.len());
        assert_eq!(node.detail, format!("{kind} {summary}"));
        assert_eq!(
            node.range,
            base + feature.span.start as u64..base + feature.span.end as u64
        );
        // One `[i]` child per value, each on the value's own bytes.
        let values: Vec<&tfr_inspect::tui::tree::Node> = tree
            .nodes
            .iter()
            .filter(|n| n.parent == Some(*row))
            .collect();
        assert_eq!(values.len(), feature.values.len(), "{}", feature.name());
        for (value, span) in values.iter().zip(feature.values.spans()) {
            assert_eq!(
                value.range,
                base + span.start as u64..base + span.end as u64
            );
        }
    }
    // Concretely: the last `a` wins, `b`'s two lists merge.
    assert_eq!(tree.nodes[rows[0]].detail, "int64[1] [2]");
    assert_eq!(tree.nodes[rows[1]].detail, "int64[2] [10, 20]");

    // Bytes of the second `features` occurrence belong to the one `features` node (hex -> tree).
    let second_body = base + payload.len() as u64 - 2;
    let owner = tree.owner_of(second_body).unwrap();
    assert!(
        owner == features || tree.ancestors(owner).contains(&features),
        "{:?}",
        tree.nodes[owner]
    );
    // The overridden first `a` entry is no feature row of its own.
    let first_a = base + 2;
    let owner = tree.owner_of(first_a).unwrap();
    assert_eq!(tree.nodes[owner].label, "features");

    // And `show` prints the same rows.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(["show", "-n", "0"])
        .arg(&path)
        .output()
        .unwrap();
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(shown.contains("a  int64[1]     [2]"), "{shown}");
    assert!(shown.contains("b  int64[2]     [10, 20]"), "{shown}");
    assert!(shown.contains("c  bytes[1]     [\"cat\"]"), "{shown}");
    let text = screen(&render(&app, 160, 48));
    assert!(text.contains("▾ features  3 features"), "{text}");
    assert!(text.contains("a  int64[1] [2]"), "{text}");
    assert!(text.contains("b  int64[2] [10, 20]"), "{text}");
}

#[test]
fn frame_nodes_are_worded_by_the_annotate_tokens_and_damage_describe() {
    use tfr_core::damage;
    let corrupt = |name: &str| format!("{}/testdata/corrupt/{name}", env!("CARGO_MANIFEST_DIR"));
    let files = [
        LENGTH_BITFLIP.to_string(),
        corrupt("data_crc_bitflip.tfrecord"),
        corrupt("trailing_garbage_short.tfrecord"),
        corrupt("truncated_mid_payload.tfrecord"),
        corrupt("zeroed_block.tfrecord"),
        EXAMPLES.to_string(),
    ];
    for file in &files {
        let mut app = open(file);
        let count = app.frame_count();
        let mut frames: Vec<usize> = (0..count)
            .filter(|i| {
                let f = app.file().unwrap();
                !f.index().get(f.data(), *i).unwrap().status.is_intact()
            })
            .collect();
        frames.push(0);
        for i in frames {
            app.go_to_record(i);
            let frame = app.view.frame.unwrap();
            let data = tfr_core::bytes::whole(app.file().unwrap().data()).unwrap();
            let is_last = app.file().unwrap().input.is_last(i);
            let mut checked = 0;
            for node in &app.view.tree.nodes {
                match node.label.as_str() {
                    "length" | "length crc" | "footer" | "skipped" | "unreadable"
                    | "trailing bytes" => {
                        let token = app
                            .token_at(node.range.start)
                            .filter(|t| t.start == node.range.start && t.end == node.range.end)
                            .unwrap_or_else(|| panic!("{file} {i}: no token for {node:?}"));
                        assert_eq!(node.detail, app.meaning(&token), "{file} record {i}");
                        checked += 1;
                    }
                    "damaged" => {
                        assert_eq!(node.detail, damage::describe(&frame, data, is_last));
                        assert!(node.damaged);
                        checked += 1;
                    }
                    _ => {}
                }
            }
            assert!(checked >= 1, "{file} record {i}");
            let has_summary = app.view.tree.nodes.iter().any(|n| n.label == "damaged");
            assert_eq!(has_summary, !frame.status.is_intact(), "{file} record {i}");
        }
    }
    // The header's own line repeats the token that matters: here the bad length CRC.
    let mut app = open(LENGTH_BITFLIP);
    app.go_to_record(56);
    let header = node_named(&app, "header");
    let crc = node_named(&app, "length crc");
    assert_eq!(
        app.view.tree.nodes[header].detail,
        app.view.tree.nodes[crc].detail
    );
    assert!(app.view.tree.nodes[header].detail.contains("MISMATCH"));
}

#[test]
fn help_lines_are_whole_on_wide_screens_and_wrap_at_80_columns() {
    let mut app = open(EXAMPLES);
    app.update(Action::Help);
    let text = screen(&render(&app, 160, 48));
    for (keys, what) in help::lines() {
        assert!(
            text.lines().any(|l| l.contains(what) && l.contains(&keys)),
            "{keys}: {what:?} is cut\n{text}"
        );
    }
    // At 80 columns every word is still there, on wrapped lines inside the border (48 rows hold
    // the whole help wrapped; shorter screens scroll it, as screens.rs tests).
    let text = screen(&render(&app, 80, 48));
    let overlay: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("keys (? or Esc closes)"))
        .take_while(|l| !l.contains('┘'))
        .collect();
    let words: Vec<&str> = overlay
        .iter()
        .flat_map(|l| l.split(|c: char| c == '│' || c.is_whitespace()))
        .filter(|w| !w.is_empty())
        .collect();
    for (_, what) in help::lines() {
        for word in what.split(' ') {
            assert!(words.contains(&word), "{word:?} missing\n{text}");
        }
    }
}

#[test]
fn long_kind_names_get_a_column_of_their_own() {
    let path = format!(
        "{}/testdata/corrupt/data_crc_bitflip.tfrecord",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut app = open(&path);
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.go_to_record(192);
    app.refresh();
    let text = screen(&render(&app, 160, 48));
    let row = text
        .lines()
        .find(|l| l.contains("    192 "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains("data_crc_mismatch payload CRC mismatch"),
        "{row}"
    );
    // The header's `summary` column starts where the summaries do.
    let header = text.lines().find(|l| l.contains("index")).unwrap();
    let at = |l: &str, s: &str| l.find(s).map(|b| l[..b].chars().count());
    assert_eq!(
        at(header, "summary"),
        at(row, "payload CRC"),
        "{header}\n{row}"
    );
    // Screens of short kinds keep the 15-column minimum.
    app.go_to_record(0);
    app.refresh();
    let text = screen(&render(&app, 160, 48));
    let row = text.lines().find(|l| l.contains("│      0  ")).unwrap();
    assert!(row.contains("Example         4 features"), "{row}");
}

#[test]
fn search_hits_are_named_by_feature_and_value_index() {
    let mut app = open(EXAMPLES);
    app.update(Action::Prompt(PromptKind::Search));
    type_text(&mut app, "horse");
    app.update(Action::Submit);
    assert!(!app.searching());
    assert!(
        app.message.ends_with(", feature2[0]") && app.message.contains("record "),
        "{}",
        app.message
    );
    app.update(Action::Prompt(PromptKind::Search));
    type_text(&mut app, "feature3");
    app.update(Action::Submit);
    assert!(app.message.ends_with(", feature3"), "{}", app.message);
    app.update(Action::Prompt(PromptKind::Search));
    type_text(&mut app, "zebra-not-there");
    app.update(Action::Submit);
    assert!(
        app.message.contains("not found") && app.message.contains("whole file searched"),
        "{}",
        app.message
    );
}

#[test]
fn a_search_past_many_non_text_matches_runs_in_slices_and_finds_the_text() {
    // 2 MiB of the byte 0x0a (a tag byte on the wire, never text here) in one raw record, then an
    // Example whose feature is named "\n…": a search for "\n" meets millions of non-text matches.
    let filler = vec![0x0au8; 2 << 20];
    let example = [tagged(0x0a, &feature_entry("\nname", &int64_list(&[1])))].concat();
    let mut data = frame_record(&filler);
    data.extend(frame_record(&example));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.tfrecord");
    std::fs::write(&path, &data).unwrap();
    let mut app = open(path.to_str().unwrap());
    app.search = Some("\nname".into());
    app.update(Action::SearchNext);
    let mut slices = 1;
    while app.searching() {
        assert!(app.message.contains("searching"), "{}", app.message);
        assert!(app.message.contains('%'), "{}", app.message);
        app.poll_search();
        slices += 1;
        assert!(slices < 100, "{}", app.message);
    }
    assert_eq!(app.selected(), 1, "{}", app.message);
    assert!(app.message.contains("record 1"), "{}", app.message);
    // Esc stops a running search without quitting.
    app.go_to_record(0);
    app.search = Some("no such text".into());
    app.update(Action::SearchNext);
    if app.searching() {
        app.update(Action::Cancel);
        assert!(!app.searching() && !app.quit);
        assert_eq!(app.message, "search stopped");
    }
}

#[test]
fn status_bar_says_no_records_for_an_empty_file_and_exit_status_follows_the_inputs() {
    use tfr_inspect::status::Status;
    let empty = format!("{}/testdata/empty.tfrecord", env!("CARGO_MANIFEST_DIR"));
    let app = open(&empty);
    let text = screen(&render(&app, 160, 48));
    assert!(text.contains("no records"), "{text}");
    assert!(!text.contains("record 0"), "{text}");
    assert_eq!(app.status(), Status::Clean);
    assert_eq!(open(LENGTH_BITFLIP).status(), Status::Damage);
    // A missing input: the session still opens the others, keeps the error, and ends with 2.
    let decoder = decoder();
    let paths = [PathBuf::from(EXAMPLES), PathBuf::from("/nonexistent-input")];
    let mut app = App::open(&paths, &OpenOptions::new(decoder)).unwrap();
    app.index_now();
    assert_eq!(app.status(), Status::Unusable);
    app.update(Action::Down);
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "3");
    app.update(Action::Submit);
    let text = screen(&render(&app, 160, 48));
    assert!(
        text.contains("not opened: /nonexistent-input: No such file"),
        "{text}"
    );
}

#[test]
fn a_damaged_compressed_stream_is_shown_and_counts_as_damage() {
    use tfr_inspect::status::Status;
    let path = format!(
        "{}/testdata/corrupt/gzip_truncated.tfrecord",
        env!("CARGO_MANIFEST_DIR")
    );
    let app = open(&path);
    let text = screen(&render(&app, 160, 48));
    assert!(
        text.contains("GZIP 1.4 KiB → 11.0 KiB, stream damaged at compressed byte 1421"),
        "{text}"
    );
    assert!(
        text.contains("compressed stream damaged: the compressed data ends early"),
        "{text}"
    );
    assert_eq!(app.status(), Status::Damage);
}

#[test]
fn a_snappy_shard_is_read_and_a_block_tensorflow_cannot_hold_is_noted() {
    use tfr_inspect::status::Status;
    let path = format!(
        "{}/testdata/writers/dataset_save/snappy_blocks/4791107556439151042/00000000.shard/00000000.snapshot",
        env!("CARGO_MANIFEST_DIR")
    );
    let app = open(&path);
    let text = screen(&render(&app, 200, 48));
    assert!(text.contains("2 records"), "{text}");
    assert!(text.contains("SNAPPY 13.8 KiB → 293.0 KiB"), "{text}");
    assert!(text.contains("uint8[8] [2, 2, 2, 2, 2, 2, 2, 2]"), "{text}");
    assert!(
        text.contains("note: SNAPPY block 1 at compressed byte 18"),
        "{text}"
    );
    assert_eq!(app.status(), Status::Clean);
}

// ---- text from the file on screen --------------------------------------------------------------

#[test]
fn names_and_values_from_the_file_reach_the_screen_escaped() {
    let int64 = tagged(0x1a, &tagged(0x0a, &[7]));
    let names = ["\x1b]2;owned\x07", "a\rDAMAGED", "del\x7f", "\u{202e}gpj"];
    let mut entries: Vec<u8> = names
        .iter()
        .flat_map(|name| feature_entry(name, &int64))
        .collect();
    let text = tagged(0x0a, &tagged(0x0a, b"new\nline"));
    entries.extend(feature_entry("v", &text));
    let payload = tagged(0x0a, &entries);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile\x1b[31m.tfrecord");
    std::fs::write(&path, frame_record(&payload)).unwrap();
    let mut app = open(path.to_str().unwrap());
    app.update(Action::Prompt(PromptKind::Search));
    type_text(&mut app, "DAMAGED");
    app.update(Action::Submit);
    let screen = screen(&render(&app, 160, 48));
    let unsafe_char =
        |c: char| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c);
    assert!(!screen.chars().any(unsafe_char), "{screen:?}");
    for shown in [
        "\\033]2;owned\\007",
        "del\\177",
        "\\u202egpj",
        "\"new\\nline\"",
    ] {
        assert!(screen.contains(shown), "{shown} in {screen}");
    }
    // The search names the feature it found, escaped as the tree shows it.
    assert!(app.message.contains("a\\rDAMAGED"), "{}", app.message);
    assert!(screen.contains("hostile\\033[31m.tfrecord"), "{screen}");
}

/// A SequenceExample whose context feature `n` holds 100 int64 values and whose feature list `s`
/// holds 70 steps: both longer than one page of rows.
fn long_lists_case() -> Vec<u8> {
    let values: Vec<u8> = (0..100u8).flat_map(|v| [0x08, v]).collect();
    let feature = tagged(0x1a, &values);
    let entry = tagged(0x0a, &[tagged(0x0a, b"n"), tagged(0x12, &feature)].concat());
    let steps: Vec<u8> = (0..70u8)
        .flat_map(|i| tagged(0x0a, &int64_list(&[i])))
        .collect();
    let list = tagged(0x0a, &[tagged(0x0a, b"s"), tagged(0x12, &steps)].concat());
    [tagged(0x0a, &entry), tagged(0x12, &list)].concat()
}

#[test]
fn long_value_lists_and_feature_lists_open_a_page_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.tfrecord");
    std::fs::write(&path, frame_record(&long_lists_case())).unwrap();
    let mut app = open(path.to_str().unwrap());
    let children_labels = |app: &App, parent: usize| -> Vec<String> {
        app.view
            .tree
            .children(parent)
            .iter()
            .map(|c| app.view.tree.nodes[*c].label.clone())
            .collect()
    };

    let n = node_named(&app, "n");
    app.expand(n, true);
    let labels = children_labels(&app, n);
    assert_eq!(labels.len(), 65, "{labels:?}");
    assert_eq!(labels[0], "[0]");
    assert_eq!(labels[63], "[63]");
    assert_eq!(labels[64], "… 36 more");
    // The next page comes in the place of the "… more" row.
    let more = app.view.tree.children(n)[64];
    app.expand(more, true);
    let all = children_labels(&app, n);
    assert_eq!(all, (0..100).map(|i| format!("[{i}]")).collect::<Vec<_>>());
    let last = app.view.tree.children(n)[99];
    assert_eq!(app.view.tree.nodes[last].detail, "99");

    let s = node_named(&app, "s");
    app.expand(s, true);
    let steps = children_labels(&app, s);
    assert_eq!(steps.len(), 65, "{steps:?}");
    assert_eq!(steps[63], "step 63");
    assert_eq!(steps[64], "… 6 more steps");
    let more = app.view.tree.children(s)[64];
    app.expand(more, true);
    let all = children_labels(&app, s);
    assert_eq!(
        all,
        (0..70).map(|i| format!("step {i}")).collect::<Vec<_>>()
    );
}

const TOY_PARCELS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/realworld/tfds/toy_parcels/2.0.0"
);

#[test]
fn the_record_prompt_takes_a_split_wide_number() {
    let dataset = tfr_core::dataset::Dataset::resolve(&[PathBuf::from(TOY_PARCELS)]);
    let paths: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
    let mut app = open_all(&paths);
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "train 17");
    app.update(Action::Submit);
    assert_eq!(app.current, 1, "{}", app.message);
    assert_eq!(app.selected(), 2);
    assert_eq!(app.message, "train record 17 = shard 00001 record 2");
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "validation:5");
    app.update(Action::Submit);
    assert_eq!((app.current, app.selected()), (3, 1), "{}", app.message);
    // Back from the split's end, as `show -n train:-1` counts.
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "train:-1");
    app.update(Action::Submit);
    assert_eq!((app.current, app.selected()), (1, 14), "{}", app.message);
    assert_eq!(app.message, "train record 29 = shard 00001 record 14");
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "train 30");
    app.update(Action::Submit);
    assert!(
        app.message.contains("train has 30 records"),
        "{}",
        app.message
    );
    app.update(Action::Prompt(PromptKind::Record));
    type_text(&mut app, "test 1");
    app.update(Action::Submit);
    assert!(app.message.contains("no split \"test\""), "{}", app.message);
}

#[test]
fn next_damaged_goes_on_to_the_next_file() {
    let mut app = open_all(&[PathBuf::from(EXAMPLES), PathBuf::from(LENGTH_BITFLIP)]);
    app.update(Action::NextDamaged);
    assert_eq!((app.current, app.selected()), (1, 56), "{}", app.message);
    assert!(
        app.message.contains("damaged frame 56 in file 2 of 2"),
        "{}",
        app.message
    );
    app.update(Action::NextDamaged);
    assert_eq!((app.current, app.selected()), (1, 56));
}

// ---- tensors and events ---------------------------------------------------------------------

const TENSORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/realworld/serialized_tensors.tfrecord"
);

#[test]
fn a_uint8_image_tensor_is_previewed_with_its_pixels_in_order() {
    let mut app = open(TENSORS);
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.go_to_record(3);
    let picture = app.preview.clone().expect("a preview").expect("decoded");
    // uint8 [6, 10, 3]: 10 wide, 6 high, pixel (0, 0) is the tensor's first three values.
    assert_eq!(picture.pixels.dimensions(), (10, 6));
    assert_eq!(picture.pixels.get_pixel(0, 0).0, [204, 41, 68]);
    assert_eq!(picture.pixels.get_pixel(1, 0).0, [180, 169, 73]);
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    assert!(text.contains("TensorProto"), "{text}");
    let blocks = buf.content().iter().filter(|c| c.symbol() == "▀").count();
    assert!(blocks >= 10 * 3, "{blocks} half blocks\n{text}");
    // A float tensor is no image.
    app.go_to_record(0);
    assert!(
        app.preview.is_none(),
        "{:?}",
        app.preview.as_ref().map(|p| p.is_ok())
    );
}

#[test]
fn a_summary_image_of_an_event_is_previewed() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/realworld/tensorboard/run_tf2"
    );
    let file = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".v2"))
        .unwrap();
    let mut app = open(file.to_str().unwrap());
    app.go_to_record(5);
    let picture = app.preview.clone().expect("a preview").expect("decoded");
    assert_eq!(picture.pixels.dimensions(), (40, 24));
}

fn tf2_events() -> App {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/realworld/tensorboard/run_tf2"
    );
    let file = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".v2"))
        .unwrap();
    open(file.to_str().unwrap())
}

#[test]
fn a_scalar_tag_is_drawn_as_a_line_over_the_steps_of_the_file() {
    use tfr_inspect::tui::charts::Plot;
    let mut app = tf2_events();
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.go_to_record(6);
    let Some(Plot::Scalars {
        tag,
        points,
        step,
        partial,
    }) = app.plot.clone()
    else {
        panic!("no scalar plot: {:?}", app.plot);
    };
    assert_eq!(tag, "train/loss");
    assert_eq!(step, 10.0);
    assert!(!partial);
    let steps: Vec<f64> = points.iter().map(|p| p.0).collect();
    assert_eq!(steps, [0.0, 10.0, 20.0]);
    assert_eq!(points[0].1, 2.0);
    assert!((points[2].1 - 0.0952381).abs() < 1e-6);
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    assert!(
        text.contains("scalar train/loss · 3 points over steps"),
        "{text}"
    );
    let braille = buf
        .content()
        .iter()
        .filter(|c| {
            c.symbol()
                .chars()
                .any(|ch| ('\u{2801}'..='\u{28ff}').contains(&ch))
        })
        .count();
    assert!(braille > 10, "{braille} braille cells\n{text}");
}

#[test]
fn a_histogram_is_drawn_as_bars() {
    use tfr_inspect::tui::charts::Plot;
    let mut app = tf2_events();
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.go_to_record(3);
    let Some(Plot::Histogram { tag, buckets }) = app.plot.clone() else {
        panic!("no histogram: {:?}", app.plot);
    };
    assert_eq!(tag, "grads");
    assert_eq!(buckets.len(), 30);
    assert!(buckets.windows(2).all(|w| w[0].right <= w[1].right));
    let total: f64 = buckets.iter().map(|b| b.count).sum();
    assert!(total > 0.0);
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    assert!(text.contains("histogram grads · 30 buckets"), "{text}");
    let bars = buf
        .content()
        .iter()
        .filter(|c| matches!(c.symbol(), "█" | "▇" | "▆" | "▅" | "▄" | "▃" | "▂" | "▁"))
        .count();
    assert!(bars >= 10, "{bars} bar cells\n{text}");
    // A record with an image shows the image, not a plot.
    app.go_to_record(5);
    assert!(matches!(app.preview, Some(Ok(_))));
}

#[test]
fn the_statistics_pane_shows_each_split_side_by_side_and_scrolls() {
    let dataset = tfr_core::dataset::Dataset::resolve(&[PathBuf::from(TOY_PARCELS)]);
    let paths: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
    let mut app = open_all(&paths);
    app.update(Action::Resize {
        width: 200,
        height: 60,
    });
    app.update(Action::Stats);
    let text = screen(&render(&app, 200, 60));
    assert!(text.contains("computing"), "{text}");
    app.finish_stats();
    let text = screen(&render(&app, 200, 60));
    assert!(text.contains("train: 30 records (30 Example)"), "{text}");
    assert!(text.contains("validation: 8 records (8 Example)"), "{text}");
    assert!(text.contains("present        30 (100.0%)"), "{text}");
    // The movement keys scroll the pane: the first line leaves the screen.
    for _ in 0..3 {
        app.update(Action::Down);
    }
    let text = screen(&render(&app, 200, 60));
    assert!(!text.contains("train: 30 records"), "{text}");
    // Esc closes it and the hex pane is back.
    app.update(Action::Cancel);
    assert!(app.stats.is_none() && !app.quit);
    let text = screen(&render(&app, 200, 60));
    assert!(text.contains(" hex · bytes"), "{text}");
}

#[test]
fn the_statistics_pane_gives_tensorboard_runs_and_tags() {
    let logdir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/writers/keras");
    let dataset = tfr_core::dataset::Dataset::resolve(&[PathBuf::from(logdir)]);
    let paths: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
    assert_eq!(paths.len(), 2);
    let mut app = open_all(&paths);
    app.update(Action::Resize {
        width: 200,
        height: 60,
    });
    app.update(Action::Stats);
    app.finish_stats();
    let lines: Vec<String> = screen(&render(&app, 200, 60))
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let has = |text: &str| lines.iter().any(|l| l.contains(text));
    // Runs named by their directory under the one both files are in, as `stats` names them.
    assert!(
        has("│run train: 14 events (1 file_version), steps 0..1 "),
        "{lines:#?}"
    );
    assert!(
        has("│run validation: 5 events (1 file_version), steps 0..4 "),
        "{lines:#?}"
    );
    // The pane is narrower than the table: rows end in an ellipsis.
    assert!(
        has("│ epoch_loss 2 0..1 scalars 2 8.589 @0 …"),
        "{lines:#?}"
    );
}

#[test]
fn a_tensorflow_datasets_shard_is_worded_as_its_features_json_describes_it() {
    let dataset = tfr_core::dataset::Dataset::resolve(&[PathBuf::from(TOY_PARCELS)]);
    let train = dataset
        .members
        .iter()
        .map(|m| m.path.clone())
        .find(|p| p.to_string_lossy().contains("train.tfrecord-00000"))
        .unwrap();
    let app = open(train.to_str().unwrap());
    let detail = |name: &str| {
        let n = node_named(&app, name);
        app.view.tree.nodes[n].detail.clone()
    };
    assert_eq!(detail("label"), "ClassLabel (4 classes)  2 \"large\"");
    assert_eq!(
        detail("grid"),
        "bool[3, 3]  [[false, false, true], [false, true, false], [true, true, true]]"
    );
    assert!(
        detail("objects/bbox").starts_with("BBox  [[0.25, 0.166"),
        "{}",
        detail("objects/bbox")
    );
    assert!(
        detail("objects/fragile").contains("1 \"yes\""),
        "{}",
        detail("objects/fragile")
    );
    assert!(
        detail("caption").starts_with("Text  \"parcel 9\""),
        "{}",
        detail("caption")
    );
}

#[test]
fn the_statistics_pane_prints_the_numbers_not_their_leading_digits() {
    use tfr_core::crafted::{FeatureValue, encode_records, example};
    let records: Vec<Vec<u8>> = [3000.5f32, 1340.5, 10.5]
        .iter()
        .map(|x| example(&[("x", FeatureValue::Floats(vec![*x]))]))
        .collect();
    let payloads: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.tfrecord");
    std::fs::write(&path, encode_records(&payloads)).unwrap();
    let mut app = open(path.to_str().unwrap());
    app.update(Action::Resize {
        width: 160,
        height: 50,
    });
    app.update(Action::Stats);
    app.finish_stats();
    let lines: Vec<String> = screen(&render(&app, 160, 50))
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let has = |text: &str| lines.iter().any(|l| l.contains(text));
    assert!(has("│ max 3000 "), "{lines:#?}");
    assert!(has("│ mean 1450 "), "{lines:#?}");
    assert!(has("│ histogram 10.5..3000 "), "{lines:#?}");
}

#[test]
fn a_row_cut_at_the_pane_edge_ends_in_an_ellipsis() {
    // Under a directory whose name alone is wider than the pane, wherever the checkout lies.
    let dir = tempfile::tempdir().unwrap();
    let deep = dir
        .path()
        .join("a-directory-name-longer-than-the-seventy-columns-of-the-screen");
    std::fs::create_dir(&deep).unwrap();
    let path = deep.join("serialized_tensors.tfrecord");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/realworld/serialized_tensors.tfrecord"
        ),
        &path,
    )
    .unwrap();
    let mut app = open(path.to_str().unwrap());
    app.update(Action::Resize {
        width: 70,
        height: 40,
    });
    let text = screen(&render(&app, 70, 40));
    // Row 0's summary, `float32[2,3] [[0.5, -1.25, 3.0], [4.0, 5.5, -6.0]]`, does not fit.
    let row = text
        .lines()
        .find(|l| l.starts_with("│      0 "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.ends_with(" float32[…│"), "{row}");
    // The title with the file's path, too.
    assert!(text.starts_with("┌ frames · /"), "{text}");
    assert!(text.lines().next().unwrap().ends_with("…┐"), "{text}");
    // The explanation line, longer than the screen, too.
    let explain = text.lines().find(|l| l.starts_with("@12 ")).unwrap();
    assert!(explain.ends_with('…'), "{explain}");
    // A tree row whose detail runs past the pane: the footer's CRC is cut, and says so.
    app.update(Action::Resize {
        width: 60,
        height: 40,
    });
    let text = screen(&render(&app, 60, 40));
    assert!(
        text.lines()
            .any(|l| l.starts_with("│  footer  masked crc32c") && l.ends_with("…│")),
        "{text}"
    );
}

#[test]
fn a_cut_line_keeps_its_styles_and_ends_in_an_ellipsis() {
    use ratatui::style::Style;
    use ratatui::text::{Line, Span};
    use tfr_inspect::tui::view::clip_line;
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let line = || Line::from(vec![Span::raw("max "), Span::styled("3000.5", bold)]);
    assert_eq!(clip_line(line(), 20), line());
    assert_eq!(clip_line(line(), 10), line());
    let cut = clip_line(line(), 8);
    assert_eq!(cut.to_string(), "max 300…");
    assert_eq!(cut.spans[1].style, bold);
    assert_eq!(clip_line(line(), 4).to_string(), "max…");
    assert_eq!(clip_line(line(), 3).to_string(), "ma…");
}

#[test]
fn an_empty_feature_key_is_a_row_named_by_empty_quotes() {
    use tfr_core::crafted::{FeatureValue, encode_records, example};
    let record = example(&[
        ("", FeatureValue::Ints(vec![1])),
        ("b", FeatureValue::Ints(vec![2])),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.tfrecord");
    std::fs::write(&path, encode_records(&[&record])).unwrap();
    let app = open(path.to_str().unwrap());
    let n = node_named(&app, "\"\"");
    assert!(app.view.tree.nodes[n].detail.contains("[1]"));
    let text = screen(&render(&app, 120, 40));
    assert!(text.contains("2 features: \"\", b"), "{text}");
}

#[test]
fn a_string_tensor_s_content_opens_into_its_lengths_and_its_strings() {
    use tfr_core::crafted::{encode_records, length_delimited};
    let strings: Vec<Vec<u8>> = (0..70).map(|i| format!("s{i}").into_bytes()).collect();
    let mut content: Vec<u8> = strings.iter().map(|s| s.len() as u8).collect();
    for s in &strings {
        content.extend_from_slice(s);
    }
    let payload = [
        vec![0x08, 0x07],
        length_delimited(2, &length_delimited(2, &[0x08, 70])),
        length_delimited(4, &content),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strings.tfrecord");
    std::fs::write(&path, encode_records(&[&payload])).unwrap();
    let mut app = open(path.to_str().unwrap());
    let n = node_named(&app, "tensor_content");
    assert_eq!(
        app.view.tree.nodes[n].detail,
        "70 strings: their lengths, then their bytes"
    );
    app.expand(n, true);
    let rows: Vec<usize> = app.view.tree.children(n).to_vec();
    let row = |i: usize| &app.view.tree.nodes[rows[i]];
    // Payload at 12; dtype 2, shape 6, tensor_content's tag 1 and length 2: content at 23.
    assert_eq!(row(0).label, "lengths");
    assert_eq!(row(0).range, 23..93);
    assert_eq!(
        row(0).detail,
        "70 varints, one per string, before their bytes"
    );
    assert_eq!(row(1).label, "[0]");
    assert_eq!(row(1).detail, "string \"s0\"");
    assert_eq!(row(1).range, 93..95);
    assert_eq!(row(1).more_ranges, vec![23..24]);
    assert_eq!(row(65).label, "… 6 more");
    // The hex cursor on a length is explained as that string's length.
    app.set_cursor(24);
    let token = app.token_under_cursor().unwrap();
    assert_eq!(app.meaning(&token), "varint 2: length of string 1 of 70");
    app.set_cursor(95);
    let token = app.token_under_cursor().unwrap();
    assert_eq!(app.meaning(&token), "string 1, 2 bytes: \"s1\"");
    assert!(app.view.tree.nodes[app.view.node].label == "[1]");
}

#[test]
fn quantized_bytes_of_a_feature_list_read_as_uint8_in_the_tree_when_asked() {
    use tfr_core::crafted::{FeatureValue, encode_records, sequence_example};
    use tfr_core::schema::Sources;
    use tfr_core::tensor::DType;
    let rgb: Vec<FeatureValue> = (0..3u8)
        .map(|k| FeatureValue::Bytes(vec![(0..1024).map(|i| (i as u8).wrapping_add(k)).collect()]))
        .collect();
    let record = sequence_example(&[], &[("rgb", rgb)]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("yt8m.tfrecord");
    std::fs::write(&path, encode_records(&[&record])).unwrap();
    let schema = Schema::from_sources(&Sources {
        bytes_as: vec![("rgb".into(), DType::Uint8)],
        ..Sources::default()
    })
    .unwrap();
    let options = OpenOptions::new(Decoder::new(schema, Reading::Auto));
    let mut app = App::open(std::slice::from_ref(&path), &options).unwrap();
    app.index_now();
    let rgb = node_named(&app, "rgb");
    app.expand(rgb, true);
    let step = app.view.tree.children(rgb)[1];
    assert_eq!(
        app.view.tree.nodes[step].detail,
        "bytes[1] [uint8[1024] [1, 2, 3, … 1021 more]]"
    );
    app.expand(step, true);
    let value = app.view.tree.children(step)[0];
    let detail = &app.view.tree.nodes[value].detail;
    assert!(detail.starts_with("uint8[1024] [1, 2, 3, "), "{detail}");
    assert!(detail.ends_with(", 64, … 960 more]"), "{detail}");
    // Without the option, the same row is bytes.
    let mut app = open(path.to_str().unwrap());
    let rgb = node_named(&app, "rgb");
    app.expand(rgb, true);
    let step = app.view.tree.children(rgb)[1];
    assert_eq!(app.view.tree.nodes[step].detail, "bytes[1] [1024 bytes]");
}

#[test]
fn the_statistics_pane_says_how_many_features_were_folded() {
    use tfr_core::crafted::{FeatureValue, encode_records, example};
    use tfr_core::stats::MAX_FEATURES;
    let names: Vec<String> = (0..MAX_FEATURES + 5).map(|i| format!("f{i:05}")).collect();
    let entries: Vec<(&str, FeatureValue)> = names
        .iter()
        .map(|n| (n.as_str(), FeatureValue::Ints(vec![3])))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.tfrecord");
    std::fs::write(&path, encode_records(&[&example(&entries)])).unwrap();
    let mut app = open_all(&[path]);
    app.update(Action::Stats);
    app.finish_stats();
    let lines = &app.stats.as_ref().unwrap().lines;
    assert!(
        lines[0].ends_with(&format!(
            "wide.tfrecord: 1 record (1 Example); 5 features past the first {MAX_FEATURES} by name folded into \"other features\""
        )),
        "{}",
        lines[0]
    );
    let tail: Vec<&str> = lines
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            format!(
                "other features (past the first {MAX_FEATURES} by name: counted, not summarised)"
            )
            .as_str(),
            "  features  5",
            "  present   5",
            "  values    5",
        ]
    );
}

/// A writable copy of the toy_parcels dataset directory, and its first train shard.
fn toy_parcels_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(TOY_PARCELS).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let shard = dir.path().join("toy_parcels-train.tfrecord-00000-of-00002");
    (dir, shard)
}

#[test]
fn what_features_json_says_is_shown_escaped_not_dropped() {
    let (dir, shard) = toy_parcels_copy();
    let path = dir.path().join("features.json");
    let mut features: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    features["featuresDict"]["features"]["grid"]["tensor"]["dtype"] = "bo\x1b]2;x\x07ol".into();
    std::fs::write(&path, features.to_string()).unwrap();
    let app = open(shard.to_str().unwrap());
    let n = node_named(&app, "grid");
    let detail = app.view.tree.nodes[n].detail.clone();
    assert!(
        detail.starts_with(r"bo\033]2;x\007ol[3, 3]  [[0, 0, 1]"),
        "{detail}"
    );
}

#[test]
fn a_pipe_for_features_json_is_named_in_the_status_line_not_waited_for() {
    let (dir, shard) = toy_parcels_copy();
    let features = dir.path().join("features.json");
    std::fs::remove_file(&features).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&features)
        .status()
        .unwrap();
    assert!(made.success());
    // Opening must not wait for a writer that never comes: a hang fails the test here.
    let (sent, opened) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let app = App::open(&[shard], &OpenOptions::new(decoder())).map(|app| app.message);
        let _ = sent.send(app.map_err(|e| e.to_string()));
    });
    let message = opened
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the inspector opened the shard without waiting on the pipe")
        .unwrap();
    assert!(
        message.ends_with("features.json: not read: a named pipe, not a regular file"),
        "{message}"
    );
}

#[test]
fn files_past_the_first_64_are_opened_when_shown_and_the_least_recent_closed() {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = (0..70)
        .map(|i| {
            let path = dir.path().join(format!("f{i:02}.tfrecord"));
            let mut bytes = Vec::new();
            for _ in 0..=i {
                tfr_core::frame::write_record(b"\x0a\x00", &mut bytes).unwrap();
            }
            std::fs::write(&path, bytes).unwrap();
            path
        })
        .collect();
    let mut app = open_all(&paths);
    let open = |app: &App| app.files.iter().filter(|f| f.open).count();
    assert_eq!(open(&app), 64);
    assert!(!app.files[69].open);
    // `[` goes back to the last file: opened, and another closed in its place.
    app.update(Action::PrevFile);
    assert_eq!(app.current, 69);
    assert!(app.files[69].open);
    assert_eq!(app.frame_count(), 70);
    assert_eq!(open(&app), 64);
    // The file closed keeps its index, and is the same when shown again.
    let closed = (0..70).find(|&i| !app.files[i].open).unwrap();
    assert_eq!(app.files[closed].index().len(), closed + 1);
    app.update(Action::NextFile);
    assert_eq!(app.current, 0);
    assert_eq!(app.frame_count(), 1);
}

/// An event file TensorBoard 2.21's plugin APIs wrote (`testdata/writers/README.md`).
fn writer_events(dir: &str) -> App {
    let dir = format!("{}/testdata/writers/{dir}", env!("CARGO_MANIFEST_DIR"));
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("events.out.tfevents")
                && !name.contains(".golden.")
                && !name.contains(".reading.")
        })
        .unwrap();
    open(file.to_str().unwrap())
}

/// Opens the summary value of the selected event in the tree and draws the screen.
fn open_summary_value(app: &mut App) -> String {
    app.update(Action::NextPane);
    let value = node_named(app, "value");
    app.select_node(value, true);
    app.update(Action::Right);
    screen(&render(app, 240, 60))
}

/// Every row made so far, as `label  detail` with the label's padding left out.
fn made_rows(app: &App) -> Vec<String> {
    app.view
        .tree
        .nodes
        .iter()
        .map(|n| format!("{}  {}", n.label.trim_end(), n.detail))
        .collect()
}

#[test]
fn a_pr_curve_event_opens_into_its_table_of_thresholds() {
    let mut app = writer_events("tensorboard/plugins");
    app.go_to_record(1);
    let value = node_named(&app, "value");
    assert_eq!(
        app.view.tree.nodes[value].detail,
        "pr/pr_curves pr_curve 5 thresholds"
    );
    let screen = open_summary_value(&mut app);
    for row in [
        "▾ value  pr/pr_curves pr_curve 5 thresholds",
        "threshold  TP  FP  TN  FN  precision  recall",
        "0.25       4   2   2   0   0.6666667  1.0",
        "1.0        0   0   4   4   0.0        0.0",
    ] {
        assert!(screen.contains(row), "{row}\n{screen}");
    }
    // A threshold's row stands for its six values: TP at 0.25 is the second float of the
    // tensor_content, recall the 27th.
    let row = |label: &str| {
        app.view
            .tree
            .nodes
            .iter()
            .find(|n| n.label.trim_end() == label)
            .unwrap()
            .clone()
    };
    let content = row("0.0").range.start;
    let quarter = row("0.25");
    assert_eq!(quarter.more_ranges.len(), 5);
    assert_eq!(quarter.range, content + 4..content + 8);
    assert_eq!(quarter.more_ranges[4], content + 26 * 4..content + 27 * 4);
}

#[test]
fn hparams_text_tables_layouts_audio_meshes_and_graph_traces_show_in_the_tree() {
    let cases: [(&str, usize, &[&str]); 7] = [
        (
            "tensorboard/trial_1",
            1,
            &[
                "value  hparams session start: dropout=true, layers=2.0, lr=0.01, \
                 optimizer=\"adam\"; group \"trial_1\"",
                "hparams  4 values",
                "lr  0.01",
                "optimizer  \"adam\"",
                "group_name  \"trial_1\"",
                "start_time  2023-11-14 22:13:20.000 UTC",
            ],
        ),
        (
            "tensorboard/trial_1",
            4,
            &[
                "status  STATUS_SUCCESS",
                "end_time  2023-11-14 22:14:20.000 UTC",
            ],
        ),
        (
            "tensorboard/plugins",
            4,
            &["[0]  \"name\"  \"value\"", "[1]  \"lr\"    \"0.01\""],
        ),
        (
            "tensorboard/plugins",
            2,
            &[
                "category \"Training\"  2 charts",
                "\"loss band\"  margin train/loss in [train/loss_lo, train/loss_hi]",
            ],
        ),
        (
            "tensorboard/plugins",
            3,
            &["[0]  WAV PCM 16-bit, 8000 Hz, mono, 80 frames, 0.01 s, 204 bytes"],
        ),
        (
            "tensorboard/plugins",
            6,
            &[
                "components  vertices, faces, colors (bits 14)",
                "vertices  4 points of float32[1,4,3]",
            ],
        ),
        (
            "tensorboard/graph",
            2,
            &[
                "value  affine graph trace: 1 function, 7 nodes before optimization",
                "function_graphs[0]  3 graphs",
            ],
        ),
    ];
    for (dir, record, expected) in cases {
        let mut app = writer_events(dir);
        app.go_to_record(record);
        let screen = open_summary_value(&mut app);
        let rows = made_rows(&app);
        for text in expected {
            assert!(
                rows.iter().any(|r| r == text),
                "{dir} record {record}: {text}\n{rows:#?}\n{screen}"
            );
        }
    }
}

#[test]
fn a_graph_def_opens_into_its_nodes_and_a_keras_model_into_its_json() {
    let mut app = writer_events("tensorboard/graph");
    app.go_to_record(1);
    app.update(Action::NextPane);
    let graph = node_named(&app, "graph_def");
    assert_eq!(
        app.view.tree.nodes[graph].detail,
        "tensorflow.GraphDef, 6 nodes"
    );
    app.select_node(graph, true);
    app.update(Action::Right);
    let rows = made_rows(&app);
    for node in ["x  Placeholder", "mul/x  Const", "Identity  Identity"] {
        assert!(rows.iter().any(|r| r == node), "{node}\n{rows:#?}");
    }
    let mut app = writer_events("keras/train");
    app.go_to_record(1);
    let screen = open_summary_value(&mut app);
    for line in [
        "▾ value  keras keras model Sequential \"tiny\", 3 layers",
        "  \"class_name\": \"Sequential\",",
    ] {
        assert!(screen.contains(line), "{line}\n{screen}");
    }
}

// ---- tf.data snapshots --------------------------------------------------------------------------

const SNAPSHOT_SHARD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/writers/dataset_save/none/9843000220232823379/00000001.shard/00000000.snapshot"
);

#[test]
fn a_snapshot_shards_rows_and_tree_name_element_and_component() {
    let mut app = open(SNAPSHOT_SHARD);
    app.update(Action::Resize {
        width: 160,
        height: 40,
    });
    let buf = render(&app, 160, 40);
    let text = screen(&buf);
    // The frame list: each record's element and component (from dataset_spec.pb) before its
    // value; the shard holds ids 1 and 3.
    assert!(
        line(&buf, 2).contains("TensorProto     element 0's id: int64[] 1"),
        "{text}"
    );
    assert!(text.contains("element 0's pair[1]: bool[] False"), "{text}");
    assert!(text.contains("element 1's pair[0]: uint8[] 254"), "{text}");
    // The tree of record 7: the payload's row names it.
    app.select_frame(7);
    let buf = render(&app, 160, 40);
    let text = screen(&buf);
    assert!(
        text.contains("▾ TensorProto  7 bytes; element 1's pair[0]"),
        "{text}"
    );
}

#[test]
fn a_cut_short_snapshot_shard_says_so_on_its_last_records() {
    // The shard's first 7 records: one whole element of 5, and 2 of the next.
    let data = std::fs::read(SNAPSHOT_SHARD).unwrap();
    let mut frames = Vec::new();
    let mut at = 0;
    for _ in 0..7 {
        let len = u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) as usize;
        frames.extend_from_slice(&data[at..at + 16 + len]);
        at += 16 + len;
    }
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = dir.path().join("1/00000000.shard");
    std::fs::create_dir_all(&shard_dir).unwrap();
    let meta = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/writers/dataset_save/none/"
    );
    for side in ["snapshot.metadata", "dataset_spec.pb"] {
        std::fs::copy(format!("{meta}{side}"), dir.path().join(side)).unwrap();
    }
    let shard = shard_dir.join("00000000.snapshot");
    std::fs::write(&shard, frames).unwrap();
    let mut app = open(shard.to_str().unwrap());
    app.update(Action::Resize {
        width: 200,
        height: 60,
    });
    app.select_frame(6);
    let buf = render(&app, 200, 60);
    let text = screen(&buf);
    assert!(text.contains("element 0's vec: float32[3]"), "{text}");
    assert!(
        text.contains(
            "past the last whole element (2 of 5 components: the shard ends inside an element): \
             int64[] 3"
        ),
        "{text}"
    );
}

/// The row under `parent` labelled `label`.
fn child_named(app: &App, parent: usize, label: &str) -> usize {
    app.view
        .tree
        .children(parent)
        .iter()
        .copied()
        .find(|&c| app.view.tree.nodes[c].label.trim_end() == label)
        .unwrap_or_else(|| panic!("no {label} under {}", app.view.tree.nodes[parent].label))
}

/// Selects row `n` and opens it.
fn open_row(app: &mut App, n: usize) {
    app.select_node(n, true);
    app.update(Action::Right);
}

#[test]
fn a_payload_inside_a_bytes_value_opens_into_its_rows_each_over_its_bytes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/writers/examples/nested_payloads.tfrecord"
    );
    let mut app = open(path);
    app.update(Action::NextPane);
    let feature = node_named(&app, "nested_example");
    assert_eq!(
        app.view.tree.nodes[feature].detail,
        "bytes[1] [Example 2 features: ids, label]"
    );
    open_row(&mut app, feature);
    let value = child_named(&app, feature, "[0]");
    assert_eq!(
        app.view.tree.nodes[value].detail,
        "Example 2 features: ids, label"
    );
    open_row(&mut app, value);
    let features = child_named(&app, value, "features");
    open_row(&mut app, features);
    let ids = child_named(&app, features, "ids");
    assert_eq!(
        app.view.tree.nodes[ids].detail,
        "bytes[1] [TensorProto int64[3] [10, 20, 30]]"
    );
    open_row(&mut app, ids);
    let tensor = child_named(&app, ids, "[0]");
    open_row(&mut app, tensor);
    let dtype = child_named(&app, tensor, "dtype");
    assert_eq!(app.view.tree.nodes[dtype].detail, "DT_INT64");
    let content = child_named(&app, tensor, "tensor_content");
    // Each row lies inside the one that holds it, down to the record's payload.
    let mut at = content;
    while let Some(parent) = app.view.tree.nodes[at].parent {
        let (inner, outer) = (
            &app.view.tree.nodes[at].range,
            &app.view.tree.nodes[parent].range,
        );
        assert!(
            outer.start <= inner.start && inner.end <= outer.end,
            "{} {inner:?} outside {} {outer:?}",
            app.view.tree.nodes[at].label,
            app.view.tree.nodes[parent].label
        );
        at = parent;
    }
    // tensor_content holds 10, 20 and 30 as little-endian int64s.
    let data = std::fs::read(path).unwrap();
    let range = app.view.tree.nodes[content].value.clone().unwrap();
    let bytes = &data[range.start as usize..range.end as usize];
    let ints: Vec<i64> = bytes
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ints, [10, 20, 30]);
    let screen = screen(&render(&app, 200, 60));
    assert!(screen.contains("tensor_content"), "{screen}");
    // From a fresh tree, the hex cursor on one of those bytes opens the rows down to it.
    let mut fresh = open(path);
    let owner = fresh.view.tree.descend_to(range.start + 9, &data).unwrap();
    assert_eq!(fresh.view.tree.nodes[owner].label, "tensor_content");
}
