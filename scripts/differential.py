#!/usr/bin/env python3
"""Differential check against Python protobuf.

Random Examples and SequenceExamples (NaN, inf, -0.0, subnormal and extreme floats, extreme int64s,
empty lists, keys with quotes, tabs and non-ASCII characters) are written with TensorFlow's
TFRecordWriter; `tfr-inspect show --format text|json` must print exactly what
text_format.MessageToString and json_format.MessageToJson print for them.

Needs TensorFlow (pip install tensorflow-cpu). Usage: python3 scripts/differential.py [SEEDS]
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

import tensorflow as tf
from google.protobuf import json_format, text_format

SPECIAL_FLOATS = [float("inf"), float("-inf"), -0.0, 0.0, 1e-45, 3.4028235e38, 1e-5, 1e16, 123456789.0]
KEY_ALPHABET = "abcXYZ/_. é☕\t\"\\'"


def random_float():
    roll = random.random()
    if roll < 0.05:
        return float("nan")
    if roll < 0.1:
        return random.choice(SPECIAL_FLOATS)
    value = random.gauss(0, 1) if roll < 0.5 else random.uniform(-1e6, 1e6) * 10 ** random.randint(-12, 12)
    return struct.unpack("<f", struct.pack("<f", value))[0]


def random_key():
    return "".join(random.choice(KEY_ALPHABET) for _ in range(random.randint(0, 8)))


def random_feature():
    feature = tf.train.Feature()
    count = random.randint(0, 5)
    kind = random.randint(0, 3)
    if kind == 0:
        values = [bytes(random.randint(0, 255) for _ in range(random.randint(0, 12))) for _ in range(count)]
        feature.bytes_list.value.extend(values)
    elif kind == 1:
        feature.float_list.value.extend(random_float() for _ in range(count))
        feature.float_list.SetInParent()
    elif kind == 2:
        choices = [0, -1, 2**63 - 1, -(2**63)]
        values = [random.choice(choices) if random.random() < 0.5 else random.randint(-10**12, 10**12) for _ in range(count)]
        feature.int64_list.value.extend(values)
    return feature


def random_message(sequence):
    if sequence:
        message = tf.train.SequenceExample()
        for _ in range(random.randint(0, 3)):
            message.context.feature[random_key()].CopyFrom(random_feature())
        for _ in range(random.randint(0, 3)):
            feature_list = message.feature_lists.feature_list[random_key()]
            for _ in range(random.randint(0, 3)):
                feature_list.feature.add().CopyFrom(random_feature())
        return message
    message = tf.train.Example()
    for _ in range(random.randint(0, 5)):
        message.features.feature[random_key()].CopyFrom(random_feature())
    return message


def write_case(seed, sequence, path):
    """Writes 300 random records; returns the expected text and JSON outputs."""
    random.seed(seed)
    messages = [random_message(sequence) for _ in range(300)]
    with tf.io.TFRecordWriter(path) as writer:
        for message in messages:
            writer.write(message.SerializeToString())
    text = "".join(f"# record {i}\n" + text_format.MessageToString(m) for i, m in enumerate(messages))
    jsonl = "".join(json_format.MessageToJson(m, indent=None, sort_keys=True) + "\n" for m in messages)
    return text, jsonl


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run(["cargo", "build", "-q"], cwd=root, check=True)
    binary = os.path.join(root, "target", "debug", "tfr-inspect")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "random.tfrecord")
        for seed in range(seeds):
            for sequence in (False, True):
                expected = dict(zip(("text", "json"), write_case(seed, sequence, path)))
                for fmt, want in expected.items():
                    ours = subprocess.run([binary, "show", path, "--format", fmt], capture_output=True, text=True).stdout
                    if ours == want:
                        passed += 1
                    else:
                        failed += 1
                        kind = "SequenceExample" if sequence else "Example"
                        print(f"seed {seed} {kind} --format {fmt}: differs from Python protobuf")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
