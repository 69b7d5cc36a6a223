//! The tutor's actions: stepping token by token, the step and parsed panels, and the quiz (a
//! question per token, answered in the prompt). What the panels show is rebuilt by
//! [`App::refresh_tutor`] after every action, like the rest of the screen.

use ratatui::layout::Rect;

use super::{App, Pane, Prompt};
use crate::tui::decoding::INLINE_BYTES;
use crate::tui::keymap::PromptKind;
use crate::tui::layout;
use crate::tui::tutor::{self, Look, PanelLine, QuizState, Side};
use tfr_core::explain::{Explainer, Radix};
use tfr_core::quiz::{self, Attempt, Next, Question};

impl App {
    /// Shows `side` in the tree's place, or the tree again when it is shown already.
    pub(super) fn toggle_side(&mut self, side: Side) {
        self.tutor.side = if self.tutor.side == side {
            Side::Tree
        } else {
            side
        };
        self.message = match self.tutor.side {
            Side::Step => "step mode: . and , step token by token".into(),
            Side::Parsed => "parsed view: each wire occurrence beside what a parser keeps".into(),
            Side::Tree => String::new(),
        };
    }

    /// Moves the hex cursor to the next (or previous) token of the frame.
    pub(super) fn step_token(&mut self, forward: bool) {
        let target = self.annotated().and_then(|annotated| {
            let token = annotated.token_at(self.view.cursor)?;
            if forward {
                annotated.next_token(&token).map(|t| t.start)
            } else {
                let before = token.start.checked_sub(1)?;
                annotated.token_at(before).map(|t| t.start)
            }
        });
        match target {
            Some(at) => self.set_cursor(at),
            None if forward => self.message = "the frame's last token".into(),
            None => self.message = "the frame's first token".into(),
        }
    }

    /// The first question at or after file offset `from` in the selected frame.
    fn question_from(&self, from: u64) -> Option<Question> {
        let annotated = self.annotated()?;
        let file = self.file()?;
        let explainer = Explainer::new(&annotated, file.data(), Radix::Decimal);
        let book = tutor::rule_book(&annotated, self.decoded_whole());
        quiz::questions(&annotated, &explainer, book.as_ref(), from).next()
    }

    /// `x`: starts a quiz at the token under the cursor (or ends the one under way).
    pub(super) fn start_quiz(&mut self) {
        if self.tutor.quiz.is_some() {
            self.end_quiz();
            return;
        }
        let from = self
            .token_under_cursor()
            .map_or(self.view.cursor, |t| t.start);
        let Some(question) = self.question_from(from) else {
            self.message = "nothing to ask here: no tag, length or value from the cursor on".into();
            return;
        };
        self.ask(question, QuizState::default());
    }

    fn ask(&mut self, question: Question, mut state: QuizState) {
        self.set_cursor(question.token.start);
        self.focus = Pane::Hex;
        state.question = Some(question);
        self.tutor.quiz = Some(state);
        self.prompt = Some(Prompt {
            kind: PromptKind::Answer,
            text: String::new(),
        });
    }

    /// Checks `text` against the question asked, then asks the next one; an answer that is no
    /// answer, or the wire's number of a value its type reads otherwise, keeps the question (as
    /// the command line's quiz does).
    pub(super) fn answer(&mut self, text: &str) {
        let Some(mut state) = self.tutor.quiz.take() else {
            return;
        };
        let Some(question) = state.question.take() else {
            self.end_quiz_with(state);
            return;
        };
        state.verdict.clear();
        let n = state.asked + 1;
        let text = text.trim();
        // What was typed (or pasted) is shown through the one escaping path, as the stdin quiz
        // shows it: a pasted control character must not reach the terminal.
        let shown = tfr_core::escape::for_terminal(text);
        let (said, look) = match state.attempt.answer(&question, text) {
            Next::AskAgain => {
                state.verdict.push(PanelLine {
                    text: format!(
                        "question {n}: {shown} is no answer to this question; {}",
                        question.prompt
                    ),
                    look: Look::Wrong,
                });
                self.ask(question, state);
                return;
            }
            Next::TypeStep => {
                state.verdict.push(PanelLine {
                    text: format!("question {n}: {}", question.type_step()),
                    look: Look::Right,
                });
                self.ask(question, state);
                return;
            }
            Next::Graded { right: true } => {
                state.right += 1;
                (
                    format!("question {n}: right, {}", question.answer),
                    Look::Right,
                )
            }
            Next::Graded { right: false } if text.is_empty() => (
                format!("question {n}: it is {}:", question.answer),
                Look::Wrong,
            ),
            Next::Graded { right: false } => (
                format!(
                    "question {n}: not quite, you said {shown}; it is {}:",
                    question.answer
                ),
                Look::Wrong,
            ),
        };
        state.asked += 1;
        state.attempt = Attempt::default();
        state.verdict.push(PanelLine { text: said, look });
        // The derivation follows every answer, right or wrong.
        state
            .verdict
            .extend(question.derivation.iter().map(|step| PanelLine {
                text: format!("| {step}"),
                look: Look::Derivation,
            }));
        match self.question_after(&question) {
            Some(next) => self.ask(next, state),
            None => self.end_quiz_with(state),
        }
    }

    /// The question that follows `current` (a rule question shares its token with the tag's).
    fn question_after(&self, current: &Question) -> Option<Question> {
        let annotated = self.annotated()?;
        let file = self.file()?;
        let explainer = Explainer::new(&annotated, file.data(), Radix::Decimal);
        // The rules of whole messages only for a record small enough to read whole on every
        // answer, as the tutor's panels take them.
        let book = tutor::rule_book(&annotated, self.decoded_whole());
        let mut questions =
            quiz::questions(&annotated, &explainer, book.as_ref(), current.token.start);
        questions.find(|q| q.token == current.token && q.ask == current.ask)?;
        questions.next()
    }

    /// Ends the quiz under way, saying the score.
    pub(super) fn end_quiz(&mut self) {
        if let Some(state) = self.tutor.quiz.take() {
            self.end_quiz_with(state);
        }
    }

    fn end_quiz_with(&mut self, state: QuizState) {
        self.tutor.quiz = None;
        if self
            .prompt
            .as_ref()
            .is_some_and(|p| p.kind == PromptKind::Answer)
        {
            self.prompt = None;
        }
        self.message = format!("quiz over: {} of {} right", state.right, state.asked);
    }

    /// The explanation line for the byte under the cursor.
    pub(super) fn explain_line(&self) -> String {
        let (Some(annotated), Some(file)) = (self.annotated(), self.file()) else {
            return String::new();
        };
        let book = tutor::rule_book(&annotated, self.decoded_whole());
        tutor::explain_line(
            &annotated,
            book.as_ref(),
            file.data(),
            self.view.cursor,
            &self.tutor,
        )
    }

    /// Whether the selected record is small enough to read whole on every key (for the rules
    /// that need a whole message).
    fn decoded_whole(&self) -> bool {
        self.view
            .tree
            .record()
            .is_some_and(|r| r.payload.end - r.payload.start <= INLINE_BYTES as u64)
    }

    /// Where the tutor panel is drawn: the tree's place, and the preview's below it.
    pub fn tutor_rect(&self) -> Rect {
        let panes = self.panes();
        panes.preview.map_or(panes.tree, |p| panes.tree.union(p))
    }

    /// Rebuilds the tutor panel shown in the tree's place.
    pub(super) fn refresh_tutor(&mut self) {
        if !self.tutor.shows_panel() {
            self.tutor.panel.clear();
            return;
        }
        let rows = usize::from(layout::inner(self.tutor_rect()).height);
        let (title, panel) = match (self.annotated(), self.file()) {
            (Some(annotated), Some(file)) => {
                let data = file.data();
                let book = tutor::rule_book(&annotated, self.decoded_whole());
                let cursor = self.view.cursor;
                match (&self.tutor.quiz, self.tutor.side) {
                    (Some(state), _) => (
                        " quiz · x or Esc ends ".to_string(),
                        tutor::quiz_panel(state, data, tutor::payload_base(&annotated)),
                    ),
                    (None, Side::Parsed) => match &book {
                        Some(book) => (
                            " parsed · p back to the tree ".to_string(),
                            tutor::parsed_panel(&annotated, book, cursor, rows),
                        ),
                        None => (
                            " parsed · p back to the tree ".to_string(),
                            vec![PanelLine {
                                text: "the payload is not read as protobuf".into(),
                                look: Look::Dim,
                            }],
                        ),
                    },
                    (None, _) => (
                        " step · . next · , previous · s back ".to_string(),
                        tutor::step_panel(&annotated, book.as_ref(), data, cursor),
                    ),
                }
            }
            _ => (String::new(), Vec::new()),
        };
        self.tutor.title = title;
        self.tutor.panel = panel;
    }
}
