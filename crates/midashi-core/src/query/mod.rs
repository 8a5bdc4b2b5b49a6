//! From a query string to weighted clauses over dictionary terms.
//!
//! Each query word becomes a [`Clause`]: a set of alternatives (the exact term, completions
//! of the word being typed, typo corrections, synonyms). A section scores the *best*
//! alternative of each clause, and the clause scores add up — so a word matched three ways
//! is not counted three times, and a typo correction (weighted below 1, and only tried for
//! words absent from the dictionary) never outranks an exact hit.
//!
//! [`lexicon`] is what planning reads of a dictionary, [`synonyms`] the groups it applies,
//! [`typos`] the corrections it tries (feature `typos`).

#[cfg(feature = "typos")]
pub mod levenshtein;
pub mod lexicon;
pub mod synonyms;
pub mod syntax;
#[cfg(test)]
mod tests;
#[cfg_attr(not(feature = "typos"), path = "typos_off.rs")]
pub mod typos;

use crate::analyzer::{Analyzer, QueryToken};
use lexicon::{Lexicon, LexiconExt};
/// Longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 4096;
/// Query words beyond this many are ignored.
pub const MAX_QUERY_TERMS: usize = 64;
/// Completions tried for the word being typed.
pub const MAX_PREFIX_EXPANSIONS: usize = 24;
/// Dictionary entries walked to find them (bounds the time of a one-letter prefix).
pub(crate) const MAX_PREFIX_SCAN: usize = 20_000;
/// Dictionary entries walked for completions in one whole query: a query of many lone CJK
/// characters (each prefix-expanded) costs no more than two one-letter prefixes.
const MAX_PLAN_PREFIX_SCAN: usize = 2 * MAX_PREFIX_SCAN;
/// Typo corrections tried per word.
pub const MAX_FUZZY_EXPANSIONS: usize = 4;
/// Longest word (in characters) that gets typo corrections: long identifiers are pasted
/// rather than typed, and a walk's rows ([`levenshtein::Row`]) are this long.
pub const MAX_FUZZY_CHARS: usize = 20;
/// Words of one query that get typo corrections. Each costs up to eighteen dictionary
/// walks, so 64 long unknown words must not all get them; people mistype a few words, not
/// dozens.
pub const MAX_FUZZY_WORDS: usize = 4;
/// Weight of a completion relative to an exact term.
const PREFIX_WEIGHT: f32 = 0.9;
/// Weight of a completion when the word typed is itself a word of the site (`package`,
/// which `package-features` continues): the reader who stops there most likely means it.
///
/// Why: a clause scores its best alternative, and a rare completion's idf outweighs a common
/// word's (`cargo package` on the Cargo book: `package-features` first, at 0.9 and still at
/// 0.4 — a completion far rarer than the word typed still leads; weighing a completion by the
/// typed word's idf would end that, and needs each completion's df at planning). Measured on headings cut to their
/// first two words, typed with completion as the widget asks (MRR@10 of the heading's section,
/// 0.9 → 0.4): Rust book 0.646 → 0.669, Vue 0.640 → 0.687, PowerShell 7.5 0.361 → 0.425, the
/// Cargo book 0.753 → 0.792 (without completion 0.677, 0.710, 0.463, 0.803); over every
/// keystroke of the same headings 0.644 → 0.644, 0.629 → 0.633, 0.562 → 0.564, 0.593 → 0.594
/// (0.25 gained more on the first set and lost on the second). A CJK character keeps
/// [`PREFIX_WEIGHT`]: its completions are how a Japanese word is matched as it is typed
/// (Vue ja, every keystroke, 0.764 → 0.762: the English words of its headings).
const PREFIX_WEIGHT_AFTER_WORD: f32 = 0.4;
/// Weight of a query bigram written in hiragana alone (`した`, `もの`, `とは`).
///
/// Why: Japanese writes its content words in kanji and katakana and its grammar — particles,
/// endings, auxiliaries — in hiragana, and a sentence typed as a query yields as many
/// bigrams of the one as of the other; at full weight a section that merely shares the
/// query's grammar (`…したもの…`) outranked the one holding its one rare word. Measured
/// (`build-index eval`, nDCG@10, keyword, weight 1 → 0.5): the Japanese Vue question set
/// 0.575 → 0.587 (its questions 0.435 → 0.456, navigational queries unchanged), JSQuAD
/// 0.938 → 0.940; 0.3 scores alike (0.588, 0.940), so the round half. A query of hiragana
/// alone (`はじめに`) ranks as before: all its terms weigh alike. The index does not
/// change: katakana is folded to hiragana there, so the query's own text decides.
const HIRAGANA_BIGRAM_WEIGHT: f32 = 0.5;

/// Whether `tok` is a CJK token written in hiragana in `query` (before katakana folds into
/// it): [`Clause::grammar`].
fn written_in_hiragana(tok: &QueryToken, query: &str) -> bool {
    tok.cjk
        && query
            .get(tok.start..tok.end)
            .is_some_and(|text| text.chars().all(crate::analyzer::is_hiragana))
}

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
    /// A bigram the query wrote in hiragana alone (`した`, `のは`): how a Japanese sentence is
    /// phrased — particles, endings — rather than what it asks. It weighs
    /// [`HIRAGANA_BIGRAM_WEIGHT`] in BM25, and coverage (`rank::coverage`) does not count it.
    pub grammar: bool,
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
    /// feature `typos`, as in the keyword modules): the query must run in an engine
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
        typos::runs_here(self)
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
        let grammar = written_in_hiragana(tok, query);
        let mut clause = Clause {
            grammar,
            ..Clause::default()
        };
        let weight = if grammar { HIRAGANA_BIGRAM_WEIGHT } else { 1.0 };
        let exact = dict.exact(&tok.term, weight);
        if let Some(t) = exact.clone() {
            clause.alternatives.push(Alternative { terms: vec![t] });
        }
        // The word as the index's other languages' pages have it: as exact as `term`.
        let mut known = exact.is_some();
        for t in tok.also.iter().filter_map(|a| dict.exact(a, 1.0)) {
            known = true;
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
            let completion = if known && !tok.cjk {
                PREFIX_WEIGHT_AFTER_WORD
            } else {
                PREFIX_WEIGHT
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
                                weight: completion,
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
                        if let Some(t) = dict.exact(p, completion) {
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
        if !known && !tok.cjk && !tok.part && !completed {
            let corrections: Vec<(WeightedTerm, u64)> = if opts.fuzzy && fuzzy_words > 0 {
                fuzzy_words -= 1;
                typos::corrections_of(dict, analyzer, tok, &mut plan)
            } else {
                Vec::new()
            };
            let suggestion = corrections
                .first()
                .map(|(t, _)| dict.surface(&t.term, t.offset));
            if clause.alternatives.is_empty() {
                plan.unknown.push((tok.start, tok.end, suggestion));
                // The heading lift compares headings with the word meant: "obsevateurs"
                // names the page "Observateurs" as "observateurs" does.
                if let (Some((best, _)), Some(last)) = (corrections.first(), plan.terms.last_mut())
                {
                    best.term.clone_into(last);
                }
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

/// Whether a word gets typo corrections at all (by its length): shorter and longer words
/// get none, so a build without corrections answers those words alike.
pub(crate) fn may_have_corrections(term: &str, raw: &str) -> bool {
    (4..=MAX_FUZZY_CHARS).contains(&term.chars().count())
        || (5..=MAX_FUZZY_CHARS).contains(&raw.chars().count())
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
