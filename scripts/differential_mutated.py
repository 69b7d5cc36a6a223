#!/usr/bin/env python3
"""Differential test of `show --format text|json` against Python protobuf, on mutated payloads.

Random tf.train.Example and tf.train.SequenceExample payloads are encoded by hand (so they can
hold what a well-behaved writer never produces: keys with control characters or invalid UTF-8,
unpacked and packed floats mixed, overlong varints, duplicate keys, two members of a oneof,
unknown fields), then mutated (bit flips, inserted, deleted and duplicated byte runs, overwritten
bytes, truncation), framed into a TFRecord file and read back by `tfr-inspect show --message
tensorflow.Example|tensorflow.SequenceExample --format text|json`, and the Examples again
without `--message`, as users read them.

Record by record: when Python parses the payload, our output must equal what
`text_format.MessageToString` and `json_format.MessageToJson(indent=None, sort_keys=True)` print;
when Python rejects it, tfr-inspect must reject it too (a "not a valid" note on stderr, and
`"parses_as_message": false` in JSON).

Needs only `pip install protobuf==7.36.2` (scripts/requirements-differential.txt); the message
classes are built from descriptors written out below, so neither TensorFlow nor protoc is needed.
Exits 1 when any difference is found.

Usage: differential_mutated.py [--count N] [--seed S] [--binary PATH] [--examples K]
"""
import argparse
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
from collections import defaultdict

from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message_factory,
    text_format,
    unknown_fields,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --- Message classes, from the same definitions as proto/tensorflow/core/example/*.proto --------

TYPE_FLOAT, TYPE_INT64, TYPE_STRING, TYPE_MESSAGE, TYPE_BYTES = 2, 3, 9, 11, 12
OPTIONAL, REPEATED = 1, 3


def _field(message, name, number, kind, label=OPTIONAL, type_name=None, packed=False, oneof=None):
    field = message.field.add(name=name, number=number, type=kind, label=label)
    if type_name:
        field.type_name = type_name
    if packed:
        field.options.packed = True
    if oneof is not None:
        field.oneof_index = oneof


def _map(message, name, value_type):
    entry_name = "".join(part.capitalize() for part in name.split("_")) + "Entry"
    entry = message.nested_type.add(name=entry_name)
    entry.options.map_entry = True
    _field(entry, "key", 1, TYPE_STRING)
    _field(entry, "value", 2, TYPE_MESSAGE, type_name=value_type)
    _field(message, name, 1, TYPE_MESSAGE, REPEATED, f"{message_path(message)}.{entry_name}")


def message_path(message):
    return f".tensorflow.{message.name}"


def feature_file():
    file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/feature.proto", package="tensorflow", syntax="proto3"
    )
    bytes_list = file.message_type.add(name="BytesList")
    _field(bytes_list, "value", 1, TYPE_BYTES, REPEATED)
    float_list = file.message_type.add(name="FloatList")
    _field(float_list, "value", 1, TYPE_FLOAT, REPEATED, packed=True)
    int64_list = file.message_type.add(name="Int64List")
    _field(int64_list, "value", 1, TYPE_INT64, REPEATED, packed=True)
    feature = file.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    _field(feature, "bytes_list", 1, TYPE_MESSAGE, type_name=".tensorflow.BytesList", oneof=0)
    _field(feature, "float_list", 2, TYPE_MESSAGE, type_name=".tensorflow.FloatList", oneof=0)
    _field(feature, "int64_list", 3, TYPE_MESSAGE, type_name=".tensorflow.Int64List", oneof=0)
    features = file.message_type.add(name="Features")
    _map(features, "feature", ".tensorflow.Feature")
    feature_list = file.message_type.add(name="FeatureList")
    _field(feature_list, "feature", 1, TYPE_MESSAGE, REPEATED, ".tensorflow.Feature")
    feature_lists = file.message_type.add(name="FeatureLists")
    _map(feature_lists, "feature_list", ".tensorflow.FeatureList")
    return file


def example_file():
    file = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/example.proto",
        package="tensorflow",
        syntax="proto3",
        dependency=["tensorflow/core/example/feature.proto"],
    )
    example = file.message_type.add(name="Example")
    _field(example, "features", 1, TYPE_MESSAGE, type_name=".tensorflow.Features")
    sequence = file.message_type.add(name="SequenceExample")
    _field(sequence, "context", 1, TYPE_MESSAGE, type_name=".tensorflow.Features")
    _field(sequence, "feature_lists", 2, TYPE_MESSAGE, type_name=".tensorflow.FeatureLists")
    return file


def message_classes():
    pool = descriptor_pool.DescriptorPool()
    pool.Add(feature_file())
    pool.Add(example_file())
    get = lambda name: message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
    return {
        "tensorflow.Example": get("tensorflow.Example"),
        "tensorflow.SequenceExample": get("tensorflow.SequenceExample"),
    }


# --- Hand encoding, so payloads can hold what a serializer never writes -------------------------

WIRE_VARINT, WIRE_64, WIRE_LEN, WIRE_32 = 0, 1, 2, 5


def varint(value, rng=None, limit=10):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            break
    # Now and then an overlong encoding. Parsers accept up to 10 bytes for a value but only 5
    # for a tag or a length; `limit` says which this is.
    if rng is not None and rng.random() < 0.03 and len(out) < limit:
        width = rng.randint(len(out) + 1, limit if rng.random() < 0.9 else 10)
        out[-1] |= 0x80
        out.extend(b"\x80" * (width - 1 - len(out)))
        out.append(0)
    return bytes(out)


def tag(number, wire, rng=None):
    return varint(number << 3 | wire, rng, limit=5)


def length_delimited(number, data, rng=None):
    return tag(number, WIRE_LEN, rng) + varint(len(data), rng, limit=5) + data


SPECIAL_FLOATS = [
    float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38,
    3.4028235e38, -3.4028235e38, 1e-5, 1e-4, 1e16, 1e15, 0.1, 123456789.0, 2.5, -1.0,
]
FLOAT_BIT_PATTERNS = [0x7FC00001, 0xFFC00000, 0x7F800001, 0x00000001, 0x807FFFFF, 0x80000000]
SPECIAL_INT64S = [0, 1, -1, 2**63 - 1, -(2**63), 2**31, -(2**31) - 1, 2**53 + 1, 127, 128]
KEY_PIECES = [
    "a", "b", "Z", "0", "/", "_", ".", " ", "label", "image/encoded", "é", "☕", "😀", "名",
    '"', "'", "\\", "\t", "\n", "\r", "\x00", "\x01", "\x1b", "\x1b]2;x\x07", "\x7f", "\x85",
    "\x9b", "\u00a0", "\u202e", "\u2028", "\u2066", "\ufeff",
]
INVALID_UTF8 = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\x80", b"\xf4\x90\x80\x80"]


def random_key(rng):
    key = "".join(rng.choice(KEY_PIECES) for _ in range(rng.randint(0, 5))).encode()
    if rng.random() < 0.05:
        at = rng.randint(0, len(key))
        key = key[:at] + rng.choice(INVALID_UTF8) + key[at:]
    return key


def random_bytes_value(rng):
    roll = rng.random()
    if roll < 0.4:
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 12)))
    if roll < 0.8:
        return random_key(rng)
    return rng.choice([b"", b"cat", b"\x89PNG\r\n\x1a\n", "naïve ☕".encode()])


def random_float_bits(rng):
    roll = rng.random()
    if roll < 0.1:
        return struct.pack("<I", rng.choice(FLOAT_BIT_PATTERNS))
    if roll < 0.35:
        return struct.pack("<f", rng.choice(SPECIAL_FLOATS))
    if roll < 0.5:
        return struct.pack("<I", rng.getrandbits(32))
    value = rng.gauss(0, 1) if roll < 0.75 else rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-30, 30)
    try:
        return struct.pack("<f", value)
    except OverflowError:
        return struct.pack("<f", float("inf"))


def random_int64(rng):
    if rng.random() < 0.4:
        return rng.choice(SPECIAL_INT64S)
    return rng.randint(-(10**12), 10**12)


def bytes_list(rng, count):
    return b"".join(length_delimited(1, random_bytes_value(rng), rng) for _ in range(count))


def float_list(rng, count):
    values = [random_float_bits(rng) for _ in range(count)]
    if rng.random() < 0.7:
        return length_delimited(1, b"".join(values), rng) if values or rng.random() < 0.5 else b""
    return b"".join(tag(1, WIRE_32, rng) + v for v in values)


def int64_list(rng, count):
    values = [varint(random_int64(rng), rng) for _ in range(count)]
    if rng.random() < 0.7:
        return length_delimited(1, b"".join(values), rng) if values or rng.random() < 0.5 else b""
    return b"".join(tag(1, WIRE_VARINT, rng) + v for v in values)


def unknown_field(rng):
    number = rng.choice([4, 5, 9, 15, 16, 100, 536870911])
    wire = rng.choice([WIRE_VARINT, WIRE_64, WIRE_LEN, WIRE_32])
    body = {
        WIRE_VARINT: lambda: varint(random_int64(rng)),
        WIRE_64: lambda: bytes(rng.randint(0, 255) for _ in range(8)),
        WIRE_LEN: lambda: varint(3) + b"abc",
        WIRE_32: lambda: bytes(rng.randint(0, 255) for _ in range(4)),
    }[wire]()
    return tag(number, wire) + body


def random_feature(rng):
    out = b""
    for _ in range(rng.choice([1, 1, 1, 1, 1, 1, 0, 2])):  # none, or two oneof members
        count = rng.randint(0, 6)
        kind = rng.randint(1, 3)
        body = (bytes_list, float_list, int64_list)[kind - 1](rng, count)
        out += length_delimited(kind, body, rng)
    if rng.random() < 0.03:
        out += unknown_field(rng)
    return out


def map_entry(rng, key, value):
    parts = []
    if rng.random() < 0.95:
        parts.append(length_delimited(1, key, rng))
    if rng.random() < 0.95:
        parts.append(length_delimited(2, value, rng))
    if rng.random() < 0.1:
        parts.reverse()
    if rng.random() < 0.02:
        parts.append(unknown_field(rng))
    return length_delimited(1, b"".join(parts), rng)


def random_features(rng):
    keys = [random_key(rng) for _ in range(rng.randint(0, 6))]
    if keys and rng.random() < 0.1:
        keys.append(rng.choice(keys))  # a duplicate key: the last entry wins
    out = b"".join(map_entry(rng, key, random_feature(rng)) for key in keys)
    if rng.random() < 0.03:
        out += unknown_field(rng)
    return out


def random_feature_lists(rng):
    out = b""
    for _ in range(rng.randint(0, 4)):
        features = b"".join(
            length_delimited(1, random_feature(rng), rng) for _ in range(rng.randint(0, 4))
        )
        out += map_entry(rng, random_key(rng), features)
    return out


def random_example(rng):
    out = b""
    for _ in range(rng.choice([1, 1, 1, 1, 0, 2])):  # repeated occurrences are merged
        out += length_delimited(1, random_features(rng), rng)
    if rng.random() < 0.03:
        out += unknown_field(rng)
    return out


def random_sequence_example(rng):
    parts = []
    if rng.random() < 0.85:
        parts.append(length_delimited(1, random_features(rng), rng))
    if rng.random() < 0.85:
        parts.append(length_delimited(2, random_feature_lists(rng), rng))
    if rng.random() < 0.1:
        parts.reverse()
    if rng.random() < 0.03:
        parts.append(unknown_field(rng))
    return b"".join(parts)


# --- Mutations ----------------------------------------------------------------------------------


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        operation = rng.choice(["flip", "flip", "insert", "delete", "duplicate", "set", "truncate"])
        at = rng.randint(0, len(data))
        run = rng.randint(1, 4)
        if operation == "flip" and data:
            at = min(at, len(data) - 1)
            data[at] ^= 1 << rng.randint(0, 7)
        elif operation == "insert":
            data[at:at] = bytes(rng.choice([0x00, 0x1B, 0x7F, 0x80, 0xFF, rng.randint(0, 255)])
                                for _ in range(run))
        elif operation == "delete":
            del data[at:at + run]
        elif operation == "duplicate":
            data[at:at] = data[at:at + run]
        elif operation == "set" and data:
            at = min(at, len(data) - 1)
            data[at] = rng.choice([0x00, 0x08, 0x0A, 0x12, 0x1A, 0x7F, 0x80, 0xFF])
        elif operation == "truncate":
            del data[at:]
    return bytes(data)


def payloads(rng, generate, count):
    """`count` payloads; a quarter are left intact so accepted records stay common."""
    out = []
    for _ in range(count):
        payload = generate(rng)
        out.append(payload if rng.random() < 0.25 else mutate(rng, payload))
    return out


def written_examples(rng, cls, count):
    """`count` Examples built and serialized by Python protobuf, laid out as writers lay them out:
    one map entry per feature, each list packed (the layout read without a tree)."""
    out = []
    for _ in range(count):
        example = cls()
        for _ in range(rng.randint(1, 6)):
            key = random_key(rng).decode("utf-8", "replace")
            feature = example.features.feature[key]
            count = rng.randint(1, 4)
            kind = rng.randrange(3)
            if kind == 0:
                feature.bytes_list.value.extend(random_bytes_value(rng) for _ in range(count))
            elif kind == 1:
                floats = b"".join(random_float_bits(rng) for _ in range(count))
                feature.float_list.value.extend(struct.unpack(f"<{count}f", floats))
            else:
                feature.int64_list.value.extend(
                    max(-(2**63), min(2**63 - 1, random_int64(rng))) for _ in range(count))
        out.append(example.SerializeToString())
    return out


# --- TFRecord framing ---------------------------------------------------------------------------


def _crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC32C_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    table = CRC32C_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord(records):
    out = bytearray()
    for payload in records:
        header = struct.pack("<Q", len(payload))
        out += header + struct.pack("<I", masked_crc32c(header))
        out += payload + struct.pack("<I", masked_crc32c(payload))
    return bytes(out)


# --- Python's verdict and ours ------------------------------------------------------------------


def python_view(cls, payload):
    """(message, text, json) as Python parses and prints the payload, or None when Python
    rejects it."""
    try:
        message = cls.FromString(payload)
    except Exception:  # DecodeError, or anything else upb raises for bytes it refuses
        return None
    return message, text_format.MessageToString(message), json_format.MessageToJson(
        message, indent=None, sort_keys=True
    )


def has_map_entry_in_unknown_fields(message):
    """Whether Python moved a map entry (field 1 of Features or FeatureLists) to unknown fields,
    which it does for entries carrying unknown fields of their own."""
    holders = []
    if message.DESCRIPTOR.name == "Example":
        holders.append(message.features)
    else:
        holders += [message.context, message.feature_lists]
    return any(
        any(field.field_number == 1 for field in unknown_fields.UnknownFieldSet(holder))
        for holder in holders
    )


# Which fields of each message hold a message, a string or something else: enough to say why
# Python refused a payload that tfr-inspect accepted.
SCHEMA = {
    "tensorflow.Example": {1: "Features"},
    "tensorflow.SequenceExample": {1: "Features", 2: "FeatureLists"},
    "Features": {1: "FeatureEntry"},
    "FeatureEntry": {1: "string", 2: "Feature"},
    "FeatureLists": {1: "FeatureListEntry"},
    "FeatureListEntry": {1: "string", 2: "FeatureList"},
    "FeatureList": {1: "Feature"},
    "Feature": {1: "BytesList", 2: "FloatList", 3: "Int64List"},
    "BytesList": {}, "FloatList": {}, "Int64List": {},
}


def read_varint(data, at):
    """(value, bytes used), or None when the varint runs past the end or beyond 10 bytes."""
    value = 0
    for used in range(1, 11):
        if at + used > len(data):
            return None
        value |= (data[at + used - 1] & 0x7F) << (7 * (used - 1))
        if data[at + used - 1] < 0x80:
            return value, used
    return None


def rejection_reason(data, message="tensorflow.Example", depth=0):
    """A guess at why a parser refuses `data`: the first suspicious thing in it, or None."""
    at = 0
    fields = SCHEMA.get(message, {})
    while at < len(data):
        tag = read_varint(data, at)
        if tag is None:
            return None
        if tag[1] > 5:
            return "a tag varint longer than 5 bytes"
        at += tag[1]
        number, wire = tag[0] >> 3, tag[0] & 7
        if wire != WIRE_LEN:
            skip = {WIRE_VARINT: None, WIRE_64: 8, WIRE_32: 4}.get(wire, -1)
            if skip is None:
                value = read_varint(data, at)
                if value is None:
                    return None
                at += value[1]
            elif skip < 0:
                return None
            else:
                at += skip
            continue
        length = read_varint(data, at)
        if length is None:
            return None
        if length[1] > 5:
            return "a length varint longer than 5 bytes"
        at += length[1]
        body = data[at:at + length[0]]
        at += length[0]
        kind = fields.get(number)
        if kind == "string":
            try:
                body.decode("utf-8")
            except UnicodeDecodeError:
                return "a key that is not UTF-8"
        elif kind is not None and depth < 20:
            inner = rejection_reason(body, kind, depth + 1)
            if inner:
                return inner
    return None


NOTE = re.compile(r": record (\d+): not a valid ")
HEADER = re.compile(r"^# record (\d+)\n", re.MULTILINE)


def run_tool(binary, message, fmt, path):
    """`show --format FMT` of the file read as `message`, or with the type of each record detected
    when `message` is None."""
    named = ["--message", message] if message else []
    result = subprocess.run(
        [binary, "show", "--format", fmt, *named, path],
        capture_output=True,
    )
    stderr = result.stderr.decode("utf-8", "replace")
    rejected = {int(m.group(1)) for m in NOTE.finditer(stderr)}
    failure = None
    if result.returncode not in (0, 1) or "panicked" in stderr:
        failure = f"exit {result.returncode}: {stderr[-2000:]}"
    return result.stdout.decode("utf-8", "surrogateescape"), rejected, failure


def run_both(binary, message, path, differences, label):
    """`show` of the file as text and as JSON: the text by record, the JSON lines, and the records
    each said it rejected; a run that failed is a difference (its category starts with `label`)."""
    text_out, text_rejected, text_failure = run_tool(binary, message, "text", path)
    json_out, json_rejected, json_failure = run_tool(binary, message, "json", path)
    named = message or "tensorflow.Example (detected)"
    for fmt, failure in (("text", text_failure), ("json", json_failure)):
        if failure:
            differences.add(f"{label}{fmt}: tfr-inspect failed", named, "-", b"", "", failure)
    return split_text(text_out), json_out.split("\n"), text_rejected, json_rejected


def split_text(stdout):
    """Our text output cut at the `# record N` lines (string values never hold a raw newline)."""
    pieces = HEADER.split(stdout)
    return {int(pieces[i]): pieces[i + 1] for i in range(1, len(pieces) - 1, 2)}


RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


class Differences:
    def __init__(self, shown):
        self.shown = shown
        self.by_category = defaultdict(list)

    def add(self, category, message, index, payload, python, ours):
        self.by_category[category].append((message, index, payload, python, ours))

    def records(self):
        return len({(case[0], case[1]) for cases in self.by_category.values() for case in cases})

    def total(self):
        return sum(len(cases) for cases in self.by_category.values())

    def report(self):
        for category, cases in sorted(self.by_category.items(), key=lambda kv: -len(kv[1])):
            print(f"\n{len(cases)} x {category}")
            for message, index, payload, python, ours in cases[: self.shown]:
                hexed = payload.hex()
                if len(hexed) > 400:
                    hexed = hexed[:400] + f"... ({len(payload)} bytes)"
                print(f"  {message} record {index}: payload {hexed}")
                print(f"    python: {python!r}")
                print(f"    ours:   {ours!r}")


def categorize(fmt, message, ours):
    if fmt == "text" and RAW_CONTROL.search(ours):
        return "text: control characters printed raw (Python writes octal escapes)"
    if has_map_entry_in_unknown_fields(message):
        return f"{fmt}: map entry with unknown fields (Python moves it to unknown fields)"
    return f"{fmt}: output differs"


def compare(binary, message_name, cls, records, directory, differences, counts, written=0):
    """`records` read as `message_name` against Python; of Examples, the last `written` are the
    ones Python serialized."""
    path = os.path.join(directory, message_name.split(".")[-1] + ".tfrecord")
    with open(path, "wb") as file:
        file.write(tfrecord(records))
    expected = [python_view(cls, payload) for payload in records]
    counts[message_name, "python accepts"] += sum(e is not None for e in expected)
    counts[message_name, "python rejects"] += sum(e is None for e in expected)
    texts, json_lines, text_rejected, json_rejected = run_both(
        binary, message_name, path, differences, ""
    )
    for index, (payload, want) in enumerate(zip(records, expected)):
        ours_text = texts.get(index)
        ours_json = json_lines[index] if index < len(json_lines) else None
        if want is None:
            reason = rejection_reason(payload, message_name) or "reason not found"
            if index not in text_rejected:
                differences.add(f"text: accepted what Python rejects ({reason})", message_name,
                                index, payload, "(rejected)", ours_text)
            if index not in json_rejected or '"parses_as_message": false' not in (ours_json or ""):
                differences.add(f"json: accepted what Python rejects ({reason})", message_name,
                                index, payload, "(rejected)", ours_json)
            continue
        message, want_text, want_json = want
        for fmt, rejected, ours, wanted in (
            ("text", text_rejected, ours_text, want_text),
            ("json", json_rejected, ours_json, want_json),
        ):
            if index in rejected:
                differences.add(f"{fmt}: rejected what Python accepts", message_name, index,
                                payload, wanted, ours)
            elif ours != wanted:
                differences.add(categorize(fmt, message, ours or ""), message_name, index,
                                payload, wanted, ours)
    if message_name == "tensorflow.Example":
        compare_detected(binary, records, expected, directory, differences, counts, written)


def compare_detected(binary, records, expected, directory, differences, counts, written):
    """The file of Examples read without `--message`, as users read it: each record `list --json`
    says is an Example must print what Python prints (that reading takes its own path for the
    records laid out the usual way, which a named type never takes), and Python must accept it.

    The file is learnt from its first records, and one of them that reads as a SequenceExample
    (a mutated Example can) makes it a file of SequenceExamples, in which no record is an
    Example: so the `written` Examples Python serialized (the last of `records`) come first, and
    records are numbered as this file holds them."""
    name = "tensorflow.Example (detected)"
    first = len(records) - written
    order = [*range(first, len(records)), *range(first)]
    records = [records[i] for i in order]
    expected = [expected[i] for i in order]
    path = os.path.join(directory, "detected.tfrecord")
    with open(path, "wb") as file:
        file.write(tfrecord(records))
    listed = subprocess.run([binary, "list", "--json", path], capture_output=True)
    kinds = [json.loads(line).get("kind") for line in listed.stdout.decode().splitlines()]
    if len(kinds) != len(records):
        differences.add("detected: list --json rows", name, "-", b"", len(records), len(kinds))
        return
    texts, json_lines, _, _ = run_both(binary, None, path, differences, "detected ")
    for index, (payload, want, kind) in enumerate(zip(records, expected, kinds)):
        if kind != "Example":
            continue
        counts[name, "compared"] += 1
        if want is None:
            reason = rejection_reason(payload) or "reason not found"
            differences.add(f"detected: an Example Python rejects ({reason})", name, index,
                            payload, "(rejected)", kind)
            continue
        _, want_text, want_json = want
        ours_json = json_lines[index] if index < len(json_lines) else None
        for fmt, ours, wanted in (("text", texts.get(index), want_text),
                                  ("json", ours_json, want_json)):
            if ours != wanted:
                differences.add(f"detected {fmt}: output differs", name, index, payload,
                                wanted, ours)
    if counts[name, "compared"] == 0:
        differences.add("detected: no record was read as an Example", name, "-", b"", "", "")


def find_binary(path):
    if path:
        return path
    binary = os.path.join(ROOT, "target", "release", "tfr-inspect")
    if not os.path.exists(binary):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    return binary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10000,
                        help="mutated Examples, and as many SequenceExamples (default 10000)")
    parser.add_argument("--seed", type=int, default=20240611, help="random seed (fixed by default)")
    parser.add_argument("--binary", help="tfr-inspect to test (default target/release)")
    parser.add_argument("--examples", type=int, default=3, help="cases shown per category")
    args = parser.parse_args()
    binary = find_binary(args.binary)
    rng = random.Random(args.seed)
    classes = message_classes()
    generators = {
        "tensorflow.Example": random_example,
        "tensorflow.SequenceExample": random_sequence_example,
    }
    differences = Differences(args.examples)
    counts = defaultdict(int)
    with tempfile.TemporaryDirectory() as directory:
        for name, generate in generators.items():
            records = payloads(rng, generate, args.count)
            written = 0
            if name == "tensorflow.Example":
                written = args.count // 2
                records += written_examples(rng, classes[name], written)
            compare(binary, name, classes[name], records, directory, differences, counts, written)
    print(f"seed {args.seed}: {args.count} Examples, {args.count // 2} more as Python writes them, "
          f"and {args.count} SequenceExamples, compared in text and JSON with {binary}")
    for name in generators:
        print(f"  {name}: Python parses {counts[name, 'python accepts']}, "
              f"rejects {counts[name, 'python rejects']}")
    print(f"  read without --message: {counts['tensorflow.Example (detected)', 'compared']} "
          "records taken for Examples, compared")
    compared = 2 * args.count + args.count // 2
    print(f"records compared: {compared} per format; differences: {differences.total()} "
          f"(in {differences.records()} records)")
    differences.report()
    sys.exit(1 if differences.total() else 0)


if __name__ == "__main__":
    main()
