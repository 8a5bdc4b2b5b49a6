//! The ranking pipeline after scoring, one rule for both layouts: BM25F summed over a
//! plan's clauses (`accumulate`) and the filters (`filters_pass`); the exact-heading lift
//! is `headings.rs`, grouping by ancestor chains `grouping.rs`. Each
//! layout hands in what it knows of a section; the arithmetic and the order of float
//! additions happen here once, so the two layouts rank alike, bit for bit.
use crate::answer::SearchOptions;
use crate::query::Clause;
use crate::query::{QueryPlan, WeightedTerm};
use crate::rank::bound;
pub use crate::rank::facts::{SectionFacts, Seen};
use crate::rank::topk::{Below, Bits, Partial, Pruning, Split};
use crate::rank::workspace::{Scratch, Sums, Totals};
/// Sums BM25F over a plan's clauses: each clause scores its best alternative, the clauses
/// add up. `scores` hands each term's `(section, score)` pairs to the callback. One
/// function for both layouts, so the float additions happen in the same order and the
/// totals agree to the bit. Returns the sections touched with their totals.
///
/// A clause of several alternatives (the word being typed and its completions, typo
/// corrections, synonyms) keeps its per-section scores in tables by ordinal, reset after
/// each use, rather than hash maps: a two-letter prefix on a large site completes to words
/// that hold most of its sections, and hashing them in and out (then sorting them) was a
/// quarter of such a keystroke's time. Each section gets one addition per clause, so the
/// totals do not depend on the order the sections are visited in.
#[cfg(test)]
pub(crate) fn accumulate(
    n: usize,
    plan: &QueryPlan,
    scores: impl FnMut(&WeightedTerm, &mut dyn FnMut(u32, f32, SectionFacts)),
) -> Vec<(u32, f32)> {
    let mut sums = Sums::default();
    let mut scores = scores;
    accumulate_above(
        n,
        plan,
        None,
        |t, _, emit, _| scores(t, emit),
        &mut Below::new(n, false),
        &mut sums,
    )
    .touched
}

/// What [`accumulate_above`] gives: the sections touched with their totals, and the θ a
/// section must reach to be ranked exactly — the bound's, or one raised while the essential
/// lists were walked ([`Partial`]); 0 without a bound.
pub(crate) struct Accumulated {
    pub touched: Vec<(u32, f32)>,
    pub theta: f32,
}

/// [`accumulate`], leaving out the postings that `pruning` rules out
/// ([`crate::rank::topk`]) and noting them in `below`: an essential clause's postings
/// below their floor, or (once earlier essential clauses were added up) unable to lift
/// their section's sum to θ ([`Partial`]), and a clause's that is not essential where no
/// essential clause found the section. A section that reaches θ keeps every posting that
/// makes its total, so the total is [`accumulate`]'s, bit for bit (the same additions in the
/// same order); one left partly out ranks below θ.
pub(crate) fn accumulate_above(
    n: usize,
    plan: &QueryPlan,
    pruning: Option<&Pruning>,
    mut scores: impl FnMut(
        &WeightedTerm,
        Option<Split<'_>>,
        &mut dyn FnMut(u32, f32, SectionFacts),
        &mut Below,
    ),
    below: &mut Below,
    sums: &mut Sums,
) -> Accumulated {
    let Sums {
        totals,
        best,
        alt,
        kept,
        partial,
    } = sums;
    // A bounded query's essential lists are walked first, in clause order, and their
    // postings settled: those left out are noted in `below`, the kept ones (section,
    // weighted score) kept in `kept`, each term's run in `runs`, so that the sums below
    // replay them instead of walking the same lists again (a typed prefix's completions on
    // a large site: the essential lists were 45–85 % of its slowest keystrokes' postings).
    // That walk marks the sections they hold, which the clauses that are not essential
    // count only for, and adds each clause up in `partial` for the next one's test.
    let mut runs: Vec<Option<(usize, usize)>> = Vec::new();
    kept.clear();
    let mut theta = pruning.map_or(0.0, |p| p.theta);
    let tested = pruning.map_or_else(Vec::new, |p| tested_clauses(plan, p));
    let found: Option<Bits> =
        match pruning.filter(|p| bound::ENABLED && (p.splits() || tested.contains(&true))) {
            None => None,
            Some(p) => {
                let splits = p.splits();
                let mut found = Bits::new(if splits { n } else { 0 });
                // Nothing after the last tested clause reads the sums so far.
                let last = tested.iter().rposition(|&t| t);
                partial.ready(n);
                let mut term = 0;
                for (c, clause) in plan.clauses.iter().enumerate() {
                    if !p.essential(c) {
                        for _ in clause.alternatives.iter().flat_map(|a| &a.terms) {
                            runs.push(None);
                            term += 1;
                        }
                        continue;
                    }
                    // The test of a term that is its alternative's only one (a word, a
                    // completion, a correction), once some clause was added up.
                    let test = tested[c].then(|| {
                        if let Some(kth) = partial.kth(p.depth) {
                            theta = theta.max(kth);
                        }
                        Partial {
                            sums: partial.values(),
                            // Added up so far: the essential clauses before this one (a
                            // tested clause is at or before the last).
                            rest: p.top_of(|o| o > c || o < c && !p.essential(o)),
                            reach: bound::reach_of(theta),
                        }
                    });
                    let first = runs.len();
                    for a in &clause.alternatives {
                        for t in &a.terms {
                            let split = Split {
                                floor: p.floor(term),
                                found: None,
                                partial: test.as_ref().filter(|_| a.terms.len() == 1),
                            };
                            term += 1;
                            let start = kept.len();
                            scores(
                                t,
                                Some(split),
                                &mut |s, score, _| {
                                    if splits {
                                        found.insert(s);
                                    }
                                    kept.push((s, t.weight * score));
                                },
                                below,
                            );
                            runs.push(Some((start, kept.len())));
                        }
                    }
                    if last.is_some_and(|l| c < l) {
                        add_clause(n, clause, &runs[first..], kept, partial, best, alt);
                    }
                }
                partial.clear();
                splits.then_some(found)
            }
        };
    // Tables kept between queries (`rank::workspace`): a common prefix touches most of a
    // large site's sections.
    totals.ready(n);
    // Per clause of several alternatives: the best alternative's score of each section, and
    // the sections that have one, in the order first seen; per alternative, its terms' sum.
    // The plan's terms in order, as `Pruning` numbers their floors.
    let mut term = 0;
    for (c, clause) in plan.clauses.iter().enumerate() {
        let terms = clause
            .alternatives
            .iter()
            .map(|a| a.terms.len())
            .sum::<usize>();
        // (A build without the bound settles nothing: `bound::ENABLED` leaves this out.)
        let settled = (runs.get(term..term + terms))
            .filter(|r| bound::ENABLED && r.iter().all(Option::is_some));
        if let Some(settled) = settled {
            // Settled by the first walk: its kept postings, in list order.
            add_clause(n, clause, settled, kept, totals, best, alt);
            term += terms;
            continue;
        }
        // An essential clause keeps the postings at or above their floor; one that is not,
        // those of the sections found.
        let essential = pruning.is_none_or(|p| p.essential(c));
        let single = clause.alternatives.len() == 1 && clause.alternatives[0].terms.len() == 1;
        for a in &clause.alternatives {
            // An alternative of one term (a completion, a correction) is its term's score:
            // straight to the clause's maximum, without a sum table to fill and drain (the
            // same value, in the same order: a posting's sum of one is the posting).
            let one_term = a.terms.len() == 1;
            for t in &a.terms {
                let mut add = |s: u32, v: f32| {
                    if single {
                        totals.add(s, v);
                    } else if one_term {
                        best.max(n, s, v);
                    } else {
                        alt.add(n, s, v);
                    }
                };
                // (An essential clause walked here: no clause splits, and none is tested.)
                let floor = match pruning {
                    Some(p) if essential => p.floor(term),
                    _ => f64::NEG_INFINITY,
                };
                let split = (bound::ENABLED && pruning.is_some()).then_some(Split {
                    floor,
                    found: found.as_ref().filter(|_| !essential),
                    partial: None,
                });
                scores(t, split, &mut |s, score, _| add(s, t.weight * score), below);
                term += 1;
            }
            for (s, v) in alt.drain() {
                best.max(n, s, v);
            }
        }
        for (s, v) in best.drain() {
            totals.add(s, v);
        }
    }
    Accumulated {
        touched: totals.take(),
        theta,
    }
}

/// Per clause of `plan`: whether its postings meet [`Partial`]'s test. An essential clause
/// after another, with a term that is its alternative's only one, whose lists hold at least
/// [`PARTIAL_FACTOR`] times the postings of the essential clauses before it and the
/// bounding factor ([`bound::WORTH_IT`]) times θ's depth: the test costs a k-th best of every section touched
/// so far and adding each earlier clause up once more, which a SciFact claim's dozen short
/// lists paid for without leaving much out (1.3× its instructions when every clause was
/// tested), where a typed prefix's completions after complete words hold tens of times
/// their postings. Postings unknown: every such clause is tested.
fn tested_clauses(plan: &QueryPlan, p: &Pruning) -> Vec<bool> {
    let mut before: Option<usize> = None;
    plan.clauses
        .iter()
        .enumerate()
        .map(|(c, clause)| {
            if !p.essential(c) {
                return false;
            }
            let single = clause.alternatives.iter().any(|a| a.terms.len() == 1);
            let own = p.postings.get(c).copied();
            let tested = match (before, own) {
                (None, _) => false,
                (Some(_), None) => single,
                (Some(b), Some(own)) => {
                    single
                        && own >= b.saturating_mul(PARTIAL_FACTOR)
                        && own >= p.depth.saturating_mul(p.worth)
                }
            };
            before = Some(before.unwrap_or(0).saturating_add(own.unwrap_or(0)));
            tested
        })
        .collect()
}

/// See [`tested_clauses`]. Measured on the mix (instructions a round against no test): its
/// 30 slowest keystrokes 0.825× at 1, 0.828× at 2, 0.837× at 4; 600 of its keystrokes
/// 0.915×, 0.918×, 0.928×; its top 10 0.993×, 0.994×, 0.999×; SciFact 1.000× at each.
const PARTIAL_FACTOR: usize = 1;

/// Adds one clause's kept postings (`runs`, one per term of the clause, into `kept`) to
/// `to` as the sums above do: each section's best alternative, an alternative's terms
/// summed.
fn add_clause(
    n: usize,
    clause: &Clause,
    runs: &[Option<(usize, usize)>],
    kept: &[(u32, f32)],
    to: &mut Totals,
    best: &mut Scratch,
    alt: &mut Scratch,
) {
    let single = clause.alternatives.len() == 1 && clause.alternatives[0].terms.len() == 1;
    let mut runs = runs.iter();
    for a in &clause.alternatives {
        let one_term = a.terms.len() == 1;
        for _ in &a.terms {
            let Some(&Some((from, end))) = runs.next() else {
                continue;
            };
            for &(s, v) in &kept[from..end] {
                if single {
                    to.add(s, v);
                } else if one_term {
                    best.max(n, s, v);
                } else {
                    alt.add(n, s, v);
                }
            }
        }
        for (s, v) in alt.drain() {
            best.max(n, s, v);
        }
    }
    for (s, v) in best.drain() {
        to.add(s, v);
    }
}

/// The filters of `opts`, one rule for both layouts: what a section's document says of its
/// path (asked only under a path filter), its depth (only under a depth filter), category,
/// language, version (`facets`, in that order) and tags.
pub(crate) fn filters_pass(
    opts: &SearchOptions,
    path_starts_with: impl FnOnce(&str) -> bool,
    depth: impl FnOnce() -> u8,
    facets: [Option<&str>; 3],
    has_tag: impl Fn(&str) -> bool,
) -> bool {
    let [category, lang, version] = facets;
    let is =
        |want: &Option<String>, have: Option<&str>| want.as_deref().is_none_or(|w| have == Some(w));
    opts.path
        .as_ref()
        .is_none_or(|p| path_starts_with(p.trim_start_matches('/')))
        && (opts.depth.is_empty() || opts.depth.contains(&depth()))
        && is(&opts.category, category)
        && is(&opts.lang, lang)
        && is(&opts.version, version)
        && opts.tags.iter().all(|t| has_tag(t))
}

#[cfg(test)]
mod tests {
    use super::{accumulate, accumulate_above, Below, SectionFacts, Sums};
    use crate::query::{Alternative, Clause, QueryPlan, WeightedTerm};
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// What `accumulate` computes, written plainly: per clause, each section's best
    /// alternative (an alternative's terms add up), added to the section's total.
    fn plainly(n: usize, plan: &QueryPlan, lists: &[Vec<(u32, f32)>]) -> HashMap<u32, f32> {
        let mut total: HashMap<u32, f32> = HashMap::new();
        for clause in &plan.clauses {
            let mut best: HashMap<u32, f32> = HashMap::new();
            for a in &clause.alternatives {
                let mut sum: HashMap<u32, f32> = HashMap::new();
                for t in &a.terms {
                    for &(s, v) in &lists[t.offset as usize] {
                        if (s as usize) < n {
                            *sum.entry(s).or_insert(0.0) += t.weight * v;
                        }
                    }
                }
                for (s, v) in sum {
                    let e = best.entry(s).or_insert(0.0);
                    *e = e.max(v);
                }
            }
            for (s, v) in best {
                *total.entry(s).or_insert(0.0) += v;
            }
        }
        total
    }

    proptest! {
        /// Clauses of one term, of alternatives (completions, corrections) and of phrases
        /// (several terms in one alternative), over lists that share sections: the tables
        /// by ordinal give every section the total a plain reading does, to the bit, and
        /// name each section once.
        #[test]
        fn accumulate_sums_each_clause_best_alternative(
            lists in prop::collection::vec(
                prop::collection::btree_map(0u32..40, 0.0f32..9.0, 0..30), 1..6),
            shape in prop::collection::vec(
                prop::collection::vec(prop::collection::vec((0usize..6, 0.5f32..1.0), 1..3), 1..4),
                1..4),
        ) {
            let n = 36; // some postings lie past the end, as a damaged list's would
            let lists: Vec<Vec<(u32, f32)>> =
                lists.into_iter().map(|m| m.into_iter().collect()).collect();
            let plan = QueryPlan {
                clauses: shape
                    .iter()
                    .map(|alts| Clause {
                        grammar: false,
                        alternatives: alts
                            .iter()
                            .map(|terms| Alternative {
                                terms: terms
                                    .iter()
                                    .map(|&(l, weight)| WeightedTerm {
                                        term: String::new(),
                                        offset: (l % lists.len()) as u64,
                                        weight,
                                    })
                                    .collect(),
                            })
                            .collect(),
                    })
                    .collect(),
                ..QueryPlan::default()
            };
            let got = accumulate(n, &plan, |t, emit| {
                for &(s, v) in &lists[t.offset as usize] {
                    emit(s, v, SectionFacts::default());
                }
            });
            let want = plainly(n, &plan, &lists);
            let mut sections: Vec<u32> = got.iter().map(|r| r.0).collect();
            sections.sort_unstable();
            sections.dedup();
            prop_assert_eq!(sections.len(), got.len(), "a section named twice");
            for (s, v) in &got {
                prop_assert_eq!(v.to_bits(), want[s].to_bits(), "section {}", s);
            }
            let nonzero = want.values().filter(|v| **v != 0.0).count();
            prop_assert!(got.len() >= nonzero);

            // With a bound (`rank::topk`): at least k sections reach θ, and every section
            // that does has the same total, to the bit; nothing above θ is invented. One
            // workspace for every run, as an index keeps it between queries: each leaves it
            // as it found it.
            let mut sums = Sums::default();
            for k in [1usize, 3, 8] {
                let stats = |t: &WeightedTerm| {
                    let mut scores: Vec<f32> = lists[t.offset as usize]
                        .iter()
                        .filter(|p| (p.0 as usize) < n)
                        .map(|p| p.1)
                        .filter(|&v| v != 0.0)
                        .collect();
                    scores.sort_by(|a, b| b.total_cmp(a));
                    let max = scores.first().copied().unwrap_or(0.0);
                    Some((max, scores.get(k - 1).copied().unwrap_or(0.0)))
                };
                let Some(pruning) = crate::rank::bound::plan(&plan, k, stats) else {
                    continue;
                };
                let mut below = Below::new(n, false);
                let pruned = accumulate_above(n, &plan, Some(&pruning), |t, split, emit, below| {
                    for &(s, v) in &lists[t.offset as usize] {
                        let posting = (s, v, SectionFacts::default());
                        match split {
                            Some(split) => split.hand_over(t.weight, posting, emit, below),
                            None => emit(s, v, posting.2),
                        }
                    }
                }, &mut below, &mut sums);
                // The θ the walk ranked by: the bound's, or one it raised (at most the k-th
                // best total, so still reached by k sections).
                let theta = pruned.theta;
                prop_assert!(theta >= pruning.theta);
                let pruned = pruned.touched;
                let reach: Vec<(u32, f32)> = want
                    .iter()
                    .filter(|(s, v)| **v >= theta && (**s as usize) < n)
                    .map(|(s, v)| (*s, *v))
                    .collect();
                prop_assert!(reach.len() >= k, "θ {} reached by {}", theta, reach.len());
                for (s, v) in &reach {
                    let kept = pruned.iter().find(|r| r.0 == *s);
                    prop_assert_eq!(kept.map(|r| r.1.to_bits()), Some(v.to_bits()), "section {} θ {}", s, theta);
                }
                for (s, v) in &pruned {
                    if *v >= theta {
                        prop_assert_eq!(v.to_bits(), want[s].to_bits(), "section {}", s);
                    }
                }
            }
            let again = accumulate_above(n, &plan, None, |t, _, emit, _| {
                for &(s, v) in &lists[t.offset as usize] {
                    emit(s, v, SectionFacts::default());
                }
            }, &mut Below::new(n, false), &mut sums);
            prop_assert_eq!(&again.touched, &got, "the kept workspace changed a sum");
        }
    }
}
