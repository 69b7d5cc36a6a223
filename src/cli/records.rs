//! The one loop `list` and `show` print records with: the first records print at once, from the
//! frames indexed on opening; a range is indexed as output proceeds, a whole file's other frames
//! are indexed on every core once the first records are out; each batch is rendered on every
//! core while the batch before
//! it is written out, the file is asked whether it changed under the rendering, and only then is
//! the batch handed over in order.
//!
//! Records are rendered into a few large buffers, one per chunk of a batch, which are kept and
//! reused from batch to batch: no record allocates its own output. At most two batches are held
//! at once (the one being written and the one being rendered), each bounded in records and in
//! payload bytes ([`Input::batch`]), so memory does not grow with the file.

use std::io;

use rayon::prelude::*;

use crate::error::Error;
use crate::frame::Frame;
use crate::input::Input;
use crate::payload::Decoder;

/// The first batch is small so that output starts at once; later ones keep every core busy.
const FIRST_BATCH: usize = 64;
const BATCH: usize = 4096;
/// Records rendered into one buffer by one worker.
const CHUNK: usize = 256;

/// How the rendering of a range of records ended.
pub enum Outcome {
    /// Every frame of the range that exists was handed over; `next` is the first one that was not
    /// (the range's end, or the file's frame count when the range reached past it).
    Done { next: usize },
    /// The file changed under the rendering (it shrank or was rewritten): nothing of the batch
    /// rendered from those bytes was handed over.
    Changed(Error),
}

/// A chunk of rendered records: their output, one after the other, and what else each said.
struct Chunk<M> {
    output: String,
    /// Per record: where its output ends in `output`, and its other results.
    records: Vec<(usize, M)>,
}

impl<M> Chunk<M> {
    fn new() -> Chunk<M> {
        Chunk {
            output: String::new(),
            records: Vec::new(),
        }
    }
}

/// A batch: its frames and the chunks they were rendered into (buffers kept for reuse).
struct Batch<M> {
    frames: Vec<Frame>,
    chunks: Vec<Chunk<M>>,
}

impl<M: Send> Batch<M> {
    /// Renders the frames into the chunks, on every core.
    fn render<R>(&mut self, input: &Input, decoders: &[Decoder], render: &R)
    where
        R: Fn(&Input, &Decoder, Frame, &mut String) -> M + Sync,
    {
        let count = self.frames.len().div_ceil(CHUNK);
        self.chunks
            .resize_with(count.max(self.chunks.len()), Chunk::new);
        let fallback = input.decoder();
        self.frames
            .par_chunks(CHUNK)
            .zip(self.chunks.par_iter_mut())
            .for_each(|(frames, chunk)| {
                let decoder = rayon::current_thread_index()
                    .and_then(|i| decoders.get(i % decoders.len().max(1)))
                    .unwrap_or(fallback);
                chunk.output.clear();
                chunk.records.clear();
                for frame in frames {
                    let meta = render(input, decoder, *frame, &mut chunk.output);
                    chunk.records.push((chunk.output.len(), meta));
                }
            });
        // Chunks past this batch's frames hold nothing to hand over.
        for chunk in self.chunks.iter_mut().skip(count) {
            chunk.output.clear();
            chunk.records.clear();
        }
    }

    /// Hands the rendered records over in order.
    fn emit(
        &mut self,
        input: &Input,
        emit: &mut impl FnMut(&Input, M, &str) -> io::Result<()>,
    ) -> io::Result<()> {
        for chunk in &mut self.chunks {
            let mut start = 0;
            for (end, meta) in chunk.records.drain(..) {
                let text = chunk.output.get(start..end).unwrap_or_default();
                start = end;
                emit(input, meta, text)?;
            }
        }
        Ok(())
    }
}

/// Renders records `start..end` (to the last frame when `end` is `None`) with `render`, which
/// appends a record's output to the buffer it is given and returns what else it found, on every
/// core, and hands each record's results and output to `emit` in record order.
pub fn render_in_order<M: Send>(
    input: &mut Input,
    start: usize,
    end: Option<usize>,
    render: impl Fn(&Input, &Decoder, Frame, &mut String) -> M + Sync,
    mut emit: impl FnMut(&Input, M, &str) -> io::Result<()>,
) -> io::Result<Outcome> {
    let workers = input.worker_decoders();
    // Long runs to a file or a pipe show their progress on stderr when it is a terminal.
    let progress = super::progress::Progress::bytes("reading", input.source.len(), true);
    let mut next = start;
    // The batch being written out, and the one rendered meanwhile.
    let mut ready: Batch<M> = Batch {
        frames: input.batch(next, end, FIRST_BATCH),
        chunks: Vec::new(),
    };
    next += ready.frames.len();
    ready.render(input, &workers, &render);
    if end.is_none() && !ready.frames.is_empty() {
        // The whole file will be read: its first records are written at once, then the rest is
        // indexed on every core in one pass, instead of batch by batch on this thread while the
        // pool waits for the next batch's frames.
        if let Err(e) = input.check_unchanged() {
            return Ok(Outcome::Changed(e));
        }
        ready.emit(input, &mut emit)?;
        input.index_rest();
        ready.frames = input.batch(next, end, BATCH);
        next += ready.frames.len();
        ready.render(input, &workers, &render);
    }
    let mut spare: Batch<M> = Batch {
        frames: Vec::new(),
        chunks: Vec::new(),
    };
    loop {
        if ready.frames.is_empty() {
            return Ok(match input.check_unchanged() {
                Ok(()) => Outcome::Done { next },
                Err(e) => Outcome::Changed(e),
            });
        }
        if let Some(last) = ready.frames.last() {
            progress.set(last.region().end.0);
        }
        // Outcome from the mapped bytes: if the file shrank meanwhile, some were zeros.
        if let Err(e) = input.check_unchanged() {
            return Ok(Outcome::Changed(e));
        }
        spare.frames = input.batch(next, end, BATCH);
        next += spare.frames.len();
        let shared = &*input;
        // The next batch renders on the pool while this thread writes the ready one out.
        let written = rayon::in_place_scope(|scope| {
            scope.spawn(|_| spare.render(shared, &workers, &render));
            ready.emit(shared, &mut emit)
        });
        written?;
        std::mem::swap(&mut ready, &mut spare);
    }
}
