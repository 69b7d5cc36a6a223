//! `filter`'s result: how many records were read, matched and written, and what was skipped.

use serde::Serialize;

/// What a filter run found, over all its files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FilterReport {
    /// Intact records read and tested.
    pub read: u64,
    /// Records the expression matched (written unless only counted).
    pub matched: u64,
    /// Damaged records, skipped.
    pub damaged: u64,
    /// Intact records that are no Example or SequenceExample: never matched.
    pub not_examples: u64,
    /// Bytes written to the output (0 when only counted).
    pub bytes_written: u64,
}

/// A frame holding `payload` as TFRecord writes it: length, its masked CRC, the payload, its
/// masked CRC.
pub fn frame_bytes(payload: &[u8], out: &mut Vec<u8>) {
    let length = (payload.len() as u64).to_le_bytes();
    out.extend_from_slice(&length);
    out.extend_from_slice(&crate::crc::masked_crc32c(&length).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&crate::crc::masked_crc32c(payload).to_le_bytes());
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_written_frame_is_what_the_frame_reader_reads_as_intact() {
        let mut bytes = Vec::new();
        frame_bytes(b"hello", &mut bytes);
        assert_eq!(bytes.len(), 8 + 4 + 5 + 4);
        assert_eq!(&bytes[12..17], b"hello");
        assert_eq!(bytes, crate::crafted::encode_records(&[b"hello"]));
    }
}
