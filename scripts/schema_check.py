#!/usr/bin/env python3
"""`schema --format python` and `--format tfdv` checked by TensorFlow and tensorflow-metadata.

For each input (a TFRecord file or a dataset directory), runs `tfr-inspect schema --format python`,
executes the spec it prints, and parses every record of the input with it: Examples with
`tf.io.parse_single_example(record, feature_description)`, SequenceExamples with
`tf.io.parse_single_sequence_example(record, context_features, sequence_features)`. Every record
must parse. Then runs `schema --format tfdv` and parses it with tensorflow-metadata's `Schema`
(`text_format.Parse`, as `tfdv.load_schema_text` does); every feature of the spec must be there,
with its type.

Writes what it checked to a golden JSON (`--golden`): per input the spec texts and how many
records were parsed. `tests/cli/schema.rs` compares the spec texts with what the binary prints
now, so a change of output fails that test until this script is run again and passes.

Needs TensorFlow and tensorflow-metadata (`pip install tensorflow-cpu tensorflow-metadata`).
The golden was made with (`--write-sparse` writes `testdata/sparse.tfrecord` first, the same
bytes every time):
python3 scripts/schema_check.py --binary target/debug/tfr-inspect \
    --golden testdata/schema.golden.json --write-sparse testdata/sparse.tfrecord \
    testdata/examples.tfrecord testdata/examples_gzip.tfrecord testdata/examples_zlib.tfrecord \
    testdata/images.tfrecord testdata/mnist_like.tfrecord testdata/cifar_like.tfrecord \
    testdata/sequence.tfrecord testdata/sparse.tfrecord testdata/video_frames.tfrecord \
    testdata/realworld/detection_train.record-00000-of-00001 testdata/realworld/tfds/toy_parcels/2.0.0
"""
import argparse
import importlib.metadata
import json
import os
import subprocess
import sys

import tensorflow as tf
from google.protobuf import text_format
from tensorflow_metadata.proto.v0 import schema_pb2

TFDV_TYPES = {"int64": "INT", "float": "FLOAT", "string": "BYTES"}


def tool(binary, *args):
    done = subprocess.run([binary, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def files_of(binary, path):
    """The TFRecord files of `path`, as the binary finds them."""
    lines = tool(binary, "count", "--json", path).splitlines()
    return [json.loads(l)["file"] for l in lines if json.loads(l)["type"] == "file"]


def compression(path):
    with open(path, "rb") as f:
        head = f.read(2)
    if head == b"\x1f\x8b":
        return "GZIP"
    if len(head) == 2 and head[0] == 0x78 and (head[0] * 256 + head[1]) % 31 == 0:
        return "ZLIB"
    return ""


def parse_all(files, spec):
    """Parses every record of `files` with `spec`; returns how many were parsed."""
    parsed = 0
    for path in files:
        for record in tf.data.TFRecordDataset(path, compression_type=compression(path)):
            # Wire-identical but for field 2: a record with feature_lists is a SequenceExample.
            sequence = "sequence_features" in spec and (
                "feature_description" not in spec
                or tf.train.SequenceExample.FromString(record.numpy()).HasField("feature_lists")
            )
            if sequence:
                out = tf.io.parse_single_sequence_example(
                    record,
                    context_features=spec["context_features"],
                    sequence_features=spec["sequence_features"],
                )
            else:
                out = tf.io.parse_single_example(record, spec["feature_description"])
            assert out is not None
            parsed += 1
    return parsed


def check_tfdv(text, report):
    schema = text_format.Parse(text, schema_pb2.Schema())
    got = {f.name: schema_pb2.FeatureType.Name(f.type) for f in schema.feature}
    for feature in report["features"]:
        if feature["dtype"] is None:
            continue
        name = feature["name"]
        if feature["section"] == "feature_lists":
            name = "feature_lists/" + name
        want = TFDV_TYPES[feature["dtype"]]
        if got.get(name) != want:
            raise SystemExit(f"tfdv: {name}: {got.get(name)!r}, expected {want}")
    return len(schema.feature)


def write_sparse(path):
    """`testdata/sparse.tfrecord`: 6 Examples whose features are missing from some records or
    hold a changing count of values, then 4 SequenceExamples whose context features and feature
    lists are missing from some, with steps of changing counts."""
    F = tf.train.Feature

    def i(*v):
        return F(int64_list=tf.train.Int64List(value=list(v)))

    def f(*v):
        return F(float_list=tf.train.FloatList(value=list(v)))

    def b(*v):
        return F(bytes_list=tf.train.BytesList(value=list(v)))

    with tf.io.TFRecordWriter(path) as w:
        for n in range(6):
            feats = {"label": i(n % 3), "tokens": i(*range(n)), "score": f(n / 2, n / 3)}
            if n % 2 == 0:
                feats["caption"] = b(b"even %d" % n)
            if n % 3 == 0:
                feats["weights"] = f(*([0.5] * n))
            feats["name with 'quote' \\ and \u00e9"] = i(n)
            w.write(tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString(deterministic=True))
        for n in range(4):
            lists = {"frames": tf.train.FeatureList(feature=[f(1.0, 2.0)] * n),
                     "words": tf.train.FeatureList(feature=[b(*([b"w"] * k)) for k in range(n)])}
            if n % 2:
                lists["rare"] = tf.train.FeatureList(feature=[i(n)])
            ctx = {"id": b(b"s%d" % n)}
            if n:
                ctx["len"] = i(n)
            w.write(tf.train.SequenceExample(context=tf.train.Features(feature=ctx),
                feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString(deterministic=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--golden", required=True)
    parser.add_argument("--write-sparse", metavar="PATH", help="write sparse.tfrecord there first")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()
    if args.write_sparse:
        write_sparse(args.write_sparse)
    root = os.getcwd()
    checked = {}
    for path in args.inputs:
        python = tool(args.binary, "schema", "--format", "python", path)
        namespace = {}
        exec(compile(python, f"<schema of {path}>", "exec"), namespace)
        report = json.loads(tool(args.binary, "schema", "--format", "json", path))
        files = files_of(args.binary, path)
        parsed = parse_all(files, namespace)
        if parsed != report["records"]:
            raise SystemExit(f"{path}: parsed {parsed} records, the spec says {report['records']}")
        tfdv = tool(args.binary, "schema", "--format", "tfdv", path)
        features = check_tfdv(tfdv, report)
        name = os.path.relpath(path, root)
        checked[name] = {
            "records": report["records"],
            "parsed": parsed,
            "python": python,
            "tfdv": tfdv,
            "tfdv_features": features,
        }
        print(f"{name}: {parsed} records parsed, {features} TFDV features", file=sys.stderr)
    golden = {
        "tensorflow": tf.__version__,
        "tensorflow_metadata": importlib.metadata.version("tensorflow-metadata"),
        "inputs": checked,
    }
    with open(args.golden, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
