//! Inputs named by URL, for the core: what it asks of a `gs://`, `s3://`, `az://` or `https://`
//! argument (an object's bytes, a prefix's or pattern's objects, a side file) answered through
//! this crate's client. Installed once by whatever front end runs the core (the command line,
//! the Python package); the network runtime starts only when a URL is read. What a front end
//! shows of whole reads (a note before a large one, a bar while an object is fetched) is its
//! [`Watch`].

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use tfr_core::compress::Mode;
use tfr_core::source::RemoteObject;
use tfr_core::source::remote::RemoteInputs;

use crate::{Env, LazyObject, ObjectUrl, Remote, RemoteOptions};

/// What a front end shows of whole reads.
pub trait Watch: Send + Sync {
    /// A note before a read of more than [`ANNOUNCE_ABOVE`] bytes (escaped for a terminal).
    fn note(&self, text: &str);
    /// A fetch of `total` bytes, `what` it is; the bar is told the bytes fetched so far and
    /// cleared when dropped.
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
    /// What shows the notes and fetches of whole reads.
    watch: Box<dyn Watch>,
    /// Bytes of objects read whole so far (or about to be: counted before the fetch).
    read: AtomicU64,
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
            watch: Box::new(Quiet),
            read: AtomicU64::new(0),
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
    pub fn watched(self, watch: Box<dyn Watch>) -> Remotes {
        Remotes { watch, ..self }
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
        let Some(max) = self.max_bytes else {
            return Ok(());
        };
        let mut read = self.read.load(Ordering::SeqCst);
        loop {
            let after = read.saturating_add(len);
            if after > max {
                return Err(over_limit(url, len, read, max));
            }
            match self
                .read
                .compare_exchange(read, after, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return Ok(()),
                Err(now) => read = now,
            }
        }
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
        if let Some(note) = announcement(&url.to_string(), listed.len(), total) {
            self.watch.note(&note);
        }
        Ok(listed
            .into_iter()
            .map(|l| PathBuf::from(l.url.to_string()))
            .collect())
    }

    fn fetch(&self, path: &Path, limit: u64) -> Result<Option<File>, String> {
        let url = url_of(path)?;
        let remote = self.remote()?;
        if self.max_bytes.is_some() {
            // Its size first (a HEAD, no bytes), so that no byte past the limit is read.
            let len = remote.size_of(&url).map_err(|e| e.to_string())?;
            self.spend(&url, len)?;
        }
        let object = remote.open(&url).map_err(|e| e.to_string())?;
        if let Some(note) = announcement(&url.to_string(), 1, object.len()) {
            self.watch.note(&note);
        }
        refuse_past(&url, object.len(), limit)?;
        if object.is_empty() {
            return Ok(None);
        }
        // A compressed object is inflated front to back: its rest comes in one streaming GET.
        // Plain ones come as parallel ranged parts.
        let compressed = tfr_core::source::choose(object.head(), Mode::Auto).is_some();
        let file = if compressed {
            object.fill_streaming()
        } else {
            let bar = self
                .watch
                .fetching(&format!("fetching {}", url.key), object.len());
            object.fill_reporting(&|done| bar.set(done))
        }
        .map_err(|e| e.to_string())?;
        file.try_clone()
            .map(Some)
            .map_err(|e| format!("{url}: cannot keep the temporary file: {e}"))
    }

    fn open(&self, path: &Path, limit: u64) -> Result<Arc<dyn RemoteObject>, String> {
        let url = url_of(path)?;
        let object = self.remote()?.open(&url).map_err(|e| e.to_string())?;
        refuse_past(&url, object.len(), limit)?;
        Ok(Arc::new(OnDemandObject(object)))
    }

    fn read_start(&self, path: &Path, limit: u64) -> Result<Option<(Vec<u8>, u64)>, String> {
        let url = url_of(path)?;
        self.remote()?
            .read_start(&url, limit)
            .map_err(|e| e.to_string())
    }
}

/// An object the inspector reads as it goes: parts fetched when a read touches them.
struct OnDemandObject(LazyObject);

impl RemoteObject for OnDemandObject {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn head(&self) -> &[u8] {
        self.0.head()
    }

    fn etag(&self) -> Option<&str> {
        self.0.etag()
    }

    fn file(&self) -> &File {
        self.0.file()
    }

    fn fetch(&self, range: std::ops::Range<u64>) -> Result<(), String> {
        self.0.fetch_range(range).map_err(|e| e.to_string())
    }

    fn fetch_all(&self) -> Result<&File, String> {
        self.0.fill_streaming().map_err(|e| e.to_string())
    }

    fn fetched(&self) -> u64 {
        self.0.fetched()
    }

    fn part_size(&self) -> u64 {
        self.0.part_size()
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
