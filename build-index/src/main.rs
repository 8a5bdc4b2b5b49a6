//! `build-index`: Midashi's command line. Markdown (or JSONL records) in, a folder of static
//! index files out; then `search`, `get` and `eval` over such a folder.

mod commands;
mod embedding;
mod endpoint;
mod error;
mod folder;
mod folder_file;
mod lang;
mod llms;
mod locate;
mod mcp;
mod output;
mod progress;
#[cfg(test)]
mod ranking_tests;
mod shipped_model;
mod site;
mod sources;
mod static_table;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Section-level search for documentation: build an index, then search it.
#[derive(Debug, Parser)]
#[command(
    name = "build-index",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  build-index docs/ --out public/search --slug vitepress\n  build-index search public/search \"computed property\" --preview-lines 5\n  build-index get public/search guide/intro.md#getting-started\n  build-index mcp public/search\n  build-index eval ../shared/eval/scifact"
)]
struct Cli {
    /// A folder of Markdown, or a .jsonl file of records (`_id`, `title`, `text`, `url`).
    #[arg(required = true)]
    input: Option<PathBuf>,
    #[command(flatten)]
    build: Option<commands::build::BuildArgs>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Search an index folder.
    Search(commands::search::SearchArgs),
    /// Print a section (by id or path#anchor) or a whole document (by path).
    Get {
        /// The index folder.
        dir: PathBuf,
        /// A section id, `path#anchor`, or a document path.
        target: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve an index folder to AI agents: a Model Context Protocol server on stdin/stdout
    /// (or over HTTP with --http) with the tools search, get_document and list_documents.
    Mcp {
        /// The index folder.
        dir: PathBuf,
        /// Serve MCP's Streamable HTTP transport at http://ADDR/mcp instead of stdio, e.g.
        /// 127.0.0.1:8787 (port 0: any free port, printed). Loopback unless you name another
        /// address.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// With --http: the bearer token clients must send (`Authorization: Bearer …`).
        #[arg(long, env = "MIDASHI_MCP_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// The largest request accepted (e.g. 64KB, 1MB): an HTTP body, or a line on stdio.
        #[arg(long, default_value = "1MB", value_parser = llms::parse_size)]
        max_request_bytes: u64,
        /// With --http: requests per minute one client address may make.
        #[arg(long, default_value_t = 600)]
        rate_limit: u32,
        /// Embedding model folder for semantic/hybrid search and token counts (default:
        /// models/all-MiniLM-L6-v2 if present; give an absolute path when an agent starts the
        /// server from another folder).
        #[arg(long)]
        model: Option<PathBuf>,
    },
    /// An index's vectors (or queries embedded with its model) as JSON lines, for handing
    /// the same vectors to another engine.
    Vectors {
        /// The index folder (built with a model).
        dir: PathBuf,
        /// Where to write the JSON lines.
        #[arg(long)]
        out: PathBuf,
        /// Embed these queries (JSON lines with `_id` and `text`) instead of exporting the
        /// sections' vectors.
        #[arg(long)]
        queries: Option<PathBuf>,
        /// Model folder, when the index ships none.
        #[arg(long)]
        model: Option<PathBuf>,
    },
    /// A model folder as a browser loads it (the encoder file, `model.bin`), for an index
    /// built with --no-ship-model whose page passes `modelUrl`.
    PrepareModel {
        /// The model folder (`midashi-model.json` or a sentence-transformers export, with
        /// its ONNX and tokenizer.json).
        model: PathBuf,
        /// The folder to write `model.bin`, `tokenizer.json` and `midashi-model.json` to.
        #[arg(long)]
        out: PathBuf,
        /// Bits a weight: 4 (as an index ships it, where that agrees with the exact model)
        /// or 8 (the ONNX's weights, computing exactly what it does).
        #[arg(long, default_value = "4", value_parser = weight_bits)]
        bits: midashi_embed::WeightBits,
    },
    /// Retrieval quality on a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), or
    /// with --docs on a docs folder whose sections a question set judges.
    Eval {
        /// The BEIR folder, or the question set's (queries.jsonl, qrels/test.tsv) with --docs.
        dir: PathBuf,
        /// A folder of Markdown to index as a site (docs field weights, grouped results, as
        /// users get them); judgments then name sections as `path#anchor` (`path` for a
        /// page's top).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Heading anchor style of the --docs folder.
        #[arg(long, default_value = "github")]
        slug: midashi_markdown::SlugStyle,
        /// The language of the --docs pages that name none, as `build --lang` (default: told
        /// from the pages): `--lang en` measures a French site read by English rules.
        #[arg(long)]
        lang: Option<String>,
        /// Rank the --docs sections one by one instead of grouped as visitors see them: the
        /// comparison with a baseline that ranks the same sections (bench/multilingual).
        #[arg(long)]
        ungrouped: bool,
        /// keyword | semantic | hybrid | auto (auto: what users get, vectors when a model is
        /// at hand and only for queries the model covers).
        #[arg(long, default_value = "keyword")]
        mode: String,
        /// Judgments to use instead of <dir>/qrels/test.tsv.
        #[arg(long)]
        qrels: Option<PathBuf>,
        /// Embedding model folder for semantic/hybrid (default: models/all-MiniLM-L6-v2).
        #[arg(long)]
        model: Option<PathBuf>,
        /// How hybrid mode fuses its legs.
        #[command(flatten)]
        fusion: commands::search::FusionArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Also write each query's first 100 results, with scores, as a TREC run file
        /// (`qid Q0 doc rank score mode`): for trec_eval, or to try fusion offline from a
        /// keyword and a semantic run.
        #[arg(long)]
        run: Option<PathBuf>,
        /// Also report, for the questions that get a vector, how candidate relevance floors
        /// count the sections only the semantic leg finds: precision and recall against the
        /// judgments, results counted per question.
        #[arg(long)]
        floor: bool,
        /// How queries get their vectors, as `build --semantic` says: `static` measures a
        /// table distilled from the site (a look-up per query, no encoder).
        #[arg(long, value_enum, default_value_t = commands::build::SemanticArg::Auto)]
        semantic: commands::build::SemanticArg,
    },
}

/// `build-index search … | head` ends quietly when `head` has read enough, as `cat` does: the
/// Rust runtime ignores SIGPIPE, so a write to the closed pipe fails with EPIPE and
/// `println!` panics (exit 101 with a backtrace). The default action ends the process
/// instead, which is what a pipeline expects.
#[cfg(unix)]
fn end_quietly_on_closed_pipe() {
    // SAFETY: setting a signal's disposition to its default before any thread starts; no
    // handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_closed_pipe() {}

/// `--bits 4|8` as the encoder file's [`WeightBits`](midashi_embed::WeightBits).
fn weight_bits(s: &str) -> std::result::Result<midashi_embed::WeightBits, String> {
    match s {
        "4" => Ok(midashi_embed::WeightBits::Four),
        "8" => Ok(midashi_embed::WeightBits::Eight),
        _ => Err("4 (as an index ships the model) or 8 (the ONNX's own weights)".into()),
    }
}

fn main() -> ExitCode {
    end_quietly_on_closed_pipe();
    let cli = Cli::parse();
    let result = match (&cli.command, &cli.input, &cli.build) {
        (Some(Command::Search(args)), _, _) => commands::search::run(args),
        (Some(Command::Get { dir, target, json }), _, _) => commands::get::run(dir, target, *json),
        (
            Some(Command::Mcp {
                dir,
                model,
                http,
                token,
                max_request_bytes,
                rate_limit,
            }),
            _,
            _,
        ) => match http {
            Some(addr) => mcp::run_http(
                dir,
                model.as_deref(),
                mcp::HttpOptions {
                    addr: *addr,
                    token: token.clone().filter(|t| !t.is_empty()),
                    max_request_bytes: usize::try_from(*max_request_bytes).unwrap_or(usize::MAX),
                    requests_per_minute: *rate_limit,
                },
            ),
            None => mcp::run(
                dir,
                model.as_deref(),
                usize::try_from(*max_request_bytes).unwrap_or(usize::MAX),
            ),
        },
        (
            Some(Command::Vectors {
                dir,
                out,
                queries,
                model,
            }),
            _,
            _,
        ) => commands::vectors::run(dir, out, queries.as_deref(), model.as_deref()),
        (Some(Command::PrepareModel { model, out, bits }), _, _) => {
            commands::prepare_model::run(model, out, *bits)
        }
        (
            Some(Command::Eval {
                dir,
                docs,
                slug,
                lang,
                ungrouped,
                mode,
                model,
                qrels,
                fusion,
                json,
                run,
                floor,
                semantic,
            }),
            _,
            _,
        ) => fusion.to_fusion().and_then(|f| {
            let corpus = match docs {
                Some(d) => commands::eval::Corpus::Docs(
                    d,
                    *slug,
                    lang.as_deref(),
                    if *ungrouped {
                        commands::eval::Grouping::Ungrouped
                    } else {
                        commands::eval::Grouping::AsVisitorsSee
                    },
                ),
                None => commands::eval::Corpus::Records,
            };
            commands::eval::run(
                dir,
                &corpus,
                mode,
                commands::eval::Semantic {
                    model: model.as_deref(),
                    leg: *semantic,
                },
                qrels.as_deref(),
                f,
                commands::eval::Report {
                    json: *json,
                    run: run.as_deref(),
                    floor: *floor,
                },
            )
        }),
        (None, Some(input), Some(build)) => commands::build::run(input, build),
        // No build option at all (`midashi dist`): every option at its default.
        (None, Some(input), None) => commands::build::BuildArgs::defaults()
            .and_then(|build| commands::build::run(input, &build)),
        _ => Err(error::CliError::Usage(
            "give a docs folder and --out <dir>, or a subcommand (see --help)".into(),
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
