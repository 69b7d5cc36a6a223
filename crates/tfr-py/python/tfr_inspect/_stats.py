"""Dataset statistics: one pass (``stats``), or partials made apart and merged (``stats_partial``,
``StatsPartial.merge``), the way engines share the work. Either gives the report
``tfr-inspect stats --json`` prints for the same files, byte for byte."""

import json
import os

from ._native import dataset_files as _dataset_files
from ._native import stats_json as _stats_json, stats_merge as _stats_merge
from ._native import stats_partial as _stats_partial

_STATUS = {0: "clean", 1: "damage found", 2: "unusable input"}


def _args(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    return [os.fspath(p) for p in paths]


class StatsReport:
    """The statistics of a dataset, per split: ``to_json()`` is the text ``tfr-inspect stats
    --json`` prints, ``to_dict()`` the same as a dict.

    ``messages`` is what the command line says on its error stream besides, in order, each
    ``(level, text)`` with level ``"note"``, ``"error"`` (damage) or ``"unusable"``; ``status``
    the code it exits with (0 clean, 1 damage found, 2 unusable input); ``ok`` is ``status == 0``.
    """

    def __init__(self, text, messages, status):
        self._text = text
        self.messages = [tuple(m) for m in messages]
        self.status = status

    @property
    def ok(self):
        return self.status == 0

    def to_json(self):
        """The report exactly as ``tfr-inspect stats --json`` prints it (newline included)."""
        return self._text

    def to_dict(self):
        return json.loads(self._text)

    def __eq__(self, other):
        if not isinstance(other, StatsReport):
            return NotImplemented
        return (self._text, self.messages, self.status) == (other._text, other.messages, other.status)

    def __reduce__(self):
        return (StatsReport, (self._text, self.messages, self.status))

    def __repr__(self):
        splits = ", ".join(f"{s['name']}: {s['records']}" for s in self.to_dict()["splits"])
        return f"StatsReport({_STATUS.get(self.status, self.status)}; records {splits})"


def _reported(text, messages, status):
    if text is None:
        said = "; ".join(text for _, text in messages) or "no TFRecord file to summarise"
        raise ValueError(f"no statistics: {said}")
    return StatsReport(text, messages, status)


def stats(paths):
    """The statistics of the files, directories and glob patterns ``paths`` names (one or a
    list), in one pass on all cores, as ``tfr-inspect stats --json PATHS...`` reports them.

    Raises ``ValueError`` when the command line prints no report (no file to summarise, or a
    file changed while it was read), with what it would say.
    """
    return _reported(*_stats_json(_args(paths)))


class StatsPartial:
    """The statistics of a part of a dataset (a shard, or a few), to merge with the other parts'
    (:meth:`merge`). It is the bytes ``tfr-inspect stats --partial`` writes, and pickles as them,
    so it crosses process boundaries (Beam's workers, Ray's tasks) unchanged.

    ``messages`` and ``status`` are what ``stats --partial`` says of the part; the dataset's
    problems that only all the shards' names show are the merge's to say.
    """

    def __init__(self, data, name="partial", messages=(), status=0):
        self._data = bytes(data)
        self.name = str(name)
        self.messages = [tuple(m) for m in messages]
        self.status = status

    def to_bytes(self):
        """The partial as ``tfr-inspect stats --partial -o FILE`` writes it (``stats --merge``
        takes the file)."""
        return self._data

    @classmethod
    def from_bytes(cls, data, name="partial"):
        return cls(data, name)

    @classmethod
    def read(cls, path):
        """A partial file written by ``tfr-inspect stats --partial -o PATH``."""
        with open(path, "rb") as f:
            return cls(f.read(), os.fspath(path))

    def __reduce__(self):
        return (StatsPartial, (self._data, self.name, self.messages, self.status))

    def __len__(self):
        return len(self._data)

    def __repr__(self):
        return f"StatsPartial({self.name!r}, {len(self._data)} bytes)"

    @staticmethod
    def merge(partials):
        """The report of all the files the ``partials`` summarise, as one pass over them gives
        it: the files are folded in (split, shard) order, so the result does not depend on the
        order the partials come in or on how the files were shared among them. A partial made
        with other parameters, cut short or summarising a file another one does raises
        ``ValueError`` naming it."""
        partials = list(partials)
        if not partials:
            raise ValueError("no partials to merge")
        return _reported(*_stats_merge([(p.name, p._data) for p in partials]))


def stats_partial(paths):
    """The partial statistics of the files ``paths`` names (one or a list), as ``tfr-inspect
    stats --partial`` writes them; ``StatsPartial.merge`` combines partials."""
    args = _args(paths)
    data, messages, status = _stats_partial(args)
    if data is None:
        said = "; ".join(text for _, text in messages) or "no TFRecord file to summarise"
        raise ValueError(f"no statistics: {said}")
    name = f"partial of {args[0]}" + (f" and {len(args) - 1} more" if len(args) > 1 else "")
    return StatsPartial(data, name, messages, status)


def shards(paths):
    """The files ``tfr-inspect stats PATHS...`` summarises, in the order it reads them: what an
    engine shares out, a partial each. Raises ``ValueError`` when an argument cannot be used
    (a pattern that matches nothing, a missing file), with the command line's words."""
    files, messages, status = _dataset_files(_args(paths))
    unusable = [text for level, text in messages if level == "unusable"]
    if unusable or not files:
        raise ValueError("; ".join(unusable) or "no TFRecord file to summarise")
    return [os.fspath(f) for f in files]
