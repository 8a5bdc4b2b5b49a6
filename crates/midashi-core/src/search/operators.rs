//! A query's operators (`"a phrase"`, `-word`, parsed by [`crate::query::syntax`]) applied
//! to its ranked sections, whichever leg ranked them.
use crate::analyzer::Analyzer;
use crate::error::Result;
use crate::layout::Layout;
use crate::query::syntax::{phrase_occurs, Operators, MAX_PHRASE_CHECKS};
use crate::query::{Clause, PlanOptions};
use crate::rank::pipeline::Seen;
use rustc_hash::FxHashSet as HashSet;

/// What the operators allow, from the postings of their words.
pub(super) struct Filters {
    /// Each phrase with, per word, the sections holding it.
    phrases: Vec<(String, Vec<HashSet<u32>>)>,
    /// Per excluded word, per term of it, the sections holding it.
    excluded: Vec<Vec<HashSet<u32>>>,
    /// A phrase has a word found nowhere: nothing can match.
    impossible: bool,
}

/// Reads the postings of the operators' words (a sharded index asks for their shards).
pub(super) fn prepare(
    analyzer: &Analyzer,
    store: &dyn Layout,
    ops: &Operators,
    preview_lines: usize,
) -> Result<Filters> {
    // Words as written: no completions, no corrections.
    let exact = PlanOptions {
        prefix: false,
        fuzzy: false,
    };
    let mut filters = Filters {
        phrases: Vec::new(),
        excluded: Vec::new(),
        impossible: false,
    };
    for phrase in &ops.phrases {
        let plan = store.plan(analyzer, phrase, exact, preview_lines)?;
        filters.impossible |= !plan.unknown.is_empty();
        let sets = plan.clauses.iter().map(|c| holding(store, c)).collect();
        filters.phrases.push((phrase.clone(), sets));
    }
    for word in &ops.excluded {
        let plan = store.plan(analyzer, word, exact, preview_lines)?;
        // A word found nowhere excludes nothing.
        if plan.unknown.is_empty() && !plan.clauses.is_empty() {
            filters
                .excluded
                .push(plan.clauses.iter().map(|c| holding(store, c)).collect());
        }
    }
    store.ready()?;
    Ok(filters)
}

/// The sections holding any alternative of `clause`.
fn holding(store: &dyn Layout, clause: &Clause) -> HashSet<u32> {
    let mut facts = Seen::default();
    let mut out = HashSet::default();
    for t in clause.alternatives.iter().flat_map(|a| a.terms.iter()) {
        store.scores(t, &mut facts, &mut |s, _, _| {
            out.insert(s);
        });
    }
    out
}

/// `ranked` without the sections an operator rules out, in order. A phrase is checked in
/// the text of the first [`MAX_PHRASE_CHECKS`] sections holding all its words; a sharded
/// index asks for their bundles.
pub(super) fn apply(
    analyzer: &Analyzer,
    store: &dyn Layout,
    filters: &Filters,
    ranked: Vec<(u32, f32)>,
) -> Result<Vec<(u32, f32)>> {
    if filters.impossible {
        return Ok(Vec::new());
    }
    let allowed = |s: u32| {
        filters
            .phrases
            .iter()
            .all(|(_, sets)| sets.iter().all(|set| set.contains(&s)))
            && !filters
                .excluded
                .iter()
                .any(|sets| sets.iter().all(|set| set.contains(&s)))
    };
    let mut out = Vec::new();
    let mut checked = 0;
    for (s, score) in ranked.into_iter().filter(|&(s, _)| allowed(s)) {
        if filters.phrases.is_empty() {
            out.push((s, score));
            continue;
        }
        if checked == MAX_PHRASE_CHECKS {
            break;
        }
        checked += 1;
        if let Some(text) = store.own_text(s)? {
            if filters
                .phrases
                .iter()
                .all(|(p, _)| phrase_occurs(analyzer, p, &text))
            {
                out.push((s, score));
            }
        }
    }
    store.ready()?;
    Ok(out)
}
