//! Stands in for `typos.rs` in builds without feature `typos` (the sharded keyword module):
//! no corrections are made, and a plan that wanted some cannot run here.
use super::{QueryPlan, WeightedTerm, MAX_FUZZY_CHARS};
use crate::analyzer::QueryToken;
use crate::error::{Error, Result};

/// No corrections in this build: notes whether the word would have got any.
pub(super) fn corrections_of<L: super::lexicon::Lexicon + ?Sized>(
    _: &L,
    tok: &QueryToken,
    plan: &mut QueryPlan,
) -> Vec<(WeightedTerm, u64)> {
    plan.needs_corrections |= may_have_corrections(&tok.term, &tok.raw);
    Vec::new()
}

/// `Err(NeedsFullEngine)` when the plan wanted corrections this build cannot make.
pub(super) fn runs_here(plan: &QueryPlan) -> Result<()> {
    if plan.needs_corrections {
        return Err(Error::lacks_typos());
    }
    Ok(())
}
/// Whether the full engine would look for
/// corrections of a word at all (by its length): shorter and longer words get none, so a
/// build without them answers those words alike.
fn may_have_corrections(term: &str, raw: &str) -> bool {
    (4..=MAX_FUZZY_CHARS).contains(&term.chars().count())
        || (5..=MAX_FUZZY_CHARS).contains(&raw.chars().count())
}
