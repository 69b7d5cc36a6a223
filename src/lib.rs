//! tfr-inspect: TFRecord files opened byte by byte.
//!
//! The core is pure: bytes in, frames, spans and values out. [`frame`] finds and checks record
//! frames, [`wire`] walks protobuf payloads into spans, [`schema`] names them, and the views
//! ([`textformat`], [`jsonformat`], [`annotate`], [`example`]) present them. The CLI and the TUI
//! only call into these.

pub mod annotate;
pub mod cli;
pub mod compress;
pub mod crc;
pub mod damage;
pub mod decode;
pub mod error;
pub mod example;
pub mod frame;
pub mod image;
pub mod jsonformat;
pub mod payload;
pub mod pyfmt;
pub mod recover;
pub mod schema;
pub mod source;
pub mod span;
pub mod textformat;
pub mod tui;
pub mod wire;
pub mod words;
