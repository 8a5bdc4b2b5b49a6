//! The integer dense layers' panel sums in wasm SIMD: `i32x4.dot_i16x8_s` multiplies a
//! pair of activations by each of four columns' pair of weights and adds the two products,
//! eight multiply-adds an instruction. Same arithmetic as `kernel.rs` (integer sums per
//! block, then one f32 multiply and add per value), so the same bits; the running sums stay
//! in vector registers across a panel's blocks.
use super::{BLOCK, LANES, PAIRS};
use core::arch::wasm32::{
    f32x4, f32x4_add, f32x4_convert_i32x4, f32x4_extract_lane, f32x4_mul, f32x4_splat, i16x8,
    i32x4_add, i32x4_dot_i16x8, i32x4_splat, v128,
};

/// See `kernel.rs`.
#[inline(always)]
pub(super) fn panel<const R: usize>(
    rows: [&[i32]; R],
    weights: &[i16],
    scales: &[f32],
) -> [[f32; LANES]; R] {
    let mut acc = [[f32x4_splat(0.0); 2]; R];
    for (b, (w, scale)) in weights
        .chunks_exact(BLOCK * LANES)
        .zip(scales.chunks_exact(LANES))
        .enumerate()
    {
        let x: [&[i32]; R] = std::array::from_fn(|r| &rows[r][b * PAIRS..(b + 1) * PAIRS]);
        let mut sums = [[i32x4_splat(0); 2]; R];
        for q in 0..PAIRS {
            let wq = &w[q * 2 * LANES..(q + 1) * 2 * LANES];
            let w0 = i16x8(wq[0], wq[1], wq[2], wq[3], wq[4], wq[5], wq[6], wq[7]);
            let w1 = i16x8(wq[8], wq[9], wq[10], wq[11], wq[12], wq[13], wq[14], wq[15]);
            for r in 0..R {
                let a = i32x4_splat(x[r][q]);
                sums[r][0] = i32x4_add(sums[r][0], i32x4_dot_i16x8(a, w0));
                sums[r][1] = i32x4_add(sums[r][1], i32x4_dot_i16x8(a, w1));
            }
        }
        let s = [
            f32x4(scale[0], scale[1], scale[2], scale[3]),
            f32x4(scale[4], scale[5], scale[6], scale[7]),
        ];
        for r in 0..R {
            for h in 0..2 {
                acc[r][h] = f32x4_add(acc[r][h], f32x4_mul(f32x4_convert_i32x4(sums[r][h]), s[h]));
            }
        }
    }
    let lanes = |v: v128| {
        [
            f32x4_extract_lane::<0>(v),
            f32x4_extract_lane::<1>(v),
            f32x4_extract_lane::<2>(v),
            f32x4_extract_lane::<3>(v),
        ]
    };
    std::array::from_fn(|r| {
        let (a, b) = (lanes(acc[r][0]), lanes(acc[r][1]));
        [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
    })
}
