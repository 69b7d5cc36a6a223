//! A labels file (`NAME.labels.txt`) as whatever bytes: every line is a class, in order, whether
//! or not it is UTF-8, and the lines said not to be are real lines.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfr_core::dataset::features::Labels;

fuzz_target!(|data: &[u8]| {
    let (labels, bad) = Labels::parse(data);
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    let lines = if data.is_empty() {
        0
    } else {
        body.split(|b| *b == b'\n').count()
    };
    assert_eq!(labels.len(), lines);
    for i in 0..labels.len() {
        let name = labels.get(i).unwrap_or_else(|| panic!("line {i} missing"));
        assert!(!name.contains('\n'));
    }
    assert!(labels.get(labels.len()).is_none());
    assert!(bad.windows(2).all(|w| w[0] < w[1]));
    assert!(bad.iter().all(|&line| line >= 1 && line <= lines));
});
