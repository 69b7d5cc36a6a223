//! The `text` plugin: a string tensor of any shape whose strings are markdown. One line gives
//! its shape and first cells; the rows lay it out as TensorBoard does, as a table: a single text
//! line by line, a vector as a column, a matrix as rows of cells, and a tensor of more dimensions
//! as the rows of its last dimension.

use super::{PluginValue, ROWS_SHOWN, Row, SummaryPlugin, TensorValue, cut, more_row};
use crate::schema::{ProtoFile, builtin};
use crate::tensor::Element;
use crate::words::plural;

/// Cells of a text summary a line shows at most (each at most `LINE_CHARS` characters).
pub const TEXT_CELLS: usize = 16;

/// Characters of a cell a line shows.
const LINE_CHARS: usize = 40;

/// Characters of a cell a table row shows.
const CELL_CHARS: usize = 80;

/// Columns of a table shown before the rest are counted.
const COLUMNS_SHOWN: usize = 16;

/// Characters of a line of a single text shown.
const TEXT_LINE_CHARS: usize = 200;

pub struct Text;

pub static TEXT: Text = Text;

/// The texts of a text summary: one (a 0-d tensor), or a vector or table of them.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCells<'a> {
    /// The tensor's shape; empty for a single text.
    pub shape: Vec<u64>,
    /// The first cells in row-major order, at most [`TEXT_CELLS`].
    pub cells: Vec<&'a [u8]>,
    /// How many cells the tensor holds.
    pub count: u64,
}

impl<'a> TextCells<'a> {
    /// The texts of a string tensor; `None` for a tensor of anything else, or of no cell.
    pub fn read(tensor: &TensorValue<'a>) -> Option<TextCells<'a>> {
        let t = tensor.tensor()?;
        let cells: Option<Vec<&[u8]>> = (0..t.len().min(TEXT_CELLS as u64))
            .map(|i| match t.get(i) {
                Some(Element::Bytes(text)) => Some(text),
                _ => None,
            })
            .collect();
        let cells = cells.filter(|c| !c.is_empty())?;
        Some(TextCells {
            shape: t.shape().to_vec(),
            cells,
            count: t.len(),
        })
    }

    /// `"a"` for one text; `[2,2] [["a", "b"], ["c", "d"]]` for a table; past [`TEXT_CELLS`] the
    /// first cells and how many more there are: `[100] ["a", "b", …, … 84 more]`.
    pub fn describe(&self) -> String {
        let quoted: Vec<String> = self
            .cells
            .iter()
            .map(|c| format!("\"{}\"", cut(c, LINE_CHARS)))
            .collect();
        if self.shape.is_empty() {
            return quoted.into_iter().next().unwrap_or_else(|| "\"\"".into());
        }
        let dims: Vec<String> = self.shape.iter().map(u64::to_string).collect();
        let shown = quoted.len() as u64;
        let values = if shown < self.count {
            format!("[{}, … {} more]", quoted.join(", "), self.count - shown)
        } else {
            nest(&quoted, &self.shape)
        };
        format!("[{}] {values}", dims.join(","))
    }
}

/// `items` nested by `shape` (`[["a", "b"], ["c", "d"]]`); every item is there.
fn nest(items: &[String], shape: &[u64]) -> String {
    let inner: u64 = shape.get(1..).unwrap_or_default().iter().product();
    match usize::try_from(inner) {
        Ok(step) if shape.len() > 1 && step > 0 => {
            let rows: Vec<String> = items
                .chunks(step)
                .map(|row| nest(row, shape.get(1..).unwrap_or_default()))
                .collect();
            format!("[{}]", rows.join(", "))
        }
        _ => format!("[{}]", items.join(", ")),
    }
}

/// `[3]` or `[1,2]`: a row's index over the dimensions before the last.
fn row_label(mut row: u64, leading: &[u64]) -> String {
    let mut index = vec![0u64; leading.len()];
    for (slot, &size) in index.iter_mut().zip(leading).rev() {
        if size > 0 {
            *slot = row % size;
            row /= size;
        }
    }
    let index: Vec<String> = index.iter().map(u64::to_string).collect();
    format!("[{}]", index.join(","))
}

/// The table of a string tensor: its rows (the product of every dimension but the last, or the
/// elements of a vector) of cells, padded to columns.
fn table(tensor: &TensorValue<'_>, shape: &[u64]) -> Vec<Row> {
    let (leading, columns) = match shape {
        [] => (&[][..], 1),
        [_] => (shape, 1),
        [leading @ .., last] => (leading, *last),
    };
    // The tensor's element count fits in a u64, and so does every product of its first
    // dimensions; a zero after them is checked for all the same.
    let rows = leading
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .unwrap_or(0);
    let shown_rows = rows.min(ROWS_SHOWN as u64);
    let shown_columns = columns.min(COLUMNS_SHOWN as u64);
    let mut cells: Vec<(u64, Vec<String>, Vec<u64>)> = Vec::new();
    for r in 0..shown_rows {
        let indices: Vec<u64> = (0..shown_columns)
            .filter_map(|c| r.checked_mul(columns)?.checked_add(c))
            .collect();
        let texts = indices
            .iter()
            .map(|&i| {
                format!(
                    "\"{}\"",
                    cut(tensor.bytes(i).unwrap_or_default(), CELL_CHARS)
                )
            })
            .collect();
        cells.push((r, texts, indices));
    }
    let width = |c: usize| {
        cells
            .iter()
            .filter_map(|(_, texts, _)| texts.get(c))
            .map(|t| t.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..shown_columns as usize).map(width).collect();
    let mut out: Vec<Row> = cells
        .iter()
        .map(|(r, texts, indices)| {
            let padded: Vec<String> = texts
                .iter()
                .zip(&widths)
                .map(|(t, w)| format!("{t:<w$}"))
                .collect();
            let mut detail = padded.join("  ").trim_end().to_string();
            if columns > shown_columns {
                detail.push_str(&format!("  … {} more", columns - shown_columns));
            }
            Row::new(row_label(*r, leading), detail)
                .at_all(tensor.spans(indices).into_iter().flatten())
        })
        .collect();
    if rows > shown_rows {
        out.push(more_row(rows - shown_rows, "row"));
    }
    out
}

/// A single text, a row per line.
fn lines(text: &[u8], span: Option<crate::span::Span>) -> Vec<Row> {
    let all: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
    let mut rows: Vec<Row> = all
        .iter()
        .take(ROWS_SHOWN)
        .map(|line| Row::new("", cut(line, TEXT_LINE_CHARS)))
        .map(|row| match span {
            Some(span) => row.at(span),
            None => row,
        })
        .collect();
    if all.len() > ROWS_SHOWN {
        rows.push(more_row((all.len() - ROWS_SHOWN) as u64, "line"));
    }
    rows
}

impl SummaryPlugin for Text {
    fn name(&self) -> &'static str {
        "text"
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::TENSORBOARD_PLUGINS
    }

    fn line(&self, value: &PluginValue<'_>) -> String {
        let Some(message) = value.tensor() else {
            return "text: no tensor".into();
        };
        let tensor = TensorValue::read(message);
        match TextCells::read(&tensor) {
            Some(cells) => format!("text {}", cells.describe()),
            None => tensor.signature(),
        }
    }

    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        let Some(message) = value.tensor() else {
            return Vec::new();
        };
        let tensor = TensorValue::read(message);
        let Some(cells) = TextCells::read(&tensor) else {
            return Vec::new();
        };
        match (cells.count, cells.cells.first()) {
            (1, Some(text)) => {
                let span = tensor.spans(&[0]).into_iter().flatten().next();
                let rows = lines(text, span);
                if cells.shape.is_empty() {
                    rows
                } else {
                    let label = row_label(0, &cells.shape);
                    vec![Row::new(label, plural(rows.len(), "line")).with(rows)]
                }
            }
            _ => table(&tensor, &cells.shape),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(shape: &[u64], cells: &[&'static [u8]], count: u64) -> String {
        TextCells {
            shape: shape.to_vec(),
            cells: cells.to_vec(),
            count,
        }
        .describe()
    }

    #[test]
    fn texts_are_described_with_their_shape_and_cells() {
        static LONG: [u8; 50] = [b'a'; 50];
        assert_eq!(text(&[], &[&LONG], 1), format!("\"{}…\"", "a".repeat(40)));
        assert_eq!(
            text(&[2, 2], &[b"a", b"b", b"c", b"d"], 4),
            r#"[2,2] [["a", "b"], ["c", "d"]]"#
        );
        assert_eq!(text(&[1], &[b"a"], 1), r#"[1] ["a"]"#);
        assert_eq!(
            text(&[2, 3, 1], &[b"a", b"b", b"c", b"d", b"e", b"f"], 6),
            r#"[2,3,1] [[["a"], ["b"], ["c"]], [["d"], ["e"], ["f"]]]"#
        );
        assert_eq!(
            text(&[1000, 2], &[b"a", b"b"], 2000),
            r#"[1000,2] ["a", "b", … 1998 more]"#
        );
        assert!(!text(&[], &[b"\x1b]2;x\x07"], 1).contains('\x1b'));
    }

    #[test]
    fn a_row_is_labelled_by_its_index_over_the_leading_dimensions() {
        assert_eq!(row_label(0, &[]), "[]");
        assert_eq!(row_label(3, &[5]), "[3]");
        assert_eq!(row_label(5, &[2, 3]), "[1,2]");
        assert_eq!(row_label(4, &[0, 3]), "[0,1]");
    }
}
