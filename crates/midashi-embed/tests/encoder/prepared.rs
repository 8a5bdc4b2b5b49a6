//! tract's prepared graph (`midashi_embed::graph`), which indexes shipped before the encoder
//! file and the CLI still reads: with 8-bit weights it must
//! embed exactly as the ONNX it came from and be no larger; with 4-bit weights (the default)
//! be much smaller and embed close to it; either way come out the same on every build, and
//! refuse damage with an error instead of a panic.

use crate::common;

use midashi_embed::{graph, EmbedError, Embedder, ModelDir};

use common::TEXTS;

/// The multilingual model, whose vocabulary these tests trim to [`TEXTS`]' pieces (see
/// [`common::site_sized`]).
const E5: &str = "multilingual-e5-small";

fn model_files(name: &str, env: &str, fetch: &str) -> Option<(ModelDir, Vec<u8>)> {
    let dir = common::model_dir(env, name);
    if !common::available(&dir, fetch, true) {
        return None;
    }
    let mut files = ModelDir::read(&dir).expect("the model folder reads");
    if name == E5 {
        files = common::site_sized(files, &TEXTS);
    }
    let prepared =
        graph::prepare(&files.onnx, graph::WeightBits::Eight).expect("the graph prepares");
    Some((files, prepared))
}

fn check(name: &str, env: &str, fetch: &str) {
    let Some((files, prepared)) = model_files(name, env, fetch) else {
        return;
    };
    assert!(graph::is_prepared(&prepared) && !graph::is_prepared(&files.onnx));
    // int8 weights stay int8: the prepared form is not larger than the ONNX (within 1 %).
    assert!(
        prepared.len() as f64 <= files.onnx.len() as f64 * 1.01,
        "{name}: prepared {} bytes against the ONNX's {}",
        prepared.len(),
        files.onnx.len()
    );
    assert_eq!(
        prepared,
        graph::prepare(&files.onnx, graph::WeightBits::Eight).unwrap(),
        "{name}: two preparations differ (a rebuild would ship a new file)"
    );
    let from_onnx = Embedder::from_bytes(&files.onnx, &files.tokenizer, files.config.clone())
        .expect("the ONNX loads");
    let from_prepared = Embedder::from_bytes(&prepared, &files.tokenizer, files.config.clone())
        .expect("the prepared graph loads");
    for text in TEXTS {
        assert_eq!(
            from_onnx.embed(text).unwrap(),
            from_prepared.embed(text).unwrap(),
            "{name}: query {text:?}"
        );
        assert_eq!(
            from_onnx.embed_windows(text).unwrap(),
            from_prepared.embed_windows(text).unwrap(),
            "{name}: document {text:?}"
        );
    }
}

#[test]
fn minilm_prepared_embeds_exactly_as_its_onnx() {
    check(
        "all-MiniLM-L6-v2",
        "MIDASHI_MODEL",
        "scripts/fetch-model.sh",
    );
}

#[test]
fn e5_prepared_embeds_exactly_as_its_onnx() {
    check(E5, "MIDASHI_E5_MODEL", "scripts/fetch-e5.sh");
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b)).max(f32::MIN_POSITIVE)
}

/// The 4-bit copy: chosen by default, ~2/3 of the 8-bit one or less, deterministic, and its
/// query vectors close to the exact model's on English and Japanese text.
fn check_four_bits(name: &str, env: &str, fetch: &str, least_cosine: f32) {
    let Some((files, eight)) = model_files(name, env, fetch) else {
        return;
    };
    let four = graph::prepare(&files.onnx, graph::WeightBits::default()).unwrap();
    assert_eq!(graph::weight_bits(&four), graph::WeightBits::Four, "{name}");
    assert_eq!(
        graph::weight_bits(&eight),
        graph::WeightBits::Eight,
        "{name}"
    );
    let again = graph::prepare(&files.onnx, graph::WeightBits::Four).unwrap();
    common::assert_four_bit_copy(name, &four, &again, &eight);
    let exact = Embedder::from_bytes(&files.onnx, &files.tokenizer, files.config.clone()).unwrap();
    let small = Embedder::from_bytes(&four, &files.tokenizer, files.config.clone()).unwrap();
    for text in TEXTS.iter().filter(|t| !t.is_empty()) {
        let (a, b) = (exact.embed(text).unwrap(), small.embed(text).unwrap());
        let c = cosine(&a, &b);
        assert!(c >= least_cosine, "{name}: {text:?} cosine {c}");
        assert!(
            c < 1.0 - 1e-7,
            "{name}: {text:?} the same vector: were the weights 4-bit?"
        );
    }
}

#[test]
fn minilm_four_bit_copy_is_smaller_and_close() {
    check_four_bits(
        "all-MiniLM-L6-v2",
        "MIDASHI_MODEL",
        "scripts/fetch-model.sh",
        0.97,
    );
}

#[test]
fn e5_four_bit_copy_is_smaller_and_close() {
    check_four_bits(E5, "MIDASHI_E5_MODEL", "scripts/fetch-e5.sh", 0.99);
}

#[test]
fn damaged_prepared_graph_is_an_error_not_a_panic() {
    let Some((files, prepared)) = model_files(
        "all-MiniLM-L6-v2",
        "MIDASHI_MODEL",
        "scripts/fetch-model.sh",
    ) else {
        return;
    };
    let load = |bytes: &[u8]| Embedder::from_bytes(bytes, &files.tokenizer, files.config.clone());
    let four = graph::prepare(&files.onnx, graph::WeightBits::Four).unwrap();
    // Cut short, cut to its header, and a tensor's bytes overwritten: each refused by name.
    let mut flipped = prepared.clone();
    let middle = flipped.len() / 2;
    flipped[middle..middle + 4096].fill(0xff);
    for (what, bytes) in [
        ("truncated", &prepared[..prepared.len() / 3]),
        ("header only", &prepared[..600]),
        ("overwritten", &flipped[..]),
        ("4-bit, truncated", &four[..four.len() * 2 / 3]),
    ] {
        match load(bytes) {
            Err(EmbedError::BadModel(message)) => {
                assert!(!message.is_empty(), "{what}")
            }
            // Overwritten weights may still parse: then the vectors differ, which the
            // sha256 check in front of the loader (graph_sha256) is there to catch.
            Ok(_) if what == "overwritten" => {}
            other => panic!("{what}: {other:?}"),
        }
    }
}
