//! BM25F: one score per (term, section), summed over a query's clauses.
//!
//! For a term t and section s, with per-field weight w_f, length normalisation b_f,
//! field length len_f and average length avg_f:
//!
//! ```text
//! tf~   = Σ_f  w_f · tf_f / (1 − b_f + b_f · len_f / avg_f)
//! score = idf(t) · tf~ · (k1 + 1) / (k1 + tf~)
//! ```
//!
//! idf is stored in the posting list (computed once at build time), so scoring uses only
//! IEEE add/multiply/divide and gives bit-identical results natively and in wasm.

use super::fields::{field_len, FieldWeights, NUM_FIELDS};

/// Per-index scoring state: the BM25F parameters and the field-length table.
pub struct Bm25f<'a> {
    weights: FieldWeights,
    avg_len: [f32; NUM_FIELDS],
    field_lengths: &'a [u8],
    section_weights: &'a [u8],
}

impl<'a> Bm25f<'a> {
    /// A scorer over an index's parameters, field lengths and page weights (sixteenths per
    /// section; empty when every page weighs 1).
    pub fn new(
        weights: FieldWeights,
        avg_len: [f32; NUM_FIELDS],
        field_lengths: &'a [u8],
        section_weights: &'a [u8],
    ) -> Self {
        Bm25f {
            weights,
            avg_len,
            field_lengths,
            section_weights,
        }
    }

    fn field_len(&self, section: u32, field: usize) -> f32 {
        field_len(self.field_lengths, section, field).map_or(0.0, f32::from)
    }

    /// The score of a term with inverse document frequency `idf` occurring `tf[f]` times in
    /// each field of `section`.
    pub fn score(&self, idf: f32, section: u32, tf: &[u32; NUM_FIELDS]) -> f32 {
        let w = &self.weights;
        let mut tf_norm = 0f32;
        for (f, &tf_f) in tf.iter().enumerate() {
            if tf_f == 0 {
                continue;
            }
            let avg = self.avg_len[f];
            let norm = if avg > 0.0 {
                1.0 - w.b[f] + w.b[f] * self.field_len(section, f) / avg
            } else {
                1.0
            };
            tf_norm += w.weight[f] * tf_f as f32 / norm.max(1e-3);
        }
        let score = idf * tf_norm * (w.k1 + 1.0) / (w.k1 + tf_norm);
        // The page's weight scales every term's score before rounding, so both layouts (the
        // sharded one stores these scores) rank weighted pages alike.
        match self.section_weights.get(section as usize) {
            Some(&b) => quantise(score * (f32::from(b) / 16.0)),
            None => quantise(score),
        }
    }
}

/// A term's inverse document frequency over `n` sections, `df` of which hold it (BM25's
/// "plus one" form, never negative). Computed once at build time in `f64` and stored in the
/// term's posting list, so queries do no transcendental maths and score alike everywhere.
pub fn idf(n: u32, df: f64) -> f32 {
    (1.0 + (f64::from(n) - df + 0.5) / (df + 0.5)).ln() as f32
}

/// Low mantissa bits a score gives up (of 23).
pub(crate) const DROPPED_BITS: u32 = 19;

/// Sorts `(section, score)` pairs best first, ties by section ordinal: the one order every
/// ranked list (keyword, semantic, fused) is in.
pub fn sort_ranked(ranked: &mut [(u32, f32)]) {
    // Each entry as one u64 — the score's total order inverted, then the ordinal — sorted as
    // integers (a radix sort, `crate::sort::sort_u64`): the keys are distinct, so any sort
    // gives the one order, and this one calls no comparator. A common word's candidates on a
    // large site are tens of thousands; sorting them through `crate::sort`'s `dyn`
    // comparator was 40 % of a ranking's time.
    let mut keys: Vec<u64> = ranked
        .iter()
        .map(|&(s, v)| (u64::from(!ordered_bits(v)) << 32) | u64::from(s))
        .collect();
    crate::sort::sort_u64(&mut keys);
    for (r, k) in ranked.iter_mut().zip(keys) {
        *r = (
            k as u32,
            f32::from_bits(unordered_bits(!((k >> 32) as u32))),
        );
    }
}

/// A float's bits as an unsigned integer in `f32::total_cmp`'s order.
fn ordered_bits(v: f32) -> u32 {
    let b = v.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// The inverse of [`ordered_bits`].
fn unordered_bits(k: u32) -> u32 {
    if k & 0x8000_0000 != 0 {
        k & 0x7fff_ffff
    } else {
        !k
    }
}

/// Rounds a score to 4 bits of mantissa (a relative error of at most 3 %). Why: a sharded
/// index stores every (term, section) score, and the low bits of an `f32` are noise that
/// gzip cannot shrink. Rounded as bfloat16 (7 bits), the low two bytes compressed to
/// nothing (shards −33 % gzip) but the third still held half of a common word's list (22
/// of 40 KB for *get* on the 141k-section mix); three bits fewer take a third of that off.
/// Rankings barely notice, as with Lucene's 4-bit length norms: a query's sum over several
/// terms still orders sections, and SciFact / JSQuAD keyword nDCG@10 went 0.6962 → 0.6993
/// and 0.9387 → 0.9380 (7 → 3 bits: 0.6967, 0.9385). Both layouts score through here, so
/// they still rank alike, bit for bit.
pub fn quantise(score: f32) -> f32 {
    if !score.is_finite() || score <= 0.0 {
        return score;
    }
    let half = 1u32 << (DROPPED_BITS - 1);
    f32::from_bits((score.to_bits() + half) & !((1u32 << DROPPED_BITS) - 1))
}

#[cfg(test)]
mod tests {
    use super::{quantise, sort_ranked, DROPPED_BITS};
    use proptest::prelude::*;

    proptest! {
        /// The order of a comparison sort by score (total order, best first), then ordinal;
        /// the scores come back bit for bit.
        #[test]
        fn ranked_lists_sort_as_by_comparison(
            list in proptest::collection::vec((0u32..50, proptest::num::f32::ANY), 0..120)
        ) {
            let mut ours = list.clone();
            sort_ranked(&mut ours);
            let mut want = list;
            want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let bits = |l: &[(u32, f32)]| l.iter().map(|&(s, v)| (s, v.to_bits())).collect::<Vec<_>>();
            prop_assert_eq!(bits(&ours), bits(&want));
        }
    }

    #[test]
    fn quantised_scores_keep_order_and_clear_the_low_bytes() {
        let mut prev = 0.0;
        for i in 1..10_000 {
            let x = i as f32 * 0.001_37;
            let q = quantise(x);
            assert_eq!(q.to_bits() & ((1 << DROPPED_BITS) - 1), 0, "{x}");
            assert!((q - x).abs() <= x / 32.0, "{x} → {q}");
            assert!(q >= prev, "order kept: {x}");
            prev = q;
        }
        assert_eq!(quantise(0.0), 0.0);
        assert_eq!(quantise(quantise(1.234)), quantise(1.234));
    }
}
