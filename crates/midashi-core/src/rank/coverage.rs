//! How much of a Japanese or Korean question a section holds, for the keyword leg that
//! hybrid fusion reads.
//!
//! Why: Japanese and Korean are indexed as overlapping character bigrams, so a question typed
//! as a sentence is a dozen clauses or more, and BM25's sum over them ranks a section that
//! repeats two of the question's rarer bigrams above the one that holds nearly all of them
//! once. The semantic leg already says which sections are *about* the question; what fusion
//! needs from the keyword leg is which sections *contain* it. So for such a query the keyword
//! head that fusion reads is ordered coverage first: min-max BM25 (0–1) plus
//! [`COVERAGE_WEIGHT`] × the idf-weighted share of the query's clauses a section matches.
//!
//! Measured (`build-index eval <set> --mode hybrid --model models/multilingual-e5-small`,
//! nDCG@10): JSQuAD 0.9571 → 0.9602, KorQuAD 1.0 dev 0.9704 → 0.9708, the Japanese Vue
//! question set 0.6364 → 0.6353 (bench/results/2026-11-28-cjk-coverage.md). Keyword mode is
//! left as BM25F ranks it (issue #24 keeps its ranking exact); Chinese (no kana, no hangul)
//! is left as it is — coverage cost CMRC 2018 0.007 in keyword mode, where a Chinese
//! question's bigrams are less often all in its answer.
//!
//! The shares are a second pass over the query's postings, made only for such a query in
//! hybrid mode (it has just paid for a query encoding, ~16 ms natively, against this pass's
//! fraction of a millisecond), so the keyword leg's hot loop carries nothing for it.

use crate::query::{QueryPlan, WeightedTerm};
use crate::rank::bm25::{idf, sort_ranked};

/// Weight of the coverage share against min-max BM25's 0–1: coverage decides, BM25 orders
/// sections that hold about the same share (JSQuAD hybrid offline over the legs' runs: 4 →
/// 0.9599, 8 → 0.9596, 100 → 0.9590; in the engine, hiragana counted, 1–8 within
/// 0.9583–0.9592).
pub const COVERAGE_WEIGHT: f32 = 4.0;

/// Keyword results re-ordered by coverage: the first this many (the fusion head).
pub const COVERAGE_HEAD: usize = crate::rank::fusion::FUSION_HEAD;

/// Whether `query` is written in a script that the analyzer cuts into bigrams and whose
/// questions coverage ranks better: kana (Japanese) or hangul (Korean). Kanji alone may be
/// Chinese, which coverage does not help.
pub fn wants_coverage(query: &str) -> bool {
    query.chars().any(|c| {
        matches!(c,
            '\u{3041}'..='\u{30ff}'      // hiragana, katakana
            | '\u{1100}'..='\u{11ff}'    // hangul jamo
            | '\u{3130}'..='\u{318f}'    // hangul compatibility jamo
            | '\u{ac00}'..='\u{d7a3}') // hangul syllables
    })
}

/// Each section's share (0–1) of the plan's clauses, weighted by each clause's idf over the
/// `n` sections. A clause the query wrote in hiragana alone
/// ([`crate::query::Clause::grammar`]: particles and endings, how a Japanese question is
/// phrased rather than what it asks) does not count (JSQuAD hybrid: 0.9588 counting them,
/// 0.9602 not). A clause matches a section that any of its alternatives' terms holds; its
/// document frequency is the number of such sections. `postings` hands each term's sections
/// to the callback. Empty when the plan has no clause with postings.
pub fn shares(
    n: usize,
    plan: &QueryPlan,
    mut postings: impl FnMut(&WeightedTerm, &mut dyn FnMut(u32)),
) -> Vec<f32> {
    let mut cover = vec![0f32; n];
    // The clause that last counted each section: a section counts once per clause however
    // many alternatives it holds.
    let mut stamp = vec![u32::MAX; n];
    let mut matched: Vec<u32> = Vec::new();
    let mut total = 0f32;
    for (c, clause) in plan.clauses.iter().enumerate() {
        if clause.grammar {
            continue;
        }
        matched.clear();
        for t in clause.alternatives.iter().flat_map(|a| a.terms.iter()) {
            postings(t, &mut |s| {
                if let Some(slot) = stamp.get_mut(s as usize) {
                    if *slot != c as u32 {
                        *slot = c as u32;
                        matched.push(s);
                    }
                }
            });
        }
        if matched.is_empty() {
            continue;
        }
        let w = idf(n as u32, matched.len() as f64);
        total += w;
        for &s in &matched {
            cover[s as usize] += w;
        }
    }
    if total <= 0.0 {
        return Vec::new();
    }
    for v in &mut cover {
        *v /= total;
    }
    cover
}

/// The keyword leg's head (best first) ordered coverage first: min-max BM25 over the head
/// plus [`COVERAGE_WEIGHT`] × `share`. Sections past the head are dropped: fusion reads the
/// head only.
pub fn by_coverage(ranked: &[(u32, f32)], share: &[f32]) -> Vec<(u32, f32)> {
    let head = &ranked[..ranked.len().min(COVERAGE_HEAD)];
    if share.is_empty() {
        return head.to_vec();
    }
    let (lo, hi) = head.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &(_, x)| {
        (lo.min(x), hi.max(x))
    });
    let span = hi - lo;
    let mut out: Vec<(u32, f32)> = head
        .iter()
        .map(|&(s, x)| {
            let norm = if span > 0.0 { (x - lo) / span } else { 1.0 };
            let held = share.get(s as usize).copied().unwrap_or(0.0);
            (s, norm + COVERAGE_WEIGHT * held)
        })
        .collect();
    sort_ranked(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{Alternative, Clause};

    fn term(offset: u64) -> WeightedTerm {
        WeightedTerm {
            term: String::new(),
            offset,
            weight: 1.0,
        }
    }

    fn clause(offsets: &[u64]) -> Clause {
        Clause {
            alternatives: offsets
                .iter()
                .map(|&o| Alternative {
                    terms: vec![term(o)],
                })
                .collect(),
            grammar: false,
        }
    }

    #[test]
    fn scripts_that_want_coverage() {
        assert!(wants_coverage("日本の首都はどこですか"));
        assert!(wants_coverage("한국의 수도는"));
        assert!(wants_coverage("カタカナ"));
        assert!(!wants_coverage("中国的首都是哪里"), "Chinese keeps BM25");
        assert!(!wants_coverage("borrow checker"));
    }

    #[test]
    fn a_section_holding_every_clause_leads() {
        // Clause 0 (rare) is in sections 1 and 2; clause 1 (two alternatives) in 2 and 3 —
        // section 2 through both alternatives, counted once; clause 2 nowhere.
        let lists: Vec<Vec<u32>> = vec![vec![1, 2], vec![2, 3], vec![2], vec![]];
        let plan = QueryPlan {
            clauses: vec![clause(&[0]), clause(&[1, 2]), clause(&[3])],
            ..QueryPlan::default()
        };
        let share = shares(10, &plan, |t, emit| {
            for &s in &lists[t.offset as usize] {
                emit(s);
            }
        });
        assert!((share[2] - 1.0).abs() < 1e-6, "{share:?}");
        assert!(share[1] > 0.0 && share[1] < 1.0);
        assert_eq!(share[0], 0.0);
        // Section 1 scores far higher with BM25 (a rare word repeated), 2 holds the query.
        let ranked = [(1, 9.0), (3, 4.0), (2, 3.0)];
        let ordered = by_coverage(&ranked, &share);
        assert_eq!(ordered[0].0, 2);
        assert!(ordered.windows(2).all(|w| w[0].1 >= w[1].1));
        // No clause matched anything: the head as it was.
        let none = shares(10, &QueryPlan::default(), |_, _| {});
        assert!(none.is_empty());
        assert_eq!(by_coverage(&ranked, &none), ranked);
    }

    #[test]
    fn particles_and_endings_do_not_count() {
        // Which clauses are grammar the planner says (`query::tests`: written in hiragana in
        // the query, katakana being content); here 「のは」 is.
        let mut plan = QueryPlan {
            clauses: vec![clause(&[0]), clause(&[1])],
            ..QueryPlan::default()
        };
        plan.clauses[1].grammar = true;
        // Section 1 holds only the particle: it holds none of what was asked.
        let lists: Vec<Vec<u32>> = vec![vec![2], vec![1, 2]];
        let share = shares(4, &plan, |t, emit| {
            for &s in &lists[t.offset as usize] {
                emit(s);
            }
        });
        assert_eq!(share[1], 0.0);
        assert!((share[2] - 1.0).abs() < 1e-6);
    }

    #[test]
    fn damaged_postings_past_the_end_are_ignored() {
        let plan = QueryPlan {
            clauses: vec![clause(&[0])],
            ..QueryPlan::default()
        };
        let share = shares(4, &plan, |_, emit| {
            emit(2);
            emit(u32::MAX);
        });
        assert_eq!(share.len(), 4);
        assert!((share[2] - 1.0).abs() < 1e-6);
    }
}
