//! One object read as ranged GETs of large parts into an unlinked temporary file.
//!
//! The first part's response gives the object's size and its ETag (and version, where the store
//! keeps versions); every later part carries `If-Match` with that ETag, and its own response
//! must agree on size and ETag, so an object rewritten mid-read fails as [`Error::Rewritten`]
//! instead of mixing two objects' bytes. Parts land in the spill file at their offsets, so
//! anonymous memory holds only the parts in flight; reads copy out of the file.
//!
//! A server that ignores Range (a 200 to a ranged GET) is read with one streaming GET instead,
//! and so is anything the first ranged GET cannot serve (an empty object).

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::path::Path as StorePath;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore, ObjectStoreExt};

use crate::error::{Error, chain};
use crate::store::Remote;
use crate::url::ObjectUrl;

/// The bytes of one ranged GET: large enough that a 1 GiB shard is 64 requests, small enough
/// that several in flight stay a bounded amount of memory.
pub const PART_SIZE: u64 = 16 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Missing,
    Fetching,
    Done,
}

struct Parts {
    states: Vec<State>,
    /// The first failure: every read after it fails the same way.
    failed: Option<Error>,
    /// The part read last, and whether reads move towards the end: read-ahead follows them.
    last: Option<usize>,
    forward: bool,
}

/// What may still be fetched of an object read on demand: asked with a request's bytes before
/// the request is made, it answers `Err` with why not (a limit on the bytes a run may read).
pub type Allowance = Arc<dyn Fn(u64) -> Result<(), String> + Send + Sync>;

/// What every part's task shares.
struct Shared {
    url: ObjectUrl,
    store: Arc<dyn ObjectStore>,
    hint: String,
    path: StorePath,
    len: u64,
    etag: Option<String>,
    version: Option<String>,
    part_size: u64,
    file: File,
    parts: Mutex<Parts>,
    ready: Condvar,
    requests: AtomicU64,
    per_object: tokio::sync::Semaphore,
}

/// An object whose parts are fetched as they are read (or all at once by [`LazyObject::fill`]),
/// each once, into a temporary file that vanishes with the process.
pub struct LazyObject {
    remote: Arc<Remote>,
    shared: Arc<Shared>,
    /// The first bytes, as the first response served them (what sniffing compression needs).
    head: Bytes,
    /// Asked before every request after the first, when set ([`LazyObject::allowing`]).
    allowance: Option<Allowance>,
}

/// The object's key in its store: the URL's key for a bucket, the path for a web server.
pub fn store_path(url: &ObjectUrl) -> StorePath {
    StorePath::from(url.key.trim_end_matches('/'))
}

impl Remote {
    /// Opens `url` with one ranged GET of its first part, which gives its size and ETag.
    pub fn open(self: &Arc<Remote>, url: &ObjectUrl) -> Result<LazyObject, Error> {
        let built = self.store(url)?;
        let path = store_path(url);
        let part_size = self.options.part_size.max(1);
        let file = tempfile::tempfile().map_err(|e| Error::Io {
            url: url.to_string(),
            message: format!("cannot create a temporary file: {e}"),
        })?;
        let deadline = self.options.part_deadline();
        let first = self.first_part(url, &built, &path, part_size, deadline)?;
        let (len, etag, version, head, done, requests) = match first {
            First::Ranged { meta, range, bytes } => {
                if range.start != 0 || bytes.len() as u64 != range.end.saturating_sub(range.start) {
                    return Err(Error::Other {
                        url: url.to_string(),
                        message: format!(
                            "the first part's response is {} bytes for range {}..{}",
                            bytes.len(),
                            range.start,
                            range.end
                        ),
                    });
                }
                write_at(url, &file, 0, &bytes)?;
                (meta.size, meta.e_tag, meta.version, bytes, 1, 1)
            }
            First::Whole(result) => {
                let meta = result.meta.clone();
                let written = self.block_on(url, deadline, "the object", async {
                    stream_into(url, &built.hint, result, (&file, 0), &|_| {}).await
                })?;
                if written != meta.size {
                    return Err(cut_short(url, written, meta.size));
                }
                let head = read_head(url, &file, written.min(part_size))?;
                let parts = written.div_ceil(part_size) as usize;
                (meta.size, meta.e_tag, meta.version, head, parts, 2)
            }
        };
        file.set_len(len).map_err(|e| Error::Io {
            url: url.to_string(),
            message: format!("cannot size the temporary file: {e}"),
        })?;
        let count = len.div_ceil(part_size) as usize;
        let states = (0..count)
            .map(|i| {
                if i < done {
                    State::Done
                } else {
                    State::Missing
                }
            })
            .collect();
        let shared = Arc::new(Shared {
            url: url.clone(),
            store: built.store,
            hint: built.hint,
            path,
            len,
            etag,
            version,
            part_size,
            file,
            parts: Mutex::new(Parts {
                states,
                failed: None,
                last: None,
                forward: true,
            }),
            ready: Condvar::new(),
            requests: AtomicU64::new(requests),
            per_object: tokio::sync::Semaphore::new(self.options.parts_per_object.max(1)),
        });
        Ok(LazyObject {
            remote: Arc::clone(self),
            shared,
            head,
            allowance: None,
        })
    }

    /// The first part of `url` (at `path` in `built`'s store): one ranged GET, or one streaming
    /// GET of the whole when the server did not serve the range.
    fn first_part(
        &self,
        url: &ObjectUrl,
        built: &crate::store::Built,
        path: &StorePath,
        part_size: u64,
        deadline: Duration,
    ) -> Result<First, Error> {
        let store = Arc::clone(&built.store);
        self.block_on(url, deadline, "the first part", async {
            let options = GetOptions {
                range: Some(GetRange::Bounded(0..part_size)),
                ..GetOptions::default()
            };
            match store.get_opts(path, options).await {
                Ok(result) => {
                    let meta = result.meta.clone();
                    let range = result.range.clone();
                    let bytes = result
                        .bytes()
                        .await
                        .map_err(|e| Error::from_store(url, e, &built.hint))?;
                    Ok(First::Ranged { meta, range, bytes })
                }
                // Range ignored (a 200 where 206 was asked), or a range the object cannot
                // serve (an empty object): one streaming GET of the whole. Anything else (a
                // server still failing after its retries, a refused credential) is the answer.
                Err(e) if !range_not_served(&e) => Err(Error::from_store(url, e, &built.hint)),
                Err(_) => {
                    let result = store
                        .get_opts(path, GetOptions::default())
                        .await
                        .map_err(|e| Error::from_store(url, e, &built.hint))?;
                    Ok(First::Whole(result))
                }
            }
        })
    }
}

impl Remote {
    /// The object's size, from one HEAD request (no bytes of it): what a limit on the bytes to
    /// read checks before any are.
    pub fn size_of(self: &Arc<Remote>, url: &ObjectUrl) -> Result<u64, Error> {
        let built = self.store(url)?;
        let path = store_path(url);
        let deadline = self.options.part_deadline();
        self.block_on(url, deadline, "the object's size", async {
            built
                .store
                .head(&path)
                .await
                .map(|meta| meta.size)
                .map_err(|e| Error::from_store(url, e, &built.hint))
        })
    }
}

enum First {
    Ranged {
        meta: object_store::ObjectMeta,
        range: Range<u64>,
        bytes: Bytes,
    },
    Whole(GetResult),
}

/// Whether a ranged GET failed only because of its range: the server ignored Range (a 200 where
/// a 206 was asked), or the object cannot serve one (416, an empty object). Then one plain GET
/// reads it; for any other failure a plain GET would only fail again, at the cost of a request.
///
/// `object_store` keeps these errors' types private, so their wording is what tells them apart.
fn range_not_served(error: &object_store::Error) -> bool {
    if !matches!(
        error,
        object_store::Error::Generic { .. } | object_store::Error::NotSupported { .. }
    ) {
        return false;
    }
    let text = chain(error);
    [
        // The clouds' clients, and the web server's.
        "Received non-partial response when range requested",
        "Range request not supported by",
        "416 Range Not Satisfiable",
        "but object was only",
    ]
    .iter()
    .any(|w| text.contains(w))
}

fn write_at(url: &ObjectUrl, file: &File, at: u64, bytes: &[u8]) -> Result<(), Error> {
    file.write_all_at(bytes, at).map_err(|e| Error::Io {
        url: url.to_string(),
        message: format!("cannot write to the temporary file: {e}"),
    })
}

fn read_head(url: &ObjectUrl, file: &File, len: u64) -> Result<Bytes, Error> {
    let mut head = vec![0; len as usize];
    file.read_exact_at(&mut head, 0).map_err(|e| Error::Io {
        url: url.to_string(),
        message: format!("cannot read the temporary file: {e}"),
    })?;
    Ok(Bytes::from(head))
}

fn cut_short(url: &ObjectUrl, got: u64, expected: u64) -> Error {
    Error::Other {
        url: url.to_string(),
        message: format!("the response ended after {got} of {expected} bytes"),
    }
}

/// Writes a streaming GET's body into `file` from `at`, returning how many bytes it had;
/// `report` is told the offset reached after each chunk.
async fn stream_into(
    url: &ObjectUrl,
    hint: &str,
    result: GetResult,
    (file, at): (&File, u64),
    report: &dyn Fn(u64),
) -> Result<u64, Error> {
    let mut stream = result.into_stream();
    let mut pos = at;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| Error::from_store(url, e, hint))?;
        write_at(url, file, pos, &chunk)?;
        pos = pos.saturating_add(chunk.len() as u64);
        report(pos);
    }
    Ok(pos - at)
}

impl Shared {
    fn range_of(&self, index: usize) -> Range<u64> {
        let start = (index as u64).saturating_mul(self.part_size).min(self.len);
        start..start.saturating_add(self.part_size).min(self.len)
    }

    fn pinned(&self, range: GetRange) -> GetOptions {
        GetOptions {
            range: Some(range),
            if_match: self.etag.clone(),
            version: self.version.clone(),
            ..GetOptions::default()
        }
    }

    /// Checks that a later response is of the object the first one was.
    fn same_object(&self, meta: &object_store::ObjectMeta) -> Result<(), Error> {
        let etag_changed = matches!((&self.etag, &meta.e_tag), (Some(a), Some(b)) if a != b);
        if etag_changed || meta.size != self.len {
            return Err(Error::Rewritten {
                url: self.url.to_string(),
            });
        }
        Ok(())
    }

    /// One ranged GET of part `index`, written at its offset.
    async fn get_part(&self, index: usize) -> Result<(), Error> {
        let range = self.range_of(index);
        self.requests.fetch_add(1, Ordering::Relaxed);
        let result = self
            .store
            .get_opts(&self.path, self.pinned(GetRange::Bounded(range.clone())))
            .await
            .map_err(|e| Error::from_store(&self.url, e, &self.hint))?;
        self.same_object(&result.meta)?;
        if result.range != range {
            return Err(Error::Other {
                url: self.url.to_string(),
                message: format!(
                    "asked for bytes {}..{}, was sent {}..{}",
                    range.start, range.end, result.range.start, result.range.end
                ),
            });
        }
        let bytes = result
            .bytes()
            .await
            .map_err(|e| Error::from_store(&self.url, e, &self.hint))?;
        let expected = range.end - range.start;
        if bytes.len() as u64 != expected {
            return Err(cut_short(&self.url, bytes.len() as u64, expected));
        }
        write_at(&self.url, &self.file, range.start, &bytes)
    }

    fn failure(&self) -> Option<Error> {
        let parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        parts.failed.clone()
    }

    fn finish(&self, indexes: Range<usize>, result: Result<(), Error>) {
        let mut parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        for index in indexes {
            if let Some(state) = parts.states.get_mut(index) {
                *state = if result.is_ok() {
                    State::Done
                } else {
                    State::Missing
                };
            }
        }
        if let Err(error) = result {
            parts.failed.get_or_insert(error);
        }
        self.ready.notify_all();
    }
}

impl LazyObject {
    pub fn url(&self) -> &ObjectUrl {
        &self.shared.url
    }

    /// The object's size, from the first response.
    pub fn len(&self) -> u64 {
        self.shared.len
    }

    pub fn is_empty(&self) -> bool {
        self.shared.len == 0
    }

    /// The ETag every part was pinned to, when the server gave one.
    pub fn etag(&self) -> Option<&str> {
        self.shared.etag.as_deref()
    }

    /// The first bytes, as fetched by the first request (up to a part).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// GET requests made for this object so far.
    pub fn requests(&self) -> u64 {
        self.shared.requests.load(Ordering::Relaxed)
    }

    /// Copies the bytes from `at` into `buf`, fetching the parts they lie in (and reading ahead
    /// in the direction of travel) first; returns how many were copied (fewer only at the end).
    pub fn read_at(&self, at: u64, buf: &mut [u8]) -> Result<usize, Error> {
        let end = at.saturating_add(buf.len() as u64).min(self.shared.len);
        if at >= end {
            return Ok(0);
        }
        let size = self.shared.part_size;
        let wanted = (at / size) as usize..(end.div_ceil(size)) as usize;
        self.ensure(wanted)?;
        let len = (end - at) as usize;
        let to = buf.get_mut(..len).unwrap_or_default();
        self.shared
            .file
            .read_exact_at(to, at)
            .map_err(|e| Error::Io {
                url: self.shared.url.to_string(),
                message: format!("cannot read the temporary file: {e}"),
            })?;
        Ok(len)
    }

    /// Fetches the parts `range` lies in that are not fetched yet (reading ahead in the direction
    /// of travel, as [`LazyObject::read_at`] does) and returns once they are all in
    /// [`LazyObject::file`].
    pub fn fetch_range(&self, range: Range<u64>) -> Result<(), Error> {
        let end = range.end.min(self.shared.len);
        if range.start >= end {
            return Ok(());
        }
        let size = self.shared.part_size;
        self.ensure((range.start / size) as usize..end.div_ceil(size) as usize)
    }

    /// The temporary file the parts land in, as long as the object: bytes of a part not fetched
    /// yet read as zeros there, so read only what [`LazyObject::fetch_range`] has fetched.
    pub fn file(&self) -> &File {
        &self.shared.file
    }

    /// The bytes of one ranged GET.
    pub fn part_size(&self) -> u64 {
        self.shared.part_size
    }

    /// How many of the object's bytes are in the temporary file so far.
    pub fn fetched(&self) -> u64 {
        let parts = self.shared.parts.lock().unwrap_or_else(|e| e.into_inner());
        parts
            .states
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == State::Done)
            .map(|(i, _)| {
                let range = self.shared.range_of(i);
                range.end - range.start
            })
            .sum()
    }

    /// [`LazyObject::fill`], telling `report` how many bytes are here every fifth of a second
    /// while it waits.
    pub fn fill_reporting(&self, report: &dyn Fn(u64)) -> Result<&File, Error> {
        let count = self.part_count();
        {
            let mut parts = self.shared.parts.lock().unwrap_or_else(|e| e.into_inner());
            for index in 0..count {
                if parts.states.get(index) == Some(&State::Missing) {
                    if let Some(state) = parts.states.get_mut(index) {
                        *state = State::Fetching;
                    }
                    self.spawn(index);
                }
            }
        }
        loop {
            report(self.fetched());
            let parts = self.shared.parts.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(error) = &parts.failed {
                return Err(error.clone());
            }
            if parts.states.iter().all(|s| *s == State::Done) {
                drop(parts);
                report(self.fetched());
                return Ok(&self.shared.file);
            }
            let _ = self
                .shared
                .ready
                .wait_timeout(parts, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Fetches every part not fetched yet (as many in flight as the caps allow) and returns the
    /// temporary file holding the whole object.
    pub fn fill(&self) -> Result<&File, Error> {
        self.ensure(0..self.part_count())?;
        Ok(&self.shared.file)
    }

    /// With `allowance` asked before each request from now on: a part it refuses is not
    /// fetched, and a read that needs one fails with its answer (every later read too); a part
    /// only read ahead is skipped instead.
    pub fn allowing(mut self, allowance: Allowance) -> LazyObject {
        self.allowance = Some(allowance);
        self
    }

    /// Whether `bytes` more may be fetched.
    fn allowed(&self, bytes: u64) -> Result<(), Error> {
        match &self.allowance {
            Some(allow) => allow(bytes).map_err(|message| Error::Refused {
                url: self.shared.url.to_string(),
                message,
            }),
            None => Ok(()),
        }
    }

    /// Fetches the rest of the object after the first part with one streaming GET pinned to its
    /// ETag (for a compressed object, which is decompressed front to back anyway), and returns
    /// the temporary file holding it.
    pub fn fill_streaming(&self) -> Result<&File, Error> {
        self.fill_streaming_reporting(&|_| {})
    }

    /// [`LazyObject::fill_streaming`], telling `report` how many bytes are here as they arrive.
    pub fn fill_streaming_reporting(&self, report: &dyn Fn(u64)) -> Result<&File, Error> {
        let from = {
            let parts = self.shared.parts.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(error) = &parts.failed {
                return Err(error.clone());
            }
            let done = parts
                .states
                .iter()
                .take_while(|s| **s == State::Done)
                .count();
            if done == parts.states.len() {
                return Ok(&self.shared.file);
            }
            done
        };
        let shared = Arc::clone(&self.shared);
        let start = shared.range_of(from).start;
        let count = self.part_count();
        if let Err(refused) = self.allowed(shared.len - start) {
            self.shared.finish(from..from, Err(refused.clone()));
            return Err(refused);
        }
        report(start);
        let deadline = self.stream_deadline();
        let result = self
            .remote
            .block_on(&shared.url, deadline, "the object", async {
                shared.requests.fetch_add(1, Ordering::Relaxed);
                let result = shared
                    .store
                    .get_opts(&shared.path, shared.pinned(GetRange::Offset(start)))
                    .await
                    .map_err(|e| Error::from_store(&shared.url, e, &shared.hint))?;
                shared.same_object(&result.meta)?;
                let written = stream_into(
                    &shared.url,
                    &shared.hint,
                    result,
                    (&shared.file, start),
                    report,
                )
                .await?;
                let expected = shared.len - start;
                if written != expected {
                    return Err(cut_short(&shared.url, written, expected));
                }
                Ok(())
            });
        self.shared.finish(from..count, result.clone());
        result.map(|()| &self.shared.file)
    }

    fn part_count(&self) -> usize {
        self.shared.len.div_ceil(self.shared.part_size) as usize
    }

    /// A streaming GET is bounded by the time its bytes take at a slow but moving pace (1 MB/s)
    /// on top of a part's deadline.
    fn stream_deadline(&self) -> Duration {
        self.remote
            .options
            .part_deadline()
            .saturating_add(Duration::from_secs(self.shared.len / 1_000_000))
    }

    /// Starts fetching the parts of `wanted` and those read ahead of them, then waits for
    /// `wanted`.
    fn ensure(&self, wanted: Range<usize>) -> Result<(), Error> {
        let mut parts = self.shared.parts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(error) = &parts.failed {
            return Err(error.clone());
        }
        let count = parts.states.len();
        // Reads that move to another part travel: the parts ahead of them are fetched too. The
        // first read reads where it is (the inspector's first screen costs the one request).
        let moved = match parts.last {
            Some(last) if wanted.start > last => {
                parts.forward = true;
                true
            }
            Some(last) if wanted.end <= last => {
                parts.forward = false;
                true
            }
            _ => false,
        };
        parts.last = Some(if parts.forward {
            wanted.end.saturating_sub(1)
        } else {
            wanted.start
        });
        let ahead = if moved {
            self.remote.options.read_ahead
        } else {
            0
        };
        let extra = if parts.forward {
            wanted.end..wanted.end.saturating_add(ahead).min(count)
        } else {
            wanted.start.saturating_sub(ahead)..wanted.start
        };
        for index in wanted.clone().chain(extra) {
            if parts.states.get(index) != Some(&State::Missing) {
                continue;
            }
            let range = self.shared.range_of(index);
            if let Err(refused) = self.allowed(range.end - range.start) {
                if wanted.contains(&index) {
                    parts.failed.get_or_insert(refused);
                    break;
                }
                // Only read ahead: not needed yet, so not worth failing for.
                continue;
            }
            if let Some(state) = parts.states.get_mut(index) {
                *state = State::Fetching;
            }
            self.spawn(index);
        }
        loop {
            if let Some(error) = &parts.failed {
                return Err(error.clone());
            }
            if wanted
                .clone()
                .all(|i| parts.states.get(i).is_none_or(|s| *s == State::Done))
            {
                return Ok(());
            }
            parts = self
                .shared
                .ready
                .wait(parts)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Fetches part `index` on the runtime, under the object's and the global cap, bounded by a
    /// part's deadline (its retries included).
    fn spawn(&self, index: usize) {
        let shared = Arc::clone(&self.shared);
        let cap = Arc::clone(&self.remote.cap);
        let deadline = self.remote.options.part_deadline();
        self.remote.runtime.spawn(async move {
            let fetch = async {
                let _global = cap.acquire().await;
                let _own = shared.per_object.acquire().await;
                // Once the object has failed (rewritten, gone), the parts still waiting for a
                // place are not fetched: every read will fail the same way anyway.
                if let Some(error) = shared.failure() {
                    return Err(error);
                }
                shared.get_part(index).await
            };
            let result = tokio::time::timeout(deadline, fetch)
                .await
                .unwrap_or_else(|_| {
                    Err(Error::Timeout {
                        url: shared.url.to_string(),
                        seconds: deadline.as_secs(),
                        what: "a part of the object",
                    })
                });
            shared.finish(index..index + 1, result);
        });
    }
}
