//! Compiles the built-in `.proto` files once, at build time, into the descriptor set the binary
//! decodes at start-up: parsing and checking some forty files took most of a process's start.
//!
//! The files are the ones [`schema::builtin`](src/schema/builtin.rs) lists, read through that
//! same module, compiled by the same compiler the run-time path uses for the user's files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};

/// What `builtin.rs` lists: the same shape as the crate's own `schema::ProtoFile`.
#[derive(Debug)]
pub struct ProtoFile {
    pub path: &'static str,
    pub source: &'static str,
}

#[path = "src/schema/builtin.rs"]
#[allow(dead_code)]
mod builtin;

struct BuiltinFiles(Vec<&'static ProtoFile>);

impl FileResolver for BuiltinFiles {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        self.0.iter().find(|file| file.path == name).map_or_else(
            || Err(protox::Error::file_not_found(name)),
            |file| File::from_source(file.path, file.source),
        )
    }
}

fn main() {
    println!("cargo::rerun-if-changed=src/schema/builtin.rs");
    println!("cargo::rerun-if-changed=../../proto");
    let files = builtin::files();
    let mut resolver = ChainFileResolver::new();
    resolver.add(BuiltinFiles(files.clone()));
    resolver.add(GoogleFileResolver::new());
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_imports(true);
    for file in &files {
        if let Err(e) = compiler.open_file(file.path) {
            panic!("built-in {}: {e}", file.path);
        }
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let set = compiler.encode_file_descriptor_set();
    std::fs::write(Path::new(&out).join("builtin.binpb"), set).expect("OUT_DIR is writable");
}
