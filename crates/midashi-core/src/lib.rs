//! Midashi's engine, shared by the native indexer/CLI and the WebAssembly search module.
//!
//! Everything that build time and query time must agree on lives here exactly once:
//! - [`section`] — the section model (what a search result is);
//! - [`analyzer`] — how text becomes terms (one analyzer for documents and queries);
//! - [`index`] — the keyword index (term dictionary, postings, field lengths) and its builder;
//! - [`query`] — how a query string becomes weighted clauses (prefix, fuzzy, synonyms);
//! - [`scoring`] — BM25F;
//! - [`vectors`] — int8 section vectors and their scan;
//! - [`ann`] — an HNSW graph over the vectors, for sets too large to scan;
//! - [`fusion`] — reciprocal rank fusion and linear blending of the two legs;
//! - [`search`] — running a query: filters, grouping, previews, highlights;
//! - [`versions`] — versioned docs: one result per section across product versions;
//! - [`shards`] — the sharded layout of large sites: files a browser fetches per query;
//! - [`sort`] — the one sort query time uses (one copy in the wasm module);
//! - [`format`] — the bytes on disk (magic, version, checksum, postcard) and the entry file.
//!
//! The crate does no I/O: callers hand it bytes and get bytes back, so the same code runs
//! in `build-index` and in the browser.

pub mod analyzer;
pub mod ann;
pub mod error;
pub mod format;
pub mod fusion;
pub mod index;
pub mod query;
pub mod scoring;
pub mod search;
pub mod section;
pub mod shards;
pub mod sort;
pub mod vectors;
pub mod versions;

pub use error::{Error, Result};
pub use search::{Mode, SearchHit, SearchIndex, SearchOptions, SearchResponse};
