"""Writes testdata/compare_goldens.json and testdata/compare/pairs.tfrecord: pairs of encodings, each parsed by Python protobuf as its
message type, with whether the two parse to equal messages (`a == b` after `ParseFromString`).
`tfr-inspect hex --compare` must reach the same verdict for each pair; the Rust builders in
crates/tfr-core/src/crafted.rs (`compare_pairs`) build the same bytes, which the tests check.

The TFRecord holds each pair as two records (pair i is records 2i and 2i+1), written by
TensorFlow's TFRecordWriter, for the README's `hex --compare` example.

Usage: python scripts/compare_goldens.py [OUT]   (needs `pip install tensorflow-cpu` for the
tensorflow.Example and tensorflow.TensorProto classes)
"""
import json, sys

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def ld(field, body):
    return varint(field << 3 | 2) + varint(len(body)) + body

def entry(key, feature):
    return ld(1, ld(1, key.encode()) + ld(2, feature))

def int64s_packed(*values):
    return ld(3, ld(1, b"".join(varint(v) for v in values)))

def int64s_unpacked(*values):
    return ld(3, b"".join(varint(1 << 3) + varint(v) for v in values))

def example(*entries):
    return ld(1, b"".join(entries))

A = entry("a", int64s_packed(1))
B = entry("b", int64s_packed(2))
SHAPE = ld(2, ld(2, bytes([0x08, 0x03])))  # TensorProto.tensor_shape { dim { size: 3 } }
DTYPE = bytes([0x08, 0x01])                # TensorProto.dtype = DT_FLOAT
INTS = ld(7, bytes([0x05]))                # TensorProto.int_val = [5]

PAIRS = [
    ("field_order", "tensorflow.TensorProto", DTYPE + SHAPE + INTS, INTS + DTYPE + SHAPE),
    ("packed_vs_unpacked", "tensorflow.Example",
     example(entry("x", int64s_packed(1, 2, 3))), example(entry("x", int64s_unpacked(1, 2, 3)))),
    ("packed_split", "tensorflow.Example",
     example(entry("x", ld(3, ld(1, bytes([1, 2])) + ld(1, bytes([3]))))),
     example(entry("x", int64s_packed(1, 2, 3)))),
    ("message_pieces", "tensorflow.Example", ld(1, A) + ld(1, B), example(A, B)),
    ("map_order", "tensorflow.Example", example(A, B), example(B, A)),
    ("non_minimal_varint", "tensorflow.TensorProto", bytes([0x08, 0x96, 0x81, 0x00]), bytes([0x08, 0x96, 0x01])),
    ("different_value", "tensorflow.Example",
     example(entry("x", int64s_packed(7))), example(entry("x", int64s_packed(8)))),
    ("unknown_field_in_one", "tensorflow.Example", example(A) + bytes([0x98, 0x06, 0x01]), example(A)),
    ("unknown_fields_reordered", "tensorflow.Example",
     example(A) + bytes([0x98, 0x06, 0x01, 0xa0, 0x06, 0x02]),
     example(A) + bytes([0xa0, 0x06, 0x02, 0x98, 0x06, 0x01])),
    ("last_occurrence_wins", "tensorflow.TensorProto", bytes([0x08, 0x01, 0x08, 0x03]), bytes([0x08, 0x03])),
    ("last_occurrence_differs", "tensorflow.TensorProto", bytes([0x08, 0x03, 0x08, 0x01]), bytes([0x08, 0x03])),
    ("map_key_repeated_last_wins", "tensorflow.Example",
     example(entry("a", int64s_packed(9)), A), example(A)),
]

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "testdata/compare_goldens.json"
    from tensorflow.core.example import example_pb2
    from tensorflow.core.framework import tensor_pb2
    classes = {"tensorflow.Example": example_pb2.Example, "tensorflow.TensorProto": tensor_pb2.TensorProto}
    from google.protobuf import __version__ as version
    rows = []
    for name, message, a, b in PAIRS:
        x, y = classes[message](), classes[message]()
        x.ParseFromString(a)
        y.ParseFromString(b)
        rows.append({"name": name, "message": message, "a": a.hex(" "), "b": b.hex(" "), "same": x == y})
    import os
    import tensorflow as tf
    records = os.path.join(os.path.dirname(out), "compare", "pairs.tfrecord")
    os.makedirs(os.path.dirname(records), exist_ok=True)
    with tf.io.TFRecordWriter(records) as writer:
        for _, _, a, b in PAIRS:
            writer.write(a)
            writer.write(b)
    with open(out, "w") as f:
        json.dump({"protobuf": version, "pairs": rows}, f, indent=1)
        f.write("\n")

if __name__ == "__main__":
    main()
