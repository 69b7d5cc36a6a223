//! The inputs of `list`, `verify` and `stats` as a dataset: arguments resolved into TFRecord
//! files (directories searched by content, patterns in full glob syntax), each shard placed in
//! its split, and the dataset summary those commands end with.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use super::{Messages, Status};
use tfr_core::dataset::features::{FeatureSpecs, SpecNote, SpecsBeside};
pub use tfr_core::dataset::report::SkippedLines;
pub use tfr_core::dataset::run::Run;

/// How a run's summary is printed: as text, or as a JSON line with or without a `type` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Json {
    No,
    Untyped,
    Typed,
}

/// Files that are only no TFRecord file named in the note that counts them.
const NAMED_SKIPPED: usize = 3;

/// What a run says through the command line's messages and prints at its end.
pub trait RunExt {
    /// [`Run::resolve`], with the arguments that cannot be used reported through `messages`.
    fn resolve_reporting(args: &[PathBuf], messages: &Messages) -> Run;

    /// Ends a dataset run: the summary, as text (with the skipped files as `skipped` says) or
    /// JSON (with `"type": "dataset"` when `json` is [`Json::Typed`]). The status is damage when the dataset has a problem.
    fn finish(&self, json: Json, skipped: SkippedLines, out: &mut impl Write) -> Result<Status>;

    /// Names the files set aside, once each.
    fn note_skipped(&self, messages: &Messages);

    /// Names the files set aside for a reason of their own (metadata, pipes, links), and counts
    /// those that are only no TFRecord file in one note naming the first few: a dataset's
    /// directory may hold thousands.
    fn note_skipped_briefly(&self, messages: &Messages);

    /// Counts the files set aside that are only no TFRecord file in one note and names the
    /// others, or (`verbose`) names each.
    fn note_skipped_counted(&self, verbose: bool, messages: &Messages);
}

impl RunExt for Run {
    fn resolve_reporting(args: &[PathBuf], messages: &Messages) -> Run {
        let (run, unusable) = Run::resolve(args);
        for error in &unusable {
            messages.unusable(error);
        }
        run
    }

    fn finish(&self, json: Json, skipped: SkippedLines, out: &mut impl Write) -> Result<Status> {
        let summary = self.summary();
        let report = summary.report();
        match json {
            Json::No => report.write_text(out, skipped)?,
            Json::Untyped => writeln!(out, "{}", tfr_core::pyjson::to_string(&report)?)?,
            Json::Typed => {
                let line = tfr_core::report::verify::DatasetLine::new(&report);
                writeln!(out, "{}", tfr_core::pyjson::to_string(&line)?)?;
            }
        }
        Ok(if summary.problems.is_empty() {
            Status::Clean
        } else {
            Status::Damage
        })
    }

    fn note_skipped_counted(&self, verbose: bool, messages: &Messages) {
        if verbose {
            self.note_skipped(messages);
        } else {
            for line in tfr_core::dataset::report::skipped_counted(&self.dataset.skipped) {
                messages.note(&line);
            }
        }
    }

    fn note_skipped_briefly(&self, messages: &Messages) {
        for line in tfr_core::dataset::report::skipped_briefly(&self.dataset.skipped, NAMED_SKIPPED)
        {
            messages.note(&line);
        }
    }

    fn note_skipped(&self, messages: &Messages) {
        for file in &self.dataset.skipped {
            messages.note(&format_args!(
                "{}: skipped: {}",
                tfr_core::escape::path_for_terminal(&file.path),
                file.reason
            ));
        }
    }
}

/// The `features.json` beside `input` that words `show`'s tree and names `images`' classes
/// (read once per directory through `read`), with what was not read of it (or why none of it
/// was) said through `messages`.
pub fn feature_specs(
    read: &mut SpecsBeside,
    input: &Path,
    messages: &Messages,
) -> Option<Arc<FeatureSpecs>> {
    read.beside(input, |note| match note {
        SpecNote::Note(note) => messages.note(&note),
        // One that cannot be used (not a regular file, past a limit, not JSON) is named, and the
        // records are shown without it.
        SpecNote::Unusable(note) => {
            messages.unusable(&format!("{note}; records shown without it"));
        }
    })
}
