//! `export`: one flat row per record, as JSON lines or CSV, for pandas, jq or a spreadsheet.
//!
//! Rows are made by [`tfr_core::report::export`] from the decoded Example (or SequenceExample's
//! context) on every core, and written in record order through the loop `show` prints with.
//! CSV has one column per feature of any record, so its header needs every record's feature names
//! first: the files are read twice (the first time for the names only). Damaged records are
//! skipped, named as `show` names them, and make the exit status 1; records that are no Example
//! are counted in a note. The output goes to standard output, or with `-o` to a new file written
//! atomically (an existing regular file only with `--force`, never an input).
//!
//! TensorBoard event files give a row per scalar instead, as TensorBoard's "download CSV" does:
//! `run,tag,step,wall_time,value`, the run named as TensorBoard names it (the file's directory
//! under the logdir).

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, ValueEnum};

use super::dataset::{Run, RunExt};
use super::records::{Handed, Outcome, intact_payload, render_in_order};
use super::show::open_input;
use super::{Env, Messages, Status};
use tfr_core::input::{Input, OpenOptions};
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::report::export::{self, BytesAs, Row, RowOptions};

/// The most columns a CSV gets: beyond it, feature names are no columns but data (`--format
/// jsonl` writes those records as they are).
const MAX_COLUMNS: usize = 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One JSON object per line: `file`, `index`, `offset`, then each feature.
    Jsonl,
    /// A header of `file,index,offset` and every feature's name, then one line per record.
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BytesChoice {
    /// UTF-8 text as text, other bytes as what they are (`<JPEG 64x48 RGB, 1247 bytes>`).
    Text,
    /// Every bytes value in base64, as protobuf's JSON writes bytes.
    Base64,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// TFRecord files, directories, quoted glob patterns or URLs.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// jsonl or csv.
    #[arg(long, value_enum, default_value_t = ExportFormat::Jsonl)]
    pub format: ExportFormat,
    /// Write to this new file, atomically, instead of standard output (`-` is standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Replace OUT when it is an existing regular file.
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Every feature as a list, even of one value (by default a feature of one value is that
    /// value).
    #[arg(long)]
    pub lists: bool,
    /// How bytes values are written: text (UTF-8 as text, other bytes described) or base64
    /// (every one).
    #[arg(long, value_enum, value_name = "text|base64", default_value_t = BytesChoice::Text)]
    pub bytes: BytesChoice,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

/// What one record gave.
enum Exported {
    Row,
    /// No Example or SequenceExample: no row.
    NoRow,
    /// Damaged: skipped, with why.
    Damaged(String),
}

/// How the files are exported: the rows' options, the format, and (CSV) the columns.
struct Plan<'a> {
    options: RowOptions,
    format: ExportFormat,
    columns: &'a [String],
    /// For TensorBoard event files, each file's run: their rows are its scalars.
    runs: Option<Vec<String>>,
    /// Written to a terminal: CSV cells escaped as every text from a file is.
    terminal: bool,
    progress: bool,
}

pub fn run(
    args: &ExportArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let run = Run::resolve_reporting(&args.files, messages);
    let files = run.paths();
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let policy = OutputPolicy {
        inputs: &inputs,
        replace_existing: args.force,
        stdout_is_terminal: false,
    };
    let destination = match args.output.as_deref().map(|o| policy.check(o)) {
        None => Destination::Stdout,
        Some(Ok(destination)) => destination,
        Some(Err(e)) => return Ok(messages.unusable(&e)),
    };
    let events = files.iter().filter(|f| is_event_file(f)).count();
    if events > 0 && events < files.len() {
        let message = format!(
            "{} of the {} files are TensorBoard event files: export writes scalars of event files \
             and rows of records of other files, so give them to separate runs",
            events,
            files.len()
        );
        return Ok(messages.unusable(&message));
    }
    let runs = (events > 0).then(|| tfr_core::stats::run::run_names(&files));
    let columns = match args.format {
        _ if runs.is_some() => Vec::new(),
        ExportFormat::Csv => match column_names(&files, open) {
            Ok(columns) => columns,
            Err(e) => return Ok(messages.unusable(&e)),
        },
        ExportFormat::Jsonl => Vec::new(),
    };
    let to_stdout = matches!(destination, Destination::Stdout);
    let plan = Plan {
        options: RowOptions {
            lists: args.lists,
            bytes: match args.bytes {
                BytesChoice::Text => BytesAs::Text,
                BytesChoice::Base64 => BytesAs::Base64,
            },
        },
        format: args.format,
        columns: &columns,
        runs,
        terminal: to_stdout && env.stdout.terminal,
        progress: env.progress(to_stdout),
    };
    let write = |w: &mut dyn Write| write_all(&files, open, &plan, messages, w);
    match destination {
        Destination::Stdout => write(out)?,
        Destination::File(path) => {
            if let Err(e) = write_atomically(&path, &policy, write) {
                messages.unusable(&e);
            }
        }
    }
    run.note_skipped_briefly(messages);
    Ok(messages.status())
}

/// The CSV header's columns: every feature name of every record, in order.
fn column_names(files: &[PathBuf], open: &OpenOptions) -> Result<Vec<String>, String> {
    let mut names = BTreeSet::new();
    // Past the limit no name is kept: a file of a million names holds no more than the limit.
    let mut too_many = false;
    for path in files {
        // A file that cannot be opened is named when its rows are written.
        let Ok(mut input) = Input::open(path, open) else {
            continue;
        };
        let outcome = render_in_order(
            &mut input,
            0,
            None,
            false,
            |input, decoder, frame, _| {
                let payload = frame
                    .payload(input.data())
                    .filter(|_| frame.status.is_intact())?;
                let decoded = decoder.decode(payload);
                let message = decoded.typed(payload, decoder.table())?;
                export::has_row(&message).then(|| export::column_names(&message))
            },
            &mut io::sink(),
            |_, found, _| {
                for name in found.into_iter().flatten() {
                    if names.len() >= MAX_COLUMNS && !names.contains(&name) {
                        too_many = true;
                    } else {
                        names.insert(name);
                    }
                }
                Handed::AsIs
            },
        );
        if let Ok(Outcome::Changed(e)) = outcome {
            return Err(e.to_string());
        }
        if too_many {
            return Err(format!(
                "the records have more than {MAX_COLUMNS} feature names, too many for CSV \
                 columns; --format jsonl writes each record's own"
            ));
        }
    }
    Ok(names.into_iter().collect())
}

/// The header (CSV), then every file's rows.
fn write_all(
    files: &[PathBuf],
    open: &OpenOptions,
    plan: &Plan,
    messages: &Messages,
    out: &mut dyn Write,
) -> io::Result<()> {
    if plan.format == ExportFormat::Csv {
        let mut header = String::new();
        match plan.runs {
            Some(_) => header.push_str(export::SCALAR_HEADER),
            None => export::csv_header(plan.columns, &mut header),
        }
        out.write_all(safe(plan, &header).as_bytes())?;
    }
    for (member, path) in files.iter().enumerate() {
        let run = plan.runs.as_ref().and_then(|runs| runs.get(member));
        if let Some(mut input) = open_input(path, open, messages) {
            write_file(
                &mut input,
                path,
                run.map(String::as_str),
                plan,
                messages,
                out,
            )?;
        }
    }
    out.flush()
}

/// The rows of one file.
fn write_file(
    input: &mut Input,
    path: &Path,
    run: Option<&str>,
    plan: &Plan,
    messages: &Messages,
    out: &mut dyn Write,
) -> io::Result<()> {
    let file = tfr_core::escape::path_for_json(path);
    let mut no_row = 0u64;
    let outcome = render_in_order(
        input,
        0,
        None,
        plan.progress,
        |input, decoder, frame, output| {
            let payload = match intact_payload(input, &frame) {
                Ok(payload) => payload,
                Err(note) => return Exported::Damaged(note),
            };
            let decoded = decoder.decode(payload);
            if let Some(run) = run {
                let event = decoded.typed(payload, decoder.table());
                for row in event
                    .map(|e| export::scalar_rows(run, &e))
                    .unwrap_or_default()
                {
                    match plan.format {
                        ExportFormat::Jsonl => row.write_json(output),
                        ExportFormat::Csv => row.write_csv(output),
                    }
                }
                return Exported::Row;
            }
            let row = decoded
                .typed(payload, decoder.table())
                .and_then(|message| Row::of(&file, &frame, &message, plan.options));
            let Some(row) = row else {
                return Exported::NoRow;
            };
            match plan.format {
                ExportFormat::Jsonl => row.write_json(output),
                ExportFormat::Csv => row.write_csv(plan.columns, output),
            }
            Exported::Row
        },
        out,
        |input, exported, output| {
            match exported {
                Exported::Row => {}
                Exported::NoRow => no_row += 1,
                Exported::Damaged(note) => {
                    messages.note(&format_args!("{}: {note}", input.name()));
                    messages.damage();
                }
            }
            match safe(plan, output) {
                std::borrow::Cow::Owned(escaped) => Handed::Instead(escaped),
                std::borrow::Cow::Borrowed(_) => Handed::AsIs,
            }
        },
    )?;
    if let Outcome::Changed(e) = outcome {
        messages.unusable(&e);
    }
    if no_row > 0 {
        let records = match no_row {
            1 => "1 record is".to_string(),
            n => format!("{n} records are"),
        };
        messages.note(&format_args!(
            "{}: {records} no Example or SequenceExample, not exported",
            input.name()
        ));
    }
    Ok(())
}

/// Whether `path` is named as TensorBoard names its event files.
fn is_event_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| tfr_core::event::is_event_file_name(&n.to_string_lossy()))
}

/// CSV on a terminal, escaped as every text from a file is (JSON lines are ASCII already).
fn safe<'t>(plan: &Plan, text: &'t str) -> std::borrow::Cow<'t, str> {
    match plan.terminal && plan.format == ExportFormat::Csv {
        true => {
            // Line breaks end rows; each line is escaped on its own.
            let escaped: String = text
                .split_inclusive('\n')
                .map(|line| {
                    let (body, end) = match line.strip_suffix('\n') {
                        Some(body) => (body, "\n"),
                        None => (line, ""),
                    };
                    format!("{}{end}", tfr_core::escape::for_terminal(body))
                })
                .collect();
            match escaped == text {
                true => std::borrow::Cow::Borrowed(text),
                false => std::borrow::Cow::Owned(escaped),
            }
        }
        false => std::borrow::Cow::Borrowed(text),
    }
}
