//! The section model: what Midashi indexes and what a search returns.
//!
//! A document is a tree. Depth 0 is the whole document (its title, and the text before its
//! first heading); depths 1–6 are its headings. Each node is a [`Section`]. Records from a
//! JSONL file become one depth-0 section each.
//!
//! Sections are produced by `midashi-markdown` (or the JSONL reader in `build-index`) and
//! consumed by the index builder; nothing here parses Markdown.

pub mod records;
use crate::format::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A stable section id: a hash of the document path, the heading path and the occurrence
/// number of that heading path in the document. It does not depend on content, so an id
/// survives edits to the section's text (and to other sections).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SectionId(pub u64);

impl SectionId {
    /// The id of a section: `doc_path`, its heading path (headings from depth 1 down to the
    /// section itself; empty for depth 0) and `occurrence`, which counts earlier sections of
    /// the same document with the same heading path (0 for the first).
    pub fn new(doc_path: &str, heading_path: &[String], occurrence: u32) -> Self {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(doc_path.as_bytes());
        for part in heading_path {
            // Length-prefixed, so ["a b"] and ["a", "b"] can never hash alike.
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.update(&[0xff]);
        h.update(&occurrence.to_le_bytes());
        SectionId(h.digest())
    }

    /// Parses the 16-hex-digit form printed by [`fmt::Display`].
    pub fn parse(s: &str) -> Option<Self> {
        if s.len() != 16 {
            return None;
        }
        u64::from_str_radix(s, 16).ok().map(SectionId)
    }
}

/// What each section of a document hashes into its id, section by section: the headings
/// from depth 1 down to it (its parent's, then its own) and how many earlier sections of the
/// document have the same ones. The one statement of the rule: the Markdown builder makes
/// ids with it, and readers of the sharded layout re-derive the ids they leave out.
#[derive(Debug, Default)]
pub struct IdPaths {
    /// Per section so far: its heading path (`None`: its parent was not an earlier section).
    paths: Vec<Option<Vec<String>>>,
    seen: rustc_hash::FxHashMap<Vec<String>, u32>,
}

impl IdPaths {
    /// A walk over a new document.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next section of the document, whose parent is the `parent`-th section of this
    /// walk (`None` for depth 0): its heading path and occurrence for [`SectionId::new`].
    /// `None` when `parent` is not an earlier section, or its own path is `None` (a damaged
    /// file).
    pub fn next(&mut self, parent: Option<usize>, heading: &str) -> Option<(Vec<String>, u32)> {
        let path = match parent {
            None => Some(Vec::new()),
            Some(p) => self.paths.get(p).cloned().flatten().map(|mut path| {
                path.push(heading.to_string());
                path
            }),
        };
        self.paths.push(path.clone());
        let path = path?;
        let occurrence = self.seen.entry(path.clone()).or_insert(0);
        *occurrence += 1;
        Some((path, *occurrence - 1))
    }
}

impl fmt::Display for SectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Author-supplied hints, from frontmatter. They belong to the document and are copied to
/// each of its sections so that every section can be filtered and boosted by them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hints {
    /// Frontmatter `title`, if any.
    pub title: Option<String>,
    /// Frontmatter `description` (or `summary`): shown to agents before body previews.
    pub description: Option<String>,
    /// Frontmatter `keywords`.
    pub keywords: Vec<String>,
    /// Frontmatter `tags`.
    pub tags: Vec<String>,
    /// Frontmatter `category`, else the document's first folder.
    pub category: Option<String>,
    /// Language of the document (frontmatter `lang`), used by language filters.
    pub lang: Option<String>,
    /// Product or docs version (frontmatter `version`, or a version-like first path segment).
    pub version: Option<String>,
}

/// One node of a document's section tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// See [`SectionId`].
    pub id: SectionId,
    /// Path of the source file relative to the docs root, with `/` separators
    /// (for JSONL records: the record's `_id`).
    pub doc_path: String,
    /// URL of the page (without the anchor), as the site generator would serve it.
    pub url: String,
    /// Anchor (fragment, without `#`) of the heading; `None` for depth 0.
    pub anchor: Option<String>,
    /// The heading's text (inline markup removed); for depth 0 the document title.
    pub heading: String,
    /// 0 for the whole document, 1–6 for headings.
    pub depth: u8,
    /// Breadcrumbs: the document title, then the headings of the ancestors, ending with this
    /// section's own heading. For depth 0: just the title.
    pub heading_path: Vec<String>,
    /// The enclosing section (`None` only for depth 0).
    pub parent: Option<SectionId>,
    /// Position in the document, pre-order, 0 for the document node.
    pub order: u32,
    /// 1-based ordinal among siblings of the same depth under the same parent.
    pub section_number: u32,
    /// First line of the section in the source file (1-based): the heading line for depth ≥ 1
    /// (the first line of a setext heading's text), line 1 for depth 0.
    pub start_line: u32,
    /// Last line of the section including its subsections (1-based, inclusive).
    pub end_line: u32,
    /// Last line of the section's own text, before its first subsection (inclusive).
    pub own_end_line: u32,
    /// The section's own prose: paragraphs, lists, tables, link text, image alt text,
    /// container contents; not its heading, not code blocks, not its subsections.
    pub text: String,
    /// The section's own code blocks (fenced and indented), a separate low-weight field.
    pub code: String,
    /// Frontmatter hints of the document.
    pub hints: Hints,
    /// Estimate of the model tokens of heading + text + code (roughly chars / 4 for
    /// Latin script, one per CJK character); the embedder replaces it with exact counts.
    pub token_estimate: u32,
}

/// A parsed source document: its sections in pre-order (index 0 is depth 0), plus the
/// source text that previews and `get` quote from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// Path relative to the docs root, `/` separators.
    pub path: String,
    /// Page URL without anchor.
    pub url: String,
    /// Document title (frontmatter title, else first H1, else the file stem).
    pub title: String,
    /// The source text, as read (after UTF-8 decoding; line endings kept).
    pub source: String,
    /// Sections in pre-order; `sections[0]` is the depth-0 document node.
    pub sections: Vec<Section>,
    /// How much the page's keyword scores count: 1 as written, 2 twice, 0.5 half (frontmatter
    /// `search_weight`, `data-midashi-weight`). Stored in sixteenths, 0 to 15.9375.
    #[serde(default = "unweighted")]
    pub weight: f32,
}

fn unweighted() -> f32 {
    1.0
}

/// A page weight as stored: sixteenths in one byte (16 is 1.0), rounded and clamped.
pub fn weight_byte(weight: f32) -> u8 {
    if !weight.is_finite() || weight <= 0.0 {
        return 0;
    }
    (weight * 16.0).round().min(255.0) as u8
}

/// Something worth telling the person who runs the build, with its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Source file, relative to the docs root.
    pub path: String,
    /// 1-based line, when the warning has one.
    pub line: Option<u32>,
    /// What is wrong and, where it helps, what to do.
    pub message: String,
}

impl Decode for Hints {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Hints {
            title: Decode::decode(r)?,
            description: Decode::decode(r)?,
            keywords: Decode::decode(r)?,
            tags: Decode::decode(r)?,
            category: Decode::decode(r)?,
            lang: Decode::decode(r)?,
            version: Decode::decode(r)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_distinguish_occurrences() {
        let p = vec!["Guide".to_string(), "Setup".to_string()];
        let a = SectionId::new("guide.md", &p, 0);
        assert_eq!(a, SectionId::new("guide.md", &p, 0));
        assert_ne!(a, SectionId::new("guide.md", &p, 1));
        assert_ne!(a, SectionId::new("other.md", &p, 0));
        let joined = vec!["Guide\u{1f}Setup".to_string()];
        assert_ne!(a, SectionId::new("guide.md", &joined, 0));
        assert_eq!(SectionId::parse(&a.to_string()), Some(a));
        assert_eq!(SectionId::parse("xyz"), None);
    }
}

#[cfg(test)]
mod id_paths {
    use super::IdPaths;

    #[test]
    fn heading_paths_and_occurrences() {
        let mut w = IdPaths::new();
        let s = |v: &[&str]| v.iter().map(|h| h.to_string()).collect::<Vec<_>>();
        assert_eq!(w.next(None, "Title"), Some((vec![], 0)));
        assert_eq!(w.next(Some(0), "Usage"), Some((s(&["Usage"]), 0)));
        assert_eq!(w.next(Some(1), "Notes"), Some((s(&["Usage", "Notes"]), 0)));
        assert_eq!(w.next(Some(0), "Usage"), Some((s(&["Usage"]), 1)));
        assert_eq!(w.next(Some(3), "Notes"), Some((s(&["Usage", "Notes"]), 1)));
        // A parent that is not an earlier section: no path, for it and its children.
        assert_eq!(w.next(Some(9), "Lost"), None);
        assert_eq!(w.next(Some(5), "Child"), None);
        assert_eq!(w.next(Some(0), "Other"), Some((s(&["Other"]), 0)));
    }
}
