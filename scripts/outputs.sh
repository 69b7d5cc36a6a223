#!/usr/bin/env bash
# Runs every command that reads files (list, show in each format, hex, verify, locate, salvage)
# over testdata/ and over a corpus of mutated payloads, writing one file per command and input
# (stdout, then stderr, then the exit status) into OUTDIR. Two builds are compared with
# `diff -r OUT_A OUT_B`: a change of the decoder must leave every byte of every output alone
# unless it means to change it.
#
# Usage: scripts/outputs.sh [BINARY] OUTDIR   (BINARY defaults to target/release/tfr-inspect)
set -euo pipefail

if [ $# -eq 2 ]; then
    bin=$(realpath "$1")
    out=$2
elif [ $# -eq 1 ]; then
    bin=$(realpath target/release/tfr-inspect)
    out=$1
else
    echo "usage: $0 [BINARY] OUTDIR" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
inputs="$out/_inputs"
python3 "$repo/scripts/mutated_corpus.py" "$repo/testdata" "$inputs"
# Salvage writes here; the path is the same for every build so that messages naming it compare.
salvaged=/tmp/tfr-outputs-salvaged.tfrecord

# record NAME ARGS...: runs the binary with ARGS into $out/NAME.
record() {
    local name=$1
    shift
    local file="$out/$name"
    local status=0
    "$bin" "$@" >"$file" 2>"$file.err" || status=$?
    {
        echo "--- stderr"
        cat "$file.err"
        echo "--- exit $status"
    } >>"$file"
    rm -f "$file.err"
}

# frames FILE: how many frames `list --json` reports.
frames() {
    { "$bin" list --json "$1" 2>/dev/null || true; } | wc -l
}

# run_all DIR FILE: every command over one input, with paths relative to DIR.
run_all() {
    local dir=$1 file=$2
    local key
    key=$(echo "$file" | tr '/' '_')
    key=${key%.tfrecord}
    cd "$dir"
    record "$key.list" list "$file"
    record "$key.list-json" list --json "$file"
    record "$key.list-bytes" list --bytes "$file"
    for format in tree text json; do
        record "$key.show-$format" show "$file" --format "$format"
        record "$key.show-bytes-$format" show --bytes "$file" --format "$format"
        record "$key.show-raw-$format" show --raw "$file" --format "$format"
    done
    record "$key.show-as-example-text" show --message tensorflow.Example "$file" --format text
    record "$key.show-as-example-json" show --message tensorflow.Example "$file" --format json
    record "$key.show-as-sequence-tree" show --message tensorflow.SequenceExample "$file"
    record "$key.show-range" show "$file" --range 1..3 --format text
    record "$key.verify" verify "$file"
    record "$key.verify-json" verify --json "$file"
    record "$key.locate-0" locate "$file" 0
    record "$key.locate-mid" locate "$file" $(($(stat -c %s "$file") / 2))
    record "$key.locate-mid-json" locate --json "$file" $(($(stat -c %s "$file") / 2))
    rm -f "$salvaged"
    record "$key.salvage" salvage "$file" -o "$salvaged" --force
    rm -f "$salvaged"
    record "$key.salvage-json" salvage --json "$file" -o "$salvaged" --force
    if [ -f "$salvaged" ]; then
        sha256sum <"$salvaged" >>"$out/$key.salvage"
    fi
    local count i
    count=$(frames "$file")
    : >"$out/$key.hex"
    for ((i = 0; i <= count; i++)); do
        record "$key.hex-one" hex "$file" -n "$i"
        cat "$out/$key.hex-one" >>"$out/$key.hex"
    done
    rm -f "$out/$key.hex-one"
    record "$key.hex-bytes" hex --bytes "$file" -n 0
    record "$key.hex-raw" hex --raw "$file" -n 0
    for i in 0 1; do
        record "$key.hex-full-$i" hex --full "$file" -n "$i"
    done
}

for path in "$repo"/testdata/*.tfrecord "$repo"/testdata/corrupt/*.tfrecord; do
    run_all "$repo" "${path#"$repo"/}"
done
for path in "$inputs"/*.tfrecord; do
    run_all "$inputs" "$(basename "$path")"
done
rm -f "$salvaged"
echo "outputs written to $out"
