//! `index` and `locate` for Python: the records an index lists, and what an offset from
//! TensorFlow's "corrupted record at N" is, computed by the core as the command line computes
//! them, the file read with the interpreter's lock released.

use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;

use tfr_core::escape::path_for_json;
use tfr_core::recover::Case;
use tfr_core::report::index::Indexed;
use tfr_core::report::locate::locate;
use tfr_core::source::ReadOptions;

/// The file's intact records as `(offset, length)` (the length of the whole frame), the lines
/// `tfrecord2idx` writes for them, the damaged frames (and damaged stream) left out and the
/// compression (`"GZIP"`, `"ZLIB"`), when the file is compressed.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn index_entries(
    py: Python<'_>,
    path: PathBuf,
) -> PyResult<(String, Vec<(u64, u64)>, String, usize, Option<&'static str>)> {
    let indexed = py
        .detach(|| Indexed::read(&path, &ReadOptions::default()))
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    let mut text = Vec::new();
    tfr_core::record_index::write(&indexed.entries, &mut text)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let entries = indexed
        .entries
        .iter()
        .map(|e| (e.offset.0, e.len))
        .collect();
    Ok((
        path_for_json(&path),
        entries,
        String::from_utf8_lossy(&text).into_owned(),
        indexed.damaged,
        indexed.compression,
    ))
}

/// What `locate --json FILE OFFSET` prints (its newline included) and the status it ends with:
/// 1 when the offset is in damage, 0 in an intact frame, 2 past the end of the file.
#[pyfunction]
pub fn locate_json(py: Python<'_>, path: PathBuf, offset: u64) -> PyResult<(String, u8)> {
    let report = py
        .detach(|| locate(&path, &ReadOptions::default(), offset))
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    let mut text =
        tfr_core::pyjson::to_string(&report).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    text.push('\n');
    let status = match report.verdict {
        Case::Damaged(_) => 1,
        Case::IntactFrame => 0,
        Case::PastEnd => 2,
    };
    Ok((text, status))
}
