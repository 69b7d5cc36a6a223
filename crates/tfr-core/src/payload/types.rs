//! The door for payload types: the [`PayloadType`] trait, the [`PayloadView`] views ask it
//! through, and the registry of built-in types.
//!
//! Adding a type is writing one module that implements [`PayloadType`] and listing it in
//! [`BUILTIN`]: its `.proto` files join the built-in schema, detection asks it about every record,
//! and `list`, `show`, `hex` and the inspector render it. The default methods render any typed
//! message field by field (what the user's `--message` type gets); a type overrides what it shows
//! differently.

use std::io::{self, Write};
use std::ops::ControlFlow;

use super::plugin::{self, Row, SummaryPlugin};
use super::{Decoded, PayloadKind, Probe, event, example, fallback, message, tensor};
use crate::decode::{MessageView, Parsed, Scalar};
use crate::event::Histogram;
use crate::schema::ProtoFile;
use crate::schema::table::Table;
use crate::span::Span;

/// The registered payload types, in the order detection asks them: a type that extends another
/// (whose payloads may also read as the other's) comes before it.
pub static BUILTIN: &[&dyn PayloadType] = &[
    &example::SEQUENCE_EXAMPLE,
    &example::EXAMPLE,
    &tensor::TENSOR,
    &event::EVENT,
];

/// TensorBoard's summary plugins, which the Event type asks what each summary value is for: a
/// plugin is listed once here, as a payload type is in [`BUILTIN`], and every view of an event
/// shows what it reads.
pub static PLUGINS: &[&dyn SummaryPlugin] = &[
    &plugin::hparams::HPARAMS,
    &plugin::pr_curve::PR_CURVES,
    &plugin::custom_scalars::CUSTOM_SCALARS,
    &plugin::audio::AUDIO,
    &plugin::text::TEXT,
    &plugin::mesh::MESH,
    &plugin::graph::KERAS_MODEL,
    &plugin::graph::RUN_METADATA_GRAPH,
    &plugin::graph::RUN_METADATA,
];

/// The type payloads are expected to have when nothing else says: what an empty record of a file
/// not yet learnt is, and the type whose mismatch is reported for payloads no type explains.
pub static EXPECTED: &dyn PayloadType = &example::EXAMPLE;

/// What a payload type is, declared once: its name, the message its payloads are, and the
/// `.proto` files it brings to the built-in schema.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// The name `list` shows in its kind column and JSON gives as "kind" (`Example`).
    pub name: &'static str,
    /// The full name of the message its payloads are (`tensorflow.Example`), for message types.
    pub message: Option<&'static str>,
    /// The `.proto` files the type brings: the one defining its message first, then what that
    /// imports.
    pub protos: &'static [ProtoFile],
}

impl Declared {
    /// A type whose payloads are message `message`, defined in `protos`.
    pub const fn message(
        name: &'static str,
        message: &'static str,
        protos: &'static [ProtoFile],
    ) -> Declared {
        Declared {
            name,
            message: Some(message),
            protos,
        }
    }

    /// A type that is no message of the schema.
    pub const fn named(name: &'static str) -> Declared {
        Declared {
            name,
            message: None,
            protos: &[],
        }
    }
}

/// A payload that reads as its type's message: the view, and the message it is.
#[derive(Debug, Clone)]
pub struct Typed<'a> {
    pub view: PayloadView<'a>,
    pub message: MessageView<'a>,
}

/// What [`PayloadType::hidden_numbers`] tells each number it finds, with where it lies; it
/// stops the search by breaking.
pub type Found<'f> = dyn FnMut(Scalar, Span) -> ControlFlow<()> + 'f;

/// One kind of payload: how it is found, and what each view shows of it.
pub trait PayloadType: Sync {
    /// What the type is: its name, message and protos.
    fn declared(&self) -> &Declared;

    /// The name `list` shows in its kind column and JSON gives as "kind" (`Example`).
    fn name(&self) -> &'static str {
        self.declared().name
    }

    /// The full name of the message its payloads are (`tensorflow.Example`), for message types.
    fn message(&self) -> Option<&'static str> {
        self.declared().message
    }

    /// The `.proto` files the type brings to the built-in schema.
    fn protos(&self) -> &'static [ProtoFile] {
        self.declared().protos
    }

    /// How messages about payloads that should be of this type but are not name it.
    fn expected_name(&self) -> &'static str {
        self.message().unwrap_or(self.name())
    }

    /// The name of the type this one extends: every payload of that type also reads as one of
    /// this type (a SequenceExample with a context only is an Example's bytes). A file with one
    /// record of an extending type is taken to be a file of it.
    fn extends(&self) -> Option<&'static str> {
        None
    }

    /// Whether the type explains the payload `probe` holds (its walks are shared between types).
    fn detect(&self, _probe: &mut Probe<'_>) -> bool {
        false
    }

    /// The count `list --json` gives as "features", and the one-line summary of `list` and the
    /// inspector's frame list: the [`PayloadType::typed_summary`] of a payload that reads as the
    /// type's message, else what its bytes are.
    fn summary(&self, view: &PayloadView<'_>) -> Summary {
        match view.typed() {
            Some(message) => self.typed_summary(&Typed {
                view: *view,
                message,
            }),
            None => fallback::bytes_summary(view),
        }
    }

    /// The summary of a payload that reads as the type's message.
    fn typed_summary(&self, typed: &Typed<'_>) -> Summary {
        message::summary(&typed.message)
    }

    /// The readable tree `show` prints, after the heading that says where the record is: what
    /// the payload is, on the rest of the first line, then its contents. The
    /// [`PayloadType::write_typed_tree`] of a payload that reads as the type's message, else its
    /// kind and what its bytes are.
    fn write_tree(&self, view: &PayloadView<'_>, out: &mut dyn Write) -> io::Result<()> {
        match view.typed() {
            Some(message) => self.write_typed_tree(
                &Typed {
                    view: *view,
                    message,
                },
                out,
            ),
            None => fallback::write_plain(view, out),
        }
    }

    /// The tree of a payload that reads as the type's message.
    fn write_typed_tree(&self, typed: &Typed<'_>, out: &mut dyn Write) -> io::Result<()> {
        message::write_tree(typed, out)
    }

    /// Appends the protobuf text format `show --format text` prints to `out`.
    fn write_text(&self, view: &PayloadView<'_>, out: &mut String) {
        message::write_text(view, out)
    }

    /// The rows the inspector's tree opens the payload with, read from `parsed` (the walk the
    /// tree shows), or `None` to show it field by field as the wire tree holds it, a page at a
    /// time.
    fn tree_rows<'a>(&self, _parsed: &Parsed<'a>) -> Option<Vec<TreeRow<'a>>> {
        None
    }

    /// Whether the inspector plots the records of a file of this type (its
    /// [`PayloadType::scalars`] over the file, its [`PayloadType::histograms`] one record at a
    /// time).
    fn plots(&self) -> bool {
        false
    }

    /// The scalars the payload records, by tag, with the step they were recorded at.
    fn scalars<'a>(&self, _view: &PayloadView<'a>) -> Option<Scalars<'a>> {
        None
    }

    /// The histograms the payload records.
    fn histograms<'a>(&self, _view: &PayloadView<'a>) -> Vec<Histogram<'a>> {
        Vec::new()
    }

    /// Whether a message of this type's [`PayloadType::message`] holds numbers beyond its
    /// fields' values, wherever it is met (a TensorProto's `tensor_content`): search looks for
    /// them through [`PayloadType::hidden_numbers`].
    fn hides_numbers(&self) -> bool {
        false
    }

    /// Each number message `message` (of this type's message) holds beyond its fields' values,
    /// with where it lies in the payload, as the tree shows it; stops when `found` breaks.
    fn hidden_numbers(
        &self,
        _message: &MessageView<'_>,
        _found: &mut Found<'_>,
    ) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// What the type reads in wire node `node` of the payload beyond its fields, for the
    /// inspector's tree: a few words for the node's row, and rows it opens before the node's
    /// fields (a TensorBoard summary value's plugin reading). `None` for nodes it says no more of.
    fn node_reading(&self, _view: &PayloadView<'_>, _node: usize) -> Option<NodeReading> {
        None
    }

    /// Whether a bytes value detection found to be of this type (a valid walk with every byte
    /// explained, see [`super::inner`]) is plausibly one, by the type's own checks: a tensor
    /// whose dtype and shape its values fill, an Example whose features each hold a list. Types
    /// that do not say are never looked for inside bytes values.
    fn fits_inside(&self, _view: &PayloadView<'_>) -> bool {
        false
    }

    /// Whether the payload, as the first record of its file, says what the file's records are
    /// (TensorBoard's `file_version` event does).
    fn names_file(&self, _view: &PayloadView<'_>) -> bool {
        false
    }

    /// The bytes values the image preview considers when the selected row holds none, best first,
    /// looking at no more than `budget` fields or features.
    fn image_candidates(&self, view: &PayloadView<'_>, budget: usize) -> ImageCandidates {
        fallback::image_candidates(view, budget)
    }
}

/// What a payload type reads in one wire node (see [`PayloadType::node_reading`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeReading {
    /// What the node holds, in a few words.
    pub detail: String,
    /// Rows shown before the node's fields.
    pub rows: Vec<Row>,
}

/// One row of a payload's top level in the inspector's tree (see [`PayloadType::tree_rows`]).
#[derive(Debug, Clone)]
pub enum TreeRow<'a> {
    /// A typed message field's value, labelled with the field's name; the `Features` and
    /// `FeatureLists` inside it are shown as feature name → values.
    Message {
        label: &'a str,
        message: MessageView<'a>,
    },
    /// A field as the wire tree holds it: wire node `node`.
    Wire(usize),
}

/// The scalars a payload records (see [`PayloadType::scalars`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scalars<'a> {
    /// The step they were recorded at.
    pub step: i64,
    /// Each scalar's tag, as the file holds it, and value.
    pub values: Vec<(&'a [u8], f64)>,
}

/// What `list` says a payload holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// How many features it has, for types made of features.
    pub features: Option<usize>,
    pub line: String,
    /// The feature names, in the order the line lists them, at most [`NAMES_KEPT`]; as the file
    /// holds them (JSON escapes them; `list` escapes them for a terminal). Empty for a view
    /// [`PayloadView::keeping_names`] `Skipped`.
    pub names: Names,
}

/// Whether a summary lists the names of the features ([`Summary::names`]), or only its line has
/// them: a table written to a pipe prints the line alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureNames {
    Kept,
    Skipped,
}

/// Feature names, one after the other in one string: `list` keeps a record's names for millions
/// of records, and one allocation per name cost more than decoding the record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    text: String,
    /// Where each name ends in `text`.
    ends: smallvec::SmallVec<[usize; 8]>,
}

impl Names {
    /// Room for `names` names of `bytes` of text in all.
    pub fn with_capacity(names: usize, bytes: usize) -> Names {
        Names {
            text: String::with_capacity(bytes),
            ends: smallvec::SmallVec::with_capacity(names),
        }
    }

    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The names in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.ends.len()).map(|i| {
            let start = i.checked_sub(1).and_then(|p| self.ends.get(p)).copied();
            let end = self.ends.get(i).copied().unwrap_or_default();
            self.text.get(start.unwrap_or(0)..end).unwrap_or_default()
        })
    }
}

/// Names serialise as the list of strings they are.
impl serde::Serialize for Names {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'n> FromIterator<&'n str> for Names {
    fn from_iter<I: IntoIterator<Item = &'n str>>(names: I) -> Names {
        let mut all = Names::default();
        for name in names {
            all.push(name);
        }
        all
    }
}

/// The most feature names a summary keeps: more than any screen shows.
pub const NAMES_KEPT: usize = 1024;

/// The bytes values of a payload that may hold an image.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageCandidates {
    /// Image dimensions the payload declares for raw pixels (height, width, channels).
    pub shape: Option<(u32, u32, u32)>,
    /// Where the values lie in the payload, best first.
    pub values: Vec<Span>,
}

/// A decoded payload with its bytes and schema: what a type renders from.
#[derive(Debug, Clone, Copy)]
pub struct PayloadView<'a> {
    pub decoded: &'a Decoded,
    pub payload: &'a [u8],
    pub table: &'a Table,
    /// Whether summaries list the feature names.
    names: FeatureNames,
    /// How many bytes values this payload lies inside (0 for a record's payload): values are
    /// read as payloads only down to [`super::inner::INNER_DEPTH`].
    depth: usize,
    /// Where this payload starts in the record's payload (0 for a record's payload), for
    /// positions the views say.
    base: usize,
}

impl<'a> PayloadView<'a> {
    pub fn new(decoded: &'a Decoded, payload: &'a [u8], table: &'a Table) -> PayloadView<'a> {
        PayloadView {
            decoded,
            payload,
            table,
            names: FeatureNames::Kept,
            depth: 0,
            base: 0,
        }
    }

    /// This view, as a payload found inside a bytes value `depth` levels down that starts at
    /// byte `base` of the record's payload.
    pub fn inside(self, depth: usize, base: usize) -> PayloadView<'a> {
        PayloadView {
            depth,
            base,
            ..self
        }
    }

    /// Where this payload starts in the record's payload (0 for a record's payload).
    pub fn base(&self) -> usize {
        self.base
    }

    /// How many bytes values this payload lies inside (0 for a record's payload).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// This view, with summaries that list the feature names or leave the list empty: a table
    /// written to a pipe prints only the summary line, for millions of records.
    pub fn keeping_names(self, names: FeatureNames) -> PayloadView<'a> {
        PayloadView { names, ..self }
    }

    /// Whether summaries list the feature names.
    pub fn keeps_names(&self) -> bool {
        self.names == FeatureNames::Kept
    }

    pub fn kind(&self) -> &'a PayloadKind {
        &self.decoded.kind
    }

    /// The type that renders this payload.
    pub fn payload_type(&self) -> &'static dyn PayloadType {
        self.decoded.kind.payload_type()
    }

    /// The typed message, for typed kinds.
    pub fn typed(&self) -> Option<MessageView<'a>> {
        self.decoded.typed(self.payload, self.table)
    }

    /// The payload's walk with its bytes and schema.
    pub fn parsed(&self) -> Parsed<'a> {
        self.decoded.parsed(self.payload, self.table)
    }

    pub fn summary(&self) -> Summary {
        self.payload_type().summary(self)
    }

    /// `heading` (where the record is), the type's tree, then why another type was not chosen,
    /// when detection passed one over.
    pub fn write_tree(&self, heading: &str, out: &mut impl Write) -> io::Result<()> {
        write!(out, "{heading}  ")?;
        self.payload_type().write_tree(self, out)?;
        if let Some(passed) = &self.decoded.passed_over {
            writeln!(out, "  # {passed}")?;
        }
        Ok(())
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }

    /// Appends [`PayloadView::text`] to `out`.
    pub fn write_text(&self, out: &mut String) {
        self.payload_type().write_text(self, out)
    }

    /// The rows the inspector's tree opens the payload with (see [`PayloadType::tree_rows`]).
    pub fn tree_rows(&self, parsed: &Parsed<'a>) -> Option<Vec<TreeRow<'a>>> {
        self.payload_type().tree_rows(parsed)
    }

    pub fn scalars(&self) -> Option<Scalars<'a>> {
        self.payload_type().scalars(self)
    }

    pub fn histograms(&self) -> Vec<Histogram<'a>> {
        self.payload_type().histograms(self)
    }

    pub fn image_candidates(&self, budget: usize) -> ImageCandidates {
        self.payload_type().image_candidates(self, budget)
    }

    pub fn node_reading(&self, node: usize) -> Option<NodeReading> {
        self.payload_type().node_reading(self, node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_types_have_distinct_names_and_known_extensions() {
        for (i, ty) in BUILTIN.iter().enumerate() {
            assert!(BUILTIN[..i].iter().all(|other| other.name() != ty.name()));
            // An extending type is asked before the type it extends.
            if let Some(base) = ty.extends() {
                let at = BUILTIN.iter().position(|t| t.name() == base).unwrap();
                assert!(at > i, "{} extends {base}", ty.name());
            }
        }
        assert!(BUILTIN.iter().any(|ty| ty.name() == EXPECTED.name()));
        for (i, p) in PLUGINS.iter().enumerate() {
            assert!(PLUGINS[..i].iter().all(|other| other.name() != p.name()));
        }
    }

    #[test]
    fn every_plugin_finds_its_protos_in_the_builtin_schema() {
        let schema = crate::schema::Schema::builtin();
        let files: Vec<&str> = crate::schema::builtin::files()
            .iter()
            .map(|f| f.path)
            .collect();
        for p in PLUGINS {
            assert!(
                p.protos().iter().all(|f| files.contains(&f.path)),
                "{}",
                p.name()
            );
        }
        for message in [
            plugin::hparams::CONTENT_MESSAGE,
            plugin::pr_curve::CONTENT_MESSAGE,
            plugin::audio::CONTENT_MESSAGE,
            plugin::mesh::CONTENT_MESSAGE,
            plugin::custom_scalars::LAYOUT_MESSAGE,
            plugin::graph::RUN_METADATA_MESSAGE,
            plugin::graph::GRAPH_MESSAGE,
        ] {
            assert!(schema.message(message).is_some(), "{message}");
        }
    }

    #[test]
    fn every_registered_type_finds_its_message_and_protos_in_the_builtin_schema() {
        let schema = crate::schema::Schema::builtin();
        let files: Vec<&str> = crate::schema::builtin::files()
            .iter()
            .map(|f| f.path)
            .collect();
        for ty in BUILTIN {
            if let Some(message) = ty.message() {
                assert!(schema.message(message).is_some(), "{message}");
            }
            assert!(
                ty.protos().iter().all(|p| files.contains(&p.path)),
                "{}",
                ty.name()
            );
        }
    }
}
