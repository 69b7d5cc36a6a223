//! The entries of a frame index, held in the pieces they were found in.
//!
//! A file indexed in parts on every core gives one vector of entries per part. Joining them into
//! one vector copied every entry again (33 MB for the 4.1 million frames of a 1 GB file of
//! 250-byte records) into memory the kernel had to clear first: a few percent of `verify`'s
//! processor time on such a file. Kept as pieces, the parts' vectors are taken as they are; a
//! lookup finds its piece by halves among the pieces' starts (one piece per 16 MiB part of
//! small frames, some 600 for a 10 GB file).

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

/// Pieces of fewer entries than this (32 KiB of them) are copied onto the piece before them,
/// when that one is short too or has room for them.
const COPIED_BELOW: usize = 4096;

/// Index entries in order, as a list of pieces; the last piece is the one entries are pushed to.
#[derive(Debug)]
pub(super) struct Entries {
    /// Never empty. Every piece but the last holds at least one entry.
    pieces: Vec<Vec<u64>>,
    /// The position of each piece's first entry among all entries.
    starts: Vec<usize>,
    len: usize,
    /// The piece the last search found. Frames are mostly looked up in order (every record of a
    /// listing, a chunk of statistics), so the next lookup is usually in it and needs no search.
    /// A hint only, which any thread may set: a stale one costs the search.
    last_found: AtomicUsize,
}

impl Clone for Entries {
    fn clone(&self) -> Entries {
        Entries {
            pieces: self.pieces.clone(),
            starts: self.starts.clone(),
            len: self.len,
            last_found: AtomicUsize::new(self.last_found.load(Relaxed)),
        }
    }
}

impl Entries {
    pub(super) fn new() -> Entries {
        Entries {
            pieces: vec![Vec::new()],
            starts: vec![0],
            len: 0,
            last_found: AtomicUsize::new(0),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn last_piece(&mut self) -> &mut Vec<u64> {
        if self.pieces.is_empty() {
            self.pieces.push(Vec::new());
            self.starts.push(self.len);
        }
        self.pieces.last_mut().unwrap_or_else(|| unreachable!())
    }

    pub(super) fn push(&mut self, entry: u64) {
        self.last_piece().push(entry);
        self.len += 1;
    }

    /// Room for `additional` more entries pushed after the last.
    pub(super) fn reserve(&mut self, additional: usize) {
        self.last_piece().reserve(additional);
    }

    pub(super) fn extend_from_slice(&mut self, entries: &[u64]) {
        self.last_piece().extend_from_slice(entries);
        self.len += entries.len();
    }

    /// Takes `piece` as the entries after the last, without copying them. A short piece (a part
    /// of large frames) is copied onto the last one instead, where that one is short too or has
    /// room for it, so that there are few pieces to search and no long piece is moved to grow.
    pub(super) fn append_piece(&mut self, piece: Vec<u64>) {
        let added = piece.len();
        let last = self.last_piece();
        let room = last.capacity() - last.len();
        if added < COPIED_BELOW && (last.len() < COPIED_BELOW || room >= added) {
            self.extend_from_slice(&piece);
            return;
        }
        if last.is_empty() {
            *last = piece;
        } else {
            // The last piece takes no more entries: room it reserved for them is given back
            // (the scan reserves for the rest of the file before parts are appended after it).
            if room > last.len() / 8 {
                last.shrink_to_fit();
            }
            self.pieces.push(piece);
            self.starts.push(self.len);
        }
        self.len += added;
    }

    /// Keeps the first `len` entries.
    pub(super) fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let piece = self.piece_of(len);
        self.pieces.truncate(piece + 1);
        self.starts.truncate(piece + 1);
        if let (Some(entries), Some(start)) = (self.pieces.last_mut(), self.starts.last()) {
            entries.truncate(len - start);
        }
        self.len = len;
    }

    /// The piece holding entry `index` (which is below `len`).
    fn piece_of(&self, index: usize) -> usize {
        let found = self.last_found.load(Relaxed);
        let holds = |piece: usize| {
            let starts_before = self.starts.get(piece).is_some_and(|start| *start <= index);
            starts_before && self.starts.get(piece + 1).is_none_or(|next| index < *next)
        };
        if holds(found) {
            return found;
        }
        // Pieces are never empty but for the last, so the last piece that starts at or before
        // `index` holds it.
        let piece = self
            .starts
            .partition_point(|start| *start <= index)
            .saturating_sub(1);
        self.last_found.store(piece, Relaxed);
        piece
    }

    pub(super) fn get(&self, index: usize) -> Option<u64> {
        if index >= self.len {
            return None;
        }
        let piece = self.piece_of(index);
        let start = *self.starts.get(piece)?;
        self.pieces.get(piece)?.get(index - start).copied()
    }

    /// The entries from `first` on, copied.
    pub(super) fn copy_from(&self, first: usize) -> Vec<u64> {
        if first >= self.len {
            return Vec::new();
        }
        let piece = self.piece_of(first);
        let mut copy = Vec::with_capacity(self.len - first);
        let pieces = self.pieces.iter().zip(&self.starts).skip(piece);
        for (entries, start) in pieces {
            let from = first.saturating_sub(*start);
            copy.extend_from_slice(entries.get(from..).unwrap_or_default());
        }
        copy
    }

    /// Where each piece starts, for the index's own tests.
    #[cfg(test)]
    pub(super) fn piece_starts(&self) -> &[usize] {
        &self.starts
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.pieces.iter().flatten().copied()
    }

    /// The number of leading entries for which `below` holds, which must hold for every entry
    /// before one for which it does not (as [`slice::partition_point`]).
    pub(super) fn partition_point(&self, below: impl Fn(u64) -> bool) -> usize {
        // The first piece whose last entry is not below holds the point; an empty last piece
        // counts as not below, so that the point falls at the end.
        let piece = self
            .pieces
            .partition_point(|entries| entries.last().is_some_and(|last| below(*last)));
        match (self.pieces.get(piece), self.starts.get(piece)) {
            (Some(entries), Some(start)) => start + entries.partition_point(|e| below(*e)),
            _ => self.len,
        }
    }
}

impl PartialEq for Entries {
    fn eq(&self, other: &Entries) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries `0..n` as pieces of the given lengths, pushed, appended and extended in turn.
    fn pieced(lengths: &[usize]) -> Entries {
        let mut entries = Entries::new();
        let mut next = 0u64;
        for (n, &length) in lengths.iter().enumerate() {
            let piece: Vec<u64> = (next..next + length as u64).collect();
            next += length as u64;
            match n % 3 {
                0 => entries.append_piece(piece),
                1 => piece.iter().for_each(|e| entries.push(*e)),
                _ => entries.extend_from_slice(&piece),
            }
        }
        entries
    }

    /// Piece lengths around the copying threshold: long ones become pieces of their own.
    fn lengths() -> [usize; 10] {
        let long = COPIED_BELOW;
        [long, 0, long + 3, 1, 0, 0, 2 * long, 2, long - 1, long]
    }

    /// The positions around every piece's edges, where a lookup changes pieces.
    fn edges(lengths: &[usize]) -> Vec<usize> {
        let mut at = 0;
        let mut edges = vec![0, 1];
        for length in lengths {
            at += length;
            edges.extend(at.saturating_sub(2)..at + 3);
        }
        edges
    }

    #[test]
    fn every_entry_is_found_where_a_single_vector_has_it() {
        let lengths = lengths();
        let entries = pieced(&lengths);
        assert_eq!(entries.pieces.len(), 4);
        let total: usize = lengths.iter().sum();
        let flat: Vec<u64> = (0..total as u64).collect();
        assert_eq!(entries.len(), total);
        assert_eq!(entries.iter().collect::<Vec<_>>(), flat);
        assert_eq!(entries, entries.clone());
        for i in edges(&lengths) {
            assert_eq!(entries.get(i), flat.get(i).copied(), "entry {i}");
            assert_eq!(
                entries.copy_from(i),
                flat.get(i..).unwrap_or_default(),
                "from {i}"
            );
            let point = entries.partition_point(|e| e < i as u64);
            assert_eq!(point, flat.partition_point(|e| *e < i as u64), "point {i}");
        }
    }

    #[test]
    fn lookups_in_any_order_find_their_entry_whatever_piece_was_found_before() {
        let lengths = lengths();
        let entries = pieced(&lengths);
        let edges = edges(&lengths);
        let total = entries.len();
        // Forwards, backwards, and each edge against the far end, so that the piece found by the
        // lookup before is sometimes the right one and sometimes not.
        let order = edges
            .iter()
            .chain(edges.iter().rev())
            .flat_map(|&i| [i, total - 1 - i.min(total - 1)]);
        for i in order {
            assert_eq!(entries.get(i), (i < total).then_some(i as u64), "entry {i}");
            assert_eq!(entries.clone().get(i), (i < total).then_some(i as u64));
        }
    }

    #[test]
    fn truncating_keeps_the_first_entries_and_pushes_go_after_them() {
        let lengths = lengths();
        let total: usize = lengths.iter().sum();
        for keep in edges(&lengths) {
            let mut entries = pieced(&lengths);
            entries.truncate(keep);
            entries.push(1 << 40);
            entries.append_piece(vec![(1 << 40) + 1; COPIED_BELOW]);
            entries.extend_from_slice(&[(1 << 40) + 2]);
            let mut flat: Vec<u64> = (0..total as u64).collect();
            flat.truncate(keep);
            flat.push(1 << 40);
            flat.extend(vec![(1 << 40) + 1; COPIED_BELOW]);
            flat.push((1 << 40) + 2);
            assert_eq!(entries.len(), flat.len(), "keep {keep}");
            assert_eq!(entries.iter().collect::<Vec<_>>(), flat, "keep {keep}");
            for i in edges(&[keep, 1, COPIED_BELOW, 1]) {
                assert_eq!(
                    entries.get(i),
                    flat.get(i).copied(),
                    "keep {keep}, entry {i}"
                );
            }
        }
    }

    #[test]
    fn long_pieces_are_taken_without_a_copy_and_short_ones_are_copied_onto_short_ones() {
        let mut entries = Entries::new();
        entries.append_piece(vec![0, 1, 2, 3]);
        entries.append_piece(vec![4]);
        assert_eq!(entries.pieces.len(), 1);
        let end = 5 + COPIED_BELOW as u64;
        let long: Vec<u64> = (5..end).collect();
        let (at, capacity) = (long.as_ptr(), long.capacity());
        entries.append_piece(long);
        // A long piece with no room left is neither moved nor grown: the short pieces after it
        // make a piece of their own.
        entries.append_piece(vec![end, end + 1]);
        entries.append_piece(vec![end + 2]);
        assert_eq!(entries.pieces.len(), 3);
        assert_eq!(entries.pieces[1].as_ptr(), at);
        assert_eq!(entries.pieces[1].capacity(), capacity);
        assert_eq!(
            entries.copy_from(end as usize - 1),
            [end - 1, end, end + 1, end + 2]
        );
        assert_eq!(
            entries.iter().collect::<Vec<_>>(),
            (0..end + 3).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_short_piece_is_copied_onto_a_long_one_with_room_for_it() {
        let mut entries = Entries::new();
        entries.reserve(2 * COPIED_BELOW);
        (0..COPIED_BELOW as u64).for_each(|e| entries.push(e));
        let at = entries.pieces[0].as_ptr();
        let end = COPIED_BELOW as u64;
        entries.append_piece(vec![end, end + 1]);
        assert_eq!(entries.pieces.len(), 1);
        assert_eq!(entries.pieces[0].as_ptr(), at);
        assert_eq!(entries.get(COPIED_BELOW + 1), Some(end + 1));
    }

    #[test]
    fn room_a_piece_reserved_is_given_back_when_a_piece_is_appended_after_it() {
        let mut entries = Entries::new();
        entries.reserve(1 << 20);
        (0..10).for_each(|e| entries.push(e));
        entries.append_piece((10..10 + COPIED_BELOW as u64).collect());
        assert!(entries.pieces[0].capacity() < 1000);
        assert_eq!(entries.get(10), Some(10));
    }

    #[test]
    fn an_empty_last_piece_reads_as_the_end() {
        let mut entries = pieced(&lengths());
        let len = entries.len();
        let cut = entries.starts[2];
        entries.truncate(cut);
        assert_eq!(entries.pieces.last().map(Vec::len), Some(0));
        assert_eq!(entries.get(cut), None);
        assert_eq!(entries.get(cut - 1), Some(cut as u64 - 1));
        assert_eq!(entries.copy_from(cut), Vec::<u64>::new());
        assert_eq!(entries.partition_point(|_| true), cut);
        assert_eq!(entries.partition_point(|e| e < 5), 5);
        assert!(cut < len);
        entries.append_piece((0..COPIED_BELOW as u64).map(|e| e + 1_000_000).collect());
        assert_eq!(entries.get(cut), Some(1_000_000));
        assert_eq!(entries.len(), cut + COPIED_BELOW);
        assert!(Entries::new().is_empty());
        assert_eq!(Entries::new().partition_point(|_| true), 0);
        assert_eq!(Entries::new().get(0), None);
    }
}
