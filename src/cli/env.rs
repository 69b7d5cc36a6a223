//! The environment a run works in, settled once at the start: whether each standard stream is a
//! terminal, whether what goes to it is coloured (`--color`, NO_COLOR), the terminal's width, and
//! the options every input is opened with.
//!
//! `main` probes the process once ([`Env::probe`]); nothing below it asks `is_terminal` or reads
//! the environment, so a subcommand run in a test gets the [`Env::plain`] a pipe would give.

use std::io::IsTerminal;

use super::ColorChoice;

/// One output stream: whether it is a terminal, and whether what is written to it is coloured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stream {
    pub terminal: bool,
    pub colour: bool,
}

impl Stream {
    /// A stream that is (`terminal`) or is not a terminal, coloured as `choice` says, with
    /// NO_COLOR (`no_color`) taking colour away under `auto`.
    pub fn new(terminal: bool, choice: ColorChoice, no_color: bool) -> Stream {
        let colour = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && !no_color,
        };
        Stream { terminal, colour }
    }
}

/// What the run's surroundings are, as far as output is concerned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Env {
    pub stdout: Stream,
    pub stderr: Stream,
    /// Whether standard input is a terminal (a quiz echoes answers that are not typed).
    pub stdin_terminal: bool,
    /// The terminal's width in columns, when stdout is a terminal that says.
    pub width: Option<usize>,
}

impl Env {
    /// The process's streams and terminal, with colour as `choice` and NO_COLOR say.
    pub fn probe(choice: ColorChoice) -> Env {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let stdout = Stream::new(std::io::stdout().is_terminal(), choice, no_color);
        let width = stdout
            .terminal
            .then(crossterm::terminal::size)
            .and_then(Result::ok)
            .map(|(w, _)| usize::from(w));
        Env {
            stdout,
            stderr: Stream::new(std::io::stderr().is_terminal(), choice, no_color),
            stdin_terminal: std::io::stdin().is_terminal(),
            width,
        }
    }

    /// Pipes everywhere and no colour: what a script sees, and what tests run under.
    pub fn plain() -> Env {
        Env::default()
    }

    /// Whether a progress bar may be drawn on stderr: it is a terminal, and (`stdout_matters`,
    /// for commands that print rows as they go) stdout is not one, where the rows scroll instead.
    pub fn progress(&self, stdout_matters: bool) -> bool {
        self.stderr.terminal && !(stdout_matters && self.stdout.terminal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_choice_the_terminal_and_no_color() {
        let auto = |terminal, no_color| Stream::new(terminal, ColorChoice::Auto, no_color).colour;
        assert!(auto(true, false));
        assert!(!auto(true, true), "NO_COLOR");
        assert!(!auto(false, false), "a pipe");
        assert!(Stream::new(false, ColorChoice::Always, true).colour);
        assert!(!Stream::new(true, ColorChoice::Never, false).colour);
    }

    #[test]
    fn a_bar_is_drawn_only_on_a_terminal_and_not_over_rows_printed_to_it() {
        let env = |stderr, stdout| Env {
            stdout: Stream {
                terminal: stdout,
                colour: false,
            },
            stderr: Stream {
                terminal: stderr,
                colour: false,
            },
            ..Env::plain()
        };
        assert!(env(true, false).progress(true), "list > file");
        assert!(env(true, true).progress(false), "verify on a terminal");
        assert!(
            !env(true, true).progress(true),
            "list on a terminal scrolls its rows"
        );
        assert!(!env(false, false).progress(true), "stderr redirected");
        assert!(!env(false, true).progress(false));
    }
}
