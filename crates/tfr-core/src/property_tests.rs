//! Property: random Examples, encoded by an independent encoder (prost-reflect), walk into tokens
//! that cover every payload byte exactly once and decode back to the same features. Through the
//! public API only; in the unit tests' binary so that the tests link one binary fewer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use crate::annotate::PayloadTokens;
use crate::example::{FeatureKind, top_features};
use crate::payload::{Decoder, EXAMPLE, PayloadKind, Reading};
use crate::schema::Schema;
use proptest::prelude::*;
use prost_reflect::prost::Message as _;
use prost_reflect::{DynamicMessage, MapKey, Value};

#[derive(Debug, Clone)]
enum Values {
    Bytes(Vec<Vec<u8>>),
    Float(Vec<f32>),
    Int64(Vec<i64>),
}

fn values() -> impl Strategy<Value = Values> {
    prop_oneof![
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..4)
            .prop_map(Values::Bytes),
        prop::collection::vec(any::<f32>(), 0..6).prop_map(Values::Float),
        prop::collection::vec(any::<i64>(), 0..6).prop_map(Values::Int64),
    ]
}

fn encode(schema: &Schema, features: &HashMap<String, Values>) -> Vec<u8> {
    let pool = schema.pool();
    let message = |name: &str| DynamicMessage::new(pool.get_message_by_name(name).unwrap());
    let mut map = HashMap::new();
    for (name, values) in features {
        let (list_field, list_type, list) = match values {
            Values::Bytes(v) => (
                "bytes_list",
                "tensorflow.BytesList",
                v.iter().map(|b| Value::Bytes(b.clone().into())).collect(),
            ),
            Values::Float(v) => (
                "float_list",
                "tensorflow.FloatList",
                v.iter().map(|f| Value::F32(*f)).collect(),
            ),
            Values::Int64(v) => (
                "int64_list",
                "tensorflow.Int64List",
                v.iter().map(|i| Value::I64(*i)).collect(),
            ),
        };
        let mut inner = message(list_type);
        inner.set_field_by_name("value", Value::List(list));
        let mut feature = message("tensorflow.Feature");
        feature.set_field_by_name(list_field, Value::Message(inner));
        map.insert(MapKey::String(name.clone()), Value::Message(feature));
    }
    let mut container = message("tensorflow.Features");
    container.set_field_by_name("feature", Value::Map(map));
    let mut example = message("tensorflow.Example");
    example.set_field_by_name("features", Value::Message(container));
    example.encode_to_vec()
}

/// A valid Example with a few bytes flipped, inserted or removed (or arbitrary bytes).
fn damaged_payloads() -> impl Strategy<Value = Vec<u8>> {
    let edits = prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..4);
    let example = prop::collection::hash_map("[a-z/_]{0,12}", values(), 0..4);
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        (example, edits).prop_map(|(features, edits)| {
            let mut bytes = encode(&Schema::builtin(), &features);
            for (at, byte, how) in edits {
                let at = at % (bytes.len() + 1);
                match how {
                    0 if at < bytes.len() => bytes[at] ^= byte | 1,
                    1 => bytes.insert(at, byte),
                    _ if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => {}
                }
            }
            bytes
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_payload_is_covered_by_its_tokens_once(payload in damaged_payloads()) {
        let decoder = Decoder::new(Schema::builtin(), Reading::Auto);
        let decoded = decoder.decode(&payload);
        let tokens = PayloadTokens::new(&decoded, &payload, decoder.table(), 7);
        let mut next = 7u64;
        for token in tokens.iter() {
            prop_assert_eq!(token.start, next);
            prop_assert!(token.end > token.start);
            // Looked up from any of its bytes, the same token comes back.
            for offset in token.start..token.end {
                prop_assert_eq!(tokens.token_at(offset), Some(token));
            }
            prop_assert!(!tokens.meaning(&token).is_empty());
            next = token.end;
        }
        prop_assert_eq!(next, 7 + payload.len() as u64);
    }

    #[test]
    fn examples_walk_and_decode_back(features in prop::collection::hash_map("[a-z/_]{0,12}", values(), 0..6)) {
        let schema = Schema::builtin();
        let payload = encode(&schema, &features);
        let decoder = Decoder::new(schema, Reading::Auto);
        let decoded = decoder.decode(&payload);
        prop_assert_eq!(&decoded.kind, &PayloadKind::Builtin(&EXAMPLE));

        // Every byte in exactly one token, in order.
        let table = decoder.table();
        let tokens: Vec<_> = PayloadTokens::new(&decoded, &payload, table, 1000).iter().collect();
        let mut next = 1000u64;
        for token in &tokens {
            prop_assert_eq!(token.start, next);
            prop_assert!(token.end > token.start);
            next = token.end;
        }
        prop_assert_eq!(next, 1000 + payload.len() as u64);

        // The same features come back.
        let typed = decoded.typed(&payload, table).unwrap();
        let back = top_features(&typed);
        prop_assert_eq!(back.len(), features.len());
        for feature in back.iter() {
            let original = &features[&*feature.name()];
            let spans: Vec<_> = feature.values.spans().collect();
            // Spans point at the entry and at each value's own bytes.
            prop_assert_eq!(payload.get(feature.span.start), Some(&0x0a));
            prop_assert_eq!(spans.len(), feature.values.len());
            if feature.values.kind() == FeatureKind::Float {
                for (value, span) in feature.values.floats().zip(&spans) {
                    let bytes: [u8; 4] = payload[span.start..span.end].try_into().unwrap();
                    prop_assert_eq!(f32::from_le_bytes(bytes).to_bits(), value.to_bits());
                }
            }
            match (original, feature.values.kind()) {
                (Values::Bytes(want), FeatureKind::Bytes) => {
                    let got: Vec<Vec<u8>> = feature.values.bytes().map(|(b, span)| {
                        assert_eq!(&payload[span.start..span.end], b);
                        b.to_vec()
                    }).collect();
                    prop_assert_eq!(want, &got);
                }
                (Values::Float(want), FeatureKind::Float) => {
                    let got: Vec<f32> = feature.values.floats().collect();
                    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    prop_assert_eq!(bits(want), bits(&got));
                }
                (Values::Int64(want), FeatureKind::Int64) => {
                    let got: Vec<i64> = feature.values.ints().collect();
                    prop_assert_eq!(want, &got);
                }
                (want, got) => prop_assert!(false, "kind changed: {:?} -> {:?}", want, got),
            }
        }
    }
}
