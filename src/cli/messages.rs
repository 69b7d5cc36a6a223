//! What a run says on standard error, and the exit status it ends with.
//!
//! Every error and note of a subcommand goes through [`Messages`], which writes it (errors as one
//! `tfr-inspect: ` line, with anything an input put in it escaped) and raises the run's status:
//! an error makes the run's status "unusable", damage makes it "damaged", and the worst wins.
//! Tests hand it a buffer instead of stderr and read both back.

use std::cell::{Cell, RefCell};
use std::fmt::Display;
use std::io::{self, Write};
use std::sync::Mutex;

use crate::hint::UserMessage;
use crate::status::Status;

/// The line an error is printed as: `tfr-inspect: ` and the message, escaped for a terminal.
///
/// Core errors escape the names they hold already; escaping the whole line again changes nothing
/// there (escaped text holds no control character), and covers messages that quote a path or a
/// value without escaping it.
pub fn error_line(err: &dyn Display) -> String {
    format!(
        "tfr-inspect: {}",
        tfr_core::escape::for_terminal(&err.to_string())
    )
}

/// Standard error (or a test's buffer) and the status of the run so far.
pub struct Messages<'w> {
    status: Cell<Status>,
    sink: RefCell<Box<dyn Write + 'w>>,
}

impl Messages<'static> {
    /// Messages written to the process's standard error.
    pub fn stderr() -> Messages<'static> {
        Messages::to(io::stderr())
    }
}

impl<'w> Messages<'w> {
    /// Messages written to `sink`.
    pub fn to(sink: impl Write + 'w) -> Messages<'w> {
        Messages {
            status: Cell::new(Status::Clean),
            sink: RefCell::new(Box::new(sink)),
        }
    }

    /// The worst status raised so far.
    pub fn status(&self) -> Status {
        self.status.get()
    }

    /// Raises the run's status to `status` (a lower one changes nothing); returns the run's.
    pub fn raise(&self, status: Status) -> Status {
        self.status.set(self.status.get().max(status));
        self.status.get()
    }

    /// Damage was found.
    pub fn damage(&self) {
        self.raise(Status::Damage);
    }

    /// An input (or the question asked of it) cannot be used: says why, with the flag that helps
    /// for a core error, and makes the run's status "unusable". Returns that status.
    pub fn unusable(&self, err: &(impl UserMessage + ?Sized)) -> Status {
        self.error(&err.user_message());
        self.raise(Status::Unusable)
    }

    /// A run that failed: says its error's whole chain ([`crate::hint::chain_message`]), as the
    /// binary ends a failed run, and makes the run's status "unusable". Returns that status.
    pub fn failed(&self, err: &anyhow::Error) -> Status {
        self.error(&crate::hint::chain_message(err));
        self.raise(Status::Unusable)
    }

    /// The value of `result`, or `None` once its error is said as [`Messages::unusable`] says it
    /// (the run's status is then "unusable").
    pub fn usable<T, E: UserMessage>(&self, result: Result<T, E>) -> Option<T> {
        result.map_err(|e| self.unusable(&e)).ok()
    }

    /// Prints an error line without changing the status (the caller decides what it means).
    pub fn error(&self, err: &dyn Display) {
        self.line(&error_line(err));
    }

    /// Prints `text` as one line as it is (a note that names its file itself).
    pub fn note(&self, text: &dyn Display) {
        self.line(text);
    }

    /// The writer messages go to, for a report that goes to stderr as a whole (`salvage -o -`).
    pub fn writer(&self) -> std::cell::RefMut<'_, Box<dyn Write + 'w>> {
        self.sink.borrow_mut()
    }

    fn line(&self, text: &dyn Display) {
        // A closed stderr has nowhere to say so; the exit status still tells.
        let _ = writeln!(self.sink.borrow_mut(), "{text}");
    }
}

/// Notes said from any thread: what reads URLs is asked from the core's threads, where
/// [`Messages`] (one run's, on one thread) cannot go. Each note is one line, written whole, to
/// standard error or a test's buffer; notes raise no status.
pub struct Notes {
    sink: Mutex<Box<dyn Write + Send>>,
}

impl Notes {
    /// Notes written to the process's standard error.
    pub fn stderr() -> Notes {
        Notes::to(io::stderr())
    }

    /// Notes written to `sink`.
    pub fn to(sink: impl Write + Send + 'static) -> Notes {
        Notes {
            sink: Mutex::new(Box::new(sink)),
        }
    }

    /// Prints `text` as one line as it is (a note that names its input itself, escaped).
    pub fn note(&self, text: &dyn Display) {
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        // A closed stderr has nowhere to say so.
        let _ = writeln!(sink, "{text}");
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_worst_status_wins_and_errors_are_escaped_lines() {
        let mut buffer = Vec::new();
        {
            let messages = Messages::to(&mut buffer);
            assert_eq!(messages.status(), Status::Clean);
            messages.damage();
            assert_eq!(messages.unusable("bad\x1b[2Jname"), Status::Unusable);
            messages.damage();
            assert_eq!(messages.status(), Status::Unusable);
            messages.note(&"f: note: kept");
        }
        assert_eq!(
            String::from_utf8(buffer).unwrap(),
            "tfr-inspect: bad\\033[2Jname\nf: note: kept\n"
        );
    }

    /// A buffer notes can be written to from any thread and read back.
    #[derive(Clone, Default)]
    pub struct Shared(pub std::sync::Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        pub fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn notes_from_several_threads_are_whole_lines() {
        let buffer = Shared::default();
        let notes = Notes::to(buffer.clone());
        std::thread::scope(|s| {
            for t in 0..4 {
                let notes = &notes;
                s.spawn(move || (0..50).for_each(|i| notes.note(&format!("t{t}: note {i}"))));
            }
        });
        let text = buffer.text();
        assert_eq!(text.lines().count(), 200);
        assert!(
            text.lines()
                .all(|l| l.starts_with('t') && l.contains(": note "))
        );
    }
}
