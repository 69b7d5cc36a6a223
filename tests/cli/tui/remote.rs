//! The inspector on a shard read by URL: it opens after the object's first part, shows frame 0,
//! says how much has been fetched, and fetches the rest only as it is read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use tfr_core::crafted::{FeatureValue, encode_records, example};
use tfr_core::input::OpenOptions;
use tfr_inspect::tui::app::App;
use tfr_inspect::tui::index_cache::IndexCache;

use super::{decoder, render, screen};
use crate::remote::serve_counted;

/// A shard of three 16 MiB parts (the last one short): 300 Examples of 128 KiB each.
fn three_part_shard() -> Vec<u8> {
    let payloads: Vec<Vec<u8>> = (0..300u32)
        .map(|i| {
            let pixels = vec![(i % 251) as u8; 128 << 10];
            example(&[
                ("label", FeatureValue::Ints(vec![i64::from(i)])),
                ("image", FeatureValue::Bytes(vec![pixels])),
            ])
        })
        .collect();
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    encode_records(&refs)
}

#[test]
fn a_remote_shard_shows_frame_0_after_its_first_part_and_fetches_the_rest_as_it_is_read() {
    tfr_inspect::remote::Remotes::register(false);
    let dir = tempfile::tempdir().unwrap();
    let shard = three_part_shard();
    assert!(shard.len() > 32 << 20 && shard.len() < 48 << 20);
    std::fs::write(dir.path().join("train.tfrecord"), &shard).unwrap();
    let (base, asked) = serve_counted(dir.path().to_path_buf());
    let shard_gets = |asked: &Mutex<Vec<String>>| {
        let asked = asked.lock().unwrap();
        asked.iter().filter(|p| *p == "GET /train.tfrecord").count()
    };
    let url = format!("{base}train.tfrecord");
    let mut options = OpenOptions::new(decoder());
    options.read.on_demand = true;
    let app = App::open(&[url.clone().into()], &options).unwrap();
    let buf = render(&app, 160, 48);
    let text = screen(&buf);
    // The first screen: frame 0 decoded, the scan under way, a third of the object here; one
    // request of the shard made it (and one looked for a schema beside it, as for a file).
    assert!(text.contains("label"), "{text}");
    let status = app.status_text().unwrap();
    assert!(status.contains("indexing"), "{status}");
    assert!(status.contains("fetched 16.0 MiB of"), "{status}");
    assert_eq!(shard_gets(&asked), 1);
    assert_eq!(
        *asked.lock().unwrap(),
        ["GET /train.tfrecord", "GET /features.json"]
    );
    // Indexing to the end fetches the two other parts, once each.
    let mut app = app;
    app.index_now();
    assert_eq!(app.frame_count(), 300);
    assert_eq!(shard_gets(&asked), 3);
    let status = app.status_text().unwrap();
    assert!(!status.contains("fetched"), "{status}");
    assert!(status.contains("0 damaged"), "{status}");
    // Going anywhere now costs nothing more.
    app.select_frame(299);
    let _ = render(&app, 160, 48);
    assert_eq!(shard_gets(&asked), 3);
}

#[test]
fn a_cached_index_opens_a_remote_shard_whole_and_a_jump_costs_one_request() {
    tfr_inspect::remote::Remotes::register(false);
    let dir = tempfile::tempdir().unwrap();
    let shard = three_part_shard();
    let path = dir.path().join("train.tfrecord");
    std::fs::write(&path, &shard).unwrap();
    let cache_home = tempfile::tempdir().unwrap();
    let cache = || IndexCache::from_env(Some(cache_home.path().as_os_str()), None);
    let (base, asked) = serve_counted(dir.path().to_path_buf());
    let shard_gets = || {
        let asked = asked.lock().unwrap();
        asked.iter().filter(|p| *p == "GET /train.tfrecord").count()
    };
    let url = format!("{base}train.tfrecord");
    let mut options = OpenOptions::new(decoder());
    options.read.on_demand = true;
    let open = || App::open_with_cache(&[url.clone().into()], &options, cache()).unwrap();
    // The first time: indexed by fetching every part, then kept, as `index` writes it.
    let mut app = open();
    app.index_now();
    assert_eq!(shard_gets(), 3);
    let kept: Vec<_> = std::fs::read_dir(cache_home.path().join("tfr-inspect"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    let idx = kept
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "idx"));
    let written = crate::run(["index", path.to_str().unwrap()]);
    assert_eq!(std::fs::read(idx.unwrap()).unwrap(), written.stdout);
    // Opened again: every frame known after the one request of the first part, nothing to scan.
    let mut app = open();
    assert_eq!(shard_gets(), 4);
    assert_eq!(app.frame_count(), 300);
    let status = app.status_text().unwrap();
    assert!(!status.contains("indexing"), "{status}");
    assert!(status.contains("record 0 · 300 records"), "{status}");
    // A jump to the last record is one request: the part it is in.
    app.select_frame(299);
    let text = screen(&render(&app, 160, 48));
    assert!(text.contains("299"), "{text}");
    assert_eq!(shard_gets(), 5);
    // The same URL with other bytes of the same size (another ETag) is not taken for it: the
    // size and the URL match the cached key, only the ETag tells the objects apart.
    let mut other = shard.clone();
    let last = other.len() - 1;
    other[last] ^= 1;
    std::fs::write(&path, &other).unwrap();
    let app = open();
    assert_eq!(app.frame_count(), 18);
    assert!(app.status_text().unwrap().contains("indexing"));
    // A named pipe where the key was (the cache directory is the user's) is no key: opening the
    // cached object's own bytes again neither waits on it nor takes the index, and scans instead.
    std::fs::write(&path, &shard).unwrap();
    let key = kept
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "key"))
        .unwrap();
    std::fs::remove_file(key).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(key)
        .status()
        .unwrap();
    assert!(made.success());
    let app = open();
    assert!(app.status_text().unwrap().contains("indexing"));
}
