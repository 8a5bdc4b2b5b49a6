//! Stands in for `bundles.rs` without feature `bundles`: bundles are refused, and a page
//! whose previews would need them moves to the full engine.

use crate::analyzer::Analyzer;
use crate::answer::marks::Shown;
use crate::answer::SearchHit;
use crate::error::{Error, Result};
use crate::layout::sharded::read::Sharded;
use crate::rank::versions::Collapsed;

impl Sharded {
    /// No bundles in this build.
    pub(in crate::layout::sharded) fn attach_bundle(
        &self,
        _: u32,
        _: &str,
        _: &[u8],
    ) -> Result<()> {
        Err(Error::lacks_bundles())
    }

    /// No bundles in this build.
    pub(in crate::layout::sharded) fn hits_from_bundles(
        &self,
        _: &Analyzer,
        _: &[&Collapsed],
        _: &Shown<'_>,
    ) -> Result<Vec<SearchHit>> {
        Err(Error::lacks_bundles())
    }

    /// No bundles in this build: a quoted phrase is checked in the full engine.
    pub(in crate::layout::sharded) fn own_text_from_bundle(
        &self,
        _: u32,
    ) -> Result<Option<String>> {
        Err(Error::NeedsFullEngine("a quoted phrase"))
    }
}
