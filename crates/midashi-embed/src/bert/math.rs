//! The arithmetic of a BERT layer on `[tokens, width]` row-major f32 activations: dense
//! layers, layer norms, exact GELU, attention. Hand-written because it is the whole point of
//! the purpose-written encoder: a few hundred lines in place of tract's 2.27 MB (brotli) in the
//! browser's module. Written so that the compiler vectorises the inner loops (wasm simd128,
//! SSE/AVX natively); no `unsafe`.

/// Output columns a panel holds: two 4-lane vectors per token in the inner loop.
const LANES: usize = 8;
/// Tokens a pass over a panel serves at once: 4 × 2 accumulators in registers.
const ROWS: usize = 4;
/// Tokens whose rows stay in cache while the panels stream past (32 × 1536 inputs: 192 KB).
const CHUNK: usize = 32;

/// A dense layer `y = x · W + b`, its weight stored in panels of [`LANES`] output columns,
/// each panel's rows in input order, so the inner loop streams through memory once per
/// [`ROWS`] tokens.
#[derive(Debug)]
pub(super) struct Dense {
    inputs: usize,
    outputs: usize,
    panels: Vec<f32>,
    /// The bias, padded with zeros to whole panels.
    bias: Vec<f32>,
}

impl Dense {
    /// A layer of zero weights, `[inputs, outputs]` (as MatMul's constant operand), and a
    /// bias of `outputs` values; [`Dense::set_row`] fills the weights.
    pub(super) fn zeros(inputs: usize, outputs: usize, bias: &[f32]) -> Self {
        let padded = outputs.div_ceil(LANES) * LANES;
        let mut b = bias.to_vec();
        b.resize(padded, 0.0);
        Dense {
            inputs,
            outputs,
            panels: vec![0f32; padded * inputs],
            bias: b,
        }
    }

    /// From a weight laid out `[inputs, outputs]` and a bias of `outputs` values.
    #[cfg(test)]
    pub(super) fn new(weight: &[f32], inputs: usize, outputs: usize, bias: &[f32]) -> Self {
        let mut dense = Self::zeros(inputs, outputs, bias);
        for (k, row) in weight.chunks_exact(outputs).enumerate() {
            dense.set_row(k, row);
        }
        dense
    }

    /// Row `k` of the weight (the `outputs` weights of input `k`) into its place in each
    /// panel. A call per row: V8 optimises a function between calls, not during one.
    #[inline(never)]
    pub(super) fn set_row(&mut self, k: usize, row: &[f32]) {
        if k >= self.inputs || row.len() != self.outputs {
            return;
        }
        let stride = self.inputs * LANES;
        for (p, lanes) in row.chunks(LANES).enumerate() {
            let at = p * stride + k * LANES;
            self.panels[at..at + lanes.len()].copy_from_slice(lanes);
        }
    }

    /// Output width.
    pub(super) fn outputs(&self) -> usize {
        self.outputs
    }

    /// `y` (`tokens × outputs`) = `x` (`tokens × inputs`) · W + b.
    pub(super) fn forward(&self, x: &[f32], y: &mut [f32]) {
        forward(self, x, y)
    }
}

/// [`Dense::forward`], compiled once per target listed and picked at run time (x86-64
/// without AVX2 — and wasm — run the baseline).
#[multiversion::multiversion(targets("x86_64+avx2+fma"))]
fn forward(dense: &Dense, x: &[f32], y: &mut [f32]) {
    let Dense {
        inputs,
        outputs,
        panels,
        bias,
    } = dense;
    let (inputs, outputs) = (*inputs, *outputs);
    {
        let tokens = x.len() / inputs;
        // A chunk of tokens at a time, so the chunk's rows stay in cache while every panel
        // streams past them (all 256 tokens' rows re-read per panel made a long text twice as
        // slow per token as a query).
        for chunk in (0..tokens).step_by(CHUNK) {
            let end = (chunk + CHUNK).min(tokens);
            for (p, panel) in panels.chunks_exact(inputs * LANES).enumerate() {
                let bias: &[f32; LANES] = bias[p * LANES..][..LANES]
                    .try_into()
                    .unwrap_or(&[0.0; LANES]);
                let column = p * LANES;
                let mut first = chunk;
                while first < end {
                    let rows = (end - first).min(ROWS);
                    let x = &x[first * inputs..(first + rows) * inputs];
                    let y = &mut y[first * outputs..];
                    match rows {
                        4 => store(&block::<4>(x, panel, bias), y, outputs, column),
                        3 => store(&block::<3>(x, panel, bias), y, outputs, column),
                        2 => store(&block::<2>(x, panel, bias), y, outputs, column),
                        _ => store(&block::<1>(x, panel, bias), y, outputs, column),
                    }
                    first += rows;
                }
            }
        }
    }
}

/// A block's values into rows of `y` (`outputs` wide) from `column`, without the padding.
fn store(acc: &[[f32; LANES]], y: &mut [f32], outputs: usize, column: usize) {
    let width = LANES.min(outputs - column);
    for (r, lanes) in acc.iter().enumerate() {
        let at = r * outputs + column;
        y[at..at + width].copy_from_slice(&lanes[..width]);
    }
}

/// `R` tokens' values for one panel: bias + Σₖ x[r][k] · panel[k].
#[inline(always)]
fn block<const R: usize>(x: &[f32], panel: &[f32], bias: &[f32; LANES]) -> [[f32; LANES]; R] {
    let inputs = x.len() / R;
    let mut acc = [*bias; R];
    let rows: [&[f32]; R] = std::array::from_fn(|r| &x[r * inputs..(r + 1) * inputs]);
    for (k, lanes) in panel.chunks_exact(LANES).enumerate() {
        let lanes: &[f32; LANES] = lanes.try_into().unwrap_or(&[0.0; LANES]);
        for r in 0..R {
            let a = rows[r][k];
            for j in 0..LANES {
                acc[r][j] += a * lanes[j];
            }
        }
    }
    acc
}

/// Layer normalisation of each `width`-wide row in place, as tract computes it: the mean
/// taken away, then divided by the root of the mean square plus `eps`, scaled and shifted.
pub(super) fn layer_norm(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let width = gamma.len();
    let inv = 1.0 / width as f32;
    for row in x.chunks_exact_mut(width) {
        let mean = row.iter().sum::<f32>() * inv;
        row.iter_mut().for_each(|v| *v -= mean);
        let square = row.iter().map(|v| v * v).sum::<f32>() * inv;
        let scale = 1.0 / (square + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = *v * scale * g + b;
        }
    }
}

/// Exact GELU, `x · ½ (1 + erf(x / √2))`, in place.
pub(super) fn gelu(x: &mut [f32]) {
    let c = std::f32::consts::FRAC_1_SQRT_2;
    for v in x {
        *v = (*v * 0.5) * (erf(*v * c) + 1.0);
    }
}

/// erf by Abramowitz & Stegun 7.1.28 (absolute error ≤ 3 × 10⁻⁷), the approximation tract's
/// kernels use, so both encoders round alike.
#[allow(clippy::excessive_precision)]
fn erf(x: f32) -> f32 {
    const A: [f32; 6] = [
        0.0705230784,
        0.0422820123,
        0.0092705272,
        0.0001520143,
        0.0002765672,
        0.0000430638,
    ];
    let abs = x.abs();
    let mut y = A[5] * abs;
    for a in A[..5].iter().rev() {
        y = (a + y) * abs;
    }
    // (1 + y)^16 by squaring: `powi` is a call per value that the compiler cannot vectorise.
    let p2 = (y + 1.0) * (y + 1.0);
    let p4 = p2 * p2;
    let p8 = p4 * p4;
    let y = 1.0 - (p8 * p8).recip();
    y.copysign(x)
}

/// Multi-head self-attention: `q`, `k`, `v` are `tokens × width` (heads side by side, the
/// query already scaled by 1/√d), `bias` one additive value per key token (0 for a real
/// token, a large negative one for padding); the context goes to `out` (`tokens × width`).
///
/// Four query tokens at a time, so each key (and value) loaded serves four rows from
/// registers: scores as `(4 × d) · (d × 8 keys)` tiles, the context as `(4 × tokens) ·
/// (tokens × 8 columns)` tiles. Each score still starts from its bias and adds its `d`
/// products in order, each context value its `tokens` products in order: the same
/// arithmetic as one row at a time (a 256-token text spent four tenths of its encode here,
/// loading and storing every partial score once per product).
pub(super) fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    bias: &[f32],
    heads: usize,
    out: &mut [f32],
) {
    let tokens = bias.len();
    let width = q.len() / tokens.max(1);
    let d = width / heads;
    let mut scores = vec![0f32; ROWS * tokens];
    // One head's keys transposed (`d × tokens`): a tile's eight keys are contiguous.
    let mut keys = vec![0f32; d * tokens];
    for h in 0..heads {
        let cols = h * d..(h + 1) * d;
        for (j, row) in k.chunks_exact(width).enumerate() {
            for (c, &value) in row[cols.clone()].iter().enumerate() {
                keys[c * tokens + j] = value;
            }
        }
        let head = Head {
            keys: &keys,
            v,
            bias,
            width,
            column: cols.start,
            d,
        };
        let mut first = 0;
        while first < tokens {
            let rows = (tokens - first).min(ROWS);
            let scores = &mut scores[..rows * tokens];
            let queries = &q[first * width..];
            let out = &mut out[first * width + h * d..];
            match rows {
                4 => head.rows::<4>(queries, scores, out),
                3 => head.rows::<3>(queries, scores, out),
                2 => head.rows::<2>(queries, scores, out),
                _ => head.rows::<1>(queries, scores, out),
            }
            first += rows;
        }
    }
}

/// One head of one attention: its keys transposed (`d × tokens`), the values, the key
/// bias, and where its `d` columns start in a `width`-wide row.
struct Head<'a> {
    keys: &'a [f32],
    v: &'a [f32],
    bias: &'a [f32],
    width: usize,
    column: usize,
    d: usize,
}

impl Head<'_> {
    /// This head's attention for `R` query tokens (`queries` from the first one's row on):
    /// their scores against every key, softmax, and their context into `out` (row `r` at
    /// `r × width`, this head's columns).
    #[inline(always)]
    fn rows<const R: usize>(&self, queries: &[f32], scores: &mut [f32], out: &mut [f32]) {
        let Head {
            keys,
            v,
            bias,
            width,
            column,
            d,
        } = *self;
        let tokens = bias.len();
        let q: [&[f32]; R] = std::array::from_fn(|r| &queries[r * width + column..][..d]);
        for row in scores.chunks_exact_mut(tokens) {
            row.copy_from_slice(bias);
        }
        // Scores, eight keys at a time: acc[r][l] = bias + Σ_c q[r][c] · keys[c][j + l].
        let whole = tokens / LANES * LANES;
        for j in (0..whole).step_by(LANES) {
            let mut acc: [[f32; LANES]; R] = std::array::from_fn(|r| {
                scores[r * tokens + j..][..LANES]
                    .try_into()
                    .unwrap_or([0.0; LANES])
            });
            tile(q, d, |c| &keys[c * tokens + j..][..LANES], &mut acc);
            for (r, lanes) in acc.iter().enumerate() {
                scores[r * tokens + j..][..LANES].copy_from_slice(lanes);
            }
        }
        for j in whole..tokens {
            for (r, qr) in q.iter().enumerate() {
                for (c, &a) in qr.iter().enumerate() {
                    scores[r * tokens + j] += a * keys[c * tokens + j];
                }
            }
        }
        for row in scores.chunks_exact_mut(tokens) {
            softmax(row);
        }
        // Context, eight of the head's columns at a time: acc[r][l] = Σ_j p[r][j] · v[j][c + l].
        let p: [&[f32]; R] = std::array::from_fn(|r| &scores[r * tokens..(r + 1) * tokens]);
        let whole = d / LANES * LANES;
        for c in (0..whole).step_by(LANES) {
            let mut acc = [[0f32; LANES]; R];
            tile(
                p,
                tokens,
                |j| &v[j * width + column + c..][..LANES],
                &mut acc,
            );
            for (r, lanes) in acc.iter().enumerate() {
                out[r * width + c..][..LANES].copy_from_slice(lanes);
            }
        }
        for c in whole..d {
            for (r, pr) in p.iter().enumerate() {
                let mut o = 0.0;
                for (j, &pj) in pr.iter().enumerate() {
                    o += pj * v[j * width + column + c];
                }
                out[r * width + c] = o;
            }
        }
    }
}

/// `acc[r][l] += Σ_{k < n} a[r][k] · b(k)[l]`, the products added in `k` order: the rows'
/// values are broadcast against each eight-wide row of `b`, held in registers throughout.
#[allow(clippy::needless_range_loop)] // `k` walks `R` rows and `b` in step
#[inline(always)]
fn tile<'b, const R: usize>(
    a: [&[f32]; R],
    n: usize,
    b: impl Fn(usize) -> &'b [f32],
    acc: &mut [[f32; LANES]; R],
) {
    let a: [&[f32]; R] = a.map(|row| &row[..n]);
    for k in 0..n {
        let lanes: &[f32; LANES] = b(k).try_into().unwrap_or(&[0.0; LANES]);
        for r in 0..R {
            let s = a[r][k];
            for l in 0..LANES {
                acc[r][l] += s * lanes[l];
            }
        }
    }
}

fn softmax(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for v in x.iter_mut() {
        *v = exp(*v - max);
    }
    let sum: f32 = x.iter().sum();
    let inv = 1.0 / sum;
    x.iter_mut().for_each(|v| *v *= inv);
}

/// eˣ for the scores of a softmax (x ≤ 0 after the largest is taken away; anything below
/// −87 is 0 to f32 anyway), relative error below 2 × 10⁻⁷: x = n ln 2 + r with |r| ≤ ½ ln 2,
/// eʳ by its Taylor polynomial to r⁷, 2ⁿ put in the exponent bits. Written so the compiler
/// vectorises it: `f32::exp` is a call per value, a quarter of a 256-token encode (12 heads ×
/// 256² scores).
#[allow(clippy::excessive_precision)]
fn exp(x: f32) -> f32 {
    const SHIFT: f32 = 12_582_912.0; // 1.5 × 2²³: adding and taking it away rounds to an integer
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + SHIFT) - SHIFT;
    let r = x - n * 0.693_145_751_953_125 - n * 1.428_606_765_330_187_045e-6;
    let mut p = 1.0 / 5040.0;
    for c in [
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = p * r + c;
    }
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_matches_the_plain_product_at_every_width() {
        // Widths that leave partial panels and partial token blocks.
        for (tokens, inputs, outputs) in [(1, 3, 5), (7, 16, 20), (4, 9, 8), (5, 33, 17)] {
            let w: Vec<f32> = (0..inputs * outputs)
                .map(|i| ((i * 37 % 23) as f32 - 11.0) / 7.0)
                .collect();
            let b: Vec<f32> = (0..outputs).map(|i| i as f32 * 0.5).collect();
            let x: Vec<f32> = (0..tokens * inputs)
                .map(|i| ((i * 13 % 17) as f32 - 8.0) / 3.0)
                .collect();
            let mut y = vec![0f32; tokens * outputs];
            Dense::new(&w, inputs, outputs, &b).forward(&x, &mut y);
            for t in 0..tokens {
                for n in 0..outputs {
                    let want: f32 = b[n]
                        + (0..inputs)
                            .map(|k| x[t * inputs + k] * w[k * outputs + n])
                            .sum::<f32>();
                    assert!(
                        (y[t * outputs + n] - want).abs() < 1e-4,
                        "{tokens}x{inputs}x{outputs} at {t},{n}"
                    );
                }
            }
        }
    }

    #[test]
    fn exp_is_close_to_the_library_s() {
        for i in 0..=20_000 {
            let x = -87.0 + i as f32 * (95.0 / 20_000.0);
            let (a, b) = (exp(x), x.exp());
            assert!((a - b).abs() <= b * 3e-7, "exp({x}) = {a}, not {b}");
        }
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(-1000.0) < 1e-37);
    }

    #[test]
    fn erf_and_gelu_at_known_points() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.5204999),
            (1.0, 0.8427008),
            (-2.0, -0.9953223),
            (4.0, 1.0),
        ] {
            assert!((erf(x) - want).abs() < 1e-6, "erf({x})");
        }
        let mut g = [1.0f32, -1.0, 0.0];
        gelu(&mut g);
        assert!((g[0] - 0.8413447).abs() < 1e-6 && (g[1] + 0.1586553).abs() < 1e-6 && g[2] == 0.0);
    }

    /// Attention one query row at a time, as it was written before the tiles: the tiles must
    /// give its very bits.
    fn attention_by_rows(q: &[f32], k: &[f32], v: &[f32], bias: &[f32], heads: usize) -> Vec<f32> {
        let tokens = bias.len();
        let width = q.len() / tokens;
        let d = width / heads;
        let mut out = vec![0f32; q.len()];
        for h in 0..heads {
            for i in 0..tokens {
                let mut scores = bias.to_vec();
                for (j, s) in scores.iter_mut().enumerate() {
                    for c in 0..d {
                        *s += q[i * width + h * d + c] * k[j * width + h * d + c];
                    }
                }
                softmax(&mut scores);
                for c in 0..d {
                    let mut o = 0.0;
                    for (j, &p) in scores.iter().enumerate() {
                        o += p * v[j * width + h * d + c];
                    }
                    out[i * width + h * d + c] = o;
                }
            }
        }
        out
    }

    #[test]
    fn attention_tiles_give_the_row_by_row_bits() {
        for (tokens, heads, d) in [(1, 1, 8), (5, 2, 12), (9, 3, 32), (27, 12, 32), (37, 4, 5)] {
            let width = heads * d;
            let value = |i: usize, m: usize| ((i * m % 97) as f32 - 48.0) / 31.0;
            let q: Vec<f32> = (0..tokens * width).map(|i| value(i, 7)).collect();
            let k: Vec<f32> = (0..tokens * width).map(|i| value(i, 11)).collect();
            let v: Vec<f32> = (0..tokens * width).map(|i| value(i, 13)).collect();
            let bias: Vec<f32> = (0..tokens)
                .map(|j| if j % 7 == 6 { -10000.0 } else { 0.0 })
                .collect();
            let mut out = vec![0f32; tokens * width];
            attention(&q, &k, &v, &bias, heads, &mut out);
            let want = attention_by_rows(&q, &k, &v, &bias, heads);
            for (i, (a, b)) in out.iter().zip(&want).enumerate() {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "{tokens} tokens, {heads}×{d}: value {i}"
                );
            }
        }
    }

    #[test]
    fn layer_norm_and_attention() {
        let mut x = [1.0f32, 2.0, 3.0, 4.0];
        layer_norm(&mut x, &[1.0; 4], &[0.0; 4], 0.0);
        let mean: f32 = x.iter().sum::<f32>() / 4.0;
        let var: f32 = x.iter().map(|v| v * v).sum::<f32>() / 4.0;
        assert!(mean.abs() < 1e-6 && (var - 1.0).abs() < 1e-5);
        // One head; the padded second token gets no weight, so the context is the first value.
        let (q, k, v) = (
            [1.0f32, 0.0, 0.0, 1.0],
            [1.0f32, 0.0, 5.0, 5.0],
            [2.0f32, 3.0, 9.0, 9.0],
        );
        let mut out = [0f32; 4];
        attention(&q, &k, &v, &[0.0, -10000.0], 1, &mut out);
        assert!(
            out.iter()
                .zip([2.0, 3.0, 2.0, 3.0])
                .all(|(a, b)| (a - b).abs() < 1e-5),
            "{out:?}"
        );
    }
}
