//! The ranking pipeline after scoring, one rule for both layouts: BM25F summed over a
//! plan's clauses (`accumulate`), the filters (`filters_pass`), the exact-heading lift
//! (`lift_exact_headings`); grouping by ancestor chains is `grouping.rs`. Each
//! layout hands in what it knows of a section; the arithmetic and the order of float
//! additions happen here once, so the two layouts rank alike, bit for bit.
use crate::analyzer::Analyzer;
use crate::answer::SearchOptions;
use crate::query::{QueryPlan, WeightedTerm};
use serde::{Deserialize, Serialize};
/// What ranking needs of a section, whatever leg found it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionFacts {
    /// 0–6.
    pub depth: u8,
    /// Number of sections below it (its descendants are the next `subtree` ordinals).
    pub subtree: u32,
    /// Version family (a versioned site's sections that are one section in several versions).
    pub family: Option<u32>,
    /// No text of its own ([`crate::rank::grouping::is_bare`]). Not in the facts' own
    /// encoding: the sharded files carry it in lists of their own, which a 1.11 reader
    /// leaves unread.
    #[serde(skip)]
    pub bare: bool,
}

/// What the keyword leg learnt of its candidates' [`SectionFacts`], by section ordinal (a
/// sharded index's postings carry them, so that ranking reads no other file). Tables over
/// every ordinal, made on the first fact, rather than a map: a common word's postings on a
/// large site are tens of thousands of sections, and hashing each one in and out was a
/// seventh of a query's time on powershell-docs. Column by column (5 bytes a section; the
/// families only once one is noted), not `Option<SectionFacts>` (20): the tables are made
/// for every query, and zeroing 2.8 MB of them on a 141k-section site showed in each
/// keystroke's time.
#[derive(Debug, Default)]
pub struct Seen {
    /// Per ordinal: the subtree, or [`Seen::UNSEEN`].
    subtree: Vec<u32>,
    /// Per ordinal: depth | bare << 3.
    flags: Vec<u8>,
    /// Per ordinal: the family; empty until a fact names one.
    family: Vec<Option<u32>>,
}

impl Seen {
    /// No facts noted (a real subtree is smaller: it lies inside the index).
    const UNSEEN: u32 = u32::MAX;

    /// The facts noted for section `s`, if any.
    #[inline(always)]
    pub fn get(&self, s: u32) -> Option<SectionFacts> {
        let i = s as usize;
        let subtree = *self.subtree.get(i)?;
        if subtree == Self::UNSEEN {
            return None;
        }
        let flags = self.flags[i];
        Some(SectionFacts {
            depth: flags & 7,
            subtree,
            family: self.family.get(i).copied().flatten(),
            bare: flags & 8 != 0,
        })
    }

    /// Notes the facts of section `s` of an index of `n` sections (a section past the
    /// index's end, from a damaged file, is not noted: the table never grows past `n`).
    #[inline(always)]
    pub fn insert(&mut self, n: usize, s: u32, f: SectionFacts) {
        let i = s as usize;
        if i >= n || f.subtree == Self::UNSEEN {
            return;
        }
        if self.subtree.len() < n {
            self.subtree.resize(n, Self::UNSEEN);
            self.flags.resize(n, 0);
        }
        self.subtree[i] = f.subtree;
        self.flags[i] = (f.depth & 7) | (u8::from(f.bare) << 3);
        if f.family.is_some() && self.family.len() < n {
            self.family.resize(n, None);
        }
        if let Some(slot) = self.family.get_mut(i) {
            *slot = f.family;
        }
    }
}

/// A section's heading as the exact-heading lift compares it with a query: its distinct
/// query terms, sorted. (The sharded layout's writer stores the same, per posting.)
pub fn heading_terms(analyzer: &Analyzer, heading: &str) -> Vec<String> {
    let mut have: Vec<String> = analyzer
        .analyze_query(heading)
        .into_iter()
        .filter(|t| !t.part)
        .map(|t| t.term)
        .collect();
    crate::sort::sort(&mut have);
    have.dedup();
    have
}

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
pub(crate) fn accumulate(
    n: usize,
    plan: &QueryPlan,
    mut scores: impl FnMut(&WeightedTerm, &mut dyn FnMut(u32, f32)),
) -> Vec<(u32, f32)> {
    let mut total = vec![0f32; n];
    // Room for every section up front: a common prefix touches most of a large site's
    // sections, and growing the list by doubling copied it again and again.
    let mut touched: Vec<u32> = Vec::with_capacity(n);
    let add = |total: &mut Vec<f32>, touched: &mut Vec<u32>, s: u32, v: f32| {
        if let Some(slot) = total.get_mut(s as usize) {
            if *slot == 0.0 {
                touched.push(s);
            }
            *slot += v;
        }
    };
    // Per clause of several alternatives: the best alternative's score of each section, and
    // the sections that have one, in the order first seen; per alternative, its terms' sum.
    let mut best = Scratch::default();
    let mut alt = Scratch::default();
    for clause in &plan.clauses {
        let single = clause.alternatives.len() == 1 && clause.alternatives[0].terms.len() == 1;
        for a in &clause.alternatives {
            // An alternative of one term (a completion, a correction) is its term's score:
            // straight to the clause's maximum, without a sum table to fill and drain (the
            // same value, in the same order: a posting's sum of one is the posting).
            let one_term = a.terms.len() == 1;
            for t in &a.terms {
                scores(t, &mut |s, score| {
                    let v = t.weight * score;
                    if single {
                        add(&mut total, &mut touched, s, v);
                    } else if one_term {
                        best.max(n, s, v);
                    } else {
                        alt.add(n, s, v);
                    }
                });
            }
            for (s, v) in alt.drain() {
                best.max(n, s, v);
            }
        }
        for (s, v) in best.drain() {
            add(&mut total, &mut touched, s, v);
        }
    }
    touched
        .into_iter()
        .map(|s| (s, total[s as usize]))
        .collect()
}

/// Scores by section ordinal for one clause or alternative: a table over the index's
/// sections (made on first use) and the ordinals that have an entry.
#[derive(Default)]
struct Scratch {
    value: Vec<f32>,
    has: Vec<bool>,
    order: Vec<u32>,
}

impl Scratch {
    /// The slot of section `s` of an index of `n` sections (none past the end: a damaged
    /// posting's ordinal never grows the table).
    #[inline(always)]
    fn slot(&mut self, n: usize, s: u32) -> Option<usize> {
        let i = s as usize;
        if i >= n {
            return None;
        }
        if self.value.len() < n {
            self.value.resize(n, 0.0);
            self.has.resize(n, false);
        }
        if !self.has[i] {
            self.has[i] = true;
            self.value[i] = 0.0;
            self.order.push(s);
        }
        Some(i)
    }

    #[inline(always)]
    fn add(&mut self, n: usize, s: u32, v: f32) {
        if let Some(i) = self.slot(n, s) {
            self.value[i] += v;
        }
    }

    #[inline(always)]
    fn max(&mut self, n: usize, s: u32, v: f32) {
        if let Some(i) = self.slot(n, s) {
            self.value[i] = self.value[i].max(v);
        }
    }

    /// The entries, in the order first seen, leaving the table empty.
    fn drain(&mut self) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (value, has) = (&self.value, &mut self.has);
        self.order.drain(..).map(move |s| {
            has[s as usize] = false;
            (s, value[s as usize])
        })
    }
}

/// How a section's heading compares with the query, for `lift_exact_headings`.
pub(crate) struct HeadingMatch {
    /// The heading says exactly what was asked (same length, same terms).
    pub exact: bool,
    /// The heading contains every query word.
    pub contains_all: bool,
    /// The section's depth.
    pub depth: u8,
}

/// A section whose heading says exactly what was asked comes first: its score is lifted
/// above the best non-exact score (keeping order among exact matches). Headings that merely
/// contain every query word get a smaller lift, larger for page-level headings (a page about
/// X beats a subsection mentioning X). `matching(i, s)` describes the heading of the `i`th
/// ranked section `s` (`None`: no match worth checking). Returns the sections lifted:
/// hybrid fusion keeps their keyword places ([`crate::rank::fusion::keep_places`]).
pub(crate) fn lift_exact_headings(
    ranked: &mut [(u32, f32)],
    mut matching: impl FnMut(usize, u32) -> Option<HeadingMatch>,
) -> Vec<u32> {
    let top = ranked.first().map_or(0.0, |r| r.1);
    let mut lifted = Vec::new();
    // Exact matches are near the top anyway; looking further only costs time.
    let head = ranked.len().min(LIFT_HEAD);
    for (i, r) in ranked[..head].iter_mut().enumerate() {
        let Some(m) = matching(i, r.0) else {
            continue;
        };
        if m.exact {
            r.1 += top;
            lifted.push(r.0);
        } else if m.contains_all {
            r.1 *= match m.depth {
                0 | 1 => 1.25,
                2 => 1.15,
                _ => 1.1,
            };
            lifted.push(r.0);
        }
    }
    if !lifted.is_empty() {
        // Only the head needs sorting again: a lift only raises scores, and every section
        // after the head was ranked below every section in it (by score, then ordinal), so
        // it still is. Re-sorting a common prefix's tens of thousands of candidates was a
        // tenth of such a keystroke's time.
        crate::rank::bm25::sort_ranked(&mut ranked[..head]);
    }
    lifted
}

/// How many of a ranked list's first sections the exact-heading lift looks at.
const LIFT_HEAD: usize = 200;

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
    use super::{accumulate, SectionFacts, Seen};
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
                    emit(s, v);
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
        }
    }

    #[test]
    fn seen_facts_stay_within_the_index() {
        let mut seen = Seen::default();
        let f = SectionFacts {
            depth: 2,
            ..SectionFacts::default()
        };
        assert!(seen.get(3).is_none());
        seen.insert(10, 3, f);
        assert_eq!(seen.get(3), Some(f));
        assert!(seen.get(4).is_none());
        // A damaged posting's section past the index's end is not noted (and allocates
        // nothing for it).
        seen.insert(10, u32::MAX, f);
        assert!(seen.get(u32::MAX).is_none());
        assert!(seen.subtree.len() <= 10 && seen.flags.len() <= 10);
        assert!(seen.family.is_empty(), "no family named: no family table");
    }

    #[test]
    fn seen_facts_come_back_as_noted() {
        let mut seen = Seen::default();
        let facts = [
            SectionFacts {
                depth: 6,
                subtree: 3,
                family: None,
                bare: true,
            },
            SectionFacts {
                depth: 0,
                subtree: 0,
                family: Some(7),
                bare: false,
            },
            SectionFacts {
                depth: 3,
                subtree: 1,
                family: Some(0),
                bare: true,
            },
        ];
        for (s, f) in facts.iter().enumerate() {
            seen.insert(5, s as u32 + 1, *f);
        }
        for (s, f) in facts.iter().enumerate() {
            assert_eq!(seen.get(s as u32 + 1), Some(*f));
        }
        assert!(seen.get(0).is_none() && seen.get(4).is_none());
        // Noted again (a section in several lists): the same facts.
        seen.insert(5, 1, facts[0]);
        assert_eq!(seen.get(1), Some(facts[0]));
    }
}
