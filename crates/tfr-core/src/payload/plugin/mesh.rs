//! The `mesh` plugin: a mesh is written as up to three values, its vertices, faces and colors,
//! each a `[batch, n, 3]` tensor whose `MeshPluginData` names the mesh, says which of the three
//! the value is (`content_type`), gives the scene's JSON config and, from TensorBoard's own
//! writer, which components the mesh has (a bit per content type). tensorboardX's copy of the
//! proto has no `components`, and writes every component as float32.

use super::{
    PluginValue, ROWS_SHOWN, Row, SummaryPlugin, TensorValue, cut, enum_field, int_field, more_row,
    quoted, string_field,
};
use crate::decode::{Scalar, Value};
use crate::schema::{ProtoFile, builtin};
use crate::tensor::write_element;
use crate::words::plural;

/// The message the plugin's content is.
pub const CONTENT_MESSAGE: &str = "tensorboard.mesh.MeshPluginData";

/// The content types, by number, and what a mesh's part of that type is called.
const PARTS: [(i32, &str, &str); 3] = [
    (1, "VERTEX", "vertices"),
    (2, "FACE", "faces"),
    (3, "COLOR", "colors"),
];

/// Characters of the JSON config shown.
const CONFIG_CHARS: usize = 200;

pub struct Mesh;

pub static MESH: Mesh = Mesh;

/// What a mesh value's plugin data says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshData {
    pub name: String,
    /// `VERTEX`, `FACE`, `COLOR`, or the number when another.
    pub content_type: Option<String>,
    pub json_config: String,
    pub shape: Vec<i64>,
    /// The bits of the components the mesh has, when the writer says.
    pub components: Option<u32>,
}

impl MeshData {
    pub fn read(value: &PluginValue<'_>) -> Result<MeshData, String> {
        let nested = value.content_as(CONTENT_MESSAGE)?;
        let root = nested.root().ok_or("content unreadable")?;
        let shape = root.field("shape").map_or_else(Vec::new, |f| {
            f.values()
                .filter_map(|(v, _)| match v {
                    Value::Scalar(Scalar::I32(n)) => Some(i64::from(n)),
                    _ => None,
                })
                .collect()
        });
        Ok(MeshData {
            name: String::from_utf8_lossy(string_field(&root, "name")).into_owned(),
            content_type: enum_field(&root, "content_type"),
            json_config: String::from_utf8_lossy(string_field(&root, "json_config")).into_owned(),
            shape,
            components: int_field(&root, "components").and_then(|n| u32::try_from(n).ok()),
        })
    }

    /// `vertices`, `faces`, `colors`: what the value is of its mesh.
    pub fn part(&self) -> String {
        let kind = self.content_type.as_deref().unwrap_or("UNDEFINED");
        PARTS.iter().find(|(_, name, _)| *name == kind).map_or_else(
            || format!("content type {kind}"),
            |(_, _, part)| part.to_string(),
        )
    }

    /// The components the bits name: `vertices, faces, colors`.
    pub fn component_names(&self) -> Option<String> {
        let bits = self.components?;
        let names: Vec<&str> = PARTS
            .iter()
            .filter(|(number, _, _)| bits >> number & 1 == 1)
            .map(|(_, _, part)| *part)
            .collect();
        Some(names.join(", "))
    }
}

impl SummaryPlugin for Mesh {
    fn name(&self) -> &'static str {
        "mesh"
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::TENSORBOARD_PLUGINS
    }

    /// `mesh "tetrahedron" vertices float32[1,4,3]`.
    fn line(&self, value: &PluginValue<'_>) -> String {
        let data = match MeshData::read(value) {
            Ok(data) => data,
            Err(why) => return format!("mesh: {why}"),
        };
        let mut line = format!("mesh {} {}", quoted(data.name.as_bytes()), data.part());
        if let Some(tensor) = value.tensor() {
            line.push(' ');
            line.push_str(&TensorValue::read(tensor).signature());
        }
        line
    }

    /// The plugin data, then a row per point (vertex, face, color) of the tensor.
    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        let Ok(data) = MeshData::read(value) else {
            return Vec::new();
        };
        let mut rows = vec![
            Row::new("name", quoted(data.name.as_bytes())),
            Row::new(
                "content_type",
                data.content_type
                    .clone()
                    .unwrap_or_else(|| "UNDEFINED".into()),
            ),
        ];
        let components = match (data.components, data.component_names()) {
            (Some(bits), Some(names)) => format!("{names} (bits {bits})"),
            _ => "not set".into(),
        };
        rows.push(Row::new("components", components));
        let shape: Vec<String> = data.shape.iter().map(i64::to_string).collect();
        rows.push(Row::new("shape", format!("[{}]", shape.join(", "))));
        if !data.json_config.is_empty() {
            rows.push(Row::new(
                "json_config",
                cut(data.json_config.as_bytes(), CONFIG_CHARS),
            ));
        }
        let Some(tensor) = value.tensor().map(TensorValue::read) else {
            return rows;
        };
        let Some(t) = tensor.tensor() else {
            return rows;
        };
        // A row per point: the last dimension's values.
        let width = t.shape().last().copied().unwrap_or(1).max(1);
        let points = t.len() / width;
        let shown = points.min(ROWS_SHOWN as u64);
        let mut children: Vec<Row> = (0..shown)
            .map(|p| {
                let indices: Vec<u64> = (0..width.min(16))
                    .filter_map(|c| p.checked_mul(width)?.checked_add(c))
                    .collect();
                let mut text = String::new();
                for (n, &i) in indices.iter().enumerate() {
                    if n > 0 {
                        text.push_str(", ");
                    }
                    if let Some(element) = t.get(i) {
                        write_element(&mut text, element);
                    }
                }
                Row::new(format!("[{p}]"), text)
                    .at_all(tensor.spans(&indices).into_iter().flatten())
            })
            .collect();
        if points > shown {
            children.push(more_row(points - shown, "point"));
        }
        let detail = format!("{} of {}", plural(points, "point"), tensor.signature());
        rows.push(Row::new(data.part(), detail).with(children));
        rows
    }
}
