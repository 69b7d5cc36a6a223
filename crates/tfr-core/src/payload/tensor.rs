//! `tensorflow.TensorProto` as a payload type: the records `tf.io.serialize_tensor` writes and
//! `tf.data` snapshots hold. Its views show what a tensor is (dtype and shape) and its values as
//! an n-d array, built on [`crate::tensor`].

use std::io::{self, Write};

use super::{ImageCandidates, Names, PayloadType, PayloadView, Probe, Summary, fallback};
use crate::decode::MessageView;
use crate::schema::{ProtoFile, builtin};
use crate::tensor::{self, DEFAULT_EDGE_ITEMS, DType, Stats, TensorInfo};
use crate::wire::ROOT;

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
    fn name(&self) -> &'static str {
        "TensorProto"
    }

    fn message(&self) -> Option<&'static str> {
        Some(TENSOR_MESSAGE)
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::TENSOR
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

    fn summary(&self, view: &PayloadView<'_>) -> Summary {
        match view.typed() {
            Some(typed) => Summary {
                features: None,
                names: Names::default(),
                line: summary_line(&tensor::read(&typed)),
            },
            None => fallback::bytes_summary(view),
        }
    }

    fn write_tree(
        &self,
        view: &PayloadView<'_>,
        heading: &str,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        match view.typed() {
            Some(typed) => write_tensor(out, heading, &tensor::read(&typed)),
            None => fallback::write_plain(view, heading, out),
        }
    }

    /// A uint8 tensor shaped like an image: its `tensor_content`, with the shape.
    fn image_candidates(&self, view: &PayloadView<'_>, budget: usize) -> ImageCandidates {
        let Some(typed) = view.typed().filter(|_| budget > 0) else {
            return ImageCandidates::default();
        };
        image_of(&typed).unwrap_or_default()
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
    let signature = info.signature();
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

/// The whole tensor: heading, signature, the n-d array (elided in the middle when big), and its
/// statistics.
fn write_tensor(out: &mut dyn Write, heading: &str, info: &TensorInfo<'_>) -> io::Result<()> {
    let signature = info.signature();
    let tensor = match &info.tensor {
        Ok(tensor) => tensor,
        Err(problem) => return writeln!(out, "{heading}  TensorProto {signature}: {problem}"),
    };
    writeln!(out, "{heading}  TensorProto {signature}")?;
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
    Ok(())
}

/// `min 1.0, max 6.0, mean 3.5`: floats as Python's `repr` writes them, an integer tensor's range
/// exactly (`min 0, max 254`).
fn stats_text(stats: &Stats) -> String {
    let number = |x: f64| crate::pyfmt::repr_f64(x);
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
        let mut out = Vec::new();
        view.write_tree("record 0", &mut out).unwrap();
        let tree = String::from_utf8(out).unwrap();
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
