//! The record index that `tfrecord2idx` writes beside a shard (the `tfrecord` package's
//! `tfrecord.tools.tfrecord2idx`, NVIDIA DALI's `tfrecord2idx`): one `offset length` line per
//! record, the length counting the whole frame (header, payload and footer).
//!
//! Readers that use such an index seek to each offset and read that many bytes, trusting the index
//! blindly: an index left over from an older version of a shard feeds them garbage. The entries
//! here come from the verified frame index, so an index is only ever written for frames whose
//! CRCs hold, and an existing index is compared line by line with what the file holds.

use std::fmt;
use std::io::{self, BufRead, Write};

use crate::frame::FrameIndex;
use crate::source::lines::read_line;
use crate::span::FileOffset;

/// One line of a record index: where a frame starts and how long it is, header to footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    pub offset: FileOffset,
    pub len: u64,
}

impl fmt::Display for IndexEntry {
    /// The line as `tfrecord2idx` writes it, without the newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.offset.0, self.len)
    }
}

/// The intact frames of a fully scanned index, in file order.
pub fn entries<S: crate::bytes::ByteSource + ?Sized>(
    index: &FrameIndex,
    data: &S,
) -> Vec<IndexEntry> {
    index
        .frames(data)
        .filter(|frame| frame.status.is_intact())
        .filter_map(|frame| {
            let end = frame.frame_end()?;
            Some(IndexEntry {
                offset: frame.offset,
                len: end.0.checked_sub(frame.offset.0)?,
            })
        })
        .collect()
}

/// Writes `entries` as `tfrecord2idx` does: `offset length\n` per record.
pub fn write(entries: &[IndexEntry], out: &mut dyn Write) -> io::Result<()> {
    for entry in entries {
        writeln!(out, "{entry}")?;
    }
    Ok(())
}

/// Reads a whole index as `tfrecord2idx` writes it, of a stream of `file_len` bytes: `None`
/// when a line is not `offset length`, or there are more lines than such a stream has frames
/// (one per 16 bytes at most), so a wrong or endless input costs no more than the stream could.
pub fn read(idx: &mut impl BufRead, file_len: u64) -> io::Result<Option<Vec<IndexEntry>>> {
    let most = file_len / (crate::frame::HEADER_LEN + crate::frame::FOOTER_LEN);
    let mut entries = Vec::new();
    while let Some(raw) = read_line(idx, LINE_BOUND)? {
        let entry = if raw.cut {
            None
        } else {
            parse_line(&raw.text())
        };
        match entry {
            Some(entry) if (entries.len() as u64) < most => entries.push(entry),
            _ => return Ok(None),
        }
    }
    Ok(Some(entries))
}

/// Whether `idx` reads as an index `tfrecord2idx` writes, of any file: every line `offset length`
/// (blank lines at the end allowed). Read line by line and stopped at the first other line, so
/// what is not an index costs at most [`LINE_BOUND`] bytes past its last index line.
pub fn is_index(idx: &mut impl BufRead) -> io::Result<bool> {
    let mut blank = false;
    while let Some(raw) = read_line(idx, LINE_BOUND)? {
        if !raw.cut && raw.text().trim().is_empty() {
            blank = true;
            continue;
        }
        if blank || raw.cut || parse_line(&raw.text()).is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The first line of an existing index that disagrees with the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// Line `line` (1-based) is not two decimal numbers.
    Malformed { line: usize, text: String },
    /// Line `line` names another frame than the file's record `line - 1`.
    Differs {
        line: usize,
        text: String,
        expected: IndexEntry,
    },
    /// The index ends after `lines` lines; the file has more records, the next being `next`.
    Short {
        lines: usize,
        records: usize,
        next: IndexEntry,
    },
    /// Line `line` goes past the file's `records` records.
    Extra {
        line: usize,
        text: String,
        records: usize,
    },
}

impl Mismatch {
    /// The 1-based line of the index the mismatch is at.
    pub fn line(&self) -> usize {
        match self {
            Mismatch::Malformed { line, .. }
            | Mismatch::Differs { line, .. }
            | Mismatch::Extra { line, .. } => *line,
            Mismatch::Short { lines, .. } => lines + 1,
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::escape::for_terminal as quoted;
        match self {
            Mismatch::Malformed { line, text } => write!(
                f,
                "line {line}: \"{}\" is not `offset length`",
                quoted(text)
            ),
            Mismatch::Differs {
                line,
                text,
                expected,
            } => write!(
                f,
                "line {line}: \"{}\", but record {} is at byte {}, {} bytes long (\"{expected}\")",
                quoted(text),
                line - 1,
                expected.offset,
                expected.len
            ),
            Mismatch::Short {
                lines,
                records,
                next,
            } => write!(
                f,
                "ends after {}, but the file has {}: line {} should be \"{next}\"",
                crate::words::plural(*lines, "line"),
                crate::words::plural(*records, "record"),
                lines + 1
            ),
            Mismatch::Extra {
                line,
                text,
                records,
            } => write!(
                f,
                "line {line}: \"{}\", but the file has only {}",
                quoted(text),
                crate::words::plural(*records, "record")
            ),
        }
    }
}

/// Reads one line as `offset length`, separated by blanks as every reader of the format accepts.
fn parse_line(text: &str) -> Option<IndexEntry> {
    let mut words = text.split_ascii_whitespace();
    let offset = words.next()?.parse().ok()?;
    let len = words.next()?.parse().ok()?;
    words.next().is_none().then_some(IndexEntry {
        offset: FileOffset(offset),
        len,
    })
}

/// The most bytes of an index line read: a valid line is two numbers of at most 20 digits, so a
/// longer one is malformed whatever follows, and the rest of it is not read.
pub const LINE_BOUND: usize = 4096;
/// The characters of a wrong line a message quotes.
const QUOTED: usize = 64;

/// Compares an existing index, read line by line from `idx`, with the entries of the file it
/// indexes: the first disagreement, or `None` when every line matches. Blank lines at the end are
/// allowed. Reading stops at the first wrong line, so an endless input (a FIFO, `/dev/zero`)
/// ends there, and no line costs more than [`LINE_BOUND`] bytes.
pub fn compare(expected: &[IndexEntry], idx: &mut impl BufRead) -> io::Result<Option<Mismatch>> {
    // The first of a run of blank lines, which only the end of the index may follow.
    let mut blank: Option<(usize, String)> = None;
    let mut lines = 0usize;
    let mut number = 0usize;
    while let Some(raw) = read_line(idx, LINE_BOUND)? {
        number += 1;
        let text = raw.quoted(QUOTED);
        if !raw.cut && text.trim().is_empty() {
            blank.get_or_insert((number, text));
            continue;
        }
        if let Some((line, text)) = blank.take() {
            return Ok(Some(Mismatch::Malformed { line, text }));
        }
        lines = number;
        let found = if raw.cut {
            None
        } else {
            parse_line(&raw.text())
        };
        let Some(found) = found else {
            return Ok(Some(Mismatch::Malformed { line: number, text }));
        };
        let Some(want) = expected.get(number - 1) else {
            return Ok(Some(Mismatch::Extra {
                line: number,
                text,
                records: expected.len(),
            }));
        };
        if found != *want {
            return Ok(Some(Mismatch::Differs {
                line: number,
                text,
                expected: *want,
            }));
        }
    }
    Ok(expected.get(lines).map(|next| Mismatch::Short {
        lines,
        records: expected.len(),
        next: *next,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::write_record;
    use std::io::Read;

    fn file(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in payloads {
            write_record(p, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn an_index_is_told_from_other_text() {
        let is = |text: &[u8]| is_index(&mut &text[..]).unwrap();
        assert!(is(b""));
        assert!(is(b"0 17\n17 16\n\n"));
        assert!(is(b"0 17\n17 16"));
        assert!(!is(b"0 17\n\n17 16\n"));
        assert!(!is(b"0 17\nhello\n"));
        assert!(!is(b"0 17 3\n"));
        assert!(!is(&[b'1'; LINE_BOUND + 10]));
    }

    #[test]
    fn an_index_read_back_is_the_scanned_index_and_a_wrong_one_is_refused() {
        let data = file(&[b"a", b"", b"hello world"]);
        let scanned = FrameIndex::build(data.as_slice());
        let mut written = Vec::new();
        write(&entries(&scanned, data.as_slice()), &mut written).unwrap();
        assert_eq!(String::from_utf8_lossy(&written), "0 17\n17 16\n33 27\n");
        let read_back = read(&mut written.as_slice(), data.len() as u64)
            .unwrap()
            .unwrap();
        let cached = FrameIndex::from_record_index(data.len() as u64, &read_back).unwrap();
        assert!(cached.is_complete());
        assert_eq!(cached.len(), 3);
        assert_eq!(cached.damaged_count(), 0);
        let frames = |index: &FrameIndex| -> Vec<_> {
            index
                .frames(data.as_slice())
                .map(|f| (f.offset, f.status, f.payload(data.as_slice())))
                .collect()
        };
        assert_eq!(frames(&cached), frames(&scanned));
        // Entries that do not tile the stream exactly, or lines that are not an index.
        let len = data.len() as u64;
        for bad in [
            "0 17\n17 16\n",
            "0 17\n18 15\n33 27\n",
            "0 17\n17 16\n33 28\n",
        ] {
            let entries = read(&mut bad.as_bytes(), len).unwrap().unwrap();
            assert!(
                FrameIndex::from_record_index(len, &entries).is_none(),
                "{bad}"
            );
        }
        assert_eq!(read(&mut "0 17\nx\n".as_bytes(), len).unwrap(), None);
        // No more lines than the stream could have frames.
        let endless = "0 16\n".repeat(10);
        assert_eq!(read(&mut endless.as_bytes(), 16 * 9).unwrap(), None);
    }

    fn index_of(data: &[u8]) -> Vec<IndexEntry> {
        entries(&FrameIndex::build(data), data)
    }

    #[test]
    fn entries_cover_whole_frames() {
        let data = file(&[b"abc", b"", b"0123456789"]);
        let mut text = Vec::new();
        write(&index_of(&data), &mut text).unwrap();
        assert_eq!(String::from_utf8(text).unwrap(), "0 19\n19 16\n35 26\n");
    }

    #[test]
    fn damaged_frames_are_left_out() {
        let mut data = file(&[b"abc", b"def", b"ghi"]);
        data[19 + 13] ^= 1; // a payload byte of the second frame
        let offsets: Vec<u64> = index_of(&data).iter().map(|e| e.offset.0).collect();
        assert_eq!(offsets, vec![0, 38]);
    }

    fn compare(expected: &[IndexEntry], idx: &[u8]) -> Option<Mismatch> {
        super::compare(expected, &mut &idx[..]).unwrap()
    }

    #[test]
    fn compare_names_the_first_wrong_line() {
        let data = file(&[b"abc", b"def", b"ghi"]);
        let expected = index_of(&data);
        assert_eq!(compare(&expected, b"0 19\n19 19\n38 19\n"), None);
        assert_eq!(compare(&expected, b"0  19\r\n19\t19\n38 19\n\n"), None);
        let wrong = compare(&expected, b"0 19\n19 20\n38 19\n").unwrap();
        assert_eq!(wrong.line(), 2);
        assert_eq!(
            wrong.to_string(),
            "line 2: \"19 20\", but record 1 is at byte 19, 19 bytes long (\"19 19\")"
        );
        let short = compare(&expected, b"0 19\n").unwrap();
        assert_eq!(
            short.to_string(),
            "ends after 1 line, but the file has 3 records: line 2 should be \"19 19\""
        );
        let extra = compare(&expected, b"0 19\n19 19\n38 19\n57 19\n").unwrap();
        assert_eq!(extra.line(), 4);
        let bad = compare(&expected, b"0 19\nnineteen\n").unwrap();
        assert!(
            matches!(bad, Mismatch::Malformed { line: 2, .. }),
            "{bad:?}"
        );
        assert!(matches!(
            compare(&expected, b"0 19 7\n"),
            Some(Mismatch::Malformed { line: 1, .. })
        ));
    }

    #[test]
    fn blank_lines_are_allowed_only_at_the_end() {
        let data = file(&[b"abc", b"def"]);
        let expected = index_of(&data);
        assert_eq!(compare(&expected, b"0 19\n19 19\n \n\n"), None);
        assert_eq!(
            compare(&expected, b"0 19\n\n \n19 19\n"),
            Some(Mismatch::Malformed {
                line: 2,
                text: String::new()
            })
        );
    }

    #[test]
    fn an_endless_or_huge_line_is_malformed_and_quoted_by_a_bounded_prefix() {
        let data = file(&[b"abc"]);
        let expected = index_of(&data);
        // /dev/zero as the index: one endless line, read up to the bound.
        let mut zeros = io::BufReader::new(io::repeat(0).take(u64::MAX));
        let wrong = super::compare(&expected, &mut zeros).unwrap().unwrap();
        let Mismatch::Malformed { line: 1, text } = &wrong else {
            panic!("{wrong:?}");
        };
        assert_eq!(text.chars().count(), QUOTED + 1);
        assert!(text.ends_with('…'));
        // A 50 MB line after a good one: named, and quoted by its first characters.
        let mut index = b"0 19\n".to_vec();
        index.extend(std::iter::repeat_n(b'7', 50_000_000));
        let wrong = compare(&expected, &index).unwrap();
        assert_eq!(
            wrong.to_string(),
            format!("line 2: \"{}…\" is not `offset length`", "7".repeat(QUOTED))
        );
        // An index that never stops (a FIFO fed by `yes "0 19"`) ends at its first wrong line.
        struct Yes(usize);
        impl Read for Yes {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                for byte in buf.iter_mut() {
                    *byte = b"0 19\n"[self.0 % 5];
                    self.0 += 1;
                }
                Ok(buf.len())
            }
        }
        let wrong = super::compare(&expected, &mut io::BufReader::new(Yes(0))).unwrap();
        assert!(
            matches!(wrong, Some(Mismatch::Extra { line: 2, .. })),
            "{wrong:?}"
        );
    }

    #[test]
    fn an_empty_file_has_an_empty_index() {
        assert!(index_of(&[]).is_empty());
        assert_eq!(compare(&[], b""), None);
    }
}
