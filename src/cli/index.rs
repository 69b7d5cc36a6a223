//! `index`: the record index `tfrecord2idx` writes (one `offset length` line per record, the
//! length counting the whole frame), byte-identical to it on intact files, and `index --check`,
//! which compares an existing index with the file and names the first wrong line.
//!
//! `tfrecord2idx` indexes whatever bytes it is given: a truncated shard gets a last line past the
//! end of the file, a GZIP shard gets lines that point into compressed bytes. Here a damaged or
//! compressed file is refused with the reason, unless `--intact-only` asks for the intact records
//! alone (of a compressed file, at their offsets in the decompressed stream).

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Status, report_unusable};
use tfr_core::escape::path_for_terminal;
use tfr_core::frame::FrameIndex;
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::record_index::{self, IndexEntry};
use tfr_core::source::{ReadOptions, Source};
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The TFRecord file to index (opened read-only).
    pub file: PathBuf,
    /// With --check: the existing index to compare with FILE.
    #[arg(requires = "check")]
    pub idx: Option<PathBuf>,
    /// Compare the index IDX with FILE and name its first wrong line (exit 1 when one is).
    #[arg(long, requires = "idx", conflicts_with = "output")]
    pub check: bool,
    /// Write the index to IDX instead of standard output.
    #[arg(short, long, value_name = "IDX")]
    pub output: Option<PathBuf>,
    /// Replace IDX if it is an existing regular file.
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Index only the intact records of a damaged file, leaving its damaged frames out; of a
    /// GZIP/ZLIB file, index its decompressed stream.
    #[arg(long)]
    pub intact_only: bool,
}

/// What the file holds, as far as an index is concerned.
struct Indexed {
    entries: Vec<IndexEntry>,
    damaged: usize,
    /// `GZIP` or `ZLIB`, when the file is compressed.
    compression: Option<&'static str>,
}

fn read(args: &IndexArgs, read: &ReadOptions) -> Result<Indexed, Status> {
    let source = Source::open(&args.file, read).map_err(|e| report_unusable(&e))?;
    let index = FrameIndex::build(&source);
    let entries = record_index::entries(&index, &source);
    source.check_unchanged().map_err(|e| report_unusable(&e))?;
    let stream_damaged = source.compression().is_some_and(|c| c.problem.is_some());
    Ok(Indexed {
        entries,
        damaged: index.damaged_count() + usize::from(stream_damaged),
        compression: source
            .compression()
            .map(|c| c.compression.tensorflow_name()),
    })
}

/// Refuses what an index cannot describe faithfully, unless `--intact-only` asked for it; notes
/// on standard error what was left out when it did.
fn refuse(args: &IndexArgs, indexed: &Indexed) -> Option<Status> {
    let name = path_for_terminal(&args.file);
    if let Some(kind) = indexed.compression {
        if !args.intact_only {
            super::print_error(&format!(
                "{name}: is {kind}-compressed: an index gives offsets into the file's bytes, and \
                 readers seek there directly (DALI cannot read compressed records at all); \
                 decompress it first, or pass --intact-only to index its decompressed stream"
            ));
            return Some(Status::Unusable);
        }
        eprintln!(
            "{name}: note: {kind}-compressed; the offsets are in its decompressed stream, as a \
             reader that decompresses the whole file sees them"
        );
    }
    if indexed.damaged > 0 {
        let damaged = plural(indexed.damaged as u64, "damaged frame");
        if !args.intact_only {
            super::print_error(&format!(
                "{name}: has {damaged} (`verify` names them): an index of it would send readers \
                 into bad bytes; pass --intact-only to index its {} intact records alone",
                indexed.entries.len()
            ));
            return Some(Status::Damage);
        }
        eprintln!(
            "{name}: note: {damaged} left out; {} indexed",
            plural(indexed.entries.len() as u64, "intact record")
        );
    }
    None
}

pub fn run(args: &IndexArgs, read_options: &ReadOptions, out: &mut impl Write) -> Result<Status> {
    let indexed = match read(args, read_options) {
        Ok(indexed) => indexed,
        Err(status) => return Ok(status),
    };
    if let Some(status) = refuse(args, &indexed) {
        return Ok(status);
    }
    // Damage left out at the user's request still sets the exit status.
    let done = if indexed.damaged > 0 {
        Status::Damage
    } else {
        Status::Clean
    };
    if args.check {
        let Some(idx) = &args.idx else {
            return Ok(report_unusable("--check needs FILE and IDX"));
        };
        return check(args, idx, &indexed.entries, out).map(|status| status.max(done));
    }
    let Some(output) = &args.output else {
        record_index::write(&indexed.entries, out)?;
        return Ok(done);
    };
    let inputs = [args.file.as_path()];
    let policy = OutputPolicy {
        inputs: &inputs,
        replace_existing: args.force,
        stdout_is_terminal: io::stdout().is_terminal(),
    };
    let written = match policy.check(output) {
        Ok(Destination::Stdout) => record_index::write(&indexed.entries, out),
        Ok(Destination::File(path)) => {
            match write_atomically(&path, &policy, |w| record_index::write(&indexed.entries, w)) {
                Ok(()) => Ok(()),
                Err(e) => return Ok(report_unusable(&e)),
            }
        }
        Err(e) => return Ok(report_unusable(&e)),
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
    Ok(done)
}

/// `--check`: compares IDX with the file's records.
fn check(
    args: &IndexArgs,
    idx: &std::path::Path,
    entries: &[IndexEntry],
    out: &mut impl Write,
) -> Result<Status> {
    let name = path_for_terminal(idx);
    // Read line by line, never whole: the index may be a FIFO or a device that never ends.
    let compared = std::fs::File::open(idx)
        .and_then(|file| record_index::compare(entries, &mut io::BufReader::new(file)));
    let mismatch = match compared {
        Ok(mismatch) => mismatch,
        Err(e) => return Ok(report_unusable(&format!("{name}: {e}"))),
    };
    match mismatch {
        None => {
            writeln!(
                out,
                "{name}: OK: matches {} ({})",
                path_for_terminal(&args.file),
                plural(entries.len() as u64, "record")
            )?;
            Ok(Status::Clean)
        }
        Some(mismatch) => {
            writeln!(
                out,
                "{name}: WRONG for {}: {mismatch}",
                path_for_terminal(&args.file)
            )?;
            Ok(Status::Damage)
        }
    }
}
