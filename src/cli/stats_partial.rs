//! `stats --partial` and `stats --merge`: the statistics of a dataset summarised in parts (a
//! shard or a few per machine) and merged into the report one pass over all of it gives, byte
//! for byte. The partial's format and the merge are the core's ([`tfr_core::stats::partial`]);
//! this settles where a partial goes and what a run says.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::dataset::Run;
use super::{Messages, Status};
use tfr_core::input::OpenOptions;
use tfr_core::output::{Destination, OutputPolicy, write_atomically};
use tfr_core::stats::partial::{self, Facts};
use tfr_core::stats::run::{Outcome, Plan};

/// A partial to write: the run's inputs, as planned, and where it goes.
pub struct Partial<'a> {
    pub inputs: &'a Run,
    pub plan: &'a Plan,
    /// The arguments (the directories among them name event files' runs).
    pub args: &'a [PathBuf],
    pub output: &'a Path,
}

impl Partial<'_> {
    /// Summarises the files into the partial, and says what `stats` says of them but the
    /// problems their shards' names show (a partial is a part: a merge judges the whole).
    pub fn write(
        &self,
        open: &OpenOptions,
        env: &super::env::Env,
        messages: &Messages,
        out: &mut impl Write,
    ) -> Result<Status> {
        let inputs: Vec<&Path> = self.plan.files.iter().map(PathBuf::as_path).collect();
        let policy = OutputPolicy {
            inputs: &inputs,
            replace_existing: true,
            stdout_is_terminal: env.stdout.terminal,
        };
        let destination = match policy.check(self.output) {
            Ok(destination) => destination,
            Err(e) => return Ok(messages.unusable(&e.to_string())),
        };
        let facts = Facts::of(
            &self.inputs.dataset,
            self.args,
            Facts::notes_of(&self.inputs.dataset, self.plan),
        );
        let progress = super::progress::Progress::steps("summarising", 0, env.progress(false));
        let tell = |done, total| {
            progress.set_total(total);
            progress.set(done);
        };
        let read = (&open.decoder, &open.read);
        let written = match destination {
            Destination::Stdout => {
                partial::write(self.plan, &facts, read, &tell, out).map_err(|e| e.to_string())
            }
            Destination::File(path) => write_atomically(&path, &policy, |w| {
                partial::write(self.plan, &facts, read, &tell, w)
            })
            .map_err(|e| e.to_string()),
        };
        progress.finish();
        let outcome = match written {
            Ok(outcome) => outcome,
            Err(e) => return Ok(messages.unusable(&e)),
        };
        let problems: Vec<String> = facts
            .problems
            .iter()
            .filter(|p| !p.from_names)
            .map(|p| p.text.clone())
            .collect();
        Ok(status_of(&outcome, &problems, messages))
    }
}

/// What `stats` says of `outcome` besides its report (which a partial does not print), and the
/// status it ends with.
fn status_of(outcome: &Outcome, problems: &[String], messages: &Messages) -> Status {
    for (_, error) in &outcome.unreadable {
        messages.unusable(error);
    }
    for change in &outcome.changed {
        messages.unusable(change);
    }
    super::stats::say_damage(outcome, problems, messages)
}

/// `stats --merge`: the partials `args.files` merged, reported as `stats` reports one pass over
/// all their files.
pub fn merge(
    args: &super::stats::StatsArgs,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    let merged = match partial::merge(&args.files) {
        Ok(merged) => merged,
        Err(e) => return Ok(messages.unusable(&e.to_string())),
    };
    for note in &merged.notes {
        if note.unusable {
            messages.unusable(&note.text);
        } else {
            messages.note(&note.text);
        }
    }
    let shape = args.shape(&args.files, env);
    super::stats::report(
        &merged.outcome,
        &merged.files,
        &merged.problems,
        &shape,
        messages,
        out,
    )
}
