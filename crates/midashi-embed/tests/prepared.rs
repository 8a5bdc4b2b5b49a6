//! The prepared graph an index ships (`midashi_embed::graph`): it must embed exactly as the
//! ONNX it came from, be no larger, come out the same on every build, and refuse damage with
//! an error instead of a panic.

mod common;

use midashi_embed::{graph, EmbedError, Embedder, ModelDir};

const TEXTS: [&str; 5] = [
    "How do I borrow a value without taking ownership?",
    "Ownership",
    "Section-level search splits every Markdown file into a tree of headings and indexes each node with its breadcrumbs.",
    "算出プロパティに値を代入して更新したい",
    "",
];

fn model_files(name: &str, env: &str, fetch: &str) -> Option<(ModelDir, Vec<u8>)> {
    let dir = common::model_dir(env, name);
    common::load(&dir, fetch, true)?;
    let files = ModelDir::read(&dir).expect("the model folder reads");
    let prepared = graph::prepare(&files.onnx).expect("the graph prepares");
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
        graph::prepare(&files.onnx).unwrap(),
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
    check(
        "multilingual-e5-small",
        "MIDASHI_E5_MODEL",
        "scripts/fetch-e5.sh",
    );
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
    // Cut short, cut to its header, and a tensor's bytes overwritten: each refused by name.
    let mut flipped = prepared.clone();
    let middle = flipped.len() / 2;
    flipped[middle..middle + 4096].fill(0xff);
    for (what, bytes) in [
        ("truncated", &prepared[..prepared.len() / 3]),
        ("header only", &prepared[..600]),
        ("overwritten", &flipped[..]),
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
