//! Midashi's engine, shared by the native indexer/CLI and the WebAssembly search module.
//!
//! Everything that build time and query time must agree on lives here exactly once, one
//! concept per module (`ARCHITECTURE.md` at the repository root maps them):
//! - [`section`] — the section model (what a search result is) and its stored records;
//! - [`analyzer`] — how text becomes terms (one analyzer for documents and queries);
//! - [`query`] — how a query string becomes weighted clauses (lexicon, prefix, typos,
//!   synonyms);
//! - [`rank`] — where scores are made: BM25F with idf, field lengths and quantisation, the
//!   pipeline after scoring (filters, exact-heading lift, grouping), fusion of the two legs,
//!   version collapse;
//! - [`layout`] — the two ways an index is laid out on disk, each with its writer beside its
//!   reader: [`layout::single`] (two files) and [`layout::sharded`] (many small files);
//! - [`search`] — a loaded index answering queries (lifecycle and the one pipeline);
//! - [`answer`] — search options and results (hits, previews, highlights) as every caller
//!   sees them;
//! - [`vectors`] — int8 section vectors, their scan and an HNSW graph;
//! - [`build`] — sections in, index files out;
//! - [`mod@format`] — the bytes on disk: frame (magic, version, checksum), readers, file kinds,
//!   the entry file;
//! - [`sort`] — the one sort query time uses (one copy in the wasm module).
//!
//! The crate does no I/O: callers hand it bytes and get bytes back, so the same code runs
//! in `build-index` and in the browser.

pub mod analyzer;
pub mod answer;
pub mod build;
pub mod error;
pub mod format;
pub mod layout;
pub mod query;
pub mod rank;
pub mod search;
pub mod section;
pub mod sort;
pub mod vectors;

pub use answer::{Mode, SearchHit, SearchOptions, SearchResponse};
pub use error::{Error, Result};
pub use search::SearchIndex;
