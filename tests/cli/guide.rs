//! `guide`: the reference card, whose pointers into the bundled records must say what is there.

use super::{run_in_process, stdout, testdata};

fn meaning_at(file: &str, offset: u64) -> String {
    let path = testdata(file);
    let output = run_in_process(["hex".as_ref(), path.as_os_str()]);
    let text = stdout(&output);
    text.lines()
        .find(|l| l.len() > 10 && l[..10].trim() == offset.to_string())
        .unwrap_or_else(|| panic!("no token at {offset} of {file}"))
        .to_string()
}

#[test]
fn the_card_fits_a_screen_and_its_pointers_show_what_it_says() {
    let output = run_in_process(["guide"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.lines().count() <= 40, "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    for needed in [
        "0 VARINT",
        "1 I64",
        "2 LEN",
        "3 SGROUP",
        "4 EGROUP",
        "5 I32",
        "536870911",
        "19000-19999",
        "zigzag",
        "0xa282ead8",
        "map entries",
        "Go's protowire",
    ] {
        assert!(text.contains(needed), "{needed}");
    }
    let m = "mnist_like.tfrecord";
    assert!(meaning_at(m, 0).contains("length 875 (u64 little-endian)"));
    assert!(meaning_at(m, 8).contains("masked crc32c of the length"));
    assert!(meaning_at(m, 887).contains("masked crc32c of the payload"));
    assert!(meaning_at(m, 12).contains("field 1 `features`, wire type 2"));
    assert!(meaning_at(m, 13).contains("varint 872"));
    assert!(meaning_at(m, 29).contains("packed, 1 element"));
    assert!(meaning_at(m, 30).contains("varint 1: int64 1"));
    assert!(meaning_at(m, 15).contains("map entry"));
    assert!(meaning_at("examples.tfrecord", 91).contains("float -0.35578233"));
}
