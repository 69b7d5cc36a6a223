//! The keymap: terminal events in, [`Action`]s out, as a pure function of one table.
//!
//! [`KEYS`] lists every binding once, with what it does in words; [`key_action`] and
//! [`mouse_action`] look events up in it and the help overlay draws from it, so the help cannot
//! advertise a key that does nothing nor leave out one that does something. Only key presses
//! count: terminals that report releases and repeats (kitty's protocol, Windows) would otherwise
//! act twice per key.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// What the user asked for, independent of which key they used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Close the overlay or prompt (Esc); quits when nothing is open.
    Cancel,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    /// Expand or collapse the selected tree node.
    Toggle,
    NextPane,
    PrevPane,
    Help,
    /// Open or close the wire-format card (`tfr-inspect guide`'s text).
    Guide,
    /// Open or close the whole-text overlay.
    Details,
    Prompt(PromptKind),
    Input(char),
    Backspace,
    Submit,
    SearchNext,
    SearchPrev,
    NextDamaged,
    PrevDamaged,
    NextFile,
    PrevFile,
    /// Show the previewed image large, outside the TUI.
    ShowImage,
    /// Preview the next frame of a sequence's feature list of images.
    NextFrame,
    /// Preview the previous frame.
    PrevFrame,
    /// Draw boxes, class names and keypoints on images, or not.
    ToggleBoxes,
    /// Read the current file again from disk and index it anew (after it grew or changed).
    Reindex,
    /// Show step mode's panel (the token under the cursor derived) in the tree's place.
    StepMode,
    /// Move the hex cursor to the next token.
    NextToken,
    /// Move the hex cursor to the previous token.
    PrevToken,
    /// Start (or end) a quiz on the tokens from the cursor on.
    Quiz,
    /// Show the parsed view (wire occurrences and what a parser keeps) in the tree's place.
    ParsedView,
    /// Open or close the statistics pane (per-feature statistics of the open files).
    Stats,
    ScrollUp {
        column: u16,
        row: u16,
    },
    ScrollDown {
        column: u16,
        row: u16,
    },
    Click {
        column: u16,
        row: u16,
    },
    Resize {
        width: u16,
        height: u16,
    },
}

/// What a prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `:` a record number.
    Record,
    /// `o` a byte offset.
    Offset,
    /// `/` text to find in feature names and string values.
    Search,
    /// The answer to the quiz's question.
    Answer,
}

/// Which keys are live: typing into a prompt, reading the help or the wire-format card (where the
/// moves scroll it) or the whole text, or everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    Prompt,
    Help,
    /// The whole-text overlay (`w`).
    Whole,
}

/// An input as the table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A key, whatever the modifiers (Shift is how `G` is typed; Ctrl counts only where a
    /// [`Input::Ctrl`] binding claims the letter).
    Key(KeyCode),
    /// A letter with Ctrl held.
    Ctrl(char),
    /// Any character typed without Ctrl (the text of a prompt).
    Text,
    WheelUp,
    WheelDown,
    /// The left button pressed.
    Click,
}

impl Input {
    /// How the help names the input.
    pub fn name(self) -> String {
        let name = match self {
            Input::Key(code) => return key_name(code),
            Input::Ctrl(c) => return format!("Ctrl-{}", c.to_ascii_uppercase()),
            Input::Text => "text",
            Input::WheelUp | Input::WheelDown | Input::Click => "mouse",
        };
        name.to_string()
    }
}

/// A key's name in the help, the same on every platform.
fn key_name(code: KeyCode) -> String {
    let name = match code {
        KeyCode::Up => "↑",
        KeyCode::Down => "↓",
        KeyCode::Left => "←",
        KeyCode::Right => "→",
        KeyCode::PageUp => "PgUp",
        KeyCode::PageDown => "PgDn",
        KeyCode::BackTab => "Shift-Tab",
        KeyCode::Enter => "Enter",
        KeyCode::Backspace => "Backspace",
        KeyCode::Char(' ') => "Space",
        KeyCode::Char(c) => return c.to_string(),
        other => return other.to_string(),
    };
    name.to_string()
}

/// Where a binding is live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Among the panes, with no prompt or help open.
    Panes,
    /// Among the panes and over the help, where the moves scroll it.
    PanesAndHelp,
    /// Among the panes and over the help and the whole text (they close or quit).
    PanesAndOverlays,
    /// In every mode, while typing a prompt too.
    Everywhere,
    /// Only while typing a prompt.
    Prompt,
}

impl Scope {
    pub fn covers(self, mode: Mode) -> bool {
        matches!(
            (self, mode),
            (Scope::Everywhere, _)
                | (Scope::Panes, Mode::Normal)
                | (Scope::PanesAndHelp, Mode::Normal | Mode::Help)
                | (
                    Scope::PanesAndOverlays,
                    Mode::Normal | Mode::Help | Mode::Whole
                )
                | (Scope::Prompt, Mode::Prompt)
        )
    }
}

/// One input bound to one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bind {
    pub input: Input,
    /// For [`Input::Text`] and the mouse, the event fills in the character or the position.
    pub action: Action,
    pub scope: Scope,
}

impl Bind {
    const fn also_in_help(self) -> Bind {
        Bind {
            scope: Scope::PanesAndHelp,
            ..self
        }
    }

    const fn also_over_overlays(self) -> Bind {
        Bind {
            scope: Scope::PanesAndOverlays,
            ..self
        }
    }

    const fn everywhere(self) -> Bind {
        Bind {
            scope: Scope::Everywhere,
            ..self
        }
    }

    const fn in_prompt(self) -> Bind {
        Bind {
            scope: Scope::Prompt,
            ..self
        }
    }
}

const fn on(input: Input, action: Action) -> Bind {
    Bind {
        input,
        action,
        scope: Scope::Panes,
    }
}

const fn key(code: KeyCode, action: Action) -> Bind {
    on(Input::Key(code), action)
}

const fn ch(c: char, action: Action) -> Bind {
    key(KeyCode::Char(c), action)
}

const fn ctrl(c: char, action: Action) -> Bind {
    on(Input::Ctrl(c), action)
}

/// One line of the key table: its keys, in groups the help separates with ` / `, and what they do.
#[derive(Debug)]
pub struct Binding {
    pub keys: &'static [&'static [Bind]],
    pub what: &'static str,
}

impl Binding {
    pub fn binds(&self) -> impl Iterator<Item = &Bind> {
        self.keys.iter().flat_map(|group| group.iter())
    }

    /// The keys as the help shows them, e.g. `↑ ↓ ← → / h j k l` (inputs of the same name, such
    /// as the mouse's, once).
    pub fn label(&self) -> String {
        let groups: Vec<String> = self
            .keys
            .iter()
            .map(|group| {
                let mut names: Vec<String> = group.iter().map(|b| b.input.name()).collect();
                names.dedup();
                names.join(" ")
            })
            .collect();
        groups.join(" / ")
    }

    /// Whether the help lists this line: the keys that edit a prompt are named by the prompt.
    pub fn in_help(&self) -> bool {
        self.binds().any(|b| b.scope != Scope::Prompt)
    }
}

/// Every binding, in the order the help lists them.
pub const KEYS: &[Binding] = &[
    Binding {
        keys: &[
            &[
                key(KeyCode::Up, Action::Up).also_in_help(),
                key(KeyCode::Down, Action::Down).also_in_help(),
                key(KeyCode::Left, Action::Left),
                key(KeyCode::Right, Action::Right),
            ],
            &[
                ch('h', Action::Left),
                ch('j', Action::Down).also_in_help(),
                ch('k', Action::Up).also_in_help(),
                ch('l', Action::Right),
            ],
        ],
        what: "move in the focused pane (← → fold and unfold in the tree); ↑ ↓ j k scroll this help",
    },
    Binding {
        keys: &[&[
            key(KeyCode::PageUp, Action::PageUp).also_in_help(),
            key(KeyCode::PageDown, Action::PageDown).also_in_help(),
        ]],
        what: "move a page (of this help too)",
    },
    Binding {
        keys: &[&[
            ctrl('b', Action::PageUp).also_in_help(),
            ctrl('f', Action::PageDown).also_in_help(),
        ]],
        what: "move a page, as PgUp PgDn",
    },
    Binding {
        keys: &[
            &[
                key(KeyCode::Home, Action::Home).also_in_help(),
                key(KeyCode::End, Action::End).also_in_help(),
            ],
            &[
                ch('g', Action::Home).also_in_help(),
                ch('G', Action::End).also_in_help(),
            ],
        ],
        what: "first / last frame, node or byte (top / end of this help)",
    },
    Binding {
        keys: &[&[
            key(KeyCode::Tab, Action::NextPane),
            key(KeyCode::BackTab, Action::PrevPane),
        ]],
        what: "next / previous pane: frames, tree, hex",
    },
    Binding {
        keys: &[&[key(KeyCode::Enter, Action::Toggle), ch(' ', Action::Toggle)]],
        what: "expand or collapse the tree node",
    },
    Binding {
        keys: &[&[ch(':', Action::Prompt(PromptKind::Record))]],
        what: "go to record N (0-based, as in the list; -1 is the last)",
    },
    Binding {
        keys: &[&[ch('o', Action::Prompt(PromptKind::Offset))]],
        what: "go to byte offset N (decimal or 0x…): the frame holding it",
    },
    Binding {
        keys: &[&[ch('/', Action::Prompt(PromptKind::Search))]],
        what: "search feature names, string values and numbers (856, 0.25, -3)",
    },
    Binding {
        keys: &[&[ch('n', Action::SearchNext), ch('N', Action::SearchPrev)]],
        what: "next / previous record that matches",
    },
    Binding {
        keys: &[&[ch('c', Action::NextDamaged), ch('C', Action::PrevDamaged)]],
        what: "next / previous damaged frame",
    },
    Binding {
        keys: &[&[ch('[', Action::PrevFile), ch(']', Action::NextFile)]],
        what: "previous / next file",
    },
    Binding {
        keys: &[&[ch('i', Action::ShowImage)]],
        what: "show the previewed image large (any key returns)",
    },
    Binding {
        keys: &[&[ch('<', Action::PrevFrame), ch('>', Action::NextFrame)]],
        what: "previous / next frame: the image of the previous or next step of a feature list",
    },
    Binding {
        keys: &[&[ch('b', Action::ToggleBoxes)]],
        what: "boxes, class names and keypoints on images, or not",
    },
    Binding {
        keys: &[&[ch('R', Action::Reindex)]],
        what: "read the file again and index it anew (offered when it grew on disk)",
    },
    Binding {
        keys: &[&[ch('s', Action::StepMode)]],
        what: "step mode: the token under the cursor derived, its open messages counting down",
    },
    Binding {
        keys: &[&[ch('.', Action::NextToken), ch(',', Action::PrevToken)]],
        what: "next / previous token: the hex cursor steps token by token",
    },
    Binding {
        keys: &[&[ch('x', Action::Quiz)]],
        what: "quiz: each token's meaning hidden and asked for (x or Esc ends it)",
    },
    Binding {
        keys: &[&[ch('p', Action::ParsedView)]],
        what: "parsed view: each wire occurrence beside what a protobuf parser keeps",
    },
    Binding {
        keys: &[&[ch('S', Action::Stats)]],
        what: "statistics of the open files, per feature and split, in the hex pane's place (S or Esc closes)",
    },
    Binding {
        keys: &[&[
            // Where the pointer is comes from the event.
            on(Input::WheelUp, Action::ScrollUp { column: 0, row: 0 }),
            on(Input::WheelDown, Action::ScrollDown { column: 0, row: 0 }),
            on(Input::Click, Action::Click { column: 0, row: 0 }),
        ]],
        what: "wheel scrolls the pane under it, click selects",
    },
    Binding {
        keys: &[&[ch('w', Action::Details).also_over_overlays()]],
        what: "whole text: the frame's summary, the node, the byte's explanation and the status, wrapped",
    },
    Binding {
        keys: &[&[ch('?', Action::Help).also_over_overlays()]],
        what: "this help",
    },
    Binding {
        keys: &[&[ch('K', Action::Guide).also_over_overlays()]],
        what: "wire format card, as tfr-inspect guide prints it",
    },
    Binding {
        keys: &[&[key(KeyCode::Esc, Action::Cancel).everywhere()]],
        what: "close help or prompt, stop a search; quit when none is open",
    },
    Binding {
        keys: &[&[
            ch('q', Action::Quit).also_over_overlays(),
            ctrl('c', Action::Quit).everywhere(),
        ]],
        what: "quit",
    },
    Binding {
        keys: &[&[
            on(Input::Text, Action::Input(' ')).in_prompt(),
            key(KeyCode::Backspace, Action::Backspace).in_prompt(),
            key(KeyCode::Enter, Action::Submit).in_prompt(),
        ]],
        what: "in a prompt: type, erase, confirm",
    },
];

/// The lines of the help overlay.
pub fn help_lines() -> impl Iterator<Item = &'static Binding> {
    KEYS.iter().filter(|b| b.in_help())
}

/// Every binding live in `mode`.
fn live(mode: Mode) -> impl Iterator<Item = &'static Bind> {
    KEYS.iter()
        .flat_map(Binding::binds)
        .filter(move |b| b.scope.covers(mode))
}

/// The action for a terminal event, if any.
pub fn event_action(mode: Mode, event: &Event) -> Option<Action> {
    match event {
        Event::Key(key) => key_action(mode, *key),
        Event::Mouse(mouse) => mouse_action(mode, *mouse),
        Event::Resize(width, height) => Some(Action::Resize {
            width: *width,
            height: *height,
        }),
        _ => None,
    }
}

/// The action for a key event (presses only): a Ctrl binding first, then the key itself, then
/// prompt text.
pub fn key_action(mode: Mode, key: KeyEvent) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let typed = match key.code {
        KeyCode::Char(c) => Some(c),
        _ => None,
    };
    let held = typed
        .filter(|_| ctrl)
        .and_then(|c| live(mode).find(|b| b.input == Input::Ctrl(c)));
    let bind = held
        .or_else(|| live(mode).find(|b| b.input == Input::Key(key.code)))
        .or_else(|| {
            let text = typed.is_some() && !ctrl;
            live(mode).find(|b| text && b.input == Input::Text)
        })?;
    Some(match (bind.action, typed) {
        (Action::Input(_), Some(c)) => Action::Input(c),
        (action, _) => action,
    })
}

/// The action for a mouse event: the wheel scrolls the pane under the pointer, a click selects.
pub fn mouse_action(mode: Mode, mouse: MouseEvent) -> Option<Action> {
    let input = match mouse.kind {
        MouseEventKind::ScrollUp => Input::WheelUp,
        MouseEventKind::ScrollDown => Input::WheelDown,
        MouseEventKind::Down(MouseButton::Left) => Input::Click,
        _ => return None,
    };
    let bind = live(mode).find(|b| b.input == input)?;
    let (column, row) = (mouse.column, mouse.row);
    Some(match bind.action {
        Action::ScrollUp { .. } => Action::ScrollUp { column, row },
        Action::ScrollDown { .. } => Action::ScrollDown { column, row },
        Action::Click { .. } => Action::Click { column, row },
        action => action,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODES: [Mode; 4] = [Mode::Normal, Mode::Prompt, Mode::Help, Mode::Whole];

    /// An event that triggers `bind`, and the action it must give.
    fn event_of(bind: &Bind) -> (Event, Action) {
        let press = |code, modifiers| Event::Key(KeyEvent::new(code, modifiers));
        let mouse = |kind| {
            Event::Mouse(MouseEvent {
                kind,
                column: 7,
                row: 9,
                modifiers: KeyModifiers::NONE,
            })
        };
        let (column, row) = (7, 9);
        match bind.input {
            Input::Key(code) => (press(code, KeyModifiers::NONE), bind.action),
            Input::Ctrl(c) => (press(KeyCode::Char(c), KeyModifiers::CONTROL), bind.action),
            Input::Text => (
                press(KeyCode::Char('x'), KeyModifiers::NONE),
                Action::Input('x'),
            ),
            Input::WheelUp => (
                mouse(MouseEventKind::ScrollUp),
                Action::ScrollUp { column, row },
            ),
            Input::WheelDown => (
                mouse(MouseEventKind::ScrollDown),
                Action::ScrollDown { column, row },
            ),
            Input::Click => (
                mouse(MouseEventKind::Down(MouseButton::Left)),
                Action::Click { column, row },
            ),
        }
    }

    #[test]
    fn every_binding_dispatches_where_it_is_live() {
        for bind in KEYS.iter().flat_map(Binding::binds) {
            let (event, want) = event_of(bind);
            let modes = MODES.into_iter().filter(|m| bind.scope.covers(*m));
            for mode in modes {
                assert_eq!(event_action(mode, &event), Some(want), "{bind:?} {mode:?}");
            }
        }
    }

    #[test]
    fn no_input_is_bound_twice_in_one_mode() {
        for mode in MODES {
            let inputs: Vec<Input> = live(mode).map(|b| b.input).collect();
            for (i, input) in inputs.iter().enumerate() {
                let later = inputs.get(i + 1..).unwrap_or_default();
                assert!(!later.contains(input), "{input:?} twice in {mode:?}");
            }
        }
    }

    /// Whether a help line names the key that gave `action` in `mode`.
    fn named_in_help(mode: Mode, code: KeyCode, ctrl: bool, action: Action) -> bool {
        help_lines().flat_map(Binding::binds).any(|b| {
            let same_key = match (b.input, code) {
                (Input::Ctrl(c), KeyCode::Char(k)) => ctrl && c == k,
                (input, code) => input == Input::Key(code),
            };
            same_key && b.action == action && b.scope.covers(mode)
        })
    }

    #[test]
    fn every_key_that_acts_outside_a_prompt_is_in_the_help() {
        let mut codes: Vec<KeyCode> = (' '..='~').map(KeyCode::Char).collect();
        codes.extend([
            KeyCode::Up,
            KeyCode::Down,
            KeyCode::Left,
            KeyCode::Right,
            KeyCode::PageUp,
            KeyCode::PageDown,
            KeyCode::Home,
            KeyCode::End,
            KeyCode::Tab,
            KeyCode::BackTab,
            KeyCode::Enter,
            KeyCode::Esc,
            KeyCode::Backspace,
            KeyCode::Delete,
            KeyCode::F(1),
        ]);
        let mut acting = 0;
        for mode in [Mode::Normal, Mode::Help, Mode::Whole] {
            for code in &codes {
                for modifiers in [KeyModifiers::NONE, KeyModifiers::CONTROL] {
                    let Some(action) = key_action(mode, KeyEvent::new(*code, modifiers)) else {
                        continue;
                    };
                    acting += 1;
                    let ctrl = modifiers == KeyModifiers::CONTROL;
                    assert!(
                        named_in_help(mode, *code, ctrl, action),
                        "{code:?} {modifiers:?} gives {action:?} in {mode:?} but the help does not say so"
                    );
                }
            }
        }
        assert!(acting > 50, "{acting}");
    }

    #[test]
    fn labels_name_the_keys_in_their_groups() {
        let labels: Vec<String> = help_lines().map(Binding::label).collect();
        for label in [
            "↑ ↓ ← → / h j k l",
            "Ctrl-B Ctrl-F",
            "Enter Space",
            "mouse",
            "q Ctrl-C",
        ] {
            assert!(labels.iter().any(|l| l == label), "{label}: {labels:?}");
        }
        // The keys that edit a prompt are named by the prompt line, not the help.
        assert!(
            !labels.iter().any(|l| l.contains("Backspace")),
            "{labels:?}"
        );
    }

    #[test]
    fn ctrl_letters_not_bound_with_ctrl_act_as_the_letter() {
        let press =
            |c, modifiers| key_action(Mode::Normal, KeyEvent::new(KeyCode::Char(c), modifiers));
        assert_eq!(press('b', KeyModifiers::CONTROL), Some(Action::PageUp));
        assert_eq!(press('f', KeyModifiers::CONTROL), Some(Action::PageDown));
        assert_eq!(press('f', KeyModifiers::NONE), None);
        assert_eq!(press('j', KeyModifiers::CONTROL), Some(Action::Down));
        assert_eq!(press('c', KeyModifiers::CONTROL), Some(Action::Quit));
        assert_eq!(press('c', KeyModifiers::NONE), Some(Action::NextDamaged));
        let typed = key_action(
            Mode::Prompt,
            KeyEvent::new(KeyCode::Char('b'), KeyModifiers::CONTROL),
        );
        assert_eq!(typed, None, "Ctrl-B types nothing into a prompt");
    }
}
