//! Inputs that are not plain files in plain directories: named pipes among the arguments or in a
//! directory, standard input beside a file, directories too deep or unreadable, links to
//! directories, shards that cannot be read. Each is read once or named with why it was not, and
//! the verdict says what was and was not checked.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::{MEMORY_CAP_KIB, mkfifo, run_bounded, stderr, stdout, testdata};

/// A directory holding `a.tfrecord` (a copy of `examples.tfrecord`) and a named pipe
/// `p.tfrecord` nobody writes to.
fn with_pipe() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(testdata("examples.tfrecord"), dir.path().join("a.tfrecord")).unwrap();
    mkfifo(&dir.path().join("p.tfrecord"));
    dir
}

fn bounded(args: &[&str], dir: &Path) -> Output {
    run_bounded(args, dir, b"", MEMORY_CAP_KIB)
}

#[test]
fn a_pipe_found_in_a_directory_or_by_a_pattern_is_skipped_not_read() {
    let dir = with_pipe();
    for command in ["verify", "list", "stats"] {
        for input in [".", "*.tfrecord"] {
            let output = bounded(&[command, input], dir.path());
            assert_eq!(output.status.code(), Some(0), "{command} {input}");
            let said = format!("{}{}", stdout(&output), stderr(&output));
            assert!(
                said.contains("p.tfrecord: skipped: a named pipe, not a regular file"),
                "{command} {input}: {said}"
            );
        }
    }
}

#[test]
fn standard_input_beside_a_file_loses_no_bytes() {
    let dir = with_pipe();
    let stream = std::fs::read(testdata("examples.tfrecord")).unwrap();
    let output = run_bounded(
        ["verify", "-", "a.tfrecord"],
        dir.path(),
        &stream,
        MEMORY_CAP_KIB,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output)
            .starts_with("/dev/stdin: OK: 200 frames, 200 intact, 0 damaged, 20083 bytes\n"),
        "{}",
        stdout(&output)
    );
    let list = run_bounded(
        ["list", "-", "a.tfrecord"],
        dir.path(),
        &stream,
        MEMORY_CAP_KIB,
    );
    assert!(
        stdout(&list).contains("\n      0             0"),
        "record 0 of the pipe is listed: {}",
        stdout(&list)
    );
}

#[test]
fn a_named_pipe_given_as_an_argument_is_read_once() {
    let dir = with_pipe();
    let fifo = dir.path().join("p.tfrecord");
    let writer = std::thread::spawn(move || {
        // Blocks until the command opens the pipe to read it; a second open would find no
        // writer and wait for ever.
        let _ = std::fs::write(fifo, std::fs::read(testdata("examples.tfrecord")).unwrap());
    });
    let output = bounded(&["verify", "p.tfrecord", "a.tfrecord"], dir.path());
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("p.tfrecord: OK: 200 frames, 200 intact"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_directory_too_deep_to_search_is_named_and_unusable() {
    let dir = tempfile::tempdir().unwrap();
    let mut deep = dir.path().join("top");
    for _ in 0..33 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::copy(testdata("examples.tfrecord"), deep.join("x.tfrecord")).unwrap();
    std::fs::copy(
        testdata("examples.tfrecord"),
        dir.path().join("top/t.tfrecord"),
    )
    .unwrap();
    let output = bounded(&["verify", "top"], dir.path());
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let depth32 = format!("top{}", "/d".repeat(33));
    assert_eq!(
        stderr(&output),
        format!(
            "tfr-inspect: {depth32}: not searched: more than 32 directory levels deep (name it to search it)\n"
        )
    );
    assert!(
        stdout(&output).contains("dataset: INCOMPLETE: 0 splits, 1 file, 200 frames, 0 damaged, 0 dataset problems; 1 input not read (named on standard error)"),
        "{}",
        stdout(&output)
    );
    // Named, it is searched.
    let named = bounded(&["verify", &depth32], dir.path());
    assert_eq!(named.status.code(), Some(0), "{}", stderr(&named));
}

#[test]
fn links_to_directories_are_followed_when_named_and_not_when_met() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("data/real")).unwrap();
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    std::fs::copy(
        testdata("examples.tfrecord"),
        dir.path().join("data/real/a.tfrecord"),
    )
    .unwrap();
    std::fs::copy(
        testdata("examples.tfrecord"),
        dir.path().join("elsewhere/b.tfrecord"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../elsewhere", dir.path().join("data/link")).unwrap();
    let skipped = "data/link: skipped: a link to a directory, not followed (name it to search it)";
    // The directory's search and the pattern agree: the link is named, its files not read.
    for input in ["data", "data/*"] {
        let output = bounded(&["verify", input], dir.path());
        assert_eq!(output.status.code(), Some(0), "{input}");
        let text = format!("{}{}", stdout(&output), stderr(&output));
        assert!(text.contains(skipped), "{input}: {text}");
        assert!(!text.contains("b.tfrecord"), "{input}: {text}");
        assert!(text.contains("data/real/a.tfrecord: OK"), "{input}: {text}");
    }
    let named = bounded(&["verify", "data/link"], dir.path());
    assert!(
        stdout(&named).contains("data/link/b.tfrecord: OK"),
        "{}",
        stdout(&named)
    );
}

/// The arguments that run the binary without the privilege to read any file (for root, whose
/// privilege makes every file readable; `None` where it cannot be dropped).
fn unprivileged() -> Option<Vec<OsString>> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    let binary = OsString::from(env!("CARGO_BIN_EXE_tfr-inspect"));
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some(vec![binary]);
    }
    let drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"];
    Command::new(drop[0]).arg("--version").output().ok()?;
    Some(
        drop.map(OsString::from)
            .into_iter()
            .chain([binary])
            .collect(),
    )
}

fn run_unprivileged(args: &[&Path]) -> Option<Output> {
    let mut command = unprivileged()?;
    command.extend(args.iter().map(|a| a.as_os_str().to_owned()));
    let (program, rest) = command.split_first()?;
    Command::new(program).args(rest).output().ok()
}

#[test]
fn an_unreadable_subdirectory_is_named_and_unusable() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(testdata("examples.tfrecord"), dir.path().join("a.tfrecord")).unwrap();
    std::fs::copy(testdata("examples.tfrecord"), sub.join("b.tfrecord")).unwrap();
    std::fs::set_permissions(&sub, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let Some(output) = run_unprivileged(&[Path::new("verify"), dir.path()]) else {
        eprintln!("skipped: privileges cannot be dropped here");
        return;
    };
    std::fs::set_permissions(&sub, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(
        stderr(&output).contains(&format!(
            "{}: cannot be searched: Permission denied",
            sub.display()
        )),
        "{}",
        stderr(&output)
    );
    assert!(
        stdout(&output).contains("dataset: INCOMPLETE: "),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_shard_that_cannot_be_read_leaves_the_dataset_incomplete_not_damaged() {
    let (_tmp, dir) = super::dataset::toy_parcels();
    let shard: PathBuf = dir.join("toy_parcels-train.tfrecord-00001-of-00002");
    std::fs::set_permissions(&shard, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let Some(output) = run_unprivileged(&[Path::new("verify"), &dir]) else {
        eprintln!("skipped: privileges cannot be dropped here");
        return;
    };
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let text = stdout(&output);
    // Found but unread: neither missing nor short of records, and not said to agree.
    assert!(!text.contains("1 shard found"), "{text}");
    assert!(
        text.contains("train: 2 shards, 15 frames, 15 intact, 0 damaged, 4531 bytes of records, 1 unreadable\n"),
        "{text}"
    );
    assert!(
        text.ends_with("dataset: INCOMPLETE: 2 splits, 4 files, 23 frames, 0 damaged, 0 dataset problems; 1 input not read (named on standard error)\n"),
        "{text}"
    );
}

#[test]
fn images_reads_standard_input_for_a_dash() {
    let dir = tempfile::tempdir().unwrap();
    let stream = std::fs::read(testdata("images.tfrecord")).unwrap();
    let output = run_bounded(
        ["images", "-", "-n", "0", "-o", "out"],
        dir.path(),
        &stream,
        MEMORY_CAP_KIB,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output)
            .starts_with("out/stdin.r0.image-encoded.jpg  record 0 image/encoded: JPEG 64x48"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn stats_reads_more_files_than_can_be_open_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let record = super::tfrecord(&[&super::len_field(1, b"")]);
    // More than the 4096 maps the process guards at once, and more than a usual descriptor
    // limit of 1024.
    let files = 4200;
    for i in 0..files {
        std::fs::write(dir.path().join(format!("f{i:04}.tfrecord")), &record).unwrap();
    }
    let output = bounded(&["stats", "."], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with(&format!("all files: {files} records (4200 Example)")),
        "{}",
        stdout(&output)
    );
}
