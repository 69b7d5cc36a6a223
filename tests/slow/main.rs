//! The slow tests of the binary: the real inspector in a real terminal through tmux, records
//! far larger than the fixtures, and shards in emulators of the clouds' object stores. Kept apart from the fast tests (`tests/cli`) so those can be run
//! alone while working (`cargo test --test cli`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod emulators;
mod large;
mod tmux;

#[path = "../support/proto.rs"]
#[allow(dead_code)] // each binary uses part of the one encoder
mod proto;

#[path = "../support/serve.rs"]
#[allow(dead_code)] // each binary uses part of the server
mod serve;
