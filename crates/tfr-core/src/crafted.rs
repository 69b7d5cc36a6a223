//! Inputs built to order for tests, here and in the application: well-formed streams, and
//! crafted damage that is costly to index.

use crate::crc::masked_crc32c;
use crate::frame::write_record;

/// Frames `payloads` the way a TFRecord writer does.
pub fn encode_records(payloads: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for payload in payloads {
        // Writing into memory cannot fail.
        let _ = write_record(payload, &mut out);
    }
    out
}

/// Damage, then a header with a valid CRC whose declared frame fits in the file but fails its
/// payload CRC, then `records` intact records of 500 bytes inside that declared extent: the
/// crafted frame costs the resync so much work that a small budget is spent at once.
/// Returns the bytes and the offsets of the intact records.
pub fn budget_exhaustion(records: usize) -> (Vec<u8>, Vec<u64>) {
    let mut data = vec![0xff; 3];
    let body: Vec<Vec<u8>> = (0..records).map(|i| vec![i as u8; 500]).collect();
    let refs: Vec<&[u8]> = body.iter().map(|b| b.as_slice()).collect();
    let stream = encode_records(&refs);
    // Ends 7 bytes into a record three quarters of the way through.
    let declared = (records * 3 / 4 * 516 + 7) as u64;
    data.extend_from_slice(&declared.to_le_bytes());
    data.extend_from_slice(&masked_crc32c(&declared.to_le_bytes()).to_le_bytes());
    let first = data.len() as u64;
    data.extend_from_slice(&stream);
    let offsets = (0..records as u64).map(|i| first + i * 516).collect();
    (data, offsets)
}
