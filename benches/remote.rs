//! Reading a remote shard, against the time the same bytes take to download, reported as ratios.
//!
//! An HTTP server in this process serves a 1 GiB-shaped TFRecord object (1024 records of 1 MiB,
//! every byte computed from its offset, so nothing holds the gigabyte) with Range and an ETag,
//! each request delayed 50 ms and each connection paced to 100 MB/s, as a cloud store far away
//! would. Measured: the time to download the object by parallel ranged GETs of 16 MiB over as
//! many connections as `verify` uses (4 per object, as `aws s3 cp` or `curl` ranges in parallel
//! would), the time of a whole `tfr-inspect verify URL` process, and the time until the
//! inspector's first screen is drawn (opening the object and rendering frame 0).
//!
//! `cargo bench --bench remote` runs it (any profile: `--profile dev` reuses the test build; the
//! fetch is bound by the injected latency and pace, and the checksums build optimised in dev too).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tfr_core::input::OpenOptions;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::Schema;
use tfr_inspect::tui::app::App;

const OBJECT: u64 = 1 << 30;
const RECORD: u64 = 1 << 20;
const LATENCY: Duration = Duration::from_millis(50);
const BYTES_PER_SEC: f64 = 100e6;
const PART: u64 = 16 << 20;
const CONNECTIONS: usize = 4;
/// Bytes written to a connection between two checks of its pace.
const CHUNK: usize = 64 << 10;

/// One record of the object (all 1024 are this one): a 1 MiB frame around a payload of bytes.
fn record() -> Vec<u8> {
    let payload: Vec<u8> = (0..RECORD - 16).map(|i| (i % 251) as u8).collect();
    let mut out = Vec::with_capacity(RECORD as usize);
    tfr_core::frame::write_record(&payload, &mut out).unwrap();
    assert_eq!(out.len() as u64, RECORD);
    out
}

/// Serves the object on loopback; returns its URL and the request counter.
fn serve(record: Arc<Vec<u8>>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/shard.tfrecord", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&requests);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let record = Arc::clone(&record);
            let counted = Arc::clone(&counted);
            std::thread::spawn(move || answer(stream, &record, &counted));
        }
    });
    (url, requests)
}

/// Answers the requests of one connection (kept alive) until the client closes it.
fn answer(mut stream: TcpStream, record: &[u8], counted: &AtomicUsize) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut first = String::new();
        if reader.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        let mut range = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                break;
            }
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                let (a, b) = value.trim().split_once('-').unwrap();
                range = Some((a.parse::<u64>().unwrap(), b.parse::<u64>().ok()));
            }
        }
        counted.fetch_add(1, Ordering::SeqCst);
        if std::env::var_os("TFR_BENCH_SHOW_REQUESTS").is_some() {
            eprintln!("{} {range:?}", first.trim_end());
        }
        std::thread::sleep(LATENCY);
        if first.split(' ').nth(1) != Some("/shard.tfrecord") {
            // A side file looked for beside the shard (features.json): there is none.
            let missing = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
            if stream.write_all(missing.as_bytes()).is_err() {
                return;
            }
            continue;
        }
        let (start, end) = match range {
            Some((a, b)) => (a, b.map_or(OBJECT - 1, |b| b.min(OBJECT - 1))),
            None => (0, OBJECT - 1),
        };
        let status = if range.is_some() {
            format!("206 Partial Content\r\nContent-Range: bytes {start}-{end}/{OBJECT}")
        } else {
            "200 OK".to_string()
        };
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nETag: \"v1\"\r\n\r\n",
            end + 1 - start
        );
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        // The body, paced: each chunk waits until the connection's rate allows it.
        let began = Instant::now();
        let mut chunk = vec![0u8; CHUNK];
        let mut at = start;
        while at <= end {
            let n = (end + 1 - at).min(CHUNK as u64) as usize;
            // The object repeats its record: copy the chunk out of it in (at most two) slices.
            let mut filled = 0;
            while filled < n {
                let from = ((at + filled as u64) % RECORD) as usize;
                let take = (n - filled).min(record.len() - from);
                chunk[filled..filled + take].copy_from_slice(&record[from..from + take]);
                filled += take;
            }
            let due = Duration::from_secs_f64((at - start) as f64 / BYTES_PER_SEC);
            if let Some(wait) = due.checked_sub(began.elapsed()) {
                std::thread::sleep(wait);
            }
            if stream.write_all(&chunk[..n]).is_err() {
                return;
            }
            at += n as u64;
        }
    }
}

/// Downloads the object as `aws s3 cp` would: ranged GETs of [`PART`] over [`CONNECTIONS`]
/// kept-alive connections, each part written at its offset in a temporary file.
fn download(url: &str) -> Duration {
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let file = Arc::new(tempfile::tempfile().unwrap());
    let next = Arc::new(AtomicUsize::new(0));
    let parts = OBJECT.div_ceil(PART) as usize;
    let start = Instant::now();
    let workers: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let (addr, file, next) = (addr.clone(), Arc::clone(&file), Arc::clone(&next));
            std::thread::spawn(move || {
                let mut stream = TcpStream::connect(&addr).unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut body = vec![0u8; PART as usize];
                loop {
                    let part = next.fetch_add(1, Ordering::SeqCst);
                    if part >= parts {
                        return;
                    }
                    let from = part as u64 * PART;
                    let to = (from + PART).min(OBJECT) - 1;
                    write!(
                        stream,
                        "GET /shard.tfrecord HTTP/1.1\r\nHost: {addr}\r\nRange: bytes={from}-{to}\r\n\r\n"
                    )
                    .unwrap();
                    let mut len = 0usize;
                    loop {
                        let mut line = String::new();
                        reader.read_line(&mut line).unwrap();
                        if line == "\r\n" {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length: ") {
                            len = v.trim().parse().unwrap();
                        }
                    }
                    reader.read_exact(&mut body[..len]).unwrap();
                    file.write_all_at(&body[..len], from).unwrap();
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    start.elapsed()
}

/// A whole `tfr-inspect verify URL` process.
fn verify(url: &str) -> Duration {
    let start = Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(["verify", url])
        .output()
        .unwrap();
    let took = start.elapsed();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("1024"), "{text}");
    took
}

/// Opening the object in the inspector and drawing its first screen (the built-in schema, which
/// the inspector compiles before it opens anything, is timed apart: it is the same for a file).
fn first_screen(url: &str) -> Duration {
    let schema = Instant::now();
    let mut options = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
    println!(
        "built-in schema (before):      {:.3} s",
        schema.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    options.read.on_demand = true;
    let app = App::open(&[url.into()], &options).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    terminal.draw(|f| f.render_widget(&app, f.area())).unwrap();
    start.elapsed()
}

fn main() {
    tfr_inspect::remote::Remotes::register(false);
    let (url, requests) = serve(Arc::new(record()));
    // The floor: the injected latency of one request per connection's share of the parts, and
    // the object at the connections' combined pace.
    let parts = OBJECT.div_ceil(PART);
    let floor =
        (parts as f64 / CONNECTIONS as f64) * (LATENCY.as_secs_f64() + PART as f64 / BYTES_PER_SEC);
    println!(
        "object: {} bytes, {parts} parts of {PART}; {} ms per request, {} MB/s per connection, {CONNECTIONS} connections",
        OBJECT,
        LATENCY.as_millis(),
        BYTES_PER_SEC / 1e6
    );
    println!("floor (latency + pace):        {floor:.2} s");
    let downloaded = download(&url);
    println!(
        "parallel ranged download:      {:.2} s",
        downloaded.as_secs_f64()
    );
    let before = requests.load(Ordering::SeqCst);
    let verified = verify(&url);
    let verify_requests = requests.load(Ordering::SeqCst) - before;
    println!(
        "tfr-inspect verify URL:        {:.2} s ({verify_requests} requests)",
        verified.as_secs_f64()
    );
    let before = requests.load(Ordering::SeqCst);
    let screen = first_screen(&url);
    let screen_requests = requests.load(Ordering::SeqCst) - before;
    println!(
        "inspector's first screen:      {:.3} s ({screen_requests} requests)",
        screen.as_secs_f64()
    );
    println!(
        "verify / download:             {:.2}x",
        verified.as_secs_f64() / downloaded.as_secs_f64()
    );
    println!(
        "first screen / 0.5 s:          {:.2}x",
        screen.as_secs_f64() / 0.5
    );
}
