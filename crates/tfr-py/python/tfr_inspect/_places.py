"""``index`` and ``locate``: the records an index of a file lists, and what an offset from
TensorFlow's "corrupted record at N" / "truncated record at N" is in the file."""

import json
import os

from ._native import index_entries as _index_entries, locate_json as _locate_json


class Index:
    """The record index of a file, as ``tfrecord2idx`` writes it: ``entries``, one
    ``(offset, length)`` per intact record (the length of the whole frame, header and CRCs
    included), in order.

    ``damaged`` counts the frames left out (and a damaged compressed stream); ``compression`` is
    ``"GZIP"`` or ``"ZLIB"`` for a compressed file, whose offsets are then in its decompressed
    stream. ``ok`` is true when neither applies: then ``to_text()`` is what ``tfr-inspect index
    FILE`` prints, and else what ``tfr-inspect index --intact-only FILE`` prints (the command
    line refuses such a file without ``--intact-only``, since readers that seek to the offsets
    would meet bad or compressed bytes).
    """

    def __init__(self, file, entries, text, damaged, compression):
        self.file = file
        self.entries = [tuple(e) for e in entries]
        self._text = text
        self.damaged = damaged
        self.compression = compression

    @property
    def ok(self):
        return self.damaged == 0 and self.compression is None

    def __len__(self):
        return len(self.entries)

    def to_text(self):
        """The index file's text: ``offset length`` per line."""
        return self._text

    def to_dict(self):
        return {
            "file": self.file,
            "compression": self.compression,
            "damaged": self.damaged,
            "records": [{"offset": o, "length": n} for o, n in self.entries],
        }

    def to_json(self):
        """``to_dict()`` as one line of JSON, as the command line writes its JSON."""
        return json.dumps(self.to_dict(), sort_keys=True) + "\n"

    def __repr__(self):
        return f"Index({self.file!r}, records={len(self.entries)}, damaged={self.damaged})"


def index(path):
    """The record index of the TFRecord file at ``path`` (read-only): see :class:`Index`."""
    return Index(*_index_entries(os.fspath(path)))


class LocateReport:
    """What an offset from TensorFlow's "corrupted record at N" / "truncated record at N" is in a
    file: ``to_json()`` is what ``tfr-inspect locate --json FILE N`` prints, ``to_dict()`` the same
    as a dict, whose keys are also attributes (``case``, ``explanation``, ``frame``, ``crc``...).
    ``status`` is the command line's exit code: 1 when the offset is in damage, 0 in an intact
    frame, 2 when it is past the end of the file."""

    def __init__(self, text, status):
        self._text = text
        self._dict = json.loads(text)
        self.status = status

    def __getattr__(self, name):
        try:
            return self.__dict__["_dict"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __reduce__(self):
        return (LocateReport, (self._text, self.status))

    def to_json(self):
        return self._text

    def to_dict(self):
        return json.loads(self._text)

    def __repr__(self):
        return f"LocateReport({self._dict['file']!r}, {self._dict['offset']}, case={self._dict['case']!r})"


def locate(path, offset):
    """What byte ``offset`` of the file at ``path`` is (of a compressed file, an offset in its
    decompressed stream, as in TensorFlow's messages): see :class:`LocateReport`."""
    return LocateReport(*_locate_json(os.fspath(path), int(offset)))
