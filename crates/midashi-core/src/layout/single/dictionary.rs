//! The single-file layout's term dictionary as the query planner reads it.
use super::postings::ListReader;
use super::TermsData;
#[cfg(feature = "typos")]
use crate::query::levenshtein::Within;
use crate::query::lexicon::{collect_stream, surface_of, Lexicon};
use fst::automaton::Str;
use fst::{Automaton, Map};
/// The whole index's term dictionary: references are posting offsets.
pub struct Dictionary<'a> {
    /// term → posting offset.
    pub map: &'a Map<Vec<u8>>,
    /// The terms payload (postings, surfaces, synonyms).
    pub data: &'a TermsData,
}

impl Lexicon for Dictionary<'_> {
    fn lookup(&self, term: &str) -> Option<u64> {
        self.map.get(term)
    }

    fn prefixed(&self, prefix: &str, limit: usize) -> Vec<(String, u64)> {
        collect_stream(self.map, Str::new(prefix).starts_with(), limit)
    }

    #[cfg(feature = "typos")]
    fn within(&self, lev: &Within, limit: usize) -> Vec<(String, u64)> {
        crate::query::levenshtein::collect_within(self.map, lev, limit)
    }

    fn df(&self, _term: &str, offset: u64) -> u64 {
        ListReader::open(&self.data.postings, offset as usize).map_or(0, |r| r.df)
    }

    fn surface(&self, term: &str, offset: u64) -> String {
        surface_of(&self.data.surfaces, term, offset)
    }

    fn synonyms(&self) -> &[Vec<Vec<String>>] {
        &self.data.synonyms
    }
}
