//! How text becomes terms. ONE analyzer, used by the index builder and by queries, natively
//! and in wasm: if build and query disagree here, nothing is found.
//!
//! (Work in progress: the API below is the contract; see the module docs once filled in.)

/// One term occurrence in analyzed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The indexed form: normalised, case-folded, stemmed (English), or a CJK bigram.
    pub term: String,
    /// Word position (identifier parts share their whole word's position).
    pub position: u32,
    /// Byte range of the source text this term came from (into the *original* text).
    pub start: usize,
    /// End of that byte range (exclusive).
    pub end: usize,
}

/// The analyzer.
#[derive(Debug, Default, Clone)]
pub struct Analyzer {}

impl Analyzer {
    /// A new analyzer.
    pub fn new() -> Self {
        Analyzer {}
    }

    /// Analyzes document text: every term, stopwords included.
    pub fn analyze(&self, text: &str) -> Vec<Token> {
        let _ = text;
        Vec::new()
    }
}
