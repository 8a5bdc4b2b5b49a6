//! Static tables distilled from a model (`midashi_embed::distill`), measured on a BEIR folder:
//! nDCG@10 of the static leg alone and fused with a keyword run, for each kind of row (the
//! pieces' output embeddings, their mean in the corpus's contexts, those means fitted to the
//! documents' vectors), weighting, and whether documents are static too or the encoder's.
//!
//!   cargo run -p midashi-embed --example static_run -- <model dir> <BEIR dir> <keyword run> \
//!       [--dims 256,128] [--pca 384,128,64] [--epochs 60] [--rate 1.0] \
//!       [--cache <file>] [--context-cache <file>] [--train <BEIR dir> --train-cache <file>]
//!
//! `--train`: a general table, as a build with no model would use (#69 item 4): rows from
//! another corpus's contexts (pieces it never uses keep their output embedding), fitted to
//! its documents, projected on its principal components; this set's queries and documents
//! both embedded by look-up (no encoder), fused with the keyword run.
//!
//! <keyword run>: `build-index eval <BEIR dir> --mode keyword --run <file>` (TREC, 100 deep).
//! The fusion is the product's linear blend (each leg's scores min-max normalised over its
//! first 100, the semantic leg at weight 0.25, 0.5 or 1). The pieces' output embeddings take
//! a minute on two cores and the pass over SciFact's documents six; `--cache` and
//! `--context-cache` keep them between runs. Results: bench/results/2026-12-07-static-embeddings.md.

use midashi_core::vectors::rounded;
use midashi_embed::distill::{
    count_weights, fit, output_embeddings, ContextMeans, Projection, StaticModel,
};
use midashi_embed::{normalize, Embedder, Window};
use std::collections::HashMap;
use std::path::PathBuf;

type Run = HashMap<String, Vec<(String, f32)>>;
/// Texts to fit rows to: each one's pieces and its target vector.
type Targets = Vec<(Vec<u32>, Vec<f32>)>;
type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: static_run <model dir> <BEIR dir> <keyword run> [--dims 384,256,128] [--cache <file>] [--context-cache <file>]";
    let [model, beir, keyword_run] = [0, 1, 2].map(|i| args.get(i).cloned());
    let (Some(model), Some(beir), Some(keyword_run)) = (model, beir, keyword_run) else {
        return Err(usage.into());
    };
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let dims: Vec<usize> = flag("--dims")
        .unwrap_or_else(|| "384,256,128".into())
        .split(',')
        .map(|d| d.parse())
        .collect::<Result<_, _>>()?;
    let beir = PathBuf::from(beir);
    let embedder = Embedder::load_dir(std::path::Path::new(&model))?;

    let t = std::time::Instant::now();
    // --no-output: no output embeddings (a 250k-piece vocabulary takes many minutes); pieces
    // the corpus never uses then have zero rows, and the "output" rows are not measured.
    let no_output = args.iter().any(|a| a == "--no-output");
    let raw = match flag("--cache").map(PathBuf::from) {
        _ if no_output => vec![0f32; embedder.vocab_size() * embedder.dims()],
        Some(cache) if cache.is_file() => std::fs::read(&cache)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        cache => {
            let raw = output_embeddings(&embedder)?;
            if let Some(cache) = cache {
                let bytes: Vec<u8> = raw.iter().flat_map(|v| v.to_le_bytes()).collect();
                std::fs::write(cache, bytes)?;
            }
            raw
        }
    };
    eprintln!(
        "{} pieces' output embeddings in {:.1} s",
        embedder.vocab_size(),
        t.elapsed().as_secs_f64()
    );

    let docs = read_jsonl(&beir.join("corpus.jsonl"), &["title", "text"])?;
    let queries = read_jsonl(&beir.join("queries.jsonl"), &["text"])?;
    let qrels = read_qrels(&beir.join("qrels/test.tsv"))?;
    let queries: Vec<(String, String)> = queries
        .into_iter()
        .filter(|(id, _)| qrels.contains_key(id))
        .collect();
    let doc_ids: Vec<Vec<u32>> = docs
        .iter()
        .map(|(_, text)| embedder.piece_ids(text))
        .collect::<Result<_, _>>()?;
    let query_ids: Vec<Vec<u32>> = queries
        .iter()
        .map(|(_, text)| embedder.piece_ids(text))
        .collect::<Result<_, _>>()?;
    let keyword = read_run(std::path::Path::new(&keyword_run))?;
    let ndcg_of = |run: &Run| mean_ndcg(run, &queries, &qrels);
    println!(
        "{} documents, {} judged queries; keyword nDCG@10 {:.4}",
        docs.len(),
        queries.len(),
        ndcg_of(&keyword)
    );

    if let Some(train) = flag("--train") {
        let cache = flag("--train-cache").map(PathBuf::from);
        let held = HeldOut {
            embedder: &embedder,
            raw: &raw,
            keyword: &keyword,
            queries: &queries,
            qrels: &qrels,
            docs: &docs,
            doc_ids: &doc_ids,
            query_ids: &query_ids,
        };
        return held.run(&PathBuf::from(train), cache.as_deref());
    }
    let t = std::time::Instant::now();
    let context_cache = flag("--context-cache").map(PathBuf::from);
    let (means, encoded_docs) = context_pass(&embedder, &docs, context_cache.as_deref())?;
    eprintln!(
        "the corpus's contexts in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let encoded_queries: Vec<Vec<f32>> = queries
        .iter()
        .map(|(_, text)| embedder.embed(text))
        .collect::<Result<_, _>>()?;

    println!("| rows | dims | weighting | documents | alone | hybrid (0.25) | hybrid (0.5) | hybrid (1.0) |");
    println!("|---|---:|---|---|---:|---:|---:|---:|");
    let evaluate = |name: &str, q: &[Vec<f32>], d: &[Vec<f32>]| {
        let run = rank(&queries, &docs, q, d);
        let fused = |w: f32| fuse(&keyword, &run, w);
        println!(
            "| {name} | {:.4} | {:.4} | {:.4} | {:.4} |",
            ndcg_of(&run),
            ndcg_of(&fused(0.25)),
            ndcg_of(&fused(0.5)),
            ndcg_of(&fused(1.0))
        );
    };
    evaluate(
        "transformer | 384 | - | transformer",
        &encoded_queries,
        &encoded_docs,
    );

    let counts = means.counts().to_vec();
    let context_rows = means.rows(&raw, 1);
    let none: Vec<f32> = Vec::new();
    let sif = count_weights(&counts, 1e-3);
    let (scale, texts) = fit_targets(&context_rows, embedder.dims(), &doc_ids, &encoded_docs);
    let pca_dims: Vec<usize> = flag("--pca")
        .unwrap_or_else(|| "384,128,64".into())
        .split(',')
        .map(|d| d.parse())
        .collect::<Result<_, _>>()?;
    let epochs: usize = flag("--epochs").map_or(Ok(20), |e| e.parse())?;
    let rate: f32 = flag("--rate").map_or(Ok(1.0), |e| e.parse())?;
    let t = std::time::Instant::now();
    let fitted = fit(&context_rows, embedder.dims(), &texts, epochs, rate, 0.01);
    eprintln!(
        "fitted in {:.1} s (scale {scale:.3})",
        t.elapsed().as_secs_f64()
    );
    let variants: [(&str, &Vec<f32>, &Vec<f32>); 5] = [
        ("output", &raw, &sif),
        ("context", &context_rows, &none),
        ("context", &context_rows, &sif),
        ("fitted", &fitted, &none),
        ("fitted", &fitted, &sif),
    ];
    // What a site would ship: the fitted rows and the sections' vectors both projected on
    // the sections' principal components (a query's vector is a linear mix of rows, so the
    // projection commutes with it), the sections' rows normalised again.
    let docs_flat: Vec<f32> = encoded_docs.iter().flatten().copied().collect();
    for &k in &pca_dims {
        let basis = Projection::fit(&docs_flat, embedder.dims(), k);
        let projected = basis.project_rows(&fitted);
        let model = StaticModel::from_rows(&projected, basis.dims(), &none);
        let q: Vec<Vec<f32>> = query_ids.iter().map(|ids| model.embed(ids)).collect();
        let d: Vec<Vec<f32>> = encoded_docs
            .iter()
            .map(|v| {
                let mut v = basis.project(v);
                normalize(&mut v);
                v
            })
            .collect();
        evaluate(
            &format!(
                "fitted, sections' PCA | {} | none | transformer, projected",
                basis.dims()
            ),
            &q,
            &d,
        );
        // As shipped: rows of the pieces the site uses only, both sides rounded to 4 bits
        // per value (15 levels of each row's largest value, as vectors/ stores sections).
        let kept: Vec<bool> = counts.iter().map(|&c| c > 0).collect();
        let k = basis.dims();
        let trimmed: Vec<f32> = projected
            .chunks_exact(k)
            .zip(&kept)
            .flat_map(|(row, &keep)| if keep { rounded(row, 4) } else { vec![0.0; k] })
            .collect();
        let model = StaticModel::from_rows(&trimmed, k, &none);
        let q: Vec<Vec<f32>> = query_ids.iter().map(|ids| model.embed(ids)).collect();
        let d4: Vec<Vec<f32>> = d.iter().map(|v| rounded(v, 4)).collect();
        let pieces_kept = kept.iter().filter(|&&k| k).count();
        let piece_text: usize = (0..kept.len() as u32)
            .filter(|&i| kept[i as usize])
            .map(|i| embedder.piece(i).map_or(0, |p| p.len() + 1))
            .sum();
        let row_bytes = k.div_ceil(2) + 2;
        eprintln!(
            "{k} dims, 4 bits: {pieces_kept} pieces × {row_bytes} B + {piece_text} B of piece text = {} KB table; {} sections × {row_bytes} B = {} KB",
            (pieces_kept * row_bytes + piece_text) / 1024,
            d.len(),
            d.len() * row_bytes / 1024
        );
        evaluate(
            &format!("fitted, sections' PCA, site's pieces, 4-bit | {k} | none | transformer, projected, 4-bit"),
            &q,
            &d4,
        );
    }
    for (rows_name, rows, weights) in variants {
        if no_output && rows_name == "output" {
            continue;
        }
        let w_name = if weights.is_empty() {
            "none"
        } else {
            "corpus counts, a=1e-3"
        };
        let model = StaticModel::from_rows(rows, embedder.dims(), weights);
        let q: Vec<Vec<f32>> = query_ids.iter().map(|ids| model.embed(ids)).collect();
        evaluate(
            &format!("{rows_name} | {} | {w_name} | transformer", model.dims()),
            &q,
            &encoded_docs,
        );
        for &d in &dims {
            let model = StaticModel::distil(rows, embedder.dims(), d, weights);
            let q: Vec<Vec<f32>> = query_ids.iter().map(|ids| model.embed(ids)).collect();
            let dv: Vec<Vec<f32>> = doc_ids.iter().map(|ids| model.embed(ids)).collect();
            evaluate(
                &format!("{rows_name} | {} | {w_name} | static", model.dims()),
                &q,
                &dv,
            );
        }
    }
    Ok(())
}

/// The fit's targets: each document's pieces and its vector scaled to the rows' means (the
/// vectors are normalised; the rows' means are not), and that scale.
fn fit_targets(
    rows: &[f32],
    dims: usize,
    ids: &[Vec<u32>],
    vectors: &[Vec<f32>],
) -> (f32, Targets) {
    let model = StaticModel::from_rows(rows, dims, &[]);
    let norms: Vec<f32> = ids.iter().take(500).map(|i| model.mean_norm(i)).collect();
    let scale = norms.iter().sum::<f32>() / norms.len().max(1) as f32;
    let texts = ids
        .iter()
        .zip(vectors)
        .map(|(i, v)| (i.clone(), v.iter().map(|x| x * scale).collect()))
        .collect();
    (scale, texts)
}

/// One pass of the encoder over the corpus: each piece's contexts and each document's vector
/// (the mean of its windows' vectors), kept in `cache` between runs.
fn context_pass(
    embedder: &Embedder,
    docs: &[(String, String)],
    cache: Option<&std::path::Path>,
) -> Result<(ContextMeans, Vec<Vec<f32>>), Error> {
    use rayon::prelude::*;
    let (pieces, dims) = (embedder.vocab_size(), embedder.dims());
    if let Some(bytes) = cache
        .filter(|c| c.is_file())
        .map(std::fs::read)
        .transpose()?
    {
        let cut = pieces * 8 + pieces * dims * 8;
        let counts: Vec<u64> = bytes[..pieces * 8]
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let sums: Vec<f64> = bytes[pieces * 8..cut]
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let vectors: Vec<f32> = bytes[cut..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let docs = vectors.chunks_exact(dims).map(<[f32]>::to_vec).collect();
        return Ok((ContextMeans::from_parts(dims, sums, counts), docs));
    }
    let per_doc: Vec<Result<Vec<Window>, String>> = docs
        .par_iter()
        .map(|(_, text)| embedder.window_states(text).map_err(|e| e.to_string()))
        .collect();
    let mut means = ContextMeans::new(pieces, dims);
    let mut vectors = Vec::with_capacity(docs.len());
    for windows in per_doc {
        // A document's vector: its windows' mean.
        let mut vector = vec![0f32; dims];
        for w in &windows? {
            means.add(&w.ids, &w.states);
            vector.iter_mut().zip(&w.vector).for_each(|(v, &x)| *v += x);
        }
        normalize(&mut vector);
        vectors.push(vector);
    }
    if let Some(cache) = cache {
        let (sums, counts) = means.parts();
        let mut bytes: Vec<u8> = counts.iter().flat_map(|c| c.to_le_bytes()).collect();
        bytes.extend(sums.iter().flat_map(|s| s.to_le_bytes()));
        bytes.extend(vectors.iter().flatten().flat_map(|v| v.to_le_bytes()));
        std::fs::write(cache, bytes)?;
    }
    Ok((means, vectors))
}

/// Each query's 100 nearest documents by dot product.
fn rank(
    queries: &[(String, String)],
    docs: &[(String, String)],
    q: &[Vec<f32>],
    d: &[Vec<f32>],
) -> Run {
    let mut run = Run::new();
    for ((qid, _), q) in queries.iter().zip(q) {
        let mut scored: Vec<(String, f32)> = docs
            .iter()
            .zip(d)
            .map(|((id, _), v)| (id.clone(), dot(q, v)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(100);
        run.insert(qid.clone(), scored);
    }
    run
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Each leg's scores min-max normalised over its list, the semantic leg weighed `w`.
fn fuse(keyword: &Run, semantic: &Run, w: f32) -> Run {
    let normalised = |list: &[(String, f32)]| -> HashMap<String, f32> {
        let (lo, hi) = list.iter().fold((f32::MAX, f32::MIN), |(lo, hi), (_, s)| {
            (lo.min(*s), hi.max(*s))
        });
        let span = (hi - lo).max(1e-9);
        list.iter()
            .map(|(id, s)| (id.clone(), (s - lo) / span))
            .collect()
    };
    let mut out = Run::new();
    for (qid, list) in semantic {
        let mut total: HashMap<String, f32> = HashMap::new();
        if let Some(k) = keyword.get(qid) {
            for (id, s) in normalised(k) {
                *total.entry(id).or_default() += s;
            }
        }
        for (id, s) in normalised(list) {
            *total.entry(id).or_default() += w * s;
        }
        let mut ranked: Vec<(String, f32)> = total.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out.insert(qid.clone(), ranked);
    }
    out
}

fn mean_ndcg(
    run: &Run,
    queries: &[(String, String)],
    qrels: &HashMap<String, HashMap<String, f64>>,
) -> f64 {
    let mut sum = 0.0;
    for (qid, _) in queries {
        let judged = &qrels[qid];
        let ranked = run.get(qid).map(Vec::as_slice).unwrap_or_default();
        let dcg: f64 = ranked
            .iter()
            .take(10)
            .enumerate()
            .map(|(i, (id, _))| judged.get(id).copied().unwrap_or(0.0) / (i as f64 + 2.0).log2())
            .sum();
        let mut ideal: Vec<f64> = judged.values().copied().collect();
        ideal.sort_by(|a, b| b.total_cmp(a));
        let idcg: f64 = ideal
            .iter()
            .take(10)
            .enumerate()
            .map(|(i, g)| g / (i as f64 + 2.0).log2())
            .sum();
        if idcg > 0.0 {
            sum += dcg / idcg;
        }
    }
    sum / queries.len().max(1) as f64
}

/// `(_id, the named fields joined by a space)` of each line.
fn read_jsonl(
    path: &std::path::Path,
    fields: &[&str],
) -> Result<Vec<(String, String)>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path)?
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let id = match &v["_id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let text: Vec<&str> = fields.iter().filter_map(|f| v[*f].as_str()).collect();
        out.push((id, text.join(" ")));
    }
    Ok(out)
}

fn read_qrels(
    path: &std::path::Path,
) -> Result<HashMap<String, HashMap<String, f64>>, Box<dyn std::error::Error>> {
    let mut out: HashMap<String, HashMap<String, f64>> = HashMap::new();
    for line in std::fs::read_to_string(path)?.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if let [q, d, g] = cols[..] {
            let g: f64 = g.trim().parse()?;
            if g > 0.0 {
                out.entry(q.into()).or_default().insert(d.into(), g);
            }
        }
    }
    Ok(out)
}

/// A TREC run (`qid Q0 doc rank score …`), each query's list in rank order.
fn read_run(path: &std::path::Path) -> Result<Run, Box<dyn std::error::Error>> {
    let mut out = Run::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() >= 5 {
            out.entry(cols[0].into())
                .or_default()
                .push((cols[2].into(), cols[4].parse()?));
        }
    }
    Ok(out)
}

/// The held-out measurement of `--train`: everything the evaluated set needs.
struct HeldOut<'a> {
    embedder: &'a Embedder,
    raw: &'a [f32],
    keyword: &'a Run,
    queries: &'a [(String, String)],
    qrels: &'a HashMap<String, HashMap<String, f64>>,
    docs: &'a [(String, String)],
    doc_ids: &'a [Vec<u32>],
    query_ids: &'a [Vec<u32>],
}

impl HeldOut<'_> {
    /// Rows from `train`'s contexts, fitted there; this set embedded by look-up with them.
    fn run(&self, train: &std::path::Path, cache: Option<&std::path::Path>) -> Result<(), Error> {
        let dims = self.embedder.dims();
        let train_docs = read_jsonl(&train.join("corpus.jsonl"), &["title", "text"])?;
        let (means, train_vectors) = context_pass(self.embedder, &train_docs, cache)?;
        let train_ids: Vec<Vec<u32>> = train_docs
            .iter()
            .map(|(_, text)| self.embedder.piece_ids(text))
            .collect::<Result<_, _>>()?;
        let context = means.rows(self.raw, 1);
        let none: Vec<f32> = Vec::new();
        let (_, texts) = fit_targets(&context, dims, &train_ids, &train_vectors);
        let fitted = fit(&context, dims, &texts, 60, 1.0, 0.01);
        let sif = count_weights(means.counts(), 1e-3);
        let flat: Vec<f32> = train_vectors.iter().flatten().copied().collect();
        let ndcg_of = |run: &Run| mean_ndcg(run, self.queries, self.qrels);
        println!(
            "held out: trained on {} ({} documents); keyword nDCG@10 here {:.4}",
            train.display(),
            train_docs.len(),
            ndcg_of(self.keyword)
        );
        println!(
            "| rows | dims | weighting | alone | hybrid (0.25) | hybrid (0.5) | hybrid (1.0) |"
        );
        println!("|---|---:|---|---:|---:|---:|---:|");
        for (name, rows) in [
            ("output", self.raw),
            ("context", &context[..]),
            ("fitted", &fitted[..]),
        ] {
            for (w_name, weights) in [("none", &none), ("train counts, a=1e-3", &sif)] {
                for k in [64, 128] {
                    let basis = Projection::fit(&flat, dims, k);
                    let model =
                        StaticModel::from_rows(&basis.project_rows(rows), basis.dims(), weights);
                    let q: Vec<Vec<f32>> =
                        self.query_ids.iter().map(|ids| model.embed(ids)).collect();
                    let d: Vec<Vec<f32>> =
                        self.doc_ids.iter().map(|ids| model.embed(ids)).collect();
                    let run = rank(self.queries, self.docs, &q, &d);
                    println!(
                        "| {name} | {k} | {w_name} | {:.4} | {:.4} | {:.4} | {:.4} |",
                        ndcg_of(&run),
                        ndcg_of(&fuse(self.keyword, &run, 0.25)),
                        ndcg_of(&fuse(self.keyword, &run, 0.5)),
                        ndcg_of(&fuse(self.keyword, &run, 1.0))
                    );
                }
            }
        }
        Ok(())
    }
}
