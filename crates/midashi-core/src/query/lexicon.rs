//! What planning reads of a term dictionary, whichever layout holds it, and the fst
//! helpers both layouts' dictionaries share.
#[cfg(feature = "typos")]
#[cfg(feature = "typos")]
use super::levenshtein::Within;
use super::WeightedTerm;
use super::MAX_PREFIX_SCAN;
use fst::{Automaton, IntoStreamer, Map, Streamer};
/// What planning reads of a term dictionary. Implemented by the whole index's
/// [`crate::layout::single::dictionary::Dictionary`] and by a sharded index (`crate::shards`), which answers from the shards it
/// has loaded and notes the ones it lacks: both walk the same terms in the same order, so a
/// query plans the same either way.
pub trait Lexicon {
    /// The posting reference of a term (an opaque number the index resolves), if it exists.
    fn lookup(&self, term: &str) -> Option<u64>;
    /// Up to `limit` dictionary entries starting with `prefix`, in term order.
    fn prefixed(&self, prefix: &str, limit: usize) -> Vec<(String, u64)>;
    /// Up to `limit` dictionary entries the automaton accepts, in term order.
    #[cfg(feature = "typos")]
    fn within(&self, lev: &Within, limit: usize) -> Vec<(String, u64)>;
    /// Number of sections a term occurs in.
    fn df(&self, term: &str, reference: u64) -> u64;
    /// The display word for a term (the most frequent word that produced it).
    fn surface(&self, term: &str, reference: u64) -> String;
    /// Synonym groups, each member already analyzed into terms.
    fn synonyms(&self) -> &[Vec<Vec<String>>];

    /// The term as a weighted alternative, if the dictionary has it.
    fn exact(&self, term: &str, weight: f32) -> Option<WeightedTerm> {
        self.lookup(term).map(|offset| WeightedTerm {
            term: term.to_string(),
            offset,
            weight,
        })
    }
}

/// reference, else the term itself.
pub fn surface_of(surfaces: &[(u64, String)], term: &str, reference: u64) -> String {
    match surfaces.binary_search_by_key(&reference, |(o, _)| *o) {
        Ok(i) => surfaces[i].1.clone(),
        Err(_) => term.to_string(),
    }
}

/// Opens a term dictionary (`fst::Map` bytes) from file `name`, verified: fst trusts its
/// bytes and panics on a damaged dictionary at query time, and its own checksum turns that
/// into an error here. (Only a dictionary forged with a matching checksum could still reach
/// fst's panics.) Every dictionary of both layouts is opened here.
pub fn open_dictionary(name: &str, bytes: Vec<u8>) -> crate::error::Result<Map<Vec<u8>>> {
    let malformed = |detail: String| crate::error::Error::Malformed {
        file: name.to_string(),
        detail,
    };
    if !fst_checksum_ok(&bytes) {
        return Err(malformed(
            "term dictionary: its checksum does not match its bytes".into(),
        ));
    }
    let map = Map::new(bytes).map_err(|e| malformed(e.to_string()))?;
    Ok(map)
}

/// Whether an fst's trailing checksum matches its bytes: what `fst::raw::Fst::verify`
/// computes (CRC-32C, masked as in Snappy's framing, stored little-endian in the last four
/// bytes), with the `crc` crate's 1 KB table instead of fst's 16 KB one — which was the
/// largest table in the browser's wasm module.
pub(crate) fn fst_checksum_ok(bytes: &[u8]) -> bool {
    const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
    let Some(body_len) = bytes.len().checked_sub(4) else {
        return false;
    };
    let (body, stored) = bytes.split_at(body_len);
    let sum = CRC32C.checksum(body);
    let masked = (sum.rotate_right(15)).wrapping_add(0xA282_EAD8);
    stored == masked.to_le_bytes()
}

/// Up to `limit` entries of `map` that `automaton` accepts, in term order.
pub fn collect_stream<A: Automaton>(
    map: &Map<Vec<u8>>,
    automaton: A,
    limit: usize,
) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stream = map.search(automaton).into_stream();
    let mut walked = 0;
    while walked < limit {
        let Some((k, v)) = stream.next() else { break };
        walked += 1;
        // Terms are written from `String`s; a damaged key counts against the limit but is
        // not offered.
        if let Ok(k) = std::str::from_utf8(k) {
            out.push((k.to_string(), v));
        }
    }
    out
}

/// Dictionary walks used by [`super::plan`] and suggestions, for any [`Lexicon`].
pub trait LexiconExt: Lexicon {
    /// Completions of `prefix`, most frequent first.
    fn completions(&self, prefix: &str, max: usize) -> Vec<(String, u64, u64)> {
        let mut budget = MAX_PREFIX_SCAN;
        self.completions_within(prefix, max, &mut budget)
    }

    /// [`Self::completions`], walking at most `budget` dictionary entries (and taking them
    /// off the budget).
    fn completions_within(
        &self,
        prefix: &str,
        max: usize,
        budget: &mut usize,
    ) -> Vec<(String, u64, u64)> {
        let limit = (*budget).min(MAX_PREFIX_SCAN);
        let walked = self.prefixed(prefix, limit);
        // Entries walked, not kept: see `collect_stream` (every key is UTF-8 in practice).
        *budget -= walked.len();
        let mut found: Vec<(String, u64, u64)> = walked
            .into_iter()
            .map(|(k, offset)| {
                let df = self.df(&k, offset);
                (k, offset, df)
            })
            .collect();
        crate::sort::sort_by(&mut found, |a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        found.truncate(max);
        found
    }
}

impl<L: Lexicon + ?Sized> LexiconExt for L {}
