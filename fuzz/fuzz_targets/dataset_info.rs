//! `dataset_info.json` as whatever bytes: parsed, its splits looked up by their shards' prefix,
//! and checked against shard counts taken from the same bytes. Nothing may panic, and every
//! problem's message must hold no character a terminal would act on.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use tfr_core::dataset::{DatasetInfo, ShardCount};
use tfr_core::escape;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("d/dataset_info.json");
    let info = match DatasetInfo::parse(path, data) {
        Ok(info) => info,
        Err(message) => {
            // The message is shown as a problem of the file (escaped there); it must be one line.
            let problem = tfr_core::dataset::Problem::Metadata {
                path: path.to_path_buf(),
                message,
            };
            let text = problem.to_string();
            assert!(!text.chars().any(escape::is_unsafe), "{text:?}");
            return;
        }
    };
    // Shard counts from the input's last bytes: numbers, records and payload bytes.
    let counts: Vec<ShardCount> = data
        .rchunks(3)
        .take(8)
        .enumerate()
        .map(|(i, c)| ShardCount {
            path: PathBuf::from(format!("d/s-{i:05}-of-00008")),
            number: u64::from(*c.first().unwrap_or(&0) % 10),
            records: u64::from(*c.get(1).unwrap_or(&0)),
            payload_bytes: u64::from(*c.get(2).unwrap_or(&0)) << 20,
        })
        .collect();
    for split in &info.splits {
        if let Some(prefix) = &split.file_prefix {
            assert!(info.split_for_prefix(prefix).is_some());
        }
        for unread in [0, 1] {
            for problem in split.check(path, &counts, unread) {
                let text = problem.to_string();
                assert!(!text.chars().any(escape::is_unsafe), "{text:?}");
                let _ = problem.kind();
            }
        }
    }
});
