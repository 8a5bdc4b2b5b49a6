//! Checks the embedder against /work/shared/eval/minilm-reference.json: token ids computed by
//! Python `tokenizers` and sentence embeddings computed in float64 from the original weights.
//!
//! Needs the model from `scripts/fetch-model.sh` (models/all-MiniLM-L6-v2, or
//! $MIDASHI_MODEL_DIR) and the reference file ($MIDASHI_MINILM_REFERENCE to override); each
//! test prints a notice and passes when either is absent, so `cargo test` works on a fresh
//! clone.

use crate::common;

use common::cosine;
use std::path::PathBuf;
use std::sync::OnceLock;

use midashi_embed::{EmbedError, Embedder};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    text: String,
    ids: Vec<u32>,
    ref_embedding: Vec<f32>,
}

fn model_dir() -> PathBuf {
    common::model_dir("MIDASHI_MODEL_DIR", "all-MiniLM-L6-v2")
}

fn references() -> Option<Vec<Reference>> {
    let path = std::env::var("MIDASHI_MINILM_REFERENCE")
        .unwrap_or_else(|_| "/work/shared/eval/minilm-reference.json".to_string());
    match std::fs::read_to_string(&path) {
        Ok(json) => Some(serde_json::from_str(&json).expect("reference file parses")),
        Err(_) => {
            eprintln!("SKIPPED: no reference file at {path} (set MIDASHI_MINILM_REFERENCE)");
            None
        }
    }
}

/// The int8 model, loaded once for all tests.
fn embedder() -> Option<&'static Embedder> {
    static EMBEDDER: OnceLock<Option<Embedder>> = OnceLock::new();
    EMBEDDER
        .get_or_init(|| common::load(&model_dir(), "scripts/fetch-model.sh", false))
        .as_ref()
}

#[test]
fn token_ids_match_python_tokenizers_exactly() {
    let (Some(e), Some(refs)) = (embedder(), references()) else {
        return;
    };
    for r in &refs {
        assert_eq!(
            e.token_ids(&r.text).unwrap(),
            r.ids,
            "ids differ for {:?}",
            r.text
        );
    }
    // The last two texts are longer than the limit: count_tokens must not truncate.
    assert!(refs.iter().any(|r| e.count_tokens(&r.text) > 256));
    for r in refs.iter().filter(|r| r.ids.len() < 256) {
        assert_eq!(e.count_tokens(&r.text), r.ids.len());
    }
}

#[test]
fn int8_embeddings_match_float64_reference() {
    let (Some(e), Some(refs)) = (embedder(), references()) else {
        return;
    };
    let mut min = f64::MAX;
    for r in &refs {
        let v = e.embed(&r.text).unwrap();
        assert_eq!(v.len(), 384);
        let norm: f64 = v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "not normalised: {norm}");
        let c = cosine(&v, &r.ref_embedding);
        eprintln!("int8 {:3} tokens: cosine {c:.7}", r.ids.len());
        min = min.min(c);
    }
    eprintln!("int8 min cosine vs float64 reference: {min:.7}");
    assert!(min >= 0.999, "int8 min cosine {min} < 0.999");
}

#[test]
fn fp32_embeddings_match_float64_reference() {
    let (Some(e), Some(refs)) = (embedder(), references()) else {
        return;
    };
    let dir = model_dir();
    let Ok(onnx) = std::fs::read(dir.join("model-fp32.onnx")) else {
        eprintln!("SKIPPED: no model-fp32.onnx");
        return;
    };
    let tokenizer = std::fs::read(dir.join("tokenizer.json")).unwrap();
    let fp32 = Embedder::from_bytes(&onnx, &tokenizer, e.config().clone()).unwrap();
    let min = refs
        .iter()
        .map(|r| cosine(&fp32.embed(&r.text).unwrap(), &r.ref_embedding))
        .fold(f64::MAX, f64::min);
    eprintln!("fp32 min cosine vs float64 reference: {min:.7}");
    assert!(min >= 0.9999, "fp32 min cosine {min} < 0.9999");
}

#[test]
fn long_text_is_split_into_overlapping_windows() {
    let (Some(e), Some(refs)) = (embedder(), references()) else {
        return;
    };
    let long: String = refs
        .iter()
        .map(|r| r.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let total = e.count_tokens(&long);
    assert!(total > 2 * 256, "test text too short: {total} tokens");

    let windows = e.window_token_ids(&long).unwrap();
    let content: usize = 256 - 2;
    let overlap = 32;
    // Windows advance by content - overlap tokens; the last one may be short.
    let expected = (total - 2 - overlap).div_ceil(content - overlap);
    eprintln!(
        "{total} tokens -> {} windows {:?}",
        windows.len(),
        windows.iter().map(Vec::len).collect::<Vec<_>>()
    );
    assert_eq!(windows.len(), expected);
    for (i, w) in windows.iter().enumerate() {
        assert!(w.len() <= 256, "window {i} has {} tokens", w.len());
        assert_eq!(
            (w[0], w[w.len() - 1]),
            (101, 102),
            "window {i} lacks [CLS]/[SEP]"
        );
    }
    for pair in windows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert_eq!(
            a[a.len() - 1 - overlap..a.len() - 1],
            b[1..1 + overlap],
            "windows must overlap by {overlap}"
        );
    }
    // The windows cover the whole text: the untruncated ids are the windows minus overlaps.
    let mut joined: Vec<u32> = windows[0][1..windows[0].len() - 1].to_vec();
    for w in &windows[1..] {
        joined.extend_from_slice(&w[1 + overlap..w.len() - 1]);
    }
    assert_eq!(joined.len(), total - 2);
    assert_eq!(joined[..254], e.token_ids(&long).unwrap()[1..255]);

    let vectors = e.embed_windows(&long).unwrap();
    assert_eq!(vectors.len(), windows.len());
    assert!(vectors.iter().all(|v| v.len() == 384));

    // A short text is one window, identical to the query embedding.
    let short = &refs[0].text;
    let one = e.embed_windows(short).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0], e.embed(short).unwrap());
}

#[test]
fn missing_model_says_what_to_do() {
    let err = Embedder::load_dir("/nonexistent/midashi-model".as_ref()).unwrap_err();
    assert!(matches!(err, EmbedError::ModelMissing { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains("scripts/fetch-model.sh") && msg.contains("--model <dir>"),
        "{msg}"
    );
}

#[test]
fn empty_and_odd_texts_embed() {
    let Some(e) = embedder() else { return };
    for text in ["", "   ", "🙂", "検索エンジンの設定", "a\u{0}b"] {
        let v = e.embed(text).unwrap();
        assert_eq!(v.len(), 384, "{text:?}");
        assert!(v.iter().all(|x| x.is_finite()), "{text:?}");
    }
}
