//! What the model tests share: where a model folder is, loading it or saying why not, cosine.

#![allow(dead_code)] // each test file uses a part

use midashi_embed::{Embedder, ModelDir};
use std::path::PathBuf;

/// `$<env>`, else `models/<name>` in the checkout.
pub fn model_dir(env: &str, name: &str) -> PathBuf {
    std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../models")
            .join(name)
    })
}

/// Whether `dir` holds a model, or `false` with a notice when it is absent — a failure
/// instead when `required` and MIDASHI_REQUIRE_SEMANTIC=1.
pub fn available(dir: &std::path::Path, fetch: &str, required: bool) -> bool {
    if dir.join("model.onnx").is_file() {
        return true;
    }
    assert!(
        !required || std::env::var("MIDASHI_REQUIRE_SEMANTIC").as_deref() != Ok("1"),
        "{} has no model.onnx: run {fetch}",
        dir.display()
    );
    eprintln!("SKIPPED: no model at {} (run {fetch})", dir.display());
    false
}

/// The model of `dir` (loading optimises the graph: about a second), or `None` as
/// [`available`] says.
pub fn load(dir: &std::path::Path, fetch: &str, required: bool) -> Option<Embedder> {
    available(dir, fetch, required).then(|| Embedder::load_dir(dir).expect("the model loads"))
}

/// Cosine similarity in f64.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let n = |v: &[f32]| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (n(a) * n(b))
}

/// A 4-bit copy of a model: under 0.7 of the 8-bit copy's bytes, and the same bytes when made
/// again (a rebuild must ship the same file under the same name).
pub fn assert_four_bit_copy(name: &str, four: &[u8], again: &[u8], eight: &[u8]) {
    assert!(
        four == again,
        "{name}: two preparations differ (a rebuild would ship a new file)"
    );
    assert!(
        (four.len() as f64) < eight.len() as f64 * 0.7,
        "{name}: 4-bit {} bytes against 8-bit {}",
        four.len(),
        eight.len()
    );
}

/// Texts both encoders are compared on: a question, a heading, a long sentence, Japanese,
/// and nothing.
pub const TEXTS: [&str; 5] = [
    "How do I borrow a value without taking ownership?",
    "Ownership",
    "Section-level search splits every Markdown file into a tree of headings and indexes each node with its breadcrumbs.",
    "算出プロパティに値を代入して更新したい",
    "",
];

/// `files` with its vocabulary trimmed to the pieces of `texts` with either prefix (single
/// characters, specials and the most frequent pieces stay), as an index ships a model. For
/// e5, whose 250k-piece word table is most of its weights: each preparation of the whole
/// table took the e5 tests tens of seconds of CI, and the layers they compare are the same.
pub fn site_sized(files: ModelDir, texts: &[&str]) -> ModelDir {
    let tokenizer = tokenizers::Tokenizer::from_bytes(&files.tokenizer).expect("tokenizer.json");
    let mut used = std::collections::BTreeSet::new();
    for text in texts {
        for prefix in [&files.config.query_prefix, &files.config.document_prefix] {
            let encoding = tokenizer
                .encode(format!("{prefix}{text}"), true)
                .expect("the text tokenizes");
            used.extend(encoding.get_ids().iter().copied());
        }
    }
    let trimmed = midashi_embed::trim::trim_vocabulary(&files.onnx, &files.tokenizer, &used)
        .expect("the vocabulary trims")
        .expect("a large vocabulary is trimmed");
    ModelDir {
        onnx: trimmed.onnx,
        tokenizer: trimmed.tokenizer,
        ..files
    }
}
