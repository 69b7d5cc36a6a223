//! A small HTTP server on loopback for the tests that read shards by URL, written with the
//! standard library: it serves the files under a directory with Range and ETag (an S3 bucket `b`
//! path-style, with ListObjectsV2, or plain paths) and logs every request it was asked.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Serves the files under `root` on loopback until the test process ends; returns the base URL.
pub fn serve(root: PathBuf) -> String {
    serve_counted(root).0
}

/// [`serve`], and the requests (`GET /path`) made so far, in the order made.
pub fn serve_counted(root: PathBuf) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            let log = Arc::clone(&log);
            std::thread::spawn(move || answer(stream, &root, &log));
        }
    });
    (base, asked)
}

fn answer(mut stream: TcpStream, root: &Path, log: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    let mut range = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
            let (a, b) = value.trim().split_once('-').unwrap();
            range = Some((a.parse::<usize>().unwrap(), b.parse::<usize>().ok()));
        }
    }
    let target = first.split(' ').nth(1).unwrap_or("/");
    let method = first.split(' ').next().unwrap_or("");
    log.lock().unwrap().push(format!("{method} {target}"));
    // S3, path-style, bucket `b`: ListObjectsV2 and GET of a key.
    if let Some(query) = target.strip_prefix("/b?") {
        let body = list_objects(root, query);
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return;
    }
    let key = target
        .strip_prefix("/b/")
        .unwrap_or(target)
        .trim_start_matches('/');
    let Ok(body) = std::fs::read(root.join(key)) else {
        let _ = write!(
            stream,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        return;
    };
    // The checksum of the whole object: another content, even of the same length, is another ETag
    // (the checksum is the optimised one the tests build anyway; a sum of the bytes in a loop
    // took a large part of the tests of shards of tens of MiB).
    let etag = format!("\"{}-{:08x}\"", body.len(), crc32c::crc32c(&body));
    let (status, slice, content_range) = match range {
        Some((start, end)) if start < body.len() => {
            let end = end.map_or(body.len() - 1, |e| e.min(body.len() - 1));
            (
                "206 Partial Content",
                &body[start..=end],
                format!("Content-Range: bytes {start}-{end}/{}\r\n", body.len()),
            )
        }
        _ => ("200 OK", &body[..], String::new()),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nETag: {etag}\r\n{content_range}Connection: close\r\n\r\n",
        slice.len()
    );
    let _ = stream.write_all(slice);
}

/// The ListObjectsV2 answer for the keys under `root` that start with the query's prefix.
fn list_objects(root: &Path, query: &str) -> String {
    let prefix = query
        .split('&')
        .find_map(|p| p.strip_prefix("prefix="))
        .unwrap_or("")
        .replace("%2F", "/");
    let mut keys = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let key = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                if key.starts_with(&prefix) {
                    keys.push((key, entry.metadata().unwrap().len()));
                }
            }
        }
    }
    keys.sort();
    let contents: String = keys
        .iter()
        .map(|(key, size)| {
            format!(
                "<Contents><Key>{key}</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified>\
                 <ETag>\"{size}\"</ETag><Size>{size}</Size><StorageClass>STANDARD</StorageClass></Contents>"
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>b</Name>\
         <Prefix>{prefix}</Prefix><KeyCount>{}</KeyCount><MaxKeys>1000</MaxKeys>\
         <IsTruncated>false</IsTruncated>{contents}</ListBucketResult>",
        keys.len()
    )
}
