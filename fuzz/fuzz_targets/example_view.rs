//! The Example / SequenceExample view model over whatever the decoder makes of arbitrary bytes.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfr_core::example;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;

fn decoder() -> &'static Decoder {
    static DECODER: OnceLock<Decoder> = OnceLock::new();
    DECODER.get_or_init(|| Decoder::new(Schema::builtin(), Reading::Auto))
}

fuzz_target!(|data: &[u8]| {
    let decoder = decoder();
    let decoded = decoder.decode(data);
    let Some(typed) = decoded.typed(data, decoder.table()) else {
        return;
    };
    let features = example::top_features(&typed);
    let shape = example::declared_shape(&features);
    for feature in features.iter() {
        let _ = feature.values.kind_name();
        let _ = feature.values.single_int();
        assert_eq!(feature.values.spans().count(), feature.values.len());
        let _ = example::values_summary(&feature.values, shape, 8);
    }
    for list in example::feature_lists_of(&typed).iter() {
        for step in list.steps() {
            let _ = example::values_summary(&step.values, None, 4);
        }
    }
});
