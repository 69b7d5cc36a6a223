//! The wire walker, schema-less and as tf.train.Example, plus validation and the text, JSON and
//! annotated-hex views that are rendered from its tree.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfr_core::annotate::PayloadTokens;
use tfr_core::decode::{self, Parsed};
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_core::{jsonformat, textformat, wire};

fn decoder() -> &'static Decoder {
    static DECODER: OnceLock<Decoder> = OnceLock::new();
    DECODER.get_or_init(|| Decoder::new(Schema::builtin(), Reading::Auto))
}

fuzz_target!(|data: &[u8]| {
    let decoder = decoder();
    let table = decoder.table();
    let raw = wire::walk(data, table, None);
    let _ = raw.is_clean();
    let _ = textformat::raw_message_to_text(Parsed::new(&raw, data, table));
    let typed = wire::walk(data, table, Some(decoder.schema.example()));
    let _ = decode::validate(Parsed::new(&typed, data, table));
    let _ = wire::walk(data, table, Some(decoder.schema.sequence_example()));

    let decoded = decoder.decode(data);
    if let Some(message) = decoded.typed(data, table) {
        let _ = textformat::message_to_text(&message);
        let _ = jsonformat::message_to_json(&message);
    } else {
        let _ = textformat::bytes_to_text(data);
        let _ =
            jsonformat::raw_payload_json(data, decoder.parses_as_example(data)).to_string_sorted();
    }
    // Every byte in exactly one token, and each token worded.
    let tokens = PayloadTokens::new(&decoded, data, table, 0);
    let mut next = 0u64;
    for token in tokens.iter() {
        assert_eq!(token.start, next);
        assert!(token.end > token.start);
        next = token.end;
        let _ = tokens.meaning(&token);
    }
    assert_eq!(next, data.len() as u64);
});
