#!/usr/bin/env python3
"""Times `tfr-inspect list` and `show --format json|text` against Python protobuf's own loop.

Two shards of 200,000 tf.train.Examples of about 250 bytes each, one per shape, since the ratios
depend on what the records hold (Python formats a float several times slower than an int): the
`floats` shape (32 floats, three ints, two strings, as issue 15 describes) and the `mix` shape (a
mix of ints, a few floats and short strings, as most tabular datasets are). `--shape` picks one;
both by default. Python's loop is what a script does to print such a file:
`Example.FromString` then `json_format.MessageToJson(sort_keys=True, indent=None)` (the JSON
`show --format json` prints) or `text_format.MessageToString` (the text `show --format text`
prints). Both sides are whole processes over the same records, output discarded, warm page cache.

Needs only the protobuf package (pip install -r scripts/requirements-differential.txt); the
Example descriptors and the TFRecord framing come from scripts/differential_mutated.py, so
TensorFlow is not needed. Usage:
    python3 benches/decode_compare.py [--records N] [--python-records M] [--shard PATH]
With --python-records M < N, Python runs over the first M records and its rate is scaled to N
(the records are alike, so the per-record cost does not depend on which are taken).

With --rounds R, the two sides are timed in turn instead, R times: each round runs every
tfr-inspect command once over the whole shard and Python's loops over the next M records (M is
--python-records, 2,000 by default here), and a round's ratios compare moments seconds apart. The
median of the rounds' ratios is printed with their range. On a machine whose speed drifts from
minute to minute this is steadier than timing each side once, at different moments.
"""
import argparse
import os
import struct
import subprocess
import sys
import time

from google.protobuf import json_format, text_format

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from differential_mutated import message_classes, tfrecord  # noqa: E402  (the Example schema, TFRecord framing)


def example_class():
    """tensorflow.Example, built from the descriptors the differential script writes out."""
    return message_classes()["tensorflow.Example"]


def floats_example(Example, rng, i):
    """32 floats, three ints, two strings."""
    ex = Example()
    feature = ex.features.feature
    feature["embedding"].float_list.value.extend(rng.gauss(0, 1) for _ in range(32))
    feature["label"].int64_list.value.append(rng.randrange(1000))
    feature["id"].int64_list.value.append(rng.randrange(1 << 40))
    feature["timestamp"].int64_list.value.append(1_700_000_000_000 + rng.randrange(1 << 30))
    feature["name"].bytes_list.value.append(f"item-{i:06d}-{rng.randrange(1 << 20):x}".encode())
    feature["category"].bytes_list.value.append(rng.choice([b"cat", b"dog", b"bird", b"fish"]))
    return ex


def mix_example(Example, rng, i):
    """Ints, a few floats and short strings, as a row of a table: about 250 bytes."""
    ex = Example()
    feature = ex.features.feature
    feature["user_id"].int64_list.value.append(rng.randrange(1 << 40))
    feature["item_id"].int64_list.value.append(rng.randrange(1 << 32))
    feature["timestamp"].int64_list.value.append(1_700_000_000_000 + rng.randrange(1 << 30))
    feature["age"].int64_list.value.append(rng.randrange(18, 90))
    feature["clicks"].int64_list.value.append(rng.randrange(100))
    feature["label"].int64_list.value.append(rng.randrange(2))
    feature["history"].int64_list.value.extend(rng.randrange(1 << 20) for _ in range(6))
    feature["price"].float_list.value.append(round(rng.uniform(1, 500), 2))
    feature["score"].float_list.value.append(rng.random())
    feature["country"].bytes_list.value.append(rng.choice([b"US", b"DE", b"IN", b"BR", b"JP"]))
    feature["lang"].bytes_list.value.append(rng.choice([b"en", b"de", b"hi", b"pt", b"ja"]))
    feature["query"].bytes_list.value.append(f"query {i % 977} {rng.randrange(1 << 16):x}".encode())
    return ex


SHAPES = {"floats": floats_example, "mix": mix_example}


def generate(path, records, shape="floats", distinct=4096):
    """`records` Examples of `shape` cycling through `distinct` different ones (framing them is
    pure Python)."""
    import random

    Example = example_class()
    rng = random.Random(15)
    frames = [tfrecord([SHAPES[shape](Example, rng, i).SerializeToString()]) for i in range(distinct)]
    tmp = path + ".tmp"
    with open(tmp, "wb") as out:
        for i in range(records):
            out.write(frames[i % distinct])
    os.replace(tmp, path)


def payloads(path):
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, at)
        yield data[at + 12 : at + 12 + length]
        at += 16 + length


def python_loop(path, fmt, limit):
    """Seconds Python protobuf takes to parse and print `limit` records as `fmt`."""
    records = []
    for payload in payloads(path):
        records.append(payload)
        if len(records) == limit:
            break
    return time_python(records, fmt), len(records)


def time_python(records, fmt):
    Example = example_class()
    sink = 0
    start = time.perf_counter()
    for payload in records:
        message = Example.FromString(payload)
        if fmt == "json":
            sink += len(json_format.MessageToJson(message, sort_keys=True, indent=None))
        else:
            sink += len(text_format.MessageToString(message))
    return time.perf_counter() - start


def whole_process(args, runs=5):
    """Median wall seconds of a whole `tfr-inspect` process, output discarded."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def in_turn(args, rounds, per_round):
    """Times both sides in turn, `rounds` times; prints each round's ratios and their medians."""
    commands = {
        "list": [args.binary, "list", args.shard],
        "json": [args.binary, "show", args.shard, "--format", "json"],
        "text": [args.binary, "show", args.shard, "--format", "text"],
    }
    all_payloads = list(payloads(args.shard))
    ratios = {"json": [], "text": [], "list": []}
    for r in range(rounds):
        ours = {name: whole_process(command, runs=1) for name, command in commands.items()}
        start = (r * per_round) % max(1, len(all_payloads) - per_round)
        chunk = all_payloads[start : start + per_round]
        python = {fmt: time_python(chunk, fmt) * args.records / len(chunk) for fmt in ("json", "text")}
        ratios["json"].append(python["json"] / ours["json"])
        ratios["text"].append(python["text"] / ours["text"])
        ratios["list"].append(python["json"] / ours["list"])
        print(
            f"round {r + 1}: tfr-inspect list {ours['list']:.3f} s, json {ours['json']:.3f} s, "
            f"text {ours['text']:.3f} s; python json {python['json']:.1f} s, text {python['text']:.1f} s "
            f"(scaled); json {ratios['json'][-1]:.0f}x, text {ratios['text'][-1]:.0f}x, "
            f"list {ratios['list'][-1]:.0f}x"
        )
    summary = " | ".join(
        f"{name} {median(values):.0f}x (rounds {min(values):.0f}x to {max(values):.0f}x, target >= {target}x)"
        for (name, values), target in zip(ratios.items(), (100, 100, 200))
    )
    print(f"median of {rounds} rounds: {summary}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--python-records", type=int, default=None)
    parser.add_argument("--shape", choices=["floats", "mix", "both"], default="both")
    parser.add_argument(
        "--shard",
        default=None,
        help="the shard of one --shape (default /tmp/tfr-bench/examples-200k.tfrecord for floats, "
        "/tmp/tfr-bench/mix-200k.tfrecord for mix)",
    )
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "tfr-inspect"))
    parser.add_argument("--generate-only", action="store_true")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    shapes = ["floats", "mix"] if args.shape == "both" else [args.shape]
    if args.shard and len(shapes) > 1:
        parser.error("--shard names the shard of one --shape")
    defaults = {"floats": "/tmp/tfr-bench/examples-200k.tfrecord", "mix": "/tmp/tfr-bench/mix-200k.tfrecord"}
    for shape in shapes:
        args.shard = args.shard if len(shapes) == 1 and args.shard else defaults[shape]
        os.makedirs(os.path.dirname(args.shard), exist_ok=True)
        if not os.path.exists(args.shard):
            generate(args.shard, args.records, shape)
        if args.generate_only:
            continue
        if not os.path.exists(args.binary):
            subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
        size = os.path.getsize(args.shard)
        print(f"shape {shape}: {args.records} Examples, {size / 1e6:.1f} MB ({size / args.records - 16:.0f} B a record); {os.cpu_count()} cores")
        if args.rounds:
            in_turn(args, args.rounds, args.python_records or 2000)
        else:
            one_shape(args)


def one_shape(args):
    records = args.records
    limit = args.python_records or records
    ours = {
        "list": whole_process([args.binary, "list", args.shard]),
        "json": whole_process([args.binary, "show", args.shard, "--format", "json"]),
        "text": whole_process([args.binary, "show", args.shard, "--format", "text"]),
    }
    python = {}
    for fmt in ["json", "text"]:
        seconds, done = python_loop(args.shard, fmt, limit)
        python[fmt] = seconds * records / done
    for name, seconds in ours.items():
        print(f"tfr-inspect {name:<4} {seconds:7.3f} s  {seconds * 1e9 / records:6.0f} ns/record")
    for fmt, seconds in python.items():
        print(f"python {fmt} loop    {seconds:7.2f} s  {seconds * 1e9 / records:6.0f} ns/record")
    print(
        f"show --format json {python['json'] / ours['json']:.0f}x Python's MessageToJson loop (target >= 100x) | "
        f"show --format text {python['text'] / ours['text']:.0f}x MessageToString loop (target >= 100x) | "
        f"list {python['json'] / ours['list']:.0f}x the MessageToJson loop, "
        f"{python['text'] / ours['list']:.0f}x the MessageToString loop (target >= 200x)"
    )


if __name__ == "__main__":
    sys.exit(main())
