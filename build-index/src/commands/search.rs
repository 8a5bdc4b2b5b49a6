//! `build-index search <dir> "<query>"`: the index from a terminal or an agent.

use crate::commands::open_index;
use crate::embedding::{load_model, model_info, resolve_model_dir, DEFAULT_MODEL_DIR};
use crate::error::{CliError, Result};
use crate::quote::quote;
use midashi_core::format::{FileKind, Manifest};
use midashi_core::fusion::Fusion;
use midashi_core::{Mode, SearchIndex, SearchOptions, SearchResponse};
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
    /// Only documents of this version (a versioned site: `7.4/…` folders or frontmatter
    /// `version`).
    #[arg(long)]
    pub version: Option<String>,
    /// On a versioned site, list a section once per version instead of once with the other
    /// versions named.
    #[arg(long)]
    pub all_versions: bool,
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
    /// How hybrid mode fuses its two legs.
    #[command(flatten)]
    pub fusion: FusionArgs,
    /// Print JSON instead of the quoted format.
    #[arg(long)]
    pub json: bool,
}

/// How hybrid mode fuses the keyword and semantic legs (shared by `search` and `eval`).
#[derive(Debug, Clone, clap::Args)]
pub struct FusionArgs {
    /// rrf (reciprocal rank fusion: ranks only) | linear (min-max normalised scores).
    #[arg(long, default_value = "rrf")]
    pub fusion: String,
    /// RRF's k: larger values flatten the difference between ranks.
    #[arg(long, default_value_t = 60.0)]
    pub rrf_k: f32,
    /// Weight of the keyword leg.
    #[arg(long, default_value_t = 1.0)]
    pub keyword_weight: f32,
    /// Weight of the semantic leg.
    #[arg(long, default_value_t = 1.0)]
    pub semantic_weight: f32,
}

impl FusionArgs {
    /// The engine's fusion settings, or a usage error naming what is wrong.
    pub fn to_fusion(&self) -> Result<Fusion> {
        let finite = |name: &str, v: f32| {
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err(CliError::Usage(format!(
                    "--{name} must be a number ≥ 0, not {v}"
                )))
            }
        };
        let keyword_weight = finite("keyword-weight", self.keyword_weight)?;
        let semantic_weight = finite("semantic-weight", self.semantic_weight)?;
        match self.fusion.as_str() {
            "rrf" => Ok(Fusion::Rrf {
                k: finite("rrf-k", self.rrf_k)?,
                keyword_weight,
                semantic_weight,
            }),
            "linear" => Ok(Fusion::Linear {
                keyword_weight,
                semantic_weight,
            }),
            other => Err(CliError::Usage(format!(
                "unknown fusion \"{other}\": use rrf or linear"
            ))),
        }
    }
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
    if mode == Mode::Keyword {
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
    let Some(embedder) = embedder else {
        if explicit {
            return Err(CliError::Model(format!(
                "{mode:?} search needs the embedding model: the index does not ship one (built with --no-ship-model); run scripts/fetch-model.sh (expects {DEFAULT_MODEL_DIR}) or pass --model <dir>"
            )));
        }
        return Ok(None);
    };
    let v = embedder
        .embed(query)
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

/// The `--json` answer: `{ total, took_ms, mode, suggestions, results }`.
pub fn response_json(response: &SearchResponse, took_ms: f64) -> serde_json::Value {
    serde_json::json!({
        "total": response.total,
        "took_ms": took_ms,
        "mode": response.mode,
        "suggestions": response.suggestions,
        "results": response.results,
    })
}

/// Runs the command.
pub fn run(args: &SearchArgs) -> Result<()> {
    let mode = parse_mode(&args.mode)?;
    let index = open_index(&args.dir, mode != Mode::Keyword)?;
    // The model is loaded only when this query can use it.
    let embedder = if mode != Mode::Keyword && index.has_vectors() {
        resolve_embedder(&args.dir, &index, args.model.as_deref())?
    } else {
        None
    };
    let vector = query_vector(&index, mode, &args.query, embedder.as_ref())?;
    let opts = SearchOptions {
        limit: args.limit,
        offset: args.offset,
        mode,
        path: args.path.clone(),
        category: args.category.clone(),
        tags: args.tag.clone(),
        depth: args.depth.clone(),
        version: args.version.clone(),
        collapse_versions: !args.all_versions,
        fusion: args.fusion.to_fusion()?,
        preview_lines: args.preview_lines,
        min_score: args.min_score,
        ..command_line_options()
    };
    let started = Instant::now();
    let response = index.search(&args.query, &opts, vector.as_deref())?;
    let took_ms = started.elapsed().as_secs_f64() * 1000.0;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&response_json(&response, took_ms)).unwrap_or_default()
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
