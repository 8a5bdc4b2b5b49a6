//! Sections in, index files out (as bytes: the caller writes them).
//!
//! Output is deterministic: documents are ordered by path, terms by bytes, and no hash-map
//! iteration order reaches the output.

mod page_name;
pub use page_name::{page_name, page_tops};

use crate::analyzer::{Analyzer, Language};
use crate::error::{Error, Result};
use crate::format::entry::{FileRef, Manifest, ModelInfo, Stats, ENTRY_FILE_NAME};
use crate::format::{encode, FileKind, ENGINE_VERSION};
use crate::layout::single::postings::{write_list, Posting};
use crate::layout::single::TermsData;
use crate::rank::bm25::idf;
use crate::rank::fields::{push_field_len, Field, NUM_FIELDS};
use crate::section::records::{DocRecord, SectionRecord, SectionsData};
use crate::section::{Document, Section};
use crate::vectors::VectorsData;
use rayon::prelude::*;
use std::collections::HashMap;

// What a build's settings are made of, where a builder's caller looks for them.
pub use crate::query::synonyms::Synonyms;
pub use crate::rank::fields::FieldWeights;

/// [`IndexSettings::slug`] of an index of JSONL records: ids, no anchors, no file names.
pub const RECORDS_SLUG: &str = "records";

/// How to build.
#[derive(Debug, Clone)]
pub struct IndexSettings {
    /// BM25F parameters.
    pub weights: FieldWeights,
    /// Slug style of the anchors (recorded for clients); [`RECORDS_SLUG`] for JSONL records,
    /// whose ids are not pages' file names.
    pub slug: String,
    /// Base URL of the pages (recorded for clients).
    pub base_url: String,
    /// Query-time synonyms.
    pub synonyms: Synonyms,
    /// Vector rows from which an HNSW graph is added for semantic search (below it, the
    /// exact scan answers; see [`crate::vectors::ann`]).
    pub ann_min_rows: usize,
    /// One keyword file set or many small ones (see [`Layout`]).
    pub layout: Layout,
}

/// How the keyword index is laid out on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// What `build-index` writes by default: the sharded layout, at every size. Measured
    /// (`npm run bench:large`), a visitor's first query on a sharded site fetches less than
    /// on a single-file one even for the smallest sites: the keyword module a sharded index
    /// starts on is ~125 KB gzip smaller than the full engine a single-file one needs, more
    /// than the shards a query reads, and a single-file index of any real site is larger
    /// than that again. The single layout wins
    /// only where bytes are not fetched per query (an app that opens an index from disk and
    /// wants no reads after load): ask for it with [`Layout::Single`].
    #[default]
    Auto,
    /// A terms file and a sections file, fetched whole at load: every later query is free.
    Single,
    /// The sharded layout ([`crate::layout::sharded`]): a query fetches only what it reads.
    Sharded,
}

impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            weights: FieldWeights::DOCS,
            slug: "github".into(),
            base_url: "/".into(),
            synonyms: Synonyms::default(),
            ann_min_rows: crate::vectors::ann::ANN_MIN_ROWS,
            layout: Layout::Auto,
        }
    }
}

/// The files of a built index.
#[derive(Debug, Clone)]
pub struct BuildOutput {
    /// The manifest written to the entry file.
    pub manifest: Manifest,
    /// `(file name, bytes)`: the entry file first, then the content-hashed files.
    pub files: Vec<(String, Vec<u8>)>,
    /// When `files` are sharded: the same sections as a keyword-only single-file index
    /// (entry, terms, sections), for a reader that must hold everything at once — a page
    /// opened from file://, which can fetch nothing, is given these inlined. Not written to
    /// the index folder.
    pub keyword_single: Option<Vec<(String, Vec<u8>)>>,
}

/// Collects documents and writes the index.
#[derive(Debug, Default)]
pub struct IndexBuilder {
    settings: IndexSettings,
    analyzer: Analyzer,
    /// The languages of the pages' analyzer rules, the most used first (set by `build`).
    languages: Vec<Language>,
    docs: Vec<Document>,
    vectors: Option<(ModelInfo, VectorsData)>,
    model_files: Option<ModelFiles>,
    table: Option<crate::vectors::table::TableData>,
}

/// The embedding model's files, shipped inside the index so that a browser embeds queries
/// with exactly the model the vectors were made with (no second place to keep in step).
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The encoder graph: ONNX, or the prepared form build-index ships
    /// (`midashi_embed::graph`).
    pub onnx: Vec<u8>,
    /// `tokenizer.json`.
    pub tokenizer: Vec<u8>,
    /// `midashi-model.json` (dims, token limit, pooling, normalisation).
    pub config_json: String,
}

/// Documents analysed together on all cores before their terms are merged in order.
const ANALYSIS_BATCH: usize = 256;

/// One section's analysis: each field's length in terms, and its terms in order with their
/// field and, for stemmed words, the surface form (for suggestions).
struct AnalyzedSection {
    lens: [usize; NUM_FIELDS],
    tokens: Vec<(String, u8, Option<String>)>,
}

fn analyze_section(analyzer: &Analyzer, section: &Section, name: Option<&str>) -> AnalyzedSection {
    let mut lens = [0; NUM_FIELDS];
    let mut tokens = Vec::new();
    for (f, text) in field_texts(section, name).iter().enumerate() {
        let analyzed = analyzer.analyze(text);
        lens[f] = analyzed.len();
        for t in analyzed {
            let word = &text[t.start..t.end];
            let surface = (f != Field::Code as usize
                && word.len() != t.term.len()
                && word.chars().all(|c| c.is_alphanumeric()))
            .then(|| word.to_lowercase());
            tokens.push((t.term, f as u8, surface));
        }
    }
    AnalyzedSection { lens, tokens }
}

/// The languages whose rules the sections are analysed by, the one of most sections first
/// (the site's: queries are read by it unless the reader's is another of them), the rest in
/// a fixed order.
fn languages_of(docs: &[Document]) -> Vec<Language> {
    let mut counts: HashMap<Language, usize> = HashMap::new();
    for section in docs.iter().flat_map(|d| &d.sections) {
        *counts
            .entry(Language::of_tag(section.hints.lang.as_deref()))
            .or_default() += 1;
    }
    let mut langs: Vec<(Language, usize)> = counts.into_iter().collect();
    // Most sections first; ties (and the rest) in the enum's order, English first.
    langs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out: Vec<Language> = langs.iter().map(|(l, _)| *l).collect();
    if out.len() > 1 {
        out[1..].sort_unstable();
    }
    out
}

/// Text of one section per field, as indexed. `name`: the page's name, for the sections that
/// hold the page's top ([`page_tops`]), indexed among its hints.
pub fn field_texts(section: &Section, name: Option<&str>) -> [String; NUM_FIELDS] {
    let path = if section.heading_path.len() > 1 {
        section.heading_path[..section.heading_path.len() - 1].join("\n")
    } else {
        String::new()
    };
    let h = &section.hints;
    let mut hints: Vec<&str> = h
        .keywords
        .iter()
        .chain(&h.tags)
        .map(String::as_str)
        .collect();
    // The description and category describe the whole document: only its node carries them,
    // or every section of a page would share the same boost.
    if section.depth == 0 {
        hints.extend(h.description.as_deref());
        hints.extend(h.category.as_deref());
    }
    hints.extend(name);
    [
        section.heading.clone(),
        path,
        hints.join("\n"),
        section.text.clone(),
        section.code.clone(),
    ]
}

/// Leaves out of the facets a category that one document alone has: there it names the page,
/// not a part of the site (a directory-URL site, `API_AddLayer/index.html`, made every page's
/// own folder a filter chip), and a filter of one page filters nothing. The text keeps it.
fn drop_lone_categories(docs: &mut [DocRecord]) {
    let mut held: HashMap<String, u32> = HashMap::new();
    for d in docs.iter() {
        if let Some(c) = &d.hints.category {
            *held.entry(c.clone()).or_default() += 1;
        }
    }
    for d in docs.iter_mut() {
        if d.hints.category.as_ref().is_some_and(|c| held[c] < 2) {
            d.hints.category = None;
        }
    }
}

impl IndexBuilder {
    /// A builder with these settings.
    pub fn new(settings: IndexSettings) -> Self {
        IndexBuilder {
            settings,
            analyzer: Analyzer::new(),
            languages: Vec::new(),
            docs: Vec::new(),
            vectors: None,
            model_files: None,
            table: None,
        }
    }

    /// Adds a parsed document.
    pub fn add(&mut self, doc: Document) {
        self.docs.push(doc);
    }

    /// The documents added so far, in the order the index will hold them once built.
    pub fn documents_sorted(&mut self) -> &[Document] {
        self.docs.sort_by(|a, b| a.path.cmp(&b.path));
        &self.docs
    }

    /// Attaches section vectors (in the order of [`Self::documents_sorted`]'s sections).
    pub fn set_vectors(&mut self, model: ModelInfo, vectors: VectorsData) {
        self.vectors = Some((model, vectors));
    }

    /// Ships the model's files with the index (written only when there are vectors too).
    pub fn set_model_files(&mut self, files: ModelFiles) {
        self.model_files = Some(files);
    }

    /// Ships a static table that queries' vectors are looked up in, in place of a model
    /// (written only with the vectors it was distilled with).
    pub fn set_table(&mut self, table: crate::vectors::table::TableData) {
        self.table = Some(table);
    }

    /// Builds every file.
    pub fn build(mut self) -> Result<BuildOutput> {
        self.docs.sort_by(|a, b| a.path.cmp(&b.path));
        self.languages = languages_of(&self.docs);
        // The site's rules: for synonyms, which apply to queries read in the site's language.
        self.analyzer = Analyzer::for_language(self.languages.first().copied().unwrap_or_default());
        let analyzer = &self.analyzer;

        let mut term_ids: HashMap<String, u32> = HashMap::new();
        let mut lists: Vec<Vec<Posting>> = Vec::new();
        let mut surface_counts: HashMap<(u32, String), u32> = HashMap::new();
        let mut field_lengths: Vec<u8> = Vec::new();
        let mut section_weights: Vec<u8> = Vec::new();
        let mut len_sums = [0f64; NUM_FIELDS];
        let mut docs = Vec::with_capacity(self.docs.len());
        let mut sections = Vec::new();

        // Analysis (the costly part) runs on every core, a batch of documents at a time so
        // memory stays bounded; the merge below walks the results in document order, so term
        // ids, postings and every byte written are the same whatever the thread count.
        let mut analyzed: Vec<Vec<AnalyzedSection>> = Vec::new();
        // Records (JSONL) have ids, not file names.
        let pages = self.settings.slug != RECORDS_SLUG;
        for (doc_ord, doc) in self.docs.iter().enumerate() {
            if doc_ord % ANALYSIS_BATCH == 0 {
                let end = (doc_ord + ANALYSIS_BATCH).min(self.docs.len());
                analyzed = self.docs[doc_ord..end]
                    .par_iter()
                    .map(|d| {
                        let name = pages.then(|| page_name(&d.path)).flatten();
                        let tops = page_tops(&d.sections);
                        d.sections
                            .iter()
                            .enumerate()
                            .map(|(i, s)| {
                                // Each page by its own language's rules (hints.lang).
                                let own = Analyzer::for_tag(s.hints.lang.as_deref());
                                analyze_section(&own, s, name.as_deref().filter(|_| i < tops))
                            })
                            .collect()
                    })
                    .collect();
                analyzed.reverse();
            }
            let doc_sections = analyzed.pop().unwrap_or_default();
            let first = sections.len() as u32;
            let mut ord_of: HashMap<u64, u32> = HashMap::new();
            for (section, analysis) in doc.sections.iter().zip(doc_sections) {
                let ord = sections.len() as u32;
                ord_of.insert(section.id.0, ord);
                let mut tfs: HashMap<u32, [u32; NUM_FIELDS]> = HashMap::new();
                for (f, len) in analysis.lens.iter().enumerate() {
                    len_sums[f] += *len as f64;
                    push_field_len(&mut field_lengths, *len);
                }
                section_weights.push(crate::section::weight_byte(doc.weight));
                for (term, f, surface) in analysis.tokens {
                    let next = term_ids.len() as u32;
                    let id = match term_ids.get(&term) {
                        Some(&id) => id,
                        None => {
                            term_ids.insert(term, next);
                            lists.push(Vec::new());
                            next
                        }
                    };
                    tfs.entry(id).or_insert([0; NUM_FIELDS])[f as usize] += 1;
                    if let Some(word) = surface {
                        *surface_counts.entry((id, word)).or_insert(0) += 1;
                    }
                }
                for (id, tf) in tfs {
                    lists[id as usize].push(Posting { section: ord, tf });
                }
                sections.push(SectionRecord {
                    id: section.id.0,
                    doc: doc_ord as u32,
                    anchor: section.anchor.clone(),
                    heading: section.heading.clone(),
                    depth: section.depth,
                    heading_path: section.heading_path.clone(),
                    parent: section.parent.and_then(|p| ord_of.get(&p.0).copied()),
                    section_number: section.section_number,
                    start_line: section.start_line,
                    end_line: section.end_line,
                    own_end_line: section.own_end_line,
                    token_estimate: section.token_estimate,
                });
            }
            docs.push(DocRecord {
                path: doc.path.clone(),
                url: doc.url.clone(),
                title: doc.title.clone(),
                source: doc.source.clone(),
                hints: doc
                    .sections
                    .first()
                    .map(|s| s.hints.clone())
                    .unwrap_or_default(),
                first_section: first,
                section_count: sections.len() as u32 - first,
            });
        }
        drop_lone_categories(&mut docs);

        let n = sections.len() as u32;
        let mut terms: Vec<(String, u32)> = term_ids.into_iter().collect();
        terms.sort();
        // Most frequent surface per term; ties broken by the word itself for determinism.
        let mut best_surface: HashMap<u32, (u32, String)> = HashMap::new();
        for ((id, word), count) in surface_counts {
            let e = best_surface.entry(id).or_insert((0, String::new()));
            if count > e.0 || (count == e.0 && word < e.1) {
                *e = (count, word);
            }
        }

        let mut postings = Vec::new();
        let mut fst_builder = fst::MapBuilder::memory();
        let mut surfaces = Vec::new();
        for (term, id) in &terms {
            let list = &mut lists[*id as usize];
            list.sort_by_key(|p| p.section);
            let df = list.len() as f64;
            let idf = idf(n, df);
            let offset = postings.len() as u64;
            write_list(&mut postings, idf, list);
            fst_builder
                .insert(term.as_bytes(), offset)
                .map_err(|e| Error::Malformed {
                    file: "terms".into(),
                    detail: e.to_string(),
                })?;
            if let Some((_, word)) = best_surface.remove(id) {
                surfaces.push((offset, word));
            }
        }
        let fst = fst_builder.into_inner().map_err(|e| Error::Malformed {
            file: "terms".into(),
            detail: e.to_string(),
        })?;
        let mut avg_len = [0f32; NUM_FIELDS];
        for f in 0..NUM_FIELDS {
            avg_len[f] = if n == 0 {
                0.0
            } else {
                (len_sums[f] / f64::from(n)) as f32
            };
        }

        let terms_data = TermsData {
            n_sections: n,
            weights: self.settings.weights,
            avg_len,
            fst,
            postings,
            field_lengths,
            surfaces,
            synonyms: self.settings.synonyms.analyzed(analyzer),
            // Only an index with a weighted page carries the table.
            section_weights: if section_weights.iter().all(|&b| b == 16) {
                Vec::new()
            } else {
                section_weights
            },
        };
        let sections_data = SectionsData { docs, sections };

        let mut files = Vec::new();
        let mut refs = Vec::new();
        let mut push = |kind: FileKind, bytes: Vec<u8>, needed: bool| {
            let name = kind.hashed_name(&bytes);
            refs.push(FileRef {
                kind,
                name: name.clone(),
                bytes: bytes.len() as u64,
                needed_for_keyword: needed,
            });
            files.push((name, bytes));
        };
        let terms_file = encode(FileKind::Terms, &terms_data)?;
        let sections_file = encode(FileKind::Sections, &sections_data)?;
        let sharded = match self.settings.layout {
            Layout::Single => false,
            Layout::Sharded | Layout::Auto => true,
        };
        // Shards and bundles are named by the directory, not the entry file: the entry
        // stays small whatever the site's size.
        let mut unlisted = Vec::new();
        let mut keyword_single = None;
        let stats = Stats {
            documents: sections_data.docs.len() as u64,
            sections: u64::from(n),
            terms: terms.len() as u64,
            vectors: 0,
        };
        if sharded {
            let out = crate::layout::sharded::write::write(&terms_data, &sections_data)?;
            push(FileKind::Directory, out.directory.1, true);
            push(FileKind::Lexicon, out.lexicon.1, false);
            push(FileKind::Tree, out.tree.1, false);
            push(FileKind::Paths, out.paths.1, false);
            unlisted.extend(out.shards);
            unlisted.extend(out.bundles);
            unlisted.extend(out.cards);
            keyword_single =
                Some(self.keyword_single_files(terms_file, sections_file, stats.clone())?);
        } else {
            push(FileKind::Terms, terms_file, true);
            push(FileKind::Sections, sections_file, true);
        }
        let mut model = None;
        let mut vector_count = 0;
        if let Some((info, vectors)) = self.vectors.take() {
            vector_count = vectors.count() as u64;
            push(
                FileKind::Vectors,
                encode(FileKind::Vectors, &vectors)?,
                false,
            );
            if vectors.count() >= self.settings.ann_min_rows.max(1) {
                let ann = crate::vectors::ann::AnnData::build(&vectors);
                push(FileKind::Ann, encode(FileKind::Ann, &ann)?, false);
            }
            model = Some(info);
            // The model only makes sense with vectors made by it.
            if let Some(files) = self.model_files.take() {
                push(FileKind::Model, files.onnx, false);
                push(FileKind::Tokenizer, files.tokenizer, false);
                push(FileKind::ModelConfig, files.config_json.into_bytes(), false);
            }
            if let Some(table) = self.table.take() {
                push(FileKind::Table, encode(FileKind::Table, &table)?, false);
            }
        }
        let stats = Stats {
            vectors: vector_count,
            ..stats
        };
        let manifest = self.manifest(refs, stats, model);
        files.extend(unlisted);
        files.insert(0, (ENTRY_FILE_NAME.to_string(), manifest.encode()?));
        Ok(BuildOutput {
            manifest,
            files,
            keyword_single,
        })
    }

    /// The entry file's manifest of an index of these files, of this build's settings.
    fn manifest(&self, files: Vec<FileRef>, stats: Stats, model: Option<ModelInfo>) -> Manifest {
        Manifest {
            generator: format!("midashi {ENGINE_VERSION}"),
            files,
            stats,
            slug: self.settings.slug.clone(),
            base_url: self.settings.base_url.clone(),
            model,
            // English only is written as nothing, as every index before format 1.11.
            languages: if self.languages.iter().all(|l| *l == Language::English) {
                Vec::new()
            } else {
                self.languages
                    .iter()
                    .map(|l| l.code().to_string())
                    .collect()
            },
        }
    }

    /// The entry, terms and sections files of a keyword-only single-file index of what was
    /// built ([`BuildOutput::keyword_single`]); `stats` are the build's, without vectors.
    fn keyword_single_files(
        &self,
        terms_file: Vec<u8>,
        sections_file: Vec<u8>,
        stats: Stats,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let named = |kind: FileKind, bytes: Vec<u8>| (kind.hashed_name(&bytes), bytes);
        let files = [
            named(FileKind::Terms, terms_file),
            named(FileKind::Sections, sections_file),
        ];
        let refs = [FileKind::Terms, FileKind::Sections]
            .into_iter()
            .zip(&files)
            .map(|(kind, (name, bytes))| FileRef {
                kind,
                name: name.clone(),
                bytes: bytes.len() as u64,
                needed_for_keyword: true,
            })
            .collect();
        let manifest = self.manifest(refs, stats, None);
        let mut out = vec![(ENTRY_FILE_NAME.to_string(), manifest.encode()?)];
        out.extend(files);
        Ok(out)
    }
}
