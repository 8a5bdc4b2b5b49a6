//! `build-index search <dir> "<query>"`: the index from a terminal or an agent.

use crate::error::{CliError, Result};
use crate::folder::{
    command_line_options, open_index, parse_mode, query_vector, resolve_embedder, response_json,
};
use midashi_core::answer::quote::quote;
use midashi_core::rank::fusion::Fusion;
use midashi_core::{Mode, SearchOptions};
use std::path::PathBuf;
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
    /// Results in this language first (`ja` also matches `ja-JP`), then documents without
    /// a language, then the others; nothing is left out.
    #[arg(long)]
    pub prefer_lang: Option<String>,
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
    /// auto (the default: the linear blend, the semantic leg at half weight unless the query
    /// reads as a question) | linear (min-max normalised scores, the weights below for every
    /// query) | rrf (reciprocal rank fusion: ranks only).
    #[arg(long, default_value = "auto")]
    pub fusion: String,
    /// RRF's k: larger values flatten the difference between ranks.
    #[arg(long, default_value_t = 60.0)]
    pub rrf_k: f32,
    /// Weight of the keyword leg (default 1; with `--fusion auto`, setting a weight means
    /// `linear` with these weights).
    #[arg(long)]
    pub keyword_weight: Option<f32>,
    /// Weight of the semantic leg (default 1; as `--keyword-weight`).
    #[arg(long)]
    pub semantic_weight: Option<f32>,
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
        // Checked whatever the fusion: a bad number is a mistake even where it is not used.
        let k = finite("rrf-k", self.rrf_k)?;
        let keyword_weight = finite("keyword-weight", self.keyword_weight.unwrap_or(1.0))?;
        let semantic_weight = finite("semantic-weight", self.semantic_weight.unwrap_or(1.0))?;
        let weighted = self.keyword_weight.is_some() || self.semantic_weight.is_some();
        match self.fusion.as_str() {
            "auto" if !weighted => Ok(Fusion::Auto),
            "rrf" => Ok(Fusion::Rrf {
                k,
                keyword_weight,
                semantic_weight,
            }),
            "linear" | "auto" => Ok(Fusion::Linear {
                keyword_weight,
                semantic_weight,
            }),
            other => Err(CliError::Usage(format!(
                "unknown fusion \"{other}\": use auto, linear or rrf"
            ))),
        }
    }
}

/// Runs the command.
pub fn run(args: &SearchArgs) -> Result<()> {
    let mode = parse_mode(&args.mode)?;
    let index = open_index(&args.dir, mode != Mode::Keyword)?;
    // The model is loaded only when this query can use it.
    let embedder = if mode != Mode::Keyword && index.has_vectors() && !index.has_table() {
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
        prefer_lang: args.prefer_lang.clone(),
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
    let at_least = if response.total_exact { "" } else { "+" };
    let noun = if response.total == 1 && response.total_exact {
        "result"
    } else {
        "results"
    };
    println!("{}{at_least} {noun} ({:.1} ms)", response.total, took_ms);
    if !response.suggestions.is_empty() {
        println!("Did you mean: {}", response.suggestions.join(", "));
    }
    for (i, hit) in response.results.iter().enumerate() {
        println!();
        print!("{}", quote(args.offset + i + 1, hit));
    }
    Ok(())
}
