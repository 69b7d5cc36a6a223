#!/usr/bin/env python3
"""Checks that every .proto under proto/ compiles (grpcio-tools' protoc, with its bundled
google/protobuf files, as `protoc -Iproto` would) and describes the same messages as the
descriptors compiled into the installed TensorFlow, TensorBoard and tensorflow-metadata packages.

Usage: python scripts/check_protos.py [PROTO_DIR]
Needs the venv of scripts/requirements-writers.txt (tensorflow-cpu, tensorboard,
tensorflow-metadata, grpcio-tools).
Compared: messages, fields (name, number, label, type, type name, oneof, packing), enums and
their values, reserved ranges and names; not compared: comments, file options, json names, and
the order of nested declarations (scripts/tf_protos.py writes those in its own order).
"""
import importlib
import os
import subprocess
import sys
import tempfile

import grpc_tools
from google.protobuf import descriptor_pb2, descriptor_pool

MODULES = [
    "tensorflow.core.example.example_pb2", "tensorflow.core.util.event_pb2",
    "tensorflow.core.framework.graph_pb2", "tensorflow.core.protobuf.struct_pb2",
    "tensorflow.core.protobuf.snapshot_pb2", "tensorflow.core.protobuf.config_pb2",
    "tensorboard.plugins.hparams.plugin_data_pb2", "tensorboard.plugins.custom_scalar.layout_pb2",
    "tensorboard.plugins.pr_curve.plugin_data_pb2", "tensorboard.plugins.audio.plugin_data_pb2",
    "tensorboard.plugins.text.plugin_data_pb2", "tensorboard.plugins.mesh.plugin_data_pb2",
    "tensorboard.plugins.histogram.plugin_data_pb2", "tensorboard.plugins.image.plugin_data_pb2",
    "tensorboard.plugins.scalar.plugin_data_pb2",
    "tensorflow_metadata.proto.v0.statistics_pb2",
]


def normalized_message(m):
    m.ClearField("options") if not m.options.map_entry else None
    for f in m.field:
        f.ClearField("json_name")
        packed = f.options.packed if f.options.HasField("packed") else None
        f.ClearField("options")
        if packed is not None:
            f.options.packed = packed
    for n in m.nested_type:
        normalized_message(n)
    for e in m.enum_type:
        e.ClearField("options")
    nested = sorted(m.nested_type, key=lambda n: n.name)
    enums = sorted(m.enum_type, key=lambda e: e.name)
    del m.nested_type[:]
    m.nested_type.extend(nested)
    del m.enum_type[:]
    m.enum_type.extend(enums)


def normalized(fdp):
    fdp.ClearField("options")
    fdp.ClearField("source_code_info")
    for m in fdp.message_type:
        normalized_message(m)
    for e in fdp.enum_type:
        e.ClearField("options")
    return fdp


def main():
    proto_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                                os.path.join(os.path.dirname(__file__), "..", "proto"))
    files = sorted(os.path.relpath(os.path.join(d, f), proto_dir)
                   for d, _, fs in os.walk(proto_dir) for f in fs if f.endswith(".proto"))
    bundled = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "set.pb")
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_dir}",
                        f"-I{bundled}", "--include_imports", f"--descriptor_set_out={out}",
                        *files], check=True)
        compiled = descriptor_pb2.FileDescriptorSet.FromString(open(out, "rb").read())
    for module in MODULES:
        importlib.import_module(module)
    pool = descriptor_pool.Default()
    failures = 0
    for fdp in compiled.file:
        if fdp.name.startswith("google/protobuf/"):
            continue
        reference = descriptor_pb2.FileDescriptorProto()
        pool.FindFileByName(fdp.name).CopyToProto(reference)
        same = normalized(reference) == normalized(fdp)
        failures += not same
        print(("same     " if same else "DIFFERENT"), fdp.name)
    print(f"{len(files)} files compiled, {failures} differ from the installed descriptors")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
