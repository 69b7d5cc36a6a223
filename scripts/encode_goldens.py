"""Writes testdata/encode_goldens.json: for each protobuf scalar type and a few values, the bytes
Python protobuf serializes for a proto2 field 1 of that type, without the tag, which
`tfr-inspect encode --type TYPE VALUE` must print; for a few tags the bytes of the tag; and for
whole messages given in text format (`text_format.Parse`), the bytes `SerializeToString` writes,
which `tfr-inspect encode --message TYPE --text TEXT` must print.

Usage: python scripts/encode_goldens.py [OUT]   (needs `pip install protobuf` and protoc on PATH)
The scalar types are built from descriptors here. The messages' types are the bundled .proto
files (proto/ and testdata/encode/), compiled by protoc into a descriptor set Python loads.
Each message case holds `hex`, written with deterministic=True (map entries in key order, as
tfr-inspect writes them). Python's default serialization writes a map's entries in the order of
its hash table, which changes from run to run, so it is not kept: it is only checked here to
hold the same bytes in another order.

Two orders of Python's (upb's) deterministic serialization are left out of the cases, because
they are its own: in a map with integer or bool keys, entries whose keys are small and not
negative (0, 3, false: upb keeps them in an array) come after the others, whatever their value
(C++ and tfr-inspect sort the keys by value, false before true); and two extensions come in
descending number order (its default serialization, C++ and tfr-inspect write them ascending).
"""
import json, math, os, subprocess, sys, tempfile
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

# (message type, .proto file or None for the built-in tensorflow protos, text)
EXAMPLE_PROTO = "proto/tensorflow/core/example/example.proto"
MESSAGES = [
    ("tensorflow.Example", EXAMPLE_PROTO,
     'features { feature { key: "label" value { int64_list { value: 7 } } } }'),
    ("tensorflow.Example", EXAMPLE_PROTO,
     'features {\n'
     '  feature { key: "zeta" value { int64_list { value: [-1, 0, 300] } } }\n'
     '  feature { key: "alpha" value { float_list { value: [25.4, -0.5, 1e-45] } } }\n'
     '  feature { key: "mid" value { bytes_list { value: ["h\\303\\251llo", "\\000\\377", ""] } } }\n'
     '  feature { key: "b" value { } }\n'
     '}'),
    ("tensorflow.Example", EXAMPLE_PROTO, ""),
    ("tensorflow.SequenceExample", EXAMPLE_PROTO,
     'context { feature { key: "length" value { int64_list { value: 2 } } } }\n'
     'feature_lists { feature_list { key: "tokens" value {\n'
     '  feature { int64_list { value: [3, 1] } }\n'
     '  feature { int64_list { value: [4] } }\n'
     '} } }'),
    ("lesson.Reading3", "testdata/encode/lesson3.proto",
     'temperature: -40 offset: -9223372036854775808 count: 18446744073709551615\n'
     'samples: [1, -1, 150, 0] deltas: [-1, 1, -150, 2147483647, -2147483648]\n'
     'path { x: -1 y: 2 } path { } path { y: -9223372036854775808 }\n'
     'tally { key: "b" value: 2 } tally { key: "a" value: -1 } tally { key: "c" value: 0 }\n'
     'by_id { key: 7 value { x: 3 } } by_id { key: -5 value { } }\n'
     'color: GREEN colors: [RED, COLOR_UNSPECIFIED, GREEN] maybe: 0\n'
     'name: "h\\303\\251" blob: "\\x00\\xff" ratio: -2.5 scale: 0.1 f32: 4294967295 sf64: -2\n'
     'flag: true at { x: 1 } tags: ["", "x"] weights: [1.5, -0.0]\n'
     'child { temperature: 1 child { name: "deep" samples: 5 } }\n'
     'switches { key: true value: "on" }'),
    ("lesson.Reading3", "testdata/encode/lesson3.proto",
     'temperature: 0 name: "" maybe: 0 label: "" flag: false ratio: 0'),
    ("lesson.Reading2", "testdata/encode/lesson2.proto",
     'temperature: 20 unpacked: [1, -1, 300] packed: [-1, 1, 0]\n'
     'Extra { note: "grouped" ids: [1, 18446744073709551615] } name: "two"\n'
     '[lesson.ext_note]: "outside"'),
    ("lesson.Reading2", "testdata/encode/lesson2.proto",
     'name: "first" [lesson.ext_values]: [-3, 4] temperature: -7'),
]

T = descriptor_pb2.FieldDescriptorProto
TYPES = {
    "int32": (T.TYPE_INT32, ["0", "1", "150", "-1", "-150", "2147483647", "-2147483648"]),
    "int64": (T.TYPE_INT64, ["0", "300", "-1", "9223372036854775807", "-9223372036854775808"]),
    "uint32": (T.TYPE_UINT32, ["0", "300", "4294967295"]),
    "uint64": (T.TYPE_UINT64, ["0", "300", "18446744073709551615"]),
    "sint32": (T.TYPE_SINT32, ["0", "-1", "1", "-150", "2147483647", "-2147483648"]),
    "sint64": (T.TYPE_SINT64, ["0", "-1", "-150", "9223372036854775807", "-9223372036854775808"]),
    "bool": (T.TYPE_BOOL, ["true", "false"]),
    "fixed32": (T.TYPE_FIXED32, ["0", "1", "4294967295"]),
    "fixed64": (T.TYPE_FIXED64, ["1", "18446744073709551615"]),
    "sfixed32": (T.TYPE_SFIXED32, ["-1", "-150", "2147483647"]),
    "sfixed64": (T.TYPE_SFIXED64, ["-1", "-9223372036854775808"]),
    "float": (T.TYPE_FLOAT, ["25.4", "0.1", "-2.5", "1e-45", "3.4028235e38", "inf", "-inf", "0"]),
    "double": (T.TYPE_DOUBLE, ["25.4", "0.1", "-2.5", "5e-324", "1.7976931348623157e308", "-inf"]),
    "string": (T.TYPE_STRING, ["", "hi", "héllo"]),
    "bytes": (T.TYPE_BYTES, ["abc"]),
}

def python_value(ty, text):
    if ty == "bool":
        return text == "true"
    if ty in ("float", "double"):
        return float(text)
    if ty == "bytes":
        return text.encode()
    if ty == "string":
        return text
    return int(text)

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "testdata/encode_goldens.json"
    fdp = descriptor_pb2.FileDescriptorProto(name="goldens.proto", package="g", syntax="proto2")
    for ty, (code, _) in TYPES.items():
        m = fdp.message_type.add(name="M_" + ty)
        m.field.add(name="v", number=1, type=code, label=T.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    scalars = []
    for ty, (_, values) in TYPES.items():
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("g.M_" + ty))
        for text in values:
            data = cls(v=python_value(ty, text)).SerializeToString()
            scalars.append({"type": ty, "value": text, "hex": data[1:].hex(" ")})
    # Tags: field 1 of each wire type's message serialized, its first bytes.
    tags = []
    for field, wire, ty in [(1, "VARINT", T.TYPE_INT64), (2, "LEN", T.TYPE_STRING), (15, "I32", T.TYPE_FLOAT),
                            (16, "I64", T.TYPE_DOUBLE), (536870911, "VARINT", T.TYPE_INT64)]:
        f = descriptor_pb2.FileDescriptorProto(name=f"tag{field}.proto", package="g", syntax="proto2")
        m = f.message_type.add(name=f"Tag{field}")
        m.field.add(name="v", number=field, type=ty, label=T.LABEL_OPTIONAL)
        pool.Add(f)
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"g.Tag{field}"))
        value = "" if ty == T.TYPE_STRING else 0
        data = cls(v=value).SerializeToString()
        tail = {T.TYPE_INT64: 1, T.TYPE_STRING: 1, T.TYPE_FLOAT: 4, T.TYPE_DOUBLE: 8}[ty]
        tags.append({"field": field, "wire": wire, "hex": data[:-tail].hex(" ")})
    messages = message_goldens()
    with open(out, "w") as fh:
        json.dump({"scalars": scalars, "tags": tags, "messages": messages}, fh, indent=1,
                  ensure_ascii=False)
        fh.write("\n")

def compiled(proto):
    """The FileDescriptorSet protoc writes for `proto`, imports included."""
    include = "proto" if proto.startswith("proto/") else os.path.dirname(proto)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "set.pb")
        subprocess.run(["protoc", "-I", include, "--include_imports",
                        "--descriptor_set_out=" + out, proto], check=True)
        with open(out, "rb") as fh:
            return descriptor_pb2.FileDescriptorSet.FromString(fh.read())

def message_goldens():
    pools = {}
    cases = []
    for name, proto, text in MESSAGES:
        if proto not in pools:
            pool = descriptor_pool.DescriptorPool()
            for fdp in compiled(proto).file:
                pool.Add(fdp)
            pools[proto] = pool
        cls = message_factory.GetMessageClass(pools[proto].FindMessageTypeByName(name))
        message = text_format.Parse(text, cls())
        ordered = message.SerializeToString(deterministic=True)
        assert sorted(ordered) == sorted(message.SerializeToString()), name
        cases.append({"message": name, "proto": proto, "text": text, "hex": ordered.hex(" ")})
    return cases

if __name__ == "__main__":
    main()
