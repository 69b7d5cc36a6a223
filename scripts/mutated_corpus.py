#!/usr/bin/env python3
"""Writes TFRecord files of damaged and unusual payloads, the same bytes on every run.

The payloads of testdata's Example, SequenceExample and MNIST files are mutated with a fixed seed
(bit flips, inserted, deleted and overwritten bytes, cut tails, repeated slices, keys holding
control characters), and a few hand-made map entries are added (an entry with an unknown field,
one without a key or a value, a key with the wrong wire type). Every frame has valid CRCs, so the
decoder sees every payload. `scripts/outputs.sh` runs the commands over these files to compare two
builds on far more shapes than the fixtures hold.

No dependencies beyond Python 3. Usage: mutated_corpus.py TESTDATA_DIR OUT_DIR
"""
import os
import random
import struct
import sys


def _crc_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload):
    length = struct.pack("<Q", len(payload))
    return length + struct.pack("<I", masked(length)) + payload + struct.pack("<I", masked(payload))


def payloads(path):
    data = open(path, "rb").read()
    pos = 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        yield data[pos + 12 : pos + 12 + length]
        pos += 16 + length


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def ld(field, body):
    return varint(field << 3 | 2) + varint(len(body)) + body


HOSTILE = [b"\x1b]2;owned\x07", b"a\rDAMAGED", b"\x7f", "\u202egpj".encode(), b"tab\tnl\n"]


def mutate(payload, rng):
    data = bytearray(payload)
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if not data:
            data.append(rng.randrange(256))
            continue
        at = rng.randrange(len(data))
        if roll < 0.35:
            data[at] ^= 1 << rng.randrange(8)
        elif roll < 0.5:
            data[at] = rng.randrange(256)
        elif roll < 0.65:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 3)))
        elif roll < 0.8:
            del data[at : at + rng.randint(1, 3)]
        elif roll < 0.9:
            del data[at:]
        else:
            end = min(len(data), at + rng.randint(1, 12))
            data[end:end] = data[at:end]
    return bytes(data)


def hostile_example(rng):
    int64 = ld(3, ld(1, varint(rng.randrange(1000))))
    entries = b"".join(ld(1, ld(1, key) + ld(2, int64)) for key in rng.sample(HOSTILE, 3))
    value = ld(1, ld(1, b"v") + ld(2, ld(1, ld(1, rng.choice(HOSTILE + [b"\xff\xfe"])))))
    return ld(1, entries + value)


def crafted_entries():
    """Map entries whose shape protobuf libraries treat specially."""
    int64 = ld(3, ld(1, b"\x05"))
    entry = lambda body: ld(1, ld(1, body))  # noqa: E731 (Example.features.feature entry)
    return [
        entry(ld(1, b"k") + ld(2, int64) + b"\x18\x07"),  # unknown varint field 3
        entry(ld(1, b"k") + b"\x1d\x01\x00\x00\x00" + ld(2, int64)),  # unknown fixed32 field 3
        entry(ld(2, int64)),  # no key
        entry(ld(1, b"k")),  # no value
        entry(b""),  # neither
        entry(ld(1, b"k") + ld(2, int64)) + entry(ld(1, b"k") + ld(2, ld(1, ld(1, b"x")))),
        entry(b"\x08\x01" + ld(2, int64)),  # key as a varint
        entry(ld(1, b"k") + b"\x10\x01"),  # value as a varint
        entry(ld(1, b"a") + ld(1, b"b") + ld(2, int64)),  # key twice
        entry(ld(1, b"k") + ld(2, int64) + ld(2, ld(2, ld(1, b"\x00\x00\x80\x3f")))),  # value twice
        entry(ld(1, b"k") + ld(2, int64) + b"\x23\x24"),  # group field 4
        entry(ld(1, b"\xff")),  # key not UTF-8
        ld(1, ld(1, ld(1, b"a") + ld(2, int64)) + ld(1, ld(1, b"b") + ld(2, int64) + b"\x18\x01")),
        ld(1, ld(1, ld(1, b"k") + ld(2, int64 + b"\x20\x01"))),  # unknown field inside the value
    ]


def main():
    testdata, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(8)
    sources = {
        "examples": list(payloads(os.path.join(testdata, "examples.tfrecord"))),
        "sequence": list(payloads(os.path.join(testdata, "sequence.tfrecord"))),
        "mnist": list(payloads(os.path.join(testdata, "mnist_like.tfrecord")))[:6],
    }
    for name, originals in sources.items():
        with open(os.path.join(out, f"mutated_{name}.tfrecord"), "wb") as f:
            for i in range(200 if name != "mnist" else 60):
                f.write(frame(mutate(originals[i % len(originals)], rng)))
    with open(os.path.join(out, "crafted.tfrecord"), "wb") as f:
        for payload in crafted_entries():
            f.write(frame(payload))
        for _ in range(6):
            f.write(frame(hostile_example(rng)))


if __name__ == "__main__":
    main()
