//! A result's excerpt: the few words of its section that show why it matched, as a reader
//! sees them — Markdown syntax and frontmatter stripped, the matched words marked.
//!
//! The preview (a section's first lines, verbatim) is for quoting; the excerpt is for
//! choosing. It is the window of the section's plain text that covers the most distinct
//! matched terms (then the most matches, then the earliest), so a word that occurs only on
//! line 40 shows line 40. A hit that matched no query word (a semantic one) shows the
//! sentence closest to the query's words (see `closest_sentence`). The plain text comes from
//! `plain.rs`.
use super::marks::Marker;
use super::plain::Plain;
use crate::analyzer::Analyzer;
use rustc_hash::FxHashSet as HashSet;

/// Width an excerpt aims at, in columns (a CJK character takes two): two lines of a result
/// list, as Pagefind's and DocSearch's excerpts are.
pub const EXCERPT_WIDTH: usize = 180;

/// The excerpt of a result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Excerpt {
    /// Plain text, `…` where it was cut.
    pub text: String,
    /// The matched words in `text`, `[start, end)` UTF-16 offsets.
    pub highlights: Vec<[u32; 2]>,
    /// The source line (1-based, in the document) of the first marked word, else of the
    /// excerpt's start.
    pub line: u32,
}

/// The excerpt of a section whose source lines, from its heading on, are `text` (with its
/// subsections, or as much of it as the caller has); `first_line` is the heading's line and
/// `own_end_line` the last of its own text. Matches in the section's own text are preferred;
/// the subsections' count when the matched words are only there (a grouped result stands
/// for them too). The text is analysed once.
pub(crate) fn excerpt(
    analyzer: &Analyzer,
    text: &str,
    first_line: u32,
    own_end_line: u32,
    marker: &Marker<'_>,
) -> Excerpt {
    let mut plain = Plain::new(text, first_line, own_end_line);
    let matched = find_matches(analyzer, &mut plain, marker);
    best_window(&mut plain, &matched, marker)
}

/// Bytes of plain text analysed at a time while looking for the matched words: most
/// results match in their first lines, and analysing is most of what a result costs.
const SCAN_CHUNK: usize = 16 * 1024;

/// The query's words in `plain`, read a chunk at a time: on while nothing has matched in
/// the section's own text, and past its own text only until something matches at all.
fn find_matches<'t>(
    analyzer: &Analyzer,
    plain: &mut Plain<'_>,
    marker: &Marker<'t>,
) -> Vec<(usize, usize, &'t str)> {
    let mut matched = Vec::new();
    let mut from = 0;
    loop {
        plain.read_to(from + SCAN_CHUNK);
        // Chunks end where a line ends (lines are joined by a space: no word spans two).
        let to = plain.text.len();
        let found = marker.find(analyzer, &plain.text[from..to]);
        matched.extend(found.into_iter().map(|(a, b, t)| (a + from, b + from, t)));
        let settled = match matched.first() {
            Some(m) => m.0 < plain.own_end || to >= plain.own_end,
            None => false,
        };
        if settled || plain.exhausted() || to == from {
            return matched;
        }
        from = to;
    }
}

/// Columns a character takes (CJK and other wide scripts two).
fn width(c: char) -> usize {
    if matches!(c as u32, 0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x20000..=0x3FFFD)
    {
        2
    } else {
        1
    }
}

fn width_of(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(width).sum()
}

/// Columns before each byte of a text, so that the width of any stretch between character
/// boundaries is a difference: the best window tries every run of matches from every match,
/// and measuring each one again character by character was a fifth of a Japanese query's
/// time with excerpts (dense bigram matches). ASCII text needs no table.
struct Columns(Option<Vec<u32>>);

impl Columns {
    fn of(text: &str) -> Self {
        if text.is_ascii() {
            return Columns(None);
        }
        let mut before = Vec::with_capacity(text.len() + 1);
        let mut w = 0u32;
        for c in text.chars() {
            before.extend(std::iter::repeat_n(w, c.len_utf8()));
            w += width(c) as u32;
        }
        before.push(w);
        Columns(Some(before))
    }

    /// The width of `text[from..to]` ([`width_of`]).
    fn between(&self, from: usize, to: usize) -> usize {
        match &self.0 {
            None => to - from,
            Some(before) => (before[to] - before[from]) as usize,
        }
    }
}

/// The window of `plain` covering the most distinct of the words `matched` in it.
fn best_window(
    plain: &mut Plain,
    matched: &[(usize, usize, &str)],
    marker: &Marker<'_>,
) -> Excerpt {
    let text = plain.text.as_str();
    // Best run of matches that fits: (distinct terms, matches), earliest on ties; starting
    // in the section's own text when any match is there.
    let own = matched.iter().take_while(|m| m.0 < plain.own_end).count();
    let starts = if own > 0 { own } else { matched.len() };
    let mut best: Option<(usize, usize, usize, usize)> = None; // (distinct, count, a, b)
    let columns = Columns::of(text);
    for a in 0..starts {
        let mut seen: Vec<&str> = Vec::new();
        let mut b = a;
        while b < matched.len()
            && columns.between(matched[a].0, matched[b].1) <= EXCERPT_WIDTH * 3 / 4
        {
            if !seen.contains(&matched[b].2) {
                seen.push(matched[b].2);
            }
            b += 1;
        }
        let b = b.max(a + 1);
        let key = (seen.len().max(1), b - a);
        if best.is_none_or(|(d, n, _, _)| key > (d, n)) {
            best = Some((key.0, key.1, a, b - 1));
        }
    }
    let (from, to) = match best {
        Some((_, _, a, b)) => (matched[a].0, matched[b].1),
        None => {
            // As far as the first chunk: a hit with none of the query's words (a semantic
            // one) costs no more than it did before the text was read a chunk at a time.
            let head = plain
                .lines
                .get(plain.lines.partition_point(|&(o, _)| o <= SCAN_CHUNK))
                .map_or(text.len(), |&(o, _)| o);
            let s = closest_sentence(&text[..head], marker.terms());
            (s, s)
        }
    };
    let (mut start, end) = frame(text, from, to);
    // The matched line from its start, when that start is within the context taken: a
    // line break is where a reader's eye starts (a table row, a list item, a paragraph).
    if let Some(&(o, _)) = plain.lines.iter().rev().find(|&&(o, _)| o <= from) {
        if o > start {
            start = o;
        }
    }
    let mut out = String::new();
    let lead = start > 0;
    if lead {
        out.push('…');
        // "… .env" rather than "….env": an ellipsis run into a dot reads as part of a name.
        if text[start..].starts_with(['.', '…']) {
            out.push(' ');
        }
    }
    let shift = out.len();
    out.push_str(&text[start..end]);
    if end < text.len() || !plain.exhausted() {
        out.push('…');
    }
    let ranges: Vec<(usize, usize)> = matched
        .iter()
        .filter(|m| m.0 >= start && m.1 <= end)
        .map(|m| (m.0 - start + shift, m.1 - start + shift))
        .collect();
    Excerpt {
        highlights: utf16_ranges(&out, ranges),
        text: out,
        line: plain.line_at(if matched.is_empty() { start } else { from }),
    }
}

/// Where the sentence of `text` closest to the query starts, for a hit none of whose words
/// the query has (a semantic one): the sentence with the most query terms that begin one of
/// its words (`configur` → "configuring"; the terms are stems, so a word the stemmer cut
/// differently still counts), the first on ties; the text's start when none has any. A
/// lexical proxy: which sentence the model liked best is not in the index.
fn closest_sentence(text: &str, terms: &HashSet<&str>) -> usize {
    let stems: Vec<&str> = terms
        .iter()
        .copied()
        .filter(|t| t.chars().count() >= 3)
        .collect();
    if stems.is_empty() {
        return 0;
    }
    let mut best = (0, 0);
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let boundary = matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
            && text[end..].chars().next().is_none_or(char::is_whitespace);
        if !boundary && end < text.len() {
            continue;
        }
        // Folded as the terms were (the analyzer's normalisation, which in the browser asks
        // the host to lower-case: `str::to_lowercase` would link Unicode's case tables).
        let sentence = crate::analyzer::normalize(&text[start..end]);
        let words: Vec<&str> = sentence.split(|c: char| !c.is_alphanumeric()).collect();
        let hits = stems
            .iter()
            .filter(|t| words.iter().any(|w| w.starts_with(**t)))
            .count();
        if hits > best.0 {
            best = (hits, start);
        }
        start = end + text[end..].len() - text[end..].trim_start().len();
    }
    best.1
}

/// The byte range of `text` to show around the matches at `from..to`: about a quarter of
/// the spare width before them (from a sentence's start when one is that near), the rest
/// after, cut between words.
fn frame(text: &str, from: usize, to: usize) -> (usize, usize) {
    let spare = EXCERPT_WIDTH.saturating_sub(width_of(&text[from..to]));
    let mut start = from;
    let mut lead = 0;
    for (i, c) in text[..from].char_indices().rev() {
        lead += width(c);
        if lead > spare / 4 {
            break;
        }
        start = i;
    }
    if start > 0 {
        let before = &text[..from];
        // A sentence start within reach, else the next word start.
        if let Some(s) = before[start..]
            .find(". ")
            .map(|p| start + p + 2)
            .filter(|&p| p <= from)
        {
            start = s;
        } else if let Some(p) = before[start..].find(' ') {
            if start + p < from {
                start += p + 1;
            }
        }
    }
    let mut end = to;
    let mut used = width_of(&text[start..to]);
    for (i, c) in text[to..].char_indices() {
        used += width(c);
        if used > EXCERPT_WIDTH {
            break;
        }
        end = to + i + c.len_utf8();
    }
    if end < text.len() {
        // Not in the middle of a word: back to the last space after the matches.
        if let Some(p) = text[to..end].rfind(' ') {
            end = to + p;
        }
    }
    (start, end)
}

/// Byte ranges of `text`, sorted and merged, as UTF-16 offsets (what JS strings index by).
pub(crate) fn utf16_ranges(text: &str, mut ranges: Vec<(usize, usize)>) -> Vec<[u32; 2]> {
    crate::sort::sort(&mut ranges);
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    // Byte offsets → UTF-16 offsets in one pass.
    let mut out = Vec::with_capacity(merged.len());
    let mut utf16 = 0u32;
    let mut chars = text.char_indices().peekable();
    let mut to_utf16 = |target: usize| -> u32 {
        while let Some(&(i, c)) = chars.peek() {
            if i >= target {
                break;
            }
            utf16 += c.len_utf16() as u32;
            chars.next();
        }
        utf16
    };
    for (a, b) in merged {
        let ua = to_utf16(a);
        let ub = to_utf16(b);
        out.push([ua, ub]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms<'a>(words: &'a [&'a str]) -> HashSet<&'a str> {
        words.iter().copied().collect()
    }

    fn excerpt_of(a: &Analyzer, src: &str, first: u32, own_end: u32, t: &HashSet<&str>) -> Excerpt {
        excerpt(a, src, first, own_end, &Marker::new(t))
    }

    #[test]
    fn the_sections_own_words_come_before_its_subsections() {
        let analyzer = Analyzer::new();
        let src = "## Parent\nA cache here.\n### Child\nThe cache and its key.\n";
        // Own text (lines 1-2) has "cache": shown there, though the child has more terms.
        let e = excerpt_of(&analyzer, src, 1, 2, &terms(&["cach", "key"]));
        assert!(e.text.starts_with("A cache here."), "{}", e.text);
        assert_eq!(e.line, 2);
        // Only the child has "key": the child's line.
        let e = excerpt_of(&analyzer, src, 1, 2, &terms(&["key"]));
        assert_eq!(e.line, 4);
        // No own text at all: the subsection's start.
        let e = excerpt_of(
            &analyzer,
            "## Parent\n\n### Child\nWords.\n",
            1,
            2,
            &terms(&["zzz"]),
        );
        assert_eq!(e.text, "Child Words.");
    }

    #[test]
    fn a_hit_without_the_query_words_shows_its_closest_sentence() {
        let analyzer = Analyzer::new();
        let mut src = String::from("# Setup\n");
        for i in 0..30 {
            src.push_str(&format!("Sentence {i} is about nothing. "));
        }
        src.push_str("\nThe configuration takes one attribute.\n");
        // "configurat" is no term of the section's words ("configuration" stems to
        // "configur"): no marks, but the sentence where a word starts with it.
        let e = excerpt_of(
            &analyzer,
            &src,
            1,
            u32::MAX,
            &terms(&["configurat", "zebra"]),
        );
        assert!(e.highlights.is_empty());
        assert!(e.text.contains("The configuration takes"), "{}", e.text);
        assert_eq!(e.line, 3);
        // Nothing in common: the start.
        let e = excerpt_of(&analyzer, &src, 1, u32::MAX, &terms(&["zebra"]));
        assert!(e.text.starts_with("Sentence 0"), "{}", e.text);
    }

    #[test]
    fn markdown_and_frontmatter_are_stripped() {
        let src = "---\ntitle: Install\ndescription: How\n---\n# Install\n\nRun **`npm i midashi`** from [the _registry_](https://x.test/y) as_is.\n\n```bash\nnpm i -D midashi\n```\n\n| Flag | Meaning |\n|---|---|\n| `--out` | where |\n";
        let p = Plain::of(src, 1, u32::MAX);
        assert_eq!(
            p.text,
            "Run npm i midashi from the registry as_is. npm i -D midashi Flag · Meaning --out · where"
        );
        assert_eq!(p.line_at(0), 7);
        assert_eq!(p.line_at(p.text.find("npm i -D").unwrap()), 10);
    }

    #[test]
    fn a_word_deep_in_the_section_is_shown_and_marked() {
        let analyzer = Analyzer::new();
        let mut src = String::from("## Caching\n");
        for i in 0..40 {
            src.push_str(&format!(
                "Line {i} says nothing in particular about anything.\n"
            ));
        }
        src.push_str("Only here do we mention the xylophone option.\n");
        let e = excerpt_of(&analyzer, &src, 10, u32::MAX, &terms(&["xylophon"]));
        assert_eq!(e.line, 51);
        assert!(e.text.contains("xylophone"), "{}", e.text);
        let [a, b] = e.highlights[0];
        let utf16: Vec<u16> = e.text.encode_utf16().collect();
        assert_eq!(
            String::from_utf16(&utf16[a as usize..b as usize]).unwrap(),
            "xylophone"
        );
        assert!(e.text.starts_with('…'));
    }

    #[test]
    fn a_word_past_the_first_chunks_is_found_and_the_rest_is_not_read() {
        let analyzer = Analyzer::new();
        let filler = "Line says nothing in particular about anything at all.\n";
        let mut src = String::from("## Long\n");
        // 600 lines: two chunks of plain text and more before the word.
        for _ in 0..600 {
            src.push_str(filler);
        }
        src.push_str("The xylophone option, at last.\n");
        for _ in 0..2000 {
            src.push_str(filler);
        }
        let e = excerpt_of(&analyzer, &src, 1, u32::MAX, &terms(&["xylophon"]));
        assert_eq!(e.line, 602);
        assert!(e.text.contains("xylophone"), "{}", e.text);
        assert!(e.text.ends_with('…'), "{}", e.text);
        // Read as far as the chunk the word is in, not to the bound.
        let mut plain = Plain::new(&src, 1, u32::MAX);
        let wanted = terms(&["xylophon"]);
        let found = find_matches(&analyzer, &mut plain, &Marker::new(&wanted));
        assert_eq!(found.len(), 1);
        assert!(
            plain.text.len() < 3 * SCAN_CHUNK + 100,
            "{}",
            plain.text.len()
        );
        // Past the bound a word is not looked for: the excerpt shows the start.
        let far = format!("## Far\n{}The xylophone.\n", filler.repeat(2000));
        let e = excerpt_of(&analyzer, &far, 1, u32::MAX, &terms(&["xylophon"]));
        assert!(e.text.starts_with("Line says"), "{}", e.text);
    }

    #[test]
    fn an_ellipsis_is_kept_apart_from_a_dot_and_includes_are_left_out() {
        let analyzer = Analyzer::new();
        let src = "## Env\n\nSome words before the file name that push the window far to the right of them all here .env.production holds the mode.\n\n```rust\n{{#rustdoc_include ../listings/main.rs:all}}\n```\n";
        let e = excerpt_of(&analyzer, src, 1, u32::MAX, &terms(&["mode"]));
        assert!(!e.text.contains("….env"), "{}", e.text);
        assert!(!e.text.contains("rustdoc_include"), "{}", e.text);
        let p = Plain::of(src, 1, u32::MAX);
        assert!(!p.text.contains("{{#"), "{}", p.text);
    }

    #[test]
    fn the_window_with_most_distinct_terms_wins() {
        let analyzer = Analyzer::new();
        let src = "# T\nCache cache cache everywhere.\n\nFiller text that goes on for a while to separate the two parts of this section so the window has to choose between them and cannot hold both at once, really it cannot.\n\nHere the cache meets its key, and both are marked.\n";
        let e = excerpt_of(&analyzer, src, 1, u32::MAX, &terms(&["cach", "key"]));
        assert!(e.text.contains("meets its key"), "{}", e.text);
        assert_eq!(e.highlights.len(), 2);
    }

    #[test]
    fn no_match_shows_the_start_and_japanese_is_measured_in_columns() {
        let analyzer = Analyzer::new();
        let src = "# 見出し\n".to_string() + &"検索の説明です。".repeat(40);
        let e = excerpt_of(&analyzer, &src, 1, u32::MAX, &terms(&[]));
        assert!(e.highlights.is_empty());
        assert!(width_of(&e.text) <= EXCERPT_WIDTH + 2, "{}", e.text);
        assert!(e.text.starts_with("検索"));
    }

    proptest::proptest! {
        /// The column table measures every stretch between character boundaries as
        /// `width_of` does, in ASCII, CJK, wide and mixed text.
        #[test]
        fn columns_measure_as_width_of(text in "[a .検索ｶ가…é😀]{0,24}") {
            let columns = Columns::of(&text);
            let bounds: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain(std::iter::once(text.len()))
                .collect();
            for (k, &from) in bounds.iter().enumerate() {
                for &to in &bounds[k..] {
                    proptest::prop_assert_eq!(columns.between(from, to), width_of(&text[from..to]));
                }
            }
        }
    }
}
