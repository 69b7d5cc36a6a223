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

/// A CRC32C computed piece by piece, for a payload read through a buffer smaller than it.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunningCrc(u32);

impl RunningCrc {
    /// Adds the next piece.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0 = crc32c::crc32c_append(self.0, bytes);
    }

    /// The masked CRC of the pieces so far, as stored in a frame.
    pub fn masked(&self) -> u32 {
        mask(self.0)
    }
}

/// The masked CRC32C of three buffers, computed together.
///
/// One CRC over a short buffer waits on each step's result: the crc32 instruction takes three
/// cycles to give what the next one needs, and the library can only split buffers of 768 bytes or
/// more into independent streams. Three frames' payloads are three independent streams already, so
/// stepping them in turn keeps the instruction busy every cycle: on 250-byte records, this is what
/// lets one core check frames at close to the speed of one CRC over the whole file.
pub fn masked_crc32c_three(buffers: [&[u8]; 3]) -> [u32; 3] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("sse4.2") {
            #[allow(unsafe_code)]
            // SAFETY: the CPU has SSE 4.2, checked just above.
            let crcs = unsafe { interleaved::crc32c_three(buffers) };
            return crcs.map(mask);
        }
    }
    buffers.map(masked_crc32c)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod interleaved {
    use std::arch::x86_64::{_mm_crc32_u8, _mm_crc32_u16, _mm_crc32_u32, _mm_crc32_u64};

    fn word(chunk: &[u8]) -> u64 {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        u64::from_le_bytes(word)
    }

    /// `state` carried over the last 0 to 7 bytes of a buffer: 4, 2 and 1 at a time, three
    /// steps at most where a byte at a time took up to seven.
    #[target_feature(enable = "sse4.2")]
    #[allow(unused_unsafe)] // the intrinsic is safe to call here from Rust 1.87 on
    unsafe fn tail(mut state: u32, mut rest: &[u8]) -> u32 {
        if let Some((four, after)) = rest.split_first_chunk::<4>() {
            // SAFETY: SSE 4.2 is enabled for this function, and its callers checked the CPU.
            state = unsafe { _mm_crc32_u32(state, u32::from_le_bytes(*four)) };
            rest = after;
        }
        if let Some((two, after)) = rest.split_first_chunk::<2>() {
            // SAFETY: as above.
            state = unsafe { _mm_crc32_u16(state, u16::from_le_bytes(*two)) };
            rest = after;
        }
        if let Some(&byte) = rest.first() {
            // SAFETY: as above.
            state = unsafe { _mm_crc32_u8(state, byte) };
        }
        state
    }

    /// The CRC32C of each buffer: their common length in 8-byte words in turn, then each rest.
    #[target_feature(enable = "sse4.2")]
    #[allow(unused_unsafe)] // the intrinsic is safe to call here from Rust 1.87 on
    pub(super) unsafe fn crc32c_three([a, b, c]: [&[u8]; 3]) -> [u32; 3] {
        let words = a.len().min(b.len()).min(c.len()) / 8;
        let (mut ca, mut cb, mut cc) = (u64::from(!0u32), u64::from(!0u32), u64::from(!0u32));
        let (a_words, a_rest) = a.split_at(words * 8);
        let (b_words, b_rest) = b.split_at(words * 8);
        let (c_words, c_rest) = c.split_at(words * 8);
        for ((wa, wb), wc) in a_words
            .chunks_exact(8)
            .zip(b_words.chunks_exact(8))
            .zip(c_words.chunks_exact(8))
        {
            // SAFETY: SSE 4.2 is enabled for this function, and its callers checked the CPU.
            unsafe {
                ca = _mm_crc32_u64(ca, word(wa));
                cb = _mm_crc32_u64(cb, word(wb));
                cc = _mm_crc32_u64(cc, word(wc));
            }
        }
        // Each rest (a few words and bytes where the lengths differ) on its own.
        let mut crcs = [0u32; 3];
        for (crc, (state, rest)) in crcs
            .iter_mut()
            .zip([(ca, a_rest), (cb, b_rest), (cc, c_rest)])
        {
            let mut state = state;
            let mut words = rest.chunks_exact(8);
            for w in &mut words {
                // SAFETY: as above.
                state = unsafe { _mm_crc32_u64(state, word(w)) };
            }
            // SAFETY: as above.
            *crc = !unsafe { tail(state as u32, words.remainder()) };
        }
        crcs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crc_taken_piece_by_piece_is_the_crc_of_the_whole() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 31 % 256) as u8).collect();
        for piece in [1, 7, 256, 4999, 5000] {
            let mut running = RunningCrc::default();
            for chunk in bytes.chunks(piece) {
                running.update(chunk);
            }
            assert_eq!(running.masked(), masked_crc32c(&bytes), "pieces of {piece}");
        }
        assert_eq!(RunningCrc::default().masked(), masked_crc32c(b""));
    }

    #[test]
    fn three_at_once_are_the_three_alone() {
        // The interleaved CRCs are what this checks; elsewhere it compares the fallback with itself.
        #[cfg(target_arch = "x86_64")]
        assert!(std::arch::is_x86_feature_detected!("sse4.2"));
        // Lengths around the word size and the library's own split, including empty buffers,
        // and rests of every length from 0 to 7 bytes (taken 4, 2 and 1 at a time).
        let bytes: Vec<u8> = (0..3100u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let lengths = [
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 250, 253, 257, 767, 768, 769, 2999,
        ];
        for &la in &lengths {
            for &lb in &lengths {
                for (offset, &lc) in lengths.iter().enumerate() {
                    let (a, b, c) = (&bytes[..la], &bytes[3..3 + lb], &bytes[offset..offset + lc]);
                    let expected = [masked_crc32c(a), masked_crc32c(b), masked_crc32c(c)];
                    assert_eq!(masked_crc32c_three([a, b, c]), expected, "{la} {lb} {lc}");
                }
            }
        }
    }

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
