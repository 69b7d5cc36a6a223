//! Inputs that change while they are read: a shard truncated by a writer mid-run. The binary must
//! never die by a signal (SIGBUS from the memory map), must never print rows computed from the
//! zeros that stand for the lost bytes, and must say what happened: exit 2 with "FILE shrank from
//! A to B bytes while being read".

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use super::{temp_file, tfrecord};

/// An Example with one bytes feature `blob` of 100 bytes: `show --format json` prints each one as
/// the same line.
fn example() -> Vec<u8> {
    let value = vec![b'v'; 100];
    let mut bytes_list = vec![0x0a];
    push_len(&mut bytes_list, value.len());
    bytes_list.extend_from_slice(&value);
    let mut feature = vec![0x0a];
    push_len(&mut feature, bytes_list.len());
    feature.extend_from_slice(&bytes_list);
    let mut entry = vec![0x0a, 4];
    entry.extend_from_slice(b"blob");
    entry.push(0x12);
    push_len(&mut entry, feature.len());
    entry.extend_from_slice(&feature);
    let mut features = vec![0x0a];
    push_len(&mut features, entry.len());
    features.extend_from_slice(&entry);
    let mut example = vec![0x0a];
    push_len(&mut example, features.len());
    example.extend_from_slice(&features);
    example
}

fn push_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Runs the binary with `args` on a shard of `records` copies of [`example`], reads the first
/// line of its output, truncates the shard to 1000 bytes, then reads the rest.
///
/// The binary prints a first batch of 64 records, then batches of 4096, and holds at most the one
/// being written and the one being rendered: blocked on the pipe with the first line read, it
/// has rendered at most 64 + 2 x 4096 records from the bytes before the cut, so [`RECORDS`]
/// more than that shows it stopped. (After the cut it scans the zeros that stand for the lost
/// bytes up to the next check, which takes time in the shard's length: the shard is no larger
/// than that needs.)
/// Returns (the lines read, stderr, the exit code, the shard's length before).
const RECORDS: usize = 12_000;

fn truncate_while_printing(args: &[&str], records: usize) -> (Vec<String>, String, i32, usize) {
    let payload = example();
    let shard = tfrecord(&vec![payload.as_slice(); records]);
    let (_dir, path) = temp_file("shard.tfrecord", &shard);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(args)
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    // The binary is now blocked on a full pipe, with most of the shard still to print.
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(1000).unwrap();
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), None, "killed by a signal; stderr: {err}");
    }
    let lines = std::iter::once(first.trim_end().to_string())
        .chain(rest.lines().map(str::to_string))
        .collect();
    (lines, err, status.code().unwrap_or(-1), shard.len())
}

#[test]
fn show_stops_with_exit_2_when_the_file_shrinks_while_printing() {
    let records = RECORDS;
    let (lines, err, code, len) = truncate_while_printing(&["show", "--format", "json"], records);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("shrank from {len} to 1000 bytes while being read")),
        "{err}"
    );
    assert!(lines.len() < records, "printed all {} records", lines.len());
    // Every line printed came from the real bytes: all records are the same Example.
    let first = &lines[0];
    assert!(first.contains("\"blob\""), "{first}");
    assert!(lines.iter().all(|l| l == first), "a line differs");
}

#[test]
fn list_stops_with_exit_2_when_the_file_shrinks_while_printing() {
    let records = RECORDS;
    let (lines, err, code, len) = truncate_while_printing(&["list", "--json"], records);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("shrank from {len} to 1000 bytes while being read")),
        "{err}"
    );
    assert!(lines.len() < records, "printed all {} rows", lines.len());
    for line in &lines {
        assert!(line.contains("\"status\": \"intact\""), "{line}");
        assert!(line.contains("\"kind\": \"Example\""), "{line}");
    }
}

/// An Example whose `image/encoded` is a 2x2 PNG.
fn image_example() -> Vec<u8> {
    use image::ImageEncoder;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&[200; 12], 2, 2, image::ExtendedColorType::Rgb8)
        .unwrap();
    let field = |number: u8, body: &[u8]| {
        let mut out = vec![(number << 3) | 2];
        push_len(&mut out, body.len());
        out.extend_from_slice(body);
        out
    };
    let feature = field(1, &field(1, &png));
    let entry = [field(1, b"image/encoded"), field(2, &feature)].concat();
    field(1, &field(1, &entry))
}

#[test]
fn images_stops_with_exit_2_when_the_file_shrinks_while_writing() {
    let records = 3000;
    let payload = image_example();
    let shard = tfrecord(&vec![payload.as_slice(); records]);
    let (dir, path) = temp_file("shard.tfrecord", &shard);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .arg("images")
        .arg(&path)
        .arg("-o")
        .arg(dir.path().join("out"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    // The binary is now blocked on a full pipe, with most of the images still to write.
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(1000).unwrap();
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), None, "killed by a signal; stderr: {err}");
    }
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "shrank from {} to 1000 bytes while being read",
            shard.len()
        )),
        "{err}"
    );
    assert!(!err.contains("Bad address"), "{err}");
    let written = rest.lines().count() + 1;
    assert!(written < records, "wrote all {written} images");
    // Every image written holds the real bytes.
    for entry in std::fs::read_dir(dir.path().join("out")).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            image::load_from_memory(&bytes).is_ok(),
            "an image holds zeros"
        );
    }
}
