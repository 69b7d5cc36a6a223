//! The images of the selected record: which one the preview shows, its boxes, stepping through
//! the frames of a SequenceExample, and which images do not decode.
//!
//! The record's images come from the core ([`tfr_core::image::found::images_in`]), each with its file
//! bytes, feature, step and overlay. The preview shows the image the selected row holds (a value
//! row, or the first image inside a feature, step or record row), so the preview follows the
//! selected step; `<` and `>` move the selection to the previous or next frame of the same
//! feature list, and the tree follows.

use std::ops::Range;

use super::App;
use tfr_core::bytes::ByteSource;
use tfr_core::image::check::{check_image, check_structure};
use tfr_core::image::found::images_in;
use tfr_core::image::overlay::Overlay;
use tfr_core::image::{self, NotDecoded, Picture, Purpose, SHOW_MAX_PIXELS};
use tfr_core::span::{FileOffset, FileRange};

/// Pixels of a record's images decoded completely to check them when it is selected, at most (as
/// their headers give them): one image as large as a preview may be, or many small ones, so that
/// selecting a record takes well under a second. The others get the checks that need no
/// decoding (and the previewed one is decoded anyway).
const CHECKED_PIXELS: u64 = SHOW_MAX_PIXELS;

/// One image of the selected record.
#[derive(Debug, Clone, PartialEq)]
pub struct Spot {
    /// Its bytes in the file.
    pub range: Range<u64>,
    /// The feature's name, escaped.
    pub name: String,
    pub key: Vec<u8>,
    pub step: Option<usize>,
    pub value: usize,
    pub overlay: Option<usize>,
    /// Why it does not decode completely (decoded within [`CHECKED_PIXELS`]).
    pub undecodable: Option<String>,
}

/// The images of the selected record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordImages {
    pub spots: Vec<Spot>,
    pub overlays: Vec<Overlay>,
    pub shape: Option<(u32, u32, u32)>,
}

/// What the preview shows besides the pixels: which image, its frame, its overlay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreviewInfo {
    /// Index into [`RecordImages::spots`].
    pub spot: Option<usize>,
    /// `step 2 (of 12) of image/encoded`, for a frame of a feature list (steps count from 0, as
    /// the tree numbers them).
    pub frame: Option<String>,
    pub overlay: Option<Overlay>,
    /// The picture with the overlay's masks tinted in, when it has masks.
    pub masked: Option<::image::RgbImage>,
}

impl App {
    /// Finds the images of the selected record (after it was decoded) and checks them.
    pub(super) fn find_images(&mut self) {
        self.view.images = RecordImages::default();
        let Some(file) = self.files.get(self.current) else {
            return;
        };
        let Some(record) = self.view.tree.record().cloned() else {
            return;
        };
        let specs = file.specs.clone();
        let Some(file) = self.files.get(self.current) else {
            return;
        };
        let payload = record.bytes(file.data());
        let view = record.decoded.view(payload, &record.table);
        let found = images_in(&view, specs.as_deref());
        let base = record.payload.start;
        let mut budget = CHECKED_PIXELS;
        let spots = found
            .images
            .iter()
            .map(|im| Spot {
                range: base + im.span.start as u64..base + im.span.end as u64,
                name: im.name.clone(),
                key: im.key.to_vec(),
                step: im.step,
                value: im.value,
                overlay: im.overlay,
                undecodable: match budget.checked_sub(pixels_of(im.bytes)) {
                    Some(left) => {
                        budget = left;
                        // Too large to decode here is no fault of the image's.
                        check_image(im.bytes, found.shape, Purpose::Show)
                            .err()
                            .filter(NotDecoded::is_broken)
                            .map(|e| e.to_string())
                    }
                    None => check_structure(im.bytes, found.shape).err(),
                },
            })
            .collect();
        self.view.images = RecordImages {
            spots,
            overlays: found.overlays,
            shape: found.shape,
        };
        let bad: Vec<String> = self
            .view
            .images
            .spots
            .iter()
            .filter_map(|s| {
                let step = s.step.map(|k| format!(" step {k}")).unwrap_or_default();
                Some(format!("{}{step}: {}", s.name, s.undecodable.as_ref()?))
            })
            .collect();
        if let (Some(first), Some(frame)) = (bad.first(), self.view.frame) {
            let more = match bad.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            self.message = format!(
                "record {} has an undecodable image: {first}{more}",
                frame.index
            );
            self.bad_images
                .insert((self.current, frame.index), bad.len());
            self.rows.remove(&frame.index);
        }
    }

    /// The image the selected row shows: its own value, else the first image inside it, else the
    /// record's first image.
    fn chosen_spot(&self) -> Option<usize> {
        let spots = &self.view.images.spots;
        let node = self.view.tree.nodes.get(self.view.node);
        let own = node
            .and_then(|n| n.value.as_ref())
            .and_then(|v| spots.iter().position(|s| s.range == *v));
        let inside = || {
            let node = node?;
            spots.iter().position(|s| {
                node.ranges()
                    .any(|r| r.start <= s.range.start && s.range.end <= r.end)
            })
        };
        own.or_else(inside)
            .or_else(|| (!spots.is_empty()).then_some(0))
    }

    /// Points the preview at the selected row's image (decoding it when it changed).
    pub(super) fn update_preview(&mut self) {
        match self.chosen_spot() {
            Some(spot) => self.preview_spot(spot),
            None => self.preview_candidates(),
        }
    }

    /// Shows image `spot` of the record in the preview.
    fn preview_spot(&mut self, spot: usize) {
        let Some(s) = self.view.images.spots.get(spot).cloned() else {
            return;
        };
        let frame = s.step.map(|k| {
            let count = self
                .view
                .images
                .spots
                .iter()
                .filter(|o| o.key == s.key && o.value == s.value && o.step.is_some())
                .count();
            format!("step {k} (of {count}) of {}", s.name)
        });
        let key = Some(s.range.clone());
        let same = key == self.preview_key && self.preview.is_some();
        self.preview_info = PreviewInfo {
            spot: Some(spot),
            frame,
            overlay: s
                .overlay
                .and_then(|o| self.view.images.overlays.get(o))
                .cloned(),
            masked: self.preview_info.masked.take().filter(|_| same),
        };
        if same {
            return;
        }
        let shape = self.view.images.shape;
        self.preview = self.bytes_at(&s.range).and_then(|b| {
            let decoded = image::decode_image(b, shape)?;
            Some(match (decoded, s.undecodable) {
                (Ok(picture), Some(why)) => Err(NotDecoded::Broken(format!(
                    "{}: {why}",
                    picture.description
                ))),
                (Err(_), Some(why)) => Err(NotDecoded::Broken(why)),
                (decoded, None) => decoded,
            })
        });
        self.preview_key = key;
        self.preview_info.masked = match (&self.preview, &self.preview_info.overlay) {
            (Some(Ok(picture)), Some(overlay)) if !overlay.masks.is_empty() => {
                let mut pixels = picture.pixels.clone();
                overlay.tint_masks(&mut pixels);
                Some(pixels)
            }
            _ => None,
        };
    }

    /// Payload types without features: the first byte range the tree offers that holds an image.
    fn preview_candidates(&mut self) {
        self.preview_info = PreviewInfo::default();
        let shape = self.view.tree.declared_shape;
        let is_image = |r: &Range<u64>| self.bytes_at(r).is_some_and(|b| image::is_image(b, shape));
        let own = self
            .view
            .tree
            .nodes
            .get(self.view.node)
            .and_then(|n| n.value.clone())
            .filter(|r| is_image(r));
        let key = own.or_else(|| self.view.tree.values().find(|r| is_image(r)).cloned());
        if key == self.preview_key && (key.is_some() == self.preview.is_some()) {
            return;
        }
        self.preview = key
            .as_ref()
            .and_then(|r| self.bytes_at(r))
            .and_then(|b| image::decode_image(b, shape));
        self.preview_key = key;
    }

    fn bytes_at(&self, r: &Range<u64>) -> Option<&[u8]> {
        let data = self.files.get(self.current)?.data();
        data.read(FileRange::new(FileOffset(r.start), FileOffset(r.end)))
            .ok()
    }

    /// `<` / `>`: the previous or next frame of the feature list the preview shows (the first
    /// frame of the record when it shows none); the tree selects its row.
    pub(super) fn step_frame(&mut self, forward: bool) {
        let spots = &self.view.images.spots;
        let current = self
            .preview_info
            .spot
            .and_then(|i| spots.get(i))
            .filter(|s| s.step.is_some());
        let target = match current {
            Some(cur) => {
                let step = cur.step.unwrap_or(0);
                let want = if forward {
                    step.checked_add(1)
                } else {
                    step.checked_sub(1)
                };
                want.and_then(|want| {
                    spots.iter().position(|s| {
                        s.key == cur.key && s.value == cur.value && s.step == Some(want)
                    })
                })
            }
            None => spots.iter().position(|s| s.step.is_some()),
        };
        let Some(target) = target else {
            self.message = match (current, forward) {
                (None, _) => "no frames in this record (images in the steps of a feature list)",
                (Some(_), true) => "last frame",
                (Some(_), false) => "first frame",
            }
            .into();
            return;
        };
        let Some(start) = spots.get(target).map(|s| s.range.start) else {
            return;
        };
        // The deepest row holding the frame's bytes; a frame past the rows made so far (beyond
        // a "… more" row) is shown all the same.
        self.set_cursor(start);
        if self.preview_info.spot != Some(target) {
            self.preview_spot(target);
        }
        if let Some(frame) = &self.preview_info.frame {
            self.message = frame.clone();
        }
    }

    /// `b`: boxes, class names and keypoints on or off.
    pub(super) fn toggle_boxes(&mut self) {
        self.boxes = !self.boxes;
        self.message = match (self.boxes, &self.preview_info.overlay) {
            (true, Some(o)) => format!("boxes shown (from {})", o.source),
            (true, None) => "boxes shown (this image has none)".into(),
            (false, _) => "boxes hidden".into(),
        };
    }

    /// The overlay drawn on the preview, when boxes are on.
    pub fn shown_overlay(&self) -> Option<&Overlay> {
        self.preview_info.overlay.as_ref().filter(|_| self.boxes)
    }

    /// The previewed picture as the full-size view shows it: with its boxes drawn when on. The
    /// preview's pixels are already reduced to [`image::PREVIEW_MAX_SIDE`], so this copy is too.
    pub(super) fn full_size(&self, picture: &Picture) -> Picture {
        let mut picture = picture.clone();
        if let Some(overlay) = self.shown_overlay() {
            overlay.draw_on(&mut picture.pixels, picture.size);
            picture.description = format!("{} · {}", picture.description, legend(overlay));
        }
        picture
    }
}

/// The pixels an image's header declares (its length in bytes when no header reads: such an
/// image fails before decoding much).
fn pixels_of(bytes: &[u8]) -> u64 {
    match image::ImageHeader::read(bytes).and_then(|h| h.size) {
        Some((w, h)) => u64::from(w) * u64::from(h),
        None => bytes.len() as u64,
    }
}

/// `boxes: person, tree`.
pub fn legend(overlay: &Overlay) -> String {
    let names: Vec<&str> = overlay.classes.iter().map(|c| c.name.as_str()).collect();
    format!("boxes: {}", names.join(", "))
}
