//! A tensor's values as a nested array, the way numpy prints one: one line per innermost row,
//! brackets per axis, and for big tensors only the first and last few items of each long axis
//! with `...` between them, so printing stays small whatever the shape says.

use std::fmt::Write as _;

use super::{Element, Tensor};
use crate::pyfmt::{c_escape_bytes, repr_f64, text_f32};

/// Items kept at each end of a long axis when a big tensor is elided (numpy's `edgeitems`).
pub const DEFAULT_EDGE_ITEMS: u64 = 3;

/// At most this many values are written, whatever the shape and settings: a guard against
/// shapes of many long axes (each elided, yet `6^rank` items in all).
const MAX_PRINTED: u64 = 4096;

/// A printed tensor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printed {
    pub text: String,
    /// Whether items were left out.
    pub elided: bool,
}

struct Printer<'t, 'a> {
    tensor: &'t Tensor<'a>,
    /// Elements from one index of an axis to the next.
    strides: Vec<u64>,
    elide: bool,
    edge_items: u64,
    printed: u64,
    out: String,
    elided: bool,
}

pub(super) fn print(tensor: &Tensor<'_>, threshold: u64, edge_items: u64) -> Printed {
    let shape = tensor.shape();
    let mut strides = vec![1u64; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        let next = strides.get(axis + 1).copied().unwrap_or(1);
        let size = shape.get(axis + 1).copied().unwrap_or(1);
        if let Some(stride) = strides.get_mut(axis) {
            // The product of the later dimensions never exceeds the element count, a u64.
            *stride = next.saturating_mul(size);
        }
    }
    let mut printer = Printer {
        tensor,
        strides,
        elide: tensor.len() > threshold,
        edge_items: edge_items.max(1),
        printed: 0,
        out: String::new(),
        elided: false,
    };
    printer.axis(0, 0);
    Printed {
        text: printer.out,
        elided: printer.elided,
    }
}

impl Printer<'_, '_> {
    /// The indices of `axis` to print: all, or both ends with a gap (`None`) between them.
    fn indices(&self, size: u64) -> Vec<Option<u64>> {
        let edge = self.edge_items;
        if self.elide && size > 2 * edge {
            (0..edge)
                .map(Some)
                .chain(std::iter::once(None))
                .chain((size - edge..size).map(Some))
                .collect()
        } else {
            (0..size).map(Some).collect()
        }
    }

    fn axis(&mut self, axis: usize, base: u64) {
        let shape = self.tensor.shape();
        let Some(&size) = shape.get(axis) else {
            self.element(base);
            return;
        };
        let stride = self.strides.get(axis).copied().unwrap_or(1);
        let innermost = axis + 1 == shape.len();
        self.out.push('[');
        for (n, index) in self.indices(size).into_iter().enumerate() {
            if n > 0 {
                self.separator(axis, innermost);
            }
            if self.printed >= MAX_PRINTED {
                self.out.push_str("...");
                self.elided = true;
                break;
            }
            match index {
                Some(i) => self.axis(axis + 1, base.saturating_add(i.saturating_mul(stride))),
                None => {
                    self.out.push_str("...");
                    self.elided = true;
                }
            }
        }
        self.out.push(']');
    }

    /// Between two items of `axis`: a space in a row, else a line break (two between blocks of
    /// rows) indented to the depth of the next bracket.
    fn separator(&mut self, axis: usize, innermost: bool) {
        self.out.push(',');
        if innermost {
            self.out.push(' ');
            return;
        }
        let depth = self.tensor.shape().len() - axis - 1;
        for _ in 0..depth.min(2) {
            self.out.push('\n');
        }
        for _ in 0..=axis {
            self.out.push(' ');
        }
    }

    fn element(&mut self, index: u64) {
        self.printed += 1;
        match self.tensor.get(index) {
            Some(element) => write_element(&mut self.out, element),
            None => self.out.push('?'),
        }
    }
}

/// One value: floats as Python's `repr` (shortest round trip), `True`/`False`, complex numbers as
/// `(re+imj)`, strings as quoted escaped bytes.
pub fn write_element(out: &mut String, element: Element<'_>) {
    match element {
        Element::F32(x) => out.push_str(&text_f32(x)),
        Element::F64(x) => out.push_str(&repr_f64(x)),
        Element::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Element::Uint(u) => {
            let _ = write!(out, "{u}");
        }
        Element::Bool(b) => out.push_str(if b { "True" } else { "False" }),
        Element::C64(re, im) => complex(out, &text_f32(re), &text_f32(im)),
        Element::C128(re, im) => complex(out, &repr_f64(re), &repr_f64(im)),
        Element::Bytes(bytes) => {
            out.push('"');
            c_escape_bytes(bytes, out);
            out.push('"');
        }
    }
}

fn complex(out: &mut String, re: &str, im: &str) {
    let sign = if im.starts_with('-') { "" } else { "+" };
    let _ = write!(out, "({re}{sign}{im}j)");
}

#[cfg(test)]
mod tests {
    use super::super::{DType, Storage};
    use super::*;

    fn iota(dims: &[i64]) -> Vec<u8> {
        let n: i64 = dims.iter().product();
        (0..n).flat_map(|i| (i as i32).to_le_bytes()).collect()
    }

    #[test]
    fn small_tensors_print_whole() {
        let bytes = iota(&[2, 3]);
        let t = Tensor::from_content(DType::Int32, &[2, 3], &bytes).unwrap();
        let printed = t.print(1000, 3);
        assert_eq!(printed.text, "[[0, 1, 2],\n [3, 4, 5]]");
        assert!(!printed.elided);
        let bytes = iota(&[2, 2, 2]);
        let t = Tensor::from_content(DType::Int32, &[2, 2, 2], &bytes).unwrap();
        assert_eq!(
            t.print(1000, 3).text,
            "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]"
        );
        let scalar = 2.5f64.to_le_bytes();
        let t = Tensor::from_content(DType::Float64, &[], &scalar).unwrap();
        assert_eq!(t.print(1000, 3).text, "2.5");
    }

    #[test]
    fn big_tensors_elide_the_middle_of_long_axes() {
        let bytes = iota(&[100, 100]);
        let t = Tensor::from_content(DType::Int32, &[100, 100], &bytes).unwrap();
        let printed = t.print(1000, 2);
        assert!(printed.elided);
        assert_eq!(
            printed.text,
            "[[0, 1, ..., 98, 99],\n [100, 101, ..., 198, 199],\n ...,\n \
             [9800, 9801, ..., 9898, 9899],\n [9900, 9901, ..., 9998, 9999]]"
        );
    }

    #[test]
    fn printing_is_bounded_whatever_the_shape_claims() {
        let dims = [7i64; 20];
        let t = Tensor::new(
            DType::Float32,
            &dims,
            Storage::Values(vec![Element::F32(1.0)]),
        )
        .unwrap();
        let printed = t.print(1000, 3);
        assert!(printed.elided);
        assert!(printed.text.matches("1.0").count() as u64 <= MAX_PRINTED);
        assert!(printed.text.len() < 200_000, "{}", printed.text.len());
    }

    #[test]
    fn values_print_as_python_does() {
        let mut out = String::new();
        for element in [
            Element::F32(0.1),
            Element::Bool(true),
            Element::C64(1.0, -2.0),
            Element::Bytes(b"\xff\x00raw"),
        ] {
            write_element(&mut out, element);
            out.push(' ');
        }
        assert_eq!(out, "0.1 True (1.0-2.0j) \"\\377\\000raw\" ");
    }
}
