//! `head`, `tail` and `sample`: the first N records, the last N, or K drawn uniformly, shown as
//! `show` shows records (its formats, its notes, damaged records said as it says them).
//!
//! `head` reads no further into the file than its records; `tail` and `sample` index the whole
//! file (frame headers and CRCs; only the records shown are decoded).

use std::hash::BuildHasher;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::show::{Selection, View, open_input, show};
use super::{Env, Messages, Status};
use tfr_core::input::OpenOptions;
use tfr_core::report::pick::{Pick, Picked};

/// `head` and `tail`.
#[derive(Debug, Args)]
pub struct EndsArgs {
    /// The TFRecord file (a path, `-` or a URL).
    pub file: PathBuf,
    /// How many records.
    #[arg(short = 'n', long = "records", value_name = "N", default_value_t = 10)]
    pub records: u64,
    #[command(flatten)]
    pub view: View,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
    #[command(flatten)]
    pub bytes: super::BytesView,
}

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// How many records to draw (all of them, in order, when the file has no more).
    #[arg(value_name = "K")]
    pub size: u64,
    /// The TFRecord file (a path, `-` or a URL).
    pub file: PathBuf,
    /// Draw with this seed: the same seed draws the same records from the same file. Without
    /// it the seed is random, and named on standard error so that the draw can be repeated.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub view: View,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
    #[command(flatten)]
    pub bytes: super::BytesView,
}

/// The first `args.records` records.
pub fn head(
    args: &EndsArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let pick = Pick::Head(args.records);
    run(pick, &args.file, &args.view, open, env, messages, out)
}

/// The last `args.records` records.
pub fn tail(
    args: &EndsArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let pick = Pick::Tail(args.records);
    run(pick, &args.file, &args.view, open, env, messages, out)
}

/// `args.size` records drawn uniformly, shown in file order.
pub fn sample(
    args: &SampleArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let seed = args.seed.unwrap_or_else(random_seed);
    let pick = Pick::Sample {
        size: args.size,
        seed,
    };
    let status = run(pick, &args.file, &args.view, open, env, messages, out)?;
    if args.seed.is_none() && status != Status::Unusable {
        messages.note(&format_args!(
            "sample: drawn with seed {seed} (`--seed {seed}` draws the same records again)"
        ));
    }
    Ok(status)
}

/// A seed from the randomness the standard library keys its hash maps with, and the time.
fn random_seed() -> u64 {
    std::hash::RandomState::new().hash_one(std::time::SystemTime::now())
}

/// Opens `file`, picks its records as `pick` says, and shows them.
fn run(
    pick: Pick,
    file: &Path,
    view: &View,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let Some(mut input) = open_input(file, open, messages) else {
        return Ok(messages.status());
    };
    match pick {
        Pick::Head(0) => {}
        // Frames up to the last one wanted, and no further.
        Pick::Head(n) => input.settle(usize::try_from(n - 1).unwrap_or(usize::MAX)),
        Pick::Tail(_) | Pick::Sample { .. } => input.settle_all(),
    }
    let picked = Picked::of(pick, input.index.len());
    if picked.is_empty() {
        return Ok(messages.status());
    }
    let selection = Selection {
        start: picked.start,
        end: Some(picked.end),
        only: picked.only,
        single: false,
        range_given: false,
        in_split: None,
    };
    show(&mut input, file, view, &selection, env, messages, out)
}
