//! An opened input: its bytes, a frame index built as far as a reader needs, and the decoder
//! that learned from its first frames what its payloads usually are.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::Error;
use crate::frame::{Frame, FrameIndex};
use crate::payload::{Decoder, LEARN_PAYLOADS, learns_from};
use crate::source::{ReadOptions, Source};

/// How many bytes the index scans between checks for the frame a command waits for.
const SCAN_STEP: u64 = 16 << 20;
/// Bytes of frames decoded in one batch before it is printed.
const BATCH_BYTES: u64 = 8 << 20;
/// Frames opening makes final (those and the one after them), as a command showing the first
/// frames needs them.
const LEARN_SAMPLE: usize = 16;
/// How many bytes opening scans between checks for the sample's payloads.
const LEARN_STEP: u64 = 1 << 20;
/// How far [`Input::index_ahead`] indexes at once.
const AHEAD_BYTES: u64 = 128 << 20;

/// An opened input file, indexed lazily: a command that needs frame N scans only up to it, so
/// output starts at once even on a shard of many gigabytes. Nothing is decoded until a command
/// asks for the [`Input::decoder`], so a record number is checked before any payload is read.
pub struct Input {
    pub source: Source,
    pub index: FrameIndex,
    /// The decoder as the user configured it, before it learned the file's usual kind.
    configured: Decoder,
    learned: OnceLock<Decoder>,
    /// The frames indexed on opening, which the decoder learns from.
    sampled: usize,
}

/// How to open an input: how its bytes are read, and how its payloads are decoded. Built once
/// from what the user asked for, and handed to everything that opens a file.
#[derive(Clone)]
pub struct OpenOptions {
    pub read: ReadOptions,
    pub decoder: Decoder,
}

impl OpenOptions {
    /// `decoder` over bytes read the default way (compression detected, default limit).
    pub fn new(decoder: Decoder) -> OpenOptions {
        OpenOptions {
            read: ReadOptions::default(),
            decoder,
        }
    }
}

impl Input {
    /// Opens `path` as `options` say and indexes enough of it to learn what its payloads
    /// usually are. The one way an input is opened: the commands that only check frames open
    /// its [`Source`] with the same options.
    pub fn open(path: &Path, options: &OpenOptions) -> Result<Input, Error> {
        let source = Source::open(path, &options.read)?;
        let index = FrameIndex::new(source.len());
        let mut input = Input {
            source,
            index,
            configured: options.decoder.clone(),
            learned: OnceLock::new(),
            sampled: 0,
        };
        input.index_sample();
        Ok(input)
    }

    /// An input with no bytes and no frames, standing for a file that can no longer be read, so
    /// that nothing stale is shown in its place.
    pub fn emptied(path: PathBuf, options: &OpenOptions) -> Input {
        Input {
            source: Source::new(path, Box::new(Vec::new())),
            index: FrameIndex::build(&[]),
            configured: options.decoder.clone(),
            learned: OnceLock::new(),
            sampled: 0,
        }
    }

    /// The decoder for this file, which learns what its payloads usually are from the first
    /// intact frames when first asked for.
    pub fn decoder(&self) -> &Decoder {
        self.learned.get_or_init(|| {
            let data = &self.source;
            let sample = self
                .index
                .frames(data)
                .take(self.sampled)
                .filter(|f| f.status.is_intact())
                .filter_map(|f| f.payload(data));
            let mut decoder = self.configured.clone();
            decoder.hint_file_name(self.source.path());
            decoder.learn(sample);
            decoder
        })
    }

    /// Whether any payload has been decoded to learn the file's kind yet.
    pub fn has_learned(&self) -> bool {
        self.learned.get().is_some()
    }

    /// The bytes, read by range: the frames' and their payloads' ([`Frame::payload`]).
    pub fn data(&self) -> &Source {
        &self.source
    }

    /// Fails when the file shrank while it was read, so that nothing computed from the zeros
    /// that then stand for its lost bytes is printed (see [`Source::check_unchanged`]).
    pub fn check_unchanged(&self) -> Result<(), Error> {
        self.source.check_unchanged()
    }

    /// The file's name as a terminal may show it (see [`crate::escape::path_for_terminal`]).
    pub fn name(&self) -> String {
        crate::escape::path_for_terminal(self.source.path())
    }

    /// Indexes the frames the decoder learns from ([`Decoder::learn`]'s payloads) and makes the
    /// first [`LEARN_SAMPLE`] frames final, scanning a megabyte at a time: a command that reads
    /// the whole file indexes the rest on every core as it goes ([`Input::index_ahead`]), and one
    /// that shows a few frames needs no more. Without enough payloads to learn from, it scans as far as
    /// [`Input::settle`] would, step by step, so that the sample is always the same frames.
    fn index_sample(&mut self) {
        let mut learnable = 0;
        let mut counted = 0;
        // Where the settle step under way ends.
        let mut step_end = 0;
        // An object read on demand shows what its first part holds: past half of it the sample
        // stops, so that a scan step (which may take three large frames at once) needs no other
        // part (the inspector indexes on in the background).
        let fetched = self.source.fetched().map(|f| f.bytes);
        while !self.index.is_complete() {
            if fetched.is_some_and(|f| {
                !self.index.is_empty() && self.index.scanned().saturating_mul(2) > f
            }) {
                break;
            }
            let data = &self.source;
            // Only the frames indexed since the last count.
            let frames = (counted..self.index.len()).filter_map(|i| self.index.get(data, i));
            learnable += frames
                .filter(|f| f.status.is_intact())
                .filter_map(|f| f.payload(data))
                .filter(|p| learns_from(p))
                .count();
            counted = self.index.len();
            let settled = counted > LEARN_SAMPLE + 1;
            if settled && learnable >= LEARN_PAYLOADS {
                break;
            }
            if self.index.scanned() >= step_end {
                if settled {
                    break;
                }
                step_end = self.index.scanned().saturating_add(SCAN_STEP);
            }
            let budget = LEARN_STEP.min(step_end - self.index.scanned());
            self.index.scan(data, budget);
        }
        self.sampled = self.index.len();
    }

    /// Scans until frame `index` is final: the frame after it is found or the file is indexed.
    pub fn settle(&mut self, index: usize) {
        while self.index.len() <= index.saturating_add(1) && !self.index.is_complete() {
            self.index.scan(&self.source, SCAN_STEP);
        }
    }

    /// For a command that reads every frame: unless frame `wanted` is already indexed, indexes
    /// up to `AHEAD_BYTES` more of the file on every core (its run of intact frames; the lazy
    /// scan goes on from the first frame that is not). Bounded, so that output keeps flowing on
    /// a shard of many gigabytes read from a slow disk.
    pub fn index_ahead(&mut self, wanted: usize) {
        if self.index.len() <= wanted && !self.index.is_complete() {
            self.index.scan_parts_ahead(&self.source, AHEAD_BYTES);
        }
    }

    /// Indexes the whole file.
    pub fn settle_all(&mut self) {
        while !self.index.scan(&self.source, u64::MAX) {}
    }

    /// Whether frame `index` is the file's last.
    pub fn is_last(&self, index: usize) -> bool {
        self.index.is_complete() && index + 1 == self.index.len()
    }

    /// The indexes of up to `size` frames from `start` (not reaching `end`), scanning as far as
    /// they need: each is final once returned ([`Input::indexed_frame`] reads it).
    ///
    /// Commands decode a batch on all cores, then print it in order, so output keeps the file's
    /// order and starts after the first small batch. The frames themselves are read by the cores
    /// that decode them: reading a frame's length touches memory the payload's decoding touches
    /// next, which on this thread cost a cache miss per frame while the cores waited.
    pub fn batch(&mut self, start: usize, end: Option<usize>, size: usize) -> Range<usize> {
        let stop = end.map_or(start + size, |end| end.min(start + size));
        for index in start..stop {
            self.settle(index);
            let (Some(first), Some(this)) = (self.index.offset(start), self.index.offset(index))
            else {
                // Past the last frame: `settle` stopped because the file is indexed.
                return start..index;
            };
            // A batch of huge records is cut short, so rendered output never piles up in memory.
            // Frames own the bytes up to the next frame, so those before this one own this much.
            if this.0.saturating_sub(first.0) > BATCH_BYTES {
                return start..index;
            }
        }
        start..stop.max(start)
    }

    /// Frame `index` as the index holds it, without scanning further.
    pub fn indexed_frame(&self, index: usize) -> Option<Frame> {
        self.index.get(&self.source, index)
    }

    /// One decoder per core, for commands that decode on all cores (they share the schema table).
    pub fn worker_decoders(&self) -> Vec<Decoder> {
        let cores = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(16);
        vec![self.decoder().clone(); cores]
    }

    /// Frame `index`, scanning up to it; an error naming the frame count when there is none.
    pub fn frame(&mut self, index: usize) -> Result<Frame, Error> {
        self.settle(index);
        if let Some(frame) = self.index.get(&self.source, index) {
            return Ok(frame);
        }
        self.settle_all();
        Err(Error::NoSuchRecord {
            path: self.source.path().to_path_buf(),
            index,
            count: self.index.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::frame::write_record;
    use crate::payload::{LEARN_MAX_BYTES, Reading};
    use crate::schema::Schema;

    /// The offsets of the payloads the decoder learns from when the frames indexed are those of
    /// `index`'s first `sampled`.
    fn learned(index: &FrameIndex, data: &[u8], sampled: usize) -> Vec<u64> {
        index
            .frames(data)
            .take(sampled)
            .filter(|f| f.status.is_intact())
            .filter(|f| f.payload(data).is_some_and(learns_from))
            .map(|f| f.offset.0)
            .take(LEARN_PAYLOADS)
            .collect()
    }

    #[test]
    fn opening_learns_from_the_payloads_settle_would_have_indexed() {
        let options = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
        // Megabytes without a payload to learn from are written as payloads too large to learn
        // from, a megabyte each (few frames to index, unlike megabytes of empty records).
        let large = vec![0u8; LEARN_MAX_BYTES + 1];
        let tail = vec![0x0a_u8; 64 << 10];
        // Learnable payloads at once; after 2 MB without; only after 17 MB without; five, then
        // 17 MB without, then the rest.
        for (leading, large_payloads) in [(0u8, 0usize), (0, 2), (0, 17), (5, 17)] {
            let mut data = Vec::new();
            for i in 0..leading {
                write_record(&[0x08, i], &mut data).unwrap();
            }
            // Enough empty records to make the first frames final.
            for _ in 0..=LEARN_SAMPLE {
                write_record(b"", &mut data).unwrap();
            }
            for _ in 0..large_payloads {
                write_record(&large, &mut data).unwrap();
            }
            for i in 0..100u8 {
                write_record(&[0x08, i], &mut data).unwrap();
            }
            // Three megabytes more in small frames, past where opening stops.
            for _ in 0..48 {
                write_record(&tail, &mut data).unwrap();
            }
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(&data).unwrap();
            let input = Input::open(file.path(), &options).unwrap();
            // What settling the first frames indexes, as `settle` scans: SCAN_STEP at a time.
            let mut stepped = FrameIndex::new(data.len() as u64);
            while stepped.len() <= LEARN_SAMPLE + 1 && !stepped.is_complete() {
                stepped.scan(&data[..], SCAN_STEP);
            }
            let case = format!("{leading} payloads, then {large_payloads} MB without");
            let sample = learned(&input.index, &data, input.sampled);
            assert_eq!(sample, learned(&stepped, &data, stepped.len()), "{case}");
            assert_eq!(
                sample.is_empty(),
                large_payloads > 16 && leading == 0,
                "{case}"
            );
            assert!(input.index.len() > LEARN_SAMPLE + 1, "{case}");
            assert!(!input.index.is_complete(), "{case}");
            // With the sample at hand it stops after a megabyte, not after sixteen.
            if large_payloads == 0 {
                assert!(input.index.scanned() < 2 * LEARN_STEP, "{case}");
            }
        }
    }

    #[test]
    fn a_batch_stops_at_its_size_its_end_the_last_frame_or_eight_megabytes() {
        let options = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
        let open = |data: &[u8]| {
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(data).unwrap();
            (Input::open(file.path(), &options).unwrap(), file)
        };
        let mut small = Vec::new();
        for i in 0..10u8 {
            write_record(&[0x08, i], &mut small).unwrap();
        }
        let (mut input, _file) = open(&small);
        assert_eq!(input.batch(0, None, 4), 0..4);
        assert_eq!(input.batch(4, Some(6), 4), 4..6);
        assert_eq!(input.batch(8, None, 4), 8..10);
        assert_eq!(input.batch(10, None, 4), 10..10);
        assert_eq!(input.batch(12, None, 4), 12..12);
        let frame = input.indexed_frame(9).unwrap();
        assert_eq!((frame.index, frame.offset.0), (9, 9 * 18));
        assert!(input.indexed_frame(10).is_none());

        // Frames of 5 MB: the second takes the batch past 8 MB, so it ends there.
        let mut large = Vec::new();
        for _ in 0..3 {
            write_record(&vec![0; 5 << 20], &mut large).unwrap();
        }
        let (mut input, _file) = open(&large);
        assert_eq!(input.batch(0, None, 100), 0..2);
        assert_eq!(input.batch(2, None, 100), 2..3);
    }
}
