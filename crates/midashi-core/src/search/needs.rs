//! Fetching as a plan: a request on an index whose files arrive asynchronously (a browser)
//! answers either its result or what it still needs — files of the index folder (keyword
//! shards, cards, bundles, the lexicon, the tree, the paths, vectors and their graph) or a
//! fuller engine than this build — and the caller fetches, attaches
//! ([`SearchIndex::attach_file`]) and asks again. One pattern for both layouts and the
//! semantic leg: a single-file index needs at most its vectors, a sharded one the files its
//! query reads, in two rounds for a keyword query (shards, then the cards of the page).
//!
//! Inside the engine a missing file stops the request where it is noticed (the layout
//! answers [`Error::NeedsFiles`] through `?`); the `*_step` methods here are the one place
//! that turns it into a value, so no caller steers by errors. Native callers open a sharded
//! index with a file source and never see a need for files.

use super::SearchIndex;
use crate::answer::{DocumentView, SearchOptions, SearchResponse, SectionView};
use crate::error::{Error, Result};
use crate::section::SectionId;

/// What a request still needs before this engine can answer it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Needs {
    /// Files of the index folder to fetch and attach, by name.
    pub files: Vec<String>,
    /// The request needs what this build of the engine leaves out (typo corrections,
    /// bundles, the semantic leg): run it in the full engine.
    pub full_engine: bool,
}

/// A request's answer, or what it still needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<T> {
    /// The answer.
    Ready(T),
    /// Fetch and attach these, or move to the full engine, then ask again.
    Needs(Needs),
}

impl<T> Step<T> {
    /// The answer, or the needs a request stopped at.
    fn of(result: Result<T>) -> Result<Self> {
        match result {
            Ok(value) => Ok(Step::Ready(value)),
            Err(e) => needs_of(e).map(Step::Needs),
        }
    }
}

/// What an error that stopped a request says it needs; any other error stays one. Not
/// generic, so the wasm modules hold one copy whatever the answer's type.
#[inline(never)]
fn needs_of(e: Error) -> Result<Needs> {
    match e {
        Error::NeedsFiles(files) => Ok(Needs {
            files,
            full_engine: false,
        }),
        Error::NeedsFullEngine(_) => Ok(Needs {
            files: Vec::new(),
            full_engine: true,
        }),
        e => Err(e),
    }
}

impl SearchIndex {
    /// [`SearchIndex::search`], answering what the query still needs instead of failing
    /// for it.
    pub fn search_step(
        &self,
        query: &str,
        opts: &SearchOptions,
        query_vector: Option<&[f32]>,
    ) -> Result<Step<SearchResponse>> {
        Step::of(self.search(query, opts, query_vector))
    }

    /// [`SearchIndex::suggest`], answering what the prefix still needs.
    pub fn suggest_step(&self, prefix: &str, limit: usize) -> Result<Step<Vec<String>>> {
        Step::of(self.suggest(prefix, limit))
    }

    /// A section by id or by `path#anchor` (as `build-index get` takes them), or what
    /// finding it still needs; `Ready(None)` when there is no such section.
    pub fn section_step(&self, target: &str) -> Result<Step<Option<SectionView>>> {
        let id = SectionId::parse(target).or_else(|| {
            let (path, anchor) = target.split_once('#')?;
            self.find_anchor(path, anchor)
        });
        let found = id.and_then(|id| self.get_section(id));
        self.found_step(found)
    }

    /// A document by path, or what finding it still needs; `Ready(None)` when there is none.
    pub fn document_step(&self, path: &str) -> Result<Step<Option<DocumentView>>> {
        let found = self.get_document(path);
        self.found_step(found)
    }

    /// A look-up's answer: what it found, else what it lacked to answer (a sharded index
    /// notes the paths file or the bundle it did not have), else that there is none.
    fn found_step<T>(&self, found: Option<T>) -> Result<Step<Option<T>>> {
        match found {
            Some(v) => Ok(Step::Ready(Some(v))),
            None => Step::of(self.pending().map(|()| None)),
        }
    }
}
