//! The record index that `tfrecord2idx` writes beside a shard (the `tfrecord` package's
//! `tfrecord.tools.tfrecord2idx`, NVIDIA DALI's `tfrecord2idx`): one `offset length` line per
//! record, the length counting the whole frame (header, payload and footer).
//!
//! Readers that use such an index seek to each offset and read that many bytes, trusting the index
//! blindly: an index left over from an older version of a shard feeds them garbage. The entries
//! here come from the verified frame index, so an index is only ever written for frames whose
//! CRCs hold, and an existing index is compared line by line with what the file holds.

use std::fmt;
use std::io::{self, Write};

use crate::frame::FrameIndex;
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
pub fn entries(index: &FrameIndex, data: &[u8]) -> Vec<IndexEntry> {
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

/// Compares an existing index (its bytes) with the entries of the file it indexes; the first
/// disagreement, or `None` when every line matches. Blank lines at the end are allowed.
pub fn compare(expected: &[IndexEntry], idx: &[u8]) -> Option<Mismatch> {
    let text = String::from_utf8_lossy(idx);
    let mut lines: Vec<&str> = text.split('\n').collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    for (i, raw) in lines.iter().enumerate() {
        let line = i + 1;
        let text = raw.trim_end_matches('\r').to_string();
        let Some(found) = parse_line(&text) else {
            return Some(Mismatch::Malformed { line, text });
        };
        let Some(want) = expected.get(i) else {
            return Some(Mismatch::Extra {
                line,
                text,
                records: expected.len(),
            });
        };
        if found != *want {
            return Some(Mismatch::Differs {
                line,
                text,
                expected: *want,
            });
        }
    }
    expected.get(lines.len()).map(|next| Mismatch::Short {
        lines: lines.len(),
        records: expected.len(),
        next: *next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::write_record;

    fn file(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in payloads {
            write_record(p, &mut out).unwrap();
        }
        out
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
    fn an_empty_file_has_an_empty_index() {
        assert!(index_of(&[]).is_empty());
        assert_eq!(compare(&[], b""), None);
    }
}
