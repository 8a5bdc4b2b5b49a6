//! The integer dense layers' panel sums on x86-64: AVX2's `vpmaddwd` multiplies a pair of
//! activations by each of eight columns' pair of weights and adds the two products (the
//! compiler does not find it in `kernel.rs`'s loops, and its 32-bit multiplies made a query's
//! encode twice as slow as f32). Same arithmetic as `kernel.rs` — integer sums, then one f32
//! multiply and add per value — so the same bits as the browser's; CPUs without AVX2 run
//! `kernel.rs` itself.
use super::{BLOCK, LANES, PAIRS};
use std::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_add_ps, _mm256_cvtepi32_ps, _mm256_loadu_ps,
    _mm256_loadu_si256, _mm256_madd_epi16, _mm256_mul_ps, _mm256_set1_epi32, _mm256_setzero_ps,
    _mm256_setzero_si256, _mm256_storeu_ps,
};

#[path = "kernel.rs"]
mod portable;

/// See `kernel.rs`.
#[inline(always)]
pub(super) fn panel<const R: usize>(
    rows: [&[i32]; R],
    weights: &[i16],
    scales: &[f32],
) -> [[f32; LANES]; R] {
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above; the answer is cached).
        unsafe { panel_avx2(rows, weights, scales) }
    } else {
        portable::panel(rows, weights, scales)
    }
}

#[target_feature(enable = "avx2")]
fn panel_avx2<const R: usize>(
    rows: [&[i32]; R],
    weights: &[i16],
    scales: &[f32],
) -> [[f32; LANES]; R] {
    const _: () = assert!(LANES == 8, "a panel's columns fill one 256-bit register");
    let mut acc = [_mm256_setzero_ps(); R];
    for (b, (w, scale)) in weights
        .chunks_exact(BLOCK * LANES)
        .zip(scales.chunks_exact(LANES))
        .enumerate()
    {
        let x: [&[i32]; R] = std::array::from_fn(|r| &rows[r][b * PAIRS..(b + 1) * PAIRS]);
        let mut sums = [_mm256_setzero_si256(); R];
        for (q, wq) in w.chunks_exact(2 * LANES).enumerate() {
            // SAFETY: `wq` is 16 i16s (32 bytes); an unaligned load reads exactly those.
            let wq = unsafe { _mm256_loadu_si256(wq.as_ptr().cast::<__m256i>()) };
            for r in 0..R {
                let a = _mm256_set1_epi32(x[r][q]);
                sums[r] = _mm256_add_epi32(sums[r], _mm256_madd_epi16(a, wq));
            }
        }
        // SAFETY: `scale` is 8 f32s; an unaligned load reads exactly those.
        let s = unsafe { _mm256_loadu_ps(scale.as_ptr()) };
        for r in 0..R {
            acc[r] = _mm256_add_ps(acc[r], _mm256_mul_ps(_mm256_cvtepi32_ps(sums[r]), s));
        }
    }
    let mut out = [[0f32; LANES]; R];
    for r in 0..R {
        // SAFETY: `out[r]` is 8 f32s; an unaligned store writes exactly those.
        unsafe { _mm256_storeu_ps(out[r].as_mut_ptr(), acc[r]) };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{panel, portable, BLOCK, LANES, PAIRS};

    /// The AVX2 kernel gives the portable kernel's bits (and so the browser's, whose SIMD
    /// kernel is the same arithmetic), at the extremes of both operands too.
    #[test]
    fn the_avx2_kernel_gives_the_portable_kernel_s_bits() {
        let mut state = 7u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state
        };
        const BLOCKS: usize = 3;
        for round in 0..200 {
            let x: Vec<Vec<i32>> = (0..4)
                .map(|_| {
                    (0..BLOCKS * PAIRS)
                        .map(|_| match round % 3 {
                            0 => next() as i32,
                            // Both halves at ±32767, as a token's largest activations are.
                            1 => (0x7fff_u32 | (0x8001_u32 << 16)) as i32,
                            _ => (next() & 0x00ff_00ff) as i32,
                        })
                        .collect()
                })
                .collect();
            let w: Vec<i16> = (0..BLOCKS * BLOCK * LANES)
                .map(|_| {
                    if round % 3 == 1 {
                        -128
                    } else {
                        (next() >> 24) as i8 as i16
                    }
                })
                .collect();
            let scale: Vec<f32> = (0..BLOCKS * LANES)
                .map(|_| (next() >> 9) as f32 * 1e-9)
                .collect();
            let rows = [&x[0][..], &x[1][..], &x[2][..], &x[3][..]];
            let a = panel(rows, &w, &scale);
            let b = portable::panel(rows, &w, &scale);
            for r in 0..4 {
                for j in 0..LANES {
                    assert_eq!(
                        a[r][j].to_bits(),
                        b[r][j].to_bits(),
                        "round {round} r{r} j{j}"
                    );
                }
            }
        }
    }
}
