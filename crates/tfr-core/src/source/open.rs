//! Opening an input: a regular file is mapped as it is; a pipe, and the decompressed stream of a
//! GZIP, ZLIB or SNAPPY file, are spilled to a temporary file first and that file is mapped.
//!
//! Decompression is a pure step here: [`crate::compress::decompress_into`] turns the mapped
//! compressed bytes into a stream written to the spill, and this module decides what its outcome
//! means for the input (read as plain after all, refused, or served decompressed).

use std::fs::File;
use std::path::Path;
use std::sync::{Arc, Once};

use super::map::{self, Mapping};
use super::spill::Spill;
use super::{Origin, Source};
use crate::bytes::ByteSource;
use crate::compress::{
    self, Compressed, Compression, DEFAULT_LIMIT, Mode, Stopped, StreamProblemKind,
};
use crate::error::{DecompressProblem, Error, Result};
use crate::frame::Header;
use crate::span::FileOffset;

/// A reader every opened stream is served through (see [`ReadOptions::serve_through`]).
pub type ServeThrough = fn(Arc<dyn ByteSource>) -> Arc<dyn ByteSource>;

/// How an input's bytes are read.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Detect compression, or read the bytes as a given compression (or none).
    pub mode: Mode,
    /// Largest decompressed stream accepted, and the most read from a pipe, in bytes.
    pub limit: u64,
    /// Serves the opened (and decompressed) stream through another reader: how tests read
    /// local files as a ranged reader (an object store) would serve them, to show that every
    /// command reads through ranges and prints the same. `None` everywhere else.
    pub serve_through: Option<ServeThrough>,
    /// An object named by URL is fetched as it is read (its first part at opening, the others
    /// when a read touches them) instead of whole before it is opened: how the inspector shows
    /// a remote shard's first frames at once. A compressed object is still fetched whole.
    pub on_demand: bool,
    /// The most bytes of objects named by URL that a pass over many files holds open at once
    /// (each fetched whole into a temporary file): see [`super::remote::batches`].
    pub remote_at_once: u64,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            mode: Mode::Auto,
            limit: DEFAULT_LIMIT,
            serve_through: None,
            on_demand: false,
            remote_at_once: super::remote::REMOTE_AT_ONCE,
        }
    }
}

impl ReadOptions {
    /// The bytes as they are, with no decompression.
    pub fn as_is() -> ReadOptions {
        ReadOptions {
            mode: Mode::None,
            ..ReadOptions::default()
        }
    }
}

/// Decides how to read `data`: `None` means as a plain TFRecord stream.
///
/// `Auto` reads a file as plain whenever its first frame header is valid, since a plain file whose
/// first record length happens to begin with `0x78 0x9c` would otherwise be taken for ZLIB.
pub fn choose(data: &[u8], mode: Mode) -> Option<Compression> {
    match mode {
        Mode::None => None,
        Mode::Gzip => Some(Compression::Gzip),
        Mode::Zlib => Some(Compression::Zlib),
        Mode::Snappy => Some(Compression::Snappy),
        Mode::Auto => {
            if Header::read(data, FileOffset::ZERO).is_some_and(|h| h.crc_ok()) {
                None
            } else {
                compress::sniff(data)
            }
        }
    }
}

/// Opens `path` as `options` say (see [`Source::open`]).
pub(super) fn open(path: &Path, options: &ReadOptions) -> Result<Source> {
    let raw = open_raw(path, options)?;
    // An object read on demand was judged plain from its first part already.
    let mut source = if raw.on_demand.is_some() {
        raw
    } else {
        // Sniffing and decompressing read the file as it lies on disk: mapped, or spilled and
        // mapped.
        let whole = crate::bytes::whole(&raw).map_err(|e| raw.read_error(None, e))?;
        match choose(whole, options.mode) {
            None => raw,
            Some(compression) => decompressed(raw, compression, options)?,
        }
    };
    if let Some(serve) = options.serve_through {
        source.bytes = serve(source.bytes);
    }
    Ok(source)
}

/// Opens `path` and maps its bytes as they are; a pipe is copied to a temporary file first.
fn open_raw(path: &Path, options: &ReadOptions) -> Result<Source> {
    raise_open_file_limit();
    let limit = options.limit;
    let io_err = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if let Some(remote) = super::remote::claiming(path) {
        let remote_err = |message| Error::Remote {
            path: path.to_path_buf(),
            message,
        };
        if options.on_demand {
            return open_on_demand(path, remote, options);
        }
        // The object's bytes arrive in a file of their own, read as a pipe's spill is.
        return match remote.fetch(path, limit).map_err(remote_err)? {
            Some(file) => {
                let mapping = Mapping::new(&file).map_err(|e| Error::Spill {
                    path: path.to_path_buf(),
                    source: e,
                })?;
                let held = super::remote::SpillHeld::new(mapping.len());
                let mut source = Source::over(path, Box::new(mapping), None);
                source.spill = Some(held);
                Ok(source)
            }
            None => Ok(Source::over(path, Box::new(Vec::new()), None)),
        };
    }
    let file = File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if meta.is_dir() {
        return Err(Error::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_block_device() || kind.is_socket() {
            return Err(Error::NotAFile {
                path: path.to_path_buf(),
            });
        }
    }
    if meta.is_file() && meta.len() > 0 {
        match Mapping::new(&file) {
            Ok(mapping) => {
                let origin = Origin {
                    len: mapping.len(),
                    modified: meta.modified().ok(),
                    mapped: true,
                    file,
                };
                return Ok(Source::over(path, Box::new(mapping), Some(origin)));
            }
            // A copy would need a map of its own: say so rather than blame the copy's disk.
            Err(e) if map::is_guard_full(&e) => return Err(io_err(e)),
            // Not mappable as it is (some file systems): read through a copy.
            Err(_) => {}
        }
    }
    // A pipe, or a file that could not be mapped: copy it, up to the limit, since nothing
    // bounds what a pipe may send.
    let mut spill = Spill::new().map_err(|e| Error::Spill {
        path: path.to_path_buf(),
        source: e,
    })?;
    let copied = spill.copy_from(&file, limit).map_err(io_err)?;
    if copied > limit {
        return Err(Error::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(Source::over(path, spilled(spill, path)?, None))
}

/// Opens the object `path` names with its first part: a plain object is then read on demand, a
/// compressed one is fetched whole (its decompression reads it front to back anyway).
fn open_on_demand(
    path: &Path,
    remote: &dyn super::remote::RemoteInputs,
    options: &ReadOptions,
) -> Result<Source> {
    let remote_err = |message| Error::Remote {
        path: path.to_path_buf(),
        message,
    };
    let spill_err = |e| Error::Spill {
        path: path.to_path_buf(),
        source: e,
    };
    let object = remote.open(path, options.limit).map_err(remote_err)?;
    if object.is_empty() {
        return Ok(Source::over(path, Box::new(Vec::new()), None));
    }
    if choose(object.head(), options.mode).is_some() {
        let file = object.fetch_all().map_err(remote_err)?;
        let mapping = Mapping::new(file).map_err(spill_err)?;
        return Ok(Source::over(path, Box::new(mapping), None));
    }
    let bytes = super::remote::OnDemand::new(Arc::clone(&object)).map_err(spill_err)?;
    let mut source = Source::over(path, Box::new(bytes), None);
    source.on_demand = Some(object);
    Ok(source)
}

/// The decompressed stream of `raw`, spilled to a temporary file and mapped.
fn decompressed(raw: Source, compression: Compression, options: &ReadOptions) -> Result<Source> {
    let path = raw.path().to_path_buf();
    let spill_err = |e| Error::Spill {
        path: path.clone(),
        source: e,
    };
    let mut spill = Spill::new().map_err(spill_err)?;
    let data = crate::bytes::whole(&raw).map_err(|e| raw.read_error(None, e))?;
    let outcome = compress::decompress_into(data, compression, options.limit, &mut spill);
    // Decoding read the compressed file: had it shrunk meanwhile, part of the output came from
    // zeros and is no use.
    raw.check_unchanged()?;
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(Stopped::Limit(e)) => {
            return Err(Error::Decompress {
                path,
                offset: FileOffset(e.compressed_offset),
                problem: DecompressProblem::OverLimit {
                    compression,
                    limit: e.limit,
                },
            });
        }
        Err(Stopped::Write(e)) => return Err(spill_err(e)),
    };
    // Nothing decoded: for SNAPPY, whose first bytes are no magic but a block length, a length
    // that runs past the end says as little as corrupt data does.
    let unreadable = outcome.len == 0
        && outcome.problem.as_ref().is_some_and(|p| {
            p.kind == StreamProblemKind::Corrupt
                || compression == Compression::Snappy && p.kind == StreamProblemKind::Truncated
        });
    if options.mode == Mode::Auto && unreadable {
        return Ok(raw);
    }
    if unreadable && compress::sniff(data) != Some(compression) {
        // A compression forced on a file that does not start with it: a wrong choice, not damage.
        return Err(Error::Decompress {
            path,
            offset: FileOffset::ZERO,
            problem: DecompressProblem::NotThisCompression(compression),
        });
    }
    let info = Compressed {
        compression,
        compressed_len: raw.len(),
        problem: outcome.problem,
        ignored: outcome.ignored,
        oversized: outcome.oversized,
    };
    let bytes = spilled(spill, &path)?;
    // An object's decompressed stream is a temporary file as its compressed bytes were.
    let held = raw
        .spill
        .as_ref()
        .map(|_| super::remote::SpillHeld::new(bytes.len()));
    let origin = raw.into_origin().map(|origin| Origin {
        mapped: false,
        ..origin
    });
    let mut source = Source::over(&path, bytes, origin);
    source.compression = Some(info);
    source.spill = held;
    Ok(source)
}

/// Maps what was written to `spill`.
fn spilled(spill: Spill, path: &Path) -> Result<Box<dyn ByteSource>> {
    let spill_err = |e| Error::Spill {
        path: path.to_path_buf(),
        source: e,
    };
    let Some(file) = spill.finish().map_err(spill_err)? else {
        return Ok(Box::new(Vec::new()));
    };
    Ok(Box::new(Mapping::new(&file).map_err(spill_err)?))
}

/// Every open input keeps its file open (to notice it change), so a session over a thousand
/// shards needs more descriptors than the usual soft limit of 1024: raise it to the hard limit.
#[allow(unsafe_code)]
fn raise_open_file_limit() {
    static RAISE: Once = Once::new();
    RAISE.call_once(|| {
        #[cfg(unix)]
        // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
        unsafe {
            let mut limit: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0
                && limit.rlim_cur < limit.rlim_max
            {
                limit.rlim_cur = limit.rlim_max;
                // Refused (macOS caps it lower): the soft limit stays as it was.
                let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn auto_prefers_a_valid_plain_header() {
        // A plain record of length 0x9c78 starts with the bytes of a zlib header.
        let len = 0x9c78u64.to_le_bytes();
        let mut plain = len.to_vec();
        plain.extend_from_slice(&crate::crc::masked_crc32c(&len).to_le_bytes());
        assert_eq!(compress::sniff(&plain), Some(Compression::Zlib));
        assert_eq!(choose(&plain, Mode::Auto), None);
        assert_eq!(choose(&zlib(b"x"), Mode::Auto), Some(Compression::Zlib));
        assert_eq!(choose(&zlib(b"x"), Mode::None), None);
        assert_eq!(choose(b"", Mode::Auto), None);
    }
}
