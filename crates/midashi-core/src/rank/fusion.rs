//! Combining the keyword and semantic legs of a hybrid query.
//!
//! Reciprocal rank fusion is the default: it needs no score calibration between BM25F and
//! cosine similarity, which live on unrelated scales. A linear blend of min-max normalised
//! scores is offered for those who tune it.

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

/// How to fuse.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "method")]
pub enum Fusion {
    /// Σ weight / (k + rank), rank starting at 1.
    Rrf {
        /// The RRF constant (60 in the original paper).
        k: f32,
        /// Weight of the keyword leg.
        keyword_weight: f32,
        /// Weight of the semantic leg.
        semantic_weight: f32,
    },
    /// keyword_weight · norm(bm25) + semantic_weight · norm(cosine), each min-max normalised
    /// over its own leg's candidates.
    Linear {
        /// Weight of the keyword leg.
        keyword_weight: f32,
        /// Weight of the semantic leg.
        semantic_weight: f32,
    },
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Rrf {
            k: 60.0,
            keyword_weight: 1.0,
            semantic_weight: 1.0,
        }
    }
}

/// Fuses two ranked lists of `(section, score)` (each best first) into one, best first;
/// ties go to the lower section ordinal so the order is deterministic.
pub fn fuse(keyword: &[(u32, f32)], semantic: &[(u32, f32)], fusion: Fusion) -> Vec<(u32, f32)> {
    let mut acc: HashMap<u32, f32> = HashMap::default();
    match fusion {
        Fusion::Rrf {
            k,
            keyword_weight,
            semantic_weight,
        } => {
            for (leg, w) in [(keyword, keyword_weight), (semantic, semantic_weight)] {
                for (rank, &(s, _)) in leg.iter().enumerate() {
                    *acc.entry(s).or_insert(0.0) += w / (k + rank as f32 + 1.0);
                }
            }
        }
        Fusion::Linear {
            keyword_weight,
            semantic_weight,
        } => {
            for (leg, w) in [(keyword, keyword_weight), (semantic, semantic_weight)] {
                let (lo, hi) = leg.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &(_, x)| {
                    (lo.min(x), hi.max(x))
                });
                let span = hi - lo;
                for &(s, x) in leg {
                    let norm = if span > 0.0 { (x - lo) / span } else { 1.0 };
                    *acc.entry(s).or_insert(0.0) += w * norm;
                }
            }
        }
    }
    let mut out: Vec<(u32, f32)> = acc.into_iter().collect();
    crate::rank::bm25::sort_ranked(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement_and_linear_normalises() {
        let kw = [(1, 9.0), (2, 5.0), (3, 1.0)];
        let sem = [(3, 0.9), (1, 0.8)];
        let fused = fuse(&kw, &sem, Fusion::default());
        assert_eq!(fused[0].0, 1, "first in one leg, second in the other");
        assert_eq!(fused.len(), 3);
        let lin = fuse(
            &kw,
            &sem,
            Fusion::Linear {
                keyword_weight: 1.0,
                semantic_weight: 1.0,
            },
        );
        assert_eq!(lin[0].0, 1);
        assert!((lin[0].1 - 1.0).abs() < 1e-6);
    }
}
