//! The lexicon: every term with its document frequency, read for typo corrections.

use crate::error::{Error, Result};
use crate::format::frame::decode;
use crate::format::kind::FileKind;
use crate::layout::sharded::files::Lexicon;
use crate::layout::sharded::read::{LoadedLexicon, LockOk, Sharded};
use crate::query::lexicon::open_dictionary;
use std::sync::Arc;

impl Sharded {
    /// Checks the lexicon file and keeps it.
    pub(in crate::layout::sharded) fn attach_lexicon(
        &self,
        name: &str,
        bytes: &[u8],
    ) -> Result<()> {
        let data: Lexicon = decode(FileKind::Lexicon, name, bytes)?;
        let map = open_dictionary(name, data.fst.clone())?;
        if data.refs.len() != data.dfs.len() || map.len() != data.refs.len() {
            return Err(Error::Malformed {
                file: name.to_string(),
                detail: "the lexicon's tables disagree".into(),
            });
        }
        *self.lexicon.lock_ok() = Some(Arc::new(LoadedLexicon { map, data }));
        Ok(())
    }
}
