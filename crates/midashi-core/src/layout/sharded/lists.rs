//! A shard's posting lists as a query reads them: walked for ranking
//! ([`Sharded::visit_postings`], nothing kept), and for the exact-heading lift only their
//! heading postings ([`Sharded::heading_postings`]).

use super::names::split_ref;
use super::read::{LockOk, Sharded};
use super::scores::{
    list_len, list_stats, read_heading_postings, visit_noting_headings, HeadingPostings,
};
use crate::error::Error;
use crate::format::kind::FileKind;
use crate::rank::pipeline::SectionFacts;
use std::sync::Arc;

impl Sharded {
    /// The postings of the list at `reference` whose heading holds its term, with the
    /// heading's length and distinct terms ([`read_heading_postings`]; `None`: its shard is
    /// missing or damaged).
    pub(crate) fn heading_postings(&self, reference: u64) -> Option<Arc<HeadingPostings>> {
        if let Some(heads) = self.headings.lock_ok().get(&reference) {
            return Some(heads.clone());
        }
        let (i, offset) = split_ref(reference);
        let shard = self.shard(i)?;
        let read = read_heading_postings(
            &shard.data.lists,
            offset as usize,
            self.dir.versioned,
            self.dir.n_sections,
            &shard.bare,
        );
        if read.is_none() {
            self.damaged(i);
        }
        read.map(Arc::new)
    }

    /// Hands each posting of the list at `reference` to `visit` (section, score, facts),
    /// from the lists this query decoded already or straight from the shard's bytes
    /// ([`visit_scored_list`]: ranking reads a list once, so it is not kept). A damaged
    /// list fails the query, as in [`Sharded::postings`].
    pub(crate) fn visit_postings(&self, reference: u64, visit: impl FnMut(u32, f32, SectionFacts)) {
        let (i, offset) = split_ref(reference);
        let Some(shard) = self.shard(i) else {
            return;
        };
        // The heading postings are noted on the way, for the exact-heading lift: it reads
        // the lists of the query's words again otherwise (a common word's on a large site,
        // tens of thousands of postings, a twelfth of such a query's time).
        let read = visit_noting_headings(
            &shard.data.lists,
            offset as usize,
            self.dir.versioned,
            self.dir.n_sections,
            &shard.bare,
            visit,
        );
        match read {
            None => self.damaged(i),
            // Lengths that do not read are left for the lift to find damaged.
            Some(None) => {}
            Some(Some(h)) => {
                self.headings.lock_ok().insert(reference, Arc::new(h));
            }
        }
    }

    /// The list at `reference`'s largest score and `k`-th largest ([`list_stats`]); `None`
    /// when its shard is missing (noted, as a walk notes it) or the list does not read.
    pub(crate) fn list_stats(&self, reference: u64, k: usize) -> Option<(f32, f32)> {
        let (i, offset) = split_ref(reference);
        let shard = self.shard(i)?;
        list_stats(&shard.data.lists, offset as usize, k)
    }

    /// The number of postings of the list at `reference` ([`list_len`]; `None` as
    /// [`Sharded::list_stats`]).
    pub(crate) fn list_len(&self, reference: u64) -> Option<usize> {
        let (i, offset) = split_ref(reference);
        let shard = self.shard(i)?;
        list_len(&shard.data.lists, offset as usize)
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
