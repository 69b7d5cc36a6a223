//! Statistics over many files on all cores: each file is opened and indexed, its frames are cut
//! into chunks, and rayon's threads summarise the chunks, each into a
//! [`Stats`] of its own. The chunks' summaries are merged into their file's summary in chunk
//! order, and the files' into their group's (split's) in file order ([`Fold`]), so the result
//! does not depend on how the threads shared the work, and a merge of partials made of the same
//! files' summaries ([`super::partial`]) comes to the same figures. One pass reads every
//! record; the histograms are derived at the end from each feature's quantile sketch, over the
//! range found for it across every group. Memory is the frame indexes plus the bounded
//! summaries, whatever the number of records.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use std::sync::Arc;

use super::{Origin, Stats};
pub use crate::dataset::features::SpecNote;
use crate::dataset::features::{FeatureSpecs, SpecsBeside};
use crate::frame::FrameIndex;
use crate::payload::Decoder;
use crate::source::{ReadOptions, Source};

/// Frames summarised as one unit of work.
pub const CHUNK: usize = 1024;

/// The files to summarise and the group (split) each belongs to.
pub struct Plan {
    pub files: Vec<PathBuf>,
    /// Per file, an index into `groups`.
    pub group_of: Vec<usize>,
    pub groups: Vec<String>,
    /// Per file, its run: the directory it is in, under the log directory (TensorBoard's name
    /// for the events of one directory); `.` for the log directory itself.
    pub runs: Vec<String>,
    /// Per file, the `features.json` beside it, when there is one it can use.
    pub specs: Vec<Option<Arc<FeatureSpecs>>>,
    /// What reading the `features.json` files found to say.
    pub spec_notes: Vec<SpecNote>,
}

/// Per file, the `features.json` in its directory (each directory read once), and what is to be
/// said of those read: one that cannot be used (named, with why) and the notes of those used.
fn specs_beside(files: &[PathBuf]) -> (Vec<Option<Arc<FeatureSpecs>>>, Vec<SpecNote>) {
    let mut read = SpecsBeside::default();
    let mut notes = Vec::new();
    let specs = files
        .iter()
        .map(|file| read.beside(file, |note| notes.push(note)))
        .collect();
    (specs, notes)
}

/// Per event file, its run as TensorBoard names it: its directory relative to the deepest one
/// every file is under (`.` for that one itself).
pub fn run_names(files: &[PathBuf]) -> Vec<String> {
    runs_under(files, &common_dir(files))
}

/// Per file, its directory relative to `root` (`.` for `root` itself), `/` between its names.
fn runs_under(files: &[PathBuf], root: &std::path::Path) -> Vec<String> {
    files
        .iter()
        .map(|file| {
            let dir = file.parent().unwrap_or(std::path::Path::new(""));
            match dir.strip_prefix(root) {
                Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
                Ok(rel) => rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/"),
                Err(_) => dir.to_string_lossy().into_owned(),
            }
        })
        .collect()
}

/// The deepest directory every file is under.
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut dirs = files
        .iter()
        .map(|f| f.parent().unwrap_or(std::path::Path::new("")));
    let Some(first) = dirs.next() else {
        return PathBuf::new();
    };
    let mut common = first.to_path_buf();
    for dir in dirs {
        while !dir.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}

impl Plan {
    /// The members of `dataset`, each in the group of its split; files of no split form one more
    /// group (named after the file when it is the only one).
    pub fn of(dataset: &crate::dataset::Dataset) -> Plan {
        let files: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
        let (specs, spec_notes) = specs_beside(&files);
        Plan {
            specs,
            spec_notes,
            ..Plan::without_specs(dataset)
        }
    }

    /// [`Plan::of`] without reading any `features.json`: for figures summarised already.
    pub fn without_specs(dataset: &crate::dataset::Dataset) -> Plan {
        let mut groups: Vec<String> = dataset
            .splits
            .iter()
            .map(|s| s.name.raw().to_string())
            .collect();
        let loose = groups.len();
        if dataset.members.iter().any(|m| m.shard.is_none()) {
            let name = match (groups.is_empty(), dataset.members.as_slice()) {
                (true, [only]) => crate::escape::path_for_terminal(&only.path),
                (true, _) => "all files".to_string(),
                (false, _) => "other files".to_string(),
            };
            groups.push(name);
        }
        let files: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
        Plan {
            group_of: dataset
                .members
                .iter()
                .map(|m| m.shard.map_or(loose, |(split, _)| split))
                .collect(),
            groups,
            runs: runs_under(&files, &common_dir(&files)),
            specs: vec![None; files.len()],
            spec_notes: Vec::new(),
            files,
        }
    }

    /// Names each file's run after the directory among `roots` it was found under (the log
    /// directory given), the deepest when several hold it; files under none keep theirs.
    pub fn with_roots(self, roots: &[PathBuf]) -> Plan {
        // Files given one by one are no roots: a shell's expansion of a glob may give thousands,
        // and each file is matched against every directory given.
        let dirs: Vec<PathBuf> = roots.iter().filter(|r| r.is_dir()).cloned().collect();
        self.with_dirs(&dirs)
    }

    /// [`Plan::with_roots`] with the roots known to be directories.
    pub fn with_dirs(mut self, dirs: &[PathBuf]) -> Plan {
        if dirs.is_empty() {
            return self;
        }
        for (file, run) in self.files.iter().zip(self.runs.iter_mut()) {
            let root = dirs
                .iter()
                .filter(|r| file.starts_with(r))
                .max_by_key(|r| r.components().count());
            if let Some(root) = root {
                if let Some(name) = runs_under(std::slice::from_ref(file), root).pop() {
                    *run = name;
                }
            }
        }
        self
    }

    /// Where file `file`'s records come from.
    fn origin(&self, file: usize) -> Origin<'_> {
        Origin {
            member: file,
            run: self.runs.get(file).map_or(".", String::as_str),
            specs: self.specs.get(file).and_then(Option::as_deref),
        }
    }
}

/// The statistics of every group, and the files that could not be read.
#[derive(Debug)]
pub struct Outcome {
    pub groups: Vec<(String, Stats)>,
    /// Files that could not be read, with why (the message names the file).
    pub unreadable: Vec<(PathBuf, String)>,
    /// Files that shrank while they were read, each named with how: the figures came partly from bytes that are no longer the file's,
    /// and must not be shown.
    pub changed: Vec<String>,
    /// Compressed files whose stream is damaged past the records summarised (cut short or
    /// corrupt after its last whole record), each named with the problem: the figures are of
    /// every record there is, but the file is not whole.
    pub damaged_streams: Vec<String>,
}

/// One opened file, with the decoder that learnt what its records are.
struct Opened {
    source: Source,
    index: FrameIndex,
    decoder: Decoder,
}

/// `base` after learning what the records of `source` usually are (as every other command
/// learns it: from the file's name and its first intact payloads).
pub(crate) fn learnt(base: &Decoder, source: &Source, index: &FrameIndex) -> Decoder {
    let data = source;
    let sample = (0..index.len())
        .map_while(|f| index.get(data, f))
        .filter(|f| f.status.is_intact())
        .filter_map(|f| f.payload(data))
        .filter(|p| crate::payload::learns_from(p))
        .take(crate::payload::LEARN_PAYLOADS);
    let mut decoder = base.clone();
    decoder.hint_file_name(source.path());
    decoder.learn(sample);
    decoder
}

/// Chunks summarised at once in [`in_order`], per thread: enough that threads seldom wait for
/// the slowest chunk of a window, few enough that their summaries take little memory.
const WINDOW_PER_THREAD: usize = 16;

/// Runs `work(state, i)` for every `i` in `0..n` on rayon's threads (each task with its own
/// state from `init`) and hands the results to `take` in the order of `i`, a window of
/// `threads * WINDOW_PER_THREAD` of them at a time, so that no more results than that are held.
fn in_order<S, R: Send>(
    n: usize,
    threads: usize,
    init: impl Fn() -> S + Sync + Send,
    work: impl Fn(&mut S, usize) -> Option<R> + Sync + Send,
    mut take: impl FnMut(R),
) {
    use rayon::prelude::*;
    let window = threads.max(1) * WINDOW_PER_THREAD;
    let mut first = 0;
    while first < n {
        let end = n.min(first + window);
        // `collect` keeps the order of `i`, however the threads shared the window.
        let results: Vec<Option<R>> = (first..end)
            .into_par_iter()
            .map_init(&init, |state, i| work(state, i))
            .collect();
        results.into_iter().flatten().for_each(&mut take);
        first = end;
    }
}

/// Summarises every file of `plan`, reading them as `read` says.
pub fn compute(plan: &Plan, decoder: &Decoder, read: &ReadOptions) -> Outcome {
    compute_observed(plan, decoder, read, &|_, _| {})
}

/// Files open at once: each holds a descriptor and a guarded memory map, and a dataset of ten
/// thousand shards must not need ten thousand of either. Files are opened a batch at a time, in
/// order, and closed when their batch is done. Objects named by URL are fetched whole into
/// temporary files, so a batch holds fewer of them: at most
/// [`ReadOptions::remote_at_once`] bytes (see [`crate::source::remote::batches`]).
pub const OPEN_AT_ONCE: usize = 256;

/// What [`summarise_chunks`] does with each intact payload: its file's decoder, the chunk's
/// summary, the payload and its file.
type AddPayload<'a> = dyn Fn(&Decoder, &mut Stats, &[u8], usize) + Sync + 'a;

/// An open file as the pass reads it: its bytes, frames and decoder.
type Open<'a> = (&'a Source, &'a FrameIndex, &'a Decoder);

/// Opens and indexes files `batch` of `plan` on rayon's threads, in the batch's order.
fn open_batch(
    plan: &Plan,
    batch: std::ops::Range<usize>,
    (decoder, read): (&Decoder, &ReadOptions),
) -> Vec<Result<Opened, String>> {
    use rayon::prelude::*;
    batch
        .into_par_iter()
        .map(|file| {
            let path = plan.files.get(file).ok_or("not read")?;
            Source::open(path, read)
                .map(|source| {
                    let index = FrameIndex::build(&source);
                    let decoder = learnt(decoder, &source, &index);
                    Opened {
                        source,
                        index,
                        decoder,
                    }
                })
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// Summarises `chunks` (file, first frame) of the files `sources` (by file number) in chunk
/// order, handing each chunk's summary with its file to `take`; `add` is given each intact
/// payload with its file, and damaged frames are counted.
fn summarise_chunks(
    chunks: &[(usize, usize)],
    sources: &BTreeMap<usize, Open<'_>>,
    threads: usize,
    tick: &(dyn Fn() + Sync),
    add: &AddPayload<'_>,
    mut take: impl FnMut(usize, Stats),
) {
    in_order(
        chunks.len(),
        threads,
        || (),
        |_, i| {
            tick();
            let &(file, start) = chunks.get(i)?;
            let (source, index, decoder) = sources.get(&file)?;
            let mut stats = Stats::default();
            let data = *source;
            for frame in (start..start + CHUNK).map_while(|f| index.get(data, f)) {
                match frame.payload(data).filter(|_| frame.status.is_intact()) {
                    Some(payload) => add(decoder, &mut stats, payload, file),
                    None => stats.damaged += 1,
                }
            }
            Some((file, stats))
        },
        |(file, stats)| take(file, stats),
    );
}

/// The chunks of the files `sources`, in file and frame order.
fn chunks_of(sources: &BTreeMap<usize, Open<'_>>) -> Vec<(usize, usize)> {
    sources
        .iter()
        .flat_map(|(&file, (_, index, _))| (0..index.len()).step_by(CHUNK).map(move |s| (file, s)))
        .collect()
}

/// What the pass found of one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileResult {
    /// Its chunks' summaries merged in chunk order; `None` when it has no frame (or could not be
    /// read).
    pub stats: Option<Stats>,
    /// Why it could not be read (the message names the file).
    pub unreadable: Option<String>,
    /// How it shrank while it was read.
    pub changed: Option<String>,
    /// Its compressed stream's damage past the records summarised.
    pub damaged_stream: Option<String>,
}

/// Hands the files of one batch to `take` in file order, each as soon as its last chunk is
/// summarised, so that at most one file's summary is being built at a time.
struct InFileOrder<'a, F> {
    opened: &'a [Result<Opened, String>],
    first: usize,
    /// The next file not yet handed over.
    next: usize,
    current: Option<(usize, Stats)>,
    take: &'a mut F,
}

impl<F: FnMut(usize, FileResult)> InFileOrder<'_, F> {
    fn chunk(&mut self, file: usize, stats: Stats) {
        match &mut self.current {
            Some((f, summary)) if *f == file => summary.merge(&stats),
            _ => {
                self.hand_over(file);
                self.current = Some((file, stats));
            }
        }
    }

    /// Hands over every file before `end`.
    fn hand_over(&mut self, end: usize) {
        let mut current = self.current.take();
        while self.next < end {
            let file = self.next;
            let stats = match current.take() {
                Some((f, stats)) if f == file => Some(stats),
                other => {
                    current = other;
                    None
                }
            };
            let result = self.checked(file, stats);
            (self.take)(file, result);
            self.next += 1;
        }
        self.current = current;
    }

    /// `stats` of `file` with what reading it found: whether it could be opened, whether it
    /// changed while read, whether its compressed stream is damaged.
    fn checked(&self, file: usize, stats: Option<Stats>) -> FileResult {
        match file
            .checked_sub(self.first)
            .and_then(|i| self.opened.get(i))
        {
            Some(Ok(Opened { source, .. })) => FileResult {
                stats,
                unreadable: None,
                // Figures from a file cut short came partly from zeros.
                changed: source.check_unchanged().err().map(|e| e.to_string()),
                damaged_stream: source.compression().and_then(|c| c.problem.as_ref()).map(
                    |problem| {
                        format!(
                            "{}: compressed stream damaged: {problem}",
                            crate::escape::path_for_terminal(source.path())
                        )
                    },
                ),
            },
            Some(Err(e)) => FileResult {
                unreadable: Some(e.clone()),
                ..FileResult::default()
            },
            None => FileResult::default(),
        }
    }
}

/// [`compute`], telling `progress(done, total)` as chunks of records are summarised (`total` is
/// the chunks of the files indexed so far), from whichever thread finished one.
///
/// Files are opened in batches of at most [`OPEN_AT_ONCE`] (and fewer objects named by URL, see
/// [`crate::source::remote::batches`]). A file that shrank while it was read makes the figures untrustworthy: it is named in
/// [`Outcome::changed`], and the figures must not be shown.
pub fn compute_observed(
    plan: &Plan,
    decoder: &Decoder,
    read: &ReadOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Outcome {
    let mut fold = Fold::new(plan.groups.len());
    each_file(plan, decoder, read, progress, |file, result| {
        if let (Some(&group), Some(path)) = (plan.group_of.get(file), plan.files.get(file)) {
            fold.add(group, path, result);
        }
    });
    fold.finish(&plan.groups)
}

/// Summarises every file of `plan` in one pass, handing each file's result to `take` in file
/// order (telling `progress` as [`compute_observed`] does). Each chunk is summarised on its own
/// and a file's chunk summaries are merged in chunk order, so that sums of floats come out the
/// same on every run, however the threads happened to share the chunks.
pub fn each_file(
    plan: &Plan,
    decoder: &Decoder,
    read: &ReadOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
    mut take: impl FnMut(usize, FileResult),
) {
    let threads = rayon::current_num_threads();
    let total = std::sync::atomic::AtomicU64::new(0);
    let done = AtomicUsize::new(0);
    let tick = || {
        let total = total.load(Ordering::Relaxed);
        progress(done.fetch_add(1, Ordering::Relaxed) as u64 + 1, total);
    };
    let batches = crate::source::remote::batches(&plan.files, OPEN_AT_ONCE, read.remote_at_once);
    for batch in batches {
        let opened = open_batch(plan, batch.clone(), (decoder, read));
        let sources: BTreeMap<usize, Open<'_>> = opened
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                Some((
                    batch.start + i,
                    o.as_ref().ok().map(|o| (&o.source, &o.index, &o.decoder))?,
                ))
            })
            .collect();
        let chunks = chunks_of(&sources);
        total.fetch_add(chunks.len() as u64, Ordering::Relaxed);
        let mut order = InFileOrder {
            opened: &opened,
            first: batch.start,
            next: batch.start,
            current: None,
            take: &mut take,
        };
        summarise_chunks(
            &chunks,
            &sources,
            threads,
            &tick,
            &|decoder, stats, payload, file| {
                stats.add_payload(decoder, payload, &plan.origin(file));
            },
            |file, stats| order.chunk(file, stats),
        );
        order.hand_over(batch.end);
    }
}

/// Files' results folded into their groups in the order they are added: one pass adds them in
/// plan order, and a merge of partials in the same order, so both come to the same figures.
pub struct Fold {
    groups: Vec<Stats>,
    /// By group: whether any of its files was read (a group none of whose files could be
    /// opened has no figures, not figures of zero records).
    read: Vec<bool>,
    unreadable: Vec<(PathBuf, String)>,
    changed: Vec<String>,
    damaged_streams: Vec<String>,
}

impl Fold {
    pub fn new(groups: usize) -> Fold {
        Fold {
            groups: vec![Stats::default(); groups],
            read: vec![false; groups],
            unreadable: Vec::new(),
            changed: Vec::new(),
            damaged_streams: Vec::new(),
        }
    }

    /// Adds the result of file `path`, of group `group`.
    pub fn add(&mut self, group: usize, path: &std::path::Path, result: FileResult) {
        if let (Some(stats), Some(all)) = (&result.stats, self.groups.get_mut(group)) {
            all.merge(stats);
        }
        // Read, records or none: an empty file is a split of 0 records.
        if result.unreadable.is_none() {
            if let Some(read) = self.read.get_mut(group) {
                *read = true;
            }
        }
        if let Some(error) = result.unreadable {
            self.unreadable.push((path.to_path_buf(), error));
        }
        self.changed.extend(result.changed);
        self.damaged_streams.extend(result.damaged_stream);
    }

    /// The outcome, each group named by `names`, with its histograms; the groups none of whose
    /// files could be read are left out (their files are named in [`Outcome::unreadable`]).
    pub fn finish(mut self, names: &[String]) -> Outcome {
        self.changed.dedup();
        let mut groups: Vec<(String, Stats)> = names
            .iter()
            .cloned()
            .zip(self.groups)
            .zip(&self.read)
            .filter(|(_, read)| **read)
            .map(|(group, _)| group)
            .collect();
        super::with_histograms(&mut groups);
        Outcome {
            groups,
            unreadable: self.unreadable,
            changed: self.changed,
            damaged_streams: self.damaged_streams,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A group none of whose files could be opened has no figures; one whose files are empty
    /// is a group of 0 records, and a group with one readable file keeps it.
    #[test]
    fn only_groups_with_a_file_read_are_reported() {
        let result = |stats: Option<Stats>, unreadable: Option<&str>| FileResult {
            stats,
            unreadable: unreadable.map(str::to_string),
            changed: None,
            damaged_stream: None,
        };
        let mut fold = Fold::new(3);
        fold.add(0, std::path::Path::new("a"), result(None, Some("a: gone")));
        fold.add(1, std::path::Path::new("b"), result(None, None));
        fold.add(2, std::path::Path::new("c"), result(None, Some("c: gone")));
        fold.add(
            2,
            std::path::Path::new("d"),
            result(Some(Stats::default()), None),
        );
        let names = ["unread".to_string(), "empty".into(), "half".into()];
        let outcome = fold.finish(&names);
        let kept: Vec<&str> = outcome.groups.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(kept, ["empty", "half"]);
        assert_eq!(outcome.unreadable.len(), 2);
    }

    #[test]
    fn runs_are_named_by_their_directory_under_the_log_directory() {
        let files: Vec<PathBuf> = ["logs/a/e1", "logs/a/b/e2", "logs/e3"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(common_dir(&files), PathBuf::from("logs"));
        assert_eq!(runs_under(&files, &common_dir(&files)), ["a", "a/b", "."]);
        let one = [PathBuf::from("e")];
        assert_eq!(runs_under(&one, &common_dir(&one)), ["."]);
        // A directory given names the runs under it, the deepest given when several hold a file.
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sub = dir.path().join("train");
        std::fs::create_dir(&sub).unwrap_or_else(|e| panic!("{e}"));
        let plan = Plan {
            files: vec![sub.join("e1"), dir.path().join("e2")],
            group_of: vec![0, 0],
            groups: vec!["all".into()],
            runs: vec!["x".into(), "y".into()],
            specs: vec![None, None],
            spec_notes: Vec::new(),
        };
        let plan = plan.with_roots(&[dir.path().to_path_buf(), sub.join("e1")]);
        assert_eq!(plan.runs, ["train", "."]);
        let plan = plan.with_roots(std::slice::from_ref(&sub));
        assert_eq!(plan.runs, [".", "."]);
    }

    #[test]
    fn results_come_in_order_whatever_the_threads() {
        for threads in [1, 2, 3, 8] {
            let mut taken = Vec::new();
            // Odd items have no result; the rest arrive in order, across several windows.
            let n = 3 * WINDOW_PER_THREAD * threads + 5;
            in_order(
                n,
                threads,
                || 0usize,
                |calls, i| {
                    *calls += 1;
                    (i % 2 == 0).then_some(i)
                },
                |i| taken.push(i),
            );
            let expected: Vec<usize> = (0..n).step_by(2).collect();
            assert_eq!(taken, expected, "{threads} threads");
        }
    }

    #[test]
    fn progress_counts_every_chunk_once() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("many.tfrecord");
        let mut bytes = Vec::new();
        for _ in 0..CHUNK * 2 + 1 {
            crate::frame::write_record(b"", &mut bytes).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        let plan = Plan {
            files: vec![path],
            group_of: vec![0],
            groups: vec!["all".into()],
            runs: vec![".".into()],
            specs: vec![None],
            spec_notes: Vec::new(),
        };
        let seen = Mutex::new(Vec::new());
        let decoder = Decoder::new(
            crate::schema::Schema::builtin(),
            crate::payload::Reading::Auto,
        );
        compute_observed(&plan, &decoder, &ReadOptions::as_is(), &|done, total| {
            if let Ok(mut seen) = seen.lock() {
                seen.push((done, total));
            }
        });
        let mut seen = seen.into_inner().unwrap_or_default();
        seen.sort_unstable();
        // Three chunks of records, each summarised once.
        assert_eq!(seen, (1..=3).map(|d| (d, 3)).collect::<Vec<_>>());
    }

    fn decoder() -> Decoder {
        Decoder::new(
            crate::schema::Schema::builtin(),
            crate::payload::Reading::Auto,
        )
    }

    #[test]
    fn a_file_cut_short_while_summarised_gives_no_figures() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("shrinking.tfrecord");
        let mut bytes = Vec::new();
        for _ in 0..CHUNK * 8 {
            crate::frame::write_record(&[0x0a; 200], &mut bytes).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let plan = Plan {
            files: vec![path.clone()],
            group_of: vec![0],
            groups: vec!["all".into()],
            runs: vec![".".into()],
            specs: vec![None],
            spec_notes: Vec::new(),
        };
        // A writer cuts the file short as soon as the first chunk is being summarised.
        let cut = std::sync::Once::new();
        let outcome = compute_observed(&plan, &decoder(), &ReadOptions::as_is(), &|_, _| {
            cut.call_once(|| {
                let file = std::fs::OpenOptions::new().write(true).open(&path);
                let _ = file.and_then(|f| f.set_len(1000));
            });
        });
        assert_eq!(
            outcome.changed,
            [format!(
                "{} shrank from {} to 1000 bytes while being read",
                crate::escape::path_for_terminal(&path),
                bytes.len()
            )]
        );
    }

    #[test]
    fn files_past_the_batch_are_all_summarised() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let files: Vec<PathBuf> = (0..OPEN_AT_ONCE + 3)
            .map(|i| {
                let path = dir.path().join(format!("f{i:04}.tfrecord"));
                let mut bytes = Vec::new();
                // `features { feature { key: "x" value { int64_list { value: i } } } }`
                let value = u8::try_from(i % 100).unwrap_or(0);
                let example = [
                    &[
                        0x0a, 0x0b, 0x0a, 0x09, 0x0a, 0x01, b'x', 0x12, 0x04, 0x1a, 0x02, 0x08,
                    ][..],
                    &[value],
                ]
                .concat();
                crate::frame::write_record(&example, &mut bytes).unwrap_or_else(|e| panic!("{e}"));
                std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
                path
            })
            .collect();
        let n = files.len();
        let plan = Plan {
            files,
            group_of: vec![0; n],
            groups: vec!["all".into()],
            runs: vec![".".into(); n],
            specs: vec![None; n],
            spec_notes: Vec::new(),
        };
        let outcome = compute(&plan, &decoder(), &ReadOptions::as_is());
        assert!(outcome.changed.is_empty(), "{:?}", outcome.changed);
        assert!(outcome.unreadable.is_empty(), "{:?}", outcome.unreadable);
        let (_, stats) = &outcome.groups[0];
        assert_eq!(stats.records, n as u64);
        let feature = stats
            .features
            .values()
            .next()
            .unwrap_or_else(|| panic!("no feature"));
        // Every batch was summarised: the histogram and the quantiles count every value.
        let histogram = feature
            .histogram
            .as_ref()
            .unwrap_or_else(|| panic!("no histogram"));
        assert_eq!(histogram.counts.iter().sum::<u64>(), n as u64);
        assert_eq!(feature.numeric.quantiles.count(), n as u64);
    }

    /// `n` shards of `records` records each (every payload an Example of one int64 `x`),
    /// written under `dir`.
    fn shards(dir: &std::path::Path, n: usize, records: usize) -> Vec<PathBuf> {
        (0..n)
            .map(|i| {
                let path = dir.join(format!("train-{i:05}-of-{n:05}"));
                let mut bytes = Vec::new();
                for r in 0..records {
                    let value = u8::try_from((i * 7 + r) % 100).unwrap_or(0);
                    let example = [
                        &[
                            0x0a, 0x0b, 0x0a, 0x09, 0x0a, 0x01, b'x', 0x12, 0x04, 0x1a, 0x02, 0x08,
                        ][..],
                        &[value],
                    ]
                    .concat();
                    crate::frame::write_record(&example, &mut bytes)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
                std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
                path
            })
            .collect()
    }

    /// The figures of `outcome` as text, to compare runs byte for byte.
    fn figures(outcome: &Outcome) -> String {
        format!(
            "{:?} {:?} {:?} {:?}",
            outcome.groups, outcome.unreadable, outcome.changed, outcome.damaged_streams
        )
    }

    // Both passes in one test: the count of temporary files is the process's.
    #[test]
    fn passes_over_objects_hold_a_bounded_number_of_their_bytes_on_disk() {
        use crate::source::remote::{Spills, fake};
        fake::install();
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let local = shards(dir.path(), 12, 40);
        let urls: Vec<PathBuf> = local.iter().map(|p| fake::url(p)).collect();
        let size = std::fs::metadata(&local[0]).map_or(0, |m| m.len());
        let plan = |files: &[PathBuf]| Plan {
            files: files.to_vec(),
            group_of: vec![0; files.len()],
            groups: vec!["all".into()],
            runs: vec![".".into(); files.len()],
            specs: vec![None; files.len()],
            spec_notes: Vec::new(),
        };
        let bounded = ReadOptions {
            remote_at_once: 3 * size + size / 2,
            ..ReadOptions::default()
        };

        Spills::reset_peak();
        let unbounded = compute(&plan(&urls), &decoder(), &ReadOptions::default());
        let all_at_once = Spills::now();
        Spills::reset_peak();
        let outcome = compute(&plan(&urls), &decoder(), &bounded);
        let at_most = Spills::now();
        // Every object of the batch stays open until the batch is done: with room for all,
        // all twelve were on disk at once; with room for three and a half, three.
        assert_eq!(
            (all_at_once.peak_files, all_at_once.peak_bytes),
            (12, 12 * size)
        );
        assert_eq!((at_most.peak_files, at_most.peak_bytes), (3, 3 * size));
        // Released when done, and the figures the same however the files were batched, and
        // the same as for the files on disk.
        assert_eq!((at_most.files, at_most.bytes), (0, 0));
        assert_eq!(figures(&outcome), figures(&unbounded));
        assert!(outcome.unreadable.is_empty(), "{:?}", outcome.unreadable);
        let on_disk = compute(&plan(&local), &decoder(), &ReadOptions::default());
        assert_eq!(
            format!("{:?}", outcome.groups),
            format!("{:?}", on_disk.groups)
        );
        assert_eq!(outcome.groups[0].1.records, 12 * 40);

        // `verify` closes each file once checked, and checks objects in the same batches.
        let open = crate::input::OpenOptions {
            read: bounded,
            decoder: decoder(),
        };
        let options = crate::report::verify::VerifyOptions {
            budget: crate::resync::ResyncBudget::DEFAULT,
            images: false,
        };
        Spills::reset_peak();
        let report = crate::report::verify::VerifyReport::check(&urls, &open, options, &());
        let checked = Spills::now();
        assert!(report.ok());
        assert_eq!(report.files.len(), 12);
        assert!(
            checked.peak_bytes <= 3 * size && checked.peak_files >= 1,
            "{checked:?}"
        );
        assert_eq!((checked.files, checked.bytes), (0, 0));
    }
}
