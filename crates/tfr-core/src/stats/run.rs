//! Statistics over many files on all cores: each file is opened and indexed, its frames are cut
//! into chunks, and worker threads take chunks from a shared queue, summarising each into a
//! [`Stats`] of its own. The chunks' summaries are merged into their group's (split's) in chunk
//! order, so the result does not depend on how the threads shared the work; a second pass fills
//! the histograms over the range the first found for each feature across every group. Memory is the
//! frame indexes plus the bounded summaries, whatever the number of records.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{FeatureKey, Stats};
use crate::frame::FrameIndex;
use crate::payload::Decoder;
use crate::source::{ReadOptions, Source, Stamp};

/// Frames summarised as one unit of work.
const CHUNK: usize = 1024;

/// The files to summarise and the group (split) each belongs to.
pub struct Plan {
    pub files: Vec<PathBuf>,
    /// Per file, an index into `groups`.
    pub group_of: Vec<usize>,
    pub groups: Vec<String>,
}

impl Plan {
    /// The members of `dataset`, each in the group of its split; files of no split form one more
    /// group (named after the file when it is the only one).
    pub fn of(dataset: &crate::dataset::Dataset) -> Plan {
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
        Plan {
            files: dataset.members.iter().map(|m| m.path.clone()).collect(),
            group_of: dataset
                .members
                .iter()
                .map(|m| m.shard.map_or(loose, |(split, _)| split))
                .collect(),
            groups,
        }
    }
}

/// The statistics of every group, and the files that could not be read.
pub struct Outcome {
    pub groups: Vec<(String, Stats)>,
    /// Files that could not be read, with why (the message names the file).
    pub unreadable: Vec<(PathBuf, String)>,
    /// Files that changed while they were read (shrank, or were rewritten between the passes),
    /// each named with how: the figures came partly from bytes that are no longer the file's,
    /// and must not be shown.
    pub changed: Vec<String>,
}

/// One opened file.
struct Opened {
    source: Source,
    index: FrameIndex,
}

/// Chunks summarised at once in [`in_order`], per thread: enough that threads seldom wait for
/// the slowest chunk of a window, few enough that their summaries take little memory.
const WINDOW_PER_THREAD: usize = 16;

/// Runs `work(state, i)` for every `i` in `0..n` on up to `threads` threads (each with its own
/// state from `init`) and hands the results to `take` in the order of `i`, a window of them at a
/// time.
fn in_order<S: Send, R: Send>(
    n: usize,
    threads: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> Option<R> + Sync,
    mut take: impl FnMut(R),
) {
    let window = threads.max(1) * WINDOW_PER_THREAD;
    let mut first = 0;
    while first < n {
        let end = n.min(first + window);
        let slots: Vec<std::sync::Mutex<Option<R>>> =
            (first..end).map(|_| std::sync::Mutex::new(None)).collect();
        on_all_cores(end - first, threads, &init, |state, i| {
            let result = work(state, first + i);
            if let (Some(slot), Some(result)) = (slots.get(i), result) {
                if let Ok(mut slot) = slot.lock() {
                    *slot = Some(result);
                }
            }
        });
        for slot in slots {
            if let Some(result) = slot.into_inner().ok().flatten() {
                take(result);
            }
        }
        first = end;
    }
}

/// Runs `work(i)` for `i` in `0..n` on up to `threads` threads, each with its own state from
/// `init`; returns the states.
fn on_all_cores<S: Send>(
    n: usize,
    threads: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) + Sync,
) -> Vec<S> {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, n.max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut state = init();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        work(&mut state, i);
                    }
                    state
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// How many threads to use.
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16)
}

/// Summarises every file of `plan`, reading them as `read` says.
pub fn compute(plan: &Plan, decoder: &Decoder, read: &ReadOptions) -> Outcome {
    compute_observed(plan, decoder, read, &|_, _| {})
}

/// Files open at once: each holds a descriptor and a guarded memory map, and a dataset of ten
/// thousand shards must not need ten thousand of either. Files are opened a batch at a time, in
/// order, and closed when their batch is done.
pub const OPEN_AT_ONCE: usize = 256;

/// What is known of one file between the two passes.
enum Read {
    /// Could not be opened (the error says why, naming the file).
    Unreadable(String),
    Indexed(Box<Indexed>),
}

/// A file indexed in the first pass.
struct Indexed {
    index: FrameIndex,
    /// Kept open for the second pass when the files all fit in one batch or it cannot be opened
    /// again (a pipe).
    source: Option<Source>,
    /// Says whether a new opening reads the same file.
    stamp: Option<Stamp>,
}

/// What [`summarise_chunks`] does with each intact payload: the decoder, the chunk's summary,
/// the payload and its file.
type AddPayload<'a> = dyn Fn(&mut Decoder, &mut Stats, &[u8], usize) + Sync + 'a;

/// Opens and indexes files `batch` of `plan` on all cores.
fn open_batch(
    plan: &Plan,
    batch: std::ops::Range<usize>,
    read: &ReadOptions,
    threads: usize,
) -> Vec<Result<Opened, String>> {
    let slots: Vec<std::sync::Mutex<Option<Result<Opened, String>>>> =
        batch.clone().map(|_| std::sync::Mutex::new(None)).collect();
    on_all_cores(
        slots.len(),
        threads,
        || (),
        |_, i| {
            let (Some(path), Some(slot)) = (plan.files.get(batch.start + i), slots.get(i)) else {
                return;
            };
            let result = Source::open(path, read)
                .map(|source| {
                    let index = FrameIndex::build(source.bytes());
                    Opened { source, index }
                })
                .map_err(|e| e.to_string());
            if let Ok(mut slot) = slot.lock() {
                *slot = Some(result);
            }
        },
    );
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err("not read".into()))
        })
        .collect()
}

/// Summarises `chunks` (file, first frame) of the files `sources` (by file number) in chunk
/// order, merging each into its group through `take`; `add` is given each intact payload with
/// its file, and damaged frames are counted.
fn summarise_chunks(
    plan: &Plan,
    chunks: &[(usize, usize)],
    sources: &BTreeMap<usize, (&Source, &FrameIndex)>,
    (decoder, threads): (&Decoder, usize),
    tick: &(dyn Fn() + Sync),
    add: &AddPayload<'_>,
    mut take: impl FnMut(usize, Stats),
) {
    in_order(
        chunks.len(),
        threads,
        || decoder.clone(),
        |decoder, i| {
            tick();
            let &(file, start) = chunks.get(i)?;
            let (source, index) = sources.get(&file)?;
            let group = *plan.group_of.get(file)?;
            let mut stats = Stats::default();
            let data = source.bytes();
            for frame in (start..start + CHUNK).map_while(|f| index.get(data, f)) {
                match frame.payload(data).filter(|_| frame.status.is_intact()) {
                    Some(payload) => add(decoder, &mut stats, payload, file),
                    None => stats.damaged += 1,
                }
            }
            Some((group, stats))
        },
        |(group, stats)| take(group, stats),
    );
}

/// The chunks of the files `sources`, in file and frame order.
fn chunks_of(sources: &BTreeMap<usize, (&Source, &FrameIndex)>) -> Vec<(usize, usize)> {
    sources
        .iter()
        .flat_map(|(&file, (_, index))| (0..index.len()).step_by(CHUNK).map(move |s| (file, s)))
        .collect()
}

/// [`compute`], telling `progress(done, total)` as chunks of records are summarised (both passes
/// count: `total` is twice the chunks of the files indexed so far), from whichever thread
/// finished one.
///
/// Files are opened [`OPEN_AT_ONCE`] at a time. A file that shrank while it was read, or was
/// changed between the passes, makes the figures untrustworthy: it is named in
/// [`Outcome::changed`], and the figures must not be shown.
pub fn compute_observed(
    plan: &Plan,
    decoder: &Decoder,
    read: &ReadOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Outcome {
    let threads = cores();
    let n = plan.files.len();
    let keep_all = n <= OPEN_AT_ONCE;
    let batches: Vec<std::ops::Range<usize>> = (0..n)
        .step_by(OPEN_AT_ONCE)
        .map(|start| start..n.min(start + OPEN_AT_ONCE))
        .collect();
    let total = std::sync::atomic::AtomicU64::new(0);
    let done = AtomicUsize::new(0);
    let tick = || {
        let total = total.load(Ordering::Relaxed);
        progress(done.fetch_add(1, Ordering::Relaxed) as u64 + 1, total);
    };
    let mut merged = vec![Stats::default(); plan.groups.len()];
    let mut files: Vec<Read> = Vec::with_capacity(n);
    let mut changed = Vec::new();
    // First pass: everything but the histograms, a batch of files at a time. Each chunk is
    // summarised on its own and the summaries are merged in chunk order, so that sums of floats
    // come out the same on every run, however the threads happened to share the chunks.
    for batch in &batches {
        let opened = open_batch(plan, batch.clone(), read, threads);
        let sources: BTreeMap<usize, (&Source, &FrameIndex)> = opened
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                Some((
                    batch.start + i,
                    o.as_ref().ok().map(|o| (&o.source, &o.index))?,
                ))
            })
            .collect();
        let chunks = chunks_of(&sources);
        total.fetch_add(2 * chunks.len() as u64, Ordering::Relaxed);
        summarise_chunks(
            plan,
            &chunks,
            &sources,
            (decoder, threads),
            &tick,
            &|decoder, stats, payload, file| stats.add_payload(decoder, payload, file),
            |group, stats| {
                if let Some(all) = merged.get_mut(group) {
                    all.merge(&stats);
                }
            },
        );
        for opened in opened {
            files.push(match opened {
                Ok(Opened { source, index }) => {
                    // Figures from a file cut short came partly from zeros.
                    if let Err(e) = source.check_unchanged() {
                        changed.push(e.to_string());
                    }
                    let stamp = source.stamp();
                    let keep = keep_all || stamp.is_none();
                    Read::Indexed(Box::new(Indexed {
                        index,
                        source: keep.then_some(source),
                        stamp,
                    }))
                }
                Err(e) => Read::Unreadable(e),
            });
        }
    }
    // The range of each numeric feature across every group.
    let mut ranges: BTreeMap<FeatureKey, (f64, f64)> = BTreeMap::new();
    for stats in &merged {
        for (key, feature) in &stats.features {
            if let Some((lo, hi)) = feature.numeric.range() {
                let range = ranges.entry(key.clone()).or_insert((lo, hi));
                *range = (range.0.min(lo), range.1.max(hi));
            }
        }
    }
    // Second pass: histograms over those ranges, the files opened again a batch at a time when
    // they were not kept open.
    for batch in &batches {
        let mut reopened: BTreeMap<usize, Source> = BTreeMap::new();
        for file in batch.clone() {
            let (Some(Read::Indexed(indexed)), Some(path)) =
                (files.get(file), plan.files.get(file))
            else {
                continue;
            };
            let Indexed {
                source: None,
                stamp,
                ..
            } = indexed.as_ref()
            else {
                continue;
            };
            match Source::open(path, read) {
                Ok(source) if source.stamp() == *stamp => {
                    reopened.insert(file, source);
                }
                Ok(_) => changed.push(format!(
                    "{}: changed between the two passes over it",
                    crate::escape::path_for_terminal(path)
                )),
                Err(e) => changed.push(e.to_string()),
            }
        }
        let sources: BTreeMap<usize, (&Source, &FrameIndex)> = batch
            .clone()
            .filter_map(|file| match files.get(file)? {
                Read::Indexed(indexed) => {
                    let source = indexed.source.as_ref().or(reopened.get(&file))?;
                    Some((file, (source, &indexed.index)))
                }
                Read::Unreadable(_) => None,
            })
            .collect();
        let chunks = chunks_of(&sources);
        summarise_chunks(
            plan,
            &chunks,
            &sources,
            (decoder, threads),
            &tick,
            &|decoder, stats, payload, _| stats.add_to_histograms(decoder, payload, &ranges),
            |group, one| {
                let Some(all) = merged.get_mut(group) else {
                    return;
                };
                for (key, feature) in &one.features {
                    if let (Some(h), Some(target)) = (&feature.histogram, all.features.get_mut(key))
                    {
                        match &mut target.histogram {
                            Some(existing) => existing.merge(h),
                            None => target.histogram = Some(h.clone()),
                        }
                    }
                }
            },
        );
        for (source, _) in sources.values() {
            if let Err(e) = source.check_unchanged() {
                changed.push(e.to_string());
            }
        }
    }
    changed.dedup();
    let unreadable = files
        .iter()
        .zip(&plan.files)
        .filter_map(|(read, path)| match read {
            Read::Unreadable(e) => Some((path.clone(), e.clone())),
            Read::Indexed(_) => None,
        })
        .collect();
    Outcome {
        groups: plan.groups.iter().cloned().zip(merged).collect(),
        unreadable,
        changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

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
    fn progress_counts_every_chunk_of_both_passes() {
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
        // Three chunks of records, each summarised in both passes.
        assert_eq!(seen, (1..=6).map(|d| (d, 6)).collect::<Vec<_>>());
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
    fn files_past_the_batch_are_opened_again_for_the_second_pass() {
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
        // Both passes saw every file: the histogram counts every value.
        let histogram = feature
            .histogram
            .as_ref()
            .unwrap_or_else(|| panic!("no histogram"));
        assert_eq!(histogram.counts.iter().sum::<u64>(), n as u64);
    }
}
