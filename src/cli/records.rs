//! The one loop `list` and `show` print records with: frames are indexed as output proceeds (for
//! a whole file, on every core a stretch at a time), so the first records print at once; each
//! batch is rendered on every core while the batch before
//! it is written out, the file is asked whether it changed under the rendering, and only then is
//! the batch handed over in order.
//!
//! Records are rendered into a few large buffers, one per chunk of a batch, which are kept and
//! reused from batch to batch: no record allocates its own output. At most two batches are held
//! at once (the one being written and the one being rendered), each bounded in records and in
//! payload bytes ([`Input::batch`]), so memory does not grow with the file.

use std::io;
use std::ops::Range;

use rayon::prelude::*;

use tfr_core::error::Error;
use tfr_core::frame::Frame;
use tfr_core::input::Input;
use tfr_core::payload::Decoder;

/// The first batch is small so that output starts at once; later ones keep every core busy.
const FIRST_BATCH: usize = 64;
const BATCH: usize = 4096;
/// Records rendered into one buffer by one worker. A batch waits for its last chunk, so chunks
/// are small enough to even out the workers' shares when another process (the reader of a pipe)
/// takes turns on the same cores: `show | consumer` took 0.95x the time it took with chunks of
/// 256 records; written to `/dev/null`, the same time.
const CHUNK: usize = 64;
/// The most output held back to be written in one go. Runs at least as large as the writer's
/// buffer (a `BufWriter`'s 8 KiB) go straight through it; runs of 64 KiB took about 3% less of `show`'s
/// time than runs of 8 KiB, and a closed output is still noticed within about a hundred records.
const RUN_BYTES: usize = 64 * 1024;

/// One decoder per core, made when a batch first needs more than one: the cores are counted
/// (cgroup files read) only then.
#[derive(Default)]
struct Workers(std::sync::OnceLock<Vec<Decoder>>);

impl Workers {
    fn get(&self, input: &Input) -> &[Decoder] {
        self.0.get_or_init(|| input.worker_decoders())
    }
}

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

/// A batch: its frames' indexes and the chunks they were rendered into (buffers kept for reuse).
struct Batch<M> {
    frames: Range<usize>,
    chunks: Vec<Chunk<M>>,
}

impl<M: Send> Batch<M> {
    /// Renders the frames into the chunks, on every core when they fill more than one chunk.
    fn render<R>(&mut self, input: &Input, decoders: &Workers, render: &R)
    where
        R: Fn(&Input, &Decoder, Frame, &mut String) -> M + Sync,
    {
        let count = self.frames.len().div_ceil(CHUNK);
        self.chunks
            .resize_with(count.max(self.chunks.len()), Chunk::new);
        let fallback = input.decoder();
        let frames = self.frames.clone();
        let render_chunk = |n: usize, chunk: &mut Chunk<M>, decoder: &Decoder| {
            chunk.output.clear();
            chunk.records.clear();
            let first = frames.start + n * CHUNK;
            let chunk_frames = first..frames.end.min(first + CHUNK);
            // The batch's frames are final: every one is there.
            for frame in chunk_frames.filter_map(|i| input.indexed_frame(i)) {
                let meta = render(input, decoder, frame, &mut chunk.output);
                chunk.records.push((chunk.output.len(), meta));
            }
        };
        if count <= 1 {
            // One chunk is one worker's share: rendered here, a command that prints a record or
            // a few never starts the pool's threads.
            if let Some(chunk) = self.chunks.first_mut().filter(|_| count == 1) {
                render_chunk(0, chunk, fallback);
            }
        } else {
            let decoders = decoders.get(input);
            self.chunks
                .par_iter_mut()
                .take(count)
                .enumerate()
                .for_each(|(n, chunk)| {
                    let decoder = rayon::current_thread_index()
                        .and_then(|i| decoders.get(i % decoders.len().max(1)))
                        .unwrap_or(fallback);
                    render_chunk(n, chunk, decoder);
                });
        }
        // Chunks past this batch's frames hold nothing to hand over.
        for chunk in self.chunks.iter_mut().skip(count) {
            chunk.output.clear();
            chunk.records.clear();
        }
    }

    /// Hands the rendered records over in order, and writes each output (or what `emit` gives
    /// instead). Outputs written as they are go out a run of records at a time, straight from
    /// the chunk: copied record by record into the writer's buffer, they cost a few percent of
    /// `show`.
    fn emit<W: io::Write + ?Sized>(
        &mut self,
        input: &Input,
        out: &mut W,
        emit: &mut impl FnMut(&Input, M, &str) -> Handed,
    ) -> io::Result<()> {
        for chunk in &mut self.chunks {
            let output = &chunk.output;
            let text = |range: Range<usize>| output.get(range).unwrap_or_default();
            let mut start = 0;
            // Where the run of outputs still to be written as they are begins.
            let mut run = 0;
            for (end, meta) in chunk.records.drain(..) {
                if let Handed::Instead(other) = emit(input, meta, text(start..end)) {
                    out.write_all(text(run..start).as_bytes())?;
                    out.write_all(other.as_bytes())?;
                    run = end;
                }
                start = end;
                // A run goes out once it reaches `RUN_BYTES`, so that an output that closed
                // (`| head`) stops the hand-over within a run, not a chunk later.
                if start - run >= RUN_BYTES {
                    out.write_all(text(run..start).as_bytes())?;
                    run = start;
                }
            }
            out.write_all(text(run..start).as_bytes())?;
        }
        Ok(())
    }
}

/// What is written for a record: its output, or what `emit` gives instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handed {
    AsIs,
    Instead(String),
}

/// The frames of the batch from `next`. When the whole file is read, they are indexed on every
/// core, a stretch at a time, instead of by the lazy scan on this thread while the pool waits.
fn next_batch(input: &mut Input, next: usize, end: Option<usize>) -> Range<usize> {
    if end.is_none() {
        input.index_ahead(next + BATCH);
    }
    input.batch(next, end, BATCH)
}

/// Renders records `start..end` (to the last frame when `end` is `None`) with `render`, which
/// appends a record's output to the buffer it is given and returns what else it found, on every
/// core, and hands each record's results and output to `emit` in record order; each output is
/// then written to `out` as it is, or what `emit` gives instead (`out` is flushed after each
/// batch).
pub fn render_in_order<M: Send, W: io::Write + ?Sized>(
    input: &mut Input,
    start: usize,
    end: Option<usize>,
    progress: bool,
    render: impl Fn(&Input, &Decoder, Frame, &mut String) -> M + Sync,
    out: &mut W,
    mut emit: impl FnMut(&Input, M, &str) -> Handed,
) -> io::Result<Outcome> {
    let workers = Workers::default();
    // Long runs to a file or a pipe show their progress on stderr when it is a terminal.
    let progress = super::progress::Progress::bytes("reading", input.source.len(), progress);
    let mut next = start;
    // The batch being written out, and the one rendered meanwhile.
    let mut ready: Batch<M> = Batch {
        frames: input.batch(next, end, FIRST_BATCH),
        chunks: Vec::new(),
    };
    next = ready.frames.end;
    ready.render(input, &workers, &render);
    if !ready.frames.is_empty() {
        // The first records are written before anything more is indexed or rendered.
        if let Err(e) = input.check_unchanged() {
            return Ok(Outcome::Changed(e));
        }
        ready.emit(input, out, &mut emit)?;
        out.flush()?;
        ready.frames = next_batch(input, next, end);
        next = ready.frames.end;
        ready.render(input, &workers, &render);
    }
    let mut spare: Batch<M> = Batch {
        frames: next..next,
        chunks: Vec::new(),
    };
    loop {
        if ready.frames.is_empty() {
            return Ok(match input.check_unchanged() {
                Ok(()) => Outcome::Done { next },
                Err(e) => Outcome::Changed(e),
            });
        }
        if let Some(last) = ready.frames.end.checked_sub(1) {
            progress.set(input.indexed_frame(last).map_or(0, |f| f.region().end.0));
        }
        // Outcome from the mapped bytes: if the file shrank meanwhile, some were zeros.
        if let Err(e) = input.check_unchanged() {
            return Ok(Outcome::Changed(e));
        }
        spare.frames = next_batch(input, next, end);
        next = spare.frames.end;
        let shared = &*input;
        // The next batch renders on the pool while this thread writes the ready one out.
        let written = rayon::in_place_scope(|scope| {
            scope.spawn(|_| spare.render(shared, &workers, &render));
            ready.emit(shared, out, &mut emit)?;
            // Each batch is on its way once handed over, whatever the next one takes.
            out.flush()
        });
        written?;
        std::mem::swap(&mut ready, &mut spare);
    }
}

/// The payload of `frame` when it is intact, else the note every command that reads records says
/// of one it skips (`record N at byte B: skipped: why`).
pub fn intact_payload<'a>(input: &'a Input, frame: &Frame) -> Result<&'a [u8], String> {
    match frame
        .payload(input.data())
        .filter(|_| frame.status.is_intact())
    {
        Some(payload) => Ok(payload),
        None => Err(skip_note(input, frame)),
    }
}

/// What is said of a record whose payload cannot be read.
pub fn skip_note(input: &Input, frame: &Frame) -> String {
    let problem = tfr_core::damage::describe(frame, input.data(), input.is_last(frame.index));
    format!(
        "record {} at byte {}: skipped: {problem}",
        frame.index, frame.offset
    )
}

/// Damaged records named one by one; the rest are counted in one line.
const NAMED_DAMAGE: usize = 10;

/// Names the damaged records (the first `NAMED_DAMAGE`) and the unreadable files a report
/// passed over, as `schema` and `tags` say them.
pub fn name_skipped(
    skipped: &[tfr_core::report::feature_spec::Skipped],
    messages: &super::Messages,
) {
    let mut named = 0usize;
    for skipped in skipped {
        let name = tfr_core::escape::path_for_terminal(&skipped.file);
        match skipped.record {
            Some((index, offset)) => {
                named += 1;
                if named <= NAMED_DAMAGE {
                    messages.note(&format_args!(
                        "{name}: record {index} at byte {offset}: {}",
                        skipped.why
                    ));
                }
            }
            None => messages.error(&skipped.why),
        }
    }
    if let Some(more) = named.checked_sub(NAMED_DAMAGE).filter(|n| *n > 0) {
        messages.note(&format_args!(
            "{} more skipped (`tfr-inspect verify` names every one)",
            tfr_core::words::plural(more as u64, "damaged record")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfr_core::input::OpenOptions;
    use tfr_core::payload::Reading;
    use tfr_core::schema::Schema;

    /// A writer that notes how much had been written at each flush.
    #[derive(Default)]
    struct Flushes {
        written: Vec<u8>,
        flushed_at: Vec<usize>,
    }

    impl io::Write for Flushes {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.written.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            self.flushed_at.push(self.written.len());
            Ok(())
        }
    }

    /// A file of `records` frames holding their numbers, opened (with the directory it is in).
    fn numbered(records: usize) -> (tempfile::TempDir, Input) {
        let mut file = Vec::new();
        for i in 0..records {
            tfr_core::frame::write_record(format!("{i:05}").as_bytes(), &mut file).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("numbers.tfrecord");
        std::fs::write(&path, file).unwrap();
        let options = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
        let input = Input::open(&path, &options).unwrap();
        (dir, input)
    }

    #[test]
    fn the_first_records_are_flushed_before_the_rest_are_rendered_and_every_batch_after() {
        let records = FIRST_BATCH + BATCH + 10;
        let (_dir, mut input) = numbered(records);
        let mut out = Flushes::default();
        let outcome = render_in_order(
            &mut input,
            0,
            None,
            false,
            |_, _, frame, output| output.push_str(&format!("{}\n", frame.index)),
            &mut out,
            |_, (), _| Handed::AsIs,
        )
        .unwrap();
        assert!(matches!(outcome, Outcome::Done { next } if next == records));
        let text = String::from_utf8(out.written).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), records);
        assert!(lines.iter().enumerate().all(|(i, l)| *l == i.to_string()));
        // The first small batch, then each batch of the rest: one flush for each.
        let first = (0..FIRST_BATCH)
            .map(|i| i.to_string().len() + 1)
            .sum::<usize>();
        let second = first
            + (FIRST_BATCH..FIRST_BATCH + BATCH)
                .map(|i| i.to_string().len() + 1)
                .sum::<usize>();
        assert_eq!(out.flushed_at, vec![first, second, text.len()]);
    }

    /// Takes `room` bytes, then fails as a closed pipe does.
    struct Closing {
        room: usize,
    }

    impl io::Write for Closing {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if bytes.len() > self.room {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.room -= bytes.len();
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_output_stops_the_hand_over_within_a_run() {
        let (_dir, mut input) = numbered(FIRST_BATCH + 2 * CHUNK);
        // Runs of fewer records than a chunk holds.
        const OUTPUT: usize = 4 * RUN_BYTES / CHUNK;
        // The first batch is taken; the output closes as the next comes.
        let mut out = Closing {
            room: FIRST_BATCH * OUTPUT,
        };
        let mut handed = 0;
        let result = render_in_order(
            &mut input,
            0,
            None,
            false,
            |_, _, _, output| output.push_str(&"x".repeat(OUTPUT)),
            &mut out,
            |_, (), _| {
                handed += 1;
                Handed::AsIs
            },
        );
        assert!(result.is_err_and(|e| e.kind() == io::ErrorKind::BrokenPipe));
        // Not the whole chunk of the next batch: one run's worth of records.
        assert_eq!(handed, FIRST_BATCH + RUN_BYTES / OUTPUT);
    }

    #[test]
    fn outputs_emit_replaces_keep_their_place_among_those_written_as_they_are() {
        // Past the first batch, several chunks, the last one part full.
        let records = FIRST_BATCH + 2 * CHUNK + 40;
        let (_dir, mut input) = numbered(records);
        let mut out = Flushes::default();
        // Every third record is written changed by `emit`, every fifth left out.
        render_in_order(
            &mut input,
            0,
            None,
            false,
            |_, _, frame, output| {
                output.push_str(&format!("{}\n", frame.index));
                frame.index
            },
            &mut out,
            |_, index, text| match index {
                i if i % 5 == 0 => Handed::Instead(String::new()),
                i if i % 3 == 0 => Handed::Instead(format!("({})\n", text.trim_end())),
                _ => Handed::AsIs,
            },
        )
        .unwrap();
        let expected: String = (0..records)
            .filter(|i| i % 5 != 0)
            .map(|i| match i % 3 {
                0 => format!("({i})\n"),
                _ => format!("{i}\n"),
            })
            .collect();
        assert_eq!(String::from_utf8(out.written).unwrap(), expected);
    }
}
