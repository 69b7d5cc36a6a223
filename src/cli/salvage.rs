//! `salvage`: copy every intact record into a new TFRecord file that TensorFlow reads cleanly.
//!
//! The input is only ever read. The output follows [`tfr_core::output`]: a new path, or with
//! `--force` an existing regular file (never the input, a device, FIFO, socket or directory),
//! written beside its final name and renamed into place; `-o -` writes the records to standard
//! output and the report to standard error. Frames nested inside a damaged record are reported and
//! copied only with `--nested`; bytes the resync passed over unverified are reported, and searched
//! without a work limit with `--thorough`. Nothing is renamed into place, and a salvage to
//! standard output ends in an error, when the input shrank while being read, since records copied
//! after the cut would be zeros.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Env, Messages, Status};
use tfr_core::bytes::ByteSource;
use tfr_core::escape::path_for_terminal;
use tfr_core::frame::FrameIndex;
use tfr_core::input::OpenOptions;
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::recover::SalvagePlan;
use tfr_core::report::salvage::{SalvageOptions, SalvageReport};
use tfr_core::resync::ResyncBudget;
use tfr_core::source::{ReadOptions, Source};
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct SalvageArgs {
    /// The damaged TFRecord file (opened read-only).
    pub input: PathBuf,
    /// Where to write the intact records (an uncompressed TFRecord file); `-` writes them to
    /// standard output (not a terminal) and the report to standard error.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Replace OUT if it is an existing regular file (never the input, a device, FIFO, socket or
    /// directory).
    #[arg(long)]
    pub force: bool,
    /// Also write the frames found inside damaged records that hold a TFRecord stream, after the
    /// records.
    #[arg(long)]
    pub nested: bool,
    /// Check every candidate frame in damaged bytes, without the resync work limit. Each candidate
    /// costs a CRC over the length its header declares, so a crafted file can make this slow.
    #[arg(long)]
    pub thorough: bool,
    /// A JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

/// Writes the records, then the nested frames when asked for; returns the bytes written.
fn write_plan(
    plan: &SalvagePlan,
    data: &dyn ByteSource,
    nested: bool,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let records = plan.write(data, out)?;
    let nested = if nested { plan.write_nested(out)? } else { 0 };
    Ok(records + nested)
}

/// [`write_plan`] from `source`, failing when the file shrank while it was copied: the error
/// stops [`write_atomically`] before its rename, so no salvage made of zeros is put in place.
fn write_checked(
    plan: &SalvagePlan,
    source: &Source,
    nested: bool,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let written = write_plan(plan, source, nested, out).map_err(|e| {
        // A record whose bytes could not be read: say in which file.
        match source.check_unchanged() {
            Err(changed) => io::Error::other(changed),
            Ok(()) => io::Error::other(format!("{}: {e}", path_for_terminal(source.path()))),
        }
    })?;
    source.check_unchanged().map_err(io::Error::other)?;
    Ok(written)
}

/// One line per dropped frame, with what is nested in it.
fn report_dropped(report: &SalvageReport, out: &mut dyn Write) -> io::Result<()> {
    // Both lists are in stream order: walk them together.
    let mut nested = report.nested.iter().peekable();
    for frame in &report.dropped_frames {
        write!(
            out,
            "dropped frame {} at byte {}: {}",
            frame.index, frame.offset, frame.status
        )?;
        if let Some(inner) = nested.next_if(|n| n.index == frame.index) {
            let what = if report.nested_written > 0 {
                "written after the records (--nested)"
            } else {
                "not written (--nested writes them after the records)"
            };
            write!(out, "; {}; {what}", inner.description)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn report_ranges(report: &SalvageReport, out: &mut dyn Write) -> io::Result<()> {
    for range in &report.skipped {
        writeln!(out, "skipped bytes {range} ({} bytes)", range.len())?;
    }
    for range in &report.unverified {
        writeln!(
            out,
            "unverified bytes {range} ({} bytes): the resync work limit was reached, so the frame headers found there were not checked and intact records may be among them (--thorough checks them)",
            range.len()
        )?;
    }
    Ok(())
}

/// The text printer.
fn report_text(args: &SalvageArgs, report: &SalvageReport, out: &mut dyn Write) -> io::Result<()> {
    let input = path_for_terminal(&args.input);
    if let Some(stream) = &report.stream {
        writeln!(
            out,
            "{input}: {}-compressed; salvaged from its decompressed stream into an uncompressed file (read it without compression_type)",
            stream.tensorflow_name
        )?;
        if let Some(p) = &stream.stream_problem {
            writeln!(out, "{input}: compressed stream damaged: {p}")?;
        }
    }
    report_dropped(report, out)?;
    report_ranges(report, out)?;
    let output = match args.output.as_os_str() == "-" {
        true => "standard output".to_string(),
        false => path_for_terminal(&args.output),
    };
    write!(
        out,
        "{output}: kept {} records, dropped {}, skipped {}; wrote {} bytes",
        report.kept,
        plural(report.dropped as u64, "damaged frame"),
        plural(report.skipped_bytes, "byte"),
        report.bytes_written
    )?;
    if report.nested_frames > 0 {
        let what = if args.nested {
            "written after the records"
        } else {
            "not written"
        };
        write!(
            out,
            "; {} {what}",
            plural(report.nested_frames as u64, "nested frame")
        )?;
    }
    if !report.unverified.is_empty() {
        write!(
            out,
            "; {} unverified",
            plural(report.unverified_bytes, "byte")
        )?;
    }
    writeln!(out)
}

pub fn run(
    args: &SalvageArgs,
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let budget = if args.thorough {
        ResyncBudget::Unlimited
    } else {
        ResyncBudget::DEFAULT
    };
    salvage(args, &open.read, budget, env, messages, out)
}

/// [`run`] with the resync budget given, so tests can choose it.
fn salvage(
    args: &SalvageArgs,
    read: &ReadOptions,
    budget: ResyncBudget,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let inputs = [args.input.as_path()];
    let policy = OutputPolicy {
        inputs: &inputs,
        replace_existing: args.force,
        stdout_is_terminal: env.stdout.terminal,
    };
    let destination = match policy.check(&args.output) {
        Ok(destination) => destination,
        Err(e) => return Ok(messages.unusable(&e)),
    };
    let source = match Source::open(&args.input, read) {
        Ok(source) => source,
        Err(e) => return Ok(messages.unusable(&e)),
    };
    let index = FrameIndex::build_with(&source, budget);
    let plan = SalvagePlan::new(&index, &source);
    if let Err(e) = source.check_unchanged() {
        return Ok(messages.unusable(&e));
    }
    let write = |w: &mut dyn Write| write_checked(&plan, &source, args.nested, w);
    let (written, to_stderr) = match destination {
        Destination::Stdout => match write(out) {
            Ok(written) => {
                out.flush()?;
                (written, true)
            }
            Err(e) => return Ok(messages.unusable(&e)),
        },
        Destination::File(path) => match write_atomically(&path, &policy, write) {
            Ok(written) => (written, false),
            Err(e) => match source.check_unchanged() {
                Err(shrank) => return Ok(messages.unusable(&shrank)),
                Ok(()) => return Ok(messages.unusable(&e)),
            },
        },
    };
    let options = SalvageOptions {
        nested: args.nested,
        thorough: args.thorough,
    };
    let paths = (args.input.as_path(), args.output.as_path());
    let report = SalvageReport::new(paths, &source, &plan, options, written);
    // With the records on stdout, the report goes to stderr.
    let mut stderr = messages.writer();
    let sink: &mut dyn Write = if to_stderr { &mut *stderr } else { out };
    if args.json {
        writeln!(sink, "{}", tfr_core::pyjson::to_string(&report)?)?;
    } else {
        report_text(args, &report, sink)?;
    }
    if report.damaged() {
        messages.damage();
    }
    Ok(messages.status())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;
    use tfr_core::output::OutputError;

    fn check_output(input: &Path, output: &Path, force: bool) -> Result<Destination, OutputError> {
        let inputs = [input];
        OutputPolicy {
            inputs: &inputs,
            replace_existing: force,
            stdout_is_terminal: false,
        }
        .check(output)
    }

    #[test]
    fn no_salvage_is_written_from_a_file_that_shrank() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.tfrecord");
        let mut bytes = Vec::new();
        for _ in 0..2000 {
            tfr_core::frame::write_record(&[3; 100], &mut bytes).unwrap();
        }
        fs::write(&input, &bytes).unwrap();
        let source = Source::open(&input, &ReadOptions::as_is()).unwrap();
        let index = FrameIndex::build(&source);
        let plan = SalvagePlan::new(&index, &source);
        assert_eq!(plan.kept.len(), 2000);

        fs::OpenOptions::new()
            .write(true)
            .open(&input)
            .unwrap()
            .set_len(500)
            .unwrap();
        let output = dir.path().join("out.tfrecord");
        let inputs = [input.as_path()];
        let policy = OutputPolicy {
            inputs: &inputs,
            replace_existing: false,
            stdout_is_terminal: false,
        };
        let err = write_atomically(&output, &policy, |w| {
            write_checked(&plan, &source, false, w)
        })
        .unwrap_err();
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

#[cfg(test)]
mod budget_tests {
    use super::*;
    use tfr_core::crafted::budget_exhaustion as crafted_budget_exhaustion;

    const SMALL_BUDGET: ResyncBudget = ResyncBudget::Limited {
        base: 1000,
        per_scanned_byte: 4,
    };

    fn salvage_to_memory(
        data: &[u8],
        json: bool,
        thorough: bool,
        budget: ResyncBudget,
    ) -> (Status, String, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("crafted.tfrecord");
        std::fs::write(&input, data).unwrap();
        let output = dir.path().join("out.tfrecord");
        let args = SalvageArgs {
            input,
            output: output.clone(),
            force: false,
            nested: false,
            thorough,
            json,
            read: Default::default(),
        };
        let mut report = Vec::new();
        let messages = Messages::to(Vec::new());
        let status = salvage(
            &args,
            &ReadOptions::default(),
            budget,
            &Env::plain(),
            &messages,
            &mut report,
        )
        .unwrap();
        let written = std::fs::read(&output).unwrap();
        (status, String::from_utf8(report).unwrap(), written)
    }

    #[test]
    fn records_passed_over_by_a_spent_budget_are_reported_as_unverified_ranges() {
        let (data, records) = crafted_budget_exhaustion(200);
        let index = FrameIndex::build_with(&data, SMALL_BUDGET);
        let ranges = index.unverified_ranges().to_vec();
        assert!(!ranges.is_empty());

        let (status, text, written) = salvage_to_memory(&data, false, false, SMALL_BUDGET);
        assert_eq!(status, Status::Damage);
        for range in &ranges {
            let line = format!("unverified bytes {}..{} (", range.start, range.end);
            assert!(text.contains(&line), "{text}");
        }
        assert!(text.contains("--thorough checks them"), "{text}");
        let unverified: u64 = ranges.iter().map(tfr_core::span::FileRange::len).sum();
        assert!(
            text.contains(&format!("; {unverified} bytes unverified\n")),
            "{text}"
        );
        let kept = FrameIndex::build(&written).len();
        assert!(kept < records.len(), "{kept}");

        let (_, json, _) = salvage_to_memory(&data, true, false, SMALL_BUDGET);
        let report: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
        let expected: Vec<[u64; 2]> = ranges.iter().map(|r| [r.start.0, r.end.0]).collect();
        assert_eq!(
            report["unverified_byte_ranges"],
            serde_json::json!(expected)
        );
        assert_eq!(report["unverified_bytes"], unverified);
        assert_eq!(report["kept"], kept);
    }

    #[test]
    fn thorough_salvage_searches_without_a_budget() {
        let (data, records) = crafted_budget_exhaustion(200);
        let (status, text, written) =
            salvage_to_memory(&data, false, true, ResyncBudget::Unlimited);
        assert_eq!(status, Status::Damage);
        assert!(!text.contains("unverified"), "{text}");
        assert_eq!(FrameIndex::build(&written).len(), records.len());
    }
}
