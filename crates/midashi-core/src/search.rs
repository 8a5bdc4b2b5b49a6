//! Running a query against a loaded index: scoring, filters, grouping, previews, highlights.
//!
//! The result types serialise to the JSON the CLI prints and the JS API returns — one
//! definition, so the two cannot drift apart.

use crate::analyzer::Analyzer;
use crate::ann::AnnData;
use crate::error::{Error, Result};
use crate::format::{FileKind, Manifest};
use crate::fusion::Fusion;
use crate::index::{DocRecord, SectionRecord};
use crate::query::{
    plan, Lexicon, LexiconExt, PlanOptions, QueryPlan, WeightedTerm, MAX_QUERY_BYTES,
};
use crate::section::SectionId;
use crate::shards::{Bundle, CardDoc, FileSource, SectionFacts, Sharded};
use crate::vectors::VectorsData;
use crate::versions::{collapse, Collapsed};
#[cfg(feature = "single-file")]
use crate::{
    index::{postings::ListReader, Field, SectionsData, TermsData},
    query::Dictionary,
    scoring::Bm25f,
    versions::Families,
};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which legs a query runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Hybrid when a query vector is given and the model covers the query's script (see
    /// [`SearchIndex::semantic_covers`]), keyword otherwise.
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
    /// Only documents of this version.
    pub version: Option<String>,
    /// Drop results scoring below this.
    pub min_score: Option<f32>,
    /// Lines of source in each preview.
    pub preview_lines: usize,
    /// Treat the last word as a prefix (search as you type).
    pub prefix: bool,
    /// Try typo corrections for words not in the index.
    pub fuzzy: bool,
    /// Collapse a section and its ancestors/descendants into one result.
    pub group: bool,
    /// On a versioned site, show each section once (its newest matching version) with the
    /// other versions listed in [`SearchHit::other_versions`], instead of once per version.
    pub collapse_versions: bool,
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
            version: None,
            min_score: None,
            preview_lines: 5,
            prefix: true,
            fuzzy: true,
            group: true,
            collapse_versions: true,
        }
    }
}

impl SearchOptions {
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
    /// Results in all (after grouping), not just this page.
    pub total: usize,
    /// This page.
    pub results: Vec<SearchHit>,
    /// "Did you mean" queries, when there are few or no results.
    pub suggestions: Vec<String>,
    /// The mode that ran (`keyword`, `semantic` or `hybrid`).
    pub mode: Mode,
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

/// A loaded index, ready to answer queries.
pub struct SearchIndex {
    manifest: Manifest,
    analyzer: Analyzer,
    store: Store,
    vectors: Option<VectorsData>,
    ann: Option<AnnData>,
}

/// Where the keyword index and the sections live.
enum Store {
    /// A single-file index, all in memory.
    #[cfg(feature = "single-file")]
    Whole(Box<Whole>),
    /// A sharded index: files load as queries need them.
    Sharded(Box<Sharded>),
}

#[cfg(feature = "single-file")]
struct Whole {
    terms: TermsData,
    map: fst::Map<Vec<u8>>,
    sections: SectionsData,
    line_starts: Vec<Vec<u32>>,
    by_id: HashMap<u64, u32>,
    by_path: HashMap<String, u32>,
    families: Option<Families>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
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

/// A section's heading as the exact-heading lift compares it with a query: its distinct
/// query terms, sorted. (The sharded layout's writer stores the same, per posting.)
pub fn heading_terms(analyzer: &Analyzer, heading: &str) -> Vec<String> {
    let mut have: Vec<String> = analyzer
        .analyze_query(heading)
        .into_iter()
        .filter(|t| !t.part)
        .map(|t| t.term)
        .collect();
    crate::sort::sort(&mut have);
    have.dedup();
    have
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

/// A search result for a section of `doc` (`starts`: the document's line starts).
fn make_hit(
    analyzer: &Analyzer,
    sec: &SectionRecord,
    doc: &DocRecord,
    starts: &[u32],
    score: f32,
    preview_lines: usize,
    terms: &HashSet<&str>,
) -> SearchHit {
    let text = lines_of(&doc.source, starts, sec.start_line, sec.end_line);
    make_hit_from(
        analyzer,
        sec,
        HitDoc::from(doc),
        text,
        score,
        preview_lines,
        terms,
    )
}

/// What a hit shows of its document.
pub(crate) struct HitDoc<'a> {
    pub path: &'a str,
    pub url: &'a str,
    pub title: &'a str,
    pub description: Option<&'a str>,
    pub version: Option<&'a str>,
}

impl<'a> From<&'a DocRecord> for HitDoc<'a> {
    fn from(d: &'a DocRecord) -> Self {
        HitDoc {
            path: &d.path,
            url: &d.url,
            title: &d.title,
            description: d.hints.description.as_deref(),
            version: d.hints.version.as_deref(),
        }
    }
}

impl<'a> From<&'a CardDoc> for HitDoc<'a> {
    fn from(d: &'a CardDoc) -> Self {
        HitDoc {
            path: &d.path,
            url: &d.url,
            title: &d.title,
            description: d.description.as_deref(),
            version: d.version.as_deref(),
        }
    }
}

/// The first `n` lines of `text`, line breaks included.
fn first_lines(text: &str, n: u32) -> &str {
    if n == 0 {
        return "";
    }
    match text.match_indices('\n').nth(n as usize - 1) {
        Some((i, _)) => &text[..=i],
        None => text,
    }
}

/// A search hit for `sec`, whose lines from its heading on are `text` (at least as many as
/// the preview shows: a bundle gives the whole subtree, a card its first lines).
pub(crate) fn make_hit_from(
    analyzer: &Analyzer,
    sec: &SectionRecord,
    doc: HitDoc<'_>,
    text: &str,
    score: f32,
    preview_lines: usize,
    terms: &HashSet<&str>,
) -> SearchHit {
    // Saturating: line numbers come from a file, and a damaged one must not panic here.
    let span = sec
        .end_line
        .saturating_sub(sec.start_line)
        .saturating_add(1);
    let shown = u32::try_from(preview_lines).unwrap_or(u32::MAX).min(span);
    let preview = first_lines(text, shown)
        .trim_end_matches(['\n', '\r'])
        .to_string();
    let highlights = if terms.is_empty() {
        Vec::new()
    } else {
        highlight_ranges(analyzer, &preview, terms)
    };
    SearchHit {
        id: SectionId(sec.id).to_string(),
        path: doc.path.to_string(),
        url: deep_link(doc.url, sec.anchor.as_deref()),
        anchor: sec.anchor.clone(),
        heading: sec.heading.clone(),
        heading_path: sec.heading_path.clone(),
        depth: sec.depth,
        section_number: sec.section_number,
        start_line: sec.start_line,
        end_line: sec.end_line,
        score,
        preview,
        more_lines: span - shown,
        highlights,
        title: doc.title.to_string(),
        description: doc.description.map(str::to_string),
        token_estimate: sec.token_estimate,
        version: doc.version.map(str::to_string),
        other_versions: Vec::new(),
    }
}

/// Sums BM25F over a plan's clauses: each clause scores its best alternative, the clauses
/// add up. `scores` hands each term's `(section, score)` pairs to the callback. One
/// function for both layouts, so the float additions happen in the same order and the
/// totals agree to the bit. Returns the sections touched with their totals.
fn accumulate(
    n: usize,
    plan: &QueryPlan,
    mut scores: impl FnMut(&WeightedTerm, &mut dyn FnMut(u32, f32)),
) -> Vec<(u32, f32)> {
    let mut total = vec![0f32; n];
    let mut touched: Vec<u32> = Vec::new();
    let add = |total: &mut Vec<f32>, touched: &mut Vec<u32>, s: u32, v: f32| {
        if let Some(slot) = total.get_mut(s as usize) {
            if *slot == 0.0 {
                touched.push(s);
            }
            *slot += v;
        }
    };
    for clause in &plan.clauses {
        let single = clause.alternatives.len() == 1 && clause.alternatives[0].terms.len() == 1;
        let mut best: HashMap<u32, f32> = HashMap::default();
        for alt in &clause.alternatives {
            let mut alt_scores: HashMap<u32, f32> = HashMap::default();
            for t in &alt.terms {
                scores(t, &mut |s, score| {
                    let v = t.weight * score;
                    if single {
                        add(&mut total, &mut touched, s, v);
                    } else {
                        *alt_scores.entry(s).or_insert(0.0) += v;
                    }
                });
            }
            for (s, v) in alt_scores {
                let e = best.entry(s).or_insert(0.0);
                *e = e.max(v);
            }
        }
        // Sorted so the float additions happen in the same order everywhere.
        let mut best: Vec<(u32, f32)> = best.into_iter().collect();
        crate::sort::sort_by_key(&mut best, |&(s, _)| s);
        for (s, v) in best {
            add(&mut total, &mut touched, s, v);
        }
    }
    touched
        .into_iter()
        .map(|s| (s, total[s as usize]))
        .collect()
}

/// How a section's heading compares with the query, for [`lift_exact_headings`].
struct HeadingMatch {
    /// The heading says exactly what was asked (same length, same terms).
    exact: bool,
    /// The heading contains every query word.
    contains_all: bool,
    /// The section's depth.
    depth: u8,
}

/// A section whose heading says exactly what was asked comes first: its score is lifted
/// above the best non-exact score (keeping order among exact matches). Headings that merely
/// contain every query word get a smaller lift, larger for page-level headings (a page about
/// X beats a subsection mentioning X). `matching(i, s)` describes the heading of the `i`th
/// ranked section `s` (`None`: no match worth checking).
fn lift_exact_headings(
    ranked: &mut [(u32, f32)],
    mut matching: impl FnMut(usize, u32) -> Option<HeadingMatch>,
) {
    let top = ranked.first().map_or(0.0, |r| r.1);
    let mut any = false;
    // Exact matches are near the top anyway; looking further only costs time.
    for (i, r) in ranked.iter_mut().take(200).enumerate() {
        let Some(m) = matching(i, r.0) else {
            continue;
        };
        if m.exact {
            r.1 += top;
            any = true;
        } else if m.contains_all {
            r.1 *= match m.depth {
                0 | 1 => 1.25,
                2 => 1.15,
                _ => 1.1,
            };
            any = true;
        }
    }
    if any {
        crate::scoring::sort_ranked(ranked);
    }
}

/// The best-scoring node of every ancestor chain, for a sharded index: a section's
/// descendants are the next `subtree` ordinals.
fn group_by_ranges(
    ranked: Vec<(u32, f32)>,
    facts: impl Fn(u32) -> SectionFacts,
) -> Vec<(u32, f32)> {
    // Hash sets, not an ordered map: the single-file layout's grouping already has this
    // set type in the wasm module, a B-tree would add its own (~12 KB). The ranges are
    // disjoint (kept sections never nest), so marking each one costs O(sections) in all.
    let mut kept: HashSet<u32> = HashSet::default();
    let mut covered: HashSet<u32> = HashSet::default(); // descendants of kept sections
    let mut out = Vec::new();
    for (s, score) in ranked {
        let sub = facts(s).subtree;
        let descendants = s.saturating_add(1)..=s.saturating_add(sub);
        // A kept section is an ancestor of `s`, or `s` is an ancestor of a kept section.
        if covered.contains(&s) || descendants.clone().any(|d| kept.contains(&d)) {
            continue;
        }
        kept.insert(s);
        covered.extend(descendants);
        out.push((s, score));
    }
    out
}

impl SearchIndex {
    /// Loads an index from its entry file and the two files keyword search needs.
    #[cfg(feature = "single-file")]
    pub fn open(entry: &[u8], terms: &[u8], sections: &[u8]) -> Result<Self> {
        let manifest = Manifest::decode(entry)?;
        Self::from_manifest(manifest, terms, sections)
    }

    /// Opens a sharded index from its entry file and directory file. `source` reads further
    /// files synchronously (native callers); without one, a query that lacks files fails
    /// with [`Error::NeedsFiles`] and the caller attaches them ([`SearchIndex::attach_file`]).
    pub fn open_sharded(
        entry: &[u8],
        directory: &[u8],
        source: Option<FileSource>,
    ) -> Result<Self> {
        let manifest = Manifest::decode(entry)?;
        Self::from_manifest_sharded(manifest, directory, source)
    }

    /// [`SearchIndex::open_sharded`] with an already decoded manifest.
    pub fn from_manifest_sharded(
        manifest: Manifest,
        directory: &[u8],
        source: Option<FileSource>,
    ) -> Result<Self> {
        let name = manifest
            .file(FileKind::Directory)
            .map_or_else(|| "directory".to_string(), |f| f.name.clone());
        let sharded = Sharded::open(&name, directory, source)?;
        Ok(SearchIndex {
            manifest,
            analyzer: Analyzer::new(),
            store: Store::Sharded(Box::new(sharded)),
            vectors: None,
            ann: None,
        })
    }

    /// Adds a file a sharded index asked for (see [`Error::NeedsFiles`]).
    pub fn attach_file(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        match &self.store {
            Store::Sharded(sh) => sh.attach(name, bytes),
            #[cfg(feature = "single-file")]
            Store::Whole(_) => Err(Error::InvalidOption {
                name: "file",
                detail: format!("{name}: a single-file index loads no further files"),
            }),
        }
    }

    /// A sharded index's loaded shards and bundles (`(0, 0)` for a single-file index).
    pub fn loaded_parts(&self) -> (usize, usize) {
        match &self.store {
            Store::Sharded(sh) => sh.loaded(),
            #[cfg(feature = "single-file")]
            Store::Whole(_) => (0, 0),
        }
    }

    /// The files a sharded index has loaded, in an order [`SearchIndex::attach_file`] takes
    /// them in: attached to a fresh instance, they carry the state over (the sections of the
    /// results shown, for lookups by id). Empty for a single-file index.
    pub fn loaded_files(&self) -> Vec<String> {
        match &self.store {
            Store::Sharded(sh) => sh.loaded_files(),
            #[cfg(feature = "single-file")]
            Store::Whole(_) => Vec::new(),
        }
    }

    /// Bounds the shards and bundles a sharded index keeps loaded between queries (default
    /// [`crate::shards::read::KEEP_LOADED`]); no effect on a single-file index.
    pub fn set_keep_loaded(&mut self, files: usize) {
        match &mut self.store {
            Store::Sharded(sh) => sh.set_keep_loaded(files),
            #[cfg(feature = "single-file")]
            Store::Whole(_) => {}
        }
    }

    /// Whether this is a sharded index (files load as queries need them).
    pub fn is_sharded(&self) -> bool {
        matches!(self.store, Store::Sharded(_))
    }

    /// Loads an index from an already decoded manifest and its keyword files.
    #[cfg(feature = "single-file")]
    pub fn from_manifest(manifest: Manifest, terms: &[u8], sections: &[u8]) -> Result<Self> {
        let name = |kind: FileKind| {
            manifest
                .file(kind)
                .map_or_else(|| kind.to_string(), |f| f.name.clone())
        };
        let terms_name = name(FileKind::Terms);
        let terms: TermsData = crate::format::decode(FileKind::Terms, &terms_name, terms)?;
        let sections: SectionsData =
            crate::format::decode(FileKind::Sections, &name(FileKind::Sections), sections)?;
        let malformed = |detail: String| Error::Malformed {
            file: terms_name.clone(),
            detail,
        };
        let map = crate::query::open_dictionary(&terms_name, terms.fst.clone())?;
        let n = sections.sections.len();
        if terms.n_sections as usize != n
            || n.checked_mul(crate::index::NUM_FIELDS * 2) != Some(terms.field_lengths.len())
        {
            return Err(malformed(
                "terms and sections files do not belong together".into(),
            ));
        }
        let sections_malformed = |detail: String| Error::Malformed {
            file: name(FileKind::Sections),
            detail,
        };
        for (i, s) in sections.sections.iter().enumerate() {
            let parent_ok = s.parent.is_none_or(|p| (p as usize) < i);
            if s.doc as usize >= sections.docs.len() || !parent_ok {
                return Err(sections_malformed(format!(
                    "section {i} points outside the index"
                )));
            }
            if !(1 <= s.start_line
                && s.start_line <= s.own_end_line
                && s.own_end_line <= s.end_line)
            {
                return Err(sections_malformed(format!(
                    "section {i} has lines {}-{} (own text to {})",
                    s.start_line, s.end_line, s.own_end_line
                )));
            }
        }
        // `get_document` walks a document's sections by ordinal.
        for (i, d) in sections.docs.iter().enumerate() {
            let end = d.first_section.checked_add(d.section_count);
            if end.is_none_or(|end| end as usize > n) {
                return Err(sections_malformed(format!(
                    "document {i} claims sections the file does not have"
                )));
            }
        }
        let line_starts = sections
            .docs
            .iter()
            .map(|d| line_starts(&d.source))
            .collect();
        let by_id = sections
            .sections
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id, i as u32))
            .collect();
        let by_path = sections
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.path.clone(), i as u32))
            .collect();
        let families = Families::new(&sections);
        Ok(SearchIndex {
            manifest,
            analyzer: Analyzer::new(),
            store: Store::Whole(Box::new(Whole {
                terms,
                map,
                sections,
                line_starts,
                by_id,
                by_path,
                families,
            })),
            vectors: None,
            ann: None,
        })
    }

    /// Adds the vectors file (loaded lazily, when semantic search is first needed).
    #[cfg(feature = "semantic")]
    pub fn attach_vectors(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self
            .manifest
            .file(FileKind::Vectors)
            .map_or_else(|| "vectors".to_string(), |f| f.name.clone());
        let v: VectorsData = crate::format::decode(FileKind::Vectors, &name, bytes)?;
        let n = self.section_count() as u32;
        if !v.is_consistent() || v.row_section.iter().any(|&s| s >= n) {
            return Err(Error::Malformed {
                file: name,
                detail: "vectors do not match the sections".into(),
            });
        }
        self.vectors = Some(v);
        Ok(())
    }

    /// Adds the HNSW graph file of a large index (after [`SearchIndex::attach_vectors`]):
    /// unfiltered semantic queries then search the graph instead of scanning every row.
    #[cfg(feature = "semantic")]
    pub fn attach_ann(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self
            .manifest
            .file(FileKind::Ann)
            .map_or_else(|| "ann".to_string(), |f| f.name.clone());
        let vectors = self.vectors.as_ref().ok_or_else(|| {
            Error::SemanticUnavailable("attach the vectors before the ANN graph".into())
        })?;
        let ann: AnnData = crate::format::decode(FileKind::Ann, &name, bytes)?;
        if !ann.matches(vectors) {
            return Err(Error::Malformed {
                file: name,
                detail: "the ANN graph does not match the vectors".into(),
            });
        }
        self.ann = Some(ann);
        Ok(())
    }

    /// Whether the HNSW graph is attached.
    pub fn has_ann(&self) -> bool {
        self.ann.is_some()
    }

    /// Whether the vectors' model covers the query's script. An English-only model's vectors
    /// of a Japanese query are close to noise (JSQuAD nDCG@10: keyword 0.94, hybrid with
    /// all-MiniLM-L6-v2 0.50), so an automatic query leaves the semantic leg out; an explicit
    /// `hybrid` or `semantic` still runs it. A model that names no languages is trusted.
    pub fn semantic_covers(&self, query: &str) -> bool {
        let Some(model) = &self.manifest.model else {
            return true;
        };
        if model.languages.is_empty() {
            return true;
        }
        let cjk = self.analyzer.analyze_query(query).iter().any(|t| t.cjk);
        !cjk || model
            .languages
            .iter()
            .any(|l| matches!(l.as_str(), "ja" | "zh" | "ko" | "multilingual"))
    }

    /// The attached vectors, if any.
    pub fn vectors(&self) -> Option<&VectorsData> {
        self.vectors.as_ref()
    }

    /// A section's document path and anchor, by ordinal (what vector rows point at).
    pub fn section_place(&self, section: u32) -> Option<(String, Option<String>)> {
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => {
                let sec = w.sections.sections.get(section as usize)?;
                let doc = w.sections.docs.get(sec.doc as usize)?;
                Some((doc.path.clone(), sec.anchor.clone()))
            }
            Store::Sharded(sh) => {
                let b = sh.bundle_of_doc(sh.doc_of(section))?;
                let first = b.docs.first()?.first_section;
                let sec = b.sections.get(section.checked_sub(first)? as usize)?;
                let doc = b.docs.get(sec.doc.checked_sub(b.first_doc)? as usize)?;
                Some((doc.path.clone(), sec.anchor.clone()))
            }
        }
    }

    /// Whether semantic search can run (vectors attached).
    pub fn has_vectors(&self) -> bool {
        self.vectors.is_some()
    }

    /// The entry file's contents.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The shared analyzer.
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// Runs a query. `query_vector` is the query's embedding (from midashi-embed) for the
    /// semantic leg; without it only keyword search runs. A sharded index without a file
    /// source fails with [`Error::NeedsFiles`] until the files the query reads are attached.
    pub fn search(
        &self,
        query: &str,
        opts: &SearchOptions,
        query_vector: Option<&[f32]>,
    ) -> Result<SearchResponse> {
        let query = query.trim();
        if query.is_empty() {
            return Err(Error::EmptyQuery);
        }
        if query.len() > MAX_QUERY_BYTES {
            return Err(Error::QueryTooLong {
                len: query.len(),
                max: MAX_QUERY_BYTES,
            });
        }
        if opts.limit == 0 || opts.limit > 1000 {
            return Err(Error::InvalidOption {
                name: "limit",
                detail: format!("{} is not between 1 and 1000", opts.limit),
            });
        }
        let mode = match (opts.mode, query_vector.is_some()) {
            (Mode::Auto, true) if self.semantic_covers(query) => Mode::Hybrid,
            (Mode::Auto, true) => Mode::Keyword,
            (Mode::Auto | Mode::Keyword, false) => Mode::Keyword,
            (Mode::Semantic | Mode::Hybrid, false) => {
                return Err(Error::SemanticUnavailable(
                    "no query vector: load the semantic model (or use mode \"keyword\")".into(),
                ))
            }
            (m, true) => m,
        };
        let plan_opts = PlanOptions {
            prefix: opts.prefix,
            fuzzy: opts.fuzzy,
        };
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => {
                // Both layouts go through one (dynamic) instance of the planner and the
                // ranking: fewer monomorphised copies in the wasm module.
                let plan = plan(
                    &self.analyzer,
                    &w.dictionary() as &dyn Lexicon,
                    query,
                    plan_opts,
                );
                plan.runs_here()?;
                self.run(
                    w.as_ref() as &dyn Ranking,
                    query,
                    opts,
                    query_vector,
                    mode,
                    &plan,
                )
            }
            Store::Sharded(sh) => {
                sh.begin();
                if opts.preview_lines > sh.card_lines() as usize {
                    // Previews longer than a card's come from bundles, which the paths file
                    // names: asked for with the query's shards, it costs no extra round.
                    sh.paths();
                }
                let plan = plan(
                    &self.analyzer,
                    sh.as_ref() as &dyn Lexicon,
                    query,
                    plan_opts,
                );
                sh.need()?;
                plan.runs_here()?;
                self.run(
                    sh.as_ref() as &dyn Ranking,
                    query,
                    opts,
                    query_vector,
                    mode,
                    &plan,
                )
            }
        }
    }

    /// The steps after planning, for either layout.
    fn run<S: Ranking + ?Sized>(
        &self,
        store: &S,
        query: &str,
        opts: &SearchOptions,
        query_vector: Option<&[f32]>,
        mode: Mode,
        plan: &QueryPlan,
    ) -> Result<SearchResponse> {
        let mut facts = HashMap::default();
        let keyword = if mode == Mode::Semantic {
            Vec::new()
        } else {
            let touched = accumulate(store.section_count(), plan, |t, emit| {
                store.scores(t, &mut facts, emit)
            });
            store.ready()?;
            let keep = |s: u32| store.passes_filters(s, opts, &facts);
            let mut ranked: Vec<(u32, f32)> = touched
                .into_iter()
                .filter(|&(s, v)| v > 0.0 && keep(s))
                .collect();
            store.ready()?;
            crate::scoring::sort_ranked(&mut ranked);
            let mut wanted: Vec<&str> = plan.terms.iter().map(String::as_str).collect();
            crate::sort::sort(&mut wanted);
            wanted.dedup();
            if !wanted.is_empty() {
                let query_len = self.analyzer.analyze(query).len();
                store.lift(&self.analyzer, &mut ranked, &wanted, query_len, &facts)?;
            }
            ranked
        };
        let ranked = match (mode, query_vector) {
            (Mode::Keyword, _) | (_, None) => keyword,
            #[cfg(not(feature = "semantic"))]
            (_, Some(_)) => return Err(Error::lacks_semantic()),
            #[cfg(feature = "semantic")]
            (_, Some(qv)) => {
                let vectors = self.vectors.as_ref().ok_or_else(|| {
                    Error::SemanticUnavailable(
                        "the index has no vectors: rebuild it with a model".into(),
                    )
                })?;
                store.prepare_semantic()?;
                // The graph answers unfiltered queries; with a filter its candidates could
                // all be filtered away, so filtered queries scan every row.
                let candidates = match &self.ann {
                    Some(ann) if !opts.has_filters() => ann.search(vectors, qv),
                    _ => vectors.scan(qv),
                };
                let semantic: Vec<(u32, f32)> = candidates
                    .into_iter()
                    .filter(|&(s, _)| store.passes_filters(s, opts, &facts))
                    .collect();
                store.ready()?;
                if mode == Mode::Semantic {
                    semantic
                } else {
                    // Fuse over the heads of both legs: deep tails only add noise to RRF.
                    let head = 200;
                    crate::fusion::fuse(
                        &keyword[..keyword.len().min(head)],
                        &semantic[..semantic.len().min(head)],
                        opts.fusion,
                    )
                }
            }
        };
        let ranked: Vec<(u32, f32)> = match opts.min_score {
            Some(min) => ranked.into_iter().filter(|&(_, s)| s >= min).collect(),
            None => ranked,
        };
        let grouped = if opts.group {
            store.group(ranked, &facts)
        } else {
            ranked
        };
        let collapsed: Vec<Collapsed> =
            if store.versioned() && opts.collapse_versions && opts.version.is_none() {
                collapse(
                    &grouped,
                    |s| store.family(s, &facts),
                    |s| store.version_of(s),
                )
            } else {
                grouped
                    .iter()
                    .map(|&(section, score)| Collapsed {
                        section,
                        score,
                        others: Vec::new(),
                    })
                    .collect()
            };
        let total = collapsed.len();
        let terms: HashSet<&str> = plan.all_terms().collect();
        let page: Vec<&Collapsed> = collapsed
            .iter()
            .skip(opts.offset)
            .take(opts.limit)
            .collect();
        let results = store.hits(&self.analyzer, &page, opts.preview_lines, &terms)?;
        let suggestions = if total < 3 {
            did_you_mean(query, plan)
        } else {
            Vec::new()
        };
        Ok(SearchResponse {
            total,
            results,
            suggestions,
            mode,
        })
    }

    /// The distinct versions of a versioned site, newest first (empty when it has fewer
    /// than two): what a version picker offers.
    pub fn versions(&self) -> &[String] {
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => w.families.as_ref().map_or(&[], |f| f.versions()),
            Store::Sharded(sh) => &sh.dir.versions,
        }
    }

    /// A section by id, with its whole text. A sharded index finds it through the cards and
    /// bundles loaded so far (every search result's card is), or with a file source in any
    /// bundle.
    pub fn get_section(&self, id: SectionId) -> Option<SectionView> {
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => {
                let &s = w.by_id.get(&id.0)?;
                let sec = &w.sections.sections[s as usize];
                let doc = &w.sections.docs[sec.doc as usize];
                let starts = &w.line_starts[sec.doc as usize];
                Some(section_view(&self.analyzer, sec, doc, starts))
            }
            Store::Sharded(sh) => {
                let find = |b: &Bundle| {
                    let sec = b.sections.iter().find(|s| s.id == id.0)?;
                    let doc = &b.docs[(sec.doc - b.first_doc) as usize];
                    Some(section_view(
                        &self.analyzer,
                        sec,
                        doc,
                        &line_starts(&doc.source),
                    ))
                };
                sh.begin();
                if let Some(v) = sh.loaded_bundles().iter().find_map(|b| find(b)) {
                    return Some(v);
                }
                // A search result's section is in a loaded card, which names its document:
                // its bundle holds the whole text (fetched, or noted as missing).
                let in_card = sh.loaded_cards().iter().find_map(|c| {
                    let at = c.sections.iter().position(|s| s.record.id == id.0)?;
                    Some(c.first_section + at as u32)
                });
                if let Some(s) = in_card {
                    return find(sh.bundle_of_doc(sh.doc_of(s))?.as_ref());
                }
                // Without a source, only loaded bundles can be searched: fetching every
                // bundle to find one id would fetch the whole site.
                if !sh.has_source() {
                    return None;
                }
                sh.bundle_firsts()
                    .into_iter()
                    .find_map(|first| find(sh.bundle_of_doc(first)?.as_ref()))
            }
        }
    }

    /// A document by path.
    pub fn get_document(&self, path: &str) -> Option<DocumentView> {
        let path = path.trim_start_matches('/');
        // `sections`: the document's sections, in order.
        let view = |d: &DocRecord, sections: &[SectionRecord]| {
            let starts = line_starts(&d.source);
            DocumentView {
                path: d.path.clone(),
                url: d.url.clone(),
                title: d.title.clone(),
                source: d.source.clone(),
                sections: sections
                    .iter()
                    .map(|sec| {
                        make_hit(&self.analyzer, sec, d, &starts, 0.0, 0, &HashSet::default())
                    })
                    .collect(),
            }
        };
        let range = |d: &DocRecord, base: u32| {
            let a = d.first_section.saturating_sub(base) as usize;
            a..a + d.section_count as usize
        };
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => {
                let &d = w.by_path.get(path)?;
                let doc = &w.sections.docs[d as usize];
                Some(view(doc, w.sections.sections.get(range(doc, 0))?))
            }
            Store::Sharded(sh) => {
                sh.begin();
                let b = sh.bundle_of_path(path)?;
                let doc = b.docs.iter().find(|d| d.path == path)?;
                let base = b.docs.first()?.first_section;
                Some(view(doc, b.sections.get(range(doc, base))?))
            }
        }
    }

    /// The section of a document with this anchor.
    pub fn find_anchor(&self, path: &str, anchor: &str) -> Option<SectionId> {
        let path = path.trim_start_matches('/');
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => {
                let &d = w.by_path.get(path)?;
                let doc = &w.sections.docs[d as usize];
                (doc.first_section..doc.first_section + doc.section_count)
                    .map(|s| &w.sections.sections[s as usize])
                    .find(|s| s.anchor.as_deref() == Some(anchor))
                    .map(|s| SectionId(s.id))
            }
            Store::Sharded(sh) => {
                sh.begin();
                let b = sh.bundle_of_path(path)?;
                let d = b.docs.iter().position(|d| d.path == path)? as u32 + b.first_doc;
                b.sections
                    .iter()
                    .find(|s| s.doc == d && s.anchor.as_deref() == Some(anchor))
                    .map(|s| SectionId(s.id))
            }
        }
    }

    /// Completions for the word being typed (display words, most frequent first). A sharded
    /// index without a file source fails with [`Error::NeedsFiles`] until the shards of the
    /// prefix are attached.
    pub fn suggest(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => Ok(suggest_in(
                &self.analyzer,
                &w.dictionary() as &dyn Lexicon,
                prefix,
                limit,
            )),
            Store::Sharded(sh) => {
                sh.begin();
                let out = suggest_in(&self.analyzer, sh.as_ref() as &dyn Lexicon, prefix, limit);
                sh.need()?;
                Ok(out)
            }
        }
    }

    /// After a look-up that found nothing ([`SearchIndex::get_document`],
    /// [`SearchIndex::find_anchor`], [`SearchIndex::get_section`]): `Err(NeedsFiles)` when a
    /// sharded index lacked files to answer it, so the caller can attach them and ask again.
    pub fn pending(&self) -> Result<()> {
        match &self.store {
            Store::Sharded(sh) => sh.need(),
            #[cfg(feature = "single-file")]
            Store::Whole(_) => Ok(()),
        }
    }

    /// Number of sections.
    pub fn section_count(&self) -> usize {
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => w.sections.sections.len(),
            Store::Sharded(sh) => sh.dir.n_sections as usize,
        }
    }

    /// Every document's path and title, in path order (a sharded index reads every bundle
    /// its source can give).
    pub fn documents(&self) -> Vec<(String, String)> {
        match &self.store {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => w
                .sections
                .docs
                .iter()
                .map(|d| (d.path.clone(), d.title.clone()))
                .collect(),
            Store::Sharded(sh) => sh
                .bundle_firsts()
                .into_iter()
                .filter_map(|first| sh.bundle_of_doc(first))
                .flat_map(|b| {
                    b.docs
                        .iter()
                        .map(|d| (d.path.clone(), d.title.clone()))
                        .collect::<Vec<_>>()
                })
                .collect(),
        }
    }
}

fn section_view(
    analyzer: &Analyzer,
    sec: &SectionRecord,
    doc: &DocRecord,
    starts: &[u32],
) -> SectionView {
    let text = lines_of(&doc.source, starts, sec.start_line, sec.end_line).to_string();
    SectionView {
        hit: make_hit(
            analyzer,
            sec,
            doc,
            starts,
            0.0,
            usize::MAX,
            &HashSet::default(),
        ),
        text,
    }
}

fn suggest_in<L: Lexicon + ?Sized>(
    analyzer: &Analyzer,
    dict: &L,
    prefix: &str,
    limit: usize,
) -> Vec<String> {
    // Only the end of the text can hold the word being typed: a huge input costs no more
    // than the longest query.
    let mut cut = prefix.len().saturating_sub(MAX_QUERY_BYTES);
    while !prefix.is_char_boundary(cut) {
        cut += 1;
    }
    let tokens = analyzer.analyze_query(&prefix[cut..]);
    let Some(last) = tokens.iter().rev().find(|t| !t.part) else {
        return Vec::new();
    };
    let raw = if last.raw.is_empty() {
        &last.term
    } else {
        &last.raw
    };
    let mut out: Vec<String> = Vec::new();
    for (term, offset, _) in dict.completions(raw, limit.saturating_mul(3).max(limit)) {
        let word = dict.surface(&term, offset);
        if word.starts_with(raw.as_str()) && !out.contains(&word) {
            out.push(word);
        }
        if out.len() >= limit {
            break;
        }
    }
    out
}

fn did_you_mean(query: &str, plan: &QueryPlan) -> Vec<String> {
    let mut fixed = String::new();
    let mut last = 0;
    let mut changed = false;
    for (start, end, suggestion) in &plan.unknown {
        if let Some(word) = suggestion {
            fixed.push_str(&query[last..*start]);
            fixed.push_str(word);
            last = *end;
            changed = true;
        }
    }
    if !changed {
        return Vec::new();
    }
    fixed.push_str(&query[last..]);
    vec![fixed]
}

/// The filters of `opts`, one rule for both layouts: what a section's document says of its
/// path (asked only under a path filter), its depth (only under a depth filter), category,
/// language, version (`facets`, in that order) and tags.
fn filters_pass(
    opts: &SearchOptions,
    path_starts_with: impl FnOnce(&str) -> bool,
    depth: impl FnOnce() -> u8,
    facets: [Option<&str>; 3],
    has_tag: impl Fn(&str) -> bool,
) -> bool {
    let [category, lang, version] = facets;
    let is =
        |want: &Option<String>, have: Option<&str>| want.as_deref().is_none_or(|w| have == Some(w));
    opts.path
        .as_ref()
        .is_none_or(|p| path_starts_with(p.trim_start_matches('/')))
        && (opts.depth.is_empty() || opts.depth.contains(&depth()))
        && is(&opts.category, category)
        && is(&opts.lang, lang)
        && is(&opts.version, version)
        && opts.tags.iter().all(|t| has_tag(t))
}

/// What [`SearchIndex::run`] needs of a layout after planning. `facts` carries what the
/// keyword leg learnt of its candidates (a sharded index's postings hold it).
trait Ranking {
    fn section_count(&self) -> usize;
    /// Hands each `(section, score)` of a term's postings to `emit`.
    fn scores(
        &self,
        t: &WeightedTerm,
        facts: &mut HashMap<u32, SectionFacts>,
        emit: &mut dyn FnMut(u32, f32),
    );
    /// `Err(NeedsFiles)` when something read so far was missing.
    fn ready(&self) -> Result<()>;
    fn passes_filters(
        &self,
        s: u32,
        opts: &SearchOptions,
        facts: &HashMap<u32, SectionFacts>,
    ) -> bool;
    fn lift(
        &self,
        analyzer: &Analyzer,
        ranked: &mut [(u32, f32)],
        wanted: &[&str],
        query_len: usize,
        facts: &HashMap<u32, SectionFacts>,
    ) -> Result<()>;
    /// Loads what the semantic leg's candidates need.
    #[cfg(feature = "semantic")]
    fn prepare_semantic(&self) -> Result<()>;
    fn group(&self, ranked: Vec<(u32, f32)>, facts: &HashMap<u32, SectionFacts>)
        -> Vec<(u32, f32)>;
    fn versioned(&self) -> bool;
    fn family(&self, s: u32, facts: &HashMap<u32, SectionFacts>) -> Option<u32>;
    fn version_of(&self, s: u32) -> Option<&str>;
    fn hits(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        preview_lines: usize,
        terms: &HashSet<&str>,
    ) -> Result<Vec<SearchHit>>;
}

#[cfg(feature = "single-file")]
impl Whole {
    fn dictionary(&self) -> Dictionary<'_> {
        Dictionary {
            map: &self.map,
            data: &self.terms,
        }
    }

    fn field_len(&self, section: u32, field: Field) -> usize {
        let i = (section as usize * crate::index::NUM_FIELDS + field as usize) * 2;
        self.terms
            .field_lengths
            .get(i..i + 2)
            .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])))
    }
}

#[cfg(feature = "single-file")]
impl Ranking for Whole {
    fn section_count(&self) -> usize {
        self.sections.sections.len()
    }

    fn scores(
        &self,
        t: &WeightedTerm,
        _: &mut HashMap<u32, SectionFacts>,
        emit: &mut dyn FnMut(u32, f32),
    ) {
        let scorer = Bm25f::new(
            self.terms.weights,
            self.terms.avg_len,
            &self.terms.field_lengths,
        );
        let Some(list) = ListReader::open(&self.terms.postings, t.offset as usize) else {
            return;
        };
        let idf = list.idf;
        for p in list {
            emit(p.section, scorer.score(idf, p.section, &p.tf));
        }
    }

    fn ready(&self) -> Result<()> {
        Ok(())
    }

    fn passes_filters(&self, s: u32, opts: &SearchOptions, _: &HashMap<u32, SectionFacts>) -> bool {
        let sec = &self.sections.sections[s as usize];
        let doc = &self.sections.docs[sec.doc as usize];
        let h = &doc.hints;
        filters_pass(
            opts,
            |p| doc.path.starts_with(p),
            || sec.depth,
            [&h.category, &h.lang, &h.version].map(|v| v.as_deref()),
            |t| h.tags.iter().any(|x| x == t),
        )
    }

    fn lift(
        &self,
        analyzer: &Analyzer,
        ranked: &mut [(u32, f32)],
        wanted: &[&str],
        query_len: usize,
        _: &HashMap<u32, SectionFacts>,
    ) -> Result<()> {
        lift_exact_headings(ranked, |i, s| {
            // The heading field's stored length is its term count under the same analyzer:
            // only headings as long as the query can say exactly the same thing; the rest is
            // only checked for the head of the list, where it can change what is seen.
            let same_len = self.field_len(s, Field::Heading) == query_len;
            if !same_len && i >= 50 {
                return None;
            }
            let sec = &self.sections.sections[s as usize];
            let have = heading_terms(analyzer, &sec.heading);
            Some(HeadingMatch {
                exact: same_len
                    && have.len() == wanted.len()
                    && have.iter().zip(wanted).all(|(a, b)| a == b),
                contains_all: wanted
                    .iter()
                    .all(|w| have.binary_search_by(|h| h.as_str().cmp(w)).is_ok()),
                depth: sec.depth,
            })
        });
        Ok(())
    }

    #[cfg(feature = "semantic")]
    fn prepare_semantic(&self) -> Result<()> {
        Ok(())
    }

    /// Keeps the best-scoring node of every ancestor chain, so a passage is shown once.
    fn group(&self, ranked: Vec<(u32, f32)>, _: &HashMap<u32, SectionFacts>) -> Vec<(u32, f32)> {
        let mut kept = HashSet::default();
        let mut covered = HashSet::default(); // ancestors of kept sections
        let mut out = Vec::new();
        for (s, score) in ranked {
            if covered.contains(&s) {
                continue;
            }
            let sec = &self.sections.sections;
            let mut p = sec[s as usize].parent;
            let mut dup = false;
            let mut chain = Vec::new();
            while let Some(a) = p {
                if kept.contains(&a) {
                    dup = true;
                    break;
                }
                chain.push(a);
                p = sec[a as usize].parent;
            }
            if dup {
                continue;
            }
            kept.insert(s);
            covered.extend(chain);
            out.push((s, score));
        }
        out
    }

    fn versioned(&self) -> bool {
        self.families.is_some()
    }

    fn family(&self, s: u32, _: &HashMap<u32, SectionFacts>) -> Option<u32> {
        self.families.as_ref()?.family(s)
    }

    fn version_of(&self, s: u32) -> Option<&str> {
        let sec = self.sections.sections.get(s as usize)?;
        self.sections.docs[sec.doc as usize]
            .hints
            .version
            .as_deref()
    }

    fn hits(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        preview_lines: usize,
        terms: &HashSet<&str>,
    ) -> Result<Vec<SearchHit>> {
        Ok(page
            .iter()
            .map(|c| {
                let sec = &self.sections.sections[c.section as usize];
                let doc = &self.sections.docs[sec.doc as usize];
                let mut hit = make_hit(
                    analyzer,
                    sec,
                    doc,
                    &self.line_starts[sec.doc as usize],
                    c.score,
                    preview_lines,
                    terms,
                );
                hit.other_versions = c
                    .others
                    .iter()
                    .map(|&o| {
                        let osec = &self.sections.sections[o as usize];
                        version_link(osec, &self.sections.docs[osec.doc as usize])
                    })
                    .collect();
                hit
            })
            .collect())
    }
}

impl Sharded {
    /// A section's facts: from the keyword leg's postings, else from the tree.
    fn facts_of(&self, s: u32, facts: &HashMap<u32, SectionFacts>) -> SectionFacts {
        if let Some(f) = facts.get(&s) {
            return *f;
        }
        self.tree()
            .and_then(|t| t.facts.get(s as usize).copied())
            .unwrap_or_default()
    }
}

impl Ranking for Sharded {
    fn section_count(&self) -> usize {
        self.dir.n_sections as usize
    }

    fn scores(
        &self,
        t: &WeightedTerm,
        facts: &mut HashMap<u32, SectionFacts>,
        emit: &mut dyn FnMut(u32, f32),
    ) {
        let Some(postings) = self.postings(t.offset) else {
            return;
        };
        for p in postings.iter() {
            // Zero-score postings only carry a heading flag for the lift.
            if p.score != 0.0 {
                facts.insert(p.section, p.facts);
                emit(p.section, p.score);
            }
        }
    }

    fn ready(&self) -> Result<()> {
        self.need()
    }

    fn passes_filters(
        &self,
        s: u32,
        opts: &SearchOptions,
        facts: &HashMap<u32, SectionFacts>,
    ) -> bool {
        let doc = self.doc_of(s);
        let Some(f) = self.dir.docs.get(doc as usize) else {
            return false;
        };
        let string = |i: Option<u32>| self.dir.strings.get(i? as usize).map(String::as_str);
        filters_pass(
            opts,
            // Paths and depths of sections outside the postings are fetched only for a filter
            // that reads them.
            |p| {
                self.paths()
                    .is_some_and(|t| t.paths.get(doc as usize).is_some_and(|d| d.starts_with(p)))
            },
            || self.facts_of(s, facts).depth,
            [f.category, f.lang, f.version].map(string),
            |t| f.tags.iter().any(|&i| string(Some(i)) == Some(t)),
        )
    }

    fn lift(
        &self,
        _: &Analyzer,
        ranked: &mut [(u32, f32)],
        wanted: &[&str],
        query_len: usize,
        facts: &HashMap<u32, SectionFacts>,
    ) -> Result<()> {
        // Per section: how many of the query's words its heading has, its heading's length
        // and its number of distinct heading terms (the postings of heading terms say).
        let mut flags: HashMap<u32, (usize, u32, u32)> = HashMap::default();
        for w in wanted {
            let Some(reference) = crate::query::Lexicon::lookup(self, w) else {
                continue;
            };
            let Some(postings) = self.postings(reference) else {
                continue;
            };
            for p in postings.iter() {
                if let Some((len, count)) = p.heading {
                    let e = flags.entry(p.section).or_insert((0, len, count));
                    e.0 += 1;
                }
            }
        }
        self.need()?;
        lift_exact_headings(ranked, |i, s| {
            let &(have, len, count) = flags.get(&s)?;
            let same_len = len as usize == query_len;
            if !same_len && i >= 50 {
                return None;
            }
            Some(HeadingMatch {
                exact: same_len && count as usize == wanted.len() && have == wanted.len(),
                contains_all: have == wanted.len(),
                depth: self.facts_of(s, facts).depth,
            })
        });
        Ok(())
    }

    #[cfg(feature = "semantic")]
    fn prepare_semantic(&self) -> Result<()> {
        self.tree();
        self.need()
    }

    fn group(
        &self,
        ranked: Vec<(u32, f32)>,
        facts: &HashMap<u32, SectionFacts>,
    ) -> Vec<(u32, f32)> {
        group_by_ranges(ranked, |s| self.facts_of(s, facts))
    }

    fn versioned(&self) -> bool {
        self.dir.versioned
    }

    fn family(&self, s: u32, facts: &HashMap<u32, SectionFacts>) -> Option<u32> {
        self.facts_of(s, facts).family
    }

    fn version_of(&self, s: u32) -> Option<&str> {
        let f = self.dir.docs.get(self.doc_of(s) as usize)?;
        self.dir
            .strings
            .get(f.version? as usize)
            .map(String::as_str)
    }

    fn hits(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        preview_lines: usize,
        terms: &HashSet<&str>,
    ) -> Result<Vec<SearchHit>> {
        // A preview of up to `card_lines` lines comes from the section's card (~0.5 KB gzip
        // for four sections); a longer one needs the section's whole text, from its bundle.
        if preview_lines <= self.card_lines() as usize {
            return self.hits_from_cards(analyzer, page, preview_lines, terms);
        }
        #[cfg(not(feature = "bundles"))]
        return Err(Error::lacks_bundles());
        #[cfg(feature = "bundles")]
        {
            let bundles: Vec<Option<Arc<Bundle>>> = page
                .iter()
                .map(|c| self.bundle_of_doc(self.doc_of(c.section)))
                .collect();
            self.need()?;
            hits_from(
                analyzer,
                page,
                bundles,
                "bundle",
                preview_lines,
                terms,
                |b, s| {
                    let first = b.docs.first()?.first_section;
                    let at = s.checked_sub(first)? as usize;
                    let sec = b.sections.get(at)?;
                    let doc = b.docs.get(sec.doc.wrapping_sub(b.first_doc) as usize)?;
                    Some(Located {
                        sec,
                        doc: HitDoc::from(doc),
                        text: lines_of(
                            &doc.source,
                            &line_starts(&doc.source),
                            sec.start_line,
                            sec.end_line,
                        ),
                        links: b.links.get(at)?,
                        link_docs: &b.link_docs,
                    })
                },
            )
        }
    }
}

/// A section found in the file that holds it (a card or a bundle), with what its hit shows.
struct Located<'a> {
    sec: &'a SectionRecord,
    doc: HitDoc<'a>,
    /// Its lines from the heading on (at least as many as the preview shows).
    text: &'a str,
    links: &'a [crate::shards::Link],
    link_docs: &'a [crate::shards::LinkDoc],
}

/// A page of hits from the files holding its sections, in page order (`files[i]` holds
/// `page[i]`; `None`: missing or damaged). `locate` finds a section in its file.
fn hits_from<T>(
    analyzer: &Analyzer,
    page: &[&Collapsed],
    files: Vec<Option<Arc<T>>>,
    kind: &str,
    preview_lines: usize,
    terms: &HashSet<&str>,
    locate: impl for<'a> Fn(&'a T, u32) -> Option<Located<'a>>,
) -> Result<Vec<SearchHit>> {
    let damaged = || Error::Malformed {
        file: kind.into(),
        detail: format!("a result's section is not in its {kind}"),
    };
    page.iter()
        .zip(files)
        .map(|(c, file)| {
            let file = file.ok_or_else(damaged)?;
            let at = locate(&file, c.section).ok_or_else(damaged)?;
            let mut hit = make_hit_from(
                analyzer,
                at.sec,
                at.doc,
                at.text,
                c.score,
                preview_lines,
                terms,
            );
            hit.other_versions = c
                .others
                .iter()
                .filter_map(|o| {
                    let link = at.links.iter().find(|l| l.section == *o)?;
                    crate::shards::version_link(at.link_docs, link, at.sec.anchor.as_deref())
                })
                .collect();
            Ok(hit)
        })
        .collect()
}

impl Sharded {
    /// [`Ranking::hits`] from the results' cards.
    fn hits_from_cards(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        preview_lines: usize,
        terms: &HashSet<&str>,
    ) -> Result<Vec<SearchHit>> {
        let cards: Vec<_> = page
            .iter()
            .map(|c| self.card_of_section(c.section))
            .collect();
        self.need()?;
        hits_from(
            analyzer,
            page,
            cards,
            "card",
            preview_lines,
            terms,
            |card, s| {
                let at = s.checked_sub(card.first_section)? as usize;
                let sec = card.sections.get(at)?;
                Some(Located {
                    sec: &sec.record,
                    doc: HitDoc::from(card.doc_of(at)?),
                    text: &sec.text,
                    links: card.links.get(at)?,
                    link_docs: &card.link_docs,
                })
            },
        )
    }
}

/// Byte ranges of `text` whose terms are in `terms`, merged, as UTF-16 offsets.
pub fn highlight_ranges(analyzer: &Analyzer, text: &str, terms: &HashSet<&str>) -> Vec<[u32; 2]> {
    let mut ranges: Vec<(usize, usize)> = analyzer
        .analyze(text)
        .into_iter()
        .filter(|t| terms.contains(t.term.as_str()))
        .map(|t| (t.start, t.end))
        .collect();
    crate::sort::sort(&mut ranges);
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    // Byte offsets → UTF-16 offsets in one pass.
    let mut out = Vec::with_capacity(merged.len());
    let mut utf16 = 0u32;
    let mut byte = 0usize;
    let mut chars = text.char_indices().peekable();
    let mut to_utf16 = |target: usize| -> u32 {
        while let Some(&(i, c)) = chars.peek() {
            if i >= target {
                break;
            }
            utf16 += c.len_utf16() as u32;
            byte = i + c.len_utf8();
            chars.next();
        }
        let _ = byte;
        utf16
    };
    for (a, b) in merged {
        let ua = to_utf16(a);
        let ub = to_utf16(b);
        out.push([ua, ub]);
    }
    out
}
