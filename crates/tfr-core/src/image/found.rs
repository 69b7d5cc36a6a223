//! Every image a record holds, named by feature (and step, for the frames of a SequenceExample),
//! with the overlay that belongs on it.
//!
//! `images` writes these out, `verify --images` decodes each, and the inspector previews the one
//! the selection is on and steps through frames. An Example's (or a SequenceExample context's)
//! bytes values are images when they carry an image format's magic bytes or are raw pixels of a
//! declared or well-known shape that do not read as text; a SequenceExample's feature lists give
//! frames, one image per step. Other payload types offer their candidates through
//! [`crate::payload::PayloadView::image_candidates`].

use super::is_image;
use super::overlay::Overlay;
use crate::dataset::features::FeatureSpecs;
use crate::example::{self, FeatureValues, Features};
use crate::payload::PayloadView;
use crate::span::Span;

/// Fields of a payload that is not an Example whose bytes values are considered.
const FIELD_BUDGET: usize = 4096;

/// One image of a record.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundImage<'a> {
    /// The feature's name as stored (empty for a payload that has no features).
    pub key: &'a [u8],
    /// The feature's name escaped for a terminal, or where the value lies.
    pub name: String,
    /// The step of the feature list, for a frame.
    pub step: Option<usize>,
    /// Which value of the feature (or step) it is.
    pub value: usize,
    pub bytes: &'a [u8],
    /// Where the value lies in the payload.
    pub span: Span,
    /// Index into [`RecordImages::overlays`].
    pub overlay: Option<usize>,
}

/// The images of one record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordImages<'a> {
    pub images: Vec<FoundImage<'a>>,
    pub overlays: Vec<Overlay>,
    /// Image dimensions the features declare (height, width, channels).
    pub shape: Option<(u32, u32, u32)>,
}

impl<'a> RecordImages<'a> {
    /// The overlay of `image`, if it has one.
    pub fn overlay_of(&self, image: &FoundImage<'_>) -> Option<&Overlay> {
        image.overlay.and_then(|i| self.overlays.get(i))
    }

    /// The frames of feature list `key`, in step order.
    pub fn frames_of<'s>(&'s self, key: &'s [u8]) -> impl Iterator<Item = &'s FoundImage<'a>> {
        self.images
            .iter()
            .filter(move |i| i.step.is_some() && i.key == key)
    }

    fn add_overlay(&mut self, overlay: Overlay) -> Option<usize> {
        if overlay.is_empty() {
            return None;
        }
        self.overlays.push(overlay);
        Some(self.overlays.len() - 1)
    }

    /// Adds the images among `values` (of feature `key`, at `step`).
    fn add_values(
        &mut self,
        key: &'a [u8],
        step: Option<usize>,
        values: &FeatureValues<'a>,
        overlay: Option<usize>,
    ) {
        // Masks are images of their own, not the picture the boxes are on.
        let overlay = overlay.filter(|_| !contains(key, b"mask"));
        for (value, (bytes, span)) in values.bytes().enumerate() {
            if is_image(bytes, self.shape) {
                self.images.push(FoundImage {
                    key,
                    name: crate::escape::name_for_terminal(key).into_owned(),
                    step,
                    value,
                    bytes,
                    span,
                    overlay,
                });
            }
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The images of the payload `view` shows; `specs` (a tensorflow-datasets `features.json`) adds
/// the boxes it describes.
pub fn images_in<'a>(view: &PayloadView<'a>, specs: Option<&FeatureSpecs>) -> RecordImages<'a> {
    let mut found = RecordImages::default();
    let typed = view
        .typed()
        .filter(|m| matches!(m.type_name(), "Example" | "SequenceExample"));
    let Some(typed) = typed else {
        let candidates = view.image_candidates(FIELD_BUDGET);
        found.shape = candidates.shape;
        for span in candidates.values {
            let Some(bytes) = view.payload.get(span.start..span.end) else {
                continue;
            };
            if is_image(bytes, found.shape) {
                found.images.push(FoundImage {
                    key: b"",
                    name: format!("bytes at payload byte {}", span.start),
                    step: None,
                    value: 0,
                    bytes,
                    span,
                    overlay: None,
                });
            }
        }
        return found;
    };
    let features: Features<'a> = example::top_features(&typed);
    found.shape = example::declared_shape(&features);
    let context = found.add_overlay(Overlay::of_features(&features, specs));
    for feature in features.iter() {
        found.add_values(feature.key, None, &feature.values, context);
    }
    let lists = example::feature_lists_of(&typed);
    if lists.is_empty() {
        return found;
    }
    let per_step: Vec<Option<usize>> = Overlay::of_steps(&lists)
        .into_iter()
        .map(|o| found.add_overlay(o))
        .collect();
    for i in 0..lists.len() {
        let Some(list) = lists.get(i) else {
            continue;
        };
        for (step, s) in list.steps().enumerate() {
            let overlay = per_step.get(step).copied().flatten();
            found.add_values(list.key, Some(step), &s.values, overlay);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crafted::{self, FeatureValue};
    use crate::payload::{Decoder, Reading};
    use crate::schema::Schema;

    fn found_in(payload: &[u8], test: impl FnOnce(&RecordImages<'_>)) {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let decoded = decoder.decode(payload);
        test(&images_in(&decoded.view(payload, decoder.table()), None));
    }

    #[test]
    fn frames_of_a_sequence_come_with_their_own_boxes() {
        let payload = crafted::video_sequence(12);
        found_in(&payload, |found| {
            let frames: Vec<_> = found.frames_of(b"image/encoded").collect();
            assert_eq!(frames.len(), 12);
            for (k, frame) in frames.iter().enumerate() {
                assert_eq!(frame.step, Some(k));
                let overlay = found.overlay_of(frame).unwrap();
                let mark = overlay.boxes.first().unwrap();
                let r = overlay.rect_in(mark, 32, 24).unwrap();
                assert_eq!((r.x0, r.y0), ((k as u32 * 2) % 24, 8), "frame {k}");
                assert_eq!(overlay.classes.first().unwrap().name, "ball");
            }
            assert_eq!(found.shape, Some((24, 32, 1)));
        });
    }

    #[test]
    fn short_text_is_no_image_and_detection_boxes_go_with_the_picture() {
        let jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0, 0];
        let payload = crafted::example(&[
            ("image/encoded", FeatureValue::Bytes(vec![jpeg])),
            ("image/format", FeatureValue::Bytes(vec![b"png".to_vec()])),
            ("image/height", FeatureValue::Ints(vec![1])),
            ("image/width", FeatureValue::Ints(vec![1])),
            ("image/depth", FeatureValue::Ints(vec![3])),
            ("image/object/bbox/xmin", FeatureValue::Floats(vec![0.1])),
            ("image/object/bbox/xmax", FeatureValue::Floats(vec![0.5])),
            ("image/object/bbox/ymin", FeatureValue::Floats(vec![0.2])),
            ("image/object/bbox/ymax", FeatureValue::Floats(vec![0.6])),
            ("image/object/class/label", FeatureValue::Ints(vec![4])),
            (
                "image/object/keypoint/x",
                FeatureValue::Floats(vec![0.2, 0.4]),
            ),
            (
                "image/object/keypoint/y",
                FeatureValue::Floats(vec![0.3, 0.5]),
            ),
        ]);
        found_in(&payload, |found| {
            let names: Vec<&str> = found.images.iter().map(|i| i.name.as_str()).collect();
            assert_eq!(names, ["image/encoded"]);
            let overlay = found.overlay_of(found.images.first().unwrap()).unwrap();
            assert_eq!(overlay.classes.first().unwrap().name, "class 4");
            assert_eq!(overlay.source, "image/object/bbox/*");
            // Keypoints go with the box they divide among.
            assert_eq!(overlay.points.len(), 2);
            let p = overlay.points.get(1).unwrap();
            assert_eq!(overlay.point_in(p, 100, 100), Some((40, 50)));
            assert_eq!(p.class, 0);
        });
    }
}
