//! Dense layers on integers, for weights stored as integers times a scale (the encoder
//! file's 4-, 6- and 8-bit entries): the weights kept as those integers (i16), one f32 scale
//! per block of [`BLOCK`] inputs and output column; each token's activations rounded to
//! 16 bits with a scale of their own; products summed exactly in i32 within a block, then
//! scaled and summed in f32.
//!
//! Why: wasm SIMD multiplies eight pairs of i16 and adds neighbouring products in one
//! instruction (`i32x4.dot_i16x8_s`): twice the multiply-adds an f32 multiply and add give in
//! two, from weights half the bytes of f32 panels (less memory written at load, less read per
//! token). What it costs in accuracy: a token's activations are kept to 1 part in 32767 of
//! its largest; the weights are exactly the stored ones. The sums are integers and the
//! float steps happen in one order, so the browser's SIMD kernel (`kernel_wasm.rs`) and the
//! portable one (`kernel.rs`, natively) give the same bits.

// One kernel per target, the same arithmetic in each (see their docs).
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    path = "integer/kernel_wasm.rs"
)]
#[cfg_attr(target_arch = "x86_64", path = "integer/kernel_x86.rs")]
mod kernel;

/// Inputs a scale covers: the 4- and 6-bit entries' runs (`crate::packed::runs::BLOCK`).
pub(super) const BLOCK: usize = 32;
/// Pairs of inputs in a block: a dot product's operands are pairs.
const PAIRS: usize = BLOCK / 2;
/// Output columns a panel holds: two i32x4 sums per token in the kernel.
pub(super) const LANES: usize = 8;
/// Tokens a pass over a panel's block serves at once.
const ROWS: usize = 4;
/// Tokens whose rows stay in cache while the panels stream past (as `math::Dense`).
const CHUNK: usize = 32;
/// The largest magnitude an activation is rounded to.
const TOP: f32 = 32767.0;

/// A dense layer `y = x · W + b` on integer weights (see the module docs).
#[derive(Debug)]
pub(super) struct IntDense {
    inputs: usize,
    outputs: usize,
    /// Blocks of [`BLOCK`] inputs (the last padded with zero weights).
    blocks: usize,
    /// Per panel of [`LANES`] columns, per block, per pair of inputs `k, k+1`: each column's
    /// two weights side by side (`w[k][j], w[k+1][j]`), the operand order of a pairwise
    /// dot product.
    weights: Vec<i16>,
    /// Per panel, per block: its columns' scales.
    scales: Vec<f32>,
    /// The bias, padded with zeros to whole panels.
    bias: Vec<f32>,
    /// Whether every row given so far had its block's scales.
    consistent: bool,
}

impl IntDense {
    /// A layer of zero weights, `[inputs, outputs]`, and a bias of `outputs` values;
    /// [`IntDense::set_row`] fills the weights.
    pub(super) fn zeros(inputs: usize, outputs: usize, bias: &[f32]) -> Self {
        let panels = outputs.div_ceil(LANES);
        let blocks = inputs.div_ceil(BLOCK);
        let mut b = bias.to_vec();
        b.resize(panels * LANES, 0.0);
        IntDense {
            inputs,
            outputs,
            blocks,
            weights: vec![0; panels * blocks * BLOCK * LANES],
            scales: vec![0.0; panels * blocks * LANES],
            bias: b,
            consistent: true,
        }
    }

    /// Row `k` of the weight: `ints[j] × scales[j]` is the weight of input `k` to output `j`.
    /// The rows of one block must share their scales (they do in the entries that call this);
    /// a row that does not is noted, and [`IntDense::finish`] refuses the layer.
    #[inline(never)] // a call per row: V8 optimises a function between calls
    pub(super) fn set_row(&mut self, k: usize, scales: &[f32], ints: &[i8]) {
        if k >= self.inputs || ints.len() != self.outputs || scales.len() != self.outputs {
            self.consistent = false;
            return;
        }
        let (b, pair, half) = (k / BLOCK, k % BLOCK / 2, k % 2);
        let first = k % BLOCK == 0;
        for (p, (ints, scales)) in ints.chunks(LANES).zip(scales.chunks(LANES)).enumerate() {
            let at = ((p * self.blocks + b) * PAIRS + pair) * 2 * LANES + half;
            for (l, &v) in ints.iter().enumerate() {
                self.weights[at + 2 * l] = i16::from(v);
            }
            let s = &mut self.scales[(p * self.blocks + b) * LANES..][..scales.len()];
            if first {
                s.copy_from_slice(scales);
            } else if s != scales {
                self.consistent = false;
            }
        }
    }

    /// The layer, if every row was given with its block's scales.
    pub(super) fn finish(self) -> Option<Self> {
        self.consistent.then_some(self)
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

/// [`IntDense::forward`], compiled once per target listed and picked at run time (wasm and
/// x86-64 without AVX2 run the baseline).
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn forward(dense: &IntDense, x: &[f32], y: &mut [f32]) {
    let (inputs, outputs, blocks) = (dense.inputs, dense.outputs, dense.blocks);
    let tokens = x.len() / inputs.max(1);
    let half = blocks * PAIRS;
    // Each token's activations as pairs of i16 in an i32 (a dot product's splat), and its scale.
    let mut pairs = vec![0i32; tokens * half];
    let mut token_scales = vec![0f32; tokens];
    let mut rounded = vec![0i16; blocks * BLOCK];
    for ((row, out), s) in x
        .chunks_exact(inputs)
        .zip(pairs.chunks_exact_mut(half))
        .zip(&mut token_scales)
    {
        *s = quantise(row, &mut rounded, out);
    }
    let panel_len = blocks * BLOCK * LANES;
    for chunk in (0..tokens).step_by(CHUNK) {
        let end = (chunk + CHUNK).min(tokens);
        for (p, weights) in dense.weights.chunks_exact(panel_len).enumerate() {
            let scales = &dense.scales[p * blocks * LANES..(p + 1) * blocks * LANES];
            let bias: &[f32; LANES] = dense.bias[p * LANES..][..LANES]
                .try_into()
                .unwrap_or(&[0.0; LANES]);
            let column = p * LANES;
            let mut first = chunk;
            while first < end {
                let rows = (end - first).min(ROWS);
                let x = &pairs[first * half..(first + rows) * half];
                let s = &token_scales[first..first + rows];
                let y = &mut y[first * outputs..];
                match rows {
                    4 => store(&panel::<4>(x, weights, scales), s, bias, y, outputs, column),
                    3 => store(&panel::<3>(x, weights, scales), s, bias, y, outputs, column),
                    2 => store(&panel::<2>(x, weights, scales), s, bias, y, outputs, column),
                    _ => store(&panel::<1>(x, weights, scales), s, bias, y, outputs, column),
                }
                first += rows;
            }
        }
    }
}

/// A token's activations rounded to [`TOP`] at their largest magnitude, as pairs (`rounded`
/// is scratch as long as the padded inputs); returns the scale that takes them back.
#[inline(never)]
fn quantise(row: &[f32], rounded: &mut [i16], pairs: &mut [i32]) -> f32 {
    let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
    if !(max > 0.0 && max.is_finite()) {
        pairs.fill(0);
        return 0.0;
    }
    let inv = TOP / max;
    for (r, &v) in rounded.iter_mut().zip(row) {
        // Ties to even: one wasm instruction (f32.nearest), and the same natively.
        *r = (v * inv).round_ties_even() as i16;
    }
    for (p, two) in pairs.iter_mut().zip(rounded.chunks_exact(2)) {
        *p = (u32::from(two[0] as u16) | u32::from(two[1] as u16) << 16) as i32;
    }
    max / TOP
}

/// `R` tokens' sums for one panel: Σ over blocks of the block's scale × its integer sum.
#[inline(always)]
fn panel<const R: usize>(x: &[i32], weights: &[i16], scales: &[f32]) -> [[f32; LANES]; R] {
    let half = x.len() / R;
    let rows: [&[i32]; R] = std::array::from_fn(|r| &x[r * half..(r + 1) * half]);
    kernel::panel(rows, weights, scales)
}

/// A panel's sums into rows of `y` (`outputs` wide) from `column`, each times its token's
/// scale plus the bias, without the padding.
fn store(
    acc: &[[f32; LANES]],
    token_scales: &[f32],
    bias: &[f32; LANES],
    y: &mut [f32],
    outputs: usize,
    column: usize,
) {
    let width = LANES.min(outputs - column);
    for (r, (lanes, &s)) in acc.iter().zip(token_scales).enumerate() {
        let at = r * outputs + column;
        for ((o, &v), &b) in y[at..at + width].iter_mut().zip(lanes).zip(bias) {
            *o = v * s + b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer from integer rows (blocks of scales), and the plain product of the same
    /// weights in f64.
    fn layer(inputs: usize, outputs: usize, seed: u32) -> (IntDense, Vec<f64>, Vec<f32>) {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state >> 8
        };
        let bias: Vec<f32> = (0..outputs).map(|j| j as f32 * 0.01 - 0.2).collect();
        let mut dense = IntDense::zeros(inputs, outputs, &bias);
        let mut exact = vec![0f64; inputs * outputs];
        let block_scales: Vec<Vec<f32>> = (0..inputs.div_ceil(BLOCK))
            .map(|_| {
                (0..outputs)
                    .map(|_| (next() % 1000 + 1) as f32 / 4096.0)
                    .collect()
            })
            .collect();
        for k in 0..inputs {
            let scales = &block_scales[k / BLOCK];
            let ints: Vec<i8> = (0..outputs).map(|_| (next() % 256) as u8 as i8).collect();
            for j in 0..outputs {
                exact[k * outputs + j] = f64::from(ints[j]) * f64::from(scales[j]);
            }
            dense.set_row(k, scales, &ints);
        }
        (dense.finish().expect("consistent rows"), exact, bias)
    }

    #[test]
    fn integer_layers_match_the_plain_product_at_every_width() {
        for (inputs, outputs, tokens) in [(32, 8, 1), (40, 13, 5), (96, 24, 7), (384, 17, 33)] {
            let (dense, w, bias) = layer(inputs, outputs, inputs as u32);
            let x: Vec<f32> = (0..tokens * inputs)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 13.0)
                .collect();
            let mut y = vec![0f32; tokens * outputs];
            dense.forward(&x, &mut y);
            for t in 0..tokens {
                let row = &x[t * inputs..(t + 1) * inputs];
                let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
                for j in 0..outputs {
                    let want: f64 = bias[j] as f64
                        + (0..inputs)
                            .map(|k| f64::from(row[k]) * w[k * outputs + j])
                            .sum::<f64>();
                    let scale: f64 = (0..inputs).map(|k| w[k * outputs + j].abs()).sum();
                    // Rounding the activations: half a step of max/32767 on each product.
                    let bound = scale * f64::from(max) / 32767.0 + 1e-4 * want.abs() + 1e-5;
                    let got = f64::from(y[t * outputs + j]);
                    assert!(
                        (got - want).abs() <= bound,
                        "{inputs}×{outputs} t{t} j{j}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn rows_whose_block_changes_scale_are_refused_and_zero_rows_give_the_bias() {
        let mut dense = IntDense::zeros(64, 8, &[1.0; 8]);
        dense.set_row(0, &[0.5; 8], &[1; 8]);
        dense.set_row(1, &[0.25; 8], &[1; 8]);
        assert!(dense.finish().is_none());
        let dense = IntDense::zeros(64, 8, &[1.0; 8]).finish().unwrap();
        let mut y = vec![0f32; 16];
        dense.forward(&[0.0; 128], &mut y);
        assert!(y.iter().all(|&v| v == 1.0));
    }

    #[test]
    fn rounding_keeps_sixteen_bits_and_survives_odd_values() {
        let mut rounded = vec![0i16; 4];
        let mut pairs = vec![0i32; 2];
        let s = quantise(&[1.0, -0.5, 0.25, -1.0], &mut rounded, &mut pairs);
        assert_eq!(rounded, [32767, -16384, 8192, -32767]);
        assert!((s - 1.0 / 32767.0).abs() < 1e-12);
        assert_eq!(pairs[0] as i16, 32767);
        assert_eq!(pairs[0] >> 16, -16384);
        // NaN or infinity in a row: zeros, no panic.
        assert_eq!(
            quantise(
                &[f32::NAN, 1.0, f32::INFINITY, 0.0],
                &mut rounded,
                &mut pairs
            ),
            0.0
        );
        assert_eq!(pairs, [0, 0]);
    }
}
