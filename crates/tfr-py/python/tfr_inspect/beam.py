"""TFRecord shards in Apache Beam pipelines, checked: no TensorFlow, every CRC verified, and a
damaged shard reported instead of failing the pipeline.

::

    import apache_beam as beam, tfr_inspect.beam
    with beam.Pipeline() as p:
        read = p | tfr_inspect.beam.ReadTFRecordsChecked("data/train-*")
        read.records | ...   # the payloads of the intact records
        read.damage | ...    # one dict per damaged record: file, record, offset, status, reason

Runs unchanged on any runner (Dataflow, Flink, Spark) whose workers can read the files.
"""

import apache_beam as beam

from . import open as _open
from ._paths import expand


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
