//! What a user's schema may cost. A `.proto` file or a descriptor set is input like any other:
//! a descriptor set of 200,000 tiny messages (4 MB) costs 700 MB once compiled, a `.proto` of
//! 3,000 nested messages overflows the compiler's stack, and `/dev/zero` named as either never
//! ends. The schema's files are read up to [`MAX_SCHEMA_BYTES`] in all; each file's nesting and
//! declarations are counted before the compiler sees it (on the text of a `.proto`, on the wire
//! bytes of a descriptor set), so none of that reaches the compiler, and the first limit passed
//! is an error naming the file.

use std::collections::HashMap;
use std::io::Read;
use std::iter::Peekable;
use std::path::{Path, PathBuf};
use std::str::Chars;

/// The most bytes the files of a schema (its `.proto` files, imports included, and descriptor
/// sets) may hold together.
pub const MAX_SCHEMA_BYTES: u64 = 16 * 1024 * 1024;
/// The most `.proto` files (imports included) a schema may open, and the most files a descriptor
/// set may hold. Imports are compiled recursively, so this also bounds how deep they chain.
pub const MAX_FILES: usize = 1_000;
/// How deeply braces, brackets and parentheses may nest in a `.proto` file, and messages nest
/// in a descriptor set.
pub const MAX_NESTING: usize = 64;
/// The most messages, enums and services a schema may declare.
pub const MAX_TYPES: usize = 5_000;
/// The most fields, enum values, extensions and methods a schema may declare.
pub const MAX_MEMBERS: usize = 50_000;

/// Why a file of the schema was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub path: PathBuf,
    pub message: String,
}

/// What the schema's files have cost so far, and where each `.proto` was read from.
#[derive(Debug, Default)]
pub struct Ledger {
    bytes: u64,
    files: usize,
    types: usize,
    members: usize,
    /// The path each `.proto` was read from, by the name it is imported by.
    paths: HashMap<String, PathBuf>,
    /// The first file refused, when one was.
    pub refusal: Option<Refusal>,
}

/// Declarations counted in one file.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub files: usize,
    pub types: usize,
    pub members: usize,
}

impl Ledger {
    /// Adds one file's declarations; the limit they pass, if they pass one.
    pub fn charge(&mut self, tally: Tally) -> Result<(), String> {
        self.files = self.files.saturating_add(tally.files);
        self.types = self.types.saturating_add(tally.types);
        self.members = self.members.saturating_add(tally.members);
        if self.files > MAX_FILES {
            return Err(format!("the schema opens more than {MAX_FILES} files"));
        }
        if self.types > MAX_TYPES {
            return Err(format!(
                "the schema declares more than {MAX_TYPES} messages, enums and services"
            ));
        }
        if self.members > MAX_MEMBERS {
            return Err(format!(
                "the schema declares more than {MAX_MEMBERS} fields, enum values and methods"
            ));
        }
        Ok(())
    }

    /// Records where the `.proto` imported as `name` was read from.
    pub fn opened(&mut self, name: &str, path: &Path) {
        self.paths.insert(name.to_string(), path.to_path_buf());
    }

    /// Where the `.proto` imported as `name` was read from, when it was read from a file.
    pub fn path_of(&self, name: &str) -> Option<&Path> {
        self.paths.get(name).map(PathBuf::as_path)
    }

    /// Reads `file` as far as the schema's bytes allow: an error past [`MAX_SCHEMA_BYTES`] in
    /// all, so `/dev/zero` stops there.
    pub fn read(&mut self, file: impl Read) -> Result<Vec<u8>, String> {
        let left = MAX_SCHEMA_BYTES.saturating_sub(self.bytes);
        let mut bytes = Vec::new();
        file.take(left.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        self.bytes = self.bytes.saturating_add(bytes.len() as u64);
        if self.bytes > MAX_SCHEMA_BYTES {
            return Err(format!(
                "the schema's files hold more than {} MiB",
                MAX_SCHEMA_BYTES >> 20
            ));
        }
        Ok(bytes)
    }
}

/// Statements a `.proto` file may hold before it is parsed (`;` and `{`): twice what the schema
/// may declare, room for options, imports and the like. Its declarations are counted exactly once
/// it is parsed; this bounds what parsing it costs.
pub const MAX_STATEMENTS: usize = 2 * (MAX_TYPES + MAX_MEMBERS);

/// Checks the text of a `.proto` file before it is parsed: brackets nested at most
/// [`MAX_NESTING`] deep, and at most [`MAX_STATEMENTS`] statements. Strings and comments are
/// skipped as the protobuf lexer skips them.
pub fn check_text(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    let mut statements = 0usize;
    let mut line = 1usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '/' if chars.peek() == Some(&'/') => line += skip_line_comment(&mut chars),
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                line += skip_block_comment(&mut chars);
            }
            '"' | '\'' => line += skip_string(&mut chars, c),
            '{' | '[' | '(' | '<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!(
                        "line {line}: nested more than {MAX_NESTING} levels deep"
                    ));
                }
                if c == '{' {
                    statements += 1;
                }
            }
            '}' | ']' | ')' | '>' => depth = depth.saturating_sub(1),
            ';' => statements += 1,
            _ => {}
        }
        if statements > MAX_STATEMENTS {
            return Err(format!(
                "line {line}: more than {MAX_STATEMENTS} statements (a schema may declare \
                 {MAX_TYPES} messages, enums and services and {MAX_MEMBERS} fields, enum values \
                 and methods)"
            ));
        }
    }
    Ok(())
}

/// Skips the rest of a `//` comment, its newline included; returns the lines passed.
fn skip_line_comment(chars: &mut Peekable<Chars<'_>>) -> usize {
    for c in chars.by_ref() {
        if c == '\n' {
            return 1;
        }
    }
    0
}

/// Skips the rest of a `/* */` comment after its `/*`; returns the lines passed.
fn skip_block_comment(chars: &mut Peekable<Chars<'_>>) -> usize {
    let mut lines = 0;
    let mut star = false;
    for c in chars.by_ref() {
        match c {
            '/' if star => break,
            '\n' => lines += 1,
            _ => {}
        }
        star = c == '*';
    }
    lines
}

/// Skips the rest of a string opened by `quote`; returns the lines passed.
fn skip_string(chars: &mut Peekable<Chars<'_>>, quote: char) -> usize {
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            // An unterminated string: the parser reports it.
            '\n' => return 1,
            c if c == quote => break,
            _ => {}
        }
    }
    0
}

/// The declarations of a parsed `.proto` file, counted without recursion.
pub fn tally_file(file: &prost_reflect::prost_types::FileDescriptorProto) -> Tally {
    let mut tally = Tally {
        files: 1,
        types: file.enum_type.len() + file.service.len(),
        members: file.extension.len(),
    };
    for service in &file.service {
        tally.members += service.method.len();
    }
    let mut enums: Vec<&prost_reflect::prost_types::EnumDescriptorProto> =
        file.enum_type.iter().collect();
    let mut messages: Vec<&prost_reflect::prost_types::DescriptorProto> =
        file.message_type.iter().collect();
    while let Some(message) = messages.pop() {
        tally.types += 1 + message.enum_type.len();
        tally.members += message.field.len() + message.extension.len();
        enums.extend(&message.enum_type);
        messages.extend(&message.nested_type);
    }
    for e in enums {
        tally.members += e.value.len();
    }
    tally
}

/// What a length-delimited field of a descriptor holds, as far as counting goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Set,
    File,
    Message,
    Enum,
    Service,
    /// A field, value, extension or method: counted, not read.
    Member,
    /// Anything else: skipped.
    Other,
}

impl Part {
    /// What field `number` of this part holds.
    fn child(self, number: u64) -> Part {
        match (self, number) {
            (Part::Set, 1) => Part::File,
            (Part::File, 4) | (Part::Message, 3) => Part::Message,
            (Part::File, 5) | (Part::Message, 4) => Part::Enum,
            (Part::File, 6) => Part::Service,
            (Part::File, 7) | (Part::Message, 2 | 6) | (Part::Enum, 2) | (Part::Service, 2) => {
                Part::Member
            }
            _ => Part::Other,
        }
    }
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Counts the files, types and members of the binary `FileDescriptorSet` in `bytes`, on its
/// wire bytes, before anything is decoded: an error for messages nested deeper than
/// [`MAX_NESTING`]. Bytes that are not a valid set are counted as far as they go; decoding
/// reports them.
pub fn tally_set(bytes: &[u8]) -> Result<Tally, String> {
    let mut tally = Tally::default();
    tally_part(bytes, Part::Set, 0, &mut tally)?;
    Ok(tally)
}

/// Counts what `bytes`, a `part`, holds; `depth` is how many messages enclose it.
fn tally_part(bytes: &[u8], part: Part, depth: usize, tally: &mut Tally) -> Result<(), String> {
    let mut at = 0;
    while at < bytes.len() {
        let Some(tag) = varint(bytes, &mut at) else {
            return Ok(());
        };
        let skip = match tag & 7 {
            0 => varint(bytes, &mut at).map(|_| 0),
            1 => Some(8),
            5 => Some(4),
            2 => varint(bytes, &mut at),
            _ => None,
        };
        let Some(end) = skip
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| at.checked_add(n))
            .filter(|end| *end <= bytes.len())
        else {
            return Ok(());
        };
        if tag & 7 == 2 {
            let child = part.child(tag >> 3);
            match child {
                Part::File => tally.files += 1,
                Part::Message | Part::Enum | Part::Service => tally.types += 1,
                Part::Member => tally.members += 1,
                Part::Set | Part::Other => {}
            }
            if matches!(
                child,
                Part::File | Part::Message | Part::Enum | Part::Service
            ) {
                let depth = depth + usize::from(child == Part::Message);
                if depth > MAX_NESTING {
                    return Err(format!(
                        "messages nested more than {MAX_NESTING} levels deep"
                    ));
                }
                let inner = bytes.get(at..end).unwrap_or_default();
                tally_part(inner, child, depth, tally)?;
            }
        }
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::crafted::length_delimited as ld;

    #[test]
    fn text_nesting_and_statements_are_counted_outside_strings_and_comments() {
        let nested = |n: usize| format!("{}int32 x = 1;{}", "message M {".repeat(n), "}".repeat(n));
        assert!(check_text(&nested(MAX_NESTING)).is_ok());
        assert_eq!(
            check_text(&nested(3_000)).unwrap_err(),
            "line 1: nested more than 64 levels deep"
        );
        let hidden = format!(
            "// {{{{{{\n/* {} */\nmessage M {{ string s = 1 [default = \"{}\\\"\"]; }}",
            "{".repeat(100),
            "[".repeat(100)
        );
        assert!(check_text(&hidden).is_ok(), "{:?}", check_text(&hidden));
        let many = "int32 x = 1;\n".repeat(MAX_STATEMENTS + 1);
        let err = check_text(&many).unwrap_err();
        assert!(
            err.starts_with("line 110001: more than 110000 statements"),
            "{err}"
        );
    }

    #[test]
    fn a_set_is_counted_on_its_wire_bytes() {
        let field = ld(2, &ld(1, b"x"));
        let value = ld(2, &ld(1, b"V"));
        let inner = ld(3, &[ld(1, b"In"), field.clone()].concat());
        let message = ld(4, &[ld(1, b"M"), field.clone(), field, inner].concat());
        let enumeration = ld(5, &[ld(1, b"E"), value.clone(), value].concat());
        let file = ld(1, &[ld(1, b"f.proto"), message, enumeration].concat());
        let set = [file.clone(), file].concat();
        let tally = tally_set(&set).unwrap();
        assert_eq!(
            tally,
            Tally {
                files: 2,
                types: 6,
                members: 10
            }
        );
        // Truncated or not a set at all: counted as far as it goes, never an error here.
        assert!(tally_set(&set[..set.len() - 3]).is_ok());
        assert_eq!(tally_set(&[0xff; 20]).unwrap(), Tally::default());
    }

    #[test]
    fn messages_nested_past_the_limit_in_a_set_are_refused_before_decoding() {
        let set = |levels: usize| {
            let mut message = ld(1, b"M");
            for _ in 1..levels {
                message = [ld(1, b"M"), ld(3, &message)].concat();
            }
            ld(1, &ld(4, &message))
        };
        assert_eq!(tally_set(&set(MAX_NESTING)).unwrap().types, MAX_NESTING);
        assert_eq!(
            tally_set(&set(MAX_NESTING + 1)).unwrap_err(),
            "messages nested more than 64 levels deep"
        );
    }

    #[test]
    fn the_ledger_names_the_first_limit_passed() {
        let mut ledger = Ledger::default();
        let one = Tally {
            files: 1,
            types: MAX_TYPES / 2,
            members: 0,
        };
        assert!(ledger.charge(one).is_ok());
        assert!(ledger.charge(one).is_ok());
        assert_eq!(
            ledger.charge(one).unwrap_err(),
            "the schema declares more than 5000 messages, enums and services"
        );
        let mut ledger = Ledger::default();
        assert_eq!(ledger.read(&b"abc"[..]).unwrap(), b"abc");
        assert_eq!(
            ledger.read(std::io::repeat(0)).unwrap_err(),
            "the schema's files hold more than 16 MiB"
        );
    }
}
