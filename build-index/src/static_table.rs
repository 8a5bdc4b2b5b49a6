//! The semantic leg as a static table distilled from the site (issue #69, `build --semantic
//! static`): queries get their vectors by a look-up of their word pieces' rows
//! (`midashi_core::vectors::table`) instead of the encoder, against the sections' vectors
//! projected to the table's dimensions.
//!
//! What is distilled, from one pass of the encoder over the passages a build embeds: each
//! piece's mean output in the site's contexts, fitted so that the mean of a passage's rows
//! approaches the encoder's vector of that passage, and the mean of a heading's rows the
//! encoder's vector of that heading asked as a query (`midashi_embed::distill`); then both
//! the rows and the passages' vectors projected on the passages' principal components and
//! rounded to 4 bits. Pieces the site never uses get no row. The headings' targets were
//! worth +0.007 (Rust book) and +0.021 (Vue ja) nDCG@10 in hybrid: queries are short, and
//! a passage's mean alone teaches nothing about a few words on their own. Measured variants:
//! bench/results/2026-12-07-static-embeddings.md.
//!
//! The pass needs every passage's token states, which the embedding cache does not keep, so
//! it runs whole when any text changed (the Rust book: ~70 s on 2 cores); a rebuild of the
//! same text takes the table from the cache.

use crate::embedding::{model_info, model_key, remember_windows, site_key, EmbedReport};
use crate::error::{CliError, Result};
use midashi_core::build::IndexBuilder;
use midashi_core::format::entry::ModelInfo;
use midashi_core::section::Document;
use midashi_core::vectors::table::{Cutter, StaticTable, TableData};
use midashi_core::vectors::VectorsData;
use midashi_embed::distill::{fit, ContextMeans, Projection, StaticModel};
use midashi_embed::{normalize, Embedder, Window};
use rayon::prelude::*;
use std::path::Path;

/// Dimensions of the table and of the vectors it is searched against: what a question
/// downloads is both, about 36 bytes a row at 64. Rust book hybrid nDCG@10 (grouped, as
/// built): 0.8140 at 64, 0.8108 at 128; SciFact offline 0.7172 and 0.7187.
pub const DIMS: usize = 64;

/// Passes of the fit: measured on SciFact, 20 → 60 moved hybrid 0.7202 → 0.7227; more gave
/// nothing worth the seconds.
const EPOCHS: usize = 60;

/// Passages encoded together: their states are folded into the pieces' sums a batch at a
/// time, so memory holds one batch's states, not the site's (SciFact's: ~3.4 GB).
const BATCH: usize = 256;

/// A site's distilled leg: the table file's payload and the section vectors to search.
pub struct Distilled {
    /// The pieces and their rows.
    pub table: TableData,
    /// One row per passage, projected to the table's dimensions, 4 bits.
    pub vectors: VectorsData,
    /// Each section's window vectors at the model's dimensions, as the encoder leg embeds
    /// them: kept in the embedding cache, so that a `--semantic deep` build of the same text
    /// makes no second pass.
    pub windows: Vec<Vec<Vec<f32>>>,
}

/// `--semantic`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SemanticArg {
    /// `Static` for a model whose pieces a static table can be keyed by (both default
    /// models), built locally and shipped; else `Deep`.
    Auto,
    /// The model's encoder, shipped for queries.
    Deep,
    /// A static table distilled from the site (this module).
    Static,
}

impl SemanticArg {
    /// Whether a build whose model's tokenizer is cut as `cutter` ships a table
    /// ([`cutter_of`]). `Auto` does for any model whose pieces the core can cut
    /// queries into (WordPiece: all-MiniLM-L6-v2; SentencePiece Unigram: multilingual-e5-small)
    /// when the build has the model's token states at hand: not with a server encoding the
    /// sections (`endpoint`), nor when asked not to ship what queries use. Measured hybrid
    /// nDCG@10, table against encoder against keyword: Rust book 0.817 / 0.816 / 0.793,
    /// SciFact 0.735 / 0.740 / 0.699, Vue ja 0.656 / 0.662 / 0.614, JSQuAD 0.950 / 0.960 /
    /// 0.940 — a question's bytes 285 KB against 7.8 MB, 309 KB against 20 MB.
    pub fn ships_table(self, cutter: Option<&Cutter>, endpoint: bool, no_ship: bool) -> bool {
        match self {
            SemanticArg::Auto => cutter.is_some() && !endpoint && !no_ship,
            leg => leg == SemanticArg::Static,
        }
    }
}

/// Distils the table of `docs` (sorted as the index numbers its sections) whose sections
/// were cut into `passages` ([`crate::embedding::site_passages`]), with `embedder`;
/// `progress` is told how many passages were encoded.
pub fn distil(
    (embedder, cutter): (&Embedder, &Cutter),
    docs: &[Document],
    passages: &[Vec<String>],
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Distilled> {
    let model_err = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
    let raw_dims = embedder.dims();
    let flat: Vec<(u32, &String)> = passages
        .iter()
        .enumerate()
        .flat_map(|(ord, ps)| ps.iter().map(move |p| (ord as u32, p)))
        .collect();
    // Each passage: its pieces and its vector (its windows' mean, as the encoder leg's).
    let mut means = ContextMeans::new(embedder.vocab_size(), raw_dims);
    let mut encoded: Vec<(Vec<u32>, Vec<f32>)> = Vec::with_capacity(flat.len());
    let mut windows_of: Vec<Vec<Vec<f32>>> = vec![Vec::new(); passages.len()];
    for batch in flat.chunks(BATCH) {
        let done: Vec<(Vec<u32>, Vec<Window>)> = batch
            .par_iter()
            .map(|(_, text)| {
                let windows = embedder.window_states(text).map_err(model_err)?;
                Ok((embedder.piece_ids(text).map_err(model_err)?, windows))
            })
            .collect::<Result<_>>()?;
        for ((ord, _), (ids, windows)) in batch.iter().zip(done) {
            let mut vector = vec![0f32; raw_dims];
            for w in windows {
                means.add(&w.ids, &w.states);
                vector.iter_mut().zip(&w.vector).for_each(|(v, &x)| *v += x);
                windows_of[*ord as usize].push(w.vector);
            }
            normalize(&mut vector);
            encoded.push((ids, vector));
        }
        progress(batch.len());
    }
    let rows = means.rows(&vec![0.0; embedder.vocab_size() * raw_dims], 1);
    // The fit's targets at the scale of the rows' means (the vectors are normalised).
    let plain = StaticModel::from_rows(&rows, raw_dims, &[]);
    let scale = {
        let norms: Vec<f32> = encoded
            .iter()
            .map(|(ids, _)| plain.mean_norm(ids))
            .collect();
        norms.iter().sum::<f32>() / norms.len().max(1) as f32
    };
    let mut texts: Vec<(Vec<u32>, Vec<f32>)> = encoded
        .iter()
        .map(|(ids, v)| (ids.clone(), v.iter().map(|x| x * scale).collect()))
        .collect();
    // Headings as the encoder embeds a query that names them: short texts like a visitor's,
    // so that the table learns what a few words alone mean, not only a passage's mean.
    let headings: Vec<&str> = docs
        .iter()
        .flat_map(|d| &d.sections)
        .map(|s| s.heading.as_str())
        .filter(|h| !h.trim().is_empty())
        .collect();
    let heading_texts: Vec<(Vec<u32>, Vec<f32>)> = headings
        .par_iter()
        .map(|h| {
            let v = embedder.embed(h).map_err(model_err)?;
            let ids = embedder.piece_ids(h).map_err(model_err)?;
            Ok((ids, v.iter().map(|x| x * scale).collect()))
        })
        .collect::<Result<_>>()?;
    texts.extend(heading_texts);
    let fitted = fit(&rows, raw_dims, &texts, EPOCHS, 1.0, 0.01);

    let flat_vectors: Vec<f32> = encoded.iter().flat_map(|(_, v)| v.clone()).collect();
    let projection = Projection::fit(&flat_vectors, raw_dims, DIMS);
    let k = projection.dims();
    // Only the pieces the site's text uses, and never a special token (`[CLS]`, `<s>`),
    // which no query is cut into.
    let (mut pieces, mut kept, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    for (id, (row, &count)) in fitted
        .chunks_exact(raw_dims)
        .zip(means.counts())
        .enumerate()
    {
        let Some(piece) = embedder.piece(id as u32).filter(|_| count > 0) else {
            continue;
        };
        let special = |open, close| piece.starts_with(open) && piece.ends_with(close);
        if piece.len() > 2 && (special('[', ']') || special('<', '>')) {
            continue;
        }
        pieces.push(piece);
        kept.extend(projection.project(row));
        ids.push(id);
    }
    let cutter = match cutter {
        Cutter::WordPiece => Cutter::WordPiece,
        Cutter::Unigram { scores } => Cutter::Unigram {
            scores: ids.iter().map(|&id| scores[id]).collect(),
        },
    };
    let table = TableData::new(pieces, &kept, k, cutter);
    let mut vectors = VectorsData::with_bits(k as u32, 4);
    for ((ord, _), (_, v)) in flat.iter().zip(&encoded) {
        let mut v = projection.project(v);
        normalize(&mut v);
        vectors.push(*ord, &v);
    }
    // The noise floor as queries will meet it: nonsense looked up in the table as stored.
    let looked_up = StaticTable::new(table.clone())
        .ok_or_else(|| CliError::Model("the distilled table is inconsistent".into()))?;
    let nonsense: Vec<Vec<f32>> = midashi_core::vectors::noise::nonsense_queries()
        .iter()
        .filter_map(|q| looked_up.embed(q))
        .collect();
    vectors.noise_floor = midashi_core::vectors::noise::measure(&vectors, &nonsense);
    Ok(Distilled {
        table,
        vectors,
        windows: windows_of,
    })
}

/// Distils the table of `docs` (cut into `passages`) and hands it to `builder` with its
/// vectors, for a build with `--semantic static`: the model's encoder is not shipped. The
/// result is kept in `cache` (the cache folder and the docs folder it is for): a rebuild of
/// unchanged text skips the encoder pass.
pub fn ship(
    builder: &mut IndexBuilder,
    (docs, passages): (&[Document], &[Vec<String>]),
    (embedder, cutter): (Embedder, Option<Cutter>),
    (cache_dir, site): (&Path, &Path),
    progress: bool,
) -> Result<EmbedReport> {
    let cutter = cutter.ok_or_else(|| {
        CliError::Usage(format!(
            "--semantic static needs a model whose tokenizer is WordPiece (all-MiniLM-L6-v2) \
             or SentencePiece Unigram (multilingual-e5-small): queries are cut in the browser \
             by a small tokenizer of either kind; {} has another: build with --semantic deep",
            embedder.config().name
        ))
    })?;
    let mut info = model_info(&embedder);
    let key = cache_key(&info, docs, passages);
    let cache_file = cache_dir.join(format!(
        "static-{}-{:016x}.bin",
        model_key(&info),
        site_key(site)
    ));
    let cached = std::fs::read(&cache_file)
        .ok()
        .and_then(|b| postcard::from_bytes::<(u128, TableData, VectorsData)>(&b).ok())
        .filter(|(k, ..)| *k == key);
    let from_cache = cached.is_some();
    let (table, vectors) = match cached {
        Some((_, table, vectors)) => (table, vectors),
        None => {
            let total = passages.iter().map(Vec::len).sum();
            let bar = crate::progress::bar(
                progress,
                total,
                "{spinner} distilling the static table {bar:30} {pos}/{len} passages ({eta} left)",
            );
            let d = distil((&embedder, &cutter), docs, passages, &|n| bar.inc(n as u64))?;
            bar.finish_and_clear();
            std::fs::create_dir_all(cache_dir).map_err(CliError::io(cache_dir))?;
            let bytes = postcard::to_allocvec(&(key, &d.table, &d.vectors))
                .map_err(|e| CliError::Model(format!("cannot write the table's cache: {e}")))?;
            crate::output::write_atomic(&cache_file, &bytes)?;
            remember_windows(passages, d.windows, &embedder, cache_dir, site)?;
            (d.table, d.vectors)
        }
    };
    info.dims = vectors.dims;
    let report = EmbedReport {
        sections: passages.len(),
        rows: vectors.count(),
        cache_misses: if from_cache { 0 } else { passages.len() },
        cache_hits: if from_cache { passages.len() } else { 0 },
        several: passages.iter().filter(|p| p.len() > 1).count(),
        noise_floor: vectors.noise_floor,
        table: Some((table.pieces.len(), table.dims as usize)),
        ..EmbedReport::default()
    };
    builder.set_vectors(info, vectors);
    builder.set_table(table);
    Ok(report)
}

/// How the core cuts a static table's queries as `embedder`'s tokenizer does
/// (`midashi_core::vectors::{pieces, unigram}`): MiniLM's uncased WordPiece,
/// multilingual-e5-small's Unigram with each piece's log-probability by id. `None` for any
/// other tokenizer.
pub fn cutter_of(embedder: &Embedder) -> Option<Cutter> {
    let tok = embedder.tokenizer_json()?;
    let model = &tok["model"];
    if model["type"] == "WordPiece" {
        let uncased = tok["normalizer"]["lowercase"] != false;
        let continued = model["continuing_subword_prefix"] == "##";
        return (uncased && continued).then_some(Cutter::WordPiece);
    }
    let pre = &tok["pre_tokenizer"];
    let metaspace = pre["type"] == "Metaspace" && pre["replacement"] == "\u{2581}";
    if model["type"] != "Unigram" || !metaspace {
        return None;
    }
    let scores: Vec<f32> = model["vocab"]
        .as_array()?
        .iter()
        .map(|e| e.get(1)?.as_f64().map(|s| s as f32))
        .collect::<Option<_>>()?;
    // A score for every id a row may be keyed by.
    (scores.len() == embedder.vocab_size()).then_some(Cutter::Unigram { scores })
}

/// What a table is made from, hashed: the model, the recipe's constants, every passage and
/// heading in index order. Any change distils it again.
fn cache_key(info: &ModelInfo, docs: &[Document], passages: &[Vec<String>]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let recipe = format!("{}\0{}\0{DIMS}\0{EPOCHS}\0", info.name, info.sha256);
    h.update(recipe.as_bytes());
    for p in passages.iter().flatten() {
        h.update(p.as_bytes());
        h.update(b"\0");
    }
    for s in docs.iter().flat_map(|d| &d.sections) {
        h.update(s.heading.as_bytes());
        h.update(b"\0");
    }
    h.digest128()
}
