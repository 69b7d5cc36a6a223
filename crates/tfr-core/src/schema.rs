//! Message descriptors: the protos of the registered payload types built in, plus any `.proto`
//! the user names.
//!
//! The `.proto` sources are compiled at run time by protox, a protobuf compiler in pure Rust, so
//! no `protoc` is needed anywhere. The built-in files are those the payload types bring
//! ([`crate::payload::PayloadType::protos`]); user files are compiled the same way, with the
//! built-in files importable under their usual TensorFlow paths. The compiled pool is then
//! numbered into a [`table::Table`], which is what decoding reads.

pub mod table;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use prost_reflect::DescriptorPool;
use protox::file::{
    ChainFileResolver, File, FileResolver, GoogleFileResolver, IncludeFileResolver,
};

use crate::error::{Error, Result};
use crate::payload::BUILTIN;
use table::{MessageId, Table};

/// A `.proto` file built into the binary.
#[derive(Debug)]
pub struct ProtoFile {
    /// The path it is imported by (`tensorflow/core/example/feature.proto`).
    pub path: &'static str,
    pub source: &'static str,
}

/// The built-in `.proto` files: those the registered payload types bring, each once, in the
/// order the types list them.
fn builtin_files() -> Vec<&'static ProtoFile> {
    let mut files: Vec<&'static ProtoFile> = Vec::new();
    for file in BUILTIN.iter().flat_map(|ty| ty.protos()) {
        if files.iter().all(|known| known.path != file.path) {
            files.push(file);
        }
    }
    files
}

/// A compile error with the line and column it points at, when it points into `file`.
fn located(error: &protox::Error, file: &Path) -> String {
    use miette::Diagnostic;
    let offset = error
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|l| l.offset());
    let text = std::fs::read_to_string(file).ok();
    match (offset, text) {
        (Some(offset), Some(text)) if offset <= text.len() => {
            let before = text.get(..offset).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {error}")
        }
        _ => error.to_string(),
    }
}

/// Serves the built-in `.proto` files from the binary.
struct BuiltinFiles(Vec<&'static ProtoFile>);

impl FileResolver for BuiltinFiles {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        self.0.iter().find(|file| file.path == name).map_or_else(
            || Err(protox::Error::file_not_found(name)),
            |file| File::from_source(file.path, file.source),
        )
    }
}

/// The descriptors a decode uses: the compiled pool, and its table shared by every thread.
#[derive(Debug, Clone)]
pub struct Schema {
    pool: DescriptorPool,
    table: Arc<Table>,
    user_message: Option<MessageId>,
}

impl Schema {
    /// The registered payload types' protos only.
    pub fn builtin() -> Schema {
        // The built-in sources are part of the binary and covered by tests, so compiling them cannot
        // fail at run time; a failure would be a build defect, reported rather than hidden.
        match Self::compile(&[], None) {
            Ok(schema) => schema,
            Err(e) => panic!("built-in protos failed to compile: {e}"),
        }
    }

    /// The built-in protos plus `proto_files`, decoding payloads as `message` when given.
    pub fn with_user_protos(proto_files: &[PathBuf], message: Option<&str>) -> Result<Schema> {
        Self::compile(proto_files, message)
    }

    fn compile(proto_files: &[PathBuf], message: Option<&str>) -> Result<Schema> {
        let schema_err = |path: &Path, message: String| Error::Schema {
            path: path.to_path_buf(),
            message,
        };
        let builtin = builtin_files();
        let mut resolver = ChainFileResolver::new();
        resolver.add(BuiltinFiles(builtin.clone()));
        for file in proto_files {
            let dir = file
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            resolver.add(IncludeFileResolver::new(dir.to_path_buf()));
        }
        resolver.add(GoogleFileResolver::new());
        let mut compiler = protox::Compiler::with_file_resolver(resolver);
        compiler.include_imports(true);
        for file in &builtin {
            compiler
                .open_file(file.path)
                .map_err(|e| schema_err(Path::new(file.path), e.to_string()))?;
        }
        for file in proto_files {
            if !file.is_file() {
                return Err(schema_err(file, "no such .proto file".into()));
            }
            let name = file
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| file.clone());
            compiler
                .open_file(&name)
                .map_err(|e| schema_err(file, located(&e, file)))?;
        }
        let pool = compiler.descriptor_pool();
        let table = Table::new(&pool);
        let find = |name: &str| table.message_by_name(name);
        for ty in BUILTIN {
            let (Some(name), Some(file)) = (ty.message(), ty.protos().first()) else {
                continue;
            };
            if find(name).is_none() {
                let missing = format!("defines no message `{name}`");
                return Err(schema_err(Path::new(file.path), missing));
            }
        }
        let user_names: Vec<String> = proto_files
            .iter()
            .filter_map(|f| f.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        // The messages the user's files define at top level, for choosing one when none is named.
        let defined: Vec<String> = pool
            .all_messages()
            .filter(|m| {
                m.parent_message().is_none()
                    && user_names.iter().any(|n| n == m.parent_file().name())
            })
            .map(|m| m.full_name().to_string())
            .collect();
        let message = match (message, defined.as_slice()) {
            (Some(name), _) => Some(name.to_string()),
            (None, [only]) => Some(only.clone()),
            (None, []) => None,
            (None, several) => {
                return Err(Error::SeveralMessages {
                    path: proto_files.first().cloned().unwrap_or_default(),
                    names: several.to_vec(),
                });
            }
        };
        let user_message = match message.as_deref() {
            None => None,
            Some(name) => {
                let name = name.trim_start_matches('.');
                let found = find(name).ok_or_else(|| Error::NoSuchMessage {
                    path: proto_files.first().cloned(),
                    name: name.to_string(),
                    known: pool
                        .all_messages()
                        .map(|m| m.full_name().to_string())
                        .collect(),
                })?;
                Some(found)
            }
        };
        Ok(Schema {
            pool,
            table: Arc::new(table),
            user_message,
        })
    }

    pub fn pool(&self) -> &DescriptorPool {
        &self.pool
    }

    /// The numbered schema decoding reads (cheap to share across threads).
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// The message called `full_name` (`tensorflow.Example`), if the schema has one.
    pub fn message(&self, full_name: &str) -> Option<MessageId> {
        self.table.message_by_name(full_name)
    }

    /// The message type the user named (or the only one their files define), if any.
    pub fn user_message(&self) -> Option<MessageId> {
        self.user_message
    }

    /// The full name of message `id` (`tensorflow.Example`).
    pub fn message_name(&self, id: MessageId) -> &str {
        self.table.message(id).map_or("", |m| &m.full_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_protos_compile_with_the_tensorflow_field_numbers() {
        let schema = Schema::builtin();
        let example = schema
            .pool()
            .get_message_by_name("tensorflow.Example")
            .unwrap();
        assert_eq!(example.get_field_by_name("features").unwrap().number(), 1);
        let name = "tensorflow.SequenceExample";
        let seq = schema.pool().get_message_by_name(name).unwrap();
        assert_eq!(seq.get_field_by_name("feature_lists").unwrap().number(), 2);
        assert_eq!(schema.message_name(schema.message(name).unwrap()), name);
        let feature = schema
            .pool()
            .get_message_by_name("tensorflow.Feature")
            .unwrap();
        assert_eq!(feature.get_field_by_name("int64_list").unwrap().number(), 3);
    }

    #[test]
    fn unknown_message_name_is_a_clear_error() {
        let err = Schema::with_user_protos(&[], Some("nope.Missing"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no message named `nope.Missing`"), "{err}");
    }
}
