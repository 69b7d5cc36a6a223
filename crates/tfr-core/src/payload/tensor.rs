//! `tensorflow.TensorProto` as a payload type: the records `tf.io.serialize_tensor` writes and
//! `tf.data` snapshots hold. Its views show what a tensor is (dtype and shape) and its values as
//! an n-d array, built on [`crate::tensor`].

use std::io::{self, Write};
use std::ops::ControlFlow;

use super::{
    Declared, Found, ImageCandidates, Names, PayloadType, PayloadView, Probe, Summary, Typed,
};
use crate::decode::{MessageView, Parsed, Scalar};
use crate::schema::builtin;
use crate::schema::table::{FieldId, Table};
use crate::span::Span;
use crate::tensor::Element;
use crate::tensor::dtype::Layout;
use crate::tensor::{
    self, DEFAULT_EDGE_ITEMS, DType, Stats, StringList, TensorInfo, TensorProblem,
};
use crate::wire::{NodeKind, ROOT};

/// The message a tensor payload is.
pub const TENSOR_MESSAGE: &str = "tensorflow.TensorProto";

/// Tensors with more elements than this are printed with the middle of long axes left out.
const PRINT_THRESHOLD: u64 = 1000;

/// Tensors with at most this many elements show their values in `list`'s summary.
const INLINE_ELEMENTS: u64 = 8;

/// `tensorflow.TensorProto`.
pub struct Tensor;

pub static TENSOR: Tensor = Tensor;

impl PayloadType for Tensor {
    fn declared(&self) -> &Declared {
        const DECLARED: Declared =
            Declared::message("TensorProto", TENSOR_MESSAGE, builtin::TENSOR);
        &DECLARED
    }

    /// A valid TensorProto whose every top-level field is one TensorProto declares, with a dtype
    /// TensorFlow knows and a shape: what `serialize_tensor` always writes. A bare varint in
    /// field 1 (which any small message may start with) is not enough.
    fn detect(&self, probe: &mut Probe<'_>) -> bool {
        let payload = probe.payload();
        let Some(tree) = probe.valid_walk(TENSOR_MESSAGE) else {
            return false;
        };
        let (mut dtype, mut shape, mut unknown) = (false, false, false);
        for child in tree.children(ROOT) {
            let Some(node) = tree.node(child) else {
                continue;
            };
            match node.field() {
                None => unknown = true,
                Some(_) if node.number() == 1 => {
                    dtype = tree
                        .scalar(child, payload)
                        .and_then(|n| i32::try_from(n).ok())
                        .and_then(DType::from_number)
                        .is_some();
                }
                Some(_) if node.number() == 2 => shape = true,
                Some(_) => {}
            }
        }
        dtype && shape && !unknown
    }

    /// A tensor whose dtype and shape are known and whose values fill the shape.
    fn fits_inside(&self, view: &PayloadView<'_>) -> bool {
        view.typed().is_some_and(|typed| {
            tensor::read(&typed)
                .tensor
                .is_ok_and(|tensor| tensor.fills_shape())
        })
    }

    fn typed_summary(&self, typed: &Typed<'_>) -> Summary {
        Summary {
            features: None,
            names: Names::default(),
            line: summary_line(&tensor::read(&typed.message)),
        }
    }

    fn write_typed_tree(&self, typed: &Typed<'_>, out: &mut dyn Write) -> io::Result<()> {
        write_tensor(out, &tensor::read(&typed.message))
    }

    /// A uint8 tensor shaped like an image: its `tensor_content`, with the shape.
    fn image_candidates(&self, view: &PayloadView<'_>, budget: usize) -> ImageCandidates {
        let Some(typed) = view.typed().filter(|_| budget > 0) else {
            return ImageCandidates::default();
        };
        image_of(&typed).unwrap_or_default()
    }

    /// The elements of `tensor_content` (the raw little-endian buffer `tf.io.serialize_tensor`
    /// writes).
    fn hides_numbers(&self) -> bool {
        true
    }

    /// The elements of `tensor_content`, as the tree prints them: floats (16-, 32- and 64-bit)
    /// and integers. Only the bytes present are read, whatever the shape claims.
    fn hidden_numbers(&self, message: &MessageView<'_>, found: &mut Found<'_>) -> ControlFlow<()> {
        let Some(content) = message.field("tensor_content") else {
            return ControlFlow::Continue(());
        };
        let span = content.singular_span();
        let Ok(tensor) = tensor::read(message).tensor else {
            return ControlFlow::Continue(());
        };
        let searched = matches!(
            tensor.dtype().layout(),
            Layout::F16
                | Layout::Bf16
                | Layout::F32
                | Layout::F64
                | Layout::Signed(_)
                | Layout::Unsigned(_)
        );
        let Some(width) = tensor.dtype().width().filter(|w| searched && *w > 0) else {
            return ControlFlow::Continue(());
        };
        for i in 0..span.len() / width {
            let scalar = match tensor.get(i as u64) {
                Some(Element::F32(x)) => Scalar::F32(x),
                Some(Element::F64(x)) => Scalar::F64(x),
                Some(Element::Int(v)) => Scalar::I64(v),
                Some(Element::Uint(v)) => Scalar::U64(v),
                _ => continue,
            };
            let at = span.start + i * width;
            found(scalar, Span::new(at, at + width))?;
        }
        ControlFlow::Continue(())
    }
}

/// `tensorflow.TensorProto.tensor_content` in `table`, if the table has TensorProto.
pub fn tensor_content_field(table: &Table) -> Option<FieldId> {
    table
        .message_by_name(TENSOR_MESSAGE)
        .and_then(|m| table.field_by_number(m, 4))
}

/// The strings wire node `n` holds, when it is the `tensor_content` field (`tensor_content`, from
/// [`tensor_content_field`]) a string tensor reads its values from: TensorFlow's list of every
/// string's length, then their bytes. `Err` when the bytes are not such a list.
pub fn string_list_at<'a>(
    parsed: Parsed<'a>,
    n: usize,
    tensor_content: FieldId,
) -> Option<Result<StringList<'a>, TensorProblem>> {
    let node = parsed.tree.node(n)?;
    if node.field()? != tensor_content || node.kind() != NodeKind::Bytes {
        return None;
    }
    let parent = node.parent()?;
    let message = parsed.tree.message_type(parent, parsed.table)?;
    let view = MessageView::new(parsed, message, &[u32::try_from(parent).ok()?]);
    // Only the occurrence a parser keeps holds the values.
    if view.field("tensor_content")?.singular_span() != node.data_span() {
        return None;
    }
    let info = tensor::read(&view);
    if info.dtype != Some(DType::String) {
        return None;
    }
    match info.tensor {
        Ok(tensor) => tensor.strings().cloned().map(Ok),
        Err(problem @ TensorProblem::Strings(..)) => Some(Err(problem)),
        Err(_) => None,
    }
}

/// The image a TensorProto message holds, when it is a uint8 tensor shaped HxW, HxWx1, HxWx3 or
/// HxWx4 stored in `tensor_content`.
pub fn image_of(message: &MessageView<'_>) -> Option<ImageCandidates> {
    let info = tensor::read(message);
    let (height, width, channels, _) = info.tensor.as_ref().ok()?.image()?;
    let content = message.field("tensor_content")?;
    Some(ImageCandidates {
        shape: Some((height, width, channels)),
        values: vec![content.singular_span()],
    })
}

/// `float32[2,3] [1, 2, 3, 4, 5, 6]` for small tensors, else the signature with min, max and mean.
pub fn summary_line(info: &TensorInfo<'_>) -> String {
    summary_with(info.signature(), info)
}

/// [`summary_line`] with a scalar's signature bare (`int64 3`, `string "three"`), as an element
/// of a `tf.data` snapshot lists its components.
/// A string scalar is its quoted value alone (`"three"`).
pub fn component_line(info: &TensorInfo<'_>) -> String {
    match (&info.dims, info.dtype) {
        (Some(dims), Some(DType::String)) if dims.is_empty() && info.tensor.is_ok() => {
            summary_with(String::new(), info).trim_start().to_string()
        }
        (Some(dims), Some(dtype)) if dims.is_empty() => summary_with(dtype.name().into(), info),
        _ => summary_line(info),
    }
}

fn summary_with(signature: String, info: &TensorInfo<'_>) -> String {
    let tensor = match &info.tensor {
        Ok(tensor) => tensor,
        Err(problem) => return format!("{signature}: {problem}"),
    };
    if tensor.len() <= INLINE_ELEMENTS {
        let printed = tensor.print(u64::MAX, DEFAULT_EDGE_ITEMS);
        return format!("{signature} {}", one_line(&printed.text));
    }
    match tensor.stats() {
        Some(stats) => format!("{signature} {}", stats_text(&stats)),
        None => signature,
    }
}

/// The whole tensor: signature, the n-d array (elided in the middle when big), and its
/// statistics.
fn write_tensor(out: &mut dyn Write, info: &TensorInfo<'_>) -> io::Result<()> {
    let signature = info.signature();
    let tensor = match &info.tensor {
        Ok(tensor) => tensor,
        Err(problem) => return writeln!(out, "TensorProto {signature}: {problem}"),
    };
    writeln!(out, "TensorProto {signature}")?;
    let printed = tensor.print(PRINT_THRESHOLD, DEFAULT_EDGE_ITEMS);
    for line in printed.text.lines() {
        if line.trim().is_empty() {
            writeln!(out)?;
        } else {
            writeln!(out, "  {line}")?;
        }
    }
    if let Some(stats) = tensor.stats() {
        writeln!(out, "  {}", stats_text(&stats))?;
    }
    if let Some(list) = tensor.strings() {
        writeln!(out, "  {}", strings_text(list))?;
    }
    Ok(())
}

/// How a string tensor's `tensor_content` holds its strings: `tensor_content: 3 lengths (bytes
/// 0..3), then the strings (bytes 3..13)`.
pub fn strings_text(list: &tensor::StringList<'_>) -> String {
    let end = list
        .entry(list.len().saturating_sub(1))
        .map_or(list.lengths_end(), |e| e.data.end.max(list.lengths_end()));
    format!(
        "tensor_content: {} (bytes 0..{}), then the strings (bytes {}..{end})",
        crate::words::plural(list.len(), "varint length"),
        list.lengths_end(),
        list.lengths_end()
    )
}

/// `min 1.0, max 6.0, mean 3.5`: floats as Python's `repr` writes them, an integer tensor's range
/// exactly (`min 0, max 254`).
fn stats_text(stats: &Stats) -> String {
    let number = |x: f64| crate::pyfmt::repr_f64(x);
    if stats.counted == 0 {
        // No value to take a minimum of: saying "min inf, max -inf" would be wrong.
        return match stats.nans {
            1 => "its 1 value is NaN".to_string(),
            n => format!("all {n} values NaN"),
        };
    }
    let (min, max) = match stats.int_range {
        Some((lo, hi)) => (lo.to_string(), hi.to_string()),
        None => (number(stats.min), number(stats.max)),
    };
    let mut text = format!("min {min}, max {max}, mean {}", number(stats.mean));
    if stats.nans > 0 {
        text.push_str(&format!(", {} NaN", stats.nans));
    }
    text
}

/// A printed array on one line: rows joined by spaces.
fn one_line(text: &str) -> String {
    text.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::{Decoder, PayloadKind, Reading};
    use crate::schema::Schema;

    /// `serialize_tensor(tf.constant([[1., 2., 3.], [4., 5., 6.]]))`.
    fn float_tensor() -> Vec<u8> {
        let mut payload = vec![
            0x08, 0x01, 0x12, 0x08, 0x12, 0x02, 0x08, 0x02, 0x12, 0x02, 0x08,
        ];
        payload.push(0x03);
        payload.extend([0x22, 24]);
        for x in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0] {
            payload.extend(x.to_le_bytes());
        }
        payload
    }

    #[test]
    fn a_serialized_tensor_is_a_tensor_not_an_example() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let payload = float_tensor();
        let decoded = decoder.decode(&payload);
        assert_eq!(decoded.kind, PayloadKind::Builtin(&TENSOR));
        let view = decoded.view(&payload, decoder.table());
        assert_eq!(
            view.summary().line,
            "float32[2,3] [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]"
        );
        let tree = crate::payload::tests::tree_of_record_0(&view);
        assert!(
            tree.starts_with("record 0  TensorProto float32[2,3]\n"),
            "{tree}"
        );
        assert!(tree.contains("min 1.0, max 6.0, mean 3.5"), "{tree}");
    }

    #[test]
    fn an_int64_tensor_has_its_exact_range() {
        use crate::explain::number::varint_bytes;
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        // int64 [9] in int64_val: 2^53 + 1 (which f64 rounds to 2^53), then eight times -3.
        let mut values = varint_bytes((1u64 << 53) + 1);
        for _ in 0..8 {
            values.extend(varint_bytes(-3i64 as u64));
        }
        let mut payload = vec![0x08, 0x09, 0x12, 0x04, 0x12, 0x02, 0x08, 0x09, 0x52];
        payload.extend(varint_bytes(values.len() as u64));
        payload.extend(values);
        let decoded = decoder.decode(&payload);
        assert_eq!(decoded.kind, PayloadKind::Builtin(&TENSOR));
        let view = decoded.view(&payload, decoder.table());
        assert_eq!(
            view.summary().line,
            "int64[9] min -3, max 9007199254740993, mean 1000799917193440.9"
        );
    }

    /// A string tensor of `dims` whose `tensor_content` is `content`, as `Dataset.save` writes one.
    pub(crate) fn string_tensor(dims: &[u64], content: &[u8]) -> Vec<u8> {
        use crate::crafted::length_delimited;
        use crate::explain::number::varint_bytes;
        let shape: Vec<u8> = dims
            .iter()
            .flat_map(|d| length_delimited(2, &[&[0x08][..], &varint_bytes(*d)].concat()))
            .collect();
        [
            vec![0x08, 0x07],
            length_delimited(2, &shape),
            length_delimited(4, content),
        ]
        .concat()
    }

    #[test]
    fn a_string_tensor_in_tensor_content_shows_its_strings() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let payload = string_tensor(&[3], b"\x05\x00\x05north\xff\x00raw");
        let decoded = decoder.decode(&payload);
        assert_eq!(decoded.kind, PayloadKind::Builtin(&TENSOR));
        let view = decoded.view(&payload, decoder.table());
        assert_eq!(
            view.summary().line,
            r#"string[3] ["north", "", "\377\000raw"]"#
        );
        let tree = crate::payload::tests::tree_of_record_0(&view);
        assert_eq!(
            tree,
            "record 0  TensorProto string[3]\n  [\"north\", \"\", \"\\377\\000raw\"]\n  \
             tensor_content: 3 varint lengths (bytes 0..3), then the strings (bytes 3..13)\n  \
             # not Example: all fields unknown to Example\n"
        );
    }

    #[test]
    fn a_damaged_string_list_is_named_with_its_offset() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        // Three strings in the shape; the second length's varint is cut by the content's end.
        let payload = string_tensor(&[3], b"\x01\x80");
        let decoded = decoder.decode(&payload);
        let view = decoded.view(&payload, decoder.table());
        assert_eq!(
            view.summary().line,
            "string[3]: the length of string 1, at byte 1 of tensor_content, runs past its end \
             (payload byte 11)"
        );
        assert_eq!(payload[11], 0x80);
        // A shape that claims more strings than the content has bytes.
        let payload = string_tensor(&[1 << 40, 1 << 20], b"\x00\x00");
        let view_of = decoder.decode(&payload);
        let line = view_of.view(&payload, decoder.table()).summary().line;
        assert!(line.contains("the length of string 2, at byte 2"), "{line}");
    }

    #[test]
    fn a_small_message_starting_with_a_varint_is_not_a_tensor() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        // Field 1 = 150: no DataType, no shape.
        assert_eq!(
            decoder.decode(&[0x08, 0x96, 0x01]).kind,
            PayloadKind::Protobuf
        );
        // A known dtype but a field TensorProto does not declare.
        let payload = [0x08, 0x01, 0x12, 0x00, 0x78, 0x01];
        assert_ne!(decoder.decode(&payload).kind, PayloadKind::Builtin(&TENSOR));
    }

    #[test]
    fn a_uint8_image_tensor_is_an_image_candidate() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        // uint8 [2, 3, 3]: dtype 4, dims 2, 3, 3, 18 bytes of content.
        let mut payload = vec![
            0x08, 0x04, 0x12, 0x0c, 0x12, 0x02, 0x08, 0x02, 0x12, 0x02, 0x08, 0x03, 0x12, 0x02,
            0x08, 0x03, 0x22, 18,
        ];
        payload.extend(0u8..18);
        let decoded = decoder.decode(&payload);
        let view = decoded.view(&payload, decoder.table());
        let images = view.image_candidates(16);
        assert_eq!(images.shape, Some((2, 3, 3)));
        assert_eq!(images.values[0].slice(&payload).unwrap(), &payload[18..]);
    }
}
