//! `build-index eval <beir-dir>`: retrieval quality on a BEIR-layout folder
//! (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`), with the standard formulas:
//! nDCG@10 with linear gain and log2 discount (as pytrec_eval), Recall@10, MRR@10.
//! Also prints per-query latency percentiles of the search itself.

use crate::commands::build::build;
use crate::embedding::{default_model_places, model_at_hand};
use crate::error::{CliError, Result};
use crate::sources::load_records;
use midashi_core::format::FileKind;
use midashi_core::rank::fusion::Fusion;
use midashi_core::{Mode, SearchIndex, SearchOptions};
use midashi_embed::Embedder;
use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Instant;

pub mod floor;

/// Relevance judgments: query id → (doc id → grade).
pub type Qrels = HashMap<String, HashMap<String, f64>>;

/// Reads `qrels/test.tsv` (header line, then `query-id  corpus-id  score`).
pub fn read_qrels(path: &Path) -> Result<Qrels> {
    let text = fs::read_to_string(path).map_err(CliError::io(path))?;
    let mut qrels: Qrels = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        let Ok(score) = cols[2].trim().parse::<f64>() else {
            if i == 0 {
                continue; // header
            }
            return Err(CliError::Usage(format!(
                "{}:{}: bad score {:?}",
                path.display(),
                i + 1,
                cols[2]
            )));
        };
        qrels
            .entry(cols[0].to_string())
            .or_default()
            .insert(cols[1].to_string(), score);
    }
    Ok(qrels)
}

/// One query of `queries.jsonl`: its id, text and optional `kind` (a question set's
/// `question` / `navigational`, reported apart).
pub struct Query {
    /// `_id`.
    pub id: String,
    /// `text`.
    pub text: String,
    /// `kind`, if given.
    pub kind: Option<String>,
}

/// Reads `queries.jsonl`.
pub fn read_queries(path: &Path) -> Result<Vec<Query>> {
    let file = fs::File::open(path).map_err(CliError::io(path))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(CliError::io(path))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| CliError::BadRecord {
                path: path.to_path_buf(),
                line: i + 1,
                detail: e.to_string(),
            })?;
        let id = match &v["_id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.push(Query {
            id,
            text: v["text"].as_str().unwrap_or_default().to_string(),
            kind: v["kind"].as_str().map(str::to_string),
        });
    }
    Ok(out)
}

/// nDCG@k, Recall@k and reciprocal rank@k of one ranking.
pub fn metrics(ranked: &[String], judged: &HashMap<String, f64>, k: usize) -> (f64, f64, f64) {
    let top = &ranked[..ranked.len().min(k)];
    let dcg: f64 = top
        .iter()
        .enumerate()
        .map(|(i, d)| judged.get(d).copied().unwrap_or(0.0) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<f64> = judged.values().copied().filter(|&g| g > 0.0).collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, g)| g / ((i + 2) as f64).log2())
        .sum();
    let relevant = judged.values().filter(|&&g| g > 0.0).count();
    let found = top
        .iter()
        .filter(|d| judged.get(*d).is_some_and(|&g| g > 0.0))
        .count();
    let rr = top
        .iter()
        .position(|d| judged.get(d).is_some_and(|&g| g > 0.0))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64);
    (
        if idcg > 0.0 { dcg / idcg } else { 0.0 },
        if relevant > 0 {
            found as f64 / relevant as f64
        } else {
            0.0
        },
        rr,
    )
}

/// How a docs set's results are ranked for judging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// Grouped as the site's visitors see them (a section with its parent): the default.
    AsVisitorsSee,
    /// Section by section, as a baseline that ranks the same sections does (`--ungrouped`).
    Ungrouped,
}

/// What is searched: a BEIR folder's records, or a docs folder's sections.
pub enum Corpus<'a> {
    /// `<dir>/corpus.jsonl`; results are judged by record id.
    Records,
    /// A folder of Markdown with its anchor style and, when given, the language of its pages
    /// that name none (`--lang`, as the build takes it); results are judged by section
    /// (`path#anchor`, `path` for a page's top) and grouped as users see them.
    Docs(
        &'a Path,
        midashi_markdown::SlugStyle,
        Option<&'a str>,
        Grouping,
    ),
}

/// Builds an in-memory index of `corpus` (with vectors when `semantic`), and returns the
/// embedding model for queries.
fn index_corpus(
    dir: &Path,
    corpus: &Corpus,
    semantic: bool,
    explicit_semantic: bool,
    model: Option<&Path>,
    leg: crate::commands::build::SemanticArg,
) -> Result<(SearchIndex, Option<Embedder>)> {
    let (loaded, input, records) = match corpus {
        Corpus::Records => (load_records(&dir.join("corpus.jsonl"))?, dir, true),
        Corpus::Docs(docs, ..) => {
            let mut args = crate::commands::build::BuildArgs::defaults()?;
            args.input_kind = crate::sources::InputKind::Markdown;
            (
                crate::commands::build::load_input(docs, &args)?.0,
                *docs,
                false,
            )
        }
    };
    let args = crate::commands::build::BuildArgs {
        input_kind: if records {
            crate::sources::InputKind::Jsonl
        } else {
            crate::sources::InputKind::Markdown
        },
        out: Some(dir.to_path_buf()),
        base_url: "/".into(),
        slug: match corpus {
            Corpus::Docs(_, slug, ..) => *slug,
            Corpus::Records => midashi_markdown::SlugStyle::Github,
        },
        synonyms: None,
        include: Vec::new(),
        exclude: Vec::new(),
        quiet: false,
        keep_error_pages: false,
        site: false,
        // Evaluation opens the files it just built in memory: the single layout.
        layout: super::build::LayoutArg::Single,
        assets: None,
        model: model.map(Path::to_path_buf),
        keyword_only: !semantic,
        semantic: leg,
        // Shipped as a default build ships it: a trimmed copy is what queries then use.
        no_ship_model: false,
        ann_min_rows: midashi_core::vectors::ann::ANN_MIN_ROWS,
        cache_dir: None,
        // Nothing is written beside pages: there are none.
        no_llms: true,
        llms_full_limit: 0,
        lang: match corpus {
            Corpus::Docs(_, _, lang, _) => lang.map(str::to_string),
            Corpus::Records => None,
        },
        // Explicit semantic and hybrid runs measure the model whatever the docs' language;
        // auto measures what a default build gives.
        embed_any_language: explicit_semantic,
        embed_endpoint: None,
        embed_model: None,
        embed_batch: 32,
        embed_concurrency: 4,
    };
    if semantic && !model_at_hand(model)? {
        return Err(CliError::Model(format!(
            "semantic evaluation needs a model: pass --model <dir> (looked in {})",
            default_model_places()
        )));
    }
    let (output, report) = build(loaded, input, records, &args)?;
    // Queries are embedded with the model the build chose (the multilingual one for docs the
    // default does not cover), as the CLI and the browser embed them with the shipped model.
    let embedder = report.and_then(|r| r.query_embedder).filter(|_| semantic);
    let file = |kind: FileKind| {
        let name = &output
            .manifest
            .file(kind)
            .map(|f| f.name.clone())
            .unwrap_or_default();
        output
            .files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
            .unwrap_or_default()
    };
    let mut index = SearchIndex::from_manifest(
        output.manifest.clone(),
        file(FileKind::Terms),
        file(FileKind::Sections),
    )?;
    // Auto on docs the model does not cover builds no vectors, as a default build does.
    if semantic && output.manifest.file(FileKind::Vectors).is_some() {
        index.attach_vectors(file(FileKind::Vectors))?;
        if output.manifest.file(FileKind::Ann).is_some() {
            index.attach_ann(file(FileKind::Ann))?;
        }
        if output.manifest.file(FileKind::Table).is_some() {
            index.attach_table(file(FileKind::Table))?;
        }
    }
    Ok((index, embedder))
}

/// How `eval` reports.
pub struct Report<'a> {
    /// JSON instead of text.
    pub json: bool,
    /// Where to write a TREC run file of each query's first [`RUN_DEPTH`] results.
    pub run: Option<&'a Path>,
    /// Also print how candidate relevance floors count the semantic leg's sections
    /// ([`floor`]).
    pub floor: bool,
}

/// The semantic leg measured.
pub struct Semantic<'a> {
    /// The model folder (default: the build's choice).
    pub model: Option<&'a Path>,
    /// How queries get their vectors (`build --semantic`).
    pub leg: crate::commands::build::SemanticArg,
}

/// How many results per query a run file holds: deep enough to fuse two runs offline as
/// hybrid search fuses its legs' heads.
pub const RUN_DEPTH: usize = 100;

/// Runs the evaluation and prints the figures. `auto` measures what a user gets: the index
/// has vectors when a model is at hand (as a default build does), and each query gets a
/// vector only when the CLI, the JS API and the widget would compute one
/// (`folder::query_vector`, the core's `semantic_covers`). `qrels` replaces
/// `qrels/test.tsv`; `report.run` also writes a run file.
pub fn run(
    dir: &Path,
    corpus: &Corpus,
    mode: &str,
    semantic_leg: Semantic,
    qrels: Option<&Path>,
    fusion: Fusion,
    report: Report,
) -> Result<()> {
    let Semantic { model, leg } = semantic_leg;
    let json = report.json;
    let mut run_file = String::new();
    let mode = crate::folder::parse_mode(mode)?;
    let semantic = match mode {
        Mode::Semantic | Mode::Hybrid => true,
        Mode::Auto => model_at_hand(model)?,
        Mode::Keyword => false,
    };
    let explicit_semantic = matches!(mode, Mode::Semantic | Mode::Hybrid);
    let (index, embedder) = index_corpus(dir, corpus, semantic, explicit_semantic, model, leg)?;
    let queries = read_queries(&dir.join("queries.jsonl"))?;
    let qrels = match qrels {
        Some(path) => read_qrels(path)?,
        None => read_qrels(&dir.join("qrels").join("test.tsv"))?,
    };
    if let Corpus::Docs(docs, ..) = corpus {
        check_judged_sections(&index, &qrels, docs)?;
    }
    let opts = SearchOptions {
        limit: if report.run.is_some() { RUN_DEPTH } else { 10 },
        mode,
        fusion,
        prefix: false,
        // Records are independent; a site's results are grouped as its visitors see them,
        // unless asked to rank sections one by one (as a baseline over them does).
        group: matches!(corpus, Corpus::Docs(.., Grouping::AsVisitorsSee)),
        ..SearchOptions::default()
    };
    let (mut ndcg, mut recall, mut mrr, mut n) = (0.0, 0.0, 0.0, 0usize);
    // Queries whose first judged result is first, and within the first three.
    let (mut top1, mut top3) = (0usize, 0usize);
    // nDCG@10 sum and count per query kind.
    let mut by_kind: std::collections::BTreeMap<&str, (f64, usize, usize)> = Default::default();
    let mut latencies = Vec::new();
    let mut encode_ms = Vec::new();
    let mut floor_report = floor::FloorReport::default();
    for query in &queries {
        let (qid, text) = (&query.id, &query.text);
        let Some(judged) = qrels.get(qid) else {
            continue;
        };
        let t = Instant::now();
        let vector = crate::folder::query_vector(&index, mode, text, embedder.as_ref())?;
        if vector.is_some() {
            encode_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        if let (true, Some(v)) = (report.floor, vector.as_deref()) {
            floor_report.add(&index, text, v, judged)?;
        }
        let started = Instant::now();
        let scored: Vec<(String, f32)> = index
            .search(text, &opts, vector.as_deref())?
            .results
            .into_iter()
            .map(|h| match (corpus, h.anchor) {
                (Corpus::Docs(..), Some(anchor)) => (format!("{}#{anchor}", h.path), h.score),
                _ => (h.path, h.score),
            })
            .collect();
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        if report.run.is_some() {
            for (rank, (doc, score)) in scored.iter().enumerate() {
                let line = format!("{qid} Q0 {doc} {} {score} {mode:?}\n", rank + 1);
                run_file.push_str(&line);
            }
        }
        let ranked: Vec<String> = scored.into_iter().map(|(d, _)| d).collect();
        let (a, b, c) = metrics(&ranked, judged, 10);
        if let Some(kind) = &query.kind {
            let e = by_kind.entry(kind.as_str()).or_default();
            e.0 += a;
            e.1 += 1;
            e.2 += usize::from(c >= 1.0);
        }
        ndcg += a;
        recall += b;
        mrr += c;
        top1 += usize::from(c >= 1.0);
        top3 += usize::from(c >= 1.0 / 3.0);
        n += 1;
    }
    if let Some(path) = report.run {
        fs::write(path, run_file).map_err(CliError::io(path))?;
    }
    let n_f = n.max(1) as f64;
    latencies.sort_by(|a, b| a.total_cmp(b));
    encode_ms.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let encode_p50 = encode_ms.get(encode_ms.len() / 2).copied();
    if json {
        let v = serde_json::json!({
            "queries": n, "mode": mode,
            "ndcg@10": ndcg / n_f, "recall@10": recall / n_f, "mrr@10": mrr / n_f,
            "top1": top1 as f64 / n_f, "top3": top3 as f64 / n_f,
            "latency_ms": { "p50": pct(0.5), "p95": pct(0.95), "p99": pct(0.99) },
            "query_encode_ms_p50": encode_p50,
            "ndcg@10_by_kind": by_kind
                .iter()
                .map(|(k, (sum, count, top1))| (k.to_string(), serde_json::json!({ "queries": count, "ndcg@10": sum / *count as f64, "top1": *top1 as f64 / *count as f64 })))
                .collect::<serde_json::Map<_, _>>(),
        });
        println!("{v}");
    } else {
        println!(
            "nDCG@10={:.4} Recall@10={:.4} MRR@10={:.4} Top-1={:.3} Top-3={:.3}",
            ndcg / n_f,
            recall / n_f,
            mrr / n_f,
            top1 as f64 / n_f,
            top3 as f64 / n_f
        );
        println!(
            "queries={n} mode={mode:?} latency p50={:.3} ms p95={:.3} ms p99={:.3} ms",
            pct(0.5),
            pct(0.95),
            pct(0.99)
        );
        for (kind, (sum, count, top1)) in &by_kind {
            println!(
                "  {kind}: nDCG@10={:.4} Top-1={:.3} over {count} queries",
                sum / *count as f64,
                *top1 as f64 / *count as f64
            );
        }
        if let Some(e) = encode_p50 {
            let how = if index.has_table() {
                "the static table's look-up"
            } else {
                "the shipped encoder file, 1 thread per query"
            };
            println!("query encoding p50={e:.2} ms (native, {how})");
        }
    }
    if report.floor {
        floor_report.print();
    }
    Ok(())
}

/// Every section a docs question set judges must exist: a misspelt anchor would count as a
/// miss for every mode alike and hide what the set measures.
fn check_judged_sections(index: &SearchIndex, qrels: &Qrels, docs: &Path) -> Result<()> {
    let paths: std::collections::HashSet<String> =
        index.documents().into_iter().map(|(p, _)| p).collect();
    let mut unknown: Vec<&str> = qrels
        .values()
        .flat_map(|judged| judged.keys())
        .filter(|id| match id.split_once('#') {
            Some((path, anchor)) => index.find_anchor(path, anchor).is_none(),
            None => !paths.contains(id.as_str()),
        })
        .map(String::as_str)
        .collect();
    unknown.sort_unstable();
    unknown.dedup();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(CliError::Usage(format!(
        "{} judged sections are not in {}: {}{}",
        unknown.len(),
        docs.display(),
        unknown
            .iter()
            .take(10)
            .copied()
            .collect::<Vec<_>>()
            .join(", "),
        if unknown.len() > 10 { ", …" } else { "" }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_follow_the_standard_formulas() {
        let judged: HashMap<String, f64> = [("a".to_string(), 1.0), ("b".to_string(), 1.0)].into();
        let ranked = vec!["x".to_string(), "a".to_string(), "y".to_string()];
        let (ndcg, recall, rr) = metrics(&ranked, &judged, 10);
        let expected = (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!((ndcg - expected).abs() < 1e-12);
        assert_eq!(recall, 0.5);
        assert_eq!(rr, 0.5);
    }
}
