//! `build-index <docs-dir | records.jsonl> --out <dir>`: read, index, write, report.

use crate::error::{CliError, Result};
use crate::output::write_index;
use crate::sources::{load_markdown, load_records, markdown_files, Loaded};
use midashi_core::index::{FieldWeights, IndexBuilder, IndexSettings, Synonyms};
use midashi_markdown::{Options, SlugStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to build.
#[derive(Debug, Clone, clap::Args)]
pub struct BuildArgs {
    /// Output folder for the index files.
    #[arg(long, short)]
    pub out: PathBuf,
    /// URL prefix of the pages (e.g. "/docs/").
    #[arg(long, default_value = "/")]
    pub base_url: String,
    /// How heading anchors are made, to match the site generator.
    #[arg(long, default_value = "github")]
    pub slug: SlugStyle,
    /// A synonyms file: one group per line, `ページング = paging = pagination`.
    #[arg(long)]
    pub synonyms: Option<PathBuf>,
    /// Only files matching these globs (relative to the docs folder; default: **/*.md).
    #[arg(long)]
    pub include: Vec<String>,
    /// Skip files matching these globs.
    #[arg(long)]
    pub exclude: Vec<String>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Reads the input: a folder of Markdown or a JSONL file of records.
pub fn load_input(input: &Path, args: &BuildArgs) -> Result<(Loaded, bool)> {
    if input.is_dir() {
        let files = markdown_files(input, &args.include, &args.exclude)?;
        if files.is_empty() {
            return Err(CliError::NothingToIndex(input.to_path_buf()));
        }
        let opts = Options {
            slug: args.slug,
            base_url: args.base_url.clone(),
            ..Options::default()
        };
        Ok((load_markdown(input, &files, &opts, !args.quiet)?, false))
    } else if input.is_file() && input.extension().is_some_and(|e| e == "jsonl" || e == "ndjson") {
        Ok((load_records(input)?, true))
    } else {
        Err(CliError::BadInput(input.to_path_buf()))
    }
}

/// Builds the index in memory from loaded documents.
pub fn build(loaded: Loaded, records: bool, args: &BuildArgs) -> Result<midashi_core::index::BuildOutput> {
    let synonyms = match &args.synonyms {
        Some(p) => Synonyms::parse(&std::fs::read_to_string(p).map_err(CliError::io(p))?)?,
        None => Synonyms::default(),
    };
    let settings = IndexSettings {
        weights: if records { FieldWeights::RECORDS } else { FieldWeights::DOCS },
        slug: if records { "records".into() } else { args.slug.to_string() },
        base_url: args.base_url.clone(),
        synonyms,
    };
    let mut builder = IndexBuilder::new(settings);
    for doc in loaded.docs {
        builder.add(doc);
    }
    Ok(builder.build()?)
}

/// The whole command.
pub fn run(input: &Path, args: &BuildArgs) -> Result<()> {
    let started = Instant::now();
    let (loaded, records) = load_input(input, args)?;
    let mut per_depth = [0usize; 7];
    for d in &loaded.docs {
        for s in &d.sections {
            per_depth[usize::from(s.depth.min(6))] += 1;
        }
    }
    let warnings = loaded.warnings.clone();
    let output = build(loaded, records, args)?;
    write_index(&args.out, &output.files)?;
    let m = &output.manifest;
    println!("Indexed {} documents into {}", m.stats.documents, args.out.display());
    let depths: Vec<String> = per_depth
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(d, n)| if d == 0 { format!("documents {n}") } else { format!("H{d} {n}") })
        .collect();
    println!("  sections   {} ({})", m.stats.sections, depths.join(", "));
    println!("  terms      {}", m.stats.terms);
    for (name, bytes) in &output.files {
        println!("  {:<36} {:>10} bytes", name, bytes.len());
    }
    println!("  time       {:.2} s", started.elapsed().as_secs_f64());
    if !warnings.is_empty() {
        println!("{} warnings:", warnings.len());
        for w in &warnings {
            match w.line {
                Some(l) => println!("  {}:{}: {}", w.path, l, w.message),
                None => println!("  {}: {}", w.path, w.message),
            }
        }
    }
    Ok(())
}
