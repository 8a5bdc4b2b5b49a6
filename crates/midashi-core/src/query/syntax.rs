//! Query operators, as web search engines spell them: `"a phrase"` (its words next to each
//! other, in this order) and `-word` (no section holding it). Japanese quotes `「…」` and
//! `『…』` and typographic `“…”` quote too.
//!
//! Parsing leaves the query's byte offsets alone: the text handed to the planner is the
//! query with the operators' characters blanked, so "did you mean" still edits the query as
//! typed. The phrase's words are planned with the rest (they score as usual); the phrase
//! itself and the excluded words then filter the ranked sections (see
//! [`crate::search`]). Where a phrase's words occur is not in the index (positions would
//! double its postings): a phrase is checked in the text of the best sections holding all
//! its words, at most [`MAX_PHRASE_CHECKS`] of them.
use crate::analyzer::Analyzer;

/// Sections whose text a query's phrases are checked in: the best of those holding every
/// word of the phrases; the rest are not shown. Bounds the text a phrase query analyses
/// (and, on a sharded site, the bundles it fetches).
pub const MAX_PHRASE_CHECKS: usize = 100;

/// A query split into what is planned and what filters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Operators {
    /// The query with its operators blanked (the same byte length): what is planned.
    pub text: String,
    /// Quoted phrases.
    pub phrases: Vec<String>,
    /// Words after a `-`.
    pub excluded: Vec<String>,
}

impl Operators {
    /// Whether the query uses any operator.
    pub fn any(&self) -> bool {
        !self.phrases.is_empty() || !self.excluded.is_empty()
    }
}

/// The closing quote of an opening one.
fn closing(c: char) -> Option<char> {
    match c {
        '"' => Some('"'),
        '“' => Some('”'),
        '「' => Some('」'),
        '『' => Some('』'),
        '＂' => Some('＂'),
        _ => None,
    }
}

/// Splits `query` into its planned text, phrases and excluded words. An unclosed quote runs
/// to the end and is no phrase yet. `-` excludes only at a word's start and
/// before a word: `Get-ChildItem`, `--out`, `a - b` keep their dashes. A query of nothing
/// but exclusions is read as its words: excluding from nothing finds nothing, and on docs
/// `-Recurse` or `-v` is what a visitor types to find that parameter or flag.
pub fn parse(query: &str) -> Operators {
    let out = parse_operators(query);
    if out.phrases.is_empty() && !out.excluded.is_empty() && out.text.trim().is_empty() {
        return Operators {
            text: query.to_string(),
            ..Operators::default()
        };
    }
    out
}

fn parse_operators(query: &str) -> Operators {
    let chars: Vec<(usize, char)> = query.char_indices().collect();
    let mut out = Operators {
        text: String::with_capacity(query.len()),
        ..Operators::default()
    };
    let blank = |text: &mut String, bytes: usize| text.extend(std::iter::repeat_n(' ', bytes));
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let word_start = i == 0 || chars[i - 1].1.is_whitespace();
        if let Some(close) = closing(c) {
            let mut j = i + 1;
            while j < chars.len() && chars[j].1 != close {
                j += 1;
            }
            let inner_end = chars.get(j).map_or(query.len(), |&(o, _)| o);
            let inner = &query[at + c.len_utf8()..inner_end];
            // An unclosed quote is a phrase still being typed: its words count, the phrase
            // not yet (its last word is a prefix, which no text holds as a word).
            if j < chars.len() && !inner.trim().is_empty() {
                out.phrases.push(inner.to_string());
            }
            blank(&mut out.text, c.len_utf8());
            out.text.push_str(inner);
            if j < chars.len() {
                blank(&mut out.text, close.len_utf8());
            }
            i = j + 1;
            continue;
        }
        let next = chars.get(i + 1).map(|&(_, n)| n);
        if c == '-' && word_start && next.is_some_and(|n| !n.is_whitespace() && n != '-') {
            let mut j = i + 1;
            while j < chars.len() && !chars[j].1.is_whitespace() {
                j += 1;
            }
            let end = chars.get(j).map_or(query.len(), |&(o, _)| o);
            out.excluded.push(query[at + 1..end].to_string());
            blank(&mut out.text, end - at);
            i = j;
            continue;
        }
        out.text.push(c);
        i += 1;
    }
    out
}

/// Whether the words of `phrase` occur in `text` next to each other, in order, as the
/// analyzer reads both (stemmed, normalised; stopwords count; an identifier is one word).
pub fn phrase_occurs(analyzer: &Analyzer, phrase: &str, text: &str) -> bool {
    if let Some(found) = analyzer.cjk_phrase_in(phrase, text) {
        return found;
    }
    let wanted = words(analyzer, phrase);
    let Some(first) = wanted.first() else {
        return true;
    };
    // The text's words are compared as they come, not kept: only the positions holding a
    // word of the phrase are noted (analysing each candidate's text into owned terms was
    // most of a phrase query's time).
    let mut distinct: Vec<&str> = wanted.iter().map(|(_, t)| t.as_str()).collect();
    crate::sort::sort(&mut distinct);
    distinct.dedup();
    let mut at: rustc_hash::FxHashMap<u32, usize> = rustc_hash::FxHashMap::default();
    let mut starts: Vec<u32> = Vec::new();
    first_terms(analyzer, text, &mut |term, position| {
        if let Ok(i) = distinct.binary_search(&term) {
            at.insert(position, i);
            if term == first.1 {
                starts.push(position);
            }
        }
    });
    starts.iter().any(|&p| {
        wanted.iter().all(|(q, t)| {
            p.checked_add(q - first.0)
                .and_then(|k| at.get(&k))
                .is_some_and(|&i| distinct[i] == t)
        })
    })
}

/// The first term at each position (a whole word before its identifier parts).
fn words(analyzer: &Analyzer, text: &str) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = Vec::new();
    first_terms(analyzer, text, &mut |term, position| {
        out.push((position, term.to_string()))
    });
    out
}

/// Hands `each` the first term at each position of `text`, in order (a whole word before its
/// identifier parts), as the analyzer finds it.
fn first_terms(analyzer: &Analyzer, text: &str, each: &mut dyn FnMut(&str, u32)) {
    let mut last: Option<u32> = None;
    analyzer.visit_terms(text, &mut |term, position| {
        if last != Some(position) {
            last = Some(position);
            each(term, position);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_are_parsed_and_blanked_in_place() {
        let q = r#"borrow "mutable reference" -unsafe"#;
        let o = parse(q);
        assert_eq!(o.phrases, vec!["mutable reference"]);
        assert_eq!(o.excluded, vec!["unsafe"]);
        assert_eq!(o.text.len(), q.len());
        assert_eq!(o.text, "borrow  mutable reference         ");
        // Dashes inside words, flags and lone dashes are text.
        for q in ["Get-ChildItem", "--keyword-only", "a - b", "x-y -"] {
            let o = parse(q);
            assert!(!o.any(), "{q}");
            assert_eq!(o.text, q);
        }
        // Japanese quotes, an unclosed quote, an exclusion in Japanese.
        let o = parse("「算出プロパティ」 -キャッシュ");
        assert_eq!(o.phrases, vec!["算出プロパティ"]);
        assert_eq!(o.excluded, vec!["キャッシュ"]);
        assert_eq!(o.text.len(), "「算出プロパティ」 -キャッシュ".len());
        let typing = parse("\"still typ");
        assert!(typing.phrases.is_empty());
        assert_eq!(typing.text, " still typ");
        assert_eq!(parse("\"\" x").phrases, Vec::<String>::new());
    }

    #[test]
    fn a_query_of_only_exclusions_is_read_as_words() {
        // A PowerShell parameter or a CLI flag, typed as it is written.
        for q in ["-Recurse", "-Recurse -Force", " -v "] {
            let o = parse(q);
            assert!(!o.any(), "{q}");
            assert_eq!(o.text, q);
        }
        // With any other word, or a phrase, `-` still excludes.
        assert_eq!(parse("files -Recurse").excluded, vec!["Recurse"]);
        assert_eq!(parse("\"a b\" -c").excluded, vec!["c"]);
    }

    #[test]
    fn a_phrase_occurs_only_in_order_and_adjacent() {
        let a = Analyzer::new();
        let text = "The borrow checker compares scopes. A checker for borrowing.";
        assert!(phrase_occurs(&a, "borrow checker", text));
        assert!(
            phrase_occurs(&a, "Borrow Checkers", text),
            "stemmed and case-folded"
        );
        assert!(
            phrase_occurs(&a, "the borrow checker", text),
            "stopwords count"
        );
        assert!(!phrase_occurs(&a, "checker borrow", text));
        assert!(!phrase_occurs(&a, "borrow compares", text));
        assert!(phrase_occurs(
            &a,
            "getElementById returns",
            "getElementById returns a node"
        ));
        assert!(phrase_occurs(
            &a,
            "算出プロパティ",
            "これは算出プロパティです"
        ));
        assert!(!phrase_occurs(&a, "算出プロパティ", "算出されたプロパティ"));
    }

    /// The phrase check as first written: every term of the text kept, by position.
    fn plainly(a: &Analyzer, phrase: &str, text: &str) -> bool {
        let words = |t: &str| {
            let mut out: Vec<(u32, String)> = Vec::new();
            for t in a.analyze(t) {
                if out.last().is_none_or(|(p, _)| *p != t.position) {
                    out.push((t.position, t.term));
                }
            }
            out
        };
        let wanted = words(phrase);
        let Some(first) = wanted.first() else {
            return true;
        };
        let have = words(text);
        let at: std::collections::HashMap<u32, &str> =
            have.iter().map(|(p, t)| (*p, t.as_str())).collect();
        have.iter().filter(|(_, t)| t == &first.1).any(|(p, _)| {
            wanted
                .iter()
                .all(|(q, t)| at.get(&(p + (q - first.0))).is_some_and(|w| w == t))
        })
    }

    proptest::proptest! {
        /// Texts and phrases of a few words (English, identifiers, Japanese), repeated
        /// words included: the check agrees with the plain one.
        #[test]
        fn the_phrase_check_agrees_with_the_plain_one(
            text in proptest::collection::vec(0usize..9, 0..30),
            phrase in proptest::collection::vec(0usize..9, 0..4),
        ) {
            const WORDS: [&str; 9] = [
                "the", "borrow", "checkers", "checker", "getElementById", "算出", "プロパティ", "です。", "borrowing",
            ];
            let join = |ix: &[usize]| ix.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
            let (text, phrase) = (join(&text), join(&phrase));
            for a in [Analyzer::new(), Analyzer::for_language(crate::analyzer::Language::French)] {
                proptest::prop_assert_eq!(
                    phrase_occurs(&a, &phrase, &text),
                    plainly(&a, &phrase, &text),
                    "{:?} in {:?}", phrase, text
                );
            }
        }
    }

    #[test]
    fn a_space_breaks_a_cjk_phrase() {
        // Found by the property below when its texts held spaces: "アがイ" is not in
        // "家ｱが ガイが", though its bigrams' positions follow each other there.
        let a = Analyzer::new();
        assert!(!phrase_occurs(&a, "アがイ", "家ｱが ガイが"));
        assert!(phrase_occurs(&a, "アがイ", "家ｱがイが"));
    }

    proptest::proptest! {
        /// Japanese text without spaces (kanji, kana, half-width katakana that normalisation
        /// reshapes, the long-vowel mark, punctuation, Latin letters) and phrases of a few of
        /// its characters: the substring search for a CJK run agrees with the walk. (A space
        /// between two runs is a gap to the substring search and none to the walk, whose
        /// bigram positions run on; a phrase does not span it: `a_space_breaks_a_cjk_phrase`.)
        #[test]
        fn a_cjk_run_is_found_as_the_walk_finds_it(
            text in "[建築家のアイｱｲｶﾞガがー々。「」、aB1]{0,24}",
            phrase in "[建築家のアイｱｲｶﾞガがー々。aB ]{0,5}",
        ) {
            let a = Analyzer::new();
            proptest::prop_assert_eq!(
                phrase_occurs(&a, &phrase, &text),
                plainly(&a, &phrase, &text),
                "{:?} in {:?}", phrase, text
            );
        }
    }
}
