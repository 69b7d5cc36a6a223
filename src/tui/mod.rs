//! The interactive inspector: a frame list, the selected record as a tree, its bytes in hex, and an
//! image preview, all tied together by byte ranges.
//!
//! This module owns the terminal: it enters the alternate screen with mouse capture, restores the
//! terminal on quit, on error and on panic, runs the background indexer, and turns events into
//! [`Action`](keymap::Action)s for [`App::update`](app::App::update). Before every redraw it asks
//! whether an open file changed on disk ([`App::watch_files`](app::App::watch_files)), so a file cut short or rewritten is indexed
//! again instead of being shown as it was. Everything else is plain state and widgets, testable
//! without a terminal.

pub mod app;
pub mod charts;
pub mod decoding;
pub mod details;
pub mod features;
pub mod framelist;
pub mod help;
pub mod hexview;
pub mod index_cache;
pub mod keymap;
pub mod layout;
pub mod preview;
pub mod search;
pub mod tree;
pub mod tutor;
pub mod view;

use std::io::{Stdout, Write, stdout};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use anyhow::Context;
use crossterm::cursor::{Hide, MoveTo, Show};
use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;

use crate::status::Status;
use app::{App, Effect};
use tfr_core::bytes::{ByteSource, ReadError};
use tfr_core::frame::{FrameIndex, IndexDelta};
use tfr_core::input::{Input, OpenOptions};
use tfr_core::source::{ReadOptions, Source};

/// Bytes the background indexer scans between progress reports.
const INDEX_STEP: u64 = 64 << 20;
/// Least time between two reports of newly indexed frames sent to the UI.
const SNAPSHOT_EVERY: Duration = Duration::from_millis(250);

/// Frames newly found in file `file`; `done` when the scan reached the end.
struct IndexReport {
    file: usize,
    /// The file's [`FileView::generation`](app::FileView::generation) the indexer started from.
    generation: u64,
    delta: IndexDelta,
    done: bool,
    /// The file changed under the indexer: nothing it found can be trusted.
    stale: bool,
    /// Why the object's bytes stopped coming (a fetch that failed): indexing stops where it
    /// was, with what was found before.
    failure: Option<ReadError>,
}

/// Opens `files` in the inspector and runs it until the user quits. `options` (how files are read
/// and decoded) are resolved from the command line once, before the inspector starts: the argument
/// parser's own types stop at `main`.
///
/// The status follows the documented exit codes: [`Status::Unusable`] when any input could not be
/// opened (those errors are also printed to stderr once the terminal is restored, so they are not
/// lost with the screen), else [`Status::Damage`] when a damaged frame or compressed stream was
/// found, else [`Status::Clean`].
/// Runs the inspector on `files`; `unopened` are arguments that named no file to open (a pattern
/// that matched nothing, a directory without TFRecord files), listed with the files that fail.
/// Without `colour` (`--color never`, NO_COLOR) the screen is drawn in monochrome, the cursor and
/// selections in reverse video ([`view::monochrome`]).
pub fn run(
    files: &[PathBuf],
    unopened: &[String],
    options: &OpenOptions,
    colour: bool,
    messages: &crate::cli::Messages,
) -> anyhow::Result<Status> {
    // A remote shard shows its first frames once its first part is here; the rest is fetched
    // as it is read (by the background indexer, and where the user goes).
    let mut options = options.clone();
    options.read.on_demand = true;
    let cache = index_cache::IndexCache::from_env(
        std::env::var_os("XDG_CACHE_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    );
    let mut app = App::open_with_cache(files, &options, cache)?;
    app.open_errors.splice(0..0, unopened.iter().cloned());
    let (tx, reports) = mpsc::channel();
    spawn_indexer(&mut app, tx.clone());
    let mut terminal = TerminalGuard::enter()?;
    let size = terminal.terminal.size()?;
    app.update(keymap::Action::Resize {
        width: size.width,
        height: size.height,
    });
    let outcome = event_loop(&mut app, &mut terminal, &reports, &tx, colour);
    drop(terminal);
    for error in &app.open_errors {
        messages.error(error);
    }
    outcome?;
    Ok(app.status())
}

fn event_loop(
    app: &mut App,
    guard: &mut TerminalGuard,
    reports: &Receiver<IndexReport>,
    tx: &Sender<IndexReport>,
    colour: bool,
) -> anyhow::Result<()> {
    let mut dirty = true;
    while !app.quit {
        dirty |= take_reports(app, reports);
        // While a record decodes in the background, its progress is redrawn on every turn.
        dirty |= app.poll_decoding() || app.decoding_percent().is_some();
        dirty |= app.poll_stats();
        dirty |= app.poll_search();
        // Before drawing: a file that shrank or was rewritten must not be shown as it was.
        dirty |= app.watch_files();
        for file in app.take_index_jobs() {
            spawn_reindexer(app, file, tx.clone());
        }
        if dirty {
            guard.terminal.draw(|f| {
                f.render_widget(&*app, f.area());
                if !colour {
                    view::monochrome(f.buffer_mut());
                }
            })?;
            dirty = false;
        }
        // A search still running or a record decoding redraws its progress on every turn.
        let wait = if app.searching() || app.decoding_percent().is_some() {
            Duration::from_millis(50)
        } else {
            Duration::from_millis(100)
        };
        if event::poll(wait)? {
            let event = event::read()?;
            if let Some(action) = keymap::event_action(app.mode(), &event) {
                app.update(action);
                dirty = true;
            }
        }
        if let Some(Effect::ShowImage(picture)) = app.effect.take() {
            show_image(guard, picture)?;
            dirty = true;
        }
    }
    Ok(())
}

/// Takes what the indexers found since the last turn; true when there was anything.
fn take_reports(app: &mut App, reports: &Receiver<IndexReport>) -> bool {
    let mut any = false;
    while let Ok(report) = reports.try_recv() {
        let current = app.files.get(report.file).map(|f| f.generation);
        if current != Some(report.generation) {
            continue;
        }
        if report.stale {
            let name = app
                .path(report.file)
                .map(tfr_core::escape::path_for_terminal);
            let note = format!(
                "{} changed while being indexed; re-indexed",
                name.unwrap_or_default()
            );
            app.reopen(report.file, note);
        } else {
            app.index_update(report.file, report.delta, report.done);
        }
        if let Some(failure) = report.failure {
            app.index_failed(report.file, failure);
        }
        any = true;
    }
    any
}

/// What a background indexer reads: the file again, or (for an object read on demand) the
/// bytes the UI reads, shared.
enum IndexBytes {
    Reopen(PathBuf),
    Shared(Arc<dyn ByteSource>),
}

impl IndexBytes {
    /// How the indexer can read `input`, when it can (see [`reopenable`]).
    fn of(input: &Input) -> Option<IndexBytes> {
        if input.source.fetched().is_some() {
            // Fetching is the slow part: one fetch serves the indexer and the UI.
            Some(IndexBytes::Shared(input.source.shared_bytes()))
        } else if reopenable(input) {
            Some(IndexBytes::Reopen(input.source.path().to_path_buf()))
        } else {
            None
        }
    }
}

/// Indexes every file not yet complete in one background thread, file after file.
fn spawn_indexer(app: &mut App, tx: Sender<IndexReport>) {
    let mut jobs: Vec<(usize, IndexBytes, FrameIndex)> = Vec::new();
    for (i, file) in app.files.iter_mut().enumerate() {
        if !file.indexing {
            continue;
        }
        if let Some(bytes) = IndexBytes::of(&file.input) {
            // The thread continues from what the UI has indexed so far and sends only new frames.
            jobs.push((i, bytes, file.input.index.clone()));
        } else {
            file.input.settle_all();
            file.indexing = false;
        }
    }
    if !jobs.is_empty() {
        std::thread::spawn(move || {
            for (file, bytes, index) in jobs {
                if index_file(file, 0, bytes, index, &tx).is_err() {
                    return;
                }
            }
        });
    }
}

/// Whether a background indexer can read `input` a second time. A pipe or special file cannot,
/// and a compressed file would have to be decompressed again: those are indexed in the UI thread
/// instead, from the bytes already read.
fn reopenable(input: &Input) -> bool {
    std::fs::metadata(input.source.path()).is_ok_and(|m| m.is_file())
        && input.source.compression().is_none()
}

/// Indexes file `file` again after it was reopened: in the background when it can be read a
/// second time, here otherwise (see [`reopenable`]).
fn spawn_reindexer(app: &mut App, file: usize, tx: Sender<IndexReport>) {
    let Some(view) = app.files.get_mut(file) else {
        return;
    };
    let Some(bytes) = IndexBytes::of(&view.input) else {
        view.input.settle_all();
        view.indexing = false;
        return;
    };
    let (generation, index) = (view.generation, view.input.index.clone());
    std::thread::spawn(move || index_file(file, generation, bytes, index, &tx));
}

/// Scans one file onward from `index` in [`INDEX_STEP`]s, sending the frames found since the last
/// report; stops when the UI has gone.
fn index_file(
    file: usize,
    generation: u64,
    bytes: IndexBytes,
    mut index: FrameIndex,
    tx: &Sender<IndexReport>,
) -> Result<(), ()> {
    let report = |delta, done, stale| IndexReport {
        file,
        generation,
        delta,
        done,
        stale,
        failure: None,
    };
    let (reopened, shared) = match bytes {
        IndexBytes::Shared(bytes) => (None, Some(bytes)),
        IndexBytes::Reopen(path) => {
            let source = Source::open(&path, &ReadOptions::as_is())
                .ok()
                .filter(|s| s.len() == index.file_len());
            if source.is_none() {
                // The file changed or vanished since it was opened: keep what the UI has.
                let delta = index.delta_since(index.len());
                return tx.send(report(delta, true, false)).map_err(|_| ());
            }
            (source, None)
        }
    };
    let data: &dyn ByteSource = match (&reopened, &shared) {
        (Some(source), _) => source,
        (None, Some(bytes)) => &**bytes,
        (None, None) => return Ok(()),
    };
    let mut sent = index.len();
    let mut last = Instant::now();
    loop {
        let done = index.scan(data, INDEX_STEP);
        // A file must not have changed; an object's parts must all have been fetched. Either
        // way what this step found may rest on bytes that were not there, and is dropped.
        if let (None, Some(error)) = (&reopened, data.failure()) {
            let delta = index.delta_since(index.len());
            let stopped = IndexReport {
                failure: Some(error),
                ..report(delta, true, false)
            };
            return tx.send(stopped).map_err(|_| ());
        }
        if reopened
            .as_ref()
            .is_some_and(|s| s.check_unchanged().is_err())
        {
            // Part of what was scanned may have been zeros: the UI reads the file again.
            let delta = index.delta_since(index.len());
            return tx.send(report(delta, true, true)).map_err(|_| ());
        }
        if done || last.elapsed() >= SNAPSHOT_EVERY {
            let delta = index.delta_since(sent);
            sent = delta.end();
            tx.send(report(delta, done, false)).map_err(|_| ())?;
            last = Instant::now();
        }
        if done {
            return Ok(());
        }
    }
}

/// The terminal in inspector mode; dropping it (also on error) restores the shell's screen.
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    fn enter() -> anyhow::Result<TerminalGuard> {
        install_panic_hook();
        // Under NO_COLOR crossterm writes every colour change as a bare `ESC [ m`, which resets
        // reverse video too and so hides the cursor. Colours are taken out of the screen buffer
        // instead (`view::monochrome`), so crossterm is told to write what it is given.
        crossterm::style::Colored::set_ansi_color_disabled(false);
        enable_raw_mode().context("cannot switch the terminal to raw mode")?;
        // From here a fetch's bar would draw over the inspector's screen.
        crate::remote::screen_taken(true);
        let mut out = stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture, Hide) {
            restore_terminal();
            return Err(e.into());
        }
        let terminal = match Terminal::new(CrosstermBackend::new(stdout())) {
            Ok(t) => t,
            Err(e) => {
                restore_terminal();
                return Err(e.into());
            }
        };
        Ok(TerminalGuard { terminal })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Leaves raw mode, the alternate screen and mouse capture, and shows the cursor. Errors are
/// ignored: this runs on the way out, when nothing better can be done about them.
fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), DisableMouseCapture, LeaveAlternateScreen, Show);
    crate::remote::screen_taken(false);
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous(info);
    }));
}

const KITTY: &str = "the kitty graphics protocol";

/// The way viuer draws on this terminal, asked in the order viuer chooses: sixel graphics,
/// iTerm's inline images, kitty's graphics protocol, else half blocks.
fn graphics_protocol() -> &'static str {
    if viuer::is_sixel_supported() {
        "sixel graphics"
    } else if viuer::is_iterm_supported() {
        "iTerm inline images"
    } else if viuer::get_kitty_support() != viuer::KittySupport::None {
        KITTY
    } else {
        "half blocks (no sixel, kitty or iTerm graphics here)"
    }
}

/// Shows `picture` with viuer over the whole inspector, waits for a key, and returns to it. It is
/// drawn on the alternate screen the inspector holds, which is given back whole on quitting: the
/// normal screen is the user's shell, and nothing is drawn there.
fn show_image(guard: &mut TerminalGuard, picture: tfr_core::image::Picture) -> anyhow::Result<()> {
    let mut out = stdout();
    execute!(
        out,
        DisableMouseCapture,
        Clear(ClearType::All),
        MoveTo(0, 0)
    )?;
    let size = guard.terminal.size().unwrap_or_default();
    let area = Rect::new(0, 0, size.width, size.height.saturating_sub(2));
    let config = viuer::Config {
        absolute_offset: true,
        x: 0,
        y: 0,
        width: Some(u32::from(area.width)),
        height: Some(u32::from(area.height.max(1))),
        ..viuer::Config::default()
    };
    let description = picture.description;
    let image = ::image::DynamicImage::ImageRgb8(picture.pixels);
    let protocol = graphics_protocol();
    let shown = viuer::print(&image, &config);
    execute!(out, MoveTo(0, size.height.saturating_sub(1)))?;
    match shown {
        Ok(_) => write!(
            out,
            "{description} · drawn with {protocol} · press any key to return"
        )?,
        Err(e) => write!(out, "cannot show the image: {e} · press any key to return")?,
    }
    out.flush()?;
    loop {
        if let Event::Key(key) = event::read()? {
            if key.kind == KeyEventKind::Press {
                break;
            }
        }
    }
    if protocol == KITTY {
        // Kitty keeps an image placed until it is deleted, over whatever is drawn after it.
        write!(out, "\x1b_Ga=d\x1b\\")?;
    }
    execute!(out, EnableMouseCapture, Hide)?;
    guard.terminal.clear()?;
    Ok(())
}
