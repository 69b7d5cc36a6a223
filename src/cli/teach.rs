//! `hex` for learning the wire format: under each token how its meaning is obtained and which
//! encoding rules it stretches (`--explain`, `--notes`), offsets and numbers counted as the
//! MNIST walkthrough counts them (`--radix hex`, `--offsets payload`), and the walkthrough's layout,
//! a hexdump of 16 bytes a line with each line's tokens listed below it (`--dump`).
//!
//! The derivations and notes come from the core ([`tfr_core::explain`], [`tfr_core::rules`]); this
//! module only lays them out.

use std::io::Write;

use clap::{Args, ValueEnum};

use super::palette::colour;
use tfr_core::annotate::{Annotated, Token};
use tfr_core::bytes::ByteSource;
use tfr_core::explain::number::hex_bytes;
use tfr_core::explain::{Explainer, Radix};
use tfr_core::frame::Frame;
use tfr_core::payload::Decoded;
use tfr_core::rules::RuleBook;
use tfr_core::schema::table::Table;
use tfr_core::span::{FileOffset, FileRange};

/// The teaching options of `hex`.
#[derive(Debug, Clone, Default, Args)]
pub struct TeachArgs {
    /// Under each token, how its meaning is obtained (bits, continuation bits, 7-bit groups,
    /// byte order, float fields, the bytes a length covers), and the rule notes.
    #[arg(long)]
    pub explain: bool,
    /// Under each token, only the rule notes: over-long varints, bools not 0 or 1, fields sent
    /// twice, merged messages, replaced oneof members, unknown fields, invalid UTF-8, packing.
    #[arg(long)]
    pub notes: bool,
    /// Write offsets and numbers in decimal or in hexadecimal (0x358), as the MNIST walkthrough does.
    #[arg(long, value_enum, value_name = "dec|hex", default_value_t = RadixArg::Dec)]
    pub radix: RadixArg,
    /// Count offsets from the start of the file or from the start of the payload.
    #[arg(long, value_enum, value_name = "file|payload", default_value_t = Origin::File)]
    pub offsets: Origin,
    /// A hexdump of the frame, 16 bytes a line with 8-digit hex offsets, each line's tokens
    /// listed below it (coloured by token on a terminal).
    #[arg(long)]
    pub dump: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum RadixArg {
    #[default]
    Dec,
    Hex,
}

/// Where offsets are counted from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Origin {
    #[default]
    File,
    Payload,
}

impl TeachArgs {
    /// Whether any teaching option is on (else `hex` prints its plain walkthrough).
    pub fn is_set(&self) -> bool {
        self.explain
            || self.notes
            || self.dump
            || self.radix != RadixArg::Dec
            || self.offsets != Origin::File
    }

    fn radix(&self) -> Radix {
        match self.radix {
            RadixArg::Dec => Radix::Decimal,
            RadixArg::Hex => Radix::Hex,
        }
    }
}

/// Bytes shown for a token before it is elided (as plain `hex` shows them).
const SHOWN: usize = 10;
const HEX_WIDTH: usize = SHOWN * 3 - 1;

/// One frame's walkthrough as the teaching options lay it out.
pub struct Lesson<'a> {
    pub args: &'a TeachArgs,
    pub data: &'a dyn ByteSource,
    pub annotated: &'a Annotated<'a>,
    /// Where offsets count from in the file: the frame's or the payload's first byte.
    pub payload_start: u64,
    pub full: bool,
    pub coloured: bool,
}

impl Lesson<'_> {
    /// Writes the walkthrough.
    pub fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        let radix = self.args.radix();
        let explainer = Explainer::new(self.annotated, self.data, radix);
        let book = (self.args.explain || self.args.notes)
            .then(|| RuleBook::of(self.annotated, radix))
            .flatten();
        let extra = |token: &Token| {
            let mut lines: Vec<String> = Vec::new();
            if self.args.explain {
                lines.extend(
                    explainer
                        .derivation(token)
                        .into_iter()
                        .map(|l| format!("| {l}")),
                );
            }
            if let Some(book) = &book {
                lines.extend(book.notes(token).iter().map(|n| format!("! {n}")));
            }
            lines
        };
        if self.args.dump {
            return self.dump(out, &extra);
        }
        writeln!(out, "{:>10}  {:<HEX_WIDTH$}  meaning", "offset", "bytes")?;
        for token in self.annotated.tokens() {
            let len = token_len(self.data, &token);
            let indent = "  ".repeat(token.depth);
            let (on, off) = self.paint(&token);
            let meaning = self.annotated.meaning_in(&token, radix);
            let offset = self.offset(token.start);
            if self.full && len > SHOWN as u64 {
                for (row, from) in (token.start..token.end).step_by(16).enumerate() {
                    let words = if row == 0 {
                        format!("{indent}{meaning}")
                    } else {
                        String::new()
                    };
                    let at = self.offset(from);
                    let chunk = token_bytes(self.data, &token, from, 16);
                    writeln!(out, "{at:>10}  {on}{:<47}{off}  {words}", hex_bytes(chunk))?;
                }
            } else {
                let shown = elided(self.data, &token);
                writeln!(
                    out,
                    "{offset:>10}  {on}{shown:<HEX_WIDTH$}{off}  {indent}{meaning}"
                )?;
            }
            for line in extra(&token) {
                writeln!(out, "{:>10}  {:<HEX_WIDTH$}  {indent}{line}", "", "")?;
            }
        }
        Ok(())
    }

    /// A file offset as the options count and write it.
    fn offset(&self, at: u64) -> String {
        let radix = self.args.radix();
        match self.args.offsets {
            Origin::File => radix.num(at),
            Origin::Payload => radix.signed(i128::from(at) - i128::from(self.payload_start)),
        }
    }

    fn paint(&self, token: &Token) -> (&'static str, &'static str) {
        if self.coloured {
            (colour(token.role), "\x1b[0m")
        } else {
            ("", "")
        }
    }

    /// The hexdump layout: lines of 16 bytes counted from the frame's (or payload's) first
    /// byte, each followed by the tokens that start on it.
    fn dump(
        &self,
        out: &mut impl Write,
        extra: &dyn Fn(&Token) -> Vec<String>,
    ) -> std::io::Result<()> {
        let radix = self.args.radix();
        let mut tokens = self.annotated.tokens().peekable();
        let Some(first) = tokens.peek().map(|t| t.start) else {
            return Ok(());
        };
        let origin = match self.args.offsets {
            Origin::File => first,
            Origin::Payload => self.payload_start,
        };
        let end = self.region_end();
        // The payload's CRC (and anything after it) gets rows of its own, as the header does:
        // the payload's last row ends with its last byte, as `hexdump -C` of the payload does.
        let trailer = self.annotated.trailer_start().filter(|t| *t > origin);
        // Tokens overlapping the current line, for colouring its bytes.
        let mut open: Vec<Token> = Vec::new();
        let mut line_start = first;
        while line_start < end {
            let line_end = match trailer {
                _ if line_start < origin => origin.min(end),
                Some(t) if line_start < t => (line_start + 16).min(end).min(t),
                _ => (line_start + 16).min(end),
            };
            let mut starting: Vec<Token> = Vec::new();
            while let Some(t) = tokens.next_if(|t| t.start < line_end) {
                starting.push(t);
                open.push(t);
            }
            open.retain(|t| t.end > line_start);
            let label = if line_start < origin {
                "  header".to_string()
            } else if trailer.is_some_and(|t| line_start >= t) {
                " trailer".to_string()
            } else {
                format!("{:08x}", line_start - origin)
            };
            self.dump_line(out, &label, line_start, line_end, &open)?;
            for token in &starting {
                let indent = "  ".repeat(token.depth);
                let (on, off) = self.paint(token);
                let meaning = self.annotated.meaning_in(token, radix);
                let shown = elided(self.data, token);
                writeln!(
                    out,
                    "{:>10}{on}{shown:<HEX_WIDTH$}{off}  {indent}{meaning}",
                    ""
                )?;
                for line in extra(token) {
                    writeln!(out, "{:>10}{:<HEX_WIDTH$}  {indent}{line}", "", "")?;
                }
            }
            line_start = line_end;
        }
        Ok(())
    }

    /// The end of the frame's bytes: just past its last token.
    fn region_end(&self) -> u64 {
        self.annotated.tokens().last().map_or(0, |t| t.end)
    }

    /// `00000000  0a e8 06 0a 0e 0a 05 64  65 70 74 68 12 05 1a 03  |.......depth....|`.
    fn dump_line(
        &self,
        out: &mut impl Write,
        label: &str,
        start: u64,
        end: u64,
        open: &[Token],
    ) -> std::io::Result<()> {
        let mut hex = String::new();
        let mut ascii = String::new();
        for (i, at) in (start..start + 16).enumerate() {
            if i == 8 {
                hex.push(' ');
            }
            let byte = (at < end)
                .then(|| {
                    let range = FileRange::at(FileOffset(at), 1)?;
                    self.data.read(range).ok()?.first()
                })
                .flatten();
            let Some(&byte) = byte else {
                hex.push_str("   ");
                continue;
            };
            let token = open.iter().find(|t| t.start <= at && at < t.end);
            let (on, off) = token.map_or(("", ""), |t| self.paint(t));
            hex.push_str(&format!("{on}{byte:02x}{off} "));
            let shown = if byte.is_ascii_graphic() || byte == b' ' {
                char::from(byte)
            } else {
                '.'
            };
            ascii.push_str(&format!("{on}{shown}{off}"));
        }
        writeln!(out, "{label}  {hex} |{ascii}|")
    }
}

/// A token's bytes, the first eight and `…` when there are more than [`SHOWN`] (none when the
/// token runs past the end of the file).
fn elided(data: &dyn ByteSource, token: &Token) -> String {
    let len = token_len(data, token);
    if len > SHOWN as u64 {
        let head = token_bytes(data, token, token.start, SHOWN as u64 - 2);
        format!("{} …", hex_bytes(head))
    } else {
        hex_bytes(token_bytes(data, token, token.start, len))
    }
}

/// How many of the token's bytes are shown: all, or none when it runs past the end of the file.
fn token_len(data: &dyn ByteSource, token: &Token) -> u64 {
    if token.end <= data.len() {
        token.end.saturating_sub(token.start)
    } else {
        0
    }
}

/// Up to `len` bytes of the token from `at` (as many as the token has), read as a range: a
/// token may be a stretch of the file of any length.
pub fn token_bytes<'a>(data: &'a dyn ByteSource, token: &Token, at: u64, len: u64) -> &'a [u8] {
    let end = at.saturating_add(len).min(token.end);
    data.read(FileRange::new(FileOffset(at), FileOffset(end)))
        .unwrap_or_default()
}

/// The rule notes of one decoded record, one line each with where the token is: what
/// `show --notes` prints after the record's tree.
pub fn record_notes(
    data: &dyn ByteSource,
    frame: &Frame,
    decoded: &Decoded,
    table: &Table,
) -> Vec<String> {
    let annotated = Annotated::new(data, frame, Some(decoded), table);
    let Some(book) = RuleBook::of(&annotated, Radix::Decimal) else {
        return Vec::new();
    };
    let base = annotated.payload().map_or(0, |p| p.base());
    let mut lines = Vec::new();
    for token in annotated.tokens() {
        for note in book.notes(&token) {
            lines.push(format!(
                "  ! payload byte {} (file {}) {}: {note}",
                token.start.saturating_sub(base),
                token.start,
                elided(data, &token)
            ));
        }
    }
    lines
}
