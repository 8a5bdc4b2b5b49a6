//! What a search box offers besides results: completions of the word being typed and "did
//! you mean" for words the index does not have.

use crate::analyzer::Analyzer;
use crate::query::lexicon::{Lexicon, LexiconExt};
use crate::query::{QueryPlan, MAX_QUERY_BYTES};

/// Completions of the last word of `prefix` in `dict`, as display words.
pub(crate) fn suggest_in<L: Lexicon + ?Sized>(
    analyzer: &Analyzer,
    dict: &L,
    prefix: &str,
    limit: usize,
) -> Vec<String> {
    // Only the end of the text can hold the word being typed: a huge input costs no more
    // than the longest query.
    let mut cut = prefix.len().saturating_sub(MAX_QUERY_BYTES);
    while !prefix.is_char_boundary(cut) {
        cut += 1;
    }
    let tokens = analyzer.analyze_query(&prefix[cut..]);
    let Some(last) = tokens.iter().rev().find(|t| !t.part) else {
        return Vec::new();
    };
    let raw = if last.raw.is_empty() {
        &last.term
    } else {
        &last.raw
    };
    let mut out: Vec<String> = Vec::new();
    for (term, offset, _) in dict.completions(raw, limit.saturating_mul(3).max(limit)) {
        let word = dict.surface(&term, offset);
        if word.starts_with(raw.as_str()) && !out.contains(&word) {
            out.push(word);
        }
        if out.len() >= limit {
            break;
        }
    }
    out
}

/// The query with each unknown word replaced by its best correction, if any was found.
pub(crate) fn did_you_mean(query: &str, plan: &QueryPlan) -> Vec<String> {
    let mut fixed = String::new();
    let mut last = 0;
    let mut changed = false;
    for (start, end, suggestion) in &plan.unknown {
        if let Some(word) = suggestion {
            fixed.push_str(&query[last..*start]);
            fixed.push_str(word);
            last = *end;
            changed = true;
        }
    }
    if !changed {
        return Vec::new();
    }
    fixed.push_str(&query[last..]);
    vec![fixed]
}
