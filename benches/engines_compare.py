#!/usr/bin/env python3
"""Times the Python package against what Python users run today, each side a whole process.

On 200,000 Examples of about 250 bytes (ints, a few floats, short strings) in 4 shards:

- ``arrow``: ``tfr_inspect.open(shard).batches()`` for every shard, into one ``pyarrow.Table``;
- ``ray``: ``ray.data.read_tfrecords(shards)`` materialised as pyarrow tables (Ray's defaults);
- ``loop``: a Python loop of ``tf.train.Example.FromString`` over ``tf.data.TFRecordDataset``,
  building the same list columns, then the same ``pyarrow.Table``;
- ``beam``: ``tfr_inspect.beam.GenerateStatistics`` on Beam's DirectRunner (its defaults);
- ``tfdv``: ``tfdv.generate_statistics_from_tfrecord`` on the same files and runner.

The pairs timed are arrow against ray, arrow against loop, and beam against tfdv, each pair in
turn (A B A B ...), ``--rounds`` times; a pair's ratio is B's wall time over A's, and the median
of the rounds' ratios is printed with the median wall time, CPU time and peak memory of each
side. Every side prints the rows or records it saw, and the run stops if a side saw other than
all of them.

Needs the benchmark's venv (scripts/requirements-bench.txt: TensorFlow, TFDV, Beam, Ray) and
maturin on PATH or in the venv. pip's resolver rejects that set, so it is installed with
``--no-deps``, as the file's header says. Usage:

    python3.11 -m venv /tmp/bench && /tmp/bench/bin/pip install --no-deps -r scripts/requirements-bench.txt
    /tmp/bench/bin/python benches/engines_compare.py [--rounds 3] [--records 200000] [--shards 4]

It builds the package's wheel (``maturin build --profile wheel``, the optimised build
``pip install ./crates/tfr-py`` makes) and installs it into the running venv (``--no-build``
uses the one installed), writes the shards into a temporary directory, times, and deletes both.
``python benches/engines_compare.py SIDE DIR`` runs one side alone over the shards in DIR, and
``python benches/engines_compare.py write DIR`` writes them, and ``--data DIR`` times those.
"""
import argparse
import glob
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATTERN = "examples.tfrecord-*"

COUNTRIES = [b"us", b"de", b"fr", b"jp", b"br", b"in", b"gb", b"ca"]
CATEGORIES = [b"books", b"electronics", b"garden", b"toys", b"grocery", b"sports"]
WORDS = [b"red", b"shoes", b"cheap", b"phone", b"case", b"usb", b"lamp", b"desk", b"kids", b"gift"]


def example_features(rng, i):
    """One record's features, as a click log row: ids and counts, a few floats, short strings."""
    return {
        "user_id": ("int64", [rng.randrange(1 << 40)]),
        "item_ids": ("int64", [rng.randrange(1 << 24) for _ in range(rng.randint(3, 10))]),
        "timestamp": ("int64", [1_700_000_000 + i * 3 + rng.randrange(3)]),
        "clicks": ("int64", [rng.randrange(20)]),
        "label": ("int64", [rng.randrange(2)]),
        "price": ("float", [round(rng.uniform(1, 500), 2)]),
        "scores": ("float", [rng.random() for _ in range(5)]),
        "country": ("bytes", [rng.choice(COUNTRIES)]),
        "category": ("bytes", [rng.choice(CATEGORIES)]),
        "query": ("bytes", [b" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))]),
    }


def write(directory, records, shards):
    """Writes `records` Examples into `shards` files with TensorFlow's own writer."""
    import tensorflow as tf

    rng = random.Random(42)
    per_shard = -(-records // shards)
    written = payload_bytes = 0
    for shard in range(shards):
        path = os.path.join(directory, f"examples.tfrecord-{shard:05d}-of-{shards:05d}")
        with tf.io.TFRecordWriter(path) as writer:
            for _ in range(min(per_shard, records - written)):
                feature = {}
                for name, (kind, values) in example_features(rng, written).items():
                    if kind == "int64":
                        feature[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
                    elif kind == "float":
                        feature[name] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
                    else:
                        feature[name] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
                example = tf.train.Example(features=tf.train.Features(feature=feature))
                # Deterministic: the features in name order in every record, as one schema.
                payload = example.SerializeToString(deterministic=True)
                writer.write(payload)
                payload_bytes += len(payload)
                written += 1
    print(f"{written} records, {payload_bytes / written:.0f} B each on average, {shards} shards")


def shard_paths(directory):
    return sorted(glob.glob(os.path.join(directory, PATTERN)))


def side_arrow(directory):
    import pyarrow as pa

    import tfr_inspect

    batches = [b for path in shard_paths(directory) for b in tfr_inspect.open(path).batches()]
    table = pa.Table.from_batches(batches)
    print(f"rows={table.num_rows} columns={table.num_columns}")


def side_ray(directory):
    import pyarrow as pa
    import ray

    ray.init(include_dashboard=False, log_to_driver=False)
    ds = ray.data.read_tfrecords(shard_paths(directory))
    table = pa.concat_tables(ray.get(ds.to_arrow_refs()))
    print(f"rows={table.num_rows} columns={table.num_columns}")
    ray.shutdown()


def side_loop(directory):
    import pyarrow as pa
    import tensorflow as tf

    kinds = {"int64_list": pa.int64(), "float_list": pa.float32(), "bytes_list": pa.binary()}
    columns, types, rows = {}, {}, 0
    for record in tf.data.TFRecordDataset(shard_paths(directory)):
        example = tf.train.Example.FromString(record.numpy())
        for name, feature in example.features.feature.items():
            kind = feature.WhichOneof("kind")
            if name not in columns:
                columns[name] = [None] * rows
                types[name] = kinds.get(kind, pa.null())
            columns[name].append(list(getattr(feature, kind).value) if kind else [])
        rows += 1
        for values in columns.values():
            if len(values) < rows:
                values.append(None)
    names = sorted(columns)
    table = pa.table([pa.array(columns[n], type=pa.list_(types[n])) for n in names], names=names)
    print(f"rows={table.num_rows} columns={table.num_columns}")


def side_beam(directory):
    import apache_beam as beam

    import tfr_inspect.beam

    with beam.Pipeline() as p:
        (
            p
            | tfr_inspect.beam.GenerateStatistics(os.path.join(directory, PATTERN))
            | beam.Map(lambda report: print(f"rows={report.to_dict()['splits'][0]['records']}"))
        )


def side_tfdv(directory):
    import tensorflow_data_validation as tfdv

    stats = tfdv.generate_statistics_from_tfrecord(data_location=os.path.join(directory, PATTERN))
    print(f"rows={stats.datasets[0].num_examples}")


SIDES = {
    "arrow": side_arrow,
    "ray": side_ray,
    "loop": side_loop,
    "beam": side_beam,
    "tfdv": side_tfdv,
}


def run_side(side, directory, records):
    """One whole-process run of `side`: (wall s, cpu s, peak MiB) from the OS's accounting."""
    command = [sys.executable, os.path.abspath(__file__), side, directory]
    read_out, write_out = os.pipe()
    start = time.perf_counter()
    pid = os.posix_spawn(
        command[0],
        command,
        os.environ,
        file_actions=[
            (os.POSIX_SPAWN_DUP2, write_out, 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ],
    )
    os.close(write_out)
    with os.fdopen(read_out, "rb") as out:
        printed = out.read().decode(errors="replace")
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0 or f"rows={records}" not in printed:
        sys.exit(
            f"{side} failed (status {os.waitstatus_to_exitcode(status)}), printed:\n{printed}\n"
            f"run `{' '.join(command)}` to see its errors"
        )
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def compare(a, b, directory, records, rounds):
    runs = {a: [], b: []}
    ratios = []
    for _ in range(rounds):
        for side in (a, b):
            runs[side].append(run_side(side, directory, records))
        ratios.append(runs[b][-1][0] / runs[a][-1][0])
    for side in (a, b):
        wall, cpu, peak = (statistics.median(r[i] for r in runs[side]) for i in range(3))
        print(f"  {side:6} wall {wall:8.2f} s  cpu {cpu:8.2f} s  peak {peak:8.1f} MiB (medians)")
    print(
        f"  {b} / {a}: {statistics.median(ratios):.1f}x median wall-time ratio of {rounds} "
        f"pairs (range {min(ratios):.1f}x to {max(ratios):.1f}x)",
        flush=True,
    )


def build_and_install():
    """Builds the wheel as `pip install ./crates/tfr-py` does and installs it into this venv."""
    here = os.path.dirname(sys.executable)
    maturin = os.path.join(here, "maturin")
    maturin = maturin if os.path.exists(maturin) else "maturin"
    with tempfile.TemporaryDirectory() as wheels:
        subprocess.run(
            [maturin, "build", "--profile", "wheel", "-m", os.path.join(ROOT, "crates/tfr-py/Cargo.toml"),
             "-i", sys.executable, "-o", wheels],
            check=True,
        )
        wheel = glob.glob(os.path.join(wheels, "*.whl"))
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", *wheel],
            check=True,
        )


def main():
    if len(sys.argv) == 3 and sys.argv[1] in SIDES:
        SIDES[sys.argv[1]](sys.argv[2])
        return
    if len(sys.argv) >= 3 and sys.argv[1] == "write":
        parser = argparse.ArgumentParser(prog="engines_compare.py write")
        parser.add_argument("directory")
        parser.add_argument("--records", type=int, default=200_000)
        parser.add_argument("--shards", type=int, default=4)
        args = parser.parse_args(sys.argv[2:])
        write(args.directory, args.records, args.shards)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--no-build", action="store_true", help="use the tfr_inspect installed")
    parser.add_argument("--data", help="shards written before (by `write DIR`) instead of new ones")
    parser.add_argument(
        "--pairs", default="arrow:ray,arrow:loop,beam:tfdv", help="which pairs, A:B comma-separated"
    )
    args = parser.parse_args()
    if not args.no_build:
        build_and_install()
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.data or scratch
        if not args.data:
            # Written by a child process, so that no TensorFlow is loaded in the one timing them.
            subprocess.run(
                [sys.executable, os.path.abspath(__file__), "write", directory,
                 "--records", str(args.records), "--shards", str(args.shards)],
                check=True,
            )
        for pair in args.pairs.split(","):
            a, b = pair.split(":")
            print(f"{a} against {b}:", flush=True)
            compare(a, b, directory, args.records, args.rounds)


if __name__ == "__main__":
    main()
