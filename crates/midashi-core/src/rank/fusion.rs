//! Combining the keyword and semantic legs of a hybrid query.
//!
//! A linear blend of min-max normalised scores is the default: each leg's scores are mapped
//! to 0–1 over its own head, so how far ahead a leg's best result is still counts, where
//! reciprocal rank fusion keeps only ranks and lets a leg that merely agrees half-well
//! outvote one that is sure. Measured with all-MiniLM-L6-v2 (`build-index eval`): SciFact
//! nDCG@10 keyword 0.699, semantic 0.654, RRF 0.718, linear 0.736; the Rust-book question
//! set (`bench/questions`) keyword 0.752, semantic 0.499, RRF 0.735 (below keyword),
//! linear 0.768. RRF stays an option.
//!
//! The default, [`Fusion::Auto`], is that blend with the semantic leg at half weight for a
//! query that names what it looks for — a heading's words, an identifier, a few keywords —
//! and at full weight for one that reads as a question (`search::policy::is_question`, the
//! rule by which a browser fetches the semantic leg at all). A name typed as a query is
//! the keyword leg's strength; the semantic leg's is a question worded unlike its answer.
//! Measured (`build-index eval`, nDCG@10, equal weights → auto): Vue docs ja question set
//! with multilingual-e5-small 0.586 → 0.604 (keyword 0.575), the Rust-book set 0.815 →
//! 0.818 (keyword 0.792), SciFact 0.736 → 0.735, JSQuAD 0.953 → 0.953; weighting every
//! query's semantic leg by half instead: Rust book 0.810 (its questions lose), Vue ja 0.601.
//!
//! JSQuAD with multilingual-e5-small (keyword 0.940, semantic 0.929 with sections embedded as
//! passages): 0.957 fusing BM25's own order, and no blend tried offline over the legs' runs
//! (`build-index eval --run`) did better — weights 0.5–2, heads of 30–200, z-scores:
//! 0.9541–0.9574. What moved it was the keyword leg's order for a Japanese or Korean
//! question: coverage first ([`crate::rank::coverage`], applied in `search::semantic`), 0.9602.
//!
//! A static table's leg (`vectors::table`: a question's vector as the mean of its pieces'
//! rows) is a coarser estimate of the same meaning, and for a question it weighs
//! [`TABLE_QUESTION_SEMANTIC_WEIGHT`]. Measured (`build-index eval --semantic static
//! --semantic-weight w`, the sets' questions, w = 1 / 0.75 / 0.5): the Rust book 0.7228 /
//! 0.7271 / 0.7399, Vue ja 0.5293 / 0.5480 / 0.5194, JSQuAD 0.9477 / 0.9501 / 0.9513; 0.75
//! is the one weight better than 1 on all three. The default hybrid, 1 → 0.75: the Rust book
//! 0.8140 → 0.8165, Vue ja 0.6508 → 0.6561, JSQuAD 0.9477 → 0.9500, SciFact 0.7331 → 0.7350.

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

/// Ranked results of each leg that fusion reads: deep tails only add noise (to RRF), and the
/// HNSW graph keeps this many candidates (`vectors::ann::EF_SEARCH`) so that a large site's
/// semantic leg spans as many as an exact scan's.
pub const FUSION_HEAD: usize = 200;

/// How to fuse.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "method")]
pub enum Fusion {
    /// The default: [`Fusion::Linear`] with equal weights for a query that reads as a
    /// question, and the semantic leg at [`KEYWORD_STYLE_SEMANTIC_WEIGHT`] for any other
    /// ([`Fusion::for_query`]).
    #[default]
    Auto,
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

/// The semantic leg's weight, against the keyword leg's 1, in [`Fusion::Auto`]'s blend for a
/// query that does not read as a question.
pub const KEYWORD_STYLE_SEMANTIC_WEIGHT: f32 = 0.5;

/// The semantic leg's weight in [`Fusion::Auto`]'s blend for a question whose vector a static
/// table gave (the encoder's leg weighs 1): see the module's notes.
pub const TABLE_QUESTION_SEMANTIC_WEIGHT: f32 = 0.75;

impl Fusion {
    /// The fusion a query gets: [`Fusion::Auto`] resolved by whether the query reads as a
    /// question and whether its vector came from a static table (`table`) or an encoder; an
    /// explicit method as it is.
    pub fn for_query(self, question: bool, table: bool) -> Fusion {
        match self {
            Fusion::Auto => Fusion::Linear {
                keyword_weight: 1.0,
                semantic_weight: match (question, table) {
                    (true, false) => 1.0,
                    (true, true) => TABLE_QUESTION_SEMANTIC_WEIGHT,
                    (false, _) => KEYWORD_STYLE_SEMANTIC_WEIGHT,
                },
            },
            explicit => explicit,
        }
    }
}

/// Fuses two ranked lists of `(section, score)` (each best first) into one, best first;
/// ties go to the lower section ordinal so the order is deterministic. [`Fusion::Auto`] not
/// resolved for a query ([`Fusion::for_query`]) blends as for a question.
pub fn fuse(keyword: &[(u32, f32)], semantic: &[(u32, f32)], fusion: Fusion) -> Vec<(u32, f32)> {
    let mut acc: HashMap<u32, f32> = HashMap::default();
    match fusion {
        Fusion::Auto => return fuse(keyword, semantic, fusion.for_query(true, false)),
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

/// The hybrid list a search box shows and counts: the fused heads without the sections that
/// only the semantic leg found below `floor`, then the keyword leg's matches beyond its head,
/// in its order.
///
/// Why: a sentence model places every section at some similarity to any query, so fusing the
/// semantic head as it is made every answer about as long as the head — "109 results" for
/// any query of a 139-section site, filter chips counting unrelated pages. A section counts
/// when it holds the query's words or lies clearly above what nonsense reaches
/// (`vectors::noise`). The fused heads' order is kept, so the page's ranking is unchanged.
pub fn counted(
    fused: Vec<(u32, f32)>,
    keyword: &[(u32, f32)],
    semantic_head: &[(u32, f32)],
    floor: f32,
) -> Vec<(u32, f32)> {
    let words: rustc_hash::FxHashSet<u32> = keyword.iter().map(|r| r.0).collect();
    let below: rustc_hash::FxHashSet<u32> = semantic_head
        .iter()
        .filter(|&&(s, sim)| sim < floor && !words.contains(&s))
        .map(|r| r.0)
        .collect();
    let mut out: Vec<(u32, f32)> = fused
        .into_iter()
        .filter(|r| !below.contains(&r.0))
        .collect();
    let listed: rustc_hash::FxHashSet<u32> = out.iter().map(|r| r.0).collect();
    let tail: Vec<u32> = keyword
        .iter()
        .map(|r| r.0)
        .filter(|s| !listed.contains(s))
        .collect();
    // Not above any fused score, and not increasing: grouping keeps places, so the tail
    // stays in the keyword order.
    let base = out.last().map_or(1.0, |r| r.1).max(0.0);
    let n = tail.len() as f32 + 1.0;
    out.extend(
        tail.into_iter()
            .enumerate()
            .map(|(i, s)| (s, base * (n - 1.0 - i as f32) / n)),
    );
    out
}

/// How many of the keyword leg's first places a heading match keeps in a hybrid list: the
/// results a search box shows.
pub const ANCHORED_PLACES: usize = 10;

/// The sections of `lifted` (headings holding every query word) among the first
/// [`ANCHORED_PLACES`] of the keyword leg's `ranked` list, with their places.
pub(crate) fn anchored(ranked: &[(u32, f32)], lifted: &[u32]) -> Vec<(u32, usize)> {
    ranked
        .iter()
        .take(ANCHORED_PLACES)
        .enumerate()
        .filter(|(_, (s, _))| lifted.contains(s))
        .map(|(i, &(s, _))| (s, i))
        .collect()
}

/// A fused list in which each `anchored` section stands at its keyword place again.
///
/// Why: both legs count alike in fusion, so a section that only the keyword leg finds —
/// "The Borrow Checker" for `borrow checker`, whose text the model places far from the two
/// words — fell from first to tenth, under sections both legs find half-well. A heading
/// holding every query word is the strongest evidence a docs query has; the semantic leg
/// still fills every other place. Scores stay non-increasing: an anchored section takes the
/// larger of its fused score and the score of the result after it, capped by the one
/// before.
pub fn keep_places(fused: Vec<(u32, f32)>, anchored: &[(u32, usize)]) -> Vec<(u32, f32)> {
    if anchored.is_empty() {
        return fused;
    }
    let own = |s: u32| fused.iter().find(|r| r.0 == s).map_or(0.0, |r| r.1);
    let scores: Vec<f32> = anchored.iter().map(|&(s, _)| own(s)).collect();
    let rest: Vec<(u32, f32)> = fused
        .iter()
        .copied()
        .filter(|r| !anchored.iter().any(|a| a.0 == r.0))
        .collect();
    let mut out: Vec<(u32, f32)> = Vec::with_capacity(rest.len() + anchored.len());
    let mut next_anchor = 0;
    let mut rest_at = 0;
    while next_anchor < anchored.len() || rest_at < rest.len() {
        let anchor_due = next_anchor < anchored.len()
            && (anchored[next_anchor].1 <= out.len() || rest_at == rest.len());
        if anchor_due {
            let ceiling = out.last().map_or(f32::INFINITY, |r| r.1);
            let after = rest.get(rest_at).map_or(0.0, |r| r.1);
            let score = scores[next_anchor].max(after).min(ceiling);
            out.push((anchored[next_anchor].0, score));
            next_anchor += 1;
        } else {
            let (s, score) = rest[rest_at];
            let ceiling = out.last().map_or(f32::INFINITY, |r| r.1);
            out.push((s, score.min(ceiling)));
            rest_at += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement_and_linear_normalises() {
        let kw = [(1, 9.0), (2, 5.0), (3, 1.0)];
        let sem = [(3, 0.9), (1, 0.8)];
        let rrf = Fusion::Rrf {
            k: 60.0,
            keyword_weight: 1.0,
            semantic_weight: 1.0,
        };
        let fused = fuse(&kw, &sem, rrf);
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

    #[test]
    fn auto_fusion_leans_on_keywords_unless_the_query_is_a_question() {
        // The keyword leg is sure of 1; the semantic leg prefers 2, which the keyword leg
        // ranks half as high.
        let kw = [(1, 10.0), (2, 5.0), (3, 0.1)];
        let sem = [(2, 0.9), (3, 0.8), (1, 0.1)];
        let first = |f: Fusion| fuse(&kw, &sem, f)[0].0;
        assert_eq!(
            first(Fusion::Auto.for_query(false, false)),
            1,
            "a name typed as a query"
        );
        assert_eq!(first(Fusion::Auto.for_query(true, false)), 2, "a question");
        assert_eq!(
            Fusion::Auto.for_query(true, false),
            Fusion::Linear {
                keyword_weight: 1.0,
                semantic_weight: 1.0
            }
        );
        // A static table's question leans on its leg less than an encoder's.
        assert_eq!(
            Fusion::Auto.for_query(true, true),
            Fusion::Linear {
                keyword_weight: 1.0,
                semantic_weight: TABLE_QUESTION_SEMANTIC_WEIGHT
            }
        );
        // Explicit methods are kept for every query.
        let rrf = Fusion::Rrf {
            k: 60.0,
            keyword_weight: 1.0,
            semantic_weight: 2.0,
        };
        assert_eq!(rrf.for_query(false, true), rrf);
        assert_eq!(Fusion::default(), Fusion::Auto);
        assert_eq!(
            serde_json::to_string(&Fusion::Auto).unwrap(),
            r#"{"method":"auto"}"#
        );
    }

    #[test]
    fn heading_matches_keep_their_keyword_places() {
        // Fusion put the keyword leg's first result (7) fourth.
        let fused = vec![(1, 0.05), (2, 0.04), (3, 0.03), (7, 0.02), (4, 0.01)];
        let kept = keep_places(fused.clone(), &[(7, 0), (4, 2)]);
        let order: Vec<u32> = kept.iter().map(|r| r.0).collect();
        assert_eq!(order, [7, 1, 4, 2, 3]);
        assert!(kept.windows(2).all(|w| w[0].1 >= w[1].1), "{kept:?}");
        // A section fusion dropped (beyond both heads) comes back at its place.
        let kept = keep_places(fused.clone(), &[(9, 1)]);
        assert_eq!(kept[1].0, 9);
        assert_eq!(kept.len(), 6);
        // Places past the end are the end.
        let kept = keep_places(vec![(1, 0.5)], &[(9, 5)]);
        assert_eq!(kept, [(1, 0.5), (9, 0.0)]);
        assert_eq!(keep_places(fused.clone(), &[]), fused);
    }

    #[test]
    fn counted_keeps_word_matches_and_semantic_hits_above_the_floor() {
        // Keyword matches 1, 2 (head) and 8, 9 (beyond it); the semantic head 3 (0.7),
        // 1 (0.2), 4 (0.1).
        let keyword = [(1, 5.0), (2, 4.0), (8, 0.5), (9, 0.4)];
        let semantic = [(3, 0.7), (1, 0.2), (4, 0.1)];
        let fused = fuse(&keyword[..2], &semantic, Fusion::Auto);
        let shown = counted(fused.clone(), &keyword, &semantic, 0.3);
        let order: Vec<u32> = shown.iter().map(|r| r.0).collect();
        // 4 is below the floor and holds no query word: gone; 1 holds them: kept at its
        // fused place; the keyword tail follows in its own order.
        let head: Vec<u32> = fused.iter().map(|r| r.0).filter(|&s| s != 4).collect();
        assert_eq!(order[..3], head[..]);
        assert_eq!(order[3..], [8, 9]);
        assert!(shown.windows(2).all(|w| w[0].1 >= w[1].1), "{shown:?}");
        // Without a floor every fused section counts.
        assert_eq!(
            counted(fused.clone(), &keyword, &semantic, f32::NEG_INFINITY).len(),
            6
        );
        // Nothing matched and nothing above the floor: an empty answer.
        assert!(counted(fuse(&[], &semantic, Fusion::Auto), &[], &semantic, 0.9).is_empty());
    }
}
