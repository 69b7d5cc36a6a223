//! The keymap: terminal events in, [`Action`]s out, as a pure function.
//!
//! Keeping the bindings in one pure function means they can be tested without a terminal and the
//! help overlay cannot drift from what the keys really do. Only key presses count: terminals that
//! report releases and repeats (kitty's protocol, Windows) would otherwise act twice per key.

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
    Prompt(PromptKind),
    Input(char),
    Backspace,
    Submit,
    SearchNext,
    SearchPrev,
    /// Scan the next slice of a search still running (sent by the run loop when no key waits,
    /// never by a key).
    SearchContinue,
    NextDamaged,
    PrevDamaged,
    NextFile,
    PrevFile,
    /// Show the previewed image large, outside the TUI.
    ShowImage,
    /// Read the current file again from disk and index it anew (after it grew or changed).
    Reindex,
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
}

/// Which keys are live: typing into a prompt, reading the help, or everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    Prompt,
    Help,
}

/// The action for a terminal event, if any.
pub fn event_action(mode: Mode, event: &Event) -> Option<Action> {
    match event {
        Event::Key(key) => key_action(mode, *key),
        Event::Mouse(mouse) if mode == Mode::Normal => mouse_action(*mouse),
        Event::Resize(width, height) => Some(Action::Resize {
            width: *width,
            height: *height,
        }),
        _ => None,
    }
}

/// The action for a key event (presses only).
pub fn key_action(mode: Mode, key: KeyEvent) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    match mode {
        Mode::Prompt => match key.code {
            KeyCode::Esc => Some(Action::Cancel),
            KeyCode::Enter => Some(Action::Submit),
            KeyCode::Backspace => Some(Action::Backspace),
            KeyCode::Char(c) if !ctrl => Some(Action::Input(c)),
            _ => None,
        },
        Mode::Help => match key.code {
            KeyCode::Esc => Some(Action::Cancel),
            KeyCode::Char('?') => Some(Action::Help),
            KeyCode::Char('q') => Some(Action::Quit),
            _ => None,
        },
        Mode::Normal => normal_key(key.code, ctrl),
    }
}

fn normal_key(code: KeyCode, ctrl: bool) -> Option<Action> {
    Some(match code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Esc => Action::Cancel,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::Left | KeyCode::Char('h') => Action::Left,
        KeyCode::Right | KeyCode::Char('l') => Action::Right,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Char('b') if ctrl => Action::PageUp,
        KeyCode::Char('f') if ctrl => Action::PageDown,
        KeyCode::Home | KeyCode::Char('g') => Action::Home,
        KeyCode::End | KeyCode::Char('G') => Action::End,
        KeyCode::Enter | KeyCode::Char(' ') => Action::Toggle,
        KeyCode::Tab => Action::NextPane,
        KeyCode::BackTab => Action::PrevPane,
        KeyCode::Char('?') => Action::Help,
        KeyCode::Char(':') => Action::Prompt(PromptKind::Record),
        KeyCode::Char('o') => Action::Prompt(PromptKind::Offset),
        KeyCode::Char('/') => Action::Prompt(PromptKind::Search),
        KeyCode::Char('n') => Action::SearchNext,
        KeyCode::Char('N') => Action::SearchPrev,
        KeyCode::Char('c') => Action::NextDamaged,
        KeyCode::Char('C') => Action::PrevDamaged,
        KeyCode::Char(']') => Action::NextFile,
        KeyCode::Char('[') => Action::PrevFile,
        KeyCode::Char('i') => Action::ShowImage,
        KeyCode::Char('R') => Action::Reindex,
        _ => return None,
    })
}

/// The action for a mouse event: the wheel scrolls the pane under the pointer, a click selects.
pub fn mouse_action(mouse: MouseEvent) -> Option<Action> {
    let (column, row) = (mouse.column, mouse.row);
    match mouse.kind {
        MouseEventKind::ScrollUp => Some(Action::ScrollUp { column, row }),
        MouseEventKind::ScrollDown => Some(Action::ScrollDown { column, row }),
        MouseEventKind::Down(MouseButton::Left) => Some(Action::Click { column, row }),
        _ => None,
    }
}
