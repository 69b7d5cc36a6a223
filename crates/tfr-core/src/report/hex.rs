//! `hex --json`'s model: one frame and every token of its annotation, with its file offsets,
//! nesting depth, role, bytes and meaning (the words of the text walkthrough).

use serde::Serialize;

use super::ser;
use crate::annotate::{Annotated, Role};
use crate::bytes::ByteSource;
use crate::frame::Frame;
use crate::span::{FileOffset, FileRange};

/// A token role's machine name.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Frame => "frame",
        Role::BadCrc => "bad_crc",
        Role::Tag => "tag",
        Role::Length => "length",
        Role::Value => "value",
        Role::Data => "data",
        Role::Unparsed => "unparsed",
    }
}

/// One annotated token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TokenRow {
    /// File offsets, `end` excluded.
    pub start: u64,
    pub end: u64,
    pub depth: usize,
    pub role: &'static str,
    /// The token's bytes as hex digits, without separators.
    pub bytes: String,
    pub meaning: String,
}

/// A frame's annotation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HexReport {
    /// The file's name, escaped for JSON.
    pub file: String,
    pub record: usize,
    #[serde(serialize_with = "ser::offset")]
    pub offset: FileOffset,
    /// The payload's kind (`unreadable` when it cannot be read).
    pub kind: String,
    pub status: &'static str,
    pub tokens: Vec<TokenRow>,
}

impl HexReport {
    /// The tokens of `annotated` (of `frame`, over `data`, whose payload is of `kind`).
    pub fn new(
        file: String,
        frame: &Frame,
        kind: &str,
        data: &dyn ByteSource,
        annotated: &Annotated,
    ) -> HexReport {
        let tokens = annotated
            .tokens()
            .map(|token| {
                // The bytes of a token that runs past the end of the file are not shown.
                let mut bytes = String::new();
                if token.end <= data.len() {
                    let range = FileRange::new(FileOffset(token.start), FileOffset(token.end));
                    for piece in crate::bytes::pieces(data, range) {
                        bytes.push_str(&hex_string(piece.unwrap_or_default()));
                    }
                }
                TokenRow {
                    start: token.start,
                    end: token.end,
                    depth: token.depth,
                    role: role_name(token.role),
                    bytes,
                    meaning: annotated.meaning(&token),
                }
            })
            .collect();
        HexReport {
            file,
            record: frame.index,
            offset: frame.offset,
            kind: kind.to_string(),
            status: frame.status.name(),
            tokens,
        }
    }
}

/// Every byte of `bytes` as two hex digits, without separators.
fn hex_string(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}
