"""Reading TFRecord shards into Ray Data, checked: no TensorFlow, every CRC verified.

::

    import ray, tfr_inspect.ray
    ds = ray.data.read_datasource(tfr_inspect.ray.TFRecordDatasource("data/train-*"))

``paths`` may name local files or objects (``gs://``, ``s3://``, ``az://``, ``https://``):
each is sized and read through tfr-inspect's core, as the command line reads it. One read task
per shard; each yields Arrow blocks of up to ``batch_size`` Examples (one list
column per feature, as :meth:`tfr_inspect.File.batches` makes them). A damaged record is skipped
with a :class:`tfr_inspect.DamagedRecordWarning` naming the file, the record and the offset (in
the worker's log); ``tfr_inspect.File(path).damage()`` lists them all.

:func:`stats` gives the statistics of a dataset as Ray tasks: a partial per shard, merged in
(split, shard) order into the report ``tfr-inspect stats --json`` prints for the same files.
"""

from ray.data import Datasource, ReadTask
from ray.data.block import BlockMetadata

from . import open as _open
from ._native import sizes as _sizes
from ._stats import StatsPartial, shards as _shards, stats_partial as _stats_partial


def _read_shard(path, columns, batch_size):
    import pyarrow as pa

    for batch in _open(path).batches(batch_size, columns=columns):
        yield pa.Table.from_batches([batch])


class TFRecordDatasource(Datasource):
    """TFRecord shards of ``tf.train.Example`` as a Ray Data datasource.

    ``paths`` is a path, a directory, a glob pattern or an object URL (``gs://``, ``s3://``,
    ``az://``, ``https://``; a prefix or pattern URL too), or a list of them, resolved as
    ``tfr-inspect stats`` resolves its arguments: an argument that cannot be used raises
    ``ValueError`` with the command line's words."""

    def __init__(self, paths, columns=None, batch_size=1024):
        super().__init__()
        self._paths = _shards(paths)
        # Sizes from the core: a local file's metadata, an object's store (no byte fetched).
        self._sizes = _sizes(self._paths)
        self._columns = None if columns is None else list(columns)
        self._batch_size = batch_size

    def estimate_inmemory_data_size(self):
        return sum(self._sizes)

    def get_read_tasks(self, parallelism, per_task_row_limit=None, data_context=None):
        tasks = []
        for path, size in zip(self._paths, self._sizes):
            metadata = BlockMetadata(
                num_rows=None,
                size_bytes=size,
                exec_stats=None,
                input_files=(path,),
            )
            columns, batch_size = self._columns, self._batch_size
            tasks.append(
                ReadTask(
                    lambda path=path: _read_shard(path, columns, batch_size),
                    metadata,
                )
            )
        return tasks

    def get_name(self):
        return "TFRecord"


def _summarise(row):
    return {"path": row["path"], "partial": _stats_partial(row["path"]).to_bytes()}


def stats(paths):
    """The statistics of the dataset ``paths`` names (files, directories, glob patterns, as
    ``tfr-inspect stats`` takes them), summarised a shard per Ray task
    (``ray.data.from_items(shards).map(partial)``) and merged here in (split, shard) order: a
    :class:`tfr_inspect.StatsReport` whose ``to_json()`` is what ``tfr-inspect stats --json``
    prints for the same files, however the tasks were scheduled. Uses the running Ray (or
    starts a local one, as Ray Data does)."""
    import ray

    files = _shards(paths)
    summarised = ray.data.from_items([{"path": f} for f in files]).map(_summarise).take_all()
    return StatsPartial.merge(
        StatsPartial(row["partial"], f"partial of {row['path']}") for row in summarised
    )
