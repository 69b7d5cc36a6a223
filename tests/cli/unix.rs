//! What users of Unix tools expect from any command: `--color`, completions and the man page, a
//! subcommand suggested for a typo, `-` as standard input, options refused where they do nothing.

use super::{run, stdout, testdata};

fn path(name: &str) -> String {
    testdata(name).display().to_string()
}

#[test]
fn color_always_colours_through_a_pipe_and_never_or_auto_do_not() {
    let file = path("mnist_like.tfrecord");
    let always = run(["hex", &file, "--color", "always"]);
    assert!(stdout(&always).contains("\x1b[33m"), "tags are yellow");
    // `--color` is global: it may come before the subcommand too.
    let before = run(["--color", "always", "hex", &file]);
    assert_eq!(stdout(&before), stdout(&always));
    for choice in ["auto", "never"] {
        let plain = run(["hex", &file, "--color", choice]);
        assert!(
            !stdout(&plain).contains('\x1b'),
            "--color {choice} in a pipe"
        );
    }
    let bad = run(["hex", &file, "--color", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn color_always_paints_damage_red_in_list_and_verify() {
    let file = path("corrupt/payload_bitflip.tfrecord");
    let list = stdout(&run(["list", &file, "--color", "always"]));
    let damaged = list.lines().find(|l| l.contains("   189 ")).unwrap();
    assert!(damaged.starts_with("\x1b[31m"), "{damaged:?}");
    let intact = list.lines().find(|l| l.contains("   188 ")).unwrap();
    assert!(!intact.contains('\x1b'), "{intact:?}");
    assert!(list.contains("\x1b[31m1 damaged\x1b[0m"), "{list}");

    let verify = stdout(&run(["verify", &file, "--color", "always"]));
    assert!(
        verify.contains("\x1b[31mframe 189 at byte 18978"),
        "{verify}"
    );
    assert!(verify.contains("\x1b[1;31mDAMAGED\x1b[0m"), "{verify}");
    let ok = stdout(&run([
        "verify",
        &path("examples.tfrecord"),
        "--color=always",
    ]));
    assert!(ok.contains("\x1b[32mOK\x1b[0m"), "{ok}");

    // Plain in a pipe, as before.
    let plain = stdout(&run(["verify", &file]));
    assert!(!plain.contains('\x1b'), "{plain}");
}

#[test]
fn completions_for_each_shell_and_the_man_page_are_printed() {
    for (shell, mark) in [
        ("bash", "complete -F _tfr__inspect"),
        ("zsh", "#compdef tfr-inspect"),
        ("fish", "complete -c tfr-inspect"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = run(["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        assert!(script.contains(mark), "{shell}: {script}");
        assert!(script.contains("verify"), "{shell} completes subcommands");
    }
    let man = run(["man"]);
    assert_eq!(man.status.code(), Some(0));
    let page = stdout(&man);
    assert!(page.contains(".TH tfr-inspect 1"), "{page}");
    assert!(page.contains("verify"), "{page}");
}

#[test]
fn a_misspelled_subcommand_is_suggested_and_no_file_is_read() {
    let file = path("examples.tfrecord");
    let out = run(["verfy", &file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty(), "the file is not listed");
    let err = super::stderr(&out);
    assert!(
        err.contains(
            "`verfy` is neither a file nor a subcommand; did you mean `tfr-inspect verify`?"
        ),
        "{err}"
    );
    // A missing file that looks like no subcommand is still a missing file.
    let missing = run(["missing.tfrecord"]);
    assert!(super::stderr(&missing).contains("missing.tfrecord"));
    assert!(!super::stderr(&missing).contains("did you mean"));
}

#[test]
fn every_subcommand_help_has_an_example() {
    let help = stdout(&run(["--help"]));
    assert!(help.contains("Examples:"), "{help}");
    let names: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(names.len() >= 11, "{names:?}");
    for name in names {
        let help = stdout(&run([name, "--help"]));
        let examples = help
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}: {help}"));
        assert!(
            examples
                .lines()
                .next()
                .unwrap()
                .starts_with(&format!("  tfr-inspect {name}"))
                || examples.contains(&format!("tfr-inspect {name}")),
            "{name}: {examples}"
        );
    }
}
