//! The interactive inspector.

use std::path::PathBuf;

use crate::cli::{DecodeArgs, Status};

pub fn run(_files: &[PathBuf], _decode: &DecodeArgs) -> anyhow::Result<Status> {
    anyhow::bail!("the interactive inspector is not built yet; use a subcommand (see --help)")
}
