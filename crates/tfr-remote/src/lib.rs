//! Shards where they live: objects in S3, Google Cloud Storage, Azure Blob Storage or on any web
//! server, read through Apache Arrow's `object_store` client.
//!
//! The core reads bytes and knows nothing of networks; this crate turns an object URL into bytes
//! the core can read. An object is fetched as ranged GETs of large parts ([`PART_SIZE`], several
//! in flight per object under one cap across objects) into an unlinked temporary file, so memory
//! stays bounded by the parts in flight whatever the object's size. The first part's response
//! gives the object's size and its ETag, and every later part asks for that ETag (`If-Match`),
//! so an object rewritten while it is read is reported as such, never mixed. A server that
//! ignores Range is read with one streaming GET instead, and so is the rest of a compressed
//! object, whose decompression is sequential anyway.
//!
//! Parts are fetched on demand ([`LazyObject::read_at`], with read-ahead in the direction of
//! travel) or all at once ([`LazyObject::fill`]); either way each part is fetched once.
//! Every network wait is bounded: connecting, each request, and the whole of a part with its
//! retries.

pub mod error;
pub mod fetch;
pub mod inputs;
pub mod list;
pub mod store;
pub mod url;

pub use error::Error;
pub use fetch::{Allowance, LazyObject, PART_SIZE};
pub use store::{Env, Remote, RemoteOptions};
pub use url::{Cloud, ObjectUrl, is_url};

#[cfg(test)]
mod faults;
#[cfg(test)]
mod tests;
