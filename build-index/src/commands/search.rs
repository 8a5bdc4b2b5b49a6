//! `build-index search <dir> "<query>"`: the index from a terminal or an agent.

use crate::commands::open_index;
use crate::embedding::{load_model, model_info, resolve_model_dir, DEFAULT_MODEL_DIR};
use crate::error::{CliError, Result};
use crate::quote::quote;
use midashi_core::format::{FileKind, Manifest};
use midashi_core::{Mode, SearchOptions};
use midashi_embed::{Embedder, ModelConfig};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Search arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct SearchArgs {
    /// The index folder.
    pub dir: PathBuf,
    /// The query.
    pub query: String,
    /// Results to show.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Results to skip.
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Only these depths (0 = document, 1–6 = heading level), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub depth: Vec<u8>,
    /// Only documents under this path prefix.
    #[arg(long)]
    pub path: Option<String>,
    /// Only documents of this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only documents with this tag (repeatable: all must match).
    #[arg(long)]
    pub tag: Vec<String>,
    /// Only documents of this version.
    #[arg(long)]
    pub version: Option<String>,
    /// Lines of source per preview.
    #[arg(long, default_value_t = 5)]
    pub preview_lines: usize,
    /// Drop results scoring below this.
    #[arg(long)]
    pub min_score: Option<f32>,
    /// keyword | semantic | hybrid | auto (hybrid when the index has vectors and the model is
    /// at hand, keyword otherwise).
    #[arg(long, default_value = "auto")]
    pub mode: String,
    /// Embedding model folder for the semantic leg (default: models/all-MiniLM-L6-v2).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Print JSON instead of the quoted format.
    #[arg(long)]
    pub json: bool,
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

/// The query's vector, when the mode and the index call for one.
fn query_vector(
    index: &midashi_core::SearchIndex,
    mode: Mode,
    args: &SearchArgs,
) -> Result<Option<Vec<f32>>> {
    if mode == Mode::Keyword || !index.has_vectors() {
        return Ok(None);
    }
    let explicit = matches!(mode, Mode::Semantic | Mode::Hybrid);
    // The model shipped inside the index is the one its vectors were made with: use it
    // unless --model says otherwise.
    if args.model.is_none() {
        if let Some(embedder) = shipped_model(&args.dir, index.manifest())? {
            let v = embedder
                .embed(&args.query)
                .map_err(|e| CliError::Model(e.to_string()))?;
            return Ok(Some(v));
        }
    }
    let dir = match resolve_model_dir(args.model.as_deref())? {
        Some(d) => d,
        None if explicit => {
            return Err(CliError::Model(format!(
                "{mode:?} search needs the embedding model: the index does not ship one (built with --no-ship-model); run scripts/fetch-model.sh (expects {DEFAULT_MODEL_DIR}) or pass --model <dir>"
            )))
        }
        None => return Ok(None),
    };
    let (embedder, _) = load_model(&dir)?;
    if let Some(built) = &index.manifest().model {
        let used = model_info(&embedder);
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
    let v = embedder
        .embed(&args.query)
        .map_err(|e| CliError::Model(e.to_string()))?;
    Ok(Some(v))
}

/// The embedding model shipped inside an index folder (`model.*.onnx`, `tokenizer.*.json`,
/// `model-config.*.json`), if the index has one.
pub fn shipped_model(dir: &Path, manifest: &Manifest) -> Result<Option<Embedder>> {
    let (Some(onnx), Some(tokenizer), Some(config)) = (
        manifest.file(FileKind::Model),
        manifest.file(FileKind::Tokenizer),
        manifest.file(FileKind::ModelConfig),
    ) else {
        return Ok(None);
    };
    let read = |name: &str| {
        let p = dir.join(name);
        std::fs::read(&p).map_err(CliError::io(&p))
    };
    let config = String::from_utf8_lossy(&read(&config.name)?).into_owned();
    let model = |e: midashi_embed::EmbedError| {
        CliError::Model(format!(
            "the model shipped in {} is unusable ({e}); rebuild the index",
            dir.display()
        ))
    };
    let config = ModelConfig::from_json(&config).map_err(model)?;
    Embedder::from_bytes(&read(&onnx.name)?, &read(&tokenizer.name)?, config)
        .map(Some)
        .map_err(model)
}

/// Runs the command.
pub fn run(args: &SearchArgs) -> Result<()> {
    let mode = parse_mode(&args.mode)?;
    let index = open_index(&args.dir, mode != Mode::Keyword)?;
    if matches!(mode, Mode::Semantic | Mode::Hybrid) && !index.has_vectors() {
        return Err(midashi_core::Error::SemanticUnavailable(
            "this index has no vectors: rebuild it without --keyword-only, with a model".into(),
        )
        .into());
    }
    let vector = query_vector(&index, mode, args)?;
    let opts = SearchOptions {
        limit: args.limit,
        offset: args.offset,
        mode,
        path: args.path.clone(),
        category: args.category.clone(),
        tags: args.tag.clone(),
        depth: args.depth.clone(),
        version: args.version.clone(),
        preview_lines: args.preview_lines,
        min_score: args.min_score,
        // A command line query is complete: no search-as-you-type completion.
        prefix: false,
        ..SearchOptions::default()
    };
    let started = Instant::now();
    let response = index.search(&args.query, &opts, vector.as_deref())?;
    let took_ms = started.elapsed().as_secs_f64() * 1000.0;
    if args.json {
        let value = serde_json::json!({
            "total": response.total,
            "took_ms": took_ms,
            "mode": response.mode,
            "suggestions": response.suggestions,
            "results": response.results,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
        return Ok(());
    }
    println!("{} results ({:.1} ms)", response.total, took_ms);
    if !response.suggestions.is_empty() {
        println!("Did you mean: {}", response.suggestions.join(", "));
    }
    for (i, hit) in response.results.iter().enumerate() {
        println!();
        print!("{}", quote(args.offset + i + 1, hit));
    }
    Ok(())
}
