//! The inspector as a tutor: what the explanation line says about the byte under the cursor, and
//! the panels drawn in the tree's place: step mode (the token under the cursor derived, with the
//! open messages counting down), the quiz (the token's meaning hidden and asked for) and the
//! parsed view (each wire occurrence beside what a protobuf parser keeps of it).
//!
//! Everything shown is built by the core ([`tfr_core::explain`], [`tfr_core::rules`], [`tfr_core::quiz`])
//! from the frame's annotation; this module picks what to show and lays it out as lines.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::hexview::role_name;
use tfr_core::annotate::{Annotated, Token};
use tfr_core::bytes::ByteSource;
use tfr_core::decode::Scalar;
use tfr_core::explain::number::{hex_bytes, wire_name};
use tfr_core::explain::{Explainer, Radix};
use tfr_core::quiz::Question;
use tfr_core::rules::{Fate, RuleBook};
use tfr_core::span::{FileOffset, FileRange};
use tfr_core::textformat::scalar_text;
use tfr_core::wire::{NodeKind, ROOT};

/// What the pane left of the hex shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Side {
    /// The record's tree.
    #[default]
    Tree,
    /// Step mode: the token under the cursor, derived.
    Step,
    /// Each wire occurrence beside what a parser keeps.
    Parsed,
}

/// How a panel line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Plain,
    Heading,
    Derivation,
    Note,
    Selected,
    Dim,
    Right,
    Wrong,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanelLine {
    pub text: String,
    pub look: Look,
}

fn line(look: Look, text: impl Into<String>) -> PanelLine {
    PanelLine {
        text: text.into(),
        look,
    }
}

/// A quiz under way in the inspector.
#[derive(Debug, Clone, Default)]
pub struct QuizState {
    /// The question asked now (none once the record has no more).
    pub question: Option<Question>,
    pub asked: usize,
    pub right: usize,
    /// What the last answer got: right, or the answer and its derivation.
    pub verdict: Vec<PanelLine>,
    /// The answers given to the question asked now.
    pub attempt: tfr_core::quiz::Attempt,
}

/// The tutor's state: which panel is shown, the quiz, and the panel's lines for this screen.
#[derive(Debug, Clone, Default)]
pub struct Tutor {
    pub side: Side,
    pub quiz: Option<QuizState>,
    pub title: String,
    pub panel: Vec<PanelLine>,
}

impl Tutor {
    /// Whether a tutor panel replaces the tree.
    pub fn shows_panel(&self) -> bool {
        self.quiz.is_some() || self.side != Side::Tree
    }

    /// Whether the quiz hides `token`'s meaning.
    pub fn hides(&self, token: &Token) -> bool {
        self.quiz
            .as_ref()
            .and_then(|q| q.question.as_ref())
            .is_some_and(|q| q.token == *token)
    }
}

/// The rule notes of `annotated`'s payload: every rule for a record decoded at once, the rules of
/// single tokens only for one too large for that (the rules of whole messages read all of it).
pub fn rule_book<'a>(annotated: &Annotated<'a>, whole: bool) -> Option<RuleBook<'a>> {
    match whole {
        true => RuleBook::of(annotated, Radix::Decimal),
        false => RuleBook::local(annotated.payload()?, Radix::Decimal),
    }
}

/// The explanation line: the token under the cursor, what the byte under the cursor is within
/// it, what the token means, and the first rule it stretches.
pub fn explain_line(
    annotated: &Annotated<'_>,
    book: Option<&RuleBook<'_>>,
    data: &dyn ByteSource,
    cursor: u64,
    tutor: &Tutor,
) -> String {
    let Some(token) = annotated.token_at(cursor) else {
        return String::new();
    };
    let explainer = Explainer::new(annotated, data, Radix::Decimal);
    let hex = head_hex(data, &token, 8);
    let head = format!(
        "{}..{} {} {hex}",
        token.start,
        token.end,
        role_name(token.role)
    );
    if tutor.hides(&token) {
        return format!("{head} = ? (quiz: answer in the prompt below)");
    }
    let mut text = head;
    if let Some(byte) = explainer.byte(&token, cursor) {
        text.push_str(&format!(" · {byte}"));
    }
    text.push_str(&format!(" = {}", annotated.meaning(&token)));
    if let Some(note) = book.and_then(|b| b.notes(&token).into_iter().next()) {
        text.push_str(&format!(" · ! {note}"));
    }
    text
}

/// The first `n` bytes of `token` in hex, and `…` when it has more; nothing for a token that
/// runs past the end of the file. Read as a range: a token may be a stretch of any length.
fn head_hex(data: &dyn ByteSource, token: &Token, n: u64) -> String {
    if token.end > data.len() {
        return String::new();
    }
    let end = FileOffset(token.end.min(token.start.saturating_add(n)));
    let head = data.read(FileRange::new(FileOffset(token.start), end));
    let mut hex = hex_bytes(head.unwrap_or_default());
    if token.end.saturating_sub(token.start) > n {
        hex.push_str(" …");
    }
    hex
}

/// Step mode's panel: the token under the cursor derived, and the open messages counting down.
pub fn step_panel(
    annotated: &Annotated<'_>,
    book: Option<&RuleBook<'_>>,
    data: &dyn ByteSource,
    cursor: u64,
) -> Vec<PanelLine> {
    let mut lines = Vec::new();
    let Some(token) = annotated.token_at(cursor) else {
        lines.push(line(Look::Dim, "no token under the cursor"));
        return lines;
    };
    let explainer = Explainer::new(annotated, data, Radix::Decimal);
    let base = annotated.payload().map(|p| p.base());
    let place = match base.and_then(|b| token.start.checked_sub(b)) {
        Some(pos) => format!("payload 0x{pos:x}, file {}", token.start),
        None => format!("file {}", token.start),
    };
    let hex = head_hex(data, &token, 16);
    lines.push(line(
        Look::Heading,
        format!("{} at {place}: {hex}", role_name(token.role)),
    ));
    lines.push(line(Look::Plain, annotated.meaning(&token)));
    for step in explainer.derivation(&token) {
        lines.push(line(Look::Derivation, format!("| {step}")));
    }
    if let Some(byte) = explainer.byte(&token, cursor) {
        lines.push(line(Look::Dim, format!("cursor on {byte}")));
    }
    for note in book.map(|b| b.notes(&token)).unwrap_or_default() {
        lines.push(line(Look::Note, format!("! {note}")));
    }
    let open = explainer.open_messages(&token);
    if !open.is_empty() {
        lines.push(line(
            Look::Heading,
            "open messages, bytes left after this token:",
        ));
        for (depth, m) in open.iter().enumerate() {
            lines.push(line(
                Look::Plain,
                format!(
                    "{}{}  {} of {} bytes left",
                    "  ".repeat(depth + 1),
                    m.name,
                    m.remaining,
                    m.length
                ),
            ));
        }
    }
    lines.push(line(
        Look::Dim,
        ". next token · , previous · s back to the tree",
    ));
    lines
}

/// The quiz's panel: the question, the score, and what the last answer got.
pub fn quiz_panel(state: &QuizState, data: &dyn ByteSource, base: Option<u64>) -> Vec<PanelLine> {
    let mut lines = vec![line(
        Look::Heading,
        format!("quiz · {} of {} right", state.right, state.asked),
    )];
    match &state.question {
        Some(q) => {
            let token = &q.token;
            let range = FileRange::new(FileOffset(token.start), FileOffset(token.end));
            let bytes = data.read(range).unwrap_or_default();
            let place = match base.and_then(|b| token.start.checked_sub(b)) {
                Some(pos) => format!("payload 0x{pos:x} (file {})", token.start),
                None => format!("file {}", token.start),
            };
            lines.push(line(
                Look::Plain,
                format!(
                    "question {}: {place}: {}",
                    state.asked + 1,
                    hex_bytes(bytes)
                ),
            ));
            // Escaped by the core (a map key is a name the file chose).
            if let Some(inside) = &q.place {
                lines.push(line(Look::Plain, inside.clone()));
            }
            lines.push(line(Look::Plain, q.prompt.clone()));
            lines.push(line(
                Look::Dim,
                "type the answer in the prompt below; Enter checks it, an empty answer shows it, Esc ends the quiz",
            ));
        }
        None => lines.push(line(Look::Plain, "no more questions in this record")),
    }
    if !state.verdict.is_empty() {
        lines.push(line(Look::Plain, ""));
        lines.extend(state.verdict.iter().cloned());
    }
    lines
}

/// The parsed view: `rows` wire occurrences around the one under the cursor, each beside what a
/// parser keeps of it.
pub fn parsed_panel(
    annotated: &Annotated<'_>,
    book: &RuleBook<'_>,
    cursor: u64,
    rows: usize,
) -> Vec<PanelLine> {
    let parsed = book.parsed();
    let tree = parsed.tree;
    let base = annotated.payload().map_or(0, |p| p.base());
    let pos = usize::try_from(cursor.saturating_sub(base)).unwrap_or(0);
    let under = tree.node_at(pos).filter(|n| *n != ROOT).unwrap_or(1);
    let first = under.saturating_sub(rows / 3).max(1);
    let mut lines = vec![line(
        Look::Heading,
        "payload  wire occurrence                        what a parser keeps",
    )];
    for n in (first..tree.len()).take(rows.saturating_sub(1)) {
        let Some(node) = tree.node(n) else {
            break;
        };
        let field = node.field().and_then(|f| parsed.field(f));
        let name = field.map_or_else(
            || format!("field {}", node.number()),
            |f| f.name.to_string(),
        );
        let wire = wire_name(u64::from(node.wire_type().code()));
        let data = node.data_span();
        let value = match node.kind() {
            NodeKind::Varint | NodeKind::Fixed32 | NodeKind::Fixed64 => {
                let raw = tree.scalar(n, parsed.bytes).unwrap_or_default();
                let typed = field.and_then(|f| Scalar::from_raw(f.kind, raw, parsed.table));
                typed.map_or_else(|| raw.to_string(), |s| scalar_text(&s))
            }
            NodeKind::Bytes => format!("{} bytes", data.len()),
            NodeKind::Packed => format!("packed, {} bytes", data.len()),
            NodeKind::Message | NodeKind::Guessed | NodeKind::Group => {
                let type_name = tree
                    .message_type(n, parsed.table)
                    .and_then(|m| parsed.table.message(m))
                    .map_or("message", |m| &m.name);
                format!("{type_name}, {} bytes", data.len())
            }
        };
        let (fate, notes) = book.fate(n);
        let why = notes
            .iter()
            .find(|note| note.fate == fate)
            .map_or(String::new(), |note| format!(" ({})", note.rule.name()));
        let occurrence = format!(
            "{}{name} {wire} {value}",
            "  ".repeat(tree.depth(n).min(20))
        );
        let text = format!(
            "{:>7}  {occurrence:<38} {}{why}",
            format!("0x{:x}", node.start()),
            fate.word()
        );
        let look = if n == under {
            Look::Selected
        } else if fate != Fate::Kept {
            Look::Note
        } else {
            Look::Plain
        };
        lines.push(line(look, text));
    }
    if tree.len() <= 1 {
        lines.push(line(Look::Dim, "no wire occurrences"));
    }
    lines
}

/// The payload's first byte in the file, for places counted from it.
pub fn payload_base(annotated: &Annotated<'_>) -> Option<u64> {
    annotated.payload().map(|p| p.base())
}

fn style(look: Look) -> Style {
    match look {
        Look::Plain => Style::default(),
        Look::Heading => Style::default().add_modifier(Modifier::BOLD),
        Look::Derivation => Style::default().fg(Color::Cyan),
        Look::Note => Style::default().fg(Color::Yellow),
        Look::Selected => Style::default().add_modifier(Modifier::REVERSED),
        Look::Dim => Style::default().fg(Color::DarkGray),
        Look::Right => Style::default()
            .fg(Color::Green)
            .add_modifier(Modifier::BOLD),
        Look::Wrong => Style::default()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD),
    }
}

/// The panel in the tree's place, its lines wrapped to the pane.
pub struct TutorPanel<'a> {
    pub tutor: &'a Tutor,
    pub focused: bool,
}

impl Widget for TutorPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let border = if self.focused {
            Color::Yellow
        } else {
            Color::DarkGray
        };
        let block = Block::bordered()
            .title(self.tutor.title.clone())
            .border_style(Style::default().fg(border));
        let lines: Vec<ratatui::text::Line<'_>> = self
            .tutor
            .panel
            .iter()
            .map(|l| ratatui::text::Line::styled(l.text.clone(), style(l.look)))
            .collect();
        let paragraph = Paragraph::new(lines).block(block);
        // The parsed view keeps one occurrence a line, so that the one under the cursor stays
        // among the rows chosen for it; the other panels wrap their long derivations.
        let parsed = self.tutor.quiz.is_none() && self.tutor.side == Side::Parsed;
        if parsed {
            paragraph.render(area, buf);
        } else {
            paragraph.wrap(Wrap { trim: false }).render(area, buf);
        }
    }
}
