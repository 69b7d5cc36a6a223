//! Lines of a side input (an existing record index, the answers of a quiz on standard input), read
//! one at a time with a bound on each. Such inputs are not records: they are read as a stream, never
//! whole, and a line longer than the bound is kept up to it and reported as cut, without reading
//! the rest of it, so `/dev/zero` or one 50 MB line costs the bound and no more.

use std::io::{self, BufRead};

/// One line, without its `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The line's bytes, at most the bound.
    pub bytes: Vec<u8>,
    /// Whether the line went on past the bound (the rest is left unread).
    pub cut: bool,
}

impl Line {
    /// The line as text (invalid UTF-8 replaced), without a trailing `\r`.
    pub fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        text.strip_suffix('\r').unwrap_or(&text).to_string()
    }

    /// At most `chars` characters of the line for a message, with `…` when there was more.
    pub fn quoted(&self, chars: usize) -> String {
        let text = self.text();
        let mut shown: String = text.chars().take(chars).collect();
        if self.cut || text.chars().nth(chars).is_some() {
            shown.push('…');
        }
        shown
    }
}

/// Reads the next line of `reader`, keeping at most `bound` bytes of it: `None` at the end of the
/// input. A line longer than `bound` comes back cut, with what follows its first `bound` bytes
/// left unread; readers of such inputs stop there.
pub fn read_line(reader: &mut impl BufRead, bound: usize) -> io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let mut read_any = false;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            return Ok(read_any.then_some(Line { bytes, cut: false }));
        }
        read_any = true;
        let newline = memchr::memchr(b'\n', buffer);
        let line_part = newline.unwrap_or(buffer.len());
        let room = bound.saturating_sub(bytes.len());
        if line_part > room {
            bytes.extend_from_slice(buffer.get(..room).unwrap_or_default());
            reader.consume(room);
            return Ok(Some(Line { bytes, cut: true }));
        }
        bytes.extend_from_slice(buffer.get(..line_part).unwrap_or_default());
        match newline {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(Some(Line { bytes, cut: false }));
            }
            None => {
                let used = buffer.len();
                reader.consume(used);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    #[test]
    fn lines_come_whole_up_to_the_bound() {
        let mut input = BufReader::with_capacity(3, &b"ab\r\ncdef\n\nlast"[..]);
        let mut lines = Vec::new();
        while let Some(line) = read_line(&mut input, 4).unwrap() {
            lines.push((line.text(), line.cut));
        }
        let expected = [("ab", false), ("cdef", false), ("", false), ("last", false)];
        let expected: Vec<(String, bool)> =
            expected.iter().map(|(t, c)| (t.to_string(), *c)).collect();
        assert_eq!(lines, expected);
        assert_eq!(read_line(&mut &b""[..], 4).unwrap(), None);
    }

    #[test]
    fn an_endless_line_costs_the_bound_and_leaves_the_rest_unread() {
        // /dev/zero: no newline ever.
        let mut zeros = BufReader::new(std::io::repeat(0).take(u64::MAX));
        let line = read_line(&mut zeros, 4096).unwrap().unwrap();
        assert!(line.cut);
        assert_eq!(line.bytes.len(), 4096);
        let mut long = BufReader::with_capacity(2, &b"0123456789\nnext\n"[..]);
        let line = read_line(&mut long, 4).unwrap().unwrap();
        assert_eq!((line.bytes.as_slice(), line.cut), (&b"0123"[..], true));
        assert_eq!(line.quoted(2), "01…");
        assert_eq!(line.quoted(10), "0123…");
        let whole = Line {
            bytes: b"abc".to_vec(),
            cut: false,
        };
        assert_eq!(
            (whole.quoted(3), whole.quoted(2)),
            ("abc".into(), "ab…".into())
        );
    }
}
