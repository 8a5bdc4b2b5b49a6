//! How text becomes terms. ONE analyzer, used by the index builder and by queries, natively
//! and in wasm: if build and query disagree here, nothing is found.
//!
//! # Pipeline
//!
//! 1. **Normalise** (`normalize.rs`): the original text is walked one grapheme cluster at a
//!    time; each cluster is NFKC-normalised (full-width → half-width, `ｶﾞ` → `ガ`, ligatures
//!    expanded), katakana is folded to hiragana and small kana to full size (`プロパティ` →
//!    `ぷろぱてい`; `ー` kept) and `’` to `'`. Case is kept at this stage because identifier
//!    splitting needs it. Alongside the buffer a compact offset map (byte-for-byte
//!    stretches, plus one entry per cluster whose normalised form changed shape) maps any
//!    normalised range back to the original, so every [`Token`] slices the *original* text
//!    at char boundaries. ASCII and common CJK
//!    characters skip the cluster machinery.
//! 2. **Split scripts**: maximal runs of CJK characters (Han, kana including `ー`, Hangul)
//!    are taken out first, because UAX#29 splits ideographs and kana into single
//!    characters. A run yields overlapping character bigrams, each at its own position; a
//!    run of one character yields that unigram (the query layer prefix-expands a lone CJK
//!    unigram over the bigrams). `Vueのコンポーネント` → `vue`, `のこ`, `こん`, `んぽ`, …
//!    Thai, Lao, Khmer and Myanmar, written without spaces between words, take the same
//!    path: UAX#29 has no dictionary for them and leaves a whole phrase one "word", longer
//!    than a term may be, so their text was not searchable at all.
//! 3. **Segment** the rest with Unicode word boundaries (UAX#29, `unicode-segmentation`);
//!    segments with no letter or digit (spaces, punctuation, emoji) are dropped. Words
//!    joined by exactly `-`, `.`, `:` or `::` with no space (`v-model`, `std::collections`,
//!    `foo.123`) are rejoined into one compound; UAX#29 already keeps `a.b.c`, `snake_case`
//!    and `bind:href` together.
//! 4. **Terms**: each word or compound takes one position and yields
//!    - the whole word, lower-cased: stemmed (Snowball, by the [`Language`]'s rules) if it is a plain word,
//!      unstemmed if it contains `-` `.` `:` `_` (so `v-model` is searchable as typed);
//!    - if it is an identifier, its parts at the *same* position, lower-cased and stemmed:
//!      the separator-delimited components (`get-childitem` → `get`, `childitem`) and the
//!      camelCase/PascalCase pieces of each (`childitem` → `child`, `item`;
//!      `HTTPServer` → `http`, `server`; `URLs` stays whole). Duplicates at one position
//!      are emitted once. Purely numeric compounds (`3.14`, `2024-01-31`) are not split.
//!
//!    Only words of letters (apostrophes allowed) are stemmed: words with digits are
//!    identifiers or versions (`vue3`, `h1`). English stems ASCII words only; a page in
//!    French, German, Russian … has its own stemmer for words of its script, and English's
//!    for ASCII words in a page of another script (see `language.rs`). The page's language
//!    comes with the page (the builder makes one analyzer per page, [`Analyzer::for_tag`]);
//!    a query's from the reader, with the index's other languages tried too
//!    ([`Analyzer::for_index`], [`QueryToken::also`]).
//! 5. **Stopwords** ([`is_stopword`], the Snowball English list) are indexed like any
//!    word; [`Analyzer::analyze_query`] flags them and drops them unless the query is
//!    nothing but stopwords. Other languages' lists only tell a page's language
//!    ([`Language::guess`]): dropping them from queries was measured to cost ranking.
//!
//! # Bounds
//!
//! All work is linear in the input. A word or compound longer than [`MAX_TERM_BYTES`]
//! (normalised) is not a term: a compound that long falls apart into its components and a
//! camelCase word into its pieces, each then its own word at its own position; whatever is
//! still too long (base64, hashes, minified code) is skipped, not truncated, because a
//! truncated term would match words that are not in the text.

mod cjk_words;
pub(crate) mod host_unicode;
mod language;
mod matching;
mod normalize;
#[cfg_attr(not(feature = "scripts"), path = "scripts_off.rs")]
mod scripts;
mod segment;
#[cfg_attr(not(feature = "languages"), path = "snowball_off.rs")]
mod snowball;
#[cfg(feature = "languages")]
mod stoplists;
mod stopwords;
#[cfg(test)]
mod tests;
mod walk;

use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::sync::Arc;

use crate::error::{Error, Result};
pub use cjk_words::CjkWords;
pub use language::Language;
pub use matching::MatchMemo;
use normalize::Normalized;
pub use stopwords::is_stopword;
use walk::{walk, walk_into, Piece, Sink};

/// The longest word or compound (in normalised UTF-8 bytes) that becomes a term.
pub const MAX_TERM_BYTES: usize = 64;

/// How many distinct words a [`StemMemo`] keeps per language before it starts over (bounds
/// its memory: ~100 bytes a word, under 1 MB a language).
const STEM_CACHE_ENTRIES: usize = 8192;
/// How many languages' stems a [`StemMemo`] keeps before it starts over.
const STEM_CACHE_LANGUAGES: usize = 4;

/// One language's stems by lower-cased word (`None`: stemming changes nothing).
type Stems = HashMap<String, Option<Arc<str>>>;

/// Stems already worked out, by lower-cased word, per language. Each call of
/// [`Analyzer::analyze`] has its own (documents repeat their words); the results of a search
/// index's queries share one ([`crate::rank::workspace::Workspace`], through
/// [`Analyzer::matches`]): the ten texts of a page of results, the preview and excerpt of
/// each, and the next keystroke's results repeat their words. Stemming was a fifth of a
/// SciFact query's time, and still a seventh with a memo per query.
#[derive(Debug, Default)]
pub struct StemMemo {
    langs: Vec<(Language, Stems)>,
}

impl StemMemo {
    /// The stems of `lang`.
    fn for_language(&mut self, lang: Language) -> &mut Stems {
        let i = match self.langs.iter().position(|(l, _)| *l == lang) {
            Some(i) => i,
            None => {
                if self.langs.len() >= STEM_CACHE_LANGUAGES {
                    self.langs.clear();
                }
                self.langs.push((lang, Stems::default()));
                self.langs.len() - 1
            }
        };
        &mut self.langs[i].1
    }
}

/// One term occurrence in analyzed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The indexed form: normalised, case-folded, stemmed (English), or a CJK bigram.
    pub term: String,
    /// Word position (identifier parts share their whole word's position; each CJK
    /// bigram has its own).
    pub position: u32,
    /// Byte range of the source text this term came from (into the *original* text).
    pub start: usize,
    /// End of that byte range (exclusive).
    pub end: usize,
}

/// One term of a query, with what the query planner needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryToken {
    /// Identical to what [`Analyzer::analyze`] yields for this word.
    pub term: String,
    /// The normalised, case-folded but unstemmed word (for prefix expansion of the word
    /// being typed); for CJK the same as `term`.
    pub raw: String,
    /// Position, as in [`Token::position`].
    pub position: u32,
    /// Byte range in the original query text.
    pub start: usize,
    /// End of that byte range (exclusive).
    pub end: usize,
    /// An English stopword (kept only when the query has nothing else).
    pub stopword: bool,
    /// A CJK bigram or unigram.
    pub cjk: bool,
    /// An identifier part (`element` from `getElementById`), not a whole word.
    pub part: bool,
    /// The same word's terms under the index's other languages, where they differ from
    /// `term` (`configurations` is `configur` on an English page, `configurationen` stays
    /// itself on a German one): a multilingual site finds a word in every language's pages
    /// whichever language the query is read in.
    pub also: Vec<String>,
}

/// The analyzer: the rules of one [`Language`] (English unless a page or query says
/// otherwise), and for queries the other languages of the index, whose terms for each word
/// are tried too. Cheap to create; one value can serve any number of threads.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Analyzer {
    lang: Language,
    others: Vec<Language>,
}

impl Analyzer {
    /// The English analyzer (what every index was built with before pages had languages).
    pub fn new() -> Self {
        Analyzer::default()
    }

    /// The analyzer of a page in `lang`.
    pub fn for_language(lang: Language) -> Self {
        Analyzer {
            lang,
            others: Vec::new(),
        }
    }

    /// The analyzer of a page whose language tag is `tag` (`fr`, `pt-BR`; none: English).
    pub fn for_tag(tag: Option<&str>) -> Self {
        Self::for_language(Language::of_tag(tag))
    }

    /// The analyzer of queries on an index whose pages were analyzed in `languages` (the
    /// site's first; empty: English): read in `prefer`'s language when the index has pages
    /// in it (the reader's), else in the site's, with every other language's terms tried
    /// too. `Err(NeedsFullEngine)` when this build cannot stem one of them (the browser's
    /// keyword modules stem English only).
    pub fn for_index(languages: &[Language], prefer: Option<&str>) -> Result<Self> {
        if languages.iter().any(|l| !l.supported()) {
            return Err(Error::NeedsFullEngine(
                "stemming a language other than English",
            ));
        }
        if !snowball::ALL_LANGUAGES {
            // English only, whatever the reader's language.
            return Ok(Analyzer::new());
        }
        let site = languages.first().copied().unwrap_or_default();
        let wanted = prefer.map(|p| Language::of_tag(Some(p)));
        let lang = wanted.filter(|l| languages.contains(l)).unwrap_or(site);
        let mut others: Vec<Language> = languages.iter().copied().filter(|l| *l != lang).collect();
        others.sort_unstable();
        others.dedup();
        Ok(Analyzer { lang, others })
    }

    /// The analyzer for the text of a page in `lang`: this one when it follows the same
    /// rules, else that language's (for highlights and excerpts of a page in another
    /// language than the query's).
    pub fn for_page(&self, lang: Language) -> std::borrow::Cow<'_, Analyzer> {
        if lang == self.lang {
            std::borrow::Cow::Borrowed(self)
        } else {
            std::borrow::Cow::Owned(Analyzer::for_language(lang))
        }
    }

    /// The language whose rules this analyzer applies.
    pub fn language(&self) -> Language {
        self.lang
    }

    /// Hands `each` every term of document text with its position, in position order, as
    /// [`Analyzer::analyze`] finds them, without making a [`Token`] (a `String`) of each:
    /// for a caller that compares terms and keeps few, as a phrase check does.
    pub fn visit_terms(&self, text: &str, each: &mut dyn FnMut(&str, u32)) {
        self.walk_document(text, &mut |p, position| each(p.term(), position));
    }

    /// Whether `text` holds `phrase` word for word (as [`crate::query::syntax::phrase_occurs`]
    /// decides by walking both), answered without walking `text` when `phrase` is one run of
    /// CJK characters; `None` for any other phrase.
    ///
    /// A run of two or more is read as its overlapping bigrams, at consecutive positions
    /// exactly where the normalised text holds the normalised run (bigrams never cross a
    /// non-CJK character, and CJK characters have no case), so a substring search decides it;
    /// a run of one is a unigram, which only a run of one in the text has. Why: a Japanese
    /// question quoting 「建築家」 checked the phrase in each candidate's text bigram by
    /// bigram, its slowest queries' time.
    pub fn cjk_phrase_in(&self, phrase: &str, text: &str) -> Option<bool> {
        let phrase = Normalized::new(phrase);
        let run = phrase.text.trim();
        if run.is_empty() || !run.chars().all(is_cjk) {
            return None;
        }
        let text = Normalized::new(text).text;
        if run.chars().nth(1).is_some() {
            return Some(text.contains(run));
        }
        let alone = |(at, _): (usize, &str)| {
            let before = text[..at].chars().next_back();
            let after = text[at + run.len()..].chars().next();
            !before.is_some_and(is_cjk) && !after.is_some_and(is_cjk)
        };
        Some(text.match_indices(run).any(alone))
    }

    /// Analyzes document text: every term, stopwords included, in position order.
    pub fn analyze(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.walk_document(text, &mut |p, position| {
            out.push(Token {
                term: match p.stemmed {
                    Some(stem) => stem.to_string(),
                    None => p.lower.into_owned(),
                },
                position,
                start: p.start,
                end: p.end,
            });
        });
        out
    }

    /// [`walk`] over document text under this analyzer's language alone.
    fn walk_document(&self, text: &str, each: &mut dyn FnMut(Piece<'_>, u32)) {
        let mut memo = StemMemo::default();
        walk(self.lang, &[], text, memo.for_language(self.lang), each);
    }

    /// Analyzes a query: the same terms as [`Analyzer::analyze`] produces for the same text,
    /// flagged; stopwords are dropped unless that would leave nothing, in which case all
    /// are kept.
    pub fn analyze_query(&self, text: &str) -> Vec<QueryToken> {
        let mut out = Vec::new();
        // English's stopwords only, whatever the language: dropping French or German ones
        // (NLTK's lists: `pas`, `sans`, `nicht`, `ohne` …) cost nDCG@10 on both docs sets
        // (bench/questions, format 1.12 grouping: 0.540 → 0.528 French, 0.786 → 0.778
        // German; before it 0.493 → 0.480, 0.732 → 0.715), and would put every list in
        // the languages keyword modules (+10 KB gzip) for it.
        let mut memo = StemMemo::default();
        walk(
            self.lang,
            &self.others,
            text,
            memo.for_language(self.lang),
            &mut |p: Piece<'_>, position: u32| {
                let stopword = !p.cjk && is_stopword(&p.lower);
                let (term, raw) = match p.stemmed {
                    Some(stem) => (stem.to_string(), p.lower.into_owned()),
                    None => (p.lower.to_string(), p.lower.into_owned()),
                };
                out.push(QueryToken {
                    term,
                    raw,
                    position,
                    start: p.start,
                    end: p.end,
                    stopword,
                    cjk: p.cjk,
                    part: p.part,
                    also: p.also,
                });
            },
        );
        if out.iter().any(|t| !t.stopword) {
            out.retain(|t| !t.stopword);
        }
        out
    }
}

/// The normalisation the analyzer applies before segmentation: NFKC, katakana → hiragana,
/// `’` → `'`, and case folding (`to_lowercase`). `"ＶＵＥ３"` → `"vue3"`.
pub fn normalize(text: &str) -> String {
    lowercase(&Normalized::new(text).text)
}

/// [`lowercase`], borrowing `w` when it is ASCII without capitals (no allocation).
fn lowercase_cow(w: &str) -> Cow<'_, str> {
    if (w.is_ascii() && !w.bytes().any(|b| b.is_ascii_uppercase())) || caseless(w) {
        return Cow::Borrowed(w);
    }
    Cow::Owned(lowercase(w))
}

/// Lower-cases normalised text. Lower-casing can leave combining marks out of canonical
/// order (`İ̖` → `i̖̇`), so such text is normalised again: text typed in upper case and the
/// same text already in lower case must give the same terms.
fn lowercase(w: &str) -> String {
    if w.is_ascii() {
        return w.to_ascii_lowercase();
    }
    if caseless(w) {
        return w.to_string();
    }
    let lower = host_unicode::to_lowercase(w);
    // Words come from normalised text: unless lower-casing changed them they still are (and
    // the browser build asks its host for nothing).
    if lower == w {
        return lower;
    }
    host_unicode::nfkc_if_needed(lower)
}

/// Whether `w` is its own lower case by a rule of thumb that needs no table: lower-case
/// ASCII and kana, CJK ideographs and their punctuation (no case), and the lower-case
/// letters and punctuation of the Latin, Greek and Cyrillic scripts
/// ([`scripts::own_lower_case`]). Why: the browser build asks its JS host to lower-case
/// anything else, a call per word — of Japanese text, which was most of marking or
/// phrase-checking such a page in wasm, and of a French or German page's every word with
/// an accent (~280 calls a query with excerpts on Vue's French docs).
fn caseless(w: &str) -> bool {
    w.chars().all(|c| {
        (c.is_ascii() && !c.is_ascii_uppercase())
            || normalize::stable(c)
            || scripts::own_lower_case(c)
    })
}

/// Hiragana as the analyzer reads it (with the iteration marks `ゝゞゟ`): the script Japanese
/// writes its grammar in, which query planning weighs down (`query::exact_weight`).
pub(crate) fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{3096}' | '\u{309D}'..='\u{309F}')
}

/// Katakana as the analyzer reads it (with `ー`, `ヽヾヿ` and the small extension).
pub(crate) fn is_katakana(c: char) -> bool {
    matches!(c, '\u{30A1}'..='\u{30FA}' | '\u{30FC}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}')
}

/// Han (unified, extensions, compatibility) and `々〆〇`.
pub(crate) fn is_han(c: char) -> bool {
    matches!(c,
        '\u{3005}'..='\u{3007}'
        | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3134F}')
}

/// Characters indexed as bigrams, after normalisation: CJK — kana (with `ー` and the
/// iteration marks), Han (unified, extensions, compatibility, `々〆〇`) and Hangul — and the
/// scripts written without spaces between words (Thai, Lao, Khmer, Myanmar).
fn is_cjk(c: char) -> bool {
    is_hiragana(c)
        || is_katakana(c)
        || is_han(c)
        || matches!(c,
        '\u{0E00}'..='\u{0EFF}'                            // Thai, Lao
        | '\u{1000}'..='\u{109F}'                          // Myanmar
        | '\u{1780}'..='\u{17FF}'                          // Khmer
        | '\u{1100}'..='\u{11FF}' | '\u{3131}'..='\u{318E}'  // Hangul jamo
        | '\u{A960}'..='\u{A97F}' | '\u{D7B0}'..='\u{D7FF}'
        | '\u{AC00}'..='\u{D7A3}') // Hangul syllables
}
