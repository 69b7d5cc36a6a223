//! `list`: one line per frame.
//!
//! Frames nested inside a damaged record (a record holding a TFRecord stream) are not rows: the
//! damaged record's row says how many it holds and where.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::dataset::RunExt as _;
use super::elements::{Grouper, Layout, Part};
use super::records::{Handed, Outcome, render_in_order};
use super::{Messages, Status};
use tfr_core::dataset::snapshot::Snapshot;
use tfr_core::dataset::snapshot::element::{self, Placed};
use tfr_core::escape::Untrusted;
use tfr_core::frame::Frame;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::nested::NestedFrames;
use tfr_core::payload::{Decoder, Names};
use tfr_core::summary::{FeatureNames, FrameRow, ListRow, describe_frame_with};
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// TFRecord files to list.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// One JSON object per frame instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
    #[command(flatten)]
    pub bytes: super::BytesView,
}

/// Where the summary column starts in a row of the table (after the split's column, if any).
const SUMMARY_COLUMN: usize = 7 + 2 + 12 + 2 + 10 + 2 + 4 + 2 + 4 + 2 + 18 + 2;

fn verdict(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "ok",
        Some(false) => "BAD",
        None => "-",
    }
}

/// How the rows of one file are written.
#[derive(Clone, Copy)]
struct Rows<'a> {
    /// The file's path as JSON names it.
    file: &'a str,
    split: Option<&'a (Untrusted, u64)>,
    /// The width of the split-wide record numbers' column, titled with the split's name.
    split_width: usize,
    json: bool,
    coloured: bool,
    /// The terminal's width, when writing to one.
    width: Option<usize>,
}

/// Appends one output line for a frame to `out`: a JSON object or a table row. `nested` lists the
/// frames inside a damaged record, already described in its summary; `split` names the shard's
/// split and the split-wide number of its first record, in a dataset.
fn write_row(out: &mut String, rows: &Rows<'_>, row: &FrameRow, nested: Option<&NestedFrames>) {
    write_row_in(out, rows, row, nested, None);
}

/// [`write_row`], a JSON object naming the element and component the record is, when given.
fn write_row_in(
    out: &mut String,
    rows: &Rows<'_>,
    row: &FrameRow,
    nested: Option<&NestedFrames>,
    placed: Option<&Placed>,
) {
    let split_record = rows
        .split
        .map(|(name, first)| (name, first + row.frame.index as u64));
    let report = ListRow {
        nested_frames: nested.map(NestedFrames::counted),
        split: split_record.map(|(name, _)| name.raw()),
        split_record: split_record.map(|(_, number)| number),
        element: placed.map(|p| p.element),
        component: placed.map(|p| p.path.as_str()),
        ..ListRow::new(rows.file, row)
    };
    print_row(out, rows, &report);
}

/// `list`'s one printer of a row: its JSON object, or its line of the table.
fn print_row(out: &mut String, rows: &Rows<'_>, row: &ListRow) {
    if rows.json {
        // A report of numbers and strings always serialises.
        out.push_str(&tfr_core::pyjson::to_string(row).unwrap_or_default());
        out.push('\n');
        return;
    }
    // Written in place, column by column: `list` writes millions of these.
    let f = &row.frame;
    // A damaged frame's row says what is wrong with it.
    let painted = row.problem.is_some() && rows.coloured;
    if painted {
        out.push_str("\x1b[31m");
    }
    let line_start = out.len();
    let mut digits = itoa::Buffer::new();
    if let Some(n) = row.split_record {
        right(out, digits.format(n), rows.split_width);
        out.push_str("  ");
    }
    let lead = out.len() - line_start;
    right(out, digits.format(f.index), 7);
    out.push_str("  ");
    right(out, digits.format(f.offset), 12);
    out.push_str("  ");
    right(out, f.length.map_or("-", |l| digits.format(l)), 10);
    out.push_str("  ");
    left(out, verdict(f.length_crc_ok), 4);
    out.push_str("  ");
    left(out, verdict(f.data_crc_ok), 4);
    out.push_str("  ");
    left(out, row.kind.unwrap_or(f.status), 18);
    out.push_str("  ");
    let summary = row.summary.or(row.problem).unwrap_or_default();
    // On a terminal, as many feature names as its width holds; in a pipe, the summary as is.
    match rows.width {
        Some(width) => {
            let room = width.saturating_sub(lead + SUMMARY_COLUMN).max(20);
            let names = row.feature_names.into_iter().flat_map(Names::iter);
            out.push_str(&tfr_core::summary::fit_names(
                summary,
                row.features,
                names,
                room,
            ));
        }
        None => out.push_str(summary),
    }
    if painted {
        out.push_str("\x1b[0m");
    }
    out.push('\n');
}

/// `text` right-aligned in `width` characters, as `{:>width$}` aligns it.
fn right(out: &mut String, text: &str, width: usize) {
    pad(out, width.saturating_sub(text.chars().count()));
    out.push_str(text);
}

/// `text` left-aligned in `width` characters, as `{:<width$}` aligns it.
fn left(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    pad(out, width.saturating_sub(text.chars().count()));
}

fn pad(out: &mut String, n: usize) {
    const SPACES: &str = "                        ";
    let mut left = n;
    while left > 0 {
        let now = left.min(SPACES.len());
        out.push_str(&SPACES[..now]);
        left -= now;
    }
}

/// Lists `args.files`; damaged rows and counts are red when `coloured`.
pub fn run(
    args: &ListArgs,
    open: &OpenOptions,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let mut run = super::dataset::Run::resolve_reporting(&args.files, messages);
    let files = run.paths();
    for (member, path) in files.iter().enumerate() {
        let mut input = match Input::open(path, open) {
            Ok(input) => input,
            Err(e) => {
                messages.unusable(&e);
                continue;
            }
        };
        let listed = list_file(
            &mut input,
            (&run, member, files.len() > 1),
            args.json,
            env,
            messages,
            out,
        )?;
        if listed {
            if let Some(tally) = run.tallies.get_mut(member) {
                *tally = Some(tally_of(&input));
            }
        }
    }
    run.note_skipped_briefly(messages);
    if run.is_dataset() {
        // `list --json` lines say no type; its summary neither.
        let json = match args.json {
            true => super::dataset::Json::Untyped,
            false => super::dataset::Json::No,
        };
        messages.raise(run.finish(json, super::dataset::SkippedLines::Omitted, out)?);
    }
    Ok(messages.status())
}

/// Lists one file, member `member` of `run` (with a heading naming it when `several` files are
/// listed): its rows and the line that sums it up. False when the file changed while it was read
/// (said through `messages`), so that nothing it held is counted.
fn list_file(
    input: &mut Input,
    (run, member, several): (&super::dataset::Run, usize, bool),
    json: bool,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<bool> {
    let split = run.first_record(member);
    let name = input.name();
    if let Some(note) = run.unnumbered_note(member) {
        // Said, so that the split's column missing from this file's table reads as meant.
        messages.note(&format_args!("{name}: {note}"));
    }
    let split_width = split.as_ref().map_or(0, |(name, _)| {
        tfr_core::words::column_width([tfr_core::words::display_width(&name.shown()), 7])
    });
    if let Some(note) = &input.decoder().note {
        let note = tfr_core::escape::for_terminal(note);
        messages.note(&format_args!("{name}: note: {note}"));
    }
    // JSON escapes what it holds itself.
    let json_name = tfr_core::escape::path_for_json(input.source.path());
    // A tf.data snapshot's shard: its records grouped into elements.
    let mut grouper = run.dataset.grouping(member).map(Grouper::new);
    // In a dataset, a column of split-wide record numbers, titled with the split's name.
    let header = table_header(split.as_ref(), split_width);
    if !json {
        if several {
            let label = run.label(member).map(|l| format!(" ({l})"));
            writeln!(out, "== {name}{}", label.unwrap_or_default())?;
        }
        match &grouper {
            Some(g) => writeln!(out, "{}", super::elements::heading(g.snapshot()))?,
            None => out.write_all(header.as_bytes())?,
        }
    }
    let layout = ListLayout { json, header };
    let rows = Rows {
        file: &json_name,
        split: split.as_ref(),
        split_width,
        json,
        coloured: env.stdout.colour,
        width: env.width,
    };
    let (outcome, intact) = list_records(
        input,
        env.progress(true),
        (feature_names(json, env.width), &rows),
        grouper.as_mut(),
        (&layout, messages),
        out,
    )?;
    if let Outcome::Changed(e) = outcome {
        messages.unusable(&e);
        return Ok(false);
    }
    // The records of an element the shard ends inside, one by one.
    let elements = match grouper.as_mut() {
        Some(grouper) => {
            let mut notes = Vec::new();
            let rest = grouper.finish(input.index.len(), &layout, &mut notes);
            out.write_all(rest.as_bytes())?;
            for note in notes {
                messages.note(&format_args!("{name}: {note}"));
            }
            if grouper.damaged {
                messages.damage();
            }
            elements_text(grouper)
        }
        None => String::new(),
    };
    file_summary(
        out,
        (json, env.stdout.colour),
        input,
        (intact, &elements),
        messages,
    )?;
    Ok(true)
}

/// What a dataset's summary counts of one listed file.
fn tally_of(input: &Input) -> tfr_core::dataset::Tally {
    let compression = input.source.compression();
    let stream_problem = compression.and_then(|c| c.problem.as_ref());
    tfr_core::dataset::Tally {
        compression: compression.map(|c| c.compression),
        ..tfr_core::dataset::Tally::of(&input.index, stream_problem.is_some())
    }
}

/// Whether rows keep the features' names: JSON lists the names, and a terminal's rows fit as many
/// as its width holds; a table written to a pipe prints each summary line as it is.
fn feature_names(json: bool, width: Option<usize>) -> FeatureNames {
    if json || width.is_some() {
        FeatureNames::Kept
    } else {
        FeatureNames::Skipped
    }
}

/// Lists the records of one file in order, gathered into elements when `grouper` is given: the
/// outcome, and how many records were intact.
fn list_records(
    input: &mut Input,
    progress: bool,
    (names, rows): (FeatureNames, &Rows<'_>),
    mut grouper: Option<&mut Grouper>,
    (layout, messages): (&ListLayout, &Messages),
    out: &mut impl Write,
) -> std::io::Result<(Outcome, usize)> {
    let placing = grouper.as_deref().map(Grouper::shared);
    let mut intact = 0usize;
    let mut notes = Vec::new();
    let outcome = render_in_order(
        input,
        0,
        None,
        progress,
        |input, decoder, frame, output| {
            list_frame(
                input,
                decoder,
                frame,
                (names, rows, placing.as_deref()),
                output,
            )
        },
        out,
        |input, (is_intact, record, placed), text| {
            intact += usize::from(is_intact);
            let Some(grouper) = grouper.as_deref_mut() else {
                return Handed::AsIs;
            };
            let part = Part {
                record,
                plain: text.to_string(),
                placed,
            };
            let shown = grouper.push(part, layout, &mut notes);
            for note in notes.drain(..) {
                messages.note(&format_args!("{}: {note}", input.name()));
            }
            Handed::Instead(shown)
        },
    )?;
    Ok((outcome, intact))
}

/// The line that sums up one listed file (unless in JSON; its damaged count red when `coloured`),
/// then through `messages` the notes on its compressed stream and on frames not verified, and its
/// damage.
fn file_summary(
    out: &mut impl Write,
    (json, coloured): (bool, bool),
    input: &Input,
    (intact, elements): (usize, &str),
    messages: &Messages,
) -> std::io::Result<()> {
    let name = input.name();
    let damaged = input.index.damaged_count();
    let compression = input.source.compression();
    if !json {
        let counts = (intact, damaged, elements);
        writeln!(out, "{}", file_line(input, counts, coloured))?;
    }
    if let Some(tail) = compression.and_then(|c| c.ignored.as_ref()) {
        messages.note(&format_args!("{name}: note: {tail}"));
    }
    if let Some(block) = compression.and_then(|c| c.oversized.as_ref()) {
        messages.note(&format_args!("{name}: note: {block}"));
    }
    if let Some(note) = tfr_core::damage::unverified(&input.index) {
        messages.note(&format_args!(
            "{name}: note: {note}; verify --thorough searches them"
        ));
    }
    if let Some(problem) = compression.and_then(|c| c.problem.as_ref()) {
        // Frames decoded before the damage are listed above; the stream itself is damaged.
        messages.note(&format_args!(
            "{name}: compressed stream damaged: {problem}"
        ));
        messages.damage();
    }
    if damaged > 0 {
        messages.damage();
    }
    Ok(())
}

/// Describes one frame and appends its line to `output`; with a snapshot, also the element and
/// component the record is (and its JSON object naming them). Says whether the frame is intact,
/// and its index.
fn list_frame(
    input: &Input,
    decoder: &Decoder,
    frame: Frame,
    (names, rows, snapshot): (FeatureNames, &Rows<'_>, Option<&Snapshot>),
    output: &mut String,
) -> (bool, usize, Option<(Placed, String)>) {
    let mut row = describe_frame_with(input, decoder, frame, names);
    let nested = NestedFrames::find(&input.index, input.data(), &frame);
    if let Some(nested) = &nested {
        row.summary = format!("{}; {}", row.summary, nested.describe());
    }
    write_row(output, rows, &row, nested.as_ref());
    let placed = snapshot.and_then(|snapshot| {
        let payload = frame.payload(input.data());
        let decoded = payload.map(|p| (p, decoder.decode(p)));
        let placed = element::place(
            snapshot,
            decoder,
            &frame,
            decoded.as_ref().map(|(p, d)| (*p, d)),
        )?;
        // JSON names the element and component in each record's object.
        let mut grouped = String::new();
        if rows.json {
            write_row_in(&mut grouped, rows, &row, nested.as_ref(), Some(&placed));
        }
        Some((placed, grouped))
    });
    (frame.status.is_intact(), frame.index, placed)
}

/// The table's header, after a column of split-wide record numbers titled with the split's name
/// in a dataset. `lcrc` and `dcrc` (the length's and the payload's CRC) are the inspector's names.
fn table_header(split: Option<&(Untrusted, u64)>, split_width: usize) -> String {
    let numbers = split.map_or(String::new(), |(name, _)| {
        format!(
            "{}  ",
            tfr_core::words::pad_left_to(&name.shown(), split_width)
        )
    });
    format!(
        "{numbers}{:>7}  {:>12}  {:>10}  {:<4}  {:<4}  {:<18}  summary\n",
        "index", "offset", "length", "lcrc", "dcrc", "kind"
    )
}

/// `; 4 elements of 2 components, 1 record shown alone` after a snapshot shard's counts.
fn elements_text(grouper: &Grouper) -> String {
    let alone = match grouper.ungrouped {
        0 => String::new(),
        n => format!(", {} shown alone", plural(n, "record")),
    };
    format!(
        "; {} of {}{alone}",
        plural(grouper.elements, "element"),
        plural(grouper.snapshot().components() as u64, "component")
    )
}

/// The line that ends a file's table: its frames, intact and damaged (red when `coloured`), and
/// its size, then `elements` (a snapshot shard's, from [`elements_text`]).
fn file_line(
    input: &Input,
    (intact, damaged, elements): (usize, usize, &str),
    coloured: bool,
) -> String {
    let compression = input.source.compression();
    let compressed = compression
        .map(|c| format!("{}; ", c.describe(input.source.len())))
        .unwrap_or_default();
    format!(
        "{}: {compressed}{}, {intact} intact, {}, {}{}{elements}",
        input.name(),
        plural(input.index.len() as u64, "frame"),
        super::paint(&format!("{damaged} damaged"), "31", coloured && damaged > 0),
        plural(input.source.len(), "byte"),
        if compression.is_some() {
            " decompressed"
        } else {
            ""
        }
    )
}

/// How `list` writes an element: one line (`element 3: id int64 3, …`), or in JSON each record's
/// object naming its element and component.
struct ListLayout {
    json: bool,
    /// The table's header, written before the first record listed alone.
    header: String,
}

impl Layout for ListLayout {
    fn element(&self, snapshot: &Snapshot, element: usize, parts: &[Part]) -> String {
        if self.json {
            return parts
                .iter()
                .filter_map(|p| p.placed.as_ref().map(|(_, json)| json.as_str()))
                .collect();
        }
        super::elements::element_line(snapshot, element, parts)
    }

    fn before_plain(&self) -> String {
        if self.json {
            String::new()
        } else {
            self.header.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfr_core::frame::write_record;
    use tfr_core::payload::Reading;
    use tfr_core::schema::Schema;

    /// `list --json` of `file`, run in process.
    fn listed(files: Vec<PathBuf>) -> (Status, Vec<serde_json::Value>) {
        let args = ListArgs {
            files,
            json: true,
            decode: Default::default(),
            read: Default::default(),
            bytes: Default::default(),
        };
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let mut out = Vec::new();
        let env = crate::cli::Env::plain();
        let messages = Messages::to(std::io::sink());
        let status = run(&args, &OpenOptions::new(decoder), &env, &messages, &mut out).unwrap();
        let rows = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        (status, rows)
    }

    /// A row of `list --json` as the typed report holds it, for the table printer.
    fn report<'a>(problem: Option<&'a str>, names: &'a Names) -> ListRow<'a> {
        let damaged = problem.is_some();
        ListRow {
            frame: tfr_core::summary::FrameFacts {
                index: 3,
                offset: 1234,
                length: Some(56),
                length_crc_ok: Some(true),
                data_crc_ok: Some(!damaged),
                status: if damaged { "data_crc_mismatch" } else { "ok" },
                end: 1302,
                after_resync: false,
                tensorflow_offset: None,
            },
            file: "f",
            kind: (!damaged).then_some("Example"),
            features: (!damaged).then_some(4),
            feature_names: (!damaged).then_some(names),
            summary: (!damaged).then_some("4 features: alpha, b, c, …"),
            problem,
            nested_frames: None,
            split: Some("train"),
            split_record: Some(17),
            element: None,
            component: None,
        }
    }

    #[test]
    fn the_table_is_printed_from_the_typed_row_as_its_json_is() {
        let split = (Untrusted::new("train"), 14);
        let rows = Rows {
            file: "f",
            split: Some(&split),
            split_width: 7,
            json: false,
            coloured: true,
            width: Some(SUMMARY_COLUMN + 9 + 40),
        };
        let mut out = String::new();
        let names = ["alpha", "b\x1b]2;x", "c"].into_iter().collect();
        print_row(&mut out, &rows, &report(None, &names));
        print_row(
            &mut out,
            &rows,
            &report(Some("payload CRC mismatch"), &names),
        );
        // On a terminal, the names kept (escaped), and an ellipsis for the one not kept; damage in
        // red.
        assert_eq!(
            out,
            "     17        3          1234          56  ok    ok    Example             \
             4 features: alpha, b\\033]2;x, c, …\n\
             \x1b[31m     17        3          1234          56  ok    BAD   \
             data_crc_mismatch   payload CRC mismatch\x1b[0m\n"
        );
        let mut json = String::new();
        print_row(
            &mut json,
            &Rows { json: true, ..rows },
            &report(None, &names),
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (&value["split_record"], &value["features"]),
            (&17.into(), &4.into())
        );
    }

    #[test]
    fn a_damaged_record_holding_a_stream_names_its_frames_and_intact_rows_their_features() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested.tfrecord");
        let mut inner = Vec::new();
        for _ in 0..3 {
            write_record(b"\x0a\x03abc", &mut inner).unwrap();
        }
        let mut file = Vec::new();
        write_record(&[0x0a, 0x00], &mut file).unwrap();
        let second = file.len() as u64;
        write_record(&inner, &mut file).unwrap();
        // The second record's payload CRC no longer matches.
        if let Some(last) = file.last_mut() {
            *last ^= 1;
        }
        std::fs::write(&path, &file).unwrap();
        let (status, rows) = listed(vec![path.clone()]);
        assert_eq!(status, Status::Damage);
        let [intact, damaged] = &rows[..] else {
            panic!("{rows:?}");
        };
        assert_eq!(intact["file"], path.to_string_lossy().as_ref());
        assert_eq!(
            (&intact["kind"], &intact["features"], &intact["summary"]),
            (
                &serde_json::json!("Example"),
                &serde_json::json!(0),
                &serde_json::json!("0 features")
            )
        );
        assert_eq!(intact["feature_names"], serde_json::json!([]));
        assert!(intact.get("problem").is_none() && intact.get("nested_frames").is_none());
        let payload = second + 12;
        let offsets: Vec<u64> = (0..3).map(|i| payload + i * 21).collect();
        assert_eq!(
            damaged["nested_frames"],
            serde_json::json!({"count": 3, "offsets": offsets})
        );
        assert_eq!(
            (
                &damaged["status"],
                &damaged["kind"],
                &damaged["data_crc_ok"]
            ),
            (
                &serde_json::json!("data_crc_mismatch"),
                &serde_json::Value::Null,
                &serde_json::json!(false)
            )
        );
        let problem = damaged["problem"].as_str().unwrap();
        assert!(
            problem.contains("a TFRecord stream of 3 intact frames"),
            "{problem}"
        );
        assert!(damaged.get("summary").is_none() && damaged.get("split").is_none());
    }

    #[test]
    fn the_table_names_its_columns_as_the_inspector_does() {
        let listed = table_header(None, 0);
        let inspected = crate::tui::framelist::header(Default::default());
        let names = |header: &str| {
            header
                .split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&listed), names(&inspected));
        assert_eq!(
            names(&listed),
            [
                "index", "offset", "length", "lcrc", "dcrc", "kind", "summary"
            ]
        );
        // The titles stand where the rows put their columns: the verdicts (`BAD` at most) after
        // index, offset and length, the summary where rows start it.
        assert_eq!(
            listed.find("lcrc  dcrc  kind"),
            Some(7 + 2 + 12 + 2 + 10 + 2)
        );
        assert_eq!(listed.find("summary"), Some(SUMMARY_COLUMN));
        assert!(verdict(Some(false)).len() <= "lcrc".len());
    }
}
