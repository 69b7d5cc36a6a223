//! Reading objects from in-memory stores: how many requests a read costs, and that an object
//! rewritten mid-read, a range past the end and a listing behave as they must.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::{StreamExt, stream};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::throttle::{ThrottleConfig, ThrottledStore};
use object_store::{
    CopyOptions, GetOptions, GetRange, GetResult, GetResultPayload, ListResult, MultipartUpload,
    ObjectMeta, ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload,
    PutResult,
};

use crate::{Error, ObjectUrl, Remote, RemoteOptions};

/// Counts the GETs and listings that reach the store under it, and keeps the ranges asked.
#[derive(Debug)]
struct Counting<T> {
    inner: T,
    gets: AtomicU64,
    lists: AtomicU64,
    ranges: std::sync::Mutex<Vec<Option<GetRange>>>,
    /// After this many GETs, the object at the key is replaced by these bytes (before the GET
    /// that passes the count is answered).
    rewrite: Option<(u64, Path, Vec<u8>)>,
}

impl<T> Counting<T> {
    fn new(inner: T) -> Counting<T> {
        Counting {
            inner,
            gets: AtomicU64::new(0),
            lists: AtomicU64::new(0),
            ranges: std::sync::Mutex::new(Vec::new()),
            rewrite: None,
        }
    }

    fn ranges(&self) -> Vec<Option<GetRange>> {
        self.ranges.lock().unwrap().clone()
    }
}

impl<T> std::fmt::Display for Counting<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Counting")
    }
}

#[async_trait]
impl<T: ObjectStore> ObjectStore for Counting<T> {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let n = self.gets.fetch_add(1, Ordering::SeqCst);
        self.ranges.lock().unwrap().push(options.range.clone());
        if let Some((after, key, bytes)) = &self.rewrite {
            if n == *after {
                self.inner
                    .put(key, PutPayload::from(bytes.clone()))
                    .await
                    .unwrap();
            }
        }
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.lists.fetch_add(1, Ordering::SeqCst);
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// A store of one object of any size whose bytes are made from their offsets, so that a
/// 1 GiB-shaped object costs no memory. It honours Range (clamped) and If-Match.
#[derive(Debug)]
struct Shaped {
    size: u64,
    etag: String,
}

fn shaped_byte(at: u64) -> u8 {
    (at % 251) as u8 ^ (at >> 20) as u8
}

impl std::fmt::Display for Shaped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shaped")
    }
}

#[async_trait]
impl ObjectStore for Shaped {
    async fn put_opts(
        &self,
        _: &Path,
        _: PutPayload,
        _: PutOptions,
    ) -> object_store::Result<PutResult> {
        Err(object_store::Error::NotImplemented {
            operation: "put".into(),
            implementer: "Shaped".into(),
        })
    }

    async fn put_multipart_opts(
        &self,
        _: &Path,
        _: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        Err(object_store::Error::NotImplemented {
            operation: "put".into(),
            implementer: "Shaped".into(),
        })
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        if options.if_match.as_ref().is_some_and(|e| *e != self.etag) {
            return Err(object_store::Error::Precondition {
                path: location.to_string(),
                source: "etag".into(),
            });
        }
        let range: Range<u64> = match &options.range {
            Some(r) => r
                .as_range(self.size)
                .map_err(|e| object_store::Error::Generic {
                    store: "Shaped",
                    source: Box::new(e),
                })?,
            None => 0..self.size,
        };
        let bytes: Bytes = range.clone().map(shaped_byte).collect::<Vec<u8>>().into();
        Ok(GetResult {
            payload: GetResultPayload::Stream(stream::once(async move { Ok(bytes) }).boxed()),
            meta: ObjectMeta {
                location: location.clone(),
                last_modified: Default::default(),
                size: self.size,
                e_tag: Some(self.etag.clone()),
                version: None,
            },
            range,
            attributes: Default::default(),
            extensions: Default::default(),
        })
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        locations
    }

    fn list(&self, _: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        stream::empty().boxed()
    }

    async fn list_with_delimiter(&self, _: Option<&Path>) -> object_store::Result<ListResult> {
        Ok(ListResult {
            common_prefixes: Vec::new(),
            objects: Vec::new(),
            extensions: Default::default(),
        })
    }

    async fn copy_opts(&self, _: &Path, _: &Path, _: CopyOptions) -> object_store::Result<()> {
        Ok(())
    }
}

fn url(text: &str) -> ObjectUrl {
    ObjectUrl::parse(text).unwrap().unwrap()
}

fn options(part_size: u64) -> RemoteOptions {
    RemoteOptions {
        part_size,
        request_timeout: Duration::from_secs(10),
        ..RemoteOptions::default()
    }
}

fn put(store: &InMemory, key: &str, bytes: Vec<u8>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime
        .block_on(store.put(&Path::from(key), PutPayload::from(bytes)))
        .unwrap();
}

#[test]
fn a_1_gib_object_opens_with_one_request_and_reads_a_part_and_its_read_ahead_where_asked() {
    const GIB: u64 = 1 << 30;
    let counting = Arc::new(Counting::new(ThrottledStore::new(
        Shaped {
            size: GIB,
            etag: "v1".into(),
        },
        ThrottleConfig {
            wait_get_per_call: Duration::from_millis(5),
            ..ThrottleConfig::default()
        },
    )));
    let remote = Arc::new(Remote::over_store(options(crate::PART_SIZE), counting.clone()).unwrap());
    let object = remote.open(&url("gs://b/train-00000-of-00001")).unwrap();
    // The inspector's first screen: size and ETag from the first response, frame 0 in its bytes.
    assert_eq!(object.len(), GIB);
    assert_eq!(object.etag(), Some("v1"));
    assert_eq!(object.head().len() as u64, crate::PART_SIZE);
    assert_eq!(counting.gets.load(Ordering::SeqCst), 1);
    let mut buf = [0u8; 64];
    assert_eq!(object.read_at(100, &mut buf).unwrap(), 64);
    assert_eq!(counting.gets.load(Ordering::SeqCst), 1);
    assert!(
        buf.iter()
            .enumerate()
            .all(|(i, b)| *b == shaped_byte(100 + i as u64))
    );
    // A jump to 900 MiB fetches that part, and the parts after it are read ahead.
    let at = 900 << 20;
    assert_eq!(object.read_at(at, &mut buf).unwrap(), 64);
    assert!(
        buf.iter()
            .enumerate()
            .all(|(i, b)| *b == shaped_byte(at + i as u64))
    );
    let read_ahead = RemoteOptions::default().read_ahead as u64;
    assert_eq!(read_ahead, 2);
    wait_for(|| counting.gets.load(Ordering::SeqCst) == 2 + read_ahead);
    // Reading on into the parts read ahead costs nothing more.
    let mut buf = vec![0u8; 2 * crate::PART_SIZE as usize];
    assert_eq!(object.read_at(at + 64, &mut buf).unwrap(), buf.len());
    // The last bytes (the last part, nothing after it to read ahead): a read past the end is
    // clamped to it.
    let mut tail = [0u8; 100];
    assert_eq!(object.read_at(GIB - 10, &mut tail).unwrap(), 10);
    assert!(
        tail[..10]
            .iter()
            .enumerate()
            .all(|(i, b)| *b == shaped_byte(GIB - 10 + i as u64))
    );
    assert_eq!(object.read_at(GIB, &mut tail).unwrap(), 0);
    // One request opened the object; 900 MiB, the two parts after it and the last part, one
    // each: 5 of the 64 parts were fetched.
    assert_eq!(counting.gets.load(Ordering::SeqCst), 1 + 1 + 2 + 1);
}

/// Waits (a bounded while) for what a background fetch does.
fn wait_for(done: impl Fn() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(done(), "not reached in 5 s");
}

/// A store with the latency of a real one in front of `memory`, counted.
fn throttled(memory: InMemory) -> Arc<Counting<ThrottledStore<InMemory>>> {
    Arc::new(Counting::new(ThrottledStore::new(
        memory,
        ThrottleConfig {
            wait_get_per_call: Duration::from_millis(2),
            ..ThrottleConfig::default()
        },
    )))
}

/// A 1 GiB shard is 64 parts of 16 MiB; here the part is scaled down (16 KiB) so that the same
/// shape (63 whole parts and a short last one) stays small.
#[test]
fn a_1_gib_shaped_object_is_filled_with_64_requests_each_range_clamped_to_its_size() {
    let part = 16 << 10;
    let size = 64 * part - 1000;
    let bytes: Vec<u8> = (0..size).map(shaped_byte).collect();
    let memory = InMemory::new();
    put(&memory, "d/x.tfrecord", bytes.clone());
    let counting = throttled(memory);
    let remote = Arc::new(Remote::over_store(options(part), counting.clone()).unwrap());
    let object = remote.open(&url("s3://b/d/x.tfrecord")).unwrap();
    let file = object.fill().unwrap();
    assert_eq!(counting.gets.load(Ordering::SeqCst), 64);
    assert_eq!(object.requests(), 64);
    let mut back = vec![0; bytes.len()];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut back, 0).unwrap();
    assert!(back == bytes);
    // Every part once, and no range past the end: the last asks for the 15,384 bytes there are.
    let mut asked: Vec<(u64, u64)> = counting
        .ranges()
        .into_iter()
        .map(|r| match r {
            Some(GetRange::Bounded(r)) => (r.start, r.end),
            other => panic!("not a bounded range: {other:?}"),
        })
        .collect();
    asked.sort_unstable();
    let expected: Vec<(u64, u64)> = (0..64)
        .map(|i| (i * part, ((i + 1) * part).min(size)))
        .collect();
    assert_eq!(asked, expected);
    assert_eq!(asked.last(), Some(&(63 * part, size)));
    // Filled once: reading again costs nothing.
    object.fill().unwrap();
    let mut buf = vec![0; 3 * part as usize];
    assert_eq!(object.read_at(5, &mut buf).unwrap(), buf.len());
    assert_eq!(counting.gets.load(Ordering::SeqCst), 64);
}

#[test]
fn an_object_rewritten_while_its_parts_are_fetched_is_caught() {
    let part = 1024;
    let memory = InMemory::new();
    put(&memory, "k", vec![1; 64 * part as usize]);
    let mut counting = Counting::new(ThrottledStore::new(
        memory,
        ThrottleConfig {
            wait_get_per_call: Duration::from_millis(2),
            ..ThrottleConfig::default()
        },
    ));
    // Rewritten (same size, new ETag) when the tenth GET arrives.
    counting.rewrite = Some((9, Path::from("k"), vec![2; 64 * part as usize]));
    let counting = Arc::new(counting);
    let remote = Arc::new(Remote::over_store(options(part), counting.clone()).unwrap());
    let object = remote.open(&url("s3://b/k")).unwrap();
    let error = object.fill().err().unwrap();
    assert_eq!(
        error,
        Error::Rewritten {
            url: "s3://b/k".into()
        }
    );
    // Stopped at the change: the parts already asked for, not the 64.
    assert!(counting.gets.load(Ordering::SeqCst) < 64);
}

#[test]
fn an_object_rewritten_mid_read_is_reported_never_mixed() {
    let part = 1024;
    let memory = Arc::new(InMemory::new());
    put(&memory, "k", vec![1; 4 * part as usize]);
    let remote = Arc::new(Remote::over_store(options(part), memory.clone()).unwrap());
    let object = remote.open(&url("s3://b/k")).unwrap();
    // Same size, new ETag.
    put(&memory, "k", vec![2; 4 * part as usize]);
    let mut buf = vec![0; 10];
    let error = object.read_at(2 * part, &mut buf).unwrap_err();
    assert_eq!(
        error,
        Error::Rewritten {
            url: "s3://b/k".into()
        }
    );
    assert!(error.to_string().contains("rewritten while it was read"));
    // Every later read says so too, even of a part fetched before.
    assert!(matches!(object.fill(), Err(Error::Rewritten { .. })));
}

#[test]
fn small_empty_and_missing_objects() {
    let memory = Arc::new(InMemory::new());
    put(&memory, "small", b"hello".to_vec());
    put(&memory, "empty", Vec::new());
    let remote = Arc::new(Remote::over_store(options(1024), memory.clone()).unwrap());
    let small = remote.open(&url("gs://b/small")).unwrap();
    assert_eq!((small.len(), small.head()), (5, &b"hello"[..]));
    assert_eq!(small.requests(), 1);
    // An empty object cannot serve a range: it is read with one plain GET.
    let empty = remote.open(&url("gs://b/empty")).unwrap();
    assert!(empty.is_empty());
    let mut buf = [0; 4];
    assert_eq!(empty.read_at(0, &mut buf).unwrap(), 0);
    let missing = remote.open(&url("gs://b/missing")).err().unwrap();
    assert_eq!(missing.to_string(), "gs://b/missing: no such object");
}

#[test]
fn a_compressed_object_is_read_with_one_streaming_get_after_its_first_part() {
    let part = 1000;
    let bytes: Vec<u8> = (0..10_500u64).map(shaped_byte).collect();
    let memory = InMemory::new();
    put(&memory, "x.gz", bytes.clone());
    let counting = Arc::new(Counting::new(memory));
    let remote = Arc::new(Remote::over_store(options(part), counting.clone()).unwrap());
    let object = remote.open(&url("s3://b/x.gz")).unwrap();
    let file = object.fill_streaming().unwrap();
    assert_eq!(counting.gets.load(Ordering::SeqCst), 2);
    let mut back = vec![0; bytes.len()];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut back, 0).unwrap();
    assert!(back == bytes);
}

#[test]
fn prefixes_and_globs_list_in_key_order() {
    let memory = InMemory::new();
    for key in [
        "data/train-00001-of-00002",
        "data/train-00000-of-00002",
        "data/test-00000-of-00001",
        "data/sub/train-x",
        "database/other",
        "dataset_info.json",
    ] {
        put(&memory, key, vec![0; 3]);
    }
    let counting = Arc::new(Counting::new(memory));
    let remote = Remote::over_store(options(1024), counting.clone()).unwrap();
    let keys = |text: &str| -> Vec<String> {
        remote
            .list(&url(text))
            .unwrap()
            .into_iter()
            .map(|l| l.url.to_string())
            .collect()
    };
    assert_eq!(
        keys("gs://b/data/train-*"),
        [
            "gs://b/data/train-00000-of-00002",
            "gs://b/data/train-00001-of-00002"
        ]
    );
    assert_eq!(
        keys("gs://b/data/"),
        [
            "gs://b/data/sub/train-x",
            "gs://b/data/test-00000-of-00001",
            "gs://b/data/train-00000-of-00002",
            "gs://b/data/train-00001-of-00002"
        ]
    );
    assert_eq!(keys("gs://b/data/**/train-x"), ["gs://b/data/sub/train-x"]);
    assert_eq!(counting.lists.load(Ordering::SeqCst), 3);
    assert!(keys("gs://b/nothing/").is_empty());
    assert!(matches!(
        remote.list(&url("https://h/a")),
        Err(Error::NotListable { .. })
    ));
    assert_eq!(
        remote
            .read_start(&url("gs://b/dataset_info.json"), 2)
            .unwrap(),
        Some((vec![0, 0], 3))
    );
    assert_eq!(
        remote.read_start(&url("gs://b/none.json"), 2).unwrap(),
        None
    );
}

/// An allowance of `bytes` in all, and what it refused (as the messages it gave).
fn allowance(bytes: u64) -> (crate::Allowance, Arc<std::sync::Mutex<Vec<u64>>>) {
    let left = Arc::new(AtomicU64::new(bytes));
    let refused = Arc::new(std::sync::Mutex::new(Vec::new()));
    let said = Arc::clone(&refused);
    let allow = move |n: u64| {
        let now = left.load(Ordering::SeqCst);
        if n > now {
            said.lock().unwrap().push(n);
            return Err(format!(
                "s3://b/x: not read further: {n} more bytes, {now} allowed"
            ));
        }
        left.store(now - n, Ordering::SeqCst);
        Ok(())
    };
    (Arc::new(allow), refused)
}

#[test]
fn an_allowance_stops_fetching_where_it_ends_and_read_ahead_never_fails_a_read() {
    let part = 1000;
    let bytes: Vec<u8> = (0..10_000u64).map(shaped_byte).collect();
    let memory = InMemory::new();
    put(&memory, "x", bytes);
    let counting = Arc::new(Counting::new(memory));
    let remote = Arc::new(Remote::over_store(options(part), counting.clone()).unwrap());
    let (allow, refused) = allowance(3 * part);
    let object = remote.open(&url("s3://b/x")).unwrap().allowing(allow);
    let gets = || counting.gets.load(Ordering::SeqCst);
    let mut buf = [0u8; 10];
    // Part 1 where asked; then part 2, travelling on, with parts 3 and 4 read ahead: part 4
    // is past the allowance and only read ahead, so it is skipped and the read is served.
    object.read_at(1500, &mut buf).unwrap();
    object.read_at(2500, &mut buf).unwrap();
    wait_for(|| gets() == 4);
    assert_eq!(*refused.lock().unwrap(), [part]);
    assert_eq!(object.read_at(3500, &mut buf).unwrap(), 10);
    // A read that needs part 4 fails with the allowance's answer, asking nothing of the store,
    // and so does every read after it.
    let error = object.read_at(4500, &mut buf).unwrap_err();
    assert_eq!(
        error.to_string(),
        "s3://b/x: not read further: 1000 more bytes, 0 allowed"
    );
    assert_eq!(object.read_at(1500, &mut buf).unwrap_err(), error);
    assert_eq!(gets(), 4);
}

#[test]
fn a_streaming_fill_is_reported_as_it_arrives_and_asks_the_allowance_first() {
    let part = 1000;
    let bytes: Vec<u8> = (0..10_500u64).map(shaped_byte).collect();
    let memory = InMemory::new();
    put(&memory, "x.gz", bytes.clone());
    let counting = Arc::new(Counting::new(memory));
    let remote = Arc::new(Remote::over_store(options(part), counting.clone()).unwrap());
    // The rest after the first part is 9500 bytes: refused before any request.
    let (allow, refused) = allowance(9499);
    let object = remote.open(&url("s3://b/x.gz")).unwrap().allowing(allow);
    let error = object.fill_streaming().unwrap_err();
    assert!(matches!(error, Error::Refused { .. }), "{error}");
    assert_eq!(*refused.lock().unwrap(), [9500]);
    assert_eq!(counting.gets.load(Ordering::SeqCst), 1);
    // Allowed: one streaming GET, its progress told from the first part to the end.
    let (allow, _) = allowance(9500);
    let object = remote.open(&url("s3://b/x.gz")).unwrap().allowing(allow);
    let seen = std::sync::Mutex::new(Vec::new());
    let file = object
        .fill_streaming_reporting(&|at| seen.lock().unwrap().push(at))
        .unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.first(), Some(&1000));
    assert_eq!(seen.last(), Some(&10_500));
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    let mut back = vec![0; bytes.len()];
    std::os::unix::fs::FileExt::read_exact_at(file, &mut back, 0).unwrap();
    assert!(back == bytes);
    assert_eq!(counting.gets.load(Ordering::SeqCst), 3);
}
