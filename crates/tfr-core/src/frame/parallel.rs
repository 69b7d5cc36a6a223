//! Indexing one file on every core. The file is cut into parts; each part finds where a frame
//! starts in it (a valid header whose next frames' headers are valid too), and walks and verifies
//! its frames from there, header and payload CRC, until it reaches the start the next part found.
//! The parts are then joined in order, each part's entries becoming a piece of the index (copied
//! only when they are few): where a part's walk ends exactly where the next part's begins, the
//! frames of both are the ones a walk from the start of the file finds.
//!
//! Only the run of intact frames is indexed this way. At the first frame that is not intact (a bad
//! header or payload CRC, a frame cut off by the end of the file), or where a part's walk does not
//! land on the next part's start, the sequential scan takes over from the last frame known good,
//! so its damage and resync rules apply unchanged. An intact frame is indexed exactly as the
//! sequential scan indexes it, so the index is the same either way.
//!
//! A part reads the frames of a source that holds all its bytes (a mapped file) where they lie,
//! a stretch of pages at a time, telling the source before and after each stretch so that a
//! mapped file fills in and drops the stretch's page-table entries in one call each; a source that
//! serves only ranges is copied a window at a time.

use super::{
    Candidate, FOOTER_LEN, FrameIndex, FrameStatus, HEADER_LEN, LengthCrcCache, examine, frame_end,
    pack, payload_crc_ok, payload_crcs_ok, read_length,
};
use crate::bytes::{ByteSource, ReadError};
use crate::crc::{RunningCrc, masked_crc32c, masked_crc32c_three};
use crate::resync::ResyncBudget;
use crate::span::{FileOffset, FileRange};
use rayon::prelude::*;

/// Bytes per part.
const PART_BYTES: u64 = 16 << 20;
/// Offsets a part tries for a frame start before leaving its frames to the part before it.
const START_SEARCH: u64 = 1 << 20;
/// Files smaller than this are indexed on one thread.
const PARALLEL_FROM: u64 = 32 << 20;
/// Valid headers in a row that make a part's start: chance agreement of that many 32-bit CRCs
/// is out of the question, and a wrong start only costs the parallelism anyway.
const SYNC_FRAMES: usize = 4;

/// How a part's walk ended.
#[derive(Debug)]
struct Walked {
    start: u64,
    /// The index entries of the intact frames walked, in order.
    entries: Vec<u64>,
    /// Where the walk stopped: the next part's start, or the first frame not intact.
    end: u64,
    /// Where the walk is to stop: frames starting before it are walked.
    target: u64,
    /// The number of entries at which the walk next makes room for more ([`Walked::make_room`]).
    room_check: usize,
}

impl Walked {
    fn new(start: u64, target: u64) -> Walked {
        Walked {
            start,
            entries: Vec::new(),
            end: start,
            target,
            room_check: EXPECT_AFTER,
        }
    }

    /// Takes the intact frame `[at, end)`, the one the walk is at. Inlined into the walk, which
    /// calls it for every frame; making room (after the first 256 frames, then once in every
    /// 131,072) is not.
    #[inline(always)]
    fn accept(&mut self, at: u64, end: u64) {
        if self.entries.len() == self.room_check {
            self.make_room();
        }
        debug_assert_eq!(at, self.end, "a walk takes its frames one after the other");
        self.entries.push(pack(at, FrameStatus::Intact, false));
        self.end = end;
    }

    /// The payload bytes of the frames walked: they lie one after the other from the part's
    /// start to where the walk stopped, so this is their span less their headers and footers,
    /// worked out once instead of added up for every frame.
    fn payload_bytes(&self) -> u64 {
        let framing = self.entries.len() as u64 * (HEADER_LEN + FOOTER_LEN);
        debug_assert!(
            self.end - self.start >= framing,
            "frames one after the other"
        );
        (self.end - self.start).saturating_sub(framing)
    }

    /// Reserves room for the entries up to the target at the average frame size so far (at most
    /// [`EXPECT_MOST`]): a part of small frames holds hundreds of thousands, which a vector growing
    /// by doubling would copy and move again and again.
    fn expect_the_rest(&mut self) {
        let walked = self.end - self.start;
        let average = walked / (self.entries.len() as u64).max(1);
        let rest = self.target.saturating_sub(self.end) / average.max(HEADER_LEN + FOOTER_LEN);
        let expected = rest.saturating_add(rest / 16).min(EXPECT_MOST);
        self.entries.reserve(usize::try_from(expected).unwrap_or(0));
    }

    /// After the first [`EXPECT_AFTER`] entries, reserves room for the rest
    /// ([`Walked::expect_the_rest`]); then, every [`FAULT_STEP`] entries, faults in the next
    /// step of that room by one call, instead of a page fault for every 512 entries written. A
    /// step at a time, so that room reserved for frames that do not come (small frames first,
    /// large ones after) costs at most one step of cleared memory.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        if self.entries.len() == EXPECT_AFTER {
            self.expect_the_rest();
        }
        let room = self.entries.spare_capacity_mut();
        let step = room.len().min(FAULT_STEP);
        if let Some(step) = room.get_mut(..step) {
            crate::source::fault_in_for_writing(step);
        }
        self.room_check = self.entries.len() + FAULT_STEP;
    }

    /// Gives back room reserved for entries that did not come (small frames first, large ones
    /// after them): every part's walk is held until the parts are joined, and a file of such
    /// parts would otherwise hold 8 MiB of room for each 16 MiB of it.
    fn give_back_room(&mut self) {
        if self.entries.capacity() - self.entries.len() > self.entries.len() / 8 {
            self.entries.shrink_to_fit();
        }
    }
}

/// Entries a part's walk takes before it reserves room for the rest.
const EXPECT_AFTER: usize = 256;
/// Entries of reserved room faulted in at once (1 MiB of them).
const FAULT_STEP: usize = 1 << 17;
/// The most entries a part's walk reserves room for at once (8 MiB of them): as many frames as
/// a part of [`PART_BYTES`] can hold.
const EXPECT_MOST: u64 = PART_BYTES / (HEADER_LEN + FOOTER_LEN);

impl FrameIndex {
    /// Indexes the whole of `data` as [`FrameIndex::build_with`] does, on every core of rayon's
    /// pool.
    pub fn build_parallel<S: ByteSource + ?Sized>(data: &S, budget: ResyncBudget) -> FrameIndex {
        let mut index = FrameIndex::start_parallel(data, budget);
        while !index.scan(data, u64::MAX) {}
        index
    }

    /// An index of `data` whose run of intact frames from the start was indexed on every core;
    /// [`FrameIndex::scan`] goes on from the first frame that is not intact.
    pub fn start_parallel<S: ByteSource + ?Sized>(data: &S, budget: ResyncBudget) -> FrameIndex {
        let mut index = FrameIndex::with_budget(data.len(), budget);
        if data.len() >= PARALLEL_FROM && rayon::current_num_threads() > 1 {
            index.scan_intact_parts(data, PART_BYTES, data.len());
        }
        index
    }

    /// Indexes up to `bytes` more of `data` on every core of rayon's pool, from where this index
    /// stopped: for commands that read every frame, which would otherwise wait for the lazy
    /// scan on one thread. The run of intact frames is indexed in parts, as
    /// [`FrameIndex::start_parallel`] indexes it, up to the first frame boundary at or past the
    /// limit; [`FrameIndex::scan`] goes on from the first frame that is not intact. Stretches too
    /// short to share out are left to the scan.
    pub fn scan_parts_ahead<S: ByteSource + ?Sized>(&mut self, data: &S, bytes: u64) {
        let until = self.pos.saturating_add(bytes).min(self.file_len);
        if until.saturating_sub(self.pos) >= PARALLEL_FROM && rayon::current_num_threads() > 1 {
            self.scan_intact_parts(data, PART_BYTES, until);
        }
    }

    #[cfg(test)]
    fn build_in_parts<S: ByteSource + ?Sized>(
        data: &S,
        budget: ResyncBudget,
        part_bytes: Option<u64>,
    ) -> FrameIndex {
        let mut index = FrameIndex::with_budget(data.len(), budget);
        if let Some(part_bytes) = part_bytes {
            index.scan_intact_parts(data, part_bytes.max(1), data.len());
        }
        while !index.scan(data, u64::MAX) {}
        index
    }

    /// Indexes the run of intact frames from where the index stopped (a frame start, unless it
    /// is resynchronising) up to the first frame boundary at or past `until`, part by part on
    /// the pool.
    fn scan_intact_parts<S: ByteSource + ?Sized>(&mut self, data: &S, part_bytes: u64, until: u64) {
        let end = until.min(self.file_len);
        if self.resync.is_some() || self.pos >= end {
            return;
        }
        let first = self.pos;
        let parts = (end - first).div_ceil(part_bytes);
        // Where each part's frames start (the first where the index stopped); `None` when no start
        // was found in it.
        // The search tries every offset of up to a megabyte: through the bytes as one slice
        // when the source has them so, each try a read of twelve bytes without a call.
        let whole = crate::bytes::whole(data).ok();
        let find = |from, to| match whole {
            Some(whole) => find_start(whole, from, to),
            None => find_start(data, from, to),
        };
        let starts: Vec<Option<u64>> = (0..parts)
            .into_par_iter()
            .map(|p| match p {
                0 => Some(first),
                p => find(
                    first + p * part_bytes,
                    (first + (p + 1) * part_bytes).min(end),
                ),
            })
            .collect();
        // Each part found walks to the next start found (or to `end`: the last walk stops at the
        // first frame boundary at or past it).
        let targets: Vec<u64> = (0..starts.len())
            .map(|p| starts.iter().skip(p + 1).find_map(|s| *s).unwrap_or(end))
            .collect();
        let walks: Vec<Option<Walked>> = starts
            .par_iter()
            .zip(targets.par_iter())
            .map(|(start, target)| start.map(|s| walk_part(data, s, *target)))
            .collect();
        // The walks that join up: each from where the one before it ended.
        let mut joined: Vec<Walked> = Vec::with_capacity(walks.len());
        let mut pos = first;
        for (walk, target) in walks.into_iter().zip(targets) {
            let Some(walk) = walk else { continue };
            // Parts are joined only where the previous walk ended: at this part's start.
            if walk.start != pos {
                break;
            }
            pos = walk.end;
            let stopped = walk.end != target;
            joined.push(walk);
            if stopped {
                break;
            }
        }
        self.intact_payload += joined.iter().map(Walked::payload_bytes).sum::<u64>();
        self.append_parts(joined);
        self.pos = pos;
    }

    /// Appends the entries of `parts`, in order: a part's vector becomes a piece of the index as
    /// it is (millions of small frames make tens of megabytes of entries), and a part of few
    /// entries is copied onto the piece before when that one is short too or has room
    /// (`Entries::append_piece`).
    fn append_parts(&mut self, parts: Vec<Walked>) {
        for part in parts {
            self.entries.append_piece(part.entries);
        }
    }
}

/// The first offset in `from..to` where a frame starts whose header and the headers of the
/// [`SYNC_FRAMES`] - 1 frames after it are valid (or that reach the end of the file).
///
/// At most [`START_SEARCH`] offsets are tried, and inside a record of many megabytes no start is
/// near: a part that finds none is walked by the part before it. An offset whose eight bytes
/// declare a frame longer than the rest of the file (nearly every offset inside a payload) is
/// passed over without the header CRC that [`examine`] would compute.
fn find_start<S: ByteSource + ?Sized>(data: &S, from: u64, to: u64) -> Option<u64> {
    let mut lengths = LengthCrcCache::new();
    let fits = |candidate: u64| {
        read_length(data, FileOffset(candidate))
            .and_then(|length| frame_end(candidate, length))
            .is_some_and(|end| end <= data.len())
    };
    (from..to.min(from.saturating_add(START_SEARCH))).find(|&candidate| {
        if !fits(candidate) {
            return false;
        }
        let mut pos = candidate;
        for _ in 0..SYNC_FRAMES {
            if pos == data.len() {
                return true;
            }
            match examine(data, pos, &mut lengths) {
                Candidate::Fits { end } => pos = end,
                _ => return false,
            }
        }
        true
    })
}

/// Bytes a part's walk copies at once from a source that cannot serve them all: most frames fit
/// whole, and the buffer stays in the core's cache while the CRCs are computed over it.
const WINDOW: usize = 128 << 10;

/// How far ahead of the frame it checks a walk in place asks for bytes: a page, so that each
/// page is on its way from memory before the walk reaches it (the processor's own prefetcher
/// stops at page boundaries).
const FETCH_AHEAD: usize = 4096;

/// Bytes of a part walked in place between hints to the kernel: about this much of the file is
/// mapped in per core (and a frame longer than it, while it is walked), where a whole part's
/// pages at once cost as much and kept 16 MiB resident a core.
const STRETCH_BYTES: u64 = 2 << 20;

/// Payloads longer than this are checked one at a time, and not asked for ahead: the CRC
/// library splits a long buffer into independent streams itself, and the processor's own
/// prefetcher keeps ahead of a stream that long (taking its CRC a page at a time, each page asked
/// for ahead, was 1.2x slower on 100 KiB records).
const LONG_PAYLOAD: usize = 16 << 10;

/// The bytes of `source` from `start` that a part's walk last read, as a byte source of the
/// stream's length that serves only ranges inside them.
struct Window {
    start: u64,
    bytes: Vec<u8>,
    filled: usize,
    stream_len: u64,
    /// Whether the window was read from `start` (it starts empty).
    read: bool,
}

/// Where a frame lies for a part's walk.
enum Seen {
    /// Whole in the window, header valid: it ends at `end`.
    Fits { end: u64 },
    /// Header valid and in the window, but the frame is larger than any window.
    Large { end: u64 },
    /// Not whole in the window.
    Outside,
    /// Its header is in the window and says the walk stops here (bad header, frame cut off).
    Stop,
}

impl Window {
    fn new(stream_len: u64) -> Window {
        Window {
            start: 0,
            bytes: vec![0; WINDOW],
            filled: 0,
            stream_len,
            read: false,
        }
    }

    fn end(&self) -> u64 {
        self.start + self.filled as u64
    }

    fn holds(&self, at: u64) -> bool {
        self.start <= at && at < self.end()
    }

    /// Reads the window afresh from `at`; false when it was read from there already (reading
    /// again would not move it).
    fn fill<S: ByteSource + ?Sized>(&mut self, data: &S, at: u64) -> bool {
        if self.read && self.start == at {
            return false;
        }
        // What the window already holds from `at` on moves to its front instead of being read
        // again: with frames of most of the window's size, that is most of a frame each time.
        let kept = match at.checked_sub(self.start) {
            Some(from) if self.read && from < self.filled as u64 => {
                let from = from as usize;
                self.bytes.copy_within(from..self.filled, 0);
                self.filled - from
            }
            _ => 0,
        };
        // A source may serve less than asked (a bounded ranged read): ask until the window is
        // full or nothing more comes.
        let mut filled = kept;
        while let Some(rest) = self.bytes.get_mut(filled..).filter(|rest| !rest.is_empty()) {
            match data.copy_into(at + filled as u64, rest) {
                0 => break,
                more => filled += more,
            }
        }
        self.start = at;
        self.filled = filled;
        self.read = true;
        true
    }

    fn frame_at(&self, at: u64, lengths: &mut LengthCrcCache) -> Seen {
        if at < self.start || at.saturating_add(HEADER_LEN) > self.end() {
            return Seen::Outside;
        }
        match examine(self, at, lengths) {
            Candidate::Fits { end } if end <= self.end() => Seen::Fits { end },
            Candidate::Fits { end } if end - at > WINDOW as u64 => Seen::Large { end },
            Candidate::Fits { .. } | Candidate::PartialHeader => Seen::Outside,
            Candidate::BadHeader | Candidate::Cut { .. } => Seen::Stop,
        }
    }

    /// [`walk_in_place`] over the bytes the window holds.
    fn walk_held(&self, pos: u64, target: u64, lengths: &mut LengthCrcCache, walked: &mut Walked) {
        walk_in_place(self.held(), self.start, pos, target, lengths, walked);
    }

    fn held(&self) -> &[u8] {
        self.bytes.get(..self.filled).unwrap_or_default()
    }

    /// Whether the payload CRC of the frame `[at, end)` (larger than the window, header valid)
    /// matches, reading it a window at a time. False too when its bytes cannot all be read.
    fn large_frame_ok<S: ByteSource + ?Sized>(&mut self, data: &S, at: u64, end: u64) -> bool {
        let crc_start = end - FOOTER_LEN;
        let mut crc = RunningCrc::default();
        let mut pos = at + HEADER_LEN;
        while pos < crc_start {
            if !self.holds(pos) && !self.fill(data, pos) {
                return false;
            }
            let piece = FileRange::new(FileOffset(pos), FileOffset(crc_start.min(self.end())));
            match self.read(piece) {
                Ok(bytes) if !bytes.is_empty() => crc.update(bytes),
                _ => return false,
            }
            pos = piece.end.0;
        }
        if end > self.end() {
            self.fill(data, crc_start);
        }
        self.read(FileRange::new(FileOffset(crc_start), FileOffset(end)))
            .ok()
            .and_then(|stored| stored.try_into().ok())
            .is_some_and(|stored| crc.masked() == u32::from_le_bytes(stored))
    }
}

impl ByteSource for Window {
    fn len(&self) -> u64 {
        self.stream_len
    }

    /// Only ranges inside the window; any other is [`ReadError::OutOfRange`] of what it holds.
    fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
        let held = || {
            let from = range.start.0.checked_sub(self.start)?;
            let to = range.end.0.checked_sub(self.start)?;
            self.held()
                .get(usize::try_from(from).ok()?..usize::try_from(to).ok()?)
        };
        held().ok_or(ReadError::OutOfRange {
            range,
            len: self.end(),
        })
    }
}

/// Walks and verifies the frames from `start` until `target` (a frame start found by the next
/// part, or the end of the file), stopping early at the first frame that is not intact, at bytes
/// that cannot be read, or when the walk passes `target` without landing on it.
///
/// Every frame is judged by the same header and payload checks the sequential scan makes.
/// Wherever this walk stops, the sequential scan takes over and judges the frame itself.
fn walk_part<S: ByteSource + ?Sized>(data: &S, start: u64, target: u64) -> Walked {
    let mut walked = match crate::bytes::whole(data) {
        Ok(whole) => walk_part_in_place(data, whole, start, target),
        Err(_) => walk_part_in_windows(data, start, target),
    };
    walked.give_back_room();
    walked
}

/// [`walk_part`] over a source that serves all its bytes at once (a mapped file), reading the
/// frames where they lie. The pages of each stretch are asked for before its walk and let go
/// after it ([`ByteSource::will_walk`]).
fn walk_part_in_place<S: ByteSource + ?Sized>(
    data: &S,
    whole: &[u8],
    start: u64,
    target: u64,
) -> Walked {
    let mut walked = Walked::new(start, target);
    let mut lengths = LengthCrcCache::new();
    // A stretch at a time, so that only a few megabytes of the file are mapped in at once (a
    // frame that runs past its stretch is mapped in by reading it, and let go with it).
    loop {
        let from = walked.end;
        let until = from.saturating_add(STRETCH_BYTES).min(target);
        let pages = FileRange::new(FileOffset(from), FileOffset(until.min(data.len())));
        data.will_walk(pages);
        walk_in_place(whole, 0, from, until, &mut lengths, &mut walked);
        data.walked(FileRange::new(
            FileOffset(from),
            FileOffset(walked.end.min(data.len())),
        ));
        if walked.end < until || walked.end >= target {
            break;
        }
    }
    walked
}

/// Walks the frames from `pos` that lie whole in `bytes` (the stream's bytes from `base`) and
/// are intact, until `target`, into `walked`; stops at the first frame it cannot judge alone: a
/// header that is not valid, a frame not whole in `bytes`, a payload CRC that fails.
///
/// This is the walk's common case, judged as [`examine`] and [`payload_crc_ok`] judge it (a
/// valid header, a frame that ends inside `bytes` and so inside the stream, a matching payload
/// CRC) but on indexes into the bytes, without the range checks of a read per field.
fn walk_in_place(
    bytes: &[u8],
    base: u64,
    pos: u64,
    target: u64,
    lengths: &mut LengthCrcCache,
    walked: &mut Walked,
) {
    let index_of = |offset: u64| {
        let index = offset.checked_sub(base)?;
        usize::try_from(index).ok().filter(|i| *i <= bytes.len())
    };
    let Some(mut at) = index_of(pos) else {
        return;
    };
    // Frames are walked while they start before the target, which may lie past the bytes.
    let until = index_of(target).unwrap_or(bytes.len());
    loop {
        // Up to three frames, so that their payload CRCs are computed together; a long payload
        // is checked on its own, after the frames before it.
        let mut frames: [(&[u8], u32, usize); 3] = [(&[], 0, 0); 3];
        let mut found = 0;
        let mut next = at;
        let mut long = None;
        while let Some(slot) = frames.get_mut(found).filter(|_| next < until) {
            let Some(frame) = frame_in(bytes, next, lengths) else {
                break;
            };
            let (payload, _, end) = frame;
            if payload.len() > LONG_PAYLOAD {
                long = Some(frame);
                break;
            }
            crate::source::prefetch(bytes, next + FETCH_AHEAD, end - next);
            *slot = frame;
            next = end;
            found += 1;
        }
        let crcs = match frames {
            [a, b, c] if found == 3 => masked_crc32c_three([a.0, b.0, c.0]),
            _ => frames.map(|(payload, _, _)| masked_crc32c(payload)),
        };
        for (&(_, stored, end), crc) in frames.iter().zip(crcs).take(found) {
            if crc != stored {
                return;
            }
            walked.accept(base + at as u64, base + end as u64);
            at = end;
        }
        match long {
            Some((payload, stored, end)) => {
                if masked_crc32c(payload) != stored {
                    return;
                }
                walked.accept(base + at as u64, base + end as u64);
                at = end;
            }
            None if found < 3 => return,
            None => {}
        }
    }
}

/// The frame at index `at` of `bytes`, when its header is valid and it lies whole in them: its
/// payload, the CRC stored after it, and the index where it ends.
#[inline]
fn frame_in<'a>(
    bytes: &'a [u8],
    at: usize,
    lengths: &mut LengthCrcCache,
) -> Option<(&'a [u8], u32, usize)> {
    let (header, rest) = bytes.get(at..)?.split_first_chunk::<12>()?;
    let (length, header_crc) = header.split_first_chunk::<8>()?;
    let length = u64::from_le_bytes(*length);
    let header_crc = u32::from_le_bytes(*header_crc.first_chunk::<4>()?);
    if lengths.masked_crc(length) != header_crc {
        return None;
    }
    let (payload, rest) = rest.split_at_checked(usize::try_from(length).ok()?)?;
    let stored = u32::from_le_bytes(*rest.first_chunk::<4>()?);
    let end = at + HEADER_LEN as usize + payload.len() + FOOTER_LEN as usize;
    Some((payload, stored, end))
}

/// [`walk_part`] over a source that serves only ranges of its bytes, copied a window at a time
/// ([`ByteSource::copy_into`]). The frames whole in the window are walked in place; the rest
/// (the frame at the window's end, one larger than any window, one that stops the walk) is
/// judged here.
fn walk_part_in_windows<S: ByteSource + ?Sized>(data: &S, start: u64, target: u64) -> Walked {
    let mut lengths = LengthCrcCache::new();
    let mut window = Window::new(data.len());
    let mut walked = Walked::new(start, target);
    'walk: while walked.end < target {
        window.walk_held(walked.end, target, &mut lengths, &mut walked);
        // The next frames whose headers are valid and that fit, three at a time, so that their
        // payload CRCs are computed together.
        let mut frames = [(0u64, 0u64); 3];
        let mut found = 0;
        let mut at = walked.end;
        let mut stops = false;
        while found < frames.len() && at < target {
            match window.frame_at(at, &mut lengths) {
                Seen::Fits { end } => {
                    frames[found] = (at, end);
                    found += 1;
                    at = end;
                }
                // The frames found so far are checked first: moving the window drops them.
                Seen::Outside | Seen::Large { .. } if found > 0 => break,
                Seen::Outside if window.fill(data, at) => {}
                Seen::Large { end } => {
                    if !window.large_frame_ok(data, at, end) {
                        break 'walk;
                    }
                    walked.accept(at, end);
                    continue 'walk;
                }
                // Outside even when read from here: the end of what could be read.
                Seen::Outside | Seen::Stop => {
                    stops = true;
                    break;
                }
            }
        }
        let verdicts = match frames {
            [a, b, c] if found == 3 => payload_crcs_ok(&window, [a, b, c]),
            _ => frames.map(|(at, end)| payload_crc_ok(&window, at, end)),
        };
        for (&(at, end), ok) in frames.iter().zip(verdicts).take(found) {
            if !ok {
                break 'walk;
            }
            walked.accept(at, end);
        }
        if stops {
            break;
        }
    }
    walked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::write_record;

    /// A file of many frames, with the payload CRC of frame `bad` broken when given.
    fn file(frames: usize, bad: Option<usize>) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..frames {
            let payload = vec![(i % 251) as u8; 100 + i % 900];
            let start = out.len();
            write_record(&payload, &mut out).unwrap();
            if Some(i) == bad {
                let last = out.len() - 1;
                out[last] ^= 0xff;
                assert!(out.len() > start);
            }
        }
        out
    }

    fn same(a: &FrameIndex, b: &FrameIndex, data: &[u8]) {
        assert_eq!(a.entries, b.entries);
        assert_eq!(a.damaged, b.damaged);
        assert_eq!(a.pos, b.pos);
        // The running total is what reading every intact frame's header gives.
        let read_back: u64 = a
            .frames(data)
            .filter(|f| f.status.is_intact())
            .filter_map(|f| f.declared_length)
            .sum();
        assert_eq!(a.intact_payload_bytes(), read_back);
        assert_eq!(b.intact_payload_bytes(), read_back);
    }

    #[test]
    fn a_walk_reserves_for_the_rest_of_its_part_at_the_average_frame_size_so_far() {
        let frames = EXPECT_AFTER as u64 + 1;
        let mut walked = Walked::new(0, 16 << 20);
        for frame in 0..frames {
            walked.accept(frame * 100, (frame + 1) * 100);
        }
        // Each frame's payload is its span less the 16 bytes of header and footer.
        assert_eq!(walked.payload_bytes(), frames * (100 - 16));
        let rest = ((16 << 20) - frames * 100) / 100;
        let room = walked.entries.capacity() - walked.entries.len();
        assert!(
            room as u64 >= rest && room as u64 <= rest + rest / 8,
            "{room} for {rest}"
        );
        // However far the target, no more than a part's worth of frames.
        let mut walked = Walked::new(0, u64::MAX);
        for frame in 0..frames {
            walked.accept(frame * 16, (frame + 1) * 16);
        }
        let capacity = walked.entries.capacity() as u64;
        assert!(
            (EXPECT_MOST..=EXPECT_MOST + frames).contains(&capacity),
            "{capacity}"
        );
        assert_eq!(walked.entries.len() as u64, frames);
    }

    #[test]
    fn reserved_room_is_faulted_in_a_step_at_a_time() {
        let mut walked = Walked::new(0, 64 << 20);
        let accept = |walked: &mut Walked, count: u64| {
            let from = walked.entries.len() as u64;
            for frame in from..from + count {
                walked.accept(frame * 16, (frame + 1) * 16);
            }
        };
        accept(&mut walked, EXPECT_AFTER as u64);
        assert_eq!(walked.room_check, EXPECT_AFTER);
        accept(&mut walked, 1);
        assert_eq!(walked.room_check, EXPECT_AFTER + FAULT_STEP);
        accept(&mut walked, FAULT_STEP as u64);
        assert_eq!(walked.room_check, EXPECT_AFTER + 2 * FAULT_STEP);
    }

    #[test]
    fn room_reserved_for_frames_that_did_not_come_is_given_back() {
        // Small frames first, then large ones: the room reserved at the small frames' size is
        // mostly not used.
        let mut data = Vec::new();
        for _ in 0..EXPECT_AFTER + 44 {
            crate::frame::write_record(&[], &mut data).unwrap();
        }
        for _ in 0..40 {
            crate::frame::write_record(&[7; 100_000], &mut data).unwrap();
        }
        let walked = walk_part(&data[..], 0, data.len() as u64);
        assert_eq!(walked.entries.len(), EXPECT_AFTER + 84);
        assert_eq!(walked.end, data.len() as u64);
        let len = walked.entries.len();
        assert!(walked.entries.capacity() <= len + len / 8);
    }

    #[test]
    fn parts_inside_records_longer_than_the_start_search_are_walked_by_the_part_before() {
        let big = vec![7u8; (START_SEARCH * 2) as usize];
        let mut data = Vec::new();
        for payload in [&big[..], b"small", &big[..], &big[..]] {
            write_record(payload, &mut data).unwrap();
        }
        let parallel = FrameIndex::build_in_parts(&data[..], ResyncBudget::DEFAULT, Some(64 << 10));
        same(&parallel, &FrameIndex::build(&data[..]), &data);
        assert_eq!(parallel.len(), 4);
    }

    #[test]
    fn frames_around_the_window_size_are_walked_as_the_sequential_scan_walks_them() {
        // Frames that fill the window exactly, just overflow it, are several times its size,
        // and small ones between them, so that windows end inside headers, payloads and CRCs.
        let sizes = [
            WINDOW - 16,
            WINDOW - 15,
            5,
            3 * WINDOW + 7,
            WINDOW - 40,
            100,
            WINDOW,
            1,
        ];
        let mut data = Vec::new();
        for i in 0..40 {
            let size = sizes[i % sizes.len()] + i;
            write_record(&vec![i as u8; size], &mut data).unwrap();
        }
        // Walked in place over the bytes, and a window at a time over ranged reads of them.
        for ranged in [false, true] {
            let source = |data: &[u8]| -> Box<dyn ByteSource> {
                match ranged {
                    true => Box::new(Stingy::ranged(data.to_vec())),
                    false => Box::new(data.to_vec()),
                }
            };
            let build = |data: &[u8]| {
                let part = Some(WINDOW as u64 * 2 + 3);
                FrameIndex::build_in_parts(&*source(data), ResyncBudget::DEFAULT, part)
            };
            let parts_only = |data: &[u8]| {
                let mut index = FrameIndex::with_budget(data.len() as u64, ResyncBudget::DEFAULT);
                index.scan_intact_parts(&*source(data), WINDOW as u64 * 2 + 3, data.len() as u64);
                index
            };
            assert_eq!(crate::bytes::whole(&*source(&data)).is_err(), ranged);
            assert_eq!(parts_only(&data).scanned(), data.len() as u64);
            let parallel = build(&data);
            same(&parallel, &FrameIndex::build(&data[..]), &data);
            assert_eq!(parallel.len(), 40);
            assert_eq!(parallel.damaged_count(), 0);
            // A payload CRC broken in a frame larger than the window, then in one that fits.
            for frame in [3, 4] {
                let mut broken = data.clone();
                let start = parallel.entries.get(frame).unwrap() & super::super::OFFSET_MASK;
                let end =
                    (parallel.entries.get(frame + 1).unwrap() & super::super::OFFSET_MASK) as usize;
                broken[end - 1] ^= 1;
                assert_eq!(
                    parts_only(&broken).scanned(),
                    start,
                    "the parts stop at the damage"
                );
                let index = build(&broken);
                same(&index, &FrameIndex::build(&broken[..]), &broken);
                assert_eq!(
                    index.damaged_frames(&broken[..]).next().map(|f| f.index),
                    Some(frame)
                );
            }
        }
    }

    /// Bytes served in ranges of at most [`Stingy::RANGE`] bytes (never all at once, as object
    /// storage behind a cache would serve them, so that parts are walked a window at a time), at
    /// most `most` bytes a copy, and none from `cut` on.
    struct Stingy {
        bytes: Vec<u8>,
        most: usize,
        cut: u64,
    }

    impl Stingy {
        /// Larger than any frame the tests write, so that the sequential scan reads them all.
        const RANGE: u64 = 1 << 20;

        fn ranged(bytes: Vec<u8>) -> Stingy {
            Stingy {
                bytes,
                most: usize::MAX,
                cut: u64::MAX,
            }
        }
    }

    impl ByteSource for Stingy {
        fn len(&self) -> u64 {
            self.bytes.len() as u64
        }

        fn read(&self, range: FileRange) -> Result<&[u8], ReadError> {
            if range.len() > Stingy::RANGE {
                return Err(ReadError::TooLarge {
                    range,
                    limit: Stingy::RANGE,
                });
            }
            self.bytes.read(range)
        }

        fn copy_into(&self, at: u64, buf: &mut [u8]) -> usize {
            let most = buf.len().min(self.most);
            let served = crate::bytes::copy_read(&self.bytes, at, &mut buf[..most]);
            served.min(self.cut.saturating_sub(at) as usize)
        }
    }

    /// Frames of many sizes, some larger than the window, of bytes that differ along each
    /// payload (so that a CRC taken piece by piece depends on the order of the pieces).
    fn mixed_file() -> Vec<u8> {
        let mut data = Vec::new();
        for i in 0..60 {
            let size = [100, 5_000, WINDOW + 999, 250, 3 * WINDOW][i % 5] + i;
            let payload: Vec<u8> = (0..size).map(|j| ((j * 31 + i) % 251) as u8).collect();
            write_record(&payload, &mut data).unwrap();
        }
        data
    }

    #[test]
    fn an_index_scanned_partway_is_continued_in_parts_as_the_scan_would_continue_it() {
        let data = mixed_file();
        let mut broken = data.clone();
        // Damage in the payload of the 30th frame, so that some continuations meet it.
        let damaged = FrameIndex::build(&data[..])
            .frames(&data[..])
            .nth(30)
            .unwrap();
        broken[damaged.offset.0 as usize + 20] ^= 1;
        for bytes in [&data, &broken] {
            let sequential = FrameIndex::build(&bytes[..]);
            // Stopped after a few frames, inside the damage's resync, past it (the resync
            // resolved), and at the end; then continued in parts to the end, or a stretch.
            let len = bytes.len() as u64;
            let past_damage = damaged.offset.0 + 1_000_000;
            for budget in [1, 300_000, damaged.offset.0 + 1, past_damage, len] {
                for stretch in [len, 700_000] {
                    let mut index = FrameIndex::new(len);
                    index.scan(&bytes[..], budget);
                    if budget == past_damage {
                        assert!(index.resync.is_none(), "the damage is behind the scan");
                    }
                    let before = index.len();
                    let stopped_at = index.scanned();
                    let until = stopped_at.saturating_add(stretch).min(len);
                    index.scan_intact_parts(&bytes[..], WINDOW as u64 * 2 + 3, until);
                    // Through intact frames, the parts index the stretch, to the first frame
                    // boundary at or past its end.
                    let intact_ahead = *bytes == data || budget == past_damage;
                    if intact_ahead && stopped_at < len {
                        assert!(index.len() > before);
                        assert!(index.scanned() >= until);
                    }
                    while !index.scan(&bytes[..], u64::MAX) {}
                    same(&index, &sequential, bytes);
                }
            }
        }
    }

    #[test]
    fn short_reads_still_walk_every_frame_and_failed_reads_leave_the_rest_to_the_scan() {
        let data = mixed_file();
        let len = data.len() as u64;
        let part = WINDOW as u64 * 3 + 5;
        for (most, cut) in [(1_000, u64::MAX), (WINDOW, len / 2)] {
            let stingy = Stingy {
                bytes: data.clone(),
                most,
                cut,
            };
            assert!(crate::bytes::whole(&stingy).is_err(), "walked in windows");
            let mut parts_only = FrameIndex::with_budget(len, ResyncBudget::DEFAULT);
            parts_only.scan_intact_parts(&stingy, part, len);
            if cut >= len {
                assert_eq!(
                    parts_only.scanned(),
                    len,
                    "every frame walked in short reads"
                );
            } else {
                assert!(
                    (part..=cut).contains(&parts_only.scanned()),
                    "stopped at the cut"
                );
            }
            let index = FrameIndex::build_in_parts(&stingy, ResyncBudget::DEFAULT, Some(part));
            same(&index, &FrameIndex::build(&data[..]), &data);
            assert_eq!((index.len(), index.damaged_count()), (60, 0));
        }
    }

    #[test]
    fn damage_inside_a_frame_larger_than_the_window_is_found() {
        let data = mixed_file();
        let index = FrameIndex::build(&data[..]);
        let large = index.frames(&data[..]).nth(2).unwrap();
        assert!(large.declared_length.unwrap() > WINDOW as u64);
        // A byte in the middle of the payload's first window, and in its last, partial one;
        // walked in place, and a window at a time.
        for at in [WINDOW / 2, WINDOW + 7, WINDOW + 900] {
            let mut broken = data.clone();
            broken[large.offset.0 as usize + 12 + at] ^= 0x10;
            let ranged = Stingy::ranged(broken.clone());
            assert!(crate::bytes::whole(&ranged).is_err());
            for source in [&broken as &dyn ByteSource, &ranged] {
                let part = Some(1 << 20);
                let parallel = FrameIndex::build_in_parts(source, ResyncBudget::DEFAULT, part);
                same(&parallel, &FrameIndex::build(&broken[..]), &broken);
                let damaged = parallel.damaged_frames(&broken[..]).next().map(|f| f.index);
                assert_eq!(damaged, Some(2));
            }
        }
    }

    #[test]
    fn a_stored_crc_that_straddles_the_window_end_is_read_whole() {
        // Read from the frame's start, the payload fills two windows but for the stored CRC's
        // first two bytes, which end the second window.
        let payload: Vec<u8> = (0..2 * WINDOW - 14).map(|j| (j % 253) as u8).collect();
        let mut data = Vec::new();
        write_record(&payload, &mut data).unwrap();
        let end = data.len() as u64;
        let judge = |data: &[u8]| {
            let mut window = Window::new(end);
            window.fill(data, 0);
            window.large_frame_ok(data, 0, end)
        };
        assert!(judge(&data));
        for place in [data.len() - 1, data.len() - 4, WINDOW + 5] {
            let mut broken = data.clone();
            broken[place] ^= 1;
            assert!(!judge(&broken), "byte {place} changed");
        }
    }

    #[test]
    fn a_part_starts_at_the_first_frame_from_where_it_looks() {
        let data = mixed_file();
        let starts: Vec<u64> = FrameIndex::build(&data[..])
            .frames(&data[..])
            .map(|f| f.offset.0)
            .collect();
        let len = data.len() as u64;
        // From inside every frame, and from each start itself (the last frame ends the file).
        for (i, &start) in starts.iter().enumerate() {
            let next = starts.get(i + 1).copied();
            assert_eq!(find_start(&data[..], start, len), Some(start));
            if let Some(next) = next.filter(|n| n - start <= START_SEARCH) {
                assert_eq!(find_start(&data[..], start + 1, len), Some(next));
            }
        }
        assert_eq!(find_start(&data[..], len - 3, len), None);
    }

    #[test]
    fn a_mapped_file_is_walked_in_place_and_reads_the_same_after() {
        use crate::source::{ReadOptions, Source};
        let data = mixed_file();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mixed.tfrecord");
        std::fs::write(&path, &data).unwrap();
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
        assert!(data.len() as u64 > 2 * STRETCH_BYTES);
        // Parts shorter than a stretch, and longer than two, ending inside one.
        for part in [WINDOW as u64 * 3 + 5, 2 * STRETCH_BYTES + 3] {
            let mut parts_only = FrameIndex::with_budget(data.len() as u64, ResyncBudget::DEFAULT);
            parts_only.scan_intact_parts(&source, part, source.len());
            assert_eq!(parts_only.scanned(), data.len() as u64);
            let index = FrameIndex::build_in_parts(&source, ResyncBudget::DEFAULT, Some(part));
            same(&index, &FrameIndex::build(&data[..]), &data);
        }
        assert!(!source.faulted());
        // The parts' pages were let go after their walks; the map still reads the file.
        assert!(crate::bytes::whole(&source).unwrap() == data.as_slice());
    }

    #[test]
    fn a_mapped_file_cut_short_before_its_parts_are_walked_stops_them_at_the_cut() {
        use crate::source::{ReadOptions, Source};
        let data = file(12_000, None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.tfrecord");
        std::fs::write(&path, &data).unwrap();
        let source = Source::open(&path, &ReadOptions::as_is()).unwrap();
        let (len, cut) = (data.len() as u64, data.len() as u64 / 3);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(cut)
            .unwrap();
        // The pages past the cut read as zeros, which no part takes for frames.
        let mut parts_only = FrameIndex::with_budget(len, ResyncBudget::DEFAULT);
        parts_only.scan_intact_parts(&source, 1 << 20, len);
        assert!(
            parts_only.scanned() <= cut,
            "{} > {cut}",
            parts_only.scanned()
        );
        assert!(!parts_only.is_empty());
        assert!(source.faulted());
        assert!(source.check_unchanged().is_err());
    }

    #[test]
    fn a_part_longer_than_a_stretch_is_walked_stretch_after_stretch() {
        for bad in [None, Some(9_000)] {
            let data = file(12_000, bad);
            assert!(data.len() as u64 > 3 * STRETCH_BYTES);
            let len = data.len() as u64;
            let mut parts_only = FrameIndex::with_budget(len, ResyncBudget::DEFAULT);
            parts_only.scan_intact_parts(&data[..], len, len);
            let sequential = FrameIndex::build(&data[..]);
            let stops_at = match bad {
                Some(frame) => sequential.entries.get(frame).unwrap() & super::super::OFFSET_MASK,
                None => len,
            };
            assert_eq!(parts_only.scanned(), stops_at);
            let index = FrameIndex::build_in_parts(&data[..], ResyncBudget::DEFAULT, Some(len));
            same(&index, &sequential, &data);
        }
    }

    #[test]
    fn the_parallel_index_is_the_sequential_one() {
        // In parts of 64 KiB, so that the pool checks it in many.
        let frames = 3_000;
        let build =
            |data: &[u8]| FrameIndex::build_in_parts(data, ResyncBudget::DEFAULT, Some(64 << 10));
        for bad in [None, Some(0), Some(1_234), Some(frames - 1)] {
            let mut data = file(frames, bad);
            assert!(data.len() > 16 << 20 >> 4);
            let parallel = build(&data[..]);
            same(&parallel, &FrameIndex::build(&data[..]), &data);
            assert_eq!(parallel.damaged_count(), usize::from(bad.is_some()));
            // Cut off in the middle of the last frame, and with a bad header half way.
            data.truncate(data.len() - 7);
            let cut = build(&data[..]);
            same(&cut, &FrameIndex::build(&data[..]), &data);
            let sequential = FrameIndex::build(&data[..]);
            let middle = sequential
                .entries
                .get(sequential.entries.len() / 2)
                .unwrap();
            let header = (middle & super::super::OFFSET_MASK) as usize;
            data[header + 9] ^= 0x55;
            let broken = build(&data[..]);
            same(&broken, &FrameIndex::build(&data[..]), &data);
            assert!(broken.damaged_count() >= 1);
        }
    }

    #[test]
    fn an_index_in_pieces_reads_as_the_sequential_one_across_every_piece_edge() {
        // Frames of 20 to 39 bytes in parts of 200 KiB: some 6,900 a part, more than are copied,
        // so that the parts stay pieces of their own; damage in a later part, so that the scan
        // goes on after them.
        let mut data = Vec::new();
        let mut starts = Vec::new();
        for i in 0..40_000usize {
            starts.push(data.len());
            write_record(&vec![(i % 7) as u8; 4 + i % 20], &mut data).unwrap();
        }
        data[starts[33_000] + 12] ^= 1;
        let parallel =
            FrameIndex::build_in_parts(&data[..], ResyncBudget::DEFAULT, Some(200 << 10));
        let sequential = FrameIndex::build(&data[..]);
        same(&parallel, &sequential, &data);
        let edges = parallel.entries.piece_starts();
        assert!(edges.len() >= 4, "{edges:?}");
        assert_eq!(parallel.damaged_count(), 1);
        assert_eq!(
            parallel.damaged_frames(&data[..]).collect::<Vec<_>>(),
            sequential.damaged_frames(&data[..]).collect::<Vec<_>>()
        );
        for &edge in edges.iter().skip(1) {
            for (i, start) in starts.iter().enumerate().skip(edge - 1).take(3) {
                assert_eq!(
                    parallel.get(&data[..], i),
                    sequential.get(&data[..], i),
                    "frame {i}"
                );
                let inside = FileOffset(*start as u64 + 13);
                assert_eq!(
                    parallel.frame_containing(&data[..], inside),
                    sequential.frame_containing(&data[..], inside)
                );
            }
            // A copy brought up to date from around the edge reads the same.
            for first in edge - 1..=edge + 1 {
                let mut copy = parallel.clone();
                assert!(copy.apply(parallel.delta_since(first)));
                same(&copy, &sequential, &data);
            }
        }
    }
}
