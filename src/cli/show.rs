//! `show`: decoded records as a readable tree, protobuf text format, or canonical JSON.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use clap::{Args, ValueEnum};

use super::elements::{Grouper, Layout, Part};
use super::records::{Handed, Outcome, render_in_order};
use super::{Messages, Status};
use tfr_core::dataset::features::{FeatureSpecs, SpecsBeside};
use tfr_core::dataset::snapshot::Snapshot;
use tfr_core::dataset::snapshot::element::{self, Placed};
use tfr_core::frame::Frame;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::jsonformat::{RawPayload, write_message, write_plain_example};
use tfr_core::payload::{Decoded, Decoder, Reading};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Feature names, kinds, counts and values; long bytes summarised ("JPEG 320x213").
    Tree,
    /// Protobuf text format, as Python's text_format prints it.
    Text,
    /// One line of canonical protobuf JSON per record, as Python's json_format prints it.
    Json,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The TFRecord file; or, with a split-wide `-n NAME:N` or `--range NAME:A..B`, a
    /// directory, shard files or a quoted glob pattern.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub records: super::argv::RecordChoice,
    #[command(flatten)]
    pub view: View,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
    #[command(flatten)]
    pub bytes: super::BytesView,
}

/// How records are shown: by `show`, and by `head`, `tail` and `sample`, which show theirs.
#[derive(Debug, Clone, Args)]
pub struct View {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Tree)]
    pub format: Format,
    /// One line of canonical JSON per record: `--format json`, as `--json` is in every command.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// With the tree format: after each record, the encoding rules its bytes stretch (over-long
    /// varints, fields sent twice, merged messages, replaced oneof members, unknown fields…).
    #[arg(long)]
    pub notes: bool,
    /// With `--json` (implied): each line `{"file", "index", "offset", "record": {…}}`, the
    /// record's JSON with where it comes from, so lines still match records after damage.
    #[arg(long, conflicts_with = "format")]
    pub envelope: bool,
}

impl View {
    /// `--json` is `--format json`.
    pub fn settle(&mut self) {
        if self.json || self.envelope {
            self.format = Format::Json;
        }
    }
}

/// The records to show of an opened file.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub start: usize,
    /// The record after the last (`None`: to the end of the file).
    pub end: Option<usize>,
    /// Only these records of `start..end`, in order, when not all of them.
    pub only: Option<Vec<usize>>,
    /// One record asked for by number: text format has no `# record N` header.
    pub single: bool,
    /// A `--range` was asked for: when none of it exists, the request cannot be answered.
    pub range_given: bool,
    /// Chosen by split-wide numbers: the split's name and the split-wide number of record
    /// `start`, which `--envelope` adds to each line as `split` and `split_record` (as `list
    /// --json` names them).
    pub in_split: Option<(String, u64)>,
}

impl Selection {
    fn shows(&self, index: usize) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.binary_search(&index).is_ok())
    }
}

/// Opens `file` for showing its records, saying what the decoder notes of it; `None` once the
/// reason it cannot be opened is said.
pub fn open_input(file: &Path, open: &OpenOptions, messages: &Messages) -> Option<Input> {
    let input = messages.usable(Input::open(file, open))?;
    if let Some(note) = &input.decoder().note {
        let note = tfr_core::escape::for_terminal(note);
        messages.note(&format_args!("{}: note: {note}", input.name()));
    }
    Some(input)
}

/// Prints the records `args` selects. On a `terminal`, text format escapes the characters that
/// Python's `text_format` leaves raw but a terminal would act on (still valid text format, see
/// [`tfr_core::pyfmt::text_format_for_terminal`]); piped output stays byte-identical to Python's.
pub fn run(
    args: &ShowArgs,
    open: &OpenOptions,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if let Some(choice) = args.records.in_split() {
        return show_split(args, &choice, open, env, messages, out);
    }
    let Some(file) = super::split_records::one_file(&args.files) else {
        let refused = super::split_records::plain_refused("show", &args.files);
        return Ok(messages.unusable(&refused));
    };
    let Some(mut input) = open_input(file, open, messages) else {
        return Ok(messages.status());
    };
    let (start, end) = match args.records.bounds(&mut input) {
        Ok(bounds) => bounds,
        Err(e) => return Ok(messages.unusable(&e)),
    };
    if args.records.record.is_some()
        && let Err(e) = input.frame(start)
    {
        return Ok(messages.unusable(&e));
    }
    let selection = Selection {
        start,
        end,
        only: None,
        single: args.records.record.is_some(),
        range_given: args.records.range.is_some(),
        in_split: None,
    };
    show(&mut input, file, &args.view, &selection, env, messages, out)
}

/// Prints the records of a split that `choice` numbers, shard by shard, each stretch after a
/// line that says where it is (`train record 17 = shard 00001 record 2: FILE`): in the tree, as
/// it is; in text format, as a `#` comment; with JSON, on standard error, so that standard
/// output stays one JSON value per line.
fn show_split(
    args: &ShowArgs,
    choice: &super::argv::SplitChoice,
    open: &OpenOptions,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let Some(pieces) = super::split_records::pieces(&args.files, choice, open, messages) else {
        return Ok(messages.status());
    };
    for piece in pieces {
        // One shard open at a time; one that cannot be opened is said, with the records it
        // holds, and the rest shown.
        let Some(mut input) = piece.open_to_print(open, messages) else {
            continue;
        };
        if let Some(note) = &input.decoder().note {
            let note = tfr_core::escape::for_terminal(note);
            messages.note(&format_args!("{}: note: {note}", input.name()));
        }
        match args.view.format {
            Format::Tree => writeln!(out, "{}", piece.place)?,
            Format::Text => writeln!(out, "# {}", piece.place)?,
            Format::Json => messages.note(&piece.place),
        }
        let selection = Selection {
            start: piece.start,
            end: Some(piece.end),
            only: None,
            single: choice.single,
            range_given: !choice.single,
            in_split: Some((choice.split.clone(), piece.first)),
        };
        show(
            &mut input,
            &piece.path,
            &args.view,
            &selection,
            env,
            messages,
            out,
        )?;
    }
    Ok(messages.status())
}

/// Prints the records of `input` (opened from `file`) that `selection` chooses, as `view` says.
pub fn show(
    input: &mut Input,
    file: &Path,
    view: &View,
    selection: &Selection,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let (start, end) = (selection.start, selection.end);
    // A sample's records are shown one by one, not gathered into a snapshot's elements.
    let (specs, grouper) = tree_context(file, view.format, messages);
    let grouper = grouper.filter(|_| selection.only.is_none());
    let placing = grouper.as_ref().map(Grouper::shared);
    let mut handing = Handing {
        messages,
        grouper,
        mismatches: 0,
        for_terminal: env.stdout.terminal && view.format == Format::Text,
    };
    let outcome = render_in_order(
        input,
        start,
        end,
        env.progress(true),
        |input, decoder, frame, output| {
            if !selection.shows(frame.index) {
                return None;
            }
            Some(render(
                input,
                decoder,
                frame,
                (view.format, view.notes, view.envelope),
                selection,
                (specs.as_deref(), placing.as_ref()),
                output,
            ))
        },
        out,
        |input, record, output| match record {
            Some(record) => handing.hand(input, record, output),
            None => Handed::AsIs,
        },
    )?;
    let input = &*input;
    handing.note_mismatches(input);
    if let (Some(grouper), Outcome::Done { .. }) = (handing.grouper.as_mut(), &outcome) {
        let mut notes = Vec::new();
        let rest = grouper.finish(input.index.len(), &ShowLayout, &mut notes);
        out.write_all(rest.as_bytes())?;
        note_each(messages, input, notes);
    }
    if handing.grouper.as_ref().is_some_and(|g| g.damaged) {
        messages.damage();
    }
    report_end(input, selection, outcome, messages);
    Ok(messages.status())
}

/// With `--format tree`: the feature specs of a tensorflow-datasets shard (its features.json
/// words the tree) and, for a tf.data snapshot's shard, the grouper that gathers its records into
/// elements. Other formats use neither.
fn tree_context(
    file: &Path,
    format: Format,
    messages: &Messages,
) -> (Option<Arc<FeatureSpecs>>, Option<Grouper>) {
    if format != Format::Tree {
        return (None, None);
    }
    let specs = super::dataset::feature_specs(&mut SpecsBeside::default(), file, messages);
    let snapshot = super::elements::snapshot_of(file, messages);
    (specs, snapshot.map(Grouper::new))
}

/// Says each of `notes` about `input`, as `FILE: note`.
fn note_each(messages: &Messages, input: &Input, notes: impl IntoIterator<Item = String>) {
    for note in notes {
        messages.note(&format_args!("{}: {note}", input.name()));
    }
}

/// What `show` keeps while the rendered records are handed over in order: where notes go, the
/// grouper of a snapshot's shard, and how many records were not the type a file of unknown
/// protobuf was compared with (the first is named, the rest counted).
struct Handing<'m, 'w> {
    messages: &'m Messages<'w>,
    grouper: Option<Grouper>,
    mismatches: u64,
    /// Text format written to a terminal: escaped where Python's would make it act.
    for_terminal: bool,
}

impl Handing<'_, '_> {
    /// Says what rendering `record` found, and hands over its output: gathered into its element
    /// in a snapshot's shard, escaped for a terminal in text format, else as it is.
    fn hand(&mut self, input: &Input, mut record: Rendered, output: &str) -> Handed {
        note_each(self.messages, input, record.notes.drain(..));
        self.messages.raise(record.status);
        if let Some(grouper) = self.grouper.as_mut() {
            let part = Part {
                record: record.index,
                plain: output.to_string(),
                placed: record.placed.take(),
            };
            let mut notes = Vec::new();
            let shown = grouper.push(part, &ShowLayout, &mut notes);
            note_each(self.messages, input, notes);
            return Handed::Instead(shown);
        }
        if let Some(note) = record.mismatch {
            self.mismatches += 1;
            if self.mismatches == 1 {
                note_each(self.messages, input, [note]);
            }
        }
        // The header line holds nothing a terminal would act on.
        if self.for_terminal {
            if let Cow::Owned(safe) = tfr_core::pyfmt::text_format_for_terminal(output) {
                return Handed::Instead(safe);
            }
        }
        Handed::AsIs
    }

    /// After the first record that is not the type compared with (named as it was met): how
    /// many there were in all.
    fn note_mismatches(&self, input: &Input) {
        if self.mismatches > 1 {
            self.messages.note(&format_args!(
                "{}: {} in all are not a valid {} (the first is named above; `show -n N` names \
                 any other's reason)",
                input.name(),
                tfr_core::words::plural(self.mismatches, "record"),
                input.decoder().expected_name()
            ));
        }
    }
}

/// Once the records are shown, through `messages`: the file changed under them, records asked
/// for that do not exist, or a compressed stream that ends damaged.
fn report_end(input: &Input, selection: &Selection, outcome: Outcome, messages: &Messages) {
    let (start, end) = (selection.start, selection.end);
    match outcome {
        Outcome::Changed(e) => {
            messages.unusable(&e);
            return;
        }
        // None of the records asked for exists: as `-n` past the end, an unusable request.
        Outcome::Done { next } if selection.range_given && next <= start => {
            let missing = missing_records((start, end), input.index.len()).unwrap_or_default();
            messages.unusable(&format!("{}: {missing}", input.name()));
        }
        // Some exist: they are shown, and the rest named.
        Outcome::Done { next } if end.is_some_and(|end| next < end) => {
            messages.note(&format_args!(
                "{}: records {next}..{} do not exist (the file has {})",
                input.name(),
                end.unwrap_or(next),
                tfr_core::words::plural(input.index.len() as u64, "frame")
            ));
        }
        Outcome::Done { .. } => {}
    }
    // Records shown up to the end of a compressed stream that ends damaged (cut or corrupt after
    // a whole record): what was shown is all there is, but the file is not whole.
    let reached_end = end.is_none_or(|end| end >= input.index.len());
    if let Some(problem) = input
        .source
        .compression()
        .and_then(|c| c.problem.as_ref())
        .filter(|_| reached_end)
    {
        messages.note(&format_args!(
            "{}: compressed stream damaged: {problem}",
            input.name()
        ));
        messages.damage();
    }
}

/// Why records `start..end` cannot be shown from a file of `count` frames, when none of them
/// exists (`records 9..20 do not exist (the file has 8 frames)`).
pub fn missing_records((start, end): (usize, Option<usize>), count: usize) -> Option<String> {
    if start < count || end.is_some_and(|end| end <= start) {
        return None;
    }
    let range = match end {
        Some(end) => format!("{start}..{end}"),
        None => format!("{start}.."),
    };
    Some(format!(
        "records {range} do not exist (the file has {})",
        tfr_core::words::plural(count as u64, "frame")
    ))
}

/// What rendering one record found besides its output: the notes about it for stderr, and its
/// status.
struct Rendered {
    notes: Vec<String>,
    status: Status,
    /// The record's index, and what it is as a snapshot's component, with its tree as one.
    index: usize,
    placed: Option<(Placed, String)>,
    /// Why a record of unknown protobuf is not the type it was compared with (no type was
    /// asked for): said once per file, not per record.
    mismatch: Option<String>,
}

fn render(
    input: &Input,
    decoder: &Decoder,
    frame: Frame,
    (format, rule_notes, envelope): (Format, bool, bool),
    selection: &Selection,
    (specs, snapshot): (
        Option<&tfr_core::dataset::features::FeatureSpecs>,
        Option<&Arc<Snapshot>>,
    ),
    output: &mut String,
) -> Rendered {
    let data = input.data();
    let mut notes = Vec::new();
    let Some(payload) = frame.payload(data) else {
        return skipped(input, decoder, &frame, snapshot);
    };
    let mut status = Status::Clean;
    if !frame.status.is_intact() {
        status = Status::Damage;
        notes.push(format!(
            "record {} at byte {}: payload CRC mismatch, shown anyway",
            frame.index, frame.offset
        ));
    }
    // A plain Example prints as its tree would, read without one.
    let plain = matches!(format, Format::Json | Format::Text)
        .then(|| decoder.plain_example(payload))
        .flatten();
    if let Some(example) = plain {
        match format {
            Format::Text => {
                write_record_heading(&frame, selection, output);
                tfr_core::textformat::write_plain_example(&example, output);
            }
            _ => write_json_line(input, &frame, selection, envelope, output, |out| {
                write_plain_example(&example, out)
            }),
        }
        return Rendered {
            notes,
            status,
            mismatch: None,
            index: frame.index,
            placed: None,
        };
    }
    let decoded = decoder.decode(payload);
    let mut mismatch = None;
    if let Some(note) = invalid_note(decoder, &decoded, &frame) {
        match decoder.reading {
            Reading::Auto => mismatch = Some(note),
            _ => notes.push(note),
        }
    }
    if format == Format::Text {
        write_record_heading(&frame, selection, output);
    }
    let mut grouped = None;
    // Each rendering is written once, in place: a record can be tens of megabytes.
    match format {
        Format::Text => decoded.view(payload, decoder.table()).write_text(output),
        Format::Json => write_json_line(input, &frame, selection, envelope, output, |out| {
            write_json(decoder, &decoded, payload, out)
        }),
        Format::Tree => {
            grouped = render_tree(
                input,
                decoder,
                &frame,
                (payload, &decoded),
                rule_notes,
                (specs, snapshot),
                output,
            );
        }
    }
    Rendered {
        notes,
        status,
        mismatch,
        index: frame.index,
        placed: grouped,
    }
}

/// Appends the line that starts a record's text format when several records are shown.
fn write_record_heading(frame: &Frame, selection: &Selection, output: &mut String) {
    if !selection.single {
        let _ = writeln!(output, "# record {}", frame.index);
    }
}

/// Appends a record's line of JSON, which `write` appends the record's object to: with
/// `envelope`, inside the object that says where the record comes from.
fn write_json_line(
    input: &Input,
    frame: &Frame,
    selection: &Selection,
    envelope: bool,
    output: &mut String,
    write: impl FnOnce(&mut String),
) {
    if envelope {
        let file = tfr_core::escape::path_for_json(input.data().path());
        let file = tfr_core::pyjson::to_string(&file).unwrap_or_default();
        let _ = write!(
            output,
            "{{\"file\": {file}, \"index\": {}, \"offset\": {}, ",
            frame.index, frame.offset
        );
        if let Some((split, first)) = &selection.in_split {
            let split = tfr_core::pyjson::to_string(split).unwrap_or_default();
            let number = frame.index.saturating_sub(selection.start) as u64;
            let _ = write!(
                output,
                "\"split\": {split}, \"split_record\": {}, ",
                first.saturating_add(number)
            );
        }
        output.push_str("\"record\": ");
    }
    write(output);
    if envelope {
        output.push('}');
    }
    output.push('\n');
}

/// A record whose payload cannot be read: skipped, with why, and damage; in a snapshot's shard,
/// still placed in its element (with nothing to show there).
fn skipped(
    input: &Input,
    decoder: &Decoder,
    frame: &Frame,
    snapshot: Option<&Arc<Snapshot>>,
) -> Rendered {
    let note = super::records::skip_note(input, frame);
    let placed = snapshot
        .and_then(|s| element::place(s, decoder, frame, None))
        .map(|p| (p, String::new()));
    Rendered {
        notes: vec![note],
        status: Status::Damage,
        mismatch: None,
        index: frame.index,
        placed,
    }
}

/// Why a record is not a valid instance of the type it was read as, with where (in its payload
/// and in the file) the decoding stopped.
fn invalid_note(decoder: &Decoder, decoded: &Decoded, frame: &Frame) -> Option<String> {
    let invalid = decoded.invalid.as_ref()?;
    Some(format!(
        "record {}: not a valid {}: {} (payload byte {}, file byte {})",
        frame.index,
        decoder.expected_name(),
        invalid.what(),
        invalid.at(),
        frame
            .offset
            .saturating_add(tfr_core::frame::HEADER_LEN)
            .offset_by(invalid.at())
    ))
}

/// A record as a tree (worded by the dataset's feature specs when it has them), with the rules'
/// notes when asked for; for a snapshot's shard, also where it is placed in its element and the
/// tree it is shown with there.
fn render_tree(
    input: &Input,
    decoder: &Decoder,
    frame: &Frame,
    (payload, decoded): (&[u8], &Decoded),
    rule_notes: bool,
    (specs, snapshot): (
        Option<&tfr_core::dataset::features::FeatureSpecs>,
        Option<&Arc<Snapshot>>,
    ),
    output: &mut String,
) -> Option<(Placed, String)> {
    let mut out = Vec::new();
    let heading = format!(
        "record {}  (offset {}, {} bytes)",
        frame.index,
        frame.offset,
        payload.len()
    );
    let placed = snapshot.and_then(|s| element::place(s, decoder, frame, Some((payload, decoded))));
    // Shown alone, a component still says where it belongs.
    let alone = match &placed {
        Some(p @ Placed { value: Ok(_), .. }) => {
            format!("{heading}  {}", element::whose(p.element, &p.path))
        }
        _ => heading.clone(),
    };
    let example = decoded
        .typed(payload, decoder.table())
        .filter(|m| m.type_name() == "Example");
    let _ = match (specs, example) {
        (Some(specs), Some(example)) => {
            tfr_core::dataset::features::write_example(&mut out, &heading, &example, specs)
        }
        _ => decoded
            .view(payload, decoder.table())
            .write_tree(&alone, &mut out),
    };
    let rules = match rule_notes {
        true => super::teach::record_notes(input.data(), frame, decoded, decoder.table()),
        false => Vec::new(),
    };
    for line in &rules {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    output.push_str(&String::from_utf8_lossy(&out));
    placed.map(|placed| {
        let tree = component_tree(&placed, &heading, decoded, payload, decoder, &rules);
        (placed, tree)
    })
}

/// A record's tree as a component of its element: headed by the component's path, indented
/// under the element's heading.
fn component_tree(
    placed: &Placed,
    heading: &str,
    decoded: &Decoded,
    payload: &[u8],
    decoder: &Decoder,
    rules: &[String],
) -> String {
    let path = match placed.path.as_str() {
        "" => "the element".to_string(),
        path => tfr_core::escape::name_for_terminal(path.as_bytes()).into_owned(),
    };
    let mut out = Vec::new();
    let _ = decoded
        .view(payload, decoder.table())
        .write_tree(&format!("{path}: {heading}"), &mut out);
    let mut tree = String::new();
    for line in String::from_utf8_lossy(&out)
        .lines()
        .chain(rules.iter().map(String::as_str))
    {
        if !line.is_empty() {
            tree.push_str("  ");
        }
        tree.push_str(line);
        tree.push('\n');
    }
    tree
}

/// How `show` writes an element: its heading, then each component's tree.
struct ShowLayout;

impl Layout for ShowLayout {
    fn element(&self, _snapshot: &Snapshot, element: usize, parts: &[Part]) -> String {
        let (first, last) = match (parts.first(), parts.last()) {
            (Some(f), Some(l)) => (f.record, l.record),
            _ => return String::new(),
        };
        let mut out = format!("element {element}  (records {first}..={last})\n");
        for part in parts {
            if let Some((_, tree)) = &part.placed {
                out.push_str(tree);
            }
        }
        out
    }
}

/// The text-format rendering of one payload.
pub fn text_of(decoder: &Decoder, decoded: &Decoded, payload: &[u8]) -> String {
    decoded.view(payload, decoder.table()).text()
}

/// The JSON rendering of one payload.
pub fn json_of(decoder: &Decoder, decoded: &Decoded, payload: &[u8]) -> String {
    let mut out = String::new();
    write_json(decoder, decoded, payload, &mut out);
    out
}

/// Appends the JSON rendering of one payload to `out`.
fn write_json(decoder: &Decoder, decoded: &Decoded, payload: &[u8], out: &mut String) {
    if let Some(typed) = decoded.typed(payload, decoder.table()) {
        return write_message(&typed, out);
    }
    let mut raw = RawPayload::new(payload, decoder.parses_as_example(payload));
    // With --message, also say which type was asked for and that the payload is not one.
    if let Reading::As(message) = &decoder.reading {
        raw = raw.not_a(decoder.schema.message_name(*message));
    }
    // A report of numbers and strings always serialises.
    out.push_str(&tfr_core::pyjson::to_string(&raw).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfr_core::payload::Reading;
    use tfr_core::schema::Schema;

    fn show_text(terminal: bool) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unicode.tfrecord");
        let payload = tfr_core::crafted::example(&[(
            "k\u{9b}2J\u{202e}gpj",
            tfr_core::crafted::FeatureValue::Bytes(vec!["\u{202e}txt.exe\u{2028}".into()]),
        )]);
        let mut file = Vec::new();
        tfr_core::frame::write_record(&payload, &mut file).unwrap();
        std::fs::write(&path, file).unwrap();
        let args = ShowArgs {
            files: vec![path],
            records: crate::cli::argv::RecordChoice {
                record: Some(crate::cli::argv::RecordArg::InFile(
                    crate::cli::argv::RecordNumber::FromStart(0),
                )),
                range: None,
            },
            view: View {
                format: Format::Text,
                json: false,
                notes: false,
                envelope: false,
            },
            decode: Default::default(),
            read: Default::default(),
            bytes: Default::default(),
        };
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let mut out = Vec::new();
        let env = crate::cli::env::Env {
            stdout: crate::cli::env::Stream {
                terminal,
                colour: false,
            },
            ..crate::cli::env::Env::plain()
        };
        let messages = Messages::to(std::io::sink());
        let status = run(&args, &OpenOptions::new(decoder), &env, &messages, &mut out).unwrap();
        assert_eq!(status, Status::Clean);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn text_format_on_a_terminal_escapes_what_python_leaves_raw() {
        // Piped: byte-identical to Python's text_format, which keeps these characters as UTF-8.
        let piped = show_text(false);
        assert!(piped.contains("key: \"k\u{9b}2J\u{202e}gpj\""), "{piped}");
        // A bytes value is escaped byte by byte (octal) in both cases, as Python does.
        assert!(
            piped.contains(r#"value: "\342\200\256txt.exe\342\200\250""#),
            "{piped}"
        );
        // On a terminal: the same strings as octal escapes of their UTF-8 bytes.
        let shown = show_text(true);
        assert!(
            shown.contains(r#"key: "k\302\2332J\342\200\256gpj""#),
            "{shown}"
        );
        assert!(
            shown.contains(r#"value: "\342\200\256txt.exe\342\200\250""#),
            "{shown}"
        );
        assert!(
            !shown
                .chars()
                .any(|c| c != '\n' && tfr_core::escape::is_unsafe(c))
        );
    }
}
