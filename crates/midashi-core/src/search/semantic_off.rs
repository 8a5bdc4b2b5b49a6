//! Stands in for `semantic.rs` in builds without feature `semantic` (the keyword modules):
//! a query vector, the vectors and their graph need the full engine.

use super::SearchIndex;
use crate::answer::{Mode, SearchOptions};
use crate::error::{Error, Result};
use crate::format::FileKind;
use crate::layout::Layout;
use crate::query::QueryPlan;
use crate::rank::pipeline::Seen;

impl SearchIndex {
    /// No vectors in this build.
    pub(super) fn attach_vector_file(&mut self, _: FileKind, _: &[u8]) -> Result<()> {
        Err(Error::lacks_semantic())
    }

    /// No static table in this build.
    pub fn has_table(&self) -> bool {
        false
    }

    /// No static table in this build: the query runs keyword only.
    pub fn table_vector(&self, _: &str, _: Mode) -> Result<Option<Vec<f32>>> {
        Ok(None)
    }

    /// No semantic leg in this build: the query runs in the full engine.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn semantic_leg(
        &self,
        _: &dyn Layout,
        _: &[f32],
        _: &SearchOptions,
        _: &Seen,
        _: Mode,
        _: (&str, &QueryPlan, Vec<(u32, f32)>),
        _: bool,
    ) -> Result<Vec<(u32, f32)>> {
        Err(Error::NeedsFullEngine("the semantic leg"))
    }
}
