//! Message descriptors: TensorFlow's Example protos built in, plus any `.proto` the user names.
//!
//! The `.proto` sources in `proto/` are compiled at run time by protox, a protobuf compiler in pure
//! Rust, so no `protoc` is needed anywhere. User files are compiled the same way, with the built-in
//! files importable under their usual TensorFlow paths. The compiled pool is then numbered into a
//! [`table::Table`], which is what decoding reads.

pub mod table;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use prost_reflect::DescriptorPool;
use protox::file::{
    ChainFileResolver, File, FileResolver, GoogleFileResolver, IncludeFileResolver,
};

use crate::error::{Error, Result};
use table::{MessageId, Table};

const FEATURE_PROTO: (&str, &str) = (
    "tensorflow/core/example/feature.proto",
    include_str!("../../../proto/tensorflow/core/example/feature.proto"),
);
const EXAMPLE_PROTO: (&str, &str) = (
    "tensorflow/core/example/example.proto",
    include_str!("../../../proto/tensorflow/core/example/example.proto"),
);

pub const EXAMPLE: &str = "tensorflow.Example";
pub const SEQUENCE_EXAMPLE: &str = "tensorflow.SequenceExample";

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
struct BuiltinFiles;

impl FileResolver for BuiltinFiles {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        [FEATURE_PROTO, EXAMPLE_PROTO]
            .iter()
            .find(|(path, _)| *path == name)
            .map_or_else(
                || Err(protox::Error::file_not_found(name)),
                |(path, source)| File::from_source(path, source),
            )
    }
}

/// The descriptors a decode uses: the compiled pool, and its table shared by every thread.
#[derive(Debug, Clone)]
pub struct Schema {
    pool: DescriptorPool,
    table: Arc<Table>,
    example: MessageId,
    sequence_example: MessageId,
    user_message: Option<MessageId>,
}

impl Schema {
    /// TensorFlow's Example and SequenceExample only.
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
        let mut resolver = ChainFileResolver::new();
        resolver.add(BuiltinFiles);
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
        compiler
            .open_file(EXAMPLE_PROTO.0)
            .map_err(|e| schema_err(Path::new(EXAMPLE_PROTO.0), e.to_string()))?;
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
        let (Some(example), Some(sequence_example)) = (find(EXAMPLE), find(SEQUENCE_EXAMPLE))
        else {
            return Err(schema_err(
                Path::new(EXAMPLE_PROTO.0),
                "Example messages missing".into(),
            ));
        };
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
            example,
            sequence_example,
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

    pub fn example(&self) -> MessageId {
        self.example
    }

    pub fn sequence_example(&self) -> MessageId {
        self.sequence_example
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
        let example = schema.pool().get_message_by_name(EXAMPLE).unwrap();
        assert_eq!(example.get_field_by_name("features").unwrap().number(), 1);
        let seq = schema.pool().get_message_by_name(SEQUENCE_EXAMPLE).unwrap();
        assert_eq!(seq.get_field_by_name("feature_lists").unwrap().number(), 2);
        assert_eq!(
            schema.message_name(schema.sequence_example()),
            SEQUENCE_EXAMPLE
        );
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
