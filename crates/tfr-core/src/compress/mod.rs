//! Compressed TFRecord files: detection and bounded decompression.
//!
//! TensorFlow writes a whole file through GZIP, ZLIB or SNAPPY when
//! `TFRecordOptions(compression_type=...)` is set, so the frames live in the decompressed stream and every offset TensorFlow reports is an
//! offset into that stream. This module turns such a file's bytes into its decompressed stream,
//! written to any [`Write`] (the source module spills it to a temporary file), and says where and
//! why the stream is damaged the way TensorFlow's reader would see it.
//!
//! Decoding drives zlib's inflate call by call, so it knows exactly how many compressed bytes it
//! consumed: when a stream is cut off or corrupt, the prefix decoded so far is kept (its records
//! are still good) and the problem is reported with the compressed offset where decoding stopped.
//! Output passes through one fixed-size buffer and never beyond a caller-given limit, so a
//! decompression bomb ends in a clear error instead of exhausting memory; no allocation is ever
//! sized from a length read out of the input. SNAPPY files are sequences of blocks, read by
//! `snappy` under the same limit and reported the same way.

use std::fmt;
use std::io::Write;
use std::str::FromStr;

use flate2::{Decompress, FlushDecompress, Status};

use crate::words::plural;

mod snappy;
pub use snappy::{BLOCK_LIMIT as SNAPPY_BLOCK_LIMIT, OversizedBlock};

/// How an input is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    Gzip,
    Zlib,
    /// TensorFlow's own block format (see `snappy`), not snappy's framing format.
    Snappy,
}

impl Compression {
    /// The name TensorFlow uses in `compression_type=`.
    pub fn tensorflow_name(self) -> &'static str {
        match self {
            Compression::Gzip => "GZIP",
            Compression::Zlib => "ZLIB",
            Compression::Snappy => "SNAPPY",
        }
    }

    /// The lower-case name used in JSON output and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zlib => "zlib",
            Compression::Snappy => "snappy",
        }
    }
}

/// What the user asked for: detect, or force a reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Plain unless the first frame header is invalid and the bytes start like GZIP, ZLIB or
    /// SNAPPY (the reader of the input decides; see [`sniff`]).
    #[default]
    Auto,
    /// Read the bytes as they are (the way TensorFlow does without `compression_type`).
    None,
    Gzip,
    Zlib,
    Snappy,
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Mode::Auto),
            "none" | "" => Ok(Mode::None),
            "gzip" => Ok(Mode::Gzip),
            "zlib" => Ok(Mode::Zlib),
            "snappy" => Ok(Mode::Snappy),
            other => Err(format!(
                "unknown compression {other:?} (expected auto, none, gzip, zlib or snappy)"
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

/// What went wrong in a compressed stream after some of it decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamProblemKind {
    /// The compressed data ends before the stream does.
    Truncated,
    /// The deflate data or a gzip header is invalid.
    Corrupt,
    /// The stream decoded but its gzip CRC-32 / size trailer (or zlib Adler-32) does not match.
    ChecksumMismatch,
    /// Bytes after the end of a gzip member that are not another member.
    TrailingBytes,
    /// A SNAPPY block larger than this reader holds ([`SNAPPY_BLOCK_LIMIT`]).
    BlockTooLarge,
}

impl StreamProblemKind {
    pub fn name(self) -> &'static str {
        match self {
            StreamProblemKind::Truncated => "compressed_stream_truncated",
            StreamProblemKind::Corrupt => "compressed_stream_corrupt",
            StreamProblemKind::ChecksumMismatch => "compressed_checksum_mismatch",
            StreamProblemKind::TrailingBytes => "compressed_trailing_bytes",
            StreamProblemKind::BlockTooLarge => "compressed_block_too_large",
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
    /// The error TensorFlow's reader fails with here, when it fails (it reads a cut-off stream
    /// up to the cut without an error).
    pub tensorflow_message: Option<String>,
}

impl fmt::Display for StreamProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at compressed byte {} (after {} decompressed bytes, which are kept and indexed)",
            self.detail, self.compressed_offset, self.decompressed_offset
        )?;
        if let Some(message) = &self.tensorflow_message {
            write!(f, "; TensorFlow reports \"{message}\"")?;
        }
        Ok(())
    }
}

/// Bytes after the end of the compressed stream that TensorFlow's reader skips without an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredTail {
    /// Where they start in the compressed file.
    pub compressed_offset: u64,
    pub len: u64,
    /// Why TensorFlow does not read them.
    pub reason: IgnoredReason,
}

/// Why TensorFlow's reader skips the bytes of an [`IgnoredTail`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IgnoredReason {
    /// They follow a complete ZLIB stream.
    AfterZlibStream,
    /// They start a GZIP member that ends before producing any data.
    EmptyGzipMember,
}

impl fmt::Display for IgnoredReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IgnoredReason::AfterZlibStream => {
                "TensorFlow's ZLIB reader stops at the end of the stream"
            }
            IgnoredReason::EmptyGzipMember => {
                "they start another GZIP member that ends before any data, which TensorFlow's reader skips"
            }
        })
    }
}

impl fmt::Display for IgnoredTail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} after the end of the compressed stream (from compressed byte {}) ignored: {}",
            plural(self.len, "byte"),
            self.compressed_offset,
            self.reason
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
    /// Trailing bytes TensorFlow ignores (not damage, but worth a note).
    pub ignored: Option<IgnoredTail>,
    /// The first SNAPPY block TensorFlow's reader cannot hold (not damage, but worth a note).
    pub oversized: Option<OversizedBlock>,
}

impl Compressed {
    /// `GZIP-compressed, 2369 bytes on disk (8.478x)`, for summaries.
    pub fn describe(&self, decompressed_len: u64) -> String {
        describe(self.compression, self.compressed_len, decompressed_len)
    }

    /// Decompressed size divided by compressed size.
    pub fn ratio(&self, decompressed_len: u64) -> f64 {
        if self.compressed_len == 0 {
            return 0.0;
        }
        decompressed_len as f64 / self.compressed_len as f64
    }
}

/// `GZIP-compressed, 120 bytes on disk (2.5x)`: a stream of `compressed_len` bytes that holds
/// `decompressed_len`.
pub fn describe(compression: Compression, compressed_len: u64, decompressed_len: u64) -> String {
    let ratio = match compressed_len {
        0 => 0.0,
        n => decompressed_len as f64 / n as f64,
    };
    format!(
        "{}-compressed, {compressed_len} bytes on disk ({}x)",
        compression.tensorflow_name(),
        crate::words::short(ratio)
    )
}

/// Decoding stopped because the output would pass the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "decompressed {} stream exceeds the limit of {limit} bytes",
    compression.tensorflow_name()
)]
pub struct LimitExceeded {
    pub compression: Compression,
    pub limit: u64,
    pub compressed_offset: u64,
}

/// Why decoding stopped before the end of the input.
#[derive(Debug, thiserror::Error)]
pub enum Stopped {
    #[error(transparent)]
    Limit(#[from] LimitExceeded),
    /// The writer refused the output (a full disk, for a spilled stream).
    #[error("cannot store the decompressed stream: {0}")]
    Write(#[from] std::io::Error),
}

/// What decoding a whole compressed input found, its output having gone to a writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Decompressed bytes written.
    pub len: u64,
    pub problem: Option<StreamProblem>,
    pub ignored: Option<IgnoredTail>,
    pub oversized: Option<OversizedBlock>,
}

/// The result of decoding a whole compressed input into memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub bytes: Vec<u8>,
    pub problem: Option<StreamProblem>,
    pub ignored: Option<IgnoredTail>,
    pub oversized: Option<OversizedBlock>,
}

/// Which compression the first bytes announce, if any: a first SNAPPY block that decodes to a
/// valid frame header (when `data` holds all of it: see [`snappy_first_block_span`]), a full gzip
/// magic, or a valid zlib header without a preset dictionary.
/// [`sniff`] over a stream read by range: only its first bytes, as many as detection looks at
/// (a few, or SNAPPY's first block when the first four bytes give it a plausible length).
pub fn sniff_start<S: crate::bytes::ByteSource + ?Sized>(data: &S) -> Option<Compression> {
    use crate::bytes::read_up_to;
    use crate::span::FileOffset;
    let head = read_up_to(data, FileOffset::ZERO, 16).ok()?;
    match snappy::first_block_span(head) {
        Some(span) => sniff(read_up_to(data, FileOffset::ZERO, span as u64).ok()?),
        None => sniff(head),
    }
}

pub fn sniff(data: &[u8]) -> Option<Compression> {
    if snappy::sniff(data) {
        return Some(Compression::Snappy);
    }
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

/// How many leading bytes [`sniff`] needs to judge `data` as SNAPPY (its whole first block),
/// when its first four bytes are a plausible block length.
pub fn snappy_first_block_span(data: &[u8]) -> Option<usize> {
    snappy::first_block_span(data)
}

/// Decodes `data` as `compression` into memory, producing at most `limit` bytes.
pub fn decompress(
    data: &[u8],
    compression: Compression,
    limit: u64,
) -> Result<Decoded, LimitExceeded> {
    let mut bytes = Vec::new();
    let outcome = match decompress_into(data, compression, limit, &mut bytes) {
        Ok(outcome) => outcome,
        Err(Stopped::Limit(e)) => return Err(e),
        // Writing to a Vec cannot fail; should it, the output so far is all there is.
        Err(Stopped::Write(_)) => Outcome {
            len: bytes.len() as u64,
            problem: None,
            ignored: None,
            oversized: None,
        },
    };
    Ok(Decoded {
        bytes,
        problem: outcome.problem,
        ignored: outcome.ignored,
        oversized: outcome.oversized,
    })
}

/// Decodes `data` as `compression`, writing at most `limit` bytes to `out`, the way
/// TensorFlow's `ZlibInputStream` reads it.
///
/// TensorFlow runs zlib's inflate (window bits 16+15 for GZIP, 15 for ZLIB); after the end of a
/// GZIP member it resets and goes on with the next byte (concatenated members), while after the
/// end of a ZLIB stream it reads nothing more. So bytes after a GZIP member must be another
/// member (two zero bytes fail with "incorrect header check"), bytes after a ZLIB stream are
/// ignored, and so is an incomplete trailing member that has produced no output yet. The same
/// inflate implementation (zlib-rs) gives the same verdicts and messages: header CRC (FHCRC),
/// data CRC and length are all checked by it.
pub fn decompress_into(
    data: &[u8],
    compression: Compression,
    limit: u64,
    out: &mut impl Write,
) -> Result<Outcome, Stopped> {
    if compression == Compression::Snappy {
        return snappy::decompress_into(data, limit, out);
    }
    let mut sink = Sink {
        out,
        len: 0,
        limit,
        compression,
        chunk: vec![0; CHUNK],
    };
    let mut pos = 0usize;
    let mut members = 0usize;
    loop {
        let member = data.get(pos..).unwrap_or_default();
        let end = inflate_member(member, pos as u64, compression, &mut sink)?;
        match end {
            MemberEnd::Complete { used }
                if compression == Compression::Gzip && used < member.len() =>
            {
                // TensorFlow resets inflate and reads on: the next bytes must be a member too.
                pos = pos.saturating_add(used.max(1));
                members += 1;
            }
            end => {
                let place = Place {
                    offset: pos as u64,
                    rest: member.len() as u64,
                    after_members: members,
                    decompressed: sink.len,
                };
                let (problem, ignored) = verdict(end, compression, &place);
                return Ok(Outcome {
                    len: sink.len,
                    problem,
                    ignored,
                    oversized: None,
                });
            }
        }
    }
}

/// Where the last member decoded began.
struct Place {
    /// Its offset in the compressed file.
    offset: u64,
    /// Compressed bytes from there to the end of the file.
    rest: u64,
    /// Complete members before it.
    after_members: usize,
    /// Decompressed bytes written in all.
    decompressed: u64,
}

/// What the way the last member ended means: damage (with TensorFlow's error, when it fails),
/// or bytes TensorFlow skips.
fn verdict(
    end: MemberEnd,
    compression: Compression,
    place: &Place,
) -> (Option<StreamProblem>, Option<IgnoredTail>) {
    let problem = |kind, at: u64, detail: String, message: Option<String>| StreamProblem {
        kind,
        compressed_offset: at,
        decompressed_offset: place.decompressed,
        detail,
        tensorflow_message: message,
    };
    let name = compression.tensorflow_name();
    match end {
        MemberEnd::Complete { used } => {
            let used = used as u64;
            let tail = (used < place.rest).then(|| IgnoredTail {
                compressed_offset: place.offset.saturating_add(used),
                len: place.rest - used,
                reason: IgnoredReason::AfterZlibStream,
            });
            (None, tail)
        }
        MemberEnd::Exhausted { produced: 0, .. } if place.after_members > 0 => {
            let tail = IgnoredTail {
                compressed_offset: place.offset,
                len: place.rest,
                reason: IgnoredReason::EmptyGzipMember,
            };
            (None, Some(tail))
        }
        MemberEnd::Exhausted { used, .. } => {
            let detail = "the compressed data ends early (EOF reached; TensorFlow's reader stops there without an error of its own)".to_string();
            let at = place.offset.saturating_add(used);
            let kind = StreamProblemKind::Truncated;
            (Some(problem(kind, at, detail, None)), None)
        }
        MemberEnd::Failed { message, .. }
            if place.after_members > 0 && is_one_of(&message, HEADER) =>
        {
            let detail = format!(
                "{} after the end of the last {name} member are not another member ({message})",
                plural(place.rest, "byte")
            );
            let tf = Some(tensorflow_message(&message));
            let kind = StreamProblemKind::TrailingBytes;
            (Some(problem(kind, place.offset, detail, tf)), None)
        }
        MemberEnd::Failed { used, message } => {
            let kind = if is_one_of(&message, CHECKSUM) {
                StreamProblemKind::ChecksumMismatch
            } else {
                StreamProblemKind::Corrupt
            };
            let detail = format!("corrupt {name} data ({message})");
            let tf = Some(tensorflow_message(&message));
            let at = place.offset.saturating_add(used);
            (Some(problem(kind, at, detail, tf)), None)
        }
    }
}

/// zlib's messages for a header that is not one (what two zero bytes after a member give).
const HEADER: &[&str] = &[
    "incorrect header check",
    "unknown compression method",
    "unknown header flags set",
    "invalid window size",
    "header crc mismatch",
];
/// zlib's messages for a trailer that does not match the data.
const CHECKSUM: &[&str] = &["incorrect data check", "incorrect length check"];

fn is_one_of(message: &str, set: &[&str]) -> bool {
    set.contains(&message)
}

/// The error TensorFlow's `ZlibInputStream::Inflate` returns for a failed inflate call.
fn tensorflow_message(message: &str) -> String {
    if message == NEEDS_DICTIONARY {
        // Z_NEED_DICT carries no message.
        return "inflate() failed with error 2".to_string();
    }
    format!("inflate() failed with error -3: {message}")
}

const NEEDS_DICTIONARY: &str = "the stream needs a preset dictionary";

/// Decompressed bytes produced per inflate call: the only buffer decoding holds.
const CHUNK: usize = 256 << 10;

/// Where output goes, counted against the limit.
struct Sink<'w, W: Write> {
    out: &'w mut W,
    len: u64,
    limit: u64,
    compression: Compression,
    chunk: Vec<u8>,
}

impl<W: Write> Sink<'_, W> {
    /// Writes the first `n` bytes of the chunk, unless they would take the output past the limit
    /// (exactly `limit` bytes are allowed).
    fn emit(&mut self, n: usize, compressed_offset: u64) -> Result<(), Stopped> {
        let len = self.len.saturating_add(n as u64);
        if len > self.limit {
            return Err(Stopped::Limit(LimitExceeded {
                compression: self.compression,
                limit: self.limit,
                compressed_offset,
            }));
        }
        self.out
            .write_all(self.chunk.get(..n).unwrap_or_default())?;
        self.len = len;
        Ok(())
    }
}

/// How one GZIP member (or the ZLIB stream) ended.
enum MemberEnd {
    /// Its end was reached after `used` input bytes.
    Complete { used: usize },
    /// The input ran out inside it.
    Exhausted { used: u64, produced: u64 },
    /// inflate failed with zlib's `message`.
    Failed { used: u64, message: String },
}

/// Inflates one member from the start of `input` (at `base` in the file) into `sink`.
fn inflate_member<W: Write>(
    input: &[u8],
    base: u64,
    compression: Compression,
    sink: &mut Sink<'_, W>,
) -> Result<MemberEnd, Stopped> {
    let mut state = match compression {
        Compression::Gzip => Decompress::new_gzip(15),
        // SNAPPY never reaches inflate (see `decompress_into`).
        Compression::Zlib | Compression::Snappy => Decompress::new(true),
    };
    loop {
        let consumed = state.total_in();
        let produced = state.total_out();
        let rest = usize::try_from(consumed)
            .ok()
            .and_then(|c| input.get(c..))
            .unwrap_or_default();
        let result = state.decompress(rest, &mut sink.chunk, FlushDecompress::None);
        let made = usize::try_from(state.total_out().saturating_sub(produced)).unwrap_or(0);
        sink.emit(made, base.saturating_add(state.total_in()))?;
        let used = state.total_in();
        match result {
            Ok(Status::StreamEnd) => {
                return Ok(MemberEnd::Complete {
                    used: usize::try_from(used).unwrap_or(input.len()),
                });
            }
            Ok(_) if used == consumed && made == 0 => {
                if rest.is_empty() {
                    let produced = state.total_out();
                    return Ok(MemberEnd::Exhausted { used, produced });
                }
                // Input left and room for output, yet no progress: never loop on it.
                let message = "the decoder cannot make progress".to_string();
                return Ok(MemberEnd::Failed { used, message });
            }
            Ok(_) => {}
            Err(e) => {
                let message = if e.needs_dictionary().is_some() {
                    NEEDS_DICTIONARY.to_string()
                } else {
                    e.message().unwrap_or("invalid data").to_string()
                };
                return Ok(MemberEnd::Failed { used, message });
            }
        }
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

        // TensorFlow's reader starts a new member at the zeros and fails on them.
        let mut padded = gzip(b"payload");
        padded.extend_from_slice(&[0; 16]);
        let decoded = decompress(&padded, Compression::Gzip, DEFAULT_LIMIT).unwrap();
        assert_eq!(decoded.bytes, b"payload");
        let problem = decoded.problem.unwrap();
        assert_eq!(problem.kind, StreamProblemKind::TrailingBytes);
        assert_eq!(problem.compressed_offset, n as u64);
        assert_eq!(
            problem.tensorflow_message.as_deref(),
            Some("inflate() failed with error -3: incorrect header check")
        );
    }

    /// A gzip member with the FHCRC flag and a header CRC (low 16 bits of the CRC-32 of the
    /// header bytes before it), plus `flip` xored into that CRC.
    fn gzip_with_header_crc(data: &[u8], flip: u16) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 0x08, 0x02, 0, 0, 0, 0, 0, 0xff];
        let mut crc = flate2::Crc::new();
        crc.update(&out);
        let header_crc = (crc.sum() & 0xffff) as u16 ^ flip;
        out.extend_from_slice(&header_crc.to_le_bytes());
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(data).unwrap();
        out.extend(raw.finish().unwrap());
        let mut crc = flate2::Crc::new();
        crc.update(data);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    /// What TensorFlow 2.21's GZIP and ZLIB readers do with each input (checked with
    /// `tf.data.TFRecordDataset`): `None` reads every record without an error.
    #[test]
    fn stream_verdicts_agree_with_tensorflow() {
        let header_check = Some("inflate() failed with error -3: incorrect header check");
        let with = |mut packed: Vec<u8>, tail: &[u8]| {
            packed.extend_from_slice(tail);
            packed
        };
        let cases: Vec<(&str, Compression, Vec<u8>, Option<&str>)> = vec![
            ("gzip, clean", Compression::Gzip, gzip(b"data"), None),
            (
                "gzip, one zero after",
                Compression::Gzip,
                with(gzip(b"data"), &[0]),
                None,
            ),
            (
                "gzip, two zeros after",
                Compression::Gzip,
                with(gzip(b"data"), &[0, 0]),
                header_check,
            ),
            (
                "gzip, junk after",
                Compression::Gzip,
                with(gzip(b"data"), b"junk"),
                header_check,
            ),
            (
                "gzip, magic only after",
                Compression::Gzip,
                with(gzip(b"data"), &[0x1f, 0x8b, 8]),
                None,
            ),
            (
                "gzip, empty member after",
                Compression::Gzip,
                with(gzip(b"data"), &gzip(b"")),
                None,
            ),
            (
                "gzip, good FHCRC",
                Compression::Gzip,
                gzip_with_header_crc(b"data", 0),
                None,
            ),
            (
                "gzip, wrong FHCRC",
                Compression::Gzip,
                gzip_with_header_crc(b"data", 1),
                Some("inflate() failed with error -3: header crc mismatch"),
            ),
            ("zlib, clean", Compression::Zlib, zlib(b"data"), None),
            (
                "zlib, zeros after",
                Compression::Zlib,
                with(zlib(b"data"), &[0; 16]),
                None,
            ),
            (
                "zlib, junk after",
                Compression::Zlib,
                with(zlib(b"data"), b"junk"),
                None,
            ),
            (
                "zlib, a second stream after",
                Compression::Zlib,
                with(zlib(b"data"), &zlib(b"more")),
                None,
            ),
        ];
        for (name, kind, packed, tensorflow) in cases {
            let decoded = decompress(&packed, kind, DEFAULT_LIMIT).unwrap();
            // A header that fails its CRC gives no data; every other case decodes the member.
            let expected: &[u8] = if name.contains("wrong FHCRC") {
                b""
            } else {
                b"data"
            };
            assert_eq!(decoded.bytes, expected, "{name}");
            let message = decoded
                .problem
                .as_ref()
                .and_then(|p| p.tensorflow_message.as_deref());
            assert_eq!(message, tensorflow, "{name}: {:?}", decoded.problem);
            assert_eq!(decoded.problem.is_some(), tensorflow.is_some(), "{name}");
        }
    }

    #[test]
    fn bytes_tensorflow_skips_are_noted() {
        let packed = gzip(b"data");
        let mut padded = packed.clone();
        padded.push(0);
        let ignored = decompress(&padded, Compression::Gzip, DEFAULT_LIMIT)
            .unwrap()
            .ignored
            .unwrap();
        assert_eq!(ignored.compressed_offset, packed.len() as u64);
        assert_eq!(ignored.len, 1);

        let mut padded = zlib(b"data");
        padded.extend_from_slice(b"junk");
        let ignored = decompress(&padded, Compression::Zlib, DEFAULT_LIMIT)
            .unwrap()
            .ignored
            .unwrap();
        assert_eq!(ignored.len, 4);
        assert!(
            ignored.to_string().contains("4 bytes after the end"),
            "{ignored}"
        );
        assert_eq!(
            decompress(&packed, Compression::Gzip, DEFAULT_LIMIT)
                .unwrap()
                .ignored,
            None
        );
    }

    #[test]
    fn bad_trailers_fail_as_tensorflow_says() {
        for (kind, mut packed, message) in [
            (
                Compression::Gzip,
                gzip(b"payload"),
                "incorrect length check",
            ),
            (Compression::Zlib, zlib(b"payload"), "incorrect data check"),
        ] {
            let n = packed.len();
            packed[n - 1] ^= 1;
            let problem = decompress(&packed, kind, DEFAULT_LIMIT)
                .unwrap()
                .problem
                .unwrap();
            assert_eq!(
                problem.kind,
                StreamProblemKind::ChecksumMismatch,
                "{kind:?}"
            );
            let expected = format!("inflate() failed with error -3: {message}");
            assert_eq!(problem.tensorflow_message, Some(expected));
        }
    }

    #[test]
    fn the_limit_allows_exactly_that_many_bytes() {
        let data = sample();
        let len = data.len() as u64;
        for (kind, packed) in [
            (Compression::Gzip, gzip(&data)),
            (Compression::Zlib, zlib(&data)),
        ] {
            assert_eq!(decompress(&packed, kind, len).unwrap().bytes, data);
            let err = decompress(&packed, kind, len - 1).unwrap_err();
            assert_eq!(err.limit, len - 1, "{kind:?}");
        }
    }

    /// `packed` damaged as a property test draws it: the `flips` XORed in, cut to `cut` bytes
    /// (at least one kept), then `tail` appended.
    pub(super) fn damage(packed: &mut Vec<u8>, flips: Vec<(usize, u8)>, cut: usize, tail: &[u8]) {
        for (at, bits) in flips {
            let at = at % packed.len();
            packed[at] ^= bits;
        }
        packed.truncate(cut.max(1).min(packed.len()));
        packed.extend_from_slice(tail);
    }

    /// The stream every case of the property below damages: 20,000 bytes of the sample, gzipped
    /// and zlibbed once for all cases.
    static PACKED: std::sync::LazyLock<(Vec<u8>, Vec<u8>)> = std::sync::LazyLock::new(|| {
        let data: Vec<u8> = sample().into_iter().take(20_000).collect();
        (gzip(&data), zlib(&data))
    });

    proptest::proptest! {
        /// Damaged streams (flipped, cut and appended bytes) never panic, never pass the limit,
        /// and every offset reported lies inside the input and the output.
        #[test]
        fn damaged_streams_are_bounded_and_located(
            flips in proptest::collection::vec((0usize..4000, 1u8..=255), 0..4),
            cut in 0usize..4000,
            tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..16),
            gzip_kind: bool,
        ) {
            let (gzipped, zlibbed) = &*PACKED;
            let (kind, mut packed) = if gzip_kind {
                (Compression::Gzip, gzipped.clone())
            } else {
                (Compression::Zlib, zlibbed.clone())
            };
            damage(&mut packed, flips, cut, &tail);
            let limit = 15_000;
            match decompress(&packed, kind, limit) {
                Ok(decoded) => {
                    proptest::prop_assert!(decoded.bytes.len() as u64 <= limit);
                    if let Some(p) = &decoded.problem {
                        proptest::prop_assert!(p.compressed_offset <= packed.len() as u64);
                        proptest::prop_assert_eq!(p.decompressed_offset, decoded.bytes.len() as u64);
                    }
                    if let Some(t) = &decoded.ignored {
                        proptest::prop_assert_eq!(t.compressed_offset + t.len, packed.len() as u64);
                    }
                }
                Err(e) => proptest::prop_assert!(e.compressed_offset <= packed.len() as u64),
            }
        }
    }

    #[test]
    fn a_writer_that_fails_stops_decoding() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let packed = gzip(&sample());
        let stopped = decompress_into(&packed, Compression::Gzip, DEFAULT_LIMIT, &mut Full);
        assert!(matches!(stopped, Err(Stopped::Write(_))));
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
