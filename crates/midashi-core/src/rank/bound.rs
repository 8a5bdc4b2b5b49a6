//! The bound of a query's scores ([`crate::rank::topk`]): θ and each posting's floor from
//! its lists' largest and k-th largest scores. Feature `bounded`, in every wasm module; without
//! it (`bound_off.rs`) no query is bounded and every candidate is ranked — the same pages,
//! exact counts, ~8 KB gzip less of module (unoptimised wasm, 2026-12-06).
use crate::query::{QueryPlan, WeightedTerm};
use crate::rank::topk::Pruning;

/// Whether this build bounds queries (a constant, so that a build without the bound compiles
/// its checks away).
pub(crate) const ENABLED: bool = true;

/// Relative slack on θ: a sum of `MAX_TERMS` non-negative f32 scores is within 64 × 2⁻²⁴ of
/// its exact value, so a posting is left out only when its bound is below θ by more.
const MARGIN: f64 = 1e-5;

/// Plans of more terms are ranked whole: the bound's float slack ([`MARGIN`]) covers the
/// rounding of a sum of at most this many scores.
const MAX_TERMS: usize = 64;

/// Each clause's postings (`len`: each term's), when bounding `plan` can pay for reading its
/// lists' score columns first: its lists hold `factor` ([`WORTH_IT`] by default) times `k`
/// postings or more. Below that,
/// ranking every candidate costs little (JSQuAD's p50 grew a fifth with every query
/// bounded).
pub(crate) fn worth_it(
    plan: &QueryPlan,
    k: usize,
    factor: usize,
    mut len: impl FnMut(&WeightedTerm) -> Option<usize>,
) -> Option<Vec<usize>> {
    let mut per_clause = Vec::with_capacity(plan.clauses.len());
    for c in &plan.clauses {
        let mut postings = 0usize;
        for t in c.alternatives.iter().flat_map(|a| &a.terms) {
            postings = postings.saturating_add(len(t)?);
        }
        per_clause.push(postings);
    }
    let all = per_clause.iter().fold(0usize, |a, &b| a.saturating_add(b));
    (all >= k.saturating_mul(factor)).then_some(per_clause)
}

/// The bound of `plan` over lists whose lengths and score columns `len` and `stats` read
/// ([`plan`] for θ's `depth`), when bounding pays ([`worth_it`] with `factor`): with each
/// clause's postings, which say the clauses worth testing against the sums of the ones
/// before ([`crate::rank::topk::Partial`]).
pub(crate) fn of_lists(
    plan: &QueryPlan,
    depth: usize,
    factor: usize,
    len: impl FnMut(&WeightedTerm) -> Option<usize>,
    stats: impl FnMut(&WeightedTerm) -> Option<(f32, f32)>,
) -> Option<Pruning> {
    let postings = worth_it(plan, depth, factor, len)?;
    let mut p = self::plan(plan, depth, stats)?;
    p.postings = postings;
    p.worth = factor;
    Some(p)
}

/// See [`worth_it`].
pub(crate) const WORTH_IT: usize = 10;

/// θ and the floors of `plan` from each term's postings: their largest and k-th largest
/// unweighted score (`stats`, the k-th 0 for a list shorter than k = `depth`); `None` when a
/// term's are unknown, a weight is not positive, the plan is larger than [`MAX_TERMS`], or
/// no list reaches k (every candidate is ranked then).
pub(crate) fn plan(
    plan: &QueryPlan,
    depth: usize,
    mut stats: impl FnMut(&WeightedTerm) -> Option<(f32, f32)>,
) -> Option<Pruning> {
    let terms = plan
        .clauses
        .iter()
        .flat_map(|c| &c.alternatives)
        .map(|a| a.terms.len())
        .sum::<usize>();
    if terms == 0 || terms > MAX_TERMS {
        return None;
    }
    let mut theta = 0f32;
    // Per term: its weighted largest score; per alternative: their sum; per clause: the
    // largest alternative's.
    let mut top: Vec<Vec<Vec<f64>>> = Vec::with_capacity(plan.clauses.len());
    for clause in &plan.clauses {
        let mut alternatives = Vec::with_capacity(clause.alternatives.len());
        for a in &clause.alternatives {
            let mut each = Vec::with_capacity(a.terms.len());
            for t in &a.terms {
                if !(t.weight > 0.0 && t.weight.is_finite()) {
                    return None;
                }
                let (max, kth) = stats(t)?;
                // The same product accumulate makes: a posting's weighted score is at most
                // this, and at least k postings reach the k-th.
                each.push(f64::from(t.weight * max));
                if a.terms.len() == 1 {
                    theta = theta.max(t.weight * kth);
                }
            }
            alternatives.push(each);
        }
        top.push(alternatives);
    }
    if theta <= 0.0 {
        return None;
    }
    let alternative = |a: &Vec<f64>| a.iter().sum::<f64>();
    let clause_top: Vec<f64> = top
        .iter()
        .map(|c| c.iter().map(alternative).fold(0.0, f64::max))
        .collect();
    let all: f64 = clause_top.iter().sum();
    let reach = reach_of(theta);
    // The clauses that add least, as many as stay below θ together, are not essential.
    let mut order: Vec<usize> = (0..clause_top.len()).collect();
    crate::sort::sort_by(&mut order, |&a, &b| clause_top[a].total_cmp(&clause_top[b]));
    let mut essential = vec![true; clause_top.len()];
    let mut below = 0.0;
    for c in order {
        below += clause_top[c];
        if below >= reach {
            break;
        }
        essential[c] = false;
    }

    let mut floors = Vec::with_capacity(terms);
    for (c, alternatives) in top.iter().enumerate() {
        let others = all - clause_top[c];
        for a in alternatives {
            let sum = alternative(a);
            for &t in a {
                floors.push(reach - others - (sum - t));
            }
        }
    }
    Some(Pruning {
        theta,
        floors,
        essential,
        tops: clause_top,
        depth,
        postings: Vec::new(),
        worth: WORTH_IT,
    })
}

/// What a section's bound must reach to be kept for a θ: θ less the float slack
/// ([`MARGIN`]).
pub(crate) fn reach_of(theta: f32) -> f64 {
    f64::from(theta) * (1.0 - MARGIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{Alternative, Clause};

    fn term(offset: u64, weight: f32) -> WeightedTerm {
        WeightedTerm {
            term: format!("t{offset}"),
            offset,
            weight,
        }
    }

    fn clause(alternatives: Vec<Vec<WeightedTerm>>) -> Clause {
        Clause {
            alternatives: alternatives
                .into_iter()
                .map(|terms| Alternative { terms })
                .collect(),
            ..Clause::default()
        }
    }

    #[test]
    fn theta_is_the_best_kth_score_and_floors_leave_room_for_the_rest() {
        let plan = QueryPlan {
            clauses: vec![
                clause(vec![vec![term(0, 1.0)]]),
                clause(vec![vec![term(1, 2.0)], vec![term(2, 1.0), term(3, 1.0)]]),
            ],
            ..QueryPlan::default()
        };
        // (largest, k-th) per list.
        let stats = |t: &WeightedTerm| {
            Some([(10.0, 4.0), (3.0, 1.0), (2.0, 0.0), (5.0, 1.5)][t.offset as usize])
        };
        let p = super::plan(&plan, 1, stats).unwrap();
        // Term 0: 4; term 1: 2 × 1 = 2; terms 2 and 3 are not alone in their alternative.
        assert_eq!(p.theta, 4.0);
        let reach = 4.0 * (1.0 - MARGIN);
        // Clause 1's most: max(2 × 3, 2 + 5) = 7.
        assert!((p.floor(0) - (reach - 7.0)).abs() < 1e-9);
        // Clause 0's most: 10.
        assert!((p.floor(1) - (reach - 10.0)).abs() < 1e-9);
        assert!((p.floor(2) - (reach - 10.0 - 5.0)).abs() < 1e-9);
        assert!((p.floor(3) - (reach - 10.0 - 2.0)).abs() < 1e-9);
    }

    #[test]
    fn no_bound_without_stats_long_lists_or_positive_weights() {
        let one = |w: f32| QueryPlan {
            clauses: vec![clause(vec![vec![term(0, w)]])],
            ..QueryPlan::default()
        };
        assert!(super::plan(&one(1.0), 1, |_| None).is_none());
        assert!(super::plan(&one(1.0), 1, |_| Some((3.0, 0.0))).is_none());
        assert!(super::plan(&one(0.0), 1, |_| Some((3.0, 1.0))).is_none());
        assert!(super::plan(&one(f32::NAN), 1, |_| Some((3.0, 1.0))).is_none());
        assert!(super::plan(&one(1.0), 1, |_| Some((3.0, 1.0))).is_some());
    }
}
