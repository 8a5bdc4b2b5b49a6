//! `build-index search <dir> "<query>"`: the index from a terminal or an agent.

use crate::commands::open_index;
use crate::error::Result;
use crate::quote::quote;
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
    /// Only documents of this version.
    #[arg(long)]
    pub version: Option<String>,
    /// Lines of source per preview.
    #[arg(long, default_value_t = 5)]
    pub preview_lines: usize,
    /// Drop results scoring below this.
    #[arg(long)]
    pub min_score: Option<f32>,
    /// keyword | semantic | hybrid (default: hybrid when the index has vectors).
    #[arg(long, default_value = "keyword")]
    pub mode: String,
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
        other => Err(crate::error::CliError::Usage(format!(
            "unknown mode {other:?}: use keyword, semantic or hybrid"
        ))),
    }
}

/// Runs the command.
pub fn run(args: &SearchArgs) -> Result<()> {
    let index = open_index(&args.dir, false)?;
    let opts = SearchOptions {
        limit: args.limit,
        offset: args.offset,
        mode: parse_mode(&args.mode)?,
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
    let response = index.search(&args.query, &opts, None)?;
    let took_ms = started.elapsed().as_secs_f64() * 1000.0;
    if args.json {
        let value = serde_json::json!({
            "total": response.total,
            "took_ms": took_ms,
            "mode": response.mode,
            "suggestions": response.suggestions,
            "results": response.results,
        });
        println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
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
