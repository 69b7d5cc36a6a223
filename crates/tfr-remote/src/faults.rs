//! A small HTTP server on loopback, written with the standard library only, that serves one
//! object with Range and ETag and misbehaves as a script says: 503 or 429 before succeeding, a
//! body cut mid-way, Range ignored, the object rewritten, a stall. Every case must end in the
//! object's bytes or a clear error, never a hang or wrong bytes.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{Env, Error, ObjectUrl, Remote, RemoteOptions};

/// How the server answers request number `n` (from 0).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fault {
    None,
    /// The first `n` requests get this status.
    Status(u16, usize),
    /// Request number `n` sends half its body, then closes.
    CutBody(usize),
    IgnoreRange,
    /// From request number `n` on, the object is another one (same size, new ETag).
    Rewrite(usize),
    /// Every request after the first is read and never answered.
    Stall,
}

struct Server {
    url: String,
    requests: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop.
        let _ = TcpStream::connect(
            self.url
                .trim_start_matches("http://")
                .split('/')
                .next()
                .unwrap_or(""),
        );
    }
}

fn serve(body: Vec<u8>, fault: Fault) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let bodies = Arc::new(Mutex::new((
        body.clone(),
        body.iter().map(|b| b ^ 0xff).collect::<Vec<u8>>(),
    )));
    let (count, stopped) = (Arc::clone(&requests), Arc::clone(&stop));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if stopped.load(Ordering::SeqCst) {
                return;
            }
            let Ok(stream) = stream else { continue };
            let n = count.fetch_add(1, Ordering::SeqCst);
            let bodies = Arc::clone(&bodies);
            let stopped = Arc::clone(&stopped);
            std::thread::spawn(move || answer(stream, n, fault, &bodies, &stopped));
        }
    });
    Server {
        url: format!("http://{addr}/data/train.tfrecord"),
        requests,
        stop,
    }
}

fn answer(
    mut stream: TcpStream,
    n: usize,
    fault: Fault,
    bodies: &Mutex<(Vec<u8>, Vec<u8>)>,
    stopped: &AtomicBool,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut range = None;
    let mut if_match = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("range: bytes=") {
            let (a, b) = value.trim().split_once('-').unwrap();
            range = Some((a.parse::<u64>().unwrap(), b.parse::<u64>().ok()));
        }
        if let Some(value) = lower.strip_prefix("if-match: ") {
            if_match = Some(value.trim().trim_matches('"').to_string());
        }
    }
    if fault == Fault::Stall && n > 0 {
        while !stopped.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
        return;
    }
    if let Fault::Status(status, times) = fault {
        if n < times {
            let reason = match status {
                429 => "Too Many Requests",
                500 => "Internal Server Error",
                _ => "Service Unavailable",
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            return;
        }
    }
    let rewritten = matches!(fault, Fault::Rewrite(from) if n >= from);
    let (etag, body) = {
        let bodies = bodies.lock().unwrap();
        if rewritten {
            ("v2", bodies.1.clone())
        } else {
            ("v1", bodies.0.clone())
        }
    };
    if if_match.as_deref().is_some_and(|m| m != etag) {
        let _ = write!(
            stream,
            "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        return;
    }
    let len = body.len() as u64;
    let (status, slice, content_range) = match range {
        Some((start, end)) if fault != Fault::IgnoreRange && start < len => {
            let end = end.map_or(len - 1, |e| e.min(len - 1));
            (
                "206 Partial Content",
                &body[start as usize..=end as usize],
                format!("Content-Range: bytes {start}-{end}/{len}\r\n"),
            )
        }
        // A range that starts past the end: 416, as S3 and GCS answer for an empty object.
        Some(_) if fault != Fault::IgnoreRange => {
            let _ = write!(
                stream,
                "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{len}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            return;
        }
        _ => ("200 OK", &body[..], String::new()),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nETag: \"{etag}\"\r\n{content_range}Connection: close\r\n\r\n",
        slice.len()
    );
    let send = if fault == Fault::CutBody(n) {
        &slice[..slice.len() / 2]
    } else {
        slice
    };
    let _ = stream.write_all(send);
}

fn remote() -> Arc<Remote> {
    let options = RemoteOptions {
        connect_timeout: Duration::from_secs(2),
        request_timeout: Duration::from_secs(3),
        read_timeout: Duration::from_secs(1),
        retries: 3,
        part_size: 1000,
        ..RemoteOptions::default()
    };
    Arc::new(Remote::new(options, Env::default()).unwrap())
}

fn body() -> Vec<u8> {
    (0..4500u32).map(|i| (i % 253) as u8).collect()
}

/// Reads the whole object as ranged parts.
fn read(server: &Server) -> Result<Vec<u8>, Error> {
    let url = ObjectUrl::parse(&server.url).unwrap().unwrap();
    let object = remote().open(&url)?;
    let mut back = vec![0; object.len() as usize];
    let file = object.fill()?;
    std::os::unix::fs::FileExt::read_exact_at(file, &mut back, 0).unwrap();
    Ok(back)
}

#[test]
fn a_plain_server_is_read_in_ranged_parts() {
    let server = serve(body(), Fault::None);
    assert_eq!(read(&server).unwrap(), body());
    assert_eq!(server.requests.load(Ordering::SeqCst), 5);
}

#[test]
fn busy_answers_are_retried_until_the_object_comes() {
    for status in [503, 429] {
        let server = serve(body(), Fault::Status(status, 2));
        assert_eq!(read(&server).unwrap(), body(), "after {status}");
        assert_eq!(server.requests.load(Ordering::SeqCst), 2 + 5);
    }
}

#[test]
fn a_server_that_stays_failing_is_an_error_naming_the_url() {
    for status in [503, 500] {
        let server = serve(body(), Fault::Status(status, usize::MAX));
        let error = read(&server).unwrap_err();
        assert!(error.to_string().starts_with(&server.url), "{error}");
        assert!(error.to_string().contains(&status.to_string()), "{error}");
        // The first try and its retries, no more: a failing server is not taken for one that
        // ignores Range (which would cost a plain GET and its retries again).
        assert_eq!(server.requests.load(Ordering::SeqCst), 4, "{status}");
    }
}

#[test]
fn an_empty_object_is_read_with_one_plain_get_after_its_range_is_refused() {
    let server = serve(Vec::new(), Fault::None);
    assert_eq!(read(&server).unwrap(), Vec::<u8>::new());
    // 416 to the ranged GET, then one plain GET.
    assert_eq!(server.requests.load(Ordering::SeqCst), 2);
}

#[test]
fn a_body_cut_mid_way_is_never_taken_for_the_object() {
    let server = serve(body(), Fault::CutBody(2));
    match read(&server) {
        Ok(bytes) => assert_eq!(bytes, body()),
        Err(error) => assert!(error.to_string().starts_with(&server.url), "{error}"),
    }
}

#[test]
fn a_server_that_ignores_range_is_read_with_one_streaming_get() {
    let server = serve(body(), Fault::IgnoreRange);
    assert_eq!(read(&server).unwrap(), body());
    // The ranged GET answered with the whole object, then one plain GET.
    assert_eq!(server.requests.load(Ordering::SeqCst), 2);
}

#[test]
fn an_object_rewritten_between_parts_is_reported() {
    let server = serve(body(), Fault::Rewrite(2));
    let error = read(&server).unwrap_err();
    assert!(matches!(error, Error::Rewritten { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the object was rewritten while it was read (its ETag changed); read it again",
            server.url
        )
    );
}

#[test]
fn a_stalled_server_is_a_timeout_not_a_hang() {
    let server = serve(body(), Fault::Stall);
    let error = read(&server).unwrap_err();
    let text = error.to_string();
    assert!(text.starts_with(&server.url), "{text}");
    assert!(error.is_transient(), "{text}");
}
