"""TFRecord shards in Apache Beam pipelines, checked: no TensorFlow, every CRC verified, and a
damaged shard reported instead of failing the pipeline.

::

    import apache_beam as beam, tfr_inspect.beam
    with beam.Pipeline() as p:
        read = p | tfr_inspect.beam.ReadTFRecordsChecked("data/train-*")
        read.records | ...   # the payloads of the intact records
        read.damage | ...    # one dict per damaged record: file, record, offset, status, reason

        stats = p | tfr_inspect.beam.GenerateStatistics("data/")
        stats | beam.Map(lambda r: r.to_json())   # what `tfr-inspect stats --json data/` prints

        checked = p | tfr_inspect.beam.VerifyShards("data/train-*")
        checked["shards"]    # one dict per shard, its line of `tfr-inspect verify --json`
        checked["verdict"]   # one tfr_inspect.VerifyReport over every shard

Runs unchanged on any runner (Dataflow, Flink, Spark) whose workers can read the files.
"""

import json

import apache_beam as beam

from . import VerifyReport, verify as _verify
from ._native import verify_merge_json as _verify_merge_json
from . import open as _open
from ._paths import expand
from ._stats import StatsPartial, shards as _shards, stats_partial as _stats_partial


class _ReadShard(beam.DoFn):
    DAMAGE = "damage"

    def process(self, path):
        f = _open(path)
        damaged = {d.record: d for d in f.damage()}
        for frame in f.frames():
            if frame.index in damaged:
                d = damaged[frame.index]
                yield beam.pvalue.TaggedOutput(self.DAMAGE, {"file": path, **d.to_dict()})
            else:
                yield f[frame.index]


class ReadTFRecordsChecked(beam.PTransform):
    """Reads the shards ``pattern`` names (a path, a glob or a directory, or a list of them).

    The result has two outputs: ``records`` (the payloads of intact records, as bytes) and
    ``damage`` (a dict per damaged record, with the file, the record's number and its offset).
    Shards are read one per element, after a reshuffle, so workers share them.
    """

    def __init__(self, pattern):
        super().__init__()
        self._paths = expand(pattern)

    def expand(self, pipeline):
        return (
            pipeline
            | "Shards" >> beam.Create(self._paths)
            | "Spread" >> beam.Reshuffle()
            | "Read" >> beam.ParDo(_ReadShard()).with_outputs(_ReadShard.DAMAGE, main="records")
        )


class GenerateStatistics(beam.PTransform):
    """The statistics of the dataset ``pattern`` names (files, directories, glob patterns, as
    ``tfr-inspect stats`` takes them): one element, a :class:`tfr_inspect.StatsReport` whose
    ``to_json()`` is the text ``tfr-inspect stats --json`` prints for the same files.

    The files are matched as ``stats`` matches them when the pipeline is built; each shard is
    summarised into a :class:`tfr_inspect.StatsPartial` on whichever worker the reshuffle sends
    it to, and the partials, gathered on one worker, are merged in (split, shard) order, so the
    report does not depend on how the work was shared.
    """

    def __init__(self, pattern):
        super().__init__()
        self._paths = _shards(pattern)

    def expand(self, pipeline):
        return (
            pipeline
            | "Shards" >> beam.Create(self._paths)
            | "Spread" >> beam.Reshuffle()
            | "Summarise" >> beam.Map(_stats_partial)
            | "Gather" >> beam.combiners.ToList()
            | "Merge" >> beam.Map(StatsPartial.merge)
        )


def _verify_shard(path):
    """``(path, text of verify --json PATH, arguments it could not use)``."""
    report = _verify([path])
    return path, report.to_json(), tuple(report.errors)


def _shard_line(checked):
    # A shard that cannot be read (gone, say) is its argument's error, as a line of its own.
    path, text, errors = checked
    lines = [json.loads(line) for line in text.splitlines()]
    files = [line for line in lines if "dataset" not in line]
    if files:
        return files[0]
    return {"type": "file", "file": path, "error": "; ".join(errors)}


def _verdict(checked):
    # Merged by the core, as `verify --merge` merges parts: the text one `verify --json` over
    # every shard prints, whatever worker checked which shard and in what order they came.
    parts = [(path, text) for path, text, _ in checked if text]
    errors = [e for _, _, errs in checked for e in errs]
    if not parts:
        return VerifyReport(False, "", errors)
    ok, text, unusable = _verify_merge_json(parts)
    return VerifyReport(ok and not errors, text, errors + list(unusable))


class VerifyShards(beam.PTransform):
    """Checks every frame of the shards ``pattern`` names (a path, a glob or a directory, or a
    list of them), one shard per element after a reshuffle.

    The result is a dict of two outputs: ``"shards"``, one dict per shard, as
    :func:`tfr_inspect.verify` gives it (its line of ``tfr-inspect verify --json SHARD``:
    frames, intact, damaged, problems with record numbers and offsets, or the error that kept
    it from being read), and ``"verdict"``, one :class:`tfr_inspect.VerifyReport` over all of
    them, merged by the core as ``tfr-inspect verify --merge`` merges parts: its ``to_json()`` is
    the text ``tfr-inspect verify --json`` prints for the same files (in the order such a run
    checks them: by path, a split's shards in number order), split places and the dataset's
    line included, and ``ok`` is true when that run would end clean. A damaged or unreadable
    shard is reported, never fails the pipeline.
    """

    def __init__(self, pattern):
        super().__init__()
        self._paths = expand(pattern)

    def expand(self, pipeline):
        checked = (
            pipeline
            | "Shards" >> beam.Create(self._paths)
            | "Spread" >> beam.Reshuffle()
            | "Verify" >> beam.Map(_verify_shard)
        )
        shards = checked | "Lines" >> beam.Map(_shard_line)
        verdict = (
            checked
            | "Gather" >> beam.combiners.ToList()
            | "Verdict" >> beam.Map(_verdict)
        )
        return {"shards": shards, "verdict": verdict}
