//! Message descriptors: the protos of the registered payload types built in, plus any `.proto`
//! the user names.
//!
//! The `.proto` sources are compiled by protox, a protobuf compiler in pure Rust, so no `protoc`
//! is needed anywhere. The built-in files are listed in [`builtin`], grouped as the payload types
//! bring them ([`crate::payload::PayloadType::protos`]), and compiled ahead of time into
//! `schema/builtin.binpb`, and numbered ahead of time into `schema/table/builtin.rs`, statics
//! compiled into the binary: decoding reads only the [`table::Table`], so a process takes that
//! as it is and decodes the descriptor set only when something asks for the pool (encoding,
//! comparing records): building the pool took most of a start. User files are compiled at run
//! time, with the built-in files importable under their usual TensorFlow paths, and numbered
//! into a table then.

pub mod builtin;
pub mod limits;
pub mod table;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use prost_reflect::DescriptorPool;
use prost_reflect::prost_types::{FileDescriptorProto, FileDescriptorSet};
use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};

use crate::error::{Error, Result};
use limits::{Ledger, Refusal};
use table::{MessageId, Table};

/// The built-in files compiled (without source positions, which nothing of the built-in schema
/// reads): an encoded `FileDescriptorSet`, dependencies first. Kept in the repository rather than
/// made by a build script, which would compile protox a second time for the build host; a test
/// checks it is what compiling the sources gives, and rewrites it when asked
/// (`TFR_WRITE_BUILTIN_SET=1`).
static BUILTIN_SET: &[u8] = include_bytes!("schema/builtin.binpb");

/// The built-in schema, once loaded ([`Schema::builtin`]).
static BUILTIN: OnceLock<Schema> = OnceLock::new();

/// A `.proto` file built into the binary.
#[derive(Debug)]
pub struct ProtoFile {
    /// The path it is imported by (`tensorflow/core/example/feature.proto`).
    pub path: &'static str,
    pub source: &'static str,
}

/// What a compile error says, in words a user understands: protox words a bad import path as
/// "invalid group name", and is told apart by its help text.
fn wording(error: &protox::Error) -> String {
    use miette::Diagnostic;
    let help = error.help().map(|h| h.to_string()).unwrap_or_default();
    if help.starts_with("imports may not contain") {
        return "an import names a file by its path under an include directory (-I): it may not \
                be absolute or hold `.` or `..` components, backslashes or repeated slashes"
            .into();
    }
    error.to_string()
}

/// A compile error with the line and column it points at in `text`, the file it was raised in: a
/// syntax error carries its offset; any other is found by `locate`, asked only then.
fn located(
    error: &protox::Error,
    text: Option<&str>,
    locate: impl FnOnce(&str) -> Option<(usize, usize)>,
) -> String {
    use miette::Diagnostic;
    let offset = error
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|l| l.offset());
    let at = match (offset, text) {
        (Some(offset), Some(text)) if offset <= text.len() => {
            let before = text.get(..offset).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Some((line, column))
        }
        (None, Some(text)) => locate(text),
        _ => None,
    };
    match at {
        Some((line, column)) => format!("line {line}, column {column}: {}", wording(error)),
        None => wording(error),
    }
}

/// The error a failed compile of the user's file `named` (imported as `name`) reports: the
/// limit a file passed, or the compiler's error against the file it was raised in (an import of
/// `named` names that file and its line, and says what imported it). `pool` holds the files
/// compiled before the failure.
fn compile_error(
    error: &protox::Error,
    ledger: &Ledger,
    pool: &DescriptorPool,
    (named, name): (&Path, &str),
) -> Error {
    if let Some(Refusal { path, message }) = &ledger.refusal {
        return Error::Schema {
            path: path.clone(),
            message: message.clone(),
        };
    }
    let raised_in = error.file().filter(|file| *file != name);
    // The file on disk the error is in: the one named, or the import it points into (an import
    // built into the binary has no path, and is named by its import name).
    let read_from = ledger.path_of(raised_in.unwrap_or(name));
    let on_disk = match raised_in {
        Some(_) => read_from.map(Path::to_path_buf),
        None => Some(named.to_path_buf()),
    };
    // Read again for the line, as it was read a moment ago: within the limits, never waiting.
    let text = read_from
        .or(on_disk.as_deref())
        .and_then(|path| IncludeDir::open(path).ok())
        .filter(|file| file.metadata().is_ok_and(|m| m.is_file()))
        .and_then(|file| Ledger::default().read(file).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    let path = on_disk.unwrap_or_else(|| PathBuf::from(raised_in.unwrap_or(name)));
    let failed = raised_in.unwrap_or(name);
    let mut message = located(error, text.as_deref(), |text| {
        first_error_at(pool, failed, text)
    });
    if raised_in.is_some() {
        message.push_str(&format!(
            " (imported by {})",
            crate::escape::path_for_terminal(named)
        ));
    }
    Error::Schema { path, message }
}

/// Serves the `.proto` files under one directory, as `protoc -I DIR` does, read within the
/// schema's [limits]: only regular files (a FIFO is not even waited on), up to the schema's
/// bytes, their text checked before it is parsed and their declarations counted after.
struct IncludeDir {
    dir: PathBuf,
    ledger: Rc<RefCell<Ledger>>,
}

impl IncludeDir {
    /// Records why `path` was refused (the first refusal is the one reported) and returns the
    /// compiler's error for it.
    fn refuse(&self, path: &Path, message: String) -> protox::Error {
        let mut ledger = self.ledger.borrow_mut();
        if ledger.refusal.is_none() {
            ledger.refusal = Some(Refusal {
                path: path.to_path_buf(),
                message: message.clone(),
            });
        }
        protox::Error::new(message)
    }

    fn open(path: &Path) -> std::io::Result<std::fs::File> {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // Opening a FIFO for reading waits for a writer; without blocking it returns at
            // once, and the file is then refused as not regular.
            options.custom_flags(libc::O_NONBLOCK);
        }
        options.open(path)
    }
}

impl FileResolver for IncludeDir {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        let path = self.dir.join(name);
        let file = match Self::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(protox::Error::file_not_found(name));
            }
            Err(e) => return Err(self.refuse(&path, e.to_string())),
        };
        match file.metadata() {
            Ok(meta) if meta.is_file() => {}
            Ok(meta) if meta.is_dir() => return Err(protox::Error::file_not_found(name)),
            Ok(_) => return Err(self.refuse(&path, "not a regular file".into())),
            Err(e) => return Err(self.refuse(&path, e.to_string())),
        }
        let bytes = self.ledger.borrow_mut().read(&file);
        let bytes = bytes.map_err(|message| self.refuse(&path, message))?;
        let text =
            String::from_utf8(bytes).map_err(|_| self.refuse(&path, "not valid UTF-8".into()))?;
        limits::check_text(&text).map_err(|message| self.refuse(&path, message))?;
        self.ledger.borrow_mut().opened(name, &path);
        // A syntax error is reported here, with its position.
        let file = File::from_source(name, &text)?;
        let tally = limits::tally_file(file.file_descriptor_proto());
        let charged = self.ledger.borrow_mut().charge(tally);
        charged.map_err(|message| self.refuse(&path, message))?;
        Ok(without_source_info(file.file_descriptor_proto().clone()))
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
    /// Set when the schema is compiled; for the built-in schema, decoded on first use.
    pool: Arc<OnceLock<DescriptorPool>>,
    table: Arc<Table>,
    user_message: Option<MessageId>,
    candidates: Vec<MessageId>,
}

/// How a `--field-type` path names a feature rather than a field: `feature:NAME`.
pub const FEATURE_PREFIX: &str = "feature:";

/// The user's schema, as the command line gives it.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// `.proto` files, by path or by their path under an include directory.
    pub protos: Vec<PathBuf>,
    /// Directories imports are resolved against (`protoc -I`).
    pub include: Vec<PathBuf>,
    /// Binary `FileDescriptorSet` files (`protoc --include_imports -o`).
    pub descriptor_sets: Vec<PathBuf>,
    /// The message payloads are, when named.
    pub message: Option<String>,
    /// Bytes fields decoded as messages: (`Type.field` path, or `feature:NAME` for the values of
    /// a feature, and the message's full name).
    pub field_types: Vec<(String, String)>,
    /// Bytes features shown as arrays of numbers: (feature name, dtype of fixed width).
    pub bytes_as: Vec<(String, crate::tensor::DType)>,
}

/// The message names worth offering for `name`, which the schema lacks: those with the same
/// simple name (`Reading` for `acme.Reading`), else the user's own top-level messages, else the
/// messages payloads usually are.
fn suggestions(
    pool: &DescriptorPool,
    name: &str,
    defined: &[MessageId],
    table: &Table,
) -> Vec<String> {
    let simple = name.rsplit('.').next().unwrap_or(name);
    let close: Vec<String> = pool
        .all_messages()
        .filter(|m| m.name().eq_ignore_ascii_case(simple))
        .map(|m| m.full_name().to_string())
        .collect();
    if !close.is_empty() {
        return close;
    }
    // A name one or two edits from a full name (`tensorflow.Exampel`).
    let near: Vec<String> = pool
        .all_messages()
        .filter(|m| {
            near_miss(
                &m.full_name().to_ascii_lowercase(),
                &name.to_ascii_lowercase(),
            )
        })
        .map(|m| m.full_name().to_string())
        .take(2)
        .collect();
    if !near.is_empty() {
        return near;
    }
    let own: Vec<String> = defined
        .iter()
        .filter_map(|m| table.message(*m).map(|m| m.full_name.to_string()))
        .collect();
    if !own.is_empty() {
        return own;
    }
    // The messages payloads usually are, then the others by count.
    let usual = [
        "tensorflow.Example",
        "tensorflow.SequenceExample",
        "tensorflow.TensorProto",
        "tensorflow.Event",
    ];
    let mut offered: Vec<String> = usual
        .iter()
        .filter(|n| table.message_by_name(n).is_some())
        .map(|n| n.to_string())
        .collect();
    let others = pool.all_messages().count().saturating_sub(offered.len());
    offered.push(format!("and {others} more"));
    offered
}

/// Whether `a` and `b` are at most two edits apart (insertions, deletions, substitutions), for
/// names of up to 128 characters; longer names are never near misses.
fn near_miss(a: &str, b: &str) -> bool {
    const MOST: usize = 2;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > 128 || b.len() > 128 || a.len().abs_diff(b.len()) > MOST {
        return false;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut row = Vec::with_capacity(b.len() + 1);
        row.push(i + 1);
        for (j, y) in b.iter().enumerate() {
            let substitute = previous
                .get(j)
                .map_or(usize::MAX, |d| d + usize::from(x != y));
            let delete = previous.get(j + 1).map_or(usize::MAX, |d| d + 1);
            let insert = row.last().map_or(usize::MAX, |d| d + 1);
            row.push(substitute.min(delete).min(insert));
        }
        previous = row;
    }
    previous.last().is_some_and(|d| *d <= MOST)
}

/// Where a `.proto` named on the command line is, and the name it is imported by: its path under
/// an include directory when it lies in one (or, not found as given, is found under one), else
/// its file name in its own directory, which is then searched for its imports.
fn locate_proto(file: &Path, include: &[PathBuf]) -> Option<(Option<PathBuf>, String)> {
    let name_of = |p: &Path| p.to_string_lossy().replace('\\', "/");
    if file.is_file() {
        let absolute = std::fs::canonicalize(file).ok()?;
        for dir in include {
            let Ok(dir) = std::fs::canonicalize(dir) else {
                continue;
            };
            if let Ok(relative) = absolute.strip_prefix(&dir) {
                return Some((None, name_of(relative)));
            }
        }
        let dir = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        return Some((
            Some(dir.to_path_buf()),
            name_of(Path::new(file.file_name()?)),
        ));
    }
    include
        .iter()
        .any(|dir| dir.join(file).is_file())
        .then(|| (None, name_of(file)))
}

fn no_such_proto(include: &[PathBuf]) -> String {
    if include.is_empty() {
        "no such .proto file".into()
    } else {
        let dirs: Vec<String> = include
            .iter()
            .map(|d| crate::escape::path_for_terminal(d))
            .collect();
        format!("no such .proto file, here or under {}", dirs.join(", "))
    }
}

/// The files of a binary `FileDescriptorSet`, read and counted within the schema's [limits]
/// before it is decoded.
fn read_descriptor_set(path: &Path, ledger: &mut Ledger) -> Result<Vec<File>> {
    let schema_err = |message: String| Error::Schema {
        path: path.to_path_buf(),
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| schema_err(e.to_string()))?;
    let bytes = ledger.read(file).map_err(schema_err)?;
    let tally = limits::tally_set(&bytes).map_err(schema_err)?;
    ledger.charge(tally).map_err(schema_err)?;
    // Decoded, not yet checked: the compiler checks it, as it checks `.proto` files.
    let set = <FileDescriptorSet as prost_reflect::prost::Message>::decode(bytes.as_slice())
        .map_err(|e| schema_err(format!("not a FileDescriptorSet: {e}")))?;
    Ok(set.file.into_iter().map(without_source_info).collect())
}

/// A file to compile without its source positions. The compiler words every error of a file,
/// and finds each one's position by searching all of the file's positions (and, with its text,
/// by counting lines from its start): errors times the file's size, minutes for a file of many
/// errors. Without positions every error costs the same; the first one's position is found
/// afterwards, once ([`first_error_at`]).
fn without_source_info(mut proto: FileDescriptorProto) -> File {
    proto.source_code_info = None;
    File::from_file_descriptor_proto(proto)
}

/// Where the first error of compiling `text` (the file imported as `name`) lies, as (line,
/// column) from 1, given `pool`, the files compiled before it: the compile is repeated on its
/// own, without source positions, and the path of its first error looked up once among the
/// positions a parse of the text gives.
fn first_error_at(pool: &DescriptorPool, name: &str, text: &str) -> Option<(usize, usize)> {
    let parsed = File::from_source(name, text).ok()?;
    let full = parsed.file_descriptor_proto();
    let mut stripped = full.clone();
    stripped.source_code_info = None;
    let mut pool = pool.clone();
    let error = pool.add_file_descriptor_proto(stripped).err()?;
    let path = error.path()?;
    let location = full
        .source_code_info
        .as_ref()?
        .location
        .iter()
        .find(|l| l.path == path)?;
    let line = usize::try_from(*location.span.first()?).ok()?;
    let column = usize::try_from(*location.span.get(1)?).ok()?;
    Some((line + 1, column + 1))
}

/// Serves the files of descriptor sets.
struct DescriptorSetFiles(Vec<File>);

impl FileResolver for DescriptorSetFiles {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        self.0
            .iter()
            .find(|file| file.name() == name)
            .map(|file| File::from_file_descriptor_proto(file.file_descriptor_proto().clone()))
            .ok_or_else(|| protox::Error::file_not_found(name))
    }
}

fn schema_err(path: &Path, message: String) -> Error {
    Error::Schema {
        path: path.to_path_buf(),
        message,
    }
}

/// The files a compile opens beside the built-in ones: each file of the descriptor sets by name,
/// with the set it came from, and each of the user's `.proto` files with the name it is imported
/// as.
struct OpenedFiles {
    from_sets: Vec<(String, PathBuf)>,
    protos: Vec<(PathBuf, String)>,
}

/// The resolver a compile of `sources` reads through, in the order that decides which copy of a
/// file wins, and the files to open with it.
fn resolver_for(
    sources: &Sources,
    builtin: Vec<&'static ProtoFile>,
    ledger: &Rc<RefCell<Ledger>>,
) -> Result<(ChainFileResolver, OpenedFiles)> {
    let mut resolver = ChainFileResolver::new();
    let mut opened = OpenedFiles {
        from_sets: Vec::new(),
        protos: Vec::new(),
    };
    // Descriptor sets first: a set holding `event.proto` is the user's word on it.
    if !sources.descriptor_sets.is_empty() {
        let mut files = Vec::new();
        for path in &sources.descriptor_sets {
            for file in read_descriptor_set(path, &mut ledger.borrow_mut())? {
                opened
                    .from_sets
                    .push((file.name().to_string(), path.clone()));
                files.push(file);
            }
        }
        resolver.add(DescriptorSetFiles(files));
    }
    resolver.add(BuiltinFiles(builtin));
    for dir in &sources.include {
        if !dir.is_dir() {
            return Err(schema_err(dir, "no such include directory".into()));
        }
        resolver.add(IncludeDir {
            dir: dir.clone(),
            ledger: Rc::clone(ledger),
        });
    }
    for file in &sources.protos {
        let (dir, name) = locate_proto(file, &sources.include)
            .ok_or_else(|| schema_err(file, no_such_proto(&sources.include)))?;
        if let Some(dir) = dir {
            resolver.add(IncludeDir {
                dir,
                ledger: Rc::clone(ledger),
            });
        }
        opened.protos.push((file.clone(), name));
    }
    resolver.add(GoogleFileResolver::new());
    Ok((resolver, opened))
}

/// Compiles the built-in files, then the descriptor sets' and the user's: an error names the
/// file the user gave, not the import it came through.
fn compile_files(
    resolver: ChainFileResolver,
    builtin: &[&'static ProtoFile],
    files: &OpenedFiles,
    ledger: &Rc<RefCell<Ledger>>,
) -> Result<DescriptorPool> {
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_imports(true);
    for file in builtin {
        compiler
            .open_file(file.path)
            .map_err(|e| schema_err(Path::new(file.path), e.to_string()))?;
    }
    for (name, set) in &files.from_sets {
        compiler
            .open_file(name)
            .map_err(|e| schema_err(set, format!("{name}: {}", wording(&e))))?;
    }
    for (file, name) in &files.protos {
        if let Err(e) = compiler.open_file(name).map(|_| ()) {
            let pool = compiler.descriptor_pool();
            return Err(compile_error(&e, &ledger.borrow(), &pool, (file, name)));
        }
    }
    Ok(compiler.descriptor_pool())
}

/// The messages the user's files define at top level: the candidates when none is named.
fn defined_messages(pool: &DescriptorPool, table: &Table, files: &OpenedFiles) -> Vec<MessageId> {
    let own: Vec<&str> = files
        .protos
        .iter()
        .map(|(_, name)| name.as_str())
        .chain(files.from_sets.iter().map(|(name, _)| name.as_str()))
        .collect();
    pool.all_messages()
        .filter(|m| m.parent_message().is_none() && own.contains(&m.parent_file().name()))
        .filter_map(|m| table.message_by_name(m.full_name()))
        .collect()
}

/// Gives `table` the message types of bytes fields (`--field-type`, and TensorBoard's graphs,
/// which are GraphDefs in a bytes field) and of bytes features (`--field-type feature:NAME`).
fn declare_field_types(
    table: &mut Table,
    sources: &Sources,
    pool: &DescriptorPool,
    defined: &[MessageId],
) -> Result<()> {
    let graph = ("tensorflow.Event.graph_def", "tensorflow.GraphDef");
    let builtin_embeds = std::iter::once(graph).map(|(a, b)| (a.to_string(), b.to_string()));
    for (path, type_name) in builtin_embeds.chain(sources.field_types.iter().cloned()) {
        // The flag stands where a file would.
        let flag = format!("--field-type {path}");
        if let Some(feature) = path.strip_prefix(FEATURE_PREFIX) {
            let name = type_name.trim_start_matches('.');
            let message = table
                .message_by_name(name)
                .ok_or_else(|| Error::NoSuchMessage {
                    path: Some(PathBuf::from(&flag)),
                    name: name.to_string(),
                    known: suggestions(pool, name, defined, table),
                })?;
            if sources.bytes_as.iter().any(|(n, _)| n == feature) {
                return Err(schema_err(
                    Path::new(&flag),
                    format!(
                        "feature `{feature}` is also given --bytes-as: its values are either numbers or a message"
                    ),
                ));
            }
            table.declare_feature_type(feature, message);
            continue;
        }
        table
            .embed(&path, &type_name)
            .map_err(|message| schema_err(Path::new(&path), message))?;
    }
    Ok(())
}

impl Schema {
    /// The registered payload types' protos only: loaded once per process (the pool and the
    /// table are shared, so every further one is a copy of two pointers).
    pub fn builtin() -> Schema {
        BUILTIN
            .get_or_init(|| Schema {
                pool: Arc::new(OnceLock::new()),
                table: Arc::new(Table::builtin()),
                user_message: None,
                candidates: Vec::new(),
            })
            .clone()
    }

    /// The built-in protos plus `proto_files`, decoding payloads as `message` when given.
    pub fn with_user_protos(proto_files: &[PathBuf], message: Option<&str>) -> Result<Schema> {
        Self::from_sources(&Sources {
            protos: proto_files.to_vec(),
            message: message.map(str::to_string),
            ..Sources::default()
        })
    }

    /// Whether this is the built-in schema itself, with nothing of the user's. A process that
    /// never loaded the built-in schema holds no copy of it, so its table is not loaded to say so.
    pub fn is_builtin(&self) -> bool {
        BUILTIN
            .get()
            .is_some_and(|builtin| Arc::ptr_eq(&self.table, &builtin.table))
    }

    /// The built-in protos plus the user's schema, as `protoc` takes one: `.proto` files named
    /// by path or by their path under an include directory, and compiled descriptor sets.
    pub fn from_sources(sources: &Sources) -> Result<Schema> {
        let Sources {
            protos,
            include,
            descriptor_sets,
            message,
            field_types,
            bytes_as,
        } = sources;
        let nothing = protos.is_empty()
            && include.is_empty()
            && descriptor_sets.is_empty()
            && message.is_none()
            && field_types.is_empty()
            && bytes_as.is_empty();
        if nothing {
            return Ok(Self::builtin());
        }
        Self::compile(sources)
    }

    /// The built-in pool, from the descriptor set compiled ahead of time.
    fn decode_builtin_pool() -> DescriptorPool {
        // Covered by tests as the table is: a failure would be a build defect.
        match DescriptorPool::decode(BUILTIN_SET) {
            Ok(pool) => pool,
            Err(e) => panic!("built-in descriptors failed to decode: {e}"),
        }
    }

    /// The built-in schema numbered from its pool, as the built-in table (`schema/table/builtin.rs`)
    /// was made.
    #[cfg(test)]
    fn decode_builtin() -> Result<Schema> {
        let files = OpenedFiles {
            from_sets: Vec::new(),
            protos: Vec::new(),
        };
        Self::numbered(Self::decode_builtin_pool(), &Sources::default(), &files)
    }

    fn compile(sources: &Sources) -> Result<Schema> {
        let ledger = Rc::new(RefCell::new(Ledger::default()));
        let builtin = builtin::files();
        let (resolver, files) = resolver_for(sources, builtin.clone(), &ledger)?;
        let pool = compile_files(resolver, &builtin, &files, &ledger)?;
        Self::numbered(pool, sources, &files)
    }

    /// The schema of `pool`, compiled from `sources` (of which `files` were opened).
    fn numbered(pool: DescriptorPool, sources: &Sources, files: &OpenedFiles) -> Result<Schema> {
        let mut table = Table::new(&pool);
        let defined = defined_messages(&pool, &table, files);
        let first_file = sources
            .protos
            .first()
            .or(sources.descriptor_sets.first())
            .cloned();
        if defined.is_empty() && sources.message.is_none() {
            if let Some(path) = &first_file {
                return Err(schema_err(path, "defines no message".into()));
            }
        }
        let user_message = match sources.message.as_deref() {
            None => None,
            Some(name) => {
                let name = name.trim_start_matches('.');
                let found = table
                    .message_by_name(name)
                    .ok_or_else(|| Error::NoSuchMessage {
                        path: first_file.clone(),
                        name: name.to_string(),
                        known: suggestions(&pool, name, &defined, &table),
                    })?;
                Some(found)
            }
        };
        declare_field_types(&mut table, sources, &pool, &defined)?;
        for (name, dtype) in &sources.bytes_as {
            table.show_bytes_as(name, *dtype);
        }
        Ok(Schema {
            pool: Arc::new(OnceLock::from(pool)),
            table: Arc::new(table),
            user_message,
            candidates: if user_message.is_some() {
                Vec::new()
            } else {
                defined
            },
        })
    }

    /// The top-level messages of the user's files, when none was named: decoding chooses the
    /// one that explains the records.
    pub fn candidates(&self) -> &[MessageId] {
        &self.candidates
    }

    pub fn pool(&self) -> &DescriptorPool {
        self.pool.get_or_init(Self::decode_builtin_pool)
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

    /// Only the built-in schema itself is told built-in: a schema compiled with the same files
    /// and a flag of the user's is not, whether or not the built-in one was loaded first.
    #[test]
    fn only_the_built_in_schema_is_built_in() {
        let flagged = Sources {
            bytes_as: vec![("image".into(), crate::tensor::DType::Uint8)],
            ..Sources::default()
        };
        let users = Schema::from_sources(&flagged).unwrap();
        assert!(!users.is_builtin());
        assert!(Schema::builtin().is_builtin());
        assert!(
            Schema::from_sources(&Sources::default())
                .unwrap()
                .is_builtin()
        );
        assert!(!users.is_builtin());
        assert!(!Schema::compile(&Sources::default()).unwrap().is_builtin());
    }

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

    /// The set compiled at build time is what compiling the built-in sources gives now: the same
    /// files, messages in the same order, and the same numbered table.
    #[test]
    fn the_built_in_set_is_the_built_in_sources_compiled() {
        let decoded = Schema::builtin();
        let compiled = Schema::compile(&Sources::default()).unwrap();
        let files = |schema: &Schema| -> Vec<FileDescriptorProto> {
            let strip = |mut file: FileDescriptorProto| {
                file.source_code_info = None;
                file
            };
            let pool = schema.pool();
            pool.file_descriptor_protos().cloned().map(strip).collect()
        };
        assert_eq!(files(&decoded), files(&compiled));
        let names = |schema: &Schema| -> Vec<String> {
            let pool = schema.pool();
            pool.all_messages()
                .map(|m| m.full_name().to_string())
                .collect()
        };
        assert_eq!(names(&decoded), names(&compiled));
        assert!(names(&decoded).len() > 100);
        let table = |schema: &Schema| format!("{:?}", schema.table());
        assert_eq!(table(&decoded), table(&compiled));
    }

    /// The committed table is the committed set numbered now, byte for byte, and the built-in
    /// schema's pool is that set.
    #[test]
    fn the_committed_built_in_table_is_the_built_in_set_numbered() {
        let numbered = Schema::decode_builtin().unwrap();
        let source = numbered.table().to_rust();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/schema/table/builtin.rs");
        if std::env::var_os("TFR_WRITE_BUILTIN_SET").is_some() {
            std::fs::write(path, &source).unwrap();
            return;
        }
        assert!(
            std::fs::read_to_string(&path).is_ok_and(|committed| committed == source),
            "the built-in set changed: rewrite src/schema/table/builtin.rs with \
             `TFR_WRITE_BUILTIN_SET=1 cargo test -p tfr-core the_committed_built_in`"
        );
        let loaded = Schema::builtin();
        assert_eq!(
            format!("{:?}", loaded.table()),
            format!("{:?}", numbered.table())
        );
        let names = |schema: &Schema| -> Vec<String> {
            let pool = schema.pool();
            pool.all_messages()
                .map(|m| m.full_name().to_string())
                .collect()
        };
        assert_eq!(names(&loaded), names(&numbered));
    }

    /// The committed set is the built-in sources compiled now, byte for byte.
    #[test]
    fn the_committed_built_in_set_is_the_built_in_sources_compiled() {
        use prost_reflect::prost::Message;
        let compiled = Schema::compile(&Sources::default()).unwrap();
        let set = FileDescriptorSet {
            file: compiled
                .pool()
                .file_descriptor_protos()
                .cloned()
                .map(|mut file| {
                    file.source_code_info = None;
                    file
                })
                .collect(),
        };
        let bytes = set.encode_to_vec();
        if std::env::var_os("TFR_WRITE_BUILTIN_SET").is_some() {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/schema/builtin.binpb");
            std::fs::write(path, &bytes).unwrap();
            return;
        }
        assert!(
            bytes == BUILTIN_SET,
            "the built-in .proto files changed: rewrite src/schema/builtin.binpb with \
             `TFR_WRITE_BUILTIN_SET=1 cargo test -p tfr-core the_committed_built_in` (twice: the table \
             is numbered from the set the test binary holds)"
        );
    }

    #[test]
    fn unknown_message_name_is_a_clear_error() {
        let err = Schema::with_user_protos(&[], Some("nope.Missing"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no message named `nope.Missing`"), "{err}");
    }
}
