//! Where scores are made and lists are ordered.
//!
//! - [`bm25`]: BM25F of a term in a section, its idf (made at build time), the quantisation
//!   both layouts share, and the one order of ranked lists;
//! - [`fields`]: the indexed fields, their weights and the field-length table;
//! - [`pipeline`]: what happens after scoring, one rule for both layouts;
//! - [`fusion`]: the keyword and semantic legs combined;
//! - [`coverage`]: how much of a Japanese or Korean question a section holds, for fusion;
//! - [`grouping`]: a passage shown once — which sections of an ancestor chain are results;
//! - [`versions`]: one result per section across a versioned site's versions;
//! - [`language`]: the reader's language first on a multilingual site.

pub mod bm25;
pub mod coverage;
pub mod fields;
pub mod fusion;
pub mod grouping;
pub mod language;
pub mod pipeline;
pub mod versions;
