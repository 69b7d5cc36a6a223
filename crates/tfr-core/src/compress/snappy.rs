//! TensorFlow's SNAPPY files: a sequence of blocks, each bounded before anything is allocated.
//!
//! `TFRecordWriter(options="SNAPPY")` and `Dataset.save(..., compression="SNAPPY")` write through
//! TensorFlow's `SnappyOutputBuffer`, which is neither snappy's framing format nor one raw snappy
//! stream: the file is a sequence of blocks, each a 4-byte big-endian compressed length and then
//! that many bytes of one raw snappy block (which starts with the varint of its decompressed
//! length). The blocks decompressed and joined are an ordinary TFRecord stream; they do not follow
//! records (a frame's header, payload and footer may lie in three blocks).
//!
//! TensorFlow's `SnappyInputBuffer` decompresses a whole block at a time into a buffer of 256 KiB,
//! so it cannot read a block that compresses to more than that or decompresses to more than that,
//! though its own writer writes such blocks for any single record over 256 KiB. This reader holds
//! a block of up to [`BLOCK_LIMIT`] decompressed bytes and notes, without calling it damage, the
//! first block TensorFlow would refuse ([`OversizedBlock`]).
//!
//! Bounds: a block's claimed compressed length is checked against the bytes that are there (a
//! 4 GB length field allocates nothing), and its claimed decompressed length against
//! [`BLOCK_LIMIT`], against what snappy can expand its compressed bytes to, and against what is
//! left of the caller's limit on the whole stream, before its buffer is sized; the one buffer is
//! reused from block to block.

use std::fmt;
use std::io::Write;

use super::{Compression, LimitExceeded, Outcome, Stopped, StreamProblem, StreamProblemKind};
use crate::frame::{HEADER_LEN, Header};
use crate::span::FileOffset;

/// The most a block may decompress to here: 256 times what TensorFlow's reader holds.
pub const BLOCK_LIMIT: usize = 64 << 20;

/// The buffers of TensorFlow's `SnappyInputBuffer` as `TFRecordDataset` sets them up (input and
/// output alike).
pub const TENSORFLOW_BUFFER: u64 = 256 << 10;

/// Bytes of the length that precedes each block.
const LENGTH_LEN: usize = 4;

/// Snappy's densest element, a 3-byte copy of 64 bytes, expands 21.3 times: a block claiming
/// more than this many times its compressed size cannot be valid, and is refused before its
/// buffer is allocated.
const MAX_EXPANSION: u64 = 22;

/// The largest first block detection decodes: TensorFlow's writer compresses what its 256 KiB
/// input buffer holds, and the first thing it buffers (a frame header) always fits, so its first
/// block never decompresses to more.
const SNIFF_LIMIT: usize = 1 << 20;

/// A block TensorFlow's own reader cannot read (its buffers are too small), read here all the
/// same. Not damage: TensorFlow's writer writes such blocks for any record over 256 KiB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OversizedBlock {
    /// The block's number, from 0.
    pub index: u64,
    /// Where its length field starts in the compressed file.
    pub compressed_offset: u64,
    /// Its compressed bytes (after the length field).
    pub compressed_len: u64,
    pub decompressed_len: u64,
}

impl OversizedBlock {
    /// The error TensorFlow's `SnappyInputBuffer` fails with at this block.
    pub fn tensorflow_message(&self) -> String {
        if self.compressed_len > TENSORFLOW_BUFFER {
            too_small("Input", self.compressed_len)
        } else {
            too_small("Output", self.decompressed_len)
        }
    }
}

impl fmt::Display for OversizedBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SNAPPY block {} at compressed byte {} ({} bytes compressed, {} decompressed) is larger than the {TENSORFLOW_BUFFER}-byte buffers of TensorFlow's reader, which fails there with ResourceExhaustedError \"{}\" (its writer writes such a block for any record over 256 KiB); read here all the same",
            self.index,
            self.compressed_offset,
            self.compressed_len,
            self.decompressed_len,
            self.tensorflow_message()
        )
    }
}

/// How many bytes from the start of `data` detection needs to see the whole first block, when
/// its length field is plausible (nonzero, and no longer than a first block TensorFlow writes
/// compresses to).
pub fn first_block_span(data: &[u8]) -> Option<usize> {
    let len = block_length(data, 0)?;
    let len = usize::try_from(len).ok()?;
    (len > 0 && len <= snap::raw::max_compress_len(SNIFF_LIMIT)).then_some(len + LENGTH_LEN)
}

/// Whether `data` starts like a TensorFlow SNAPPY file: its first block is all there, decodes,
/// and begins with a valid frame header.
pub fn sniff(data: &[u8]) -> bool {
    let Some(span) = first_block_span(data) else {
        return false;
    };
    let Some(block) = data.get(LENGTH_LEN..span) else {
        return false;
    };
    let plain = match snap::raw::decompress_len(block) {
        Ok(plain) if plain >= HEADER_LEN as usize && plain <= SNIFF_LIMIT => plain,
        _ => return false,
    };
    let mut out = vec![0; plain];
    snap::raw::Decoder::new()
        .decompress(block, &mut out)
        .is_ok_and(|_| Header::read(&out, FileOffset::ZERO).is_some_and(|h| h.crc_ok()))
}

/// The big-endian length field at `at`, when all four bytes are there.
fn block_length(data: &[u8], at: usize) -> Option<u32> {
    let field = data.get(at..at.checked_add(LENGTH_LEN)?)?;
    Some(u32::from_be_bytes(field.try_into().ok()?))
}

/// Decodes `data` block by block the way TensorFlow's `SnappyInputBuffer` reads it, writing at
/// most `limit` bytes to `out`. The blocks before a damaged one are kept; the problem names the
/// compressed offset of the damaged block's length field, and TensorFlow's error there.
pub fn decompress_into(data: &[u8], limit: u64, out: &mut impl Write) -> Result<Outcome, Stopped> {
    decode(data, limit, BLOCK_LIMIT, out)
}

/// [`decompress_into`] with a block limit of the caller's (tests use a small one).
fn decode(
    data: &[u8],
    limit: u64,
    block_limit: usize,
    out: &mut impl Write,
) -> Result<Outcome, Stopped> {
    let mut decoder = snap::raw::Decoder::new();
    let mut buffer = Vec::new();
    let mut written = 0u64;
    let mut oversized = None;
    let mut pos = 0usize;
    let mut index = 0u64;
    while pos < data.len() {
        let at = pos as u64;
        let stop = |problem: BlockProblem| Outcome {
            len: written,
            problem: Some(StreamProblem {
                kind: problem.kind,
                compressed_offset: at,
                decompressed_offset: written,
                detail: problem.detail,
                tensorflow_message: problem.tensorflow,
            }),
            ignored: None,
            oversized: oversized.clone(),
        };
        let (len, block) = match next_block(data, pos, index) {
            Ok(found) => found,
            Err(problem) => return Ok(stop(problem)),
        };
        let plain = match claimed_len(block, len, index, block_limit) {
            Ok(plain) => plain,
            Err(problem) => return Ok(stop(problem)),
        };
        // The stream limit is the caller's: passing it stops the read, it is not damage.
        if written.saturating_add(plain) > limit {
            return Err(Stopped::Limit(LimitExceeded {
                compression: Compression::Snappy,
                limit,
                compressed_offset: at,
            }));
        }
        // Bounded above by the block limit, so this fits in usize.
        buffer.resize(plain as usize, 0);
        if let Err(e) = decoder.decompress(block, &mut buffer) {
            let why = e.to_string();
            return Ok(stop(corrupt(index, len, why, "Snappy_Uncompress failed")));
        }
        if oversized.is_none() && (len > TENSORFLOW_BUFFER || plain > TENSORFLOW_BUFFER) {
            oversized = Some(OversizedBlock {
                index,
                compressed_offset: at,
                compressed_len: len,
                decompressed_len: plain,
            });
        }
        out.write_all(&buffer)?;
        written = written.saturating_add(plain);
        pos = pos.saturating_add(LENGTH_LEN).saturating_add(block.len());
        index += 1;
    }
    Ok(Outcome {
        len: written,
        problem: None,
        ignored: None,
        oversized,
    })
}

/// Why block decoding stopped at a block: the problem's kind and wording, and the error
/// TensorFlow's reader fails with there, if it fails.
struct BlockProblem {
    kind: StreamProblemKind,
    detail: String,
    tensorflow: Option<String>,
}

/// The block whose length field starts at `pos` (`pos` is inside `data`): the length the field
/// gives and the compressed bytes, when they are all there.
fn next_block(data: &[u8], pos: usize, index: u64) -> Result<(u64, &[u8]), BlockProblem> {
    let rest = data.len() - pos;
    let Some(len) = block_length(data, pos) else {
        return Err(BlockProblem {
            kind: StreamProblemKind::Truncated,
            detail: format!(
                "the compressed data ends inside the 4-byte length of SNAPPY block {index} ({rest} of its bytes are there; TensorFlow's reader stops there without an error of its own)"
            ),
            tensorflow: None,
        });
    };
    let len = u64::from(len);
    let start = pos + LENGTH_LEN;
    let there = (rest - LENGTH_LEN) as u64;
    if len > there {
        let tensorflow = if len > TENSORFLOW_BUFFER {
            too_small("Input", len)
        } else {
            format!("Failed to read {len} bytes from file. Possible data corruption.")
        };
        return Err(BlockProblem {
            kind: StreamProblemKind::Truncated,
            detail: format!(
                "the compressed data ends inside SNAPPY block {index}, whose length field gives {len} bytes where {there} remain"
            ),
            tensorflow: Some(tensorflow),
        });
    }
    // At most the bytes that are there, so this fits in usize.
    let end = start.saturating_add(len as usize);
    Ok((len, data.get(start..end).unwrap_or_default()))
}

/// The decompressed length `block` claims, refused before any buffer is sized when snappy
/// cannot expand its `len` compressed bytes that far or it passes `block_limit`.
fn claimed_len(
    block: &[u8],
    len: u64,
    index: u64,
    block_limit: usize,
) -> Result<u64, BlockProblem> {
    const NO_LENGTH: &str = "Parsing error in Snappy_GetUncompressedLength";
    let plain = match snap::raw::decompress_len(block) {
        Ok(plain) if !block.is_empty() => plain as u64,
        Ok(_) => {
            let why = "an empty block, with no decompressed length".into();
            return Err(corrupt(index, len, why, NO_LENGTH));
        }
        Err(e) => return Err(corrupt(index, len, e.to_string(), NO_LENGTH)),
    };
    if plain > len.saturating_mul(MAX_EXPANSION) {
        let why = format!(
            "it claims {plain} decompressed bytes, more than snappy can expand {len} bytes to"
        );
        return Err(corrupt(index, len, why, "Snappy_Uncompress failed"));
    }
    if plain > block_limit as u64 {
        return Err(BlockProblem {
            kind: StreamProblemKind::BlockTooLarge,
            detail: format!(
                "SNAPPY block {index} decompresses to {plain} bytes, more than the {block_limit} a block may hold here"
            ),
            tensorflow: Some(too_small("Output", plain)),
        });
    }
    Ok(plain)
}

/// Block `index` of `len` compressed bytes is no valid snappy block, for reason `why`.
fn corrupt(index: u64, len: u64, why: String, tensorflow: &str) -> BlockProblem {
    BlockProblem {
        kind: StreamProblemKind::Corrupt,
        detail: format!(
            "corrupt SNAPPY block {index} ({len} compressed bytes after its length field): {why}"
        ),
        tensorflow: Some(tensorflow.into()),
    }
}

/// TensorFlow's message for a block larger than one of its buffers.
fn too_small(which: &str, needed: u64) -> String {
    format!(
        "{which} buffer(size: {TENSORFLOW_BUFFER} bytes) too small. Should be larger than {needed} bytes."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::{Decoded, decompress};

    /// TensorFlow's framing of `chunks`: each compressed as one raw snappy block behind its
    /// big-endian length.
    fn blocks(chunks: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in chunks {
            let block = snap::raw::Encoder::new().compress_vec(chunk).unwrap();
            out.extend_from_slice(&(block.len() as u32).to_be_bytes());
            out.extend_from_slice(&block);
        }
        out
    }

    fn records(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for payload in payloads {
            crate::frame::write_record(payload, &mut out).unwrap();
        }
        out
    }

    fn read(data: &[u8]) -> Decoded {
        decompress(data, Compression::Snappy, crate::compress::DEFAULT_LIMIT).unwrap()
    }

    fn problem(data: &[u8]) -> StreamProblem {
        read(data).problem.expect("a problem")
    }

    #[test]
    fn blocks_that_cut_records_anywhere_join_into_the_stream() {
        let stream = records(&[b"first", &[7; 1000], b""]);
        // Cut as TensorFlow's writer does: header, payload, footer in blocks of their own.
        let (a, rest) = stream.split_at(12);
        let (b, c) = rest.split_at(500);
        let packed = blocks(&[a, b, c]);
        assert!(sniff(&packed));
        assert_eq!(crate::compress::sniff(&packed), Some(Compression::Snappy));
        let decoded = read(&packed);
        assert_eq!(decoded.problem, None);
        assert_eq!(decoded.oversized, None);
        assert_eq!(decoded.bytes, stream);
    }

    #[test]
    fn detection_wants_a_first_block_that_decodes_to_a_frame_header() {
        let stream = records(&[b"payload"]);
        assert!(!sniff(&stream), "a plain file");
        assert!(!sniff(&blocks(&[b"not a frame header at all"])));
        let packed = blocks(&[&stream]);
        assert!(!sniff(&packed[..packed.len() - 1]), "first block cut");
        assert_eq!(first_block_span(&packed), Some(packed.len()));
        // A length field of 4 GB, or of nothing, is not even read further.
        assert_eq!(first_block_span(&[0xff, 0xff, 0xff, 0xff, 1]), None);
        assert_eq!(first_block_span(&[0, 0, 0, 0, 1]), None);
        assert!(!sniff(b""));
        let mut corrupt = packed.clone();
        corrupt[6] ^= 0xff;
        assert!(!sniff(&corrupt));
    }

    #[test]
    fn a_huge_length_field_is_a_cut_allocating_nothing() {
        let first = blocks(&[&records(&[b"kept"])]);
        let mut packed = first.clone();
        packed.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]);
        let decoded = read(&packed);
        assert_eq!(
            decoded.bytes,
            records(&[b"kept"]),
            "the blocks before are kept"
        );
        let p = decoded.problem.unwrap();
        assert_eq!(p.kind, StreamProblemKind::Truncated);
        assert_eq!(p.compressed_offset, first.len() as u64);
        assert_eq!(p.decompressed_offset, decoded.bytes.len() as u64);
        assert_eq!(
            p.tensorflow_message.as_deref(),
            Some(
                "Input buffer(size: 262144 bytes) too small. Should be larger than 4294967295 bytes."
            )
        );
        assert!(
            p.detail.contains("gives 4294967295 bytes where 3 remain"),
            "{p}"
        );
    }

    #[test]
    fn a_block_cut_short_is_named_with_its_offset() {
        let stream = records(&[b"one", b"two"]);
        let (a, b) = stream.split_at(19);
        let packed = blocks(&[a, b]);
        let second = blocks(&[a]).len() as u64;
        let p = problem(&packed[..packed.len() - 2]);
        assert_eq!(p.kind, StreamProblemKind::Truncated);
        assert_eq!((p.compressed_offset, p.decompressed_offset), (second, 19));
        let len = packed.len() as u64 - second - 4;
        assert_eq!(
            p.tensorflow_message,
            Some(format!(
                "Failed to read {len} bytes from file. Possible data corruption."
            ))
        );
        // Cut inside the length field: TensorFlow stops there without an error of its own.
        let p = problem(&packed[..second as usize + 2]);
        assert_eq!(p.kind, StreamProblemKind::Truncated);
        assert_eq!(p.compressed_offset, second);
        assert_eq!(p.tensorflow_message, None);
        assert!(
            p.detail
                .contains("inside the 4-byte length of SNAPPY block 1"),
            "{p}"
        );
    }

    #[test]
    fn a_corrupt_block_is_named_with_its_offset() {
        let stream = records(&[&[5; 300], &[6; 300]]);
        let (a, b) = stream.split_at(100);
        let packed = blocks(&[a, b]);
        let second = blocks(&[a]).len();
        let mut corrupt = packed.clone();
        // The second block's first tag (after its 4-byte length and 2-byte varint): a copy
        // reaching before the start of the block.
        corrupt[second + 6] = 0x01;
        let decoded = read(&corrupt);
        assert_eq!(decoded.bytes, a);
        let p = decoded.problem.unwrap();
        assert_eq!(p.kind, StreamProblemKind::Corrupt);
        assert_eq!(p.compressed_offset, second as u64);
        assert_eq!(
            p.tensorflow_message.as_deref(),
            Some("Snappy_Uncompress failed")
        );
        assert!(p.to_string().contains("corrupt SNAPPY block 1"), "{p}");
    }

    #[test]
    fn zero_length_blocks_are_corrupt_and_empty_blocks_are_not() {
        let first = blocks(&[&records(&[b"x"])]);
        let mut packed = first.clone();
        packed.extend_from_slice(&[0, 0, 0, 0]);
        let p = problem(&packed);
        assert_eq!(p.kind, StreamProblemKind::Corrupt);
        assert_eq!(p.compressed_offset, first.len() as u64);
        assert_eq!(
            p.tensorflow_message.as_deref(),
            Some("Parsing error in Snappy_GetUncompressedLength")
        );
        // One byte, the varint 0: a block of nothing, which TensorFlow reads as such.
        let mut packed = first.clone();
        packed.extend_from_slice(&[0, 0, 0, 1, 0]);
        packed.extend_from_slice(&first);
        let decoded = read(&packed);
        assert_eq!(decoded.problem, None);
        assert_eq!(decoded.bytes, records(&[b"x", b"x"]));
    }

    #[test]
    fn random_bytes_after_a_valid_block_are_damage_not_skipped() {
        let first = blocks(&[&records(&[b"x"])]);
        for tail in [&b"junk"[..], b"\x00\x00\x00\x02\xff\xff", b"z"] {
            let mut packed = first.clone();
            packed.extend_from_slice(tail);
            let decoded = read(&packed);
            assert_eq!(decoded.bytes, records(&[b"x"]), "{tail:?}");
            let p = decoded.problem.unwrap();
            assert_eq!(p.compressed_offset, first.len() as u64, "{tail:?}");
            assert_eq!(decoded.ignored, None);
        }
    }

    #[test]
    fn a_claimed_length_past_what_snappy_can_expand_to_allocates_nothing() {
        // Ten bytes claiming 60 MiB: refused before the buffer is sized.
        let mut block = vec![0x80, 0x80, 0x80, 0x1e];
        block.extend_from_slice(&[0; 6]);
        let mut packed = (block.len() as u32).to_be_bytes().to_vec();
        packed.extend_from_slice(&block);
        let p = problem(&packed);
        assert_eq!(p.kind, StreamProblemKind::Corrupt);
        assert!(
            p.detail.contains("more than snappy can expand 10 bytes to"),
            "{p}"
        );
    }

    #[test]
    fn a_block_over_the_block_limit_stops_with_the_blocks_before_kept() {
        let first = records(&[b"kept"]);
        let packed = blocks(&[&first, &[0; 5000]]);
        let decoded = decode(&packed, u64::MAX, 4096, &mut Vec::new()).unwrap();
        let p = decoded.problem.unwrap();
        assert_eq!(p.kind, StreamProblemKind::BlockTooLarge);
        assert_eq!(p.compressed_offset, blocks(&[&first]).len() as u64);
        assert_eq!(p.decompressed_offset, first.len() as u64);
        assert_eq!(
            p.tensorflow_message.as_deref(),
            Some("Output buffer(size: 262144 bytes) too small. Should be larger than 5000 bytes.")
        );
        // Exactly the block limit is fine.
        let packed = blocks(&[&[0; 4096]]);
        let decoded = decode(&packed, u64::MAX, 4096, &mut Vec::new()).unwrap();
        assert_eq!((decoded.len, decoded.problem), (4096, None));
    }

    #[test]
    fn the_stream_limit_is_checked_before_a_block_is_decoded() {
        let stream = records(&[&[1; 3000]]);
        let (a, b) = stream.split_at(1000);
        let packed = blocks(&[a, b]);
        let len = stream.len() as u64;
        assert_eq!(
            decompress(&packed, Compression::Snappy, len).unwrap().bytes,
            stream
        );
        let err = decompress(&packed, Compression::Snappy, len - 1).unwrap_err();
        assert_eq!(err.limit, len - 1);
        assert_eq!(err.compressed_offset, blocks(&[a]).len() as u64);
    }

    #[test]
    fn a_block_tensorflow_cannot_hold_is_noted_not_damage() {
        let big = records(&[&vec![3; 300_000]]);
        let packed = blocks(&[&big[..12], &big[12..]]);
        let decoded = read(&packed);
        assert_eq!(decoded.problem, None);
        assert_eq!(decoded.bytes, big);
        let note = decoded.oversized.unwrap();
        assert_eq!((note.index, note.compressed_offset), (1, 4 + 14));
        assert_eq!(note.decompressed_len, 300_004);
        assert_eq!(
            note.tensorflow_message(),
            "Output buffer(size: 262144 bytes) too small. Should be larger than 300004 bytes."
        );
        assert!(
            note.to_string().contains("ResourceExhaustedError"),
            "{note}"
        );
    }

    proptest::proptest! {
        /// Damaged block streams (flipped, cut and appended bytes) never panic, never pass the
        /// limit, and every offset reported lies inside the input and the output.
        #[test]
        fn damaged_blocks_are_bounded_and_located(
            flips in proptest::collection::vec((0usize..4000, 1u8..=255), 0..4),
            cut in 0usize..4000,
            tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..16),
        ) {
            let stream: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
            let mut packed = blocks(&[&stream[..7000], &stream[7000..]]);
            crate::compress::tests::damage(&mut packed, flips, cut, &tail);
            let limit = 15_000;
            match decompress(&packed, Compression::Snappy, limit) {
                Ok(decoded) => {
                    proptest::prop_assert!(decoded.bytes.len() as u64 <= limit);
                    if let Some(p) = &decoded.problem {
                        proptest::prop_assert!(p.compressed_offset < packed.len() as u64);
                        proptest::prop_assert_eq!(p.decompressed_offset, decoded.bytes.len() as u64);
                    }
                }
                Err(e) => proptest::prop_assert!(e.compressed_offset < packed.len() as u64),
            }
        }
    }
}
