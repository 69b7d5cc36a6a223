//! The frame index of a remote shard, kept on disk once it is complete, so that opening the same
//! object again (same URL, same ETag, same size) shows all its frames at once and a jump anywhere
//! costs the one request of the part it lands in, instead of a scan that fetches every part.
//!
//! The cache is a directory of record indexes in the format `index` writes (`tfrecord2idx`'s:
//! one `offset length` line per record), under `$XDG_CACHE_HOME/tfr-inspect/` (or
//! `~/.cache/tfr-inspect/`). Each is named by a hash of its key and has the key beside it
//! (`NAME.key`), checked before the index is used, so two keys that hash alike never share an
//! index. Both are written atomically. Only indexes of shards whose every frame is intact are
//! kept: the format cannot say where a damaged frame is.
//!
//! The cache holds at most [`CACHE_BOUND`] bytes: after each index is kept, the least recently
//! used others (by their index's modification time, which a use renews) are removed until the
//! rest fits. Only files named as the cache names them are counted or removed.

use std::ffi::OsStr;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use tfr_core::frame::FrameIndex;
use tfr_core::input::Input;
use tfr_core::output::{OutputPolicy, write_atomically};
use tfr_core::record_index;
use tfr_core::sidefile;

/// The most bytes of a key file read: a URL, an ETag and a size.
const KEY_BOUND: u64 = 64 << 10;

/// The most bytes of indexes and keys kept: a 1 GiB shard of 100,000 records has an index of
/// about 2 MiB, so this is the last hundred or so such shards opened.
pub const CACHE_BOUND: u64 = 256 << 20;

/// Where the frame indexes of remote shards are kept.
#[derive(Debug, Clone)]
pub struct IndexCache {
    dir: PathBuf,
    bound: u64,
}

impl IndexCache {
    pub fn new(dir: PathBuf) -> IndexCache {
        IndexCache {
            dir,
            bound: CACHE_BOUND,
        }
    }

    /// The cache holding at most `bound` bytes instead of [`CACHE_BOUND`].
    pub fn bounded(self, bound: u64) -> IndexCache {
        IndexCache { bound, ..self }
    }

    /// The cache under `XDG_CACHE_HOME` (when it is an absolute path, as the XDG base
    /// directory specification requires), else under `HOME`'s `.cache`; none without either.
    pub fn from_env(xdg_cache_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<IndexCache> {
        let base = xdg_cache_home
            .map(Path::new)
            .filter(|p| p.is_absolute())
            .map(Path::to_path_buf)
            .or_else(|| {
                home.map(Path::new)
                    .filter(|p| p.is_absolute())
                    .map(|h| h.join(".cache"))
            })?;
        Some(IndexCache::new(base.join("tfr-inspect")))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cached index of `input`'s bytes, when there is one for its URL, ETag and size and it
    /// describes a stream of that size.
    pub fn load(&self, input: &Input) -> Option<FrameIndex> {
        let (name, key) = cache_key(input)?;
        // Side files like any other: regular files only (a pipe put there must not hang the
        // opening), the key read up to its bound.
        let stored = sidefile::read(&self.dir.join(format!("{name}.key")), KEY_BOUND).ok()?;
        if stored.bytes != key.as_bytes() {
            return None;
        }
        let (file, _) = sidefile::open_regular(&self.dir.join(format!("{name}.idx"))).ok()?;
        let len = input.source.len();
        let entries = record_index::read(&mut BufReader::new(&file), len).ok()??;
        let index = FrameIndex::from_record_index(len, &entries)?;
        // Used: the last to go when the cache is over its bound (best effort: a cache on a
        // read-only disk is still read).
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .open(self.dir.join(format!("{name}.idx")))
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        Some(index)
    }

    /// Keeps `input`'s index, when it is complete, every frame is intact and its bytes have an
    /// ETag; returns whether it was written.
    pub fn store(&self, input: &Input) -> bool {
        let index = &input.index;
        if !index.is_complete() || index.damaged_count() > 0 {
            return false;
        }
        let Some((name, key)) = cache_key(input) else {
            return false;
        };
        let entries = record_index::entries(index, &input.source);
        if entries.len() != index.len() || std::fs::create_dir_all(&self.dir).is_err() {
            return false;
        }
        let policy = OutputPolicy {
            inputs: &[],
            replace_existing: true,
            stdout_is_terminal: false,
        };
        // The key goes first: an index is only used once its key is there and the same.
        let write =
            |path: PathBuf, bytes: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>| {
                write_atomically(&path, &policy, |out| bytes(out)).is_ok()
            };
        let written = write(self.dir.join(format!("{name}.key")), &|out| {
            out.write_all(key.as_bytes())
        }) && write(self.dir.join(format!("{name}.idx")), &|out| {
            record_index::write(&entries, out)
        });
        if written {
            self.evict(&name);
        }
        written
    }

    /// Removes the least recently used entries other than `keep` until the cache's entries add
    /// up to at most its bound.
    fn evict(&self, keep: &str) {
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            return;
        };
        // name -> (bytes of its files, when its index was last written or used)
        let mut entries: std::collections::BTreeMap<String, (u64, std::time::SystemTime)> =
            std::collections::BTreeMap::new();
        for entry in listing.flatten() {
            let file_name = entry.file_name();
            let Some((name, ext)) = file_name.to_str().and_then(|n| n.split_once('.')) else {
                continue;
            };
            let ours = name.len() == 16 && name.bytes().all(|b| b.is_ascii_hexdigit());
            // Regular files only, never followed: a link put there is not the cache's.
            let meta = entry.metadata().ok().filter(|m| m.is_file());
            let (true, true, Some(meta)) = (ours, ext == "idx" || ext == "key", meta) else {
                continue;
            };
            let slot = entries
                .entry(name.to_string())
                .or_insert((0, std::time::SystemTime::UNIX_EPOCH));
            slot.0 = slot.0.saturating_add(meta.len());
            if ext == "idx" {
                slot.1 = meta.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH);
            }
        }
        let mut total = entries
            .values()
            .fold(0u64, |t, (len, _)| t.saturating_add(*len));
        let mut oldest: Vec<(&String, &(u64, std::time::SystemTime))> = entries
            .iter()
            .filter(|(name, _)| name.as_str() != keep)
            .collect();
        oldest.sort_by_key(|(name, (_, used))| (*used, (*name).clone()));
        for (name, (len, _)) in oldest {
            if total <= self.bound {
                break;
            }
            // The index first: a key without its index is never used.
            let _ = std::fs::remove_file(self.dir.join(format!("{name}.idx")));
            let _ = std::fs::remove_file(self.dir.join(format!("{name}.key")));
            total = total.saturating_sub(*len);
        }
    }
}

/// The file name and the key of `input`'s cached index: its URL, ETag and size. `None` for
/// bytes that are not an object read on demand with an ETag.
fn cache_key(input: &Input) -> Option<(String, String)> {
    let source = &input.source;
    source.fetched()?;
    let etag = source.etag()?;
    let url = source.path().to_str()?;
    let key = format!("{url}\n{etag}\n{}\n", source.len());
    Some((format!("{:016x}", fnv1a(key.as_bytes())), key))
}

/// 64-bit FNV-1a: a name for a key that stays the same from one run (and build) to the next.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_under_xdg_cache_home_else_home_and_only_at_absolute_paths() {
        let dir = |x: Option<&str>, h: Option<&str>| {
            IndexCache::from_env(x.map(OsStr::new), h.map(OsStr::new)).map(|c| c.dir)
        };
        assert_eq!(
            dir(Some("/x/cache"), Some("/home/u")),
            Some(PathBuf::from("/x/cache/tfr-inspect"))
        );
        assert_eq!(
            dir(None, Some("/home/u")),
            Some(PathBuf::from("/home/u/.cache/tfr-inspect"))
        );
        assert_eq!(
            dir(Some("relative"), Some("/home/u")),
            Some(PathBuf::from("/home/u/.cache/tfr-inspect"))
        );
        assert_eq!(dir(None, None), None);
    }

    #[test]
    fn names_are_fnv1a() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn over_its_bound_the_least_recently_used_entries_go_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let cache = IndexCache::new(dir.path().to_path_buf()).bounded(250);
        let at = |secs: u64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        // Four entries of 100 bytes (index and key), used at times 4, 1, 3 and 2.
        for (name, used) in [("a", 4), ("b", 1), ("c", 3), ("d", 2)] {
            let name = name.repeat(16);
            std::fs::write(dir.path().join(format!("{name}.key")), [0; 10]).unwrap();
            let idx = dir.path().join(format!("{name}.idx"));
            std::fs::write(&idx, [0; 90]).unwrap();
            let file = std::fs::File::options().write(true).open(&idx).unwrap();
            file.set_modified(at(used)).unwrap();
        }
        // Not the cache's: never counted, never removed.
        std::fs::write(dir.path().join("notes.txt"), [0; 1000]).unwrap();
        std::fs::write(dir.path().join("0123.idx"), [0; 1000]).unwrap();
        // "b" was just written: it stays; of the others the least recently used go until
        // 250 bytes are left ("d", then "c").
        cache.evict(&"b".repeat(16));
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let a = "a".repeat(16);
        let b = "b".repeat(16);
        assert_eq!(
            left,
            [
                "0123.idx".to_string(),
                format!("{a}.idx"),
                format!("{a}.key"),
                format!("{b}.idx"),
                format!("{b}.key"),
                "notes.txt".to_string(),
            ]
        );
    }
}
