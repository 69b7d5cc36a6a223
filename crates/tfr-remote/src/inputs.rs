//! Inputs named by URL, for the core: what it asks of a `gs://`, `s3://`, `az://` or `https://`
//! argument (an object's bytes, a prefix's or pattern's objects, a side file) answered through
//! this crate's client. Installed once by whatever front end runs the core (the command line,
//! the Python package); the network runtime starts only when a URL is read. What a front end
//! shows of whole reads (a note before a large one, a bar while an object is fetched) is its
//! [`Watch`].

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tfr_core::compress::Mode;
use tfr_core::source::RemoteObject;
use tfr_core::source::remote::RemoteInputs;

use crate::{Env, LazyObject, ObjectUrl, Remote, RemoteOptions};

/// What a front end shows of whole reads. Asked from any of the core's threads.
pub trait Watch: Send + Sync {
    /// A note before a read of more than [`ANNOUNCE_ABOVE`] bytes (escaped for a terminal),
    /// one line.
    fn note(&self, text: &str);
    /// A fetch of `total` bytes, `what` it is (a command's whole read, or the inspector's whole
    /// fetch of a compressed object it reads on demand); the bar is told the bytes fetched so
    /// far and cleared when dropped.
    fn fetching(&self, what: &str, total: u64) -> Box<dyn FetchBar + '_>;
}

/// A fetch's progress as a front end shows it.
pub trait FetchBar: Sync {
    fn set(&self, done: u64);
}

/// Notes on standard error, no bars.
pub struct Quiet;

struct NoBar;

impl FetchBar for NoBar {
    fn set(&self, _: u64) {}
}

impl Watch for Quiet {
    fn note(&self, text: &str) {
        eprintln!("{text}");
    }

    fn fetching(&self, _: &str, _: u64) -> Box<dyn FetchBar + '_> {
        Box::new(NoBar)
    }
}

/// Above this, a whole read of remote objects is announced before it starts (egress is billed).
pub const ANNOUNCE_ABOVE: u64 = 10 << 30;

/// The application's reader of URLs.
pub struct Remotes {
    options: RemoteOptions,
    remote: OnceLock<Result<Arc<Remote>, String>>,
    /// `--max-bytes`: the most bytes of objects this run may read whole.
    max_bytes: Option<u64>,
    /// What shows the notes and fetches of whole reads, shared with the objects the inspector
    /// reads on demand.
    watch: Arc<dyn Watch>,
    /// Bytes of objects read so far (or about to be: counted before the fetch), shared with the
    /// objects the inspector reads on demand.
    read: Arc<AtomicU64>,
    /// Objects' sizes as a listing or a HEAD gave them, by URL: asked once per run.
    sizes: Mutex<HashMap<String, u64>>,
    /// What this run knows is not there: URLs asked for and missing, and the prefixes (`/`
    /// ended) whose every object was listed, so that a side file looked for beside many shards
    /// (`features.json`) costs at most one request, and none under a listed prefix.
    absent: Mutex<Absent>,
}

#[derive(Default)]
struct Absent {
    missing: HashSet<String>,
    listed: Vec<String>,
}

impl Remotes {
    pub fn new(anonymous: bool) -> Remotes {
        Remotes {
            options: RemoteOptions {
                anonymous,
                ..RemoteOptions::default()
            },
            remote: OnceLock::new(),
            max_bytes: None,
            watch: Arc::new(Quiet),
            read: Arc::new(AtomicU64::new(0)),
            sizes: Mutex::new(HashMap::new()),
            absent: Mutex::new(Absent::default()),
        }
    }

    /// With at most `connections` requests in flight across every object (`--connections`),
    /// and at most 4 (or `connections`, when fewer) for any one object.
    pub fn connections(mut self, connections: Option<u16>) -> Remotes {
        if let Some(n) = connections.map(usize::from) {
            self.options.parts_in_flight = n.max(1);
            self.options.parts_per_object = self.options.parts_per_object.min(n).max(1);
        }
        self
    }

    /// With a limit on the bytes read (`--max-bytes`).
    pub fn limited(self, max_bytes: Option<u64>) -> Remotes {
        Remotes { max_bytes, ..self }
    }

    /// With `watch` showing the notes and fetches of whole reads.
    pub fn watched(self, watch: impl Watch + 'static) -> Remotes {
        Remotes {
            watch: Arc::new(watch),
            ..self
        }
    }

    /// Says, before a whole read of more than [`ANNOUNCE_ABOVE`] bytes, how many it will be.
    fn announce(&self, url: &ObjectUrl, objects: usize, total: u64) {
        if let Some(note) = announcement(&url.to_string(), objects, total) {
            self.watch.note(&note);
        }
    }

    /// Registers URLs as inputs for the core.
    pub fn register(anonymous: bool) {
        Remotes::new(anonymous).install();
    }

    /// Registers these as what reads URLs for the core.
    pub fn install(self) {
        tfr_core::source::remote::register(Box::new(self));
    }

    /// Counts `len` bytes of `url` against `--max-bytes`, refusing them (before any is read)
    /// when they would pass it.
    fn spend(&self, url: &ObjectUrl, len: u64) -> Result<(), String> {
        match self.max_bytes {
            Some(max) => {
                spend(&self.read, max, len).map_err(|read| over_limit(url, len, read, max))
            }
            None => Ok(()),
        }
    }

    /// The size of the object at `url`: as its listing gave it, else from one HEAD request.
    fn size_of(&self, url: &ObjectUrl) -> Result<u64, String> {
        let key = url.to_string();
        let known = |sizes: &HashMap<String, u64>| sizes.get(&key).copied();
        if let Some(size) = known(&self.sizes.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(size);
        }
        let size = self.remote()?.size_of(url).map_err(|e| e.to_string())?;
        self.remember(key, size);
        Ok(size)
    }

    /// Whether this run already knows there is no object at `url`: it was asked for and
    /// missing, or it lies under a prefix listed whole and was not among the objects listed.
    fn known_absent(&self, url: &ObjectUrl) -> bool {
        let key = url.to_string();
        let absent = self.absent.lock().unwrap_or_else(|e| e.into_inner());
        if absent.missing.contains(&key) {
            return true;
        }
        let under_listed = absent.listed.iter().any(|p| key.starts_with(p.as_str()));
        drop(absent);
        under_listed
            && !self
                .sizes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains_key(&key)
    }

    fn remember(&self, url: String, size: u64) {
        let mut sizes = self.sizes.lock().unwrap_or_else(|e| e.into_inner());
        sizes.insert(url, size);
    }

    fn remote(&self) -> Result<&Arc<Remote>, String> {
        self.remote
            .get_or_init(|| {
                Remote::new(self.options.clone(), Env::from_process())
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::clone)
    }
}

/// Counts `len` bytes in `read` unless that would take it past `max`; then `Err` with what
/// was read before.
fn spend(read: &AtomicU64, max: u64, len: u64) -> Result<(), u64> {
    let mut before = read.load(Ordering::SeqCst);
    loop {
        let after = before.saturating_add(len);
        if after > max {
            return Err(before);
        }
        match read.compare_exchange(before, after, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return Ok(()),
            Err(now) => before = now,
        }
    }
}

/// What `--max-bytes` stopping the inspector's fetches of an object says.
fn over_limit_further(url: &str, len: u64, read: u64, max: u64) -> String {
    format!(
        "{url}: not read further: {} more would pass --max-bytes {} ({} read before it)",
        bytes_text(len),
        num(max),
        bytes_text(read)
    )
}

/// What `--max-bytes` stopping a read says.
fn over_limit(url: &ObjectUrl, len: u64, read: u64, max: u64) -> String {
    format!(
        "{url}: not read: its {} would pass --max-bytes {} ({} read before it)",
        bytes_text(len),
        num(max),
        bytes_text(read)
    )
}

/// A byte count exactly, and in binary units when that is shorter to take in.
fn bytes_text(n: u64) -> String {
    if n < 1024 {
        return tfr_core::words::plural(n, "byte");
    }
    format!("{} bytes ({})", num(n), tfr_core::words::binary_size(n))
}

fn num(n: u64) -> String {
    n.to_string()
}

/// The note before a whole read of more than [`ANNOUNCE_ABOVE`] bytes from `url`.
pub fn announcement(url: &str, objects: usize, total: u64) -> Option<String> {
    (total > ANNOUNCE_ABOVE).then(|| {
        format!(
            "{}: note: reading {} from {} (--max-bytes stops a read before a limit)",
            tfr_core::escape::for_terminal(url),
            bytes_text(total),
            tfr_core::words::plural(objects as u64, "object")
        )
    })
}

fn url_of(path: &Path) -> Result<ObjectUrl, String> {
    path.to_str()
        .and_then(ObjectUrl::parse)
        .ok_or_else(|| format!("{}: not an object URL", path.to_string_lossy()))?
        .map_err(|e| e.to_string())
}

impl RemoteInputs for Remotes {
    fn claims(&self, path: &Path) -> bool {
        path.to_str().is_some_and(crate::is_url)
    }

    fn names_many(&self, path: &Path) -> bool {
        url_of(path).is_ok_and(|u| u.is_prefix() || u.is_pattern())
    }

    fn expand(&self, path: &Path) -> Result<Vec<PathBuf>, String> {
        let url = url_of(path)?;
        let listed = self.remote()?.list(&url).map_err(|e| e.to_string())?;
        let total = listed
            .iter()
            .map(|l| l.size)
            .fold(0u64, u64::saturating_add);
        self.announce(&url, listed.len(), total);
        if url.is_prefix() && !url.is_pattern() {
            let mut absent = self.absent.lock().unwrap_or_else(|e| e.into_inner());
            absent.listed.push(url.to_string());
        }
        Ok(listed
            .into_iter()
            .map(|l| {
                let url = l.url.to_string();
                self.remember(url.clone(), l.size);
                PathBuf::from(url)
            })
            .collect())
    }

    fn fetch(&self, path: &Path, limit: u64) -> Result<Option<File>, String> {
        let url = url_of(path)?;
        let remote = self.remote()?;
        if self.max_bytes.is_some() {
            // Its size first (listed, or a HEAD: no bytes), so that no byte past the limit is
            // read.
            let len = self.size_of(&url)?;
            self.spend(&url, len)?;
        }
        let object = remote.open(&url).map_err(|e| e.to_string())?;
        self.announce(&url, 1, object.len());
        refuse_past(&url, object.len(), limit)?;
        if object.is_empty() {
            return Ok(None);
        }
        // A compressed object is inflated front to back: its rest comes in one streaming GET.
        // Plain ones come as parallel ranged parts.
        let compressed = tfr_core::source::choose(object.head(), Mode::Auto).is_some();
        let bar = self
            .watch
            .fetching(&format!("fetching {}", url.key), object.len());
        let filled = if compressed {
            object.fill_streaming_reporting(&|done| bar.set(done))
        } else {
            object.fill_reporting(&|done| bar.set(done))
        };
        drop(bar);
        let file = filled.map_err(|e| e.to_string())?;
        file.try_clone()
            .map(Some)
            .map_err(|e| format!("{url}: cannot keep the temporary file: {e}"))
    }

    fn open(&self, path: &Path, limit: u64) -> Result<Arc<dyn RemoteObject>, String> {
        let url = url_of(path)?;
        let Some(max) = self.max_bytes else {
            let object = self.remote()?.open(&url).map_err(|e| e.to_string())?;
            refuse_past(&url, object.len(), limit)?;
            return Ok(Arc::new(OnDemandObject {
                object,
                watch: Arc::clone(&self.watch),
            }));
        };
        // Its first part counts before it is fetched (the size first, a HEAD: no bytes), and
        // every later request as it is made.
        let first = self.size_of(&url)?.min(self.options.part_size);
        self.spend(&url, first)?;
        let object = self.remote()?.open(&url).map_err(|e| e.to_string())?;
        refuse_past(&url, object.len(), limit)?;
        // A server that ignored Range sent the whole object at once: read, so counted (what
        // comes after is then refused).
        let more = object.fetched().saturating_sub(first);
        let _ = self
            .read
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |r| {
                Some(r.saturating_add(more))
            });
        let read = Arc::clone(&self.read);
        let name = url.to_string();
        let allowance = move |len: u64| {
            spend(&read, max, len).map_err(|before| over_limit_further(&name, len, before, max))
        };
        Ok(Arc::new(OnDemandObject {
            object: object.allowing(Arc::new(allowance)),
            watch: Arc::clone(&self.watch),
        }))
    }

    fn size(&self, path: &Path) -> Result<u64, String> {
        self.size_of(&url_of(path)?)
    }

    fn read_start(&self, path: &Path, limit: u64) -> Result<Option<(Vec<u8>, u64)>, String> {
        let url = url_of(path)?;
        if self.known_absent(&url) {
            return Ok(None);
        }
        let read = self
            .remote()?
            .read_start(&url, limit)
            .map_err(|e| e.to_string())?;
        if read.is_none() {
            let mut absent = self.absent.lock().unwrap_or_else(|e| e.into_inner());
            absent.missing.insert(url.to_string());
        }
        Ok(read)
    }
}

/// An object the inspector reads as it goes: parts fetched when a read touches them.
struct OnDemandObject {
    object: LazyObject,
    /// What shows a whole fetch (the front end decides whether a bar can be drawn now).
    watch: Arc<dyn Watch>,
}

impl RemoteObject for OnDemandObject {
    fn len(&self) -> u64 {
        self.object.len()
    }

    fn head(&self) -> &[u8] {
        self.object.head()
    }

    fn etag(&self) -> Option<&str> {
        self.object.etag()
    }

    fn file(&self) -> &File {
        self.object.file()
    }

    fn fetch(&self, range: std::ops::Range<u64>) -> Result<(), String> {
        self.object.fetch_range(range).map_err(|e| e.to_string())
    }

    fn fetch_all(&self) -> Result<&File, String> {
        let bar = self.watch.fetching(
            &format!("fetching {}", self.object.url().key),
            self.object.len(),
        );
        let filled = self.object.fill_streaming_reporting(&|done| bar.set(done));
        drop(bar);
        filled.map_err(|e| e.to_string())
    }

    fn fetched(&self) -> u64 {
        self.object.fetched()
    }

    fn part_size(&self) -> u64 {
        self.object.part_size()
    }
}

/// Refuses an object of `len` bytes at `url` when it is larger than `limit`, what a reader may
/// take of one input.
fn refuse_past(url: &ObjectUrl, len: u64, limit: u64) -> Result<(), String> {
    if len > limit {
        return Err(crate::Error::TooLarge {
            url: url.to_string(),
            len,
            limit,
        }
        .to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_cap_the_parts_in_flight_overall_and_per_object() {
        let caps = |r: Remotes| (r.options.parts_in_flight, r.options.parts_per_object);
        assert_eq!(caps(Remotes::new(false).connections(None)), (8, 4));
        assert_eq!(caps(Remotes::new(false).connections(Some(2))), (2, 2));
        assert_eq!(caps(Remotes::new(false).connections(Some(1))), (1, 1));
        assert_eq!(caps(Remotes::new(false).connections(Some(32))), (32, 4));
    }

    #[test]
    fn a_read_of_more_than_10_gib_is_announced_with_its_size() {
        assert_eq!(announcement("s3://b/d/", 3, ANNOUNCE_ABOVE), None);
        assert_eq!(
            announcement("s3://b/d/", 3, ANNOUNCE_ABOVE + 1).unwrap(),
            "s3://b/d/: note: reading 10737418241 bytes (10.0 GiB) from 3 objects (--max-bytes \
             stops a read before a limit)"
        );
        assert_eq!(
            announcement("gs://b/\x1b[2J", 1, 11 << 30).unwrap(),
            "gs://b/\\033[2J: note: reading 11811160064 bytes (11.0 GiB) from 1 object \
             (--max-bytes stops a read before a limit)"
        );
    }

    /// A watch that keeps its notes and the fetches it was told of.
    #[derive(Default)]
    struct Told(Mutex<Vec<String>>);

    impl Watch for Arc<Told> {
        fn note(&self, text: &str) {
            self.0.lock().unwrap().push(text.to_string());
        }

        fn fetching(&self, what: &str, total: u64) -> Box<dyn FetchBar + '_> {
            self.0.lock().unwrap().push(format!("{what}: {total}"));
            Box::new(NoBar)
        }
    }

    #[test]
    fn the_note_before_a_large_read_is_said_through_the_watch() {
        let told = Arc::new(Told::default());
        let remotes = Remotes::new(false).watched(Arc::clone(&told));
        let url = ObjectUrl::parse("gs://b/big").unwrap().unwrap();
        remotes.announce(&url, 1, ANNOUNCE_ABOVE);
        assert!(told.0.lock().unwrap().is_empty());
        remotes.announce(&url, 1, 12 << 30);
        assert_eq!(
            *told.0.lock().unwrap(),
            [
                "gs://b/big: note: reading 12884901888 bytes (12.0 GiB) from 1 object (--max-bytes \
              stops a read before a limit)"
            ]
        );
    }

    #[test]
    fn a_url_is_known_absent_once_missing_or_when_a_listing_of_its_prefix_left_it_out() {
        let remotes = Remotes::new(false);
        let url = |u: &str| ObjectUrl::parse(u).unwrap().unwrap();
        let features = url("s3://b/d/features.json");
        assert!(!remotes.known_absent(&features));
        remotes
            .absent
            .lock()
            .unwrap()
            .listed
            .push("s3://b/d/".into());
        remotes.remember("s3://b/d/a.tfrecord".into(), 10);
        assert!(remotes.known_absent(&features));
        assert!(!remotes.known_absent(&url("s3://b/d/a.tfrecord")));
        // Beside the listed prefix, not under it: only a request can tell.
        assert!(!remotes.known_absent(&url("s3://b/e/features.json")));
        remotes
            .absent
            .lock()
            .unwrap()
            .missing
            .insert("s3://b/e/features.json".into());
        assert!(remotes.known_absent(&url("s3://b/e/features.json")));
        // A size listed or asked once is not asked again.
        assert_eq!(remotes.size_of(&url("s3://b/d/a.tfrecord")), Ok(10));
    }

    #[test]
    fn the_inspector_s_allowance_counts_each_request_and_refuses_past_the_limit() {
        let read = AtomicU64::new(0);
        assert_eq!(spend(&read, 100, 60), Ok(()));
        assert_eq!(spend(&read, 100, 41), Err(60));
        assert_eq!(spend(&read, 100, 40), Ok(()));
        assert_eq!(read.load(Ordering::SeqCst), 100);
        assert_eq!(
            over_limit_further("s3://b/k", 2048, 100, 100),
            "s3://b/k: not read further: 2048 bytes (2.0 KiB) more would pass --max-bytes 100 \
             (100 bytes read before it)"
        );
    }

    #[test]
    fn max_bytes_counts_what_was_read_and_refuses_what_would_pass_it() {
        let remotes = Remotes::new(false).limited(Some(1000));
        let url = ObjectUrl::parse("s3://b/k").unwrap().unwrap();
        remotes.spend(&url, 600).unwrap();
        remotes.spend(&url, 400).unwrap();
        assert_eq!(
            remotes.spend(&url, 1).unwrap_err(),
            "s3://b/k: not read: its 1 byte would pass --max-bytes 1000 (1000 bytes read before it)"
        );
        let unlimited = Remotes::new(false);
        unlimited.spend(&url, u64::MAX).unwrap();
        unlimited.spend(&url, u64::MAX).unwrap();
    }
}
