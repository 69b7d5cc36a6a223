//! The `.proto` files built into the binary, grouped as the payload types bring them: each group
//! lists the file defining the type's message first, then what it imports.
//!
//! They live on the schema side so that compiling the built-in schema needs nothing from the
//! payload layer above it; each [`crate::payload::PayloadType`] names its group.

use super::ProtoFile;

macro_rules! proto {
    ($path:literal) => {
        ProtoFile {
            path: $path,
            source: include_str!(concat!("../../../../proto/", $path)),
        }
    };
}

/// `example.proto` and the `feature.proto` it imports.
pub static EXAMPLE: &[ProtoFile] = &[
    proto!("tensorflow/core/example/example.proto"),
    proto!("tensorflow/core/example/feature.proto"),
];

/// `tensor.proto` and what it imports.
pub static TENSOR: &[ProtoFile] = &[
    proto!("tensorflow/core/framework/tensor.proto"),
    proto!("tensorflow/core/framework/resource_handle.proto"),
    proto!("tensorflow/core/framework/tensor_shape.proto"),
    proto!("tensorflow/core/framework/types.proto"),
];

/// `event.proto` and what it imports, then `graph.proto` (what `Event.graph_def` holds) and its
/// imports.
pub static EVENT: &[ProtoFile] = &[
    proto!("tensorflow/core/util/event.proto"),
    proto!("tensorflow/core/framework/summary.proto"),
    proto!("xla/tsl/protobuf/histogram.proto"),
    proto!("tensorflow/core/framework/tensor.proto"),
    proto!("tensorflow/core/framework/resource_handle.proto"),
    proto!("tensorflow/core/framework/tensor_shape.proto"),
    proto!("tensorflow/core/framework/types.proto"),
    proto!("tensorflow/core/framework/graph.proto"),
    proto!("tensorflow/core/framework/function.proto"),
    proto!("tensorflow/core/framework/attr_value.proto"),
    proto!("tensorflow/core/framework/full_type.proto"),
    proto!("tensorflow/core/framework/node_def.proto"),
    proto!("tensorflow/core/framework/op_def.proto"),
    proto!("tensorflow/core/framework/graph_debug_info.proto"),
    proto!("tensorflow/core/framework/versions.proto"),
];

/// Every group, in the order the files are compiled.
static GROUPS: &[&[ProtoFile]] = &[EXAMPLE, TENSOR, EVENT];

/// Every built-in file, each once.
pub fn files() -> Vec<&'static ProtoFile> {
    let mut files: Vec<&'static ProtoFile> = Vec::new();
    for file in GROUPS.iter().flat_map(|group| group.iter()) {
        if files.iter().all(|known| known.path != file.path) {
            files.push(file);
        }
    }
    files
}
