//! Stands in for `typos.rs` in builds without feature `typos` (the keyword modules):
//! no corrections are made, and a plan that wanted some cannot run here.
use super::{may_have_corrections, QueryPlan, WeightedTerm};
use crate::analyzer::{Analyzer, QueryToken};
use crate::error::{Error, Result};

/// No corrections in this build: notes whether the word would have got any.
pub(super) fn corrections_of<L: super::lexicon::Lexicon + ?Sized>(
    _: &L,
    _: &Analyzer,
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
