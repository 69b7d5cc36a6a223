//! Bytes a parser rejects, explained like valid ones.
//!
//! The walk stops at the tag of the field where the bytes break a rule and reports the whole
//! rest of the message as one stretch. A learner needs more: the tokens up to the fault derived
//! as any others are (the tag `08` is a valid tag even when the varint after it is not), the
//! exact byte where the rule is broken, which rule it is, and what parsers do then (reject the
//! whole message). This module reads the field again from its tag and says all that.

use super::number::{self, wire_name};
use crate::wire::{MAX_TAG_OR_LENGTH_BYTES, WireErrorKind};
use crate::words::Radix;

/// The largest field number: a tag is a 32-bit value, three of whose bits are the wire type.
pub const MAX_FIELD: u64 = (1 << 29) - 1;

/// What parsers do with a message whose bytes break a rule of the wire format.
pub const REJECTED: &str = "parsers reject the whole message (Python protobuf raises DecodeError)";

/// One fault: the payload byte where a rule is broken, the rule, and the steps up to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The payload position of the byte that breaks the rule.
    pub byte: usize,
    /// The rule broken, in a few words.
    pub headline: String,
    /// The derivation from the field's tag to the fault, one line each.
    pub steps: Vec<String>,
}

/// The bytes of a varint at `pos` (up to `end`, at most ten), and whether a byte ends it.
fn varint_at(bytes: &[u8], pos: usize, end: usize) -> (&[u8], bool) {
    let stop = end.min(bytes.len()).min(pos.saturating_add(10));
    let window = bytes.get(pos..stop).unwrap_or_default();
    match window.iter().position(|b| b & 0x80 == 0) {
        Some(last) => (window.get(..=last).unwrap_or_default(), true),
        None => (window, false),
    }
}

/// The fault of the field whose tag starts at payload position `at`, in a message ending at
/// `end`, which the walk stopped at with `kind`.
pub fn explain(bytes: &[u8], at: usize, end: usize, kind: &WireErrorKind, radix: Radix) -> Fault {
    let r = radix;
    let pos = |p: usize| format!("payload byte {}", r.num(p as u64));
    let mut steps = Vec::new();
    let (tag_bytes, tag_ends) = varint_at(bytes, at, end);
    let after_tag = at + tag_bytes.len();
    if !tag_ends {
        let (byte, headline) = if tag_bytes.len() == 10 {
            (
                at + 9,
                "a varint longer than 10 bytes: its 10th byte still has the continuation bit set"
                    .to_string(),
            )
        } else {
            (
                after_tag.saturating_sub(1),
                "the tag's varint runs past the end of its message".to_string(),
            )
        };
        steps.push(format!(
            "{}: the tag {} -> every byte has its continuation bit set, and {} is the last one",
            pos(at),
            number::hex_bytes(tag_bytes),
            pos(byte)
        ));
        steps.push(format!("{headline}: {REJECTED}"));
        return Fault {
            byte,
            headline,
            steps,
        };
    }
    let (tag, _) = number::varint_value(tag_bytes);
    let field = tag >> 3;
    let wire = tag & 7;
    let mut derived = number::tag(tag_bytes);
    if let Some(first) = derived.first_mut() {
        *first = format!("{}: {first}", pos(at));
    }
    steps.extend(derived);
    let in_tag = matches!(
        kind,
        WireErrorKind::InvalidWireType(_)
            | WireErrorKind::TagTooLarge
            | WireErrorKind::TagTooLong
            | WireErrorKind::FieldNumberZero
    );
    if in_tag {
        let (byte, headline) = tag_fault(kind, tag_bytes, at, field, wire);
        let what = match kind {
            WireErrorKind::InvalidWireType(_) => format!(" ({})", wire_word(wire)),
            _ => String::new(),
        };
        steps.push(format!("{}{what}: {headline}", pos(byte)));
        steps.push(REJECTED.to_string());
        return Fault {
            byte,
            headline,
            steps,
        };
    }
    let (byte, headline) = match kind {
        WireErrorKind::VarintTooLong | WireErrorKind::TruncatedVarint => {
            let (value, ends) = varint_at(bytes, after_tag, end);
            let last = after_tag + value.len().saturating_sub(1);
            let shown = number::hex_bytes(value);
            if value.len() == 10 && !ends {
                steps.push(format!(
                    "{}: a varint starts: {shown} -> each of its 10 bytes has the continuation bit \
                     set, so the 10th ({}) does not end it",
                    pos(after_tag),
                    pos(last)
                ));
                (
                    last,
                    "a varint longer than 10 bytes (a varint holds at most 64 bits, in at most 10 \
                     bytes)"
                        .to_string(),
                )
            } else {
                steps.push(format!(
                    "{}: a varint starts: {shown} -> its last byte ({}) still has the continuation \
                     bit set, and the message ends after it",
                    pos(after_tag),
                    pos(last)
                ));
                (
                    last,
                    "a varint runs past the end of its message".to_string(),
                )
            }
        }
        WireErrorKind::LengthPastEnd {
            length, available, ..
        } => {
            let (prefix, _) = varint_at(bytes, after_tag, end);
            let data = after_tag + prefix.len();
            let (_, line) = number::varint(prefix);
            steps.push(format!("{}: the length {line}", pos(after_tag)));
            steps.push(format!(
                "the {} would run from {} to {}, but the message ends at {}: only {} remain",
                r.bytes(*length),
                pos(data),
                pos(data.saturating_add(usize::try_from(*length).unwrap_or(usize::MAX))),
                pos(end),
                r.num(*available),
            ));
            (
                after_tag,
                format!(
                    "a length of {} runs past the end of its message ({} remain)",
                    r.num(*length),
                    r.num(*available)
                ),
            )
        }
        WireErrorKind::LengthTooLong { .. } => (
            after_tag,
            format!(
                "a length prefix in more than {MAX_TAG_OR_LENGTH_BYTES} bytes (a length is a 32-bit value)"
            ),
        ),
        WireErrorKind::TruncatedFixed {
            needed, available, ..
        } => {
            steps.push(format!(
                "{}: wire type {wire} ({}) needs {} of value, but only {} remain",
                pos(after_tag),
                wire_name(wire),
                r.bytes(*needed as u64),
                r.num(*available as u64)
            ));
            (
                after_tag,
                format!(
                    "a fixed-width value cut short ({} remain)",
                    r.num(*available as u64)
                ),
            )
        }
        WireErrorKind::UnexpectedEndGroup { field } => (
            at,
            format!(
                "an end-group tag (EGROUP) for field {field} where no group is open: EGROUP only \
                 closes a group its SGROUP tag (wire type 3) opened"
            ),
        ),
        WireErrorKind::MismatchedEndGroup { expected, found } => (
            at,
            format!(
                "an end-group tag (EGROUP) for field {found} inside the group of field {expected}: \
                 a group must be closed by an EGROUP of its own field number"
            ),
        ),
        WireErrorKind::UnterminatedGroup { field } => (
            end,
            format!("the group of field {field} is never closed by its end-group tag"),
        ),
        WireErrorKind::PackedTruncated { field } => (
            after_tag,
            format!("the packed values of field {field} end inside a value"),
        ),
        WireErrorKind::TooDeep => (at, "messages nested deeper than parsers follow".to_string()),
        WireErrorKind::TooLarge { .. } => (at, "a message over 2 GiB".to_string()),
        // Handled above with the tag.
        WireErrorKind::InvalidWireType(_)
        | WireErrorKind::TagTooLarge
        | WireErrorKind::TagTooLong
        | WireErrorKind::FieldNumberZero => (at, kind.to_string()),
    };
    steps.push(format!("{}: {headline}: {REJECTED}", pos(byte)));
    Fault {
        byte,
        headline,
        steps,
    }
}

/// `wire type 110 = 6`, for the step that names a fault in a tag.
fn wire_word(wire: u64) -> String {
    format!("wire type {} = {wire}", number::low_bits(wire, 3))
}

/// A fault in the tag itself: the byte that holds the broken bits, and the rule.
fn tag_fault(
    kind: &WireErrorKind,
    tag_bytes: &[u8],
    at: usize,
    field: u64,
    wire: u64,
) -> (usize, String) {
    match kind {
        WireErrorKind::InvalidWireType(_) => (
            at,
            format!(
                "wire type {wire} does not exist: the wire types are 0 to 5 (VARINT, I64, LEN, \
                 SGROUP, EGROUP, I32)"
            ),
        ),
        WireErrorKind::FieldNumberZero => {
            (at, "field number 0: field numbers start at 1".to_string())
        }
        WireErrorKind::TagTooLong => (
            at + MAX_TAG_OR_LENGTH_BYTES,
            format!(
                "a tag in {} bytes, more than the {MAX_TAG_OR_LENGTH_BYTES} a 32-bit value takes",
                tag_bytes.len()
            ),
        ),
        _ => {
            let over = if field == MAX_FIELD + 1 {
                "2^29, one above the largest field number 536870911 (2^29 - 1)".to_string()
            } else {
                format!("{field}, above the largest field number 536870911 (2^29 - 1)")
            };
            (
                at + tag_bytes.len().saturating_sub(1),
                format!("field {over}: a tag must fit in 32 bits"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(bytes: &[u8], kind: WireErrorKind) -> Fault {
        explain(bytes, 0, bytes.len(), &kind, Radix::Decimal)
    }

    #[test]
    fn a_varint_of_eleven_bytes_is_found_after_its_valid_tag() {
        let mut bytes = vec![0x08];
        bytes.extend([0xff; 10]);
        bytes.push(0x01);
        let f = fault(&bytes, WireErrorKind::VarintTooLong);
        assert_eq!(f.byte, 10);
        assert!(
            f.steps[0].starts_with("payload byte 0: 08 -> 0000 1000"),
            "{f:?}"
        );
        assert!(
            f.steps[1].starts_with("payload byte 1: a varint starts: ff ff"),
            "{f:?}"
        );
        assert!(
            f.steps[1].ends_with("so the 10th (payload byte 10) does not end it"),
            "{f:?}"
        );
        assert!(
            f.steps[2].contains("parsers reject the whole message"),
            "{f:?}"
        );
    }

    #[test]
    fn tag_faults_are_derived_from_the_tag() {
        let f = fault(&[0x0e], WireErrorKind::InvalidWireType(6));
        assert!(
            f.steps[0].contains("field 0001 = 1, wire type 110 = 6"),
            "{f:?}"
        );
        assert!(
            f.headline.starts_with("wire type 6 does not exist"),
            "{f:?}"
        );
        let f = fault(&[0x0f], WireErrorKind::InvalidWireType(7));
        assert!(
            f.headline.starts_with("wire type 7 does not exist"),
            "{f:?}"
        );
        let f = fault(&[0x80, 0x80, 0x80, 0x80, 0x10], WireErrorKind::TagTooLarge);
        assert_eq!(f.byte, 4);
        assert!(
            f.headline
                .starts_with("field 2^29, one above the largest field number 536870911"),
            "{f:?}"
        );
        let f = fault(&[0x00, 0x01], WireErrorKind::FieldNumberZero);
        assert!(f.headline.starts_with("field number 0"), "{f:?}");
        // d4 01: 212 = field 26, wire type 4.
        let f = fault(
            &[0xd4, 0x01],
            WireErrorKind::UnexpectedEndGroup { field: 26 },
        );
        assert!(
            f.steps[1].contains("field 11010 = 26, wire type 100 = 4 (EGROUP)"),
            "{f:?}"
        );
        assert!(f.headline.contains("where no group is open"), "{f:?}");
    }

    #[test]
    fn a_length_past_the_end_names_where_it_would_end() {
        let f = fault(
            &[0x0a, 0x05, 0x01],
            WireErrorKind::LengthPastEnd {
                field: 1,
                length: 5,
                available: 1,
            },
        );
        assert_eq!(f.byte, 1);
        assert!(
            f.steps.iter().any(|s| s
                == "the 5 bytes would run from payload byte 2 to payload byte 7, but the message \
                    ends at payload byte 3: only 1 remain"),
            "{f:?}"
        );
    }
}
