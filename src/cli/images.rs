//! `images`: writes the images of chosen records as files, to look at them elsewhere.
//!
//! Files are named by input file, record and feature (`shard-00001.r17.image-encoded.jpg`, with
//! `.s3` for step 3 of a feature list and `.v1` for a feature's second value). Encoded images are
//! written as stored, byte for byte; raw pixel arrays (MNIST, CIFAR channel-first, declared
//! uint8 shapes) as PNG; with `--boxes`, images that have boxes, class names or keypoints as PNGs
//! with them drawn. `--sheet` adds one contact sheet of thumbnails labelled with record numbers.
//!
//! Writing an encoded image needs no decoding, and raw pixels are encoded from where they lie.
//! Only drawing boxes decodes an image whole, and only within what the core decodes to show
//! ([`image::SHOW_MAX_PIXELS`]); a thumbnail is reduced from the decoder's own buffer, or from the
//! drawn pixels, so no image is decoded twice.
//!
//! Every destination is checked before anything is written: an existing file is replaced only
//! with `--force` (and only if it is a regular file), and each file is written atomically.

use std::collections::HashSet;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use ::image::{ImageEncoder, Rgb, RgbImage};
use anyhow::Result;
use clap::Args;

use super::{Messages, Status};
use tfr_core::bytes::ByteSource;
use tfr_core::dataset::features::{FeatureSpecs, SpecsBeside};
use tfr_core::escape::path_for_terminal;
use tfr_core::image::found::{FoundImage, RecordImages, images_in};
use tfr_core::image::overlay::Overlay;
use tfr_core::image::{self, ImageHeader, font};
use tfr_core::input::{Input, OpenOptions};
use tfr_core::output::{OutputPolicy, write_atomically};
use tfr_core::span::{FileOffset, FileRange};
use tfr_core::words::plural;

#[derive(Debug, Args)]
pub struct ImagesArgs {
    /// TFRecord files to take images from.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The directory to write into (made when missing).
    #[arg(short = 'o', long = "out", value_name = "DIR", required = true)]
    pub out: PathBuf,
    #[command(flatten)]
    pub records: super::argv::RecordChoice,
    /// Draw boxes, class names and keypoints: images that have them are written as PNG.
    #[arg(long)]
    pub boxes: bool,
    /// Also write `sheet.png`: thumbnails of every image, labelled with record numbers.
    #[arg(long)]
    pub sheet: bool,
    /// Replace existing files of the same names.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub decode: super::DecodeArgs,
    #[command(flatten)]
    pub read: super::ReadArgs,
}

/// How one output file is made.
enum Content {
    /// The stored bytes, as they are.
    Stored,
    /// Pixels (raw, or with an overlay drawn) encoded as PNG.
    Png {
        shape: Option<(u32, u32, u32)>,
        overlay: Option<Overlay>,
    },
}

/// One image to write.
struct Planned {
    path: PathBuf,
    /// The image's bytes in the input file.
    bytes: Range<usize>,
    content: Content,
    /// For the sheet's label: input number and record.
    file: usize,
    record: usize,
    /// The feature's name, escaped.
    feature: String,
    what: String,
}

/// Thumbnail size and sheet layout.
const THUMB: u32 = 96;
const SHEET_COLUMNS: u32 = 8;
const SHEET_MAX: usize = 1024;

pub fn run(
    args: &ImagesArgs,
    open: &OpenOptions,
    env: &super::env::Env,
    messages: &Messages,
    out: &mut impl Write,
) -> Result<Status> {
    if args.out.exists() && !args.out.is_dir() {
        let message = format!("{}: not a directory", path_for_terminal(&args.out));
        return Ok(messages.unusable(&message));
    }
    let Some((mut inputs, ranges)) = chosen_inputs(args, open, messages, out)? else {
        return Ok(messages.status());
    };
    let plan = plan_inputs(args, (&mut inputs, ranges.as_deref()), messages);
    let files: Vec<PathBuf> = inputs
        .iter()
        .map(|i| i.source.path().to_path_buf())
        .chain(args.files.iter().cloned())
        .collect();
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let policy = OutputPolicy {
        inputs: &paths,
        replace_existing: args.force,
        stdout_is_terminal: env.stdout.terminal,
    };
    let sheet_path = args.out.join("sheet.png");
    if !targets_free(args, &policy, &plan, &sheet_path, messages) {
        return Ok(messages.raise(Status::Unusable));
    }
    // What was planned was read from the files' pages: nothing of a file cut short is written.
    for input in &inputs {
        if let Err(e) = input.source.check_unchanged() {
            return Ok(messages.unusable(&e));
        }
    }
    if plan.is_empty() {
        writeln!(out, "no images in the records chosen")?;
        return Ok(messages.status());
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        let message = format!("{}: {e}", path_for_terminal(&args.out));
        return Ok(messages.unusable(&message));
    }
    let Some(thumbs) = write_images(args, (&inputs, &plan), &policy, messages, out)? else {
        return Ok(messages.status());
    };
    if args.sheet {
        if let Err(e) = write_sheet(out, &sheet_path, &policy, &thumbs, plan.len())? {
            return Ok(messages.unusable(&e));
        }
    }
    writeln!(
        out,
        "{} written to {}",
        plural(plan.len() as u64, "image"),
        path_for_terminal(&args.out)
    )?;
    Ok(messages.status())
}

/// Writes every planned image and names it on `out`: the labelled thumbnails for the sheet (when
/// asked for one), or `None` when a write failed (said through `messages`) and nothing more is
/// written.
fn write_images(
    args: &ImagesArgs,
    (inputs, plan): (&[Input], &[Planned]),
    policy: &OutputPolicy,
    messages: &Messages,
    out: &mut impl Write,
) -> io::Result<Option<Vec<(String, RgbImage)>>> {
    let mut thumbs = Vec::new();
    for item in plan {
        let Some(input) = inputs.get(item.file) else {
            continue;
        };
        let (start, end) = (item.bytes.start as u64, item.bytes.end as u64);
        let range = FileRange::new(FileOffset(start), FileOffset(end));
        let bytes = input.data().read(range).unwrap_or_default();
        let drawn = match write_image(item, input, bytes, policy, messages) {
            Written::Done(drawn) => drawn,
            Written::Skipped => continue,
            Written::Failed(e) => {
                // A file cut short is the cause, whatever the write then made of it.
                match input.source.check_unchanged() {
                    Err(changed) => messages.unusable(&changed),
                    Ok(()) => messages.unusable(&e),
                };
                return Ok(None);
            }
        };
        writeln!(out, "{}  {}", path_for_terminal(&item.path), item.what)?;
        if args.sheet && thumbs.len() < SHEET_MAX {
            match thumbnail(item, bytes, drawn) {
                Ok(pixels) => thumbs.push((label(item, inputs.len()), pixels)),
                Err(why) => messages.note(&format_args!(
                    "{}: record {} {}: not on the sheet: {why}",
                    input.name(),
                    item.record,
                    tfr_core::escape::for_terminal(&item.feature)
                )),
            }
        }
    }
    Ok(Some(thumbs))
}

/// The inputs that open; each that does not is said through `messages`.
fn open_inputs(files: &[PathBuf], open: &OpenOptions, messages: &Messages) -> Vec<Input> {
    let mut inputs = Vec::new();
    for path in files {
        match Input::open(path, open) {
            Ok(input) => inputs.push(input),
            Err(e) => {
                messages.unusable(&e);
            }
        }
    }
    inputs
}

/// Writes the contact sheet of the thumbnails and says so, with how many of the images written
/// are not on it; a failed write is handed back to be reported with the run's status.
fn write_sheet(
    out: &mut impl Write,
    sheet_path: &Path,
    policy: &OutputPolicy,
    thumbs: &[(String, RgbImage)],
    written: usize,
) -> io::Result<Result<(), tfr_core::output::OutputError>> {
    let sheet = contact_sheet(thumbs);
    if let Err(e) = write_atomically(sheet_path, policy, |w| write_png(w, &sheet)) {
        return Ok(Err(e));
    }
    let left = written.saturating_sub(thumbs.len());
    let more = if left > 0 {
        format!(" ({left} not shown)")
    } else {
        String::new()
    };
    writeln!(
        out,
        "{}  contact sheet of {}{more}",
        path_for_terminal(sheet_path),
        plural(thumbs.len() as u64, "image")
    )?;
    Ok(Ok(()))
}

/// A file's records chosen: the first, and the one after the last (`None`: to its end).
type Bounds = (usize, Option<usize>);

/// The inputs opened, and with split-wide numbers the records of each.
type Chosen = (Vec<Input>, Option<Vec<Bounds>>);

/// The inputs to take images from, and with split-wide numbers the records of each (said on
/// `out` as `train record 5 = shard 00000 record 5: FILE`); `None` once why there are none is
/// said. A directory or pattern without numbers is every TFRecord file found there; one with
/// plain numbers is refused, as numbers of which file would be a guess.
fn chosen_inputs(
    args: &ImagesArgs,
    open: &OpenOptions,
    messages: &Messages,
    out: &mut impl Write,
) -> io::Result<Option<Chosen>> {
    if let Some(choice) = args.records.in_split() {
        let pieces = super::split_records::pieces(&args.files, &choice, open, messages);
        let Some(pieces) = pieces.filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        // All are planned together, so all are opened before any is read (and before any place
        // is said, so that a shard that cannot be opened leaves the output empty).
        let mut inputs = Vec::new();
        for piece in &pieces {
            let Some(input) = piece.open(open, messages) else {
                return Ok(None);
            };
            inputs.push(input);
        }
        let mut ranges = Vec::new();
        for piece in pieces {
            writeln!(out, "{}", piece.place)?;
            ranges.push((piece.start, Some(piece.end)));
        }
        return Ok(Some((inputs, Some(ranges))));
    }
    let searched =
        |f: &PathBuf| f.is_dir() || (!f.exists() && tfr_core::dataset::discover::is_pattern(f));
    if !args.files.iter().any(searched) {
        return Ok(Some((open_inputs(&args.files, open, messages), None)));
    }
    if args.records.record.is_some() || args.records.range.is_some() {
        let refused = super::split_records::plain_refused("images", &args.files);
        messages.unusable(&refused);
        return Ok(None);
    }
    let run =
        <super::dataset::Run as super::dataset::RunExt>::resolve_reporting(&args.files, messages);
    Ok(Some((open_inputs(&run.paths(), open, messages), None)))
}

/// The images of the chosen records of every input (`ranges`: the records of each, when the
/// choice was split-wide); what stands in the way is said through `messages`.
fn plan_inputs(
    args: &ImagesArgs,
    (inputs, ranges): (&mut [Input], Option<&[Bounds]>),
    messages: &Messages,
) -> Vec<Planned> {
    let mut names = HashSet::new();
    let mut plan = Vec::new();
    let mut specs_read = SpecsBeside::default();
    for (file, input) in inputs.iter_mut().enumerate() {
        let range = match ranges.and_then(|r| r.get(file)) {
            Some(range) => Ok(*range),
            None => args.records.bounds(input),
        };
        let range = match range {
            Ok(range) => range,
            Err(e) => {
                messages.unusable(&e);
                continue;
            }
        };
        if args.records.record.is_some()
            && let Err(e) = input.frame(range.0)
        {
            messages.unusable(&e);
            continue;
        }
        // Indexed as far as the records asked for: `-n 0` of a huge file reads its first frames.
        match range.1 {
            Some(end) => input.settle(end.saturating_sub(1)),
            None => input.settle_all(),
        }
        let count = input.index.len();
        if let Some(missing) = super::show::missing_records(range, count) {
            messages.unusable(&format!("{}: {missing}", input.name()));
            continue;
        }
        // Read once per directory, however many of its files are given.
        let specs = super::dataset::feature_specs(&mut specs_read, input.source.path(), messages);
        let planning = Planning {
            args,
            specs: specs.as_deref(),
            messages,
        };
        planning.plan_file(input, (file, range), &mut names, &mut plan);
    }
    plan
}

/// Whether every file to be written (the images, and the sheet if asked for) may be: checked
/// before the first is written, so that a refusal leaves nothing half done.
fn targets_free(
    args: &ImagesArgs,
    policy: &OutputPolicy,
    plan: &[Planned],
    sheet_path: &Path,
    messages: &Messages,
) -> bool {
    let targets = plan
        .iter()
        .map(|p| p.path.as_path())
        .chain(args.sheet.then_some(sheet_path));
    for target in targets {
        if let Err(e) = policy.check(target) {
            messages.error(&e);
            if !args.force {
                messages.error(&"nothing written; --force replaces existing files");
            }
            return false;
        }
    }
    true
}

/// What became of one planned image.
enum Written {
    /// Written; with the pixels drawn on, when an overlay was, for the sheet's thumbnail.
    Done(Option<RgbImage>),
    /// Not written, the reason already told.
    Skipped,
    /// The write itself failed.
    Failed(tfr_core::output::OutputError),
}

/// Writes one planned image from its bytes: as stored, as PNG from raw pixels, or as PNG with its
/// overlay drawn.
/// Why an image is not written is said through `messages`, and one that is broken is damage.
fn write_image(
    item: &Planned,
    input: &Input,
    bytes: &[u8],
    policy: &OutputPolicy,
    messages: &Messages,
) -> Written {
    // The pixels drawn on, kept for the sheet's thumbnail so that nothing is decoded twice.
    let mut drawn = None;
    let written = match &item.content {
        Content::Stored => write_atomically(&item.path, policy, |w| copy_checked(input, bytes, w)),
        Content::Png {
            shape,
            overlay: None,
        } => match image::raw_shape(bytes.len(), *shape) {
            // Encoded from the file's pages: from zeros, if it was cut short meanwhile.
            Some(raw) => write_atomically(&item.path, policy, |w| {
                write_raw_png(w, bytes, raw)?;
                match input.source.check_unchanged() {
                    Ok(()) => Ok(()),
                    Err(_) => changed(input),
                }
            }),
            None => {
                messages.error(&format_args!(
                    "{}: {}: not an image",
                    input.name(),
                    item.what
                ));
                messages.damage();
                return Written::Skipped;
            }
        },
        Content::Png {
            shape,
            overlay: Some(overlay),
        } => match with_overlay(bytes, *shape, overlay) {
            // Decoded from the file's pages: from zeros, if it was cut short meanwhile.
            Ok(_) if input.source.check_unchanged().is_err() => {
                write_atomically(&item.path, policy, |_| changed(input))
            }
            Ok(pixels) => {
                let written = write_atomically(&item.path, policy, |w| write_png(w, &pixels));
                drawn = Some(pixels);
                written
            }
            Err(why) => {
                messages.error(&format_args!("{}: {}: {why}", input.name(), item.what));
                if why.is_broken() {
                    messages.damage();
                }
                return Written::Skipped;
            }
        },
    };
    match written {
        Ok(()) => Written::Done(drawn),
        Err(e) => Written::Failed(e),
    }
}

/// The sheet's thumbnail of a written image: reduced from the pixels drawn on when there are
/// some, else decoded from its bytes.
fn thumbnail(
    item: &Planned,
    bytes: &[u8],
    drawn: Option<RgbImage>,
) -> Result<RgbImage, image::NotDecoded> {
    match drawn {
        Some(pixels) => Ok(image::reduced_rgb(
            ::image::DynamicImage::ImageRgb8(pixels),
            THUMB,
        )),
        None => image::decode_picture(bytes, shape_of(item), THUMB)
            .unwrap_or(Err(image::NotDecoded::Broken("not an image".into())))
            .map(|picture| picture.pixels),
    }
}

/// Bytes copied through a buffer at a time by [`copy_checked`].
const COPY_STEP: usize = 1 << 20;

/// Writes `bytes` (some of `input`'s mapped pages) to `w` a step at a time, copied first and
/// checked: asked to write straight from a map whose file was cut short, the kernel fails with
/// "Bad address", and bytes that read as zeros since must not be written as the image.
fn copy_checked(input: &Input, bytes: &[u8], w: &mut dyn Write) -> io::Result<()> {
    let mut buf = Vec::with_capacity(bytes.len().min(COPY_STEP));
    for chunk in bytes.chunks(COPY_STEP) {
        buf.clear();
        buf.extend_from_slice(chunk);
        if input.source.check_unchanged().is_err() {
            return changed(input);
        }
        w.write_all(&buf)?;
    }
    Ok(())
}

/// The error that abandons a write from an input that changed (the caller names the change).
fn changed(input: &Input) -> io::Result<()> {
    Err(io::Error::other(format!(
        "{} changed while being read",
        input.name()
    )))
}

fn shape_of(item: &Planned) -> Option<(u32, u32, u32)> {
    match &item.content {
        Content::Png { shape, .. } => *shape,
        Content::Stored => None,
    }
}

/// What planning one input's images needs: the arguments, the dataset's feature specs (which
/// name classes), and where notes go.
struct Planning<'a, 'm, 'w> {
    args: &'a ImagesArgs,
    specs: Option<&'a FeatureSpecs>,
    messages: &'m Messages<'w>,
}

impl Planning<'_, '_, '_> {
    /// Plans the images of records `range` of `input` (input number `file`); a damaged record is
    /// skipped, named, and is damage.
    fn plan_file(
        &self,
        input: &Input,
        (file, (start, end)): (usize, (usize, Option<usize>)),
        names: &mut HashSet<PathBuf>,
        plan: &mut Vec<Planned>,
    ) {
        let args = self.args;
        let data = input.data();
        let decoder = input.decoder();
        let stem = file_stem(input.source.path());
        let end = end.unwrap_or(usize::MAX).min(input.index.len());
        for record in start..end {
            let Some(frame) = input.index.get(data, record) else {
                break;
            };
            let payload = match frame.payload(data) {
                Some(p) if frame.status.is_intact() => p,
                _ => {
                    let problem = tfr_core::damage::describe(&frame, data, input.is_last(record));
                    self.messages.note(&format_args!(
                        "{}: record {record}: skipped: {problem}",
                        input.name()
                    ));
                    self.messages.damage();
                    continue;
                }
            };
            let base = frame
                .payload_range()
                .map(Range::<u64>::from)
                .and_then(|r| usize::try_from(r.start).ok())
                .unwrap_or(0);
            let decoded = decoder.decode(payload);
            let view = decoded.view(payload, decoder.table());
            let found = images_in(&view, self.specs);
            for image in &found.images {
                let (ext, content, what) = self.content_of(input, record, image, &found);
                let name = file_name(&stem, record, image);
                let path = unique(&args.out, &name, ext, names);
                plan.push(Planned {
                    path,
                    bytes: base + image.span.start..base + image.span.end,
                    content,
                    file,
                    record,
                    feature: image.name.clone(),
                    what: format!("record {record} {}: {what}", image.name),
                });
            }
        }
    }

    /// How one image found in a record is written: its file extension, how its file is made, and
    /// what it is (for the line that names the file). Notes why boxes are not drawn, or why an image
    /// written as stored may not open, as they are found.
    fn content_of(
        &self,
        input: &Input,
        record: usize,
        image: &FoundImage<'_>,
        found: &RecordImages<'_>,
    ) -> (&'static str, Content, String) {
        let overlay = found.overlay_of(image).filter(|_| self.args.boxes).cloned();
        let header = ImageHeader::read(image.bytes);
        // Boxes are drawn only on an image that may be decoded to be shown; a larger one is
        // written as stored (or, raw, as PNG), with a note.
        let overlay = overlay.filter(|_| match too_large_to_draw(image.bytes, found.shape) {
            Some(note) => {
                self.messages.note(&format_args!(
                    "{}: record {record} {}: boxes not drawn: {note}",
                    input.name(),
                    tfr_core::escape::for_terminal(&image.name)
                ));
                false
            }
            None => true,
        });
        match (header, overlay) {
            (_, Some(overlay)) => (
                "png",
                Content::Png {
                    shape: found.shape,
                    overlay: Some(overlay.clone()),
                },
                format!(
                    "{} with {}",
                    describe(image.bytes, found.shape),
                    marks(&overlay)
                ),
            ),
            (Some(h), None) => {
                // Written as stored all the same (the bytes are what the record holds), but
                // a reader should know; `verify --images` decodes every image fully.
                if let Err(reason) = image::check::check_structure(image.bytes, found.shape) {
                    self.messages.note(&format_args!(
                        "{}: record {record} {}: written as stored, but {reason}",
                        input.name(),
                        tfr_core::escape::for_terminal(&image.name)
                    ));
                }
                (
                    extension(h.format),
                    Content::Stored,
                    format!("{h}, as stored"),
                )
            }
            (None, None) => (
                "png",
                Content::Png {
                    shape: found.shape,
                    overlay: None,
                },
                describe(image.bytes, found.shape),
            ),
        }
    }
}

/// The name of an image's file, before its extension: input file stem, record, feature, and the
/// step and value within the feature when they are not the first.
fn file_name(stem: &str, record: usize, image: &FoundImage<'_>) -> String {
    let mut name = format!("{stem}.r{record}.{}", sanitise(image.key, &image.name));
    if let Some(step) = image.step {
        name.push_str(&format!(".s{step}"));
    }
    if image.value > 0 {
        name.push_str(&format!(".v{}", image.value));
    }
    name
}

/// `JPEG 160x120` or `raw 28x28x1 uint8 grayscale`.
fn describe(bytes: &[u8], shape: Option<(u32, u32, u32)>) -> String {
    match (
        ImageHeader::read(bytes),
        image::raw_shape(bytes.len(), shape),
    ) {
        (Some(h), _) => h.to_string(),
        (None, Some(raw)) => format!("raw {}", raw.describe()),
        (None, None) => plural(bytes.len() as u64, "byte"),
    }
}

/// `2 boxes (person, tree)`.
fn marks(overlay: &Overlay) -> String {
    let mut parts = Vec::new();
    if !overlay.boxes.is_empty() {
        let n = overlay.boxes.len();
        parts.push(format!("{n} {}", if n == 1 { "box" } else { "boxes" }));
    }
    if !overlay.points.is_empty() {
        parts.push(plural(overlay.points.len() as u64, "keypoint"));
    }
    if !overlay.masks.is_empty() {
        parts.push(plural(overlay.masks.len() as u64, "mask"));
    }
    let classes: Vec<&str> = overlay.classes.iter().map(|c| c.name.as_str()).collect();
    format!("{} ({})", parts.join(" and "), classes.join(", "))
}

fn extension(format: &str) -> &'static str {
    match format {
        "JPEG" => "jpg",
        "PNG" => "png",
        "GIF" => "gif",
        "BMP" => "bmp",
        "WebP" => "webp",
        _ => "img",
    }
}

/// The input's name without a `.tfrecord`-like extension.
fn file_stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    let stem = [".tfrecords", ".tfrecord", ".tfrec"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .filter(|s| !s.is_empty())
        .unwrap_or(&name);
    sanitise(stem.as_bytes(), stem)
}

/// A name safe in a file name: letters, digits, `-`, `_` and `.` kept, `/` made `-`, the rest
/// `_`; at most 80 characters.
fn sanitise(key: &[u8], fallback: &str) -> String {
    let source = if key.is_empty() {
        fallback.as_bytes()
    } else {
        key
    };
    let mut out: String = source
        .iter()
        .take(80)
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => char::from(*b),
            b'/' => '-',
            _ => '_',
        })
        .collect();
    if out.starts_with('.') || out.is_empty() {
        out.insert(0, '_');
    }
    out
}

/// `dir/name.ext`, or `dir/name-2.ext` (and so on) when this run already writes that name.
fn unique(dir: &Path, name: &str, ext: &str, names: &mut HashSet<PathBuf>) -> PathBuf {
    let mut path = dir.join(format!("{name}.{ext}"));
    let mut n = 2;
    while names.contains(&path) {
        path = dir.join(format!("{name}-{n}.{ext}"));
        n += 1;
    }
    names.insert(path.clone());
    path
}

/// Why the image `bytes` may not be decoded to have boxes drawn on it, if it may not.
fn too_large_to_draw(bytes: &[u8], shape: Option<(u32, u32, u32)>) -> Option<String> {
    if image::sniff_format(bytes).is_some() {
        // A header that does not read is for the decode to report, as damage.
        return image::decode_cost(bytes)
            .ok()?
            .refused(image::Purpose::Show);
    }
    let raw = image::raw_shape(bytes.len(), shape)?;
    let pixels = u64::from(raw.width) * u64::from(raw.height);
    image::DecodeCost {
        width: raw.width,
        height: raw.height,
        bytes: pixels.saturating_mul(3),
    }
    .refused(image::Purpose::Show)
}

/// The image's pixels, full size, with `overlay` drawn.
fn with_overlay(
    bytes: &[u8],
    shape: Option<(u32, u32, u32)>,
    overlay: &Overlay,
) -> Result<RgbImage, image::NotDecoded> {
    let picture = image::decode_picture(bytes, shape, u32::MAX)
        .unwrap_or(Err(image::NotDecoded::Broken("not an image".into())))?;
    let mut pixels = picture.pixels;
    overlay.draw(&mut pixels);
    Ok(pixels)
}

/// Raw pixels as a PNG of their own channels (grey, RGB or RGBA), encoded from where they lie;
/// only channel-first pixels (CIFAR's 32x32) are interleaved first.
fn write_raw_png(w: &mut dyn Write, bytes: &[u8], raw: image::RawShape) -> io::Result<()> {
    use ::image::ExtendedColorType;
    let colour = match raw.channels {
        1 => ExtendedColorType::L8,
        3 => ExtendedColorType::Rgb8,
        _ => ExtendedColorType::Rgba8,
    };
    if raw.layout == image::Layout::Hwc || raw.channels == 1 {
        return ::image::codecs::png::PngEncoder::new(w)
            .write_image(bytes, raw.width, raw.height, colour)
            .map_err(io::Error::other);
    }
    let pixels = image::raw_pixels(bytes, raw).ok_or_else(|| {
        io::Error::other(format!(
            "{} bytes do not fill {}",
            bytes.len(),
            raw.describe()
        ))
    })?;
    write_png(w, &pixels)
}

fn write_png(w: &mut dyn Write, pixels: &RgbImage) -> io::Result<()> {
    ::image::codecs::png::PngEncoder::new(w)
        .write_image(
            pixels.as_raw(),
            pixels.width(),
            pixels.height(),
            ::image::ExtendedColorType::Rgb8,
        )
        .map_err(io::Error::other)
}

/// `r17`, or `2:r17` when several files are read.
fn label(item: &Planned, files: usize) -> String {
    if files > 1 {
        format!("{}:r{}", item.file + 1, item.record)
    } else {
        format!("r{}", item.record)
    }
}

/// Thumbnails on a grid, each over its label.
fn contact_sheet(thumbs: &[(String, RgbImage)]) -> RgbImage {
    let cell_w = THUMB + 8;
    let cell_h = THUMB + font::GLYPH_H * 2 + 10;
    let columns = (thumbs.len() as u32).clamp(1, SHEET_COLUMNS);
    let rows = (thumbs.len() as u32).div_ceil(columns).max(1);
    let mut sheet = RgbImage::from_pixel(columns * cell_w, rows * cell_h, Rgb([32, 32, 32]));
    for (i, (text, thumb)) in thumbs.iter().enumerate() {
        let (col, row) = (i as u32 % columns, i as u32 / columns);
        let (x, y) = (col * cell_w + 4, row * cell_h + 4);
        let dx = (THUMB - thumb.width()) / 2;
        let dy = (THUMB - thumb.height()) / 2;
        ::image::imageops::replace(&mut sheet, thumb, i64::from(x + dx), i64::from(y + dy));
        font::write_text(
            &mut sheet,
            (x, y + THUMB + 3),
            text,
            2,
            Rgb([255, 255, 255]),
        );
    }
    sheet
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_file_names() {
        assert_eq!(sanitise(b"image/encoded", ""), "image-encoded");
        assert_eq!(sanitise(b"../../etc", ""), "_..-..-etc");
        assert_eq!(sanitise(b"a\x1b[2Jb", ""), "a__2Jb");
        assert_eq!(sanitise(b"", "fallback name"), "fallback_name");
        assert_eq!(
            file_stem(Path::new("d/shard-00001.tfrecord")),
            "shard-00001"
        );
        assert_eq!(
            file_stem(Path::new("train.record-00000-of-00001")),
            "train.record-00000-of-00001"
        );
        let mut names = HashSet::new();
        let a = unique(Path::new("o"), "x", "png", &mut names);
        let b = unique(Path::new("o"), "x", "png", &mut names);
        assert_eq!(
            (a, b),
            (PathBuf::from("o/x.png"), PathBuf::from("o/x-2.png"))
        );
    }
}
