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

/// TensorBoard's plugin protos: what `SummaryMetadata.plugin_data.content` holds per plugin
/// (hparams' `HParamsPluginData` with the `api.proto` it imports, PR curves', audio's, text's,
/// mesh's, histograms', images' and scalars' plugin data) and the custom-scalar `Layout`.
pub static TENSORBOARD_PLUGINS: &[ProtoFile] = &[
    proto!("tensorboard/plugins/hparams/plugin_data.proto"),
    proto!("tensorboard/plugins/hparams/api.proto"),
    proto!("tensorboard/plugins/custom_scalar/layout.proto"),
    proto!("tensorboard/plugins/pr_curve/plugin_data.proto"),
    proto!("tensorboard/plugins/audio/plugin_data.proto"),
    proto!("tensorboard/plugins/text/plugin_data.proto"),
    proto!("tensorboard/plugins/mesh/plugin_data.proto"),
    proto!("tensorboard/plugins/histogram/plugin_data.proto"),
    proto!("tensorboard/plugins/image/plugin_data.proto"),
    proto!("tensorboard/plugins/scalar/plugin_data.proto"),
];

/// `config.proto` (`tensorflow.RunMetadata`, what a TF2 graph trace summary holds) and the files
/// it imports that the groups above do not bring.
pub static RUN_METADATA: &[ProtoFile] = &[
    proto!("tensorflow/core/protobuf/config.proto"),
    proto!("xla/tsl/protobuf/coordination_config.proto"),
    proto!("tensorflow/core/framework/cost_graph.proto"),
    proto!("tensorflow/core/framework/step_stats.proto"),
    proto!("tensorflow/core/framework/allocation_description.proto"),
    proto!("tensorflow/core/framework/tensor_description.proto"),
    proto!("tensorflow/core/protobuf/cluster.proto"),
    proto!("tensorflow/core/protobuf/debug.proto"),
    proto!("tensorflow/core/protobuf/rewriter_config.proto"),
    proto!("tensorflow/core/protobuf/verifier_config.proto"),
    proto!("tensorflow/core/protobuf/rpc_options.proto"),
    proto!("xla/tsl/protobuf/rpc_options.proto"),
];

/// Every group, in the order the files are compiled.
static GROUPS: &[&[ProtoFile]] = &[EXAMPLE, TENSOR, EVENT, TENSORBOARD_PLUGINS, RUN_METADATA];

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
