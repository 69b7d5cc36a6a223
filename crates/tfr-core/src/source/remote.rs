//! Inputs named by URL (`gs://…`, `s3://…`): the core reads no network, so the application
//! registers, once, what fetches them; the core asks it wherever a path could be a URL (opening,
//! expanding a prefix or pattern, sniffing, reading a side file) and reads what it returns as it
//! reads local bytes.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What the application provides to read inputs named by URL. Errors are messages that already
/// name the URL.
pub trait RemoteInputs: Send + Sync {
    /// Whether `path` is a URL this reader serves.
    fn claims(&self, path: &Path) -> bool;
    /// Whether the URL names a prefix or a pattern (many objects) rather than one object.
    fn names_many(&self, path: &Path) -> bool;
    /// The objects a prefix or pattern URL names, in order.
    fn expand(&self, path: &Path) -> Result<Vec<PathBuf>, String>;
    /// The object's bytes, whole, in a file of their own (at most `limit` bytes, else an error).
    fn fetch(&self, path: &Path, limit: u64) -> Result<Option<File>, String>;
    /// Up to `limit` bytes from the start of the object, and the object's size; `None` when
    /// there is no such object.
    fn read_start(&self, path: &Path, limit: u64) -> Result<Option<(Vec<u8>, u64)>, String>;
}

static REMOTE: OnceLock<Box<dyn RemoteInputs>> = OnceLock::new();

/// Registers what reads URLs (the first registration wins).
pub fn register(remote: Box<dyn RemoteInputs>) {
    let _ = REMOTE.set(remote);
}

/// The registered reader, when it claims `path`.
pub fn claiming(path: &Path) -> Option<&'static dyn RemoteInputs> {
    REMOTE.get().map(|r| r.as_ref()).filter(|r| r.claims(path))
}
