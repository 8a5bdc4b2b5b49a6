//! What the model tests share: where a model folder is, loading it or saying why not, cosine.

#![allow(dead_code)] // each test file uses a part

use midashi_embed::Embedder;
use std::path::PathBuf;

/// `$<env>`, else `models/<name>` in the checkout.
pub fn model_dir(env: &str, name: &str) -> PathBuf {
    std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../models")
            .join(name)
    })
}

/// The model of `dir` (loading optimises the graph: about a second), or `None` with a notice
/// when it is absent — a failure instead when `required` and MIDASHI_REQUIRE_SEMANTIC=1.
pub fn load(dir: &std::path::Path, fetch: &str, required: bool) -> Option<Embedder> {
    if !dir.join("model.onnx").is_file() {
        assert!(
            !required || std::env::var("MIDASHI_REQUIRE_SEMANTIC").as_deref() != Ok("1"),
            "{} has no model.onnx: run {fetch}",
            dir.display()
        );
        eprintln!("SKIPPED: no model at {} (run {fetch})", dir.display());
        return None;
    }
    Some(Embedder::load_dir(dir).expect("the model loads"))
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
