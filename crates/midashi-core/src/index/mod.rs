//! The keyword index: what the builder writes and the searcher reads.
//!
//! Two payloads, each its own file (see [`crate::format`]):
//! - [`TermsData`]: the term dictionary (an `fst` map from term to the offset of its posting
//!   list), the posting lists, per-section field lengths, display forms of stemmed terms and
//!   the synonym groups;
//! - [`SectionsData`]: section metadata and the documents' source text (previews, `get`).

pub mod builder;
pub mod fields;
pub mod postings;
pub mod synonyms;

pub use builder::{
    BuildOutput, IndexBuilder, IndexSettings, Layout, ModelFiles, SHARD_CUTOVER_BYTES,
};
pub use fields::{Field, FieldWeights, NUM_FIELDS};
pub use synonyms::Synonyms;

use crate::section::Hints;
use serde::{Deserialize, Serialize};

/// The payload of the terms file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermsData {
    /// Sections indexed (all depths).
    pub n_sections: u32,
    /// BM25F parameters the index was built for.
    pub weights: FieldWeights,
    /// Average length (in terms) of each field over all sections.
    pub avg_len: [f32; NUM_FIELDS],
    /// `fst::Map` bytes: term → byte offset of its posting list in `postings`.
    #[serde(with = "serde_bytes")]
    pub fst: Vec<u8>,
    /// All posting lists (see [`postings`]).
    #[serde(with = "serde_bytes")]
    pub postings: Vec<u8>,
    /// Field lengths, `NUM_FIELDS` little-endian u16 per section (saturating).
    #[serde(with = "serde_bytes")]
    pub field_lengths: Vec<u8>,
    /// For stemmed terms: the most frequent word that produced them (`configur` →
    /// `configuration`), sorted by posting offset; used for suggestions and completions.
    pub surfaces: Vec<(u64, String)>,
    /// Synonym groups, each member already analyzed into terms.
    pub synonyms: Vec<Vec<Vec<String>>>,
}

/// One source document in the sections file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocRecord {
    /// Path relative to the docs root.
    pub path: String,
    /// Page URL (no anchor).
    pub url: String,
    /// Document title.
    pub title: String,
    /// The source text (previews and `get` quote it).
    pub source: String,
    /// Frontmatter hints.
    pub hints: Hints,
    /// Ordinal of the document's depth-0 section; its sections are contiguous.
    pub first_section: u32,
    /// Number of sections of the document.
    pub section_count: u32,
}

/// One section in the sections file (the section model without the analyzed text, which
/// lives in the postings, and without what the document already holds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionRecord {
    /// Stable id.
    pub id: u64,
    /// Ordinal of its document.
    pub doc: u32,
    /// Anchor, `None` for depth 0.
    pub anchor: Option<String>,
    /// Heading text.
    pub heading: String,
    /// 0–6.
    pub depth: u8,
    /// Breadcrumbs ending with its own heading.
    pub heading_path: Vec<String>,
    /// Ordinal of the parent section.
    pub parent: Option<u32>,
    /// 1-based ordinal among same-depth siblings.
    pub section_number: u32,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line of the subtree (inclusive).
    pub end_line: u32,
    /// Last line of its own text (inclusive).
    pub own_end_line: u32,
    /// Token estimate of heading + own text + code.
    pub token_estimate: u32,
}

/// The payload of the sections file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionsData {
    /// Documents in path order.
    pub docs: Vec<DocRecord>,
    /// Sections, document by document, each document in pre-order.
    pub sections: Vec<SectionRecord>,
}
