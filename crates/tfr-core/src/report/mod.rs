//! Each command's result as plain data: what the command line prints as text or JSON, and what
//! any other front end (the inspector, a binding) can take as it is.
//!
//! A report is computed by a function that takes the input and options and returns it, without
//! printing anything; its JSON is `serde` through [`crate::pyjson::to_string`]. Field names are
//! the JSON member names; members that JSON leaves out when they do not apply are skipped there.

pub mod count;
pub mod export;
pub mod feature_spec;
pub mod filter;
pub mod hex;
pub mod index;
pub mod index_dir;
pub mod locate;
pub mod pick;
pub mod salvage;
pub mod tags;
pub mod verify;
pub mod verify_merge;

/// Where long work says how far it got (a progress bar, or nothing).
pub trait Progress: Sync {
    /// `bytes` more to do (a file opened in the meantime).
    fn grow(&self, bytes: u64);
    /// `bytes` more done.
    fn advance(&self, bytes: u64);
}

/// No progress shown.
impl Progress for () {
    fn grow(&self, _: u64) {}
    fn advance(&self, _: u64) {}
}

/// Offsets and ranges of the file as JSON numbers and `[start, end]` pairs.
pub(crate) mod ser {
    use serde::Serializer;
    use serde::ser::SerializeSeq;

    use crate::span::{FileOffset, FileRange};

    pub fn offset<S: Serializer>(at: &FileOffset, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(at.0)
    }

    pub fn optional_offset<S: Serializer>(
        at: &Option<FileOffset>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match at {
            Some(at) => s.serialize_u64(at.0),
            None => s.serialize_none(),
        }
    }

    pub fn range<S: Serializer>(range: &FileRange, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&[range.start.0, range.end.0], s)
    }

    pub fn ranges<S: Serializer>(ranges: &[FileRange], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(ranges.len()))?;
        for range in ranges {
            seq.serialize_element(&[range.start.0, range.end.0])?;
        }
        seq.end()
    }
}

/// The facts of a frame that every report words the same way (`locate`, `salvage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FrameFacts {
    pub index: usize,
    #[serde(serialize_with = "ser::offset")]
    pub offset: crate::span::FileOffset,
    pub status: &'static str,
    /// The offset TensorFlow names in its error; `null` for frames it reads.
    #[serde(serialize_with = "ser::optional_offset")]
    pub tensorflow_offset: Option<crate::span::FileOffset>,
}

impl FrameFacts {
    pub fn of(frame: &crate::frame::Frame) -> FrameFacts {
        FrameFacts {
            index: frame.index,
            offset: frame.offset,
            status: frame.status.name(),
            tensorflow_offset: frame.tensorflow_offset(),
        }
    }
}

/// Frames found nested in a damaged record: how many, and where.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NestedCount {
    pub count: usize,
    pub offsets: Vec<u64>,
}

impl NestedCount {
    pub fn of(nested: &crate::nested::NestedFrames<'_>) -> NestedCount {
        NestedCount {
            count: nested.count(),
            offsets: nested.frames().map(|f| f.offset.0).collect(),
        }
    }
}
