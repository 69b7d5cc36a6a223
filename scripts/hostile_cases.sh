#!/usr/bin/env bash
# Runs hostile inputs of the README's Bounded resources section against a binary (by default
# target/debug/tfr-inspect), printing each one's exit code, seconds and peak RSS. The inputs are
# made in a temporary directory, named at the end. Needs GNU time (/usr/bin/time).
B=$(realpath "${1:-target/debug/tfr-inspect}")
T=$(mktemp -d); cd "$T"
run() { local name=$1; shift; local out; out=$( { /usr/bin/time -f "%e s %M KB" timeout 60 "$@" >/dev/null 2>err.txt; echo "rc=$?"; } 2>&1 ); printf '%-44s %s | %s\n' "$name" "$(echo $out | tr '\n' ' ')" "$(head -c 160 err.txt | tr '\n' ' ')"; }
python3 - <<'PY'
import struct, zlib, os, json
def crc(b):
    # crc32c
    poly=0x82F63B78; c=0xffffffff
    for x in b:
        c^=x
        for _ in range(8): c=(c>>1)^(poly if c&1 else 0)
    c^=0xffffffff
    return ((c>>15)|(c<<17))+0xa282ead8 & 0xffffffff
def rec(p):
    l=struct.pack('<Q',len(p)); return l+struct.pack('<I',crc(l))+p+struct.pack('<I',crc(p))
def feat_int(k,v):
    fv=b'\x1a'+bytes([2])+b'\x08'+bytes([v])  # int64_list {value:v}
    key=b'\x0a'+bytes([len(k)])+k
    val=b'\x12'+bytes([len(fv)])+fv
    e=key+val
    return b'\x0a'+bytes([len(e)])+e
ex=feat_int(b't',1); ex=b'\x0a'+bytes([len(ex)])+ex
open('one.tfrecord','wb').write(rec(ex))
os.makedirs('tfds',exist_ok=True)
open('tfds/x-train.tfrecord-00000-of-00001','wb').write(rec(ex))
open('bomb-train.tfrecord-00000-of-99999999999999','wb').write(rec(ex))
os.makedirs('many',exist_ok=True)
for i in range(40000):
    open(f'many/d-train.tfrecord-{i:05d}-of-40000','wb').write(rec(ex))
p='syntax = "proto3";\n'+''.join('message M%d {'%i for i in range(3000))+'}'*3000+'\n'
open('deep.proto','w').write(p)
PY
mkfifo fifo.tfrecord
ln -s /dev/zero tfds/features.json
run "features.json -> /dev/zero (show)" $B show tfds/x-train.tfrecord-00000-of-00001 -n 0
rm tfds/features.json; mkfifo tfds/features.json
run "features.json FIFO (show)" $B show tfds/x-train.tfrecord-00000-of-00001 -n 0
run "FIFO in a glob (verify)" $B verify "$T/*.tfrecord"
run "126-deep brace glob" $B verify "$(printf '{a%.0s' $(seq 126))$(printf '}%.0s' $(seq 126))"
run "3000 nested messages .proto" $B show --proto deep.proto one.tfrecord
run "descriptor set /dev/zero" $B show --descriptor-set /dev/zero one.tfrecord
run "index --check FILE /dev/zero" $B index --check one.tfrecord /dev/zero
run "quiz FILE < /dev/zero" sh -c "$B quiz one.tfrecord < /dev/zero"
run "shard announcing 99999999999999" $B verify bomb-train.tfrecord-00000-of-99999999999999
run "40,000 shards (verify DIR)" $B verify many
echo "inputs in $T"
