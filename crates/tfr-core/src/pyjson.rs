//! The tool's own reports as JSON, printed the way Python's `json.dumps(report, sort_keys=True)`
//! prints them: `", "` and `": "` between items, keys sorted, every character outside printable
//! ASCII written as a `\uXXXX` escape (so a report is safe to print on a terminal as it is).
//!
//! Reports are plain data types with `#[derive(Serialize)]`; this is the one place that turns
//! them into text. Protobuf's canonical JSON of a record (`show --format json`) has its own writer
//! ([`crate::jsonformat`]): it follows `json_format`'s rules, not `json.dumps`'.

use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter, Serializer};

/// `value` as one line of JSON with sorted keys and Python's separators.
///
/// Floats are written as Rust writes them (`{:?}`: the shortest text that reads back as the same
/// number); a float that is not finite is `null`, as JSON has no such numbers.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    // Through a `Value` first: its objects are sorted maps, so every object's keys come out
    // sorted whatever order a struct declares its fields in.
    let tree = serde_json::to_value(value)?;
    let mut out = Vec::new();
    tree.serialize(&mut Serializer::with_formatter(&mut out, PythonStyle))?;
    // Every byte written is ASCII: strings are escaped past printable ASCII.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `serde_json`'s compact output with Python's separators and ASCII-only strings.
struct PythonStyle;

impl Formatter for PythonStyle {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        write!(w, "{value:?}")
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        write!(w, "{value:?}")
    }

    /// A run of characters that JSON itself needs no escape for: printable ASCII is copied, the
    /// rest (DEL, and everything past ASCII) becomes UTF-16 `\uXXXX` escapes, as `ensure_ascii`
    /// writes them.
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while !rest.is_empty() {
            let plain = rest
                .bytes()
                .position(|b| !(b' '..=b'~').contains(&b))
                .unwrap_or(rest.len());
            let (copied, tail) = rest.split_at(plain);
            w.write_all(copied.as_bytes())?;
            let mut chars = tail.chars();
            if let Some(ch) = chars.next() {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    write!(w, "\\u{unit:04x}")?;
                }
            }
            rest = chars.as_str();
        }
        Ok(())
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let text: &[u8] = match escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"\\/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(byte) => return write!(w, "\\u{byte:04x}"),
        };
        w.write_all(text)
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::to_string;

    #[derive(Serialize)]
    struct Shard {
        path: String,
        records: u64,
        damaged: Vec<u64>,
        mean: f64,
        last: Option<f64>,
        ok: bool,
    }

    #[test]
    fn a_report_prints_with_sorted_keys_and_python_separators() {
        let shard = Shard {
            path: "train-00000-of-00002".into(),
            records: 12,
            damaged: vec![3, 7],
            mean: 1689.9,
            last: None,
            ok: false,
        };
        assert_eq!(
            to_string(&shard).unwrap(),
            r#"{"damaged": [3, 7], "last": null, "mean": 1689.9, "ok": false, "path": "train-00000-of-00002", "records": 12}"#
        );
    }

    #[test]
    fn floats_read_back_as_themselves_and_those_that_are_not_finite_are_null() {
        let values = [1.0, 0.1, 1e16, 1e-7, -0.0, 3000.5, f64::NAN, f64::INFINITY];
        assert_eq!(
            to_string(&values).unwrap(),
            "[1.0, 0.1, 1e16, 1e-7, -0.0, 3000.5, null, null]"
        );
    }

    #[test]
    fn characters_past_printable_ascii_are_escapes_and_escape_bytes_never_pass() {
        let text = "a\u{1b}]0;title\u{7}\u{7f}é😀\"\\\n";
        assert_eq!(
            to_string(text).unwrap(),
            r#""a\u001b]0;title\u0007\u007f\u00e9\ud83d\ude00\"\\\n""#
        );
    }
}
