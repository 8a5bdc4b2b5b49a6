//! The core's hand-written WordPiece (`midashi_core::vectors::pieces`, what a browser cuts a
//! query into for the static leg) against the `tokenizers` crate with the default model's
//! tokenizer.json, line by line over the Rust book.

use crate::common::{available, model_dir};
use midashi_core::vectors::pieces::WordPieces;
use midashi_core::vectors::unigram::UnigramPieces;
use std::path::{Path, PathBuf};

fn markdown_lines(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_lines(&path, out);
        } else if path.extension().is_some_and(|x| x == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string),
            );
        }
    }
}

/// The lines of `corpus` (a folder of ../shared/corpora, which must exist) whose pieces by
/// `ours` differ from `tokenizer`'s with its unknown piece `unk` left out (it has no row in a
/// table either), and how many lines there were.
fn differing(
    corpus: &str,
    tokenizer: &tokenizers::Tokenizer,
    unk: &str,
    ours: impl Fn(&str) -> Vec<u32>,
    most: usize,
) -> (Vec<String>, usize) {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpora")
        .join(corpus);
    assert!(
        docs.is_dir(),
        "{} is missing: the tests need ../shared beside the clone",
        docs.display()
    );
    let unk = tokenizer.token_to_id(unk);
    let mut lines = Vec::new();
    markdown_lines(&docs, &mut lines);
    lines.truncate(most);
    let differ = lines
        .iter()
        .filter(|line| {
            let expected: Vec<u32> = tokenizer
                .encode_fast(line.as_str(), false)
                .unwrap()
                .get_ids()
                .iter()
                .copied()
                .filter(|&id| Some(id) != unk)
                .collect();
            ours(line) != expected
        })
        .cloned()
        .collect();
    (differ, lines.len())
}

/// The folder and tokenizer of the model in `$env` (else `models/<name>`); `None` when it is
/// not installed, which fails the test where the model is required (`available`).
fn installed(env: &str, name: &str, fetch: &str) -> Option<(PathBuf, tokenizers::Tokenizer)> {
    let dir = model_dir(env, name);
    if !available(&dir, fetch, true) {
        return None;
    }
    let tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    Some((dir, tokenizer))
}

#[test]
fn pieces_match_the_tokenizer_on_the_rust_book() {
    let Some((_, tokenizer)) = installed(
        "MIDASHI_MODEL_DIR",
        "all-MiniLM-L6-v2",
        "scripts/fetch-model.sh",
    ) else {
        return;
    };
    let pieces = WordPieces::new(tokenizer.get_vocab(true));
    let (differ, lines) = differing(
        "rust-book",
        &tokenizer,
        "[UNK]",
        |l| pieces.split(l),
        usize::MAX,
    );
    assert!(lines > 10_000, "{lines} lines");
    // Nonspacing marks without a combining class (Devanagari vowel signs) are kept by the
    // core and dropped by BERT: 3 of 20,061 lines (see the module docs).
    let share = differ.len() as f64 / lines as f64;
    assert!(
        share < 0.0005,
        "{} of {lines} lines differ, e.g. {:?}",
        differ.len(),
        &differ[..differ.len().min(5)]
    );
}

/// The core's hand-written Unigram cutter (`midashi_core::vectors::unigram`, a Japanese
/// site's static table) against `tokenizers` with multilingual-e5-small's tokenizer.json,
/// line by line over the Japanese Vue docs.
#[test]
fn unigram_pieces_match_the_tokenizer_on_the_japanese_vue_docs() {
    let Some((dir, tokenizer)) = installed(
        "MIDASHI_E5_DIR",
        "multilingual-e5-small",
        "scripts/fetch-e5.sh",
    ) else {
        return;
    };
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tokenizer.json")).unwrap())
            .unwrap();
    let vocab = json["model"]["vocab"].as_array().unwrap();
    let pieces = UnigramPieces::new(vocab.iter().enumerate().map(|(id, e)| {
        (
            e[0].as_str().unwrap().to_string(),
            id as u32,
            e[1].as_f64().unwrap() as f32,
        )
    }));
    let (differ, lines) = differing(
        "vue-docs-ja",
        &tokenizer,
        "<unk>",
        |l| pieces.split(l),
        20_000,
    );
    assert!(lines > 5_000, "{lines} lines");
    // The model's normaliser is a precompiled NFKC variant; the core's is NFKC itself.
    let share = differ.len() as f64 / lines as f64;
    assert!(
        share < 0.01,
        "{} of {lines} lines differ, e.g. {:?}",
        differ.len(),
        &differ[..differ.len().min(5)]
    );
}
