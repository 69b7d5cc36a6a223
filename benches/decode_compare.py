#!/usr/bin/env python3
"""Times `tfr-inspect list` and `show --format json|text` against Python protobuf's own loop.

The shard is 200,000 tf.train.Examples of about 250 bytes (32 floats, three ints, two strings),
as issue 15 describes. Python's loop is what a script does to print such a file:
`Example.FromString` then `json_format.MessageToJson(sort_keys=True, indent=None)` (the JSON
`show --format json` prints) or `text_format.MessageToString` (the text `show --format text`
prints). Both sides are whole processes over the same records, output discarded, warm page cache.

Needs only the protobuf package (pip install -r scripts/requirements-differential.txt); the
Example descriptors are built here from proto/tensorflow/core/example/*.proto, so TensorFlow is
not needed. Usage:
    python3 benches/decode_compare.py [--records N] [--python-records M] [--shard PATH]
With --python-records M < N, Python runs over the first M records and its rate is scaled to N
(the records are alike, so the per-record cost does not depend on which are taken).
"""
import argparse
import os
import struct
import subprocess
import sys
import time

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory, text_format

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example_class():
    """tensorflow.Example from a FileDescriptorProto written out from feature.proto/example.proto."""
    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="bench_example.proto", package="tensorflow", syntax="proto3")

    def message(name, fields, oneof=None, map_entry=False):
        m = file.message_type.add(name=name)
        if map_entry:
            m.options.map_entry = True
        if oneof:
            m.oneof_decl.add(name=oneof)
        for number, fname, ftype, label, type_name, packed, in_oneof in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
            if packed:
                f.options.packed = True
            if in_oneof:
                f.oneof_index = 0
        return m

    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    message("BytesList", [(1, "value", F.TYPE_BYTES, rep, None, False, False)])
    message("FloatList", [(1, "value", F.TYPE_FLOAT, rep, None, True, False)])
    message("Int64List", [(1, "value", F.TYPE_INT64, rep, None, True, False)])
    message(
        "Feature",
        [
            (1, "bytes_list", F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", False, True),
            (2, "float_list", F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", False, True),
            (3, "int64_list", F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", False, True),
        ],
        oneof="kind",
    )
    features = message("Features", [(1, "feature", F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry", False, False)])
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.Feature")
    message("Example", [(1, "features", F.TYPE_MESSAGE, opt, ".tensorflow.Features", False, False)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))


def _crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC32C_TABLE = _crc32c_table()


def masked_crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload):
    header = struct.pack("<Q", len(payload))
    return header + struct.pack("<I", masked_crc32c(header)) + payload + struct.pack("<I", masked_crc32c(payload))


def generate(path, records, distinct=4096):
    """`records` Examples cycling through `distinct` different ones (framing them is pure Python)."""
    import random

    Example = example_class()
    rng = random.Random(15)
    frames = []
    for i in range(distinct):
        ex = Example()
        feature = ex.features.feature
        feature["embedding"].float_list.value.extend(rng.gauss(0, 1) for _ in range(32))
        feature["label"].int64_list.value.append(rng.randrange(1000))
        feature["id"].int64_list.value.append(rng.randrange(1 << 40))
        feature["timestamp"].int64_list.value.append(1_700_000_000_000 + rng.randrange(1 << 30))
        feature["name"].bytes_list.value.append(f"item-{i:06d}-{rng.randrange(1 << 20):x}".encode())
        feature["category"].bytes_list.value.append(rng.choice([b"cat", b"dog", b"bird", b"fish"]))
        frames.append(frame(ex.SerializeToString()))
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
    Example = example_class()
    records = []
    for payload in payloads(path):
        records.append(payload)
        if len(records) == limit:
            break
    sink = 0
    start = time.perf_counter()
    for payload in records:
        message = Example.FromString(payload)
        if fmt == "json":
            sink += len(json_format.MessageToJson(message, sort_keys=True, indent=None))
        else:
            sink += len(text_format.MessageToString(message))
    return time.perf_counter() - start, len(records)


def whole_process(args, runs=5):
    """Median wall seconds of a whole `tfr-inspect` process, output discarded."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--python-records", type=int, default=None)
    parser.add_argument("--shard", default="/tmp/tfr-bench/examples-200k.tfrecord")
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "tfr-inspect"))
    parser.add_argument("--generate-only", action="store_true")
    args = parser.parse_args()
    os.makedirs(os.path.dirname(args.shard), exist_ok=True)
    if not os.path.exists(args.shard):
        generate(args.shard, args.records)
    if args.generate_only:
        return
    if not os.path.exists(args.binary):
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    records = args.records
    limit = args.python_records or records
    print(f"{records} Examples, {os.path.getsize(args.shard) / 1e6:.1f} MB; {os.cpu_count()} cores")
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
