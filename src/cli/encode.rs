//! `encode`: the other direction of `hex --explain`. A value and its type in, the bytes an
//! encoder writes out, with the working by hand (varint groups, zigzag, two's complement, a
//! float's fields, little-endian order); `--tag` works out a tag from its field number and wire
//! type. The working comes from the core ([`tfr_core::explain::encode`]).
//!
//! A whole message, `--message TYPE --text TEXT` (protobuf's text format), is serialized by the
//! core ([`tfr_core::explain::encode_message`]) and shown as `hex --explain` shows a payload, from
//! the same tokens and derivations; `-o FILE` writes it framed as one TFRecord record, a new
//! path written atomically as `salvage` and `filter` write theirs. `--protoscope TEXT` gives the
//! bytes token by token instead, schema-less ([`tfr_core::explain::protoscope`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::teach::{Lesson, TeachArgs};
use super::{Env, Messages, Status};
use tfr_core::annotate::Annotated;
use tfr_core::explain::encode::{self, Encoded, ScalarType};
use tfr_core::explain::encode_message::{self, MAX_TEXT_BYTES};
use tfr_core::explain::number::hex_bytes;
use tfr_core::frame::{FrameIndex, write_record};
use tfr_core::input::OpenOptions;
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::payload::{Decoder, Reading};

#[derive(Debug, Args)]
pub struct EncodeArgs {
    /// The value: a number (decimal or 0x…), true/false, or text for string and bytes.
    #[arg(allow_hyphen_values = true, value_name = "VALUE")]
    pub value: Option<String>,
    /// The field's type: int32, int64, uint32, uint64, sint32, sint64, bool, fixed32, fixed64,
    /// sfixed32, sfixed64, float, double, string, bytes (default: int64 for a number).
    #[arg(long = "type", value_name = "TYPE")]
    pub ty: Option<String>,
    /// Also the tag: field number and wire type (0 to 5, or VARINT, I64, LEN, SGROUP, EGROUP,
    /// I32; taken from --type when a value is given).
    #[arg(long, num_args = 1..=2, value_names = ["FIELD", "WIRETYPE"])]
    pub tag: Option<Vec<String>>,
    /// A whole message of the --message type, in protobuf's text format
    /// (`features { feature { key: "label" value { int64_list { value: 7 } } } }`): its bytes
    /// are shown as `hex --explain` shows a payload. `@FILE` reads the text from FILE, `-` from
    /// standard input (at most 4 MiB, nested at most 64 deep). Map entries are written in key
    /// order, as protobuf's deterministic serialization writes them.
    #[arg(
        long,
        value_name = "TEXT|@FILE|-",
        allow_hyphen_values = true,
        requires = "message",
        conflicts_with_all = ["value", "ty", "tag"]
    )]
    pub text: Option<String>,
    /// Wire bytes written in protoscope's language, schema-less (`1: 150 2: {"hi"} 3: {1: 5}
    /// 4: -2i32`): tags `N:` (wire type inferred, or `N:LEN`…), varints (`150`, `-1`, `3z`
    /// zigzag), `i32`/`i64` fixed-width numbers, floats (`2.5`, `1.5i32`), "strings",
    /// `{ … }` length-prefixed and `N: !{ … }` groups. `@FILE` and `-` as for --text; shown as
    /// `hex` decodes a payload (as --message TYPE when given).
    #[arg(
        long,
        value_name = "TEXT|@FILE|-",
        allow_hyphen_values = true,
        conflicts_with_all = ["value", "ty", "tag", "text"]
    )]
    pub protoscope: Option<String>,
    /// Write the message framed as one TFRecord record (length, masked CRC32C, bytes, masked
    /// CRC32C) to FILE, a new path (`-`: standard output, not a terminal), and show the frame
    /// as `hex --explain FILE` does.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE when it is an existing regular file (never anything else).
    #[arg(long, requires = "output")]
    pub force: bool,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
}

/// What was asked for, or why it cannot be.
fn encode_all(args: &EncodeArgs) -> Result<Vec<(String, Encoded)>, String> {
    let ty = match &args.ty {
        Some(name) => Some(ScalarType::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = ScalarType::ALL.iter().map(|(n, _)| *n).collect();
            format!(
                "--type {name:?} is no scalar type; say one of {}",
                names.join(", ")
            )
        })?),
        None => None,
    };
    let mut parts = Vec::new();
    if let Some(tag) = &args.tag {
        let field = tag
            .first()
            .and_then(|f| f.parse::<u64>().ok())
            .ok_or_else(|| "--tag takes a field number first".to_string())?;
        let wire = match (tag.get(1), ty) {
            (Some(w), _) => encode::parse_wire_type(w).map_err(|e| e.to_string())?,
            (None, Some(ty)) => ty.wire_type(),
            (None, None) if args.value.is_some() => 0,
            (None, None) => {
                return Err("--tag needs a wire type (`--tag 2 LEN`) or a --type".to_string());
            }
        };
        let encoded = encode::tag(field, wire).map_err(|e| e.to_string())?;
        parts.push((format!("tag of field {field}"), encoded));
    }
    if let Some(value) = &args.value {
        let ty = ty.unwrap_or(ScalarType::Int64);
        let encoded = encode::scalar(ty, value).map_err(|e| e.to_string())?;
        parts.push((
            format!("{} {}", ty.name(), tfr_core::escape::for_terminal(value)),
            encoded,
        ));
    }
    if parts.is_empty() {
        return Err(
            "give a value (`encode 300`, `encode --type sint64 -150`) or `--tag FIELD WIRETYPE`"
                .to_string(),
        );
    }
    Ok(parts)
}

pub fn run(
    args: &EncodeArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if args.text.is_some() || args.protoscope.is_some() {
        return encode_message(args, open, env, messages, out);
    }
    if args.output.is_some() {
        messages.error(
            &"-o writes a whole message: give --message TYPE --text TEXT or --protoscope TEXT",
        );
        return Ok(messages.raise(Status::Unusable));
    }
    if decoding_given(&args.decode) {
        messages.error(
            &"the decoding options (--message, --proto…) give the type of a --text message and how it is shown",
        );
        return Ok(messages.raise(Status::Unusable));
    }
    let parts = match encode_all(args) {
        Ok(parts) => parts,
        Err(e) => {
            messages.error(&e);
            return Ok(messages.raise(Status::Unusable));
        }
    };
    let all: Vec<u8> = parts.iter().flat_map(|(_, e)| e.bytes.clone()).collect();
    writeln!(out, "{}", hex_bytes(&all))?;
    for (what, encoded) in &parts {
        writeln!(out, "  {what}: {}", hex_bytes(&encoded.bytes))?;
        for step in &encoded.steps {
            writeln!(out, "  | {step}")?;
        }
    }
    Ok(messages.status())
}

/// Whether any decoding option was given (they only make sense with `--text`).
fn decoding_given(d: &super::DecodeArgs) -> bool {
    d.message.is_some()
        || d.raw
        || !d.protos.is_empty()
        || !d.proto_path.is_empty()
        || !d.descriptor_sets.is_empty()
        || !d.field_types.is_empty()
        || !d.bytes_as.is_empty()
}

/// `--text`'s argument: the text itself, `@FILE`, or `-` for standard input; read as far as
/// the limit of a message's text (one byte more, to know it was passed).
fn read_text(option: &str, arg: &str) -> Result<String, String> {
    let (bytes, from) = if arg == "-" {
        (
            read_bounded(std::io::stdin().lock()).map_err(|e| e.to_string()),
            "standard input".to_string(),
        )
    } else if let Some(file) = arg.strip_prefix('@') {
        let shown = tfr_core::escape::path_for_terminal(Path::new(file));
        // A regular file only (a pipe or device could block or never end), read within the
        // limit, as every side file is.
        let read = tfr_core::sidefile::read(Path::new(file), MAX_TEXT_BYTES as u64 + 1);
        let bytes = match read {
            Ok(side) => Ok(side.bytes),
            Err(tfr_core::sidefile::Unread::TooLarge { .. }) => {
                return Err(too_long(option, &shown));
            }
            Err(why) => Err(why.to_string()),
        };
        (bytes, shown)
    } else {
        return Ok(arg.to_string());
    };
    let bytes = bytes.map_err(|e| format!("{option} {from}: {e}"))?;
    if bytes.len() > MAX_TEXT_BYTES {
        return Err(too_long(option, &from));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{option} {from}: not UTF-8 text (byte {} is not part of a character)",
            e.utf8_error().valid_up_to()
        )
    })
}

fn too_long(option: &str, from: &str) -> String {
    format!(
        "{option} {from}: more than {} MiB, the most a message's text may hold",
        MAX_TEXT_BYTES >> 20
    )
}

fn read_bounded(source: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    source
        .take(MAX_TEXT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The files a run reads (the text's and the schema's): never an output.
fn inputs_of(args: &EncodeArgs, text: &str) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = text
        .strip_prefix('@')
        .map(PathBuf::from)
        .into_iter()
        .collect();
    inputs.extend(args.decode.protos.iter().cloned());
    inputs.extend(args.decode.descriptor_sets.iter().cloned());
    inputs
}

/// What went wrong making the bytes: the error, then lines to show under it.
type Refusal = Vec<String>;

/// `--text TEXT` of the `--message` type: its bytes, the type's name and the argument.
fn from_text<'a>(
    text_arg: &'a str,
    decoder: &Decoder,
) -> Result<(Vec<u8>, Option<String>, &'a str), Refusal> {
    let Reading::As(id) = decoder.reading else {
        return Err(vec![
            "--text needs the message's type: --message pkg.Type".into(),
        ]);
    };
    let name = decoder.schema.message_name(id);
    // A descriptor set's names reach the terminal only through the escaping path.
    let shown = tfr_core::escape::for_terminal(name);
    let Some(desc) = decoder.schema.pool().get_message_by_name(name) else {
        return Err(vec![format!("no message type {shown} in the schema")]);
    };
    let text = read_text("--text", text_arg).map_err(|e| vec![e])?;
    match encode_message::from_text(&desc, &text) {
        Ok(bytes) => Ok((bytes, Some(name.to_string()), text_arg)),
        Err(e) => {
            let (line, caret) = e.pointed(&text);
            Err(vec![format!("--text is no {shown}: {e}"), line, caret])
        }
    }
}

/// `--protoscope TEXT`: the bytes it stands for, and the argument.
fn from_protoscope(text_arg: &str) -> Result<(Vec<u8>, Option<String>, &str), Refusal> {
    let text = read_text("--protoscope", text_arg).map_err(|e| vec![e])?;
    match tfr_core::explain::protoscope::assemble(&text) {
        Ok(bytes) => Ok((bytes, None, text_arg)),
        Err(e) => {
            let (shown, caret) = e.pointed(&text);
            Err(vec![format!("--protoscope: {e}"), shown, caret])
        }
    }
}

/// `--message TYPE --text TEXT` or `--protoscope TEXT`: the bytes, annotated; with `-o`,
/// framed and written.
fn encode_message(
    args: &EncodeArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let decoder = &open.decoder;
    let made = match (&args.text, &args.protoscope) {
        (Some(text), _) => from_text(text, decoder),
        (None, Some(text)) => from_protoscope(text),
        (None, None) => return Ok(Status::Clean),
    };
    let (bytes, name, input) = match made {
        Ok(made) => made,
        Err(lines) => {
            for (i, line) in lines.iter().enumerate() {
                match i {
                    0 => messages.error(line),
                    _ => messages.note(&format_args!("  {line}")),
                }
            }
            return Ok(messages.raise(Status::Unusable));
        }
    };
    let decoded = decoder.decode(&bytes);
    let name = name.unwrap_or_else(|| decoded.kind.name().to_string());
    let name = tfr_core::escape::for_terminal(&name).into_owned();
    let coloured = env.stdout.colour;
    let Some(output) = &args.output else {
        if bytes.is_empty() {
            writeln!(
                out,
                "(0 bytes: the {name} sets no field; a proto3 field at its default is not written)"
            )?;
            return Ok(messages.status());
        }
        writeln!(out, "{}", hex_bytes(&bytes))?;
        let annotated = Annotated::of_payload(&bytes, &decoded, decoder.table());
        writeln!(
            out,
            "{name}, {}:",
            tfr_core::words::plural(bytes.len() as u64, "byte")
        )?;
        write_lesson(&bytes, &annotated, 0, coloured, out)?;
        return Ok(messages.status());
    };
    let inputs = inputs_of(args, input);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let policy = OutputPolicy {
        inputs: &inputs,
        replace_existing: args.force,
        stdout_is_terminal: env.stdout.terminal,
    };
    let mut framed = Vec::new();
    write_record(&bytes, &mut framed)?;
    match policy.check(output) {
        Err(e) => return Ok(messages.unusable(&e)),
        Ok(Destination::Stdout) => {
            out.write_all(&framed)?;
            out.flush()?;
            return Ok(messages.status());
        }
        Ok(Destination::File(path)) => {
            if let Err(e) = write_atomically(&path, &policy, |w| w.write_all(&framed)) {
                return Ok(messages.unusable(&e));
            }
        }
    }
    write_framed(output, &framed, decoder, coloured, out)?;
    Ok(messages.status())
}

/// The walkthrough of the record written, as `hex --explain` prints it from the file.
fn write_framed(
    path: &Path,
    framed: &[u8],
    decoder: &Decoder,
    coloured: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let index = FrameIndex::build(framed);
    let Some(frame) = index.get(framed, 0) else {
        return Ok(());
    };
    let decoded = frame.payload(framed).map(|p| decoder.decode(p));
    let kind = decoded.as_ref().map_or("unreadable", |d| d.kind.name());
    writeln!(
        out,
        "{} record 0: frame at byte 0, {kind} ({})",
        tfr_core::escape::path_for_terminal(path),
        frame.status.name()
    )?;
    let annotated = Annotated::new(framed, &frame, decoded.as_ref(), decoder.table());
    let payload_start = frame.payload_range().map_or(0, |r| r.start.0);
    write_lesson(framed, &annotated, payload_start, coloured, out)
}

fn write_lesson(
    data: &[u8],
    annotated: &Annotated<'_>,
    payload_start: u64,
    coloured: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let teach = TeachArgs {
        explain: true,
        ..TeachArgs::default()
    };
    Lesson {
        args: &teach,
        data: &data,
        annotated,
        payload_start,
        full: false,
        coloured,
    }
    .write(out)
}
