//! tfr-inspect: the application over [`tfr_core`], its scriptable subcommands ([`cli`]) and its
//! interactive inspector ([`tui`]).
//!
//! The core's modules are re-exported under their own names, so `tfr_inspect::frame` is
//! `tfr_core::frame`.

pub mod cli;
pub mod hint;
pub mod status;
pub mod tui;

pub use tfr_core::{
    annotate, bytes, compress, crafted, crc, damage, dataset, decode, error, escape, event,
    example, explain, frame, image, input, jsonformat, nested, output, payload, pyfmt, quiz,
    record_index, recover, resync, rules, schema, search, sidefile, source, span, stats, summary,
    tensor, textformat, wire, wire_type, words,
};
