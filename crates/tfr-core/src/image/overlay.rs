//! The boxes, class names and keypoints a record says are on its image, and drawing them.
//!
//! People check detection data by looking: "are my boxes on the objects?". Boxes come from the
//! keys the ecosystem writes: the TensorFlow Object Detection API's `image/object/bbox/xmin|xmax|
//! ymin|ymax` with `image/object/class/text|label` and `image/object/keypoint/x|y`;
//! tensorflow-datasets BBoxFeature values (`[ymin, xmin, ymax, xmax]`, found through
//! `features.json`); and MediaSequence's per-frame `region/bbox/*` feature lists of a
//! SequenceExample. Coordinates are fractions of the image, or pixels when a value exceeds 1.
//!
//! Each class gets one colour (from its label id when the record gives one, else from its name),
//! the same in every record, so a class reads the same across a file. [`Overlay::draw`] (in
//! [`super::draw`]) paints the overlay into pixels, for exported PNGs and the full-size view; the
//! terminal preview asks [`Overlay::rect_in`] where each box falls on its own grid of cells.

use crate::dataset::features::{FeatureSpecs, Spec};
use crate::example::{FeatureList, FeatureLists, FeatureValues, Features};

/// Class colours: bright, told apart on photographs and from each other.
pub const PALETTE: [[u8; 3]; 10] = [
    [255, 56, 56],
    [50, 205, 50],
    [30, 144, 255],
    [255, 215, 0],
    [255, 0, 255],
    [0, 255, 255],
    [255, 140, 0],
    [148, 103, 255],
    [255, 105, 180],
    [173, 255, 47],
];

/// Boxes and points drawn per overlay at most; a record may declare more, the rest is counted.
pub const MAX_MARKS: usize = 1000;

/// How coordinates are measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Units {
    /// Fractions of the image's width and height (0 to 1).
    #[default]
    Fraction,
    /// Pixels.
    Pixels,
}

/// One box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    pub ymin: f64,
    pub xmin: f64,
    pub ymax: f64,
    pub xmax: f64,
    /// Index into [`Overlay::classes`].
    pub class: usize,
}

/// One keypoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub y: f64,
    pub x: f64,
    pub class: usize,
}

/// A class as drawn: its name (escaped, safe on a terminal) and colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    pub name: String,
    pub colour: [u8; 3],
}

/// A box on a pixel (or cell) grid: inclusive corners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridRect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

/// What a record says is on one image.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    pub units: Units,
    pub boxes: Vec<Mark>,
    pub points: Vec<Point>,
    /// Classes in the order first met.
    pub classes: Vec<Class>,
    /// Boxes and points left out past [`MAX_MARKS`].
    pub left_out: usize,
    /// Where the boxes came from, e.g. `image/object/bbox/*`.
    pub source: String,
    /// Instance masks (`image/object/mask`, one PNG per object), tinted in their class colour.
    pub masks: Vec<Mask>,
}

/// One object's mask: an encoded image whose non-zero pixels cover the object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mask {
    pub encoded: Vec<u8>,
    pub class: usize,
}

/// Masks tinted per overlay at most (each is decoded to be drawn).
pub const MAX_MASKS: usize = 64;

/// The colour of a class: from its label id when known, else from its name.
pub fn class_colour(name: &str, label: Option<i64>) -> [u8; 3] {
    let slot = match label {
        Some(id) => id.rem_euclid(PALETTE.len() as i64) as usize,
        None => {
            // FNV-1a: stable across runs and platforms.
            let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
            (hash % PALETTE.len() as u64) as usize
        }
    };
    PALETTE.get(slot).copied().unwrap_or([255, 255, 255])
}

impl Overlay {
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty() && self.points.is_empty() && self.masks.is_empty()
    }

    /// The class index for `name` / `label`, added when new.
    pub(super) fn class(&mut self, name: Option<&[u8]>, label: Option<i64>) -> usize {
        let name = match (name, label) {
            (Some(n), _) => crate::escape::bytes_for_terminal(n).into_owned(),
            (None, Some(id)) => format!("class {id}"),
            (None, None) => "object".to_string(),
        };
        if let Some(i) = self.classes.iter().position(|c| c.name == name) {
            return i;
        }
        let colour = class_colour(&name, label);
        self.classes.push(Class { name, colour });
        self.classes.len() - 1
    }

    fn push_box(&mut self, [ymin, xmin, ymax, xmax]: [f64; 4], class: usize) {
        if self.boxes.len() + self.points.len() >= MAX_MARKS {
            self.left_out += 1;
            return;
        }
        self.boxes.push(Mark {
            ymin,
            xmin,
            ymax,
            xmax,
            class,
        });
    }

    fn push_point(&mut self, y: f64, x: f64, class: usize) {
        if self.boxes.len() + self.points.len() >= MAX_MARKS {
            self.left_out += 1;
            return;
        }
        self.points.push(Point { y, x, class });
    }

    /// Pixels when any coordinate exceeds 1, else fractions.
    pub(super) fn settle_units(&mut self) {
        let big = |v: f64| v > 1.0;
        let any = self
            .boxes
            .iter()
            .any(|b| big(b.xmin) || big(b.xmax) || big(b.ymin) || big(b.ymax))
            || self.points.iter().any(|p| big(p.x) || big(p.y));
        self.units = if any { Units::Pixels } else { Units::Fraction };
    }

    /// Adds boxes with classes from parallel lists: coordinates, class names, class ids.
    pub(super) fn add_boxes(&mut self, coords: &[[f64; 4]], names: &[&[u8]], labels: &[i64]) {
        for (i, coords) in coords.iter().enumerate() {
            // Counted before its class is looked up: a record of a million boxes with as many
            // class names must not make a million classes to search through.
            if self.boxes.len() + self.points.len() >= MAX_MARKS {
                self.left_out += 1;
                continue;
            }
            let class = self.class(names.get(i).copied(), labels.get(i).copied());
            self.push_box(*coords, class);
        }
    }

    /// Keypoints `xs`/`ys`, spread evenly over the boxes when they divide among them.
    pub(super) fn add_points(&mut self, ys: &[f32], xs: &[f32]) {
        if ys.is_empty() || xs.is_empty() {
            return;
        }
        let per_box = match self.boxes.len() {
            0 => 0,
            n if ys.len() % n == 0 => ys.len() / n,
            _ => 0,
        };
        let own = (per_box == 0).then(|| self.class(Some(b"keypoint"), None));
        for (i, (y, x)) in ys.iter().zip(xs).enumerate() {
            let class = match own {
                Some(class) => class,
                None => self.boxes.get(i / per_box).map_or(0, |b| b.class),
            };
            self.push_point(f64::from(*y), f64::from(*x), class);
        }
    }

    /// The overlay of an Example's features (or a SequenceExample's context): Object Detection
    /// API keys, then BBoxFeature values that `specs` (a `features.json`) names.
    pub fn of_features(features: &Features<'_>, specs: Option<&FeatureSpecs>) -> Overlay {
        let mut overlay = Overlay::default();
        let floats = |name: &str| -> Vec<f32> {
            features
                .named(name)
                .map(|f| f.values.floats().collect())
                .unwrap_or_default()
        };
        let bbox = |side: &str| floats(&format!("image/object/bbox/{side}"));
        let (xmin, xmax, ymin, ymax) = (bbox("xmin"), bbox("xmax"), bbox("ymin"), bbox("ymax"));
        let coords = zip4(&ymin, &xmin, &ymax, &xmax);
        if !coords.is_empty() {
            let names: Vec<&[u8]> = features
                .named("image/object/class/text")
                .map(|f| f.values.bytes().map(|(b, _)| b).collect())
                .unwrap_or_default();
            let labels: Vec<i64> = features
                .named("image/object/class/label")
                .map(|f| f.values.ints().collect())
                .unwrap_or_default();
            overlay.add_boxes(&coords, &names, &labels);
            overlay.source = "image/object/bbox/*".into();
        }
        let (kx, ky) = (
            floats("image/object/keypoint/x"),
            floats("image/object/keypoint/y"),
        );
        overlay.add_points(&ky, &kx);
        if let Some(masks) = features.named("image/object/mask") {
            let encoded = masks
                .values
                .bytes()
                .filter(|(b, _)| super::sniff_format(b).is_some());
            for (i, (bytes, _)) in encoded.enumerate() {
                if i >= MAX_MASKS {
                    overlay.left_out += 1;
                    continue;
                }
                let class = match overlay.boxes.get(i) {
                    Some(b) => b.class,
                    None => overlay.class(Some(b"mask"), None),
                };
                overlay.masks.push(Mask {
                    encoded: bytes.to_vec(),
                    class,
                });
            }
        }
        if let Some(specs) = specs {
            overlay.add_tfds(features, specs);
        }
        overlay.settle_units();
        overlay
    }

    /// BBoxFeature values: top-level ones (named after their feature), and those in a Sequence,
    /// classed by the first ClassLabel beside them.
    fn add_tfds(&mut self, features: &Features<'_>, specs: &FeatureSpecs) {
        let quads = |values: &FeatureValues<'_>| -> Vec<[f64; 4]> {
            let v: Vec<f32> = values.floats().collect();
            v.chunks_exact(4)
                .map(|c| {
                    let get = |i: usize| f64::from(c.get(i).copied().unwrap_or(0.0));
                    [get(0), get(1), get(2), get(3)]
                })
                .collect()
        };
        for (name, spec) in &specs.features {
            match spec {
                Spec::BBox => {
                    if let Some(f) = features.named(name) {
                        let boxes = quads(&f.values);
                        let names = vec![name.as_bytes(); boxes.len()];
                        self.add_boxes(&boxes, &names, &[]);
                        self.source = format!("{name} (BBoxFeature)");
                    }
                }
                Spec::Sequence(inner) => {
                    let key = |k: &str| match k {
                        "" => name.clone(),
                        k => format!("{name}/{k}"),
                    };
                    let class = inner.iter().find_map(|(k, s)| match s {
                        Spec::ClassLabel { names, .. } => Some((key(k), names)),
                        _ => None,
                    });
                    for (k, s) in inner {
                        if *s != Spec::BBox {
                            continue;
                        }
                        let Some(f) = features.named(&key(k)) else {
                            continue;
                        };
                        let boxes = quads(&f.values);
                        let ids: Vec<i64> = class
                            .as_ref()
                            .and_then(|(k, _)| features.named(k))
                            .map(|f| f.values.ints().collect())
                            .unwrap_or_default();
                        let label_names: Vec<String> = ids
                            .iter()
                            .map(|id| {
                                let named = class.as_ref().and_then(|(_, names)| {
                                    usize::try_from(*id).ok().and_then(|i| names.get(i))
                                });
                                // `fragile: yes`; a class feature called `label` goes unnamed.
                                let feature = class
                                    .as_ref()
                                    .map(|(k, _)| k.rsplit('/').next().unwrap_or(k))
                                    .unwrap_or(k);
                                match named {
                                    Some(n) if feature == "label" => n.to_string(),
                                    Some(n) => format!("{feature}: {n}"),
                                    None => format!("{feature} {id}"),
                                }
                            })
                            .collect();
                        let names: Vec<&[u8]> = match class {
                            Some(_) => label_names.iter().map(|n| n.as_bytes()).collect(),
                            None => vec![k.as_bytes(); boxes.len()],
                        };
                        self.add_boxes(&boxes, &names, &ids);
                        self.source = format!("{} (BBoxFeature)", key(k));
                    }
                }
                _ => {}
            }
        }
    }

    /// One overlay per step of a SequenceExample's `region/bbox/*` feature lists (MediaSequence
    /// keys, with any prefix), with class names from `region/label/string` and ids from
    /// `region/label/index`; empty when the record has none.
    pub fn of_steps(lists: &FeatureLists<'_>) -> Vec<Overlay> {
        let mut floats: [Vec<Vec<f32>>; 6] = Default::default();
        let mut names: Vec<Vec<Vec<u8>>> = Vec::new();
        let mut ids: Vec<Vec<i64>> = Vec::new();
        const SIDES: [&str; 6] = [
            "region/bbox/ymin",
            "region/bbox/xmin",
            "region/bbox/ymax",
            "region/bbox/xmax",
            "region/point/y",
            "region/point/x",
        ];
        for i in 0..lists.len() {
            let Some(list) = lists.get(i) else {
                continue;
            };
            let is = |suffix: &str| list.key.ends_with(suffix.as_bytes());
            if let Some(side) = SIDES.iter().position(|s| is(s)) {
                if let Some(slot) = floats.get_mut(side) {
                    *slot = steps(&list, |v| v.floats().collect());
                }
            } else if is("region/label/string") {
                names = steps(&list, |v| v.bytes().map(|(b, _)| b.to_vec()).collect());
            } else if is("region/label/index") {
                ids = steps(&list, |v| v.ints().collect());
            }
        }
        let [ymin, xmin, ymax, xmax, py, px] = &floats;
        let count = floats.iter().map(Vec::len).max().unwrap_or(0);
        let empty = Vec::new();
        (0..count)
            .map(|k| {
                let at = |v: &Vec<Vec<f32>>| v.get(k).unwrap_or(&empty).clone();
                let coords = zip4(&at(ymin), &at(xmin), &at(ymax), &at(xmax));
                let mut overlay = Overlay::default();
                let step_names: Vec<&[u8]> = names
                    .get(k)
                    .map(|n| n.iter().map(Vec::as_slice).collect())
                    .unwrap_or_default();
                let step_ids = ids.get(k).cloned().unwrap_or_default();
                overlay.add_boxes(&coords, &step_names, &step_ids);
                overlay.add_points(&at(py), &at(px));
                if !overlay.is_empty() {
                    overlay.source = "region/bbox/*".into();
                }
                overlay.settle_units();
                overlay
            })
            .collect()
    }

    /// Box `mark` on a grid of `width` x `height` cells (pixels, or a preview's cells) that is
    /// the image itself: `None` when a coordinate is not a number or the grid is empty.
    pub fn rect_in(&self, mark: &Mark, width: u32, height: u32) -> Option<GridRect> {
        self.rect_on(mark, (width, height), (width, height))
    }

    /// Box `mark` on a grid of `grid` cells that shows an image of `image` pixels (boxes measured
    /// in pixels are scaled from the one to the other).
    pub fn rect_on(&self, mark: &Mark, grid: (u32, u32), image: (u32, u32)) -> Option<GridRect> {
        let (ax, ay) = (
            self.to_grid(mark.xmin, mark.xmax, grid.0, image.0)?,
            self.to_grid(mark.ymin, mark.ymax, grid.1, image.1)?,
        );
        Some(GridRect {
            x0: ax.0,
            x1: ax.1,
            y0: ay.0,
            y1: ay.1,
        })
    }

    /// Point `p` on a `width` x `height` grid that is the image itself.
    pub fn point_in(&self, p: &Point, width: u32, height: u32) -> Option<(u32, u32)> {
        self.point_on(p, (width, height), (width, height))
    }

    /// Point `p` on a grid of `grid` cells that shows an image of `image` pixels.
    pub fn point_on(&self, p: &Point, grid: (u32, u32), image: (u32, u32)) -> Option<(u32, u32)> {
        let (x, _) = self.to_grid(p.x, p.x, grid.0, image.0)?;
        let (y, _) = self.to_grid(p.y, p.y, grid.1, image.1)?;
        Some((x, y))
    }

    /// The cells `lo..=hi` span along an axis of `size` cells showing `image` pixels.
    fn to_grid(&self, lo: f64, hi: f64, size: u32, image: u32) -> Option<(u32, u32)> {
        if size == 0 || !lo.is_finite() || !hi.is_finite() {
            return None;
        }
        let size_f = f64::from(size);
        let scale = match self.units {
            Units::Fraction => size_f,
            Units::Pixels => size_f / f64::from(image.max(1)),
        };
        let cell = |v: f64| (v * scale).floor().clamp(0.0, size_f - 1.0) as u32;
        let (a, b) = (cell(lo), cell(hi));
        Some((a.min(b), a.max(b)))
    }

    /// An overlay of `boxes` (`[ymin, xmin, ymax, xmax]`) classed by `names`, for tests.
    #[cfg(test)]
    pub(super) fn with_boxes(boxes: &[[f64; 4]], names: &[&[u8]]) -> Overlay {
        let mut o = Overlay::default();
        o.add_boxes(boxes, names, &[]);
        o.settle_units();
        o
    }
}

/// The values of each step of `list`, as `read` takes them.
fn steps<T>(list: &FeatureList<'_>, read: impl Fn(&FeatureValues<'_>) -> Vec<T>) -> Vec<Vec<T>> {
    list.steps().map(|s| read(&s.values)).collect()
}

/// Boxes from four parallel lists, as many as the shortest.
fn zip4(ymin: &[f32], xmin: &[f32], ymax: &[f32], xmax: &[f32]) -> Vec<[f64; 4]> {
    ymin.iter()
        .zip(xmin)
        .zip(ymax.iter().zip(xmax))
        .map(|((a, b), (c, d))| [a, b, c, d].map(|v| f64::from(*v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlay(boxes: &[[f64; 4]], names: &[&[u8]]) -> Overlay {
        Overlay::with_boxes(boxes, names)
    }

    #[test]
    fn fractions_and_pixels_land_on_the_same_grid_cells() {
        let frac = overlay(&[[0.25, 0.5, 0.75, 1.0]], &[b"cat"]);
        assert_eq!(frac.units, Units::Fraction);
        let r = frac.rect_in(frac.boxes.first().unwrap(), 100, 40).unwrap();
        assert_eq!(
            r,
            GridRect {
                x0: 50,
                y0: 10,
                x1: 99,
                y1: 30
            }
        );
        let px = overlay(&[[10.0, 50.0, 30.0, 99.0]], &[b"cat"]);
        assert_eq!(px.units, Units::Pixels);
        assert_eq!(px.rect_in(px.boxes.first().unwrap(), 100, 40), Some(r));
        // On a grid half the image's size (a reduced picture, a preview's cells), pixels scale.
        let half = px.rect_on(px.boxes.first().unwrap(), (50, 20), (100, 40));
        assert_eq!(
            half,
            Some(GridRect {
                x0: 25,
                y0: 5,
                x1: 49,
                y1: 15
            })
        );
        // Reversed and out-of-range corners are ordered and clamped; NaN draws nothing.
        let odd = overlay(&[[0.9, 1.0, -0.5, 0.1], [f64::NAN, 0.0, 1.0, 1.0]], &[]);
        let r = odd.rect_in(odd.boxes.first().unwrap(), 10, 10).unwrap();
        assert_eq!(
            r,
            GridRect {
                x0: 1,
                y0: 0,
                x1: 9,
                y1: 9
            }
        );
        assert_eq!(odd.rect_in(odd.boxes.get(1).unwrap(), 10, 10), None);
    }

    #[test]
    fn one_colour_per_class_and_names_escaped() {
        let o = overlay(
            &[[0.0; 4], [0.1; 4], [0.2; 4]],
            &[b"dog", b"cat\x1b[2J", b"dog"],
        );
        assert_eq!(o.classes.len(), 2);
        assert_eq!(
            o.boxes.first().unwrap().class,
            o.boxes.get(2).unwrap().class
        );
        assert!(!o.classes.get(1).unwrap().name.contains('\x1b'));
        assert_eq!(class_colour("x", Some(3)), PALETTE[3]);
        assert_eq!(class_colour("x", Some(13)), PALETTE[3]);
        assert_eq!(class_colour("dog", None), class_colour("dog", None));
    }

    #[test]
    fn marks_are_capped() {
        let many = vec![[0.1, 0.1, 0.2, 0.2]; MAX_MARKS + 5];
        let o = overlay(&many, &[]);
        assert_eq!(o.boxes.len(), MAX_MARKS);
        assert_eq!(o.left_out, 5);
        // Classes are made only for the boxes kept, however many names the record gives.
        let names: Vec<Vec<u8>> = (0..MAX_MARKS + 50)
            .map(|i| format!("c{i}").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
        let o = overlay(&vec![[0.1, 0.1, 0.2, 0.2]; MAX_MARKS + 50], &refs);
        assert_eq!(o.classes.len(), MAX_MARKS);
        assert_eq!(o.left_out, 50);
    }
}
