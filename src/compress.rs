//! Compressed TFRecord files: detection and bounded decompression.
//!
//! TensorFlow writes a whole file through GZIP or ZLIB when `TFRecordOptions(compression_type=...)`
//! is set, so the frames live in the decompressed stream and every offset TensorFlow reports is an
//! offset into that stream. This module turns such a file into its decompressed bytes, which the
//! frame index then scans like any other stream.
//!
//! The decoding loop is written against `flate2::Decompress` rather than the `Read` adapters so it
//! knows exactly how many compressed bytes it consumed: when a stream is cut off or corrupt, the
//! prefix decoded so far is kept (its records are still good) and the problem is reported with the
//! compressed offset where decoding stopped. Output grows in bounded steps and never beyond a
//! caller-given limit, so a decompression bomb ends in a clear error instead of exhausting memory;
//! no allocation is ever sized from a length read out of the input.

use std::fmt;
use std::str::FromStr;

use std::path::Path;

use flate2::{Crc, Decompress, FlushDecompress, Status};

use crate::error::Error;
use crate::frame::Header;
use crate::source::Source;
use crate::span::FileOffset;

/// How an input is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    Gzip,
    Zlib,
}

impl Compression {
    /// The name TensorFlow uses in `compression_type=`.
    pub fn tensorflow_name(self) -> &'static str {
        match self {
            Compression::Gzip => "GZIP",
            Compression::Zlib => "ZLIB",
        }
    }

    /// The lower-case name used in JSON output and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zlib => "zlib",
        }
    }
}

/// What the user asked for: detect, or force a reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Plain unless the first frame header is invalid and the bytes start like GZIP or ZLIB.
    #[default]
    Auto,
    /// Read the bytes as they are (the way TensorFlow does without `compression_type`).
    None,
    Gzip,
    Zlib,
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Mode::Auto),
            "none" | "" => Ok(Mode::None),
            "gzip" => Ok(Mode::Gzip),
            "zlib" => Ok(Mode::Zlib),
            other => Err(format!(
                "unknown compression {other:?} (expected auto, none, gzip or zlib)"
            )),
        }
    }
}

/// The default ceiling on a decompressed stream: 8 GiB.
pub const DEFAULT_LIMIT: u64 = 8 << 30;

/// Parses a byte count such as `8G`, `512M`, `64K` or `1000` (binary multiples).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, shift) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 10),
        Some((i, 'm' | 'M')) => (&s[..i], 20),
        Some((i, 'g' | 'G')) => (&s[..i], 30),
        Some((i, 't' | 'T')) => (&s[..i], 40),
        _ => (s, 0),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|e| format!("not a byte count: {s:?} ({e})"))?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("byte count too large: {s:?}"))
}

/// How inputs are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    /// Largest decompressed stream accepted, in bytes.
    pub limit: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            mode: Mode::Auto,
            limit: DEFAULT_LIMIT,
        }
    }
}

/// What went wrong in a compressed stream after some of it decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamProblemKind {
    /// The compressed data ends before the stream does.
    Truncated,
    /// The deflate data or a gzip header is invalid.
    Corrupt,
    /// The stream decoded but its gzip CRC-32 / size trailer does not match.
    ChecksumMismatch,
    /// Bytes after the end of the compressed stream that are not another gzip member.
    TrailingBytes,
}

impl StreamProblemKind {
    pub fn name(self) -> &'static str {
        match self {
            StreamProblemKind::Truncated => "compressed_stream_truncated",
            StreamProblemKind::Corrupt => "compressed_stream_corrupt",
            StreamProblemKind::ChecksumMismatch => "compressed_checksum_mismatch",
            StreamProblemKind::TrailingBytes => "compressed_trailing_bytes",
        }
    }
}

/// A problem in the compressed stream itself (as opposed to a damaged frame inside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamProblem {
    pub kind: StreamProblemKind,
    /// How far into the compressed file decoding got.
    pub compressed_offset: u64,
    /// How many decompressed bytes were produced before the problem (all of them are kept).
    pub decompressed_offset: u64,
    pub detail: String,
}

impl fmt::Display for StreamProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at compressed byte {} (after {} decompressed bytes, which are kept and indexed)",
            self.detail, self.compressed_offset, self.decompressed_offset
        )
    }
}

/// Facts about a decompressed input, for summaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compressed {
    pub compression: Compression,
    /// Size of the file on disk.
    pub compressed_len: u64,
    pub problem: Option<StreamProblem>,
}

impl Compressed {
    /// `GZIP-compressed, 2369 bytes on disk (8.48x)`, for summaries.
    pub fn describe(&self, decompressed_len: u64) -> String {
        format!(
            "{}-compressed, {} bytes on disk ({:.2}x)",
            self.compression.tensorflow_name(),
            self.compressed_len,
            self.ratio(decompressed_len)
        )
    }

    /// Decompressed size divided by compressed size.
    pub fn ratio(&self, decompressed_len: u64) -> f64 {
        if self.compressed_len == 0 {
            return 0.0;
        }
        decompressed_len as f64 / self.compressed_len as f64
    }
}

/// Decoding stopped because the output would pass the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "decompressed {compression} stream exceeds the limit of {limit} bytes (use --max-decompressed to raise it)"
)]
pub struct LimitExceeded {
    pub compression: &'static str,
    pub limit: u64,
    pub compressed_offset: u64,
}

/// The result of decoding a whole compressed input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub bytes: Vec<u8>,
    pub problem: Option<StreamProblem>,
}

/// Which compression the first bytes announce, if any (a full gzip magic, or a valid zlib header
/// without a preset dictionary).
pub fn sniff(data: &[u8]) -> Option<Compression> {
    match data {
        [0x1f, 0x8b, 0x08, ..] => Some(Compression::Gzip),
        [cmf, flg, ..]
            if cmf & 0x0f == 8
                && cmf >> 4 <= 7
                && flg & 0x20 == 0
                && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0 =>
        {
            Some(Compression::Zlib)
        }
        _ => None,
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
        Mode::Auto => {
            if Header::read(data, 0).is_some_and(|h| h.crc_ok()) {
                None
            } else {
                sniff(data)
            }
        }
    }
}

/// Decodes `data` as `compression`, producing at most `limit` bytes.
pub fn decompress(
    data: &[u8],
    compression: Compression,
    limit: u64,
) -> Result<Decoded, LimitExceeded> {
    let mut out = Output::new(limit, compression);
    let problem = match compression {
        Compression::Zlib => decode_zlib(data, &mut out)?,
        Compression::Gzip => decode_gzip(data, &mut out)?,
    };
    Ok(Decoded {
        bytes: out.bytes,
        problem,
    })
}

/// Opens `path` read-only and returns the stream to index: the file's own bytes, or its
/// decompressed stream (with [`Source::compression`] set).
///
/// With [`Mode::Auto`], bytes that merely look compressed but yield nothing but a corrupt-data
/// error are read as plain, so their damage is shown frame by frame.
pub fn open(path: &Path, options: &Options) -> Result<Source, Error> {
    let raw = Source::open(path)?;
    let data = raw.bytes();
    let Some(compression) = choose(data, options.mode) else {
        return Ok(raw);
    };
    let decoded = decompress(data, compression, options.limit).map_err(|e| Error::Decompress {
        path: path.to_path_buf(),
        offset: FileOffset(e.compressed_offset),
        message: e.to_string(),
    })?;
    let unreadable = decoded.bytes.is_empty()
        && decoded
            .problem
            .as_ref()
            .is_some_and(|p| p.kind == StreamProblemKind::Corrupt);
    if options.mode == Mode::Auto && unreadable {
        return Ok(raw);
    }
    if unreadable && sniff(data) != Some(compression) {
        // The user forced a compression the file does not start with: a wrong option, not damage.
        return Err(Error::Decompress {
            path: path.to_path_buf(),
            offset: FileOffset(0),
            message: format!(
                "not a {} stream (its first bytes say otherwise); try --compression auto or none",
                compression.tensorflow_name()
            ),
        });
    }
    let info = Compressed {
        compression,
        compressed_len: raw.len(),
        problem: decoded.problem,
    };
    Ok(Source::decompressed(path, decoded.bytes, info))
}

/// Output grows by at most this much per step when it is small.
const MIN_STEP: usize = 64 << 10;

struct Output {
    bytes: Vec<u8>,
    limit: u64,
    compression: Compression,
}

impl Output {
    fn new(limit: u64, compression: Compression) -> Output {
        Output {
            bytes: Vec::new(),
            limit,
            compression,
        }
    }

    /// Makes room for more output without ever holding more than `limit + 1` bytes: one byte past
    /// the limit is how an over-limit stream is recognised.
    fn make_room(&mut self, compressed_offset: u64) -> Result<(), LimitExceeded> {
        let len = self.bytes.len() as u64;
        if len > self.limit {
            return Err(LimitExceeded {
                compression: self.compression.tensorflow_name(),
                limit: self.limit,
                compressed_offset,
            });
        }
        if self.bytes.capacity() > self.bytes.len() {
            return Ok(());
        }
        let ceiling = self.limit.saturating_add(1);
        let wanted = (self.bytes.capacity() as u64)
            .saturating_mul(2)
            .max(len.saturating_add(MIN_STEP as u64))
            .min(ceiling);
        let extra = usize::try_from(wanted.saturating_sub(len)).unwrap_or(MIN_STEP);
        self.bytes.reserve_exact(extra.max(1));
        Ok(())
    }
}

/// Runs raw or zlib-wrapped deflate over `input` until the stream ends.
///
/// Returns how many input bytes were consumed and a problem if the stream did not end cleanly.
fn inflate(
    input: &[u8],
    base: u64,
    zlib_header: bool,
    out: &mut Output,
) -> Result<(usize, Option<StreamProblem>), LimitExceeded> {
    let mut state = Decompress::new(zlib_header);
    let problem = |kind, consumed: u64, out: &Output, detail: String| StreamProblem {
        kind,
        compressed_offset: base + consumed,
        decompressed_offset: out.bytes.len() as u64,
        detail,
    };
    loop {
        let consumed = state.total_in();
        out.make_room(base + consumed)?;
        let rest = usize::try_from(consumed)
            .ok()
            .and_then(|c| input.get(c..))
            .unwrap_or_default();
        let produced_before = state.total_out();
        match state.decompress_vec(rest, &mut out.bytes, FlushDecompress::None) {
            Ok(Status::StreamEnd) => {
                return Ok((
                    usize::try_from(state.total_in()).unwrap_or(input.len()),
                    None,
                ));
            }
            Ok(_) => {
                let stalled = state.total_in() == consumed && state.total_out() == produced_before;
                if stalled && out.bytes.capacity() > out.bytes.len() {
                    let at = state.total_in();
                    let (kind, detail) = if rest.is_empty() {
                        (
                            StreamProblemKind::Truncated,
                            "the compressed data ends early (EOF reached)".to_string(),
                        )
                    } else {
                        (
                            StreamProblemKind::Corrupt,
                            "the deflate decoder cannot make progress".to_string(),
                        )
                    };
                    return Ok((
                        usize::try_from(at).unwrap_or(input.len()),
                        Some(problem(kind, at, out, detail)),
                    ));
                }
            }
            Err(e) => {
                let at = state.total_in();
                let detail = format!("corrupt deflate data ({e})");
                return Ok((
                    usize::try_from(at).unwrap_or(input.len()),
                    Some(problem(StreamProblemKind::Corrupt, at, out, detail)),
                ));
            }
        }
    }
}

fn decode_zlib(data: &[u8], out: &mut Output) -> Result<Option<StreamProblem>, LimitExceeded> {
    let (used, problem) = inflate(data, 0, true, out)?;
    if problem.is_some() {
        return Ok(problem);
    }
    Ok(trailing(data, used, out))
}

/// Reports bytes after the compressed stream, unless they are only zero padding.
fn trailing(data: &[u8], used: usize, out: &Output) -> Option<StreamProblem> {
    let rest = data.get(used..).unwrap_or_default();
    if rest.iter().all(|&b| b == 0) {
        return None;
    }
    Some(StreamProblem {
        kind: StreamProblemKind::TrailingBytes,
        compressed_offset: used as u64,
        decompressed_offset: out.bytes.len() as u64,
        detail: format!(
            "{} bytes after the end of the compressed stream are not part of it",
            rest.len()
        ),
    })
}

/// Where a gzip member header ends, or why it cannot be read (RFC 1952, section 2.3).
fn gzip_header_len(member: &[u8]) -> Result<usize, (StreamProblemKind, String)> {
    let truncated = || {
        (
            StreamProblemKind::Truncated,
            "the compressed data ends inside a gzip header (EOF reached)".to_string(),
        )
    };
    let fixed = member.get(..10).ok_or_else(truncated)?;
    if fixed.get(..3) != Some(&[0x1f, 0x8b, 0x08][..]) {
        return Err((
            StreamProblemKind::Corrupt,
            "not a gzip member header (expected 1f 8b 08)".to_string(),
        ));
    }
    let flags = fixed.get(3).copied().unwrap_or(0);
    if flags & 0xe0 != 0 {
        return Err((
            StreamProblemKind::Corrupt,
            format!("gzip header has reserved flag bits set (0x{flags:02x})"),
        ));
    }
    let mut pos = 10usize;
    if flags & 0x04 != 0 {
        let xlen = member.get(pos..pos + 2).ok_or_else(truncated)?;
        let xlen = usize::from(u16::from_le_bytes(
            xlen.try_into().map_err(|_| truncated())?,
        ));
        pos += 2 + xlen;
    }
    for flag in [0x08, 0x10] {
        if flags & flag != 0 {
            let rest = member.get(pos..).ok_or_else(truncated)?;
            let nul = rest.iter().position(|&b| b == 0).ok_or_else(truncated)?;
            pos += nul + 1;
        }
    }
    if flags & 0x02 != 0 {
        pos += 2;
    }
    if pos > member.len() {
        return Err(truncated());
    }
    Ok(pos)
}

fn decode_gzip(data: &[u8], out: &mut Output) -> Result<Option<StreamProblem>, LimitExceeded> {
    let mut pos = 0usize;
    let mut members = 0usize;
    loop {
        let member = data.get(pos..).unwrap_or_default();
        if members > 0 && (member.is_empty() || !member.starts_with(&[0x1f, 0x8b])) {
            return Ok(trailing(data, pos, out));
        }
        let header = match gzip_header_len(member) {
            Ok(len) => len,
            Err((kind, detail)) => {
                return Ok(Some(StreamProblem {
                    kind,
                    compressed_offset: pos as u64,
                    decompressed_offset: out.bytes.len() as u64,
                    detail,
                }));
            }
        };
        let start_out = out.bytes.len();
        let body = member.get(header..).unwrap_or_default();
        let (used, problem) = inflate(body, (pos + header) as u64, false, out)?;
        if problem.is_some() {
            return Ok(problem);
        }
        let trailer_at = pos + header + used;
        let Some(trailer) = data.get(trailer_at..trailer_at + 8) else {
            return Ok(Some(StreamProblem {
                kind: StreamProblemKind::Truncated,
                compressed_offset: data.len() as u64,
                decompressed_offset: out.bytes.len() as u64,
                detail: "the compressed data ends inside a gzip trailer (EOF reached)".into(),
            }));
        };
        let mut crc = Crc::new();
        crc.update(out.bytes.get(start_out..).unwrap_or_default());
        let stored_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let stored_size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        let size = (out.bytes.len() - start_out) as u32;
        if stored_crc != crc.sum() || stored_size != size {
            return Ok(Some(StreamProblem {
                kind: StreamProblemKind::ChecksumMismatch,
                compressed_offset: trailer_at as u64,
                decompressed_offset: out.bytes.len() as u64,
                detail: format!(
                    "gzip member trailer does not match its data (stored CRC-32 0x{stored_crc:08x}, size {stored_size}; computed 0x{:08x}, size {size})",
                    crc.sum()
                ),
            }));
        }
        pos = trailer_at + 8;
        members += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn sample() -> Vec<u8> {
        (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect()
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("x").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn gzip_and_zlib_round_trip() {
        let data = sample();
        for (kind, packed) in [
            (Compression::Gzip, gzip(&data)),
            (Compression::Zlib, zlib(&data)),
        ] {
            assert_eq!(sniff(&packed), Some(kind));
            let decoded = decompress(&packed, kind, DEFAULT_LIMIT).unwrap();
            assert_eq!(decoded.problem, None, "{kind:?}");
            assert_eq!(decoded.bytes, data);
        }
    }

    #[test]
    fn concatenated_gzip_members_are_all_decoded() {
        let mut packed = gzip(b"first member ");
        packed.extend(gzip(b"second member"));
        let decoded = decompress(&packed, Compression::Gzip, DEFAULT_LIMIT).unwrap();
        assert_eq!(decoded.problem, None);
        assert_eq!(decoded.bytes, b"first member second member");
    }

    #[test]
    fn truncation_keeps_the_prefix_and_says_where() {
        let data = sample();
        for (kind, packed) in [
            (Compression::Gzip, gzip(&data)),
            (Compression::Zlib, zlib(&data)),
        ] {
            let cut = &packed[..packed.len() / 2];
            let decoded = decompress(cut, kind, DEFAULT_LIMIT).unwrap();
            let problem = decoded.problem.unwrap();
            assert_eq!(problem.kind, StreamProblemKind::Truncated, "{kind:?}");
            assert_eq!(problem.compressed_offset, cut.len() as u64);
            assert!(!decoded.bytes.is_empty());
            assert_eq!(problem.decompressed_offset, decoded.bytes.len() as u64);
            assert!(data.starts_with(&decoded.bytes));
        }
    }

    #[test]
    fn a_cut_in_the_gzip_trailer_is_truncation() {
        let packed = gzip(b"hello");
        let decoded = decompress(
            &packed[..packed.len() - 3],
            Compression::Gzip,
            DEFAULT_LIMIT,
        )
        .unwrap();
        assert_eq!(decoded.bytes, b"hello");
        assert_eq!(decoded.problem.unwrap().kind, StreamProblemKind::Truncated);
    }

    #[test]
    fn corrupt_deflate_data_is_reported_not_fatal() {
        let mut packed = zlib(&sample());
        packed[40] ^= 0xff;
        packed[41] ^= 0xff;
        let decoded = decompress(&packed, Compression::Zlib, DEFAULT_LIMIT).unwrap();
        let problem = decoded.problem.unwrap();
        assert!(matches!(
            problem.kind,
            StreamProblemKind::Corrupt | StreamProblemKind::ChecksumMismatch
        ));
    }

    #[test]
    fn gzip_checksum_and_trailing_bytes_are_checked() {
        let mut packed = gzip(b"payload");
        let n = packed.len();
        packed[n - 8] ^= 1;
        let decoded = decompress(&packed, Compression::Gzip, DEFAULT_LIMIT).unwrap();
        assert_eq!(
            decoded.problem.unwrap().kind,
            StreamProblemKind::ChecksumMismatch
        );

        let mut packed = gzip(b"payload");
        packed.extend_from_slice(b"junk");
        let decoded = decompress(&packed, Compression::Gzip, DEFAULT_LIMIT).unwrap();
        assert_eq!(decoded.bytes, b"payload");
        let problem = decoded.problem.unwrap();
        assert_eq!(problem.kind, StreamProblemKind::TrailingBytes);
        assert_eq!(problem.compressed_offset, n as u64);

        let mut padded = gzip(b"payload");
        padded.extend_from_slice(&[0; 16]);
        assert_eq!(
            decompress(&padded, Compression::Gzip, DEFAULT_LIMIT)
                .unwrap()
                .problem,
            None
        );
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        let zeros = vec![0u8; 4 << 20];
        for (kind, packed) in [
            (Compression::Gzip, gzip(&zeros)),
            (Compression::Zlib, zlib(&zeros)),
        ] {
            let err = decompress(&packed, kind, 1 << 20).unwrap_err();
            assert_eq!(err.limit, 1 << 20);
            // Exactly at the limit is fine.
            assert!(decompress(&packed, kind, 4 << 20).is_ok());
        }
    }

    #[test]
    fn auto_prefers_a_valid_plain_header() {
        // A plain record of length 0x9c78 starts with the bytes of a zlib header.
        let len = 0x9c78u64.to_le_bytes();
        let mut plain = len.to_vec();
        plain.extend_from_slice(&crate::crc::masked_crc32c(&len).to_le_bytes());
        assert_eq!(sniff(&plain), Some(Compression::Zlib));
        assert_eq!(choose(&plain, Mode::Auto), None);
        assert_eq!(choose(&zlib(b"x"), Mode::Auto), Some(Compression::Zlib));
        assert_eq!(choose(&gzip(b"x"), Mode::None), None);
        assert_eq!(choose(b"", Mode::Auto), None);
    }

    #[test]
    fn garbage_gzip_headers_do_not_panic() {
        for input in [
            &[0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0, 0xff][..],
            &[0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1][..],
            &[0x1f, 0x8b, 0x08, 0x18, 0, 0, 0, 0, 0, 0, b'a'][..],
            &[0x1f, 0x8b, 0x08, 0x02, 0, 0, 0, 0, 0, 0][..],
            &[0x1f, 0x8b][..],
            &[0x1f, 0x8b, 0x08, 0xe0, 0, 0, 0, 0, 0, 0][..],
        ] {
            let decoded = decompress(input, Compression::Gzip, 1 << 20).unwrap();
            assert!(decoded.problem.is_some(), "{input:?}");
        }
    }
}
