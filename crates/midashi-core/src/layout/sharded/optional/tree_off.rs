//! Stands in for `tree.rs` without feature `semantic`: the tree is refused.

use crate::error::{Error, Result};
use crate::layout::sharded::read::Sharded;

impl Sharded {
    /// No semantic leg in this build.
    pub(in crate::layout::sharded) fn attach_tree(&self, _: &str, _: &[u8]) -> Result<()> {
        Err(Error::lacks_semantic())
    }
}
