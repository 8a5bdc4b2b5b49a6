//! `build-index <docs-dir | records.jsonl> --out <dir>`: read, index, write, report.

use crate::embedding::{
    choose_model_dir, default_cache_dir, default_model_places, embed_documents, load_model,
    model_info, site_passages, uncovered_language, EmbedReport,
};
use crate::endpoint::EndpointArgs;
use crate::error::{CliError, Result};
use crate::output::write_index;
use crate::shipped_model::ship_model;
use crate::sources::{input_files, load_html, load_markdown, load_records, InputKind, Loaded};
pub use crate::static_table::SemanticArg;
use midashi_core::build::{FieldWeights, IndexBuilder, IndexSettings, Layout, Synonyms};
use midashi_markdown::{Options, SlugStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to build.
#[derive(Debug, Clone, clap::Args)]
pub struct BuildArgs {
    /// Output folder for the index files (default for a built site's folder: its `search/`,
    /// so `midashi dist` writes `dist/search/`).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// What the input folder holds: `markdown` source, a built site's `html` pages, or
    /// `jsonl` records; `auto` decides from the files (HTML when it has more `*.html` than
    /// `*.md`, as a generator's output folder does).
    #[arg(long = "input", id = "input_kind", value_enum, default_value_t = InputKind::Auto)]
    pub input_kind: InputKind,
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
    /// For a built site: index its "page not found" page (`404.html`) too, which is left out
    /// by default (redirect pages are always left out).
    #[arg(long)]
    pub keep_error_pages: bool,
    /// Embedding model folder (model.onnx + tokenizer.json + midashi-model.json, or a
    /// sentence-transformers ONNX export). Default: models/all-MiniLM-L6-v2 when present.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Build a keyword-only index (no vectors, no model needed).
    #[arg(long)]
    pub keyword_only: bool,
    /// How queries get their vectors: `deep` ships the model's encoder (megabytes, the
    /// closest meaning); `static` ships a table distilled from this site's text (a few
    /// hundred KB, a look-up per query; WordPiece or SentencePiece Unigram models such as
    /// all-MiniLM-L6-v2 and multilingual-e5-small); `auto` (default): `static` when the model
    /// allows it, else `deep`.
    #[arg(long, value_enum, default_value_t = SemanticArg::Auto)]
    pub semantic: SemanticArg,
    /// Vector rows from which an HNSW graph is added for semantic search (below it, an exact
    /// scan answers: faster to build, fewer bytes, and fast enough up to this size).
    #[arg(long, default_value_t = midashi_core::vectors::ann::ANN_MIN_ROWS)]
    pub ann_min_rows: usize,
    /// Embed the sections even when the docs are mostly in a language the model does not
    /// cover (by default such a build is keyword-only: its vectors would rank by noise).
    #[arg(long)]
    pub embed_any_language: bool,
    /// Do not copy the model's files into the index (then browsers need `modelUrl`, a
    /// folder `build-index prepare-model` writes, for semantic search; the CLI and the MCP
    /// server read the model folder instead).
    #[arg(long)]
    pub no_ship_model: bool,
    /// Encode the sections on an OpenAI-compatible embeddings server (`http://host:8080`,
    /// `…/v1` or `…/v1/embeddings`) serving the same model as --model, which still embeds
    /// queries and is checked against the server first. API key: $MIDASHI_EMBED_API_KEY.
    #[arg(long, value_name = "URL")]
    pub embed_endpoint: Option<String>,
    /// The `model` the server is asked for (default: the local model's name).
    #[arg(long, requires = "embed_endpoint")]
    pub embed_model: Option<String>,
    /// Texts per request to the embeddings server.
    #[arg(long, default_value_t = 32, requires = "embed_endpoint", value_parser = clap::value_parser!(u16).range(1..=2048))]
    pub embed_batch: u16,
    /// Requests to the embeddings server in flight at most.
    #[arg(long, default_value_t = 4, requires = "embed_endpoint", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub embed_concurrency: u16,
    /// Where embeddings and the shipped model's prepared copy are cached between builds, one
    /// file of each per model and docs folder (default: $MIDASHI_CACHE_DIR or ~/.cache/midashi).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Keyword index layout: `sharded` (many small files, a query fetches what it reads),
    /// `single` (two files, fetched whole at load: for a reader that must hold everything
    /// at once), or `auto` (sharded, at every size: a first query fetches less than a
    /// single file of even a small site).
    #[arg(long, value_enum, default_value_t = LayoutArg::Auto)]
    pub layout: LayoutArg,
    /// Also render the docs as a static searchable site into --out (the index goes to
    /// <out>/search/).
    #[arg(long)]
    pub site: bool,
    /// The widget's built files (bundle/ and wasm/), copied beside the index for --site and
    /// for a built site's folder (default: found beside the tool: the npm package's dist/, a
    /// checkout's web/dist).
    #[arg(long)]
    pub assets: Option<PathBuf>,
    /// The site's language, for pages that do not declare theirs (frontmatter `lang`,
    /// `<html lang>`, a locale folder such as `ja/`), e.g. `ja`: the language the index records
    /// for them (the `lang` filter and facet, the reader's language first), and with `--site`
    /// their `<html lang>` and the search box's language. Default: the language most pages
    /// declare, else the one they are written in.
    #[arg(long)]
    pub lang: Option<String>,
    /// Do not write llms.txt, llms-full.txt and each page's Markdown copy (`<page>.md`), which
    /// a site gets by default: `--site`, or a built site whose index goes inside it.
    #[arg(long)]
    pub no_llms: bool,
    /// The most bytes llms-full.txt may hold (e.g. 500KB, 10MB): pages past it are left out
    /// whole, and the file says how many.
    #[arg(long, default_value = "5MB", value_parser = crate::llms::parse_size)]
    pub llms_full_limit: u64,
}

impl BuildArgs {
    /// Every option at its default, as clap fills them in.
    pub fn defaults() -> Result<BuildArgs> {
        use clap::{Args, FromArgMatches};
        let cmd = BuildArgs::augment_args(clap::Command::new("build-index"));
        let matches = cmd
            .try_get_matches_from(["build-index"])
            .map_err(|e| CliError::Usage(e.to_string()))?;
        BuildArgs::from_arg_matches(&matches).map_err(|e| CliError::Usage(e.to_string()))
    }
}

/// `--layout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutArg {
    /// Sharded at every size (what `midashi_core::build::Layout::Auto` means).
    Auto,
    /// One terms file and one sections file.
    Single,
    /// Many small files.
    Sharded,
}

impl From<LayoutArg> for Layout {
    fn from(l: LayoutArg) -> Layout {
        match l {
            LayoutArg::Auto => Layout::Auto,
            LayoutArg::Single => Layout::Single,
            LayoutArg::Sharded => Layout::Sharded,
        }
    }
}

/// Reads the input: a folder of Markdown or HTML pages, or a JSONL file of records. The
/// second value says which it was (`Jsonl` for records; never `Auto`).
pub fn load_input(input: &Path, args: &BuildArgs) -> Result<(Loaded, InputKind)> {
    let jsonl = input.is_file()
        && (args.input_kind == InputKind::Jsonl
            || input
                .extension()
                .is_some_and(|e| e == "jsonl" || e == "ndjson"));
    if jsonl {
        return Ok((load_records(input)?, InputKind::Jsonl));
    }
    if !input.is_dir() || args.input_kind == InputKind::Jsonl {
        return Err(CliError::BadInput(input.to_path_buf()));
    }
    let kind = args.input_kind.detect(input);
    let (files, links) = input_files(input, kind, &args.include, &args.exclude)?;
    if files.is_empty() {
        return Err(CliError::NothingToIndex(input.to_path_buf()));
    }
    // Long sections are not a fault: the embedder reads them as several passages, and the
    // report counts them (as one line, not a warning per section).
    let max_section_tokens = u32::MAX;
    let mut loaded = if kind == InputKind::Html {
        let opts = midashi_html::Options {
            base_url: args.base_url.clone(),
            max_section_tokens,
            keep_error_pages: args.keep_error_pages,
        };
        load_html(input, &files, &opts, !args.quiet)
    } else {
        let opts = Options {
            slug: args.slug,
            base_url: args.base_url.clone(),
            max_section_tokens,
        };
        load_markdown(input, &files, &opts, !args.quiet)
    };
    for l in links {
        loaded
            .skipped
            .push((l, "a symbolic link (not followed)".into()));
    }
    if loaded.docs.is_empty() {
        // Every file was skipped: writing an empty index would replace a good one.
        return Err(CliError::NothingReadable {
            dir: input.to_path_buf(),
            reasons: loaded
                .warnings
                .iter()
                .map(|w| (w.path.as_str(), w.message.as_str()))
                .chain(loaded.skipped.iter().map(|(p, w)| (p.as_str(), w.as_str())))
                .take(5)
                .map(|(p, w)| format!("\n  {p}: {w}"))
                .collect(),
        });
    }
    Ok((loaded, kind))
}

/// Builds the index in memory from loaded documents, with vectors when a model is at hand.
pub fn build(
    mut loaded: Loaded,
    input: &Path,
    records: bool,
    args: &BuildArgs,
) -> Result<(midashi_core::build::BuildOutput, Option<EmbedReport>)> {
    let synonyms = match &args.synonyms {
        Some(p) => Synonyms::parse(&std::fs::read_to_string(p).map_err(CliError::io(p))?)?,
        None => Synonyms::default(),
    };
    let settings = IndexSettings {
        weights: if records {
            FieldWeights::RECORDS
        } else {
            FieldWeights::DOCS
        },
        slug: if records {
            midashi_core::build::RECORDS_SLUG.into()
        } else {
            args.slug.to_string()
        },
        base_url: args.base_url.clone(),
        synonyms,
        ann_min_rows: args.ann_min_rows,
        layout: args.layout.into(),
    };
    // Every page gets a language: its own (frontmatter `lang`, `<html lang>`, a locale
    // folder), else the site's (`--lang`, else what most pages declare or are written in).
    // Untagged pages were no language at all: `lang: "en"` found none of an English site's
    // pages, and a reader's language could not be put first on a site that tags only its
    // translations. (`run` has given them one already, before keeping the docs for --site.)
    crate::lang::give_site_lang(&mut loaded.docs, args.lang.as_deref());
    let mut builder = IndexBuilder::new(settings);
    // Vectors are numbered by section in index order: documents sorted by path.
    loaded.docs.sort_by(|a, b| a.path.cmp(&b.path));
    let mut report = None;
    let chosen = if args.keyword_only {
        None
    } else {
        choose_model_dir(args.model.as_deref(), &loaded.docs)?
    };
    let model = match &chosen {
        Some(c) => Some(load_model(&c.dir)?),
        None => None,
    };
    if let (Some(c), Some((embedder, _))) = (&chosen, &model) {
        if let Some((default, lang)) = &c.instead_of {
            eprintln!(
                "note: these docs are mostly in {lang}, which {default} does not cover: \
                 embedding with {} (pass --model to choose another)",
                embedder.config().name
            );
        }
    }
    let uncovered = model.as_ref().and_then(|(embedder, _)| {
        let languages = &embedder.config().languages;
        let lang = uncovered_language(&loaded.docs, languages)?;
        (!args.embed_any_language).then_some((
            lang,
            embedder.config().name.clone(),
            languages.join(", "),
        ))
    });
    if let Some((lang, name, covered)) = &uncovered {
        eprintln!(
            "note: these docs are mostly in {lang} and the model {name} covers {covered}: \
             building a keyword-only index (its vectors of these sections would rank by noise, \
             and every visitor would download them); install the multilingual model \
             (npm i -D @midashi/model-e5, or scripts/fetch-e5.sh in a checkout) or pass \
             --model with a model that covers {lang}, or --embed-any-language to embed them \
             anyway"
        );
    }
    match model.filter(|_| uncovered.is_none()) {
        Some((embedder, files)) => {
            let cache_dir = args.cache_dir.clone().unwrap_or_else(default_cache_dir);
            let endpoint = args.embed_endpoint.as_ref().map(|url| EndpointArgs {
                url: url.clone(),
                model: args.embed_model.clone(),
                batch: args.embed_batch.into(),
                concurrency: args.embed_concurrency.into(),
            });
            let passages = site_passages(&loaded.docs, &embedder)?;
            let cutter = (args.semantic != SemanticArg::Deep)
                .then(|| crate::static_table::cutter_of(&embedder))
                .flatten();
            let table =
                args.semantic
                    .ships_table(cutter.as_ref(), endpoint.is_some(), args.no_ship_model);
            if table {
                let r = crate::static_table::ship(
                    &mut builder,
                    (&loaded.docs, &passages),
                    (embedder, cutter),
                    (&cache_dir, input),
                    !args.quiet,
                )?;
                report = Some(r);
            } else {
                let (mut vectors, mut r) = embed_documents(
                    &passages,
                    &embedder,
                    &cache_dir,
                    input,
                    !args.quiet,
                    endpoint.as_ref(),
                )?;
                let mut info = model_info(&embedder);
                if !args.no_ship_model {
                    let (shipped, query_info) = ship_model(
                        &passages,
                        &embedder,
                        files,
                        &mut vectors,
                        &mut r,
                        &cache_dir,
                        input,
                    )?;
                    info = query_info;
                    builder.set_model_files(shipped);
                }
                builder.set_vectors(info, vectors);
                r.query_embedder.get_or_insert(embedder);
                report = Some(r);
            }
        }
        None if !args.keyword_only && uncovered.is_none() => eprintln!(
            "note: no embedding model found: building a keyword-only index (npm i -D \
             @midashi/model-minilm, pass --model <dir>, or set MIDASHI_MODEL; looked in {}; \
             --keyword-only silences this)",
            default_model_places()
        ),
        None => {}
    }
    for doc in loaded.docs {
        builder.add(doc);
    }
    Ok((builder.build()?, report))
}

/// The output folder: `--out`, else `<input>/search` for a built site's folder.
fn out_dir(input: &Path, args: &BuildArgs) -> Result<PathBuf> {
    match &args.out {
        Some(out) => Ok(out.clone()),
        None if input.is_dir() && args.input_kind.detect(input) == InputKind::Html => {
            Ok(input.join("search"))
        }
        None => Err(CliError::Usage(format!(
            "give the output folder: {} --out <dir> (only a built site's folder has a default, \
             its search/)",
            input.display()
        ))),
    }
}

/// What `llms.txt` says about the site: its home page's title (else the folder's name) and
/// description.
fn site_info(
    input: &Path,
    docs: &[midashi_core::section::Document],
    args: &BuildArgs,
) -> crate::llms::SiteInfo {
    let home = crate::site::home(docs);
    crate::llms::SiteInfo {
        title: crate::site::site_title(input, docs),
        description: home
            .and_then(|d| d.sections.first())
            .and_then(|s| s.hints.description.clone()),
        base_url: args.base_url.clone(),
        full_limit: args.llms_full_limit,
    }
}

/// `llms.txt`, `llms-full.txt` and `<page>.md` for a built site, written into it when its
/// index goes inside it (the default `<site>/search`); an index written elsewhere leaves the
/// site untouched.
fn llms_for_built_site(
    input: &Path,
    index_dir: &Path,
    docs: &[midashi_core::section::Document],
    args: &BuildArgs,
) -> Result<()> {
    let inside = match (
        std::fs::canonicalize(input),
        std::fs::canonicalize(index_dir),
    ) {
        (Ok(site), Ok(index)) => index.starts_with(&site),
        _ => false,
    };
    if !inside {
        println!(
            "  llms.txt   not written: the index is not inside the site {} (build it into <site>/search)",
            input.display()
        );
        return Ok(());
    }
    let pages: Vec<crate::llms::Page<'_>> = docs
        .iter()
        .map(|doc| crate::llms::Page {
            doc,
            file: doc.path.clone(),
        })
        .collect();
    write_llms(input, input, &pages, input, docs, args)
}

/// Writes the llms files of `pages` under `root` and reports them as under `shown`.
fn write_llms(
    root: &Path,
    shown: &Path,
    pages: &[crate::llms::Page<'_>],
    input: &Path,
    docs: &[midashi_core::section::Document],
    args: &BuildArgs,
) -> Result<()> {
    let report = crate::llms::write(root, pages, &site_info(input, docs, args))?;
    crate::llms::describe_report(&report, shown)
        .iter()
        .for_each(|l| println!("  {l}"));
    Ok(())
}

/// The whole command.
pub fn run(input: &Path, args: &BuildArgs) -> Result<()> {
    let started = Instant::now();
    let out = out_dir(input, args)?;
    // Held until the index (and the site) are written: a second build into the folder is
    // refused rather than interleaved with this one.
    let _lock = crate::output::lock_output(&out)?;
    if args.site && args.input_kind.detect(input) == InputKind::Html {
        return Err(CliError::Usage(
            "--site renders Markdown into pages; this folder is a built site already: write its \
             index into it instead (e.g. `--out <site>/search`, without --site)"
                .into(),
        ));
    }
    let (mut loaded, kind) = load_input(input, args)?;
    // Before the docs are kept for --site: the pages and the index name the same languages,
    // found once.
    let site_lang = crate::lang::give_site_lang(&mut loaded.docs, args.lang.as_deref());
    let records = kind == InputKind::Jsonl;
    let mut per_depth = [0usize; 7];
    for d in &loaded.docs {
        for s in &d.sections {
            per_depth[usize::from(s.depth.min(6))] += 1;
        }
    }
    let warnings = loaded.warnings.clone();
    let skipped = loaded.skipped.clone();
    // --site renders the same documents after the index is written (see crate::site), and
    // a built site's pages get their Markdown copies and llms.txt then: one copy for either.
    let kept_docs =
        (args.site || (kind == InputKind::Html && !args.no_llms)).then(|| loaded.docs.clone());
    let (output, embed_report) = build(loaded, input, records, args)?;
    let index_dir = if args.site {
        out.join("search")
    } else {
        out.clone()
    };
    if let (true, Some(docs)) = (args.site, &kept_docs) {
        // The pages and the index are written aside and made live together.
        let staging = crate::output::Staging::begin(&out)?;
        write_index(&staging.path().join("search"), &output.files)?;
        let site = crate::site::SiteArgs {
            out: staging.path(),
            shown_out: &out,
            assets: args.assets.as_deref(),
            slug: args.slug,
            base_url: &args.base_url,
            lang: site_lang.as_deref().or(args.lang.as_deref()),
        };
        crate::site::build_site(
            input,
            &site,
            docs,
            &output.files,
            output.keyword_single.as_deref(),
        )?;
        if !args.no_llms {
            let pages = crate::site::pages(docs, &args.base_url);
            write_llms(staging.path(), &out, &pages, input, docs, args)?;
        }
        staging.commit()?;
    } else {
        write_index(&index_dir, &output.files)?;
        if kind == InputKind::Html {
            // A built site gets the widget beside its index, as `--site` does.
            // Without the widget's files (a checkout that has not built them) the index is
            // still what was asked for: say so, do not fail.
            match crate::site::add_widget(&index_dir, &output.files, args.assets.as_deref()) {
                Ok(notes) => notes.iter().for_each(|n| println!("  {n}")),
                Err(e) => println!("  widget not copied: {e}"),
            }
            if let Some(docs) = &kept_docs {
                llms_for_built_site(input, &index_dir, docs, args)?;
            }
        } else if kind == InputKind::Markdown {
            // Only a built site's folder and --site get the widget's files beside the index.
            println!(
                "  note: the search box's files (midashi.js, wasm/) are not written beside an \
                 index of Markdown; for a page of your own add --site, or import \
                 \"midashi/widget\" from the npm package"
            );
        }
    }
    let m = &output.manifest;
    println!(
        "Indexed {} documents into {}",
        m.stats.documents,
        index_dir.display()
    );
    let depths: Vec<String> = per_depth
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(d, n)| {
            if d == 0 {
                format!("documents {n}")
            } else {
                format!("H{d} {n}")
            }
        })
        .collect();
    println!("  sections   {} ({})", m.stats.sections, depths.join(", "));
    println!("  terms      {}", m.stats.terms);
    // A sharded index has thousands of shards, bundles and cards: those are summed up by kind.
    let mut kinds: Vec<(&str, usize, usize)> = Vec::new();
    for (name, bytes) in &output.files {
        let kind = name.split('.').next().unwrap_or("");
        if matches!(kind, "shard" | "bundle" | "card") {
            match kinds.iter_mut().find(|k| k.0 == kind) {
                Some(k) => {
                    k.1 += 1;
                    k.2 += bytes.len();
                }
                None => kinds.push((kind, 1, bytes.len())),
            }
        } else {
            println!("  {:<36} {:>10} bytes", name, bytes.len());
        }
    }
    for (kind, files, bytes) in kinds {
        println!("  {:<36} {:>10} bytes", format!("{kind} × {files}"), bytes);
    }
    match &embed_report {
        Some(r) => r.print(),
        None => println!("  vectors    none (keyword-only index)"),
    }
    println!("  time       {:.2} s", started.elapsed().as_secs_f64());
    if !skipped.is_empty() {
        println!("{} files not indexed:", skipped.len());
        for (path, why) in skipped.iter().take(20) {
            println!("  {path}: {why}");
        }
        if skipped.len() > 20 {
            println!("  ({} more)", skipped.len() - 20);
        }
    }
    if !warnings.is_empty() {
        println!("{} warnings:", warnings.len());
        const SHOWN: usize = 50;
        if warnings.len() > SHOWN {
            println!(
                "  (the first {SHOWN}; {} more not shown)",
                warnings.len() - SHOWN
            );
        }
        for w in warnings.iter().take(SHOWN) {
            match w.line {
                Some(l) => println!("  {}:{}: {}", w.path, l, w.message),
                None => println!("  {}: {}", w.path, w.message),
            }
        }
    }
    Ok(())
}
