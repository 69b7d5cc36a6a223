//! The scriptable subcommands. Each takes its arguments and a writer, and returns the exit status,
//! so tests can run them without a process.

pub mod dataset;
pub mod hex;
pub mod images;
pub mod index;
pub mod list;
pub mod locate;
pub mod quiz;
pub mod records;
pub mod salvage;
pub mod show;
pub mod stats;
pub mod teach;
pub mod verify;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use crate::error::Error;
use crate::hint::UserMessage;
use crate::input::OpenOptions;
use crate::payload::{Decoder, Reading};
use crate::schema::Schema;
use crate::source::ReadOptions;

pub use crate::status::Status;

#[derive(Debug, Parser)]
#[command(
    name = "tfr-inspect",
    version,
    about = "Open TFRecord files and see, byte by byte, what is inside them.",
    long_about = "Open TFRecord files and see, byte by byte, what is inside them.\n\n\
        With files and no subcommand, opens the interactive inspector (or prints `list` when\n\
        stdout is not a terminal). Record numbers are 0-based frame indices, as `list` shows them.\n\n\
        Exit status: 0 all intact, 1 damage found, 2 input unusable.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Files to open in the interactive inspector.
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub decode: DecodeArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One line per frame: offset, length, CRC verdicts, payload kind and a summary.
    List(list::ListArgs),
    /// Decoded records as a readable tree, protobuf text format, or canonical JSON.
    Show(show::ShowArgs),
    /// Annotated bytes of one frame: every tag, varint, length prefix and value, explained.
    Hex(hex::HexArgs),
    /// Check both CRCs of every frame and that the file ends on a frame boundary.
    Verify(verify::VerifyArgs),
    /// Explain TensorFlow's "corrupted record at N" / "truncated record at N" for this file.
    Locate(locate::LocateArgs),
    /// Copy every intact record into a new TFRecord file that TensorFlow reads without error.
    Salvage(salvage::SalvageArgs),
    /// The record index `tfrecord2idx` writes (`offset length` per record), or `--check` an existing one.
    Index(index::IndexArgs),
    /// Per-feature statistics of a file, shard set or dataset, per split side by side.
    Stats(stats::StatsArgs),
    /// Quiz on one record: each tag, length and value with its meaning hidden, answered on
    /// standard input, checked, and derived when the answer is wrong.
    Quiz(quiz::QuizArgs),
    /// Write the images of chosen records as files: encoded ones as stored, raw pixels as PNG,
    /// `--boxes` with boxes and class names drawn.
    Images(images::ImagesArgs),
}

/// How payloads are decoded (shared by every subcommand).
#[derive(Debug, Clone, Default, Args)]
pub struct DecodeArgs {
    /// A .proto file describing the payload type (repeatable): a path, or as protoc takes it,
    /// a path under a --proto-path directory. Without -I, imports resolve next to it.
    #[arg(long = "proto", value_name = "FILE.proto", global = true)]
    pub protos: Vec<PathBuf>,
    /// A directory imports are resolved against, as protoc's -I (repeatable).
    #[arg(short = 'I', long = "proto-path", value_name = "DIR", global = true)]
    pub proto_path: Vec<PathBuf>,
    /// A binary FileDescriptorSet, as `protoc --include_imports -o FILE` writes one (repeatable).
    #[arg(long = "descriptor-set", value_name = "FILE", global = true)]
    pub descriptor_sets: Vec<PathBuf>,
    /// Decode a bytes field as a message in the readable views, e.g.
    /// `--field-type my.pkg.Record.blob=my.pkg.Blob` (repeatable).
    #[arg(long = "field-type", value_name = "pkg.Type.field=pkg.Type", value_parser = parse_field_type, global = true)]
    pub field_types: Vec<(String, String)>,
    /// Decode payloads as this message type, e.g. `my.pkg.Record` (default: detect per record).
    #[arg(long, value_name = "pkg.Type", global = true)]
    pub message: Option<String>,
    /// Do not decode payloads: show them as bytes.
    #[arg(long, global = true, conflicts_with = "message")]
    pub raw: bool,
    /// Compression of the inputs: auto (detect GZIP/ZLIB from the first bytes), none, gzip, zlib.
    #[arg(
        long,
        value_name = "auto|none|gzip|zlib",
        default_value = "auto",
        global = true
    )]
    pub compression: crate::compress::Mode,
    /// Refuse to decompress an input to more than this many bytes, or to read more than this
    /// from a pipe (K, M, G suffixes; default 8G; exactly this many is allowed).
    #[arg(long, value_name = "BYTES", value_parser = crate::compress::parse_size, global = true)]
    pub max_decompressed: Option<u64>,
}

/// `pkg.Type.field=pkg.Type` split at the `=`.
fn parse_field_type(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((path, message)) if !path.is_empty() && !message.is_empty() => {
            Ok((path.to_string(), message.to_string()))
        }
        _ => Err(format!("expected pkg.Type.field=pkg.Type, got `{text}`")),
    }
}

impl DecodeArgs {
    pub fn decoder(&self) -> Result<Decoder, Error> {
        let sources = tfr_core::schema::Sources {
            protos: self.protos.clone(),
            include: self.proto_path.clone(),
            descriptor_sets: self.descriptor_sets.clone(),
            message: self.message.clone(),
            field_types: self.field_types.clone(),
        };
        let schema = Schema::from_sources(&sources)?;
        let reading = match (self.raw, schema.user_message()) {
            (true, _) => Reading::Raw,
            (false, Some(message)) => Reading::As(message),
            (false, None) => Reading::Auto,
        };
        Ok(Decoder::new(schema, reading))
    }

    /// How input files are read: compression and the decompression limit.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            mode: self.compression,
            limit: self
                .max_decompressed
                .unwrap_or(crate::compress::DEFAULT_LIMIT),
        }
    }

    /// Everything that opening an input needs, from these arguments (fails on a bad schema).
    pub fn open_options(&self) -> Result<OpenOptions, Error> {
        Ok(OpenOptions {
            read: self.read_options(),
            decoder: self.decoder()?,
        })
    }
}

/// A JSON number from anything that displays as one (a count, a [`crate::span::FileOffset`]).
pub fn json_number(n: impl std::fmt::Display) -> crate::jsonformat::Json {
    crate::jsonformat::Json::Literal(n.to_string())
}

/// Whether to colour output written to stdout.
pub fn use_colour() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
}

/// Reports an input that could not be used (with the flag that helps, for a core error), and
/// returns the status for it.
pub fn report_unusable(err: &(impl UserMessage + ?Sized)) -> Status {
    print_error(&err.user_message());
    Status::Unusable
}

/// Prints an error on stderr as one line, with anything a file put in it escaped.
///
/// Core errors escape the names they hold already; escaping the whole line again changes nothing
/// there (escaped text holds no control character), and covers messages that quote a path or a
/// value without escaping it.
pub fn print_error(err: &dyn std::fmt::Display) {
    eprintln!(
        "tfr-inspect: {}",
        crate::escape::for_terminal(&err.to_string())
    );
}

/// Runs a parsed subcommand, writing to `out`.
pub fn run(command: &Command, decode: &DecodeArgs, out: &mut impl Write) -> Result<Status> {
    let open = match decode.open_options() {
        Ok(open) => open,
        Err(e) => return Ok(report_unusable(&e)),
    };
    match command {
        Command::List(args) => list::run(args, &open, out),
        Command::Show(args) => show::run(args, &open, std::io::stdout().is_terminal(), out),
        Command::Hex(args) => hex::run(args, &open, out, use_colour()),
        Command::Verify(args) => verify::run(args, &open, out),
        Command::Locate(args) => locate::run(args, &open, out),
        Command::Salvage(args) => salvage::run(args, &open, out),
        Command::Index(args) => index::run(args, &open.read, out),
        Command::Stats(args) => stats::run(args, &open, out),
        Command::Images(args) => images::run(args, &open, out),
        Command::Quiz(args) => {
            let stdin = std::io::stdin();
            let mut answers = quiz::Answers {
                echo: !stdin.is_terminal(),
                lines: stdin.lock(),
            };
            quiz::run(args, &open, &mut answers, out)
        }
    }
}
