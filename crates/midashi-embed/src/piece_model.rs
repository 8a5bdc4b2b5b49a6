//! Which tokenizers a static table's queries can be cut as (`midashi_core::vectors::pieces`
//! for WordPiece, `unigram` for SentencePiece Unigram), read from the model's tokenizer.

use crate::Embedder;

/// A tokenizer whose cuts a static table can follow ([`Embedder::piece_model`]).
#[derive(Debug, Clone, PartialEq)]
pub enum PieceModel {
    /// Uncased WordPiece, `##` before a continuation.
    WordPiece,
    /// SentencePiece Unigram: each piece's log-probability, by id.
    Unigram(Vec<f32>),
}

impl Embedder {
    /// The tokenizer's kind when the core can cut a static table's queries as it does
    /// (`midashi_core::vectors::{pieces, unigram}`): MiniLM's, multilingual-e5-small's.
    pub fn piece_model(&self) -> Option<PieceModel> {
        let json = self.tokenizer.to_string(false).ok()?;
        let tok: serde_json::Value = serde_json::from_str(&json).ok()?;
        let model = &tok["model"];
        if model["type"] == "WordPiece" {
            let uncased = tok["normalizer"]["lowercase"] != false;
            let continued = model["continuing_subword_prefix"] == "##";
            return (uncased && continued).then_some(PieceModel::WordPiece);
        }
        let pre = &tok["pre_tokenizer"];
        let metaspace = pre["type"] == "Metaspace" && pre["replacement"] == "\u{2581}";
        if model["type"] != "Unigram" || !metaspace {
            return None;
        }
        let scores: Option<Vec<f32>> = model["vocab"]
            .as_array()?
            .iter()
            .map(|e| e.get(1)?.as_f64().map(|s| s as f32))
            .collect();
        scores.map(PieceModel::Unigram)
    }
}
