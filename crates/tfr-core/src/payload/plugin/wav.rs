//! WAV headers, read without decoding a sample: the RIFF chunks up to `fmt ` (the sample format,
//! channels, sample rate, bits per sample) and `data` (how many bytes of samples), which is what
//! an audio summary's format, channels and duration are. The walk looks at no more than
//! [`MAX_CHUNKS`] chunk headers and reads no chunk's body but `fmt `'s 40 bytes at most.

use crate::words::short;

/// Chunk headers looked at before giving up on finding `fmt ` and `data`.
pub const MAX_CHUNKS: usize = 64;

/// What a WAV file's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WavInfo {
    /// The format code (`1` PCM, `3` IEEE float; of `WAVE_FORMAT_EXTENSIBLE`, its sub-format's).
    pub format: u16,
    pub extensible: bool,
    pub channels: u16,
    pub sample_rate: u32,
    pub bits_per_sample: u16,
    /// Bytes per frame (a sample of every channel).
    pub block_align: u16,
    /// The `data` chunk's declared size.
    pub data_declared: u32,
    /// The bytes of it the file holds.
    pub data_present: u64,
}

/// Why bytes are not a WAV file whose format can be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WavProblem {
    NotRiff,
    NoFormat,
    NoData,
}

impl std::fmt::Display for WavProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WavProblem::NotRiff => write!(f, "not a RIFF WAVE file"),
            WavProblem::NoFormat => write!(f, "no complete `fmt ` chunk"),
            WavProblem::NoData => write!(f, "no `data` chunk"),
        }
    }
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let raw = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([*raw.first()?, *raw.get(1)?]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let raw = bytes.get(at..at.checked_add(4)?)?;
    let mut word = [0u8; 4];
    word.copy_from_slice(raw);
    Some(u32::from_le_bytes(word))
}

/// The header of the WAV file `bytes` begins with.
pub fn read(bytes: &[u8]) -> Result<WavInfo, WavProblem> {
    if bytes.get(..4) != Some(b"RIFF") || bytes.get(8..12) != Some(b"WAVE") {
        return Err(WavProblem::NotRiff);
    }
    let mut format: Option<(u16, bool, u16, u32, u16, u16)> = None;
    let mut data: Option<(u32, u64)> = None;
    let mut at = 12usize;
    for _ in 0..MAX_CHUNKS {
        let (Some(id), Some(size)) = (
            bytes.get(at..at.saturating_add(4)),
            u32_at(bytes, at.saturating_add(4)),
        ) else {
            break;
        };
        let body = at.saturating_add(8);
        match id {
            b"fmt " if size >= 16 => {
                let field = |offset: usize| u16_at(bytes, body.saturating_add(offset));
                let (Some(code), Some(channels), Some(rate), Some(align), Some(bits)) = (
                    field(0),
                    field(2),
                    u32_at(bytes, body.saturating_add(4)),
                    field(12),
                    field(14),
                ) else {
                    break;
                };
                // WAVE_FORMAT_EXTENSIBLE names the format in its sub-format GUID's first two bytes.
                let extensible = code == 0xfffe;
                let code = match (extensible, size >= 40) {
                    (true, true) => field(24).unwrap_or(code),
                    _ => code,
                };
                format = Some((code, extensible, channels, rate, bits, align));
            }
            b"data" => {
                let present = (bytes.len().saturating_sub(body) as u64).min(u64::from(size));
                data = Some((size, present));
            }
            _ => {}
        }
        if format.is_some() && data.is_some() {
            break;
        }
        // Chunks are padded to an even length.
        let padded = u64::from(size) + u64::from(size % 2);
        match usize::try_from(padded)
            .ok()
            .and_then(|p| body.checked_add(p))
        {
            Some(next) => at = next,
            None => break,
        }
    }
    let (format, extensible, channels, sample_rate, bits_per_sample, block_align) =
        format.ok_or(WavProblem::NoFormat)?;
    let (data_declared, data_present) = data.ok_or(WavProblem::NoData)?;
    Ok(WavInfo {
        format,
        extensible,
        channels,
        sample_rate,
        bits_per_sample,
        block_align,
        data_declared,
        data_present,
    })
}

impl WavInfo {
    /// Frames (a sample of every channel) the file holds.
    pub fn frames(&self) -> Option<u64> {
        self.data_present.checked_div(u64::from(self.block_align))
    }

    /// Seconds of sound the file holds.
    pub fn seconds(&self) -> Option<f64> {
        let frames = self.frames()?;
        (self.sample_rate > 0).then(|| frames as f64 / f64::from(self.sample_rate))
    }

    /// `PCM 16-bit`, `float 32-bit`, `format 0x0055 0-bit`.
    pub fn format_text(&self) -> String {
        let name = match self.format {
            1 => "PCM".to_string(),
            3 => "float".to_string(),
            6 => "A-law".to_string(),
            7 => "µ-law".to_string(),
            code => format!("format 0x{code:04x}"),
        };
        format!("{name} {}-bit", self.bits_per_sample)
    }

    /// `8000 Hz mono 0.01 s`.
    pub fn summary(&self) -> String {
        let mut text = format!("{} Hz {}", self.sample_rate, channels_text(self.channels));
        if let Some(seconds) = self.seconds() {
            text.push_str(&format!(" {} s", short(seconds)));
        }
        text
    }
}

/// `mono`, `stereo`, `6 channels`.
pub fn channels_text(channels: u16) -> String {
    match channels {
        1 => "mono".into(),
        2 => "stereo".into(),
        n => format!("{n} channels"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A 16-bit PCM WAV of `frames` frames of silence, with an extra chunk before `data`.
    pub(crate) fn wav(rate: u32, channels: u16, frames: u32) -> Vec<u8> {
        let align = channels * 2;
        let data = frames * u32::from(align);
        let mut out = b"RIFF".to_vec();
        out.extend((36 + 10 + data).to_le_bytes());
        out.extend(b"WAVEfmt ");
        out.extend(16u32.to_le_bytes());
        out.extend(1u16.to_le_bytes());
        out.extend(channels.to_le_bytes());
        out.extend(rate.to_le_bytes());
        out.extend((rate * u32::from(align)).to_le_bytes());
        out.extend(align.to_le_bytes());
        out.extend(16u16.to_le_bytes());
        // An odd-sized chunk, padded to an even length.
        out.extend(b"LIST");
        out.extend(1u32.to_le_bytes());
        out.extend([0, 0]);
        out.extend(b"data");
        out.extend(data.to_le_bytes());
        out.resize(out.len() + data as usize, 0);
        out
    }

    #[test]
    fn a_pcm_header_gives_format_rate_channels_and_duration() {
        let info = read(&wav(16000, 1, 8000)).unwrap();
        assert_eq!(
            (info.format, info.channels, info.sample_rate),
            (1, 1, 16000)
        );
        assert_eq!(info.frames(), Some(8000));
        assert_eq!(info.summary(), "16000 Hz mono 0.5 s");
        assert_eq!(info.format_text(), "PCM 16-bit");
        let stereo = read(&wav(44100, 2, 44100 * 3)).unwrap();
        assert_eq!(stereo.summary(), "44100 Hz stereo 3 s");
    }

    #[test]
    fn a_cut_file_counts_the_frames_it_holds() {
        let mut bytes = wav(8000, 1, 80);
        bytes.truncate(bytes.len() - 60);
        let info = read(&bytes).unwrap();
        assert_eq!((info.data_declared, info.data_present), (160, 100));
        assert_eq!(info.frames(), Some(50));
    }

    #[test]
    fn anything_else_is_named_and_never_panics() {
        assert_eq!(read(b""), Err(WavProblem::NotRiff));
        assert_eq!(read(b"RIFF\0\0\0\0WAVE"), Err(WavProblem::NoFormat));
        let full = wav(8000, 1, 4);
        for end in 0..full.len() {
            let _ = read(&full[..end]);
        }
        // A chunk claiming 4 GiB ends the walk instead of being skipped into nowhere.
        let mut huge = b"RIFF\0\0\0\0WAVEjunk".to_vec();
        huge.extend(u32::MAX.to_le_bytes());
        assert_eq!(read(&huge), Err(WavProblem::NoFormat));
        // A zero block alignment and a zero rate give no frames or duration instead of dividing.
        let info = read(&wav(0, 0, 0)).unwrap();
        assert_eq!((info.frames(), info.seconds()), (None, None));
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_after_a_riff_header_read_without_panic(
            tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
        ) {
            let mut bytes = b"RIFF\0\0\0\0WAVE".to_vec();
            bytes.extend(tail);
            let _ = read(&bytes);
        }
    }
}
