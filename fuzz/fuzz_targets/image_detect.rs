//! Image detection on arbitrary bytes: magic sniffing, header parsing, raw-shape guessing and the
//! structural checks of `verify --images`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfr_core::image;

fuzz_target!(|data: &[u8]| {
    let _ = image::sniff_format(data);
    let _ = image::encoded_image_info(data);
    let _ = image::describe_bytes(data, false);
    let _ = image::describe_bytes(data, true);
    // A declared (height, width, depth) taken from the first bytes, as a feature would give it.
    let dim = |i: usize| {
        data.get(i..i + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .unwrap_or(0)
    };
    let declared = (data.len() >= 12).then(|| (dim(0), dim(4), dim(8) % 8));
    if let Some(shape) = image::raw_shape(data.len(), declared) {
        let _ = shape.describe();
    }
    let _ = image::raw_shape(data.len(), None);
    let _ = image::check::check_structure(data, declared);
});
