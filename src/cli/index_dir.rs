//! `index DIR|GLOB -o OUTDIR`: the index of every shard of a directory or pattern, one file per
//! shard in OUTDIR named `SHARD.idx`, each what `index SHARD` prints.
//!
//! Nothing is written until every name is settled and every path it would take is free (or an
//! index to replace, with `--force`); then each index is written atomically. A damaged or
//! compressed shard gets no index, as `index` refuses one (unless `--intact-only`), and the others
//! are indexed all the same.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::dataset::{Run, RunExt};
use super::index::{IndexArgs, refuse};
use super::{Messages, Status};
use tfr_core::escape::path_for_terminal;
use tfr_core::output::{OutputPolicy, write_atomically};
use tfr_core::record_index;
use tfr_core::report::index::Indexed;
use tfr_core::report::index_dir::{self, Target};
use tfr_core::source::ReadOptions;
use tfr_core::words::plural;

pub fn run(
    args: &IndexArgs,
    read: &ReadOptions,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let Some(outdir) = args.output.as_deref() else {
        messages.error(&format_args!(
            "{} is a directory or pattern: give -o OUTDIR, the directory each shard's index is written to",
            path_for_terminal(&args.file)
        ));
        return Ok(messages.raise(Status::Unusable));
    };
    if let Some(idx) = &args.idx {
        messages.error(&format_args!(
            "{}: an index is named after its shard in -o OUTDIR; IDX is for --check",
            path_for_terminal(idx)
        ));
        return Ok(messages.raise(Status::Unusable));
    }
    let run = Run::resolve_reporting(std::slice::from_ref(&args.file), messages);
    run.note_skipped_briefly(messages);
    let shards = run.paths();
    if shards.is_empty() {
        messages.error(&format_args!(
            "{}: no TFRecord file to index",
            path_for_terminal(&args.file)
        ));
        return Ok(messages.raise(Status::Unusable));
    }
    let input_dirs: Vec<PathBuf> = match args.file.is_dir() {
        true => vec![args.file.clone()],
        false => Vec::new(),
    };
    let targets = match index_dir::plan(&shards, &input_dirs, outdir) {
        Ok(targets) => targets,
        Err(errors) => {
            for error in &errors {
                messages.error(error);
            }
            return Ok(messages.raise(Status::Unusable));
        }
    };
    let mut refused = false;
    for target in &targets {
        if let Err(why) = index_dir::may_write(&target.index, args.force) {
            messages.error(&why);
            refused = true;
        }
    }
    if refused {
        messages.error(&"nothing written");
        return Ok(messages.raise(Status::Unusable));
    }
    if let Err(e) = std::fs::create_dir_all(outdir) {
        messages.error(&format_args!("{}: {e}", path_for_terminal(outdir)));
        return Ok(messages.raise(Status::Unusable));
    }
    let inputs: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let policy = OutputPolicy {
        inputs: &inputs,
        replace_existing: args.force,
        stdout_is_terminal: false,
    };
    let mut written = 0usize;
    let mut records = 0u64;
    for target in &targets {
        if let Some(n) = write_one(args, target, read, &policy, messages, out)? {
            written += 1;
            records = records.saturating_add(n);
        }
    }
    writeln!(
        out,
        "{written} {} written to {} ({})",
        if written == 1 { "index" } else { "indexes" },
        path_for_terminal(outdir),
        plural(records, "record")
    )?;
    Ok(messages.status())
}

/// Indexes one shard and writes its index; the records it lists, or `None` when the shard gets
/// none (said through `messages`).
fn write_one(
    args: &IndexArgs,
    target: &Target,
    read: &ReadOptions,
    policy: &OutputPolicy,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Option<u64>> {
    let indexed = match Indexed::read(&target.shard, read) {
        Ok(indexed) => indexed,
        Err(e) => {
            messages.unusable(&e);
            return Ok(None);
        }
    };
    if let Some(status) = refuse(args, &target.shard, &indexed, messages) {
        messages.raise(status);
        return Ok(None);
    }
    if indexed.damaged > 0 {
        messages.damage();
    }
    let written = write_atomically(&target.index, policy, |w| {
        record_index::write(&indexed.entries, w)
    });
    if let Err(e) = written {
        messages.unusable(&e);
        return Ok(None);
    }
    let count = indexed.entries.len() as u64;
    writeln!(
        out,
        "{}: {} indexed ({})",
        path_for_terminal(&target.index),
        plural(count, "record"),
        path_for_terminal(&target.shard)
    )?;
    Ok(Some(count))
}
