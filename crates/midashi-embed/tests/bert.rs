//! The purpose-written encoder (`midashi_embed::bert`) against tract on the shipped models:
//! with the ONNX's own 8-bit weights it embeds as tract runs the ONNX; with the 4-bit weights
//! an index ships (6-bit down-projections) close to it; the file is deterministic, and damage
//! is an error, never a panic.

mod common;

use midashi_embed::{bert, graph, EmbedError, Embedder, ModelDir};

use common::TEXTS;

fn files(name: &str, env: &str, fetch: &str) -> Option<ModelDir> {
    let dir = common::model_dir(env, name);
    common::load(&dir, fetch, true)?;
    Some(ModelDir::read(&dir).expect("the model folder reads"))
}

fn embedder(bytes: &[u8], files: &ModelDir) -> Embedder {
    Embedder::from_bytes(bytes, &files.tokenizer, files.config.clone()).expect("the model loads")
}

/// Every text's query vector and document windows through `a` and `b` at least `least` alike.
fn alike(name: &str, a: &Embedder, b: &Embedder, least: f64) {
    let long = TEXTS[2].repeat(30); // several windows of the model's token limit
    for text in TEXTS.iter().copied().chain([long.as_str()]) {
        let c = common::cosine(&a.embed(text).unwrap(), &b.embed(text).unwrap());
        let short = text.chars().take(40).collect::<String>();
        assert!(c >= least, "{name}: query {short:?}: cosine {c}");
        let (wa, wb) = (
            a.embed_windows(text).unwrap(),
            b.embed_windows(text).unwrap(),
        );
        assert_eq!(wa.len(), wb.len(), "{name}: windows of {short:?}");
        for (x, y) in wa.iter().zip(&wb) {
            let c = common::cosine(x, y);
            assert!(c >= least, "{name}: document {short:?}: cosine {c}");
        }
    }
}

fn check(name: &str, env: &str, fetch: &str, least_four_bit: f64) {
    let Some(files) = files(name, env, fetch) else {
        return;
    };
    let eight = bert::prepare(&files.onnx, graph::WeightBits::Eight).expect("the file writes");
    let four = bert::prepare(&files.onnx, graph::WeightBits::Four).expect("the file writes");
    assert!(bert::is_encoder_file(&four) && !bert::is_encoder_file(&files.onnx));
    let again = bert::prepare(&files.onnx, graph::WeightBits::Four).unwrap();
    common::assert_four_bit_copy(name, &four, &again, &eight);
    // The same weights, tract and this encoder: the same vectors to float rounding.
    let exact = embedder(&files.onnx, &files);
    alike(name, &exact, &embedder(&eight, &files), 0.99999);
    // The copy an index ships: queries (only they are encoded with it; the documents with
    // the exact model) close to the exact model's, as close as tract's 4-bit graph was.
    let shipped = embedder(&four, &files);
    for text in TEXTS.iter().filter(|t| !t.is_empty()) {
        let c = common::cosine(&exact.embed(text).unwrap(), &shipped.embed(text).unwrap());
        assert!(
            c >= least_four_bit,
            "{name}: 4-bit query {text:?}: cosine {c}"
        );
    }
}

#[test]
fn minilm_encoder_file_embeds_as_tract_does() {
    check(
        "all-MiniLM-L6-v2",
        "MIDASHI_MODEL",
        "scripts/fetch-model.sh",
        0.97,
    );
}

#[test]
fn e5_encoder_file_embeds_as_tract_does() {
    check(
        "multilingual-e5-small",
        "MIDASHI_E5_MODEL",
        "scripts/fetch-e5.sh",
        0.99,
    );
}

#[test]
fn a_damaged_encoder_file_is_an_error_not_a_panic() {
    let Some(files) = files(
        "all-MiniLM-L6-v2",
        "MIDASHI_MODEL",
        "scripts/fetch-model.sh",
    ) else {
        return;
    };
    let file = bert::prepare(&files.onnx, graph::WeightBits::Four).unwrap();
    let mut flipped = file.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    for (what, bytes) in [
        ("truncated", &file[..file.len() / 3]),
        ("header only", &file[..9]),
        ("one bit flipped", &flipped[..]),
    ] {
        match Embedder::from_bytes(bytes, &files.tokenizer, files.config.clone()) {
            Err(EmbedError::BadModel(message)) => {
                assert!(message.contains("damaged"), "{what}: {message}")
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    // A model config whose width is not the encoder's.
    let mut config = files.config.clone();
    config.dims = 768;
    let e = Embedder::from_bytes(&file, &files.tokenizer, config).unwrap_err();
    assert!(e.to_string().contains("768"), "{e}");
}
