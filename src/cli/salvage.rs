//! `salvage`: copy every intact record into a new TFRecord file that TensorFlow reads cleanly.
//!
//! The input is only ever read. The output is written to a temporary file beside it, synced, and
//! renamed into place, so an interrupted salvage never leaves a half-written OUT; an existing OUT
//! is replaced only with `--force`, and never when it is the input itself (same path after
//! resolving links, or the same inode under another name). Nothing is renamed into place when the
//! input shrank while being read, since records copied after the cut would be zeros.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::{Status, report_unusable};
use crate::compress::Options;
use crate::frame::FrameIndex;
use crate::jsonformat::Json;
use crate::recover::SalvagePlan;
use crate::source::Source;

#[derive(Debug, Args)]
pub struct SalvageArgs {
    /// The damaged TFRecord file (opened read-only).
    pub input: PathBuf,
    /// Where to write the intact records (an uncompressed TFRecord file).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Replace OUT if it exists (never when OUT is the input).
    #[arg(long)]
    pub force: bool,
    /// A JSON report instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `path` with its directory resolved, for paths that may not exist yet.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Some(p);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(parent).ok()?.join(path.file_name()?))
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

/// Refuses an OUT that is the input, is a directory, or exists without `--force`.
fn check_output(input: &Path, output: &Path, force: bool) -> Result<()> {
    let same_path = match (resolved(input), resolved(output)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    let out_meta = fs::metadata(output).ok();
    let same_file = match (fs::metadata(input), &out_meta) {
        (Ok(a), Some(b)) => same_inode(&a, b),
        _ => false,
    };
    if same_path || same_file {
        bail!(
            "refusing to write over the input: {} is {}",
            output.display(),
            input.display()
        );
    }
    if out_meta.as_ref().is_some_and(|m| m.is_dir()) {
        bail!("{} is a directory", output.display());
    }
    let exists = fs::symlink_metadata(output).is_ok();
    if exists && !force {
        bail!(
            "{} already exists; pass --force to replace it",
            output.display()
        );
    }
    Ok(())
}

/// A temporary file that is removed unless it was renamed into place.
struct TempOut {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempOut {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn create_temp(output: &Path) -> Result<(TempOut, File)> {
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let base = output
        .file_name()
        .map_or_else(|| "salvage".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    for attempt in 0..100u32 {
        let path = dir.join(format!(".{base}.salvage-{pid}-{attempt}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((TempOut { path, keep: false }, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(e).with_context(|| format!("cannot create {}", path.display()));
            }
        }
    }
    bail!("cannot create a temporary file in {}", dir.display())
}

/// Writes the plan's records to `output` atomically; returns the bytes written.
///
/// Nothing is renamed into place when `source` shrank meanwhile: records copied from it after
/// the cut would be zeros.
fn write_atomically(plan: &SalvagePlan, source: &Source, output: &Path) -> Result<u64> {
    let data = source.bytes();
    let (mut temp, file) = create_temp(output)?;
    let mut writer = BufWriter::new(file);
    let written = plan
        .write(data, &mut writer)
        .and_then(|n| writer.flush().map(|_| n))
        .with_context(|| format!("cannot write {}", temp.path.display()))?;
    let file = writer
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot write {}", temp.path.display()))?;
    file.sync_all()
        .with_context(|| format!("cannot sync {}", temp.path.display()))?;
    drop(file);
    source.check_unchanged()?;
    fs::rename(&temp.path, output).with_context(|| {
        format!(
            "cannot rename {} to {}",
            temp.path.display(),
            output.display()
        )
    })?;
    temp.keep = true;
    #[cfg(unix)]
    if let Some(dir) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        // Makes the rename itself durable; a failure here does not undo the salvage.
        let _ = File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(written)
}

fn report_json(args: &SalvageArgs, source: &Source, plan: &SalvagePlan, written: u64) -> Json {
    let number = |n: u64| Json::Literal(n.to_string());
    let mut members = vec![
        (
            "input".to_string(),
            Json::String(args.input.display().to_string()),
        ),
        (
            "output".into(),
            Json::String(args.output.display().to_string()),
        ),
        ("kept".into(), number(plan.kept.len() as u64)),
        ("dropped".into(), number(plan.dropped.len() as u64)),
        (
            "dropped_frames".into(),
            Json::Array(
                plan.dropped
                    .iter()
                    .map(|f| {
                        Json::Object(vec![
                            ("index".into(), number(f.index as u64)),
                            ("offset".into(), number(f.offset.0)),
                            ("status".into(), Json::String(f.status.name().into())),
                            (
                                "tensorflow_offset".into(),
                                f.tensorflow_offset().map_or(Json::Null, |o| number(o.0)),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "skipped_byte_ranges".into(),
            Json::Array(
                plan.skipped
                    .iter()
                    .map(|r| Json::Array(vec![number(r.start), number(r.end)]))
                    .collect(),
            ),
        ),
        ("skipped_bytes".into(), number(plan.skipped_bytes())),
        ("input_bytes".into(), number(source.len())),
        ("bytes_written".into(), number(written)),
    ];
    if let Some(info) = source.compression() {
        members.push((
            "compression".into(),
            Json::String(info.compression.name().into()),
        ));
        members.push((
            "stream_problem".into(),
            info.problem
                .as_ref()
                .map_or(Json::Null, |p| Json::String(p.to_string())),
        ));
    }
    Json::Object(members)
}

pub fn run(args: &SalvageArgs, read: &Options, out: &mut impl Write) -> Result<Status> {
    if let Err(e) = check_output(&args.input, &args.output, args.force) {
        return Ok(report_unusable(&format!("{e:#}")));
    }
    let source = match Source::open_with(&args.input, read) {
        Ok(source) => source,
        Err(e) => return Ok(report_unusable(&e)),
    };
    let data = source.bytes();
    let index = FrameIndex::build(data);
    let plan = SalvagePlan::new(&index, data);
    if let Err(e) = source.check_unchanged() {
        return Ok(report_unusable(&e));
    }
    let written = match write_atomically(&plan, &source, &args.output) {
        Ok(n) => n,
        Err(e) => return Ok(report_unusable(&format!("{e:#}"))),
    };
    let stream_problem = source.compression().and_then(|c| c.problem.as_ref());
    if args.json {
        writeln!(
            out,
            "{}",
            report_json(args, &source, &plan, written).to_string_sorted()
        )?;
    } else {
        let input = args.input.display();
        if let Some(info) = source.compression() {
            writeln!(
                out,
                "{input}: {}-compressed; salvaged from its decompressed stream into an uncompressed file (read it without compression_type)",
                info.compression.tensorflow_name()
            )?;
        }
        if let Some(p) = stream_problem {
            writeln!(out, "{input}: compressed stream damaged: {p}")?;
        }
        for frame in &plan.dropped {
            writeln!(
                out,
                "dropped frame {} at byte {}: {}",
                frame.index,
                frame.offset.0,
                frame.status.name()
            )?;
        }
        for range in &plan.skipped {
            writeln!(
                out,
                "skipped bytes {}..{} ({} bytes)",
                range.start,
                range.end,
                range.end - range.start
            )?;
        }
        writeln!(
            out,
            "{}: kept {} records, dropped {} damaged {}, skipped {} bytes; wrote {} bytes",
            args.output.display(),
            plan.kept.len(),
            plan.dropped.len(),
            if plan.dropped.len() == 1 {
                "frame"
            } else {
                "frames"
            },
            plan.skipped_bytes(),
            written
        )?;
    }
    let damaged = !plan.dropped.is_empty() || !plan.skipped.is_empty() || stream_problem.is_some();
    Ok(if damaged {
        Status::Damage
    } else {
        Status::Clean
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_salvage_is_written_from_a_file_that_shrank() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.tfrecord");
        let mut bytes = Vec::new();
        for _ in 0..2000 {
            crate::frame::write_record(&[3; 100], &mut bytes).unwrap();
        }
        fs::write(&input, &bytes).unwrap();
        let source = Source::open(&input).unwrap();
        let index = FrameIndex::build(source.bytes());
        let plan = SalvagePlan::new(&index, source.bytes());
        assert_eq!(plan.kept.len(), 2000);

        OpenOptions::new()
            .write(true)
            .open(&input)
            .unwrap()
            .set_len(500)
            .unwrap();
        let output = dir.path().join("out.tfrecord");
        let err = write_atomically(&plan, &source, &output).unwrap_err();
        assert!(
            err.to_string().contains("shrank from 232000 to 500 bytes"),
            "{err}"
        );
        assert!(!output.exists());
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "temporary file left behind: {left:?}");
    }

    #[test]
    fn output_checks_refuse_the_input_and_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.tfrecord");
        fs::write(&input, b"").unwrap();
        assert!(check_output(&input, &input, true).is_err());
        let dotted = dir.path().join(".").join("in.tfrecord");
        assert!(check_output(&input, &dotted, true).is_err());
        let link = dir.path().join("hard.tfrecord");
        fs::hard_link(&input, &link).unwrap();
        assert!(check_output(&input, &link, true).is_err());
        let other = dir.path().join("other.tfrecord");
        fs::write(&other, b"x").unwrap();
        assert!(check_output(&input, &other, false).is_err());
        assert!(check_output(&input, &other, true).is_ok());
        assert!(check_output(&input, &dir.path().join("new.tfrecord"), false).is_ok());
        assert!(check_output(&input, dir.path(), true).is_err());
    }
}
