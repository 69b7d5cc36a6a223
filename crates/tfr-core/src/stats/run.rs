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
use crate::source::{ReadOptions, Source};

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
    pub unreadable: Vec<(PathBuf, String)>,
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

/// [`compute`], telling `progress(done, total)` as chunks of records are summarised (both passes
/// count: `total` is twice the chunks), from whichever thread finished one.
pub fn compute_observed(
    plan: &Plan,
    decoder: &Decoder,
    read: &ReadOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Outcome {
    let threads = cores();
    // Open and index the files in parallel.
    let opened: Vec<Result<Opened, String>> = {
        let slots: Vec<std::sync::Mutex<Option<Result<Opened, String>>>> = plan
            .files
            .iter()
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        on_all_cores(
            plan.files.len(),
            threads,
            || (),
            |_, i| {
                let (Some(path), Some(slot)) = (plan.files.get(i), slots.get(i)) else {
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
    };
    let mut unreadable = Vec::new();
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    for (file, opened) in opened.iter().enumerate() {
        match opened {
            Ok(o) => chunks.extend((0..o.index.len()).step_by(CHUNK).map(|start| (file, start))),
            Err(e) => {
                unreadable.push((plan.files.get(file).cloned().unwrap_or_default(), e.clone()))
            }
        }
    }
    let groups = plan.groups.len();
    let total = 2 * chunks.len() as u64;
    let done = AtomicUsize::new(0);
    let tick = || progress(done.fetch_add(1, Ordering::Relaxed) as u64 + 1, total);
    // Summarises chunk `i` into a fresh `Stats` of its group: `add` is given each intact
    // payload with its file; damaged frames are counted.
    let summarise = |i: usize, add: &mut dyn FnMut(&mut Stats, &[u8], usize)| {
        tick();
        let &(file, start) = chunks.get(i)?;
        let o = opened.get(file)?.as_ref().ok()?;
        let group = *plan.group_of.get(file)?;
        let mut stats = Stats::default();
        let data = o.source.bytes();
        for frame in (start..start + CHUNK).map_while(|f| o.index.get(data, f)) {
            match frame.payload(data).filter(|_| frame.status.is_intact()) {
                Some(payload) => add(&mut stats, payload, file),
                None => stats.damaged += 1,
            }
        }
        Some((group, stats))
    };
    // First pass: everything but the histograms. Each chunk is summarised on its own and the
    // summaries are merged in chunk order, so that sums of floats come out the same on every
    // run, however the threads happened to share the chunks.
    let mut merged = vec![Stats::default(); groups];
    in_order(
        chunks.len(),
        threads,
        || decoder.clone(),
        |decoder, i| {
            summarise(i, &mut |stats, payload, file| {
                stats.add_payload(decoder, payload, file)
            })
        },
        |(group, stats)| {
            if let Some(all) = merged.get_mut(group) {
                all.merge(&stats);
            }
        },
    );
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
    // Second pass: histograms over those ranges.
    in_order(
        chunks.len(),
        threads,
        || decoder.clone(),
        |decoder, i| {
            summarise(i, &mut |stats, payload, _| {
                stats.add_to_histograms(decoder, payload, &ranges)
            })
        },
        |(group, one)| {
            let Some(all) = merged.get_mut(group) else {
                return;
            };
            for (key, feature) in &one.features {
                if let (Some(h), Some(target)) = (&feature.histogram, all.features.get_mut(key)) {
                    match &mut target.histogram {
                        Some(existing) => existing.merge(h),
                        None => target.histogram = Some(h.clone()),
                    }
                }
            }
        },
    );
    Outcome {
        groups: plan.groups.iter().cloned().zip(merged).collect(),
        unreadable,
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
}
