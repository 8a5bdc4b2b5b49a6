//! The stored form of documents and sections: what the sections file holds, and what a
//! sharded index's cards and bundles carry of them. Both layouts and the builder share these
//! records, so a result reads the same whichever file it came from.
use super::Hints;
use crate::format::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};
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

impl Decode for DocRecord {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(DocRecord {
            path: Decode::decode(r)?,
            url: Decode::decode(r)?,
            title: Decode::decode(r)?,
            source: Decode::decode(r)?,
            hints: Decode::decode(r)?,
            first_section: r.u32()?,
            section_count: r.u32()?,
        })
    }
}

impl Decode for SectionRecord {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(SectionRecord {
            id: r.u64()?,
            doc: r.u32()?,
            anchor: Decode::decode(r)?,
            heading: Decode::decode(r)?,
            depth: r.byte()?,
            heading_path: Decode::decode(r)?,
            parent: Decode::decode(r)?,
            section_number: r.u32()?,
            start_line: r.u32()?,
            end_line: r.u32()?,
            own_end_line: r.u32()?,
            token_estimate: r.u32()?,
        })
    }
}

impl Decode for SectionsData {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(SectionsData {
            docs: Decode::decode(r)?,
            sections: Decode::decode(r)?,
        })
    }
}

/// The byte offset where each line of `source` starts.
pub(crate) fn line_starts(source: &str) -> Vec<u32> {
    std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect()
}

/// Lines `from..=to` (1-based) of a document's source.
pub(crate) fn lines_of<'a>(source: &'a str, starts: &[u32], from: u32, to: u32) -> &'a str {
    let from = (from.max(1) - 1) as usize;
    let a = starts.get(from).copied().unwrap_or(source.len() as u32) as usize;
    let b = starts
        .get(to as usize)
        .copied()
        .unwrap_or(source.len() as u32) as usize;
    source.get(a..b.max(a)).unwrap_or("")
}
