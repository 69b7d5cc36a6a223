#!/usr/bin/env bash
# How long the dependencies the product cannot do without take to build, alone: an empty crate
# that depends only on the crates the design names (the terminal, protobuf reflection, checksums,
# the map, images, arguments, object stores over TLS, snappy, serde, rayon), with the features
# the product uses and the versions this repository's Cargo.lock pins, built with the same
# dev-profile settings as `cargo test` here. A clean `cargo test` cannot be faster than this plus
# compiling the project's own crates plus running the tests.
#
# Usage: scripts/build_floor.sh   (run from the repository's top; builds in a temporary directory)
set -euo pipefail

repo=$(pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src"
echo 'fn main() {}' > "$dir/src/main.rs"
cp "$repo/Cargo.lock" "$dir/Cargo.lock"
cat > "$dir/Cargo.toml" <<'EOF'
[package]
name = "build-floor"
version = "0.1.0"
edition = "2024"

[dependencies]
ratatui = { version = "0.30", default-features = false, features = ["crossterm"] }
crossterm = "0.29"
prost-reflect = "0.16"
crc32c = "0.6"
memmap2 = "0.9"
image = { version = "0.25", default-features = false, features = ["png", "jpeg"] }
viuer = "0.11"
clap = { version = "4.5", features = ["derive"] }
object_store = { version = "0.14", default-features = false, features = ["aws-base", "gcp-base", "azure-base", "reqwest", "ring"] }
reqwest = { version = "0.13", default-features = false, features = ["rustls-no-provider"] }
rustls = { version = "0.23", default-features = false, features = ["ring", "std", "tls12"] }
tokio = { version = "1", features = ["rt-multi-thread"] }
snap = "1"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
rayon = "1"

# As the repository's dev profile: no debug info for dependencies, the checksum, inflate, image
# and snappy crates optimised.
[profile.dev.package."*"]
debug = false
[profile.dev.package.crc32c]
opt-level = 2
[profile.dev.package."zlib-rs"]
opt-level = 2
[profile.dev.package.png]
opt-level = 2
[profile.dev.package."zune-jpeg"]
opt-level = 2
[profile.dev.package.snap]
opt-level = 2
EOF
cd "$dir"
# Resolve against the copied lock first, so that the build below times compiling only.
cargo fetch --quiet
start=$(date +%s.%N)
CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$dir/target" cargo build --quiet
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$(nproc)" 'BEGIN { printf "the named dependencies alone: %.1f s wall on %d cores\n", e - s, n }'
