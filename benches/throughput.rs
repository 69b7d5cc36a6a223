//! Throughput benchmarks, reported as ratios measured in one run.
//!
//! Generates two ~1 GiB TFRecord files in a temporary directory (10k records of ~100 KiB, and ~4M
//! records of ~250 bytes), then measures, against raw crc32c over the same bytes already in memory:
//! verify throughput, parallel verify of two files, decode + annotate of one record, anonymous
//! memory while a 4M-frame file is inspected, and the time to the first line of streamed output.
//! It also times whole `tfr-inspect` processes as users run them: `verify FILE` against the
//! whole-process crc32c limit, in turn, pair by pair, and the peak memory of `verify` on the
//! small-record file compressed with GZIP; and the grouping of 100,000 shard names into splits.
//!
//! `cargo bench` runs it; `TFR_BENCH_SCALE=0.1 cargo bench` runs it on files a tenth the size, and
//! `TFR_BENCH_KEEP=DIR` keeps the generated files in DIR for `benches/tf_compare.py` (and reuses
//! them; with `TFR_BENCH_GENERATE_ONLY=1` it stops there). `TFR_BENCH_CRC_LIMIT=FILE` makes the
//! binary the whole-process single-core crc32c limit `verify FILE` is compared with.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tfr_core::annotate::Annotated;
use tfr_core::bytes::whole;
use tfr_core::frame::FrameIndex;
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_core::source::{ReadOptions, Source};

/// An Example with one bytes feature `data` of `size` bytes and an int64 `label`.
fn example(size: usize, seed: u64) -> Vec<u8> {
    fn ld(field: u8, data: &[u8], out: &mut Vec<u8>) {
        out.push((field << 3) | 2);
        let mut len = data.len();
        while len >= 0x80 {
            out.push((len as u8) | 0x80);
            len >>= 7;
        }
        out.push(len as u8);
        out.extend_from_slice(data);
    }
    let mut bytes = Vec::with_capacity(size);
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for _ in 0..size {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.push(x as u8);
    }
    let mut list = Vec::new();
    ld(1, &bytes, &mut list);
    let mut bytes_list = Vec::new();
    ld(1, &list, &mut bytes_list);
    let mut entry = Vec::new();
    ld(1, b"data", &mut entry);
    ld(2, &bytes_list, &mut entry);
    let mut label_entry = Vec::new();
    ld(1, b"label", &mut label_entry);
    ld(
        2,
        &[0x1a, 0x03, 0x0a, 0x01, (seed % 10) as u8],
        &mut label_entry,
    );
    let mut features = Vec::new();
    ld(1, &entry, &mut features);
    ld(1, &label_entry, &mut features);
    let mut out = Vec::new();
    ld(1, &features, &mut out);
    out
}

fn write_file(path: &Path, records: usize, payload_size: usize, seed: u64) {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
    // Sixteen distinct payloads of sixteen different lengths, cycled: generation must not
    // dominate the benchmark's time.
    let templates: Vec<Vec<u8>> = (0..16)
        .map(|s| example(payload_size + s as usize, seed + s))
        .collect();
    for i in 0..records {
        let payload = &templates[i % templates.len()];
        tfr_core::frame::write_record(payload, &mut out).unwrap();
    }
    out.flush().unwrap();
}

/// Best of `runs` timings of `f`.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn gbps(bytes: u64, time: Duration) -> f64 {
    bytes as f64 / time.as_secs_f64() / 1e9
}

fn rss_anon_kib() -> Option<u64> {
    status_kib("/proc/self/status", "RssAnon:")
}

/// A figure in KiB of a process's status file (`/proc/PID/status`), such as `VmHWM:`.
fn status_kib(status: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(status).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Shard {
    name: &'static str,
    path: PathBuf,
    records: usize,
}

/// Environment variable that turns this binary into the memory probe for one file.
const RSS_PROBE: &str = "TFR_BENCH_RSS_PROBE";
/// Environment variable that turns this binary into the whole-process single-core crc32c limit
/// for one file: map it, compute crc32c over every byte once, exit. `verify` of the same file is
/// timed against it as a whole process, in turn ([`verify_against_crc_limit`]).
const CRC_LIMIT: &str = "TFR_BENCH_CRC_LIMIT";

/// Maps `path` as `verify` does and computes crc32c over all of it, on one core.
fn crc_limit(path: &str) {
    let source = Source::open(Path::new(path), &ReadOptions::as_is()).unwrap();
    println!("{:08x}", crc32c::crc32c(whole(&source).unwrap()));
}

/// Opens the file as the CLI (`cli:PATH`) or the inspector (`tui:PATH`) does, indexes it fully,
/// looks at its first and last records, and prints RssAnon before and after, and the frame count.
fn rss_probe(spec: &str) {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use tfr_inspect::tui::app::App;
    use tfr_inspect::tui::keymap::Action;

    let (mode, path) = spec.split_once(':').unwrap();
    let path = Path::new(path);
    let start = rss_anon_kib().unwrap_or(0);
    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let frames = if mode == "tui" {
        let mut app = App::open(&[path.to_path_buf()], &OpenOptions::new(decoder.clone())).unwrap();
        app.update(Action::Resize {
            width: 160,
            height: 48,
        });
        app.index_now();
        let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
        for key in [Action::End, Action::Home] {
            app.update(key);
            terminal.draw(|f| f.render_widget(&app, f.area())).unwrap();
        }
        // Measured while the app is alive.
        (app.frame_count(), rss_anon_kib().unwrap_or(0))
    } else {
        let mut input =
            tfr_core::input::Input::open(path, &OpenOptions::new(decoder.clone())).unwrap();
        input.settle_all();
        let last = input.index.len() - 1;
        for n in [0, last] {
            let frame = input.frame(n).unwrap();
            let data = input.data();
            let decoder = input.decoder();
            let decoded = decoder.decode(frame.payload(data).unwrap());
            let annotated = Annotated::new(data, &frame, Some(&decoded), decoder.table());
            black_box(
                annotated
                    .tokens()
                    .map(|t| annotated.meaning(&t).len())
                    .sum::<usize>(),
            );
        }
        (input.index.len(), rss_anon_kib().unwrap_or(0))
    };
    let (frames, end) = frames;
    println!("{start} {end} {frames}");
}

fn main() {
    if let Ok(spec) = std::env::var(RSS_PROBE) {
        rss_probe(&spec);
        return;
    }
    if let Ok(path) = std::env::var(CRC_LIMIT) {
        crc_limit(&path);
        return;
    }
    // TFR_BENCH_ONLY=shards measures only the grouping of shard names (no file is written).
    if std::env::var("TFR_BENCH_ONLY").as_deref() == Ok("shards") {
        return shard_grouping();
    }
    // TFR_BENCH_ONLY=startup measures only a whole process's start (no file is written).
    if std::env::var("TFR_BENCH_ONLY").as_deref() == Ok("startup") {
        return startup();
    }
    let scale: f64 = std::env::var("TFR_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    // `cargo bench` passes `--bench`; any other argument is a filter we ignore.
    // TFR_BENCH_KEEP=DIR keeps the generated files there (benches/tf_compare.py reads them).
    let keep = std::env::var_os("TFR_BENCH_KEEP").map(PathBuf::from);
    let temp = tempfile::tempdir().unwrap();
    let dir_path = keep.clone().unwrap_or_else(|| temp.path().to_path_buf());
    std::fs::create_dir_all(&dir_path).unwrap();
    let dir = &dir_path;
    let shards = [
        Shard {
            name: "100 KiB records",
            path: dir.join("large.tfrecord"),
            records: (10_000.0 * scale) as usize,
        },
        Shard {
            name: "250 B records",
            path: dir.join("small.tfrecord"),
            records: (4_000_000.0 * scale) as usize,
        },
    ];
    let sizes = [100 * 1024, 250 - 40];
    for (shard, size) in shards.iter().zip(sizes) {
        let start = Instant::now();
        if keep.is_some() && shard.path.exists() {
            continue;
        }
        write_file(&shard.path, shard.records, size, 0);
        let len = std::fs::metadata(&shard.path).unwrap().len();
        eprintln!(
            "generated {}: {} records, {:.2} GiB in {:.1?}",
            shard.name,
            shard.records,
            len as f64 / (1u64 << 30) as f64,
            start.elapsed()
        );
    }

    if std::env::var_os("TFR_BENCH_GENERATE_ONLY").is_some() {
        return;
    }
    // TFR_BENCH_ONLY=search measures only the inspector's search; TFR_BENCH_ONLY=verify only
    // whole `verify` processes (against the crc32c limit, and on a GZIP file).
    match std::env::var("TFR_BENCH_ONLY").as_deref() {
        Ok("search") => return search(&shards[1]),
        Ok("verify") => return whole_process_verify(&shards),
        _ => {}
    }
    println!("tfr-inspect throughput (one run; ratios are what to compare across machines)");
    println!(
        "machine: {} cores, {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_name()
    );
    for shard in &shards {
        let source = Source::open(&shard.path, &ReadOptions::as_is()).unwrap();
        let data = whole(&source).unwrap();
        let len = data.len() as u64;
        // Warm the page cache and the mapping so both measurements read memory.
        black_box(crc32c::crc32c(data));
        let raw = best(3, || crc32c::crc32c(data));
        let verify = best(3, || FrameIndex::build(data));
        let index = FrameIndex::build(data);
        assert_eq!(index.len(), shard.records);
        assert_eq!(index.damaged_count(), 0);
        println!(
            "{:<16} raw crc32c {:6.2} GB/s | verify (index + both CRCs) {:6.2} GB/s = {:.2}x raw | {:.1} M frames/s",
            shard.name,
            gbps(len, raw),
            gbps(len, verify),
            raw.as_secs_f64() / verify.as_secs_f64(),
            shard.records as f64 / verify.as_secs_f64() / 1e6,
        );
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let frame = index.get(data, 1).unwrap();
        let payload = frame.payload(data).unwrap();
        let decode = best(20, || {
            let decoded = decoder.decode(payload);
            let annotated = Annotated::new(data, &frame, Some(&decoded), decoder.table());
            annotated
                .tokens()
                .map(|t| annotated.meaning(&t).len())
                .sum::<usize>()
        });
        println!(
            "{:<16} decode + annotate one {}-byte record: {:.1?}",
            shard.name,
            payload.len(),
            decode
        );
    }

    // Two files of the same shape verified in parallel (as `verify A B` does) versus one after
    // the other.
    let twin = dir.join("large-2.tfrecord");
    write_file(&twin, shards[0].records, sizes[0], 100);
    let files = [shards[0].path.clone(), twin];
    let check = |path: &PathBuf| {
        FrameIndex::build(&Source::open(path, &ReadOptions::as_is()).unwrap()).len()
    };
    black_box(files.iter().map(check).sum::<usize>());
    let sequential = best(3, || files.iter().map(check).sum::<usize>());
    let parallel = best(3, || {
        use rayon::prelude::*;
        files.par_iter().map(check).sum::<usize>()
    });
    println!(
        "two 100 KiB-record files: sequential {:.1?}, parallel {:.1?} = {:.2}x of sequential (target <= 0.6x on 2 cores)",
        sequential,
        parallel,
        parallel.as_secs_f64() / sequential.as_secs_f64()
    );

    shard_grouping();

    // Anonymous memory of a fresh process inspecting the 4M-frame file (page-cache pages of the
    // mapped file are not anonymous memory, so payloads cost nothing here).
    for mode in ["cli", "tui"] {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .env(RSS_PROBE, format!("{mode}:{}", shards[1].path.display()))
            .output()
            .unwrap();
        let probe = String::from_utf8_lossy(&child.stdout);
        let mut numbers = probe
            .split_whitespace()
            .filter_map(|w| w.parse::<u64>().ok());
        let (start_kib, end_kib, frames) = (
            numbers.next().unwrap_or(0),
            numbers.next().unwrap_or(0),
            numbers.next().unwrap_or(1),
        );
        let budget_kib = 32 * 1024 + 16 * frames / 1024;
        println!(
            "RssAnon, {mode} inspecting {frames} frames: {end_kib} KiB ({start_kib} KiB at start); budget 32 MiB + 16 B/frame = {budget_kib} KiB -> {:.2}x of budget",
            end_kib as f64 / budget_kib as f64
        );
    }

    for shard in &shards {
        per_record(shard);
    }
    whole_process_verify(&shards);
    startup();
    streaming_output(&shards[1].path);
    inspector(&shards);
    search(&shards[1]);
}

/// Shard names grouped into sets and checked for missing and doubled numbers, as `verify DIR`
/// does before it reads a byte: 100,000 shards of one set, and 100,000 sets of one shard each.
fn shard_grouping() {
    use tfr_core::dataset::shards::{ShardName, group};
    let n = 100_000;
    let cases = [
        (
            "100000 shards of one set",
            (0..n)
                .map(|i| format!("train-{i:06}-of-{n:06}"))
                .collect::<Vec<_>>(),
        ),
        (
            "100000 sets of one shard",
            (0..n)
                .map(|i| format!("d{i}/s{i}-00000-of-00001"))
                .collect(),
        ),
    ];
    for (what, relative) in cases {
        let names: Vec<(PathBuf, ShardName)> = relative
            .iter()
            .map(|relative| {
                let path = Path::new("/data").join(relative);
                let name = path.file_name().and_then(|n| n.to_str()).unwrap();
                let name = ShardName::parse(name).unwrap();
                (path, name)
            })
            .collect();
        let time = (0..3)
            .map(|_| {
                let input = names.clone();
                let start = Instant::now();
                let sets = group(input);
                black_box(
                    sets.iter()
                        .map(|s| s.problems("split").len())
                        .sum::<usize>(),
                );
                let time = start.elapsed();
                drop(sets);
                time
            })
            .min()
            .unwrap();
        println!(
            "grouping shard names into splits and checking their numbers, {what}: {time:.1?} (target well under 1 s)"
        );
    }
}

/// The inspector's search (`/`) over every record of the small-record shard, as its worker runs
/// it: the core search on every core, from the first frame to the last hit. Needles: text in no
/// record (only the bytes are scanned); `856`, whose encodings are in few records (only those
/// are decoded); `100`, in no record but whose varint byte is in nearly every one (the worst
/// case: every record decoded, no hit); and a label value (a hit in one record of 16, and in
/// most records' random `data` bytes, so the search stops at the first million).
fn search(shard: &Shard) {
    use tfr_core::search::{Needle, SearchProgress, search_frames};

    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let mut input = tfr_core::input::Input::open(&shard.path, &OpenOptions::new(decoder)).unwrap();
    input.settle_all();
    let data = whole(input.data()).unwrap();
    black_box(crc32c::crc32c(data));
    let index = &input.index;
    for needle in ["no such text", "856", "100", "7"] {
        let needle = Needle::new(needle);
        let mut hits = 0usize;
        let time = best(3, || {
            hits = 0;
            search_frames(
                data,
                index,
                0..index.len(),
                input.decoder(),
                &needle,
                &SearchProgress::default(),
                |wave, _| hits += wave.len(),
            )
        });
        println!(
            "search {} records for {:?}: {:.2?} to the last hit, {} records match (target < 3 s)",
            index.len(),
            String::from_utf8_lossy(needle.text()),
            time,
            hits
        );
    }
}

/// Single-thread cost per record of what `list` and `show --format json|text` do for each record
/// (decode and render, output discarded), over up to 200,000 records of the shard.
fn per_record(shard: &Shard) {
    use tfr_core::summary::describe_frame;
    use tfr_inspect::cli::show::{json_of, text_of};

    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let mut input =
        tfr_core::input::Input::open(&shard.path, &OpenOptions::new(decoder.clone())).unwrap();
    input.settle_all();
    let count = input.index.len().min(200_000);
    let data = input.data();
    let frames: Vec<_> = (0..count)
        .map(|i| input.index.get(data, i).unwrap())
        .collect();
    let per = |time: Duration| time.as_secs_f64() * 1e9 / count as f64;
    let list = best(3, || {
        frames
            .iter()
            .map(|f| describe_frame(&input, *f).summary.len())
            .sum::<usize>()
    });
    let decoder = input.decoder();
    let json = best(3, || {
        frames
            .iter()
            .map(|f| {
                let payload = f.payload(data).unwrap();
                json_of(decoder, &decoder.decode(payload), payload).len()
            })
            .sum::<usize>()
    });
    let text = best(3, || {
        frames
            .iter()
            .map(|f| {
                let payload = f.payload(data).unwrap();
                text_of(decoder, &decoder.decode(payload), payload).len()
            })
            .sum::<usize>()
    });
    println!(
        "{:<16} per record, one thread, {count} records: list {:.0} ns | show json {:.0} ns | show text {:.0} ns",
        shard.name,
        per(list),
        per(json),
        per(text)
    );
}

/// The interactive inspector drawn into a TestBackend: time to the first frame on each 1 GiB file,
/// and key press to redraw with the 4M-frame file fully indexed.
fn inspector(shards: &[Shard]) {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use tfr_inspect::tui::app::App;
    use tfr_inspect::tui::keymap::{Action, PromptKind};

    let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
    let draw = |terminal: &mut Terminal<TestBackend>, app: &App| {
        terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    };
    for shard in shards {
        let start = Instant::now();
        let mut app = App::open(
            std::slice::from_ref(&shard.path),
            &OpenOptions::new(decoder.clone()),
        )
        .unwrap();
        app.update(Action::Resize {
            width: 160,
            height: 48,
        });
        let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
        draw(&mut terminal, &app);
        println!(
            "{:<16} TUI: open and draw frame 0 of a {:.2} GiB file: {:.1?} (target < 50 ms)",
            shard.name,
            std::fs::metadata(&shard.path).unwrap().len() as f64 / (1u64 << 30) as f64,
            start.elapsed()
        );
    }
    let small = &shards[1];
    let mut app = App::open(
        std::slice::from_ref(&small.path),
        &OpenOptions::new(decoder.clone()),
    )
    .unwrap();
    app.update(Action::Resize {
        width: 160,
        height: 48,
    });
    app.index_now();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    draw(&mut terminal, &app);
    let mut keys = vec![
        Action::Down,
        Action::PageDown,
        Action::End,
        Action::Home,
        Action::NextPane,
        Action::Down,
        Action::PrevPane,
    ];
    keys.push(Action::Prompt(PromptKind::Record));
    keys.extend("2000000".chars().map(Action::Input));
    keys.push(Action::Submit);
    let mut times = Vec::new();
    for _ in 0..20 {
        for key in &keys {
            let start = Instant::now();
            app.update(*key);
            draw(&mut terminal, &app);
            times.push(start.elapsed());
        }
    }
    times.sort();
    println!(
        "TUI with {} frames indexed: key press to redraw median {:.2?}, worst {:.2?} over {} presses",
        app.frame_count(),
        times[times.len() / 2],
        times[times.len() - 1],
        times.len()
    );
}

/// The `tfr-inspect` binary cargo built with this benchmark (the bench profile's, optimised as
/// the release one is), which the whole-process measurements run.
const BINARY: &str = env!("CARGO_BIN_EXE_tfr-inspect");

/// `verify` as users run it: on each file against the crc32c limit, and on the small-record file
/// compressed with GZIP.
fn whole_process_verify(shards: &[Shard]) {
    let binary = Path::new(BINARY);
    for shard in shards {
        verify_against_crc_limit(binary, shard);
    }
    if let Some(small) = shards.get(1) {
        gzip_peak_memory(binary, small);
    }
}

/// Wall time of a whole process, its output discarded (its progress on stderr too).
fn time_process(command: &mut std::process::Command) -> Duration {
    let start = Instant::now();
    let status = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{command:?} failed: {status}");
    start.elapsed()
}

/// Whole processes that print no record (`show -n 0` of a small file): what starting a command
/// costs, the built-in schema included. Timed in turn with `true`, a process that does nothing,
/// so that the ratio says what the host's speed of the hour does not: 41 pairs, after one of each.
fn startup() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/mnist_like.tfrecord");
    let show = || {
        time_process(
            std::process::Command::new(BINARY)
                .args(["show", "-n", "0"])
                .arg(&file),
        )
        .as_secs_f64()
            * 1e3
    };
    let nothing = || time_process(&mut std::process::Command::new("true")).as_secs_f64() * 1e3;
    show();
    nothing();
    let mut shows = Vec::new();
    let mut nothings = Vec::new();
    let mut ratios = Vec::new();
    for pair in 0..41 {
        // Each side goes first in alternate pairs.
        let (a, b) = if pair % 2 == 0 {
            let a = show();
            (a, nothing())
        } else {
            let b = nothing();
            (show(), b)
        };
        shows.push(a);
        nothings.push(b);
        ratios.push(a / b);
    }
    let (median, least, most) = spread(shows);
    let (nothing_median, _, _) = spread(nothings);
    let (ratio, _, _) = spread(ratios);
    println!(
        "start-up: whole-process `show -n 0` of a small file {median:.2} ms (median of 41, {least:.2} to {most:.2} ms; target < 3 ms); `true` in turn {nothing_median:.2} ms: {ratio:.2}x (median of the pairs' ratios)"
    );
}

/// Median, least and greatest of `values`.
fn spread(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

/// Pairs of whole processes timed for each comparison: each pair runs both sides back to back,
/// so that its ratio compares moments a fraction of a second apart on a machine whose speed drifts.
const PAIRS: usize = 15;

/// `tfr-inspect verify FILE` against the whole-process single-core crc32c limit (this binary as
/// [`crc_limit`]: map the file, crc32c over every byte once), timed in turn, pair by pair; the
/// two go first in alternate pairs. Prints the median of the pairs' ratios (and, apart, each
/// side's median time, which need not give that ratio).
fn verify_against_crc_limit(binary: &Path, shard: &Shard) {
    let limit = || {
        time_process(
            std::process::Command::new(std::env::current_exe().unwrap())
                .env(CRC_LIMIT, &shard.path),
        )
    };
    let verify = || {
        time_process(
            std::process::Command::new(binary)
                .arg("verify")
                .arg(&shard.path),
        )
    };
    // One of each first: the file is in the page cache and both binaries are loaded.
    limit();
    verify();
    let (mut limits, mut verifies, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for pair in 0..PAIRS {
        let (limit, verify) = if pair % 2 == 0 {
            (limit(), verify())
        } else {
            let verify = verify();
            (limit(), verify)
        };
        limits.push(limit.as_secs_f64());
        verifies.push(verify.as_secs_f64());
        ratios.push(limit.as_secs_f64() / verify.as_secs_f64());
    }
    let (ratio, least, most) = spread(ratios);
    println!(
        "{:<16} whole-process verify {:.3} s, crc32c limit {:.3} s (medians): verify {:.2}x the limit's speed (median of {PAIRS} pairs, {:.2}x to {:.2}x; target >= 1.5x)",
        shard.name,
        spread(verifies).0,
        spread(limits).0,
        ratio,
        least,
        most
    );
}

/// The peak resident memory of `tfr-inspect verify` on the small-record file compressed with
/// GZIP, against the size of its decompressed stream. The peak is the kernel's high-water mark
/// (`VmHWM`), read every 2 ms while the process runs: it only grows, so what a sample misses is
/// only growth in the last 2 ms before the process exits (`/usr/bin/time -v` gives the exact
/// figure).
fn gzip_peak_memory(binary: &Path, shard: &Shard) {
    let gz = shard.path.with_extension("tfrecord.gz");
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    // A kept compressed copy older than the file (generated again since) is made again.
    if modified(&gz).is_none_or(|made| modified(&shard.path).is_some_and(|file| file > made)) {
        let start = Instant::now();
        let partial = gz.with_extension("gz.partial");
        let mut encoder = flate2::write::GzEncoder::new(
            BufWriter::new(File::create(&partial).unwrap()),
            flate2::Compression::fast(),
        );
        std::io::copy(&mut File::open(&shard.path).unwrap(), &mut encoder).unwrap();
        encoder.finish().unwrap().flush().unwrap();
        std::fs::rename(&partial, &gz).unwrap();
        eprintln!(
            "compressed {} with GZIP in {:.1?}",
            shard.name,
            start.elapsed()
        );
    }
    let stream = std::fs::metadata(&shard.path).unwrap().len();
    let on_disk = std::fs::metadata(&gz).unwrap().len();
    let mut child = std::process::Command::new(binary)
        .arg("verify")
        .arg(&gz)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Some(high_water) = status_kib(&status_path, "VmHWM:") {
            peak_kib = peak_kib.max(high_water);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(
        status.success(),
        "verify of {} failed: {status}",
        gz.display()
    );
    if peak_kib == 0 {
        println!("verify of a GZIP file: ended before its memory could be read");
        return;
    }
    let mib = |bytes: u64| bytes as f64 / (1u64 << 20) as f64;
    let peak = peak_kib * 1024;
    println!(
        "verify of a GZIP file ({:.0} MiB, {:.0} MiB decompressed): peak resident {:.0} MiB = {:.2}x its stream (target <= 1.1x the stream + 64 MiB = {:.0} MiB)",
        mib(on_disk),
        mib(stream),
        mib(peak),
        peak as f64 / stream as f64,
        mib(stream) * 1.1 + 64.0
    );
}

/// Time to the first line of `show --format json` and `hex` on the small-record file (a streaming
/// CLI answers before reading the whole file).
fn streaming_output(path: &Path) {
    let binary = Path::new(BINARY);
    for args in [
        vec!["show", "--format", "json", "--range", "0.."],
        vec!["hex", "-n", "0"],
    ] {
        let start = Instant::now();
        let mut child = std::process::Command::new(binary)
            .args(&args[..1])
            .arg(path)
            .args(&args[1..])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut byte = [0u8; 1];
        std::io::Read::read_exact(&mut stdout, &mut byte).unwrap();
        let first = start.elapsed();
        drop(stdout);
        let _ = child.kill();
        let _ = child.wait();
        println!(
            "{:<28} first output byte after {:.1?}",
            args.join(" "),
            first
        );
    }
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}
