#!/usr/bin/env python3
"""Times TensorFlow's own TFRecord reader against `tfr-inspect verify` on the same files.

Both check the length and payload CRC of every record. Generate the files first with
    TFR_BENCH_KEEP=/tmp/tfr-bench cargo bench --bench throughput
then, with TensorFlow installed (pip install tensorflow-cpu):
    python3 benches/tf_compare.py /tmp/tfr-bench
"""
import os
import subprocess
import sys
import time

import tensorflow as tf

FILES = ["large.tfrecord", "small.tfrecord"]


def time_tf(path, batched):
    """Reads every record with tf.data.TFRecordDataset; returns (records, seconds)."""
    dataset = tf.data.TFRecordDataset(path, buffer_size=8 << 20)
    if batched:
        dataset = dataset.batch(4096)
    start = time.perf_counter()
    records = 0
    for item in dataset:
        records += int(item.shape[0]) if batched else 1
    return records, time.perf_counter() - start


def time_loop(records_of, limit):
    """A Python loop taking one record at a time, as many scripts do; returns records per second."""
    start = time.perf_counter()
    records = 0
    for _ in records_of():
        records += 1
        if records == limit:
            break
    return records / (time.perf_counter() - start)


def time_verify(binary, path):
    start = time.perf_counter()
    subprocess.run([binary, "verify", path], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tfr-bench"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = os.path.join(root, "target", "release", "tfr-inspect")
    if not os.path.exists(binary):
        subprocess.run(["cargo", "build", "--release"], cwd=root, check=True)
    print(f"TensorFlow {tf.__version__}; {os.cpu_count()} cores")
    for name in FILES:
        path = os.path.join(directory, name)
        size = os.path.getsize(path)
        # Warm the page cache so both readers read memory.
        with open(path, "rb") as f:
            while f.read(64 << 20):
                pass
        ours = min(time_verify(binary, path) for _ in range(3))
        records, batched = time_tf(path, batched=True)
        eager = time_loop(lambda: tf.data.TFRecordDataset(path), limit=50_000)
        iterator = time_loop(lambda: tf.compat.v1.io.tf_record_iterator(path), limit=200_000)
        print(
            f"{name}: {records} records, {size / 1e9:.2f} GB | "
            f"tfr-inspect verify {size / ours / 1e9:.2f} GB/s, {records / ours / 1e6:.2f} M records/s | "
            f"tf.data batched {size / batched / 1e9:.2f} GB/s, {records / batched / 1e6:.3f} M records/s | "
            f"python loop over tf.data {eager / 1e3:.1f} k records/s, over tf_record_iterator {iterator / 1e3:.0f} k records/s | "
            f"tfr-inspect is {batched / ours:.1f}x tf.data"
        )


if __name__ == "__main__":
    main()
