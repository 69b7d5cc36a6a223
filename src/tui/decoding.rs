//! Decoding a large record on a worker thread, so that the inspector keeps answering keys.
//!
//! Walking a record of a million features and making its first rows takes a noticeable time; done
//! between two key presses it would freeze the screen, and `q` would not quit. A record whose
//! payload is larger than [`INLINE_BYTES`] is copied and handed to a thread that decodes it,
//! builds the first screen of its tree and describes its list row; the screen shows the progress
//! meanwhile. Selecting another record drops the job, which cancels the walk.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use super::framelist::RowText;
use super::tree::{Parts, Record, Tree};
use tfr_core::annotate::FrameTokens;
use tfr_core::frame::Frame;
use tfr_core::payload::Decoder;
use tfr_core::wire::Progress;

/// Payloads up to this size are decoded at once; larger ones on a worker thread.
pub const INLINE_BYTES: usize = 256 << 10;

/// What a worker needs: the record's bytes (a copy) and how to decode and show them.
pub struct Job {
    pub file: usize,
    pub frame: Frame,
    pub payload: Vec<u8>,
    /// Where the payload lies in the file.
    pub range: Range<u64>,
    /// The frame's own tokens, worded for a decoded payload.
    pub own: FrameTokens,
    pub damage: Option<String>,
    pub decoder: Decoder,
    pub specs: Option<Arc<tfr_core::dataset::features::FeatureSpecs>>,
}

/// A finished decoding: the tree's first screen and the record's list row.
pub struct Done {
    pub file: usize,
    pub frame: Frame,
    pub own: FrameTokens,
    pub tree: Tree,
    pub row: RowText,
}

/// A decoding in progress; dropping it cancels the work.
#[derive(Debug)]
pub struct Decoding {
    /// The record being decoded.
    pub record: usize,
    progress: Arc<Progress>,
    result: Receiver<Done>,
    len: u64,
}

impl std::fmt::Debug for Done {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Done")
            .field("record", &self.frame.index)
            .finish_non_exhaustive()
    }
}

/// Where a decoding is.
pub enum Poll {
    Running,
    Done(Box<Done>),
    /// The worker stopped without a result.
    Failed,
}

/// Starts decoding `job` on a new thread.
pub fn spawn(job: Job) -> Decoding {
    let (tx, rx) = mpsc::channel();
    let progress = Arc::new(Progress::default());
    let decoding = Decoding {
        record: job.frame.index,
        progress: progress.clone(),
        result: rx,
        len: job.payload.len() as u64,
    };
    std::thread::spawn(move || {
        if let Some(done) = run(job, &progress) {
            let _ = tx.send(done);
        }
    });
    decoding
}

fn run(job: Job, progress: &Progress) -> Option<Done> {
    let decoded = job.decoder.decode_observed(&job.payload, Some(progress))?;
    let record = Arc::new(Record {
        decoded,
        table: job.decoder.schema.table().clone(),
        payload: job.range,
        specs: job.specs.clone(),
    });
    let summary = tfr_core::summary::summarize(
        &job.decoder,
        &record.decoded,
        &job.payload,
        tfr_core::summary::FeatureNames::Skipped,
    )
    .line;
    let row = RowText {
        kind: record.decoded.kind.name().to_string(),
        summary,
        ..RowText::default()
    };
    let parts = Parts {
        own: &job.own,
        damage: job.damage,
        record: Some((record, &job.payload)),
    };
    let tree = Tree::build(&job.frame, parts);
    Some(Done {
        file: job.file,
        frame: job.frame,
        own: job.own,
        tree,
        row,
    })
}

impl Decoding {
    pub fn poll(&self) -> Poll {
        match self.result.try_recv() {
            Ok(done) => Poll::Done(Box::new(done)),
            Err(TryRecvError::Empty) => Poll::Running,
            Err(TryRecvError::Disconnected) => Poll::Failed,
        }
    }

    /// Blocks until the worker is done.
    pub fn wait(&self) -> Option<Done> {
        self.result.recv().ok()
    }

    /// How much of the payload the current walk has covered.
    pub fn percent(&self) -> u64 {
        let walked = self.progress.walked.load(Ordering::Relaxed);
        // Never 100 while the walk runs.
        tfr_core::words::percent_done(walked, self.len).min(99)
    }
}

impl Drop for Decoding {
    fn drop(&mut self) {
        self.progress.cancel.store(true, Ordering::Relaxed);
    }
}

/// The list row of a large record not decoded yet.
pub fn placeholder_row(frame: &Frame) -> RowText {
    let len = frame.declared_length.unwrap_or(0);
    RowText {
        kind: frame.status.name().to_string(),
        summary: format!(
            "{}, decoded when selected",
            tfr_core::words::plural(len, "byte")
        ),
        ..RowText::default()
    }
}
