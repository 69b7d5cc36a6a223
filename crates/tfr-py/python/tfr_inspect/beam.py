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
    # A shard that cannot be read (gone, say) is its argument's error, as a line of its own.
    report = _verify([path])
    if report.files:
        return report.files[0]
    return {"file": path, "error": "; ".join(report.errors)}


def _verdict(lines, order):
    lines = sorted(lines, key=lambda line: order.get(line["file"], len(order)))
    text = "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines)
    return VerifyReport(all(line.get("ok", False) for line in lines), text)


class VerifyShards(beam.PTransform):
    """Checks every frame of the shards ``pattern`` names (a path, a glob or a directory, or a
    list of them), one shard per element after a reshuffle.

    The result is a dict of two outputs: ``"shards"``, one dict per shard, as
    :func:`tfr_inspect.verify` gives it (its line of ``tfr-inspect verify --json SHARD``:
    frames, intact, damaged, problems with record numbers and offsets, or the error that kept
    it from being read), and ``"verdict"``, one :class:`tfr_inspect.VerifyReport` over all of
    them in the order matched (``ok`` when every shard was read and is whole). A damaged or
    unreadable shard is reported, never fails the pipeline.
    """

    def __init__(self, pattern):
        super().__init__()
        self._paths = expand(pattern)

    def expand(self, pipeline):
        order = {path: i for i, path in enumerate(self._paths)}
        shards = (
            pipeline
            | "Shards" >> beam.Create(self._paths)
            | "Spread" >> beam.Reshuffle()
            | "Verify" >> beam.Map(_verify_shard)
        )
        verdict = (
            shards
            | "Gather" >> beam.combiners.ToList()
            | "Verdict" >> beam.Map(_verdict, order)
        )
        return {"shards": shards, "verdict": verdict}
