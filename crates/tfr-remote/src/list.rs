//! Listing a prefix or a glob over keys, and reading the small side files beside shards
//! (`dataset_info.json`, `features.json`).
//!
//! A prefix (`s3://b/dataset/`) lists every object under it, at any depth, as a directory is
//! walked; a pattern (`gs://b/data/train-*`) lists under its literal part and keeps the keys the
//! glob matches, `*` and `?` not crossing `/` and `**` crossing it, as local patterns do.

use futures_util::StreamExt;
use object_store::GetOptions;
use object_store::path::Path as StorePath;

use crate::error::Error;
use crate::store::Remote;
use crate::url::{Cloud, ObjectUrl};

/// The most objects one listing returns: past it the listing fails instead of filling memory.
pub const MAX_LISTED: usize = 1_000_000;

/// One object a listing found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub url: ObjectUrl,
    pub size: u64,
}

impl Remote {
    /// The objects under a prefix URL, or matching a pattern URL, in key order.
    pub fn list(&self, url: &ObjectUrl) -> Result<Vec<Listed>, Error> {
        if url.cloud == Cloud::Http {
            return Err(Error::NotListable {
                url: url.to_string(),
                cloud: url.cloud.name(),
            });
        }
        let matcher = if url.is_pattern() {
            let glob = globset::GlobBuilder::new(&url.key)
                .literal_separator(true)
                .build()
                .map_err(|e| Error::Other {
                    url: url.to_string(),
                    message: format!("not a valid pattern: {e}"),
                })?;
            Some(glob.compile_matcher())
        } else {
            None
        };
        let prefix = if url.is_pattern() {
            url.literal_prefix()
        } else {
            url.key.as_str()
        };
        let prefix = prefix.trim_end_matches('/');
        let built = self.store(url)?;
        let deadline = self.options.part_deadline().saturating_mul(4);
        let mut found = self.block_on(url, deadline, "the listing", async {
            let prefix = (!prefix.is_empty()).then(|| StorePath::from(prefix));
            let mut stream = built.store.list(prefix.as_ref());
            let mut found = Vec::new();
            while let Some(meta) = stream.next().await {
                let meta = meta.map_err(|e| Error::from_store(url, e, &built.hint))?;
                let key = meta.location.as_ref();
                if matcher.as_ref().is_some_and(|m| !m.is_match(key)) {
                    continue;
                }
                if found.len() >= MAX_LISTED {
                    return Err(Error::Other {
                        url: url.to_string(),
                        message: format!("more than {MAX_LISTED} objects; name a narrower prefix"),
                    });
                }
                found.push(Listed {
                    url: url.with_key(key),
                    size: meta.size,
                });
            }
            Ok(found)
        })?;
        found.sort_by(|a, b| a.url.key.cmp(&b.url.key));
        Ok(found)
    }

    /// The first bytes of an object (up to `limit`) and its size, or `None` when there is no
    /// such object: one GET, read no further than `limit`.
    pub fn read_start(&self, url: &ObjectUrl, limit: u64) -> Result<Option<(Vec<u8>, u64)>, Error> {
        let built = self.store(url)?;
        let path = crate::fetch::store_path(url);
        let deadline = self.options.part_deadline();
        self.block_on(url, deadline, "a small object", async {
            let result = match built.store.get_opts(&path, GetOptions::default()).await {
                Ok(result) => result,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(Error::from_store(url, e, &built.hint)),
            };
            let size = result.meta.size;
            let mut stream = result.into_stream();
            let mut bytes = Vec::new();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| Error::from_store(url, e, &built.hint))?;
                let room = (limit as usize).saturating_sub(bytes.len());
                bytes.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
                if chunk.len() >= room {
                    break;
                }
            }
            Ok(Some((bytes, size)))
        })
    }
}
