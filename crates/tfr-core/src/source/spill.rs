//! A temporary file for streams that have no file of their own to map.
//!
//! What a pipe sends and what a compressed file inflates to can be many gigabytes. Held in a
//! vector it would all be anonymous memory, which the kernel can only swap; written to a file it
//! sits in the page cache, which the kernel can drop and reread, and once mapped it is read like
//! any input. The file is created unlinked in `$TMPDIR`, so it vanishes with the process however
//! the process ends.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};

/// Bytes written at a time.
const BUFFER: usize = 1 << 20;

/// A temporary file being filled.
pub struct Spill {
    writer: BufWriter<File>,
    len: u64,
}

impl Spill {
    pub fn new() -> io::Result<Spill> {
        Ok(Spill {
            writer: BufWriter::with_capacity(BUFFER, tempfile::tempfile()?),
            len: 0,
        })
    }

    /// Copies what `from` sends, stopping after `limit + 1` bytes: more than `limit` copied
    /// means the input is over the limit.
    pub fn copy_from(&mut self, from: &File, limit: u64) -> io::Result<u64> {
        io::copy(&mut from.take(limit.saturating_add(1)), self)
    }

    /// The filled file, or `None` when nothing was written (an empty file cannot be mapped).
    pub fn finish(self) -> io::Result<Option<File>> {
        let len = self.len;
        let file = self.writer.into_inner().map_err(|e| e.into_error())?;
        Ok((len > 0).then_some(file))
    }
}

impl Write for Spill {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.writer.write(buf)?;
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom};

    #[test]
    fn what_is_written_is_in_the_file() {
        let mut spill = Spill::new().unwrap();
        spill.write_all(b"hello ").unwrap();
        spill.write_all(&[b'x'; BUFFER + 10]).unwrap();
        let mut file = spill.finish().unwrap().unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        let mut back = Vec::new();
        file.read_to_end(&mut back).unwrap();
        assert_eq!(back.len(), 6 + BUFFER + 10);
        assert!(back.starts_with(b"hello x"));
    }

    #[test]
    fn nothing_written_is_no_file() {
        assert!(Spill::new().unwrap().finish().unwrap().is_none());
    }
}
