//! The tree: every section's depth, subtree and family, for the semantic leg's candidates.

use crate::error::{Error, Result};
use crate::format::frame::decode;
use crate::format::kind::FileKind;
use crate::layout::sharded::files::Tree;
use crate::layout::sharded::read::{LockOk, Sharded};
use crate::layout::sharded::scores::read_sections;
use std::sync::Arc;

impl Sharded {
    /// Checks the tree file against the directory and keeps it.
    pub(in crate::layout::sharded) fn attach_tree(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let mut data: Tree = decode(FileKind::Tree, name, bytes)?;
        // Grouping walks a section's descendants: a subtree past the last section would
        // make it walk billions of ordinals.
        let n = self.dir.n_sections;
        let subtrees_fit = (0..n).zip(&data.facts).all(|(s, f)| f.subtree < n - s);
        if data.facts.len() != n as usize || !subtrees_fit {
            return Err(Error::Malformed {
                file: name.to_string(),
                detail: "the tree does not match the directory".into(),
            });
        }
        let Some(bare) = read_sections(&data.bare, n) else {
            return Err(Error::Malformed {
                file: name.to_string(),
                detail: "its list of sections without text is damaged; fetch or copy the \
                         index folder again, or rebuild it"
                    .into(),
            });
        };
        for s in bare {
            data.facts[s as usize].bare = true;
        }
        *self.tree.lock_ok() = Some(Arc::new(data));
        Ok(())
    }
}
