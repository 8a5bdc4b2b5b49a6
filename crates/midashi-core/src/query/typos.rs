//! Typo corrections (feature `typos`): dictionary terms within one or two edits of an
//! unknown word, found with fst's Levenshtein automata. Without the feature
//! `typos_off.rs` stands here: the plan notes the words that would have wanted corrections,
//! and the query moves to an engine that has them.
use super::lexicon::Lexicon;
use super::{QueryPlan, WeightedTerm, MAX_FUZZY_CHARS, MAX_FUZZY_EXPANSIONS};
use crate::analyzer::QueryToken;
use crate::error::Result;
use fst::automaton::Levenshtein;

/// Weight of a correction at edit distance 1 and 2.
const FUZZY_WEIGHT: [f32; 2] = [0.6, 0.35];

/// Corrections of the unknown word `tok`, best first.
pub(super) fn corrections_of<L: Lexicon + ?Sized>(
    dict: &L,
    tok: &QueryToken,
    _: &mut QueryPlan,
) -> Vec<(WeightedTerm, u64)> {
    let c = dict.corrections(&tok.term);
    if c.is_empty() {
        dict.stem_corrections(&tok.raw)
    } else {
        c
    }
}

/// This build makes every correction a plan can want.
pub(super) fn runs_here(_: &QueryPlan) -> Result<()> {
    Ok(())
}

/// Dictionary walks for typo corrections, for any [`Lexicon`].
pub trait Corrections: Lexicon {
    /// Typo corrections that stemming hides: "paginaton" is far from the stem "pagin" of
    /// "pagination", but a prefix of it is that stem. Candidates are stems within one edit of
    /// a long prefix of the typed word, kept when the word they stand for (their display
    /// form) is within the typo budget of what was typed.
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

impl<L: Lexicon + ?Sized> Corrections for L {}
/// Levenshtein distance of two short words (in characters).
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
