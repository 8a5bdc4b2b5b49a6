//! Typo corrections (feature `typos`): dictionary terms within one or two edits of an
//! unknown word, found with Levenshtein automata (`levenshtein.rs`), and words one swap of adjacent
//! letters away (`serach`, `tokenzier`: one edit for people, two for Levenshtein). Without the feature
//! `typos_off.rs` stands here: the plan notes the words that would have wanted corrections,
//! and the query moves to an engine that has them.
use super::levenshtein::Within;
use super::lexicon::Lexicon;
use super::{may_have_corrections, QueryPlan, WeightedTerm, MAX_FUZZY_CHARS, MAX_FUZZY_EXPANSIONS};
use crate::analyzer::{Analyzer, QueryToken};
use crate::error::Result;

/// Weight of a correction at edit distance 1 and 2.
const FUZZY_WEIGHT: [f32; 2] = [0.6, 0.35];

/// Corrections of the unknown word `tok`, best first: the closest of Levenshtein's and of
/// one transposition (both one edit when both are near), else stems near its prefixes.
pub(super) fn corrections_of<L: Lexicon + ?Sized>(
    dict: &L,
    analyzer: &Analyzer,
    tok: &QueryToken,
    _: &mut QueryPlan,
) -> Vec<(WeightedTerm, u64)> {
    if !may_have_corrections(&tok.term, &tok.raw) {
        return Vec::new();
    }
    let mut c = dict.corrections(&tok.term);
    let swapped = dict.transpositions(analyzer, tok);
    if !swapped.is_empty() {
        // A transposition is one edit: it ties with Levenshtein's distance-1 corrections
        // and beats its distance-2 ones.
        c.retain(|(t, _)| t.weight >= FUZZY_WEIGHT[0]);
        for s in swapped {
            if !c.iter().any(|(t, _)| t.term == s.0.term) {
                c.push(s);
            }
        }
        crate::sort::sort_by(&mut c, |a, b| b.1.cmp(&a.1).then(a.0.term.cmp(&b.0.term)));
        c.truncate(MAX_FUZZY_EXPANSIONS);
    }
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
            let Some(lev) = Within::new(&prefix, 1) else {
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
            let Some(lev) = Within::new(term, dist) else {
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

    /// Dictionary terms of the words made by swapping two adjacent letters of the typed
    /// word (each analyzed as a query word is, so `tokenzier` finds the stem of
    /// `tokenizer`), at the weight of one edit. Looked up through the same walk as the other
    /// corrections (a sharded index reads its lexicon, not the shards of each variant), so a
    /// query fetches nothing more for them.
    fn transpositions(&self, analyzer: &Analyzer, tok: &QueryToken) -> Vec<(WeightedTerm, u64)> {
        let word = if tok.raw.is_empty() {
            &tok.term
        } else {
            &tok.raw
        };
        let chars: Vec<char> = word.chars().collect();
        if chars.len() < 2 || chars.len() > MAX_FUZZY_CHARS {
            return Vec::new();
        }
        let mut out: Vec<(WeightedTerm, u64)> = Vec::new();
        for i in 0..chars.len() - 1 {
            if chars[i] == chars[i + 1] {
                continue;
            }
            let mut swapped = chars.clone();
            swapped.swap(i, i + 1);
            let variant: String = swapped.into_iter().collect();
            let tokens = analyzer.analyze_query(&variant);
            let [only] = tokens.as_slice() else {
                continue;
            };
            if only.part || only.cjk || only.term == tok.term {
                continue;
            }
            let Some(exact) = Within::new(&only.term, 0) else {
                continue;
            };
            for (term, offset) in self.within(&exact, 1) {
                if out.iter().any(|(t, _)| t.term == term) {
                    continue;
                }
                let df = self.df(&term, offset);
                out.push((
                    WeightedTerm {
                        term,
                        offset,
                        weight: FUZZY_WEIGHT[0],
                    },
                    df,
                ));
            }
        }
        out
    }
}

impl<L: Lexicon + ?Sized> Corrections for L {}
/// Edit distance of two short words (in characters) where a swap of two adjacent
/// characters is one edit, as people count typos (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the distance table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            let mut d = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn a_swap_of_adjacent_letters_is_one_edit() {
        assert_eq!(edit_distance("serach", "search"), 1);
        assert_eq!(edit_distance("tokenzier", "tokenizer"), 1);
        assert_eq!(edit_distance("serch", "search"), 1);
        assert_eq!(edit_distance("abc", "cba"), 2);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
