//! A section's text as a reader sees it, for its excerpt: Markdown's block and inline syntax
//! and the frontmatter stripped, code kept as one line of words, with where each source line
//! begins.
//!
//! Hand-written and line-based on purpose: a full CommonMark parse per result would add a
//! parser to the browser's keyword module for a two-line string, and a section's text is
//! already cut on line boundaries.

/// Most bytes of a section's plain text read for its excerpt (~200 lines of prose): a
/// whole-document hit is not analysed to its end per result — analysing is most of what a
/// result costs — and a word that deep is one `get` away.
const MAX_SCAN_BYTES: usize = 16 * 1024;

/// A section's text as a reader sees it, one string, with where each source line begins.
#[derive(Default)]
pub(super) struct Plain {
    /// The kept lines, joined by a space.
    pub(super) text: String,
    /// `(byte offset in text, source line)` of every line kept, in order.
    pub(super) lines: Vec<(usize, u32)>,
    /// Where the section's own text ends in `text` (its subsections follow).
    pub(super) own_end: usize,
}

impl Plain {
    pub(super) fn of(source: &str, first_line: u32, own_end_line: u32) -> Plain {
        let mut out = Plain {
            own_end: usize::MAX,
            ..Plain::default()
        };
        let mut front = first_line == 1 && source.starts_with("---");
        let mut fence: Option<&str> = None;
        let mut heading_skipped = false;
        for (i, line) in source.lines().enumerate() {
            if out.text.len() > MAX_SCAN_BYTES {
                break;
            }
            let n = first_line.saturating_add(i as u32);
            if n > own_end_line && out.own_end == usize::MAX {
                out.own_end = out.text.len();
            }
            let t = line.trim();
            if front {
                // Frontmatter: the opening `---` through the closing `---` or `...`.
                if i > 0 && (t == "---" || t == "...") {
                    front = false;
                }
                continue;
            }
            if let Some(marker) = fence_marker(t) {
                match fence {
                    Some(open) if marker.starts_with(open) => fence = None,
                    None => fence = Some(marker),
                    Some(_) => {}
                }
                continue;
            }
            let kept = if fence.is_some() {
                // Code as one line of words: its alignment is no help in two lines of text.
                t.split_whitespace().collect::<Vec<_>>().join(" ")
            } else {
                if !heading_skipped && t.starts_with('#') {
                    // The section's own heading: the result shows it apart.
                    heading_skipped = true;
                    continue;
                }
                match block(t) {
                    Some(b) => inline(b),
                    None => continue,
                }
            };
            if kept.is_empty() {
                continue;
            }
            heading_skipped = true;
            if !out.text.is_empty() {
                out.text.push(' ');
            }
            out.lines.push((out.text.len(), n));
            out.text.push_str(&kept);
        }
        out
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
