//! GZIP, ZLIB and SNAPPY decoding of arbitrary bytes under a small limit: never more output than
//! the limit, and problem offsets that lie inside the input and the output.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfr_core::compress::{self, Compression, Mode};

const LIMIT: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let _ = tfr_core::source::choose(data, Mode::Auto);
    let _ = compress::snappy_first_block_span(data);
    for kind in [Compression::Gzip, Compression::Zlib, Compression::Snappy] {
        match compress::decompress(data, kind, LIMIT) {
            Ok(decoded) => {
                assert!(decoded.bytes.len() as u64 <= LIMIT);
                if let Some(problem) = decoded.problem {
                    assert!(
                        problem.compressed_offset <= data.len() as u64,
                        "{problem:?}"
                    );
                    assert_eq!(problem.decompressed_offset, decoded.bytes.len() as u64);
                    let _ = problem.to_string();
                }
                if let Some(block) = decoded.oversized {
                    assert!(block.compressed_offset < data.len() as u64, "{block:?}");
                    let _ = block.to_string();
                }
            }
            Err(e) => {
                assert_eq!(e.limit, LIMIT);
                assert!(e.compressed_offset <= data.len() as u64);
            }
        }
    }
});
