//! Stands in for `semantic.rs` in builds without feature `semantic` (the keyword modules):
//! a query vector is refused with an error that names the engine that can use it.

use super::SearchIndex;
use crate::answer::{Mode, SearchOptions};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::rank::pipeline::SectionFacts;
use rustc_hash::FxHashMap as HashMap;

impl SearchIndex {
    /// No semantic leg in this build.
    pub(super) fn semantic_leg(
        &self,
        _: &dyn Layout,
        _: &[f32],
        _: &SearchOptions,
        _: &HashMap<u32, SectionFacts>,
        _: Mode,
        _: Vec<(u32, f32)>,
    ) -> Result<Vec<(u32, f32)>> {
        Err(Error::lacks_semantic())
    }
}
