"""Writes testdata/encode_goldens.json: for each protobuf scalar type and a few values, the bytes
Python protobuf serializes for a proto2 field 1 of that type, without the tag, which
`tfr-inspect encode --type TYPE VALUE` must print; and for a few tags the bytes of the tag.

Usage: python scripts/encode_goldens.py [OUT]   (needs `pip install protobuf`)
The message type is built from a descriptor here, so no protoc is needed.
"""
import json, math, sys
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

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
    with open(out, "w") as fh:
        json.dump({"scalars": scalars, "tags": tags}, fh, indent=1, ensure_ascii=False)
        fh.write("\n")

if __name__ == "__main__":
    main()
