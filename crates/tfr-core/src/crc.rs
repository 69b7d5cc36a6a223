//! Masked CRC32C, the checksum TFRecord puts after the length and after the payload.
//!
//! TFRecord does not store the plain Castagnoli CRC: it rotates and offsets it ("masks" it) so that
//! a CRC computed over data that itself contains CRCs does not degenerate. Both directions are here
//! so that reports can show the stored value, the expected value and the raw CRC the mask hides.

const MASK_DELTA: u32 = 0xa282_ead8;

/// Masks a raw CRC32C the way TFRecord writers do.
pub fn mask(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// Undoes [`mask`].
pub fn unmask(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

/// The masked CRC32C of `bytes`, as stored in a TFRecord frame.
pub fn masked_crc32c(bytes: &[u8]) -> u32 {
    mask(crc32c::crc32c(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::manual_rotate)] // the reference formula, spelled as TensorFlow documents it
    fn mask_matches_the_reference_formula() {
        for crc in [0u32, 1, 0xdead_beef, u32::MAX, 0x8000_0000] {
            let reference = ((crc >> 15) | (crc << 17)).wrapping_add(0xa282_ead8);
            assert_eq!(mask(crc), reference);
            assert_eq!(unmask(mask(crc)), crc);
        }
    }

    #[test]
    fn matches_a_header_written_by_tensorflow() {
        // examples.tfrecord frame 0: length 83 and the masked CRC TensorFlow stored after it.
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(masked_crc32c(&83u64.to_le_bytes()), 0x914e7d0d);
    }
}
