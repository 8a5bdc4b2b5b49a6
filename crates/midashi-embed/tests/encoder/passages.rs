//! A section is embedded as passages of whole sentences, each led by its context
//! (`Embedder::passages`): checked with both shipped models' real tokenizers, on English and
//! Japanese prose.
//!
//! Needs models/all-MiniLM-L6-v2 and models/multilingual-e5-small (scripts/setup.sh
//! --model); without them each test says so and passes, unless MIDASHI_REQUIRE_SEMANTIC=1.

use crate::common;

use common::cosine;
use midashi_embed::{Embedder, PASSAGE_TOKENS};
use std::sync::OnceLock;

/// A shipped model, loaded once per test binary.
fn model(
    cell: &'static OnceLock<Option<Embedder>>,
    (env, name, fetch): (&str, &str, &str),
) -> Option<&'static Embedder> {
    cell.get_or_init(|| common::load(&common::model_dir(env, name), fetch, true))
        .as_ref()
}

fn minilm() -> Option<&'static Embedder> {
    static E: OnceLock<Option<Embedder>> = OnceLock::new();
    model(
        &E,
        (
            "MIDASHI_MODEL_DIR",
            "all-MiniLM-L6-v2",
            "scripts/fetch-model.sh",
        ),
    )
}

fn e5() -> Option<&'static Embedder> {
    static E: OnceLock<Option<Embedder>> = OnceLock::new();
    model(
        &E,
        (
            "MIDASHI_E5_DIR",
            "multilingual-e5-small",
            "scripts/fetch-e5.sh",
        ),
    )
}

/// Tokens of `text` without specials (what a passage's budget counts).
fn tokens(e: &Embedder, text: &str) -> usize {
    // token_ids adds the specials (and, for e5, nothing else: the prefix is the caller's).
    e.token_ids(text).unwrap().len() - e.token_ids("").unwrap().len()
}

const ENGLISH: &str = "Ownership is a set of rules that govern how a Rust program manages memory. \
All programs have to manage the way they use a computer's memory while running. Some languages \
have garbage collection that regularly looks for no-longer-used memory as the program runs; in \
other languages, the programmer must explicitly allocate and free the memory. Rust uses a third \
approach: memory is managed through a system of ownership with a set of rules that the compiler \
checks. If any of the rules are violated, the program won't compile. None of the features of \
ownership will slow down your program while it's running.";

const JAPANESE: &str = "梅雨（つゆ、ばいう）は、北海道と小笠原諸島を除く日本、朝鮮半島南部、中国の南部から\
長江流域にかけての沿海部、および台湾など、東アジアの広範囲においてみられる特有の気象現象で、5月から7月\
にかけて来る曇りや雨の多い期間のこと。雨季の一種である。梅雨の時期が始まることを梅雨入りや入梅といい、\
気象庁が発表する。梅雨が終わることを梅雨明けや出梅という。";

#[test]
fn passages_are_whole_sentences_within_the_budget_each_with_the_context() {
    for (e, context, text, end) in [
        (minilm(), "The Rust Book > What Is Ownership?", ENGLISH, '.'),
        (e5(), "梅雨", JAPANESE, '。'),
    ] {
        let Some(e) = e else { continue };
        let passages = e.passages(context, text).unwrap();
        assert!(passages.len() > 1, "{passages:#?}");
        let mut rebuilt = String::new();
        for p in &passages {
            let body = p
                .strip_prefix(&format!("{context}\n"))
                .unwrap_or_else(|| panic!("{p:?} does not start with the context"));
            // Whole sentences: each passage ends where a sentence does.
            assert!(body.ends_with(end), "{body:?}");
            // Within the budget, unless one sentence alone is longer.
            let n = tokens(e, body);
            assert!(
                n <= PASSAGE_TOKENS || !body.trim_end_matches(end).contains(end),
                "{n} tokens: {body:?}"
            );
            rebuilt.push_str(body);
        }
        // Nothing lost, nothing repeated (spaces between sentences aside).
        let squeeze = |s: &str| s.split_whitespace().collect::<String>();
        assert_eq!(squeeze(&rebuilt), squeeze(text));
    }
}

#[test]
fn a_short_section_is_one_passage_embedded_as_its_whole_text_was() {
    let Some(e) = minilm() else { return };
    let passages = e
        .passages("Guide > Install", "Run npm i -D midashi.")
        .unwrap();
    assert_eq!(passages, ["Guide > Install\nRun npm i -D midashi."]);
    // A section with no text of its own is its context; no context, its text.
    assert_eq!(
        e.passages("Guide > Install", "  \n").unwrap(),
        ["Guide > Install"]
    );
    assert_eq!(e.passages("", "Just text.").unwrap(), ["Just text."]);
    // Its vector is the one the whole text got before passages (the embedding cache keeps it).
    let one = e
        .embed_passages("Guide > Install", "Run npm i -D midashi.")
        .unwrap();
    let before = e
        .embed_windows("Guide > Install\nRun npm i -D midashi.")
        .unwrap();
    assert_eq!(one, before);
}

#[test]
fn a_question_about_one_sentence_finds_its_passage_best() {
    let Some(e) = minilm() else { return };
    let context = "The Rust Book > What Is Ownership?";
    let vectors = e.embed_passages(context, ENGLISH).unwrap();
    let passages = e.passages(context, ENGLISH).unwrap();
    assert_eq!(vectors.len(), passages.len());
    let q = e
        .embed("which languages free memory automatically with a collector")
        .unwrap();
    let best = (0..vectors.len())
        .max_by(|&a, &b| cosine(&q, &vectors[a]).total_cmp(&cosine(&q, &vectors[b])))
        .unwrap();
    assert!(
        passages[best].contains("garbage collection"),
        "{}",
        passages[best]
    );
    // And that passage is closer to the question than the whole section's one vector.
    let whole = e.embed_windows(&format!("{context}\n{ENGLISH}")).unwrap();
    assert!(cosine(&q, &vectors[best]) > cosine(&q, &whole[0]));
}
