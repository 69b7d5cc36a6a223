//! TensorFlow tensors as `tf.io.serialize_tensor` and `tf.data` snapshots store them
//! (`tensorflow.TensorProto`): the dtype, the shape, and the values, read either from
//! `tensor_content` (the raw little-endian buffer) or from the typed `*_val` field, following
//! TensorFlow's rule that fewer values than the shape holds are padded with the last one (so a
//! single value fills the tensor).
//!
//! Nothing is copied out of `tensor_content`: element `i` is read from its bytes when it is shown,
//! so a tensor of a billion floats costs nothing until printed, and printing elides the middle.

pub mod dtype;
mod format;
pub mod strings;

use crate::decode::{MessageView, Scalar, Value};
pub use dtype::DType;
use dtype::{Layout, ValField};
pub use format::{DEFAULT_EDGE_ITEMS, Printed, write_element};
pub use strings::{StringEntry, StringList, StringListError};

/// One element, as wide as its dtype needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Element<'a> {
    F32(f32),
    F64(f64),
    Int(i64),
    Uint(u64),
    Bool(bool),
    C64(f32, f32),
    C128(f64, f64),
    Bytes(&'a [u8]),
}

impl Element<'_> {
    /// The value as a real number, for statistics (`None` for complex numbers and bytes).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Element::F32(x) => Some(f64::from(x)),
            Element::F64(x) => Some(x),
            Element::Int(i) => Some(i as f64),
            Element::Uint(u) => Some(u as f64),
            Element::Bool(b) => Some(f64::from(u8::from(b))),
            Element::C64(..) | Element::C128(..) | Element::Bytes(_) => None,
        }
    }
}

/// Where the values are.
#[derive(Debug, Clone, PartialEq)]
enum Storage<'a> {
    /// `tensor_content`: `width` bytes per element.
    Content(&'a [u8]),
    /// The typed `*_val` field, read out (each value took at least one byte of the payload).
    Values(Vec<Element<'a>>),
    /// `tensor_content` of a string tensor: the strings' lengths, then their bytes.
    Strings(StringList<'a>),
}

/// Why a TensorProto's values cannot be read as its dtype and shape say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TensorProblem {
    UnknownDtype(i32),
    UnknownRank,
    /// A dimension that is negative (unknown) in a tensor that holds values.
    UnknownDimension(usize, i64),
    /// The shape holds more elements than a count can say.
    TooManyElements,
    /// `tensor_content`'s length is not the shape's element count times the dtype's width.
    ContentLength {
        have: usize,
        need: u128,
    },
    /// More typed values than the shape holds.
    TooManyValues {
        have: usize,
        need: u64,
    },
    /// A dtype whose values are messages (resources, variants).
    NotValues(DType),
    /// More dimensions than TensorFlow allows.
    RankTooHigh(usize),
    /// `tensor_content` of a string tensor that is not its strings' lengths, then their bytes;
    /// with where `tensor_content` starts in the payload, when known.
    Strings(StringListError, Option<usize>),
}

/// TensorFlow's `TensorShape::MaxDimensions`.
pub const MAX_RANK: usize = 254;

impl std::fmt::Display for TensorProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TensorProblem::UnknownDtype(n) => write!(f, "dtype {n} is not a TensorFlow DataType"),
            TensorProblem::UnknownRank => write!(f, "the shape has unknown rank"),
            TensorProblem::UnknownDimension(axis, size) => {
                write!(f, "dimension {axis} has size {size}")
            }
            TensorProblem::TooManyElements => write!(f, "the shape holds too many elements"),
            TensorProblem::ContentLength { have, need } => write!(
                f,
                "tensor_content holds {have} bytes, the dtype and shape need {need}"
            ),
            TensorProblem::TooManyValues { have, need } => {
                write!(f, "{have} values for a shape of {need} elements")
            }
            TensorProblem::NotValues(dtype) => {
                write!(f, "{} tensors hold messages, not values", dtype.name())
            }
            TensorProblem::RankTooHigh(rank) => {
                write!(f, "rank {rank} exceeds TensorFlow's {MAX_RANK}")
            }
            TensorProblem::Strings(error, None) => write!(f, "{error}"),
            TensorProblem::Strings(error, Some(start)) => {
                write!(
                    f,
                    "{error} (payload byte {})",
                    start.saturating_add(error.at())
                )
            }
        }
    }
}

/// A dimension as TensorFlow prints shapes: its size, or `?` for an unknown one (`-1`, Python's
/// `None`).
pub fn dim_text(size: i64) -> String {
    if size < 0 {
        "?".into()
    } else {
        size.to_string()
    }
}

/// A tensor whose values can be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor<'a> {
    dtype: DType,
    shape: Vec<u64>,
    count: u64,
    storage: Storage<'a>,
}

/// What a `TensorProto` says of itself, readable or not: its dtype and shape for headings, and
/// the tensor when its values can be read.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo<'a> {
    /// The dtype number as stored.
    pub dtype_number: i32,
    pub dtype: Option<DType>,
    /// The dimensions as stored (`None`: unknown rank).
    pub dims: Option<Vec<i64>>,
    pub tensor: Result<Tensor<'a>, TensorProblem>,
}

impl TensorInfo<'_> {
    /// `float32[2,3]`, `string[]` for a scalar, `float32[?,3]` for a dimension of unknown size,
    /// `uint8[<unknown rank>]` (as TensorFlow's `<unknown>` shape).
    pub fn signature(&self) -> String {
        let dtype = self.dtype.map_or_else(
            || format!("dtype {}", self.dtype_number),
            |d| d.name().to_string(),
        );
        match &self.dims {
            None => format!("{dtype}[<unknown rank>]"),
            Some(dims) => {
                let dims: Vec<String> = dims.iter().map(|d| dim_text(*d)).collect();
                format!("{dtype}[{}]", dims.join(","))
            }
        }
    }
}

/// Reads a `tensorflow.TensorProto` message (field names as TensorFlow's `tensor.proto` has them).
pub fn read<'a>(message: &MessageView<'a>) -> TensorInfo<'a> {
    let dtype_number = match message.field("dtype").and_then(|f| f.singular()) {
        Some(Value::Scalar(Scalar::Enum(n, _) | Scalar::I32(n))) => n,
        _ => 0,
    };
    let dims = read_dims(message);
    let dtype = DType::from_number(dtype_number);
    let tensor = match (dtype, &dims) {
        (None, _) => Err(TensorProblem::UnknownDtype(dtype_number)),
        (_, None) => Err(TensorProblem::UnknownRank),
        (Some(dtype), Some(dims)) => Tensor::from_message(message, dtype, dims),
    };
    TensorInfo {
        dtype_number,
        dtype,
        dims,
        tensor,
    }
}

/// The shape's dimension sizes, `None` when the rank is unknown.
fn read_dims(message: &MessageView<'_>) -> Option<Vec<i64>> {
    let Some(Value::Message(shape)) = message.field("tensor_shape").and_then(|f| f.singular())
    else {
        return Some(Vec::new());
    };
    if let Some(Value::Scalar(Scalar::Bool(true))) =
        shape.field("unknown_rank").and_then(|f| f.singular())
    {
        return None;
    }
    let Some(dims) = shape.field("dim") else {
        return Some(Vec::new());
    };
    let sizes = dims.values().map(|(dim, _)| match dim {
        Value::Message(dim) => match dim.field("size").and_then(|f| f.singular()) {
            Some(Value::Scalar(Scalar::I64(size))) => size,
            _ => 0,
        },
        _ => 0,
    });
    Some(sizes.collect())
}

impl<'a> Tensor<'a> {
    fn from_message(
        message: &MessageView<'a>,
        dtype: DType,
        dims: &[i64],
    ) -> Result<Tensor<'a>, TensorProblem> {
        let field = message.field("tensor_content");
        let content = match field.as_ref().and_then(|f| f.singular()) {
            Some(Value::Bytes(bytes, _)) if !bytes.is_empty() => Some(bytes),
            _ => None,
        };
        let storage = match content {
            Some(bytes) => Storage::Content(bytes),
            None => Storage::Values(typed_values(message, dtype)?),
        };
        let start = field.map(|f| f.singular_span().start);
        Tensor::new(dtype, dims, storage).map_err(|problem| match problem {
            TensorProblem::Strings(error, None) => TensorProblem::Strings(error, start),
            other => other,
        })
    }

    /// A tensor over `tensor_content` bytes (used by tests and by callers that hold the buffer).
    pub fn from_content(
        dtype: DType,
        dims: &[i64],
        content: &'a [u8],
    ) -> Result<Tensor<'a>, TensorProblem> {
        Tensor::new(dtype, dims, Storage::Content(content))
    }

    fn new(dtype: DType, dims: &[i64], storage: Storage<'a>) -> Result<Tensor<'a>, TensorProblem> {
        if dims.len() > MAX_RANK {
            return Err(TensorProblem::RankTooHigh(dims.len()));
        }
        let mut shape = Vec::with_capacity(dims.len());
        let mut count: u64 = 1;
        for (axis, &size) in dims.iter().enumerate() {
            let size =
                u64::try_from(size).map_err(|_| TensorProblem::UnknownDimension(axis, size))?;
            count = count
                .checked_mul(size)
                .ok_or(TensorProblem::TooManyElements)?;
            shape.push(size);
        }
        let storage = match storage {
            Storage::Content(bytes) if dtype == DType::String => Storage::Strings(
                StringList::parse(bytes, count).map_err(|e| TensorProblem::Strings(e, None))?,
            ),
            other => other,
        };
        match &storage {
            Storage::Strings(_) => {}
            Storage::Content(bytes) => {
                let width = dtype.width().ok_or(TensorProblem::NotValues(dtype))?;
                let need = u128::from(count) * width as u128;
                if bytes.len() as u128 != need {
                    return Err(TensorProblem::ContentLength {
                        have: bytes.len(),
                        need,
                    });
                }
            }
            Storage::Values(values) if values.len() as u64 > count => {
                return Err(TensorProblem::TooManyValues {
                    have: values.len(),
                    need: count,
                });
            }
            Storage::Values(_) => {}
        }
        Ok(Tensor {
            dtype,
            shape,
            count,
            storage,
        })
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The strings of a string tensor stored in `tensor_content`, with where each one is.
    pub fn strings(&self) -> Option<&StringList<'a>> {
        match &self.storage {
            Storage::Strings(list) => Some(list),
            _ => None,
        }
    }

    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Whether every element is stored: `tensor_content` (its length checked against the shape)
    /// or one typed value per element. TensorFlow reads a tensor with fewer typed values by
    /// repeating the last one, which `serialize_tensor` never writes.
    pub fn fills_shape(&self) -> bool {
        match &self.storage {
            Storage::Content(_) | Storage::Strings(_) => true,
            Storage::Values(values) => values.len() as u64 == self.count,
        }
    }

    /// How many elements the shape holds.
    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Element `i` in row-major order. With typed values, indices past the last value read the
    /// last value (TensorFlow pads so); a tensor with no values at all reads zeros.
    pub fn get(&self, i: u64) -> Option<Element<'a>> {
        if i >= self.count {
            return None;
        }
        match &self.storage {
            Storage::Content(bytes) => {
                let width = self.dtype.width()?;
                let start = usize::try_from(i).ok()?.checked_mul(width)?;
                let raw = bytes.get(start..start.checked_add(width)?)?;
                Some(element_from_le(self.dtype.layout(), raw))
            }
            Storage::Strings(list) => list.get(i).map(Element::Bytes),
            Storage::Values(values) => {
                let at = usize::try_from(i).unwrap_or(usize::MAX);
                values
                    .get(at)
                    .or(values.last())
                    .copied()
                    .or(Some(zero(self.dtype)))
            }
        }
    }

    /// How many elements are stored as distinct values (the rest repeat the last one).
    fn stored(&self) -> u64 {
        match &self.storage {
            Storage::Content(_) | Storage::Strings(_) => self.count,
            Storage::Values(values) => (values.len() as u64).min(self.count),
        }
    }

    /// Minimum, maximum and mean of a real-valued tensor (NaNs left out), in one pass over the
    /// stored values; padding by the last value is counted without reading it again. Integer
    /// tensors keep their exact range too (f64 cannot hold int64 values past 2^53).
    pub fn stats(&self) -> Option<Stats> {
        if !self.dtype.is_real() || self.count == 0 {
            return None;
        }
        let stored = self.stored();
        let mut stats = Stats {
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            mean: 0.0,
            nans: 0,
            int_range: None,
            counted: 0,
        };
        let mut sum = 0.0;
        let mut counted: u64 = 0;
        let mut add = |element: Element<'_>, times: u64| {
            let whole = match element {
                Element::Int(i) => Some(i128::from(i)),
                Element::Uint(u) => Some(i128::from(u)),
                _ => None,
            };
            if let Some(n) = whole {
                stats.int_range = Some(match stats.int_range {
                    Some((lo, hi)) => (lo.min(n), hi.max(n)),
                    None => (n, n),
                });
            }
            let Some(x) = element.as_f64() else {
                return;
            };
            if x.is_nan() {
                stats.nans += times;
                return;
            }
            stats.min = stats.min.min(x);
            stats.max = stats.max.max(x);
            sum += x * times as f64;
            counted += times;
        };
        for i in 0..stored {
            let element = self.get(i)?;
            element.as_f64()?;
            let times = if i + 1 == stored {
                self.count - stored + 1
            } else {
                1
            };
            add(element, times);
        }
        if stored == 0 {
            add(zero(self.dtype), self.count);
        }
        if counted > 0 {
            stats.mean = sum / counted as f64;
        }
        stats.counted = counted;
        Some(stats)
    }

    /// The pixels of a uint8 tensor shaped like an image (HxW, HxWx1, HxWx3 or HxWx4) and their
    /// (height, width, channels).
    pub fn image(&self) -> Option<(u32, u32, u32, &'a [u8])> {
        if self.dtype != DType::Uint8 {
            return None;
        }
        let (h, w, c) = match *self.shape.as_slice() {
            [h, w] => (h, w, 1),
            [h, w, c] if matches!(c, 1 | 3 | 4) => (h, w, c),
            _ => return None,
        };
        let Storage::Content(bytes) = &self.storage else {
            return None;
        };
        if h == 0 || w == 0 {
            return None;
        }
        Some((
            u32::try_from(h).ok()?,
            u32::try_from(w).ok()?,
            u32::try_from(c).ok()?,
            bytes,
        ))
    }

    /// The values printed as a nested array, eliding the middle of each axis longer than
    /// `2 * edge_items` when the tensor holds more than `threshold` elements.
    pub fn print(&self, threshold: u64, edge_items: u64) -> Printed {
        format::print(self, threshold, edge_items)
    }
}

/// Minimum, maximum and mean of a tensor's real values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// NaN elements, left out of the others.
    pub nans: u64,
    /// The exact range of an integer tensor.
    pub int_range: Option<(i128, i128)>,
    /// The elements the others are computed from: all but the NaNs. When none is, `min`, `max`
    /// and `mean` describe nothing.
    pub counted: u64,
}

/// The dtype's zero, for a tensor whose shape holds elements but which stores no value.
fn zero(dtype: DType) -> Element<'static> {
    element_from_le(dtype.layout(), &[0; 16])
}

/// One element from its little-endian bytes (`raw` is at least the dtype's width).
fn element_from_le(layout: Layout, raw: &[u8]) -> Element<'static> {
    let le = |n: usize| {
        let mut word = [0u8; 8];
        if let (Some(dst), Some(src)) = (word.get_mut(..n), raw.get(..n)) {
            dst.copy_from_slice(src);
        }
        u64::from_le_bytes(word)
    };
    let signed = |n: usize| {
        let shift = 64 - 8 * n as u32;
        ((le(n) << shift) as i64) >> shift
    };
    match layout {
        Layout::F16 => Element::F32(dtype::f16_to_f32(le(2) as u16)),
        Layout::Bf16 => Element::F32(dtype::bf16_to_f32(le(2) as u16)),
        Layout::F32 => Element::F32(f32::from_bits(le(4) as u32)),
        Layout::F64 => Element::F64(f64::from_bits(le(8))),
        Layout::Signed(n) => Element::Int(signed(n)),
        Layout::Unsigned(n) => Element::Uint(le(n)),
        Layout::Bool => Element::Bool(le(1) != 0),
        Layout::Complex(4) => Element::C64(
            f32::from_bits(le(4) as u32),
            f32::from_bits(raw.get(4..8).map_or(0, le_u32)),
        ),
        Layout::Complex(_) => Element::C128(
            f64::from_bits(le(8)),
            f64::from_bits(raw.get(8..16).map_or(0, le_u64)),
        ),
        Layout::Float8(format) => Element::F32(dtype::float8_to_f32(le(1) as u8, format)),
        Layout::Small { signed: true, bits } => {
            let shift = 64 - bits;
            Element::Int(((le(1) << shift) as i64) >> shift)
        }
        Layout::Small {
            signed: false,
            bits,
        } => Element::Uint(le(1) & ((1 << bits) - 1)),
        Layout::None => Element::Bytes(&[]),
    }
}

fn le_u32(bytes: &[u8]) -> u32 {
    bytes
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn le_u64(bytes: &[u8]) -> u64 {
    bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// The typed `*_val` values of a TensorProto, converted to the dtype's elements.
fn typed_values<'a>(
    message: &MessageView<'a>,
    dtype: DType,
) -> Result<Vec<Element<'a>>, TensorProblem> {
    let field = dtype.val_field();
    if field == ValField::None {
        return Err(TensorProblem::NotValues(dtype));
    }
    let Some(values) = message.field(field.name()) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut pending_real: Option<f64> = None;
    for (value, _) in values.values() {
        let element = match (field, value) {
            (ValField::Scomplex | ValField::Dcomplex, Value::Scalar(s)) => {
                let part = scalar_f64(s);
                match pending_real.take() {
                    None => {
                        pending_real = Some(part);
                        continue;
                    }
                    Some(re) if field == ValField::Scomplex => Element::C64(re as f32, part as f32),
                    Some(re) => Element::C128(re, part),
                }
            }
            (ValField::Float8, Value::Bytes(bytes, _)) => {
                out.extend(bytes.iter().map(|b| element_from_le(dtype.layout(), &[*b])));
                continue;
            }
            (ValField::String, Value::Bytes(bytes, _) | Value::String(bytes, _)) => {
                Element::Bytes(bytes)
            }
            (_, Value::Scalar(s)) => scalar_element(dtype, s),
            _ => continue,
        };
        out.push(element);
    }
    Ok(out)
}

fn scalar_f64(s: Scalar<'_>) -> f64 {
    match s {
        Scalar::F32(x) => f64::from(x),
        Scalar::F64(x) => x,
        _ => 0.0,
    }
}

/// A typed value as an element of `dtype` (`int_val` holds every small integer type, `half_val`
/// the bits of half and bfloat16 values).
fn scalar_element(dtype: DType, s: Scalar<'_>) -> Element<'static> {
    match (dtype.layout(), s) {
        (Layout::F16 | Layout::Bf16, Scalar::I32(bits)) => {
            element_from_le(dtype.layout(), &(bits as u16).to_le_bytes())
        }
        (Layout::Unsigned(n), Scalar::I32(i)) => {
            Element::Uint(u64::from(i as u32) & (u64::MAX >> (64 - 8 * n as u32)))
        }
        (Layout::Small { .. }, Scalar::I32(i)) => element_from_le(dtype.layout(), &[i as u8]),
        (_, Scalar::I32(i)) => Element::Int(i64::from(i)),
        (_, Scalar::I64(i)) => Element::Int(i),
        (_, Scalar::U32(u)) => Element::Uint(u64::from(u)),
        (_, Scalar::U64(u)) => Element::Uint(u),
        (_, Scalar::F32(x)) => Element::F32(x),
        (_, Scalar::F64(x)) => Element::F64(x),
        (_, Scalar::Bool(b)) => Element::Bool(b),
        (_, Scalar::Enum(n, _)) => Element::Int(i64::from(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn content_is_read_little_endian_by_dtype() {
        let bytes = floats(&[0.5, -1.25, 3.0, 4.0, 5.5, -6.0]);
        let t = Tensor::from_content(DType::Float32, &[2, 3], &bytes).unwrap();
        assert_eq!(t.len(), 6);
        assert_eq!(t.get(1), Some(Element::F32(-1.25)));
        assert_eq!(t.get(6), None);
        let ints = [7u8, 0, 0, 0, 0xf8, 0xff, 0xff, 0xff];
        let t = Tensor::from_content(DType::Int32, &[2], &ints).unwrap();
        assert_eq!(t.get(1), Some(Element::Int(-8)));
        let half = [0x00, 0x3c, 0x00, 0xc0];
        let t = Tensor::from_content(DType::Float16, &[2], &half).unwrap();
        assert_eq!(t.get(1), Some(Element::F32(-2.0)));
        let complex = floats(&[1.0, -2.0]);
        let t = Tensor::from_content(DType::Complex64, &[], &complex).unwrap();
        assert_eq!(t.get(0), Some(Element::C64(1.0, -2.0)));
        let t = Tensor::from_content(DType::Bool, &[3], &[0, 1, 2]).unwrap();
        assert_eq!(t.get(2), Some(Element::Bool(true)));
    }

    #[test]
    fn signatures_say_unknown_dimensions_and_ranks() {
        let info = |dims: Option<Vec<i64>>| TensorInfo {
            dtype_number: 1,
            dtype: Some(DType::Float32),
            dims,
            tensor: Err(TensorProblem::UnknownRank),
        };
        assert_eq!(info(Some(vec![-1, 3])).signature(), "float32[?,3]");
        assert_eq!(info(Some(vec![-1])).signature(), "float32[?]");
        assert_eq!(info(Some(vec![])).signature(), "float32[]");
        assert_eq!(info(None).signature(), "float32[<unknown rank>]");
    }

    #[test]
    fn content_of_the_wrong_length_is_named() {
        let err = Tensor::from_content(DType::Float32, &[2, 3], &[0; 20]).unwrap_err();
        assert_eq!(err, TensorProblem::ContentLength { have: 20, need: 24 });
        assert_eq!(
            err.to_string(),
            "tensor_content holds 20 bytes, the dtype and shape need 24"
        );
        let err = Tensor::from_content(DType::Float32, &[-1, 3], &[]).unwrap_err();
        assert_eq!(err, TensorProblem::UnknownDimension(0, -1));
        let huge = [i64::MAX, i64::MAX];
        assert_eq!(
            Tensor::from_content(DType::Uint8, &huge, &[]).unwrap_err(),
            TensorProblem::TooManyElements
        );
    }

    #[test]
    fn a_single_value_fills_the_shape() {
        let t = Tensor::new(
            DType::Float32,
            &[1_000_000, 1_000_000],
            Storage::Values(vec![Element::F32(2.5)]),
        )
        .unwrap();
        assert_eq!(t.get(999_999_999_999), Some(Element::F32(2.5)));
        let stats = t.stats().unwrap();
        assert_eq!((stats.min, stats.max, stats.mean), (2.5, 2.5, 2.5));
        let padded = Tensor::new(
            DType::Int64,
            &[4],
            Storage::Values(vec![Element::Int(1), Element::Int(3)]),
        )
        .unwrap();
        let values: Vec<_> = (0..4).filter_map(|i| padded.get(i)).collect();
        assert_eq!(values.last(), Some(&Element::Int(3)));
        assert_eq!(padded.stats().unwrap().mean, 2.5);
        let too_many = Tensor::new(
            DType::Int64,
            &[1],
            Storage::Values(vec![Element::Int(1), Element::Int(3)]),
        );
        assert_eq!(
            too_many.unwrap_err(),
            TensorProblem::TooManyValues { have: 2, need: 1 }
        );
    }

    #[test]
    fn typed_small_integers_and_halves_convert() {
        assert_eq!(
            scalar_element(DType::Uint8, Scalar::I32(255)),
            Element::Uint(255)
        );
        assert_eq!(
            scalar_element(DType::Float16, Scalar::I32(0x3c00)),
            Element::F32(1.0)
        );
        assert_eq!(
            scalar_element(DType::Bfloat16, Scalar::I32(0x3fc0)),
            Element::F32(1.5)
        );
    }

    #[test]
    fn uint8_images_are_found_by_shape() {
        let pixels = [0u8; 2 * 3 * 3];
        let t = Tensor::from_content(DType::Uint8, &[2, 3, 3], &pixels).unwrap();
        assert_eq!(t.image().map(|(h, w, c, _)| (h, w, c)), Some((2, 3, 3)));
        let t = Tensor::from_content(DType::Uint8, &[2, 3, 3, 1], &pixels).unwrap();
        assert_eq!(t.image(), None);
        let t = Tensor::from_content(DType::Uint8, &[3, 2, 3], &pixels).unwrap();
        assert!(t.image().is_some());
        let t = Tensor::from_content(DType::Uint8, &[9, 2], &pixels).unwrap();
        assert_eq!(t.image().map(|(h, w, c, _)| (h, w, c)), Some((9, 2, 1)));
        let t = Tensor::from_content(DType::Uint8, &[2, 9], &pixels).unwrap();
        assert!(t.image().is_some());
        let t = Tensor::from_content(DType::Int8, &[2, 9], &pixels).unwrap();
        assert_eq!(t.image(), None);
        let t = Tensor::from_content(DType::Uint8, &[1, 3, 6], &pixels).unwrap();
        assert_eq!(t.image(), None, "6 channels is not an image");
    }

    #[test]
    fn stats_leave_nans_out() {
        let bytes = floats(&[1.0, f32::NAN, 3.0]);
        let t = Tensor::from_content(DType::Float32, &[3], &bytes).unwrap();
        let stats = t.stats().unwrap();
        assert_eq!(
            (stats.min, stats.max, stats.mean, stats.nans, stats.counted),
            (1.0, 3.0, 2.0, 1, 2)
        );
        let bytes = floats(&[f32::NAN; 4]);
        let t = Tensor::from_content(DType::Float32, &[4], &bytes).unwrap();
        assert_eq!(t.stats().map(|s| (s.nans, s.counted)), Some((4, 0)));
    }
}
