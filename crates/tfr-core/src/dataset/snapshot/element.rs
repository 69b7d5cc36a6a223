//! A shard's records read as the components of elements: record `i` is component `i % n` of
//! element `i / n` (an element has `n` components, one record each). Whether a record is the
//! component its place says (a TensorProto of the spec's dtype and a shape the spec allows) is
//! checked here, so that a front end groups only records that fit and shows the others one by
//! one, saying why.

use super::{Component, Snapshot};
use crate::frame::Frame;
use crate::payload::{Decoded, Decoder};
use crate::tensor;

/// A record read as the component its place in the shard makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub element: usize,
    /// The component's path (as the spec has it, so escaped when shown).
    pub path: String,
    /// Its value as an element lists it (`int64 3`, `float32[3] [1.0, 2.0, 3.0]`), or why the
    /// record is not that component (naming the record).
    pub value: Result<String, String>,
}

/// Reads frame `frame` (decoded as `decoded`, `None` when it has no intact payload) as the
/// component of `snapshot` its index makes it; `None` when the snapshot does not group records.
pub fn place(
    snapshot: &Snapshot,
    decoder: &Decoder,
    frame: &Frame,
    payload: Option<(&[u8], &Decoded)>,
) -> Option<Placed> {
    let (element, component) = snapshot.place(frame.index)?;
    let value = match payload {
        Some((payload, decoded)) if frame.status.is_intact() => {
            read(decoder, frame.index, payload, decoded, element, component)
        }
        _ => Err(format!("record {} is damaged", frame.index)),
    };
    Some(Placed {
        element,
        path: component.path.clone(),
        value,
    })
}

/// `element 1's pair[0]`, escaped.
pub fn whose(element: usize, path: &str) -> String {
    match path {
        "" => format!("element {element}"),
        path => format!(
            "element {element}'s {}",
            crate::escape::name_for_terminal(path.as_bytes())
        ),
    }
}

fn read(
    decoder: &Decoder,
    record: usize,
    payload: &[u8],
    decoded: &Decoded,
    element: usize,
    component: &Component,
) -> Result<String, String> {
    let typed = decoded
        .typed(payload, decoder.table())
        .filter(|m| m.type_name() == "TensorProto");
    let Some(typed) = typed else {
        return Err(format!(
            "record {record} is {}, not a TensorProto as {} would be",
            decoded.kind.name(),
            whose(element, &component.path)
        ));
    };
    let info = tensor::read(&typed);
    if info.dtype_number != component.dtype {
        return Err(format!(
            "record {record} is {}, but {} is {}",
            info.signature(),
            whose(element, &component.path),
            component.type_text()
        ));
    }
    if let (Some(want), Some(have)) = (&component.shape, &info.dims) {
        let fits = want.len() == have.len() && want.iter().zip(have).all(|(w, h)| *w < 0 || w == h);
        if !fits {
            return Err(format!(
                "record {record} is {}, but {} is {}",
                info.signature(),
                whose(element, &component.path),
                component.type_text()
            ));
        }
    }
    Ok(crate::payload::tensor::component_line(&info))
}
