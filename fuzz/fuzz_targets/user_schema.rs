//! User schemas through the in-process compiler: the first byte says whether the rest is the text
//! of a `.proto` file (even) or a binary `FileDescriptorSet` (odd). Either is written to a file
//! and given as `--proto` or `--descriptor-set` would give it, so it is read within the schema's
//! limits, checked, compiled and numbered into a table; a schema that compiles then decodes the
//! same bytes as a payload, through every view. Beyond "does not panic": a schema that compiles
//! stays within the limits it was read under.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfr_core::payload::{Decoder, Reading};
use tfr_core::schema::limits::{MAX_MEMBERS, MAX_TYPES};
use tfr_core::schema::{Schema, Sources};
use tfr_core::{jsonformat, textformat};

/// A directory of this process's own for the file the input is written to.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tfr-fuzz-schema-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        dir
    })
}

/// The messages and enums, and the fields, of a schema's compiled pool.
fn counts(schema: &Schema) -> (usize, usize) {
    let pool = schema.pool();
    let fields = pool.all_messages().map(|m| m.fields().count()).sum();
    (pool.all_messages().count() + pool.all_enums().count(), fields)
}

fn builtin() -> &'static (usize, usize) {
    static COUNTS: OnceLock<(usize, usize)> = OnceLock::new();
    COUNTS.get_or_init(|| counts(&Schema::builtin()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let mut sources = Sources::default();
    if mode % 2 == 0 {
        let path = dir().join("fuzz.proto");
        std::fs::write(&path, bytes).expect("writing the input");
        sources.protos.push(path);
    } else {
        let path = dir().join("fuzz.pb");
        std::fs::write(&path, bytes).expect("writing the input");
        sources.descriptor_sets.push(path);
    }
    let Ok(schema) = Schema::from_sources(&sources) else {
        return;
    };
    // The built-in protos come on top of the user's.
    let (types, fields) = counts(&schema);
    let (builtin_types, builtin_fields) = *builtin();
    assert!(types <= builtin_types + MAX_TYPES, "{types} messages and enums");
    assert!(fields <= builtin_fields + MAX_MEMBERS, "{fields} fields");

    let decoder = Decoder::new(schema, Reading::Auto);
    let table = decoder.table();
    let decoded = decoder.decode(bytes);
    let view = decoded.view(bytes, table);
    let _ = view.summary();
    let _ = view.text();
    let _ = view.write_tree("record 0", &mut std::io::sink());
    if let Some(message) = decoded.typed(bytes, table) {
        let _ = textformat::message_to_text(&message);
        let _ = jsonformat::message_to_json(&message);
    }
});
