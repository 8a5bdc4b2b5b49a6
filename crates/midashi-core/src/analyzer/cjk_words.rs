//! Which of a Japanese or Chinese query's bigrams a result may mark.
//!
//! CJK text is indexed as overlapping bigrams, so a query 「関数を使う」 asks for 関数, 数を,
//! を使, 使う, and every one of them is marked where a text has it: 「数を」 in 「引数を」,
//! 「には」, 「する」 — grammar, not the words asked for. A mark must cover a word of the
//! query instead. Without a dictionary, the words are guessed from where the query's
//! script changes: a stretch of Han characters (its bigrams are marked wherever they
//! are: Chinese writes whole sentences in Han, and 関数 inside 関数型 is still the word),
//! a katakana word (marked only whole: 「イブラ」 is not 「ライブラリ」), and a run in hiragana
//! alone or with no longer part (「する」 typed alone, 「使う」) marked only whole. Other
//! scripts read as bigrams (Hangul, Thai …) are marked as before.
use super::{is_han, is_hiragana, is_katakana, Normalized};

/// A query's CJK words, folded as the index folds text.
#[derive(Debug, Default, Clone)]
pub struct CjkWords {
    /// The bigrams inside the query's Han stretches: marked wherever they are found. (A
    /// list: a query has a few, and a set type would be more code in every wasm module.)
    han: Vec<[char; 2]>,
    /// Kana words and short runs: marked only where the whole of one is found.
    whole: Vec<Vec<char>>,
}

#[derive(Clone, Copy, PartialEq)]
enum Script {
    Han,
    Hiragana,
    Katakana,
}

fn script(c: char) -> Option<Script> {
    if is_hiragana(c) {
        Some(Script::Hiragana)
    } else if is_katakana(c) || matches!(c, '\u{FF66}'..='\u{FF9F}') {
        // Half-width katakana too: a query is read before it is normalised.
        Some(Script::Katakana)
    } else if is_han(c) {
        Some(Script::Han)
    } else {
        None
    }
}

/// A bigram term the rules here decide: two characters, each Han or (folded) kana.
fn is_japanese_bigram(term: &str) -> bool {
    let mut c = term.chars();
    match (c.next(), c.next(), c.next()) {
        (Some(a), Some(b), None) => script(a).is_some() && script(b).is_some(),
        _ => false,
    }
}

fn folded(s: &str) -> Vec<char> {
    Normalized::new(s).text.chars().collect()
}

impl CjkWords {
    /// The CJK words of `query`.
    pub fn of(query: &str) -> CjkWords {
        let mut words = CjkWords::default();
        let chars: Vec<(usize, char)> = query.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            if script(chars[i].1).is_none() {
                i += 1;
                continue;
            }
            let run_start = i;
            while i < chars.len() && script(chars[i].1).is_some() {
                i += 1;
            }
            words.add_run(&chars[run_start..i], query);
        }
        words
    }

    fn add_run(&mut self, run: &[(usize, char)], query: &str) {
        let byte = |k: usize| run.get(k).map_or(run_end(run), |&(b, _)| b);
        let mut any = false;
        let mut k = 0;
        while k < run.len() {
            let s = script(run[k].1);
            let from = k;
            while k < run.len() && script(run[k].1) == s {
                k += 1;
            }
            if k - from < 2 {
                continue;
            }
            let part = folded(&query[byte(from)..byte(k)]);
            match s {
                Some(Script::Han) => {
                    for w in part.windows(2) {
                        self.han.push([w[0], w[1]]);
                    }
                    any = true;
                }
                Some(Script::Katakana) => {
                    self.whole.push(part);
                    any = true;
                }
                _ => {}
            }
        }
        if !any && run.len() >= 2 {
            self.whole.push(folded(&query[byte(0)..run_end(run)]));
        }
    }

    /// Whether the query has no CJK words (its marks are left as found).
    pub fn is_empty(&self) -> bool {
        self.han.is_empty() && self.whole.is_empty()
    }

    /// `found` (matches in `text`, in order) with its Han and kana bigrams replaced by marks
    /// over the query's words they make up.
    pub(crate) fn keep<'t>(
        &self,
        text: &str,
        found: Vec<(usize, usize, &'t str)>,
    ) -> Vec<(usize, usize, &'t str)> {
        if self.is_empty() || !found.iter().any(|m| is_japanese_bigram(m.2)) {
            return found;
        }
        let second =
            |m: &(usize, usize, &str)| m.0 + text[m.0..].chars().next().map_or(0, char::len_utf8);
        let mut out = Vec::with_capacity(found.len());
        let mut chain: Vec<(usize, usize, &'t str)> = Vec::new();
        for m in found {
            if !is_japanese_bigram(m.2) {
                out.push(m);
                continue;
            }
            if chain.last().is_some_and(|last| second(last) != m.0) {
                self.mark_chain(&chain, &second, &mut out);
                chain.clear();
            }
            chain.push(m);
        }
        self.mark_chain(&chain, &second, &mut out);
        // The crate's one sort: another instance of the standard one is kilobytes of wasm.
        crate::sort::sort_by(&mut out, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        out
    }

    /// Marks over the query's words in a chain of bigrams found one character apart.
    fn mark_chain<'t>(
        &self,
        chain: &[(usize, usize, &'t str)],
        second: &dyn Fn(&(usize, usize, &str)) -> usize,
        out: &mut Vec<(usize, usize, &'t str)>,
    ) {
        let Some(last) = chain.last() else {
            return;
        };
        // The chain's characters (folded, as its terms hold them) and their byte spans.
        let mut chars: Vec<char> = Vec::with_capacity(chain.len() + 1);
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(chain.len() + 1);
        for m in chain {
            chars.push(m.2.chars().next().unwrap_or(' '));
            spans.push((m.0, second(m)));
        }
        chars.push(last.2.chars().nth(1).unwrap_or(' '));
        spans.push((second(last), last.1));
        for (k, m) in chain.iter().enumerate() {
            if self.han.contains(&[chars[k], chars[k + 1]]) {
                out.push((spans[k].0, spans[k + 1].1, m.2));
            }
        }
        for w in &self.whole {
            if w.len() > chars.len() {
                continue;
            }
            for i in 0..=chars.len() - w.len() {
                if chars[i..i + w.len()] == w[..] {
                    let term = chain[i.min(chain.len() - 1)].2;
                    out.push((spans[i].0, spans[i + w.len() - 1].1, term));
                }
            }
        }
    }
}

fn run_end(run: &[(usize, char)]) -> usize {
    run.last().map_or(0, |&(b, c)| b + c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::CjkWords;
    use crate::analyzer::{Analyzer, MatchMemo};
    use rustc_hash::FxHashSet as HashSet;

    /// What a result's text marks for `query`, as strings.
    fn marks(query: &str, text: &str) -> Vec<String> {
        let a = Analyzer::new();
        let terms: Vec<String> = a.analyze(query).into_iter().map(|t| t.term).collect();
        let terms: HashSet<&str> = terms.iter().map(String::as_str).collect();
        let found = a.matches(text, &terms, &mut MatchMemo::default());
        let kept = CjkWords::of(query).keep(text, found);
        let mut out: Vec<String> = Vec::new();
        for (s, e, _) in kept {
            // Overlapping marks read as one, as the highlights merge them.
            match out.last_mut() {
                Some(last) if text.find(last.as_str()).is_some_and(|p| p + last.len() > s) => {
                    let p = text.find(last.as_str()).unwrap();
                    *last = text[p..e.max(p + last.len())].to_string();
                }
                _ => out.push(text[s..e].to_string()),
            }
        }
        out
    }

    #[test]
    fn grammar_between_words_is_not_marked() {
        assert_eq!(marks("関数を使う", "引数を渡す関数には型がある"), ["関数"]);
        assert_eq!(
            marks("ライブラリには", "このライブラリを使う。ブラウザには"),
            ["ライブラリ"]
        );
        assert!(
            marks("コンポーネントを登録する", "登録することができる").contains(&"登録".to_string())
        );
        assert!(!marks("コンポーネントを登録する", "登録することができる")
            .contains(&"する".to_string()));
    }

    #[test]
    fn a_kana_word_is_marked_only_whole() {
        assert!(marks("ライブラリ", "バイブラント").is_empty());
        assert_eq!(marks("スロット", "名前付きスロットを使う"), ["スロット"]);
        // Half-width katakana fold to the same word.
        assert_eq!(marks("ｽﾛｯﾄ", "スロットの例"), ["スロット"]);
        // A run in hiragana alone is a word of its own.
        assert_eq!(marks("する", "登録する"), ["する"]);
    }

    #[test]
    fn han_stretches_mark_their_words_anywhere() {
        // Chinese: a sentence in Han; its words are found inside it.
        assert_eq!(marks("如何使用组件", "在页面中使用组件"), ["使用组件"]);
        assert_eq!(
            marks("名前付きスロット", "名前付きスロット"),
            ["名前付", "スロット"]
        );
    }

    #[test]
    fn other_words_and_scripts_are_left_alone() {
        assert_eq!(marks("v-model の使い方", "v-model を使う"), ["v-model"]);
        assert_eq!(marks("검색 방법", "검색 방법은"), ["검색", "방법"]);
    }
}
