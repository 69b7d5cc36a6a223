"""Reading TFRecord shards into Ray Data, checked: no TensorFlow, every CRC verified.

::

    import ray, tfr_inspect.ray
    ds = ray.data.read_datasource(tfr_inspect.ray.TFRecordDatasource("data/train-*"))

One read task per shard; each yields Arrow blocks of up to ``batch_size`` Examples (one list
column per feature, as :meth:`tfr_inspect.File.batches` makes them). A damaged record is skipped
with a :class:`tfr_inspect.DamagedRecordWarning` naming the file, the record and the offset (in
the worker's log); ``tfr_inspect.File(path).damage()`` lists them all.
"""

import os

from ray.data import Datasource, ReadTask
from ray.data.block import BlockMetadata

from . import open as _open
from ._paths import expand


def _read_shard(path, columns, batch_size):
    import pyarrow as pa

    for batch in _open(path).batches(batch_size, columns=columns):
        yield pa.Table.from_batches([batch])


class TFRecordDatasource(Datasource):
    """TFRecord shards of ``tf.train.Example`` as a Ray Data datasource."""

    def __init__(self, paths, columns=None, batch_size=1024):
        super().__init__()
        self._paths = expand(paths)
        self._columns = None if columns is None else list(columns)
        self._batch_size = batch_size

    def estimate_inmemory_data_size(self):
        return sum(os.path.getsize(p) for p in self._paths)

    def get_read_tasks(self, parallelism, per_task_row_limit=None, data_context=None):
        tasks = []
        for path in self._paths:
            metadata = BlockMetadata(
                num_rows=None,
                size_bytes=os.path.getsize(path),
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
