//! `index`: the record index `tfrecord2idx` writes (one `offset length` line per record, the
//! length counting the whole frame), byte-identical to it on intact files, and `index --check`,
//! which compares an existing index with the file and names the first wrong line.
//!
//! `tfrecord2idx` indexes whatever bytes it is given: a truncated shard gets a last line past the
//! end of the file, a GZIP shard gets lines that point into compressed bytes. Here a damaged or
//! compressed file is refused with the reason, unless `--intact-only` asks for the intact records
//! alone (of a compressed file, at their offsets in the decompressed stream).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::{Env, Messages, Status};
use tfr_core::escape::path_for_terminal;
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::record_index;
use tfr_core::report::index::{IndexCheck, Indexed};
use tfr_core::source::ReadOptions;
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The TFRecord file to index (opened read-only); or a directory or quoted glob pattern, whose
    /// shards each get their index in the directory `-o OUTDIR`, named `SHARD.idx`.
    pub file: PathBuf,
    /// With --check: the existing index to compare with FILE.
    #[arg(requires = "check")]
    pub idx: Option<PathBuf>,
    /// Compare the index IDX with FILE and name its first wrong line (exit 1 when one is).
    #[arg(long, requires = "idx", conflicts_with = "output")]
    pub check: bool,
    /// Write the index to IDX instead of standard output; of a directory or pattern, the
    /// directory the indexes go to (made when missing).
    #[arg(short, long, value_name = "IDX|OUTDIR")]
    pub output: Option<PathBuf>,
    /// Replace IDX if it is an existing regular file; in OUTDIR, replace existing index files
    /// (regular files that read as an index, nothing else).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Index only the intact records of a damaged file, leaving its damaged frames out; of a
    /// GZIP/ZLIB file, index its decompressed stream.
    #[arg(long)]
    pub intact_only: bool,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

/// Refuses what an index cannot describe faithfully, unless `--intact-only` asked for it; notes
/// on standard error what was left out when it did.
pub(super) fn refuse(
    args: &IndexArgs,
    file: &Path,
    indexed: &Indexed,
    messages: &Messages,
) -> Option<Status> {
    let name = path_for_terminal(file);
    if let Some(kind) = indexed.compression {
        if !args.intact_only {
            messages.error(&format!(
                "{name}: is {kind}-compressed: an index gives offsets into the file's bytes, and \
                 readers seek there directly (DALI cannot read compressed records at all); \
                 decompress it first, or pass --intact-only to index its decompressed stream"
            ));
            return Some(Status::Unusable);
        }
        messages.note(&format!(
            "{name}: note: {kind}-compressed; the offsets are in its decompressed stream, as a \
             reader that decompresses the whole file sees them"
        ));
    }
    if indexed.damaged > 0 {
        let damaged = plural(indexed.damaged as u64, "damaged frame");
        if !args.intact_only {
            messages.error(&format!(
                "{name}: has {damaged} (`verify` names them): an index of it would send readers \
                 into bad bytes; pass --intact-only to index its {} intact records alone",
                indexed.entries.len()
            ));
            return Some(Status::Damage);
        }
        messages.note(&format!(
            "{name}: note: {damaged} left out; {} indexed",
            plural(indexed.entries.len() as u64, "intact record")
        ));
    }
    None
}

pub fn run(
    args: &IndexArgs,
    read: &ReadOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if !args.check && is_many(&args.file) {
        return super::index_dir::run(args, read, messages, out);
    }
    let indexed = match Indexed::read(&args.file, read) {
        Ok(indexed) => indexed,
        Err(e) => return Ok(messages.unusable(&e)),
    };
    if let Some(status) = refuse(args, &args.file, &indexed, messages) {
        return Ok(messages.raise(status));
    }
    // Damage left out at the user's request still sets the exit status.
    if indexed.damaged > 0 {
        messages.damage();
    }
    if args.check {
        let Some(idx) = &args.idx else {
            return Ok(messages.unusable("--check needs FILE and IDX"));
        };
        return check(args, idx, &indexed, messages, out);
    }
    let Some(output) = &args.output else {
        record_index::write(&indexed.entries, out)?;
        return Ok(messages.status());
    };
    let inputs = [args.file.as_path()];
    let policy = OutputPolicy {
        inputs: &inputs,
        replace_existing: args.force,
        stdout_is_terminal: env.stdout.terminal,
    };
    let written = match policy.check(output) {
        Ok(Destination::Stdout) => record_index::write(&indexed.entries, out),
        Ok(Destination::File(path)) => {
            match write_atomically(&path, &policy, |w| record_index::write(&indexed.entries, w)) {
                Ok(()) => Ok(()),
                Err(e) => return Ok(messages.unusable(&e)),
            }
        }
        Err(e) => return Ok(messages.unusable(&e)),
    };
    written?;
    if output.as_os_str() != "-" {
        writeln!(
            out,
            "{}: {} indexed",
            path_for_terminal(output),
            plural(indexed.entries.len() as u64, "record")
        )?;
    }
    Ok(messages.status())
}

/// Whether `arg` names many shards (a directory or a glob pattern) rather than one file.
fn is_many(arg: &Path) -> bool {
    arg.is_dir() || (!arg.exists() && tfr_core::dataset::discover::is_pattern(arg))
}

/// `--check`: compares IDX with the file's records.
fn check(
    args: &IndexArgs,
    idx: &std::path::Path,
    indexed: &Indexed,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let name = path_for_terminal(idx);
    // Read line by line, never whole: the index may be a FIFO or a device that never ends.
    let compared = std::fs::File::open(idx)
        .and_then(|file| IndexCheck::compare(&indexed.entries, &mut io::BufReader::new(file)));
    let check = match compared {
        Ok(check) => check,
        Err(e) => return Ok(messages.unusable(&format!("{name}: {e}"))),
    };
    let file = path_for_terminal(&args.file);
    match &check.mismatch {
        None => writeln!(
            out,
            "{name}: OK: matches {file} ({})",
            plural(check.records as u64, "record")
        )?,
        Some(mismatch) => {
            writeln!(out, "{name}: WRONG for {file}: {mismatch}")?;
            messages.damage();
        }
    }
    Ok(messages.status())
}
