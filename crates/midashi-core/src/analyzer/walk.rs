//! The walk over a text that both documents and queries take: normalised text cut into
//! words, identifier parts, compounds and CJK bigrams, each lower-cased and stemmed by its
//! language's rules, with its position (one code path, so a query's terms are exactly the
//! terms its words have in a document).

use std::borrow::Cow;
use std::sync::Arc;

use rust_stemmers::Stemmer;

use super::normalize::Normalized;
use super::{
    is_cjk, language, lowercase_cow, matching, segment, snowball, Language, Stems, MAX_TERM_BYTES,
    STEM_CACHE_ENTRIES,
};

/// A term before it is handed out: the lower-cased word and, if stemming changed it, its
/// stem (so the document side can reuse the allocation and the query side keeps both).
pub(super) struct Piece<'b> {
    /// Borrowed from the normalised text when lower-casing changes nothing (most words, every
    /// CJK bigram): marking a page of results' words then allocates only for what matches.
    pub(super) lower: Cow<'b, str>,
    pub(super) stemmed: Option<Arc<str>>,
    /// Its terms under the query's other languages ([`QueryToken::also`]).
    pub(super) also: Vec<String>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) cjk: bool,
    pub(super) part: bool,
}

impl Piece<'_> {
    pub(super) fn term(&self) -> &str {
        self.stemmed.as_deref().unwrap_or(&self.lower)
    }
}

/// The one code path both [`Analyzer::analyze`] and [`Analyzer::analyze_query`] run.
pub(super) fn walk(
    lang: Language,
    others: &[Language],
    text: &str,
    stems: &mut Stems,
    sink: &mut dyn FnMut(Piece<'_>, u32),
) {
    walk_into(lang, others, text, stems, Sink::Pieces(sink));
}

/// Where a walk's terms go: each piece to a callback, or the pieces whose term is wanted
/// into a [`matching::Matches`] (which also remembers what each word matched).
pub(super) enum Sink<'k, 'm, 't> {
    Pieces(&'k mut dyn FnMut(Piece<'_>, u32)),
    Matches(&'k mut matching::Matches<'m, 't>),
}

/// [`walk`], into either kind of [`Sink`].
pub(super) fn walk_into(
    lang: Language,
    others: &[Language],
    text: &str,
    stems: &mut Stems,
    sink: Sink<'_, '_, '_>,
) {
    let norm = Normalized::new(text);
    let mut w = Walker {
        norm: &norm,
        buf: &norm.text,
        stemmers: Stemmers::new(lang),
        others: others.iter().map(|&l| Stemmers::new(l)).collect(),
        stems,
        position: 0,
        sink,
    };
    let buf: &str = &norm.text;
    if buf.is_ascii() {
        // No CJK in ASCII: one span, without asking every character.
        w.words(0, buf.len());
        return;
    }
    let mut span_start = 0;
    let mut chars = buf.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !is_cjk(c) {
            continue;
        }
        w.words(span_start, i);
        let digit_at = |k: usize| buf.as_bytes().get(k).is_some_and(u8::is_ascii_digit);
        // A number written against the run (1945年, 第2章, 3つ) is also one bigram with the
        // character it touches: the pair is rarer than the number or the counter alone.
        // JSQuAD keyword nDCG@10 0.9402 → 0.9428 (bench/results/2026-12-07-number-bigrams.md).
        if i > 0 && digit_at(i - 1) {
            w.cjk(i - 1, i + c.len_utf8());
        }
        let mut prev = i;
        let mut end = i + c.len_utf8();
        while let Some(&(j, d)) = chars.peek() {
            if !is_cjk(d) {
                break;
            }
            chars.next();
            end = j + d.len_utf8();
            w.cjk(prev, end);
            prev = j;
        }
        if prev == i {
            w.cjk(i, end);
        }
        if digit_at(end) {
            w.cjk(prev, end + 1);
        }
        span_start = end;
    }
    w.words(span_start, buf.len());
}

struct Walker<'a, 's, 'k, 'm, 't> {
    norm: &'a Normalized<'a>,
    buf: &'a str,
    stemmers: Stemmers,
    /// The query's other languages (none for documents).
    others: Vec<Stemmers>,
    stems: &'s mut Stems,
    position: u32,
    sink: Sink<'k, 'm, 't>,
}

impl<'a> Walker<'a, '_, '_, '_, '_> {
    /// Hands a piece to the sink.
    #[inline]
    fn emit(&mut self, p: Piece<'_>, position: u32) {
        match &mut self.sink {
            Sink::Pieces(each) => each(p, position),
            Sink::Matches(m) => m.piece(&p),
        }
    }

    fn next_position(&mut self) -> u32 {
        let p = self.position;
        self.position = self.position.saturating_add(1);
        p
    }

    /// The stem of `lower` if it differs, memoised ([`StemMemo`]).
    fn stem(&mut self, lower: &str) -> Option<Arc<str>> {
        if let Some(hit) = self.stems.get(lower) {
            return hit.clone();
        }
        let stemmed: Option<Arc<str>> = self.stemmers.stem(lower).map(Into::into);
        if self.stems.len() >= STEM_CACHE_ENTRIES {
            self.stems.clear();
        }
        self.stems.insert(lower.to_owned(), stemmed.clone());
        stemmed
    }

    fn piece(&mut self, s: usize, e: usize, stem: bool, part: bool) -> Piece<'a> {
        let buf: &'a str = self.buf;
        let lower = lowercase_cow(&buf[s..e]);
        let stemmed = if stem { self.stem(&lower) } else { None };
        let mut also = Vec::new();
        // Only a build with other languages has other languages' terms to try.
        if stem && snowball::ALL_LANGUAGES {
            let term = stemmed.as_deref().unwrap_or(&lower);
            for other in &self.others {
                let t = other.stem(&lower).unwrap_or_else(|| lower.to_string());
                if *t != *term && !also.contains(&t) {
                    also.push(t);
                }
            }
        }
        let (start, end) = self.norm.orig_range(s, e);
        Piece {
            lower,
            stemmed,
            also,
            start,
            end,
            cjk: false,
            part,
        }
    }

    /// A CJK bigram or unigram at `buf[s..e]`.
    fn cjk(&mut self, s: usize, e: usize) {
        let (start, end) = self.norm.orig_range(s, e);
        let buf: &'a str = self.buf;
        let piece = Piece {
            lower: Cow::Borrowed(&buf[s..e]),
            stemmed: None,
            also: Vec::new(),
            start,
            end,
            cjk: true,
            part: false,
        };
        let pos = self.next_position();
        self.emit(piece, pos);
    }

    /// The words of the non-CJK span `buf[s..e]`, with connector-joined words rejoined.
    fn words(&mut self, s: usize, e: usize) {
        if s >= e {
            return;
        }
        if matching::RUNS
            && matches!(self.sink, Sink::Matches(_))
            && self.norm.identity()
            && self.buf[s..e].is_ascii()
        {
            self.runs(s, e);
        } else {
            self.cut(s, e);
        }
    }

    /// Matching ASCII text ([`matching`]): the span cut into runs at the bytes no word and
    /// no compound crosses, each run's matches read back if it was seen before.
    fn runs(&mut self, s: usize, e: usize) {
        let buf: &'a str = self.buf;
        let b = buf.as_bytes();
        let mut i = s;
        while i < e {
            while i < e && matching::apart(b[i]) {
                i += 1;
            }
            let start = i;
            while i < e && !matching::apart(b[i]) {
                i += 1;
            }
            if start == i {
                continue;
            }
            let run = &buf[start..i];
            let mark = match &mut self.sink {
                Sink::Matches(m) => match m.replay(run, start) {
                    true => continue,
                    false => m.mark(),
                },
                Sink::Pieces(_) => 0,
            };
            self.cut(start, i);
            if let Sink::Matches(m) = &mut self.sink {
                m.record(run, start, mark);
            }
        }
    }

    /// [`Walker::words`], cutting the span by its word boundaries.
    fn cut(&mut self, s: usize, e: usize) {
        let buf = self.buf;
        let span = &buf[s..e];
        // The compound being built (always ends with a word), and the connector seen since.
        let mut cur: Option<(usize, usize)> = None;
        let mut conn_start = 0;
        let mut conn_len = 0;
        segment::for_each_segment(span, &mut |i, seg| {
            let (a, b) = (s + i, s + i + seg.len());
            let word = if seg.is_ascii() {
                seg.bytes().any(|b| b.is_ascii_alphanumeric())
            } else {
                seg.chars().any(char::is_alphanumeric)
            };
            if word {
                match cur {
                    Some((cs, ce))
                        if conn_len > 0
                            && ce + conn_len == a
                            && valid_connector(&buf[conn_start..a]) =>
                    {
                        cur = Some((cs, b));
                    }
                    _ => {
                        if let Some((cs, ce)) = cur {
                            self.compound(cs, ce);
                        }
                        cur = Some((a, b));
                    }
                }
                conn_len = 0;
            } else if cur.is_some() && matches!(seg, "-" | "." | ":") && conn_len < 2 {
                if conn_len == 0 {
                    conn_start = a;
                }
                conn_len += 1;
            } else if let Some((cs, ce)) = cur.take() {
                self.compound(cs, ce);
                conn_len = 0;
            }
        });
        if let Some((cs, ce)) = cur {
            self.compound(cs, ce);
        }
    }

    /// One word or compound at `buf[s..e]`: the whole word and its identifier parts, at one
    /// position.
    fn compound(&mut self, s: usize, e: usize) {
        let w = &self.buf[s..e];
        if w.len() > MAX_TERM_BYTES {
            self.oversize(s, e);
            return;
        }
        let has_sep = w.bytes().any(is_sep);
        let camel = camel_parts(self.buf, s, e);
        let whole = self.piece(s, e, !has_sep, false);
        if !has_sep && camel.len() <= 1 {
            let pos = self.next_position();
            self.emit(whole, pos);
            return;
        }
        let mut pieces = vec![whole];
        let numeric = w.bytes().all(|b| b.is_ascii_digit() || is_sep(b));
        if !numeric {
            for (cs, ce) in sep_components(self.buf, s, e) {
                if has_sep {
                    self.push_unique(&mut pieces, cs, ce);
                }
                let parts = if (cs, ce) == (s, e) {
                    camel.clone()
                } else {
                    camel_parts(self.buf, cs, ce)
                };
                if parts.len() > 1 {
                    for (ps, pe) in parts {
                        self.push_unique(&mut pieces, ps, pe);
                    }
                }
            }
        }
        let pos = self.next_position();
        for p in pieces {
            self.emit(p, pos);
        }
    }

    fn push_unique(&mut self, pieces: &mut Vec<Piece<'a>>, s: usize, e: usize) {
        let p = self.piece(s, e, true, true);
        if !pieces.iter().any(|q| q.term() == p.term()) {
            pieces.push(p);
        }
    }

    /// A word too long to be a term: its components, or failing that its camelCase
    /// pieces, become words of their own; anything still too long is skipped.
    fn oversize(&mut self, s: usize, e: usize) {
        let comps = sep_components(self.buf, s, e);
        if comps.len() > 1 || comps.first().is_some_and(|&c| c != (s, e)) {
            for (cs, ce) in comps {
                self.compound(cs, ce);
            }
            return;
        }
        let parts = camel_parts(self.buf, s, e);
        if parts.len() > 1 {
            for (ps, pe) in parts {
                if pe - ps <= MAX_TERM_BYTES {
                    self.compound(ps, pe);
                }
            }
        }
    }
}

/// Connectors that glue two words into one compound when nothing else is between them.
fn valid_connector(c: &str) -> bool {
    matches!(c, "-" | "." | ":" | "::")
}

/// Separators inside a compound (besides connectors, UAX#29 keeps `_`, `.` and `:` inside
/// words).
fn is_sep(b: u8) -> bool {
    matches!(b, b'-' | b'.' | b':' | b'_')
}

/// The non-empty separator-delimited components of `buf[s..e]`.
fn sep_components(buf: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = s;
    for (i, b) in buf.as_bytes()[s..e].iter().enumerate() {
        if is_sep(*b) {
            if start < s + i {
                out.push((start, s + i));
            }
            start = s + i + 1;
        }
    }
    if start < e {
        out.push((start, e));
    }
    out
}

/// The camelCase/PascalCase pieces of `buf[s..e]`: a break before an upper-case letter that
/// follows a lower-case letter or digit (`getElement`, `utf8Decode`), and before the last
/// capital of a capital run that a lower-case letter follows (`HTTPServer`), except a
/// plural `s` ending the word (`URLs`, `IDs`). Empty when there are no boundaries.
fn camel_parts(buf: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
    let w = &buf[s..e];
    let mut out = Vec::new();
    // Most words have no capital after the first letter: no allocation for them.
    let has_upper = if w.is_ascii() {
        w.bytes().skip(1).any(|b| b.is_ascii_uppercase())
    } else {
        w.chars().skip(1).any(char::is_uppercase)
    };
    if !has_upper {
        return out;
    }
    let chars: Vec<(usize, char)> = w.char_indices().collect();
    let mut start = 0;
    for k in 1..chars.len() {
        let prev = chars[k - 1].1;
        let cur = chars[k].1;
        if !cur.is_uppercase() {
            continue;
        }
        let after_lower = prev.is_lowercase() || prev.is_numeric();
        let acronym_end = prev.is_uppercase()
            && chars.get(k + 1).is_some_and(|n| n.1.is_lowercase())
            && !(chars.get(k + 1).is_some_and(|n| n.1 == 's') && k + 2 == chars.len());
        if after_lower || acronym_end {
            out.push((s + start, s + chars[k].0));
            start = chars[k].0;
        }
    }
    if !out.is_empty() {
        out.push((s + start, e));
    }
    out
}

/// One language's stemmer, and for a language of another script English's too, for the
/// English words in its pages.
pub(super) struct Stemmers {
    lang: Language,
    own: Option<Stemmer>,
    english: Option<Stemmer>,
}

impl Stemmers {
    pub(super) fn new(lang: Language) -> Self {
        let latin = matches!(
            lang.script(),
            language::Script::Latin | language::Script::Ascii
        );
        Stemmers {
            lang,
            own: snowball::stemmer(lang),
            english: if latin {
                None
            } else {
                snowball::stemmer(Language::English)
            },
        }
    }

    /// The stem of a normalised, lower-cased word if stemming changes it. A word is stemmed
    /// by the rules of its page's language when it is written in that language's script
    /// (for English, ASCII letters only: words with digits are identifiers or versions,
    /// `vue3`, `h1`), else by English's when it is plain ASCII in a page of another script;
    /// words of two letters or fewer are left alone, as Snowball leaves them.
    pub(super) fn stem(&self, lower: &str) -> Option<String> {
        // Fewer than three letters: left alone.
        lower.chars().nth(2)?;
        let (lang, stemmer) = if self.lang.stems(lower) {
            (self.lang, self.own.as_ref()?)
        } else if Language::English.stems(lower) {
            (Language::English, self.english.as_ref()?)
        } else {
            return None;
        };
        let stemmed = stemmer.stem(lang.without_elision(lower));
        (stemmed != lower).then(|| stemmed.into_owned())
    }
}
