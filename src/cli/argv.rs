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

use super::{Cli, Command, DecodeArgs, Status};

/// What the arguments ask for, once the two cases above are settled.
pub enum Parsed {
    Run(Box<Cli>),
    /// A word that names no file and resembles a subcommand: the message to print (exit 2).
    Typo(String),
}

/// Parses `args` (the program name first) into a [`Cli`]; exits as clap does on bad arguments.
pub fn parse(args: Vec<OsString>) -> Parsed {
    let cli = Cli::parse_from_args(&args);
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
        // A subcommand after global options: put it first, where clap looks for one.
        if let Some(at) = args.iter().position(|a| a == first.as_os_str()) {
            let mut moved = args.clone();
            let name = moved.remove(at);
            moved.insert(1, name);
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
        &["schema", "features", "spec", "dtypes", "types"],
        "`tfr-inspect stats` (each feature's kind, values per record and presence)",
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
/// (once per run), `show --json` is `--format json`, and decoding options given to a subcommand
/// that decodes nothing are refused. Returns the message for a refusal (exit 2).
pub fn settle(cli: &mut Cli) -> Result<(), String> {
    if let Some(command) = &cli.command {
        refuse_unused(command, &cli.decode)?;
    }
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
        Some(Command::Show(a)) => stdin(&mut a.file),
        Some(Command::Head(a) | Command::Tail(a)) => stdin(&mut a.file),
        Some(Command::Sample(a)) => stdin(&mut a.file),
        Some(Command::Hex(a)) => stdin(&mut a.file),
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

/// Refuses the schema options and `--raw` on a subcommand that decodes no payload, where they
/// would silently do nothing.
fn refuse_unused(command: &Command, decode: &DecodeArgs) -> Result<(), String> {
    let name = match command {
        // `verify --images` finds images through the decoded payloads.
        Command::Verify(args) if !args.images => "verify",
        Command::Locate(_) => "locate",
        Command::Count(_) => "count",
        Command::Salvage(_) => "salvage",
        Command::Index(_) => "index",
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
        _ => return Ok(()),
    };
    let given = [
        (!decode.protos.is_empty(), "--proto"),
        (!decode.proto_path.is_empty(), "-I/--proto-path"),
        (!decode.descriptor_sets.is_empty(), "--descriptor-set"),
        (!decode.field_types.is_empty(), "--field-type"),
        (!decode.bytes_as.is_empty(), "--bytes-as"),
        (decode.message.is_some(), "--message"),
        (decode.raw, "--raw"),
    ];
    match given.iter().find(|(on, _)| *on) {
        Some((_, flag)) => Err(format!(
            "{flag} has no effect on `{name}`, which decodes no payload (it applies to the inspector, list, show, head, tail, sample, export, hex, stats, quiz, images and verify --images)"
        )),
        None => Ok(()),
    }
}

/// `-n N` or `--range A..B`: the records `show` and `images` take.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RecordChoice {
    /// Only record N (0-based, as `list` numbers frames).
    #[arg(
        short = 'n',
        long = "record",
        value_name = "N",
        conflicts_with = "range"
    )]
    pub record: Option<usize>,
    /// Records A..B (B excluded), A..=B, A.. or ..B.
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub range: Option<RecordRange>,
}

impl RecordChoice {
    /// The first record chosen and the one after the last (`None`: to the end of the file).
    pub fn bounds(&self) -> (usize, Option<usize>) {
        match (self.record, &self.range) {
            (Some(n), _) => (n, Some(n.saturating_add(1))),
            (None, Some(range)) => (range.start, range.end),
            (None, None) => (0, None),
        }
    }
}

/// The records `--range` selects: from `start` to `end` (excluded), or to the last record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordRange {
    pub start: usize,
    pub end: Option<usize>,
}

/// Parses `A..B`, `A..=B`, `A..` and `..B` (clap's value parser for `--range`): an empty or
/// reversed range is refused with the form that would select something.
pub fn parse_range(text: &str) -> Result<RecordRange, String> {
    let shown = tfr_core::escape::for_terminal(text);
    let usage =
        || format!("--range expects A..B, A..=B, A.. or ..B with record numbers, got `{shown}`");
    let (a, b) = text.split_once("..").ok_or_else(usage)?;
    let number = |n: &str| n.trim().parse::<usize>().map_err(|_| usage());
    let start = if a.is_empty() { 0 } else { number(a)? };
    let (last, inclusive) = match b.strip_prefix('=') {
        Some(b) => (Some(number(b)?), true),
        None if b.is_empty() => (None, false),
        None => (Some(number(b)?), false),
    };
    let Some(last) = last else {
        return Ok(RecordRange { start, end: None });
    };
    // `A..A` is empty only because its end is excluded; an end before the start is backwards
    // whichever form it has.
    if last < start {
        return Err(format!(
            "--range `{shown}` is reversed: it ends at {last}, before its start {start}"
        ));
    }
    if last == start && !inclusive {
        return Err(format!(
            "--range `{shown}` selects no record (its end is excluded; `{start}..={start}` \
             selects record {start})"
        ));
    }
    let end = if inclusive {
        last.saturating_add(1)
    } else {
        last
    };
    Ok(RecordRange {
        start,
        end: Some(end),
    })
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

    #[test]
    fn ranges_parse_and_empty_or_reversed_ones_say_which() {
        let parsed = |t: &str| parse_range(t).map(|r| (r.start, r.end));
        assert_eq!(parsed("3..5"), Ok((3, Some(5))));
        assert_eq!(parsed("3..=3"), Ok((3, Some(4))));
        assert_eq!(parsed("3.."), Ok((3, None)));
        assert_eq!(parsed("..2"), Ok((0, Some(2))));
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
        assert!(meant_by("schema").is_some_and(|m| m.starts_with("`tfr-inspect stats`")));
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
