//! `index`'s findings: the records an index of a file lists, what keeps the file from being
//! indexed faithfully (damage, compression), and how an existing index compares with it.

use std::io::BufRead;
use std::path::Path;

use serde::Serialize;

use crate::error::Error;
use crate::frame::FrameIndex;
use crate::record_index::{self, IndexEntry};
use crate::source::{ReadOptions, Source};

/// What a file holds, as far as an index is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indexed {
    /// One per intact record, in order.
    pub entries: Vec<IndexEntry>,
    /// Damaged frames, plus one for a damaged compressed stream.
    pub damaged: usize,
    /// `GZIP` or `ZLIB`, when the file is compressed.
    pub compression: Option<&'static str>,
}

impl Indexed {
    /// Reads and indexes the file at `path`.
    pub fn read(path: &Path, read: &ReadOptions) -> Result<Indexed, Error> {
        let source = Source::open(path, read)?;
        let index = FrameIndex::build(&source);
        let entries = record_index::entries(&index, &source);
        source.check_unchanged()?;
        let stream_damaged = source.compression().is_some_and(|c| c.problem.is_some());
        Ok(Indexed {
            entries,
            damaged: index.damaged_count() + usize::from(stream_damaged),
            compression: source
                .compression()
                .map(|c| c.compression.tensorflow_name()),
        })
    }
}

/// How an existing index compares with the file's records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexCheck {
    /// The file's intact records.
    pub records: usize,
    /// The first wrong line, said in words; `None` when the index matches.
    pub mismatch: Option<String>,
}

impl IndexCheck {
    /// Compares the index read from `idx` (line by line, never whole) with `entries`.
    pub fn compare(entries: &[IndexEntry], idx: &mut impl BufRead) -> std::io::Result<IndexCheck> {
        let mismatch = record_index::compare(entries, idx)?;
        Ok(IndexCheck {
            records: entries.len(),
            mismatch: mismatch.map(|m| m.to_string()),
        })
    }

    pub fn matches(&self) -> bool {
        self.mismatch.is_none()
    }
}
