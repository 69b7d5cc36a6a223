//! The inspector's images on a `TestBackend`: boxes and class names drawn over the detection
//! fixture's preview and toggled with `b`, the frames of a SequenceExample stepped with `<` `>`
//! and followed from the tree, and a record whose image does not decode marked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::{Mode, key_action};

/// The inspector on `path`, indexed, in a 160 by 48 terminal.
fn open(path: &Path) -> App {
    let mut app = super::open(path);
    app.update(tfr_inspect::tui::keymap::Action::Resize {
        width: 160,
        height: 48,
    });
    app
}

/// The whole screen at 160 by 48.
fn render(app: &App) -> Buffer {
    super::render(app, 160, 48)
}

const DETECTION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/realworld/detection_train.record-00000-of-00001"
);

fn press(app: &mut App, c: char) {
    let action = key_action(
        Mode::Normal,
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
    );
    app.update(action.unwrap_or_else(|| panic!("{c} does nothing")));
}

fn text_of(buf: &Buffer, area: Rect) -> String {
    (area.y..area.bottom())
        .map(|y| {
            (area.x..area.right())
                .map(|x| buf.cell((x, y)).map_or(" ", |c| c.symbol()))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Cells of `area` showing `colour` in either half.
fn cells_in(buf: &Buffer, area: Rect, colour: [u8; 3]) -> usize {
    let colour = Color::Rgb(colour[0], colour[1], colour[2]);
    area.positions()
        .filter_map(|p| buf.cell(p))
        .filter(|c| c.symbol() == "▀" && (c.fg == colour || c.bg == colour))
        .count()
}

#[test]
fn boxes_and_class_names_are_drawn_on_the_detection_preview_and_b_hides_them() {
    let mut app = open(Path::new(DETECTION));
    app.go_to_record(1);
    let overlay = app.shown_overlay().expect("record 1 has boxes").clone();
    let names: Vec<&str> = overlay.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["tree", "person"]);
    let area = app.panes().preview.expect("a preview pane");
    let buf = render(&app);
    let pane = text_of(&buf, area);
    assert!(pane.contains("JPEG 160x120"), "{pane}");
    assert!(pane.contains("■ tree ■ person"), "legend: {pane}");
    // Each name is written beside its box, on its colour.
    for class in &overlay.classes {
        let [r, g, b] = class.colour;
        let named = area
            .positions()
            .filter_map(|p| buf.cell(p))
            .any(|c| c.bg == Color::Rgb(r, g, b) && class.name.starts_with(c.symbol()));
        assert!(named, "{} not written on its colour\n{pane}", class.name);
    }
    let with: Vec<usize> = overlay
        .classes
        .iter()
        .map(|c| cells_in(&buf, area, c.colour))
        .collect();

    press(&mut app, 'b');
    assert!(app.shown_overlay().is_none());
    let buf = render(&app);
    let pane = text_of(&buf, area);
    assert!(!pane.contains("■ tree"), "{pane}");
    for (class, with) in overlay.classes.iter().zip(with) {
        let without = cells_in(&buf, area, class.colour);
        // The edges of a box a fifth of a 160x120 image wide, in a pane ~60 cells wide.
        assert!(
            with >= without + 15,
            "{}: {with} cells with boxes, {without} without",
            class.name
        );
    }
    press(&mut app, 'b');
    assert!(app.shown_overlay().is_some());
}

#[test]
fn the_box_lands_where_the_record_puts_it() {
    let mut app = open(Path::new(DETECTION));
    app.go_to_record(0);
    let overlay = app.shown_overlay().unwrap().clone();
    let mark = overlay.boxes[0];
    let colour = overlay.classes[mark.class].colour;
    let area = app.panes().preview.unwrap();
    let buf = render(&app);
    // The image fills the pane's width (160x120 into the inner area less the legend row).
    let inner = Rect::new(area.x + 1, area.y + 1, area.width - 2, area.height - 3);
    let (w, h) = tfr_inspect::tui::preview::fitted_size(160, 120, inner);
    let left = inner.x + (inner.width - w) / 2;
    let x = left + (mark.xmin * f64::from(w)).floor() as u16;
    let x_end = left + (mark.xmax * f64::from(w)).floor() as u16;
    let y = inner.y + ((mark.ymin + mark.ymax) / 2.0 * f64::from(h)).floor() as u16;
    let c = Color::Rgb(colour[0], colour[1], colour[2]);
    for x in [x, x_end] {
        let cell = buf.cell((x, y)).unwrap();
        assert!(cell.fg == c && cell.bg == c, "({x},{y}): {cell:?}");
    }
    // Halfway between, inside, the image's own colours.
    let cell = buf.cell(((x + x_end) / 2, y)).unwrap();
    assert!(cell.fg != c || cell.bg != c, "{cell:?}");
}

/// The crafted 12-frame video, written to a temporary file.
fn video() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("video.tfrecord");
    let record = tfr_core::crafted::video_sequence(12);
    std::fs::write(&path, tfr_core::crafted::encode_records(&[&record])).unwrap();
    (dir, path)
}

/// The column of the first white pixel on row 10 of the previewed frame.
fn square_at(app: &App) -> u32 {
    let picture = app.preview.clone().unwrap().unwrap();
    (0..32)
        .find(|x| picture.pixels.get_pixel(*x, 10).0 == [250, 250, 250])
        .unwrap()
}

fn selected_label(app: &App) -> (String, String) {
    let node = &app.view.tree.nodes[app.view.node];
    let parent = node.parent.map(|p| app.view.tree.nodes[p].label.clone());
    (node.label.clone(), parent.unwrap_or_default())
}

#[test]
fn frames_are_stepped_with_angle_brackets_and_the_tree_follows() {
    let (_dir, path) = video();
    let mut app = open(&path);
    assert_eq!(
        app.preview_info.frame.as_deref(),
        Some("step 0 (of 12) of image/encoded")
    );
    assert_eq!(square_at(&app), 0);
    for _ in 0..3 {
        press(&mut app, '>');
    }
    assert_eq!(
        app.preview_info.frame.as_deref(),
        Some("step 3 (of 12) of image/encoded")
    );
    assert_eq!(square_at(&app), 6);
    assert_eq!(selected_label(&app), ("[0]".into(), "step 3".into()));
    // The frame's own box.
    let overlay = app.shown_overlay().unwrap();
    let r = overlay.rect_in(&overlay.boxes[0], 32, 24).unwrap();
    assert_eq!((r.x0, r.y0), (6, 8));
    let buf = render(&app);
    let pane = text_of(&buf, app.panes().preview.unwrap());
    assert!(pane.contains("step 3 (of 12) of image/encoded"), "{pane}");
    assert!(pane.contains("■ ball"), "{pane}");

    press(&mut app, '<');
    assert_eq!(square_at(&app), 4);
    // Selecting a step's row shows that step's frame.
    let step = app
        .view
        .tree
        .nodes
        .iter()
        .position(|n| n.label == "step 9")
        .unwrap();
    app.select_node(step, true);
    assert_eq!(square_at(&app), 18);
    press(&mut app, '>');
    press(&mut app, '>');
    assert_eq!(square_at(&app), 22);
    press(&mut app, '>');
    assert_eq!(app.message, "last frame");
    assert_eq!(square_at(&app), 22);
}

#[test]
fn a_record_whose_image_does_not_decode_is_marked() {
    use image::ImageEncoder;
    use tfr_core::crafted::FeatureValue::Bytes;
    let pixels = image::RgbImage::from_pixel(40, 30, image::Rgb([9, 99, 199]));
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
        .write_image(pixels.as_raw(), 40, 30, image::ExtendedColorType::Rgb8)
        .unwrap();
    let whole = tfr_core::crafted::example(&[("image/encoded", Bytes(vec![jpeg.clone()]))]);
    jpeg.truncate(jpeg.len() / 2);
    let cut = tfr_core::crafted::example(&[("image/encoded", Bytes(vec![jpeg]))]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.tfrecord");
    std::fs::write(&path, tfr_core::crafted::encode_records(&[&whole, &cut])).unwrap();
    let mut app = open(&path);
    assert!(matches!(app.preview, Some(Ok(_))));
    // Marked in the list before it is selected.
    let list = text_of(&render(&app), app.panes().list);
    assert!(list.contains("1 image undecodable"), "{list}");
    assert!(
        !list.lines().nth(1).unwrap().contains("undecodable"),
        "{list}"
    );
    app.go_to_record(1);
    app.refresh();
    assert!(
        app.message
            .starts_with("record 1 has an undecodable image: image/encoded: truncated JPEG"),
        "{}",
        app.message
    );
    let why = app.preview.clone().unwrap().unwrap_err();
    assert!(
        why.is_broken() && why.reason().contains("truncated JPEG"),
        "{why}"
    );
    let buf = render(&app);
    let list = text_of(&buf, app.panes().list);
    assert!(list.contains("1 image undecodable"), "{list}");
}

#[test]
fn instance_masks_are_tinted_over_the_preview() {
    use image::{GrayImage, ImageEncoder, Luma, RgbImage};
    use tfr_core::crafted::FeatureValue::{Bytes, Floats, Ints};
    let png = |raw: &[u8], w: u32, h: u32, colour: image::ExtendedColorType| {
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new(&mut out)
            .write_image(raw, w, h, colour)
            .unwrap();
        out
    };
    let picture = RgbImage::from_pixel(16, 16, image::Rgb([0, 0, 0]));
    let mask = GrayImage::from_fn(16, 16, |x, _| Luma([if x < 8 { 1 } else { 0 }]));
    let record = tfr_core::crafted::example(&[
        (
            "image/encoded",
            Bytes(vec![png(
                picture.as_raw(),
                16,
                16,
                image::ExtendedColorType::Rgb8,
            )]),
        ),
        ("image/object/bbox/xmin", Floats(vec![0.0])),
        ("image/object/bbox/xmax", Floats(vec![0.5])),
        ("image/object/bbox/ymin", Floats(vec![0.0])),
        ("image/object/bbox/ymax", Floats(vec![1.0])),
        ("image/object/class/label", Ints(vec![2])),
        (
            "image/object/mask",
            Bytes(vec![png(
                mask.as_raw(),
                16,
                16,
                image::ExtendedColorType::L8,
            )]),
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("masks.tfrecord");
    std::fs::write(&path, tfr_core::crafted::encode_records(&[&record])).unwrap();
    let mut app = open(&path);
    let colour = tfr_core::image::overlay::PALETTE[2];
    let half = colour.map(|c| c / 2);
    let masked = app.preview_info.masked.clone().expect("a tinted picture");
    assert_eq!(masked.get_pixel(4, 8).0, half);
    assert_eq!(masked.get_pixel(12, 8).0, [0, 0, 0]);
    let area = app.panes().preview.unwrap();
    assert!(cells_in(&render(&app), area, half) > 10);
    press(&mut app, 'b');
    assert_eq!(cells_in(&render(&app), area, half), 0);
}

#[test]
fn an_image_too_large_to_show_is_a_note_and_a_large_one_is_reduced() {
    use tfr_core::crafted::{FeatureValue::Bytes, encode_records, example, zero_png};
    use tfr_inspect::tui::app::Effect;
    // 268 MB decoded: not decoded at all. 8200x10: decoded, and kept at 4096 pixels wide.
    let huge = example(&[("image/encoded", Bytes(vec![zero_png(16384, 16383)]))]);
    let wide = example(&[("image/encoded", Bytes(vec![zero_png(8200, 10)]))]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.tfrecord");
    std::fs::write(&path, encode_records(&[&huge, &wide])).unwrap();
    let mut app = open(&path);
    // A record this large is decoded on a worker thread.
    app.finish_decoding();
    let note =
        "not decoded: 16384x16383 is 268.4 megapixels, over the 50 an image is decoded to be shown";
    let why = app.preview.clone().unwrap().unwrap_err();
    assert!(!why.is_broken(), "{why}");
    assert_eq!(why.reason(), note);
    let area = app.panes().preview.expect("a preview pane");
    let buf = render(&app);
    let pane = text_of(&buf, area);
    assert!(pane.contains("image (not shown)"), "{pane}");
    assert!(pane.contains("268.4 megapixels"), "{pane}");
    // A note, not damage: nothing red, nothing marked.
    assert!(
        area.positions()
            .filter_map(|p| buf.cell(p))
            .all(|c| c.fg != Color::Red),
        "{pane}"
    );
    assert!(!text_of(&buf, app.panes().list).contains("undecodable"));
    press(&mut app, 'i');
    assert_eq!(app.message, format!("no image to show: {note}"));
    assert_eq!(app.effect, None);

    app.go_to_record(1);
    app.refresh();
    let picture = match &app.preview {
        Some(Ok(picture)) => picture.clone(),
        other => panic!("{other:?}"),
    };
    let (w, h) = picture.pixels.dimensions();
    assert_eq!(w, 4096);
    assert_eq!(picture.size, (8200, 10));
    assert_eq!(
        picture.description,
        format!(
            "PNG 8200x10 gray, {} bytes, reduced to 4096x{h}",
            zero_png(8200, 10).len()
        )
    );
    // The full-size view shows the reduced pixels, not a decode of its own.
    press(&mut app, 'i');
    match app.effect.take() {
        Some(Effect::ShowImage(shown)) => assert_eq!(shown.pixels.dimensions(), (4096, h)),
        other => panic!("{other:?}"),
    }
}
