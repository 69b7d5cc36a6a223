//! The wire walker, schema-less and as tf.train.Example, plus validation and the text and JSON
//! views that are rendered from its spans.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfr_inspect::payload::{Decoder, Reading};
use tfr_inspect::schema::Schema;
use tfr_inspect::{decode, jsonformat, textformat, wire};

fn decoder() -> &'static Decoder {
    static DECODER: OnceLock<Decoder> = OnceLock::new();
    DECODER.get_or_init(|| Decoder::new(Schema::builtin(), Reading::Auto))
}

fuzz_target!(|data: &[u8]| {
    let decoder = decoder();
    let raw = wire::walk(data, None);
    let _ = raw.is_clean();
    let _ = textformat::raw_message_to_text(data, &raw);
    let typed = wire::walk(data, Some(decoder.schema.example()));
    let _ = decode::validate(data, &typed);
    let _ = wire::walk(data, Some(decoder.schema.sequence_example()));

    let decoded = decoder.decode(data);
    if let Some(message) = decoded.typed() {
        let _ = textformat::message_to_text(&message);
        let _ = jsonformat::message_to_json(&message).to_string_sorted();
    } else {
        let _ = textformat::bytes_to_text(data);
        let _ =
            jsonformat::raw_payload_json(data, decoder.parses_as_example(data)).to_string_sorted();
    }
});
