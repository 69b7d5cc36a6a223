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

/// Runs the binary with `file`'s bytes on standard input (a pipe when `pipe`, else a redirect).
fn run_stdin(args: &[&str], file: &std::path::Path, pipe: bool) -> std::process::Output {
    use std::process::{Command, Stdio};
    let mut command = Command::new(env!("CARGO_BIN_EXE_tfr-inspect"));
    command.args(args).env_remove("NO_COLOR");
    if pipe {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let bytes = std::fs::read(file).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&bytes);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    } else {
        command
            .stdin(std::fs::File::open(file).unwrap())
            .output()
            .unwrap()
    }
}

#[test]
fn a_dash_reads_standard_input_in_every_command_that_reads_files() {
    let damaged = testdata("corrupt/payload_bitflip.tfrecord");
    let examples = testdata("examples.tfrecord");
    for pipe in [true, false] {
        let verify = run_stdin(&["verify", "-"], &damaged, pipe);
        assert_eq!(verify.status.code(), Some(1), "pipe {pipe}");
        assert!(
            stdout(&verify).contains("frame 189 at byte 18978"),
            "pipe {pipe}"
        );
        let list = run_stdin(&["list", "-"], &examples, pipe);
        assert_eq!(stdout(&list).lines().count(), 202, "pipe {pipe}");
        let show = run_stdin(&["show", "-", "-n", "0", "--json"], &examples, pipe);
        assert!(stdout(&show).starts_with("{\"features\""), "pipe {pipe}");
        let hex = run_stdin(&["hex", "-"], &examples, pipe);
        assert!(stdout(&hex).contains("length 83 (u64 little-endian)"));
        let locate = run_stdin(&["locate", "-", "18990"], &damaged, pipe);
        assert!(stdout(&locate).contains("frame 189"), "pipe {pipe}");
        let index = run_stdin(&["index", "-"], &examples, pipe);
        assert!(stdout(&index).starts_with("0 99\n"), "pipe {pipe}");
        let stats = run_stdin(&["stats", "-", "--json"], &examples, pipe);
        assert_eq!(stats.status.code(), Some(0), "pipe {pipe}");
        let salvage = run_stdin(&["salvage", "-", "-o", "-"], &damaged, pipe);
        let direct = run(["salvage", damaged.to_str().unwrap(), "-o", "-"]);
        assert!(!direct.stdout.is_empty());
        assert!(salvage.stdout == direct.stdout, "pipe {pipe}");
    }
    let twice = run(["verify", "-", "-"]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(super::stderr(&twice).contains("only once"));
}

#[test]
fn decoding_options_are_refused_where_nothing_is_decoded() {
    let file = path("examples.tfrecord");
    for (args, said) in [
        (vec!["verify", &file, "--raw"], "--images"),
        (
            vec![
                "salvage",
                &file,
                "-o",
                "/nonexistent/out",
                "--proto",
                "x.proto",
            ],
            "unexpected argument '--proto'",
        ),
        (
            vec!["locate", &file, "0", "--message", "a.B"],
            "unexpected argument '--message'",
        ),
        (vec!["index", &file, "--raw"], "unexpected argument '--raw'"),
        // Before the subcommand, as the inspector takes it: refused by the subcommand.
        (vec!["--raw", "index", &file], "unexpected argument '--raw'"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = super::stderr(&out);
        assert!(err.contains(said), "{args:?}: {err}");
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    // Where it decodes, --raw works, after the subcommand or before it.
    let raw = run(["show", &file, "-n", "0", "--raw"]);
    assert_eq!(raw.status.code(), Some(0));
    let before = run(["--raw", "show", &file, "-n", "0"]);
    assert_eq!(before.status.code(), Some(0));
    assert_eq!(stdout(&before), stdout(&raw));
    // And `index --help` does not offer them.
    let help = stdout(&run(["index", "--help"]));
    assert!(help.contains("--compression"), "{help}");
    for option in ["--proto", "--message", "--raw", "--field-type"] {
        assert!(!help.contains(option), "{option}: {help}");
    }
}

#[test]
fn json_is_spelled_json_everywhere_and_hex_lists_tokens() {
    let file = path("examples.tfrecord");
    let alias = run(["show", &file, "-n", "0", "--format", "json"]);
    let json = run(["show", &file, "-n", "0", "--json"]);
    assert_eq!(stdout(&alias), stdout(&json));
    assert!(stdout(&json).starts_with("{\"features\""));
    assert_eq!(
        run(["show", &file, "--json", "--format", "text"])
            .status
            .code(),
        Some(2)
    );

    let hex = run(["hex", &file, "-n", "1", "--json"]);
    assert_eq!(hex.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&hex.stdout).unwrap();
    assert_eq!(value["record"], 1);
    assert_eq!(value["offset"], 99);
    assert_eq!(value["status"], "intact");
    let tokens = value["tokens"].as_array().unwrap();
    let first = &tokens[0];
    assert_eq!(first["start"], 99);
    assert_eq!(first["end"], 107);
    assert_eq!(first["role"], "frame");
    assert_eq!(first["bytes"], "5400000000000000");
    assert!(first["meaning"].as_str().unwrap().starts_with("length 84"));
    let tag = tokens.iter().find(|t| t["role"] == "tag").unwrap();
    assert!(
        tag["meaning"]
            .as_str()
            .unwrap()
            .contains("field 1 `features`")
    );
    // Tokens tile the frame: each starts where the previous one ended.
    for pair in tokens.windows(2) {
        assert_eq!(pair[0]["end"], pair[1]["start"]);
    }
    assert_eq!(tokens.last().unwrap()["end"], 199);
    let refused = run(["hex", &file, "--json", "--explain"]);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn show_lines_up_wide_feature_names_by_display_width() {
    use super::{len_field, temp_file, tfrecord};
    let int64 = len_field(3, &len_field(1, &[7]));
    let entry = |name: &str| {
        len_field(
            1,
            &[len_field(1, name.as_bytes()), len_field(2, &int64)].concat(),
        )
    };
    let example = len_field(1, &[entry("label_名前"), entry("ab")].concat());
    let (_dir, file) = temp_file("cjk.tfrecord", &tfrecord(&[&example]));
    let out = stdout(&run(["show", file.to_str().unwrap(), "-n", "0"]));
    let column = |name: &str| {
        let line = out.lines().find(|l| l.contains(name)).unwrap();
        let before = &line[..line.find("int64[1]").unwrap()];
        tfr_core::words::display_width(before)
    };
    assert_eq!(column("label_名前"), column("ab"), "{out}");
}

#[test]
fn list_json_names_the_features() {
    let out = run(["list", &path("images.tfrecord"), "--json"]);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(first["features"], 7);
    assert_eq!(
        first["feature_names"],
        serde_json::json!([
            "image/class/label",
            "image/class/text",
            "image/depth",
            "image/encoded",
            "image/format",
            "image/height",
            "image/width"
        ])
    );
    // Damaged frames have no features to name.
    let damaged = stdout(&run([
        "list",
        &path("corrupt/payload_bitflip.tfrecord"),
        "--json",
    ]));
    let row: serde_json::Value = serde_json::from_str(damaged.lines().nth(189).unwrap()).unwrap();
    assert!(row.get("feature_names").is_none(), "{row}");
}

#[test]
fn hex_and_locate_word_a_huge_declared_length_as_verify_does() {
    let file = path("corrupt/absurd_length.tfrecord");
    // Frame 115 declares 2^62 bytes; 84 intact frames follow it, so its bytes are not the
    // file's last.
    let hex = stdout(&run(["hex", &file, "-n", "115"]));
    assert!(!hex.contains("the file's last"), "{hex}");
    assert!(
        hex.contains("87 bytes, up to the next intact frame at byte 11641, where the header announces a 4611686018427387904-byte payload"),
        "{hex}"
    );
    let verify = stdout(&run(["verify", &file]));
    let locate = stdout(&run(["locate", &file, "11542"]));
    let crash = "TensorFlow 2.21 dies with SIGSEGV on a length this large";
    assert!(verify.contains(crash), "{verify}");
    assert!(locate.contains(crash), "{locate}");
}

#[test]
fn locate_past_the_end_is_an_error_on_stderr() {
    let file = path("corrupt/absurd_length.tfrecord");
    let out = run(["locate", &file, "25525"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    assert!(super::stderr(&out).contains("byte 25525 is past the end of the stream"));
}
