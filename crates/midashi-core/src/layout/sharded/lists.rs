//! A shard's posting lists as a query reads them: walked once for ranking
//! ([`Sharded::visit_postings`], nothing kept), or decoded whole and kept for the query
//! ([`Sharded::postings`]: the exact-heading lift reads the heading lengths).

use super::names::split_ref;
use super::read::{LockOk, Sharded};
use super::scores::{read_scored_list, visit_scored_list, ScoredPosting};
use crate::error::Error;
use crate::format::kind::FileKind;
use crate::rank::pipeline::SectionFacts;
use std::sync::Arc;

impl Sharded {
    /// The list a posting reference points at: df and postings (`None`: its shard is missing
    /// or damaged).
    ///
    /// Decoded once per query and kept for it: the exact-heading lift reads each query
    /// word's list, and a query that takes several calls (one per round of fetching)
    /// reads it again.
    pub(crate) fn postings(&self, reference: u64) -> Option<Arc<Vec<ScoredPosting>>> {
        if let Some(list) = self.decoded.lock_ok().get(&reference) {
            return Some(list.clone());
        }
        let (i, offset) = split_ref(reference);
        let shard = self.shard(i)?;
        let read = read_scored_list(
            &shard.data.lists,
            offset as usize,
            self.dir.versioned,
            self.dir.n_sections,
            &shard.bare,
        );
        let Some((_, list)) = read else {
            self.damaged(i);
            return None;
        };
        // Moved into the Arc, not copied: a common word's list on a large site is megabytes.
        let list = Arc::new(list);
        self.decoded.lock_ok().insert(reference, list.clone());
        Some(list)
    }

    /// Hands each posting of the list at `reference` to `visit` (section, score, facts),
    /// from the lists this query decoded already or straight from the shard's bytes
    /// ([`visit_scored_list`]: ranking reads a list once, so it is not kept). A damaged
    /// list fails the query, as in [`Sharded::postings`].
    pub(crate) fn visit_postings(
        &self,
        reference: u64,
        mut visit: impl FnMut(u32, f32, SectionFacts),
    ) {
        if let Some(list) = self.decoded.lock_ok().get(&reference).cloned() {
            for p in list.iter() {
                visit(p.section, p.score, p.facts);
            }
            return;
        }
        let (i, offset) = split_ref(reference);
        let Some(shard) = self.shard(i) else {
            return;
        };
        let read = visit_scored_list(
            &shard.data.lists,
            offset as usize,
            self.dir.versioned,
            self.dir.n_sections,
            &shard.bare,
            |section, score, facts, _| visit(section, score, facts),
        );
        if read.is_none() {
            self.damaged(i);
        }
    }

    /// Notes that a list of shard `i` is damaged. Past the checksum, so damaged when
    /// written or crafted: the query fails with why instead of answering without the word.
    fn damaged(&self, i: u32) {
        let Some(shard) = self.dir.shards.get(i as usize) else {
            return;
        };
        let name = FileKind::Shard.name_for_hash(shard.name_hash());
        self.failed.lock_ok().get_or_insert(Error::Malformed {
            file: name,
            detail: "a posting list is damaged (a section outside the index); \
                     fetch or copy the index folder again, or rebuild it"
                .into(),
        });
    }
}
