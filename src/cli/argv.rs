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

use super::{Cli, Status};

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
    match closest_subcommand(&word) {
        Some(name) => Parsed::Typo(format!(
            "`{}` is neither a file nor a subcommand; did you mean `tfr-inspect {name}`? (see `tfr-inspect --help`)",
            crate::escape::for_terminal(&word)
        )),
        None => Parsed::Run(Box::new(cli)),
    }
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

/// The subcommand `word` is a likely misspelling of: at most two edits away (one for short
/// words), and not a path with a directory or an extension (those are files that are missing).
fn closest_subcommand(word: &str) -> Option<String> {
    let path = Path::new(word);
    if word.len() > 32 || path.extension().is_some() || path.components().count() > 1 {
        return None;
    }
    let allowed = if word.chars().count() <= 4 { 1 } else { 2 };
    subcommand_names()
        .map(|name| (edit_distance(word, &name), name))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// Levenshtein distance, adjacent transpositions counting one edit (`verfiy` is one from
/// `verify`). Only ever called on words of at most 32 characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    let at = |i: usize, j: usize| i * width + j;
    for i in 0..=a.len() {
        d[at(i, 0)] = i;
    }
    for j in 0..=b.len() {
        d[at(0, j)] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[at(i - 1, j)] + 1)
                .min(d[at(i, j - 1)] + 1)
                .min(d[at(i - 1, j - 1)] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[at(i - 2, j - 2)] + 1);
            }
            d[at(i, j)] = best;
        }
    }
    d[at(a.len(), b.len())]
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
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
