//! Record numbers as people type them: `5` (0-based, as `list` numbers frames), `-1` (the last
//! record), and a split's `train:1234` (or `train 1234`), counted across the split's shards. The
//! command line's `-n` and the inspector's `:` prompt read them here, so both take the same forms.

/// A record number as given: counted from the first record (`5`) or back from the end (`-1`
/// is the last record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordNumber {
    FromStart(usize),
    /// How many records back from the end: 1 is the last record, 0 the end itself (only as the
    /// excluded end of a range).
    FromEnd(usize),
}

impl std::fmt::Display for RecordNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordNumber::FromStart(n) => write!(f, "{n}"),
            RecordNumber::FromEnd(n) => write!(f, "-{n}"),
        }
    }
}

impl RecordNumber {
    /// `N` or `-N` with N > 0; `None` for anything else (`-0` is refused: it reads as the first
    /// record to some and as the end to others; `+N` is refused as no number of ours).
    pub fn parse(text: &str) -> Option<RecordNumber> {
        let text = text.trim();
        match text.strip_prefix('-') {
            Some(back) => match back.parse::<usize>().ok()? {
                0 => None,
                back => Some(RecordNumber::FromEnd(back)),
            },
            None if text.starts_with('+') => None,
            None => text.parse::<usize>().ok().map(RecordNumber::FromStart),
        }
    }

    /// The record's index among `count` records; `None` when it counts back past the first.
    pub fn resolve(self, count: usize) -> Option<usize> {
        match self {
            RecordNumber::FromStart(n) => Some(n),
            RecordNumber::FromEnd(back) => count.checked_sub(back),
        }
    }
}

/// A split-wide record number: record `number` of split `split`, counted over the split's
/// shards in shard-number order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitNumber {
    /// The split's name as typed (compared with the split's raw name; escaped when shown).
    pub split: String,
    pub number: RecordNumber,
}

impl SplitNumber {
    /// `NAME:N` or `NAME N` (N may be negative, `train:-1` the split's last record); the name is
    /// what comes before the last `:` or blank, so a name may hold either. `None` for anything
    /// else, a bare number included.
    pub fn parse(text: &str) -> Option<SplitNumber> {
        let (name, number) = text.trim().rsplit_once([' ', ':'])?;
        let name = name.trim();
        if name.is_empty() {
            return None;
        }
        Some(SplitNumber {
            split: name.to_string(),
            number: RecordNumber::parse(number)?,
        })
    }
}

impl std::fmt::Display for SplitNumber {
    /// `train:1234`, the name escaped for a terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}",
            crate::escape::for_terminal(&self.split),
            self.number
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_split_numbers_parse_in_every_form_given() {
        use RecordNumber::{FromEnd, FromStart};
        assert_eq!(RecordNumber::parse("5"), Some(FromStart(5)));
        assert_eq!(RecordNumber::parse(" -1 "), Some(FromEnd(1)));
        for refused in ["-0", "+1", "", "x", "1.5", "--1"] {
            assert_eq!(RecordNumber::parse(refused), None, "{refused}");
        }
        let split = |name: &str, number| {
            Some(SplitNumber {
                split: name.to_string(),
                number,
            })
        };
        assert_eq!(
            SplitNumber::parse("train:1234"),
            split("train", FromStart(1234))
        );
        assert_eq!(
            SplitNumber::parse("train 17"),
            split("train", FromStart(17))
        );
        assert_eq!(
            SplitNumber::parse("validation:-1"),
            split("validation", FromEnd(1))
        );
        assert_eq!(SplitNumber::parse("a:b:3"), split("a:b", FromStart(3)));
        for refused in ["5", ":5", "train:", "train:x", "train:-0", "train"] {
            assert_eq!(SplitNumber::parse(refused), None, "{refused}");
        }
        assert_eq!(
            SplitNumber::parse("tr\u{1b}[2Jain:-2").unwrap().to_string(),
            "tr\\033[2Jain:-2"
        );
    }
}
