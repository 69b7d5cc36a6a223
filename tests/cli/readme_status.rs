//! The README quotes the inspector's explanation line; it must be what the inspector shows for
//! that byte of the bundled file it names.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::keymap::Action;

#[test]
fn the_readme_explanation_line_is_the_inspectors() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("``@13 ")
        .expect("the README quotes the explanation of byte 13");
    let quote = &readme[start + 2..];
    let quote = &quote[..quote.find("``").unwrap()];
    let quote = quote.replace('\n', " ");
    let quote = quote.trim_end_matches('…');
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mnist_like.tfrecord"
    ));
    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let mut app = App::open(&[path], &OpenOptions::new(decoder)).unwrap();
    app.index_now();
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.set_cursor(13);
    app.refresh();
    let shown = format!("@{} {}", app.view.cursor, app.view.explain);
    assert!(
        shown.starts_with(quote),
        "README: {quote}\ninspector: {}",
        shown
    );
}
