//! Inputs named by URL, for the core: what it asks of a `gs://`, `s3://`, `az://` or `https://`
//! argument (an object's bytes, a prefix's or pattern's objects, a side file) answered through
//! `tfr-remote`. Registered once by `main`; the network runtime starts only when a URL is read.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tfr_core::compress::Mode;
use tfr_core::source::RemoteObject;
use tfr_core::source::remote::RemoteInputs;
use tfr_remote::{Env, LazyObject, ObjectUrl, Remote, RemoteOptions};

/// The application's reader of URLs.
pub struct Remotes {
    options: RemoteOptions,
    remote: OnceLock<Result<Arc<Remote>, String>>,
}

impl Remotes {
    pub fn new(anonymous: bool) -> Remotes {
        Remotes {
            options: RemoteOptions {
                anonymous,
                ..RemoteOptions::default()
            },
            remote: OnceLock::new(),
        }
    }

    /// Registers URLs as inputs for the core.
    pub fn register(anonymous: bool) {
        tfr_core::source::remote::register(Box::new(Remotes::new(anonymous)));
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

fn url_of(path: &Path) -> Result<ObjectUrl, String> {
    path.to_str()
        .and_then(ObjectUrl::parse)
        .ok_or_else(|| format!("{}: not an object URL", path.to_string_lossy()))?
        .map_err(|e| e.to_string())
}

impl RemoteInputs for Remotes {
    fn claims(&self, path: &Path) -> bool {
        path.to_str().is_some_and(tfr_remote::is_url)
    }

    fn names_many(&self, path: &Path) -> bool {
        url_of(path).is_ok_and(|u| u.is_prefix() || u.is_pattern())
    }

    fn expand(&self, path: &Path) -> Result<Vec<PathBuf>, String> {
        let url = url_of(path)?;
        let listed = self.remote()?.list(&url).map_err(|e| e.to_string())?;
        Ok(listed
            .into_iter()
            .map(|l| PathBuf::from(l.url.to_string()))
            .collect())
    }

    fn fetch(&self, path: &Path, limit: u64) -> Result<Option<File>, String> {
        let url = url_of(path)?;
        let object = self.remote()?.open(&url).map_err(|e| e.to_string())?;
        if object.len() > limit {
            return Err(tfr_remote::Error::TooLarge {
                url: url.to_string(),
                len: object.len(),
                limit,
            }
            .to_string());
        }
        if object.is_empty() {
            return Ok(None);
        }
        // A compressed object is inflated front to back: its rest comes in one streaming GET.
        // Plain ones come as parallel ranged parts.
        let compressed = tfr_core::source::choose(object.head(), Mode::Auto).is_some();
        let file = if compressed {
            object.fill_streaming()
        } else {
            object.fill()
        }
        .map_err(|e| e.to_string())?;
        file.try_clone()
            .map(Some)
            .map_err(|e| format!("{url}: cannot keep the temporary file: {e}"))
    }

    fn open(&self, path: &Path, limit: u64) -> Result<Arc<dyn RemoteObject>, String> {
        let url = url_of(path)?;
        let object = self.remote()?.open(&url).map_err(|e| e.to_string())?;
        if object.len() > limit {
            return Err(tfr_remote::Error::TooLarge {
                url: url.to_string(),
                len: object.len(),
                limit,
            }
            .to_string());
        }
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
