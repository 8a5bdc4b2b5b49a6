//! Stands in for `bound.rs` in builds without feature `bounded` (midashi-core built with no
//! default features; every wasm module has it): no query is bounded, every candidate is ranked.
use crate::query::{QueryPlan, WeightedTerm};
use crate::rank::topk::Pruning;

/// See `bound.rs`.
pub(crate) const ENABLED: bool = false;

/// See `bound.rs`.
pub(crate) const WORTH_IT: usize = usize::MAX;

/// Never: this build ranks every candidate.
pub(crate) fn worth_it(
    _: &QueryPlan,
    _: usize,
    _: usize,
    _: impl FnMut(&WeightedTerm) -> Option<usize>,
) -> bool {
    false
}

/// No bound in this build.
pub(crate) fn plan(
    _: &QueryPlan,
    _: impl FnMut(&WeightedTerm) -> Option<(f32, f32)>,
) -> Option<Pruning> {
    None
}
