"""Computes, independently of tfr-inspect, the statistics `stats --json` gives for a dataset
directory of tf.train.Example shards, and writes them as the golden the tests compare with.

Records are parsed by Python protobuf (message classes built from descriptors written out here,
so no TensorFlow is needed); frames are read by a plain parser of the TFRecord framing. Splits are
the shard sets `PREFIX-NNNNN-of-MMMMM`, named by the part of the prefix after the dataset name.

Usage: python scripts/stats_golden.py DATASET_DIR OUT.json
Run once with a Python that has `protobuf`; the tests only read OUT.json.
"""
import json
import math
import os
import re
import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def example_class():
    """tensorflow.Example from hand-written descriptors (feature.proto and example.proto)."""
    file = descriptor_pb2.FileDescriptorProto(name="example_golden.proto", package="tensorflow", syntax="proto3")

    def message(name, fields):
        m = file.message_type.add(name=name)
        for fname, number, ftype, label, type_name, packed in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
            if packed:
                f.options.packed = True
        return m

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    message("BytesList", [("value", 1, F.TYPE_BYTES, rep, None, False)])
    message("FloatList", [("value", 1, F.TYPE_FLOAT, rep, None, True)])
    message("Int64List", [("value", 1, F.TYPE_INT64, rep, None, True)])
    feature = message("Feature", [
        ("bytes_list", 1, F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", False),
        ("float_list", 2, F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", False),
        ("int64_list", 3, F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", False),
    ])
    feature.oneof_decl.add(name="kind")
    for f in feature.field:
        f.oneof_index = 0
    features = message("Features", [("feature", 1, F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry", False)])
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.Feature")
    message("Example", [("features", 1, F.TYPE_MESSAGE, opt, ".tensorflow.Features", False)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))


def records(path):
    data = open(path, "rb").read()
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        yield data[pos + 12:pos + 12 + length]
        pos += 16 + length


def main(directory, out):
    Example = example_class()
    info = json.load(open(os.path.join(directory, "dataset_info.json")))
    shard = re.compile(r"^(.*)-(\d+)-of-(\d+)$")
    splits = {}
    for name in sorted(os.listdir(directory)):
        m = shard.match(name)
        if not m:
            continue
        split = m.group(1)
        if split.endswith(".tfrecord"):
            split = split[: -len(".tfrecord")]
        split = split[len(info["name"]) + 1:]
        splits.setdefault(split, []).append((int(m.group(2)), os.path.join(directory, name)))
    values = {}  # split -> feature -> per-record lists
    counts = {}
    for split, shards in splits.items():
        feats = values.setdefault(split, {})
        counts[split] = 0
        for _, path in sorted(shards):
            for payload in records(path):
                counts[split] += 1
                example = Example.FromString(payload)
                for key, feature in example.features.feature.items():
                    kind = feature.WhichOneof("kind")
                    vals = list(getattr(feature, kind).value) if kind else []
                    feats.setdefault(key, []).append((kind, vals))
    # Histogram ranges span every split.
    ranges = {}
    for split, feats in values.items():
        for key, recs in feats.items():
            nums = [float(v) for kind, vals in recs if kind in ("float_list", "int64_list") for v in vals]
            nums = [v for v in nums if math.isfinite(v)]
            if nums:
                lo, hi = ranges.get(key, (min(nums), max(nums)))
                ranges[key] = (min(lo, min(nums)), max(hi, max(nums)))
    result = {"splits": []}
    for split in sorted(values, key=lambda s: s):
        feats = values[split]
        out_features = {}
        for key, recs in sorted(feats.items()):
            kinds = {}
            for kind, _ in recs:
                short = {"bytes_list": "bytes", "float_list": "float", "int64_list": "int64", None: "none"}[kind]
                kinds[short] = kinds.get(short, 0) + 1
            per = [len(vals) for _, vals in recs]
            entry = {
                "present": len(recs),
                "kinds": kinds,
                "values_per_record": {"min": min(per), "mean": sum(per) / len(per), "max": max(per)},
            }
            nums = [float(v) for kind, vals in recs if kind in ("float_list", "int64_list") for v in vals]
            if nums:
                mean = sum(nums) / len(nums)
                lo, hi = ranges[key]
                hist = [0] * 10
                for v in nums:
                    b = 0 if hi == lo else int(math.floor((v - lo) / (hi - lo) * 10))
                    hist[min(b, 9)] += 1
                entry["numeric"] = {
                    "count": len(nums),
                    "min": min(nums),
                    "max": max(nums),
                    "mean": mean,
                    "std": math.sqrt(sum((v - mean) ** 2 for v in nums) / len(nums)),
                    "zeros": sum(1 for v in nums if v == 0.0),
                    "histogram": {"low": lo, "high": hi, "counts": hist},
                }
            strs = [bytes(v) for kind, vals in recs if kind == "bytes_list" for v in vals]
            if strs:
                lens = [len(s) for s in strs]
                entry["bytes"] = {
                    "count": len(strs),
                    "length": {"min": min(lens), "mean": sum(lens) / len(lens), "max": max(lens)},
                    "distinct": len(set(strs)),
                }
            out_features[key] = entry
        result["splits"].append({"name": split, "records": counts[split], "features": out_features})
    with open(out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
