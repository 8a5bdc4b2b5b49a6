//! A WordPiece vocabulary (all-MiniLM-L6-v2's, the default model) trimmed to a site: the
//! site's text must embed bit for bit as with the whole model (WordPiece's greedy longest
//! match picks the same pieces when only pieces the site never used are gone), and a
//! visitor's words the site lacks still embed close to the whole model's vector.

use crate::common;

use midashi_embed::{Embedder, ModelDir};
use std::collections::BTreeSet;

const SITE: [&str; 3] = [
    "Ownership is a set of rules that govern how a Rust program manages memory.",
    "The borrow checker compares scopes to determine whether all borrows are valid.",
    "## Refutability: Whether a Pattern Might Fail to Match\n\nPatterns come in two forms: refutable and irrefutable.",
];

/// The default model (its ONNX), its files, and the token ids of [`SITE`]'s text; `None` when
/// the model is not at hand (`common::load` says so).
fn minilm_and_site() -> Option<(Embedder, ModelDir, BTreeSet<u32>)> {
    let dir = common::model_dir("MIDASHI_MODEL", "all-MiniLM-L6-v2");
    let whole = common::load(&dir, "scripts/fetch-model.sh", true)?;
    let files = ModelDir::read(&dir).unwrap();
    let used = SITE
        .iter()
        .flat_map(|text| whole.window_token_ids(text).unwrap().into_iter().flatten())
        .collect();
    Some((whole, files, used))
}

/// `text` cut by `trimmed` into the pieces `whole` cuts it into, under their new ids.
fn assert_same_pieces(whole: &Embedder, trimmed: &Embedder, new_ids: &[u32], text: &str) {
    let mapped: Vec<Vec<u32>> = whole
        .window_token_ids(text)
        .unwrap()
        .into_iter()
        .map(|w| w.into_iter().map(|id| new_ids[id as usize]).collect())
        .collect();
    assert_eq!(trimmed.window_token_ids(text).unwrap(), mapped, "{text}");
}

#[test]
fn a_wordpiece_vocabulary_trimmed_to_a_site_embeds_its_text_exactly() {
    let Some((whole, files, used)) = minilm_and_site() else {
        return;
    };
    let t = midashi_embed::trim::trim_vocabulary(&files.onnx, &files.tokenizer, &used)
        .unwrap()
        .expect("a 30k-piece WordPiece vocabulary is trimmed");
    assert!(
        t.kept.0 * 2 < t.kept.1,
        "kept {:?}: the most frequent pieces, single characters and the site's",
        t.kept
    );
    assert!(
        (t.onnx.len() as f64) < files.onnx.len() as f64 * 0.8,
        "{} bytes of {}",
        t.onnx.len(),
        files.onnx.len()
    );
    let trimmed = Embedder::from_bytes(&t.onnx, &t.tokenizer, files.config.clone()).unwrap();
    for text in SITE {
        assert_same_pieces(&whole, &trimmed, &t.new_ids, text);
        assert_eq!(
            whole.embed_windows(text).unwrap(),
            trimmed.embed_windows(text).unwrap(),
            "{text}"
        );
        assert_eq!(
            whole.embed(text).unwrap(),
            trimmed.embed(text).unwrap(),
            "{text}"
        );
    }
    // A question in the site's words and common English: the same vector.
    let q = "how does the borrow checker know whether a reference is valid";
    assert_eq!(whole.embed(q).unwrap(), trimmed.embed(q).unwrap());
    // Words neither the site nor the most frequent pieces have: cut into shorter pieces
    // (so their vector moves), never an error, never [UNK] where the whole model knew them.
    let unk = |e: &Embedder| e.token_ids("[UNK]").unwrap()[1];
    for other in ["photosynthesis in chloroplasts", "xylophone quartz"] {
        let (w, t) = (
            whole.token_ids(other).unwrap(),
            trimmed.token_ids(other).unwrap(),
        );
        assert!(
            !w.contains(&unk(&whole)) && !t.contains(&unk(&trimmed)),
            "{other}: {t:?}"
        );
        assert!(t.len() >= w.len(), "{other}: pieces {w:?} → {t:?}");
        let v = trimmed.embed(other).unwrap();
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "{other}: norm {norm}");
    }
}

/// The encoder file an npm model package holds (`build-index prepare-model`'s) is trimmed
/// too: the site's text segments as before, and its 4-bit word rows, rounded again in runs
/// of their own, keep each text's vector close to the whole file's.
#[test]
fn an_encoder_file_trimmed_to_a_site_embeds_its_text_closely() {
    let Some((_, files, used)) = minilm_and_site() else {
        return;
    };
    let file = midashi_embed::bert::prepare(&files.onnx, midashi_embed::WeightBits::Four).unwrap();
    let whole = Embedder::from_bytes(&file, &files.tokenizer, files.config.clone()).unwrap();
    let t = midashi_embed::trim::trim_vocabulary(&file, &files.tokenizer, &used)
        .unwrap()
        .expect("an encoder file's word table is trimmed");
    assert!(midashi_embed::bert::is_encoder_file(&t.onnx));
    assert!(
        (t.onnx.len() as f64) < file.len() as f64 * 0.8,
        "{} bytes of {}",
        t.onnx.len(),
        file.len()
    );
    let trimmed = Embedder::from_bytes(&t.onnx, &t.tokenizer, files.config.clone()).unwrap();
    let cosine = |a: &[f32], b: &[f32]| -> f32 { a.iter().zip(b).map(|(x, y)| x * y).sum() };
    for text in SITE
        .iter()
        .copied()
        .chain(["how does the borrow checker know a reference is valid"])
    {
        assert_same_pieces(&whole, &trimmed, &t.new_ids, text);
        let similar = cosine(&whole.embed(text).unwrap(), &trimmed.embed(text).unwrap());
        assert!(similar > 0.98, "{text}: cosine {similar}");
    }
}
