//! TensorFlow's `tf.train.Example` and `tf.train.SequenceExample` as payload types: their protos,
//! how a record is told to be one, and their views as features by name (the summary, the `show`
//! tree, the inspector's feature view and the image candidates), built on [`crate::example`].

use std::io::{self, Write};

use super::inner::{Indented, InnerReading, ValueReading};
use super::{
    Declared, ImageCandidates, Names, PayloadType, PayloadView, Probe, Summary, TreeRow, Typed,
    message,
};
use crate::decode::Parsed;
use crate::example::{self as view, FeatureKind, FeatureValues, Features};
use crate::keytext::{KeyTexts, write_key};
use crate::schema::builtin;
use crate::wire::{ROOT, WireTree, WireType};
use crate::words::{noun_for, plural};

/// The message an Example payload is.
pub const EXAMPLE_MESSAGE: &str = "tensorflow.Example";
const SEQUENCE_EXAMPLE_MESSAGE: &str = "tensorflow.SequenceExample";

/// Feature values shown per feature, and steps per feature list, in the `show` tree.
const SHOWN: usize = 8;

/// `tf.train.Example` (named features) or `tf.train.SequenceExample` (context features and
/// named lists of features): one type, as both are features by name in every view.
pub struct FeatureMessage {
    declared: Declared,
    expected_name: &'static str,
    /// A SequenceExample, which extends the Example and adds feature lists.
    sequence: bool,
}

pub static EXAMPLE: FeatureMessage = FeatureMessage {
    declared: Declared::message("Example", EXAMPLE_MESSAGE, builtin::EXAMPLE),
    expected_name: "tf.train.Example",
    sequence: false,
};
pub static SEQUENCE_EXAMPLE: FeatureMessage = FeatureMessage {
    declared: Declared::message(
        "SequenceExample",
        SEQUENCE_EXAMPLE_MESSAGE,
        builtin::EXAMPLE,
    ),
    expected_name: "tf.train.SequenceExample",
    sequence: true,
};

/// What the top level of a payload walked as an Example holds.
struct TopLevel {
    /// A field the Example declares (its features).
    known: bool,
    /// A length-delimited field 2, where a SequenceExample keeps its feature lists.
    lists: bool,
}

fn top_level(example: &WireTree) -> TopLevel {
    let (mut known, mut lists) = (false, false);
    for node in example.children(ROOT).filter_map(|c| example.node(c)) {
        known |= node.field().is_some();
        lists |= node.number() == 2 && node.wire_type() == WireType::Len;
    }
    TopLevel { known, lists }
}

impl PayloadType for FeatureMessage {
    fn declared(&self) -> &Declared {
        &self.declared
    }

    fn expected_name(&self) -> &'static str {
        self.expected_name
    }

    fn extends(&self) -> Option<&'static str> {
        self.sequence.then_some(EXAMPLE.declared.name)
    }

    /// An Example: a valid one that sets one of its fields (an unknown protobuf with no field 1
    /// is not taken for an empty Example).
    ///
    /// A SequenceExample: a valid Example with feature lists in field 2 (or with features, in a
    /// file of SequenceExamples) that is also a valid SequenceExample. The Example walk comes
    /// first: it is the one most files need, and the SequenceExample walk is made only when it
    /// may differ.
    fn detect(&self, probe: &mut Probe<'_>) -> bool {
        if !self.sequence {
            return probe
                .valid_walk(EXAMPLE_MESSAGE)
                .is_some_and(|tree| top_level(tree).known);
        }
        let likely = probe.likely().is_some_and(|k| k.is(self));
        let Some(top) = probe.valid_walk(EXAMPLE_MESSAGE).map(top_level) else {
            return false;
        };
        let prefer = top.lists || likely;
        prefer && (top.known || top.lists) && probe.valid_walk(SEQUENCE_EXAMPLE_MESSAGE).is_some()
    }

    /// At least one feature (or, for a SequenceExample, context feature or feature list), each
    /// feature and each step holding a list.
    fn fits_inside(&self, view: &PayloadView<'_>) -> bool {
        view.typed().is_some_and(|typed| {
            let features = view::top_features(&typed);
            if !self.sequence {
                return !features.is_empty() && all_hold_lists(&features);
            }
            let lists = view::feature_lists_of(&typed);
            let steps_hold_lists = lists.iter().all(|list| {
                list.steps()
                    .all(|step| step.values.kind() != FeatureKind::Empty)
            });
            features.len() + lists.len() > 0 && all_hold_lists(&features) && steps_hold_lists
        })
    }

    fn typed_summary(&self, typed: &Typed<'_>) -> Summary {
        features_summary(typed, self.sequence)
    }

    fn write_typed_tree(&self, typed: &Typed<'_>, out: &mut dyn Write) -> io::Result<()> {
        write_features_tree(out, !self.sequence, typed)
    }

    fn tree_rows<'a>(&self, parsed: &Parsed<'a>) -> Option<Vec<TreeRow<'a>>> {
        message::message_rows(parsed)
    }

    fn image_candidates(&self, view: &PayloadView<'_>, budget: usize) -> ImageCandidates {
        features_images(view, budget)
    }
}

/// Whether every feature holds a list (a Feature with no kind set is what random bytes that
/// parse tend to be).
fn all_hold_lists(features: &Features<'_>) -> bool {
    features
        .iter()
        .all(|feature| feature.values.kind() != FeatureKind::Empty)
}

/// How many feature names a summary line shows.
const LINE_NAMES: usize = 4;

thread_local! {
    /// The names this thread's summary lines showed last, by place, as the line shows them.
    static LINE_NAMES_SHOWN: KeyTexts = const { KeyTexts::new() };
}

/// The feature count and `3 features: a, b, c` (with the feature lists of a SequenceExample).
fn features_summary(typed: &Typed<'_>, sequence: bool) -> Summary {
    let (view, message) = (&typed.view, &typed.message);
    let features = view::top_features(message);
    let lists = sequence.then(|| view::feature_lists_of(message).len());
    keys_summary(
        features.len(),
        lists,
        || features.keys(),
        view.keeps_names(),
    )
}

/// The summary of a plain Example ([`super::PlainExample`]), as `features_summary` words an
/// Example's.
pub fn plain_summary(example: &super::PlainExample<'_>, names: super::FeatureNames) -> Summary {
    let keys = || example.features().map(|f| f.key);
    keys_summary(
        example.len(),
        None,
        keys,
        names == super::FeatureNames::Kept,
    )
}

/// The summary of `count` features, whose names `keys` lists in order (and, for a
/// SequenceExample, of `lists` feature lists); with `keeps_names`, the names kept as well.
fn keys_summary<'k, I: ExactSizeIterator<Item = &'k [u8]>>(
    count: usize,
    lists: Option<usize>,
    keys: impl Fn() -> I,
    keeps_names: bool,
) -> Summary {
    // Written piece by piece: `list` words millions of these.
    let mut line = String::with_capacity(64);
    line.push_str(itoa::Buffer::new().format(count));
    line.push_str(if count == 1 { " feature" } else { " features" });
    if let Some(lists) = lists {
        line.push_str(", ");
        line.push_str(itoa::Buffer::new().format(lists));
        line.push_str(if lists == 1 {
            " feature list"
        } else {
            " feature lists"
        });
    }
    // A record without features names none: no colon.
    if count > 0 {
        line.push_str(": ");
    }
    // The line shows a few names; the list keeps more, when it is wanted.
    let keep = if keeps_names {
        super::NAMES_KEPT
    } else {
        LINE_NAMES
    };
    let kept = || keys().take(keep);
    let mut names = if keeps_names {
        Names::with_capacity(kept().len(), kept().map(<[u8]>::len).sum())
    } else {
        Names::default()
    };
    for (i, key) in kept().enumerate() {
        if i < LINE_NAMES {
            if i > 0 {
                line.push_str(", ");
            }
            // The records of a file name the same features at the same places: the text shown
            // for a name is kept, and checking it is the same name costs less than checking it is
            // UTF-8 and safe for a terminal (about 3% of `list`'s instructions).
            write_key(&LINE_NAMES_SHOWN, i, key, &mut line, |key, out| {
                out.push_str(&crate::escape::name_for_terminal(key));
            });
        }
        if keeps_names {
            names.push(&String::from_utf8_lossy(key));
        }
    }
    if count > LINE_NAMES {
        line.push_str(", …");
    }
    Summary {
        features: Some(count),
        line,
        names,
    }
}

/// The first value of each bytes feature (of the Example, or the SequenceExample's context), by
/// name, and the image shape the features declare.
fn features_images(view: &PayloadView<'_>, budget: usize) -> ImageCandidates {
    let Some(typed) = view.typed() else {
        return ImageCandidates::default();
    };
    let features = view::top_features(&typed);
    let values = (0..features.len().min(budget))
        .filter_map(|i| features.get(i))
        .filter_map(|feature| feature.values.bytes().next().map(|(_, span)| span))
        .collect();
    ImageCandidates {
        shape: view::declared_shape(&features),
        values,
    }
}

/// An Example or SequenceExample: features by name, kind, count and values, then feature lists.
fn write_features_tree(out: &mut dyn Write, is_example: bool, typed: &Typed<'_>) -> io::Result<()> {
    let (at, message) = (&typed.view, &typed.message);
    let features = view::top_features(message);
    let lists = view::feature_lists_of(message);
    let what = if is_example {
        format!("Example, {}", plural(features.len(), "feature"))
    } else {
        format!(
            "SequenceExample, {} context {}, {}",
            features.len(),
            noun_for(features.len(), "feature"),
            plural(lists.len(), "feature list")
        )
    };
    writeln!(out, "{what}")?;
    // Names are escaped before they are measured: the columns line up as shown.
    let width = features
        .iter()
        .map(|f| crate::words::display_width(&f.shown_name()))
        .chain(
            lists
                .iter()
                .map(|l| crate::words::display_width(&l.shown_name())),
        )
        .max()
        .unwrap_or(0);
    if !is_example && !features.is_empty() {
        writeln!(out, "  context:")?;
    }
    let indent = if is_example { "  " } else { "    " };
    let table = message.parsed().table;
    write_features(out, &features, indent, width, at)?;
    if !lists.is_empty() {
        writeln!(out, "  feature_lists:")?;
    }
    for list in lists.iter() {
        let name = list.shown_name();
        let count = list.len();
        match list.steps().next() {
            Some(first) => writeln!(
                out,
                "    {}  {} of {}",
                crate::words::pad_to(&name, width),
                plural(count as u64, "step"),
                first.values.kind_name()
            )?,
            None => writeln!(out, "    {}  no steps", crate::words::pad_to(&name, width))?,
        }
        let reading = ValueReading::of_feature(table, list.key, at.depth());
        for (i, step) in list.steps().enumerate().take(SHOWN) {
            writeln!(
                out,
                "      [{i}] {}",
                view::values_summary_with(&step.values, SHOWN, |b| reading
                    .value_text(b, None, SHOWN))
            )?;
            write_inner_values(out, &step.values, &reading, "        ", at.base())?;
        }
        if count > SHOWN {
            writeln!(out, "      … {} more steps", count - SHOWN)?;
        }
    }
    Ok(())
}

/// One line per feature: name, `kind[count]`, and the first values.
fn write_features(
    out: &mut dyn Write,
    features: &Features<'_>,
    indent: &str,
    width: usize,
    at: &PayloadView<'_>,
) -> io::Result<()> {
    let shape = view::declared_shape(features);
    let inner_indent = format!("{indent}  ");
    for feature in features.iter() {
        let kind = format!("{}[{}]", feature.values.kind_name(), feature.values.len());
        let reading = ValueReading::of_feature(at.table, feature.key, at.depth());
        let values = view::values_summary_with(&feature.values, SHOWN, |b| {
            reading.value_text(b, shape, SHOWN)
        });
        let name = feature.shown_name();
        let name = crate::words::pad_to(&name, width);
        writeln!(out, "{indent}{name}  {kind:<11}  {values}")?;
        write_inner_values(out, &feature.values, &reading, &inner_indent, at.base())?;
    }
    Ok(())
}

/// Under a feature's line, each of its first values that reads as a payload (see
/// [`super::inner`]): `[i]` and the payload's own tree, indented; or, for a value declared to be
/// a message it is not, why and where (`base` is where the values' payload starts in the
/// record's).
fn write_inner_values(
    out: &mut dyn Write,
    values: &FeatureValues<'_>,
    reading: &ValueReading<'_>,
    indent: &str,
    base: usize,
) -> io::Result<()> {
    if values.kind() != FeatureKind::Bytes || reading.bytes_as.is_some() {
        return Ok(());
    }
    for (i, (bytes, span)) in values.bytes().enumerate().take(SHOWN) {
        let start = base.saturating_add(span.start);
        match reading.read(bytes) {
            Some(InnerReading::Payload(inner)) => {
                let view = inner.view(bytes, reading.table, reading.depth + 1, start);
                let mut indented = Indented::new(out, indent);
                view.write_tree(&format!("[{i}]"), &mut indented)?;
                // A declared type may explain few of the bytes: protobuf keeps the rest unknown.
                let unknown = super::detect::unexplained(&inner.decoded.tree);
                if inner.declared && unknown > 0 {
                    let declared = match &inner.decoded.kind {
                        super::PayloadKind::Message(name) => name.as_str(),
                        kind => kind.payload_type().expected_name(),
                    };
                    writeln!(
                        out,
                        "{indent}  # {unknown} of {} bytes lie in fields {} does not declare",
                        bytes.len(),
                        declared
                    )?;
                }
            }
            Some(InnerReading::NotDeclared { message, invalid }) => writeln!(
                out,
                "{indent}[{i}]  # not a {message}: {} at payload byte {} (value at payload bytes {start}..{})",
                invalid.what(),
                start.saturating_add(invalid.at()),
                base.saturating_add(span.end),
            )?,
            None => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::{Decoder, FeatureNames, Reading};
    use crate::schema::Schema;

    /// An Example holding one bytes feature `key` = [`value`] and one int64 feature.
    fn example(key: &[u8], value: &[u8]) -> Vec<u8> {
        fn field(number: u8, body: &[u8]) -> Vec<u8> {
            let length = u8::try_from(body.len()).expect("short field");
            [&[number << 3 | 2, length][..], body].concat()
        }
        let bytes = field(2, &field(1, &field(1, value)));
        let ints = field(2, &field(3, &[0x0a, 0x01, 0x07]));
        let entries = [
            field(1, &[field(1, key), bytes].concat()),
            field(1, &[field(1, b"label"), ints].concat()),
        ]
        .concat();
        field(1, &entries)
    }

    #[test]
    fn a_summary_without_its_list_of_names_has_the_same_line() {
        fn field(number: u8, body: &[u8]) -> Vec<u8> {
            let length = u8::try_from(body.len()).expect("short field");
            [&[number << 3 | 2, length][..], body].concat()
        }
        let keys: [&[u8]; 6] = [b"f", b"b\x1b[2J", b"a", b"e", b"d", b"c"];
        let entries: Vec<u8> = keys
            .iter()
            .flat_map(|key| {
                field(
                    1,
                    &[field(1, key), field(2, &field(3, &[0x0a, 1, 7]))].concat(),
                )
            })
            .collect();
        let payload = field(1, &entries);
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let decoded = decoder.decode(&payload);
        let view = decoded.view(&payload, decoder.table());
        let with_names = view.summary();
        let without = view.keeping_names(FeatureNames::Skipped).summary();
        // Names in key order; on the line, the first four, escaped for a terminal.
        assert_eq!(with_names.line, "6 features: a, b\\033[2J, c, d, …");
        assert_eq!(without.line, with_names.line);
        assert_eq!(without.features, Some(6));
        let listed: Vec<&str> = with_names.names.iter().collect();
        assert_eq!(listed, ["a", "b\x1b[2J", "c", "d", "e", "f"]);
        assert!(without.names.is_empty());
    }

    #[test]
    fn summary_lines_in_a_row_show_each_record_its_own_names() {
        // The names shown are kept per place for the next record: a name that changes at a
        // place, or moves, must still show as itself, escaped as it needs.
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let line = |key: &[u8]| {
            let payload = example(key, b"v");
            let decoded = decoder.decode(&payload);
            decoded.view(&payload, decoder.table()).summary().line
        };
        assert_eq!(line(b"image"), "2 features: image, label");
        assert_eq!(line(b"image"), "2 features: image, label");
        assert_eq!(line(b"imagf"), "2 features: imagf, label");
        assert_eq!(line(b"m\x1b]2;x\x07"), "2 features: label, m\\033]2;x\\007");
        assert_eq!(line(b"a\xe2\x80\xae"), "2 features: a\\u202e, label");
        assert_eq!(line(b"image"), "2 features: image, label");
    }

    #[test]
    fn an_example_renders_as_features() {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let payload = example(b"image", b"\x89PNG\r\n\x1a\nbroken");
        let decoded = decoder.decode(&payload);
        let view = decoded.view(&payload, decoder.table());
        // The inspector opens it as its `features`, shown by name.
        let rows = view.payload_type().tree_rows(&view.parsed()).unwrap();
        assert!(matches!(
            rows[..],
            [TreeRow::Message {
                label: "features",
                ..
            }]
        ));
        let summary = view.summary();
        assert_eq!(summary.features, Some(2));
        assert_eq!(summary.line, "2 features: image, label");
        let tree = crate::payload::tests::tree_of_record_0(&view);
        assert!(
            tree.starts_with("record 0  Example, 2 features\n"),
            "{tree}"
        );
        assert!(tree.contains("  label  int64[1]     [7]\n"), "{tree}");
        // The image candidate is the bytes feature's value, not the int64 one.
        let images = view.image_candidates(16);
        assert_eq!(images.values.len(), 1);
        let value = images.values[0].slice(&payload).unwrap();
        assert!(value.starts_with(b"\x89PNG"));
        assert_eq!(view.image_candidates(0).values, []);
    }
}
