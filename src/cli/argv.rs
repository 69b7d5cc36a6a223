//! The command line before clap reads it, and `completions` / `man`.
//!
//! A bare file opens the inspector (or prints `list`), so clap reads any word that is not a
//! subcommand as a file. Two cases are worth catching before that happens: a subcommand written
//! after a global option (`tfr-inspect --color always hex f`), which is moved to the front, and a
//! misspelled subcommand (`tfr-inspect verfy f`) that names no file, which is answered with the
//! subcommand it resembles instead of "no such file".

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use anyhow::Result;
use clap::{Args, CommandFactory};

use std::path::PathBuf;

use tfr_core::input::Input;

use super::{Cli, Command, Status};

/// What the arguments ask for, once the two cases above are settled.
pub enum Parsed {
    Run(Box<Cli>),
    /// A word that names no file and resembles a subcommand: the message to print (exit 2).
    Typo(String),
}

/// Parses `args` (the program name first) into a [`Cli`]; exits as clap does on bad arguments.
pub fn parse(args: Vec<OsString>) -> Parsed {
    let cli = match <Cli as clap::Parser>::try_parse_from(&args) {
        Ok(cli) => cli,
        // An option before the subcommand (`tfr-inspect --proto p.proto show f -n 0`) makes
        // clap read the rest as the inspector's: read it again with the subcommand first, and
        // report what is wrong there (`--proto` on `index` is refused by `index`).
        Err(e) => match subcommand_first(&args) {
            Some(moved) => Cli::parse_from_args(&moved),
            None => e.exit(),
        },
    };
    if cli.command.is_some() {
        return Parsed::Run(Box::new(cli));
    }
    let Some(first) = cli.files.first() else {
        return Parsed::Run(Box::new(cli));
    };
    if first.exists() {
        return Parsed::Run(Box::new(cli));
    }
    let word = first.to_string_lossy().into_owned();
    if subcommand_names().any(|name| name == word) {
        if let Some(moved) = subcommand_first(&args) {
            return Parsed::Run(Box::new(Cli::parse_from_args(&moved)));
        }
    }
    let meant = match (meant_by(&word), closest_subcommand(&word)) {
        (Some(meant), _) => meant.to_string(),
        (None, Some(name)) => format!("`tfr-inspect {name}`"),
        (None, None) => return Parsed::Run(Box::new(cli)),
    };
    Parsed::Typo(format!(
        "`{}` is neither a file nor a subcommand; did you mean {meant}? (see `tfr-inspect --help`)",
        tfr_core::escape::for_terminal(&word)
    ))
}

/// `args` with the first word that names a subcommand (and no file) moved to the front, where
/// clap looks for one; `None` when there is no such word after an option, or help was asked.
fn subcommand_first(args: &[OsString]) -> Option<Vec<OsString>> {
    let names: Vec<String> = subcommand_names().collect();
    let at = args.iter().skip(1).position(|a| {
        a.to_str()
            .is_some_and(|word| names.iter().any(|n| n == word) && !Path::new(word).exists())
    })?;
    // `at` counts from the word after the program name; a subcommand already first is not moved.
    let at = at.checked_add(1)?;
    if at == 1 {
        return None;
    }
    let mut moved = args.to_vec();
    let name = moved.remove(at);
    moved.insert(1, name);
    Some(moved)
}

/// Words other tools (and habit) use for what a subcommand does, and the subcommand to use
/// instead: `tfr-inspect cat f` is `show`, `wc` is `count`.
const MEANT: &[(&[&str], &str)] = &[
    (
        &[
            "cat", "print", "dump", "decode", "read", "view", "less", "more",
        ],
        "`tfr-inspect show` (decoded records; `head`/`tail` for the first or last ones)",
    ),
    (
        &["wc", "len", "length", "size", "num"],
        "`tfr-inspect count`",
    ),
    (
        &["info", "describe", "summary", "summarize"],
        "`tfr-inspect stats` (each feature) or `tfr-inspect count` (how many records)",
    ),
    (
        &["features", "spec", "dtypes", "types"],
        "`tfr-inspect schema` (each feature's dtype, shape and presence; `stats` for its values)",
    ),
    (
        &["check", "validate", "fsck", "test", "crc"],
        "`tfr-inspect verify`",
    ),
    (
        &["repair", "fix", "recover", "rescue"],
        "`tfr-inspect salvage`",
    ),
    (
        &["shuf", "shuffle", "random", "rand"],
        "`tfr-inspect sample`",
    ),
    (&["first", "top"], "`tfr-inspect head`"),
    (&["last", "end"], "`tfr-inspect tail`"),
    (
        &["extract"],
        "`tfr-inspect images` (or `show --json` for values)",
    ),
    (&["idx", "tfrecord2idx"], "`tfr-inspect index`"),
];

/// The subcommand (or subcommands) `word` is another name for, in [`MEANT`].
fn meant_by(word: &str) -> Option<&'static str> {
    let word = word.to_ascii_lowercase();
    MEANT
        .iter()
        .find(|(words, _)| words.contains(&word.as_str()))
        .map(|(_, meant)| *meant)
}

impl Cli {
    fn parse_from_args(args: &[OsString]) -> Cli {
        <Cli as clap::Parser>::parse_from(args)
    }
}

fn subcommand_names() -> impl Iterator<Item = String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect::<Vec<_>>()
        .into_iter()
}

/// The subcommand `word` is a likely misspelling of: at most two edits away (one when either is
/// short; two letters swapped are one edit, so `verfiy` is one from `verify`), and not a path
/// with a directory or an extension (those are files that are missing).
fn closest_subcommand(word: &str) -> Option<String> {
    let path = Path::new(word);
    if word.len() > 32 || path.extension().is_some() || path.components().count() > 1 {
        return None;
    }
    // Two edits only between longer words: `train` is two from `tail`, and names a file.
    let short = |text: &str| text.chars().count() <= 4;
    subcommand_names()
        .map(|name| (strsim::osa_distance(word, &name), name))
        .filter(|(d, name)| *d <= if short(word) || short(name) { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// Where `-` stands for standard input: `/dev/stdin`, which a redirected file maps as a file and a
/// pipe spills to a temporary file like any other pipe.
const STDIN: &str = "/dev/stdin";

/// Settles what clap leaves to the program, before anything is read: `-` becomes standard input
/// (once per run) and `show --json` is `--format json`. Returns the message for a refusal (exit 2).
pub fn settle(cli: &mut Cli) -> Result<(), String> {
    match &mut cli.command {
        Some(Command::Show(a)) => a.view.settle(),
        Some(Command::Head(a) | Command::Tail(a)) => a.view.settle(),
        Some(Command::Sample(a)) => a.view.settle(),
        _ => {}
    }
    let mut dashes = 0;
    let mut stdin = |path: &mut PathBuf| {
        if path.as_os_str() == "-" {
            dashes += 1;
            *path = PathBuf::from(STDIN);
        }
    };
    match &mut cli.command {
        None => cli.files.iter_mut().for_each(&mut stdin),
        Some(Command::List(a)) => a.files.iter_mut().for_each(&mut stdin),
        Some(Command::Verify(a)) => a.files.iter_mut().for_each(&mut stdin),
        Some(Command::Count(a)) => a.files.iter_mut().for_each(&mut stdin),
        // `-o -` is standard output, and stays as it is.
        Some(Command::Export(a)) => a.files.iter_mut().for_each(&mut stdin),
        Some(Command::Stats(a)) => a.files.iter_mut().for_each(&mut stdin),
        Some(Command::Images(a)) => a.files.iter_mut().for_each(&mut stdin),
        Some(Command::Show(a)) => a.files.iter_mut().for_each(&mut stdin),
        Some(Command::Head(a) | Command::Tail(a)) => stdin(&mut a.file),
        Some(Command::Sample(a)) => stdin(&mut a.file),
        Some(Command::Hex(a)) => {
            a.files.iter_mut().for_each(&mut stdin);
            // `--compare - b.tfrecord`: a side may be standard input too.
            for side in a.compare.iter_mut().flatten() {
                let mut path = PathBuf::from(&*side);
                stdin(&mut path);
                *side = path.to_string_lossy().into_owned();
            }
        }
        Some(Command::Locate(a)) => stdin(&mut a.file),
        // `-o -` is standard output, and stays as it is.
        Some(Command::Salvage(a)) => stdin(&mut a.input),
        Some(Command::Index(a)) => {
            stdin(&mut a.file);
            if let Some(idx) = &mut a.idx {
                stdin(idx);
            }
        }
        Some(Command::Quiz(a)) => {
            if a.file.as_os_str() == "-" {
                return Err(
                    "quiz reads its answers from standard input, so its file cannot be `-`".into(),
                );
            }
        }
        Some(_) => {}
    }
    if dashes > 1 {
        return Err("`-` (standard input) can be given only once".into());
    }
    Ok(())
}

/// `-n N` or `--range A..B`: the records `show` and `images` take; with a split's name
/// (`-n train:1234`, `--range train:10..20`), numbers counted across the split's shards.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RecordChoice {
    /// Only record N (0-based, as `list` numbers frames; -1 is the last). Over a directory or
    /// shard files, NAME:N is record N of split NAME, counted across its shards in shard order
    /// (`train:1234`, `validation:-1`), as `list` numbers them in its split column.
    #[arg(
        short = 'n',
        long = "record",
        value_name = "N|NAME:N",
        conflicts_with = "range",
        allow_negative_numbers = true,
        value_parser = parse_record_arg
    )]
    pub record: Option<RecordArg>,
    /// Records A..B (B excluded), A..=B, A.., ..B, or as Python slices A:B, A:, :B; a negative
    /// number counts from the end (`-3:` is the last three). NAME:A..B or NAME:A:B counts
    /// across split NAME's shards, as `-n NAME:N` does.
    #[arg(
        long,
        value_name = "A..B|A:B|NAME:A..B",
        value_parser = parse_range,
        allow_hyphen_values = true
    )]
    pub range: Option<RecordRange>,
}

impl RecordChoice {
    /// The first record chosen and the one after the last (`None`: to the end of the file) of
    /// `input`. A number counted from the end indexes the whole file first; one before the
    /// first record, or a range that comes out empty, is an error naming the file and its count.
    /// Split-wide numbers are [`RecordChoice::in_split`]'s, and an error here.
    pub fn bounds(&self, input: &mut Input) -> Result<(usize, Option<usize>), String> {
        if let Some(split) = self.in_split() {
            return Err(format!(
                "{}: {split} is a split-wide number; a file alone has none",
                input.name()
            ));
        }
        match (&self.record, &self.range) {
            (Some(RecordArg::InFile(n)), _) => {
                let n = record_index(input, *n)?;
                Ok((n, Some(n.saturating_add(1))))
            }
            (_, Some(range)) => range.resolve(input),
            _ => Ok((0, None)),
        }
    }

    /// The records chosen in a split, when `-n` or `--range` names one.
    pub fn in_split(&self) -> Option<SplitChoice> {
        match (&self.record, &self.range) {
            (Some(RecordArg::InSplit(wanted)), _) => Some(SplitChoice {
                split: wanted.split.clone(),
                start: wanted.number,
                end: None,
                single: true,
            }),
            (_, Some(range)) => range.split.as_ref().map(|split| SplitChoice {
                split: split.clone(),
                start: range.start,
                end: range.end,
                single: false,
            }),
            _ => None,
        }
    }
}

/// Records of a split, counted across its shards: one record (`-n train:5`), or `start` up to
/// `end` (excluded; `None`, the split's end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitChoice {
    pub split: String,
    pub start: RecordNumber,
    pub end: Option<RecordNumber>,
    pub single: bool,
}

impl std::fmt::Display for SplitChoice {
    /// `train:5` or `train:5..`, `train:5..9`; the name escaped.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = tfr_core::escape::for_terminal(&self.split);
        match (self.single, self.end) {
            (true, _) => write!(f, "{name}:{}", self.start),
            (false, None) => write!(f, "{name}:{}..", self.start),
            (false, Some(end)) => write!(f, "{name}:{}..{end}", self.start),
        }
    }
}

/// `-n`'s value: a record of the file (`5`, `-1`), or of a split (`train:1234`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordArg {
    InFile(RecordNumber),
    InSplit(tfr_core::record_number::SplitNumber),
}

/// Parses `N`, `-N` or `NAME:N` (clap's value parser for `-n` where records of a split are
/// taken).
pub fn parse_record_arg(text: &str) -> Result<RecordArg, String> {
    if let Some(n) = number_in(text) {
        return Ok(RecordArg::InFile(n));
    }
    match tfr_core::record_number::SplitNumber::parse(text) {
        Some(wanted) => Ok(RecordArg::InSplit(wanted)),
        None => Err(format!(
            "expected a record number (0 is the first, -1 the last) or a split's (train:1234), \
             got `{}`",
            tfr_core::escape::for_terminal(text)
        )),
    }
}

pub use tfr_core::record_number::RecordNumber;

/// Parses `N` or `-N` (clap's value parser for `-n`): `-1` is the last record.
pub fn parse_record_number(text: &str) -> Result<RecordNumber, String> {
    number_in(text).ok_or_else(|| {
        format!(
            "expected a record number (0 is the first, -1 the last), got `{}`",
            tfr_core::escape::for_terminal(text)
        )
    })
}

/// `N` or `-N` with N > 0 ([`RecordNumber::parse`]).
fn number_in(text: &str) -> Option<RecordNumber> {
    RecordNumber::parse(text)
}

/// The index of record `number` of `input`, indexing the whole file when it counts from the
/// end; an error naming the file and its record count when it counts back past the first.
/// (A number past the end is found by [`Input::frame`], which says the same.)
pub fn record_index(input: &mut Input, number: RecordNumber) -> Result<usize, String> {
    match number {
        RecordNumber::FromStart(n) => Ok(n),
        RecordNumber::FromEnd(_) => {
            input.settle_all();
            let count = input.index.len();
            number
                .resolve(count)
                .ok_or_else(|| no_such_record(input, number, count))
        }
    }
}

fn no_such_record(input: &Input, number: RecordNumber, count: usize) -> String {
    format!(
        "{}: record {number} does not exist (the file has {})",
        input.name(),
        tfr_core::words::plural(count as u64, "frame")
    )
}

/// The records `--range` selects: from `start` to `end` (excluded), or to the last record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRange {
    /// The split the numbers count in (`train:10..20`), when one is named.
    pub split: Option<String>,
    pub start: RecordNumber,
    pub end: Option<RecordNumber>,
    /// As given, for messages.
    text: String,
}

impl RecordRange {
    /// The first record and the one after the last among `input`'s records; see
    /// [`RecordChoice::bounds`].
    fn resolve(&self, input: &mut Input) -> Result<(usize, Option<usize>), String> {
        let from_end = |n: Option<RecordNumber>| matches!(n, Some(RecordNumber::FromEnd(_)));
        if !from_end(Some(self.start)) && !from_end(self.end) {
            let start = self.start.resolve(0).unwrap_or(0);
            return Ok((start, self.end.and_then(|end| end.resolve(0))));
        }
        input.settle_all();
        let count = input.index.len();
        let start = record_index(input, self.start)?;
        let end = match self.end {
            None => None,
            Some(end) => Some(
                end.resolve(count)
                    .ok_or_else(|| no_such_record(input, end, count))?,
            ),
        };
        if end.is_some_and(|end| end <= start) {
            return Err(format!(
                "{}: --range `{}` selects no record: of its {} it is {start}..{}",
                input.name(),
                tfr_core::escape::for_terminal(&self.text),
                tfr_core::words::plural(count as u64, "frame"),
                end.unwrap_or(start),
            ));
        }
        Ok((start, end))
    }
}

/// Parses `A..B`, `A..=B`, `A..`, `..B` and the Python slices `A:B`, `A:`, `:B` (clap's value
/// parser for `--range`); either number may be negative, counting from the end. A range that is
/// empty or reversed whatever the file holds is refused with the form that would select something.
pub fn parse_range(text: &str) -> Result<RecordRange, String> {
    let (split, range) = split_prefix(text);
    let mut parsed = parse_file_range(range)?;
    parsed.split = split.map(str::to_string);
    parsed.text = text.to_string();
    Ok(parsed)
}

/// `train:10..20` and `train:10:20` as the split's name and the range; the name is what comes
/// before the last `:` (with `..`) or the second last (a slice), when it is no number.
fn split_prefix(text: &str) -> (Option<&str>, &str) {
    let at = match text.contains("..") {
        true => text.rfind(':'),
        false => {
            let last = text.rfind(':');
            last.and_then(|last| text.get(..last)?.rfind(':'))
        }
    };
    let Some(at) = at else {
        return (None, text);
    };
    let (name, range) = (
        text.get(..at).unwrap_or(""),
        text.get(at + 1..).unwrap_or(""),
    );
    match name.trim().is_empty() || number_in(name).is_some() {
        true => (None, text),
        false => (Some(name.trim()), range),
    }
}

/// [`parse_range`] without a split's name.
fn parse_file_range(text: &str) -> Result<RecordRange, String> {
    let shown = tfr_core::escape::for_terminal(text);
    let usage = || {
        format!(
            "--range expects A..B, A..=B, A.., ..B, A:B, A: or :B with record numbers \
             (negative from the end), or NAME:A..B for a split, got `{shown}`"
        )
    };
    let (a, b, slice) = match text.split_once("..") {
        Some((a, b)) => (a, b, false),
        None => {
            let (a, b) = text.split_once(':').ok_or_else(usage)?;
            // `A:B:C` (a step) selects what no single range does.
            if b.contains(':') {
                return Err(usage());
            }
            (a, b, true)
        }
    };
    let number = |n: &str| number_in(n).ok_or_else(usage);
    let start = if a.trim().is_empty() {
        RecordNumber::FromStart(0)
    } else {
        number(a)?
    };
    let (last, inclusive) = match b.strip_prefix('=') {
        Some(b) if !slice => (Some(number(b)?), true),
        _ if b.trim().is_empty() => (None, false),
        _ => (Some(number(b)?), false),
    };
    let range = |end| RecordRange {
        split: None,
        start,
        end,
        text: text.to_string(),
    };
    let Some(last) = last else {
        return Ok(range(None));
    };
    let end = match (last, inclusive) {
        (RecordNumber::FromStart(n), true) => RecordNumber::FromStart(n.saturating_add(1)),
        (RecordNumber::FromEnd(n), true) => RecordNumber::FromEnd(n - 1),
        (last, false) => last,
    };
    // Only numbers counted from the same side can be compared before the file is read.
    let (first, last_index, after) = match (start, last, end) {
        (RecordNumber::FromStart(s), RecordNumber::FromStart(l), RecordNumber::FromStart(e)) => {
            (s as i128, l as i128, e as i128)
        }
        (RecordNumber::FromEnd(s), RecordNumber::FromEnd(l), RecordNumber::FromEnd(e)) => {
            (-(s as i128), -(l as i128), -(e as i128))
        }
        _ => return Ok(range(Some(end))),
    };
    // `A..A` is empty only because its end is excluded; an end before the start is backwards
    // whichever form it has.
    if last_index < first {
        return Err(format!(
            "--range `{shown}` is reversed: it ends at {last}, before its start {start}"
        ));
    }
    if after <= first {
        let one = match (start, slice) {
            (RecordNumber::FromStart(s), false) => format!("; `{s}..={s}` selects record {s}"),
            (RecordNumber::FromStart(s), true) => {
                format!("; `{s}:{}` selects record {s}", s.saturating_add(1))
            }
            (RecordNumber::FromEnd(1), _) => "; `-1:` selects the last record".to_string(),
            (RecordNumber::FromEnd(b), _) => format!("; `-{b}:-{}` selects record -{b}", b - 1),
        };
        return Err(format!(
            "--range `{shown}` selects no record (its end is excluded{one})"
        ));
    }
    Ok(range(Some(end)))
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell (or elvish).
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script clap_complete generates for `args.shell`.
pub fn completions(args: &CompletionsArgs, out: &mut impl Write) -> Result<Status> {
    let mut command = Cli::command();
    // Generated into memory: clap_complete panics when its writer fails (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "tfr-inspect", &mut script);
    out.write_all(&script)?;
    Ok(Status::Clean)
}

#[derive(Debug, Args)]
pub struct ManArgs {}

/// Prints the man page (roff) clap_mangen generates.
pub fn man(_: &ManArgs, out: &mut impl Write) -> Result<Status> {
    clap_mangen::Man::new(Cli::command()).render(out)?;
    Ok(Status::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each subcommand's options are defined only when it runs, so clap's checks of a definition
    /// (run as it is built, in debug builds) would see only the subcommands a test runs: build
    /// them all here. Also checks that deferring keeps each subcommand's options and description.
    #[test]
    fn every_subcommand_is_well_defined_and_keeps_its_options() {
        Cli::command().debug_assert();
        let mut built = Cli::command();
        built.build();
        let show = built.find_subcommand("show").unwrap();
        let about = show.get_about().map(|a| a.to_string()).unwrap_or_default();
        assert!(
            about.starts_with("Decoded records as a readable tree"),
            "{about}"
        );
        let longs: Vec<&str> = show.get_arguments().filter_map(|a| a.get_long()).collect();
        assert!(
            longs.contains(&"format") && longs.contains(&"proto"),
            "{longs:?}"
        );
        let last = longs.iter().rfind(|l| **l != "help");
        assert_eq!(last, Some(&"color"), "{longs:?}");
    }

    #[test]
    fn ranges_parse_and_empty_or_reversed_ones_say_which() {
        use RecordNumber::{FromEnd, FromStart};
        let parsed = |t: &str| parse_range(t).map(|r| (r.start, r.end));
        assert_eq!(parsed("3..5"), Ok((FromStart(3), Some(FromStart(5)))));
        assert_eq!(parsed("3..=3"), Ok((FromStart(3), Some(FromStart(4)))));
        assert_eq!(parsed("3.."), Ok((FromStart(3), None)));
        assert_eq!(parsed("..2"), Ok((FromStart(0), Some(FromStart(2)))));
        // Python slices, and numbers from the end.
        assert_eq!(parsed("3:5"), parsed("3..5"));
        assert_eq!(parsed(":2"), parsed("..2"));
        assert_eq!(parsed("3:"), parsed("3.."));
        assert_eq!(parsed("-3:"), Ok((FromEnd(3), None)));
        assert_eq!(parsed("-3:-1"), Ok((FromEnd(3), Some(FromEnd(1)))));
        assert_eq!(parsed("-3..=-1"), Ok((FromEnd(3), Some(FromEnd(0)))));
        assert_eq!(parsed("2:-1"), Ok((FromStart(2), Some(FromEnd(1)))));
        assert_eq!(
            parsed("-1:-3").unwrap_err(),
            "--range `-1:-3` is reversed: it ends at -3, before its start -1"
        );
        assert_eq!(
            parsed("3:3").unwrap_err(),
            "--range `3:3` selects no record (its end is excluded; `3:4` selects record 3)"
        );
        assert_eq!(
            parsed("-2:-2").unwrap_err(),
            "--range `-2:-2` selects no record (its end is excluded; `-2:-1` selects record -2)"
        );
        for refused in ["1:2:3", "-0:", "1:=2", "+1:", "a:b"] {
            assert!(parsed(refused).is_err(), "{refused} was accepted");
        }
        assert_eq!(parsed(":"), Ok((FromStart(0), None)));
        // Reversed: no `..=` makes it select anything.
        assert_eq!(
            parsed("3..=2").unwrap_err(),
            "--range `3..=2` is reversed: it ends at 2, before its start 3"
        );
        assert_eq!(
            parsed("5..1").unwrap_err(),
            "--range `5..1` is reversed: it ends at 1, before its start 5"
        );
        // Empty only because the end is excluded: the inclusive form is offered.
        assert_eq!(
            parsed("3..3").unwrap_err(),
            "--range `3..3` selects no record (its end is excluded; `3..=3` selects record 3)"
        );
        assert!(parsed("a..b").unwrap_err().starts_with("--range expects"));
    }

    #[test]
    fn misspellings_find_their_subcommand_and_file_names_do_not() {
        assert_eq!(closest_subcommand("verfy").as_deref(), Some("verify"));
        assert_eq!(closest_subcommand("verfiy").as_deref(), Some("verify"));
        assert_eq!(closest_subcommand("lsit").as_deref(), Some("list"));
        assert_eq!(closest_subcommand("shwo").as_deref(), Some("show"));
        assert_eq!(closest_subcommand("salvge").as_deref(), Some("salvage"));
        assert_eq!(closest_subcommand("verify.tfrecord"), None);
        assert_eq!(closest_subcommand("data/list"), None);
        assert_eq!(closest_subcommand("train"), None);
        assert_eq!(closest_subcommand("x"), None);
        assert_eq!(closest_subcommand("cuont").as_deref(), Some("count"));
        assert_eq!(closest_subcommand("haed").as_deref(), Some("head"));
        assert_eq!(closest_subcommand("tial").as_deref(), Some("tail"));
        assert_eq!(closest_subcommand("smaple").as_deref(), Some("sample"));
    }

    #[test]
    fn words_of_other_tools_name_the_subcommand_that_does_it() {
        assert!(meant_by("cat").is_some_and(|m| m.starts_with("`tfr-inspect show`")));
        assert!(meant_by("CAT").is_some_and(|m| m.starts_with("`tfr-inspect show`")));
        assert_eq!(meant_by("wc"), Some("`tfr-inspect count`"));
        assert!(meant_by("spec").is_some_and(|m| m.starts_with("`tfr-inspect schema`")));
        assert!(meant_by("info").is_some_and(|m| m.contains("`tfr-inspect count`")));
        assert_eq!(meant_by("train"), None);
        // No other name is a subcommand's own: that one would never be reached.
        let names: Vec<String> = subcommand_names().collect();
        for (words, _) in MEANT {
            assert!(
                words.iter().all(|w| !names.iter().any(|n| n == w)),
                "{words:?}"
            );
        }
    }
}
