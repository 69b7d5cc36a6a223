//! `tfr_inspect._native`: the core's frame index, checks and decoding for Python.
//!
//! Only the binding lives here: every answer is computed by `tfr-core`, the same code the
//! command line runs, so Python sees the same records, verdicts and values. The interpreter's
//! lock is released while files are indexed and records decoded. The Python package around this
//! module (`python/tfr_inspect`) turns the plain values returned here into the public API.
//! Paths may be object URLs (`gs://`, `s3://`, `az://`, `https://`), read through `tfr-remote`
//! as the command line reads them.

mod places;
mod stats;

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::exceptions::{PyIndexError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use tfr_core::columns::{Column, ColumnError, ColumnValues, ExampleColumns};
use tfr_core::compress::Mode;
use tfr_core::damage;
use tfr_core::dataset::run::Run;
use tfr_core::escape::{path_for_json, path_for_terminal};
use tfr_core::example::{FeatureKind, top_features};
use tfr_core::frame::Frame;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::jsonformat::message_to_json;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::report::verify::{
    DatasetLine, FILE_LINE, FileLine, Outcome, VerifyOptions, VerifyReport,
};
use tfr_core::report::verify_merge;
use tfr_core::resync::ResyncBudget;
use tfr_core::schema::Schema;

/// An opened TFRecord file, indexed whole on opening.
#[pyclass(frozen, module = "tfr_inspect._native")]
struct NativeFile {
    path: PathBuf,
    input: Mutex<Input>,
}

/// Why a record's payload cannot be handed out: the file, the record and where it starts.
struct Damaged {
    record: usize,
    offset: u64,
    reason: String,
}

impl NativeFile {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Input>> {
        self.input
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the file's index was poisoned by a panic"))
    }

    /// The frame of record `index` (negative counts from the end, as Python's indexes do).
    fn frame_at(input: &Input, index: isize) -> PyResult<Frame> {
        let count = input.index.len();
        let wanted = if index < 0 {
            count.checked_sub(index.unsigned_abs())
        } else {
            Some(index.unsigned_abs())
        };
        wanted.and_then(|i| input.indexed_frame(i)).ok_or_else(|| {
            PyIndexError::new_err(format!("record {index} out of range: the file has {count}"))
        })
    }

    /// The payload of an intact frame, or why there is none.
    fn intact_payload<'a>(input: &'a Input, frame: &Frame) -> Result<&'a [u8], Damaged> {
        let damaged = |reason: String| Damaged {
            record: frame.index,
            offset: frame.offset.0,
            reason,
        };
        if !frame.status.is_intact() {
            return Err(damaged(damage::problem(
                frame,
                &input.source,
                input.is_last(frame.index),
            )));
        }
        frame
            .payload(&input.source)
            .ok_or_else(|| damaged("its bytes could not be read".to_string()))
    }

    /// The file's name for messages: as the command line prints it, escaped for a terminal.
    fn shown(&self) -> String {
        path_for_terminal(&self.path)
    }

    /// Calls `read` with record `index`'s frame and payload; a damaged record raises
    /// `DamagedRecordError` instead.
    fn with_payload<R>(
        &self,
        py: Python<'_>,
        index: isize,
        read: impl FnOnce(&Input, &Frame, &[u8]) -> PyResult<R>,
    ) -> PyResult<R> {
        let input = self.lock()?;
        let frame = Self::frame_at(&input, index)?;
        match Self::intact_payload(&input, &frame) {
            Ok(payload) => read(&input, &frame, payload),
            Err(damaged) => Err(self.damaged_error(py, damaged)),
        }
    }

    fn damaged_error(&self, py: Python<'_>, damaged: Damaged) -> PyErr {
        // The attribute is the path as Python gave it; the message escapes it.
        let path = path_for_json(&self.path);
        let made = py
            .import("tfr_inspect._errors")
            .and_then(|m| m.getattr("DamagedRecordError"))
            .and_then(|class| class.call1((path, damaged.record, damaged.offset, damaged.reason)));
        match made {
            Ok(error) => PyErr::from_value(error),
            Err(error) => error,
        }
    }
}

/// A damaged frame as the Python side's `Damage` is made from it: `(record, offset, status,
/// reason, tensorflow_message)`, the reason in the command line's words.
type DamageRow = (usize, u64, &'static str, String, Option<String>);

fn damage_row(input: &Input, frame: &Frame) -> DamageRow {
    (
        frame.index,
        frame.offset.0,
        frame.status.name(),
        damage::problem(frame, &input.source, input.is_last(frame.index)),
        frame.tensorflow_message(),
    )
}

/// One feature's values as the Python side builds them: the kind's name and either the packed
/// little-endian numbers (`int64`: 8 bytes each, `float`: 4) or a list of byte strings.
type FeatureColumn = (&'static str, Vec<u8>, Vec<Vec<u8>>);

fn example_columns(decoder: &Decoder, payload: &[u8]) -> Option<Vec<(String, FeatureColumn)>> {
    let decoded = decoder.decode(payload);
    let message = decoded.typed(payload, decoder.table())?;
    let name = decoder.table().message(message.id())?.full_name.as_ref();
    if name != "tensorflow.Example" {
        return None;
    }
    let columns = top_features(&message)
        .iter()
        .map(|feature| {
            let values = &feature.values;
            let column = match values.kind() {
                FeatureKind::Int64 => (
                    "int64",
                    values.ints().flat_map(i64::to_le_bytes).collect(),
                    Vec::new(),
                ),
                FeatureKind::Float => (
                    "float",
                    values.floats().flat_map(f32::to_le_bytes).collect(),
                    Vec::new(),
                ),
                FeatureKind::Bytes => (
                    "bytes",
                    Vec::new(),
                    values.bytes().map(|(b, _)| b.to_vec()).collect(),
                ),
                FeatureKind::Empty => ("none", Vec::new(), Vec::new()),
            };
            (feature.name().into_owned(), column)
        })
        .collect();
    Some(columns)
}

#[pymethods]
impl NativeFile {
    /// `compression` is `"auto"` (detected, as the command line does), or `"NONE"`, `"GZIP"`,
    /// `"ZLIB"` or `"SNAPPY"` to read the bytes so, as TensorFlow's `compression_type` does.
    #[new]
    #[pyo3(signature = (path, compression = "auto"))]
    fn new(py: Python<'_>, path: PathBuf, compression: &str) -> PyResult<NativeFile> {
        let mode: Mode = compression.parse().map_err(PyValueError::new_err)?;
        let opened = py.detach(|| {
            let mut options = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
            options.read.mode = mode;
            Input::open(&path, &options).map(|mut input| {
                input.settle_all();
                input
            })
        });
        match opened {
            Ok(input) => Ok(NativeFile {
                path,
                input: Mutex::new(input),
            }),
            Err(error) => Err(PyOSError::new_err(error.to_string())),
        }
    }

    #[getter]
    fn path(&self) -> String {
        path_for_json(&self.path)
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.lock()?.index.len())
    }

    /// The payload of record `index`; a damaged record raises `DamagedRecordError`.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyBytes>> {
        self.with_payload(py, index, |_, _, payload| Ok(PyBytes::new(py, payload)))
    }

    /// Every frame as `(offset, declared_length, status, length_crc_ok, data_crc_ok)`.
    #[allow(clippy::type_complexity)]
    fn frames(
        &self,
    ) -> PyResult<Vec<(u64, Option<u64>, &'static str, Option<bool>, Option<bool>)>> {
        let input = self.lock()?;
        Ok(input
            .index
            .frames(&input.source)
            .map(|f| {
                (
                    f.offset.0,
                    f.declared_length,
                    f.status.name(),
                    f.status.length_crc_ok(),
                    f.status.data_crc_ok(),
                )
            })
            .collect())
    }

    /// The damaged frames as `(record, offset, status, reason, tensorflow_message)`.
    fn damage(&self) -> PyResult<Vec<DamageRow>> {
        let input = self.lock()?;
        Ok(input
            .index
            .damaged_frames(&input.source)
            .map(|f| damage_row(&input, &f))
            .collect())
    }

    /// Record `index` as an Example's columns: name to `(kind, packed numbers, byte strings)`.
    fn example_columns<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyDict>> {
        let columns = self.with_payload(py, index, |input, frame, payload| {
            let decoder = input.decoder();
            py.detach(|| example_columns(decoder, payload))
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "{}: record {} is not a tf.train.Example",
                        self.shown(),
                        frame.index
                    ))
                })
        })?;
        let dict = PyDict::new(py);
        for (name, (kind, packed, strings)) in columns {
            let strings = PyList::new(py, strings.iter().map(|s| PyBytes::new(py, s)))?;
            dict.set_item(name, (kind, PyBytes::new(py, &packed), strings))?;
        }
        Ok(dict)
    }

    /// Records `start..stop` of Examples as columns (see [`BatchColumn`]), with the damaged
    /// records skipped as `(record, offset, status, reason, tensorflow_message)`.
    #[pyo3(signature = (start, stop, columns = None))]
    #[allow(clippy::type_complexity)]
    fn example_batch<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        stop: usize,
        columns: Option<Vec<String>>,
    ) -> PyResult<(usize, Vec<BatchColumn<'py>>, Vec<DamageRow>)> {
        let input = self.lock()?;
        let gathered = py.detach(|| gather_batch(&input, start, stop, columns.as_deref()));
        let (gathered, skipped) = gathered.map_err(|problem| match problem {
            BatchProblem::NotAnExample(record) => PyValueError::new_err(format!(
                "{}: record {record} is not a tf.train.Example",
                self.shown()
            )),
            BatchProblem::Columns(record, error) => {
                PyValueError::new_err(format!("{}: record {record}: {error}", self.shown()))
            }
        })?;
        let rows = gathered.rows();
        let columns = gathered
            .finish()
            .into_iter()
            .map(|c| column_to_python(py, c))
            .collect::<PyResult<Vec<_>>>()?;
        let skipped = skipped.iter().map(|f| damage_row(&input, f)).collect();
        Ok((rows, columns, skipped))
    }

    /// Record `index` as protobuf's canonical JSON, as `json_format.MessageToJson` writes it.
    fn record_json(&self, py: Python<'_>, index: isize) -> PyResult<String> {
        self.with_payload(py, index, |input, frame, payload| {
            let decoder = input.decoder();
            py.detach(|| {
                let decoded = decoder.decode(payload);
                decoded
                    .typed(payload, decoder.table())
                    .map(|message| message_to_json(&message))
            })
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{}: record {} is not a message of a known type",
                    self.shown(),
                    frame.index
                ))
            })
        })
    }
}

/// One column of a batch as the Python side assembles an Arrow list array from it, its buffers
/// laid out as Arrow lays them out: name, kind (`"int64"`, `"float"`, `"bytes"` with 32-bit
/// string offsets, `"large_bytes"` with 64-bit ones, `"none"`), the list offsets (`int32`, one
/// more than the rows), the validity bitmap (a bit per row, least significant first; `None` when every row has
/// the feature), the values (packed little-endian numbers, or the bytes of all strings) and,
/// for bytes, the string offsets.
type BatchColumn<'py> = (
    String,
    &'static str,
    Bound<'py, PyBytes>,
    Option<Bound<'py, PyBytes>>,
    Bound<'py, PyBytes>,
    Option<Bound<'py, PyBytes>>,
);

/// `values` as one Python bytes object of their little-endian bytes, written in place.
fn packed<'py, const N: usize, T: Copy>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len().saturating_mul(N), |buffer| {
        for (to, &value) in buffer.chunks_exact_mut(N).zip(values) {
            to.copy_from_slice(&to_le(value));
        }
        Ok(())
    })
}

/// Arrow's validity bitmap of `present`, or `None` when every row is present.
fn validity(present: &[bool]) -> Option<Vec<u8>> {
    if present.iter().all(|&p| p) {
        return None;
    }
    let mut bits = vec![0u8; present.len().div_ceil(8)];
    for (byte, rows) in bits.iter_mut().zip(present.chunks(8)) {
        for (bit, &p) in rows.iter().enumerate() {
            *byte |= u8::from(p) << bit;
        }
    }
    Some(bits)
}

fn column_to_python<'py>(py: Python<'py>, column: Column) -> PyResult<BatchColumn<'py>> {
    let offsets = packed(py, &column.offsets, i32::to_le_bytes)?;
    let present = validity(&column.present).map(|bits| PyBytes::new(py, &bits));
    let (kind, values, ends) = match &column.values {
        ColumnValues::Unset => ("none", PyBytes::new(py, &[]), None),
        ColumnValues::Int64(v) => ("int64", packed(py, v, i64::to_le_bytes)?, None),
        ColumnValues::Float(v) => ("float", packed(py, v, f32::to_le_bytes)?, None),
        ColumnValues::Bytes { ends, data } => {
            let starts: Vec<i64> = std::iter::once(0i64).chain(ends.iter().copied()).collect();
            let small: Option<Vec<i32>> = starts.iter().map(|&e| i32::try_from(e).ok()).collect();
            let (kind, ends) = match small {
                Some(small) => ("bytes", packed(py, &small, i32::to_le_bytes)?),
                None => ("large_bytes", packed(py, &starts, i64::to_le_bytes)?),
            };
            (kind, PyBytes::new(py, data), Some(ends))
        }
    };
    Ok((column.name, kind, offsets, present, values, ends))
}

/// Why a batch could not be made.
enum BatchProblem {
    NotAnExample(usize),
    Columns(usize, ColumnError),
}

/// Records `start..stop` gathered into columns; damaged records are skipped and listed.
fn gather_batch(
    input: &Input,
    start: usize,
    stop: usize,
    columns: Option<&[String]>,
) -> Result<(ExampleColumns, Vec<Frame>), BatchProblem> {
    let mut gathered = columns.map_or_else(ExampleColumns::new, ExampleColumns::only);
    let mut skipped = Vec::new();
    let decoder = input.decoder();
    // In a file of Examples, a record of the plain shape is read straight from its bytes; the
    // others through the decoder, which gives the same columns slower.
    let from_bytes = decoder.takes_examples();
    for index in start..stop {
        let Some(frame) = input.indexed_frame(index) else {
            break;
        };
        let Ok(payload) = NativeFile::intact_payload(input, &frame) else {
            skipped.push(frame);
            continue;
        };
        if let Some(pushed) = from_bytes.then(|| gathered.push_wire(payload)).flatten() {
            pushed.map_err(|e| BatchProblem::Columns(index, e))?;
            continue;
        }
        let decoded = decoder.decode(payload);
        let message = decoded
            .typed(payload, decoder.table())
            .filter(|m| {
                decoder
                    .table()
                    .message(m.id())
                    .is_some_and(|m| m.full_name.as_ref() == "tensorflow.Example")
            })
            .ok_or(BatchProblem::NotAnExample(index))?;
        gathered
            .push(&message)
            .map_err(|e| BatchProblem::Columns(index, e))?;
    }
    Ok((gathered, skipped))
}

/// What `verify --json` over some arguments gives Python: whether the command line would end
/// clean (every argument used, every frame intact, the dataset without problems), the text it
/// prints, and what it says of the arguments it could not use.
type Verified = (bool, String, Vec<String>);

/// Resolves `args` as the command line does (directories searched, patterns matched, shards
/// placed in their splits), checks every frame (one file per core, the lock released) and
/// returns what `verify --json ARGS...` prints, the dataset's line included.
#[pyfunction]
#[pyo3(signature = (args, thorough = false, images = false))]
fn verify_json(
    py: Python<'_>,
    args: Vec<PathBuf>,
    thorough: bool,
    images: bool,
) -> PyResult<Verified> {
    let (run, report, unusable) = py.detach(|| {
        let (mut run, unusable) = Run::resolve(&args);
        let open = OpenOptions::new(Decoder::new(Schema::builtin(), Reading::Auto));
        let options = VerifyOptions {
            budget: if thorough {
                ResyncBudget::Unlimited
            } else {
                ResyncBudget::DEFAULT
            },
            images,
        };
        let report = VerifyReport::check(&run.paths(), &open, options, &());
        for (tally, counted) in run.tallies.iter_mut().zip(report.tallies()) {
            *tally = counted;
        }
        (run, report, unusable)
    });
    let mut text = String::new();
    for (member, (path, verdict)) in run.paths().iter().zip(&report.files).enumerate() {
        let outcome = match verdict {
            Ok(verdict) => Outcome::Checked(verdict),
            Err(error) => Outcome::Unusable {
                error: error.to_string(),
            },
        };
        let line = FileLine {
            kind: FILE_LINE,
            file: path_for_json(path),
            place: run.split_place(member),
            outcome,
        };
        text.push_str(
            &tfr_core::pyjson::to_string(&line)
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        );
        text.push('\n');
    }
    let clean = report.ok() && unusable.is_empty();
    finish_verified(&run, clean, text, unusable)
}

/// Ends the text of `verify --json` over `run` with the dataset's line when the run is one
/// (a problem of the dataset makes it unclean).
fn finish_verified(
    run: &Run,
    mut clean: bool,
    mut text: String,
    unusable: Vec<String>,
) -> PyResult<Verified> {
    if run.is_dataset() {
        let summary = run.summary();
        text.push_str(
            &tfr_core::pyjson::to_string(&DatasetLine::new(&summary.report()))
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        );
        text.push('\n');
        clean &= summary.problems.is_empty();
    }
    Ok((clean, text, unusable))
}

/// `verify --merge --json` over parts at hand: each a name (a shard's path, say, which errors
/// name the part by) and the text `verify --json` printed for it. What one `verify --json` over
/// all their files prints, in the order that run checks them, as the command line merges parts;
/// parts that are not `verify --json` output, or overlap, raise `ValueError` naming the part.
#[pyfunction]
fn verify_merge_json(py: Python<'_>, parts: Vec<(PathBuf, String)>) -> PyResult<Verified> {
    let merged = py
        .detach(|| {
            let readers = parts
                .into_iter()
                .map(|(name, text)| (name, std::io::Cursor::new(text.into_bytes())))
                .collect();
            verify_merge::merge_readers(readers)
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut run = Run::of(merged.dataset);
    for (tally, file) in run.tallies.iter_mut().zip(&merged.files) {
        *tally = file.outcome.as_ref().ok().map(|(_, tally)| *tally);
    }
    let mut text = String::new();
    let mut clean = merged.unusable_inputs.is_empty();
    for (member, file) in merged.files.iter().enumerate() {
        clean &= file.outcome.as_ref().is_ok_and(|(said, _)| said.ok);
        let line = verify_merge::Line {
            kind: FILE_LINE,
            file: path_for_json(&file.path),
            place: run.split_place(member),
            verdict: &file.json,
        };
        text.push_str(
            &tfr_core::pyjson::to_string(&line)
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        );
        text.push('\n');
    }
    finish_verified(&run, clean, text, merged.unusable_inputs)
}

/// The size in bytes of each file `paths` names, a local path's from its metadata and an object
/// URL's from its store (a HEAD request or a listing, none of its bytes read); the first that
/// cannot be had raises `OSError` naming it.
#[pyfunction]
fn sizes(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<u64>> {
    py.detach(|| {
        paths
            .iter()
            .map(|path| match tfr_core::source::remote::claiming(path) {
                Some(remote) => remote.size(path),
                None => std::fs::metadata(path)
                    .map(|m| m.len())
                    .map_err(|e| format!("{}: {e}", path_for_terminal(path))),
            })
            .collect::<Result<Vec<u64>, String>>()
    })
    .map_err(PyOSError::new_err)
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // Wherever a path is taken, an object URL too: credentials come from the environment, as
    // for the command line, and the network runtime starts only when a URL is read.
    tfr_remote::inputs::Remotes::new(false).install();
    module.add_class::<NativeFile>()?;
    module.add_function(wrap_pyfunction!(verify_json, module)?)?;
    module.add_function(wrap_pyfunction!(verify_merge_json, module)?)?;
    module.add_function(wrap_pyfunction!(sizes, module)?)?;
    module.add_function(wrap_pyfunction!(places::index_entries, module)?)?;
    module.add_function(wrap_pyfunction!(places::locate_json, module)?)?;
    module.add_function(wrap_pyfunction!(stats::stats_json, module)?)?;
    module.add_function(wrap_pyfunction!(stats::dataset_files, module)?)?;
    module.add_function(wrap_pyfunction!(stats::stats_partial, module)?)?;
    module.add_function(wrap_pyfunction!(stats::stats_merge, module)?)?;
    Ok(())
}
