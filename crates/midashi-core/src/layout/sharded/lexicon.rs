//! A sharded index as the query planner reads its dictionary: the loaded shards (and, for
//! typo corrections, the lexicon file), noting the shards it lacks.
use super::names::split_ref;
use super::read::{LoadedShard, LockOk, Sharded};
use crate::layout::single::postings::read_varint;
#[cfg(feature = "typos")]
use crate::query::levenshtein::Within;
use crate::query::lexicon::{collect_stream, surface_of, Lexicon};
use fst::automaton::Str;
use fst::Automaton;
use std::sync::Arc;
/// [`crate::query::lexicon::Lexicon`] over the loaded shards (and, for typo corrections, the
/// lexicon): the same terms in the same order as the single-file dictionary.
impl Lexicon for Sharded {
    fn lookup(&self, term: &str) -> Option<u64> {
        let i = self.shard_for(term);
        let shard = self.shard(i)?;
        shard.map.get(term).map(|o| super::names::shard_ref(i, o))
    }

    fn prefixed(&self, prefix: &str, limit: usize) -> Vec<(String, u64)> {
        let first = self.shard_for(prefix);
        let mut last = first;
        while let Some(next) = self.dir.shards.get(last as usize + 1) {
            if !next.first_term.starts_with(prefix) {
                break;
            }
            last += 1;
        }
        let shards: Vec<Option<Arc<LoadedShard>>> = (first..=last).map(|i| self.shard(i)).collect();
        let mut out = Vec::new();
        for (i, shard) in (first..=last).zip(shards) {
            let Some(shard) = shard else {
                return Vec::new();
            };
            if out.len() >= limit {
                break;
            }
            let found = collect_stream(
                &shard.map,
                Str::new(prefix).starts_with(),
                limit - out.len(),
            );
            out.extend(
                found
                    .into_iter()
                    .map(|(t, o)| (t, super::names::shard_ref(i, o))),
            );
        }
        out
    }

    #[cfg(feature = "typos")]
    fn within(&self, lev: &Within, limit: usize) -> Vec<(String, u64)> {
        let Some(lex) = self.lexicon() else {
            return Vec::new();
        };
        crate::query::levenshtein::collect_within(&lex.map, lev, limit)
            .into_iter()
            .filter_map(|(t, ord)| Some((t, *lex.data.refs.get(ord as usize)?)))
            .collect()
    }

    fn df(&self, term: &str, reference: u64) -> u64 {
        let (i, offset) = split_ref(reference);
        if let Some(shard) = self.shards.lock_ok().peek(i) {
            let mut pos = offset as usize;
            return read_varint(&shard.data.lists, &mut pos).unwrap_or(0);
        }
        let Some(lex) = self.lexicon() else {
            return 0;
        };
        lex.map
            .get(term)
            .and_then(|ord| lex.data.dfs.get(ord as usize))
            .map_or(0, |&df| u64::from(df))
    }

    fn surface(&self, term: &str, reference: u64) -> String {
        let (i, offset) = split_ref(reference);
        if let Some(shard) = self.shards.lock_ok().peek(i) {
            return surface_of(&shard.data.surfaces, term, offset);
        }
        match self.lexicon() {
            Some(lex) => match lex.map.get(term) {
                Some(ord) => surface_of(&lex.data.surfaces, term, ord),
                None => term.to_string(),
            },
            None => term.to_string(),
        }
    }

    fn synonyms(&self) -> &[Vec<Vec<String>>] {
        &self.dir.synonyms
    }
}
