//! An opened input: its bytes, a frame index built as far as a reader needs, and the decoder
//! that learned from its first frames what its payloads usually are.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::Error;
use crate::frame::{Frame, FrameIndex};
use crate::payload::Decoder;
use crate::source::{ReadOptions, Source};

/// How many bytes the index scans between checks for the frame a command waits for.
const SCAN_STEP: u64 = 16 << 20;
/// Bytes of frames decoded in one batch before it is printed.
const BATCH_BYTES: u64 = 8 << 20;
/// Payloads sampled to learn a file's usual kind.
const LEARN_SAMPLE: usize = 16;

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
        input.settle(LEARN_SAMPLE);
        input.sampled = input.index.len();
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
            let data = self.source.bytes();
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

    pub fn data(&self) -> &[u8] {
        self.source.bytes()
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

    /// Scans until frame `index` is final: the frame after it is found or the file is indexed.
    pub fn settle(&mut self, index: usize) {
        while self.index.len() <= index.saturating_add(1) && !self.index.is_complete() {
            self.index.scan(self.source.bytes(), SCAN_STEP);
        }
    }

    /// Indexes the whole file.
    pub fn settle_all(&mut self) {
        while !self.index.scan(self.source.bytes(), u64::MAX) {}
    }

    /// Whether frame `index` is the file's last.
    pub fn is_last(&self, index: usize) -> bool {
        self.index.is_complete() && index + 1 == self.index.len()
    }

    /// Up to `size` frames from `start` (not reaching `end`), scanning as far as they need.
    ///
    /// Commands decode a batch on all cores, then print it in order, so output keeps the file's
    /// order and starts after the first small batch.
    pub fn batch(&mut self, start: usize, end: Option<usize>, size: usize) -> Vec<Frame> {
        let stop = end.map_or(start + size, |end| end.min(start + size));
        let mut frames = Vec::new();
        let mut bytes = 0u64;
        for index in start..stop {
            // A batch of huge records is cut short, so rendered output never piles up in memory.
            if bytes > BATCH_BYTES {
                break;
            }
            let Ok(frame) = self.frame(index) else { break };
            bytes += frame.region().len();
            frames.push(frame);
        }
        frames
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
        if let Some(frame) = self.index.get(self.source.bytes(), index) {
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
