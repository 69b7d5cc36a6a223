//! `hex`: the annotated walkthrough of one frame.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::argv::{RecordArg, RecordNumber, SplitChoice};
use super::palette::colour;
use super::teach::token_bytes;
use super::{Env, Messages, Status};
use tfr_core::annotate::{Annotated, Token};
use tfr_core::bytes::ByteSource;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::report::hex::HexReport;
use tfr_core::span::{FileOffset, FileRange};

#[derive(Debug, Args)]
pub struct HexArgs {
    /// The TFRecord file; or, with a split-wide `-n NAME:N`, a directory, shard files or a
    /// quoted glob pattern (optional with `--compare` when A and B name their files).
    #[arg(required_unless_present = "compare", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The record to annotate (0-based, as `list` numbers frames; -1 is the last). Over a
    /// directory or shard files, NAME:N is record N of split NAME, counted across its shards
    /// (`train:1234`, `validation:-1`); with `--compare`, the record of a side named by its file
    /// alone.
    #[arg(
        short = 'n',
        long = "record",
        value_name = "N|NAME:N",
        default_value = "0",
        allow_negative_numbers = true,
        value_parser = super::argv::parse_record_arg
    )]
    pub record: super::argv::RecordArg,
    /// Set two records side by side: values aligned by field path, what differs on the wire,
    /// and whether parsers see the same message. A and B are each a record number of FILE
    /// (`hex FILE --compare 3 7`), a file whose record `-n` is taken (`hex --compare a.tfrecord
    /// b.tfrecord -n 2`), or FILE:N (`hex --compare a.tfrecord:0 b.tfrecord:5`).
    #[arg(
        long,
        num_args = 2,
        value_names = ["A", "B"],
        allow_negative_numbers = true
    )]
    pub compare: Option<Vec<String>>,
    /// Print every byte of long values (16 per line) instead of eliding them.
    #[arg(long)]
    pub full: bool,
    /// One JSON object: the frame, and every token with its offsets, role, bytes and meaning.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub teach: super::teach::TeachArgs,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
    #[command(flatten)]
    pub bytes: super::BytesView,
}

fn token_range(token: &Token) -> FileRange {
    FileRange::new(FileOffset(token.start), FileOffset(token.end))
}

/// Whether the token's bytes are all in the file (those of one that runs past its end are not
/// shown).
fn token_in_file(data: &dyn ByteSource, token: &Token) -> bool {
    token.end <= data.len()
}

/// Bytes shown in the hex column before a long token is elided.
const SHOWN: usize = 10;
const HEX_WIDTH: usize = SHOWN * 3 - 1;

/// Writes the annotated lines of `tokens` over `data`, each as its `meaning` words it.
pub fn write_tokens(
    out: &mut impl Write,
    data: &dyn ByteSource,
    tokens: impl Iterator<Item = Token>,
    meaning: impl Fn(&Token) -> String,
    full: bool,
    coloured: bool,
) -> std::io::Result<()> {
    let on = |role| {
        if coloured {
            (colour(role), "\x1b[0m")
        } else {
            ("", "")
        }
    };
    for token in tokens {
        // Read a row at a time: a token may be a stretch of the file of any length.
        let len = if token_in_file(data, &token) {
            token_range(&token).len()
        } else {
            0
        };
        let indent = "  ".repeat(token.depth);
        let (on, off) = on(token.role);
        let meaning = meaning(&token);
        if full && len > SHOWN as u64 {
            for (row, offset) in (token.start..token.end).step_by(16).enumerate() {
                let meaning = if row == 0 {
                    format!("{indent}{meaning}")
                } else {
                    String::new()
                };
                let chunk = token_bytes(data, &token, offset, 16);
                writeln!(
                    out,
                    "{offset:>10}  {on}{:<47}{off}  {meaning}",
                    tfr_core::explain::number::hex_bytes(chunk)
                )?;
            }
            continue;
        }
        let shown = if len > SHOWN as u64 {
            let head = token_bytes(data, &token, token.start, SHOWN as u64 - 2);
            format!("{} …", tfr_core::explain::number::hex_bytes(head))
        } else {
            tfr_core::explain::number::hex_bytes(token_bytes(data, &token, token.start, len))
        };
        writeln!(
            out,
            "{:>10}  {on}{shown:<HEX_WIDTH$}{off}  {indent}{meaning}",
            token.start
        )?;
    }
    Ok(())
}

pub fn run(
    args: &HexArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if args.json && args.teach.is_set() {
        messages.error(
            &"hex --json lists tokens; --explain, --notes, --radix, --offsets and --dump shape the text walkthrough only",
        );
        return Ok(messages.raise(Status::Unusable));
    }
    if let Some(specs) = &args.compare {
        return super::hex_compare::run(args, specs, open, env, messages, out);
    }
    if let RecordArg::InSplit(wanted) = &args.record {
        let choice = SplitChoice {
            split: wanted.split.clone(),
            start: wanted.number,
            end: None,
            single: true,
        };
        let files = &args.files;
        let Some(pieces) = super::split_records::pieces(files, &choice, open, messages) else {
            return Ok(messages.status());
        };
        for piece in pieces {
            let Some(mut input) = piece.open_to_print(open, messages) else {
                continue;
            };
            // Standard output stays one JSON object with --json.
            match args.json {
                true => messages.note(&piece.place),
                false => writeln!(out, "{}", piece.place)?,
            }
            let number = RecordNumber::FromStart(piece.start);
            annotate(&mut input, number, args, env.stdout.colour, messages, out)?;
        }
        return Ok(messages.status());
    }
    let Some(file) = super::split_records::one_file(&args.files) else {
        let refused = super::split_records::plain_refused("hex", &args.files);
        return Ok(messages.unusable(&refused));
    };
    let mut input = match Input::open(file, open) {
        Ok(input) => input,
        Err(e) => return Ok(messages.unusable(&e)),
    };
    annotate_record(&mut input, args, env.stdout.colour, messages, out)
}

/// Prints the walkthrough of record `args.record` of `input` (a number within the file): the
/// record number is checked before any payload is decoded.
pub fn annotate_record(
    input: &mut Input,
    args: &HexArgs,
    coloured: bool,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    match &args.record {
        RecordArg::InFile(number) => annotate(input, *number, args, coloured, messages, out),
        RecordArg::InSplit(wanted) => Ok(messages.unusable(&format!(
            "{}: {wanted} is a split-wide number; a file alone has none",
            input.name()
        ))),
    }
}

/// Prints the walkthrough of record `number` of `input`.
fn annotate(
    input: &mut Input,
    number: RecordNumber,
    args: &HexArgs,
    coloured: bool,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let frame = match super::argv::record_index(input, number) {
        Ok(n) => messages.usable(input.frame(n)),
        Err(e) => {
            messages.unusable(&e);
            None
        }
    };
    let Some(frame) = frame else {
        return Ok(messages.status());
    };
    let data = input.data();
    let decoder = input.decoder();
    let decoded = frame.payload(data).map(|p| decoder.decode(p));
    if let Err(e) = input.check_unchanged() {
        return Ok(messages.unusable(&e));
    }
    let kind = decoded.as_ref().map_or("unreadable", |d| d.kind.name());
    let annotated = Annotated::new(data, &frame, decoded.as_ref(), decoder.table());
    if args.json {
        let file = tfr_core::escape::path_for_json(input.source.path());
        let report = HexReport::new(file, &frame, kind, data, &annotated);
        if let Err(e) = input.check_unchanged() {
            return Ok(messages.unusable(&e));
        }
        writeln!(out, "{}", tfr_core::pyjson::to_string(&report)?)?;
    } else {
        // Offsets of a compressed file are in its decompressed stream (as TensorFlow's are).
        let stream = match input.source.compression() {
            Some(c) => format!(
                " of the {}-decompressed stream",
                c.compression.tensorflow_name()
            ),
            None => String::new(),
        };
        writeln!(
            out,
            "{} record {}: frame at byte {}{stream}, {} ({})",
            input.name(),
            frame.index,
            frame.offset,
            kind,
            frame.status.name()
        )?;
        write_walkthrough(args, data, &frame, &annotated, coloured, out)?;
        // Meanings are read from the bytes while printing: a file cut short meanwhile is
        // reported instead of ending the walkthrough as if it were whole.
        if let Err(e) = input.check_unchanged() {
            return Ok(messages.unusable(&e));
        }
    }
    if !frame.status.is_intact() {
        messages.damage();
    }
    Ok(messages.status())
}

/// The text printer: the lesson `--explain` and its kin ask for, or the annotated lines.
fn write_walkthrough(
    args: &HexArgs,
    data: &dyn ByteSource,
    frame: &tfr_core::frame::Frame,
    annotated: &Annotated,
    coloured: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if args.teach.is_set() {
        let lesson = super::teach::Lesson {
            args: &args.teach,
            data,
            annotated,
            payload_start: frame
                .payload_range()
                .map_or(frame.offset.0 + tfr_core::frame::HEADER_LEN, |r| r.start.0),
            full: args.full,
            coloured,
        };
        lesson.write(out)
    } else {
        writeln!(out, "{:>10}  {:<HEX_WIDTH$}  meaning", "offset", "bytes")?;
        write_tokens(
            out,
            data,
            annotated.tokens(),
            |t| annotated.meaning(t),
            args.full,
            coloured,
        )
    }
}
