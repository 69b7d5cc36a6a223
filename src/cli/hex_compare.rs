//! `hex --compare A B`: two records side by side, their values aligned by field path, with what
//! differs on the wire and whether parsers see the same message (the core's
//! [`tfr_core::compare`] decides; this file settles which records and prints).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::argv::{RecordArg, RecordNumber, parse_record_number, record_index};
use super::hex::HexArgs;
use super::{Env, Messages, Status};
use tfr_core::annotate::{Annotated, PayloadTokens, Role, Site, Token};
use tfr_core::compare::{Cell, Comparison, Same};
use tfr_core::explain::number::hex_bytes;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::wire::NodeKind;
use tfr_core::words::{column_width, display_width, pad_to};

/// Which record one side is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub path: PathBuf,
    pub record: RecordNumber,
}

/// Reads A or B: a record number of `file`, a file (its record `record`), or FILE:N.
pub fn parse_spec(text: &str, file: Option<&Path>, record: RecordNumber) -> Result<Spec, String> {
    if let Ok(n) = parse_record_number(text) {
        if let Some(file) = file {
            return Ok(Spec {
                path: file.to_path_buf(),
                record: n,
            });
        }
        if !Path::new(text).exists() {
            return Err(format!(
                "`{}` is a record number: name the file it is in (`hex FILE --compare 3 7`), or give FILE:N",
                tfr_core::escape::for_terminal(text)
            ));
        }
    }
    if !Path::new(text).exists() {
        if let Some((path, n)) = text.rsplit_once(':') {
            if let Ok(n) = parse_record_number(n) {
                return Ok(Spec {
                    path: PathBuf::from(path),
                    record: n,
                });
            }
        }
    }
    Ok(Spec {
        path: PathBuf::from(text),
        record,
    })
}

/// Bytes of a value shown before the rest is counted.
const SHOWN: usize = 8;

pub fn run(
    args: &HexArgs,
    specs: &[String],
    open: &OpenOptions,
    env: &Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if args.json || args.teach.is_set() {
        messages.error(
            &"hex --compare prints its own table; --json, --explain, --notes, --radix, --offsets and --dump are for one record",
        );
        return Ok(messages.raise(Status::Unusable));
    }
    // Split-wide numbers and several files name no one record a side could take.
    let record = match &args.record {
        RecordArg::InFile(n) => *n,
        RecordArg::InSplit(_) => {
            messages.error(
                &"hex --compare takes record numbers within a file (N or FILE:N), not NAME:N",
            );
            return Ok(messages.raise(Status::Unusable));
        }
    };
    let file = match args.files.as_slice() {
        [] => None,
        [file] => Some(file.as_path()),
        _ => {
            messages.error(&"hex --compare takes one FILE at most (or FILE:N as A and B)");
            return Ok(messages.raise(Status::Unusable));
        }
    };
    let mut sides = Vec::new();
    for text in specs {
        match parse_spec(text, file, record) {
            Ok(spec) => sides.push(spec),
            Err(e) => {
                messages.error(&e);
                return Ok(messages.raise(Status::Unusable));
            }
        }
    }
    let [a, b] = sides.as_slice() else {
        messages.error(&"hex --compare takes two records, A and B");
        return Ok(messages.raise(Status::Unusable));
    };
    // One input per file: a record compared with another of its own file is read once.
    let mut inputs: Vec<Input> = Vec::new();
    let mut which = [0usize; 2];
    for (slot, spec) in which.iter_mut().zip([a, b]) {
        if let Some(i) = inputs.iter().position(|i| i.source.path() == spec.path) {
            *slot = i;
            continue;
        }
        match Input::open(&spec.path, open) {
            Ok(input) => inputs.push(input),
            Err(e) => return Ok(messages.unusable(&e)),
        }
        *slot = inputs.len() - 1;
    }
    let mut frames = Vec::new();
    for (slot, spec) in which.iter().zip([a, b]) {
        let Some(input) = inputs.get_mut(*slot) else {
            return Ok(messages.raise(Status::Unusable));
        };
        let frame = match record_index(input, spec.record) {
            Ok(n) => messages.usable(input.frame(n)),
            Err(e) => {
                messages.unusable(&e);
                None
            }
        };
        let Some(frame) = frame else {
            return Ok(messages.status());
        };
        if !frame.status.is_intact() {
            messages.damage();
        }
        frames.push(frame);
    }
    let mut decoded = Vec::new();
    for (slot, frame) in which.iter().zip(&frames) {
        let input = &inputs[*slot];
        let Some(payload) = frame.payload(input.data()) else {
            messages.error(&format!(
                "{} record {} has no payload to compare ({})",
                input.name(),
                frame.index,
                frame.status.name()
            ));
            return Ok(messages.raise(Status::Unusable));
        };
        decoded.push(input.decoder().decode(payload));
    }
    let mut annotated = Vec::new();
    for ((slot, frame), decoded) in which.iter().zip(&frames).zip(&decoded) {
        let input = &inputs[*slot];
        annotated.push(Annotated::new(
            input.data(),
            frame,
            Some(decoded),
            input.decoder().table(),
        ));
    }
    let (Some(ta), Some(tb)) = (
        annotated.first().and_then(Annotated::payload),
        annotated.get(1).and_then(Annotated::payload),
    ) else {
        return Ok(messages.raise(Status::Unusable));
    };
    let pool = inputs[which[0]].decoder().schema.pool();
    let comparison = tfr_core::compare::compare(ta, tb, pool);
    for ((label, slot), (frame, decoded)) in ["A", "B"]
        .iter()
        .zip(which)
        .zip(frames.iter().zip(&decoded))
    {
        let input = &inputs[slot];
        writeln!(
            out,
            "{label}: {} record {}: {}, {} ({})",
            input.name(),
            frame.index,
            decoded.kind.name(),
            tfr_core::words::plural(frame.declared_length.unwrap_or(0), "payload byte"),
            frame.status.name()
        )?;
    }
    write_comparison(out, &comparison, ta, tb, env.width)?;
    for input in &inputs {
        if let Err(e) = input.check_unchanged() {
            return Ok(messages.unusable(&e));
        }
    }
    Ok(messages.status())
}

/// A value as its row shows it: its file offset, bytes and meaning.
fn cell_text(tokens: &PayloadTokens<'_>, cell: Option<&Cell>) -> String {
    let Some(cell) = cell else {
        return "-".to_string();
    };
    let bytes = tokens.bytes().get(cell.start..cell.end).unwrap_or_default();
    let shown = if bytes.len() > SHOWN {
        format!(
            "{} … ({} bytes)",
            hex_bytes(bytes.get(..SHOWN - 2).unwrap_or_default()),
            bytes.len()
        )
    } else {
        hex_bytes(bytes)
    };
    let offset = tokens.base() + cell.start as u64;
    // The value's token, made from what the comparison knows of it: finding it from its offset
    // would walk a packed run from its start for every number of it.
    let node = u32::try_from(cell.node).unwrap_or(u32::MAX);
    let is_data = tokens
        .decoded()
        .structure()
        .and_then(|t| t.node(cell.node))
        .is_some_and(|n| n.kind() == NodeKind::Bytes);
    let (role, site) = match (cell.packed, is_data) {
        (true, _) => (Role::Value, Site::Element(node)),
        (false, true) => (Role::Data, Site::Data(node)),
        (false, false) => (Role::Value, Site::Value(node)),
    };
    let token = Token {
        start: offset,
        end: tokens.base() + cell.end as u64,
        depth: 0,
        role,
        site,
    };
    let meaning = tokens.meaning(&token);
    let packed = if cell.packed { ", packed" } else { "" };
    format!("{offset}: {shown}  {meaning}{packed}")
}

/// The rows (two columns, or A and B under each path when the terminal is narrower than that),
/// the differences on the wire, and the verdict.
pub fn write_comparison(
    out: &mut impl Write,
    comparison: &Comparison,
    a: &PayloadTokens<'_>,
    b: &PayloadTokens<'_>,
    width: Option<usize>,
) -> std::io::Result<()> {
    let all = &comparison.rows;
    // A path's values are numbered when it has more than one (they come one after another).
    let several = |i: usize| {
        let path = all.get(i).map(|r| &r.path);
        (i > 0 && all.get(i - 1).map(|r| &r.path) == path)
            || all.get(i + 1).map(|r| &r.path) == path
    };
    let path_text = |i: usize, r: &tfr_core::compare::Row| {
        if several(i) {
            format!("{} #{}", r.path, r.ordinal + 1)
        } else {
            r.path.to_string()
        }
    };
    // Cells are worded twice (to measure, then to print) rather than all held at once.
    let path_width = column_width(
        all.iter()
            .enumerate()
            .map(|(i, r)| display_width(&path_text(i, r)))
            .chain([5]),
    );
    let a_width = column_width(
        all.iter()
            .map(|r| display_width(&cell_text(a, r.a.as_ref())))
            .chain([1]),
    );
    let needed = all
        .iter()
        .map(|r| 2 + path_width + 2 + a_width + 2 + display_width(&cell_text(b, r.b.as_ref())))
        .max()
        .unwrap_or(0);
    writeln!(out)?;
    let interleaved = width.is_some_and(|w| needed > w);
    if all.is_empty() {
        writeln!(out, "no values on either side")?;
    } else if !interleaved {
        writeln!(
            out,
            "  {}  {}  B",
            pad_to("field", path_width),
            pad_to("A", a_width)
        )?;
    }
    for (i, r) in all.iter().enumerate() {
        let (path, mark) = (path_text(i, r), r.mark.symbol());
        let (x, y) = (cell_text(a, r.a.as_ref()), cell_text(b, r.b.as_ref()));
        if interleaved {
            writeln!(out, "{mark} {path}")?;
            writeln!(out, "    A  {x}")?;
            writeln!(out, "    B  {y}")?;
        } else {
            writeln!(
                out,
                "{mark} {}  {}  {y}",
                pad_to(&path, path_width),
                pad_to(&x, a_width)
            )?;
        }
    }
    writeln!(out)?;
    if comparison.verdicts.is_empty() {
        writeln!(out, "On the wire: the same bytes.")?;
    } else {
        writeln!(out, "On the wire:")?;
        for verdict in &comparison.verdicts {
            writeln!(out, "  - {}", verdict.text)?;
        }
    }
    let how = match &comparison.sameness.check {
        tfr_core::compare::Check::Parsed(name) => format!(
            "both parsed as {} and the parsed messages compared",
            tfr_core::escape::for_terminal(name)
        ),
        tfr_core::compare::Check::Raw => {
            "no type both were read as: compared as `protoc --decode_raw` reads them, fields by number, nothing merged".to_string()
        }
    };
    let verdict = match &comparison.sameness.same {
        Same::Same => "the same message".to_string(),
        Same::Different => "different messages".to_string(),
        Same::Rejected(x, y) => {
            let mut parts = Vec::new();
            for (side, why) in [("A", x), ("B", y)] {
                if let Some(why) = why {
                    parts.push(format!(
                        "{side} is rejected ({})",
                        tfr_core::escape::for_terminal(why)
                    ));
                }
            }
            format!("no message to compare: {}", parts.join("; "))
        }
    };
    writeln!(out, "Parsers see: {verdict} ({how}).")
}
