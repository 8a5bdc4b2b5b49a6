//! Running a query against a loaded index: scoring, filters, grouping, previews, highlights.
//!
//! The result types serialise to the JSON the CLI prints and the JS API returns — one
//! definition, so the two cannot drift apart.

use crate::analyzer::Analyzer;
use crate::ann::AnnData;
use crate::error::{Error, Result};
use crate::format::{decode, FileKind, Manifest};
use crate::fusion::{fuse, Fusion};
use crate::index::postings::ListReader;
use crate::index::{Field, SectionRecord, SectionsData, TermsData};
use crate::query::{plan, Dictionary, PlanOptions, QueryPlan, MAX_QUERY_BYTES};
use crate::scoring::Bm25f;
use crate::section::SectionId;
use crate::vectors::VectorsData;
use crate::versions::{collapse, Collapsed, Families};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

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
    terms: TermsData,
    map: fst::Map<Vec<u8>>,
    sections: SectionsData,
    line_starts: Vec<Vec<u32>>,
    by_id: HashMap<u64, u32>,
    by_path: HashMap<String, u32>,
    vectors: Option<VectorsData>,
    ann: Option<AnnData>,
    families: Option<Families>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

fn line_starts(source: &str) -> Vec<u32> {
    std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect()
}

impl SearchIndex {
    /// Loads an index from its entry file and the two files keyword search needs.
    pub fn open(entry: &[u8], terms: &[u8], sections: &[u8]) -> Result<Self> {
        let manifest = Manifest::decode(entry)?;
        Self::from_manifest(manifest, terms, sections)
    }

    /// Loads an index from an already decoded manifest and its keyword files.
    pub fn from_manifest(manifest: Manifest, terms: &[u8], sections: &[u8]) -> Result<Self> {
        let name = |kind: FileKind| {
            manifest
                .file(kind)
                .map_or_else(|| kind.to_string(), |f| f.name.clone())
        };
        let terms_name = name(FileKind::Terms);
        let terms: TermsData = decode(FileKind::Terms, &terms_name, terms)?;
        let sections: SectionsData =
            decode(FileKind::Sections, &name(FileKind::Sections), sections)?;
        let malformed = |detail: String| Error::Malformed {
            file: terms_name.clone(),
            detail,
        };
        let map = fst::Map::new(terms.fst.clone()).map_err(|e| malformed(e.to_string()))?;
        // fst trusts its bytes and panics on a damaged dictionary at query time; its own
        // checksum turns that into an error here. (Only a dictionary forged with a matching
        // checksum could still reach fst's panics.)
        map.as_fst()
            .verify()
            .map_err(|e| malformed(format!("term dictionary: {e}")))?;
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
            families,
            manifest,
            analyzer: Analyzer::new(),
            terms,
            map,
            sections,
            line_starts,
            by_id,
            by_path,
            vectors: None,
            ann: None,
        })
    }

    /// Adds the vectors file (loaded lazily, when semantic search is first needed).
    pub fn attach_vectors(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self
            .manifest
            .file(FileKind::Vectors)
            .map_or_else(|| "vectors".to_string(), |f| f.name.clone());
        let v: VectorsData = decode(FileKind::Vectors, &name, bytes)?;
        let n = self.sections.sections.len() as u32;
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
    pub fn attach_ann(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self
            .manifest
            .file(FileKind::Ann)
            .map_or_else(|| "ann".to_string(), |f| f.name.clone());
        let vectors = self.vectors.as_ref().ok_or_else(|| {
            Error::SemanticUnavailable("attach the vectors before the ANN graph".into())
        })?;
        let ann: AnnData = decode(FileKind::Ann, &name, bytes)?;
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
    pub fn section_place(&self, section: u32) -> Option<(&str, Option<&str>)> {
        let sec = self.sections.sections.get(section as usize)?;
        let doc = self.sections.docs.get(sec.doc as usize)?;
        Some((doc.path.as_str(), sec.anchor.as_deref()))
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

    fn dictionary(&self) -> Dictionary<'_> {
        Dictionary {
            map: &self.map,
            data: &self.terms,
        }
    }

    /// Runs a query. `query_vector` is the query's embedding (from midashi-embed) for the
    /// semantic leg; without it only keyword search runs.
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
        let plan = plan(
            &self.analyzer,
            &self.dictionary(),
            query,
            PlanOptions {
                prefix: opts.prefix,
                fuzzy: opts.fuzzy,
            },
        );
        let keep = |s: u32| self.passes_filters(s, opts);
        let keyword = if mode == Mode::Semantic {
            Vec::new()
        } else {
            self.keyword_leg(&plan, &keep, self.analyzer.analyze(query).len())
        };
        let ranked = match (mode, query_vector) {
            (Mode::Keyword, _) | (_, None) => keyword,
            (_, Some(qv)) => {
                let vectors = self.vectors.as_ref().ok_or_else(|| {
                    Error::SemanticUnavailable(
                        "the index has no vectors: rebuild it with a model".into(),
                    )
                })?;
                // The graph answers unfiltered queries; with a filter its candidates could
                // all be filtered away, so filtered queries scan every row.
                let candidates = match &self.ann {
                    Some(ann) if !opts.has_filters() => ann.search(vectors, qv),
                    _ => vectors.scan(qv),
                };
                let semantic: Vec<(u32, f32)> =
                    candidates.into_iter().filter(|&(s, _)| keep(s)).collect();
                if mode == Mode::Semantic {
                    semantic
                } else {
                    // Fuse over the heads of both legs: deep tails only add noise to RRF.
                    let head = 200;
                    fuse(
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
            self.group(ranked)
        } else {
            ranked
        };
        let collapsed: Vec<Collapsed> = match &self.families {
            Some(f) if opts.collapse_versions && opts.version.is_none() => {
                collapse(&grouped, f, |s| self.version_of(s))
            }
            _ => grouped
                .iter()
                .map(|&(section, score)| Collapsed {
                    section,
                    score,
                    others: Vec::new(),
                })
                .collect(),
        };
        let total = collapsed.len();
        let terms: HashSet<&str> = plan.all_terms().collect();
        let results = collapsed
            .iter()
            .skip(opts.offset)
            .take(opts.limit)
            .map(|c| {
                let mut hit = self.hit(c.section, c.score, opts.preview_lines, &terms);
                hit.other_versions = c.others.iter().map(|&o| self.version_link(o)).collect();
                hit
            })
            .collect();
        let suggestions = if total < 3 {
            self.did_you_mean(query, &plan)
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

    /// BM25F over the plan's clauses, exact heading matches first; best first.
    fn keyword_leg(
        &self,
        plan: &QueryPlan,
        keep: &dyn Fn(u32) -> bool,
        query_len: usize,
    ) -> Vec<(u32, f32)> {
        let n = self.sections.sections.len();
        let scorer = Bm25f::new(
            self.terms.weights,
            self.terms.avg_len,
            &self.terms.field_lengths,
        );
        let mut total = vec![0f32; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut add = |total: &mut Vec<f32>, s: u32, v: f32| {
            if let Some(slot) = total.get_mut(s as usize) {
                if *slot == 0.0 {
                    touched.push(s);
                }
                *slot += v;
            }
        };
        for clause in &plan.clauses {
            let single = clause.alternatives.len() == 1 && clause.alternatives[0].terms.len() == 1;
            let mut best: HashMap<u32, f32> = HashMap::new();
            for alt in &clause.alternatives {
                let mut alt_scores: HashMap<u32, f32> = HashMap::new();
                for t in &alt.terms {
                    let Some(list) = ListReader::open(&self.terms.postings, t.offset as usize)
                    else {
                        continue;
                    };
                    let idf = list.idf;
                    for p in list {
                        let v = t.weight * scorer.score(idf, p.section, &p.tf);
                        if single {
                            add(&mut total, p.section, v);
                        } else {
                            *alt_scores.entry(p.section).or_insert(0.0) += v;
                        }
                    }
                }
                for (s, v) in alt_scores {
                    let e = best.entry(s).or_insert(0.0);
                    *e = e.max(v);
                }
            }
            // Sorted so the float additions happen in the same order everywhere.
            let mut best: Vec<(u32, f32)> = best.into_iter().collect();
            best.sort_by_key(|&(s, _)| s);
            for (s, v) in best {
                add(&mut total, s, v);
            }
        }
        let mut ranked: Vec<(u32, f32)> = touched
            .into_iter()
            .filter(|&s| keep(s))
            .map(|s| (s, total[s as usize]))
            .filter(|&(_, v)| v > 0.0)
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        self.boost_exact_headings(&mut ranked, plan, query_len);
        ranked
    }

    /// A section whose heading says exactly what was asked comes first: its score is lifted
    /// above the best non-exact score (keeping order among exact matches).
    fn boost_exact_headings(&self, ranked: &mut [(u32, f32)], plan: &QueryPlan, query_len: usize) {
        let mut wanted: Vec<&str> = plan.terms.iter().map(String::as_str).collect();
        if wanted.is_empty() {
            return;
        }
        wanted.sort_unstable();
        wanted.dedup();
        let top = ranked.first().map_or(0.0, |r| r.1);
        let mut any = false;
        // Exact matches are near the top anyway; looking further only costs time.
        for (i, r) in ranked.iter_mut().take(200).enumerate() {
            // The heading field's stored length is its term count under the same analyzer:
            // only headings as long as the query can say exactly the same thing. Headings
            // that merely contain every query word get a smaller lift, larger for page-level
            // headings (a page about X beats a subsection mentioning X); that is only
            // checked for the head of the list, where it can change what is seen.
            let same_len = self.field_len(r.0, Field::Heading) == query_len;
            if !same_len && i >= 50 {
                continue;
            }
            let sec = &self.sections.sections[r.0 as usize];
            let tokens = self.analyzer.analyze_query(&sec.heading);
            let mut have: Vec<&str> = tokens
                .iter()
                .filter(|t| !t.part)
                .map(|t| t.term.as_str())
                .collect();
            have.sort_unstable();
            have.dedup();
            if same_len && have == wanted {
                r.1 += top;
                any = true;
            } else if wanted.iter().all(|w| have.binary_search(w).is_ok()) {
                r.1 *= match sec.depth {
                    0 | 1 => 1.25,
                    2 => 1.15,
                    _ => 1.1,
                };
                any = true;
            }
        }
        if any {
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
    }

    fn field_len(&self, section: u32, field: Field) -> usize {
        let i = (section as usize * crate::index::NUM_FIELDS + field as usize) * 2;
        self.terms
            .field_lengths
            .get(i..i + 2)
            .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])))
    }

    fn passes_filters(&self, s: u32, opts: &SearchOptions) -> bool {
        let sec = &self.sections.sections[s as usize];
        let doc = &self.sections.docs[sec.doc as usize];
        let h = &doc.hints;
        opts.path
            .as_ref()
            .is_none_or(|p| doc.path.starts_with(p.trim_start_matches('/')))
            && (opts.depth.is_empty() || opts.depth.contains(&sec.depth))
            && opts
                .category
                .as_ref()
                .is_none_or(|c| h.category.as_ref() == Some(c))
            && opts
                .lang
                .as_ref()
                .is_none_or(|l| h.lang.as_ref() == Some(l))
            && opts
                .version
                .as_ref()
                .is_none_or(|v| h.version.as_ref() == Some(v))
            && opts.tags.iter().all(|t| h.tags.contains(t))
    }

    /// Keeps the best-scoring node of every ancestor chain, so a passage is shown once.
    fn group(&self, ranked: Vec<(u32, f32)>) -> Vec<(u32, f32)> {
        let mut kept = HashSet::new();
        let mut covered = HashSet::new(); // ancestors of kept sections
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

    fn did_you_mean(&self, query: &str, plan: &QueryPlan) -> Vec<String> {
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

    fn lines(&self, doc: u32, from: u32, to: u32) -> &str {
        let d = &self.sections.docs[doc as usize];
        let starts = &self.line_starts[doc as usize];
        let from = (from.max(1) - 1) as usize;
        let a = starts.get(from).copied().unwrap_or(d.source.len() as u32) as usize;
        let b = starts
            .get(to as usize)
            .copied()
            .unwrap_or(d.source.len() as u32) as usize;
        d.source.get(a..b.max(a)).unwrap_or("")
    }

    fn version_of(&self, s: u32) -> Option<&str> {
        let sec = self.sections.sections.get(s as usize)?;
        self.sections.docs[sec.doc as usize]
            .hints
            .version
            .as_deref()
    }

    fn version_link(&self, s: u32) -> VersionLink {
        let sec = &self.sections.sections[s as usize];
        let doc = &self.sections.docs[sec.doc as usize];
        VersionLink {
            version: doc.hints.version.clone().unwrap_or_default(),
            id: SectionId(sec.id).to_string(),
            url: match &sec.anchor {
                Some(a) => format!("{}#{}", doc.url, a),
                None => doc.url.clone(),
            },
        }
    }

    /// The distinct versions of a versioned site, newest first (empty when it has fewer
    /// than two): what a version picker offers.
    pub fn versions(&self) -> &[String] {
        self.families.as_ref().map_or(&[], |f| f.versions())
    }

    fn hit(&self, s: u32, score: f32, preview_lines: usize, terms: &HashSet<&str>) -> SearchHit {
        let sec: &SectionRecord = &self.sections.sections[s as usize];
        let doc = &self.sections.docs[sec.doc as usize];
        // Saturating: line numbers come from a file, and a damaged one must not panic here.
        let span = sec
            .end_line
            .saturating_sub(sec.start_line)
            .saturating_add(1);
        let shown = u32::try_from(preview_lines).unwrap_or(u32::MAX).min(span);
        let preview = self
            .lines(
                sec.doc,
                sec.start_line,
                sec.start_line.saturating_add(shown).saturating_sub(1),
            )
            .trim_end_matches(['\n', '\r'])
            .to_string();
        let highlights = if terms.is_empty() {
            Vec::new()
        } else {
            highlight_ranges(&self.analyzer, &preview, terms)
        };
        SearchHit {
            id: SectionId(sec.id).to_string(),
            path: doc.path.clone(),
            url: match &sec.anchor {
                Some(a) => format!("{}#{}", doc.url, a),
                None => doc.url.clone(),
            },
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
            title: doc.title.clone(),
            description: doc.hints.description.clone(),
            token_estimate: sec.token_estimate,
            version: doc.hints.version.clone(),
            other_versions: Vec::new(),
        }
    }

    /// A section by id, with its whole text.
    pub fn get_section(&self, id: SectionId) -> Option<SectionView> {
        let &s = self.by_id.get(&id.0)?;
        let sec = &self.sections.sections[s as usize];
        let text = self
            .lines(sec.doc, sec.start_line, sec.end_line)
            .to_string();
        Some(SectionView {
            hit: self.hit(s, 0.0, usize::MAX, &HashSet::new()),
            text,
        })
    }

    /// A document by path, or by `path#anchor` for one of its sections.
    pub fn get_document(&self, path: &str) -> Option<DocumentView> {
        let &d = self.by_path.get(path.trim_start_matches('/'))?;
        let doc = &self.sections.docs[d as usize];
        let first = doc.first_section;
        Some(DocumentView {
            path: doc.path.clone(),
            url: doc.url.clone(),
            title: doc.title.clone(),
            source: doc.source.clone(),
            sections: (first..first + doc.section_count)
                .map(|s| self.hit(s, 0.0, 0, &HashSet::new()))
                .collect(),
        })
    }

    /// The section of a document with this anchor.
    pub fn find_anchor(&self, path: &str, anchor: &str) -> Option<SectionId> {
        let &d = self.by_path.get(path.trim_start_matches('/'))?;
        let doc = &self.sections.docs[d as usize];
        (doc.first_section..doc.first_section + doc.section_count)
            .map(|s| &self.sections.sections[s as usize])
            .find(|s| s.anchor.as_deref() == Some(anchor))
            .map(|s| SectionId(s.id))
    }

    /// Completions for the word being typed (display words, most frequent first).
    pub fn suggest(&self, prefix: &str, limit: usize) -> Vec<String> {
        // Only the end of the text can hold the word being typed: a huge input costs no more
        // than the longest query.
        let mut cut = prefix.len().saturating_sub(MAX_QUERY_BYTES);
        while !prefix.is_char_boundary(cut) {
            cut += 1;
        }
        let tokens = self.analyzer.analyze_query(&prefix[cut..]);
        let Some(last) = tokens.iter().rev().find(|t| !t.part) else {
            return Vec::new();
        };
        let raw = if last.raw.is_empty() {
            &last.term
        } else {
            &last.raw
        };
        let dict = self.dictionary();
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

    /// Number of sections.
    pub fn section_count(&self) -> usize {
        self.sections.sections.len()
    }

    /// Section ordinals in index order with their ids (for tools that walk the index).
    pub fn documents(&self) -> impl Iterator<Item = (&str, &str)> {
        self.sections
            .docs
            .iter()
            .map(|d| (d.path.as_str(), d.title.as_str()))
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
    ranges.sort_unstable();
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
