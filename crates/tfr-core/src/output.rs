//! Where a command may write a file it produces, and how it writes it.
//!
//! An output is a new file, or, when the user asks for it, a replacement for an existing regular
//! file. Never the input itself, and never anything else: a device node, FIFO, socket or directory
//! named as the output (directly or through a symbolic link) is refused, because putting a regular
//! file in its place, as the final rename does, breaks whatever relies on it (`-o /dev/null` as
//! root would turn /dev/null into a regular file). `-` names standard output, allowed only when it
//! is not a terminal. A file is written beside its final name, synced, and renamed into place, so an
//! interrupted run never leaves a half-written output. Every command that writes files (`salvage`,
//! and later ones) goes through [`OutputPolicy::check`] and [`write_atomically`].

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::escape::path_for_terminal;

/// Where the output goes once the policy allowed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// `-`: the bytes go to standard output.
    Stdout,
    /// A new file, or a regular file to replace.
    File(PathBuf),
}

/// Why an output was refused or could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error(
        "refusing to write over the input: {} is {}",
        path_for_terminal(output),
        path_for_terminal(input)
    )]
    IsInput { output: PathBuf, input: PathBuf },

    #[error(
        "refusing to replace {}: it is {what}; an output must be a new path or a regular file",
        path_for_terminal(path)
    )]
    NotRegular { path: PathBuf, what: Occupant },

    #[error("{} already exists", path_for_terminal(path))]
    Exists { path: PathBuf },

    #[error(
        "refusing to write records to standard output: it is a terminal (redirect it to a file or a pipe)"
    )]
    StdoutIsTerminal,

    #[error("{}: {source}", path_for_terminal(path))]
    Io { path: PathBuf, source: io::Error },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What an output may replace.
#[derive(Debug, Clone, Copy)]
pub struct OutputPolicy<'a> {
    /// The command's inputs: never written, under any name.
    pub inputs: &'a [&'a Path],
    /// Whether an existing regular file may be replaced (`--force`).
    pub replace_existing: bool,
    /// Whether standard output is a terminal (then `-` is refused).
    pub stdout_is_terminal: bool,
}

impl OutputPolicy<'_> {
    /// Where `output` may be written, or why it may not.
    ///
    /// A symbolic link to a regular file counts as that file, and it is the link that the final
    /// rename replaces: the file it pointed to is never written through it.
    pub fn check(&self, output: &Path) -> Result<Destination, OutputError> {
        if output.as_os_str() == "-" {
            if self.stdout_is_terminal {
                return Err(OutputError::StdoutIsTerminal);
            }
            return Ok(Destination::Stdout);
        }
        if let Some(input) = self.inputs.iter().find(|input| same_file(input, output)) {
            return Err(OutputError::IsInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
        let link = match fs::symlink_metadata(output) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Destination::File(output.to_path_buf()));
            }
            Err(e) => return Err(io_error(output)(e)),
        };
        let refused = |what| OutputError::NotRegular {
            path: output.to_path_buf(),
            what,
        };
        if link.file_type().is_symlink() {
            let target = fs::metadata(output).map_err(|_| refused(Occupant::DanglingLink))?;
            if let Some(what) = not_regular(&target, true) {
                return Err(refused(what));
            }
        } else if let Some(what) = not_regular(&link, false) {
            return Err(refused(what));
        }
        if !self.replace_existing {
            return Err(OutputError::Exists {
                path: output.to_path_buf(),
            });
        }
        Ok(Destination::File(output.to_path_buf()))
    }
}

/// What kind of file an output path names, when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Directory,
    CharDevice,
    BlockDevice,
    Fifo,
    Socket,
    /// Something else that is not a regular file.
    Other,
}

/// What stands at an output path that is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupant {
    /// `kind`, named directly or (`via_link`) through a symbolic link.
    Kind { kind: FileKind, via_link: bool },
    /// A symbolic link whose target does not exist.
    DanglingLink,
}

impl std::fmt::Display for Occupant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (kind, via_link) = match *self {
            Occupant::DanglingLink => return f.write_str("a symbolic link that leads nowhere"),
            Occupant::Kind { kind, via_link } => (kind, via_link),
        };
        let name = match kind {
            FileKind::Directory => "a directory",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Fifo => "a FIFO",
            FileKind::Socket => "a socket",
            FileKind::Other if via_link => {
                return f.write_str("a symbolic link to something other than a regular file");
            }
            FileKind::Other => "not a regular file",
        };
        if via_link {
            f.write_str("a symbolic link to ")?;
        }
        f.write_str(name)
    }
}

/// What `meta` describes, when it is not a regular file.
fn not_regular(meta: &fs::Metadata, via_link: bool) -> Option<Occupant> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    let kind = if kind.is_dir() {
        FileKind::Directory
    } else {
        special_kind(&kind)
    };
    Some(Occupant::Kind { kind, via_link })
}

#[cfg(unix)]
fn special_kind(kind: &fs::FileType) -> FileKind {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_char_device() {
        FileKind::CharDevice
    } else if kind.is_block_device() {
        FileKind::BlockDevice
    } else if kind.is_fifo() {
        FileKind::Fifo
    } else if kind.is_socket() {
        FileKind::Socket
    } else {
        FileKind::Other
    }
}

#[cfg(not(unix))]
fn special_kind(_: &fs::FileType) -> FileKind {
    FileKind::Other
}

/// `path` with its directory resolved, for paths that may not exist yet.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Some(p);
    }
    Some(
        fs::canonicalize(parent_dir(path))
            .ok()?
            .join(path.file_name()?),
    )
}

/// Whether `output` names `input`: the same path once links are resolved, or the same inode
/// under another name (a hard link).
fn same_file(input: &Path, output: &Path) -> bool {
    let same_path = matches!((resolved(input), resolved(output)), (Some(a), Some(b)) if a == b);
    same_path
        || match (fs::metadata(input), fs::metadata(output)) {
            (Ok(a), Ok(b)) => same_inode(&a, &b),
            _ => false,
        }
}

#[cfg(unix)]
fn same_inode(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_inode(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    false
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The longest file name most file systems take (`NAME_MAX`), in bytes.
const NAME_MAX: usize = 255;
/// What ends a temporary file's name, after its random part.
const TEMP_SUFFIX: &str = ".tmp";
/// The random characters in a temporary file's name.
const TEMP_RANDOM: usize = 6;

/// The start of the temporary name beside `output`: `.NAME.`, with NAME cut (at a character
/// boundary) so that the whole name, `.NAME.XXXXXX.tmp`, fits in [`NAME_MAX`] bytes whatever
/// the output is called; a 249-byte output name is valid, and its temporary name must be too.
fn temp_prefix(output: &Path) -> String {
    let base = output
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let room = NAME_MAX.saturating_sub(2 + TEMP_RANDOM + TEMP_SUFFIX.len());
    let mut cut = base.len().min(room);
    while !base.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(".{}.", base.get(..cut).unwrap_or_default())
}

/// A new temporary file beside `output`, removed when dropped unless persisted. It gets the
/// permissions any new file gets (0666 less the umask), not a temporary file's 0600, since it
/// becomes the output.
fn create_temp(output: &Path) -> Result<NamedTempFile, OutputError> {
    let dir = parent_dir(output);
    let prefix = temp_prefix(output);
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(&prefix)
        .suffix(TEMP_SUFFIX)
        .rand_bytes(TEMP_RANDOM);
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    // tempfile's error appends the temporary file's name ("at path …/.out.tfrecord.x1Y2.tmp"),
    // which the user never asked for: the directory and the system's reason are what they can act on.
    builder.tempfile_in(dir).map_err(|e| {
        // Its inner error is not reachable (its `source` skips it), so the suffix is cut from
        // the text, which is the system's message up to it.
        let text = e.to_string();
        let reason = text.split(" at path ").next().unwrap_or_default();
        let plain = io::Error::new(e.kind(), reason.to_string());
        io_error(dir)(plain)
    })
}

/// Writes a new file at `output` with `write`, atomically: into a temporary file beside it,
/// synced, then renamed into place. The policy is checked again just before the rename, so a path
/// that became a device or FIFO meanwhile is still refused. Returns what `write` returned.
pub fn write_atomically<T>(
    output: &Path,
    policy: &OutputPolicy,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> Result<T, OutputError> {
    let mut temp = create_temp(output)?;
    let mut writer = BufWriter::new(temp.as_file_mut());
    // Errors name the output: the temporary file beside it is removed when `temp` is dropped.
    let written = write(&mut writer)
        .and_then(|n| writer.flush().map(|_| n))
        .map_err(io_error(output))?;
    drop(writer);
    temp.as_file().sync_all().map_err(io_error(output))?;
    policy.check(output)?;
    // A rename: a symbolic link at `output` is replaced, never written through.
    temp.persist(output)
        .map_err(|e| io_error(output)(e.error))?;
    #[cfg(unix)]
    {
        // Makes the rename itself durable; a failure here does not undo the write.
        let _ = File::open(parent_dir(output)).and_then(|d| d.sync_all());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy<'a>(inputs: &'a [&'a Path], force: bool) -> OutputPolicy<'a> {
        OutputPolicy {
            inputs,
            replace_existing: force,
            stdout_is_terminal: false,
        }
    }

    fn refusal(result: Result<Destination, OutputError>) -> String {
        match result {
            Err(e) => e.to_string(),
            Ok(d) => panic!("allowed: {d:?}"),
        }
    }

    #[test]
    fn temporary_names_fit_name_max_whatever_the_output_is_called() {
        let prefix = |n: &str| temp_prefix(Path::new("dir").join(n).as_path());
        assert_eq!(prefix("out.idx"), ".out.idx.");
        for base in ["o".repeat(249), "o".repeat(255), "é".repeat(127)] {
            let prefix = prefix(&base);
            let whole = prefix.len() + TEMP_RANDOM + TEMP_SUFFIX.len();
            // Cut at most a character short of the limit.
            assert!(
                (NAME_MAX - 3..=NAME_MAX).contains(&whole),
                "{whole} bytes: {prefix}"
            );
        }
        // Written for real: a 249-byte output name is valid, and so is its temporary file.
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("o".repeat(249));
        let written = write_atomically(&output, &policy(&[], false), |w| w.write_all(b"x"));
        assert!(written.is_ok(), "{written:?}");
        assert_eq!(fs::read(&output).unwrap(), b"x");
        // The temporary file beside it is named after it.
        let temp = create_temp(&dir.path().join("out.idx")).unwrap();
        let name = temp
            .path()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert!(
            name.starts_with(".out.idx.") && name.ends_with(".tmp"),
            "{name}"
        );
        assert_eq!(
            name.len(),
            ".out.idx.".len() + TEMP_RANDOM + TEMP_SUFFIX.len()
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_output_gets_the_permissions_of_any_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        File::create(&plain).unwrap();
        let out = dir.path().join("out");
        write_atomically(&out, &policy(&[], false), |w| w.write_all(b"x")).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&out), mode(&plain));
    }

    /// Errors name the directory or the output the user gave, never the temporary file.
    #[test]
    fn errors_name_the_output_not_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-dir").join("out.tfrecord");
        let error = write_atomically(&missing, &policy(&[], false), |w| w.write_all(b"x"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("no-such-dir"), "{error}");
        assert!(error.contains("No such file or directory"), "{error}");
        // The temporary file is `.out.tfrecord.XXXXXX.tmp`, and tempfile names it "at path".
        assert!(
            !error.contains("out.tfrecord") && !error.contains("at path"),
            "{error}"
        );

        let out = dir.path().join("out.tfrecord");
        let failing = |_: &mut dyn Write| -> io::Result<()> { Err(io::Error::other("disk full")) };
        let error = write_atomically(&out, &policy(&[], false), failing)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("out.tfrecord") && error.contains("disk full"),
            "{error}"
        );
        assert!(!error.contains(".out.tfrecord."), "{error}");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "nothing is left behind"
        );
    }

    #[test]
    fn a_new_path_is_allowed_and_an_existing_file_only_when_forced() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.tfrecord");
        let p = policy(&[], false);
        assert_eq!(p.check(&new).unwrap(), Destination::File(new.clone()));
        fs::write(&new, b"x").unwrap();
        assert!(matches!(p.check(&new), Err(OutputError::Exists { .. })));
        assert!(policy(&[], true).check(&new).is_ok());
    }

    #[test]
    fn the_input_is_refused_under_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.tfrecord");
        fs::write(&input, b"").unwrap();
        let hard = dir.path().join("hard.tfrecord");
        fs::hard_link(&input, &hard).unwrap();
        let dotted = dir.path().join(".").join("in.tfrecord");
        let inputs = [input.as_path()];
        let mut names = vec![input.clone(), dotted, hard];
        #[cfg(unix)]
        {
            let soft = dir.path().join("soft.tfrecord");
            std::os::unix::fs::symlink(&input, &soft).unwrap();
            names.push(soft);
        }
        for name in names {
            let err = refusal(policy(&inputs, true).check(&name));
            assert!(err.starts_with("refusing to write over the input"), "{err}");
        }
    }

    #[test]
    fn a_directory_is_refused_even_when_forced() {
        let dir = tempfile::tempdir().unwrap();
        let err = refusal(policy(&[], true).check(dir.path()));
        assert!(err.contains("it is a directory"), "{err}");
    }

    #[test]
    fn standard_output_is_allowed_unless_it_is_a_terminal() {
        let dash = Path::new("-");
        assert_eq!(policy(&[], false).check(dash).unwrap(), Destination::Stdout);
        let terminal = OutputPolicy {
            stdout_is_terminal: true,
            ..policy(&[], true)
        };
        assert!(matches!(
            terminal.check(dash),
            Err(OutputError::StdoutIsTerminal)
        ));
        // `./-` is a file named `-`.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("-");
        assert_eq!(terminal.check(&file).unwrap(), Destination::File(file));
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_sockets_and_links_to_them_are_refused_even_when_forced() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let cases = [
            (PathBuf::from("/dev/null"), "it is a character device"),
            (fifo.clone(), "it is a FIFO"),
            (socket.clone(), "it is a socket"),
        ];
        for (path, what) in cases {
            let err = refusal(policy(&[], true).check(&path));
            assert!(err.contains(what), "{err}");
            let link = dir.path().join(format!(
                "link-{}",
                path.file_name().unwrap().to_string_lossy()
            ));
            symlink(&path, &link).unwrap();
            let err = refusal(policy(&[], true).check(&link));
            assert!(err.contains("it is a symbolic link to a"), "{err}");
        }
        let to_dir = dir.path().join("to-dir");
        symlink(dir.path(), &to_dir).unwrap();
        let err = refusal(policy(&[], true).check(&to_dir));
        assert!(err.contains("a symbolic link to a directory"), "{err}");
        let dangling = dir.path().join("dangling");
        symlink(dir.path().join("missing"), &dangling).unwrap();
        let err = refusal(policy(&[], true).check(&dangling));
        assert!(err.contains("leads nowhere"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_regular_file_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, b"keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let p = policy(&[], true);
        assert!(p.check(&link).is_ok());
        write_atomically(&link, &p, |out| out.write_all(b"new")).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"keep");
        assert_eq!(fs::read(&link).unwrap(), b"new");
        assert!(
            !fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn an_atomic_write_leaves_only_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let p = policy(&[], false);
        assert_eq!(
            write_atomically(&out, &p, |w| w.write_all(b"abc").map(|_| 3)).unwrap(),
            3
        );
        assert_eq!(fs::read(&out).unwrap(), b"abc");
        let failed = write_atomically(&dir.path().join("other"), &p, |_| {
            Err::<(), _>(io::Error::other("disk full"))
        });
        assert!(failed.unwrap_err().to_string().contains("disk full"));
        // Refused at the final check: OUT appeared meanwhile and replacing was not allowed.
        let raced = write_atomically(&out, &p, |w| w.write_all(b"zzz"));
        assert!(matches!(raced, Err(OutputError::Exists { .. })));
        assert_eq!(fs::read(&out).unwrap(), b"abc");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out")]);
    }
}
