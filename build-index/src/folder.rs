//! An index folder opened to answer from: the index itself, the model its vectors were made
//! with, a query's vector, and the options and JSON of a command-line query. One module for
//! every reader of a folder — `search`, `get`, `vectors`, `eval` and the MCP server — so they
//! open, embed and answer alike.

use crate::embedding::{default_model_places, load_model, model_info, resolve_model_dir};
use crate::error::{CliError, Result};
use crate::folder_file::read_folder_file;
use midashi_core::format::entry::ENTRY_FILE_NAME;
use midashi_core::format::{FileKind, Manifest};
use midashi_core::layout::sharded::FileSource;
use midashi_core::{Mode, SearchIndex, SearchOptions, SearchResponse};
use midashi_embed::{Embedder, ModelConfig};
use std::path::Path;

/// Opens the index in `dir` with the files keyword search needs (and vectors if present
/// and `with_vectors`).
pub fn open_index(dir: &Path, with_vectors: bool) -> Result<SearchIndex> {
    let entry_path = dir.join(ENTRY_FILE_NAME);
    if !entry_path.exists() {
        return Err(CliError::NoIndex(dir.to_path_buf()));
    }
    let entry = read_folder_file(dir, ENTRY_FILE_NAME, None)?;
    let manifest = Manifest::decode(&entry)?;
    let read = |kind: FileKind| -> Result<Vec<u8>> {
        let f = manifest.file(kind).ok_or_else(|| {
            CliError::Engine(midashi_core::Error::Malformed {
                file: ENTRY_FILE_NAME.into(),
                detail: format!("names no {kind} file"),
            })
        })?;
        Ok(read_folder_file(dir, &f.name, Some(f.bytes))?)
    };
    let vectors = match manifest.file(FileKind::Vectors) {
        Some(_) if with_vectors => Some(read(FileKind::Vectors)?),
        _ => None,
    };
    let ann = match manifest.file(FileKind::Ann) {
        Some(_) if with_vectors => Some(read(FileKind::Ann)?),
        _ => None,
    };
    let table = match manifest.file(FileKind::Table) {
        Some(_) if with_vectors => Some(read(FileKind::Table)?),
        _ => None,
    };
    let mut index = if manifest.file(FileKind::Directory).is_some() {
        // Sharded: the directory now, the rest read from the folder as queries need it.
        let directory = read(FileKind::Directory)?;
        let folder = dir.to_path_buf();
        let source: FileSource = Box::new(move |name: &str| read_folder_file(&folder, name, None));
        SearchIndex::from_manifest_sharded(manifest, &directory, Some(source))?
    } else {
        let terms = read(FileKind::Terms)?;
        let sections = read(FileKind::Sections)?;
        SearchIndex::from_manifest(manifest, &terms, &sections)?
    };
    if let Some(v) = vectors {
        index.attach_vectors(&v)?;
    }
    if let Some(a) = ann {
        index.attach_ann(&a)?;
    }
    if let Some(t) = table {
        index.attach_table(&t)?;
    }
    Ok(index)
}

/// Parses a mode name.
pub fn parse_mode(s: &str) -> Result<Mode> {
    match s {
        "auto" => Ok(Mode::Auto),
        "keyword" => Ok(Mode::Keyword),
        "semantic" => Ok(Mode::Semantic),
        "hybrid" => Ok(Mode::Hybrid),
        other => Err(CliError::Usage(format!(
            "unknown mode {other:?}: use keyword, semantic or hybrid"
        ))),
    }
}

/// Checks that `embedder` (loaded from `dir`) is the model the index's vectors were made with:
/// a query vector from another model would be compared with meaningless numbers.
pub fn check_model(index: &SearchIndex, embedder: &Embedder, dir: &Path) -> Result<()> {
    if let Some(built) = &index.manifest().model {
        let used = model_info(embedder);
        if !built.sha256.is_empty() && !used.sha256.is_empty() && built.sha256 != used.sha256 {
            return Err(CliError::Model(format!(
                "the index's vectors were made with {} ({}…) but the model at {} is {} ({}…): pass --model with the same model, or rebuild the index",
                built.name,
                &built.sha256[..12.min(built.sha256.len())],
                dir.display(),
                used.name,
                &used.sha256[..12.min(used.sha256.len())]
            )));
        }
    }
    Ok(())
}

/// The query's vector, when the mode and the index call for one. An explicit semantic or
/// hybrid mode is an error without vectors in the index or without a model (`embedder`);
/// `auto` then quietly runs keyword search.
pub fn query_vector(
    index: &SearchIndex,
    mode: Mode,
    query: &str,
    embedder: Option<&Embedder>,
) -> Result<Option<Vec<f32>>> {
    // An automatic query the model does not cover runs keyword-only (the core's rule):
    // its vector would be computed only to be discarded.
    if mode == Mode::Keyword || (mode == Mode::Auto && !index.semantic_covers(query)) {
        return Ok(None);
    }
    let explicit = matches!(mode, Mode::Semantic | Mode::Hybrid);
    if !index.has_vectors() {
        if explicit {
            return Err(midashi_core::Error::SemanticUnavailable(
                "this index has no vectors: rebuild it without --keyword-only, with a model".into(),
            )
            .into());
        }
        return Ok(None);
    }
    // An index with a static table embeds its queries itself: no model to load.
    if index.has_table() {
        return Ok(index.table_vector(query, mode)?);
    }
    let Some(embedder) = embedder else {
        if explicit {
            return Err(CliError::Model(format!(
                "{mode:?} search needs the embedding model: the index does not ship one (built with --no-ship-model); pass --model <dir> (looked in {})", default_model_places()
            )));
        }
        return Ok(None);
    };
    let v = embedder
        .embed(query)
        .map_err(|e| CliError::Model(e.to_string()))?;
    Ok(Some(v))
}

/// The embedding model shipped inside an index folder (`model.*.bin`, `tokenizer.*.json`,
/// `model-config.*.json`), if the index has one.
pub fn shipped_model(dir: &Path, manifest: &Manifest) -> Result<Option<Embedder>> {
    let (Some(onnx), Some(tokenizer), Some(config)) = (
        manifest.file(FileKind::Model),
        manifest.file(FileKind::Tokenizer),
        manifest.file(FileKind::ModelConfig),
    ) else {
        return Ok(None);
    };
    // The model files are not framed (no checksum): the content hash in each name is what
    // says a flipped bit or a swapped file.
    let read = |kind: FileKind, name: &str| {
        let p = dir.join(name);
        let size = manifest.file(kind).map(|f| f.bytes);
        let bytes = read_folder_file(dir, name, size)?;
        if !kind.content_matches_name(name, &bytes) {
            return Err(CliError::Model(format!(
                "{} does not match the hash in its name: the model shipped in {} is damaged or \
                 was replaced; copy the index folder again or rebuild it",
                p.display(),
                dir.display()
            )));
        }
        Ok(bytes)
    };
    let config = String::from_utf8_lossy(&read(FileKind::ModelConfig, &config.name)?).into_owned();
    let model = |e: midashi_embed::EmbedError| {
        CliError::Model(format!(
            "the model shipped in {} is unusable ({e}); rebuild the index",
            dir.display()
        ))
    };
    let config = ModelConfig::from_json(&config).map_err(model)?;
    Embedder::from_bytes(
        &read(FileKind::Model, &onnx.name)?,
        &read(FileKind::Tokenizer, &tokenizer.name)?,
        config,
    )
    .map(Some)
    .map_err(model)
}

/// The model for the index in `dir`: `--model` if given (checked against the index's
/// vectors), else the one the index ships (the vectors' own), else the default model folder
/// if present. `Ok(None)`: no model at hand.
pub fn resolve_embedder(
    dir: &Path,
    index: &SearchIndex,
    model: Option<&Path>,
) -> Result<Option<Embedder>> {
    if model.is_none() {
        if let Some(embedder) = shipped_model(dir, index.manifest())? {
            return Ok(Some(embedder));
        }
    }
    match resolve_model_dir(model)? {
        Some(model_dir) => {
            let (embedder, _) = load_model(&model_dir)?;
            check_model(index, &embedder, &model_dir)?;
            Ok(Some(embedder))
        }
        None => Ok(None),
    }
}

/// The options of a query as `build-index search` runs it (the MCP server's too).
pub fn command_line_options() -> SearchOptions {
    SearchOptions {
        // A command line query is complete: no search-as-you-type completion.
        prefix: false,
        ..SearchOptions::default()
    }
}

/// The `--json` answer: `{ total, total_exact, took_ms, mode, suggestions, results }`
/// (`total_exact` false: `total` is a lower bound, midashi-core's `rank::topk`).
pub fn response_json(response: &SearchResponse, took_ms: f64) -> serde_json::Value {
    serde_json::json!({
        "total": response.total,
        "total_exact": response.total_exact,
        "took_ms": took_ms,
        "mode": response.mode,
        "suggestions": response.suggestions,
        "results": response.results,
    })
}
