//! A loaded index answering queries: its lifecycle (open, attach files, vectors) and the
//! pipeline every query runs — plan, score, filter, lift, fuse, group, collapse versions,
//! make the page's hits — written once over the [`crate::layout`] traits.
//!
//! The result types are in [`crate::answer`]; the semantic leg in [`semantic`] (feature
//! `semantic`); opening a single-file index in [`single_file`] (feature `single-file`).
mod facets;
#[cfg(feature = "semantic")]
#[cfg_attr(not(feature = "ann"), path = "graph_off.rs")]
mod graph;
mod inventory;
pub mod needs;
mod operators;
mod planned;
pub mod policy;
#[cfg_attr(not(feature = "semantic"), path = "semantic_off.rs")]
mod semantic;
#[cfg(feature = "single-file")]
mod single_file;
pub(crate) mod suggest;

use crate::analyzer::{Analyzer, Language};
use crate::answer::marks::{Marker, Shown};
use crate::answer::{DocumentView, Facets, Mode, SearchOptions, SearchResponse, SectionView};
use crate::error::{Error, Result};
use crate::format::{FileKind, Manifest};
use crate::layout::sharded::{FileSource, Sharded};
use crate::layout::{Inventory, Layout, Lookups};
use crate::query::syntax::parse as parse_operators;
use crate::query::{PlanOptions, WeightedTerm, MAX_QUERY_BYTES};
use crate::rank::bm25::sort_ranked;
use crate::rank::bound;
use crate::rank::fusion::{anchored, keep_places};
use crate::rank::headings::{Asked, LIFT_HEAD};
use crate::rank::pipeline::accumulate_above;
use crate::rank::topk::{self, Below};
use crate::rank::versions::{collapse, newest_first, Collapsed};
use crate::rank::workspace::{Workspace, Workspaces};
use crate::section::SectionId;
use crate::vectors::ann::AnnData;
use crate::vectors::VectorsData;
use planned::Planned;
use rustc_hash::FxHashSet as HashSet;
use suggest::did_you_mean;

/// A loaded index, ready to answer queries.
pub struct SearchIndex {
    manifest: Manifest,
    /// The languages whose rules made the terms, the site's first (from the manifest).
    languages: Vec<Language>,
    /// The site's analyzer, for what is not a query (lookups, the script of a query).
    analyzer: Analyzer,
    store: Store,
    vectors: Option<VectorsData>,
    ann: Option<AnnData>,
    /// The static table queries' vectors are looked up in, when the index ships one.
    #[cfg_attr(not(feature = "semantic"), allow(dead_code))]
    table: Option<crate::vectors::table::StaticTable>,
    /// How many times a page's depth of postings a keyword query's lists need before its
    /// candidates are bounded ([`SearchIndex::set_bounding`]).
    bound_from: usize,
    /// Ranking's tables over the sections, kept between queries.
    workspaces: Workspaces,
    /// The documents' distinct language tags ([`SearchIndex::reader_language`]).
    doc_languages: std::sync::OnceLock<Vec<Option<String>>>,
}

/// The layout an index was built in. An enum rather than one trait object: the keyword
/// modules take [`Layout`]'s vtable only, and [`Lookups`] (bundles, whole documents) is
/// linked where a look-up is asked for, in the full engine.
enum Store {
    /// A single-file index, all in memory.
    #[cfg(feature = "single-file")]
    Whole(Box<crate::layout::single::search::Whole>),
    /// A sharded index: files load as queries need them.
    Sharded(Box<Sharded>),
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

impl Store {
    fn layout(&self) -> &dyn Layout {
        match self {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => w.as_ref(),
            Store::Sharded(sh) => sh.as_ref(),
        }
    }

    fn inventory(&self) -> &dyn Inventory {
        match self {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => w.as_ref(),
            Store::Sharded(sh) => sh.as_ref(),
        }
    }

    fn lookups(&self) -> &dyn Lookups {
        match self {
            #[cfg(feature = "single-file")]
            Store::Whole(w) => w.as_ref(),
            Store::Sharded(sh) => sh.as_ref(),
        }
    }
}

impl SearchIndex {
    fn with_store(manifest: Manifest, store: Store) -> Self {
        // A code this build does not know (a newer minor's language) is read as English, as
        // a reader of an older minor reads every query.
        let languages: Vec<Language> = manifest
            .languages
            .iter()
            .filter_map(|code| Language::from_code(code))
            .collect();
        let site = languages.first().copied().unwrap_or_default();
        SearchIndex {
            manifest,
            languages,
            analyzer: Analyzer::for_language(site),
            store,
            vectors: None,
            ann: None,
            table: None,
            bound_from: bound::WORTH_IT,
            workspaces: Workspaces::default(),
            doc_languages: std::sync::OnceLock::new(),
        }
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
        Ok(Self::with_store(
            manifest,
            Store::Sharded(Box::new(sharded)),
        ))
    }

    /// Adds a file a request asked for ([`needs::Needs::files`]): the vectors or their
    /// HNSW graph (either layout), or a file of a sharded index.
    pub fn attach_file(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let kind = self
            .manifest
            .files
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.kind);
        match kind {
            Some(kind @ (FileKind::Vectors | FileKind::Ann | FileKind::Table)) => {
                self.attach_vector_file(kind, bytes)
            }
            _ => self.store.layout().attach_file(name, bytes),
        }
    }

    /// How long a keyword query's posting lists must be, in times the page's depth (200
    /// sections for a first page), before its first results are found without ranking
    /// every candidate ([`crate::rank::topk`]; default 10): shorter ones cost little to rank
    /// whole. 0 bounds every query that can be, as the layout tests do to compare the two
    /// ways on every corpus. The results are the same either way.
    pub fn set_bounding(&mut self, factor: usize) {
        self.bound_from = factor;
    }

    /// Whether this is a sharded index (files load as queries need them).
    pub fn is_sharded(&self) -> bool {
        self.store.layout().is_sharded()
    }

    /// Whether the HNSW graph is attached.
    pub fn has_ann(&self) -> bool {
        self.ann.is_some()
    }

    /// The attached vectors, if any.
    pub fn vectors(&self) -> Option<&VectorsData> {
        self.vectors.as_ref()
    }

    /// Whether semantic search can run (vectors attached).
    pub fn has_vectors(&self) -> bool {
        self.vectors.is_some()
    }

    /// The entry file's contents.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The site's analyzer (the rules of the language most of its pages are in).
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The analyzer a query is read with: by the rules of `prefer` (the reader's language)
    /// when the index has pages in it, else the site's, trying every other language's terms
    /// too. `Err(NeedsFullEngine)` in a build that cannot stem one of the index's languages.
    pub fn query_analyzer(&self, prefer: Option<&str>) -> Result<Analyzer> {
        Analyzer::for_index(&self.languages, prefer)
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
        if let Some(d) = opts.depth.iter().find(|&&d| d > 6) {
            // Was an empty answer: no section is that deep, and nothing said why.
            return Err(Error::InvalidOption {
                name: "depth",
                detail: format!("{d} is not a depth: 0 is a whole document, 1–6 a heading level"),
            });
        }
        opts.check_numbers()?;
        let ops = parse_operators(query);
        if ops.text.trim().is_empty() {
            // A cleared search box (or only quote marks): nothing asked, nothing
            // found, no error to handle.
            return Ok(SearchResponse {
                total: 0,
                total_exact: true,
                results: Vec::new(),
                suggestions: Vec::new(),
                mode: match opts.mode {
                    Mode::Auto => Mode::Keyword,
                    m => m,
                },
                facets: (opts.facets || opts.facets_if_ranked).then(Facets::default),
            });
        }
        let looked_up = self.table_vector(query, opts.mode)?;
        let query_vector = query_vector.or(looked_up.as_deref());
        let mode = match (opts.mode, query_vector.is_some()) {
            (Mode::Auto, true) if self.semantic_covers(query) => Mode::Hybrid,
            (Mode::Auto, true) => Mode::Keyword,
            (Mode::Auto | Mode::Keyword, false) => Mode::Keyword,
            (m @ (Mode::Semantic | Mode::Hybrid), false) if self.has_table() => m,
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
        let store = self.store.layout();
        let analyzer = self.query_analyzer(opts.prefer_lang.as_deref())?;
        store.begin();
        let plan = store.plan(&analyzer, &ops.text, plan_opts, opts.preview_lines)?;
        let filters = if ops.any() {
            Some(operators::prepare(
                &analyzer,
                store,
                &ops,
                opts.preview_lines,
            )?)
        } else {
            None
        };
        let planned = Planned {
            analyzer,
            plan,
            filters,
            prefer: self.reader_language(store, opts.prefer_lang.as_deref()),
        };
        let prunable = planned.prunable(mode, opts);
        let mut ws = self.workspaces.take();
        let answer = self.run(
            &mut ws,
            store,
            query,
            opts,
            query_vector,
            mode,
            &planned,
            prunable,
        );
        self.workspaces.give_back(ws);
        answer
    }

    /// The steps after planning, for either layout. With `prunable`, the keyword leg may
    /// leave out the candidates below a bound ([`crate::rank::topk`]); when what it left out
    /// could change the page, the query is run again ranking every candidate.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        ws: &mut Workspace,
        store: &dyn Layout,
        query: &str,
        opts: &SearchOptions,
        query_vector: Option<&[f32]>,
        mode: Mode,
        planned: &Planned,
        prunable: bool,
    ) -> Result<SearchResponse> {
        let plan = &planned.plan;
        let analyzer = &planned.analyzer;
        let facts = &mut ws.facts;
        let collapsing = store.versioned() && opts.collapse_versions && opts.version.is_none();
        // Keyword results whose heading has every query word, and where they stand: the
        // fused list keeps them there.
        let mut places: Vec<(u32, usize)> = Vec::new();
        let mut named: Vec<u32> = Vec::new();
        // What the postings left out hold, and the results certain to be there.
        let mut below = Below::with_subtrees(
            store.section_count(),
            collapsing,
            std::mem::take(&mut ws.subtrees),
        );
        let mut at_least = 0;
        let keyword = if mode == Mode::Semantic {
            Vec::new()
        } else {
            let n = store.section_count();
            // Only a sharded index's lists say their scores without being walked.
            let k = topk::depth(LIFT_HEAD, opts.offset, opts.limit);
            let lists = match &self.store {
                Store::Sharded(sh) if prunable && bound::ENABLED => Some(sh.as_ref()),
                _ => None,
            };
            let pruning = lists.and_then(|sh| {
                let stats = |t: &WeightedTerm| sh.list_stats(t.offset, k);
                bound::of_lists(plan, k, self.bound_from, |t| sh.list_len(t.offset), stats)
            });
            let accumulated = accumulate_above(
                n,
                plan,
                pruning.as_ref(),
                |t, split, emit, below| match (split, lists) {
                    (Some(split), Some(sh)) => sh.scores_split(t, facts, split, emit, below),
                    // (Only a sharded index's queries are bounded; any other layout's
                    // postings would be split as they are handed over.)
                    (Some(split), None) => store.scores(t, facts, &mut |s, score, f| {
                        split.hand_over(t.weight, (s, score, f), emit, below)
                    }),
                    (None, _) => store.scores(t, facts, emit),
                },
                &mut below,
                &mut ws.sums,
            );
            let touched = accumulated.touched;
            store.ready()?;
            // Nothing left out: every candidate is ranked, as without a bound — unless they
            // are many, every posting was kept, and the query could be bounded: then θ is
            // their own k-th best total, and those below it are left out as below
            // (`topk::kth_total`: sorting and grouping a typed prefix's ninety thousand
            // candidates was a fifth of its keystroke's time, for a page of five).
            let theta = match &pruning {
                Some(_) if below.any() => accumulated.theta, // (perhaps raised by the walk)
                _ if lists.is_some() && touched.len() >= k.saturating_mul(self.bound_from) => {
                    topk::kth_total(&touched, k).unwrap_or(0.0)
                }
                _ => 0.0,
            };
            // Without a filter every candidate passes: not asked one by one (finding each
            // one's document was a fifth of a ranking's time).
            let filtered = opts.has_filters();
            let keep = |s: u32| !filtered || store.passes_filters(s, opts, facts);
            let mut ranked: Vec<(u32, f32)> = Vec::with_capacity(touched.len());
            for &(s, v) in &touched {
                if v > 0.0 && keep(s) {
                    if v >= theta {
                        ranked.push((s, v));
                    } else {
                        // Below θ with every posting kept: left out as well, and the checks
                        // must see it (a version of a result, a relative of a bare one). A
                        // sharded index noted every posting's facts.
                        below.note(s, facts.get(s).unwrap_or_default());
                    }
                }
            }
            // Counted once, after every left-out section is noted (the count reads them all
            // and every candidate, so it is the same before or after the notes above).
            if below.any() {
                at_least = below.at_least(touched.iter().map(|r| r.0), facts);
            }
            store.ready()?;
            sort_ranked(&mut ranked);
            let mut wanted: Vec<&str> = plan.terms.iter().map(String::as_str).collect();
            crate::sort::sort(&mut wanted);
            wanted.dedup();
            if !wanted.is_empty() {
                let asked = Asked::new(analyzer, query, &wanted, |t| store.site_word(t));
                let lifted = store.lift(analyzer, &mut ranked, &asked, facts)?;
                places = anchored(&ranked, &lifted.all);
                named = lifted.named;
            }
            ranked
        };
        let ranked = match (mode, query_vector) {
            (Mode::Keyword, _) | (_, None) => keyword,
            (_, Some(qv)) => {
                let words_match = plan.all_terms().next().is_some();
                let fused = self.semantic_leg(
                    store,
                    qv,
                    opts,
                    facts,
                    mode,
                    (query, plan, keyword),
                    words_match,
                )?;
                keep_places(fused, &places)
            }
        };
        let ranked = match &planned.filters {
            Some(f) => operators::apply(analyzer, store, f, ranked)?,
            None => ranked,
        };
        let ranked: Vec<(u32, f32)> = match opts.min_score {
            Some(min) => ranked.into_iter().filter(|&(_, s)| s >= min).collect(),
            None => ranked,
        };
        let grouped = if opts.group {
            store.group(ranked, facts, &named)
        } else {
            ranked
        };
        let mut collapsed: Vec<Collapsed> = if collapsing {
            collapse(&grouped, |s| store.family(s, facts))
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
        // Which version each collapsed result shows: for every result when facets or the
        // preferred language read them all, else for the page's alone.
        let prefer: Option<&str> = planned.prefer.as_deref();
        // Some candidates left out (`rank::topk`): the page is exact, the count a lower bound.
        let bounded = bound::ENABLED && below.any();
        let counting = opts.facets || opts.facets_if_ranked && !bounded;
        if collapsing && (counting || prefer.is_some()) {
            newest_first(&mut collapsed, |s| store.version_of(s));
        }
        // Before the page is cut: page two continues page one's order.
        let mut collapsed = match prefer {
            Some(want) => {
                let (doc_of, lang_of) = (|s| store.document_of(s), |d| store.document_language(d));
                crate::rank::language::prefer(collapsed, want, doc_of, lang_of)
            }
            None => collapsed,
        };
        let page = (opts.offset, opts.limit);
        let start = |s| store.document_start(s);
        let unsettled = bounded && !topk::settled(page, &grouped, &collapsed, &below, facts, start);
        // Left out: the results certain to be there (all of them when no matching section
        // is bare), and at least the page's, which is the full ranking's.
        let total_exact = !bounded || below.exact();
        ws.subtrees = below.into_subtrees();
        if unsettled {
            ws.clear();
            return self.run(ws, store, query, opts, query_vector, mode, planned, false);
        }
        let total = if !bounded {
            collapsed.len()
        } else {
            at_least.max(opts.offset.saturating_add(opts.limit))
        };
        let facets = counting.then(|| facets::count(store, &collapsed));
        let terms: HashSet<&str> = plan.all_terms().collect();
        if collapsing && !(counting || prefer.is_some()) {
            let from = opts.offset.min(collapsed.len());
            let to = opts.offset.saturating_add(opts.limit).min(collapsed.len());
            newest_first(&mut collapsed[from..to], |s| store.version_of(s));
        }
        let page: Vec<&Collapsed> = collapsed
            .iter()
            .skip(opts.offset)
            .take(opts.limit)
            .collect();
        let shown = Shown {
            preview_lines: opts.preview_lines,
            excerpts: opts.excerpts,
            marker: Marker::with_stems(&terms, std::mem::take(&mut ws.stems)).for_query(query),
        };
        let results = store.hits(analyzer, &page, &shown);
        ws.stems = shown.marker.into_stems();
        let results = results?;
        let suggestions = if total < 3 {
            did_you_mean(query, plan)
        } else {
            Vec::new()
        };
        Ok(SearchResponse {
            total,
            total_exact,
            results,
            suggestions,
            mode,
            facets,
        })
    }

    /// The distinct versions of a versioned site, newest first (empty when it has fewer
    /// than two): what a version picker offers.
    pub fn versions(&self) -> &[String] {
        self.store.layout().versions()
    }

    /// A section by id, with its whole text. A sharded index finds it through the cards and
    /// bundles loaded so far (every search result's card is), or with a file source in any
    /// bundle.
    pub fn get_section(&self, id: SectionId) -> Option<SectionView> {
        self.store.lookups().get_section(&self.analyzer, id)
    }

    /// A document by path.
    pub fn get_document(&self, path: &str) -> Option<DocumentView> {
        let path = path.trim_start_matches('/');
        self.store.lookups().get_document(&self.analyzer, path)
    }

    /// The section of a document with this anchor.
    pub fn find_anchor(&self, path: &str, anchor: &str) -> Option<SectionId> {
        let path = path.trim_start_matches('/');
        self.store.lookups().find_anchor(path, anchor)
    }

    /// Completions for the word being typed (display words, most frequent first). A sharded
    /// index without a file source fails with [`Error::NeedsFiles`] until the shards of the
    /// prefix are attached.
    pub fn suggest(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        let analyzer = self.query_analyzer(None)?;
        self.store.layout().suggest(&analyzer, prefix, limit)
    }

    /// After a look-up that found nothing ([`SearchIndex::get_document`],
    /// [`SearchIndex::find_anchor`], [`SearchIndex::get_section`]): `Err(NeedsFiles)` when a
    /// sharded index lacked files to answer it, so the caller can attach them and ask again.
    pub fn pending(&self) -> Result<()> {
        self.store.layout().pending()
    }

    /// Number of sections.
    pub fn section_count(&self) -> usize {
        self.store.layout().section_count()
    }
}
