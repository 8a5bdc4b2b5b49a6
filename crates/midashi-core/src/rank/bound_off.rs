//! Stands in for `bound.rs` in builds without feature `bounded` (midashi-core built with no
//! default features; every wasm module has it): no query is bounded, every candidate is ranked.
use crate::query::{QueryPlan, WeightedTerm};
use crate::rank::topk::Pruning;

/// See `bound.rs`.
pub(crate) const ENABLED: bool = false;

/// See `bound.rs`.
pub(crate) const WORTH_IT: usize = usize::MAX;

/// No bound in this build: every candidate is ranked.
pub(crate) fn of_lists(
    _: &QueryPlan,
    _: usize,
    _: usize,
    _: impl FnMut(&WeightedTerm) -> Option<usize>,
    _: impl FnMut(&WeightedTerm) -> Option<(f32, f32)>,
) -> Option<Pruning> {
    None
}

/// See `bound.rs` (never called: no query is bounded).
pub(crate) fn reach_of(theta: f32) -> f64 {
    f64::from(theta)
}
