//! What a query asks and what it answers: the options of a search and the results it
//! returns, as the CLI prints them, the JS API hands them over and the MCP server quotes
//! them. One definition: the JSON of every caller comes from these types' serde.
//!
//! [`hit`] makes a result from a stored section: its preview, highlights and links;
//! [`excerpt`] the plain-text window that shows why it matched; [`marks`] finds the query's
//! words in both.
pub mod excerpt;
pub mod hit;
pub mod marks;
mod plain;
pub mod quote;

use crate::rank::fusion::Fusion;
use crate::section::records::{DocRecord, SectionRecord};
use crate::section::SectionId;
use serde::{Deserialize, Serialize};
/// Which legs a query runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Hybrid when a query vector is given and the model covers the query's script (see
    /// [`crate::SearchIndex::semantic_covers`]), keyword otherwise.
    #[default]
    Auto,
    /// BM25F only.
    Keyword,
    /// Vectors only.
    Semantic,
    /// Both, fused.
    Hybrid,
}

/// Options of a search. Field names are camelCase in JSON (the JS API's options object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SearchOptions {
    /// Results per page (1–1000).
    pub limit: usize,
    /// Results to skip.
    pub offset: usize,
    /// Which legs.
    pub mode: Mode,
    /// How hybrid fuses.
    pub fusion: Fusion,
    /// Only documents whose path starts with this.
    pub path: Option<String>,
    /// Only documents of this category.
    pub category: Option<String>,
    /// Only documents carrying all these tags.
    pub tags: Vec<String>,
    /// Only sections of these depths (empty: all).
    pub depth: Vec<u8>,
    /// Only documents in this language.
    pub lang: Option<String>,
    /// Documents in this language first, then those without a language, then the others,
    /// each in rank order; unlike `lang`, nothing is left out. A tag matches its own
    /// subtags and its base (`ja` ~ `ja-JP`, `zh-TW` ~ `zh`, not `zh-CN`). What a search box
    /// on a page of a multilingual site sends: the page's language.
    pub prefer_lang: Option<String>,
    /// Only documents of this version.
    pub version: Option<String>,
    /// Drop results scoring below this.
    pub min_score: Option<f32>,
    /// Lines of source in each preview.
    pub preview_lines: usize,
    /// Give each result its excerpt (the few words of its section that show why it
    /// matched, marked). Analysing the result's text for it is most of what a result costs:
    /// `false` for a caller that needs only the results' places and lines (an agent quoting
    /// sections, a benchmark of ranking against engines that return ids).
    pub excerpts: bool,
    /// Treat the last word as a prefix (search as you type).
    pub prefix: bool,
    /// Try typo corrections for words not in the index.
    pub fuzzy: bool,
    /// Show a passage once: a section with no text of its own gives its place to its first
    /// relative with text (`rank::grouping::group_chains`); `false` lists every
    /// matching section.
    pub group: bool,
    /// On a versioned site, show each section once (its newest matching version) with the
    /// other versions listed in [`SearchHit::other_versions`], instead of once per version.
    pub collapse_versions: bool,
    /// Count the results per facet ([`SearchResponse::facets`]): what a search box offers
    /// as filters.
    pub facets: bool,
    /// Count the results per facet when the query ranks every candidate anyway, which costs
    /// little more; a query whose page is found without ranking them all (a common word on
    /// a large site: [`SearchResponse::total_exact`] is then false) answers
    /// [`SearchResponse::facets`] `None`, to be asked again with [`SearchOptions::facets`]
    /// when the counts are wanted. What a search box asks as its reader types: the page at
    /// once, the counts once typing pauses.
    pub facets_if_ranked: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 10,
            offset: 0,
            mode: Mode::Auto,
            fusion: Fusion::default(),
            path: None,
            category: None,
            tags: Vec::new(),
            depth: Vec::new(),
            lang: None,
            prefer_lang: None,
            version: None,
            min_score: None,
            preview_lines: 5,
            excerpts: true,
            prefix: true,
            fuzzy: true,
            group: true,
            collapse_versions: true,
            facets: false,
            facets_if_ranked: false,
        }
    }
}

impl SearchOptions {
    /// The numeric options every interface hands over as they came: NaN or an infinity made
    /// results vanish (`minScore: NaN`) or an option silently ignored (`rrf_k: NaN`).
    pub fn check_numbers(&self) -> crate::error::Result<()> {
        // Named, not printed: formatting a float links its printing code (~10 KB gzip) into
        // every wasm module for an error message.
        let bad = |name: &'static str, value: f32, what: &str| {
            let value = if value.is_nan() {
                "NaN"
            } else if value == f32::INFINITY {
                "infinity"
            } else if value == f32::NEG_INFINITY {
                "-infinity"
            } else {
                "a negative number"
            };
            crate::error::Error::InvalidOption {
                name,
                detail: format!("{value} is not {what}"),
            }
        };
        if let Some(m) = self.min_score.filter(|m| !m.is_finite()) {
            return Err(bad("min_score", m, "a finite number"));
        }
        let weights = match self.fusion {
            Fusion::Auto => None,
            Fusion::Rrf {
                k,
                keyword_weight,
                semantic_weight,
            } => {
                if !(k.is_finite() && k >= 0.0) {
                    return Err(bad("rrf_k", k, "a number of 0 or more"));
                }
                Some((keyword_weight, semantic_weight))
            }
            Fusion::Linear {
                keyword_weight,
                semantic_weight,
            } => Some((keyword_weight, semantic_weight)),
        };
        if let Some((k, s)) = weights {
            for (name, w) in [("keyword_weight", k), ("semantic_weight", s)] {
                if !(w.is_finite() && w >= 0.0) {
                    return Err(bad(name, w, "a weight of 0 or more"));
                }
            }
        }
        Ok(())
    }

    /// Whether any filter (path, category, tags, depth, language, version) is set.
    pub fn has_filters(&self) -> bool {
        self.path.is_some()
            || self.category.is_some()
            || !self.tags.is_empty()
            || !self.depth.is_empty()
            || self.lang.is_some()
            || self.version.is_some()
    }
}

/// One result: a section with its place and a preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// Section id (16 hex digits).
    pub id: String,
    /// Document path.
    pub path: String,
    /// Deep link: page URL + `#anchor`.
    pub url: String,
    /// Anchor, `null` for a whole document.
    pub anchor: Option<String>,
    /// Heading.
    pub heading: String,
    /// Breadcrumbs ending with the heading.
    pub heading_path: Vec<String>,
    /// 0 = document, 1–6 = heading level.
    pub depth: u8,
    /// Ordinal among same-depth siblings.
    pub section_number: u32,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (inclusive).
    pub end_line: u32,
    /// Score (BM25F, cosine, or fused, by mode).
    pub score: f32,
    /// The first lines of the section's source.
    pub preview: String,
    /// Lines of the section not in the preview.
    pub more_lines: u32,
    /// Ranges to highlight in `preview`, as `[start, end)` UTF-16 code unit offsets (what JS
    /// strings index by).
    pub highlights: Vec<[u32; 2]>,
    /// The words of the section that show why it matched: plain text (Markdown syntax and
    /// frontmatter stripped) around the matched words, `…` where cut (see
    /// [`excerpt`]). A hit that matched no query word (a semantic one) shows its sentence
    /// with the most words that begin with a query term, else the start of its text.
    pub excerpt: String,
    /// The matched words in `excerpt`, `[start, end)` UTF-16 code unit offsets.
    pub excerpt_highlights: Vec<[u32; 2]>,
    /// The document line of the excerpt's first marked word, else of its start (1-based; 0
    /// when the section has no text).
    pub excerpt_line: u32,
    /// Document title.
    pub title: String,
    /// Frontmatter description of the document, if any.
    pub description: Option<String>,
    /// Estimated tokens of the section's own text.
    pub token_estimate: u32,
    /// The document's version (frontmatter `version` or a version-like folder), if any.
    pub version: Option<String>,
    /// The same section in the other versions that matched, newest first (a versioned
    /// site's near-duplicates, collapsed into this result; see `collapse_versions`).
    pub other_versions: Vec<VersionLink>,
}

/// The same section in another version of the docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionLink {
    /// The version.
    pub version: String,
    /// Section id there.
    pub id: String,
    /// Deep link there.
    pub url: String,
}

impl VersionLink {
    /// The link to section `id` of the page at `page_url` (`anchor`: `None` for the page
    /// itself) in `version`. Both layouts make their links here, so they agree.
    pub fn new(version: String, id: u64, page_url: &str, anchor: Option<&str>) -> Self {
        VersionLink {
            version,
            id: SectionId(id).to_string(),
            url: deep_link(page_url, anchor),
        }
    }
}

/// A page URL with `#anchor` appended (none for a whole page).
fn deep_link(page_url: &str, anchor: Option<&str>) -> String {
    match anchor {
        Some(a) => format!("{page_url}#{a}"),
        None => page_url.to_string(),
    }
}

/// A page of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResponse {
    /// Results in all (after grouping), not just this page; with `total_exact` false, at
    /// least this many.
    pub total: usize,
    /// Whether `total` is the exact count. A keyword query whose first results were found
    /// without ranking every candidate ([`crate::rank::topk`]) counts the results that
    /// are certain (the sections with text, one per family), as Lucene counts past its
    /// threshold: its page is the page ranking every candidate gives.
    #[serde(default = "exact")]
    pub total_exact: bool,
    /// This page.
    pub results: Vec<SearchHit>,
    /// "Did you mean" queries, when there are few or no results.
    pub suggestions: Vec<String>,
    /// The mode that ran (`keyword`, `semantic` or `hybrid`).
    pub mode: Mode,
    /// The results (all of them, not just this page) counted per facet, when
    /// [`SearchOptions::facets`] asked (`null` otherwise).
    #[serde(default)]
    pub facets: Option<Facets>,
}

/// A total counts every result unless it says otherwise (answers of older builds).
fn exact() -> bool {
    true
}

/// Results counted per value of each facet a document can have, most first. A facet with
/// no value among the results is empty.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Facets {
    /// The part of the site (frontmatter `category`, else the first folder of the path).
    pub category: Vec<FacetCount>,
    /// Frontmatter tags.
    pub tags: Vec<FacetCount>,
    /// Versions (frontmatter or a version-like folder).
    pub version: Vec<FacetCount>,
    /// Languages (frontmatter `lang`, the page's, a locale folder or the site's).
    pub lang: Vec<FacetCount>,
}

/// How many results have a facet's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FacetCount {
    /// The value, as the filter option of the same name takes it.
    pub value: String,
    /// Results with it.
    pub count: u32,
}

/// A section with its full source text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionView {
    /// Metadata as in a search result (score 0, preview = the whole section).
    #[serde(flatten)]
    pub hit: SearchHit,
    /// The whole section's source, subsections included.
    pub text: String,
}

/// A document with its outline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentView {
    /// Path.
    pub path: String,
    /// Page URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Whole source.
    pub source: String,
    /// Every section (without its text).
    pub sections: Vec<SearchHit>,
}

/// The link to a section (in its own version), as `other_versions` lists it.
pub fn version_link(sec: &SectionRecord, doc: &DocRecord) -> VersionLink {
    VersionLink::new(
        doc.hints.version.clone().unwrap_or_default(),
        sec.id,
        &doc.url,
        sec.anchor.as_deref(),
    )
}
