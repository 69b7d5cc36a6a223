//! tensorflow-datasets `features.json` as whatever bytes: parsed with a labels file of whatever
//! bytes for every ClassLabel feature, then used to word an Example (the record's bytes fuzzed
//! too) and to find its images and boxes. Nothing may panic, and the text written must hold no
//! character a terminal would act on.
//!
//! Input: `features.json` bytes, a 0 byte, the labels file's bytes, a 0 byte, the payload's bytes
//! (a small Example of the usual feature names when absent).
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use tfr_core::dataset::features::{self, FeatureSpecs, Labels};
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_core::{escape, example, image};

fn decoder() -> &'static Decoder {
    static DECODER: OnceLock<Decoder> = OnceLock::new();
    DECODER.get_or_init(|| Decoder::new(Schema::builtin(), Reading::Auto))
}

fn field(number: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![(number << 3) | 2];
    let mut n = body.len();
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out.extend_from_slice(body);
    out
}

/// `label` 2, `grid` nine 0/1 ints, `objects/bbox` two boxes, `objects/fragile` [1, 0],
/// `caption` "parcel", `image` 4 bytes.
fn example() -> &'static [u8] {
    static EXAMPLE: OnceLock<Vec<u8>> = OnceLock::new();
    EXAMPLE.get_or_init(|| {
        let ints = |v: &[u8]| field(3, &field(1, v));
        let floats = |v: &[f32]| {
            let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
            field(2, &field(1, &bytes))
        };
        let bytes = |v: &[u8]| field(1, &field(1, v));
        let entries: Vec<(&[u8], Vec<u8>)> = vec![
            (b"label", ints(&[2])),
            (b"grid", ints(&[0, 1, 1, 0, 1, 0, 1, 1, 1])),
            (b"objects/bbox", floats(&[0.1, 0.2, 0.5, 0.6, 0.3, 0.3, 0.9, 0.9])),
            (b"objects/fragile", ints(&[1, 0])),
            (b"caption", bytes(b"parcel")),
            (b"image", bytes(b"\x89PNG")),
        ];
        let map: Vec<u8> = entries
            .iter()
            .flat_map(|(k, v)| field(1, &[field(1, k), field(2, v)].concat()))
            .collect();
        field(1, &map)
    })
}

fn assert_terminal_safe(text: &str) {
    assert!(
        !text.chars().any(|c| c != '\n' && escape::is_unsafe(c)),
        "raw control in {text:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == 0);
    let json = parts.next().unwrap_or_default();
    let labels_bytes = parts.next().unwrap_or_default();
    let payload = parts.next().filter(|p| !p.is_empty()).unwrap_or(example());
    let labels = Arc::new(Labels::parse(labels_bytes).0);
    let Ok(specs) = FeatureSpecs::parse(json, &mut |_| Arc::clone(&labels)) else {
        return;
    };
    let decoder = decoder();
    let decoded = decoder.decode(payload);
    if let Some(typed) = decoded.typed(payload, decoder.table()) {
        let mut out = Vec::new();
        if features::write_example(&mut out, "record 0", &typed, &specs).is_ok() {
            assert_terminal_safe(&String::from_utf8_lossy(&out));
        }
        for feature in example::top_features(&typed).iter() {
            if let Some(text) = features::describe(&specs, feature.key, &feature.values) {
                assert_terminal_safe(&text);
            }
        }
    }
    let view = decoded.view(payload, decoder.table());
    let found = image::found::images_in(&view, Some(&specs));
    for image in &found.images {
        assert_terminal_safe(&image.name);
        if let Some(overlay) = found.overlay_of(image) {
            for class in &overlay.classes {
                assert_terminal_safe(&class.name);
            }
        }
    }
});
