//! `images`: files named by record and feature, encoded images byte for byte, boxes drawn where
//! the record says they are, raw pixels as PNG, and nothing overwritten without `--force`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use image::{Rgb, RgbImage};
use tfr_core::image::overlay::PALETTE;

use super::{run as spawn, run_in_process_as_binary as run, stderr, stdout, testdata};

/// A box in pixels: x0, y0, x1, y1 (inclusive).
type PixelBox = (u32, u32, u32, u32);

const DETECTION: &str = "realworld/detection_train.record-00000-of-00001";

fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

/// The record's boxes as `detection_train.boxes.json` lists them: (class, [ymin, xmin, ymax, xmax]).
fn boxes_json() -> Vec<Vec<(String, [f64; 4])>> {
    let text = std::fs::read(testdata("realworld/detection_train.boxes.json")).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let list = |r: &serde_json::Value, k: &str| -> Vec<f64> {
        r[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    json.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let (ymin, xmin, ymax, xmax) = (
                list(r, "ymin"),
                list(r, "xmin"),
                list(r, "ymax"),
                list(r, "xmax"),
            );
            r["class"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let c = c.as_str().unwrap().to_string();
                    (c, [ymin[i], xmin[i], ymax[i], xmax[i]])
                })
                .collect()
        })
        .collect()
}

/// A fraction as the record stores it (float32), on an axis of `size` pixels.
fn pixel(v: f64, size: u32) -> u32 {
    ((v as f32) as f64 * size as f64)
        .floor()
        .clamp(0.0, size as f64 - 1.0) as u32
}

/// The pixels on the outline of box (x0, y0, x1, y1).
fn edge_pixels((x0, y0, x1, y1): PixelBox) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for x in x0..=x1 {
        out.extend([(x, y0), (x, y1)]);
    }
    for y in y0..=y1 {
        out.extend([(x0, y), (x1, y)]);
    }
    out
}

fn decode(path: &Path) -> RgbImage {
    image::open(path).unwrap().to_rgb8()
}

#[test]
fn boxes_are_drawn_where_the_record_says_and_stored_jpegs_are_kept_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let (boxed, plain) = (dir.path().join("boxed"), dir.path().join("plain"));
    let file = testdata(DETECTION);
    let output = spawn([
        file.as_os_str(),
        "-o".as_ref(),
        boxed.as_os_str(),
        "--boxes".as_ref(),
    ]);
    // `images` comes first on the command line.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let output = run([
        "images".as_ref(),
        file.as_os_str(),
        "-o".as_ref(),
        boxed.as_os_str(),
        "--boxes".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("8 images written"),
        "{}",
        stdout(&output)
    );
    let pngs = files_with(&boxed, "png");
    assert_eq!(pngs.len(), 8, "{pngs:?}");
    assert!(files_with(&boxed, "jpg").is_empty());
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        name(&pngs[3]),
        "detection_train.record-00000-of-00001.r3.image-encoded.png"
    );

    let output = run([
        "images".as_ref(),
        file.as_os_str(),
        "-o".as_ref(),
        plain.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let jpgs = files_with(&plain, "jpg");
    assert_eq!(jpgs.len(), 8);
    let stored = std::fs::read(&file).unwrap();
    for jpg in &jpgs {
        let bytes = std::fs::read(jpg).unwrap();
        assert_eq!(&bytes[..3], &[0xff, 0xd8, 0xff]);
        let found = stored.windows(bytes.len()).any(|w| w == bytes.as_slice());
        assert!(
            found,
            "{} is not byte-identical to a stored value",
            name(jpg)
        );
    }

    let mut colours: HashMap<String, Rgb<u8>> = HashMap::new();
    let mut insides = 0;
    for (record, boxes) in boxes_json().iter().enumerate() {
        let drawn = decode(&pngs[record]);
        let original = decode(&jpgs[record]);
        assert_eq!(drawn.dimensions(), (160, 120));
        let (w, h) = drawn.dimensions();
        let rects: Vec<PixelBox> = boxes
            .iter()
            .map(|(_, [ymin, xmin, ymax, xmax])| {
                (
                    pixel(*xmin, w),
                    pixel(*ymin, h),
                    pixel(*xmax, w),
                    pixel(*ymax, h),
                )
            })
            .collect();
        for ((class, _), rect) in boxes.iter().zip(&rects) {
            let colour = *colours.entry(class.clone()).or_insert_with(|| {
                let (x, y) = (rect.0 + (rect.2 - rect.0) / 2, rect.1);
                *drawn.get_pixel(x, y)
            });
            assert!(PALETTE.contains(&colour.0), "{class}: {colour:?}");
            // Every pixel of the outline has the class colour, but where another box's
            // outline or name (on a bar above or below that box) crosses it.
            let others: Vec<(usize, &PixelBox)> = boxes
                .iter()
                .zip(&rects)
                .filter(|(_, r)| *r != rect)
                .map(|((c, _), r)| (c.len(), r))
                .collect();
            let crossed = |x: u32, y: u32| {
                others.iter().any(|(letters, r)| {
                    let on_outline = ((x == r.0 || x == r.2) && (r.1..=r.3).contains(&y))
                        || ((y == r.1 || y == r.3) && (r.0..=r.2).contains(&x));
                    let bar_x = (r.0..=r.0 + *letters as u32 * 4 + 1).contains(&x);
                    let bar_y = (r.1.saturating_sub(8)..=r.1 + 8).contains(&y)
                        || (r.3..=r.3 + 8).contains(&y);
                    on_outline || (bar_x && bar_y)
                })
            };
            let edge: Vec<(u32, u32)> = edge_pixels(*rect)
                .into_iter()
                .filter(|(x, y)| !crossed(*x, *y))
                .collect();
            assert!(
                edge.len() > 40,
                "record {record} {class}: {} edge pixels",
                edge.len()
            );
            for (x, y) in &edge {
                assert_eq!(
                    drawn.get_pixel(*x, *y),
                    &colour,
                    "record {record} {class} at {x},{y}"
                );
            }
            assert!(
                edge.iter()
                    .any(|(x, y)| original.get_pixel(*x, *y) != &colour),
                "the outline is not the image's own"
            );
            // Well inside, away from every outline and name bar, the image is untouched.
            let near_other = |x: u32, y: u32| {
                rects.iter().any(|r| {
                    let near = |v: u32, a: u32| v.abs_diff(a) <= 9;
                    (x + 9 >= r.0 && x <= r.2 + 9 && (near(y, r.1) || near(y, r.3)))
                        || (y + 9 >= r.1 && y <= r.3 + 9 && (near(x, r.0) || near(x, r.2)))
                })
            };
            for y in rect.1 + 3..rect.3.saturating_sub(2) {
                for x in rect.0 + 3..rect.2.saturating_sub(2) {
                    if !near_other(x, y) {
                        insides += 1;
                        assert_eq!(drawn.get_pixel(x, y), original.get_pixel(x, y), "{x},{y}");
                    }
                }
            }
        }
    }
    assert!(insides > 500, "only {insides} inside pixels checked");
    // One colour per class, different classes told apart.
    let mut distinct: Vec<_> = colours.values().map(|c| c.0).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), colours.len(), "{colours:?}");
}

#[test]
fn nothing_is_overwritten_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let file = testdata(DETECTION);
    let args = |extra: &[&str]| {
        let mut a = vec![
            "images".to_string(),
            file.display().to_string(),
            "-o".into(),
            dir.path().display().to_string(),
            "-n".into(),
            "1".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    assert_eq!(run(args(&[])).status.code(), Some(0));
    let target = dir
        .path()
        .join("detection_train.record-00000-of-00001.r1.image-encoded.jpg");
    std::fs::write(&target, b"mine").unwrap();
    let again = run(args(&["--sheet"]));
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"mine");
    assert!(!dir.path().join("sheet.png").exists(), "nothing is written");
    let forced = run(args(&["--force", "--sheet"]));
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_eq!(&std::fs::read(&target).unwrap()[..2], &[0xff, 0xd8]);
    let sheet = decode(&dir.path().join("sheet.png"));
    assert!(sheet.width() >= 96 && sheet.height() > 96);
}

#[test]
fn raw_pixels_are_written_as_png() {
    let dir = tempfile::tempdir().unwrap();
    let output = run([
        "images".as_ref(),
        testdata("cifar_like.tfrecord").as_os_str(),
        "-o".as_ref(),
        dir.path().as_os_str(),
        "--range".as_ref(),
        "0..2".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let pngs = files_with(dir.path(), "png");
    assert_eq!(pngs.len(), 2, "{pngs:?}");
    let image = decode(&pngs[0]);
    assert_eq!(image.dimensions(), (32, 32));
    // CIFAR stores planes: the PNG holds them interleaved, as the metadata's HWC digest says.
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(testdata("cifar_like.meta.json")).unwrap()).unwrap();
    use sha2::Digest;
    for (record, png) in pngs.iter().enumerate() {
        let digest = sha2::Sha256::digest(decode(png).as_raw());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            meta[record]["hwc_sha256"].as_str(),
            Some(hex.as_str()),
            "{png:?}"
        );
    }
}

/// A 40x30 JPEG.
fn jpeg() -> Vec<u8> {
    use image::ImageEncoder;
    let image = RgbImage::from_fn(40, 30, |x, y| Rgb([(x * 6) as u8, (y * 8) as u8, 99]));
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new(&mut out)
        .write_image(image.as_raw(), 40, 30, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

fn detection_example(encoded: Vec<u8>, height: i64) -> Vec<u8> {
    use tfr_core::crafted::FeatureValue::{Bytes, Ints};
    tfr_core::crafted::example(&[
        ("image/encoded", Bytes(vec![encoded])),
        ("image/format", Bytes(vec![b"jpeg".to_vec()])),
        ("image/height", Ints(vec![height])),
        ("image/width", Ints(vec![40])),
    ])
}

#[test]
fn verify_images_names_the_record_and_feature_of_an_undecodable_image() {
    let whole = jpeg();
    let cut = whole[..whole.len() * 2 / 3].to_vec();
    let records = [
        detection_example(whole.clone(), 30),
        detection_example(cut, 30),
        detection_example(whole, 31),
    ];
    let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let (_dir, path) = super::temp_file("cut.tfrecord", &super::tfrecord(&refs));

    // The CRCs are right: plain verify passes.
    let plain = run(["verify".as_ref(), path.as_os_str()]);
    assert_eq!(plain.status.code(), Some(0), "{}", stdout(&plain));
    assert!(
        !stdout(&plain).contains("undecodable"),
        "{}",
        stdout(&plain)
    );

    let checked = run(["verify".as_ref(), path.as_os_str(), "--images".as_ref()]);
    assert_eq!(checked.status.code(), Some(1), "{}", stdout(&checked));
    let text = stdout(&checked);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].contains("record 1, feature image/encoded")
            && lines[0].contains("undecodable image: truncated JPEG"),
        "{text}"
    );
    assert!(
        lines[1].contains("record 2, feature image/encoded")
            && lines[1].contains("JPEG is 40x30 but the features declare 40x31"),
        "{text}"
    );
    assert!(
        lines[2].contains("DAMAGED: 3 frames, 3 intact, 0 damaged, 2 images undecodable"),
        "{text}"
    );

    let json = run([
        "verify".as_ref(),
        path.as_os_str(),
        "--images".as_ref(),
        "--json".as_ref(),
    ]);
    let value: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(value["images_undecodable"], 2);
    assert_eq!(value["problems"][0]["status"], "image_undecodable");
    assert_eq!(value["problems"][0]["index"], 1);
}

#[test]
fn images_writes_a_broken_image_as_stored_and_says_so() {
    let whole = jpeg();
    let cut = whole[..whole.len() * 2 / 3].to_vec();
    let records = [
        detection_example(whole, 30),
        detection_example(cut.clone(), 30),
    ];
    let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let (dir, path) = super::temp_file("cut.tfrecord", &super::tfrecord(&refs));
    let out = dir.path().join("out");
    let written = run([
        "images".as_ref(),
        path.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(written.status.code(), Some(0), "{}", stdout(&written));
    let warning = stderr(&written);
    assert!(
        warning.contains("record 1 image/encoded: written as stored, but truncated JPEG"),
        "{warning}"
    );
    assert!(!warning.contains("record 0"), "{warning}");
    // The bytes are still what the record holds.
    let stored = std::fs::read(out.join("cut.r1.image-encoded.jpg")).unwrap();
    assert_eq!(stored, cut);
}

#[test]
fn verify_images_passes_the_fixtures_whose_images_are_whole() {
    for name in [
        DETECTION,
        "images.tfrecord",
        "mnist_like.tfrecord",
        "cifar_like.tfrecord",
        "sequence.tfrecord",
    ] {
        let output = run([
            "verify".as_ref(),
            testdata(name).as_os_str(),
            "--images".as_ref(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stdout(&output));
        assert!(
            stdout(&output).contains("0 images undecodable"),
            "{}",
            stdout(&output)
        );
    }
}

#[test]
fn short_text_beside_a_tiny_declared_shape_is_shown_as_text() {
    use tfr_core::crafted::FeatureValue::{Bytes, Ints};
    let record = tfr_core::crafted::example(&[
        ("image/encoded", Bytes(vec![vec![1, 2, 3]])),
        ("image/format", Bytes(vec![b"png".to_vec()])),
        ("image/height", Ints(vec![1])),
        ("image/width", Ints(vec![1])),
        ("image/depth", Ints(vec![3])),
    ]);
    let (_dir, path) = super::temp_file("tiny.tfrecord", &super::tfrecord(&[&record]));
    let output = run([
        "show".as_ref(),
        path.as_os_str(),
        "-n".as_ref(),
        "0".as_ref(),
    ]);
    let text = stdout(&output);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("image/format").ends_with("[\"png\"]"), "{text}");
    assert!(
        !text.contains("raw"),
        "one pixel is no plausible raw image: {text}"
    );

    // The bundled images: each record's format is its text.
    for (n, format) in [("0", "jpeg"), ("1", "png")] {
        let output = run([
            "show".as_ref(),
            testdata("images.tfrecord").as_os_str(),
            "-n".as_ref(),
            n.as_ref(),
        ]);
        let text = stdout(&output);
        let want = format!("[\"{format}\"]");
        assert!(
            text.lines()
                .any(|l| l.contains("image/format") && l.ends_with(&want)),
            "{text}"
        );
    }
}

#[test]
fn tensorflow_datasets_boxes_come_from_features_json() {
    let dir = tempfile::tempdir().unwrap();
    let shard =
        testdata("realworld/tfds/toy_parcels/2.0.0/toy_parcels-train.tfrecord-00000-of-00002");
    let output = run([
        "images".as_ref(),
        shard.as_os_str(),
        "-o".as_ref(),
        dir.path().as_os_str(),
        "-n".as_ref(),
        "3".as_ref(),
        "--boxes".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Two boxes [ymin, xmin, ymax, xmax] = [0.25, 0.166, 0.75, 0.833], classed by
    // `objects/fragile` with its names from objects-fragile.labels.txt.
    assert!(
        stdout(&output).contains("PNG 48x32 RGB with 2 boxes (fragile: no)"),
        "{}",
        stdout(&output)
    );
    let png = decode(&files_with(dir.path(), "png")[0]);
    let (top, left, bottom, right) = (8, 7, 24, 39);
    let colour = png.get_pixel(20, top).0;
    assert!(PALETTE.contains(&colour), "{colour:?}");
    for (x, y) in [(left, 16), (right, 16), (30, bottom), (left, top)] {
        assert_eq!(png.get_pixel(x, y).0, colour, "{x},{y}");
    }
    assert_ne!(png.get_pixel(20, 16).0, colour);
}

/// `testdata/video_frames.tfrecord` is what [`tfr_core::crafted::video_sequence`] writes;
/// `TFR_REGENERATE_FIXTURES=1` writes it anew.
#[test]
fn the_video_fixture_is_what_its_helper_writes() {
    let record = tfr_core::crafted::video_sequence(12);
    let want = tfr_core::crafted::encode_records(&[&record]);
    let path = testdata("video_frames.tfrecord");
    if std::env::var_os("TFR_REGENERATE_FIXTURES").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), want, "{path:?}");
    // Its 12 frames come out as 12 PNGs named by step, each with its box with --boxes.
    let dir = tempfile::tempdir().unwrap();
    let output = run([
        "images".as_ref(),
        path.as_os_str(),
        "-o".as_ref(),
        dir.path().as_os_str(),
        "--boxes".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let pngs = files_with(dir.path(), "png");
    assert_eq!(pngs.len(), 12);
    let text = stdout(&output);
    assert!(
        text.contains("video_frames.r0.image-encoded.s11.png  record 0 image/encoded: PNG 32x24 RGB with 1 box (ball)"),
        "{text}"
    );
}

#[test]
fn damaged_records_are_skipped_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let output = run([
        "images".as_ref(),
        testdata("corrupt/images_payload_bitflip.tfrecord").as_os_str(),
        "-o".as_ref(),
        dir.path().as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("record 2: skipped"),
        "{}",
        stderr(&output)
    );
    assert!(
        stdout(&output).contains("5 images written"),
        "{}",
        stdout(&output)
    );
    let written = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(written, 5);

    // An output "directory" that is a file is refused before anything is read.
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let output = run([
        "images".as_ref(),
        testdata(DETECTION).as_os_str(),
        "-o".as_ref(),
        file.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not a directory"),
        "{}",
        stderr(&output)
    );
}

/// An Example whose `image/encoded` holds `images`, with one box (`thing`) over them.
fn boxed(images: Vec<Vec<u8>>) -> Vec<u8> {
    use tfr_core::crafted::FeatureValue::{Bytes, Floats};
    tfr_core::crafted::example(&[
        ("image/encoded", Bytes(images)),
        ("image/object/bbox/xmin", Floats(vec![0.25])),
        ("image/object/bbox/xmax", Floats(vec![0.75])),
        ("image/object/bbox/ymin", Floats(vec![0.25])),
        ("image/object/bbox/ymax", Floats(vec![0.75])),
        ("image/object/class/text", Bytes(vec![b"thing".to_vec()])),
    ])
}

#[test]
fn images_too_large_to_show_are_written_as_stored_and_never_decoded() {
    use tfr_core::crafted::zero_png;
    // 24 all-zero PNGs of 16384x16383 (268 MB each decoded, 1.7 MB each here), then a small
    // one. Decoded for the sheet and the boxes, one of them took 1 GB and the record minutes.
    let huge = zero_png(16384, 16383);
    let mut images = vec![huge.clone(); 24];
    images.push(zero_png(40, 30));
    let (dir, path) = super::temp_file("huge.tfrecord", &super::tfrecord(&[&boxed(images)]));
    let out = dir.path().join("out");
    let output = super::run_limited(
        super::GIB,
        [
            "images".as_ref(),
            path.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "--boxes".as_ref(),
            "--sheet".as_ref(),
        ],
    );
    // Too large to show is no damage.
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let notes = stderr(&output);
    let note =
        "not decoded: 16384x16383 is 268.4 megapixels, over the 50 an image is decoded to be shown";
    assert!(
        notes.contains(&format!("record 0 image/encoded: boxes not drawn: {note}")),
        "{notes}"
    );
    assert!(
        notes.contains(&format!("record 0 image/encoded: not on the sheet: {note}")),
        "{notes}"
    );
    assert_eq!(
        std::fs::read(out.join("huge.r0.image-encoded.png")).unwrap(),
        huge
    );
    assert_eq!(
        std::fs::read(out.join("huge.r0.image-encoded.v23.png")).unwrap(),
        huge
    );
    // The small one has its box drawn, and is the sheet's one thumbnail.
    let small = decode(&out.join("huge.r0.image-encoded.v24.png"));
    assert_eq!(small.dimensions(), (40, 30));
    assert_ne!(small.get_pixel(10, 15).0, [0, 0, 0]);
    assert_eq!(small.get_pixel(20, 15).0, [0, 0, 0]);
    let text = stdout(&output);
    assert!(
        text.contains("sheet.png  contact sheet of 1 image (24 not shown)"),
        "{text}"
    );
    assert!(text.contains("PNG 16384x16383 gray, as stored"), "{text}");
}

#[test]
fn raw_pixels_are_written_from_where_they_lie() {
    use tfr_core::crafted::FeatureValue::{Bytes, Ints};
    // A declared 3000x2000x1 uint8 array: written as a grey PNG of its own bytes, no RGB copy.
    let (w, h) = (3000u32, 2000u32);
    let pixels: Vec<u8> = (0..w * h).map(|i| (i % 251) as u8).collect();
    let record = tfr_core::crafted::example(&[
        ("image/raw", Bytes(vec![pixels.clone()])),
        ("image/height", Ints(vec![i64::from(h)])),
        ("image/width", Ints(vec![i64::from(w)])),
        ("image/channels", Ints(vec![1])),
    ]);
    let (dir, path) = super::temp_file("raw.tfrecord", &super::tfrecord(&[&record]));
    let out = dir.path().join("out");
    let output = run([
        "images".as_ref(),
        path.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--sheet".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = image::open(out.join("raw.r0.image-raw.png")).unwrap();
    assert_eq!(written.color(), image::ColorType::L8);
    assert_eq!(written.into_luma8().into_raw(), pixels);
    assert!(stdout(&output).contains("contact sheet of 1 image"));
}

#[test]
fn verify_images_decodes_within_its_budget_and_notes_what_it_leaves() {
    use tfr_core::crafted::{FeatureValue::Bytes, example, zero_png};
    let record = |png: Vec<u8>| example(&[("image/encoded", Bytes(vec![png]))]);
    let records = [
        // Wider than any side a decoder's limit allows, and only 40000 pixels: whole.
        record(zero_png(20000, 2)),
        // 268 MB decoded: within the 256 MiB a check may take, and checked.
        record(zero_png(16384, 16383)),
        // 400 MB decoded: left undecoded, with a note; no damage.
        record(zero_png(20000, 20000)),
    ];
    let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let file = super::tfrecord(&refs);
    let (_dir, path) = super::temp_file("large.tfrecord", &file);
    // Where the third PNG starts in the file.
    let at = file
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"\x89PNG")
        .nth(2)
        .unwrap()
        .0;
    let args = |json: bool| {
        let mut args = vec![
            "verify".into(),
            path.clone().into_os_string(),
            "--images".into(),
        ];
        if json {
            args.push("--json".into());
        }
        args
    };
    let output = super::run_limited(super::GIB, args(false));
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].ends_with(&format!(
            ": note: record 2, feature image/encoded (image at byte {at}): PNG not decoded: \
             20000x20000 needs 381.5 MiB to decode, over the 256 MiB an image may take"
        )),
        "{text}"
    );
    assert!(
        lines[1].contains(
            "OK: 3 frames, 3 intact, 0 damaged, 0 images undecodable, 1 image too large to decode"
        ),
        "{text}"
    );
    let json = super::run_limited(super::GIB, args(true));
    let value: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(value["ok"], true);
    assert_eq!(value["images_undecodable"], 0);
    let notes = value["images_not_decoded"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["index"], 2);
    assert_eq!(notes[0]["offset"], at);
    assert_eq!(notes[0]["feature"], "image/encoded");
}
