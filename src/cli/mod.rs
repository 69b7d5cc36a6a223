//! The scriptable subcommands. Each takes its arguments and a writer, and returns the exit status,
//! so tests can run them without a process.

pub mod argv;
pub mod count;
pub mod dataset;
pub mod elements;
pub mod encode;
pub mod env;
pub mod export;
pub mod filter;
pub mod guide;
pub mod hex;
pub mod hex_compare;
pub mod images;
pub mod index;
mod index_dir;
pub mod list;
pub mod locate;
pub mod messages;
pub mod palette;
pub mod pick;
pub mod progress;
pub mod quiz;
pub mod records;
pub mod salvage;
pub mod schema;
pub mod show;
pub mod split_records;
pub mod stats;
mod stats_partial;
pub mod tags;
pub mod teach;
pub mod verify;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use tfr_core::error::Error;
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_core::source::ReadOptions;

pub use crate::status::Status;
pub use env::Env;
pub use messages::Messages;

#[derive(Debug, Parser)]
#[command(
    name = "tfr-inspect",
    version,
    about = "Open TFRecord files and see, byte by byte, what is inside them.",
    long_about = "Open TFRecord files and see, byte by byte, what is inside them.\n\n\
        With files and no subcommand, opens the interactive inspector (or prints `list` when\n\
        stdout is not a terminal). Record numbers are 0-based frame indices, as `list` shows them.\n\n\
        Exit status: 0 all intact, 1 damage found, 2 input unusable.",
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  tfr-inspect train.tfrecord                   the inspector\n  tfr-inspect verify data/                     check every shard of a dataset\n  tfr-inspect locate train.tfrecord 775087002  what TensorFlow's \"corrupted record at N\" is\n  tfr-inspect hex train.tfrecord -n 0          one record's bytes, explained"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Files to open in the interactive inspector.
    pub files: Vec<PathBuf>,
    /// When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never. In the
    /// inspector, `never` (or NO_COLOR) draws without colour and keeps the cursor in reverse video.
    #[arg(
        long,
        value_name = "auto|always|never",
        default_value = "auto",
        global = true,
        help_heading = "Options"
    )]
    pub color: ColorChoice,
    #[command(flatten)]
    pub decode: DecodeArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub bytes: BytesView,
}

impl Cli {
    /// The option groups given: the subcommand's, or without one the inspector's (which takes
    /// them all).
    pub fn groups(&self) -> Groups<'_> {
        match &self.command {
            Some(command) => command.groups(),
            None => Groups {
                decode: Some(&self.decode),
                read: Some(&self.read),
                bytes: Some(&self.bytes),
            },
        }
    }
}

/// `--max-bytes`: a count of bytes as `parse_number` reads one.
fn parse_byte_count(text: &str) -> Result<u64, String> {
    tfr_core::words::parse_number(text).map_err(|e| e.to_string())
}

/// `--color`: when output is coloured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always, even through a pipe (`hex --color always | less -R`).
    Always,
    /// Never.
    Never,
}

/// A subcommand's options, defined only when that subcommand runs (or when help, completions or
/// the manual list every subcommand's): defining all of them on every start took a noticeable
/// part of a process that prints one record.
#[derive(Debug, Clone, Default)]
pub struct Deferred<T>(pub T);

impl<T> std::ops::Deref for Deferred<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Deferred<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Args> Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }

    fn augment_args(command: clap::Command) -> clap::Command {
        command.defer(|command| keeping_about(command, T::augment_args))
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        command.defer(|command| keeping_about(command, T::augment_args_for_update))
    }
}

/// `augment` applied to `command` as it would have been applied before the parent was built:
/// the subcommand keeps its own description (the groups its options flatten in bring theirs),
/// and the options the parent propagated to it (`--color`), which it already holds, come after
/// its own, so help, completions and the manual list them as before.
fn keeping_about(
    command: clap::Command,
    augment: fn(clap::Command) -> clap::Command,
) -> clap::Command {
    let about = command.get_about().cloned();
    let long_about = command.get_long_about().cloned();
    let propagated: Vec<clap::Id> = command
        .get_arguments()
        .map(|a| a.get_id().clone())
        .collect();
    let augmented = augment(command);
    let (mut ordered, from_parent): (Vec<clap::Arg>, Vec<clap::Arg>) = augmented
        .get_arguments()
        .cloned()
        .partition(|a| !propagated.contains(a.get_id()));
    ordered.extend(from_parent);
    let mut ordered = ordered.into_iter();
    let kept = |text: Option<clap::builder::StyledStr>| match text {
        Some(text) => clap::builder::Resettable::Value(text),
        None => clap::builder::Resettable::Reset,
    };
    augmented
        .mut_args(|arg| ordered.next().unwrap_or(arg))
        .about(kept(about))
        .long_about(kept(long_about))
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One line per frame: offset, length, CRC verdicts, payload kind and a summary.
    #[command(
        after_help = "Examples:\n  tfr-inspect list train.tfrecord\n  tfr-inspect list 'shards/train-*' --json | head -3\n  tfr-inspect list data/ --color always | less -R"
    )]
    List(Deferred<list::ListArgs>),
    /// How many records each file holds, per split and in all, from the frame index alone
    /// (nothing decoded); damaged frames are named and not counted (exit 1).
    #[command(
        after_help = "Examples:\n  tfr-inspect count train.tfrecord\n  tfr-inspect count data/ --json\n  tfr-inspect count 'gs://bucket/train-*'"
    )]
    Count(Deferred<count::CountArgs>),
    /// Decoded records as a readable tree, protobuf text format, or canonical JSON.
    #[command(
        after_help = "Examples:\n  tfr-inspect show train.tfrecord -n 0\n  tfr-inspect show data/ -n train:1234           record 1234 of split train\n  tfr-inspect show train.tfrecord --range 10..20 --format text\n  tfr-inspect show train.tfrecord --json > records.jsonl"
    )]
    Show(Deferred<show::ShowArgs>),
    /// The first N records (default 10), shown as `show` shows records.
    #[command(
        after_help = "Examples:\n  tfr-inspect head train.tfrecord\n  tfr-inspect head -n 3 train.tfrecord --format text\n  tfr-inspect head -n 100 train.tfrecord --json > first.jsonl"
    )]
    Head(Deferred<pick::EndsArgs>),
    /// The last N records (default 10), shown as `show` shows records.
    #[command(
        after_help = "Examples:\n  tfr-inspect tail train.tfrecord\n  tfr-inspect tail -n 1 train.tfrecord --json"
    )]
    Tail(Deferred<pick::EndsArgs>),
    /// K records drawn uniformly at random (reservoir sampling, in one pass over the frame
    /// index), shown in file order as `show` shows records. `--seed S` draws the same records
    /// again; without it the seed is random and named on standard error.
    #[command(
        after_help = "Examples:\n  tfr-inspect sample 5 train.tfrecord\n  tfr-inspect sample 100 train.tfrecord --seed 7 --json > sample.jsonl"
    )]
    Sample(Deferred<pick::SampleArgs>),
    /// One flat row per record (Example, or a SequenceExample's context) as JSON lines or CSV,
    /// for pandas, jq or a spreadsheet: `file`, `index`, `offset`, then each feature's values.
    #[command(
        after_help = "Examples:\n  tfr-inspect export train.tfrecord > rows.jsonl\n  tfr-inspect export data/ --format csv -o rows.csv\n  tfr-inspect export train.tfrecord --bytes base64 --lists | jq .label"
    )]
    Export(Deferred<export::ExportArgs>),
    /// Write the records an expression matches to a new TFRecord file (or `--count` them): a
    /// predicate over each Example's (or SequenceExample context's) decoded feature values.
    #[command(after_help = FILTER_HELP)]
    Filter(Deferred<filter::FilterArgs>),
    /// Annotated bytes of one frame: every tag, varint, length prefix and value, explained; or
    /// two records side by side (`--compare`).
    #[command(
        after_help = "Examples:\n  tfr-inspect hex train.tfrecord -n 3\n  tfr-inspect hex data/ -n validation:-1\n  tfr-inspect hex train.tfrecord --explain --radix hex --offsets payload\n  tfr-inspect hex train.tfrecord --color always | less -R\n  tfr-inspect hex train.tfrecord --compare 3 7\n  tfr-inspect hex --compare old.tfrecord new.tfrecord -n 0\n  tfr-inspect hex --compare old.tfrecord:0 new.tfrecord:5\n\nWith --compare, rows are marked: = same bytes, ~ same value encoded differently, \u{2260} different value, < only in A, > only in B."
    )]
    Hex(Deferred<hex::HexArgs>),
    /// Check both CRCs of every frame and that the file ends on a frame boundary.
    #[command(
        after_help = "Examples:\n  tfr-inspect verify train.tfrecord\n  tfr-inspect verify data/ --json\n  cat train.tfrecord | tfr-inspect verify -"
    )]
    Verify(Deferred<verify::VerifyArgs>),
    /// Explain TensorFlow's "corrupted record at N" / "truncated record at N" for this file.
    #[command(
        after_help = "Examples:\n  tfr-inspect locate train.tfrecord 775087002\n  tfr-inspect locate train.tfrecord 0x2e32bf9a --json"
    )]
    Locate(Deferred<locate::LocateArgs>),
    /// Copy every intact record into a new TFRecord file that TensorFlow reads without error.
    #[command(
        after_help = "Examples:\n  tfr-inspect salvage damaged.tfrecord -o recovered.tfrecord\n  tfr-inspect salvage damaged.tfrecord -o - > recovered.tfrecord"
    )]
    Salvage(Deferred<salvage::SalvageArgs>),
    /// The record index `tfrecord2idx` writes (`offset length` per record), or `--check` an existing one.
    #[command(
        after_help = "Examples:\n  tfr-inspect index train.tfrecord -o train.idx\n  tfr-inspect index --check train.tfrecord train.idx"
    )]
    Index(Deferred<index::IndexArgs>),
    /// Per-feature statistics of a file, shard set or dataset, per split side by side; per field
    /// of the message with a schema, per run and tag of TensorBoard event files.
    #[command(
        after_help = "Examples:\n  tfr-inspect stats train.tfrecord\n  tfr-inspect stats data/ --json\n  tfr-inspect stats readings.tfrecord --proto reading.proto\n  tfr-inspect stats logs/"
    )]
    Stats(Deferred<stats::StatsArgs>),
    /// The feature spec a reader needs, inferred from every record: each feature's dtype, fixed
    /// or variable length, shape and presence, as a table, the dict `tf.io.parse_single_example`
    /// takes (`--format python`), JSON, or TFDV's `schema.pbtxt`.
    #[command(
        after_help = "Examples:\n  tfr-inspect schema train.tfrecord\n  tfr-inspect schema data/ --format python > spec.py\n  tfr-inspect schema data/ --format tfdv > schema.pbtxt"
    )]
    Schema(Deferred<schema::SchemaArgs>),
    /// Per run of TensorBoard event files, each tag with its kind (scalar, histogram, image,
    /// text, audio, hparams, tensor…), values, first and last step, wall times, and the steps
    /// that went back, as `tensorboard --inspect` shows them.
    #[command(
        after_help = "Examples:\n  tfr-inspect tags logs/\n  tfr-inspect tags logs/ --tag train/loss\n  tfr-inspect tags logs/run1/events.out.tfevents.* --json"
    )]
    Tags(Deferred<tags::TagsArgs>),
    /// Quiz on one record: each tag, length and value with its meaning hidden, and what a parser
    /// keeps where a rule decides it; answered on standard input, checked, and derived.
    #[command(
        after_help = "Examples:\n  tfr-inspect quiz train.tfrecord -n 0\n  tfr-inspect quiz train.tfrecord --from exercise --questions 5"
    )]
    Quiz(Deferred<quiz::QuizArgs>),
    /// A value and its type in, the bytes protobuf writes out, with the working by hand: the
    /// inverse of `hex --explain`. A whole message (`--message TYPE --text TEXT`) is walked
    /// through as `hex --explain` walks through a payload, and `-o` writes it as a record.
    #[command(
        after_help = "Examples:\n  tfr-inspect encode 300\n  tfr-inspect encode --type sint64 -150\n  tfr-inspect encode --type float 25.4\n  tfr-inspect encode --tag 2 LEN\n  tfr-inspect encode --message tensorflow.Example --text 'features { feature { key: \"label\" value { int64_list { value: 7 } } } }'\n  tfr-inspect encode --message my.pkg.Record --proto record.proto --text @record.txtpb -o one.tfrecord\n  tfr-inspect encode --protoscope '1: 150 2: {\"hi\"} 3: {1: 5} 4: -2i32'"
    )]
    Encode(Deferred<encode::EncodeArgs>),
    /// The wire format and the TFRecord frame on one screen: a reference card, each line naming
    /// where a bundled record shows it.
    #[command(after_help = "Examples:\n  tfr-inspect guide")]
    Guide(Deferred<guide::GuideArgs>),
    /// Write the images of chosen records as files: encoded ones as stored, raw pixels as PNG,
    /// `--boxes` with boxes and class names drawn.
    #[command(
        after_help = "Examples:\n  tfr-inspect images train.tfrecord -o out/ -n 17\n  tfr-inspect images data/ -o out/ --range train:0..16\n  tfr-inspect images detection.record -o out/ --range 0..8 --boxes\n  tfr-inspect images train.tfrecord -o out/ --sheet"
    )]
    Images(Deferred<images::ImagesArgs>),
    /// A shell completion script: bash, zsh, fish or powershell.
    #[command(
        after_help = "Examples:\n  tfr-inspect completions bash > ~/.local/share/bash-completion/completions/tfr-inspect\n  tfr-inspect completions zsh > ~/.zfunc/_tfr-inspect\n  tfr-inspect completions fish > ~/.config/fish/completions/tfr-inspect.fish"
    )]
    Completions(Deferred<argv::CompletionsArgs>),
    /// The manual page, in roff.
    #[command(after_help = "Examples:\n  tfr-inspect man > tfr-inspect.1 && man ./tfr-inspect.1")]
    Man(Deferred<argv::ManArgs>),
}

/// `filter --help`'s description of the expression language.
const FILTER_HELP: &str = "\
Expressions:
  label == 3                                    a feature compared with a literal
  image/height > 100 && image/format == \"png\"   && binds tighter than ||; ! negates; ( ) group
  has(image/object/bbox/xmin)                   the feature is present (even with no value)
  len(tokens) >= 512                            how many values it holds (0 when absent)
  \"dog\" in image/object/class/text              a value equals the literal
  `my feature` != -1.5                          a name with other characters, in backquotes

  Comparisons: == != < <= > >=, a feature (or len(…)) on one side, a literal on the other:
  an integer, a float (1.5, 1e3) or a \"string\" (escapes \\\" \\\\ \\n \\t).
  A feature of several values matches when any of its values does; != holds when the feature
  has values and none of them equals the literal. An absent or empty feature matches no
  comparison (!has(f) asks for absence); a string against numbers, or a number against bytes,
  matches nothing. Float features compare in float32 (the literal rounded as TensorFlow
  stores it); int64 features exactly against an integer, in float64 against a float (so
  9007199254740993 == 9007199254740992.0 holds). Strings compare byte by byte.
  Records that are no Example or SequenceExample never match and are counted in a note;
  damaged records are skipped, named and counted (exit 1). A mistake in the expression is
  shown with a caret under its column (exit 2). At most 8192 bytes, nested at most 64 deep.
  A feature name that no record holds (a typo?) is noted on standard error.

Examples:
  tfr-inspect filter 'label == 3' train.tfrecord -o label3.tfrecord
  tfr-inspect filter '\"dog\" in image/object/class/text' 'shards/train-*' -o dogs.tfrecord
  tfr-inspect filter --count 'len(tokens) >= 512' train.tfrecord";

/// How payloads are decoded: the options of every subcommand that decodes records (and of the
/// inspector). A subcommand takes them by flattening this group into its arguments and naming it
/// in [`Command::groups`]; clap refuses them anywhere else.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Decoding")]
pub struct DecodeArgs {
    /// A .proto file describing the payload type (repeatable): a path, or as protoc takes it,
    /// a path under a --proto-path directory. Without -I, imports resolve next to it.
    #[arg(long = "proto", value_name = "FILE.proto")]
    pub protos: Vec<PathBuf>,
    /// A directory imports are resolved against, as protoc's -I (repeatable).
    #[arg(short = 'I', long = "proto-path", value_name = "DIR")]
    pub proto_path: Vec<PathBuf>,
    /// A binary FileDescriptorSet, as `protoc --include_imports -o FILE` writes one (repeatable).
    #[arg(long = "descriptor-set", value_name = "FILE")]
    pub descriptor_sets: Vec<PathBuf>,
    /// Decode a bytes field as a message in the readable views, e.g.
    /// `--field-type my.pkg.Record.blob=my.pkg.Blob`, or every value of a feature,
    /// `--field-type feature:nested=tensorflow.Example` (repeatable).
    #[arg(long = "field-type", value_name = "pkg.Type.field|feature:NAME=pkg.Type", value_parser = parse_field_type)]
    pub field_types: Vec<(String, String)>,
    /// Show the bytes values of these features (or feature lists) as arrays of numbers in the
    /// readable views, e.g. YouTube-8M's quantized `--bytes-as rgb,audio=uint8` (repeatable;
    /// any fixed-width tf.dtypes name, little-endian).
    #[arg(long = "bytes-as", value_name = "FEATURE[,FEATURE…]=DTYPE", value_parser = parse_bytes_as)]
    pub bytes_as: Vec<(Vec<String>, tfr_core::tensor::DType)>,
    /// Decode payloads as this message type, e.g. `my.pkg.Record` (default: detect per record).
    #[arg(long, value_name = "pkg.Type")]
    pub message: Option<String>,
    /// Read every payload without a type, as `protoc --decode_raw` does: field numbers and wire
    /// values, an Example's too.
    #[arg(long, conflicts_with = "message")]
    pub raw: bool,
}

/// `--bytes`: payloads not decoded at all, shown as bytes. Taken by the views of a record's
/// payload (the inspector, list, show, head, tail, sample, hex, quiz), always beside
/// [`DecodeArgs`]; `export` has a `--bytes` of its own (how bytes values are written).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Decoding")]
pub struct BytesView {
    /// Do not decode payloads: show them as bytes.
    #[arg(long = "bytes", conflicts_with_all = ["raw", "message"])]
    pub bytes: bool,
}

/// How inputs are read: compression, limits, and objects named by URL. Every subcommand that
/// reads records takes this group (flattened into its arguments, named in [`Command::groups`]).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Reading")]
pub struct ReadArgs {
    /// Compression of the inputs: auto (detect GZIP/ZLIB from the first bytes, SNAPPY from the
    /// first block), none, gzip, zlib, snappy.
    #[arg(
        long,
        value_name = "auto|none|gzip|zlib|snappy",
        default_value = "auto"
    )]
    pub compression: tfr_core::compress::Mode,
    /// Refuse to decompress an input to more than this many bytes, or to read more than this
    /// from a pipe (K, M, G suffixes; default 8G; exactly this many is allowed).
    #[arg(long, value_name = "BYTES", value_parser = tfr_core::compress::parse_size)]
    pub max_decompressed: Option<u64>,
    /// Read gs://, s3:// and az:// URLs without credentials, signing nothing (public buckets).
    #[arg(long)]
    pub anonymous: bool,
    /// Read at most N bytes of objects named by URL: a read that would pass N is refused
    /// before it starts (exit 2). Counts the objects read, not listings or small side files.
    #[arg(long, value_name = "N", value_parser = parse_byte_count)]
    pub max_bytes: Option<u64>,
    /// Threads that read and summarise files (`verify`, `stats`, indexing): at most N. Default:
    /// one per core.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Requests to object stores in flight at once, across every object a run reads (a single
    /// object takes at most 4 of them). Default: 8.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub connections: Option<u16>,
}

/// The option groups a subcommand takes ([`DecodeArgs`], [`ReadArgs`], [`BytesView`]); `None`
/// where it takes none, so its `--help` does not list them and clap refuses them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Groups<'a> {
    pub decode: Option<&'a DecodeArgs>,
    pub read: Option<&'a ReadArgs>,
    pub bytes: Option<&'a BytesView>,
}

impl<'a> Groups<'a> {
    /// Both groups: a subcommand that reads and decodes records.
    fn both(decode: &'a DecodeArgs, read: &'a ReadArgs) -> Self {
        Groups {
            decode: Some(decode),
            read: Some(read),
            bytes: None,
        }
    }

    /// These groups and [`BytesView`]: a subcommand that shows records' payloads.
    fn viewing(self, bytes: &'a BytesView) -> Self {
        Groups {
            bytes: Some(bytes),
            ..self
        }
    }

    /// Only [`ReadArgs`]: a subcommand that reads frames and decodes no payload.
    fn read(read: &'a ReadArgs) -> Self {
        Groups {
            decode: None,
            read: Some(read),
            bytes: None,
        }
    }

    /// Everything that opening an input needs, from the groups given (the defaults for a group
    /// not taken); fails on a bad schema.
    pub fn open_options(&self) -> Result<OpenOptions, Error> {
        let read = self.read.map(ReadArgs::read_options).unwrap_or_default();
        let bytes = self.bytes.is_some_and(|b| b.bytes);
        let decoder = match self.decode {
            Some(decode) => decode.decoder_showing_bytes(bytes)?,
            None => DecodeArgs::default().decoder()?,
        };
        Ok(OpenOptions { read, decoder })
    }
}

impl Command {
    /// The option groups this subcommand takes. The one place a subcommand declares them, beside
    /// the `#[command(flatten)]` fields of its arguments: the match names every subcommand, so a
    /// new one does not compile until it says which it takes.
    pub fn groups(&self) -> Groups<'_> {
        match self {
            Command::List(a) => Groups::both(&a.decode, &a.read).viewing(&a.bytes),
            Command::Show(a) => Groups::both(&a.decode, &a.read).viewing(&a.bytes),
            Command::Head(a) | Command::Tail(a) => {
                Groups::both(&a.decode, &a.read).viewing(&a.bytes)
            }
            Command::Sample(a) => Groups::both(&a.decode, &a.read).viewing(&a.bytes),
            Command::Export(a) => Groups::both(&a.decode, &a.read),
            Command::Filter(a) => Groups::both(&a.decode, &a.read),
            Command::Hex(a) => Groups::both(&a.decode, &a.read).viewing(&a.bytes),
            // The decoding options need `--images` (clap says so): only it decodes payloads.
            Command::Verify(a) => Groups::both(&a.decode, &a.read),
            Command::Stats(a) => Groups::both(&a.decode, &a.read),
            Command::Quiz(a) => Groups::both(&a.decode, &a.read).viewing(&a.bytes),
            Command::Images(a) => Groups::both(&a.decode, &a.read),
            Command::Count(a) => Groups::read(&a.read),
            Command::Locate(a) => Groups::read(&a.read),
            Command::Salvage(a) => Groups::read(&a.read),
            Command::Index(a) => Groups::read(&a.read),
            Command::Schema(a) => Groups::read(&a.read),
            Command::Tags(a) => Groups::read(&a.read),
            Command::Encode(a) => Groups {
                decode: Some(&a.decode),
                read: None,
                bytes: None,
            },
            Command::Guide(_) => Groups::default(),
            Command::Completions(_) | Command::Man(_) => Groups::default(),
        }
    }
}

/// `rgb,audio=uint8`: feature names and a dtype whose values have a fixed width.
fn parse_bytes_as(text: &str) -> Result<(Vec<String>, tfr_core::tensor::DType), String> {
    let usage =
        || format!("expected FEATURE[,FEATURE…]=DTYPE (e.g. rgb,audio=uint8), got `{text}`");
    let (names, dtype) = text.rsplit_once('=').ok_or_else(usage)?;
    let names: Vec<String> = names.split(',').map(str::to_string).collect();
    if names.iter().any(String::is_empty) {
        return Err(usage());
    }
    match tfr_core::tensor::DType::from_name(dtype) {
        Some(d) if d.width().is_some() => Ok((names, d)),
        Some(_) => Err(format!(
            "{dtype} values have no fixed width; use uint8, int16, float32…"
        )),
        None => Err(format!(
            "`{dtype}` is no tf.dtypes name (uint8, int8, int16, int32, int64, float16, float32, float64…)"
        )),
    }
}

/// `pkg.Type.field=pkg.Type` split at the `=`.
fn parse_field_type(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((path, message)) if !path.is_empty() && !message.is_empty() => {
            Ok((path.to_string(), message.to_string()))
        }
        _ => Err(format!(
            "expected pkg.Type.field=pkg.Type or feature:NAME=pkg.Type, got `{text}`"
        )),
    }
}

impl DecodeArgs {
    /// The decoder these options ask for.
    pub fn decoder(&self) -> Result<Decoder, Error> {
        self.decoder_showing_bytes(false)
    }

    /// [`DecodeArgs::decoder`], or one that decodes nothing when `bytes` ([`BytesView`]).
    pub fn decoder_showing_bytes(&self, bytes: bool) -> Result<Decoder, Error> {
        let sources = tfr_core::schema::Sources {
            protos: self.protos.clone(),
            include: self.proto_path.clone(),
            descriptor_sets: self.descriptor_sets.clone(),
            message: self.message.clone(),
            field_types: self.field_types.clone(),
            bytes_as: self
                .bytes_as
                .iter()
                .flat_map(|(names, dtype)| names.iter().map(|n| (n.clone(), *dtype)))
                .collect(),
        };
        let schema = Schema::from_sources(&sources)?;
        let reading = match (bytes, self.raw, schema.user_message()) {
            (true, _, _) => Reading::Bytes,
            (false, true, _) => Reading::Wire,
            (false, false, Some(message)) => Reading::As(message),
            (false, false, None) => Reading::Auto,
        };
        Ok(Decoder::new(schema, reading))
    }
}

impl ReadArgs {
    /// How input files are read: compression and the decompression limit.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            mode: self.compression,
            limit: self
                .max_decompressed
                .unwrap_or(tfr_core::compress::DEFAULT_LIMIT),
            serve_through: None,
            on_demand: false,
            remote_at_once: tfr_core::source::remote::REMOTE_AT_ONCE,
        }
    }
}

/// Wraps `text` in the SGR sequence `sgr` (e.g. `"31"`, red) when `coloured`.
pub fn paint(text: &str, sgr: &str, coloured: bool) -> String {
    if coloured {
        format!("\x1b[{sgr}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Runs a parsed subcommand in `env`, writing its output to `out` and its messages to `messages`;
/// returns the run's status. The decoding options are settled first: a schema that cannot be
/// used is reported, and nothing is read.
pub fn run(
    command: &Command,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    match command.groups().open_options() {
        Ok(open) => dispatch(command, &open, env, messages, out),
        Err(e) => Ok(messages.unusable(&e)),
    }
}

/// Runs `command` over inputs opened with `open`.
pub fn dispatch(
    command: &Command,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let status = match command {
        Command::List(args) => list::run(args, open, env, messages, out)?,
        Command::Count(args) => count::run(args, open, env, messages, out)?,
        Command::Show(args) => show::run(args, open, env, messages, out)?,
        Command::Head(args) => pick::head(args, open, env, messages, out)?,
        Command::Tail(args) => pick::tail(args, open, env, messages, out)?,
        Command::Sample(args) => pick::sample(args, open, env, messages, out)?,
        Command::Export(args) => export::run(args, open, env, messages, out)?,
        Command::Filter(args) => filter::run(args, open, env, messages, out)?,
        Command::Hex(args) => hex::run(args, open, env, messages, out)?,
        Command::Verify(args) => verify::run(args, open, env, messages, out)?,
        Command::Locate(args) => locate::run(args, open, messages, out)?,
        Command::Salvage(args) => salvage::run(args, open, env, messages, out)?,
        Command::Index(args) => index::run(args, &open.read, env, messages, out)?,
        Command::Stats(args) => stats::run(args, open, env, messages, out)?,
        Command::Schema(args) => schema::run(args, open, messages, out)?,
        Command::Tags(args) => tags::run(args, open, messages, out)?,
        Command::Images(args) => images::run(args, open, env, messages, out)?,
        Command::Completions(args) => argv::completions(args, out)?,
        Command::Man(args) => argv::man(args, out)?,
        Command::Encode(args) => encode::run(args, open, env, messages, out)?,
        Command::Guide(args) => guide::run(args, out)?,
        Command::Quiz(args) => {
            let stdin = std::io::stdin();
            let mut answers = quiz::Answers {
                echo: !env.stdin_terminal,
                lines: stdin.lock(),
            };
            quiz::run(args, open, &mut answers, messages, out)?
        }
    };
    Ok(messages.raise(status))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    /// Each subcommand, arguments it runs with, and whether it decodes payloads and reads
    /// records: what its `--help` must list and clap must accept.
    const TAKES: &[(&str, &[&str], bool, bool, bool)] = &[
        ("list", &["f"], true, true, true),
        ("count", &["f"], false, true, false),
        ("show", &["f"], true, true, true),
        ("head", &["f"], true, true, true),
        ("tail", &["f"], true, true, true),
        ("sample", &["3", "f"], true, true, true),
        ("export", &["f"], true, true, false),
        ("filter", &["label == 1", "f", "--count"], true, true, false),
        ("hex", &["f"], true, true, true),
        ("verify", &["f", "--images"], true, true, false),
        ("locate", &["f", "0"], false, true, false),
        ("salvage", &["f", "-o", "out"], false, true, false),
        ("index", &["f"], false, true, false),
        ("stats", &["f"], true, true, false),
        ("schema", &["f"], false, true, false),
        ("tags", &["f"], false, true, false),
        ("quiz", &["f"], true, true, true),
        ("encode", &["300"], true, false, false),
        ("guide", &[], false, false, false),
        ("images", &["f", "-o", "out"], true, true, false),
        ("completions", &["bash"], false, false, false),
        ("man", &[], false, false, false),
    ];

    /// The long options of a group of arguments.
    fn longs(command: clap::Command) -> Vec<String> {
        command
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect()
    }

    #[test]
    fn each_subcommand_lists_and_accepts_only_its_option_groups() {
        let decoding = longs(DecodeArgs::augment_args(clap::Command::new("d")));
        let reading = longs(ReadArgs::augment_args(clap::Command::new("r")));
        assert!(decoding.contains(&"--proto".to_string()));
        assert!(reading.contains(&"--compression".to_string()));
        let mut cli = Cli::command();
        cli.build();
        let names: Vec<String> = cli
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        let listed: Vec<&str> = TAKES.iter().map(|(n, ..)| *n).collect();
        assert_eq!(names, listed, "every subcommand says what it takes");
        for &(name, args, decodes, reads, views) in TAKES {
            let mut sub = cli.find_subcommand(name).unwrap().clone();
            let help = sub.render_long_help().to_string();
            for (group, takes) in [(&decoding, decodes), (&reading, reads)] {
                for option in group {
                    let listed = help.lines().any(|l| {
                        let l = l.trim_start();
                        l.starts_with(&format!("{option} "))
                            || l == option
                            || l.contains(&format!(", {option}"))
                    });
                    assert_eq!(listed, takes, "`{name} --help` and {option}:\n{help}");
                    let mut argv = vec!["tfr-inspect", name];
                    argv.extend_from_slice(args);
                    argv.push(option);
                    let refused = Cli::try_parse_from(&argv)
                        .is_err_and(|e| e.kind() == ErrorKind::UnknownArgument);
                    assert_eq!(refused, !takes, "{argv:?}");
                }
            }
            // `export --bytes` is its own option (how bytes values are written), not the view.
            if name != "export" {
                let listed = help.contains("\n      --bytes\n");
                assert_eq!(listed, views, "`{name} --help` and --bytes:\n{help}");
                let mut argv = vec!["tfr-inspect", name];
                argv.extend_from_slice(args);
                argv.push("--bytes");
                let refused = Cli::try_parse_from(&argv)
                    .is_err_and(|e| e.kind() == ErrorKind::UnknownArgument);
                assert_eq!(refused, !views, "{argv:?}");
            }
            // What is given reaches the run through `Command::groups`.
            let mut argv = vec!["tfr-inspect", name];
            argv.extend_from_slice(args);
            if decodes {
                argv.extend(["--message", "a.B"]);
            }
            if reads {
                argv.extend(["--compression", "gzip"]);
            }
            let parsed = Cli::try_parse_from(&argv).unwrap();
            let groups = parsed.groups();
            assert_eq!(
                groups.decode.and_then(|d| d.message.as_deref()),
                decodes.then_some("a.B"),
                "{name}"
            );
            assert_eq!(
                groups.read.map(|r| r.compression),
                reads.then_some(tfr_core::compress::Mode::Gzip),
                "{name}"
            );
            if views {
                argv.retain(|a| *a != "--message" && *a != "a.B");
                argv.push("--bytes");
                let parsed = Cli::try_parse_from(&argv).unwrap();
                assert!(parsed.groups().bytes.is_some_and(|b| b.bytes), "{name}");
            }
        }
    }

    #[test]
    fn verify_takes_the_decoding_options_only_with_images() {
        let refused = Cli::try_parse_from(["tfr-inspect", "verify", "f", "--message", "a.B"]);
        assert_eq!(
            refused.map(|_| ()).unwrap_err().kind(),
            ErrorKind::MissingRequiredArgument
        );
    }

    #[test]
    fn the_inspector_takes_every_group() {
        let cli =
            Cli::try_parse_from(["tfr-inspect", "f", "--raw", "--compression", "none"]).unwrap();
        assert!(cli.groups().decode.is_some_and(|d| d.raw));
        // The schema-less walk and no decoding at all exclude each other.
        let both = Cli::try_parse_from(["tfr-inspect", "f", "--raw", "--bytes"]);
        assert_eq!(
            both.map(|_| ()).unwrap_err().kind(),
            ErrorKind::ArgumentConflict
        );
        assert!(
            cli.groups()
                .read
                .is_some_and(|r| r.compression == tfr_core::compress::Mode::None)
        );
    }
}
