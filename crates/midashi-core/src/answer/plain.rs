//! A section's text as a reader sees it, for its excerpt: Markdown's block and inline syntax
//! and the frontmatter stripped, code kept as one line of words, with where each source line
//! begins.
//!
//! Hand-written and line-based on purpose: a full CommonMark parse per result would add a
//! parser to the browser's keyword module for a two-line string, and a section's text is
//! already cut on line boundaries.

/// Most bytes of a section's plain text an excerpt reads (~1,000 lines of prose): a word
/// that deep is still found (the text is read a chunk at a time, and only while nothing has
/// matched), and a 5 MB section is not. A card keeps as much of a section's own source
/// ([`super::hit::CARD_OWN_TEXT_BYTES`]), so both layouts find the same words.
pub(super) const MAX_PLAIN_BYTES: usize = 64 * 1024;

/// A section's text as a reader sees it, one string, with where each source line begins;
/// read from the source on demand ([`Plain::read_to`]).
pub(super) struct Plain<'s> {
    /// The kept lines read so far, joined by a space.
    pub(super) text: String,
    /// `(byte offset in text, source line)` of every line kept, in order.
    pub(super) lines: Vec<(usize, u32)>,
    /// Where the section's own text ends in `text` (its subsections follow); `usize::MAX`
    /// while none of them has been read.
    pub(super) own_end: usize,
    source: std::iter::Peekable<std::iter::Enumerate<std::str::Lines<'s>>>,
    first_line: u32,
    own_end_line: u32,
    /// In the frontmatter, in a fenced block (its opening marker), past the heading.
    front: bool,
    fence: Option<&'s str>,
    heading_skipped: bool,
}

impl<'s> Plain<'s> {
    /// The plain text of `source`, whose first line is line `first_line` of its document
    /// and whose own text ends at `own_end_line`; nothing is read yet.
    pub(super) fn new(source: &'s str, first_line: u32, own_end_line: u32) -> Plain<'s> {
        Plain {
            text: String::new(),
            lines: Vec::new(),
            own_end: usize::MAX,
            source: source.lines().enumerate().peekable(),
            first_line,
            own_end_line,
            front: first_line == 1 && source.starts_with("---"),
            fence: None,
            heading_skipped: false,
        }
    }

    /// The whole plain text of `source` (up to [`MAX_PLAIN_BYTES`]).
    #[cfg(test)]
    pub(super) fn of(source: &'s str, first_line: u32, own_end_line: u32) -> Plain<'s> {
        let mut p = Plain::new(source, first_line, own_end_line);
        p.read_to(MAX_PLAIN_BYTES);
        p
    }

    /// Whether the source has been read to its end (or to [`MAX_PLAIN_BYTES`]).
    pub(super) fn exhausted(&mut self) -> bool {
        self.text.len() > MAX_PLAIN_BYTES || self.source.peek().is_none()
    }

    /// Reads whole lines on until the text holds more than `bytes` (at most
    /// [`MAX_PLAIN_BYTES`]) or the source ends.
    pub(super) fn read_to(&mut self, bytes: usize) {
        let bytes = bytes.min(MAX_PLAIN_BYTES);
        while self.text.len() <= bytes {
            let Some((i, line)) = self.source.next() else {
                return;
            };
            self.read_line(i, line);
        }
    }

    fn read_line(&mut self, i: usize, line: &'s str) {
        let n = self.first_line.saturating_add(i as u32);
        if n > self.own_end_line && self.own_end == usize::MAX {
            self.own_end = self.text.len();
        }
        let t = line.trim();
        // An mdBook directive (`{{#include file}}`) stands for text a reader sees elsewhere.
        if t.starts_with("{{#") && t.ends_with("}}") {
            return;
        }
        if self.front {
            // Frontmatter: the opening `---` through the closing `---` or `...`.
            if i > 0 && (t == "---" || t == "...") {
                self.front = false;
            }
            return;
        }
        if let Some(marker) = fence_marker(t) {
            match self.fence {
                Some(open) if marker.starts_with(open) => self.fence = None,
                None => self.fence = Some(marker),
                Some(_) => {}
            }
            return;
        }
        let kept = if self.fence.is_some() {
            // Code as one line of words: its alignment is no help in two lines of text.
            t.split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            if !self.heading_skipped && t.starts_with('#') {
                // The section's own heading: the result shows it apart.
                self.heading_skipped = true;
                return;
            }
            match block(t) {
                Some(b) => inline(b),
                None => return,
            }
        };
        if kept.is_empty() {
            return;
        }
        self.heading_skipped = true;
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        self.lines.push((self.text.len(), n));
        self.text.push_str(&kept);
    }

    /// The source line of byte `at` of the text.
    pub(super) fn line_at(&self, at: usize) -> u32 {
        let i = self.lines.partition_point(|&(o, _)| o <= at);
        self.lines.get(i.saturating_sub(1)).map_or(0, |&(_, n)| n)
    }
}

/// The opening characters of a code fence line (```` ``` ```` or `~~~`, three or more).
fn fence_marker(t: &str) -> Option<&str> {
    for c in ['`', '~'] {
        let n = t.chars().take_while(|&x| x == c).count();
        if n >= 3 {
            return Some(&t[..n]);
        }
    }
    None
}

/// A line without its block syntax (heading marks, quote marks, list bullets, table pipes),
/// or `None` for a line a reader does not read (rules, table separators, link
/// definitions, container fences).
fn block(mut t: &str) -> Option<String> {
    if t.chars().all(|c| matches!(c, '-' | '=' | '*' | '_' | ' ')) {
        return None; // rules, setext underlines (and empty lines)
    }
    if t.starts_with(":::") || (t.starts_with('[') && t.contains("]: ")) {
        return None;
    }
    if t.starts_with('|') {
        let row = t.trim_matches('|');
        if row
            .chars()
            .all(|c| matches!(c, '-' | ':' | '|' | ' ' | '\t'))
        {
            return None;
        }
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        return Some(cells.join(" · "));
    }
    t = t.trim_start_matches('>').trim_start();
    if t.starts_with('#') {
        t = t.trim_start_matches('#').trim_start();
        // `{#custom-id}` after a heading's words.
        if let Some(i) = t.rfind("{#") {
            if t.ends_with('}') {
                t = t[..i].trim_end();
            }
        }
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(bullet) {
            t = rest;
            break;
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")) {
        t = &t[digits + 2..];
    }
    for task in ["[ ] ", "[x] ", "[X] "] {
        if let Some(rest) = t.strip_prefix(task) {
            t = rest;
        }
    }
    Some(t.to_string())
}

/// A line without its inline syntax: emphasis marks, backticks, link targets (the link's
/// words stay), HTML tags and the commonest entities. Inside backticks only the backticks go
/// (`Vec<T>` is code, not a tag).
fn inline(s: String) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut code = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            code = !code;
            i += 1;
            continue;
        }
        if code {
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '\\' if i + 1 < chars.len() && chars[i + 1].is_ascii_punctuation() => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '*' | '~' => i += 1,
            '_' if chars.get(i + 1) == Some(&'_') => i += 2,
            // `_emphasis_`: an underscore opening or closing a word (not one inside it, as
            // in snake_case).
            '_' if {
                let before = i
                    .checked_sub(1)
                    .map(|j| chars[j])
                    .is_some_and(char::is_alphanumeric);
                let after = chars.get(i + 1).is_some_and(|c| c.is_alphanumeric());
                before != after
            } =>
            {
                i += 1
            }
            '!' if chars.get(i + 1) == Some(&'[') => i += 1,
            ']' if matches!(chars.get(i + 1), Some('(') | Some('[')) => {
                // `](target)` or `][ref]`: the target goes, the words before it stay.
                let close = if chars[i + 1] == '(' { ')' } else { ']' };
                match chars[i + 2..].iter().position(|&x| x == close) {
                    Some(p) => i += p + 3,
                    None => i += 1,
                }
            }
            '[' => i += 1,
            ']' => i += 1,
            '<' if chars
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '/' || *n == '!') =>
            {
                match chars[i..].iter().position(|&x| x == '>') {
                    Some(p) => {
                        i += p + 1;
                        out.push(' ');
                    }
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            '&' => {
                let rest: String = chars[i..chars.len().min(i + 7)].iter().collect();
                let entity = [
                    ("&lt;", '<'),
                    ("&gt;", '>'),
                    ("&amp;", '&'),
                    ("&quot;", '"'),
                    ("&#39;", '\''),
                    ("&nbsp;", ' '),
                ]
                .into_iter()
                .find(|(e, _)| rest.starts_with(e));
                match entity {
                    Some((e, ch)) => {
                        out.push(ch);
                        i += e.len();
                    }
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    // One space between words, whatever the tags and marks left.
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
