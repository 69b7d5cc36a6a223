#!/bin/sh
# Builds fuzz/corpus/<target>/ seed directories from the fixtures in testdata/.
# The corpora are not committed (see .gitignore): rerun this script before `cargo fuzz run`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
testdata="$here/../testdata"
corpus="$here/corpus"
mkdir -p "$corpus/frame_index" "$corpus/wire_walk" "$corpus/example_view" \
    "$corpus/image_detect" "$corpus/decompress" "$corpus/user_schema" "$corpus/features_json" \
    "$corpus/dataset_info" "$corpus/labels"

python3 - "$testdata" "$corpus" <<'PY'
import glob, gzip, hashlib, os, struct, sys, zlib

testdata, corpus = sys.argv[1], sys.argv[2]

def put(target, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data)

def payloads(data):
    """Payloads of the frames a plain reader finds from the start (stops at damage)."""
    pos = 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        end = pos + 12 + length + 4
        if end > len(data):
            break
        yield data[pos + 12 : pos + 12 + length]
        pos = end

files = sorted(glob.glob(os.path.join(testdata, "*.tfrecord")) +
               glob.glob(os.path.join(testdata, "corrupt", "*.tfrecord")))
for path in files:
    data = open(path, "rb").read()
    # Whole files up to 64 KiB; the head of larger ones.
    put("frame_index", data[:65536])
    if data[:2] in (b"\x1f\x8b", b"\x78\x9c", b"\x78\x01", b"\x78\xda"):
        put("decompress", data)
        continue
    for i, p in enumerate(payloads(data)):
        if i >= 12:
            break
        put("wire_walk", p)
        put("example_view", p)
        # Images inside payloads: PNG up to IEND, JPEG up to EOI.
        start = p.find(b"\x89PNG\r\n\x1a\n")
        if start >= 0:
            end = p.find(b"IEND", start)
            put("image_detect", p[start : end + 8 if end >= 0 else len(p)])
        start = p.find(b"\xff\xd8\xff")
        if start >= 0:
            end = p.find(b"\xff\xd9", start)
            put("image_detect", p[start : end + 2 if end >= 0 else len(p)])
        if len(p) in (784, 3072) or i < 2:
            put("image_detect", p)
        if i < 3:
            put("decompress", gzip.compress(p, mtime=0))
            put("decompress", zlib.compress(p))

# User schemas: a mode byte (even: .proto text, odd: a binary FileDescriptorSet), then the file.
protos = sorted(glob.glob(os.path.join(testdata, "realworld", "user_protos", "**", "*.proto"),
                          recursive=True) +
                glob.glob(os.path.join(testdata, "..", "proto", "**", "*.proto"), recursive=True))
sets = sorted(glob.glob(os.path.join(testdata, "realworld", "**", "*.pb"), recursive=True))
for path in protos:
    put("user_schema", b"\x00" + open(path, "rb").read())
for path in sets:
    put("user_schema", b"\x01" + open(path, "rb").read())

# tensorflow-datasets metadata: features.json (with a labels file after a 0 byte), the
# dataset_info.json, and the labels files.
for info in glob.glob(os.path.join(testdata, "realworld", "tfds", "*", "*", "dataset_info.json")):
    d = os.path.dirname(info)
    put("dataset_info", open(info, "rb").read())
    labels = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(d, "*.labels.txt")))]
    for l in labels:
        put("labels", l)
        put("labels", l.replace(b"\n", b"\r\n") + b"caf\xe9\n")
    features = os.path.join(d, "features.json")
    if os.path.exists(features):
        f = open(features, "rb").read()
        put("features_json", f)
        for l in labels:
            put("features_json", f + b"\0" + l)
PY
for target in frame_index wire_walk example_view image_detect decompress user_schema \
    features_json dataset_info labels; do
    echo "$target: $(ls "$corpus/$target" | wc -l) seeds"
done
