//! The semantic leg as a static table distilled from the site (issue #69), measured by
//! `eval --static-leg <dims>` before it ships: queries are encoded by a table look-up instead
//! of the encoder, against the sections' vectors projected to the table's dimensions.
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

use crate::embedding::site_passages;
use crate::error::{CliError, Result};
use midashi_core::section::Document;
use midashi_core::vectors::rounded;
use midashi_core::vectors::VectorsData;
use midashi_embed::distill::{fit, ContextMeans, Projection, StaticModel};
use midashi_embed::{normalize, Embedder, Window};
use rayon::prelude::*;

/// Passes of the fit: measured on SciFact, 20 → 60 moved hybrid 0.7202 → 0.7227; more gave
/// nothing worth the seconds.
const EPOCHS: usize = 60;

/// A site's static table and the embedder whose pieces it is keyed by.
pub struct StaticLeg<'a> {
    embedder: &'a Embedder,
    model: StaticModel,
}

impl StaticLeg<'_> {
    /// A query's vector: the normalised mean of its pieces' rows.
    pub fn embed(&self, query: &str) -> Result<Vec<f32>> {
        let ids = self
            .embedder
            .piece_ids(query)
            .map_err(|e| CliError::Model(e.to_string()))?;
        Ok(self.model.embed(&ids))
    }
}

/// Distils `docs`' table with `embedder` at `dims` dimensions, and the section vectors it is
/// searched against (4 bits, one row per passage as a build stores them).
pub fn distil<'a>(
    embedder: &'a Embedder,
    docs: &[Document],
    dims: usize,
) -> Result<(StaticLeg<'a>, VectorsData)> {
    let model_err = |e: midashi_embed::EmbedError| CliError::Model(e.to_string());
    let raw_dims = embedder.dims();
    // Vectors are numbered by section in index order: documents sorted by path, as the
    // build sorts them.
    let mut sorted: Vec<&Document> = docs.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let sorted: Vec<Document> = sorted.into_iter().cloned().collect();
    let passages = site_passages(&sorted, embedder)?;
    let flat: Vec<(u32, &String)> = passages
        .iter()
        .enumerate()
        .flat_map(|(ord, ps)| ps.iter().map(move |p| (ord as u32, p)))
        .collect();
    // Each passage: its pieces and its vector (its windows' mean); the states go into the
    // pieces' sums a batch at a time, so memory holds one batch's states, not the site's
    // (SciFact's: ~3.4 GB).
    let mut means = ContextMeans::new(embedder.vocab_size(), raw_dims);
    let mut encoded: Vec<(Vec<u32>, Vec<f32>)> = Vec::with_capacity(flat.len());
    for batch in flat.chunks(256) {
        let done: Vec<(Vec<u32>, Vec<Window>)> = batch
            .par_iter()
            .map(|(_, text)| {
                let windows = embedder.window_states(text).map_err(model_err)?;
                Ok((embedder.piece_ids(text).map_err(model_err)?, windows))
            })
            .collect::<Result<_>>()?;
        for (ids, windows) in done {
            let mut vector = vec![0f32; raw_dims];
            for w in &windows {
                means.add(&w.ids, &w.states);
                vector.iter_mut().zip(&w.vector).for_each(|(v, &x)| *v += x);
            }
            normalize(&mut vector);
            encoded.push((ids, vector));
        }
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
    let headings: Vec<&str> = sorted
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
    let projection = Projection::fit(&flat_vectors, raw_dims, dims);
    let k = projection.dims();
    let projected: Vec<f32> = fitted
        .chunks_exact(raw_dims)
        .zip(means.counts())
        .flat_map(|(row, &count)| {
            if count > 0 {
                rounded(&projection.project(row), 4)
            } else {
                vec![0.0; k]
            }
        })
        .collect();
    let mut data = VectorsData::with_bits(k as u32, 4);
    for ((ord, _), (_, v)) in flat.iter().zip(&encoded) {
        let mut v = projection.project(v);
        normalize(&mut v);
        data.push(*ord, &v);
    }
    let leg = StaticLeg {
        embedder,
        model: StaticModel::from_rows(&projected, k, &[]),
    };
    let nonsense: Vec<Vec<f32>> = midashi_core::vectors::noise::nonsense_queries()
        .iter()
        .map(|q| leg.embed(q))
        .collect::<Result<_>>()?;
    data.noise_floor = midashi_core::vectors::noise::measure(&data, &nonsense);
    Ok((leg, data))
}
