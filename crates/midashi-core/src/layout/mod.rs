//! Where the keyword index and the sections live, and how each layout answers.
//!
//! - [`single`]: one terms file and one sections file, fetched whole at load (small and
//!   medium sites);
//! - [`sharded`]: many small files a query fetches as it reads them (large sites).
//!
//! Each layout keeps its writing and reading side by side. [`crate::search::SearchIndex`]
//! holds one of them and asks it through the traits below, so the query pipeline is
//! written once: `Layout` is what a search needs (every module has it), `Lookups` what
//! sections and documents by id or path need (only the full engine links it), `Inventory`
//! what native callers list (no module links it).
pub mod sharded;
pub mod single;

use crate::analyzer::Analyzer;
use crate::answer::marks::Shown;
use crate::answer::{DocumentView, SearchHit, SearchOptions, SectionView};
use crate::error::Result;
use crate::query::{PlanOptions, QueryPlan, WeightedTerm};
use crate::rank::headings::{Asked, Lifted};
use crate::rank::pipeline::{SectionFacts, Seen};
use crate::rank::versions::Collapsed;
use crate::section::SectionId;
/// What [`crate::search::SearchIndex`]'s pipeline needs of a layout after planning. `facts` carries what the
/// keyword leg learnt of its candidates (a sharded index's postings hold it).
pub(crate) trait Ranking {
    fn section_count(&self) -> usize;
    /// Hands each `(section, score, facts)` of a term's postings to `emit`.
    fn scores(
        &self,
        t: &WeightedTerm,
        facts: &mut Seen,
        emit: &mut dyn FnMut(u32, f32, SectionFacts),
    );
    /// The first section of the document holding section `s` (its ancestors lie between),
    /// if the layout can tell without reading more.
    fn document_start(&self, _s: u32) -> Option<u32> {
        None
    }
    /// `Err(NeedsFiles)` when something read so far was missing.
    fn ready(&self) -> Result<()>;
    fn passes_filters(&self, s: u32, opts: &SearchOptions, facts: &Seen) -> bool;
    /// The exact-heading lift ([`crate::rank::headings`]) over `ranked`.
    fn lift(
        &self,
        analyzer: &Analyzer,
        ranked: &mut [(u32, f32)],
        asked: &Asked<'_>,
        facts: &Seen,
    ) -> Result<Lifted>;
    /// Whether `term`, which the query planned, is one of the site's own words
    /// ([`crate::rank::headings::is_site_word`]).
    fn site_word(&self, term: &str) -> bool;
    /// Loads what the semantic leg's candidates need.
    #[cfg(feature = "semantic")]
    fn prepare_semantic(&self) -> Result<()>;
    /// The ranked list grouped by ancestor chains ([`crate::rank::grouping::group_chains`]).
    /// `named`: sections that stand as themselves, bare or not ([`Lifted::named`]).
    fn group(&self, ranked: Vec<(u32, f32)>, facts: &Seen, named: &[u32]) -> Vec<(u32, f32)>;
    fn versioned(&self) -> bool;
    fn family(&self, s: u32, facts: &Seen) -> Option<u32>;
    fn version_of(&self, s: u32) -> Option<&str>;
    fn hits(
        &self,
        analyzer: &Analyzer,
        page: &[&Collapsed],
        shown: &Shown<'_>,
    ) -> Result<Vec<SearchHit>>;
    /// The facet values of the section's document: category, language, version, tags.
    fn doc_facets(&self, s: u32) -> DocFacets<'_>;
    /// The ordinal of the document holding section `s` (`None` past the index's end): what
    /// counting facets and the reader's language first look up once per document rather
    /// than once per result.
    fn document_of(&self, s: u32) -> Option<u32>;
    /// The number of documents.
    fn document_count(&self) -> usize;
    /// Document `d`'s language tag (`None`: none named, or no such document).
    fn document_language(&self, d: u32) -> Option<&str>;
    /// The section's own text (its heading to its own end), to check a quoted phrase in;
    /// `None` when a sharded index lacks its bundle (noted: [`Ranking::ready`] then asks
    /// for it).
    fn own_text(&self, s: u32) -> Result<Option<String>>;
}

/// The values a document has for each facet (see [`crate::answer::Facets`]).
#[derive(Debug, Default)]
pub(crate) struct DocFacets<'a> {
    pub category: Option<&'a str>,
    pub lang: Option<&'a str>,
    pub version: Option<&'a str>,
    pub tags: Vec<&'a str>,
}

/// A layout as a search uses it: plan, rank, and the files it has loaded.
pub(crate) trait Layout: Ranking + Send + Sync {
    /// Starts a search, once, before its plans (the query's and its operators'): a sharded
    /// index forgets what the last one lacked and drops files past its memory bound. Once,
    /// because a second start within one search dropped the files given for it before it
    /// read them (a phrase's plan came second), and the search asked for them again forever.
    fn begin(&self) {}

    /// Plans `query` against this layout's dictionary. A sharded index notes the shards it
    /// lacks and answers [`crate::Error::NeedsFiles`] until they are attached;
    /// `preview_lines` tells it whether the page's previews will need bundles.
    fn plan(
        &self,
        analyzer: &Analyzer,
        query: &str,
        opts: PlanOptions,
        preview_lines: usize,
    ) -> Result<QueryPlan>;
    /// Completions for the word being typed.
    fn suggest(&self, analyzer: &Analyzer, prefix: &str, limit: usize) -> Result<Vec<String>>;
    /// Adds a file the layout asked for.
    fn attach_file(&self, name: &str, bytes: &[u8]) -> Result<()>;
    /// Loaded files, in an order `attach_file` takes them in.
    fn loaded_files(&self) -> Vec<String>;
    /// Whether files load as queries need them.
    fn is_sharded(&self) -> bool;
    /// The site's versions, newest first.
    fn versions(&self) -> &[String];
    /// `Err(NeedsFiles)` when the last look-up lacked files.
    fn pending(&self) -> Result<()>;
}

/// Sections and documents by id or path: what `get` and the MCP server ask.
pub(crate) trait Lookups {
    /// A section by id, with its whole text.
    fn get_section(&self, analyzer: &Analyzer, id: SectionId) -> Option<SectionView>;
    /// A document by path (no leading slash).
    fn get_document(&self, analyzer: &Analyzer, path: &str) -> Option<DocumentView>;
    /// The section of a document (no leading slash) with this anchor.
    fn find_anchor(&self, path: &str, anchor: &str) -> Option<SectionId>;
}

/// What native callers list (the MCP server, `build-index vectors`, tests): apart from
/// [`Lookups`] so that no wasm module links it.
pub(crate) trait Inventory {
    /// Every document's path and title, in path order.
    fn documents(&self) -> Vec<(String, String)>;
    /// A section's document path and anchor, by ordinal.
    fn section_place(&self, section: u32) -> Option<(String, Option<String>)>;
    /// Loaded shards and bundles.
    fn loaded_parts(&self) -> (usize, usize);
    /// Bytes loaded of shards, of bundles and of cards.
    fn loaded_bytes(&self) -> [usize; 3];
    /// Bounds the bytes of files kept loaded between queries.
    fn set_keep_loaded(&self, bytes: usize);
}
