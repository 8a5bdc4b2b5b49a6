//! A query as planned, and what its options allow: whether its first page may be found
//! without ranking every candidate ([`crate::rank::topk`]), and whether the reader's
//! language can reorder anything on this site.
use super::operators::Filters;
use super::SearchIndex;
use crate::analyzer::Analyzer;
use crate::answer::{Mode, SearchOptions};
use crate::layout::Layout;
use crate::query::QueryPlan;
use crate::rank::language::reorders;

/// The deepest page (offset + limit) a keyword query finds without ranking every
/// candidate: deeper pages need more of the list than the bound keeps.
const MAX_PRUNED_PAGE: usize = 100;

/// A query as planned: its clauses, and what its operators allow.
pub(super) struct Planned {
    /// The rules the query is read by.
    pub analyzer: Analyzer,
    pub plan: QueryPlan,
    pub filters: Option<Filters>,
    /// The reader's language, when preferring it can change an order on this site
    /// ([`SearchIndex::reader_language`]).
    pub prefer: Option<String>,
}

impl Planned {
    /// Whether the query may find its page without ranking every candidate: a plain
    /// keyword query does; one with filters, operators, facets, a reader's language that
    /// reorders or a score floor reads every result, and so does a deep page.
    pub fn prunable(&self, mode: Mode, opts: &SearchOptions) -> bool {
        mode == Mode::Keyword
            && self.filters.is_none()
            && self.prefer.is_none()
            && !opts.has_filters()
            && !opts.facets
            && opts.min_score.is_none()
            && opts.offset.saturating_add(opts.limit) <= MAX_PRUNED_PAGE
    }
}

impl SearchIndex {
    /// `want` (`SearchOptions::prefer_lang`) when preferring it can reorder results here:
    /// not on a site whose pages are all in one language — most sites, and what the widget
    /// asks on every page (its `<html lang>`), so that such queries keep the bound. The
    /// site's distinct tags are gathered once.
    pub(super) fn reader_language(&self, store: &dyn Layout, want: Option<&str>) -> Option<String> {
        let want = want.filter(|w| !w.trim().is_empty())?;
        let tags = self.doc_languages.get_or_init(|| {
            let mut tags: Vec<Option<String>> = Vec::new();
            for d in 0..store.document_count() {
                let tag = store.document_language(d as u32);
                if !tags.iter().any(|t| t.as_deref() == tag) {
                    tags.push(tag.map(String::from));
                }
            }
            tags
        });
        reorders(want, tags).then(|| want.to_string())
    }
}
