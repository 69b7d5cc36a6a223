#!/usr/bin/env python3
"""`stats --format tfdv` read by tensorflow_metadata's own statistics_pb2.

Writes the TFDV statistics of each input with `tfr-inspect stats --format tfdv -o`, parses them
with `DatasetFeatureStatisticsList.FromString` (Python protobuf and the message classes
tensorflow-metadata ships, which TFDV's `load_statistics` and Facets use), and checks that they
hold what `stats --json` reports: splits, record counts, feature names and types, presence, values
per record, numeric moments, extremes, median and histograms, distinct and frequent values.
Fails on the first difference.

Needs `pip install protobuf tensorflow-metadata` (not TensorFlow). Usage:
python3 scripts/tfdv_check.py --binary target/debug/tfr-inspect INPUT...
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from tensorflow_metadata.proto.v0 import statistics_pb2

TYPES = statistics_pb2.FeatureNameStatistics.Type


def close(got, want, what, f32=False):
    """`got` equals `want` (as float32 when the field is one), to a rounding of JSON's text."""
    if f32:
        import struct
        want = struct.unpack("f", struct.pack("f", want))[0]
    if got == want or abs(got - want) <= 1e-12 * abs(want):
        return
    raise SystemExit(f"{what}: {got!r} != {want!r}")


def same(got, want, what):
    if got != want:
        raise SystemExit(f"{what}: {got!r} != {want!r}")


def check(binary, inputs):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stats.pb")
        # Damage found (exit 1) still gives the statistics of what was read.
        done = subprocess.run([binary, "stats", "--format", "tfdv", "-o", out, *inputs],
                              stderr=subprocess.DEVNULL)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{inputs}: stats --format tfdv exited {done.returncode}")
        with open(out, "rb") as f:
            stats = statistics_pb2.DatasetFeatureStatisticsList.FromString(f.read())
    report = json.loads(subprocess.run([binary, "stats", "--json", *inputs],
                                       capture_output=True).stdout)
    same(len(stats.datasets), len(report["splits"]), "splits")
    features = 0
    for dataset, split in zip(stats.datasets, report["splits"]):
        where = split["name"]
        same(dataset.name, split["name"], "split name")
        same(dataset.num_examples, split["records"], f"{where}: num_examples")
        same(len(dataset.features), len(split["features"]), f"{where}: features")
        for feature, fig in zip(dataset.features, split["features"]):
            what = f"{where}/{fig['feature']}"
            features += 1
            same(feature.name, fig["feature"], "name")
            kind = TYPES.Name(feature.type)
            stats_field = feature.WhichOneof("stats")
            same(stats_field, {"INT": "num_stats", "FLOAT": "num_stats", "STRING": "string_stats",
                               "BYTES": "bytes_stats"}[kind], f"{what}: stats")
            stats_msg = getattr(feature, stats_field)
            common = stats_msg.common_stats
            same(common.num_non_missing, fig["present"], f"{what}: num_non_missing")
            same(common.num_missing, split["records"] - fig["present"], f"{what}: num_missing")
            per = fig["values_per_record"]
            same(common.min_num_values, per["min"], f"{what}: min_num_values")
            same(common.max_num_values, per["max"], f"{what}: max_num_values")
            close(common.avg_num_values, per["mean"], f"{what}: avg_num_values", f32=True)
            numeric = fig.get("numeric")
            if numeric:
                same(fig["kind"] in ("int64", "float", "bool"), True, f"{what}: kind")
                same(kind, "FLOAT" if fig["kind"] == "float" else "INT", f"{what}: type")
                close(stats_msg.mean, numeric["mean"], f"{what}: mean")
                close(stats_msg.std_dev, numeric["std"], f"{what}: std_dev")
                same(stats_msg.num_zeros, numeric["zeros"], f"{what}: num_zeros")
                if numeric["min"] is not None:
                    close(stats_msg.min, numeric["min"], f"{what}: min")
                    close(stats_msg.max, numeric["max"], f"{what}: max")
                if "quantiles" in numeric:
                    close(stats_msg.median, numeric["quantiles"]["median"], f"{what}: median")
                if "histogram" in numeric:
                    standard = stats_msg.histograms[0]
                    same(standard.type, statistics_pb2.Histogram.STANDARD, f"{what}: type")
                    same([b.sample_count for b in standard.buckets],
                         [float(c) for c in numeric["histogram"]["counts"]], f"{what}: buckets")
                    close(standard.buckets[0].low_value, numeric["histogram"]["low"], f"{what}: low")
                    close(standard.buckets[-1].high_value, numeric["histogram"]["high"],
                          f"{what}: high")
                    same(standard.num_nan, numeric["nan"], f"{what}: num_nan")
            data = fig.get("bytes")
            if data:
                same(stats_msg.unique, data["distinct"], f"{what}: unique")
                if kind == "STRING":
                    close(stats_msg.avg_length, data["length"]["mean"], f"{what}: avg_length",
                          f32=True)
                    same([(v.value, v.frequency) for v in stats_msg.top_values],
                         [(t["value"], float(t["count"])) for t in data["top"]], f"{what}: top")
                    same([b.label for b in stats_msg.rank_histogram.buckets],
                         [t["value"] for t in data["top"]], f"{what}: rank_histogram")
                else:
                    close(stats_msg.max_num_bytes, data["length"]["max"], f"{what}: max bytes",
                          f32=True)
    return features


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/debug/tfr-inspect")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()
    total = 0
    for path in args.inputs:
        total += check(args.binary, [path])
    print(f"tfdv: {len(args.inputs)} inputs, {total} features read by statistics_pb2 as stats --json says")


if __name__ == "__main__":
    sys.exit(main())
