#!/usr/bin/env python3
"""Differential test of `filter --count` and `export --format jsonl` against Python protobuf.

Random tf.train.Example records are built with Python protobuf (seeded) and written as a TFRecord
file. Then:

- random expressions from the grammar `filter --help` documents (comparisons, `in`, `has(…)`,
  `len(…)`, `!`, `&&`, `||`, parentheses; names plain or in backquotes; integer, float and string
  literals with escapes) are each evaluated by the small reference evaluator below over the
  records Python decodes, and the count must equal what `tfr-inspect filter EXPR FILE --count`
  prints;
- `tfr-inspect export FILE --lists --bytes base64` must give, record by record, every feature
  with the values Python decodes (int64 exactly, floats as the same float32, bytes byte for byte),
  and `export` without options the same values with a feature of one value as that value.

The reference evaluator follows the rules `filter --help` states, not the Rust code: a feature of
several values matches when any does; `!=` holds when the feature has values of the literal's
kind and none equals it; an absent or empty feature matches no comparison; float features compare
in float32 (the literal rounded to the nearest float32), int64 features against integers exactly
and against floats in float64; strings compare byte by byte; `len` is 0 when absent.

Needs only `pip install protobuf==7.36.2` (scripts/requirements-differential.txt). Exits 1 when any
difference is found.

Usage: differential_filter.py [--count N] [--records R] [--seed S] [--binary PATH]
"""
import argparse
import base64
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential_mutated import ROOT, message_classes, tfrecord  # noqa: E402

# Feature names: plain (letters, digits, _ / . : -), words the grammar also uses, and names
# only backquotes can give.
PLAIN_NAMES = ["label", "image/height", "score", "tokens", "a.b-c:d_1", "has", "len", "in", "x"]
QUOTED_NAMES = ["my feature", "naïve (x)", "a&&b"]
NAMES = PLAIN_NAMES + QUOTED_NAMES
# Every name is sometimes absent; these are never present.
ABSENT_NAMES = ["missing", "not here"]

STRINGS = ["", "dog", "cat", "Dog", "do", "dogs", "é", "a\"b", "back\\slash", "line\nbreak", "\t", "3"]
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 3.0, 1e30, -1e-30, float("inf"), float("-inf"), float("nan")]
SPECIAL_INTS = [0, 1, -1, 3, 100, 2**31, -(2**31), 2**53 + 1, 2**62, -(2**63), 2**63 - 1, 16777217]


def f32(x):
    """`x` rounded to the nearest float32 (ties to even), as a Python float."""
    if isinstance(x, int):
        x = int_to_f32(x)
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def int_to_f32(n):
    """The integer `n` rounded once, straight to float32 (not through float64 first)."""
    if n == 0:
        return 0.0
    sign = -1 if n < 0 else 1
    m = abs(n)
    extra = m.bit_length() - 24
    if extra <= 0:
        return float(n)
    kept, rest = m >> extra, m & ((1 << extra) - 1)
    half = 1 << (extra - 1)
    if rest > half or (rest == half and kept & 1):
        kept += 1
    return sign * float(kept << extra)


def random_float32(rng):
    if rng.random() < 0.3:
        return f32(rng.choice(SPECIAL_FLOATS))
    if rng.random() < 0.5:
        return f32(rng.choice([-3, -1, 0, 1, 2, 3, 100]) + rng.choice([0.0, 0.5, 0.25, 0.1]))
    return f32(rng.uniform(-200, 200))


def random_int64(rng):
    if rng.random() < 0.3:
        return rng.choice(SPECIAL_INTS)
    return rng.randint(-5, 120)


def random_example(rng, Example):
    example = Example()
    for name in NAMES:
        if rng.random() < 0.35:
            continue
        feature = example.features.feature[name]
        kind = rng.choice(["int", "float", "bytes", "bytes", "none"])
        count = rng.choice([0, 1, 1, 1, 2, 3, 5])
        if name == "tokens":
            count = rng.choice([0, 1, 10, 511, 512, 513, 600])
        if kind == "int":
            feature.int64_list.value.extend(random_int64(rng) for _ in range(count))
            feature.int64_list.SetInParent()
        elif kind == "float":
            feature.float_list.value.extend(random_float32(rng) for _ in range(count))
            feature.float_list.SetInParent()
        elif kind == "bytes":
            values = []
            for _ in range(count):
                if rng.random() < 0.15:
                    values.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))))
                else:
                    values.append(rng.choice(STRINGS).encode())
            feature.bytes_list.value.extend(values)
            feature.bytes_list.SetInParent()
        # "none": a Feature with no kind set, present with no value.
    return example


# --- Decoded records, as the reference evaluator reads them --------------------------------------


def decoded_features(example):
    """name -> (kind, values) of every feature of a parsed Example (kind None: no kind set)."""
    out = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        values = list(getattr(feature, kind).value) if kind else []
        out[name] = (kind, values)
    return out


# --- Expressions: (text, tree) ------------------------------------------------------------------


def literal_text(kind, value, rng):
    if kind == "int":
        return str(value) if value < 0 or rng.random() < 0.9 else f"+{value}"
    if kind == "float":
        text = repr(value)
        if "e" not in text and "." not in text:
            text += ".0"
        return text
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def random_literal(rng):
    kind = rng.choice(["int", "int", "float", "float", "str"])
    if kind == "int":
        value = rng.choice(SPECIAL_INTS) if rng.random() < 0.3 else rng.randint(-5, 120)
    elif kind == "float":
        choices = [0.0, 0.5, -1.5, 3.0, 0.1, 1e3, 2.5e-7, 1e30, 1e39, 100.25, -0.0]
        value = rng.choice(choices) if rng.random() < 0.6 else round(rng.uniform(-200, 200), rng.randint(0, 6))
    else:
        value = rng.choice(STRINGS)
    return kind, value, literal_text(kind, value, rng)


def name_text(name, rng):
    if name in QUOTED_NAMES or name in ("not here",) or rng.random() < 0.1:
        return f"`{name}`"
    return name


OPS = ["==", "!=", "<", "<=", ">", ">="]
FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def random_test(rng):
    name = rng.choice(NAMES + ABSENT_NAMES)
    text_name = name_text(name, rng)
    shape = rng.random()
    if shape < 0.12:
        return f"has({text_name})", ("has", name)
    kind, value, lit = random_literal(rng)
    if shape < 0.27:
        return f"{lit} in {text_name}", ("in", kind, value, name)
    op = rng.choice(OPS)
    subject = "len" if rng.random() < 0.2 else "values"
    side = f"len({text_name})" if subject == "len" else text_name
    space = " " if rng.random() < 0.85 else ""
    if rng.random() < 0.2:
        # The literal on the left: the operator flips.
        return f"{lit}{space}{op}{space}{side}", ("cmp", subject, name, FLIP[op], kind, value)
    return f"{side}{space}{op}{space}{lit}", ("cmp", subject, name, op, kind, value)


def random_expr(rng, depth=0):
    r = rng.random()
    if depth >= 4 or r < 0.4:
        return random_test(rng)
    if r < 0.55:
        text, tree = random_expr(rng, depth + 1)
        # `!` binds tighter than `&&` and `||`: a side built of them is grouped.
        bare = tree[0] not in ("&&", "||") and rng.random() < 0.5
        return f"!{text}" if bare else f"!({text})", ("not", tree)
    if r < 0.65:
        text, tree = random_expr(rng, depth + 1)
        return f"({text})", tree
    a_text, a = random_expr(rng, depth + 1)
    b_text, b = random_expr(rng, depth + 1)
    op = rng.choice(["&&", "||"])
    # `&&` binds tighter than `||`: each side is grouped, so the tree is what the text says.
    return f"({a_text}) {op} ({b_text})", (op, a, b)


# --- The reference evaluator ----------------------------------------------------------------------


def ordering_holds(op, a, b):
    return {
        "==": a == b,
        "!=": a != b,
        "<": a < b,
        "<=": a <= b,
        ">": a > b,
        ">=": a >= b,
    }[op]


def value_holds(feature_kind, value, op, lit_kind, lit):
    """One value against the literal, or None when their kinds are not compared."""
    if feature_kind == "int64_list":
        if lit_kind == "int":
            return ordering_holds(op, value, lit)
        if lit_kind == "float":
            return ordering_holds(op, float(value), lit)
        return None
    if feature_kind == "float_list":
        if lit_kind == "str":
            return None
        # Both float32 (held in Python floats, which order them as float32 does).
        return ordering_holds(op, value, f32(lit))
    if feature_kind == "bytes_list":
        if lit_kind != "str":
            return None
        return ordering_holds(op, value, lit.encode())
    return None


def comparable(feature_kind, lit_kind):
    if feature_kind in ("int64_list", "float_list"):
        return lit_kind in ("int", "float")
    return feature_kind == "bytes_list" and lit_kind == "str"


def any_value(features, name, op, lit_kind, lit):
    if name not in features:
        return False
    kind, values = features[name]
    if op == "!=":
        return (
            comparable(kind, lit_kind)
            and len(values) > 0
            and not any_value(features, name, "==", lit_kind, lit)
        )
    return any(value_holds(kind, v, op, lit_kind, lit) is True for v in values)


def evaluate(tree, features):
    head = tree[0]
    if head == "||":
        return evaluate(tree[1], features) or evaluate(tree[2], features)
    if head == "&&":
        return evaluate(tree[1], features) and evaluate(tree[2], features)
    if head == "not":
        return not evaluate(tree[1], features)
    if head == "has":
        return tree[1] in features
    if head == "in":
        _, lit_kind, lit, name = tree
        return any_value(features, name, "==", lit_kind, lit)
    _, subject, name, op, lit_kind, lit = tree
    if subject == "len":
        length = len(features[name][1]) if name in features else 0
        return value_holds("int64_list", length, op, lit_kind, lit) is True
    return any_value(features, name, op, lit_kind, lit)


# --- Export ----------------------------------------------------------------------------------------


def same_values(exported, kind, values):
    if len(exported) != len(values):
        return False
    for e, v in zip(exported, values):
        if kind == "int64_list":
            if not (isinstance(e, int) and e == v):
                return False
        elif kind == "float_list":
            if math.isnan(v):
                ok = e == "NaN"
            elif math.isinf(v):
                ok = e == ("Infinity" if v > 0 else "-Infinity")
            else:
                ok = isinstance(e, (int, float)) and f32(float(e)) == v and math.copysign(1, f32(float(e))) == math.copysign(1, v)
            if not ok:
                return False
        elif kind == "bytes_list":
            if not (isinstance(e, str) and base64.b64decode(e) == v):
                return False
    return True


def check_export(binary, path, decoded):
    """Differences between `export` and Python's decoding, as messages."""
    problems = []
    for options, lists in ((["--lists", "--bytes", "base64"], True), (["--bytes", "base64"], False)):
        out = subprocess.run(
            [binary, "export", path, *options], capture_output=True, check=False
        )
        if out.returncode != 0:
            problems.append(f"export {' '.join(options)}: exit {out.returncode}: {out.stderr.decode()!r}")
            continue
        rows = [json.loads(line) for line in out.stdout.decode().splitlines()]
        if len(rows) != len(decoded):
            problems.append(f"export {' '.join(options)}: {len(rows)} rows for {len(decoded)} records")
            continue
        for i, (row, features) in enumerate(zip(rows, decoded)):
            if row.get("index") != i:
                problems.append(f"record {i}: index {row.get('index')}")
            names = set(row) - {"file", "index", "offset"}
            if names != set(features):
                problems.append(f"record {i}: features {sorted(names)} vs Python's {sorted(features)}")
                continue
            for name, (kind, values) in features.items():
                exported = row[name]
                if not lists and len(values) == 1:
                    exported = [exported]
                if not isinstance(exported, list) or not same_values(exported, kind, values):
                    problems.append(
                        f"export {' '.join(options)} record {i} {name!r}: {row[name]!r} vs Python's {kind} {values!r}"
                    )
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=500, help="expressions to try")
    parser.add_argument("--records", type=int, default=200, help="random Examples in the file")
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "debug", "tfr-inspect"))
    args = parser.parse_args()

    rng = random.Random(args.seed)
    Example = message_classes()["tensorflow.Example"]
    examples = [random_example(rng, Example) for _ in range(args.records)]
    payloads = [e.SerializeToString() for e in examples]
    # What Python decodes from the bytes written (not the objects built).
    decoded = []
    for payload in payloads:
        parsed = Example()
        parsed.ParseFromString(payload)
        decoded.append(decoded_features(parsed))

    failures = 0
    matched_some = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "random_examples.tfrecord")
        with open(path, "wb") as f:
            f.write(tfrecord(payloads))
        for n in range(args.count):
            text, tree = random_expr(rng)
            want = sum(evaluate(tree, features) for features in decoded)
            matched_some += 0 < want < len(decoded)
            out = subprocess.run(
                [args.binary, "filter", text, path, "--count"], capture_output=True, check=False
            )
            got = out.stdout.decode().strip()
            if out.returncode != 0 or got != str(want):
                failures += 1
                if failures <= 20:
                    print(
                        f"case {n}: filter {text!r}: tfr-inspect printed {got!r} (exit "
                        f"{out.returncode}, stderr {out.stderr.decode().strip()!r}), Python's reference {want}",
                        file=sys.stderr,
                    )
        export_problems = check_export(args.binary, path, decoded)
    for problem in export_problems[:20]:
        print(problem, file=sys.stderr)
    print(
        f"filter: {args.count} random expressions over {args.records} random Examples (seed "
        f"{args.seed}), {matched_some} matching some but not all records: {failures} disagreements; "
        f"export: {len(export_problems)} differences"
    )
    return 1 if failures or export_problems else 0


if __name__ == "__main__":
    sys.exit(main())
