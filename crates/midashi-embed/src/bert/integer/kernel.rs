//! The integer dense layers' inner block, portably (native builds, and wasm without SIMD):
//! what `kernel_wasm.rs` computes with `i32x4.dot_i16x8_s`, in plain integer arithmetic, so
//! both give the same bits.
use super::{BLOCK, LANES, PAIRS};

/// `R` tokens' sums for one panel: `rows[r]` holds a token's pairs for every block,
/// `weights` and `scales` the panel's blocks in order (see `IntDense`); per block, the
/// integer sums are scaled and added to the token's running f32 sums.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))] // x86-64 runs its own unless without AVX2
#[inline(always)]
pub(super) fn panel<const R: usize>(
    rows: [&[i32]; R],
    weights: &[i16],
    scales: &[f32],
) -> [[f32; LANES]; R] {
    let mut acc = [[0f32; LANES]; R];
    for (b, (w, s)) in weights
        .chunks_exact(BLOCK * LANES)
        .zip(scales.chunks_exact(LANES))
        .enumerate()
    {
        let x: [&[i32]; R] = std::array::from_fn(|r| &rows[r][b * PAIRS..(b + 1) * PAIRS]);
        block(x, w, s, &mut acc);
    }
    acc
}

/// Adds one block's contribution to `R` tokens' sums of one panel: per token `r` and
/// column `j`, `acc[r][j] += scale[j] × Σ_pairs (lo·w[2j] + hi·w[2j+1])`, where a pair packs
/// two inputs' rounded activations (`lo` in the low 16 bits) and `w` holds the block's
/// weights pair by pair (see `IntDense::weights`).
#[inline(always)]
pub(super) fn block<const R: usize>(
    x: [&[i32]; R],
    w: &[i16],
    scale: &[f32],
    acc: &mut [[f32; LANES]; R],
) {
    let mut sums = [[0i32; LANES]; R];
    for (q, wq) in w.chunks_exact(2 * LANES).take(PAIRS).enumerate() {
        for r in 0..R {
            let a = x[r][q];
            // The pair repeated across the columns, as the SIMD splat has it: written so,
            // the compiler finds the pairwise multiply-add (x86's pmaddwd).
            let pair = [a as i16, (a >> 16) as i16];
            let a: [i16; 2 * LANES] = std::array::from_fn(|i| pair[i % 2]);
            for j in 0..LANES {
                sums[r][j] += i32::from(a[2 * j]) * i32::from(wq[2 * j])
                    + i32::from(a[2 * j + 1]) * i32::from(wq[2 * j + 1]);
            }
        }
    }
    for r in 0..R {
        for j in 0..LANES {
            acc[r][j] += sums[r][j] as f32 * scale[j];
        }
    }
}
