//! `hex --explain`, `--notes`, `--radix hex`, `--offsets payload` and `--dump`: the wire format
//! taught on the MNIST shard, numbered as the MNIST walkthrough numbers it.

use super::hex::mnist_example;
use super::{run_in_process_as_binary as run, stdout, temp_file, testdata, tfrecord};

fn hex(args: &[&str]) -> String {
    let mut all = vec!["hex"];
    all.extend_from_slice(args);
    let output = run(&all);
    assert!(output.status.success(), "{all:?}");
    let text = stdout(&output);
    assert!(!text.contains('\x1b'), "no colour when piped");
    text
}

/// The lines under the first token line that starts with `offset  bytes`.
fn under<'t>(text: &'t str, offset: &str, bytes: &str) -> Vec<&'t str> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.len() > 12 && l[..10].trim() == offset && l[12..].starts_with(bytes))
        .unwrap_or_else(|| panic!("no line {offset} {bytes} in\n{text}"));
    lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("          ") && l.len() > 12 && l[..12].trim().is_empty())
        .copied()
        .collect()
}

#[test]
fn explain_derives_the_mnist_shards_length_and_tags() {
    let mnist = testdata("mnist_like.tfrecord");
    let text = hex(&["--explain", mnist.to_str().unwrap(), "-n", "0"]);
    let length = under(&text, "13", "e8 06");
    assert!(
        length[0].ends_with(
            "| e8 06 -> 1110 1000 0000 0110 -> groups 1101000, 0000110 -> 0000110 1101000 = 872 = 0x368"
        ),
        "{length:?}"
    );
    assert!(
        length[1].contains("covers payload 3..875 (file 15..887), 872 bytes"),
        "{length:?}"
    );
    let tag = under(&text, "24", "12");
    assert!(
        tag[0].ends_with(
            "| 12 -> 0001 0010 -> continuation 0, group 0010010 -> field 0010 = 2, wire type 010 = 2 (LEN): 2 << 3 | 2 = 18 = 0x12"
        ),
        "{tag:?}"
    );
    // Every `12` tag of the record gets the same derivation, and the shard breaks no rule.
    let tags = text.matches("2 << 3 | 2 = 18 = 0x12").count();
    assert_eq!(
        tags,
        text.lines()
            .filter(|l| l.get(12..15) == Some("12 "))
            .count()
    );
    assert!(tags >= 4);
    assert!(
        !text.contains("\n! ") && !text.contains(" ! "),
        "no rule notes"
    );
    // The plain walkthrough is the same with the derivations taken out.
    let plain = hex(&[mnist.to_str().unwrap(), "-n", "0"]);
    let stripped: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("| "))
        .collect();
    assert_eq!(stripped.join("\n") + "\n", plain);
}

#[test]
fn radix_hex_and_payload_offsets_count_like_the_document() {
    let (_dir, path) = temp_file("mnist.tfrecord", &tfrecord(&[&mnist_example()]));
    let text = hex(&[
        "--radix",
        "hex",
        "--offsets",
        "payload",
        path.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].starts_with("      -0xc  5b 03 00 00"), "{text}");
    assert!(lines[4].starts_with("       0x0  0a  "), "{text}");
    assert!(lines[5].starts_with("       0x1  d8 06  "), "{text}");
    assert!(
        lines[5].contains("varint 0x358: length of `features`, message Features of 0x358 bytes")
    );
    assert!(lines[6].starts_with("       0x3  0a  "), "{text}");
    assert!(lines[7].starts_with("       0x4  a4 06  "), "{text}");
    assert!(lines[7].contains("varint 0x324"), "{text}");
}

#[test]
fn dump_lays_the_frame_out_as_the_document_does() {
    let (_dir, path) = temp_file("mnist.tfrecord", &tfrecord(&[&mnist_example()]));
    let text = hex(&["--dump", "--offsets", "payload", path.to_str().unwrap()]);
    let lines: Vec<&str> = text.lines().collect();
    // The header before the payload, on a line of its own (its CRC differs by file).
    assert!(
        lines[1].starts_with("  header  5b 03 00 00 00 00 00 00  "),
        "{text}"
    );
    assert!(lines[1].contains("              |[......."), "{text}");
    let first = lines
        .iter()
        .position(|l| l.starts_with("00000000"))
        .unwrap();
    assert_eq!(
        lines[first],
        "00000000  0a d8 06 0a a4 06 0a 09  69 6d 61 67 65 5f 72 61  |........image_ra|"
    );
    // The tokens starting on the line are listed below it, with their meanings.
    assert!(lines[first + 1].starts_with("          0a   "), "{text}");
    assert!(lines[first + 2].starts_with("          d8 06   "));
    assert!(
        lines[first + 2]
            .ends_with("varint 856: length of `features`, message Features of 856 bytes")
    );
    assert!(text.contains("\n00000010  "), "lines of 16 bytes");
    // With --explain the derivations follow each listed token.
    let text = hex(&["--dump", "--explain", path.to_str().unwrap()]);
    assert!(text.contains(
        "| d8 06 -> 1101 1000 0000 0110 -> groups 1011000, 0000110 -> 0000110 1011000 = 856 = 0x358"
    ));
    // File offsets: lines count from the frame's first byte.
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("00000000  5b 03 00 00")
    );
}

#[test]
fn dump_ends_the_payload_at_its_last_byte_and_gives_the_crc_a_row() {
    // A 17-byte payload: one full row, then a row of one byte, then the CRC's own row.
    let payload = [
        0x0a, 0x0f, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', b'i', b'j', b'k', b'l', b'm',
        b'n', 0x1c,
    ];
    let (_dir, path) = temp_file("crc.tfrecord", &tfrecord(&[&payload]));
    let text = hex(&["--dump", "--offsets", "payload", path.to_str().unwrap()]);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("          "))
        .collect();
    assert!(rows[2].starts_with("00000000  0a 0f 61 62"), "{text}");
    assert_eq!(
        rows[3],
        format!("00000010  1c{}|.|", " ".repeat(48)),
        "{text}"
    );
    assert!(rows[4].starts_with(" trailer  "), "{text}");
    assert_eq!(rows.len(), 5, "{text}");
    let crc = text.lines().last().unwrap();
    assert!(crc.contains("masked crc32c of the payload"), "{text}");
}

#[test]
fn radix_hex_writes_every_count_of_a_token_and_its_notes_in_hex() {
    // proto2: c = 99 (not a value of the closed enum), b = 01 02, c = 1 in four bytes.
    let dir = tempfile::tempdir().unwrap();
    let proto = dir.path().join("p.proto");
    std::fs::write(
        &proto,
        "syntax = \"proto2\"; package p; enum Color { ZERO = 0; RED = 1; }\n\
         message P { optional Color c = 1; optional bytes b = 3; }\n",
    )
    .unwrap();
    let payload = [
        0x08, 0x63, 0x1a, 0x02, 0x01, 0x02, 0x08, 0x81, 0x80, 0x80, 0x00,
    ];
    let (_file_dir, path) = temp_file("p.tfrecord", &tfrecord(&[&payload]));
    let text = hex(&[
        "--notes",
        "--radix",
        "hex",
        "--proto",
        proto.to_str().unwrap(),
        "--message",
        "p.P",
        path.to_str().unwrap(),
    ]);
    assert!(text.contains("length 0xb (u64 little-endian)"), "{text}");
    assert!(
        text.contains("! closed enum value unknown: 0x63 is not a value of Color"),
        "{text}"
    );
    assert!(
        text.contains("varint 0x2: length of `b`, 0x2 bytes"),
        "{text}"
    );
    assert!(text.contains("bytes, 0x2 bytes"), "{text}");
    assert!(
        text.contains("0x4 bytes where 0x1 suffice: the minimal form of 0x1 is 01"),
        "{text}"
    );
    for decimal in [" 99 ", " 2 bytes", "length 11"] {
        assert!(!text.contains(decimal), "{decimal:?} in {text}");
    }
}

#[test]
fn notes_name_the_rules_a_record_stretches() {
    // An Example whose features length is over-long (3 bytes for 0), then an unknown field 5.
    let payload = [0x0a, 0x80, 0x80, 0x00, 0x28, 0x01];
    let (_dir, path) = temp_file("notes.tfrecord", &tfrecord(&[&payload]));
    let text = hex(&["--notes", path.to_str().unwrap()]);
    assert!(
        text.contains("! over-long varint: 3 bytes where 1 suffice: the minimal form of 0 is 00"),
        "{text}"
    );
    assert!(
        text.contains("! unknown field: Example declares no field 5: parsers keep it as an unknown field (wire type 0 (VARINT))"),
        "{text}"
    );
    assert!(!text.contains("| "), "no derivations without --explain");
}

#[test]
fn show_notes_lists_the_rules_under_the_tree() {
    let payload = [0x0a, 0x80, 0x80, 0x00, 0x28, 0x01];
    let (_dir, path) = temp_file("notes.tfrecord", &tfrecord(&[&payload]));
    let output = run(["show", "--notes", path.to_str().unwrap()]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(
        text.contains(
            "\n  ! payload byte 1 (file 13) 80 80 00: over-long varint: 3 bytes where 1 suffice"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "\n  ! payload byte 4 (file 16) 28: unknown field: Example declares no field 5"
        ),
        "{text}"
    );
    // Without --notes the tree is as before.
    let plain = stdout(&run(["show", path.to_str().unwrap()]));
    assert!(text.starts_with(&plain), "{text}\n---\n{plain}");
    assert!(!plain.contains(" ! "));
}

#[test]
fn show_notes_names_a_malformed_records_fault_in_its_output() {
    // A length of 5 where 1 byte remains: Python protobuf rejects the Example.
    let (_dir, path) = temp_file("bad.tfrecord", &tfrecord(&[&[0x0a, 0x05, 0x01]]));
    let output = run([
        "show",
        "--notes",
        "--message",
        "tensorflow.Example",
        path.to_str().unwrap(),
    ]);
    let text = stdout(&output);
    assert!(
        text.contains(
            "! payload byte 0 (file 12) 0a 05 01: malformed: a length of 5 runs past the end of its message \
             (1 remain) at payload 1: parsers reject the whole message"
        ),
        "{text}"
    );
    let text = hex(&[
        "--explain",
        "--message",
        "tensorflow.Example",
        path.to_str().unwrap(),
    ]);
    assert!(
        text.contains("| payload byte 1: the length 05 -> 0000 0101"),
        "{text}"
    );
}
