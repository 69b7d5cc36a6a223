//! The inspector's search (`/`, `n`, `N`): starting a search of the current file, taking the
//! worker's findings between key presses, and showing a hit: its record selected, the cursor on
//! the hit's bytes (so the tree selects the node holding it) and the status line naming it.
//!
//! A search finds records (see [`tfr_core::search`]); the bytes to put the cursor on are found again
//! in the one record shown, so the worker keeps nothing but record numbers.

use super::App;
use crate::tui::search::{SearchRun, Target, grouped};
use tfr_core::search::{Needle, record_hit};

/// A step asked for and not yet answered: the worker may still find its hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pending {
    from: usize,
    forward: bool,
    /// Whether a hit in record `from` itself will do (a new search, not `n`).
    at_too: bool,
}

impl App {
    /// Starts a search for the text of the prompt, from the selected record on.
    pub(super) fn start_search(&mut self, text: String) {
        self.search = Some(text);
        self.search_run = None;
        self.search_step(true);
    }

    /// `n` / `N`: the next (or previous) record holding the search text or number, wrapping
    /// around the file. The first step of a search starts the worker; later steps use the
    /// records it found, without scanning again.
    pub fn search_step(&mut self, forward: bool) {
        let Some(needle) = self.search.clone().filter(|s| !s.is_empty()) else {
            self.message = "no search yet: press / to search".into();
            return;
        };
        let Some(file) = self.file() else {
            return;
        };
        let selected = file.selected;
        let same = self.search_run.as_ref().is_some_and(|run| {
            run.needle == needle && run.file == self.current && run.generation == file.generation
        });
        let pending = Pending {
            from: selected,
            forward,
            at_too: !same,
        };
        if !same {
            let target = Target {
                bytes: file.input.source.shared_bytes(),
                index: file.input.index.clone(),
                decoder: file.input.decoder().clone(),
                file: self.current,
                generation: file.generation,
            };
            self.search_run = Some(SearchRun::start(&needle, target, self.search_inline));
        }
        self.search_pending = Some(pending);
        self.resolve_search();
    }

    /// Whether a search is still scanning.
    pub fn searching(&self) -> bool {
        self.search_run.as_ref().is_some_and(SearchRun::running)
    }

    /// Takes what the search worker found; true when the screen changed.
    pub fn poll_search(&mut self) -> bool {
        let Some(run) = &mut self.search_run else {
            return false;
        };
        if !run.poll() {
            return false;
        }
        self.resolve_search();
        true
    }

    /// Esc during a search: the worker stops and what it found is dropped.
    pub(super) fn stop_search(&mut self) -> bool {
        self.search_pending = None;
        match self.search_run.take() {
            Some(mut run) if run.running() => {
                run.cancel();
                true
            }
            _ => false,
        }
    }

    /// Waits for the search to finish (tests and scripted runs).
    pub fn finish_search(&mut self) {
        if let Some(run) = &mut self.search_run {
            run.wait();
        }
        self.resolve_search();
    }

    /// Shows the hit a pending step asked for once it is known, or says how far the search is.
    fn resolve_search(&mut self) {
        let Some(run) = &self.search_run else {
            return;
        };
        let needle = format!("{:?}", run.needle);
        let Some(pending) = self.search_pending else {
            // The hit is shown; only the count in the message changes, while it is still shown.
            let running = run.running();
            let selected = self.file().map(|f| f.selected);
            if let Some((record, head, what)) = self.search_shown.take() {
                if selected == Some(record) {
                    self.message = format!("{head}{}{what}", self.hit_suffix());
                    if running {
                        self.search_shown = Some((record, head, what));
                    }
                }
            }
            return;
        };
        match run.next(pending.from, pending.forward, pending.at_too) {
            Ok(position) => {
                self.search_pending = None;
                self.show_hit(position);
            }
            Err(true) => {
                let direction = if pending.forward {
                    "forward"
                } else {
                    "backward"
                };
                let records = run.records.map_or(String::new(), |n| {
                    format!(" of {} records", grouped(n as u64))
                });
                self.message = format!(
                    "searching {needle} {direction}… {}%{records}, {} matching so far (any key works meanwhile; Esc stops)",
                    run.percent(),
                    grouped(run.hits.len() as u64)
                );
            }
            Err(false) => {
                self.search_pending = None;
                self.message = format!(
                    "{needle} not found in any feature name, string value or number (whole file searched)"
                );
            }
        }
    }

    /// " (3 of 2,341 records)" for the hit shown.
    fn hit_suffix(&self) -> String {
        let Some(run) = &self.search_run else {
            return String::new();
        };
        let selected = self.file().map_or(0, |f| f.selected) as u64;
        match run.hits.binary_search(&selected) {
            Ok(at) => format!(" ({} of {})", grouped(at as u64 + 1), run.count_text()),
            Err(_) => String::new(),
        }
    }

    /// Selects the `position`th hit's record, puts the cursor on the hit and names the feature
    /// it is in: `"horse" at offset 1234: record 5 (1 of 3 records), feature2[0]`.
    fn show_hit(&mut self, position: usize) {
        let Some(run) = &self.search_run else {
            return;
        };
        let Some(record) = run
            .hits
            .get(position)
            .and_then(|r| usize::try_from(*r).ok())
        else {
            return;
        };
        let needle_text = run.needle.clone();
        let needle = format!("{needle_text:?}");
        self.select_frame(record);
        let at = self.file().and_then(|file| {
            let data = file.data();
            let frame = file.index().get(data, record)?;
            let payload = frame.payload(data)?;
            let start = frame.payload_range()?.start;
            let span = record_hit(&Needle::new(&needle_text), payload, file.input.decoder())?;
            Some(start.0 + span.start as u64)
        });
        let (head, what) = match at {
            Some(offset) => {
                self.set_cursor(offset);
                let name = self.cursor_name();
                let what = if name.is_empty() {
                    String::new()
                } else {
                    format!(", {name}")
                };
                (
                    format!("{needle} at offset {offset}: record {record}"),
                    what,
                )
            }
            None => (format!("{needle}: record {record}"), String::new()),
        };
        self.message = format!("{head}{}{what}", self.hit_suffix());
        self.search_shown = self.searching().then_some((record, head, what));
    }

    /// The labels of the tree node under the cursor and its parents below the record:
    /// `image/class/text[0]`.
    fn cursor_name(&self) -> String {
        let tree = &self.view.tree;
        let node = self.view.node;
        let mut chain: Vec<&str> = std::iter::once(node)
            .chain(tree.ancestors(node))
            .filter_map(|n| tree.nodes.get(n))
            .filter(|n| n.depth >= 2)
            .map(|n| n.label.as_str())
            .collect();
        chain.reverse();
        let mut name = String::new();
        for label in chain {
            if !name.is_empty() && !label.starts_with('[') {
                name.push(' ');
            }
            name.push_str(label);
        }
        name
    }
}
