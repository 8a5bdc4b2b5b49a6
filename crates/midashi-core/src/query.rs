//! From a query string to weighted clauses over dictionary terms.
//!
//! Each query word becomes a [`Clause`]: a set of alternatives (the exact term, completions
//! of the word being typed, typo corrections, synonyms). A section scores the *best*
//! alternative of each clause, and the clause scores add up — so a word matched three ways
//! is not counted three times, and a typo correction (weighted below 1, and only tried for
//! words absent from the dictionary) never outranks an exact hit.

use crate::analyzer::{Analyzer, QueryToken};
use crate::index::postings::ListReader;
use crate::index::TermsData;
#[cfg(feature = "typos")]
use fst::automaton::Levenshtein;
use fst::automaton::Str;
use fst::{Automaton, IntoStreamer, Map, Streamer};

/// Longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 4096;
/// Query words beyond this many are ignored.
pub const MAX_QUERY_TERMS: usize = 64;
/// Completions tried for the word being typed.
pub const MAX_PREFIX_EXPANSIONS: usize = 24;
/// Dictionary entries walked to find them (bounds the time of a one-letter prefix).
const MAX_PREFIX_SCAN: usize = 20_000;
/// Dictionary entries walked for completions in one whole query: a query of many lone CJK
/// characters (each prefix-expanded) costs no more than two one-letter prefixes.
const MAX_PLAN_PREFIX_SCAN: usize = 2 * MAX_PREFIX_SCAN;
/// Typo corrections tried per word.
pub const MAX_FUZZY_EXPANSIONS: usize = 4;
/// Longest word (in characters) that gets typo corrections: a Levenshtein automaton's
/// construction grows with the word's length (~25 ms for 32 characters at distance 2), and
/// long identifiers are pasted rather than typed.
pub const MAX_FUZZY_CHARS: usize = 20;
/// Words of one query that get typo corrections. Each costs up to six Levenshtein automata
/// (their construction dominates a query's time), so 64 long unknown words must not all
/// get them; people mistype a few words, not dozens.
pub const MAX_FUZZY_WORDS: usize = 4;
/// Weight of a completion relative to an exact term.
const PREFIX_WEIGHT: f32 = 0.9;
/// Weight of a correction at edit distance 1 and 2.
#[cfg(feature = "typos")]
const FUZZY_WEIGHT: [f32; 2] = [0.6, 0.35];

/// A dictionary term to score, with its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedTerm {
    /// The term.
    pub term: String,
    /// Offset of its posting list.
    pub offset: u64,
    /// Multiplier of its BM25F score.
    pub weight: f32,
}

/// One way to match a clause: all its terms (a phrase of synonyms has several) add up.
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    /// Terms of this alternative.
    pub terms: Vec<WeightedTerm>,
}

/// One query word (or synonym phrase): sections score its best alternative.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Clause {
    /// The ways it can match.
    pub alternatives: Vec<Alternative>,
}

/// A planned query.
#[derive(Debug, Clone, Default)]
pub struct QueryPlan {
    /// Clauses in query order.
    pub clauses: Vec<Clause>,
    /// The analyzed query words that carry meaning (for exact-heading matching).
    pub terms: Vec<String>,
    /// Query words found nowhere, with their byte range in the query and the best correction
    /// (a display word) if any: material for "did you mean".
    pub unknown: Vec<(usize, usize, Option<String>)>,
    /// A word wanted typo corrections that this build cannot make (midashi-core without
    /// feature `typos`, as in the sharded keyword module): the query must run in an engine
    /// that can, or its answer would differ from one.
    pub needs_corrections: bool,
}

impl QueryPlan {
    /// Every dictionary term the plan may match (for highlighting).
    pub fn all_terms(&self) -> impl Iterator<Item = &str> {
        self.clauses
            .iter()
            .flat_map(|c| c.alternatives.iter())
            .flat_map(|a| a.terms.iter())
            .map(|t| t.term.as_str())
    }

    /// `Err(NeedsFullEngine)` when this build cannot answer the plan as the full engine would
    /// (see [`QueryPlan::needs_corrections`]).
    pub fn runs_here(&self) -> crate::error::Result<()> {
        #[cfg(not(feature = "typos"))]
        if self.needs_corrections {
            return Err(crate::error::Error::lacks_typos());
        }
        Ok(())
    }
}

/// How to expand.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions {
    /// Expand the last word as a prefix (search as you type).
    pub prefix: bool,
    /// Try typo corrections for unknown words.
    pub fuzzy: bool,
}

/// What planning reads of a term dictionary. Implemented by the whole index's
/// [`Dictionary`] and by a sharded index (`crate::shards`), which answers from the shards it
/// has loaded and notes the ones it lacks: both walk the same terms in the same order, so a
/// query plans the same either way.
pub trait Lexicon {
    /// The posting reference of a term (an opaque number the index resolves), if it exists.
    fn lookup(&self, term: &str) -> Option<u64>;
    /// Up to `limit` dictionary entries starting with `prefix`, in term order.
    fn prefixed(&self, prefix: &str, limit: usize) -> Vec<(String, u64)>;
    /// Up to `limit` dictionary entries the automaton accepts, in term order.
    #[cfg(feature = "typos")]
    fn within(&self, lev: &Levenshtein, limit: usize) -> Vec<(String, u64)>;
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
    fn within(&self, lev: &Levenshtein, limit: usize) -> Vec<(String, u64)> {
        collect_stream(self.map, lev, limit)
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

/// The display word stored for a reference in a `(reference, word)` list sorted by
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
fn fst_checksum_ok(bytes: &[u8]) -> bool {
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

/// Dictionary walks used by [`plan`] and suggestions, for any [`Lexicon`].
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

    /// Typo corrections that stemming hides: "paginaton" is far from the stem "pagin" of
    /// "pagination", but a prefix of it is that stem. Candidates are stems within one edit of
    /// a long prefix of the typed word, kept when the word they stand for (their display
    /// form) is within the typo budget of what was typed.
    #[cfg(feature = "typos")]
    fn stem_corrections(&self, raw: &str) -> Vec<(WeightedTerm, u64)> {
        let chars: Vec<char> = raw.chars().collect();
        let max_dist = match chars.len() {
            0..=4 => return Vec::new(),
            5..=8 => 1,
            9..=MAX_FUZZY_CHARS => 2,
            _ => return Vec::new(),
        };
        let mut out: Vec<(WeightedTerm, u64)> = Vec::new();
        for k in (chars.len().saturating_sub(4).max(4)..chars.len()).rev() {
            let prefix: String = chars[..k].iter().collect();
            let Ok(lev) = Levenshtein::new(&prefix, 1) else {
                continue;
            };
            for (key, offset) in self.within(&lev, 200) {
                if out.iter().any(|(t, _)| t.term == key) {
                    continue;
                }
                let dist = edit_distance(&self.surface(&key, offset), raw);
                if dist == 0 || dist > max_dist {
                    continue;
                }
                let df = self.df(&key, offset);
                out.push((
                    WeightedTerm {
                        term: key,
                        offset,
                        weight: FUZZY_WEIGHT[dist - 1],
                    },
                    df,
                ));
            }
        }
        crate::sort::sort_by(&mut out, |a, b| {
            b.0.weight
                .total_cmp(&a.0.weight)
                .then(b.1.cmp(&a.1))
                .then(a.0.term.cmp(&b.0.term))
        });
        out.truncate(MAX_FUZZY_EXPANSIONS);
        out
    }

    /// Dictionary terms within the typo budget of `term`, closest and most frequent first.
    #[cfg(feature = "typos")]
    fn corrections(&self, term: &str) -> Vec<(WeightedTerm, u64)> {
        let chars = term.chars().count();
        let max_dist = match chars {
            0..=3 => return Vec::new(),
            4..=7 => 1,
            8..=MAX_FUZZY_CHARS => 2,
            _ => return Vec::new(),
        };
        let mut out: Vec<(WeightedTerm, u64)> = Vec::new();
        for dist in 1..=max_dist {
            let Ok(lev) = Levenshtein::new(term, dist) else {
                break;
            };
            for (k, offset) in self.within(&lev, 1000) {
                if out.iter().any(|(t, _)| t.term == k) {
                    continue;
                }
                let df = self.df(&k, offset);
                out.push((
                    WeightedTerm {
                        term: k,
                        offset,
                        weight: FUZZY_WEIGHT[(dist - 1) as usize],
                    },
                    df,
                ));
            }
            if !out.is_empty() {
                break; // closest distance only
            }
        }
        crate::sort::sort_by(&mut out, |a, b| b.1.cmp(&a.1).then(a.0.term.cmp(&b.0.term)));
        out.truncate(MAX_FUZZY_EXPANSIONS);
        out
    }
}

impl<L: Lexicon + ?Sized> LexiconExt for L {}

/// Plans `query` (already checked for length) against the dictionary.
pub fn plan<L: Lexicon + ?Sized>(
    analyzer: &Analyzer,
    dict: &L,
    query: &str,
    opts: PlanOptions,
) -> QueryPlan {
    let mut tokens: Vec<QueryToken> = analyzer.analyze_query(query);
    tokens.truncate(MAX_QUERY_TERMS);
    // The last word is still being typed unless the query ends with a separator.
    let typing = opts.prefix && query.chars().last().is_some_and(|c| c.is_alphanumeric());
    let last_word_start = tokens.iter().filter(|t| !t.part).map(|t| t.start).max();

    let mut plan = QueryPlan::default();
    let mut scan_budget = MAX_PLAN_PREFIX_SCAN;
    let mut fuzzy_words = MAX_FUZZY_WORDS;
    let mut consumed = vec![false; tokens.len()];
    apply_synonyms(dict, &tokens, &mut consumed, &mut plan);

    for (i, tok) in tokens.iter().enumerate() {
        if consumed[i] {
            continue;
        }
        if !tok.part {
            plan.terms.push(tok.term.clone());
        }
        let mut clause = Clause::default();
        let exact = dict.exact(&tok.term, 1.0);
        if let Some(t) = exact.clone() {
            clause.alternatives.push(Alternative { terms: vec![t] });
        }
        let is_last = typing && Some(tok.start) == last_word_start && !tok.part;
        if is_last || (tok.cjk && tok.term.chars().count() == 1) {
            // Completions of the raw (unstemmed) word: "configura" → "configuration"'s stem
            // is "configur", which the word itself extends, so also accept dictionary terms
            // that are a long-enough prefix of the typed word.
            let raw = if tok.raw.is_empty() {
                &tok.term
            } else {
                &tok.raw
            };
            if raw.chars().count() >= 2 || tok.cjk {
                for (term, offset, _) in
                    dict.completions_within(raw, MAX_PREFIX_EXPANSIONS, &mut scan_budget)
                {
                    if term != tok.term {
                        clause.alternatives.push(Alternative {
                            terms: vec![WeightedTerm {
                                term,
                                offset,
                                weight: PREFIX_WEIGHT,
                            }],
                        });
                    }
                }
                // A stem shorter than the typed word ("configur" for "configura") counts
                // only when a word it stands for continues what was typed: "form" is not a
                // completion of "format", nor "for" (a stopword) of anything.
                let chars: Vec<(usize, char)> = raw.char_indices().collect();
                let min_len = chars.len().saturating_sub(3).max(3);
                for cut in min_len..chars.len() {
                    let p = &raw[..chars[cut].0];
                    if p != tok.term {
                        if let Some(t) = dict.exact(p, PREFIX_WEIGHT) {
                            if dict.surface(&t.term, t.offset).starts_with(raw.as_str()) {
                                clause.alternatives.push(Alternative { terms: vec![t] });
                            }
                        }
                    }
                }
            }
        }
        // A word still being typed that already has completions is not a typo yet: no
        // corrections for it. (On a sharded index they read the lexicon, 277 KB gzip on the
        // PowerShell docs, which a keystroke such as `Get-Chi` fetched.)
        let completed = is_last && !clause.alternatives.is_empty();
        if exact.is_none() && !tok.cjk && !tok.part && !completed {
            let corrections: Vec<(WeightedTerm, u64)> = if opts.fuzzy && fuzzy_words > 0 {
                fuzzy_words -= 1;
                #[cfg(feature = "typos")]
                {
                    let c = dict.corrections(&tok.term);
                    if c.is_empty() {
                        dict.stem_corrections(&tok.raw)
                    } else {
                        c
                    }
                }
                #[cfg(not(feature = "typos"))]
                {
                    plan.needs_corrections |= may_have_corrections(&tok.term, &tok.raw);
                    Vec::new()
                }
            } else {
                Vec::new()
            };
            let suggestion = corrections
                .first()
                .map(|(t, _)| dict.surface(&t.term, t.offset));
            if clause.alternatives.is_empty() {
                plan.unknown.push((tok.start, tok.end, suggestion));
            }
            for (t, _) in corrections {
                clause.alternatives.push(Alternative { terms: vec![t] });
            }
        }
        if !clause.alternatives.is_empty() {
            plan.clauses.push(clause);
        }
    }
    plan
}

/// Replaces runs of query terms that spell a synonym-group member by one clause whose
/// alternatives are all members of the group.
fn apply_synonyms<L: Lexicon + ?Sized>(
    dict: &L,
    tokens: &[QueryToken],
    consumed: &mut [bool],
    plan: &mut QueryPlan,
) {
    for group in dict.synonyms() {
        for member in group {
            let n = member.len();
            if n == 0 || n > tokens.len() {
                continue;
            }
            for start in 0..=tokens.len() - n {
                let window = &tokens[start..start + n];
                if consumed[start..start + n].iter().any(|&c| c)
                    || !window.iter().zip(member).all(|(t, m)| &t.term == m)
                {
                    continue;
                }
                let mut clause = Clause::default();
                for m in group {
                    let terms: Vec<WeightedTerm> =
                        m.iter().filter_map(|t| dict.exact(t, 1.0)).collect();
                    if terms.len() == m.len() {
                        clause.alternatives.push(Alternative { terms });
                    }
                }
                consumed[start..start + n]
                    .iter_mut()
                    .for_each(|c| *c = true);
                plan.terms
                    .extend(window.iter().filter(|t| !t.part).map(|t| t.term.clone()));
                if !clause.alternatives.is_empty() {
                    plan.clauses.push(clause);
                }
            }
        }
    }
}

/// Whether [`LexiconExt::corrections`] or [`LexiconExt::stem_corrections`] would look for
/// corrections of a word at all (by its length): shorter and longer words get none, so a
/// build without them answers those words alike.
#[cfg(not(feature = "typos"))]
fn may_have_corrections(term: &str, raw: &str) -> bool {
    (4..=MAX_FUZZY_CHARS).contains(&term.chars().count())
        || (5..=MAX_FUZZY_CHARS).contains(&raw.chars().count())
}

/// Levenshtein distance of two short words (in characters).
#[cfg(feature = "typos")]
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{decode, FileKind};
    use crate::index::{IndexBuilder, IndexSettings};
    use crate::section::{Document, Hints, Section, SectionId};

    /// Our checksum of a term dictionary agrees with fst's own `verify` on whole and on
    /// damaged dictionaries, byte by byte.
    #[test]
    fn fst_checksum_agrees_with_fst_verify() {
        let mut b = fst::MapBuilder::memory();
        for (i, w) in ["async", "await", "closure", "trait", "見出し"]
            .iter()
            .enumerate()
        {
            b.insert(w, i as u64).unwrap();
        }
        let bytes = b.into_inner().unwrap();
        assert!(fst_checksum_ok(&bytes));
        assert!(Map::new(bytes.clone()).unwrap().as_fst().verify().is_ok());
        for i in 0..bytes.len() {
            let mut d = bytes.clone();
            d[i] ^= 0x5a;
            let ours = fst_checksum_ok(&d);
            assert!(!ours, "byte {i}");
            if let Ok(m) = Map::new(d) {
                assert_eq!(m.as_fst().verify().is_ok(), ours, "byte {i}");
            }
        }
        assert!(!fst_checksum_ok(&bytes[..3]));
        assert!(open_dictionary("terms.x.bin", bytes[..bytes.len() - 1].to_vec()).is_err());
    }

    /// A one-section document of `text`.
    fn doc(path: &str, text: &str) -> Document {
        Document {
            path: path.into(),
            url: format!("/{path}"),
            title: path.into(),
            source: text.into(),
            sections: vec![Section {
                id: SectionId::new(path, &[], 0),
                doc_path: path.into(),
                url: format!("/{path}"),
                anchor: None,
                heading: path.into(),
                depth: 0,
                heading_path: vec![path.into()],
                parent: None,
                order: 0,
                section_number: 1,
                start_line: 1,
                end_line: 1,
                own_end_line: 1,
                text: text.into(),
                code: String::new(),
                hints: Hints::default(),
                token_estimate: 1,
            }],
        }
    }

    /// Plans `query` against an index of `texts`.
    fn plan_for(texts: &[&str], query: &str, opts: PlanOptions) -> QueryPlan {
        let mut b = IndexBuilder::new(IndexSettings::default());
        for (i, t) in texts.iter().enumerate() {
            b.add(doc(&format!("d{i}.md"), t));
        }
        let out = b.build().unwrap();
        let terms = &out
            .files
            .iter()
            .find(|(n, _)| n.starts_with("terms"))
            .unwrap()
            .1;
        let data: TermsData = decode(FileKind::Terms, "terms", terms).unwrap();
        let map = Map::new(data.fst.clone()).unwrap();
        plan(
            &Analyzer::new(),
            &Dictionary {
                map: &map,
                data: &data,
            },
            query,
            opts,
        )
    }

    const ALL: PlanOptions = PlanOptions {
        prefix: true,
        fuzzy: true,
    };

    #[test]
    #[cfg(feature = "typos")]
    fn typo_corrections_are_bounded_per_word_and_per_query() {
        // Many dictionary words one edit away from "pagenation".
        let words: Vec<String> = (b'a'..=b'z')
            .map(|c| format!("pagenati{}n", c as char))
            .collect();
        let text = words.join(" ");
        let p = plan_for(&[&text], "pagenatin", ALL);
        assert_eq!(p.clauses.len(), 1);
        assert!(p.clauses[0].alternatives.len() <= MAX_FUZZY_EXPANSIONS + MAX_PREFIX_EXPANSIONS);
        let p = plan_for(&[&text], "pagenatin ", ALL);
        assert_eq!(p.clauses[0].alternatives.len(), MAX_FUZZY_EXPANSIONS);

        // Only the first MAX_FUZZY_WORDS unknown words are corrected.
        let query = ["pagenatin"; MAX_FUZZY_WORDS + 3].join(" ") + " ";
        let p = plan_for(&[&text], &query, ALL);
        assert_eq!(p.clauses.len(), MAX_FUZZY_WORDS);
        let uncorrected = p.unknown.iter().filter(|u| u.2.is_none()).count();
        assert_eq!(uncorrected, 3, "the rest stay uncorrected");
    }

    #[test]
    fn completions_are_bounded_per_word_and_per_query() {
        let text: String = (0..500).map(|i| format!("config{i} ")).collect();
        let p = plan_for(&[&text], "conf", ALL);
        assert_eq!(p.clauses.len(), 1);
        assert_eq!(p.clauses[0].alternatives.len(), MAX_PREFIX_EXPANSIONS);
        // Lone CJK characters are each prefix-expanded, within one budget for the query.
        let cjk: String = (0..3000u32)
            .map(|i| char::from_u32(0x4e00 + i).unwrap().to_string() + "あ ")
            .collect();
        let query: String = (0..MAX_QUERY_TERMS).map(|i| format!("あ {i} ")).collect();
        let p = plan_for(&[&cjk], &query, ALL);
        let alternatives: usize = p.clauses.iter().map(|c| c.alternatives.len()).sum();
        assert!(alternatives <= MAX_QUERY_TERMS * MAX_PREFIX_EXPANSIONS);
        assert!(p.clauses.len() <= MAX_QUERY_TERMS);
    }

    /// Built without typo corrections (the sharded keyword module), planning hands over to
    /// the full engine exactly the queries with a word it would try to correct; with them,
    /// it never does. Run both ways by scripts/test.sh.
    #[test]
    fn without_typos_exactly_the_words_to_correct_need_the_full_engine() {
        let text = "pagination configuration install";
        let fuzzy_off = PlanOptions {
            prefix: true,
            fuzzy: false,
        };
        for (query, opts, wanted) in [
            ("paginaton ", ALL, true),
            ("paginaton", ALL, true),
            ("zzzzzzz configuration ", ALL, true),
            ("paginaton ", fuzzy_off, false),
            ("configuration install ", ALL, false),
            // Being typed, with completions: not a typo yet.
            ("configuration instal", ALL, false),
            // Too short and too long for corrections.
            ("xyz ", ALL, false),
            ("qqqqqqqqqqqqqqqqqqqqqqqqq ", ALL, false),
        ] {
            let p = plan_for(&[text], query, opts);
            let wanted = wanted && !cfg!(feature = "typos");
            assert_eq!(p.needs_corrections, wanted, "{query:?}");
            assert_eq!(
                p.runs_here().map_err(|e| e.code()),
                if wanted {
                    Err("NEEDS_FULL_ENGINE")
                } else {
                    Ok(())
                },
                "{query:?}"
            );
        }
        if cfg!(feature = "typos") {
            let p = plan_for(&[text], "paginaton ", ALL);
            assert_eq!(p.unknown, vec![(0, 9, Some("pagination".to_string()))]);
        }
    }
}
