//! The quiz: a token's meaning hidden, asked for, checked, and derived when the answer is wrong.
//!
//! A tag asks for its field number and wire type, a length prefix for how many bytes follow, a
//! value for its number (or what its type reads: `-2` for a zigzag 3, `true`, `RED`, `25.4`).
//! String and bytes data, the frame's own bytes and bytes that did not parse are not asked about.
//! Questions are built from the same tokens, meanings and derivations `hex --explain` prints, so
//! the quiz and the walkthrough agree on every answer. The command line and the inspector only
//! ask and show.

use crate::annotate::{Annotated, Site, Token};
use crate::decode::Scalar;
use crate::explain::Explainer;
use crate::explain::number::{self, wire_name};
use crate::rules::{Fate, RuleBook};
use crate::schema::table::Kind;
use crate::textformat::scalar_text;
use crate::wire::{self, NodeKind, ROOT};
use crate::words::parse_number;

mod place;

/// What a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Field number and wire type.
    Tag,
    /// How many bytes follow.
    Length,
    /// The number a value holds.
    Value,
    /// What a parser keeps of a wire occurrence a rule bears on (the last of a singular field
    /// wins, a closed enum's unknown number, a record parsers reject).
    Rule,
}

/// One token to answer for.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub token: Token,
    pub ask: Ask,
    /// Where the token is: `in tensorflow.Example > features > feature["label"] >
    /// Feature.int64_list` (the file's names escaped for a terminal).
    pub place: Option<String>,
    /// The question, in words (the token's meaning left out).
    pub prompt: String,
    /// The answer, in words.
    pub answer: String,
    /// How the answer is obtained, as `hex --explain` shows it.
    pub derivation: Vec<String>,
    /// A tag's field number and wire type.
    tag: (u64, u64),
    /// The number a length or value holds on the wire.
    raw: u64,
    /// What the value's type reads the number as, when that differs from `raw`.
    typed: Option<Typed>,
    /// What a parser keeps of the occurrence (a rule question).
    fate: Option<Fate>,
}

/// A value as its type reads it.
#[derive(Debug, Clone, PartialEq)]
enum Typed {
    Int(i128),
    Float(f64),
    /// Words that name the value (`true`, `RED`), compared ignoring case.
    Word(String),
}

impl Question {
    /// The question `token` makes, if it is one the quiz asks about.
    pub fn of(
        annotated: &Annotated<'_>,
        explainer: &Explainer<'_>,
        token: &Token,
    ) -> Option<Question> {
        let payload = annotated.payload()?;
        let tree = payload.decoded().structure()?;
        let node = tree.node(token.node()?)?;
        let table = payload.table();
        let field = node.field().and_then(|f| table.field(f));
        let bytes = explainer.bytes(token);
        let derivation = explainer.derivation(token);
        let place = place::place(payload, token);
        let blank = |ask, prompt: String, answer: String| Question {
            token: *token,
            ask,
            place: place.clone(),
            prompt,
            answer,
            derivation: derivation.clone(),
            tag: (0, 0),
            raw: 0,
            typed: None,
            fate: None,
        };
        match token.site {
            Site::Tag(_) | Site::EndTag(_) => {
                let (value, whole) = number::varint_value(bytes);
                if !whole {
                    return None;
                }
                let (field, wire) = (value >> 3, value & 7);
                let answer = format!("field {field}, wire type {wire} ({})", wire_name(wire));
                let prompt =
                    "a tag: which field number and wire type? (e.g. `1 2` or `1 LEN`)".into();
                Some(Question {
                    tag: (field, wire),
                    ..blank(Ask::Tag, prompt, answer)
                })
            }
            Site::Length(_) => {
                let (raw, whole) = number::varint_value(bytes);
                if !whole {
                    return None;
                }
                let prompt = "a length prefix: how many bytes follow? (decimal or 0x…)".into();
                Some(Question {
                    raw,
                    ..blank(Ask::Length, prompt, format!("{raw} bytes (0x{raw:x})"))
                })
            }
            Site::Value(_) | Site::Element(_) => {
                let kind = field.map(|f| f.kind);
                let fixed = match token.site {
                    Site::Value(_) => matches!(node.kind(), NodeKind::Fixed32 | NodeKind::Fixed64),
                    _ => kind.and_then(Kind::fixed_width).is_some(),
                };
                let (raw, whole) = if fixed {
                    (number::little_endian(bytes).0, true)
                } else {
                    number::varint_value(bytes)
                };
                if !whole {
                    return None;
                }
                let scalar = kind.and_then(|k| Scalar::from_raw(k, raw, table));
                let typed = scalar.as_ref().and_then(typed_of);
                let type_name = match kind {
                    Some(k) => table.kind_name(k).to_string(),
                    None if fixed && bytes.len() == 4 => "fixed32 (no schema)".into(),
                    None if fixed => "fixed64 (no schema)".into(),
                    None => "varint (no schema)".into(),
                };
                let what = if matches!(token.site, Site::Element(_)) {
                    "an element of a packed run"
                } else {
                    "a value"
                };
                let prompt =
                    format!("{what} of type {type_name}: what does it hold? (decimal or 0x…)");
                let answer = match &scalar {
                    Some(s) if typed.is_some() => {
                        format!("{} (the wire holds {raw})", scalar_text(s))
                    }
                    Some(s) => scalar_text(s),
                    None => format!("{raw} (0x{raw:x})"),
                };
                Some(Question {
                    raw,
                    typed,
                    ..blank(Ask::Value, prompt, answer)
                })
            }
            _ => None,
        }
    }

    /// Whether `text` answers the question.
    pub fn check(&self, text: &str) -> bool {
        self.grade(text) == Grade::Right
    }

    /// How far `text` answers the question: a value whose type reads the wire's number as
    /// another number (a zigzag sint64, a negative int32, a float's bits) is right only as the
    /// type reads it; the wire's number is the first step of two.
    pub fn grade(&self, text: &str) -> Grade {
        let text = text.trim();
        match self.ask {
            Ask::Tag => {
                let Some((field, wire)) = tag_answer(text) else {
                    return Grade::Unparseable;
                };
                if (field, wire) == self.tag {
                    Grade::Right
                } else {
                    Grade::Wrong
                }
            }
            Ask::Length => match parse_number(text) {
                Ok(n) if n == self.raw => Grade::Right,
                Ok(_) => Grade::Wrong,
                Err(_) => Grade::Unparseable,
            },
            Ask::Rule => match fate_answer(text) {
                Some(fate) if Some(fate) == self.fate => Grade::Right,
                Some(_) => Grade::Wrong,
                None => Grade::Unparseable,
            },
            Ask::Value => {
                let raw = parse_number(text).ok();
                let right = match &self.typed {
                    None => raw == Some(self.raw),
                    Some(Typed::Int(v)) => signed(text) == Some(*v),
                    Some(Typed::Float(v)) => {
                        let given = text.parse::<f64>().ok();
                        given.is_some_and(|g| g == *v || (g.is_nan() && v.is_nan()) || close(g, *v))
                    }
                    // A bool's 1 or an enum's number names the value as well as its word.
                    Some(Typed::Word(w)) => w.eq_ignore_ascii_case(text) || raw == Some(self.raw),
                };
                if right {
                    Grade::Right
                } else if raw == Some(self.raw) {
                    Grade::WireOnly
                } else if raw.is_none()
                    && signed(text).is_none()
                    && text.parse::<f64>().is_err()
                    && !matches!(self.typed, Some(Typed::Word(_)))
                {
                    Grade::Unparseable
                } else {
                    Grade::Wrong
                }
            }
        }
    }

    /// The number on the wire, for the first step of a value its type reads otherwise.
    pub fn wire_number(&self) -> u64 {
        self.raw
    }

    /// The rule question a tag question's occurrence makes, when a rule bears on what a parser
    /// keeps of it (anything but "kept as the bytes say"). A record parsers reject is asked about
    /// once, at its first tag (`payload_start`): every other occurrence has the same answer, and
    /// where to ask follows from the record alone, wherever a quiz resumes.
    fn rule(book: &RuleBook<'_>, tag: &Question, payload_start: u64) -> Option<Question> {
        if tag.ask != Ask::Tag {
            return None;
        }
        let (fate, notes) = book.fate(tag.token.node()?);
        match fate {
            Fate::Kept => return None,
            Fate::Rejected if tag.token.start != payload_start => return None,
            _ => {}
        }
        Some(Question {
            ask: Ask::Rule,
            prompt: "a rule question: what does a parser keep of this occurrence? (kept, dropped, \
                     merged, cleared, unknown field, or rejected: the whole record is invalid)"
                .into(),
            answer: fate.word().to_string(),
            derivation: notes.iter().map(ToString::to_string).collect(),
            fate: Some(fate),
            ..tag.clone()
        })
    }

    /// What is said when the wire's number is right and the type's reading is asked next.
    pub fn type_step(&self) -> String {
        format!(
            "right as far as the wire: it holds {}. Now the next step: what does its type read \
             that number as?",
            self.raw
        )
    }
}

/// How far an answer goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grade {
    Right,
    Wrong,
    /// The number on the wire, right, where the question asks what the type reads it as.
    WireOnly,
    /// Not an answer to this kind of question (asked again, not graded).
    Unparseable,
}

/// Times an unparseable answer is asked again before the answer is shown.
pub const RETRIES: usize = 3;

/// One question's answers so far: how the command line and the inspector walk a learner through
/// a question the same way (an answer that is no answer is asked again, the wire's number is the
/// first step of a value its type reads otherwise, then the type's reading is asked).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Attempt {
    tries: usize,
    wire_step_done: bool,
}

/// What to do after an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Not an answer to this kind of question: ask the same question again.
    AskAgain,
    /// The wire's number, right: ask what the type reads it as.
    TypeStep,
    /// Graded: right or not; the answer and its derivation follow.
    Graded { right: bool },
}

impl Attempt {
    /// Grades `text` (trimmed; an empty answer asks to be shown the answer).
    pub fn answer(&mut self, question: &Question, text: &str) -> Next {
        let text = text.trim();
        if text.is_empty() {
            return Next::Graded { right: false };
        }
        match question.grade(text) {
            Grade::Right => Next::Graded { right: true },
            Grade::Unparseable if self.tries < RETRIES => {
                self.tries += 1;
                Next::AskAgain
            }
            Grade::WireOnly if !self.wire_step_done => {
                self.wire_step_done = true;
                Next::TypeStep
            }
            Grade::WireOnly | Grade::Wrong | Grade::Unparseable => Next::Graded { right: false },
        }
    }
}

/// A wire type in any of the words people use for it: `2`, `LEN`, `length-delimited`.
fn wire_word(word: &str) -> Option<u64> {
    let word = word.to_ascii_lowercase();
    Some(match word.as_str() {
        "varint" => 0,
        "i64" | "64-bit" | "fixed64" => 1,
        "len" | "length-delimited" | "delimited" | "bytes" => 2,
        "sgroup" | "start-group" | "startgroup" => 3,
        "egroup" | "end-group" | "endgroup" => 4,
        "i32" | "32-bit" | "fixed32" => 5,
        _ => return parse_number(&word).ok().filter(|w| *w <= 7),
    })
}

/// A tag answer: `1 2`, `1 LEN`, `1 length-delimited`, `field 1 wire type 2`, `1, 2`, `1/LEN`.
fn tag_answer(text: &str) -> Option<(u64, u64)> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/' | ':' | '=' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .filter(|w| {
            !matches!(
                w.to_ascii_lowercase().as_str(),
                "field" | "wire" | "type" | "number"
            )
        })
        .collect();
    let (field, wire) = match words.as_slice() {
        [field, wire] => (*field, *wire),
        // `1 2 (LEN)` says the wire type twice: both must agree.
        [field, wire, again] if wire_word(wire) == wire_word(again) => (*field, *wire),
        _ => return None,
    };
    Some((parse_number(field).ok()?, wire_word(wire)?))
}

/// Floats typed from a printed value: equal to the precision they were printed with.
fn close(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && (a - b).abs() <= b.abs().max(1e-30) * 1e-6
}

/// A signed decimal, or a hex number with a sign.
fn signed(text: &str) -> Option<i128> {
    match text.strip_prefix('-') {
        Some(rest) => parse_number(rest).ok().map(|v| -i128::from(v)),
        None => parse_number(text).ok().map(i128::from),
    }
}

/// How a typed value differs from its wire number, if it does.
fn typed_of(scalar: &Scalar<'_>) -> Option<Typed> {
    Some(match *scalar {
        Scalar::I32(v) => Typed::Int(i128::from(v)),
        Scalar::I64(v) => Typed::Int(i128::from(v)),
        Scalar::U32(_) | Scalar::U64(_) => return None,
        Scalar::F32(v) => Typed::Float(f64::from(v)),
        Scalar::F64(v) => Typed::Float(v),
        Scalar::Bool(v) => Typed::Word(v.to_string()),
        Scalar::Enum(_, Some(name)) => Typed::Word(name.to_string()),
        Scalar::Enum(v, None) => Typed::Int(i128::from(v)),
    })
}

/// The questions of `annotated`'s payload from file offset `from` on, in file order, with a rule
/// question after each tag where `book` (the payload's rule notes) says a rule decides what a
/// parser keeps of the occurrence.
pub fn questions<'a>(
    annotated: &'a Annotated<'a>,
    explainer: &'a Explainer<'a>,
    book: Option<&'a RuleBook<'a>>,
    from: u64,
) -> impl Iterator<Item = Question> + 'a {
    let payload_start = annotated.payload().map(|p| p.base());
    annotated
        .tokens_from(from)
        .filter(move |t| t.start >= from)
        .flat_map(move |t| {
            let token = Question::of(annotated, explainer, &t);
            let rule = book
                .zip(payload_start)
                .and_then(|(book, start)| Question::rule(book, token.as_ref()?, start));
            token.into_iter().chain(rule)
        })
}

/// A rule question's answer in the words people use: `dropped`, `the last one wins`, `unknown`,
/// `rejected`, `invalid`…
fn fate_answer(text: &str) -> Option<Fate> {
    let text = text.trim().to_ascii_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    Some(
        if has("rejected") || has("reject") || has("invalid") || has("error") {
            Fate::Rejected
        } else if has("unknown") {
            Fate::Unknown
        } else if has("cleared") || has("clear") {
            Fate::Cleared
        } else if has("merged") || has("merge") || has("merges") {
            Fate::Merged
        } else if has("dropped")
            || has("drop")
            || has("overwritten")
            || has("discarded")
            || has("replaced")
        {
            Fate::Dropped
        } else if has("kept") || has("keep") || has("valid") {
            Fate::Kept
        } else {
            return None;
        },
    )
}

/// Where the MNIST walkthrough's exercise starts: the second entry of an Example's features (the
/// tag of its second `feature`), as a file offset.
pub fn exercise_start(annotated: &Annotated<'_>) -> Option<u64> {
    let payload = annotated.payload()?;
    let tree = payload.decoded().structure()?;
    let features = tree.children(ROOT).find(|c| {
        tree.node(*c)
            .is_some_and(|n| n.number() == 1 && n.kind() == NodeKind::Message)
    })?;
    let second = tree.children(features).nth(1)?;
    let start = tree.node(second).map(wire::Node::start)?;
    Some(payload.base() + start as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::Radix;
    use crate::explain::tests::Fixture;

    fn all(fixture: &Fixture) -> Vec<Question> {
        let annotated = fixture.annotated();
        let explainer = Explainer::new(&annotated, &fixture.file, Radix::Decimal);
        let book = RuleBook::of(&annotated, Radix::Decimal);
        questions(&annotated, &explainer, book.as_ref(), 0).collect()
    }

    #[test]
    fn tags_lengths_and_values_are_asked_and_checked() {
        // s64: -2 (zigzag 3), s: "hi", fl: 25.4, b: true, c: RED
        let mut payload = vec![0x20, 0x03, 0x5a, 0x02, b'h', b'i', 0x4d];
        payload.extend_from_slice(&25.4f32.to_le_bytes());
        payload.extend_from_slice(&[0x28, 0x01, 0x88, 0x01, 0x01]);
        let fixture = Fixture::proto3(&payload);
        let qs = all(&fixture);
        let asks: Vec<Ask> = qs.iter().map(|q| q.ask).collect();
        use Ask::*;
        // The string's bytes are not asked about.
        assert_eq!(
            asks,
            [Tag, Value, Tag, Length, Tag, Value, Tag, Value, Tag, Value]
        );
        assert!(qs[0].check("4 0") && qs[0].check("4 VARINT") && qs[0].check("4, varint"));
        assert!(!qs[0].check("4 2") && !qs[0].check("4") && !qs[0].check(""));
        assert_eq!(qs[0].answer, "field 4, wire type 0 (VARINT)");
        assert!(qs[1].check("-2") && !qs[1].check("3") && !qs[1].check("2"));
        assert_eq!(qs[1].grade("3"), Grade::WireOnly);
        assert_eq!(qs[1].answer, "-2 (the wire holds 3)");
        assert!(qs[1].derivation.iter().any(|l| l.contains("zigzag")));
        assert!(qs[3].check("2") && qs[3].check("0x2") && !qs[3].check("3"));
        assert!(qs[5].check("25.4") && !qs[5].check("25.5"));
        assert!(qs[7].check("true") && qs[7].check("1") && !qs[7].check("false"));
        assert!(qs[9].check("RED") && qs[9].check("red") && qs[9].check("1"));
        assert!(qs[5].prompt.contains("of type float"), "{}", qs[5].prompt);
        assert!(
            !qs[0].prompt.contains("s64"),
            "the question hides the meaning"
        );
    }

    #[test]
    fn rules_are_asked_where_they_decide_what_a_parser_keeps() {
        // i32 sent twice: the first occurrence is dropped, the last kept (no rule question).
        let qs = all(&Fixture::proto3(&[0x08, 0x01, 0x08, 0x02]));
        let asks: Vec<Ask> = qs.iter().map(|q| q.ask).collect();
        assert_eq!(
            asks,
            [Ask::Tag, Ask::Rule, Ask::Value, Ask::Tag, Ask::Value]
        );
        let rule = &qs[1];
        assert_eq!(rule.token, qs[0].token, "asked at the occurrence's tag");
        assert_eq!(rule.answer, "dropped");
        for right in ["dropped", "Dropped", "it is overwritten", "discarded"] {
            assert_eq!(rule.grade(right), Grade::Right, "{right}");
        }
        assert_eq!(rule.grade("kept"), Grade::Wrong);
        assert_eq!(rule.grade("the first"), Grade::Unparseable);
        assert!(
            rule.derivation
                .iter()
                .any(|l| l.starts_with("last one wins")),
            "{:?}",
            rule.derivation
        );
        // A closed enum's 99: kept among the unknown fields.
        let qs = all(&Fixture::proto2(&[0x08, 0x63]));
        let rule = qs.iter().find(|q| q.ask == Ask::Rule).unwrap();
        assert_eq!(rule.answer, "unknown field");
        assert_eq!(rule.grade("an unknown field"), Grade::Right);
        assert_eq!(rule.grade("kept"), Grade::Wrong);
        // A record parsers reject (a length past the end): asked once, at the first occurrence.
        let qs = all(&Fixture::proto3(&[
            0x08, 0x01, 0x10, 0x02, 0x5a, 0x09, b'h',
        ]));
        let rules: Vec<&Question> = qs.iter().filter(|q| q.ask == Ask::Rule).collect();
        assert_eq!(rules.len(), 1, "{qs:#?}");
        assert_eq!(rules[0].answer, "message rejected");
        assert_eq!(rules[0].grade("rejected: invalid"), Grade::Right);
        assert_eq!(rules[0].grade("dropped"), Grade::Wrong);
        // Resumed after the first tag (as the inspector resumes after each answer), the quiz
        // does not ask it again.
        let fixture = Fixture::proto3(&[0x08, 0x01, 0x10, 0x02, 0x5a, 0x09, b'h']);
        let annotated = fixture.annotated();
        let explainer = Explainer::new(&annotated, &fixture.file, Radix::Decimal);
        let book = RuleBook::of(&annotated, Radix::Decimal);
        let resumed: Vec<Question> = questions(&annotated, &explainer, book.as_ref(), 13).collect();
        assert!(!resumed.is_empty() && resumed.iter().all(|q| q.ask != Ask::Rule));
        // A sound record has no rule questions.
        let qs = all(&Fixture::proto3(&[0x08, 0x01, 0x10, 0x02]));
        assert!(qs.iter().all(|q| q.ask != Ask::Rule));
    }

    #[test]
    fn an_attempt_asks_again_then_takes_the_type_step_once() {
        // s64: -150 (zigzag 299)
        let qs = all(&Fixture::proto3(&[0x20, 0xab, 0x02]));
        let s64 = &qs[1];
        let mut attempt = Attempt::default();
        for _ in 0..RETRIES {
            assert_eq!(attempt.answer(s64, "minus"), Next::AskAgain);
        }
        assert_eq!(attempt.answer(s64, "minus"), Next::Graded { right: false });
        let mut attempt = Attempt::default();
        assert_eq!(attempt.answer(s64, " 299 "), Next::TypeStep);
        assert_eq!(attempt.answer(s64, "299"), Next::Graded { right: false });
        let mut attempt = Attempt::default();
        assert_eq!(attempt.answer(s64, "299"), Next::TypeStep);
        assert_eq!(attempt.answer(s64, "-150"), Next::Graded { right: true });
        assert_eq!(
            Attempt::default().answer(s64, "  "),
            Next::Graded { right: false }
        );
        assert!(s64.type_step().contains("it holds 299"));
    }

    #[test]
    fn each_step_is_graded_and_synonyms_are_understood() {
        // s64: -150 (zigzag 299), i32: -1 (ten bytes), fl: 25.4 (bits 0x41cb3333), s: "hi"
        let mut payload = vec![0x20, 0xab, 0x02, 0x08];
        payload.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        payload.push(0x4d);
        payload.extend_from_slice(&25.4f32.to_le_bytes());
        payload.extend_from_slice(&[0x5a, 0x02, b'h', b'i']);
        let qs = all(&Fixture::proto3(&payload));
        let (s64, i32, fl) = (&qs[1], &qs[3], &qs[5]);
        assert_eq!(s64.grade("299"), Grade::WireOnly);
        assert_eq!(s64.grade("-150"), Grade::Right);
        assert_eq!(s64.grade("150"), Grade::Wrong);
        assert_eq!(i32.grade("18446744073709551615"), Grade::WireOnly);
        assert_eq!(i32.grade("-1"), Grade::Right);
        assert_eq!(fl.grade("1103835955"), Grade::WireOnly);
        assert_eq!(fl.grade("25.4"), Grade::Right);
        assert_eq!(s64.wire_number(), 299);
        // Unparseable answers are told apart from wrong ones.
        assert_eq!(s64.grade("minus"), Grade::Unparseable);
        let tag = &qs[6];
        for said in [
            "11 2",
            "11 LEN",
            "11 length-delimited",
            "field 11 wire type 2",
            "11, len",
            "11 2 (LEN)",
        ] {
            assert_eq!(tag.grade(said), Grade::Right, "{said}");
        }
        assert_eq!(tag.grade("11 0"), Grade::Wrong);
        for said in ["LEN", "eleven two", "11 2 (VARINT)"] {
            assert_eq!(tag.grade(said), Grade::Unparseable, "{said}");
        }
        assert_eq!(qs[7].grade("two"), Grade::Unparseable);
    }

    #[test]
    fn each_question_says_where_it_is_with_the_file_s_names_escaped() {
        // features { feature { key: "la\x1bbel" value { int64_list { value: 7 } } } }
        let int64_list = [0x1a, 0x03, 0x0a, 0x01, 0x07];
        let mut entry = vec![0x0a, 0x06, b'l', b'a', 0x1b, b'b', b'e', b'l', 0x12, 0x05];
        entry.extend_from_slice(&int64_list);
        let mut features = vec![0x0a, entry.len() as u8];
        features.extend_from_slice(&entry);
        let mut payload = vec![0x0a, features.len() as u8];
        payload.extend_from_slice(&features);
        let fixture = Fixture::new(crate::schema::Schema::builtin(), &payload);
        let places: Vec<String> = all(&fixture)
            .iter()
            .map(|q| q.place.clone().unwrap_or_default())
            .collect();
        let label = r#"feature["la\033bel"]"#;
        let want = [
            "in tensorflow.Example".to_string(),
            "in tensorflow.Example > Example.features".to_string(),
            "in tensorflow.Example > features (a Features message)".to_string(),
            "in tensorflow.Example > features > Features.feature".to_string(),
            format!("in tensorflow.Example > features > {label} (a FeatureEntry message)"),
            format!("in tensorflow.Example > features > {label} > FeatureEntry.key"),
            format!("in tensorflow.Example > features > {label} (a FeatureEntry message)"),
            format!("in tensorflow.Example > features > {label} > FeatureEntry.value"),
            format!("in tensorflow.Example > features > {label} (a Feature message)"),
            format!("in tensorflow.Example > features > {label} > Feature.int64_list"),
            format!(
                "in tensorflow.Example > features > {label} > int64_list (an Int64List message)"
            ),
            format!("in tensorflow.Example > features > {label} > int64_list > Int64List.value"),
            format!("in tensorflow.Example > features > {label} > int64_list > Int64List.value"),
        ];
        // A tag's question never names the tag's own field (its answer).
        for (q, place) in all(&fixture).iter().zip(&places) {
            if q.ask == Ask::Tag {
                assert!(
                    !place.ends_with(".features") && !place.contains("Features.feature"),
                    "{place}"
                );
            }
        }
        assert_eq!(places, want);
        assert!(places.iter().all(|p| !p.contains('\x1b')));
        // A long key is cut, and a quote in it is told from the ones around it.
        let key = [b"a\"".as_slice(), &[b'b'; 60]].concat();
        let mut entry = vec![0x0a, key.len() as u8];
        entry.extend_from_slice(&key);
        entry.extend_from_slice(&[0x12, 0x00]);
        let mut payload = vec![0x0a, entry.len() as u8 + 2, 0x0a, entry.len() as u8];
        payload.extend_from_slice(&entry);
        let fixture = Fixture::new(crate::schema::Schema::builtin(), &payload);
        let qs = all(&fixture);
        let place = qs[5].place.clone().unwrap_or_default();
        let shown = format!(r#"feature["a\"{}…"] > FeatureEntry.key"#, "b".repeat(46));
        assert!(place.ends_with(&shown), "{place}");
    }

    #[test]
    fn the_exercise_starts_at_the_second_feature() {
        let schema = crate::schema::Schema::builtin();
        let entry = |k: u8| [0x0a, 0x05, 0x0a, 0x01, k, 0x12, 0x00];
        let features = [entry(b'a'), entry(b'b')].concat();
        let mut payload = vec![0x0a, features.len() as u8];
        payload.extend_from_slice(&features);
        let fixture = Fixture::new(schema, &payload);
        let annotated = fixture.annotated();
        // Header 12, features tag and length 2, the first entry 7.
        assert_eq!(exercise_start(&annotated), Some(12 + 2 + 7));
    }
}
