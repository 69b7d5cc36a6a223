//! Every help text, as `tfr-inspect --help`, `-h` and each subcommand's print it, against the
//! committed copy (`help.golden.txt`, written by the binary itself). Each subcommand's options are
//! defined only when that subcommand runs, with its description and the inherited `--color` put
//! back where clap would have had them: a change in how the options are built must not change a
//! byte of what help prints. After a deliberate change of wording, rewrite the copy with
//! `TFR_WRITE_HELP=1 cargo test --test cli help::`.

use clap::CommandFactory;
use tfr_inspect::cli::Cli;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/help.golden.txt");

/// Every help text, each after a `==> ` line naming the command that prints it.
fn every_help() -> String {
    let mut command = Cli::command().bin_name("tfr-inspect");
    command.build();
    let mut out = String::new();
    let mut add = |args: &str, text: clap::builder::StyledStr| {
        out.push_str(&format!("==> tfr-inspect {args}\n{text}"));
    };
    add("--help", command.render_long_help());
    add("-h", command.render_help());
    let names: Vec<String> = (command.get_subcommands())
        .map(|s| s.get_name().to_string())
        .filter(|name| name != "help")
        .collect();
    for name in names {
        let sub = command.find_subcommand_mut(&name).unwrap();
        add(&format!("{name} --help"), sub.render_long_help());
        add(&format!("{name} -h"), sub.render_help());
    }
    out
}

#[test]
fn every_help_text_is_the_committed_one() {
    let rendered = every_help();
    if std::env::var_os("TFR_WRITE_HELP").is_some() {
        std::fs::write(GOLDEN, &rendered).unwrap();
        return;
    }
    let golden = std::fs::read_to_string(GOLDEN).unwrap();
    // The first line that differs, rather than two texts of 150 KB.
    let first = (rendered.lines().zip(golden.lines()))
        .position(|(a, b)| a != b)
        .map(|i| (i + 1, rendered.lines().nth(i), golden.lines().nth(i)));
    assert!(
        rendered == golden,
        "help differs from {GOLDEN} at line, rendered, committed: {first:?}"
    );
}

/// The binary prints what the copy holds (a few of them: the rest are rendered in process).
#[test]
fn the_binary_prints_the_committed_help() {
    let golden = std::fs::read_to_string(GOLDEN).unwrap();
    for args in [&["--help"][..], &["show", "--help"], &["verify", "-h"]] {
        let ran = crate::run(args.iter().copied());
        assert_eq!(ran.status.code(), Some(0));
        let header = format!("==> tfr-inspect {}\n", args.join(" "));
        let expected = golden.split(&header).nth(1).unwrap();
        let expected = expected.split("==> ").next().unwrap();
        assert_eq!(String::from_utf8_lossy(&ran.stdout), expected, "{args:?}");
    }
}
