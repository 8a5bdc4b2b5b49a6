//! Section vectors at build time: what text of a section is embedded, the embedding cache
//! that makes rebuilds encode only what changed, and parallel encoding.
//!
//! A section is embedded as passages of a few sentences, each led by its context (document
//! title > heading path; `midashi_embed::Embedder::passages` says why and what it measured);
//! the section scores by its best passage (see `midashi_core::vectors`).

use crate::endpoint::{Endpoint, EndpointArgs};
use crate::error::{CliError, Result};
use indicatif::ProgressBar;
use midashi_core::build::ModelFiles;
use midashi_core::format::entry::ModelInfo;
use midashi_core::section::{Document, Section};
use midashi_core::vectors::VectorsData;
use midashi_embed::{Embedder, ModelConfig, ModelDir};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Says where the default models are looked for, for messages.
pub fn default_model_places() -> String {
    format!(
        "$MIDASHI_MODEL, or models/{} (or models/{}) beside build-index or in the cache: {}",
        crate::locate::MODEL_NAME,
        crate::locate::MULTILINGUAL_MODEL_NAME,
        crate::locate::listed(&crate::locate::model_candidates())
    )
}

/// The vectors of one section's passages (of their windows, for a passage longer than the
/// model's limit).
type Windows = Vec<Vec<f32>>;

/// Cached passage vectors by the hash of the passages' texts ([`passages_key`]).
type Cache = BTreeMap<u128, Windows>;

/// What the embedding step did, for the build report.
#[derive(Debug, Default)]
pub struct EmbedReport {
    /// Sections embedded.
    pub sections: usize,
    /// Passages (rows) written: more than one per passage longer than the model's limit.
    pub rows: usize,
    /// Sections whose vectors came from the cache.
    pub cache_hits: usize,
    /// Sections encoded now.
    pub cache_misses: usize,
    /// Sections of more than one passage.
    pub several: usize,
    /// The best similarity nonsense queries reach (see `midashi_core::vectors::noise`).
    pub noise_floor: Option<f32>,
    /// How much the vectors crowd into one direction (`midashi_core::vectors::crowding`),
    /// which chose their bits.
    pub crowding: f32,
    /// The embedding server that encoded the sections, and the requests it took.
    pub server: Option<(String, usize)>,
    /// The model queries are embedded with: the copy the index ships, else the model itself
    /// (what `eval` embeds its queries with, without loading it again).
    pub query_embedder: Option<Embedder>,
    /// Pieces kept of how many, when the shipped copy's vocabulary was trimmed.
    pub trimmed: Option<(usize, usize)>,
    /// The shipped copy: the model's bytes, the shipped graph's, and whether its weights are
    /// 4-bit.
    pub shipped: Option<(usize, usize, bool)>,
    /// The static table shipped instead of the model: its pieces and dimensions
    /// (`--semantic static`).
    pub table: Option<(usize, usize)>,
    /// Whether the shipped copy's encoder file came from the cache (prepared by an earlier
    /// build of the same folder from the same inputs).
    pub prepared_from_cache: bool,
}

impl EmbedReport {
    /// The build report's lines about vectors and the shipped model.
    pub fn print(&self) {
        println!(
            "  vectors    {} passages for {} sections ({} encoded, {} from cache)",
            self.rows, self.sections, self.cache_misses, self.cache_hits
        );
        // Sections of several passages are how the model reads them (each scores by
        // its best passage), not a problem to fix: a count, not hundreds of warnings.
        if self.several > 0 {
            println!(
                "             {} sections of several passages each",
                self.several
            );
        }
        // A table's vectors are always 4 bits (centred by their projection, they never crowd).
        if self.table.is_none() {
            println!(
                "             rows in {} bits (their mean cosine {:.2}; 8 bits from {})",
                midashi_core::vectors::bits_for(self.crowding),
                self.crowding,
                midashi_core::vectors::CROWDED
            );
        }
        if let Some((pieces, dims)) = self.table {
            println!(
                "  table      {pieces} pieces × {dims} dims in 4 bits: queries embedded by \
                 look-up, no model shipped (--semantic deep ships the model's encoder instead)"
            );
        }
        if let Some((url, requests)) = &self.server {
            println!("             encoded by {url} in {requests} requests");
        }
        if let Some(floor) = self.noise_floor {
            println!(
                "             noise floor {floor:.3}: a query whose words match nothing \
                 answers only when closer than that in meaning"
            );
        }
        if let Some((before, after, four)) = self.shipped {
            let trimmed = self.trimmed.map(|(kept, total)| {
                format!("trimmed to the {kept} of {total} pieces a query on this site can use, ")
            });
            println!(
                "  model      {}weights in {} bits: {:.1} MB shipped instead of {:.1} MB{}",
                trimmed.unwrap_or_default(),
                if four { 4 } else { 8 },
                after as f64 / 1e6,
                before as f64 / 1e6,
                if self.prepared_from_cache {
                    " (prepared by an earlier build: from the cache)"
                } else {
                    ""
                }
            );
            if self.trimmed.is_none() && after == before {
                println!(
                    "             shipped whole (this site uses most of the model's vocabulary, \
                     or a copy cut to it would embed queries differently): a visitor's first \
                     question downloads all of it, where the default static table is a few \
                     hundred KB"
                );
            }
        }
    }
}

/// The texts a section is embedded as: passages of its text, each led by `Title > H1 > H2`.
pub fn section_passages(
    embedder: &Embedder,
    section: &Section,
) -> std::result::Result<Vec<String>, midashi_embed::EmbedError> {
    embedder.passages(&section.heading_path.join(" > "), &section.text)
}

/// The cache key of a section's passages: what its vectors are made from, exactly. One
/// passage's key is its text's hash, as a section's whole text was before passages: a short
/// section keeps its cached vector.
fn passages_key(passages: &[String]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(passages.join("\0").as_bytes())
}

/// Resolves the model folder: `--model` if given (must exist), else the default model if
/// one is found beside the tool or in the cache (`crate::locate`). `Ok(None)` means "build
/// keyword-only" (with a notice from the caller).
pub fn resolve_model_dir(explicit: Option<&Path>) -> Result<Option<PathBuf>> {
    match explicit {
        Some(dir) => Ok(Some(dir.to_path_buf())),
        None => Ok(crate::locate::default_model()),
    }
}

/// The model folder a build uses, and why: `--model` when given; else the default model, or
/// the multilingual one (when installed) for docs mostly in a language the default does not
/// cover or when it is the only one installed. `Ok(None)` means "build keyword-only" (with a notice from the caller).
pub fn choose_model_dir(explicit: Option<&Path>, docs: &[Document]) -> Result<Option<Chosen>> {
    let Some(dir) = resolve_model_dir(explicit)? else {
        // Only the multilingual model installed: it covers English too.
        return Ok(crate::locate::multilingual_model().map(|dir| Chosen {
            dir,
            instead_of: None,
        }));
    };
    let mut chosen = Chosen {
        dir,
        instead_of: None,
    };
    if explicit.is_some() {
        return Ok(Some(chosen));
    }
    // Only the default's midashi-model.json is read here: loading a graph costs seconds.
    let Ok(config) = std::fs::read_to_string(chosen.dir.join(midashi_embed::MODEL_CONFIG_FILE))
        .map_err(|e| e.to_string())
        .and_then(|json| ModelConfig::from_json(&json).map_err(|e| e.to_string()))
    else {
        return Ok(Some(chosen));
    };
    let Some(lang) = uncovered_language(docs, &config.languages) else {
        return Ok(Some(chosen));
    };
    let Some(multi) = crate::locate::multilingual_model() else {
        return Ok(Some(chosen));
    };
    chosen.instead_of = Some((config.name, lang));
    chosen.dir = multi;
    Ok(Some(chosen))
}

/// Whether a build would find a model: `--model`, the default or the multilingual one.
pub fn model_at_hand(explicit: Option<&Path>) -> Result<bool> {
    Ok(choose_model_dir(explicit, &[])?.is_some())
}

/// A model folder chosen for a build.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The folder.
    pub dir: PathBuf,
    /// The default model it replaces and the docs' language that default does not cover,
    /// when the multilingual model was chosen for that reason.
    pub instead_of: Option<(String, &'static str)>,
}

/// Loads the embedding model of a folder, with a message that says how to get one; also
/// returns its files, to ship inside the index for query embedding in the browser.
pub fn load_model(dir: &Path) -> Result<(Embedder, ModelFiles)> {
    let model = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
    let files = ModelDir::read(dir).map_err(model)?;
    let embedder =
        Embedder::from_bytes(&files.onnx, &files.tokenizer, files.config.clone()).map_err(model)?;
    let config_json = files.config_json();
    Ok((
        embedder,
        ModelFiles {
            onnx: files.onnx,
            tokenizer: files.tokenizer,
            config_json,
        },
    ))
}

/// The model's identity as recorded in the index.
pub fn model_info(embedder: &Embedder) -> ModelInfo {
    let c = embedder.config();
    ModelInfo {
        name: c.name.clone(),
        dims: c.dims as u32,
        sha256: c.sha256.clone().unwrap_or_default(),
        languages: c.languages.clone(),
    }
}

/// One cache file per model and docs folder: a build keeps only the vectors it used (so the
/// cache cannot grow without bound), and with one file per folder two sites built in turn
/// no longer evict each other's vectors.
fn cache_path(cache_dir: &Path, info: &ModelInfo, site: &Path) -> PathBuf {
    let key = model_key(info);
    let site = site_key(site);
    cache_dir.join(format!("embeddings-{key}-{site:016x}.bin"))
}

/// A docs folder's part of a cache file name: its canonical path, hashed.
pub fn site_key(site: &Path) -> u64 {
    let site = std::fs::canonicalize(site).unwrap_or_else(|_| site.to_path_buf());
    xxhash_rust::xxh3::xxh3_64(site.to_string_lossy().as_bytes())
}

/// The model's part of a cache file name: its hash, else its name.
pub fn model_key(info: &ModelInfo) -> &str {
    if info.sha256.is_empty() {
        &info.name
    } else {
        &info.sha256[..16.min(info.sha256.len())]
    }
}

/// Where every folder's embeddings were cached together before per-folder cache files.
fn legacy_cache_path(cache_dir: &Path, info: &ModelInfo) -> PathBuf {
    let key = model_key(info);
    cache_dir.join(format!("embeddings-{key}.bin"))
}

/// The default cache folder: `$MIDASHI_CACHE_DIR`, else `~/.cache/midashi`.
pub fn default_cache_dir() -> PathBuf {
    crate::locate::cache_dir()
}

fn load_cache(path: &Path) -> Cache {
    // A damaged or foreign cache is only a lost speed-up: start afresh.
    std::fs::read(path)
        .ok()
        .and_then(|b| postcard::from_bytes(&b).ok())
        .unwrap_or_default()
}

/// Every section's passages ([`section_passages`]), in index order: cut once per build, for
/// the embedding step and the shipped model's trim alike.
pub fn site_passages(docs: &[Document], embedder: &Embedder) -> Result<Vec<Vec<String>>> {
    let sections: Vec<&Section> = docs.iter().flat_map(|d| &d.sections).collect();
    sections
        .par_iter()
        .map(|s| section_passages(embedder, s))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| CliError::Model(e.to_string()))
}

/// Embeds every section of a site (read from the folder `site`) given its passages
/// ([`site_passages`], in index order), using and refreshing that folder's cache.
pub fn embed_documents(
    passages: &[Vec<String>],
    embedder: &Embedder,
    cache_dir: &Path,
    site: &Path,
    progress: bool,
    endpoint: Option<&EndpointArgs>,
) -> Result<(VectorsData, EmbedReport)> {
    let info = model_info(embedder);
    let cache_file = cache_path(cache_dir, &info, site);
    let mut cache = load_cache(&cache_file);
    if cache.is_empty() {
        // The one shared file of midashi ≤ 0.1's first releases: a folder's first build with
        // per-folder files starts from it instead of re-encoding everything.
        cache = load_cache(&legacy_cache_path(cache_dir, &info));
    }
    let texts: Vec<(u128, &[String])> = passages
        .iter()
        .map(|p| (passages_key(p), p.as_slice()))
        .collect();
    let mut todo: Vec<(u128, &[String])> = texts
        .iter()
        .filter(|(h, _)| !cache.contains_key(h))
        .map(|&(h, p)| (h, p))
        .collect();
    todo.sort_by_key(|(h, _)| *h);
    todo.dedup_by_key(|(h, _)| *h);
    let mut report = EmbedReport {
        sections: texts.len(),
        ..EmbedReport::default()
    };
    // The server is probed only when there is something to send it.
    let endpoint = match endpoint {
        Some(args) if !todo.is_empty() => Some(Endpoint::connect(args, embedder, &info.name)?),
        _ => None,
    };
    let encoded: Vec<(u128, Windows)> = match &endpoint {
        None => {
            let bar = progress_bar(progress, todo.len(), "sections");
            let encoded: std::result::Result<Vec<(u128, Windows)>, String> = todo
                .par_iter()
                .map(|(h, passages)| {
                    let v = embedder.embed_texts(passages).map_err(|e| e.to_string());
                    bar.inc(1);
                    v.map(|v| (*h, v))
                })
                .collect();
            bar.finish_and_clear();
            encoded.map_err(CliError::Model)?
        }
        Some(endpoint) => {
            // Windows are cut here, with the model's tokenizer: the same windows whoever
            // encodes them.
            let split: Vec<Vec<String>> = todo
                .par_iter()
                .map(|(_, passages)| embedder.window_texts_of(passages))
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| CliError::Model(e.to_string()))?;
            let flat: Vec<String> = split.iter().flatten().cloned().collect();
            let bar = progress_bar(progress, flat.len(), "windows via the server");
            let mut vectors = endpoint
                .embed_all(&flat, &|n| bar.inc(n as u64))?
                .into_iter();
            bar.finish_and_clear();
            todo.iter()
                .zip(&split)
                .map(|((h, _), windows)| (*h, vectors.by_ref().take(windows.len()).collect()))
                .collect()
        }
    };
    for (h, v) in encoded {
        cache.insert(h, v);
    }
    report.server = endpoint.map(|e| {
        let requests = e.requests.load(std::sync::atomic::Ordering::Relaxed);
        (e.url().to_string(), requests)
    });
    // 4 bits a value, or 8 for a model whose vectors crowd together (`vectors` says why).
    let crowding = midashi_core::vectors::crowding(
        texts.iter().flat_map(|(h, _)| &cache[h]).map(Vec::as_slice),
    );
    report.crowding = crowding;
    let bits = midashi_core::vectors::bits_for(crowding);
    let mut vectors = VectorsData::with_bits(info.dims, bits);
    for (ord, (h, _)) in texts.iter().enumerate() {
        let windows = &cache[h];
        if todo.binary_search_by_key(h, |(k, _)| *k).is_ok() {
            report.cache_misses += 1;
        } else {
            report.cache_hits += 1;
        }
        if windows.len() > 1 {
            report.several += 1;
        }
        for w in windows {
            vectors.push(ord as u32, w);
            report.rows += 1;
        }
    }
    // Measured with the model's query vectors, as queries are embedded.
    vectors.noise_floor = noise_floor(embedder, &vectors)?;
    report.noise_floor = vectors.noise_floor;
    // Keep only what this build used, so the cache does not grow without bound.
    let used: std::collections::HashSet<u128> = texts.iter().map(|(h, _)| *h).collect();
    cache.retain(|h, _| used.contains(h));
    if !todo.is_empty() {
        std::fs::create_dir_all(cache_dir).map_err(CliError::io(cache_dir))?;
        let bytes = postcard::to_allocvec(&cache)
            .map_err(|e| CliError::Model(format!("cannot write the embedding cache: {e}")))?;
        crate::output::write_atomic(&cache_file, &bytes)?;
    }
    Ok((vectors, report))
}

/// Stores each section's window vectors (`windows`, in the order of `passages`), made by
/// another pass over the same text (the static table's distillation), in the embedding
/// cache of `site`: the encoder leg's next build of that text encodes nothing.
pub fn remember_windows(
    passages: &[Vec<String>],
    windows: Vec<Windows>,
    embedder: &Embedder,
    cache_dir: &Path,
    site: &Path,
) -> Result<()> {
    let cache_file = cache_path(cache_dir, &model_info(embedder), site);
    let cache: Cache = passages
        .iter()
        .map(|p| passages_key(p))
        .zip(windows)
        .collect();
    let bytes = postcard::to_allocvec(&cache)
        .map_err(|e| CliError::Model(format!("cannot write the embedding cache: {e}")))?;
    crate::output::write_atomic(&cache_file, &bytes)
}

/// The noise floor of `vectors`: how close the model puts nonsense queries to their nearest
/// section (a few dozen short encodings and scans; see `midashi_core::vectors::noise`).
pub fn noise_floor(embedder: &Embedder, vectors: &VectorsData) -> Result<Option<f32>> {
    let queries = midashi_core::vectors::noise::nonsense_queries();
    let embedded: Vec<Vec<f32>> = queries
        .par_iter()
        .map(|q| embedder.embed(q))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| CliError::Model(e.to_string()))?;
    Ok(midashi_core::vectors::noise::measure(vectors, &embedded))
}

/// A progress bar over `len` items (hidden without `progress` or work).
fn progress_bar(progress: bool, len: usize, what: &str) -> ProgressBar {
    let template =
        format!("{{spinner}} embedding {{bar:30}} {{pos}}/{{len}} {what} ({{eta}} left)");
    crate::progress::bar(progress, len, &template)
}

/// The language of `docs` when it is one that `languages` (a model's) does not cover: at
/// least two thirds of the sections are mostly Chinese, Japanese or Korean text and the
/// model names neither that language nor `multilingual`. `None`: covered, Latin-script or
/// bilingual docs (whose English half the model serves; a Japanese query there runs keyword
/// only, by the core's `semantic_covers`), or a model that names no languages (trusted).
///
/// Why: an English-only model's vectors of Japanese sections place them by noise. On the
/// Japanese Vue docs (83% of sections Japanese) with all-MiniLM-L6-v2, `auto` (Latin-script
/// queries such as `Pinia` still fused) scored nDCG@10 0.522 against keyword's 0.550,
/// semantic 0.071; every visitor would still download ~25 MB to get that.
pub fn uncovered_language(docs: &[Document], languages: &[String]) -> Option<&'static str> {
    if languages.is_empty() || languages.iter().any(|l| l == "multilingual") {
        return None;
    }
    let (mut sections, mut cjk_sections) = (0usize, 0usize);
    let (mut kana, mut hangul, mut han) = (0usize, 0usize, 0usize);
    for section in docs.iter().flat_map(|d| &d.sections) {
        let (mut latin, mut k, mut h, mut c) = (0usize, 0usize, 0usize, 0usize);
        for ch in section.text.chars() {
            match ch {
                'a'..='z' | 'A'..='Z' => latin += 1,
                '\u{3040}'..='\u{30ff}' => k += 1,
                '\u{ac00}'..='\u{d7af}' => h += 1,
                '\u{4e00}'..='\u{9fff}' => c += 1,
                _ => {}
            }
        }
        if latin + k + h + c == 0 {
            continue;
        }
        sections += 1;
        // A CJK character carries about a word: a third of the Latin letters' count (code
        // samples included) makes it the section's language.
        if (k + h + c) * 3 >= latin {
            cjk_sections += 1;
            (kana, hangul, han) = (kana + k, hangul + h, han + c);
        }
    }
    if sections == 0 || cjk_sections * 3 < sections * 2 {
        return None;
    }
    let lang = if kana > 0 && kana * 10 >= han {
        "ja"
    } else if hangul > han {
        "ko"
    } else {
        "zh"
    };
    (!languages.iter().any(|l| l == lang)).then_some(lang)
}
