//! tfr-core: TFRecord files opened byte by byte, with no terminal in sight.
//!
//! The core is pure: bytes in, frames, spans and values out. [`frame`] finds and checks record
//! frames, [`wire`] walks protobuf payloads into a flat tree of byte ranges, [`schema`] names
//! them, [`decode`] reads typed values from that tree, and the views ([`textformat`],
//! [`jsonformat`], [`annotate`], [`example`]) present them. The `tfr-inspect` application (its CLI and
//! its inspector) only calls into these; nothing here draws, parses arguments or names a flag.
//!
//! ```
//! use tfr_core::frame::{FrameIndex, write_record};
//! use tfr_core::payload::{Decoder, Reading};
//! use tfr_core::schema::Schema;
//!
//! // features { feature { key: "label" value { int64_list { value: 5 } } } }
//! let example = b"\x0a\x10\x0a\x0e\x0a\x05label\x12\x05\x1a\x03\x0a\x01\x05";
//! let mut file = Vec::new();
//! write_record(example, &mut file).unwrap();
//! file.push(0xff); // a stray byte after the last frame
//!
//! let index = FrameIndex::build(&file);
//! let frames: Vec<_> = index.frames(&file).collect();
//! assert!(frames[0].status.is_intact());
//! assert_eq!(frames[1].status.name(), "partial_header");
//!
//! let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
//! let payload = frames[0].payload(&file).unwrap();
//! let decoded = decoder.decode(payload);
//! assert_eq!(decoded.kind.name(), "Example");
//! let example = decoded.typed(payload, decoder.table()).unwrap();
//! let text = tfr_core::textformat::message_to_text(&example);
//! assert!(text.contains("key: \"label\"") && text.contains("value: 5"));
//! // What `list` says of it, as its payload type words it.
//! let summary = decoded.view(payload, decoder.table()).summary();
//! assert_eq!(summary.line, "1 feature: label");
//! ```

pub mod annotate;
pub mod bytes;
pub mod columns;
pub mod compare;
pub mod compress;
#[cfg(any(test, feature = "test-support"))]
pub mod crafted;
pub mod crc;
pub mod damage;
pub mod dataset;
pub mod decode;
pub mod error;
pub mod escape;
pub mod event;
pub mod example;
pub mod explain;
pub mod filter;
pub mod frame;
pub mod image;
pub mod input;
pub mod jsonformat;
pub mod keytext;
pub mod nested;
pub mod output;
pub mod payload;
pub mod pyfmt;
pub mod pyjson;
pub mod quiz;
pub mod record_index;
pub mod record_number;
pub mod recover;
pub mod report;
pub mod resync;
pub mod rules;
pub mod sample;
pub mod schema;
pub mod search;
pub mod sidefile;
pub mod source;
pub mod span;
pub mod stats;
pub mod summary;
pub mod tensor;
pub mod textformat;
pub mod wire;
pub mod wire_type;
pub mod words;

#[cfg(test)]
mod property_tests;
