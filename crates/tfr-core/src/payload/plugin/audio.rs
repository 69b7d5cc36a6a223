//! The `audio` plugin: a string tensor `[k, 2]` of clips, each an encoded WAV file and its
//! label (`[k]` without labels, as older writers made them), with `AudioPluginData.encoding` in
//! the content; and TF1's `Summary.Audio` (tensorboardX's `add_audio`), one clip with its sample
//! rate, channels and length in fields of its own. The clips' format, rate, channels and duration
//! come from their WAV headers ([`super::wav`]).

use super::wav::{self, WavInfo, WavProblem, channels_text};
use super::{
    PluginValue, ROWS_SHOWN, Row, SummaryPlugin, TensorValue, cut, enum_field, int_field, more_row,
    number_field, quoted, singular, span_within, string_field, whole_or_repr,
};
use crate::decode::Value;
use crate::pyfmt::repr_f64;
use crate::schema::{ProtoFile, builtin};
use crate::span::Span;
use crate::words::{plural, short};

/// The message the plugin's content is.
pub const CONTENT_MESSAGE: &str = "tensorboard.AudioPluginData";

/// Characters of a label shown.
const LABEL_CHARS: usize = 80;

pub struct Audio;

pub static AUDIO: Audio = Audio;

/// One clip: its encoded bytes, where they lie, its label and its WAV header.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip<'a> {
    pub encoded: &'a [u8],
    pub span: Option<Span>,
    pub label: &'a [u8],
    pub wav: Result<WavInfo, WavProblem>,
}

/// TF1's `Summary.Audio` fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Legacy {
    pub sample_rate: f64,
    pub num_channels: i128,
    pub length_frames: i128,
    pub content_type: String,
}

/// What an audio value holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Clips<'a> {
    /// The first clips, at most [`ROWS_SHOWN`].
    pub clips: Vec<Clip<'a>>,
    /// How many the value holds.
    pub count: u64,
    /// `AudioPluginData.encoding` (`WAV`), when set.
    pub encoding: Option<String>,
    pub legacy: Option<Legacy>,
}

impl<'a> Clips<'a> {
    /// The clips of `value`, or why it has none.
    pub fn read(value: &PluginValue<'a>) -> Result<Clips<'a>, String> {
        let encoding = value
            .content_as(CONTENT_MESSAGE)
            .ok()
            .and_then(|c| c.root().and_then(|r| enum_field(&r, "encoding")));
        if let Some(Value::Message(audio)) = singular(&value.value, "audio") {
            let encoded = string_field(&audio, "encoded_audio_string");
            let legacy = Legacy {
                sample_rate: number_field(&audio, "sample_rate").unwrap_or(0.0),
                num_channels: int_field(&audio, "num_channels").unwrap_or(0),
                length_frames: int_field(&audio, "length_frames").unwrap_or(0),
                content_type: super::text_field(&audio, "content_type"),
            };
            let clip = Clip {
                encoded,
                span: span_within(value.payload(), encoded),
                label: &[],
                wav: wav::read(encoded),
            };
            return Ok(Clips {
                clips: vec![clip],
                count: 1,
                encoding,
                legacy: Some(legacy),
            });
        }
        let tensor = TensorValue::read(value.tensor().ok_or("no tensor")?);
        let shape = tensor
            .tensor()
            .filter(|t| t.dtype() == crate::tensor::DType::String)
            .map(|t| t.shape().to_vec())
            .ok_or_else(|| format!("tensor {} is no string tensor", tensor.signature()))?;
        let (count, width) = match shape.as_slice() {
            [k, 2] => (*k, 2),
            [k] => (*k, 1),
            _ => {
                return Err(format!(
                    "tensor {} is no [k, 2] of clips",
                    tensor.signature()
                ));
            }
        };
        let payload = value.payload();
        let clips = (0..count.min(ROWS_SHOWN as u64))
            .filter_map(|i| {
                let first = i.checked_mul(width)?;
                let encoded = tensor.bytes(first)?;
                let label = if width == 2 {
                    tensor.bytes(first.checked_add(1)?).unwrap_or_default()
                } else {
                    &[]
                };
                Some(Clip {
                    encoded,
                    span: span_within(payload, encoded),
                    label,
                    wav: wav::read(encoded),
                })
            })
            .collect();
        Ok(Clips {
            clips,
            count,
            encoding,
            legacy: None,
        })
    }

    /// `8000 Hz mono 0.01 s` for the first clip: of TF1's fields where they are set, else of its
    /// WAV header.
    fn first_summary(&self) -> Option<String> {
        if let Some(legacy) = self.legacy.as_ref().filter(|l| l.sample_rate > 0.0) {
            let mut text = format!("{} Hz", whole_or_repr(legacy.sample_rate));
            if let Ok(channels) = u16::try_from(legacy.num_channels) {
                text.push(' ');
                text.push_str(&channels_text(channels));
            }
            if legacy.length_frames > 0 {
                let seconds = legacy.length_frames as f64 / legacy.sample_rate;
                text.push_str(&format!(" {} s", short(seconds)));
            }
            return Some(text);
        }
        let first = self.clips.first()?;
        Some(match &first.wav {
            Ok(info) => info.summary(),
            Err(problem) => format!("{problem}"),
        })
    }
}

/// `WAV PCM 16-bit, 8000 Hz, mono, 80 frames, 0.01 s, 204 bytes`.
fn clip_detail(clip: &Clip<'_>) -> String {
    let size = plural(clip.encoded.len(), "byte");
    match &clip.wav {
        Ok(info) => {
            let mut parts = vec![
                format!("WAV {}", info.format_text()),
                format!("{} Hz", info.sample_rate),
                channels_text(info.channels),
            ];
            if let Some(frames) = info.frames() {
                parts.push(plural(frames, "frame"));
            }
            if let Some(seconds) = info.seconds() {
                parts.push(format!("{} s", short(seconds)));
            }
            if u64::from(info.data_declared) > info.data_present {
                parts.push(format!(
                    "data declares {} but {} are there",
                    plural(u64::from(info.data_declared), "byte"),
                    info.data_present
                ));
            }
            parts.push(size);
            parts.join(", ")
        }
        Err(problem) => format!("{problem}, {size}"),
    }
}

impl SummaryPlugin for Audio {
    fn name(&self) -> &'static str {
        "audio"
    }

    fn legacy_field(&self) -> Option<&'static str> {
        Some("audio")
    }

    fn protos(&self) -> &'static [ProtoFile] {
        builtin::TENSORBOARD_PLUGINS
    }

    fn line(&self, value: &PluginValue<'_>) -> String {
        let clips = match Clips::read(value) {
            Ok(clips) => clips,
            Err(why) => return format!("audio: {why}"),
        };
        let mut line = format!("audio {}", plural(clips.count, "clip"));
        if let Some(first) = clips.first_summary() {
            let which = if clips.count > 1 { ", the first " } else { " " };
            line.push_str(which);
            line.push_str(&first);
        }
        if let Some(first) = clips.clips.first().filter(|c| !c.label.is_empty()) {
            line.push_str(&format!(", label \"{}\"", cut(first.label, 40)));
        }
        line
    }

    /// A row per clip with its WAV header, and its label; TF1's fields.
    fn rows(&self, value: &PluginValue<'_>) -> Vec<Row> {
        let Ok(clips) = Clips::read(value) else {
            return Vec::new();
        };
        let mut rows: Vec<Row> = clips
            .clips
            .iter()
            .enumerate()
            .map(|(i, clip)| {
                let mut row = Row::new(format!("[{i}]"), clip_detail(clip));
                if let Some(span) = clip.span {
                    row = row.at(span);
                }
                if !clip.label.is_empty() {
                    let mut label =
                        Row::new("label", format!("\"{}\"", cut(clip.label, LABEL_CHARS)));
                    if let Some(span) = span_within(value.payload(), clip.label) {
                        label = label.at(span);
                    }
                    row = row.with(vec![label]);
                }
                row
            })
            .collect();
        if clips.count > clips.clips.len() as u64 {
            rows.push(more_row(clips.count - clips.clips.len() as u64, "clip"));
        }
        if let Some(encoding) = &clips.encoding {
            rows.push(Row::new("encoding", encoding.clone()));
        }
        if let Some(legacy) = &clips.legacy {
            rows.push(Row::new(
                "content_type",
                quoted(legacy.content_type.as_bytes()),
            ));
            rows.push(Row::new("sample_rate", repr_f64(legacy.sample_rate)));
            rows.push(Row::new("num_channels", legacy.num_channels.to_string()));
            rows.push(Row::new("length_frames", legacy.length_frames.to_string()));
        }
        rows
    }
}
