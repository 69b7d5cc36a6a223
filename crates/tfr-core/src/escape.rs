//! Text from a file, made safe for a terminal and for line-oriented output.
//!
//! Feature names, string values and file names are bytes someone else wrote. Printed raw, an
//! `ESC ] 2 ; … BEL` retitles the terminal, OSC 52 writes the clipboard, a `\r` overwrites the line
//! that says DAMAGED, and a right-to-left override reverses what follows. Every such string goes
//! through this module before it is shown: control characters (C0, DEL, C1), bidirectional
//! controls and line/paragraph separators become visible escapes, and bytes that are not UTF-8
//! become octal escapes, so the output stays one line per item and says exactly what the bytes are.
//!
//! The escapes follow protobuf's text format where it has one (`\n`, `\t`, `\r`, `\"`-free octal
//! `\033`), and `\u202e` for the Unicode controls it leaves raw.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal as itself.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn push_escaped(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\{:03o}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
    }
}

/// `text` with every character [`is_unsafe`] escaped; borrowed when nothing needed escaping.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    // Printable ASCII (most names and values) is checked a byte at a time, without decoding.
    let printable = |b: &u8| (0x20..0x7f).contains(b);
    if text.as_bytes().iter().all(printable) || !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            push_escaped(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Bytes as terminal-safe text: UTF-8 runs as [`for_terminal`] shows them, every other byte as an
/// octal escape (`\377`).
pub fn bytes_for_terminal(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return for_terminal(text);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(&for_terminal(chunk.valid()));
        for byte in chunk.invalid() {
            let _ = write!(out, "\\{byte:03o}");
        }
    }
    Cow::Owned(out)
}

/// A name a file chose (a feature's key) as [`bytes_for_terminal`] shows it, and an empty name as
/// `""`, so that it is seen instead of a gap.
pub fn name_for_terminal(name: &[u8]) -> Cow<'_, str> {
    if name.is_empty() {
        return Cow::Borrowed("\"\"");
    }
    bytes_for_terminal(name)
}

/// Text from an input (a file's bytes, its metadata, its name, an answer typed in), kept as it
/// came. Shown, it is escaped: its `Display` is [`for_terminal`]'s, so no format string can put
/// it on a terminal raw, and [`Untrusted::raw`] is the text itself, for comparisons and JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Untrusted(String);

impl Untrusted {
    pub fn new(text: impl Into<String>) -> Untrusted {
        Untrusted(text.into())
    }

    /// The text as it came, for comparing and for JSON (which escapes it its own way); never
    /// for a terminal.
    pub fn raw(&self) -> &str {
        &self.0
    }

    /// The text as a terminal is shown it.
    pub fn shown(&self) -> Cow<'_, str> {
        for_terminal(&self.0)
    }
}

impl std::fmt::Display for Untrusted {
    /// Escaped; padding and width (`{:<10}`) apply to the escaped text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.shown())
    }
}

impl From<String> for Untrusted {
    fn from(text: String) -> Untrusted {
        Untrusted(text)
    }
}

impl From<&str> for Untrusted {
    fn from(text: &str) -> Untrusted {
        Untrusted(text.to_string())
    }
}

/// A path for messages: its name as [`bytes_for_terminal`] shows it.
pub fn path_for_terminal(path: &std::path::Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        bytes_for_terminal(path.as_os_str().as_bytes()).into_owned()
    }
    #[cfg(not(unix))]
    {
        for_terminal(&path.to_string_lossy()).into_owned()
    }
}

/// A path for JSON, which escapes what it holds itself: its name as it is (bytes that are not
/// UTF-8 become U+FFFD).
pub fn path_for_json(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

/// UTF-8 with no control characters other than tab, newline and carriage return.
pub fn looks_like_text(payload: &[u8]) -> bool {
    !payload.is_empty()
        && std::str::from_utf8(payload).is_ok_and(|text| {
            text.chars()
                .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(for_terminal("image/encoded"), Cow::Borrowed(_)));
        assert!(matches!(for_terminal("label_名前 ☕"), Cow::Borrowed(_)));
    }

    #[test]
    fn control_sequences_become_visible() {
        assert_eq!(
            for_terminal("\u{1b}]2;owned\u{7}"),
            "\\033]2;owned\\007".to_string()
        );
        assert_eq!(for_terminal("a\r\nb\tc\u{7f}"), "a\\r\\nb\\tc\\177");
        // C1 CSI, a right-to-left override and a line separator.
        assert_eq!(
            for_terminal("\u{9b}31m \u{202e}gpj \u{2028}"),
            "\\u009b31m \\u202egpj \\u2028"
        );
    }

    #[test]
    fn untrusted_text_is_escaped_wherever_it_is_formatted() {
        let name = Untrusted::new("tr\u{1b}]2;x\u{7}ain");
        assert_eq!(format!("{name}"), "tr\\033]2;x\\007ain");
        assert_eq!(format!("[{name:>18}]"), "[ tr\\033]2;x\\007ain]");
        assert_eq!(name.raw(), "tr\u{1b}]2;x\u{7}ain");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_octal() {
        assert_eq!(bytes_for_terminal(b"ok\xff\x1b"), "ok\\377\\033");
        assert_eq!(bytes_for_terminal("é".as_bytes()), "é");
    }
}
