//! The frame index over arbitrary bytes: build, iterate, describe, locate and salvage.
//!
//! Beyond "does not panic", it checks two properties: a budgeted scan finds the same frames as a
//! full one, and a salvage of any input re-indexes with no damage and the same payloads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfr_core::damage;
use tfr_core::frame::FrameIndex;
use tfr_core::recover::{self, SalvagePlan};

fuzz_target!(|data: &[u8]| {
    let index = FrameIndex::build(data);
    let count = index.len();
    for frame in index.frames(data) {
        let _ = damage::describe(&frame, data, frame.index + 1 == count);
        let _ = frame.payload(data);
        let _ = frame.data_crcs(data);
        let _ = frame.tensorflow_offset();
        if let Some(tf) = frame.tensorflow_offset() {
            let loc = recover::locate(&index, data, tf);
            assert!(loc.matches_tensorflow);
            assert_eq!(loc.frame.map(|f| f.index), Some(frame.index));
        }
    }
    for offset in [0, data.len() as u64 / 2, data.len() as u64] {
        let _ = recover::locate(&index, data, tfr_core::span::FileOffset(offset));
    }

    let budget = u64::from(data.first().copied().unwrap_or(1)) + 1;
    let mut stepwise = FrameIndex::new(data.len() as u64);
    while !stepwise.scan(data, budget) {}
    assert!(stepwise.frames(data).eq(index.frames(data)));

    let plan = SalvagePlan::new(&index, data);
    let mut out = Vec::new();
    plan.write(data, &mut out).expect("writing to a Vec");
    let again = FrameIndex::build(&out);
    assert_eq!(again.damaged_count(), 0);
    assert_eq!(again.len(), plan.kept.len());
    let kept = plan.kept.iter().map(|f| f.payload(data));
    assert!(again.frames(&out).map(|f| f.payload(&out)).eq(kept));
});
