//! The inspector's state and the one function that changes it.
//!
//! Every key, click and resize arrives here as an [`Action`]; [`App::update`] applies it and then
//! refreshes what drawing needs (the visible list rows, the selected frame's tree, tokens and
//! preview), so rendering reads state and never computes or changes it. Nothing here touches the
//! terminal, which is why the whole inspector can be tested as plain data.
//!
//! A record too large to decode between two key presses is decoded on a worker thread
//! ([`super::decoding`]): the screen keeps answering, shows how far the decoding is, and a record
//! selected meanwhile cancels it.
//!
//! The actions that move the selection are `impl App` blocks in the modules this one owns:
//! `motion` (arrows, pages, the mouse), `navigate` (jumps to a record, an offset, damage or a
//! search match), `watch` (files changing on disk) and `images` (the preview, its boxes and the
//! frames of a sequence).

mod dataset;
mod elements;
mod images;
mod motion;
mod navigate;
mod opening;
mod searching;
mod stats_pane;
mod tutor;
mod watch;

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ratatui::layout::Rect;

use super::decoding::{self, Decoding};
use super::framelist::{self, RowText};
use super::hexview::{HexGeometry, ROW};
use super::index_cache::IndexCache;
use super::keymap::{Action, Mode, PromptKind};
use super::layout::{self, Panes};
use super::search::{SEARCH_INLINE_BYTES, SearchRun};
use super::tree::{Parts, Record, Tree};
use crate::hint::UserMessage;
use crate::status::Status;
use tfr_core::annotate::{Annotated, FrameTokens, Token};
use tfr_core::dataset::features::{FeatureSpecs, SpecNote, SpecsBeside};
use tfr_core::dataset::snapshot::Snapshot;
use tfr_core::frame::{Frame, FrameIndex, IndexDelta};
use tfr_core::image::Picture;
use tfr_core::input::{Input, OpenOptions};
use tfr_core::source::Source;
use tfr_core::words::plural;

/// At most this many lines list inputs that could not be opened (the last one says how many more).
const MAX_NOTICE_LINES: u16 = 3;

/// Which pane has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    List,
    Tree,
    Hex,
}

/// One open file and where the user is in it.
pub struct FileView {
    pub input: Input,
    pub selected: usize,
    pub list_top: usize,
    /// True while the background indexer is still scanning this file.
    pub indexing: bool,
    /// Counts reopenings, so reports of an indexer started for an earlier reading are dropped.
    pub generation: u64,
    /// The file's length when indexed and now, once it has grown past the index.
    pub grew: Option<(u64, u64)>,
    /// The tensorflow-datasets `features.json` beside the file, when there is one.
    pub specs: Option<Arc<tfr_core::dataset::features::FeatureSpecs>>,
    /// The `tf.data` snapshot the file is a shard of, when it groups records into elements.
    pub snapshot: Option<Arc<Snapshot>>,
    /// Whether its bytes are open (see `opening.rs`): a closed file keeps only its frame index.
    pub open: bool,
    /// When it was last shown, on [`App`]'s clock, to close the least recently shown first.
    used: u64,
    /// The file as it was when it was closed, to reuse its index when it is reopened unchanged.
    closed_as: Option<tfr_core::source::Stamp>,
}

/// The `features.json` of each directory files were opened from, read once per directory, and
/// what was said about reading them (files not read, and why).
#[derive(Default)]
pub(super) struct SpecsCache {
    specs: SpecsBeside,
    /// The `tf.data` snapshots, by the directory of their side files.
    snapshots: HashMap<PathBuf, Option<Arc<Snapshot>>>,
    pub notes: Vec<String>,
}

impl SpecsCache {
    /// The `tf.data` snapshot `path` is a shard of, when its records group into elements; its
    /// side files are read once per snapshot, and what cannot be used of them is noted.
    pub fn snapshot_of(&mut self, path: &Path) -> Option<Arc<Snapshot>> {
        let dir = Snapshot::dir_of(path)?;
        let notes = &mut self.notes;
        self.snapshots
            .entry(dir)
            .or_insert_with_key(|dir| {
                let snapshot = Snapshot::load(dir)?;
                notes.extend(snapshot.notes.iter().map(ToString::to_string));
                (snapshot.components() > 0).then(|| Arc::new(snapshot))
            })
            .clone()
    }

    /// The `features.json` beside `path`, when it has one that reads.
    pub fn beside(&mut self, path: &Path) -> Option<Arc<FeatureSpecs>> {
        let notes = &mut self.notes;
        self.specs.beside(path, |note| match note {
            SpecNote::Unusable(note) | SpecNote::Note(note) => notes.push(note),
        })
    }
}

impl FileView {
    /// The file's bytes, read by range.
    pub fn data(&self) -> &Source {
        self.input.data()
    }

    pub fn index(&self) -> &FrameIndex {
        &self.input.index
    }
}

/// The selected frame, taken apart for the tree and hex panes.
#[derive(Debug, Default)]
pub struct FrameView {
    pub frame: Option<Frame>,
    /// The frame's own tokens (header, CRCs, skipped bytes), worded.
    pub own: FrameTokens,
    /// The annotate tokens on the hex rows shown, sorted by start.
    pub tokens: Vec<Token>,
    /// What the token under the hex cursor is, in words.
    pub explain: String,
    pub tree: Tree,
    /// The record being decoded in the background, when it is too large to decode at once.
    pub decoding: Option<Decoding>,
    /// Selected node index.
    pub node: usize,
    /// First visible row of the tree.
    pub tree_top: usize,
    /// File offset of the hex cursor.
    pub cursor: u64,
    /// First visible hex row, counted from the frame start.
    pub hex_top: u64,
    /// The frame's bytes: header through any skipped bytes.
    pub region: Range<u64>,
    /// The record's images, with their boxes.
    pub images: images::RecordImages,
}

/// A prompt being typed in the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

/// Something `update` asks the run loop to do outside the TUI.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Show this image large (with viuer), then wait for a key.
    ShowImage(Picture),
}

pub struct App {
    pub files: Vec<FileView>,
    pub current: usize,
    pub focus: Pane,
    pub view: FrameView,
    /// Kind and summary of the visible list rows.
    pub rows: HashMap<usize, RowText>,
    pub prompt: Option<Prompt>,
    pub help: bool,
    /// The wire-format card (`K`) is open, in the help's overlay.
    pub guide: bool,
    /// The first row of the help or the card shown (its moves scroll it).
    pub help_top: usize,
    /// The whole-text overlay (`w`) is open.
    pub details: bool,
    /// The last message for the status line.
    pub message: String,
    pub search: Option<String>,
    /// The image of the selected node (or record), decoded, or why it could not be.
    pub preview: Option<Result<Picture, tfr_core::image::NotDecoded>>,
    preview_key: Option<Range<u64>>,
    /// Which of the record's images the preview shows, its frame and its boxes.
    pub preview_info: images::PreviewInfo,
    /// Whether boxes, class names and keypoints are drawn on images (`b`).
    pub boxes: bool,
    /// Each directory's tensorflow-datasets `features.json`, read once.
    pub(super) specs: SpecsCache,
    /// Records found to hold undecodable images (by file and record), and how many.
    pub(super) bad_images: HashMap<(usize, usize), usize>,
    /// For an event record with a scalar or a histogram: what the preview pane plots when the
    /// record holds no image.
    pub plot: Option<super::charts::Plot>,
    /// The scalar series the plot last read, for the selections that follow.
    series: super::charts::SeriesCache,
    /// The statistics pane, when open (`S`).
    pub stats: Option<stats_pane::StatsPane>,
    /// A record asked for with `:` before the index reached it.
    pub(super) pending_record: Option<usize>,
    pub screen: Rect,
    pub quit: bool,
    pub effect: Option<Effect>,
    /// Why each input that could not be opened was refused; shown for the whole session and
    /// printed again after it, and the reason the inspector exits with status 2.
    pub open_errors: Vec<String>,
    /// The last search: its worker and the records it found (see `app/searching.rs`).
    pub(super) search_run: Option<SearchRun>,
    /// A search step waiting for the worker to find its hit.
    pub(super) search_pending: Option<searching::Pending>,
    /// The hit shown while the search still runs (record, message head, feature name), whose
    /// count the status line keeps up to date.
    pub(super) search_shown: Option<(usize, String, String)>,
    /// Files up to this many bytes are searched on the UI thread, at once; larger ones on a
    /// worker thread.
    pub search_inline: u64,
    /// Kind and summary of large records, described when their background decoding finished
    /// (by file and record).
    pub(super) large_rows: HashMap<(usize, usize), RowText>,
    /// How files are read and decoded, to read one again when it changes on disk.
    pub(super) open: OpenOptions,
    /// Files reopened and waiting for a background indexer (see `watch.rs`).
    pub(super) index_jobs: Vec<usize>,
    /// Step mode, the parsed view and the quiz (see `tutor.rs`).
    pub tutor: super::tutor::Tutor,
    /// Counts the files shown, to close the least recently shown (see `opening.rs`).
    clock: u64,
    /// Where complete frame indexes of remote shards are kept.
    pub index_cache: Option<IndexCache>,
}

/// Opens `path` as [`Input::open`] does, with its frame index from `cache` when it has it.
pub(crate) fn open_input(
    path: &Path,
    options: &OpenOptions,
    cache: Option<&IndexCache>,
) -> Result<Input, tfr_core::error::Error> {
    let mut input = Input::open(path, options)?;
    if let Some(index) = cache.and_then(|c| c.load(&input)) {
        input.index = index;
    }
    Ok(input)
}

/// The views of `paths`: the first few opened (with their frame indexes from `cache` when it has
/// them; past them, files are opened when they are needed,
/// see `opening.rs`), each with its dataset's feature specs and snapshot; and why each that could
/// not be opened could not.
fn open_files(
    paths: &[PathBuf],
    options: &OpenOptions,
    cache: Option<&IndexCache>,
    specs: &mut SpecsCache,
) -> (Vec<FileView>, Vec<String>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        let opened = if files.len() < opening::MAX_OPEN {
            open_input(path, options, cache).map(Some)
        } else {
            Ok(None)
        };
        let (input, open, closed_as) = match opened {
            Ok(Some(input)) => (input, true, None),
            Ok(None) => {
                let (input, stamp) = opening::deferred(path, options);
                (input, false, stamp)
            }
            Err(e) => {
                problems.push(e.user_message());
                continue;
            }
        };
        files.push(FileView {
            specs: specs.beside(path),
            snapshot: specs.snapshot_of(path),
            indexing: (open || closed_as.is_some()) && !input.index.is_complete(),
            input,
            selected: 0,
            list_top: 0,
            generation: 0,
            grew: None,
            open,
            used: 0,
            closed_as,
        });
    }
    (files, problems)
}

impl App {
    /// Opens `paths` as `options` say (compression, decompression limit, decoder). Files that
    /// cannot be opened are listed in [`App::open_errors`]; it fails only when none can be.
    pub fn open(paths: &[PathBuf], options: &OpenOptions) -> anyhow::Result<App> {
        App::open_with_cache(paths, options, None)
    }

    /// [`App::open`], taking the frame indexes of remote shards from `cache` and keeping them
    /// there once complete (see [`IndexCache`]).
    pub fn open_with_cache(
        paths: &[PathBuf],
        options: &OpenOptions,
        cache: Option<IndexCache>,
    ) -> anyhow::Result<App> {
        let mut specs = SpecsCache::default();
        let (files, problems) = open_files(paths, options, cache.as_ref(), &mut specs);
        if files.is_empty() {
            anyhow::bail!("{}", problems.join("; "));
        }
        let mut app = App {
            files,
            current: 0,
            focus: Pane::List,
            view: FrameView::default(),
            rows: HashMap::new(),
            prompt: None,
            help: false,
            guide: false,
            help_top: 0,
            details: false,
            message: String::new(),
            search: None,
            preview: None,
            preview_key: None,
            preview_info: Default::default(),
            boxes: true,
            specs,
            bad_images: HashMap::new(),
            plot: None,
            series: Default::default(),
            stats: None,
            pending_record: None,
            screen: Rect::new(0, 0, 160, 48),
            quit: false,
            effect: None,
            open_errors: problems,
            search_run: None,
            search_pending: None,
            search_shown: None,
            search_inline: SEARCH_INLINE_BYTES,
            large_rows: HashMap::new(),
            open: options.clone(),
            index_jobs: Vec::new(),
            tutor: Default::default(),
            clock: 0,
            index_cache: cache,
        };
        if !app.files.first().is_some_and(|f| f.open) {
            // The first files could not be opened: the first that can be is shown.
            let first = (0..app.files.len()).find(|&f| app.ensure_open(f));
            app.current = first.unwrap_or(0);
        }
        app.select_frame(0);
        if !app.specs.notes.is_empty() {
            app.message = app.specs.notes.join("; ");
        }
        Ok(app)
    }

    /// Indexes every file to the end in this thread (tests, and inputs that cannot be reopened).
    pub fn index_now(&mut self) {
        // A closed file has no bytes here to index (the background indexer reads its own).
        for file in self.files.iter_mut().filter(|f| f.open) {
            let was_complete = file.input.index.is_complete();
            file.input.settle_all();
            file.indexing = false;
            if !was_complete {
                if let Some(cache) = &self.index_cache {
                    cache.store(&file.input);
                }
            }
        }
        self.reload_frame();
        self.refresh();
    }

    /// The exit status the session ends with: 2 when an input could not be opened, else 1 when
    /// damage was found (a damaged frame or compressed stream), else 0.
    pub fn status(&self) -> Status {
        if !self.open_errors.is_empty() {
            return Status::Unusable;
        }
        let damaged = self.files.iter().any(|f| {
            f.index().damaged_count() > 0
                || f.input
                    .source
                    .compression()
                    .is_some_and(|c| c.problem.is_some())
        });
        if damaged {
            Status::Damage
        } else {
            Status::Clean
        }
    }

    pub fn file(&self) -> Option<&FileView> {
        self.files.get(self.current)
    }

    pub fn path(&self, file: usize) -> Option<&Path> {
        self.files.get(file).map(|f| f.input.source.path())
    }

    /// The keymap mode the state is in.
    pub fn mode(&self) -> Mode {
        if self.prompt.is_some() {
            Mode::Prompt
        } else if self.help || self.guide {
            Mode::Help
        } else if self.details {
            Mode::Whole
        } else {
            Mode::Normal
        }
    }

    pub fn panes(&self) -> Panes {
        self.panes_on(self.screen)
    }

    /// The panes on a screen of `area`, each sized to what it holds now.
    pub fn panes_on(&self, area: Rect) -> Panes {
        layout::panes_for(area, self.wants(area.width))
    }

    /// What the panes hold, for a screen `width` columns wide.
    fn wants(&self, width: u16) -> layout::Wants {
        // No pane is taller than the screen: counting stops there.
        let most = usize::from(self.screen.height.max(1));
        let step = self.tutor.shows_panel() && self.tutor.side != super::tutor::Side::Parsed;
        // The step panel's lines as they wrap in the band (the screen's width when stacked).
        let band_rows = step.then(|| {
            let inner = usize::from(width.saturating_sub(2)).max(1);
            self.tutor
                .panel
                .iter()
                .map(|l| {
                    tfr_core::words::display_width(&l.text)
                        .div_ceil(inner)
                        .max(1)
                })
                .fold(0usize, usize::saturating_add)
        });
        let region = &self.view.region;
        let hex_rows = (region.end > region.start).then(|| {
            let first = super::hexview::row_base(region.start);
            let last = super::hexview::row_base(region.end - 1);
            usize::try_from((last - first) / ROW).map_or(most, |r| r.saturating_add(1))
        });
        layout::Wants {
            preview: self.has_preview(),
            notices: self.notice_lines(),
            message: self.message_line(width),
            list_rows: self.frame_count().saturating_add(1),
            band_rows,
            hex_rows,
            band_first: step,
        }
    }

    /// Where the hex pane draws the selected frame's bytes on the current screen.
    pub fn hex_geometry(&self) -> HexGeometry {
        let area = layout::inner(self.panes().hex);
        HexGeometry::new(area, self.view.region.clone(), self.view.hex_top)
    }

    /// Lines kept at the bottom of the screen for the notices.
    pub fn notice_lines(&self) -> u16 {
        u16::try_from(self.notices().len())
            .unwrap_or(u16::MAX)
            .min(MAX_NOTICE_LINES)
    }

    /// What stays on screen whatever the user does: the inputs that could not be opened, and a
    /// damaged compressed stream in the current file, or a SNAPPY block TensorFlow's reader
    /// cannot hold (worded as `verify` words them).
    pub fn notices(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .open_errors
            .iter()
            .map(|e| format!("not opened: {e}"))
            .collect();
        let compression = self.file().and_then(|f| f.input.source.compression());
        if let Some(p) = compression.and_then(|c| c.problem.as_ref()) {
            out.push(format!("compressed stream damaged: {p}"));
        }
        if let Some(block) = compression.and_then(|c| c.oversized.as_ref()) {
            out.push(format!("note: {block}"));
        }
        out.extend(self.growth_notice());
        out
    }

    /// The background indexer of file `file` stopped on bytes that could not be read (an
    /// object's part that could not be fetched): the frames found before stay, the error is
    /// shown and printed on leaving, and the session ends with exit 2.
    pub fn index_failed(&mut self, file: usize, error: tfr_core::bytes::ReadError) {
        let Some(view) = self.files.get_mut(file) else {
            return;
        };
        view.indexing = false;
        let message = view.input.source.read_error(None, error).to_string();
        self.message = format!("indexing stopped: {message}");
        if !self.open_errors.contains(&message) {
            self.open_errors.push(message);
        }
    }

    /// Takes the frames the background indexer found in file `file` since its last report.
    pub fn index_update(&mut self, file: usize, delta: IndexDelta, done: bool) {
        let Some(view) = self.files.get_mut(file) else {
            return;
        };
        let was_complete = view.input.index.is_complete();
        view.input.index.apply(delta);
        view.indexing = !done && !view.input.index.is_complete();
        if !was_complete && view.input.index.is_complete() {
            if let Some(cache) = &self.index_cache {
                cache.store(&view.input);
            }
        }
        // The last row's summary depends on whether it is the file's last frame.
        self.rows.clear();
        if file == self.current {
            if let Some(n) = self.pending_record {
                if n < self.frame_count() {
                    self.pending_record = None;
                    self.select_frame(n);
                } else if !self.files.get(file).is_some_and(|f| f.indexing) {
                    self.pending_record = None;
                    let count = plural(self.frame_count(), "record");
                    self.message = format!("no record {n}: the file has {count}");
                }
            }
            let fresh = self.frame_at(self.selected());
            if fresh != self.view.frame {
                self.reload_frame();
            }
        }
        self.refresh();
    }

    pub fn selected(&self) -> usize {
        self.file().map_or(0, |f| f.selected)
    }

    pub fn frame_count(&self) -> usize {
        self.file().map_or(0, |f| f.index().len())
    }

    fn frame_at(&self, i: usize) -> Option<Frame> {
        let file = self.file()?;
        file.index().get(file.data(), i)
    }

    /// Applies one action.
    pub fn update(&mut self, action: Action) {
        if (self.help || self.guide) && self.scroll_help(action) {
            return;
        }
        // A message answers the last action: the next one moves on from it (typing into a
        // prompt and a resize are no new action), so at 80 columns an old answer does not stay
        // on the status line.
        if !matches!(
            action,
            Action::Resize { .. } | Action::Input(_) | Action::Backspace | Action::Prompt(_)
        ) {
            self.message.clear();
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Cancel => self.cancel(),
            Action::Help => {
                self.help = !self.help;
                self.guide = false;
                self.help_top = 0;
            }
            Action::Guide => {
                self.guide = !self.guide;
                self.help = false;
                self.help_top = 0;
            }
            Action::Details => self.details = !self.details,
            Action::Resize { width, height } => self.screen = Rect::new(0, 0, width, height),
            Action::NextPane | Action::PrevPane => self.cycle_focus(action == Action::NextPane),
            Action::Prompt(_) | Action::Input(_) | Action::Backspace | Action::Submit => {
                self.edit_prompt(action)
            }
            Action::SearchNext => self.search_step(true),
            Action::SearchPrev => self.search_step(false),
            Action::NextDamaged => self.next_damaged(true),
            Action::PrevDamaged => self.next_damaged(false),
            Action::NextFile => self.switch_file(1),
            Action::PrevFile => self.switch_file(self.files.len().saturating_sub(1)),
            Action::Reindex => self.reindex_current(),
            Action::ShowImage => self.show_image(),
            Action::NextFrame => self.step_frame(true),
            Action::PrevFrame => self.step_frame(false),
            Action::ToggleBoxes => self.toggle_boxes(),
            Action::StepMode => self.toggle_side(super::tutor::Side::Step),
            Action::ParsedView => self.toggle_side(super::tutor::Side::Parsed),
            Action::Stats => self.toggle_stats(),
            Action::NextToken => self.step_token(true),
            Action::PrevToken => self.step_token(false),
            Action::Quiz => self.start_quiz(),
            Action::Toggle => self.toggle(),
            Action::ScrollUp { column, row } => self.wheel(column, row, false),
            Action::ScrollDown { column, row } => self.wheel(column, row, true),
            Action::Click { column, row } => self.click(column, row),
            Action::Up | Action::Down | Action::Left | Action::Right => self.arrow(action),
            Action::PageUp | Action::PageDown | Action::Home | Action::End => self.jump(action),
        }
        self.refresh();
    }

    /// What the help's overlay shows: the card when it is open, else the keys.
    pub fn help_page(&self) -> super::help::Page {
        if self.guide {
            super::help::Page::Guide
        } else {
            super::help::Page::Keys
        }
    }

    /// The moves over the help (or the card) scroll it, by a row, a page of it, or to its top or
    /// end; true when `action` was one of them.
    fn scroll_help(&mut self, action: Action) -> bool {
        let placement = super::help::Placement::new(self.help_page(), self.screen);
        let page = placement.visible.max(1);
        let top = placement.top(self.help_top);
        self.help_top = match action {
            Action::Up => top.saturating_sub(1),
            Action::Down => top.saturating_add(1),
            Action::PageUp => top.saturating_sub(page),
            Action::PageDown => top.saturating_add(page),
            Action::Home => 0,
            Action::End => usize::MAX,
            _ => return false,
        };
        self.help_top = placement.top(self.help_top);
        true
    }

    /// Esc: closes the prompt, else stops the search, else closes the whole text, the statistics,
    /// the card or the help, else quits.
    fn cancel(&mut self) {
        if let Some(prompt) = self.prompt.take() {
            if prompt.kind == PromptKind::Answer {
                self.end_quiz();
            }
        } else if self.stop_search() {
            self.message = "search stopped".into();
        } else if std::mem::take(&mut self.details) {
        } else if self.stats.take().is_some() {
            // The statistics pane closes; a worker still computing finishes unheard.
        } else if std::mem::take(&mut self.guide) {
        } else if !std::mem::take(&mut self.help) {
            self.quit = true;
        }
    }

    /// Tab / Shift-Tab: frames, tree, hex, round.
    fn cycle_focus(&mut self, forward: bool) {
        let order = [Pane::List, Pane::Tree, Pane::Hex];
        let at = order.iter().position(|p| *p == self.focus).unwrap_or(0);
        let step = if forward { 1 } else { 2 };
        self.focus = order.get((at + step) % 3).copied().unwrap_or(Pane::List);
    }

    /// Opens a prompt, types into it, or submits it.
    fn edit_prompt(&mut self, action: Action) {
        match (action, &mut self.prompt) {
            (Action::Prompt(kind), _) => {
                self.prompt = Some(Prompt {
                    kind,
                    text: String::new(),
                })
            }
            (Action::Input(c), Some(p)) => p.text.push(c),
            (Action::Backspace, Some(p)) => {
                p.text.pop();
            }
            (Action::Submit, Some(_)) => {
                if let Some(prompt) = self.prompt.take() {
                    self.submit(prompt);
                }
            }
            _ => {}
        }
    }

    /// `i`: asks the run loop to show the previewed image large, or says why there is none.
    fn show_image(&mut self) {
        match &self.preview {
            Some(Ok(picture)) => self.effect = Some(Effect::ShowImage(self.full_size(picture))),
            Some(Err(why)) => self.message = format!("no image to show: {why}"),
            None => self.message = "no image in this record".into(),
        }
    }

    /// Selects frame `i` of the current file (clamped to the frames found so far).
    pub fn select_frame(&mut self, i: usize) {
        let count = self.frame_count();
        let i = i.min(count.saturating_sub(1));
        if let Some(file) = self.files.get_mut(self.current) {
            file.selected = i;
        }
        self.reload_frame();
        if let Some(frame) = self.view.frame {
            if !frame.status.is_intact() {
                if let Some(file) = self.file() {
                    let is_last = file.input.is_last(i);
                    let unfinal = if watch::is_unfinal(file, &frame) {
                        format!(" ({})", watch::NOT_FINAL)
                    } else {
                        String::new()
                    };
                    self.message = format!(
                        "record {i} is damaged: {}{unfinal}",
                        tfr_core::damage::describe(&frame, file.data(), is_last)
                    );
                }
            }
        }
    }

    /// Rebuilds the tree, tokens and hex state of the selected frame. A large payload is decoded
    /// on a worker thread; until it is done the tree shows the frame's own rows.
    fn reload_frame(&mut self) {
        let Some(file) = self.files.get(self.current) else {
            return;
        };
        let view = match file.index().get(file.data(), file.selected) {
            Some(frame) => frame_view(file, self.current, frame),
            None => FrameView::default(),
        };
        self.view = view;
        self.preview_key = None;
        self.find_images();
        self.update_preview();
        let current = self.current;
        self.plot = self.files.get(current).and_then(|file| {
            let key = (current, file.generation);
            super::charts::plot_for(&file.input, file.selected, key, &mut self.series)
        });
    }

    /// Whether the preview pane has something to show: an image, or a plot.
    pub fn has_preview(&self) -> bool {
        self.preview.is_some() || self.plot.is_some()
    }

    /// Takes the result of the background decoding, if it is done; true when the screen changed.
    pub fn poll_decoding(&mut self) -> bool {
        let Some(job) = &self.view.decoding else {
            return false;
        };
        match job.poll() {
            decoding::Poll::Running => false,
            decoding::Poll::Done(done) => {
                self.install(*done);
                true
            }
            decoding::Poll::Failed => {
                self.view.decoding = None;
                self.message = "decoding stopped".into();
                true
            }
        }
    }

    /// Waits for the background decoding to finish and takes its result (tests, and callers
    /// that need the record now).
    pub fn finish_decoding(&mut self) {
        let Some(job) = self.view.decoding.take() else {
            return;
        };
        match job.wait() {
            Some(done) => self.install(done),
            None => self.message = "decoding stopped".into(),
        }
        self.refresh();
    }

    /// How far the background decoding of the selected record is, in percent.
    pub fn decoding_percent(&self) -> Option<u64> {
        self.view.decoding.as_ref().map(Decoding::percent)
    }

    fn install(&mut self, done: decoding::Done) {
        self.view.decoding = None;
        let same =
            self.view.frame.map(|f| f.index) == Some(done.frame.index) && self.current == done.file;
        self.large_rows
            .insert((done.file, done.frame.index), done.row);
        self.rows.remove(&done.frame.index);
        if !same {
            return;
        }
        self.view.own = done.own;
        self.view.tree = done.tree;
        self.view.node = first_row(&self.view.tree);
        self.preview_key = None;
        self.find_images();
        self.update_preview();
        self.refresh();
    }

    /// The annotate tokens of the selected frame.
    pub fn annotated(&self) -> Option<Annotated<'_>> {
        let file = self.file()?;
        let frame = self.view.frame?;
        let record = self.view.tree.record();
        let decoded = record.map(|r| &r.decoded);
        let table = match record {
            Some(r) => &*r.table,
            None => file.input.decoder().table(),
        };
        Some(Annotated::with(
            Cow::Borrowed(&self.view.own),
            file.data(),
            &frame,
            decoded,
            table,
        ))
    }

    /// The token holding file byte `offset` in the selected frame.
    pub fn token_at(&self, offset: u64) -> Option<Token> {
        self.annotated()?.token_at(offset)
    }

    /// What `token` means, in words.
    pub fn meaning(&self, token: &Token) -> String {
        self.annotated()
            .map_or_else(String::new, |a| a.meaning(token))
    }

    /// Expands or collapses tree row `n` (a "… N more" row loads its next page instead).
    pub fn expand(&mut self, n: usize, on: bool) {
        let Some(file) = self.files.get(self.current) else {
            return;
        };
        self.view.tree.set_expanded(n, on, file.data());
    }

    /// Selects tree node `n`; with `move_cursor` the hex cursor goes to its first byte.
    pub fn select_node(&mut self, n: usize, move_cursor: bool) {
        let Some(node) = self.view.tree.nodes.get(n) else {
            return;
        };
        let start = node.range.start;
        self.view.node = n;
        self.view.tree.reveal(n);
        if move_cursor {
            self.view.cursor = start.clamp(
                self.view.region.start,
                self.view
                    .region
                    .end
                    .saturating_sub(1)
                    .max(self.view.region.start),
            );
        }
        self.update_preview();
    }

    /// Puts the hex cursor on `offset` (clamped to the frame) and selects the node owning it.
    pub fn set_cursor(&mut self, offset: u64) {
        let region = self.view.region.clone();
        if region.is_empty() {
            return;
        }
        let offset = offset.clamp(region.start, region.end - 1);
        self.view.cursor = offset;
        let Some(file) = self.files.get(self.current) else {
            return;
        };
        if let Some(owner) = self.view.tree.descend_to(offset, file.data()) {
            self.select_node(owner, false);
        }
    }

    /// The selected node's byte ranges and its ancestors' ranges (a node has several when
    /// protobuf merged several wire occurrences into it).
    pub fn highlight(&self) -> (Vec<Range<u64>>, Vec<Range<u64>>) {
        let tree = &self.view.tree;
        let selected = tree
            .nodes
            .get(self.view.node)
            .map(|n| n.ranges().cloned().collect())
            .unwrap_or_default();
        let ancestors = tree
            .ancestors(self.view.node)
            .iter()
            .filter_map(|a| tree.nodes.get(*a))
            .flat_map(|n| n.ranges().cloned())
            .collect();
        (selected, ancestors)
    }

    /// The token under the hex cursor.
    pub fn token_under_cursor(&self) -> Option<Token> {
        self.token_at(self.view.cursor)
    }

    /// Keeps the selections on screen and describes the visible list rows.
    pub fn refresh(&mut self) {
        if self.file().is_none() {
            return;
        }
        // The step panel first: its length sizes the panes the selections are kept in.
        self.refresh_tutor();
        let list_rows = self.scroll_into_view();
        self.refresh_hex();
        self.describe_rows(list_rows);
    }

    /// Scrolls the list, the tree and the hex pane so that each shows its selection; returns how
    /// many list rows are on screen.
    fn scroll_into_view(&mut self) -> usize {
        let panes = self.panes();
        let list_rows = usize::from(layout::inner(panes.list).height.saturating_sub(1));
        let tree_rows = usize::from(layout::inner(panes.tree).height);
        let hex_rows = self.hex_geometry().rows();
        if let Some(file) = self.files.get_mut(self.current) {
            file.list_top = scrolled(file.list_top, file.selected, list_rows);
        }
        let visible = self.view.tree.visible();
        let at = visible
            .iter()
            .position(|n| *n == self.view.node)
            .unwrap_or(0);
        self.view.tree_top =
            scrolled(self.view.tree_top, at, tree_rows).min(visible.len().saturating_sub(1));
        let cursor_row = self
            .view
            .cursor
            .saturating_sub(super::hexview::row_base(self.view.region.start))
            / ROW;
        self.view.hex_top = scrolled(
            self.view.hex_top as usize,
            cursor_row as usize,
            hex_rows as usize,
        ) as u64;
        list_rows
    }

    /// Describes the `list_rows` list rows on screen not described yet, and forgets the others.
    fn describe_rows(&mut self, list_rows: usize) {
        let Some(file) = self.files.get(self.current) else {
            return;
        };
        let top = file.list_top;
        self.rows.retain(|i, _| (top..top + list_rows).contains(i));
        for i in top..top.saturating_add(list_rows) {
            if self.rows.contains_key(&i) {
                continue;
            }
            let Some(frame) = file.index().get(file.data(), i) else {
                break;
            };
            let large = frame
                .payload(file.data())
                .is_some_and(|p| p.len() > decoding::INLINE_BYTES);
            let row = match self.large_rows.get(&(self.current, i)) {
                Some(row) => row.clone(),
                // A large record is described by its background decoding, once selected.
                None if large => decoding::placeholder_row(&frame),
                None => framelist::describe(&file.input, frame),
            };
            let mut row = row;
            if let Some(place) = elements::place_text(file, &frame) {
                row.summary = format!("{place}: {}", row.summary);
            }
            let mut row = watch::mark_unfinal(file, &frame, row);
            let payload = frame
                .payload(file.data())
                .filter(|_| frame.status.is_intact());
            if let (Some(payload), false) = (payload, large) {
                // Cut JPEGs and sizes other than declared, seen without decoding the images.
                let bad =
                    tfr_core::image::check::structural_problems(payload, file.input.decoder());
                if bad > 0 {
                    self.bad_images.entry((self.current, i)).or_insert(bad);
                }
            }
            if let Some(n) = self.bad_images.get(&(self.current, i)) {
                row.summary = format!("{} undecodable ⚠ {}", plural(*n, "image"), row.summary);
            }
            self.rows.insert(i, row);
        }
    }

    /// The tokens of the hex rows on screen, and the words for the one under the cursor.
    fn refresh_hex(&mut self) {
        let Range { start, end } = self.hex_geometry().visible();
        let tokens: Vec<Token> = match self.annotated() {
            Some(annotated) => annotated
                .tokens_from(start)
                .take_while(|t| t.start < end)
                .collect(),
            None => Vec::new(),
        };
        self.view.tokens = tokens;
        self.view.explain = self.explain_line();
    }

    fn switch_file(&mut self, step: usize) {
        if self.files.len() < 2 {
            self.message = "only one file is open".into();
            return;
        }
        // A file that cannot be opened (now) is passed over, and named in the status line.
        let (n, current) = (self.files.len(), self.current);
        let Some(next) = (1..n)
            .map(|k| (current + step * k) % n)
            .find(|&f| self.ensure_open(f))
        else {
            return;
        };
        self.current = next;
        self.rows.clear();
        let selected = self.selected();
        self.select_frame(selected);
        let name = self.file().map(|f| f.input.name()).unwrap_or_default();
        self.message = format!("file {} of {}: {name}", self.current + 1, self.files.len());
    }
}

/// Frame `frame` of `file` (file number `current`) taken apart: its tree, its bytes, and the
/// cursor on its first row.
fn frame_view(file: &FileView, current: usize, frame: Frame) -> FrameView {
    let data = file.data();
    let mut view = frame_tree(file, current, frame);
    let end = frame.region_end.0.max(frame.frame_end().map_or(0, |e| e.0));
    let end = end.min(data.len()).max(frame.offset.0);
    view.region = frame.offset.0..end;
    view.cursor = frame.offset.0;
    view.node = first_row(&view.tree);
    if let Some(node) = view.tree.nodes.get(view.node) {
        view.cursor = node.range.start.clamp(
            view.region.start,
            end.saturating_sub(1).max(view.region.start),
        );
    }
    view
}

/// The frame's tokens and tree. A payload too large to decode between two keys is decoded on a
/// worker thread; until it is done the tree shows the frame's own rows.
fn frame_tree(file: &FileView, current: usize, frame: Frame) -> FrameView {
    let data = file.data();
    let mut view = FrameView {
        frame: Some(frame),
        ..FrameView::default()
    };
    let is_last = file.input.is_last(frame.index);
    let damage =
        (!frame.status.is_intact()).then(|| tfr_core::damage::describe(&frame, data, is_last));
    let decoder = file.input.decoder();
    match frame
        .payload(data)
        .zip(frame.payload_range().map(Range::from))
    {
        Some((payload, range)) if payload.len() > decoding::INLINE_BYTES => {
            view.own = FrameTokens::new(data, &frame, false);
            let parts = Parts {
                own: &view.own,
                damage: damage.clone(),
                record: None,
            };
            view.tree = Tree::build(&frame, parts);
            let job = decoding::Job {
                file: current,
                frame,
                payload: payload.to_vec(),
                range,
                own: FrameTokens::new(data, &frame, true),
                damage,
                decoder: decoder.clone(),
                specs: file.specs.clone(),
            };
            view.decoding = Some(decoding::spawn(job));
        }
        payload => {
            let record = payload.map(|(payload, range)| {
                let record = Record {
                    decoded: decoder.decode(payload),
                    table: decoder.schema.table().clone(),
                    payload: range,
                    specs: file.specs.clone(),
                };
                (Arc::new(record), payload)
            });
            view.own = FrameTokens::new(data, &frame, record.is_some());
            let parts = Parts {
                own: &view.own,
                damage,
                record,
            };
            view.tree = Tree::build(&frame, parts);
        }
    }
    mark_place(file, &frame, &mut view);
    view
}

/// Says on the payload's row which element and component a snapshot's record is.
fn mark_place(file: &FileView, frame: &Frame, view: &mut FrameView) {
    let Some(place) = elements::place_text(file, frame) else {
        return;
    };
    let payload = frame.payload_range().map(Range::from);
    let row = view
        .tree
        .nodes
        .iter_mut()
        .find(|n| n.depth == 0 && Some(&n.range) == payload.as_ref());
    if let Some(row) = row {
        row.detail = format!("{}; {place}", row.detail);
    }
}

/// The row selected when a frame is shown: the payload (the record itself) rather than its header.
fn first_row(tree: &Tree) -> usize {
    tree.nodes
        .iter()
        .position(|n| n.depth == 0 && n.label != "header")
        .unwrap_or(0)
}

/// The new first row so that `selected` stays among `rows` visible rows.
fn scrolled(top: usize, selected: usize, rows: usize) -> usize {
    let rows = rows.max(1);
    if selected < top {
        selected
    } else if selected >= top + rows {
        selected + 1 - rows
    } else {
        top
    }
}
