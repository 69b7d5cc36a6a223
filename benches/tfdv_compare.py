#!/usr/bin/env python3
"""Times `tfr-inspect stats` against TensorFlow Data Validation on the same shards.

TFDV's `generate_statistics_from_tfrecord` runs a Beam pipeline (DirectRunner) over the files and
computes per-feature statistics, which is what people reach for to learn what a dataset holds.
Both are run as whole processes, as users run them, one after the other; the ratio of their
wall times and their peak resident memory are printed.

    python3 -m venv /tmp/tfdv && /tmp/tfdv/bin/pip install tensorflow-data-validation
    cargo build --release
    /tmp/tfdv/bin/python benches/tfdv_compare.py [--records N] [--shards K] [DIR]

Without DIR, N Examples (default 200,000, ~250 bytes each: 32 floats, 3 ints, 2 strings) are
written with TensorFlow's own writer into K shards (default 4) in a temporary directory.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

BINARY = os.path.join(os.path.dirname(__file__), "..", "target", "release", "tfr-inspect")


def write_shards(directory, records, shards):
    import tensorflow as tf

    rng = random.Random(7)
    per_shard = (records + shards - 1) // shards
    written = 0
    for shard in range(shards):
        path = os.path.join(directory, f"data.tfrecord-{shard:05d}-of-{shards:05d}")
        with tf.io.TFRecordWriter(path) as writer:
            for _ in range(min(per_shard, records - written)):
                features = {
                    "embedding": tf.train.Feature(
                        float_list=tf.train.FloatList(value=[rng.random() for _ in range(32)])
                    ),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[rng.randrange(10)])),
                    "ids": tf.train.Feature(
                        int64_list=tf.train.Int64List(value=[rng.randrange(1 << 20) for _ in range(2)])
                    ),
                    "lang": tf.train.Feature(
                        bytes_list=tf.train.BytesList(value=[rng.choice([b"en", b"de", b"fr", b"ja"])])
                    ),
                    "text": tf.train.Feature(
                        bytes_list=tf.train.BytesList(value=[f"sentence {rng.randrange(1 << 30)}".encode()])
                    ),
                }
                example = tf.train.Example(features=tf.train.Features(feature=features))
                writer.write(example.SerializeToString())
                written += 1
    return os.path.join(directory, "data.tfrecord-*")


def timed(command):
    """Runs `command`; returns (seconds, peak resident kilobytes) of that process alone."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{command[0]} failed with status {status}")
    return seconds, usage.ru_maxrss


TFDV_SCRIPT = """
import sys
import tensorflow_data_validation as tfdv
stats = tfdv.generate_statistics_from_tfrecord(data_location=sys.argv[1])
print(len(stats.datasets[0].features))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        if args.directory:
            pattern = os.path.join(args.directory, "*.tfrecord*")
            target = args.directory
        else:
            # Written by a child process: TensorFlow imported here would be counted in the peak
            # memory of every process this one starts (a forked child's peak includes its
            # parent's pages until it executes the command).
            writer = (
                "import sys; sys.path.insert(0, sys.argv[1]); import tfdv_compare as t; "
                "t.write_shards(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))"
            )
            here = os.path.dirname(os.path.abspath(__file__))
            subprocess.run(
                [sys.executable, "-c", writer, here, scratch, str(args.records), str(args.shards)],
                check=True,
                stderr=subprocess.DEVNULL,
            )
            pattern = os.path.join(scratch, "data.tfrecord-*")
            target = scratch
        ours, our_rss = timed([BINARY, "stats", "--json", target])
        theirs, their_rss = timed([sys.executable, "-c", TFDV_SCRIPT, pattern])
    print(f"tfr-inspect stats      {ours:8.2f} s  peak {our_rss / 1024:8.1f} MiB")
    print(f"tfdv generate_statistics {theirs:6.2f} s  peak {their_rss / 1024:8.1f} MiB")
    print(f"ratio (TFDV / tfr-inspect): {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
