#!/usr/bin/env python3
"""Writes testdata/writers/: files as the ecosystem's own writers write them (tensorboardX 2.6,
TensorBoard 2.21's plugin APIs over tf.summary, Keras 3's TensorBoard callback, tf.data's
Dataset.save and snapshot, tf.io.TFRecordWriter), with Python protobuf goldens beside every record
file and each writer's own reading of what it wrote (`NAME.reading.json`).

Usage: python scripts/make_writer_fixtures.py [OUT [SECTION...]]   (default: testdata/writers, all)
Sections: tensorboardx, tensorboard, keras, dataset_save, snapshot, examples.
Needs the packages of scripts/requirements-writers.txt in a venv; the tests never run it.

Each writer runs in its own process under libfaketime's frozen clock (Debian package `faketime`),
with address randomization off (`setarch`, so Python protobuf serializes map entries in the same
order every run) and, as root, in its own UTS and PID namespace with the host name
`writer-fixtures`, so wall times and event file names come out the same on every run. Without
these the script still runs and warns what will differ. What no pin reaches: the random run ids
of Dataset.save and snapshot (directory names and the `run_id` in their metadata), and C++
protobuf's map order inside a GraphDef. See testdata/writers/README.md.
"""
import base64
import hashlib
import json
import os
import platform
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FROZEN = "2023-11-14 22:13:20"  # 1700000000 in UTC
W0 = 1700000000.0
HOST = "writer-fixtures"
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
SECTIONS = ["tensorboardx", "tensorboard", "keras", "dataset_save", "snapshot", "examples"]


# ---------------------------------------------------------------------------------------------
# Running each writer pinned


def pinned_command(args):
    """The command running this script with `args`, under the frozen clock and pinned host/pid."""
    cmd = [sys.executable, os.path.abspath(__file__), *args]
    if shutil.which("setarch"):
        # Without address randomization, hash tables seeded from addresses (upb's, in Python
        # protobuf; C++ protobuf's maps) iterate alike in every run, and so do the map entries
        # serialized from them.
        cmd = ["setarch", platform.machine(), "--addr-no-randomize", *cmd]
    else:
        print("warning: no setarch: map entries may be serialized in another order per run")
    if shutil.which("unshare") and os.geteuid() == 0:
        cmd = ["unshare", "--uts", "--pid", "--fork", "--kill-child", "sh", "-c",
               f'hostname {HOST} && exec "$@"', "sh", *cmd]
    else:
        print("warning: not root or no unshare: event file names carry this host's name and pid")
    return cmd


def pinned_env():
    env = dict(os.environ, TZ="UTC", TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0",
               CUDA_VISIBLE_DEVICES="", TF_DETERMINISTIC_OPS="1", KERAS_BACKEND="tensorflow")
    if os.path.exists(FAKETIME_LIB):
        env.update(LD_PRELOAD=FAKETIME_LIB, FAKETIME=FROZEN, FAKETIME_DONT_FAKE_MONOTONIC="1")
    else:
        print("warning: no libfaketime (apt-get install faketime): wall times will differ per run")
    return env


def seed_everything():
    import random
    import numpy as np
    random.seed(39)
    np.random.seed(39)
    try:
        import tensorflow as tf
        tf.random.set_seed(39)
        tf.config.experimental.enable_op_determinism()
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.threading.set_intra_op_parallelism_threads(1)
    except ImportError:
        pass


# ---------------------------------------------------------------------------------------------
# Writers


def write_tensorboardx(out):
    """tensorboardX 2.6: one run with every kind of summary it writes, and add_hparams' sub-run."""
    import numpy as np
    from tensorboardX import SummaryWriter

    rng = np.random.default_rng(39)
    logdir = os.path.join(out, "tensorboardx")
    w = SummaryWriter(logdir=logdir, filename_suffix=".tbx")
    for step in range(3):
        wall = W0 + step
        w.add_scalar("train/loss", 1.0 / (step + 1), step, walltime=wall)
        w.add_scalar("train/accuracy", 0.5 + 0.125 * step, step, walltime=wall)
    w.add_histogram("weights", rng.normal(0.0, 1.0, size=64).astype(np.float32), 1,
                    walltime=W0 + 1, bins=8)
    image = np.zeros((3, 6, 8), dtype=np.uint8)  # CHW
    image[0, :, :4] = 255
    image[1, 3:, :] = 128
    image[2, :, 6:] = 64
    w.add_image("image", image, 1, walltime=W0 + 1)
    w.add_text("table", "| name | value |\n| --- | --- |\n| lr | 0.01 |\n| layers | 2 |", 1,
               walltime=W0 + 1)
    labels = np.array([1, 0, 1, 1, 0, 0, 1, 0], dtype=bool)
    predictions = np.array([0.9, 0.2, 0.65, 0.4, 0.55, 0.1, 0.8, 0.3], dtype=np.float32)
    w.add_pr_curve("pr", labels, predictions, 1, num_thresholds=5, walltime=W0 + 1)
    w.add_custom_scalars({"Training": {"loss and accuracy": ["Multiline", ["train/loss",
                                                                             "train/accuracy"]],
                                       "loss band": ["Margin", ["train/loss", "train/loss",
                                                                "train/loss"]]}})
    tone = np.sin(2 * np.pi * 440 * np.arange(80) / 8000).astype(np.float32) * 0.5
    w.add_audio("tone", tone, 1, sample_rate=8000, walltime=W0 + 1)
    vertices = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]], dtype=np.float32)
    colors = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]]],
                      dtype=np.uint8)
    faces = np.array([[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]], dtype=np.int32)
    w.add_mesh("tetrahedron", vertices, colors=colors, faces=faces, global_step=1,
               walltime=W0 + 1)
    w.add_hparams({"lr": 0.01, "layers": 2, "optimizer": "adam", "dropout": True},
                  {"hparam/accuracy": 0.75}, name="hparams", global_step=2)
    w.close()


def write_tensorboard(out):
    """TensorBoard 2.21's plugin APIs over TF2 summaries (tf.summary's C++ event writer)."""
    import numpy as np
    import tensorflow as tf
    from tensorboard.plugins.custom_scalar import layout_pb2
    from tensorboard.plugins.custom_scalar import summary as custom_scalar_summary
    from tensorboard.plugins.hparams import api as hp
    from tensorboard.plugins.hparams import api_pb2
    from tensorboard.plugins.hparams import summary as hparams_summary
    from tensorboard.plugins.mesh import summary_v2 as mesh_summary
    from tensorboard.plugins.pr_curve import summary as pr_curve_summary

    root = os.path.join(out, "tensorboard")
    hparams = [hp.HParam("lr", hp.RealInterval(1e-4, 1e-1)),
               hp.HParam("layers", hp.IntInterval(1, 4)),
               hp.HParam("optimizer", hp.Discrete(["adam", "sgd"])),
               hp.HParam("dropout", hp.Discrete([False, True]))]
    with tf.summary.create_file_writer(root).as_default():
        hp.hparams_config(hparams=hparams,
                          metrics=[hp.Metric("accuracy", display_name="Accuracy")],
                          time_created_secs=W0)
    with tf.summary.create_file_writer(os.path.join(root, "trial_1")).as_default():
        hp.hparams({hparams[0]: 0.01, hparams[1]: 2, hparams[2]: "adam", hparams[3]: True},
                   trial_id="trial_1", start_time_secs=W0)
        for step in range(2):
            tf.summary.scalar("accuracy", 0.5 + 0.25 * step, step=step)
        end = hparams_summary.session_end_pb(api_pb2.STATUS_SUCCESS, end_time_secs=W0 + 60)
        tf.summary.experimental.write_raw_pb(end.SerializeToString(), step=1)

    with tf.summary.create_file_writer(os.path.join(root, "plugins")).as_default(step=1):
        labels = np.array([1, 0, 1, 1, 0, 0, 1, 0], dtype=bool)
        predictions = np.array([0.9, 0.2, 0.65, 0.4, 0.55, 0.1, 0.8, 0.3], dtype=np.float32)
        pr = pr_curve_summary.pb("pr", labels, predictions, num_thresholds=5)
        tf.summary.experimental.write_raw_pb(pr.SerializeToString(), step=1)
        layout = layout_pb2.Layout(category=[layout_pb2.Category(
            title="Training",
            chart=[layout_pb2.Chart(title="loss and accuracy",
                                    multiline=layout_pb2.MultilineChartContent(
                                        tag=[r"train/.*"])),
                   layout_pb2.Chart(title="loss band",
                                    margin=layout_pb2.MarginChartContent(series=[
                                        layout_pb2.MarginChartContent.Series(
                                            value="train/loss", lower="train/loss_lo",
                                            upper="train/loss_hi")]))])])
        tf.summary.experimental.write_raw_pb(
            custom_scalar_summary.pb(layout).SerializeToString(), step=0)
        tone = np.sin(2 * np.pi * 440 * np.arange(80) / 8000).astype(np.float32) * 0.5
        tf.summary.audio("tone", tone.reshape(1, 80, 1), sample_rate=8000, encoding="wav")
        tf.summary.text("table", tf.constant([["name", "value"], ["lr", "0.01"]]))
        tf.summary.text("note", tf.constant("a *markdown* note"))
        vertices = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]], dtype=np.float32)
        colors = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]]],
                          dtype=np.uint8)
        faces = np.array([[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]], dtype=np.int32)
        mesh_summary.mesh("tetrahedron", vertices, faces=faces, colors=colors,
                          config_dict={"camera": {"cls": "PerspectiveCamera", "fov": 75}})

    # A tiny function's graph twice: as tf.summary.graph writes it (Event.graph_def, a serialized
    # GraphDef) and as tf.summary.trace_export writes it (plugin graph_run_metadata_graph, a
    # tensor holding a serialized RunMetadata). Keras 3's callback writes neither (README).
    @tf.function
    def affine(x):
        return 2.0 * x + 1.0

    with tf.summary.create_file_writer(os.path.join(root, "graph")).as_default():
        tf.summary.graph(affine.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph)
        tf.summary.trace_on(graph=True, profiler=False)
        affine(tf.constant([1.0, 2.0]))
        tf.summary.trace_export("affine", step=0)


def write_keras(out):
    """Keras 3's TensorBoard callback (write_graph, histogram_freq=1) on a tiny model."""
    import keras
    import numpy as np

    keras.utils.set_random_seed(39)
    rng = np.random.default_rng(39)
    x = rng.normal(size=(8, 4)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [0.25], [2.0]], dtype=np.float32)).astype(np.float32)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="relu",
                                                                   name="hidden"),
                              keras.layers.Dense(1, name="out")], name="tiny")
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    logdir = os.path.join(out, "keras")
    model.fit(x[:6], y[:6], batch_size=3, epochs=2, shuffle=False, verbose=0,
              validation_data=(x[6:], y[6:]),
              callbacks=[keras.callbacks.TensorBoard(logdir, histogram_freq=1,
                                                     write_graph=True)])


def small_dataset():
    import tensorflow as tf
    return tf.data.Dataset.from_tensor_slices({
        "id": tf.constant([0, 1, 2, 3, 4], tf.int64),
        "name": tf.constant(["zero", "one", "two", "three", "four"]),
        "pair": (tf.constant([0, 1, 128, 254, 255], tf.uint8),
                 tf.constant([True, False, True, False, True])),
        "vec": tf.constant([[0.0, 0.5, 1.0], [1.5, -2.0, 3000.5], [0.1, 0.2, 0.3],
                            [-0.0, 1e-5, 1340.5], [4.0, 5.0, 6.0]], tf.float32),
    })


def write_dataset_save(out):
    """tf.data.Dataset.save with each compression (two shards uncompressed, one otherwise)."""
    import tensorflow as tf
    for name, compression, shards in (("none", None, 2), ("gzip", "GZIP", 1),
                                      ("snappy", "SNAPPY", 1)):
        path = os.path.join(out, "dataset_save", name)
        small_dataset().save(path, compression=compression,
                             shard_func=lambda e, n=shards: e["id"] % n)
    # Two records, the first over SnappyOutputBuffer's 256 KiB input buffer, so that the shard
    # holds more than one snappy block (the only way to see the block framing at work).
    path = os.path.join(out, "dataset_save", "snappy_blocks")
    sizes = tf.constant([300000, 8], tf.int32)
    blobs = tf.data.Dataset.range(2).map(
        lambda i: tf.fill([sizes[i]], tf.cast(i + 1, tf.uint8)))
    blobs.save(path, compression="SNAPPY", shard_func=lambda e: tf.constant(0, tf.int64))


def write_snapshot(out):
    """tf.data.experimental.snapshot with its default compression (AUTO, which is SNAPPY)."""
    import tensorflow as tf
    path = os.path.join(out, "snapshot")
    ds = tf.data.Dataset.range(4).map(lambda i: (i, tf.cast(i, tf.float32) * 0.5))
    ds = ds.apply(tf.data.experimental.snapshot(path, shard_func=lambda i, x: i % 2))
    for _ in ds:  # a snapshot is written while it is read to the end
        pass
    # Iterated again, the same pipeline reads the finalized snapshot instead of writing one: that
    # is TensorFlow's own reading of these files (the reading phase merges it in).
    written = sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs)
    read_back = [[int(i), float(x)] for i, x in ds.as_numpy_iterator()]
    assert written == sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs)
    dump_json(path + ".reading.json", {"snapshot_read_back": read_back})


def write_examples(out):
    """tf.train.Example / SequenceExample payloads with unusual content, via tf.io.TFRecordWriter."""
    import numpy as np
    import tensorflow as tf
    ex = tf.train

    def feature(values):
        values = list(values)
        if values and isinstance(values[0], bytes):
            return ex.Feature(bytes_list=ex.BytesList(value=values))
        if values and isinstance(values[0], float):
            return ex.Feature(float_list=ex.FloatList(value=values))
        return ex.Feature(int64_list=ex.Int64List(value=values))

    def example(**features):
        return ex.Example(features=ex.Features(feature={k: feature(v)
                                                         for k, v in features.items()}))

    d = os.path.join(out, "examples")
    os.makedirs(d, exist_ok=True)
    inner = example(label=[7], text=[b"nested"])
    tensor = tf.io.serialize_tensor(tf.constant([[1.5, -2.0], [3000.5, 0.0]], tf.float32))
    empty_key = ex.Example(features=ex.Features(feature={"": feature([1]),
                                                         "kept": feature([b"yes"])}))
    records = [
        example(**{"id": [b"Xy9k"], "labels": [330, 1201, 3517],
                   "mean_rgb": [3000.5, 1340.5, -0.25], "mean_audio": [0.0, 1e-5, 65504.0]}),
        empty_key,
        ex.Example(),                             # no features at all: an empty payload
        ex.Example(features=ex.Features()),       # an empty Features message
        example(tensor=[tensor.numpy()], example=[inner.SerializeToString()]),
    ]
    with tf.io.TFRecordWriter(os.path.join(d, "unusual.tfrecord")) as w:
        for r in records:
            w.write(r.SerializeToString())

    rng = np.random.default_rng(39)
    with tf.io.TFRecordWriter(os.path.join(d, "youtube8m_frames.tfrecord")) as w:
        for vid, labels, frames in ((b"Ab3d", [330, 3517], 2), (b"Zq0x", [1201], 3)):
            context = ex.Features(feature={"id": feature([vid]), "labels": feature(labels)})
            lists = {
                "rgb": ex.FeatureList(feature=[feature([rng.integers(0, 256, 1024, dtype=np.uint8)
                                                        .tobytes()]) for _ in range(frames)]),
                "audio": ex.FeatureList(feature=[feature([rng.integers(0, 256, 128,
                                                                       dtype=np.uint8).tobytes()])
                                                 for _ in range(frames)]),
            }
            seq = ex.SequenceExample(context=context,
                                     feature_lists=ex.FeatureLists(feature_list=lists))
            w.write(seq.SerializeToString())

    # Payloads inside bytes values: serialized tensors (float, int64, string, a scalar) and
    # serialized Examples, one nested six deep (past the depth the readable views open), beside
    # bytes that are no payload (short, text, almost an Example).
    def deep(levels):
        inner = example(leaf=[b"bottom"], depth=[levels])
        for level in range(levels - 1, 0, -1):
            inner = example(nested_example=[inner.SerializeToString()], depth=[level])
        return inner
    serialize = lambda t: tf.io.serialize_tensor(t).numpy()
    nested = [
        example(tensor=[serialize(tf.constant([[1.0, 2.5, -3.0], [4.0, 5.0, 6.0]], tf.float32))],
                nested_example=[example(label=[7], ids=[serialize(tf.constant([10, 20, 30],
                                                                                tf.int64))])
                                .SerializeToString()],
                strings=[serialize(tf.constant([b"a", b"bc", b""]))],
                scalar=[serialize(tf.constant(3.5, tf.float64))],
                text=[b"ab"], short=[b"\x08\x01"]),
        deep(6),
        example(nested_example=[b"\x0a\x05\x0a\x09"], tensor=[b"\x08\x01\x12\x04\x12\x02\x08\x09"]),
    ]
    with tf.io.TFRecordWriter(os.path.join(d, "nested_payloads.tfrecord")) as w:
        for r in nested:
            w.write(r.SerializeToString())

    yy, xx = np.mgrid[0:20, 0:30]
    rgba = np.stack([xx * 8, yy * 12, (xx + yy) * 5, 255 - xx * 4], axis=-1).astype(np.uint8)
    gray16 = (xx * 2000 + yy * 100 + 7).astype(np.uint16)[..., None]
    with tf.io.TFRecordWriter(os.path.join(d, "png_images.tfrecord")) as w:
        for pixels in (rgba, gray16):
            png = tf.io.encode_png(pixels).numpy()
            w.write(example(**{"image/encoded": [png], "image/format": [b"png"],
                               "image/height": [pixels.shape[0]],
                               "image/width": [pixels.shape[1]],
                               "image/channels": [pixels.shape[2]],
                               "image/bit_depth": [8 * pixels.dtype.itemsize]})
                    .SerializeToString())


WRITERS = {"tensorboardx": write_tensorboardx, "tensorboard": write_tensorboard,
           "keras": write_keras, "dataset_save": write_dataset_save,
           "snapshot": write_snapshot, "examples": write_examples}


# ---------------------------------------------------------------------------------------------
# Reading back: goldens and the writers' own readings


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC32C_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frames(data):
    """The payloads of an uncompressed TFRecord stream, every CRC checked."""
    out, pos = [], 0
    while pos < len(data):
        if len(data) - pos < 16:
            raise ValueError(f"partial frame at {pos}")
        length, length_crc = struct.unpack_from("<QI", data, pos)
        if masked_crc(data[pos:pos + 8]) != length_crc:
            raise ValueError(f"length crc mismatch at {pos}")
        payload = data[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack_from("<I", data, pos + 12 + length)
        if masked_crc(payload) != data_crc:
            raise ValueError(f"data crc mismatch at {pos}")
        out.append(payload)
        pos += 16 + length
    return out


def snappy_blocks(data):
    """Splits TensorFlow's snappy stream (SnappyOutputBuffer) into blocks: each is a 4-byte
    big-endian compressed length, then one raw snappy block of that many bytes."""
    import cramjam
    blocks, pos, plain = [], 0, bytearray()
    while pos < len(data):
        (n,) = struct.unpack_from(">I", data, pos)
        raw = bytes(cramjam.snappy.decompress_raw(data[pos + 4:pos + 4 + n]))
        blocks.append({"offset": pos, "compressed_length": n, "uncompressed_length": len(raw)})
        plain += raw
        pos += 4 + n
    return blocks, bytes(plain)


def decompressed(path, compression):
    import gzip
    data = open(path, "rb").read()
    if compression == "GZIP":
        return gzip.decompress(data)
    if compression == "SNAPPY":
        return snappy_blocks(data)[1]
    return data


def tf_payloads(path, compression):
    import tensorflow as tf
    return [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=compression or "")]


def jsonable(value):
    """numpy / protobuf values as JSON: bytes as UTF-8 text when they are, else {"base64": ...}."""
    import numpy as np
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    return value


def dump_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True, ensure_ascii=True)
        f.write("\n")


def write_goldens(path, messages):
    """NAME.golden.txt and NAME.golden.jsonl, as in testdata/README.md; gzipped (NAME.golden.txt.gz,
    written with mtime 0) when the text would pass 200 kB."""
    import gzip
    from google.protobuf import json_format, text_format
    txt = "".join(f"# record {i}\n{text_format.MessageToString(m)}"
                  for i, m in enumerate(messages))
    jsonl = "".join(json_format.MessageToJson(m, sort_keys=True, indent=None) + "\n"
                    for m in messages)
    for suffix, text in ((".golden.txt", txt), (".golden.jsonl", jsonl)):
        if len(text) > 200_000:
            with open(path + suffix + ".gz", "wb") as f:
                f.write(gzip.compress(text.encode("utf-8"), mtime=0))
        else:
            with open(path + suffix, "w") as f:
                f.write(text)


def write_message_goldens(path, msg):
    """A file holding one binary message (not a record file): NAME.golden.txt / .golden.json."""
    from google.protobuf import json_format, text_format
    with open(path + ".golden.txt", "w") as f:
        f.write(text_format.MessageToString(msg))
    with open(path + ".golden.json", "w") as f:
        f.write(json_format.MessageToJson(msg, sort_keys=True, indent=None) + "\n")


def tf_error(error):
    """A TensorFlow error as its type and message, without the op decoration."""
    message = str(error).split("}} ", 1)[-1].split(" [Op:", 1)[0]
    return {"error": type(error).__name__, "message": message}


def record_goldens(path, message_type, compression=None, reading=None):
    """Goldens of a record file from an independent frame parser; TensorFlow's reader must agree,
    or, when `reading` is given, what it raised is put there."""
    import tensorflow as tf
    payloads = frames(decompressed(path, compression))
    try:
        assert payloads == tf_payloads(path, compression), path
    except tf.errors.OpError as e:
        if reading is None:
            raise
        reading["tf_record_dataset"] = tf_error(e)
    messages = [message_type.FromString(p) for p in payloads]
    write_goldens(path, messages)
    return payloads, messages


def event_files(top):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs
                  if ".tfevents." in f and not f.endswith((".txt", ".jsonl", ".json", ".gz")))


def plugin_content(plugin_name, content):
    """A summary's plugin_data content parsed with TensorBoard's own plugin_data protos."""
    from google.protobuf import json_format
    from tensorboard.plugins.audio import plugin_data_pb2 as audio
    from tensorboard.plugins.histogram import plugin_data_pb2 as histogram
    from tensorboard.plugins.hparams import plugin_data_pb2 as hparams
    from tensorboard.plugins.image import plugin_data_pb2 as image
    from tensorboard.plugins.mesh import plugin_data_pb2 as mesh
    from tensorboard.plugins.pr_curve import plugin_data_pb2 as pr_curve
    from tensorboard.plugins.scalar import plugin_data_pb2 as scalar
    from tensorboard.plugins.text import plugin_data_pb2 as text
    types = {"audio": audio.AudioPluginData, "histograms": histogram.HistogramPluginData,
             "hparams": hparams.HParamsPluginData, "images": image.ImagePluginData,
             "mesh": mesh.MeshPluginData, "pr_curves": pr_curve.PrCurvePluginData,
             "scalars": scalar.ScalarPluginData, "text": text.TextPluginData}
    if plugin_name not in types:
        return {"content_base64": base64.b64encode(content).decode("ascii"),
                "parsed_as": None}
    msg = types[plugin_name].FromString(content)
    return {"content_base64": base64.b64encode(content).decode("ascii"),
            "parsed_as": msg.DESCRIPTOR.full_name,
            "parsed": json_format.MessageToDict(msg, preserving_proto_field_name=True)}


def tensor_reading(tag, plugin_name, proto):
    """What TensorBoard makes of a tensor summary's value, by plugin."""
    from tensorboard.util import tensor_util
    value = tensor_util.make_ndarray(proto)
    out = {"dtype": str(value.dtype), "shape": list(value.shape)}
    if plugin_name == "graph_keras_model":
        config = json.loads(value.item())
        out["model_config"] = config
    elif plugin_name == "graph_run_metadata_graph":
        from tensorflow.core.protobuf import config_pb2
        run_metadata = config_pb2.RunMetadata.FromString(value.item())
        graphs = run_metadata.function_graphs
        out["run_metadata"] = {
            "function_graphs": len(graphs),
            "pre_optimization_nodes": [[n.op for n in g.pre_optimization_graph.node]
                                       for g in graphs],
            "serialized_length": len(value.item())}
    elif plugin_name == "custom_scalars":
        from google.protobuf import json_format
        from tensorboard.plugins.custom_scalar import layout_pb2
        out["layout"] = json_format.MessageToDict(layout_pb2.Layout.FromString(value.item()))
    elif plugin_name in ("audio", "images") or value.dtype == object and value.size and \
            isinstance(value.flat[0], bytes) and value.flat[0][:4] in (b"RIFF", b"\x89PNG"):
        out["values"] = [[hashlib.sha256(b).hexdigest(), len(b)] if isinstance(b, bytes)
                         else b for b in value.reshape(-1).tolist()]
        out["values_are"] = "sha256 and length of each element, row-major"
    else:
        out["values"] = jsonable(value)
    return out


def event_reading(path):
    """tensorboard's EventAccumulator on one event file: tags per kind, and per tag its events."""
    from tensorboard.backend.event_processing import event_accumulator as ea
    acc = ea.EventAccumulator(path, size_guidance={k: 0 for k in (
        ea.COMPRESSED_HISTOGRAMS, ea.IMAGES, ea.AUDIO, ea.SCALARS, ea.HISTOGRAMS, ea.TENSORS)})
    acc.Reload()
    tags = acc.Tags()
    out = {"tags": {k: (sorted(v) if isinstance(v, list) else v) for k, v in tags.items()},
           "file_version": acc.file_version}
    for tag in tags["scalars"]:
        out.setdefault("scalars", {})[tag] = [
            {"step": e.step, "wall_time": e.wall_time, "value": e.value}
            for e in acc.Scalars(tag)]
    for tag in tags["histograms"]:
        out.setdefault("histograms", {})[tag] = [
            {"step": e.step, "wall_time": e.wall_time,
             "min": e.histogram_value.min, "max": e.histogram_value.max,
             "num": e.histogram_value.num, "sum": e.histogram_value.sum,
             "sum_squares": e.histogram_value.sum_squares,
             "bucket_limit": list(e.histogram_value.bucket_limit),
             "bucket": list(e.histogram_value.bucket)} for e in acc.Histograms(tag)]
    for tag in tags["images"]:
        out.setdefault("images", {})[tag] = [
            {"step": e.step, "wall_time": e.wall_time, "width": e.width, "height": e.height,
             "encoded_length": len(e.encoded_image_string),
             "encoded_sha256": hashlib.sha256(e.encoded_image_string).hexdigest()}
            for e in acc.Images(tag)]
    for tag in tags["audio"]:
        out.setdefault("audio", {})[tag] = [
            {"step": e.step, "wall_time": e.wall_time, "content_type": e.content_type,
             "sample_rate": e.sample_rate, "length_frames": e.length_frames,
             "encoded_length": len(e.encoded_audio_string),
             "encoded_sha256": hashlib.sha256(e.encoded_audio_string).hexdigest()}
            for e in acc.Audio(tag)]
    for tag in tags["tensors"]:
        meta = acc.SummaryMetadata(tag)
        plugin = meta.plugin_data.plugin_name
        out.setdefault("tensors", {})[tag] = {
            "plugin_name": plugin,
            "plugin_data": plugin_content(plugin, meta.plugin_data.content),
            "display_name": meta.display_name, "summary_description": meta.summary_description,
            "data_class": meta.data_class,
            "events": [dict(step=e.step, wall_time=e.wall_time,
                            **tensor_reading(tag, plugin, e.tensor_proto))
                       for e in acc.Tensors(tag)]}
    for tag in sorted(set(tags["scalars"]) | set(tags["histograms"]) | set(tags["images"])
                      | set(tags["audio"])):
        meta = acc.summary_metadata.get(tag)  # only summaries that carried metadata
        if meta is not None and meta.plugin_data.plugin_name:
            out.setdefault("summary_metadata", {})[tag] = {
                "plugin_name": meta.plugin_data.plugin_name,
                "plugin_data": plugin_content(meta.plugin_data.plugin_name,
                                              meta.plugin_data.content)}
    # The accumulator drops summaries with metadata and no value (tensorboardX's hparams
    # records): read hparams with TensorBoard's own event file loader, as its hparams plugin does.
    from tensorboard.backend.event_processing import event_file_loader
    for event in event_file_loader.EventFileLoader(path).Load():
        for value in event.summary.value:
            if value.metadata.plugin_data.plugin_name == "hparams":
                out.setdefault("hparams", {}).setdefault(value.tag, []).append({
                    "step": event.step, "wall_time": event.wall_time,
                    "plugin_name": value.metadata.plugin_data.plugin_name,
                    "plugin_data": plugin_content(value.metadata.plugin_data.plugin_name,
                                                  value.metadata.plugin_data.content)})
    if tags["graph"]:
        graph = acc.Graph()
        out["graph"] = {"nodes": len(graph.node), "ops": sorted({n.op for n in graph.node}),
                        "producer": graph.versions.producer}
    for tag in tags["run_metadata"]:
        out.setdefault("run_metadata", {})[tag] = len(acc.RunMetadata(tag).SerializeToString())
    return out


def read_events(top):
    from tensorflow.core.util import event_pb2
    for path in event_files(top):
        record_goldens(path, event_pb2.Event)
        dump_json(path + ".reading.json", event_reading(path))


def read_tensorboardx(out):
    read_events(os.path.join(out, "tensorboardx"))


def read_tensorboard(out):
    read_events(os.path.join(out, "tensorboard"))


def read_keras(out):
    read_events(os.path.join(out, "keras"))


def element_json(element):
    import tensorflow as tf
    return jsonable(tf.nest.map_structure(lambda t: t.numpy(), element))


def read_saved_dir(path, compression):
    """Goldens and readings of a Dataset.save / snapshot directory, file by file."""
    import numpy as np
    import tensorflow as tf
    from tensorflow.core.framework import tensor_pb2, types_pb2
    from tensorflow.core.protobuf import snapshot_pb2, struct_pb2
    reading = {"files": {}}
    for d, _, fs in sorted(os.walk(path)):
        for f in sorted(fs):
            full = os.path.join(d, f)
            rel = os.path.relpath(full, path)
            if f == "snapshot.metadata":
                msg = snapshot_pb2.SnapshotMetadataRecord.FromString(open(full, "rb").read())
                write_message_goldens(full, msg)
                reading["files"][rel] = {"type": msg.DESCRIPTOR.full_name}
            elif f == "dataset_spec.pb":
                msg = struct_pb2.StructuredValue.FromString(open(full, "rb").read())
                write_message_goldens(full, msg)
                reading["files"][rel] = {"type": msg.DESCRIPTOR.full_name}
            elif f.endswith(".snapshot"):
                entry = {"type": "TFRecord of tensorflow.TensorProto",
                         "compression": compression, "records": []}
                payloads, protos = record_goldens(full, tensor_pb2.TensorProto, compression,
                                                  entry)
                if compression == "SNAPPY":
                    entry["snappy_blocks"] = snappy_blocks(open(full, "rb").read())[0]
                for p, proto in zip(payloads, protos):
                    value = np.asarray(tf.io.parse_tensor(p, tf.dtypes.as_dtype(proto.dtype))
                                       .numpy())
                    record = {"dtype": types_pb2.DataType.Name(proto.dtype),
                              "shape": list(value.shape), "payload_length": len(p)}
                    if value.size > 64:
                        record["parse_tensor_sha256"] = hashlib.sha256(value.tobytes()).hexdigest()
                        record["parse_tensor_distinct"] = jsonable(np.unique(value))
                    else:
                        record["parse_tensor"] = jsonable(value)
                    entry["records"].append(record)
                reading["files"][rel] = entry
    return reading


def read_dataset_save(out):
    import tensorflow as tf
    for name, compression in (("none", None), ("gzip", "GZIP"), ("snappy", "SNAPPY"),
                              ("snappy_blocks", "SNAPPY")):
        path = os.path.join(out, "dataset_save", name)
        reading = read_saved_dir(path, compression)
        loaded = tf.data.Dataset.load(path, compression=compression)
        reading["load"] = {"element_spec": repr(loaded.element_spec),
                           "cardinality": int(loaded.cardinality())}
        try:
            reading["load"]["elements"] = [element_json(e) for e in loaded]
        except tf.errors.OpError as e:  # snappy_blocks: TensorFlow cannot read it back
            reading["load"]["error"] = tf_error(e)
        dump_json(path + ".reading.json", reading)


def read_snapshot(out):
    path = os.path.join(out, "snapshot")
    reading = read_saved_dir(path, "SNAPPY")
    reading.update(json.load(open(path + ".reading.json")))
    dump_json(path + ".reading.json", reading)


def feature_values(feature):
    kind = feature.WhichOneof("kind")
    return {"kind": kind, "values": jsonable(list(getattr(feature, kind).value)) if kind else []}


def read_examples(out):
    import tensorflow as tf
    d = os.path.join(out, "examples")

    path = os.path.join(d, "unusual.tfrecord")
    payloads, messages = record_goldens(path, tf.train.Example)
    reading = []
    for p, m in zip(payloads, messages):
        entry = {"payload_length": len(p),
                 "features": {k: feature_values(v) for k, v in m.features.feature.items()},
                 "has_features_field": m.HasField("features")}
        if "tensor" in m.features.feature:
            t = m.features.feature["tensor"].bytes_list.value[0]
            entry["tensor_parse_tensor_float32"] = jsonable(
                tf.io.parse_tensor(t, tf.float32).numpy())
            inner = tf.train.Example.FromString(m.features.feature["example"].bytes_list.value[0])
            entry["example_parsed"] = {k: feature_values(v)
                                       for k, v in inner.features.feature.items()}
        reading.append(entry)
    dump_json(path + ".reading.json", reading)

    path = os.path.join(d, "nested_payloads.tfrecord")
    payloads, messages = record_goldens(path, tf.train.Example)
    dump_json(path + ".reading.json", [nested_reading(m) for m in messages])

    path = os.path.join(d, "youtube8m_frames.tfrecord")
    payloads, messages = record_goldens(path, tf.train.SequenceExample)
    reading = []
    for p in payloads:
        context, lists = tf.io.parse_single_sequence_example(
            p, context_features={"id": tf.io.FixedLenFeature([], tf.string),
                                 "labels": tf.io.VarLenFeature(tf.int64)},
            sequence_features={"rgb": tf.io.FixedLenSequenceFeature([], tf.string),
                               "audio": tf.io.FixedLenSequenceFeature([], tf.string)})
        rgb = tf.io.decode_raw(lists["rgb"], tf.uint8).numpy()
        audio = tf.io.decode_raw(lists["audio"], tf.uint8).numpy()
        reading.append({"id": context["id"].numpy().decode(),
                        "labels": context["labels"].values.numpy().tolist(),
                        "rgb_shape": list(rgb.shape), "audio_shape": list(audio.shape),
                        "rgb_first_bytes": rgb[:, :8].tolist(),
                        "audio_first_bytes": audio[:, :8].tolist(),
                        "rgb_sha256": hashlib.sha256(rgb.tobytes()).hexdigest(),
                        "audio_sha256": hashlib.sha256(audio.tobytes()).hexdigest()})
    dump_json(path + ".reading.json", reading)

    path = os.path.join(d, "png_images.tfrecord")
    payloads, messages = record_goldens(path, tf.train.Example)
    reading = []
    for m in messages:
        png = m.features.feature["image/encoded"].bytes_list.value[0]
        bit_depth = m.features.feature["image/bit_depth"].int64_list.value[0]
        pixels = tf.io.decode_png(png, dtype=tf.uint16 if bit_depth == 16 else tf.uint8).numpy()
        reading.append({"encoded_length": len(png),
                        "encoded_sha256": hashlib.sha256(png).hexdigest(),
                        "decode_png": {"shape": list(pixels.shape), "dtype": str(pixels.dtype),
                                       "pixel_0_0": pixels[0, 0].tolist(),
                                       "pixel_19_29": pixels[19, 29].tolist(),
                                       "sha256": hashlib.sha256(pixels.tobytes()).hexdigest()},
                        "png_ihdr": png_ihdr(png)})
    dump_json(path + ".reading.json", reading)


NESTED_DTYPES = {"tensor": "float32", "ids": "int64", "strings": "string", "scalar": "float64"}


def nested_reading(message):
    """What TensorFlow reads in an Example's bytes features: tf.io.parse_tensor of each tensor
    (with the dtype it was written with), tf.train.Example.FromString of each nested Example (its
    reading in turn), or the error either raises."""
    import tensorflow as tf
    from google.protobuf.message import DecodeError
    reading = {}
    for key, feature in sorted(message.features.feature.items()):
        entry = feature_values(feature)
        value = feature.bytes_list.value[0] if feature.bytes_list.value else None
        if key in NESTED_DTYPES and value is not None:
            try:
                tensor = tf.io.parse_tensor(value, getattr(tf, NESTED_DTYPES[key]))
                entry["parse_tensor"] = {"dtype": NESTED_DTYPES[key],
                                         "shape": list(tensor.shape),
                                         "values": jsonable(tensor.numpy())}
            except tf.errors.OpError as e:
                entry["parse_tensor"] = tf_error(e)
        if key == "nested_example" and value is not None:
            try:
                entry["example_from_string"] = nested_reading(tf.train.Example.FromString(value))
            except DecodeError as e:
                entry["example_from_string"] = {"error": type(e).__name__, "message": str(e)}
        reading[key] = entry
    return reading


def png_ihdr(png):
    width, height, depth, color = struct.unpack(">IIBB", png[16:26])
    return {"width": width, "height": height, "bit_depth": depth, "color_type": color}


READERS = {"tensorboardx": read_tensorboardx, "tensorboard": read_tensorboard,
           "keras": read_keras, "dataset_save": read_dataset_save, "snapshot": read_snapshot,
           "examples": read_examples}


# ---------------------------------------------------------------------------------------------


def versions():
    from importlib.metadata import version
    return {p: version(p) for p in ("tensorflow-cpu", "tensorboard", "tensorboardX", "keras",
                                    "numpy", "protobuf", "pillow", "cramjam")}


def manifest(out):
    files = {}
    for d, _, fs in sorted(os.walk(out)):
        for f in sorted(fs):
            full = os.path.join(d, f)
            rel = os.path.relpath(full, out)
            if rel in ("manifest.json", "README.md"):
                continue
            data = open(full, "rb").read()
            files[rel] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    dump_json(os.path.join(out, "manifest.json"), {"versions": versions(), "files": files})


def main():
    if len(sys.argv) >= 3 and sys.argv[1] in ("--write", "--read"):
        section, out = sys.argv[2], sys.argv[3]
        seed_everything()
        (WRITERS if sys.argv[1] == "--write" else READERS)[section](out)
        return
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(ROOT, "testdata", "writers"))
    only = sys.argv[2:] or SECTIONS
    os.makedirs(out, exist_ok=True)
    for section in only:
        for p in (os.path.join(out, section), os.path.join(out, section + ".reading.json")):
            if os.path.isdir(p):
                shutil.rmtree(p)
        for f in os.listdir(out):
            if f.startswith(section + "."):
                os.remove(os.path.join(out, f))
        print(f"writing {section}", flush=True)
        subprocess.run(pinned_command(["--write", section, out]), env=pinned_env(), check=True)
        print(f"reading {section}", flush=True)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--read", section, out],
                       env=env, check=True)
    manifest(out)


if __name__ == "__main__":
    main()
