//! The frame index: where every record of a TFRecord file starts, and whether it is intact.
//!
//! A frame is `u64 length | u32 masked crc(length) | payload | u32 masked crc(payload)`, all little
//! endian. The index is built by one forward scan that never copies a payload. When a frame is
//! damaged the scan does not stop the way TensorFlow's reader does: it resynchronises by trying every
//! following byte offset until a frame whose header CRC, extent and payload CRC all check out, so
//! every intact record after the damage is still found. A frame is only ever accepted with both CRCs
//! valid, so payload bytes are never mistaken for a header.
//!
//! One exception to trying every offset: a frame whose header is valid and whose payload CRC fails,
//! but which ends exactly where the file ends or an intact frame begins, has a length worth
//! trusting. The scan continues after it, so the frames of a TFRecord file stored as that record's
//! payload are not taken for records of this file (see [`crate::nested`]).
//!
//! Each entry is packed into one `u64` (56 bits of offset, 8 bits of status), so a 4-million-frame
//! file costs 32 MiB of index; the length is read back from the mapped header when asked for.

mod entries;
mod parallel;

use crate::bytes::{ByteSource, ReadError};
use crate::crc::{masked_crc32c, masked_crc32c_three};
use crate::resync::{ResyncBudget, UnverifiedRanges};
use crate::span::{FileOffset, FileRange};
use entries::Entries;

/// Bytes before the payload: the `u64` length and its masked CRC.
pub const HEADER_LEN: u64 = 12;
/// Bytes after the payload: its masked CRC.
pub const FOOTER_LEN: u64 = 4;

/// What the scan found at the start of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameStatus {
    /// Header CRC and payload CRC both match.
    Intact,
    /// The header is valid and the frame fits, but the payload (or its stored CRC) is damaged.
    DataCrcMismatch,
    /// The stored CRC of the length field does not match: the length cannot be trusted.
    LengthCrcMismatch,
    /// The header is valid but the file ends before the payload and footer do.
    TruncatedRecord,
    /// The header is valid but declares a length larger than the whole file.
    LengthExceedsFile,
    /// Fewer than 12 bytes remain: not even a header fits.
    PartialHeader,
}

impl FrameStatus {
    const ALL: [FrameStatus; 6] = [
        FrameStatus::Intact,
        FrameStatus::DataCrcMismatch,
        FrameStatus::LengthCrcMismatch,
        FrameStatus::TruncatedRecord,
        FrameStatus::LengthExceedsFile,
        FrameStatus::PartialHeader,
    ];

    pub fn is_intact(self) -> bool {
        self == FrameStatus::Intact
    }

    /// The stable machine name used in JSON output (matching the fixtures' vocabulary).
    pub fn name(self) -> &'static str {
        match self {
            FrameStatus::Intact => "intact",
            FrameStatus::DataCrcMismatch => "data_crc_mismatch",
            FrameStatus::LengthCrcMismatch => "length_crc_mismatch",
            FrameStatus::TruncatedRecord => "truncated_record",
            FrameStatus::LengthExceedsFile => "length_exceeds_file",
            FrameStatus::PartialHeader => "partial_header",
        }
    }

    /// Whether the stored length CRC matched (`None` when there was no complete header).
    pub fn length_crc_ok(self) -> Option<bool> {
        match self {
            FrameStatus::PartialHeader => None,
            FrameStatus::LengthCrcMismatch => Some(false),
            _ => Some(true),
        }
    }

    /// Whether the stored payload CRC matched (`None` when it could not be checked).
    pub fn data_crc_ok(self) -> Option<bool> {
        match self {
            FrameStatus::Intact => Some(true),
            FrameStatus::DataCrcMismatch => Some(false),
            _ => None,
        }
    }

    fn code(self) -> u64 {
        self as u64
    }

    fn from_code(code: u64) -> FrameStatus {
        FrameStatus::ALL
            .get(code as usize)
            .copied()
            .unwrap_or(FrameStatus::PartialHeader)
    }
}

/// The decoded header fields of a frame, with the CRCs as stored and as computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub length: u64,
    pub stored_length_crc: u32,
    pub computed_length_crc: u32,
}

impl Header {
    /// Reads the 12-byte header at `offset`, if the data holds that many bytes there.
    pub fn read<S: ByteSource + ?Sized>(data: &S, offset: FileOffset) -> Option<Header> {
        let bytes = data.read(FileRange::at(offset, HEADER_LEN)?).ok()?;
        let (len_bytes, crc_bytes) = bytes.split_at_checked(8)?;
        Some(Header {
            length: u64::from_le_bytes(len_bytes.try_into().ok()?),
            stored_length_crc: u32::from_le_bytes(crc_bytes.try_into().ok()?),
            computed_length_crc: masked_crc32c(len_bytes),
        })
    }

    pub fn crc_ok(&self) -> bool {
        self.stored_length_crc == self.computed_length_crc
    }
}

/// The length field at `offset`, without checking its CRC (the index already did).
fn read_length<S: ByteSource + ?Sized>(data: &S, offset: FileOffset) -> Option<u64> {
    let bytes = data.read(FileRange::at(offset, 8)?).ok()?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// One frame of the index, with everything derived from its entry and its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Position in the index: the record number shown everywhere in the tool.
    pub index: usize,
    pub offset: FileOffset,
    pub status: FrameStatus,
    /// The length the header declares (`None` without a complete header).
    pub declared_length: Option<u64>,
    /// Where the region owned by this frame ends: the frame end for intact frames, else the start
    /// of the next accepted frame (or the end of the file).
    pub region_end: FileOffset,
    /// True when bytes were skipped to find this frame after damage.
    pub after_resync: bool,
}

impl Frame {
    /// The payload's byte range in the file, when the header is valid and the frame fits.
    pub fn payload_range(&self) -> Option<FileRange> {
        match self.status {
            FrameStatus::Intact | FrameStatus::DataCrcMismatch => {
                FileRange::at(self.offset.checked_add(HEADER_LEN)?, self.declared_length?)
            }
            _ => None,
        }
    }

    /// The bytes this frame owns: from its start to [`Frame::region_end`].
    pub fn region(&self) -> FileRange {
        FileRange::new(self.offset, self.region_end)
    }

    /// The payload bytes, when [`Frame::payload_range`] exists and they can be read. A read
    /// that fails (a source that will not serve the payload at once, a fetch that failed) is
    /// noted with the source ([`ByteSource::note_unread`]), which the command reports, naming
    /// the record and the offset, rather than take the record for one without a payload.
    pub fn payload<'a, S: ByteSource + ?Sized>(&self, data: &'a S) -> Option<&'a [u8]> {
        match data.read(self.payload_range()?) {
            Ok(payload) => Some(payload),
            Err(error) => {
                data.note_unread(self.index, &error);
                None
            }
        }
    }

    /// Where the frame's whole extent `[offset, offset + 16 + length)` ends, when it fits.
    pub fn frame_end(&self) -> Option<FileOffset> {
        self.payload_range()?.end.checked_add(FOOTER_LEN)
    }

    /// The offset TensorFlow names in "corrupted record at N" / "truncated record at N".
    pub fn tensorflow_offset(&self) -> Option<FileOffset> {
        match self.status {
            FrameStatus::Intact | FrameStatus::PartialHeader => None,
            FrameStatus::DataCrcMismatch => Some(self.offset.saturating_add(HEADER_LEN)),
            _ => Some(self.offset),
        }
    }

    /// The error TensorFlow's reader gives for this frame, when it gives one.
    pub fn tensorflow_message(&self) -> Option<String> {
        let offset = self.tensorflow_offset()?;
        Some(match self.status {
            FrameStatus::TruncatedRecord | FrameStatus::LengthExceedsFile => {
                format!("truncated record at {offset}")
            }
            _ => format!("corrupted record at {offset}"),
        })
    }

    /// The stored and the computed payload CRC, when the payload is in the file.
    pub fn data_crcs<S: ByteSource + ?Sized>(&self, data: &S) -> Option<(u32, u32)> {
        let payload = self.payload_range()?;
        let stored = data.read(FileRange::at(payload.end, FOOTER_LEN)?).ok()?;
        Some((
            u32::from_le_bytes(stored.try_into().ok()?),
            masked_crc_of(data, payload)?,
        ))
    }
}

const OFFSET_BITS: u32 = 56;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
const RESYNC_FLAG: u64 = 1 << 63;
const STATUS_SHIFT: u32 = OFFSET_BITS;

fn pack(offset: u64, status: FrameStatus, after_resync: bool) -> u64 {
    (offset & OFFSET_MASK)
        | (status.code() << STATUS_SHIFT)
        | if after_resync { RESYNC_FLAG } else { 0 }
}

/// Frames one payload the way TensorFlow's writer does; returns the bytes written.
pub fn write_record(
    payload: &[u8],
    out: &mut (impl std::io::Write + ?Sized),
) -> std::io::Result<u64> {
    let len = (payload.len() as u64).to_le_bytes();
    out.write_all(&len)?;
    out.write_all(&masked_crc32c(&len).to_le_bytes())?;
    out.write_all(payload)?;
    out.write_all(&masked_crc32c(payload).to_le_bytes())?;
    Ok(HEADER_LEN + payload.len() as u64 + FOOTER_LEN)
}

/// What a single position looks like as the start of a frame (payload CRC not yet checked).
enum Candidate {
    PartialHeader,
    BadHeader,
    /// A valid header whose frame does not fit in the file.
    Cut {
        status: FrameStatus,
    },
    /// A valid header whose frame fits; `end` is just past its payload CRC.
    Fits {
        end: u64,
    },
}

/// The masked CRCs of recently seen length fields.
///
/// Shards mostly hold records of few distinct lengths, and the header CRC depends on the length
/// alone, so remembering it spares a CRC call per frame: that call is a large share of the work on
/// small records.
#[derive(Debug, Clone)]
struct LengthCrcCache([(u64, u32); 64]);

impl LengthCrcCache {
    fn new() -> LengthCrcCache {
        LengthCrcCache(std::array::from_fn(|i| {
            (i as u64, masked_crc32c(&(i as u64).to_le_bytes()))
        }))
    }

    fn masked_crc(&mut self, length: u64) -> u32 {
        let slot = &mut self.0[(length % 64) as usize];
        if slot.0 != length {
            *slot = (length, masked_crc32c(&length.to_le_bytes()));
        }
        slot.1
    }
}

/// Where a frame at `pos` whose header declares `length` ends (`None` past `u64::MAX`).
fn frame_end(pos: u64, length: u64) -> Option<u64> {
    pos.checked_add(HEADER_LEN)?
        .checked_add(length)?
        .checked_add(FOOTER_LEN)
}

fn examine<S: ByteSource + ?Sized>(data: &S, pos: u64, crcs: &mut LengthCrcCache) -> Candidate {
    let header = FileRange::at(FileOffset(pos), HEADER_LEN).and_then(|r| data.read(r).ok());
    let Some((length, stored_crc)) = header.and_then(|h| {
        let length = u64::from_le_bytes(h.get(..8)?.try_into().ok()?);
        Some((length, u32::from_le_bytes(h.get(8..12)?.try_into().ok()?)))
    }) else {
        return Candidate::PartialHeader;
    };
    if crcs.masked_crc(length) != stored_crc {
        return Candidate::BadHeader;
    }
    let file_len = data.len();
    match frame_end(pos, length) {
        Some(end) if end <= file_len => Candidate::Fits { end },
        _ if length > file_len => Candidate::Cut {
            status: FrameStatus::LengthExceedsFile,
        },
        _ => Candidate::Cut {
            status: FrameStatus::TruncatedRecord,
        },
    }
}

/// Whether the payload CRC of the frame `[pos, end)` matches (the frame is known to fit).
fn payload_crc_ok<S: ByteSource + ?Sized>(data: &S, pos: u64, end: u64) -> bool {
    let payload = FileRange::new(
        FileOffset(pos.saturating_add(HEADER_LEN)),
        FileOffset(end.saturating_sub(FOOTER_LEN)),
    );
    let stored = data
        .read(FileRange::new(payload.end, FileOffset(end)))
        .ok()
        .and_then(|stored| stored.try_into().ok())
        .map(u32::from_le_bytes);
    stored.is_some_and(|stored| masked_crc_of(data, payload) == Some(stored))
}

/// The masked CRC of the bytes of `range`, read in as few pieces as the source serves them (a
/// ranged source may refuse a payload longer than it reads at once: that is no damage); `None`
/// when they cannot all be read.
fn masked_crc_of<S: ByteSource + ?Sized>(data: &S, range: FileRange) -> Option<u32> {
    if let Ok(bytes) = data.read(range) {
        return Some(masked_crc32c(bytes));
    }
    let mut crc = crate::crc::RunningCrc::default();
    let mut at = range.start;
    let mut piece = range.len();
    while at < range.end {
        let end = FileOffset(at.0.saturating_add(piece).min(range.end.0));
        match data.read(FileRange::new(at, end)) {
            Ok(bytes) if !bytes.is_empty() => {
                crc.update(bytes);
                at = end;
            }
            Err(ReadError::TooLarge { limit, .. }) if limit > 0 && limit < piece => piece = limit,
            Err(ReadError::TooLarge { .. }) if piece > 1 => piece /= 2,
            _ => return None,
        }
    }
    Some(crc.masked())
}

/// [`payload_crc_ok`] for three frames (known to fit), their CRCs computed together.
fn payload_crcs_ok<S: ByteSource + ?Sized>(data: &S, frames: [(u64, u64); 3]) -> [bool; 3] {
    let [a, b, c] = frames.map(|(pos, end)| payload_and_crc(data, pos, end));
    let (Some((a, stored_a)), Some((b, stored_b)), Some((c, stored_c))) = (a, b, c) else {
        return frames.map(|(pos, end)| payload_crc_ok(data, pos, end));
    };
    let [crc_a, crc_b, crc_c] = masked_crc32c_three([a, b, c]);
    [crc_a == stored_a, crc_b == stored_b, crc_c == stored_c]
}

/// The payload of the frame `[pos, end)` and the CRC stored after it.
#[inline]
fn payload_and_crc<S: ByteSource + ?Sized>(data: &S, pos: u64, end: u64) -> Option<(&[u8], u32)> {
    let payload_start = FileOffset(pos.saturating_add(HEADER_LEN));
    let crc_start = FileOffset(end.saturating_sub(FOOTER_LEN));
    let payload = data.read(FileRange::new(payload_start, crc_start)).ok()?;
    let stored = data.read(FileRange::new(crc_start, FileOffset(end))).ok()?;
    Some((payload, u32::from_le_bytes(stored.try_into().ok()?)))
}

/// Resynchronisation state: set while the scan is looking for the next intact frame.
#[derive(Debug, Clone, Copy)]
struct Resync {
    /// Offsets before this belong to the damaged frame that started the resync (its declared extent),
    /// so a header found inside it is not reported as another damaged frame.
    claimed_end: u64,
}

/// New entries of a [`FrameIndex`] and its scan state after them (see [`FrameIndex::delta_since`]).
#[derive(Debug, Clone)]
pub struct IndexDelta {
    first: usize,
    entries: Vec<u64>,
    pos: u64,
    resync: Option<Resync>,
    damaged: usize,
    intact_payload: u64,
    resync_work: u64,
    unverified: u64,
    unverified_ranges: UnverifiedRanges,
}

impl IndexDelta {
    /// How many entries the copy will have after applying this delta.
    pub fn end(&self) -> usize {
        self.first + self.entries.len()
    }
}

/// The incremental frame index of one TFRecord stream.
#[derive(Debug, Clone)]
pub struct FrameIndex {
    entries: Entries,
    file_len: u64,
    pos: u64,
    resync: Option<Resync>,
    damaged: usize,
    /// The payload bytes of the intact frames, counted as they are found, so that a summary
    /// need not read every header again.
    intact_payload: u64,
    length_crcs: LengthCrcCache,
    budget: ResyncBudget,
    /// Payload bytes CRC'd for resync candidates that turned out damaged.
    resync_work: u64,
    /// Resync candidates passed over unverified once the budget was spent.
    unverified: u64,
    /// The extents of those candidates.
    unverified_ranges: UnverifiedRanges,
}

impl FrameIndex {
    /// An empty index for a stream of `file_len` bytes; call [`FrameIndex::scan`] to fill it.
    pub fn new(file_len: u64) -> FrameIndex {
        FrameIndex::with_budget(file_len, ResyncBudget::DEFAULT)
    }

    /// [`FrameIndex::new`] with the given resync work budget.
    pub fn with_budget(file_len: u64, budget: ResyncBudget) -> FrameIndex {
        FrameIndex {
            entries: Entries::new(),
            file_len,
            pos: 0,
            resync: None,
            damaged: 0,
            intact_payload: 0,
            length_crcs: LengthCrcCache::new(),
            budget,
            resync_work: 0,
            unverified: 0,
            unverified_ranges: UnverifiedRanges::default(),
        }
    }

    /// Indexes the whole of `data`.
    pub fn build<S: ByteSource + ?Sized>(data: &S) -> FrameIndex {
        FrameIndex::build_with(data, ResyncBudget::DEFAULT)
    }

    /// Indexes the whole of `data` with the given resync work budget.
    pub fn build_with<S: ByteSource + ?Sized>(data: &S, budget: ResyncBudget) -> FrameIndex {
        let mut index = FrameIndex::with_budget(data.len(), budget);
        while !index.scan(data, u64::MAX) {}
        index
    }

    /// The complete index of a stream of `file_len` bytes whose frames are all intact and are
    /// `entries` (a record index, as [`crate::record_index::entries`] gives it and `index`
    /// writes it): what a cache of an earlier scan of the same bytes holds. `None` unless the
    /// entries tile the stream exactly, each frame at least a header and a footer long.
    pub fn from_record_index(
        file_len: u64,
        entries: &[crate::record_index::IndexEntry],
    ) -> Option<FrameIndex> {
        let mut index = FrameIndex::new(file_len);
        let mut at = 0u64;
        for entry in entries {
            let payload = entry.len.checked_sub(HEADER_LEN + FOOTER_LEN)?;
            if entry.offset.0 != at || at > OFFSET_MASK {
                return None;
            }
            index.push(at, FrameStatus::Intact, false);
            index.intact_payload = index.intact_payload.checked_add(payload)?;
            at = at.checked_add(entry.len)?;
        }
        if at != file_len {
            return None;
        }
        index.pos = file_len;
        Some(index)
    }

    /// The resync work budget this index scans with.
    pub fn budget(&self) -> ResyncBudget {
        self.budget
    }

    /// Scans onward for roughly `byte_budget` bytes (at least one step); returns true when complete.
    ///
    /// `data` must be the same bytes every call. Budgeting lets an interactive front end index a huge
    /// file in the background while showing the first frames at once.
    pub fn scan<S: ByteSource + ?Sized>(&mut self, data: &S, byte_budget: u64) -> bool {
        // A source that holds its bytes at once (a mapped file) is scanned as one slice: each
        // frame's reads are then plain slicing, not calls through the source.
        match crate::bytes::whole(data) {
            Ok(whole) => self.scan_over(whole, byte_budget),
            Err(_) => self.scan_over(data, byte_budget),
        }
    }

    fn scan_over<S: ByteSource + ?Sized>(&mut self, data: &S, byte_budget: u64) -> bool {
        debug_assert_eq!(data.len(), self.file_len);
        let stop_at = self.pos.saturating_add(byte_budget.max(1));
        while self.pos < self.file_len && self.pos < stop_at {
            if !self.step_three_intact(data) {
                self.step(data);
            }
        }
        self.is_complete()
    }

    /// Indexes the next three frames in one step when all three are intact, their payload CRCs
    /// computed together (see [`masked_crc32c_three`]); false, changing nothing, when any is not
    /// or the scan is resynchronising: [`FrameIndex::step`] then takes them one at a time, which
    /// is what this does for three intact frames.
    fn step_three_intact<S: ByteSource + ?Sized>(&mut self, data: &S) -> bool {
        if self.resync.is_some() {
            return false;
        }
        let mut frames = [(0u64, 0u64); 3];
        let mut at = self.pos;
        for frame in &mut frames {
            let Candidate::Fits { end } = examine(data, at, &mut self.length_crcs) else {
                return false;
            };
            *frame = (at, end);
            at = end;
        }
        if payload_crcs_ok(data, frames) != [true; 3] {
            return false;
        }
        for (pos, end) in frames {
            self.push(pos, FrameStatus::Intact, false);
            self.intact_payload += end - pos - HEADER_LEN - FOOTER_LEN;
        }
        self.pos = at;
        true
    }

    fn step<S: ByteSource + ?Sized>(&mut self, data: &S) {
        let pos = self.pos;
        let candidate = examine(data, pos, &mut self.length_crcs);
        let status = match candidate {
            Candidate::PartialHeader => {
                if self.resync.is_none() {
                    self.push(pos, FrameStatus::PartialHeader, false);
                }
                self.pos = self.file_len;
                return;
            }
            Candidate::BadHeader => {
                if self.resync.is_none() {
                    self.push(pos, FrameStatus::LengthCrcMismatch, false);
                    self.resync = Some(Resync {
                        claimed_end: pos + 1,
                    });
                }
                self.pos += 1;
                return;
            }
            Candidate::Cut { status } => status,
            Candidate::Fits { end } => {
                if !self.may_verify(data, pos, end) {
                    self.unverified += 1;
                    self.unverified_ranges
                        .add(FileRange::new(FileOffset(pos), FileOffset(end)));
                    self.pos += 1;
                    return;
                }
                if payload_crc_ok(data, pos, end) {
                    self.push(pos, FrameStatus::Intact, self.resync.is_some());
                    self.intact_payload += end - pos - HEADER_LEN - FOOTER_LEN;
                    self.resync = None;
                    self.pos = end;
                    return;
                }
                if self.resync.is_some() {
                    self.resync_work = self.resync_work.saturating_add(end - pos);
                }
                FrameStatus::DataCrcMismatch
            }
        };
        // A valid header whose frame is damaged or cut off. Outside the extent of the damaged
        // frame that began the resync it is a damaged record of its own.
        if self.resync.is_none_or(|r| pos >= r.claimed_end) {
            let end = match candidate {
                Candidate::Fits { end } => end,
                _ => self.file_len,
            };
            self.push(pos, status, self.resync.is_some());
            self.resync = Some(Resync {
                claimed_end: end.max(pos + 1),
            });
            if status == FrameStatus::DataCrcMismatch && self.trusts_extent(data, end) {
                self.pos = end;
                return;
            }
        }
        self.pos += 1;
    }

    /// Whether a damaged frame ending at `end` has a length worth trusting: the file ends there,
    /// or a frame with both CRCs valid begins there. Checking that next frame is resync work like
    /// any other, within the budget, so a crafted file cannot make it cost more than linear time.
    fn trusts_extent<S: ByteSource + ?Sized>(&mut self, data: &S, end: u64) -> bool {
        if end == self.file_len {
            return true;
        }
        let Candidate::Fits { end: next_end } = examine(data, end, &mut self.length_crcs) else {
            return false;
        };
        if !self.may_verify(data, end, next_end) {
            return false;
        }
        if payload_crc_ok(data, end, next_end) {
            return true;
        }
        self.resync_work = self.resync_work.saturating_add(next_end - end);
        false
    }

    /// Whether to check the payload CRC of a candidate frame `[pos, end)`. Always outside a
    /// resync; inside one, while the work spent on failed candidates is within the budget. Past
    /// it, only candidates followed by a valid header (or the end of the file) are checked, and
    /// past twice the budget none are: the work stays linear in the file size whatever its bytes.
    fn may_verify<S: ByteSource + ?Sized>(&mut self, data: &S, pos: u64, end: u64) -> bool {
        if self.resync.is_none() {
            return true;
        }
        let Some(budget) = self.budget.at(pos) else {
            return true;
        };
        if self.resync_work < budget {
            return true;
        }
        if self.resync_work < budget.saturating_mul(2) {
            return end == self.file_len
                || matches!(
                    examine(data, end, &mut self.length_crcs),
                    Candidate::Fits { .. } | Candidate::Cut { .. }
                );
        }
        false
    }

    /// Resync candidates (valid header CRC) that were passed over without checking their payload
    /// CRC because the resync work budget was spent; non-zero only for crafted input.
    pub fn unverified_candidates(&self) -> u64 {
        self.unverified
    }

    /// The byte ranges holding the candidates of [`FrameIndex::unverified_candidates`] (each
    /// candidate's declared extent, merged): an intact record there may have been missed. A scan
    /// with [`ResyncBudget::Unlimited`] searches them.
    pub fn unverified_ranges(&self) -> &[FileRange] {
        self.unverified_ranges.ranges()
    }

    /// Bytes in [`FrameIndex::unverified_ranges`].
    pub fn unverified_bytes(&self) -> u64 {
        self.unverified_ranges.bytes()
    }

    fn push(&mut self, offset: u64, status: FrameStatus, after_resync: bool) {
        if !status.is_intact() {
            self.damaged += 1;
        }
        if self.entries.len() == 1024 {
            // Reserve for the rest of the file at the average frame size so far (at most 64 MiB
            // of index): growing a vector of millions of entries by doubling copies it each time.
            let average = offset / 1024;
            let expected = self.file_len.saturating_sub(offset) / average.max(16);
            self.entries
                .reserve(usize::try_from(expected.min(8 << 20)).unwrap_or(0));
        }
        self.entries.push(pack(offset, status, after_resync));
    }

    pub fn is_complete(&self) -> bool {
        self.pos >= self.file_len
    }

    /// How far the scan has got, in bytes.
    pub fn scanned(&self) -> u64 {
        self.pos
    }

    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Frames found so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Frames found so far that are not intact.
    pub fn damaged_count(&self) -> usize {
        self.damaged
    }

    /// The payload bytes of the intact frames indexed so far.
    pub fn intact_payload_bytes(&self) -> u64 {
        self.intact_payload
    }

    /// The entries found from `first` on, with the scan state after them, to bring a copy of this
    /// index (in another thread) up to date without copying what it already has.
    pub fn delta_since(&self, first: usize) -> IndexDelta {
        IndexDelta {
            first,
            entries: self.entries.copy_from(first),
            pos: self.pos,
            resync: self.resync,
            damaged: self.damaged,
            intact_payload: self.intact_payload,
            resync_work: self.resync_work,
            unverified: self.unverified,
            unverified_ranges: self.unverified_ranges.clone(),
        }
    }

    /// Applies a delta from a copy of this index that scanned further. Returns false (and changes
    /// nothing) when the delta starts past this index's end or belongs to another stream.
    pub fn apply(&mut self, delta: IndexDelta) -> bool {
        if delta.first > self.entries.len() || delta.pos > self.file_len {
            return false;
        }
        self.entries.truncate(delta.first);
        self.entries.extend_from_slice(&delta.entries);
        self.pos = delta.pos;
        self.resync = delta.resync;
        self.damaged = delta.damaged;
        self.intact_payload = delta.intact_payload;
        self.resync_work = delta.resync_work;
        self.unverified = delta.unverified;
        self.unverified_ranges = delta.unverified_ranges;
        true
    }

    /// Where frame `index` starts, from the index alone (without reading the file).
    pub fn offset(&self, index: usize) -> Option<FileOffset> {
        self.entries
            .get(index)
            .map(|entry| FileOffset(entry & OFFSET_MASK))
    }

    /// The frame at `index`, reading its length from `data`.
    pub fn get<S: ByteSource + ?Sized>(&self, data: &S, index: usize) -> Option<Frame> {
        let entry = self.entries.get(index)?;
        let offset = entry & OFFSET_MASK;
        let status = FrameStatus::from_code((entry & !RESYNC_FLAG) >> STATUS_SHIFT);
        let declared_length = read_length(data, FileOffset(offset));
        let region_end = match self.entries.get(index + 1) {
            Some(next) => next & OFFSET_MASK,
            None if self.is_complete() => self.file_len,
            None => match status {
                FrameStatus::Intact => {
                    offset + HEADER_LEN + declared_length.unwrap_or(0) + FOOTER_LEN
                }
                _ => self.pos,
            },
        };
        Some(Frame {
            index,
            offset: FileOffset(offset),
            status,
            declared_length,
            region_end: FileOffset(region_end),
            after_resync: entry & RESYNC_FLAG != 0,
        })
    }

    /// All frames found so far, in file order.
    pub fn frames<'a, S: ByteSource + ?Sized>(
        &'a self,
        data: &'a S,
    ) -> impl Iterator<Item = Frame> + 'a {
        (0..self.entries.len()).filter_map(move |i| self.get(data, i))
    }

    /// The frames found so far that are not intact, without visiting the intact ones.
    pub fn damaged_frames<'a, S: ByteSource + ?Sized>(
        &'a self,
        data: &'a S,
    ) -> impl Iterator<Item = Frame> + 'a {
        let intact = FrameStatus::Intact.code();
        // Nothing to look through when every frame is intact (millions of entries, often).
        let entries = (self.damaged > 0).then(|| self.entries.iter());
        entries
            .into_iter()
            .flatten()
            .enumerate()
            .filter(move |(_, e)| (*e & !RESYNC_FLAG) >> STATUS_SHIFT != intact)
            .filter_map(move |(i, _)| self.get(data, i))
    }

    /// The frame whose region contains `offset` (the header, payload or footer of an intact frame,
    /// or the skipped bytes after a damaged one).
    pub fn frame_containing<S: ByteSource + ?Sized>(
        &self,
        data: &S,
        offset: FileOffset,
    ) -> Option<Frame> {
        let after = self
            .entries
            .partition_point(|e| e & OFFSET_MASK <= offset.0);
        let frame = self.get(data, after.checked_sub(1)?)?;
        let end = frame.region_end.max(frame.offset.saturating_add(1));
        (offset < end).then_some(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{budget_exhaustion as crafted_budget_exhaustion, encode_records};

    fn statuses(data: &[u8]) -> Vec<(u64, FrameStatus)> {
        let index = FrameIndex::build(data);
        index.frames(data).map(|f| (f.offset.0, f.status)).collect()
    }

    #[test]
    fn clean_file_indexes_every_frame() {
        let data = encode_records(&[b"abc", b"", b"hello world"]);
        let index = FrameIndex::build(&data);
        let frames: Vec<_> = index.frames(&data).collect();
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[1].offset, FileOffset(19));
        assert_eq!(frames[1].declared_length, Some(0));
        assert_eq!(frames[2].payload(&data), Some(&b"hello world"[..]));
        assert_eq!(index.damaged_count(), 0);
        assert!(
            frames
                .iter()
                .all(|f| f.status.is_intact() && !f.after_resync)
        );
    }

    /// Every damage at every position among a few frames: the scan that takes intact frames
    /// three at a time indexes exactly what taking them one at a time does.
    #[test]
    fn three_frames_at_a_time_index_what_one_at_a_time_does() {
        let payloads: Vec<Vec<u8>> = (0..7).map(|i| vec![i as u8; 10 + i * 37]).collect();
        let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        let clean = encode_records(&refs);
        let mut files = vec![clean.clone()];
        for at in (0..clean.len()).step_by(13) {
            let mut broken = clean.clone();
            broken[at] ^= 0x5a;
            files.push(broken.clone());
            files.push(broken[..at].to_vec());
        }
        for data in &files {
            let batched = FrameIndex::build(&data[..]);
            let mut single = FrameIndex::new(data.len() as u64);
            while single.pos < single.file_len {
                single.step(&data[..]);
            }
            assert_eq!(batched.entries, single.entries);
            assert_eq!(batched.damaged, single.damaged);
            assert_eq!(batched.pos, single.pos);
            assert_eq!(batched.intact_payload, single.intact_payload);
        }
    }

    #[test]
    fn empty_stream_has_no_frames() {
        let index = FrameIndex::build(&[]);
        assert!(index.is_empty());
        assert!(index.is_complete());
    }

    #[test]
    fn payload_damage_is_reported_and_the_next_frame_found() {
        let mut data = encode_records(&[b"first", b"second", b"third"]);
        data[21 + 12 + 2] ^= 0x10; // inside "second"
        assert_eq!(
            statuses(&data),
            vec![
                (0, FrameStatus::Intact),
                (21, FrameStatus::DataCrcMismatch),
                (43, FrameStatus::Intact)
            ]
        );
        let index = FrameIndex::build(&data);
        let damaged_frame = index.get(&data, 1).unwrap();
        assert_eq!(damaged_frame.tensorflow_offset(), Some(FileOffset(33)));
        assert_eq!(damaged_frame.region_end, FileOffset(43));
        assert!(index.get(&data, 2).unwrap().after_resync);
        let damaged: Vec<_> = index.damaged_frames(&data).collect();
        assert_eq!(damaged, vec![damaged_frame]);
    }

    #[test]
    fn header_damage_resyncs_to_the_next_frame() {
        let mut data = encode_records(&[b"first", b"second", b"third"]);
        data[21] ^= 1; // length of "second"
        assert_eq!(
            statuses(&data),
            vec![
                (0, FrameStatus::Intact),
                (21, FrameStatus::LengthCrcMismatch),
                (43, FrameStatus::Intact)
            ]
        );
    }

    #[test]
    fn truncation_and_short_tails_are_classified() {
        let data = encode_records(&[b"first", b"second"]);
        assert_eq!(
            statuses(&data[..36]),
            vec![(0, FrameStatus::Intact), (21, FrameStatus::TruncatedRecord)]
        );
        assert_eq!(
            statuses(&data[..26]),
            vec![(0, FrameStatus::Intact), (21, FrameStatus::PartialHeader)]
        );
    }

    #[test]
    fn absurd_length_with_valid_crc_is_not_allocated_or_followed() {
        let mut data = encode_records(&[b"first", b"second", b"third"]);
        let absurd = (1u64 << 62).to_le_bytes();
        data[21..29].copy_from_slice(&absurd);
        data[29..33].copy_from_slice(&masked_crc32c(&absurd).to_le_bytes());
        assert_eq!(
            statuses(&data),
            vec![
                (0, FrameStatus::Intact),
                (21, FrameStatus::LengthExceedsFile),
                (43, FrameStatus::Intact)
            ]
        );
    }

    #[test]
    fn garbage_is_one_damaged_region_and_scanning_ends() {
        let data: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let index = FrameIndex::build(&data);
        assert!(index.is_complete());
        assert_eq!(index.len(), 1);
        let frame = index.get(&data, 0).unwrap();
        assert_eq!(frame.status, FrameStatus::LengthCrcMismatch);
        assert_eq!(frame.region_end, FileOffset(5000));
    }

    #[test]
    fn densely_repeated_valid_headers_cost_linear_work() {
        // Every 12 bytes a header with a valid CRC declaring 1 MiB: each is a resync candidate
        // whose payload CRC fails. Checking them all would CRC about 170 GB.
        let length = (1u64 << 20).to_le_bytes();
        let mut header = length.to_vec();
        header.extend_from_slice(&masked_crc32c(&length).to_le_bytes());
        let mut data = vec![0u8; 5];
        while data.len() < (2 << 20) {
            data.extend_from_slice(&header);
        }
        let index = FrameIndex::build(&data);
        assert!(index.is_complete());
        assert!(index.unverified_candidates() > 80_000);
        let budget = ResyncBudget::DEFAULT.at(data.len() as u64).unwrap();
        assert!(index.resync_work <= 2 * budget + (2 << 20));
        assert!(index.frames(&data).all(|f| !f.status.is_intact()));
    }

    const SMALL_BUDGET: ResyncBudget = ResyncBudget::Limited {
        base: 1000,
        per_scanned_byte: 4,
    };

    #[test]
    fn records_passed_over_by_a_spent_budget_lie_in_unverified_ranges() {
        let (data, records) = crafted_budget_exhaustion(200);
        let index = FrameIndex::build_with(&data, SMALL_BUDGET);
        let found: Vec<u64> = index
            .frames(&data)
            .filter(|f| f.status.is_intact())
            .map(|f| f.offset.0)
            .collect();
        let missed: Vec<u64> = records
            .iter()
            .copied()
            .filter(|r| !found.contains(r))
            .collect();
        assert!(
            missed.len() > 10,
            "the budget was not exhausted: {missed:?}"
        );
        let ranges = index.unverified_ranges();
        assert!(!ranges.is_empty());
        for record in &missed {
            let end = record + 516;
            assert!(
                ranges
                    .iter()
                    .any(|r| r.start <= FileOffset(*record) && FileOffset(end) <= r.end),
                "record at {record} missed but not in {ranges:?}"
            );
        }
        // The missed records are consecutive, so their extents merge into one range.
        assert_eq!(ranges.len(), 1);
        assert_eq!(ranges[0].start, FileOffset(records[0]));
        assert!(index.unverified_bytes() >= 516 * missed.len() as u64);
        assert!(index.unverified_candidates() >= missed.len() as u64);
    }

    #[test]
    fn an_unlimited_budget_finds_every_record_and_leaves_nothing_unverified() {
        let (data, records) = crafted_budget_exhaustion(200);
        let index = FrameIndex::build_with(&data, ResyncBudget::Unlimited);
        let found: Vec<u64> = index
            .frames(&data)
            .filter(|f| f.status.is_intact())
            .map(|f| f.offset.0)
            .collect();
        assert_eq!(found, records);
        assert!(index.unverified_ranges().is_empty());
        assert_eq!(index.unverified_candidates(), 0);
        // The default budget is far from spent by a file this small.
        assert_eq!(FrameIndex::build(&data).frames(&data).count(), index.len());
    }

    #[test]
    fn a_damaged_frame_ending_at_an_intact_one_is_stepped_over() {
        // The damaged record's payload is a TFRecord stream: its frames are not records.
        let inner = encode_records(&[b"inner0", b"inner1", b"inner2"]);
        let mut data = encode_records(&[b"outer0", &inner, b"outer2"]);
        data[22 + 12 + inner.len()] ^= 1; // the damaged record's payload CRC
        assert_eq!(
            statuses(&data),
            vec![
                (0, FrameStatus::Intact),
                (22, FrameStatus::DataCrcMismatch),
                (22 + 16 + inner.len() as u64, FrameStatus::Intact)
            ]
        );
        // Not when the next frame is damaged too: the length is not trusted, resync looks inside.
        let next = 22 + 16 + inner.len();
        data[next + 14] ^= 1;
        let intact = statuses(&data)
            .iter()
            .filter(|(_, s)| s.is_intact())
            .count();
        assert_eq!(intact, 4);
    }

    #[test]
    fn budgeted_scan_matches_a_full_scan() {
        let mut data = encode_records(&[b"a", b"bb", b"ccc", b"dddd"]);
        data[20] ^= 0xff;
        let full = FrameIndex::build(&data);
        let mut stepwise = FrameIndex::new(data.len() as u64);
        let mut steps = 0;
        while !stepwise.scan(&data, 1) {
            steps += 1;
        }
        assert!(steps > 3);
        assert_eq!(full.entries, stepwise.entries);
    }

    #[test]
    fn deltas_bring_a_copy_up_to_date() {
        let mut data = encode_records(&[b"a", b"bb", b"ccc", b"dddd", b"eeeee"]);
        data[30] ^= 1;
        let full = FrameIndex::build(&data);
        let mut background = FrameIndex::new(data.len() as u64);
        background.scan(&data, 20);
        let mut ui = background.clone();
        let mut sent = ui.len();
        while !background.scan(&data, 7) {
            let delta = background.delta_since(sent);
            sent = delta.end();
            assert!(ui.apply(delta));
        }
        assert!(ui.apply(background.delta_since(sent)));
        assert_eq!(ui.entries, full.entries);
        assert_eq!(ui.damaged_count(), full.damaged_count());
        assert!(ui.is_complete());
        let gap = full.delta_since(full.len());
        assert!(
            !FrameIndex::new(data.len() as u64).apply(
                FrameIndex {
                    pos: 0,
                    ..full.clone()
                }
                .delta_since(3)
            )
        );
        assert!(ui.apply(gap));
    }

    #[test]
    fn frame_containing_maps_offsets_to_frames() {
        let data = encode_records(&[b"first", b"second"]);
        let index = FrameIndex::build(&data);
        let at = |offset| index.frame_containing(&data, FileOffset(offset));
        assert_eq!(at(0).unwrap().index, 0);
        assert_eq!(at(20).unwrap().index, 0);
        assert_eq!(at(21).unwrap().index, 1);
        assert_eq!(at(33).unwrap().index, 1);
        assert!(at(43).is_none());
    }
}
