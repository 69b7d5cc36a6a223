//! A `tf.data` element spec (`dataset_spec.pb`, a `tensorflow.StructuredValue`) as the shards
//! need it: the structure of an element, and its components flattened in `tf.nest` order (a
//! dict's keys sorted, tuples and lists by position, a named tuple's fields as declared), each
//! with its path, dtype and shape.
//!
//! The file is someone else's: its nesting, its number of components and the length of a
//! component's path are bounded, and a spec past a bound is refused with the bound it passed,
//! before anything grows with it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::fields::{Bad, Wire, as_i32, fields};
use crate::tensor::DType;

/// The most components an element may have (a spec with more is refused).
pub const MAX_COMPONENTS: usize = 10_000;
/// The deepest nesting of tuples, lists and dicts followed.
pub const MAX_DEPTH: usize = 32;
/// The most nodes of the structure (tuples, dicts, components and empty values together).
pub const MAX_NODES: usize = 100_000;
/// The longest path of one component (`features.image[0]`), in bytes.
pub const MAX_PATH_BYTES: usize = 1024;
/// The most dimensions a tensor spec's shape may have (TensorFlow's own limit).
const MAX_RANK: usize = crate::tensor::MAX_RANK;

/// `DT_VARIANT`: what a composite tensor (ragged, sparse) is stored as in a snapshot.
pub const DT_VARIANT: i32 = 21;

/// How an element is built of its components.
#[derive(Debug, Clone, PartialEq)]
pub enum Structure {
    /// Component `n` (an index into [`ElementSpec::components`]).
    Component(usize),
    /// A tuple `( )` or a list `[ ]`.
    Sequence { tuple: bool, items: Vec<Structure> },
    /// A dict, its keys sorted as `tf.nest` sorts them.
    Dict(Vec<(String, Structure)>),
    /// A named tuple: its type's name and its fields in order.
    NamedTuple {
        name: String,
        fields: Vec<(String, Structure)>,
    },
    /// Components without a spec to name them (only `snapshot.metadata`'s dtypes): listed
    /// without brackets.
    Unnamed(Vec<Structure>),
    /// A `None`, or a type spec of no component: nothing in the shards.
    Nothing,
}

/// One component of an element: one record of a shard.
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    /// Its path in the element (`id`, `pair[0]`, `meta.size`, `component 0`): as the spec has
    /// it, so escaped when shown.
    pub path: String,
    /// The `DataType` number.
    pub dtype: i32,
    /// The dimensions (`-1` unknown), `None` when the rank is unknown or not said.
    pub shape: Option<Vec<i64>>,
    /// For a composite (`RaggedTensorSpec`), its spec's class: stored as one variant tensor.
    pub composite: Option<String>,
}

impl Component {
    /// `int64`, `float32[3]`, `uint8[?]`, `float32[<unknown rank>]`, `variant (RaggedTensorSpec)`,
    /// escaped for a terminal.
    pub fn type_text(&self) -> String {
        let dtype = dtype_name(self.dtype);
        if let Some(class) = &self.composite {
            return format!("{dtype} ({})", crate::escape::for_terminal(class));
        }
        match &self.shape {
            None => format!("{dtype}[<unknown rank>]"),
            Some(dims) if dims.is_empty() => dtype,
            Some(dims) => {
                let dims: Vec<String> = dims.iter().map(|d| crate::tensor::dim_text(*d)).collect();
                format!("{dtype}[{}]", dims.join(","))
            }
        }
    }
}

/// `float32`, or `dtype 99` for a number TensorFlow does not have.
pub fn dtype_name(number: i32) -> String {
    DType::from_number(number).map_or_else(|| format!("dtype {number}"), |d| d.name().into())
}

/// An element's structure and its components in `tf.nest` order.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementSpec {
    pub structure: Structure,
    pub components: Vec<Component>,
}

impl ElementSpec {
    /// Components of the given dtypes, unnamed (`component 0`, ...): what `snapshot.metadata`
    /// alone says.
    pub fn unnamed(dtypes: &[i32]) -> ElementSpec {
        let components = dtypes
            .iter()
            .enumerate()
            .map(|(i, &dtype)| Component {
                path: format!("component {i}"),
                dtype,
                shape: None,
                composite: None,
            })
            .collect();
        let items = (0..dtypes.len()).map(Structure::Component).collect();
        ElementSpec {
            structure: Structure::Unnamed(items),
            components,
        }
    }

    pub fn dtypes(&self) -> Vec<i32> {
        self.components.iter().map(|c| c.dtype).collect()
    }

    /// The element written out, each component as `leaf` words it: `id int64, name string,
    /// pair (uint8, bool)` with each component's type, or its value. A dict's keys and a named
    /// tuple's names are escaped; the top-level dict (the usual element) has no braces.
    pub fn write(&self, leaf: &mut dyn FnMut(usize) -> String) -> String {
        let mut out = String::new();
        write_structure(&self.structure, true, leaf, &mut out);
        out
    }
}

fn write_structure(
    structure: &Structure,
    top: bool,
    leaf: &mut dyn FnMut(usize) -> String,
    out: &mut String,
) {
    let named =
        |out: &mut String, items: &[(String, Structure)], leaf: &mut dyn FnMut(usize) -> String| {
            for (i, (key, value)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&crate::escape::name_for_terminal(key.as_bytes()));
                out.push(' ');
                write_structure(value, false, leaf, out);
            }
        };
    match structure {
        Structure::Component(n) => out.push_str(&leaf(*n)),
        Structure::Nothing => out.push_str("None"),
        Structure::Sequence { tuple, items } => {
            let (open, close) = if *tuple { ('(', ')') } else { ('[', ']') };
            out.push(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_structure(item, false, leaf, out);
            }
            if *tuple && items.len() == 1 {
                out.push(',');
            }
            out.push(close);
        }
        Structure::Unnamed(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_structure(item, false, leaf, out);
            }
        }
        Structure::Dict(items) if top => named(out, items, leaf),
        Structure::Dict(items) => {
            out.push('{');
            named(out, items, leaf);
            out.push('}');
        }
        Structure::NamedTuple { name, fields } => {
            out.push_str(&crate::escape::for_terminal(name));
            out.push('(');
            named(out, fields, leaf);
            out.push(')');
        }
    }
}

/// Reads a serialized `StructuredValue` as an element spec; `Err` says why it cannot be one
/// (invalid bytes, a bound passed, a value that is no spec of tensors).
pub fn parse(bytes: &[u8]) -> Result<ElementSpec, String> {
    let mut reader = Reader {
        components: Vec::new(),
        nodes: 0,
    };
    let structure = reader.value(bytes, "", 0)?;
    Ok(ElementSpec {
        structure,
        components: reader.components,
    })
}

struct Reader {
    components: Vec<Component>,
    nodes: usize,
}

fn bad_text(bad: &Bad, what: &str) -> String {
    format!("invalid {what}: {} at its byte {}", bad.what, bad.at)
}

/// The pieces of a message field sent more than once, joined: protobuf merges them, which is
/// parsing their concatenation.
fn joined<'a>(chunks: &[&'a [u8]]) -> Cow<'a, [u8]> {
    match chunks {
        [] => Cow::Borrowed(&[]),
        [one] => Cow::Borrowed(one),
        many => Cow::Owned(many.concat()),
    }
}

/// The member of a `StructuredValue`'s oneof `kind` that is set, with its bytes: the last
/// member sent is the one kept; a message member sent more than once is merged.
fn kind_of(bytes: &[u8]) -> Result<(Option<u32>, Cow<'_, [u8]>), String> {
    let mut kind: Option<u32> = None;
    let mut chunks: Vec<&[u8]> = Vec::new();
    for field in fields(bytes) {
        let (number, wire) = field.map_err(|b| bad_text(&b, "StructuredValue"))?;
        let member = matches!(number, 1 | 11..=14 | 31..=35 | 51..=56);
        if !member {
            continue;
        }
        if kind != Some(number) {
            chunks.clear();
        }
        kind = Some(number);
        if let Wire::Bytes(data) = wire {
            chunks.push(data);
        }
    }
    Ok((kind, joined(&chunks)))
}

/// The name of a `StructuredValue` member that holds a value, not a spec.
fn value_kind(number: u32) -> Option<&'static str> {
    Some(match number {
        11 => "float64_value",
        12 => "int64_value",
        13 => "string_value",
        14 => "bool_value",
        31 => "tensor_shape_value",
        32 => "tensor_dtype_value",
        55 => "tensor_value",
        56 => "numpy_value",
        _ => return None,
    })
}

impl Reader {
    fn node(&mut self) -> Result<(), String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!(
                "more than {MAX_NODES} values in the structure: refused"
            ));
        }
        Ok(())
    }

    fn value(&mut self, bytes: &[u8], path: &str, depth: usize) -> Result<Structure, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels: refused"));
        }
        if path.len() > MAX_PATH_BYTES {
            return Err(format!(
                "a component's path is longer than {MAX_PATH_BYTES} bytes: refused"
            ));
        }
        self.node()?;
        let (kind, data) = kind_of(bytes)?;
        match kind {
            None => Err(format!(
                "a StructuredValue at {} sets no kind",
                shown_path(path)
            )),
            Some(1) => Ok(Structure::Nothing),
            Some(33 | 35) => {
                let (dtype, shape) = tensor_spec(&data)?;
                self.component(Component {
                    path: path.to_string(),
                    dtype,
                    shape,
                    composite: None,
                })
            }
            Some(34) => {
                let (class, flat) = type_spec(&data)?;
                if flat == 0 {
                    return Ok(Structure::Nothing);
                }
                self.component(Component {
                    path: path.to_string(),
                    dtype: DT_VARIANT,
                    shape: None,
                    composite: Some(class),
                })
            }
            Some(n @ (51 | 52)) => Ok(Structure::Sequence {
                tuple: n == 52,
                items: self.sequence(&data, path, depth)?,
            }),
            Some(53) => Ok(Structure::Dict(self.dict(&data, path, depth)?)),
            Some(54) => self.named_tuple(&data, path, depth),
            Some(n) => Err(format!(
                "{} holds a {}, not a spec of tensors",
                shown_path(path),
                value_kind(n).unwrap_or("value")
            )),
        }
    }

    /// The items of a `ListValue` or `TupleValue`.
    fn sequence(
        &mut self,
        data: &[u8],
        path: &str,
        depth: usize,
    ) -> Result<Vec<Structure>, String> {
        let mut items = Vec::new();
        for field in fields(data) {
            let (number, wire) = field.map_err(|b| bad_text(&b, "TupleValue"))?;
            if let (1, Wire::Bytes(item)) = (number, wire) {
                let i = items.len();
                items.push(self.value(item, &format!("{path}[{i}]"), depth + 1)?);
            }
        }
        Ok(items)
    }

    /// A `DictValue`: the last entry of a key is kept; keys in sorted order, as tf.nest has them.
    fn dict(
        &mut self,
        data: &[u8],
        path: &str,
        depth: usize,
    ) -> Result<Vec<(String, Structure)>, String> {
        let mut entries: BTreeMap<String, Vec<&[u8]>> = BTreeMap::new();
        for field in fields(data) {
            let (number, wire) = field.map_err(|b| bad_text(&b, "DictValue"))?;
            if let (1, Wire::Bytes(entry)) = (number, wire) {
                self.node()?;
                let (key, value) = pair(entry, "DictValue entry")?;
                entries.insert(key, value);
            }
        }
        self.keyed(entries, path, depth)
    }

    /// A `NamedTupleValue`: its name and its fields in the order sent.
    fn named_tuple(&mut self, data: &[u8], path: &str, depth: usize) -> Result<Structure, String> {
        let mut name = String::new();
        let mut pairs = Vec::new();
        for field in fields(data) {
            let (number, wire) = field.map_err(|b| bad_text(&b, "NamedTupleValue"))?;
            match (number, wire) {
                (1, Wire::Bytes(text)) => name = String::from_utf8_lossy(text).into(),
                (2, Wire::Bytes(entry)) => {
                    self.node()?;
                    pairs.push(pair(entry, "PairValue")?);
                }
                _ => {}
            }
        }
        let fields = self.keyed(pairs, path, depth)?;
        Ok(Structure::NamedTuple { name, fields })
    }

    /// Reads each keyed value (its pieces merged) at the key's path below `path`.
    fn keyed<'a>(
        &mut self,
        pairs: impl IntoIterator<Item = (String, Vec<&'a [u8]>)>,
        path: &str,
        depth: usize,
    ) -> Result<Vec<(String, Structure)>, String> {
        let mut out = Vec::new();
        for (key, value) in pairs {
            let sub = self.child_path(path, &key);
            let value = self.value(&joined(&value), &sub, depth + 1)?;
            out.push((key, value));
        }
        Ok(out)
    }

    fn child_path(&self, path: &str, key: &str) -> String {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    }

    fn component(&mut self, component: Component) -> Result<Structure, String> {
        if self.components.len() >= MAX_COMPONENTS {
            return Err(format!("more than {MAX_COMPONENTS} components: refused"));
        }
        self.components.push(component);
        Ok(Structure::Component(self.components.len() - 1))
    }
}

/// `the element` for the root, else the path.
fn shown_path(path: &str) -> String {
    if path.is_empty() {
        "the element".into()
    } else {
        crate::escape::for_terminal(path).into_owned()
    }
}

/// A map entry or `PairValue`: its key (field 1) and its value's pieces (field 2).
fn pair<'a>(entry: &'a [u8], what: &str) -> Result<(String, Vec<&'a [u8]>), String> {
    let mut key = String::new();
    let mut value = Vec::new();
    for field in fields(entry) {
        match field.map_err(|b| bad_text(&b, what))? {
            (1, Wire::Bytes(text)) => key = String::from_utf8_lossy(text).into(),
            (2, Wire::Bytes(data)) => value.push(data),
            _ => {}
        }
    }
    Ok((key, value))
}

/// A `TensorSpecProto` (or `BoundedTensorSpecProto`): its dtype and shape.
fn tensor_spec(bytes: &[u8]) -> Result<(i32, Option<Vec<i64>>), String> {
    let mut dtype = 0;
    let mut shapes: Vec<&[u8]> = Vec::new();
    for field in fields(bytes) {
        match field.map_err(|b| bad_text(&b, "TensorSpecProto"))? {
            (2, Wire::Bytes(shape)) => shapes.push(shape),
            (3, Wire::Varint(v)) => dtype = as_i32(v),
            _ => {}
        }
    }
    Ok((dtype, shape(&joined(&shapes))?))
}

/// A `TensorShapeProto`: its dimensions, `None` for an unknown rank.
fn shape(bytes: &[u8]) -> Result<Option<Vec<i64>>, String> {
    let mut dims = Vec::new();
    let mut unknown_rank = false;
    for field in fields(bytes) {
        match field.map_err(|b| bad_text(&b, "TensorShapeProto"))? {
            (2, Wire::Bytes(dim)) => {
                if dims.len() >= MAX_RANK {
                    return Err(format!("a shape of more than {MAX_RANK} dimensions"));
                }
                let mut size = 0i64;
                for field in fields(dim) {
                    if let (1, Wire::Varint(v)) = field.map_err(|b| bad_text(&b, "Dim"))? {
                        size = v as i64;
                    }
                }
                dims.push(size);
            }
            (3, Wire::Varint(v)) => unknown_rank = v != 0,
            _ => {}
        }
    }
    Ok((!unknown_rank).then_some(dims))
}

/// A `TypeSpecProto`: its class's name and how many flat components it says it has.
fn type_spec(bytes: &[u8]) -> Result<(String, u64), String> {
    let (mut class, mut name, mut flat) = (0u64, String::new(), 0u64);
    for field in fields(bytes) {
        match field.map_err(|b| bad_text(&b, "TypeSpecProto"))? {
            (1, Wire::Varint(v)) => class = v,
            (3, Wire::Bytes(text)) => name = String::from_utf8_lossy(text).into(),
            (4, Wire::Varint(v)) => flat = as_i32(v).max(0).unsigned_abs().into(),
            _ => {}
        }
    }
    if name.is_empty() {
        name = match class {
            1 => "SparseTensorSpec",
            2 => "IndexedSlicesSpec",
            3 => "RaggedTensorSpec",
            4 => "TensorArraySpec",
            5 => "DatasetSpec",
            6 => "IteratorSpec",
            7 => "OptionalSpec",
            _ => "TypeSpec",
        }
        .into();
    }
    Ok((name, flat))
}
