//! A static embedding table distilled from a sentence encoder, Model2Vec's recipe written
//! here: each vocabulary piece's output embedding (the piece alone between the special
//! tokens, [`Embedder::embed_piece`]), its principal components, and weights that play down
//! frequent pieces (SIF, `a / (a + p)`). A text's vector is then the mean of its pieces' rows:
//! a table look-up at query time, no encoder.
//!
//! Measured against the encoder it comes from by `examples/static_run.rs`
//! (bench/results/2026-12-07-static-embeddings.md).

use crate::{normalize, EmbedError, Embedder};
use rayon::prelude::*;

/// Every piece's output embedding, `vocab × dims` row-major (rows of pieces the encoder
/// cannot take alone stay zero). Pieces are encoded on every core.
pub fn output_embeddings(embedder: &Embedder) -> Result<Vec<f32>, EmbedError> {
    let dims = embedder.dims();
    let rows: Vec<Vec<f32>> = (0..embedder.vocab_size() as u32)
        .into_par_iter()
        .map(|id| {
            embedder
                .embed_piece(id)
                .or_else(|_| Ok::<_, EmbedError>(vec![0.0; dims]))
        })
        .collect::<Result<_, _>>()?;
    Ok(rows.concat())
}

/// Principal components of a set of vectors: their mean and the directions of most
/// variance, onto which a vector of the same space is centred and projected.
#[derive(Debug, Clone)]
pub struct Projection {
    raw_dims: usize,
    mean: Vec<f64>,
    /// `dims × raw_dims`, by decreasing variance.
    components: Vec<f64>,
}

impl Projection {
    /// The first `dims` principal components of `rows` (`n × raw_dims`); all of them (a
    /// rotation) when `dims` is 0 or not below `raw_dims`.
    pub fn fit(rows: &[f32], raw_dims: usize, dims: usize) -> Projection {
        let keep = if dims == 0 || dims >= raw_dims {
            raw_dims
        } else {
            dims
        };
        let (mean, components) = principal_components(rows, raw_dims, keep);
        Projection {
            raw_dims,
            mean,
            components,
        }
    }

    /// Length of the projected vectors.
    pub fn dims(&self) -> usize {
        self.components.len() / self.raw_dims.max(1)
    }

    /// `vector` centred on the mean and projected on the components (not normalised).
    pub fn project(&self, vector: &[f32]) -> Vec<f32> {
        self.components
            .chunks_exact(self.raw_dims)
            .map(|c| {
                vector
                    .iter()
                    .zip(&self.mean)
                    .zip(c)
                    .map(|((&x, &m), &c)| (f64::from(x) - m) * c)
                    .sum::<f64>() as f32
            })
            .collect()
    }

    /// Each `raw_dims` row of `rows` projected, concatenated.
    pub fn project_rows(&self, rows: &[f32]) -> Vec<f32> {
        rows.par_chunks(self.raw_dims)
            .flat_map_iter(|row| self.project(row))
            .collect()
    }
}

/// A static table: one row per vocabulary piece.
#[derive(Debug, Clone)]
pub struct StaticModel {
    dims: usize,
    rows: Vec<f32>,
}

impl StaticModel {
    /// Distils `raw` (`pieces × raw_dims`, from [`output_embeddings`]) to its first `dims`
    /// principal components (no reduction when `dims` is 0 or not below `raw_dims`), each
    /// row scaled by `weights[piece]` (1 past the slice's end).
    pub fn distil(raw: &[f32], raw_dims: usize, dims: usize, weights: &[f32]) -> StaticModel {
        let projection = Projection::fit(raw, raw_dims, dims);
        StaticModel::from_rows(&projection.project_rows(raw), projection.dims(), weights)
    }

    /// A table of `rows` as they are, each scaled by `weights[piece]` (1 past the slice's
    /// end).
    pub fn from_rows(rows: &[f32], dims: usize, weights: &[f32]) -> StaticModel {
        let mut rows = rows.to_vec();
        for (i, row) in rows.chunks_exact_mut(dims).enumerate() {
            let w = weights.get(i).copied().unwrap_or(1.0);
            row.iter_mut().for_each(|v| *v *= w);
        }
        StaticModel { dims, rows }
    }

    /// The length of the plain (unweighted, unnormalised) mean of the rows of `ids`.
    pub fn mean_norm(&self, ids: &[u32]) -> f32 {
        let mut sum = vec![0f32; self.dims];
        let mut n = 0usize;
        for &id in ids {
            let start = id as usize * self.dims;
            if let Some(row) = self.rows.get(start..start + self.dims) {
                sum.iter_mut().zip(row).for_each(|(s, &v)| *s += v);
                n += 1;
            }
        }
        sum.iter().map(|v| v * v).sum::<f32>().sqrt() / n.max(1) as f32
    }

    /// Length of the vectors [`StaticModel::embed`] returns.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Number of rows.
    pub fn pieces(&self) -> usize {
        self.rows.len() / self.dims.max(1)
    }

    /// The normalised mean of the rows of `ids` (ids past the table are left out); zeros
    /// when none is in it.
    pub fn embed(&self, ids: &[u32]) -> Vec<f32> {
        let mut sum = vec![0f32; self.dims];
        for &id in ids {
            let start = id as usize * self.dims;
            if let Some(row) = self.rows.get(start..start + self.dims) {
                sum.iter_mut().zip(row).for_each(|(s, &v)| *s += v);
            }
        }
        normalize(&mut sum);
        sum
    }
}

/// Each piece's mean contextual embedding over a site's text: the encoder's output at every
/// occurrence of the piece, averaged. A piece then stands for what it means *on this site*
/// ("trait" in the Rust book), which no general table can know; the mean of a section's
/// pieces' rows approaches the encoder's own mean-pooled vector of the section.
#[derive(Debug, Clone)]
pub struct ContextMeans {
    dims: usize,
    sums: Vec<f64>,
    counts: Vec<u64>,
}

impl ContextMeans {
    /// Empty sums for `pieces` pieces of `dims` values.
    pub fn new(pieces: usize, dims: usize) -> ContextMeans {
        ContextMeans {
            dims,
            sums: vec![0.0; pieces * dims],
            counts: vec![0; pieces],
        }
    }

    /// Adds one window's tokens (`ids`) and the encoder's states for them (`ids.len() ×
    /// dims`); ids past the vocabulary are left out.
    pub fn add(&mut self, ids: &[u32], states: &[f32]) {
        for (&id, state) in ids.iter().zip(states.chunks_exact(self.dims)) {
            let i = id as usize;
            let Some(count) = self.counts.get_mut(i) else {
                continue;
            };
            *count += 1;
            let row = &mut self.sums[i * self.dims..(i + 1) * self.dims];
            row.iter_mut()
                .zip(state)
                .for_each(|(s, &x)| *s += f64::from(x));
        }
    }

    /// Both sums together (the same vocabulary and dims).
    pub fn merge(mut self, other: &ContextMeans) -> ContextMeans {
        self.sums
            .iter_mut()
            .zip(&other.sums)
            .for_each(|(a, b)| *a += b);
        self.counts
            .iter_mut()
            .zip(&other.counts)
            .for_each(|(a, b)| *a += b);
        self
    }

    /// The sums and counts, to keep them ([`ContextMeans::from_parts`]).
    pub fn parts(&self) -> (&[f64], &[u64]) {
        (&self.sums, &self.counts)
    }

    /// Sums and counts kept from [`ContextMeans::parts`].
    pub fn from_parts(dims: usize, sums: Vec<f64>, counts: Vec<u64>) -> ContextMeans {
        ContextMeans { dims, sums, counts }
    }

    /// How often each piece occurred.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// One row per piece: its mean contextual embedding where the text used it at least
    /// `min_count` times, else its row of `fallback` (`pieces × dims`, from
    /// [`output_embeddings`]).
    pub fn rows(&self, fallback: &[f32], min_count: u64) -> Vec<f32> {
        let d = self.dims;
        let mut out = fallback.to_vec();
        for (i, &c) in self.counts.iter().enumerate() {
            if c >= min_count.max(1) {
                let (sums, row) = (&self.sums[i * d..(i + 1) * d], &mut out[i * d..(i + 1) * d]);
                row.iter_mut()
                    .zip(sums)
                    .for_each(|(r, &s)| *r = (s / c as f64) as f32);
            }
        }
        out
    }
}

/// Fits `rows` (`pieces × dims`) so that the mean of a text's rows comes close to the
/// encoder's vector of that text, for each `(piece ids, target)` of a site's sections:
/// `epochs` passes of gradient descent on the squared error (each text's error shared among
/// its pieces), started from `rows`, which the fit keeps near with an L2 pull of `pull`.
/// Model2Vec's "tokenlearn" idea, with the site's own sections as the texts.
pub fn fit(
    rows: &[f32],
    dims: usize,
    texts: &[(Vec<u32>, Vec<f32>)],
    epochs: usize,
    rate: f32,
    pull: f32,
) -> Vec<f32> {
    let mut out = rows.to_vec();
    let pieces = rows.len() / dims.max(1);
    // Each row's share of all texts (Σ count / length): its gradient is divided by it, so a
    // piece in every text moves no faster than a rare one (a Jacobi-preconditioned descent;
    // plain steps either diverge on frequent pieces or leave rare ones where they were).
    let mut share = vec![0f32; pieces];
    for (ids, _) in texts {
        for &i in ids.iter().filter(|&&i| (i as usize) < pieces) {
            share[i as usize] += 1.0 / ids.len() as f32;
        }
    }
    for _ in 0..epochs {
        let mut grad = vec![0f32; out.len()];
        for (ids, target) in texts {
            let ids: Vec<usize> = ids
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| i < pieces)
                .collect();
            if ids.is_empty() {
                continue;
            }
            let n = ids.len() as f32;
            let mut error: Vec<f32> = target.iter().map(|t| -t).collect();
            for &i in &ids {
                let row = &out[i * dims..(i + 1) * dims];
                error.iter_mut().zip(row).for_each(|(e, &r)| *e += r / n);
            }
            for &i in &ids {
                let g = &mut grad[i * dims..(i + 1) * dims];
                g.iter_mut().zip(&error).for_each(|(g, &e)| *g += e / n);
            }
        }
        for (i, ((o, g), r0)) in out
            .chunks_exact_mut(dims)
            .zip(grad.chunks_exact(dims))
            .zip(rows.chunks_exact(dims))
            .enumerate()
        {
            let s = share[i] + pull;
            for ((o, &g), &r0) in o.iter_mut().zip(g).zip(r0) {
                *o -= rate * (g + pull * (*o - r0)) / s;
            }
        }
    }
    out
}

/// SIF weights `a / (a + p)` with each piece's probability `p` from Zipf's law over the
/// vocabulary's order (piece `i` as rank `i + 2`): Model2Vec's default, `a` = 1e-4.
pub fn zipf_weights(pieces: usize, a: f64) -> Vec<f32> {
    let total: f64 = (0..pieces).map(|i| 1.0 / (i as f64 + 2.0)).sum();
    (0..pieces)
        .map(|i| {
            let p = 1.0 / (i as f64 + 2.0) / total;
            (a / (a + p)) as f32
        })
        .collect()
}

/// SIF weights `a / (a + p)` with `p` each piece's share of `counts` (its occurrences in a
/// site's or corpus's text): pieces the text never uses weigh 1.
pub fn count_weights(counts: &[u64], a: f64) -> Vec<f32> {
    let total = counts.iter().sum::<u64>().max(1) as f64;
    counts
        .iter()
        .map(|&c| {
            let p = c as f64 / total;
            (a / (a + p)) as f32
        })
        .collect()
}

/// The mean of `rows` (`n × dims`) and its first `keep` principal components, each a unit
/// vector of `dims` values, by decreasing variance (the covariance's eigenvectors by Jacobi
/// rotations: `dims` is a few hundred, and no linear-algebra crate is worth its build for one
/// symmetric eigenproblem).
fn principal_components(rows: &[f32], dims: usize, keep: usize) -> (Vec<f64>, Vec<f64>) {
    let n = (rows.len() / dims.max(1)).max(1);
    let mut mean = vec![0f64; dims];
    for row in rows.chunks_exact(dims) {
        mean.iter_mut()
            .zip(row)
            .for_each(|(m, &x)| *m += f64::from(x));
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let cov = rows
        .par_chunks(dims * 256)
        .map(|block| {
            let mut c = vec![0f64; dims * dims];
            for row in block.chunks_exact(dims) {
                let centred: Vec<f64> = row
                    .iter()
                    .zip(&mean)
                    .map(|(&x, &m)| f64::from(x) - m)
                    .collect();
                for i in 0..dims {
                    let ci = centred[i];
                    let out = &mut c[i * dims..(i + 1) * dims];
                    for (o, &cj) in out[i..].iter_mut().zip(&centred[i..]) {
                        *o += ci * cj;
                    }
                }
            }
            c
        })
        .reduce(
            || vec![0f64; dims * dims],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let mut a = cov;
    for i in 0..dims {
        for j in 0..i {
            a[i * dims + j] = a[j * dims + i];
        }
    }
    let (values, vectors) = jacobi_eigen(a, dims);
    let mut order: Vec<usize> = (0..dims).collect();
    order.sort_by(|&x, &y| values[y].total_cmp(&values[x]));
    let mut components = Vec::with_capacity(keep * dims);
    for &k in order.iter().take(keep) {
        // Column k of the eigenvector matrix.
        components.extend((0..dims).map(|r| vectors[r * dims + k]));
    }
    (mean, components)
}

/// Eigenvalues and eigenvectors (as the columns of a row-major matrix) of the symmetric
/// matrix `a` (`n × n`, row-major), by cyclic Jacobi rotations until the off-diagonal mass is
/// negligible.
fn jacobi_eigen(mut a: Vec<f64>, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0f64; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let scale: f64 = a.iter().map(|x| x * x).sum::<f64>().max(f64::MIN_POSITIVE);
    for _sweep in 0..50 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j] * a[i * n + j])
            .sum();
        if off <= scale * 1e-22 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let (app, aqq) = (a[p * n + p], a[q * n + q]);
                let theta = (aqq - app) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..n).map(|i| a[i * n + i]).collect(), v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_finds_the_eigenvectors_of_a_symmetric_matrix() {
        // [[2, 1], [1, 2]]: eigenvalues 3 (along (1, 1)) and 1 (along (1, -1)).
        let (values, vectors) = jacobi_eigen(vec![2.0, 1.0, 1.0, 2.0], 2);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        assert!((sorted[0] - 1.0).abs() < 1e-9 && (sorted[1] - 3.0).abs() < 1e-9);
        let big = if values[0] > values[1] { 0 } else { 1 };
        let (x, y) = (vectors[big], vectors[2 + big]);
        assert!((x.abs() - y.abs()).abs() < 1e-9 && x * y > 0.0);
    }

    #[test]
    fn the_first_component_follows_the_spread() {
        // Points along (1, 2) with a little noise across it.
        let mut rows = Vec::new();
        for i in 0..100 {
            let t = i as f32 - 50.0;
            let e = if i % 2 == 0 { 0.1 } else { -0.1 };
            rows.extend([t + 2.0 * e, 2.0 * t - e]);
        }
        let (_, c) = principal_components(&rows, 2, 1);
        let norm = (1.0f64 + 4.0).sqrt();
        let cos = (c[0] + 2.0 * c[1]).abs() / norm;
        assert!(cos > 0.999, "{c:?}");
    }

    #[test]
    fn a_text_is_the_normalised_mean_of_its_rows() {
        let m = StaticModel::distil(&[1.0, 0.0, 0.0, 1.0, -1.0, 0.0], 2, 0, &[]);
        assert_eq!(m.pieces(), 3);
        let v = m.embed(&[0, 1, 99]);
        let norm: f32 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-5);
        assert_eq!(m.embed(&[99]), vec![0.0, 0.0]);
    }

    #[test]
    fn a_piece_seen_in_context_takes_its_mean_there() {
        let mut means = ContextMeans::new(3, 2);
        means.add(&[0, 1, 9], &[1.0, 1.0, 2.0, 0.0, 5.0, 5.0]);
        let other = {
            let mut m = ContextMeans::new(3, 2);
            m.add(&[1], &[4.0, 2.0]);
            m
        };
        let means = means.merge(&other);
        assert_eq!(means.counts(), &[1, 2, 0]);
        let fallback = [0.0, 0.0, 0.0, 0.0, 7.0, 7.0];
        assert_eq!(means.rows(&fallback, 1), vec![1.0, 1.0, 3.0, 1.0, 7.0, 7.0]);
        assert_eq!(means.rows(&fallback, 2)[..2], [0.0, 0.0]);
    }

    #[test]
    fn frequent_pieces_weigh_less() {
        let w = zipf_weights(1000, 1e-4);
        assert!(w[0] < w[10] && w[10] < w[999] && w[999] <= 1.0);
        let c = count_weights(&[1000, 10, 0], 1e-3);
        assert!(c[0] < c[1] && c[2] == 1.0);
    }
}
