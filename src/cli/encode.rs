//! `encode`: the other direction of `hex --explain`. A value and its type in, the bytes an
//! encoder writes out, with the working by hand (varint groups, zigzag, two's complement, a
//! float's fields, little-endian order); `--tag` works out a tag from its field number and wire
//! type. The working comes from the core ([`tfr_core::explain::encode`]).

use std::io::Write;

use anyhow::Result;
use clap::Args;

use super::{Messages, Status};
use tfr_core::explain::encode::{self, Encoded, ScalarType};
use tfr_core::explain::number::hex_bytes;

#[derive(Debug, Args)]
pub struct EncodeArgs {
    /// The value: a number (decimal or 0x…), true/false, or text for string and bytes.
    #[arg(allow_hyphen_values = true, value_name = "VALUE")]
    pub value: Option<String>,
    /// The field's type: int32, int64, uint32, uint64, sint32, sint64, bool, fixed32, fixed64,
    /// sfixed32, sfixed64, float, double, string, bytes (default: int64 for a number).
    #[arg(long = "type", value_name = "TYPE")]
    pub ty: Option<String>,
    /// Also the tag: field number and wire type (0 to 5, or VARINT, I64, LEN, SGROUP, EGROUP,
    /// I32; taken from --type when a value is given).
    #[arg(long, num_args = 1..=2, value_names = ["FIELD", "WIRETYPE"])]
    pub tag: Option<Vec<String>>,
}

/// What was asked for, or why it cannot be.
fn encode_all(args: &EncodeArgs) -> Result<Vec<(String, Encoded)>, String> {
    let ty = match &args.ty {
        Some(name) => Some(ScalarType::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = ScalarType::ALL.iter().map(|(n, _)| *n).collect();
            format!(
                "--type {name:?} is no scalar type; say one of {}",
                names.join(", ")
            )
        })?),
        None => None,
    };
    let mut parts = Vec::new();
    if let Some(tag) = &args.tag {
        let field = tag
            .first()
            .and_then(|f| f.parse::<u64>().ok())
            .ok_or_else(|| "--tag takes a field number first".to_string())?;
        let wire = match (tag.get(1), ty) {
            (Some(w), _) => encode::parse_wire_type(w).map_err(|e| e.to_string())?,
            (None, Some(ty)) => ty.wire_type(),
            (None, None) if args.value.is_some() => 0,
            (None, None) => {
                return Err("--tag needs a wire type (`--tag 2 LEN`) or a --type".to_string());
            }
        };
        let encoded = encode::tag(field, wire).map_err(|e| e.to_string())?;
        parts.push((format!("tag of field {field}"), encoded));
    }
    if let Some(value) = &args.value {
        let ty = ty.unwrap_or(ScalarType::Int64);
        let encoded = encode::scalar(ty, value).map_err(|e| e.to_string())?;
        parts.push((
            format!("{} {}", ty.name(), tfr_core::escape::for_terminal(value)),
            encoded,
        ));
    }
    if parts.is_empty() {
        return Err(
            "give a value (`encode 300`, `encode --type sint64 -150`) or `--tag FIELD WIRETYPE`"
                .to_string(),
        );
    }
    Ok(parts)
}

pub fn run(args: &EncodeArgs, messages: &Messages, out: &mut impl Write) -> Result<Status> {
    let parts = match encode_all(args) {
        Ok(parts) => parts,
        Err(e) => {
            messages.error(&e);
            return Ok(messages.raise(Status::Unusable));
        }
    };
    let all: Vec<u8> = parts.iter().flat_map(|(_, e)| e.bytes.clone()).collect();
    writeln!(out, "{}", hex_bytes(&all))?;
    for (what, encoded) in &parts {
        writeln!(out, "  {what}: {}", hex_bytes(&encoded.bytes))?;
        for step in &encoded.steps {
            writeln!(out, "  | {step}")?;
        }
    }
    Ok(messages.status())
}
