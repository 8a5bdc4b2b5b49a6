//! Where scores are made and lists are ordered.
//!
//! - [`bm25`]: BM25F of a term in a section, its idf (made at build time), the quantisation
//!   both layouts share, and the one order of ranked lists;
//! - [`fields`]: the indexed fields, their weights and the field-length table;
//! - [`facts`]: what ranking knows of a section beyond its score;
//! - [`pipeline`]: what happens after scoring, one rule for both layouts;
//! - [`headings`]: the exact-heading lift (a page titled as the query first);
//! - [`fusion`]: the keyword and semantic legs combined;
//! - [`coverage`]: how much of a Japanese or Korean question a section holds, for fusion;
//! - [`grouping`]: a passage shown once — which sections of an ancestor chain are results;
//! - [`versions`]: one result per section across a versioned site's versions;
//! - [`language`]: the reader's language first on a multilingual site;
//! - [`topk`]: the first results without ranking every candidate (its checks), [`bound`]
//!   the bound itself (feature `bounded`);
//! - [`workspace`]: the tables over sections a query fills, kept between queries.

pub mod bm25;
#[cfg_attr(not(feature = "bounded"), path = "bound_off.rs")]
pub(crate) mod bound;
pub mod coverage;
pub mod facts;
pub mod fields;
pub mod fusion;
pub mod grouping;
pub mod headings;
pub mod language;
pub mod pipeline;
pub(crate) mod topk;
pub mod versions;
pub mod workspace;
