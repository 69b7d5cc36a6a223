//! The wire walker, schema-less and as each registered payload type's message, plus validation
//! and the views rendered from its tree: the payload type's summary, text and tree, JSON, and the
//! annotated hex.
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
    // Every registered payload type's message, walked and checked.
    for name in tfr_core::payload::BUILTIN.iter().filter_map(|ty| ty.message()) {
        let typed = wire::walk(data, table, decoder.schema.message(name));
        let _ = decode::validate(Parsed::new(&typed, data, table));
    }

    let decoded = decoder.decode(data);
    // What every view asks the payload's type.
    let view = decoded.view(data, table);
    let _ = view.summary();
    let _ = view.text();
    let _ = view.write_tree("record 0", &mut std::io::sink());
    let _ = view.image_candidates(256);
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
