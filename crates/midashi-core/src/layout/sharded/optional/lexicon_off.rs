//! Stands in for `lexicon.rs` without feature `typos`: the lexicon is refused.

use crate::error::{Error, Result};
use crate::layout::sharded::read::Sharded;

impl Sharded {
    /// No typo corrections in this build.
    pub(in crate::layout::sharded) fn attach_lexicon(&self, _: &str, _: &[u8]) -> Result<()> {
        Err(Error::lacks_typos())
    }
}
