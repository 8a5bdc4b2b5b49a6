//! The words a query marks in its results: one [`Marker`] per query, so that the stems
//! worked out for one result's text serve the next (a page of results, each analysed for
//! its preview and its excerpt, repeats most of its words).
use crate::analyzer::{Analyzer, CjkWords, MatchMemo, StemMemo};
use rustc_hash::FxHashSet as HashSet;
use std::cell::RefCell;

/// What a page of results shows: how many lines of each section's source, whether an
/// excerpt, and which words are marked in them.
pub struct Shown<'t> {
    /// Lines of source in each preview ([`crate::SearchOptions::preview_lines`]).
    pub preview_lines: usize,
    /// Whether each result gets its excerpt ([`crate::SearchOptions::excerpts`]).
    pub excerpts: bool,
    /// The query's words.
    pub marker: Marker<'t>,
}

/// A query's terms, and the stems its results' texts have needed so far.
pub struct Marker<'t> {
    terms: &'t HashSet<&'t str>,
    /// The query's CJK words: only bigrams that make them up are marked.
    cjk: CjkWords,
    memo: RefCell<MatchMemo<'t>>,
}

impl<'t> Marker<'t> {
    /// A marker of `terms` (the query's terms as the analyzer makes them).
    pub fn new(terms: &'t HashSet<&'t str>) -> Self {
        Marker {
            terms,
            cjk: CjkWords::default(),
            memo: RefCell::new(MatchMemo::default()),
        }
    }

    /// A marker of `terms` that starts from the stems `stems` (an index's, kept from query to
    /// query: the next keystroke's results repeat this one's words).
    pub fn with_stems(terms: &'t HashSet<&'t str>, stems: StemMemo) -> Self {
        Marker {
            terms,
            cjk: CjkWords::default(),
            memo: RefCell::new(MatchMemo::with_stems(stems)),
        }
    }

    /// This marker, marking a CJK bigram only where it is part of one of `query`'s words
    /// ([`CjkWords`]).
    pub fn for_query(mut self, query: &str) -> Self {
        self.cjk = CjkWords::of(query);
        self
    }

    /// The stems worked out so far, to be kept for the next query.
    pub fn into_stems(self) -> StemMemo {
        self.memo.into_inner().into_stems()
    }

    /// The query's terms.
    pub fn terms(&self) -> &HashSet<&'t str> {
        self.terms
    }

    /// Whether the query has no terms (nothing to mark).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The query's terms in `text` as `analyzer` reads it, with their byte ranges, in order.
    pub fn find(&self, analyzer: &Analyzer, text: &str) -> Vec<(usize, usize, &'t str)> {
        if self.terms.is_empty() {
            return Vec::new();
        }
        let found = analyzer.matches(text, self.terms, &mut self.memo.borrow_mut());
        self.cjk.keep(text, found)
    }
}
