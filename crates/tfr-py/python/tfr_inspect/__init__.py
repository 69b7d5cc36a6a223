"""Open, check and decode TFRecord files without TensorFlow.

The reading, checking and decoding are tfr-inspect's own core, compiled; this package gives it
Python's shape::

    import tfr_inspect
    f = tfr_inspect.open("train-00000-of-00010.tfrecord")
    len(f)          # records
    f[0]            # the first record's payload, as bytes
    f.example(0)    # {"label": array([3]), "image/encoded": [b"\\x89PNG..."], ...}
    f.damage()      # the damaged frames, each with its record number and byte offset

    tfr_inspect.stats("data/")                  # what `tfr-inspect stats --json data/` prints
    parts = [tfr_inspect.stats_partial(p) for p in shards]   # anywhere, pickled across
    tfr_inspect.StatsPartial.merge(parts)       # the same report, whatever the order
    tfr_inspect.locate("bad.tfrecord", 19288)   # what TensorFlow's "corrupted record at 19288" is
    tfr_inspect.index("train.tfrecord")         # the index `tfrecord2idx` writes
"""

from array import array
import json
import os

import warnings

from ._errors import DamagedRecordError, DamagedRecordWarning
from ._native import NativeFile, verify_json as _verify_json
from ._places import Index, LocateReport, index, locate
from ._stats import StatsPartial, StatsReport, stats, stats_partial

__all__ = [
    "DamagedRecordError",
    "DamagedRecordWarning",
    "Damage",
    "File",
    "Frame",
    "Index",
    "LocateReport",
    "StatsPartial",
    "StatsReport",
    "VerifyReport",
    "index",
    "locate",
    "open",
    "stats",
    "stats_partial",
    "verify",
]

try:  # numpy is optional: without it, numbers come as lists.
    import numpy as _np
except ImportError:  # pragma: no cover - exercised only where numpy is absent
    _np = None


class Frame:
    """One frame of the file: where it starts, the length it declares and its checks."""

    __slots__ = ("index", "offset", "length", "status", "length_crc_ok", "data_crc_ok")

    def __init__(self, index, offset, length, status, length_crc_ok, data_crc_ok):
        self.index = index
        self.offset = offset
        self.length = length
        self.status = status
        self.length_crc_ok = length_crc_ok
        self.data_crc_ok = data_crc_ok

    @property
    def intact(self):
        return self.status == "intact"

    def to_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self):
        return f"Frame(index={self.index}, offset={self.offset}, length={self.length}, status={self.status!r})"


class Damage:
    """A damaged frame: its record number, where it starts, what is wrong, and the error
    TensorFlow's reader gives for it."""

    __slots__ = ("record", "offset", "status", "reason", "tensorflow_message")

    def __init__(self, record, offset, status, reason, tensorflow_message):
        self.record = record
        self.offset = offset
        self.status = status
        self.reason = reason
        self.tensorflow_message = tensorflow_message

    def to_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self):
        return f"Damage(record={self.record}, offset={self.offset}, status={self.status!r})"


def _list_array(pa, rows, kind, offsets, validity, values, ends):
    """An Arrow list array over the buffers the core laid out for it (no copy)."""
    if kind == "int64":
        items = pa.Array.from_buffers(pa.int64(), len(values) // 8, [None, pa.py_buffer(values)])
    elif kind == "float":
        items = pa.Array.from_buffers(pa.float32(), len(values) // 4, [None, pa.py_buffer(values)])
    elif kind == "bytes":
        items = pa.Array.from_buffers(
            pa.binary(), len(ends) // 4 - 1, [None, pa.py_buffer(ends), pa.py_buffer(values)]
        )
    elif kind == "large_bytes":
        items = pa.Array.from_buffers(
            pa.large_binary(), len(ends) // 8 - 1, [None, pa.py_buffer(ends), pa.py_buffer(values)]
        )
    else:
        items = pa.nulls(0)
    validity = None if validity is None else pa.py_buffer(validity)
    return pa.Array.from_buffers(
        pa.list_(items.type), rows, [validity, pa.py_buffer(offsets)], children=[items]
    )


def _numbers(kind, packed):
    if kind == "int64":
        code, dtype = "q", "<i8"
    else:
        code, dtype = "f", "<f4"
    if _np is not None:
        return _np.frombuffer(packed, dtype=dtype)
    values = array(code)
    values.frombytes(packed)
    if array("H", [1]).tobytes() != b"\x01\x00":  # pragma: no cover - big-endian hosts
        values.byteswap()
    return values.tolist()


class File:
    """A TFRecord file, opened read-only and indexed frame by frame (both CRCs checked)."""

    def __init__(self, path, compression="auto"):
        self._native = NativeFile(os.fspath(path), compression)

    @property
    def path(self):
        return self._native.path

    def __len__(self):
        return len(self._native)

    def __getitem__(self, index):
        """The payload of record ``index`` as bytes; ``DamagedRecordError`` if it is damaged."""
        return self._native[index]

    def __iter__(self):
        """Every record's payload in order; a damaged record raises ``DamagedRecordError``."""
        for index in range(len(self)):
            yield self._native[index]

    def frames(self):
        """Every frame, damaged or not, as :class:`Frame`."""
        return [Frame(i, *row) for i, row in enumerate(self._native.frames())]

    def damage(self):
        """The damaged frames, as :class:`Damage`; empty when the file is intact."""
        return [Damage(*row) for row in self._native.damage()]

    def example(self, index):
        """Record ``index`` as a ``tf.train.Example``: feature name to its values.

        int64 and float features are numpy arrays (int64, float32) when numpy is installed,
        else lists; bytes features are lists of bytes; a feature with no kind set is ``[]``.
        """
        result = {}
        for name, (kind, packed, strings) in self._native.example_columns(index).items():
            if kind == "bytes":
                result[name] = strings
            elif kind == "none":
                result[name] = []
            else:
                result[name] = _numbers(kind, packed)
        return result

    def batches(self, n=1024, columns=None):
        """The Examples as ``pyarrow.RecordBatch`` es of up to ``n`` records each.

        One list column per feature (``list<int64>``, ``list<float>`` or ``list<binary>``), null
        where a record lacks the feature; ``columns`` names the features to keep, in order.
        Damaged records are skipped, each reported with a :class:`DamagedRecordWarning`, and
        listed in :meth:`damage`. pyarrow, polars and pandas take the batches as they are.
        """
        import pyarrow as pa  # only this method needs pyarrow

        if n < 1:
            raise ValueError("n must be at least 1")
        columns = None if columns is None else [str(c) for c in columns]
        for start in range(0, len(self), n):
            rows, gathered, skipped = self._native.example_batch(start, start + n, columns)
            for row in skipped:
                damage = Damage(*row)
                warnings.warn(
                    DamagedRecordWarning(
                        f"{self.path}: record {damage.record} at byte {damage.offset} skipped: "
                        f"{damage.reason}"
                    ),
                    stacklevel=2,
                )
            arrays = [_list_array(pa, rows, *column[1:]) for column in gathered]
            names = [column[0] for column in gathered]
            yield pa.RecordBatch.from_arrays(arrays, names=names)

    def decode(self, index):
        """Record ``index`` as a dict, as ``json_format.MessageToDict`` gives it."""
        return json.loads(self._native.record_json(index))

    def __repr__(self):
        return f"tfr_inspect.File({self.path!r}, records={len(self)})"


def open(path, compression="auto"):  # noqa: A001 - the name the package promises
    """Opens the TFRecord file at ``path`` (read-only) and indexes it.

    ``compression`` is ``"auto"`` (GZIP, ZLIB and SNAPPY streams are detected, as the command
    line detects them) or, as TensorFlow's ``compression_type``, ``"NONE"``, ``"GZIP"``,
    ``"ZLIB"`` or ``"SNAPPY"``: the bytes are then read only so.
    """
    return File(path, compression)


class VerifyReport:
    """What ``verify`` found, as ``tfr-inspect verify --json`` prints it for the same arguments.

    ``ok`` is true when the command line would end clean: every argument used, every frame
    intact and, for a dataset, no problem with it (a shard missing, counts unlike
    ``dataset_info.json``). ``files`` holds each file's verdict (a dict per file: frames, intact,
    damaged, problems with record numbers and offsets, or the error that kept the file from being
    read; a shard's split, shard number and first record in its split, ``None`` after a shard
    of its split that is missing, there twice or unreadable), ``dataset`` the dataset's summary
    when the arguments are one (else ``None``) and ``errors`` the arguments that could not be
    used, in the command line's words."""

    def __init__(self, ok, text, errors=()):
        self.ok = ok
        self._text = text
        lines = [json.loads(line) for line in text.splitlines()]
        self.dataset = None
        if lines and "dataset" in lines[-1]:
            self.dataset = lines.pop()["dataset"]
        self.files = lines
        self.errors = list(errors)

    def to_dict(self):
        """``ok``, ``files`` and, for a dataset, ``dataset``: the lines of ``verify --json``."""
        made = {"ok": self.ok, "files": self.files}
        if self.dataset is not None:
            made["dataset"] = self.dataset
        return made

    def to_json(self):
        """The text ``tfr-inspect verify --json ARGS...`` prints, byte for byte."""
        return self._text

    def __repr__(self):
        return f"VerifyReport(ok={self.ok}, files={len(self.files)})"


def verify(paths, thorough=False, images=False):
    """Checks every frame of every file ``paths`` names (a path, a glob, a directory, or a list
    of them, resolved as the command line resolves its arguments), one file per core, as
    ``tfr-inspect verify`` does."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    ok, text, errors = _verify_json([os.fspath(p) for p in paths], thorough, images)
    return VerifyReport(ok, text, errors)
