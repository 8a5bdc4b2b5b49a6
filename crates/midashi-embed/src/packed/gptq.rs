//! Rounding a weight to 4 or 6 bits with its inputs in view (GPTQ, Frantar et al. 2022):
//! input rows are rounded one at a time, and each row's rounding error is spread over the
//! rows not yet rounded in proportion to how the layer's inputs move together (the inverse
//! of `H = XᵀX`, X the layer's inputs on calibration text), so the layer's *outputs* on
//! such inputs change least — where rounding each value to its nearest level only makes each
//! weight nearest its own. The levels and scales it picks are stored in the same `q4`/`q6`
//! entries; a reader cannot tell, and needs nothing new.
//!
//! Why: MiniLM's down-projections (1536 → 384) lost SciFact semantic nDCG@10 0.6895 →
//! 0.682 rounded to nearest in 4 bits, so they shipped in 6; with their inputs in view
//! 4 bits hold them (`bert::prepare` measures and decides).

use super::Grid;
use half::f16;

/// The inputs a layer saw on calibration text, summed as `H = XᵀX` (`inputs × inputs`,
/// f64 for the factorisations below).
#[derive(Debug, Clone)]
pub(crate) struct Hessian {
    pub inputs: usize,
    pub h: Vec<f64>,
    pub tokens: usize,
}

impl Hessian {
    /// `H` of a layer of `inputs` inputs, summed (row-major) over `tokens` calibration tokens.
    pub(crate) fn from_sum(inputs: usize, h: Vec<f64>, tokens: usize) -> Self {
        Hessian { inputs, h, tokens }
    }
}

/// Per run of `block` rows and column (run by run, columns in order — the order the `q4` and
/// `q6` writers take them): the scale and levels (stored as `grid` says)
/// of `values` (`rows × columns`) rounded with `hessian` in view. `scale_of` picks a block's
/// scale from its values as they stand when the run is reached (the writers' own search).
/// `None` when the factorisation fails (a layer whose inputs never vary); the caller rounds
/// to nearest then.
pub(crate) fn round(
    values: &[f32],
    (rows, columns): (usize, usize),
    hessian: &Hessian,
    block: usize,
    grid: Grid,
    scale_of: impl Fn(&[f32]) -> f16,
) -> Option<Vec<(f16, Vec<u8>)>> {
    if hessian.inputs != rows || hessian.tokens == 0 || values.len() != rows * columns {
        return None;
    }
    let u = inverse_factor(hessian)?;
    let mut w: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
    let mut out = Vec::with_capacity(rows.div_ceil(block) * columns);
    let mut err = vec![0f64; columns];
    for first in (0..rows).step_by(block) {
        let run = block.min(rows - first);
        let scales: Vec<f16> = (0..columns)
            .map(|c| {
                let b: Vec<f32> = (first..first + run)
                    .map(|k| w[k * columns + c] as f32)
                    .collect();
                scale_of(&b)
            })
            .collect();
        let at = out.len();
        out.extend(scales.iter().map(|&s| (s, Vec::with_capacity(run))));
        // Each row's error goes to the later rows of its run at once, to the rows after the
        // run in one pass per run (the same products; a 1536-row weight re-read per row made
        // this most of a build's time).
        let mut errors = vec![0f64; run * columns];
        for k in first..first + run {
            let d = u[k * rows + k];
            for c in 0..columns {
                let s = f64::from(scales[c].to_f32());
                let v = w[k * columns + c];
                let level = grid.level(v, s);
                let q = f64::from(level) - f64::from(grid.zero);
                out[at + c].1.push(level);
                err[c] = (v - q * s) / d;
            }
            for j in k + 1..first + run {
                let f = u[k * rows + j];
                let row = &mut w[j * columns..(j + 1) * columns];
                for (x, e) in row.iter_mut().zip(&err) {
                    *x -= e * f;
                }
            }
            errors[(k - first) * columns..(k - first + 1) * columns].copy_from_slice(&err);
        }
        for j in first + run..rows {
            let row = &mut w[j * columns..(j + 1) * columns];
            for (kk, e) in errors.chunks_exact(columns).enumerate() {
                let f = u[(first + kk) * rows + j];
                if f == 0.0 {
                    continue;
                }
                for (x, e) in row.iter_mut().zip(e) {
                    *x -= e * f;
                }
            }
        }
    }
    Some(out)
}

/// The damping added to `H`'s diagonal, as a share of its mean ([`inverse_factor`] says why).
const DAMP: f64 = 0.3;

/// The upper Cholesky factor `U` of `H⁻¹` (`H⁻¹ = UᵀU`), `H` damped by [`DAMP`] of its
/// mean diagonal (calibration text never spans every direction, and a site's text is not its
/// queries: measured on MiniLM, 0.01 as in the paper fitted the calibration text so closely
/// that arbitrary token sequences agreed with the exact model at 0.87, under the 4-bit
/// threshold; 0.3 keeps them at 0.956, as rounding to nearest does); inputs that never varied
/// get a diagonal of 1. `None` if `H` is not positive definite even so.
///
/// One factorisation: with `P` the reversal, `P H P = L Lᵀ` gives `U = P L⁻¹ P` (upper, and
/// `UᵀU = P L⁻ᵀ L⁻¹ P = (P H P)⁻¹` reversed `= H⁻¹`).
fn inverse_factor(hessian: &Hessian) -> Option<Vec<f64>> {
    let n = hessian.inputs;
    let mut h = hessian.h.clone();
    let mean = (0..n).map(|i| h[i * n + i]).sum::<f64>() / n as f64;
    let damp = DAMP * mean.max(f64::MIN_POSITIVE);
    for i in 0..n {
        if h[i * n + i] == 0.0 {
            h[i * n + i] = 1.0;
        }
        h[i * n + i] += damp;
    }
    let mut reversed = vec![0f64; n * n];
    for i in 0..n {
        for j in 0..n {
            reversed[i * n + j] = h[(n - 1 - i) * n + (n - 1 - j)];
        }
    }
    let l = cholesky(&reversed, n)?;
    // Row j of `lit` is column j of L⁻¹.
    let lit = lower_inverse_transposed(&l, n);
    let mut u = vec![0f64; n * n];
    for i in 0..n {
        for j in i..n {
            u[i * n + j] = lit[(n - 1 - j) * n + (n - 1 - i)];
        }
    }
    Some(u)
}

/// Lower Cholesky factor of a symmetric `n × n` matrix; `None` if not positive definite.
// AVX2 where the CPU has it: the same additions in the same order (four running sums),
// four lanes at a time.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0f64; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s = dot64(&l[i * n..i * n + j], &l[j * n..j * n + j]);
            if i == j {
                let d = a[i * n + i] - s;
                if d <= 0.0 || !d.is_finite() {
                    return None;
                }
                l[i * n + i] = d.sqrt();
            } else {
                l[i * n + j] = (a[i * n + j] - s) / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// `(L⁻¹)ᵀ` of a lower triangular `n × n` matrix with a positive diagonal: row `j` is column
/// `j` of the inverse, found by forward substitution on `L x = e_j`.
// AVX2 where the CPU has it: the same additions in the same order (four running sums),
// four lanes at a time.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn lower_inverse_transposed(l: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0f64; n * n];
    for j in 0..n {
        let x = &mut out[j * n..(j + 1) * n];
        for i in j..n {
            let delta = if i == j { 1.0 } else { 0.0 };
            let s = dot64(&l[i * n + j..i * n + i], &x[j..i]);
            x[i] = (delta - s) / l[i * n + i];
        }
    }
    out
}

/// A dot product of f64s in four running sums (so that it vectorises).
#[inline(always)]
fn dot64(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    acc.iter().sum::<f64>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `XᵀX` of `x` (`tokens × inputs`), plainly.
    fn gram(x: &[f32], inputs: usize) -> Hessian {
        let tokens = x.len() / inputs;
        let mut h = vec![0f64; inputs * inputs];
        for row in x.chunks_exact(inputs) {
            for i in 0..inputs {
                for j in 0..inputs {
                    h[i * inputs + j] += f64::from(row[i]) * f64::from(row[j]);
                }
            }
        }
        Hessian::from_sum(inputs, h, tokens)
    }

    #[test]
    fn the_factor_squares_back_to_the_inverse() {
        let n = 5;
        let x: Vec<f32> = (0..40 * n)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) / 3.0)
            .collect();
        let hs = gram(&x, n);
        let u = inverse_factor(&hs).unwrap();
        // UᵀU · H (damped) = I.
        let mut h = hs.h.clone();
        let mean = (0..n).map(|i| h[i * n + i]).sum::<f64>() / n as f64;
        for i in 0..n {
            h[i * n + i] += DAMP * mean;
        }
        for i in 0..n {
            for j in 0..n {
                let v: f64 = (0..n)
                    .map(|m| {
                        (0..n).map(|k| u[k * n + i] * u[k * n + m]).sum::<f64>() * h[m * n + j]
                    })
                    .sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((v - want).abs() < 1e-9, "{i},{j}: {v}");
            }
        }
        for i in 0..n {
            for j in 0..i {
                assert_eq!(u[i * n + j], 0.0, "upper triangular");
            }
        }
    }

    /// On inputs that move together, rounding with them in view changes the layer's outputs
    /// less than rounding each weight to nearest (the point of it).
    #[test]
    fn outputs_move_less_than_with_nearest_rounding() {
        let (rows, columns, tokens) = (64, 16, 256);
        let mut state = 3u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1 << 24) as f32 - 0.5
        };
        // Correlated inputs: a few shared factors plus noise.
        let factors: Vec<Vec<f32>> = (0..tokens)
            .map(|_| (0..4).map(|_| next()).collect())
            .collect();
        let mix: Vec<Vec<f32>> = (0..rows)
            .map(|_| (0..4).map(|_| next()).collect())
            .collect();
        let x: Vec<f32> = (0..tokens)
            .flat_map(|t| {
                let f = &factors[t];
                let mix = &mix;
                (0..rows)
                    .map(move |k| (0..4).map(|m| f[m] * mix[k][m]).sum::<f32>())
                    .collect::<Vec<_>>()
            })
            .zip(std::iter::repeat_with(&mut next))
            .map(|(v, n)| v + 0.05 * n)
            .collect();
        let w: Vec<f32> = (0..rows * columns).map(|_| next()).collect();
        let h = gram(&x, rows);
        let scale_of = |b: &[f32]| {
            let m = b.iter().fold(0f32, |m, v| m.max(v.abs()));
            f16::from_f32(m / 8.0)
        };
        let grid = Grid {
            zero: 8.0,
            below: 8.0,
            spread: 2.0,
            scale_bits: 10,
        };
        let levels = round(&w, (rows, columns), &h, 32, grid, scale_of).unwrap();
        let value = |levels: &[(f16, Vec<u8>)], k: usize, c: usize| {
            let (s, l) = &levels[(k / 32) * columns + c];
            (f32::from(l[k % 32]) - 8.0) * s.to_f32()
        };
        let nearest: Vec<(f16, Vec<u8>)> = (0..rows / 32)
            .flat_map(|b| {
                let w = &w;
                (0..columns).map(move |c| {
                    let block: Vec<f32> = (0..32).map(|j| w[(b * 32 + j) * columns + c]).collect();
                    let s = scale_of(&block);
                    let l = block
                        .iter()
                        .map(|v| ((v / s.to_f32()).round().clamp(-8.0, 7.0) + 8.0) as u8)
                        .collect();
                    (s, l)
                })
            })
            .collect();
        let error = |levels: &[(f16, Vec<u8>)]| -> f64 {
            let mut e = 0f64;
            for t in 0..tokens {
                for c in 0..columns {
                    let d: f32 = (0..rows)
                        .map(|k| x[t * rows + k] * (w[k * columns + c] - value(levels, k, c)))
                        .sum();
                    e += f64::from(d * d);
                }
            }
            e
        };
        let (g, n) = (error(&levels), error(&nearest));
        assert!(g < n * 0.8, "with inputs in view {g}, to nearest {n}");
    }
}
