//! The statistics pane (`S`): what `stats` prints for the open files, per split, computed on a
//! worker thread so the screen never waits, and shown in the hex pane's place, where the movement
//! keys scroll it.

use std::sync::mpsc::{Receiver, TryRecvError};

use super::{App, Pane};
use tfr_core::dataset::Dataset;
use tfr_core::stats::figures::StatsReport;
use tfr_core::stats::{report, run};

/// The pane's text, and the worker computing it.
pub struct StatsPane {
    pub lines: Vec<String>,
    /// The first line shown.
    pub scroll: usize,
    job: Option<Receiver<Vec<String>>>,
}

impl StatsPane {
    /// Whether the statistics are still being computed.
    pub fn computing(&self) -> bool {
        self.job.is_some()
    }
}

impl App {
    /// `S`: opens the pane and starts computing, or closes it.
    pub(super) fn toggle_stats(&mut self) {
        if self.stats.take().is_some() {
            return;
        }
        let paths: Vec<std::path::PathBuf> = (0..self.files.len())
            .filter_map(|i| self.path(i).map(std::path::Path::to_path_buf))
            .collect();
        let plan = run::Plan::of(&Dataset::resolve(&paths));
        let decoder = self.open.decoder.clone();
        let read = self.open.read;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let outcome = run::compute(&plan, &decoder, &read);
            let skews = report::skews(&outcome.groups);
            let mut text = Vec::new();
            let figures = StatsReport::new(&outcome.groups, &plan.files, &skews, &[]);
            let written = report::write_text(&figures, &mut text);
            let lines = match written {
                // Figures partly from bytes that are no longer the file's are not shown.
                _ if !outcome.changed.is_empty() => std::iter::once("no statistics:".to_string())
                    .chain(outcome.changed.iter().cloned())
                    .collect(),
                // Each message names its file already.
                Ok(()) => String::from_utf8_lossy(&text)
                    .lines()
                    .map(str::to_string)
                    .chain(outcome.unreadable.iter().map(|(_, error)| error.clone()))
                    .collect(),
                Err(e) => vec![format!("statistics failed: {e}")],
            };
            // The pane may have been closed meanwhile: nobody listens, nothing to do.
            let _ = tx.send(lines);
        });
        self.stats = Some(StatsPane {
            lines: vec!["computing statistics of the open files…".into()],
            scroll: 0,
            job: Some(rx),
        });
        self.focus = Pane::Hex;
    }

    /// Takes the finished statistics; true when the screen changed.
    pub fn poll_stats(&mut self) -> bool {
        let Some(pane) = &mut self.stats else {
            return false;
        };
        let Some(job) = &pane.job else {
            return false;
        };
        match job.try_recv() {
            Ok(lines) => {
                pane.lines = lines;
                pane.job = None;
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => {
                pane.lines = vec!["statistics failed: the worker stopped".into()];
                pane.job = None;
                true
            }
        }
    }

    /// Scrolls the pane by `delta` lines; false when it is not open or not focused.
    pub(super) fn scroll_stats(&mut self, delta: isize) -> bool {
        if self.focus != Pane::Hex {
            return false;
        }
        let Some(pane) = &mut self.stats else {
            return false;
        };
        let last = pane.lines.len().saturating_sub(1);
        pane.scroll = pane.scroll.saturating_add_signed(delta).min(last);
        true
    }

    /// Waits for the statistics (tests and scripted runs).
    pub fn finish_stats(&mut self) {
        let Some(job) = self.stats.as_mut().and_then(|p| p.job.take()) else {
            return;
        };
        let lines = job
            .recv()
            .unwrap_or_else(|_| vec!["statistics failed: the worker stopped".into()]);
        if let Some(pane) = &mut self.stats {
            pane.lines = lines;
        }
    }
}
