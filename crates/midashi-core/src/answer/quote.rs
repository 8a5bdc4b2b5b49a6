//! Results quoted the way agents and people read them: `path > heading`, one metadata line,
//! a fenced Markdown preview, and the id to fetch the rest. The one definition of the quoted
//! format: `build-index search`/`get`, the MCP server and the widget's in-page tools for
//! browser agents (WebMCP, through the wasm engine) all quote through here.

use super::{DocumentView, Mode, SearchHit, SearchResponse, SectionView};
use std::fmt::Write;

/// `x` with `decimals` digits after the point, rounded half away from zero. By hand, not
/// `{:.2}`: float formatting was most of what quoting added to the browser's full engine.
fn fixed(x: f64, decimals: u32) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    let scale = 10u64.pow(decimals);
    let n = (x.abs() * scale as f64).round() as u64;
    let sign = if x < 0.0 && n > 0 { "-" } else { "" };
    let (whole, frac) = (n / scale, n % scale);
    if decimals == 0 {
        return format!("{sign}{whole}");
    }
    format!("{sign}{whole}.{frac:0width$}", width = decimals as usize)
}

/// `text` in double quotes with quotes, backslashes and control characters escaped, as
/// `{:?}` writes a plain string (by hand: Debug's escaping tables cost the browser module).
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// "H2", or "Document" for depth 0.
pub fn level(depth: u8) -> String {
    if depth == 0 {
        "Document".to_string()
    } else {
        format!("H{depth}")
    }
}

/// A code fence longer than any backtick run in `text`, so a preview containing fences
/// cannot close ours.
pub fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// The breadcrumb line: `path > title/H1 > H2 > …`.
pub fn breadcrumb(hit: &SearchHit) -> String {
    std::iter::once(hit.path.as_str())
        .chain(hit.heading_path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" > ")
}

/// Where a section sits: `Level: H2 | Section: 3 | Line: 15-20` (the start of every metadata
/// line).
fn place(hit: &SearchHit) -> String {
    format!(
        "Level: {} | Section: {} | Line: {}-{}",
        level(hit.depth),
        hit.section_number,
        hit.start_line,
        hit.end_line
    )
}

/// What an agent-facing quote (the MCP server's) adds to a result; nothing by default, which
/// is the CLI's format.
#[derive(Debug, Default, Clone, Copy)]
pub struct Extras<'a> {
    /// The document's summary (frontmatter `description`), printed before the preview.
    pub summary: Option<&'a str>,
    /// Tokens of the whole section (what fetching it costs), appended to the metadata line.
    pub section_tokens: Option<usize>,
    /// Print the excerpt (`Matched at line N: …`) when the matched words lie past the
    /// preview, so an agent sees why a long section ranked without fetching it.
    pub excerpt: bool,
}

/// One result in the quoted format (`rank` is 1-based).
pub fn quote(rank: usize, hit: &SearchHit) -> String {
    quote_with(rank, hit, Extras::default())
}

/// One result in the quoted format with `extras` (`rank` is 1-based).
pub fn quote_with(rank: usize, hit: &SearchHit, extras: Extras<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{rank}. {}", breadcrumb(hit));
    let _ = write!(
        out,
        "{} | Score: {}",
        place(hit),
        fixed(f64::from(hit.score), 2)
    );
    if let Some(tokens) = extras.section_tokens {
        let _ = write!(out, " | Tokens: {tokens}");
    }
    if let Some(version) = &hit.version {
        let _ = write!(out, " | Version: {version}");
        if !hit.other_versions.is_empty() {
            let others: Vec<&str> = hit
                .other_versions
                .iter()
                .map(|v| v.version.as_str())
                .collect();
            let _ = write!(out, " (also in {})", others.join(", "));
        }
    }
    out.push('\n');
    if let Some(summary) = extras.summary {
        let _ = writeln!(out, "Summary: {}", summary.trim());
    }
    let preview_end = hit.end_line.saturating_sub(hit.more_lines);
    if extras.excerpt && !hit.excerpt_highlights.is_empty() && hit.excerpt_line > preview_end {
        let _ = writeln!(out, "Matched at line {}: {}", hit.excerpt_line, hit.excerpt);
    }
    let fence = fence_for(&hit.preview);
    let _ = writeln!(out, "{fence}markdown");
    if !hit.preview.is_empty() {
        let _ = writeln!(out, "{}", hit.preview);
    }
    if hit.more_lines > 0 {
        let _ = writeln!(out, "… ({} more lines)", hit.more_lines);
    }
    let _ = writeln!(out, "{fence}");
    let _ = writeln!(out, "id: {}", hit.id);
    out
}

/// A whole section as `get` prints it: breadcrumb, metadata, its full source fenced, its id.
pub fn quote_section(view: &SectionView) -> String {
    let h = &view.hit;
    let mut out = String::new();
    let _ = writeln!(out, "{}", breadcrumb(h));
    let _ = writeln!(out, "{} | URL: {}", place(h), h.url);
    let fence = fence_for(&view.text);
    let _ = writeln!(out, "{fence}markdown\n{}\n{fence}", view.text.trim_end());
    let _ = writeln!(out, "id: {}", h.id);
    out
}

/// A whole document as `get` prints it: path and title, URL and section count, its source fenced.
pub fn quote_document(doc: &DocumentView) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", doc.path, doc.title);
    let _ = writeln!(out, "URL: {} | Sections: {}", doc.url, doc.sections.len());
    let fence = fence_for(&doc.source);
    let _ = writeln!(out, "{fence}markdown\n{}\n{fence}", doc.source.trim_end());
    out
}

/// A section to paste elsewhere (the widget's "Copy as Markdown"): a first line linking its
/// heading path to `link` (the page's absolute URL with the section's anchor) with the source
/// file and lines, a blank line, then the section's Markdown as written.
pub fn section_markdown(view: &SectionView, link: &str) -> String {
    let h = &view.hit;
    let trail = if h.heading_path.is_empty() {
        h.title.clone()
    } else {
        h.heading_path.join(" › ")
    };
    // Brackets in a heading would end the link text early.
    let trail = trail.replace('[', "\\[").replace(']', "\\]");
    format!(
        "[{trail}](<{link}>) · {}, lines {}–{}\n\n{}\n",
        h.path,
        h.start_line,
        h.end_line,
        view.text.trim_end()
    )
}

/// Roughly the model tokens of some text: one per CJK character, one per four other
/// characters. The index's own estimate (sections carry it); what token counts and budgets
/// use where no model tokenizer is at hand.
pub fn token_estimate(parts: &[&str]) -> u32 {
    let (mut cjk, mut other) = (0u64, 0u64);
    for part in parts {
        if part.is_ascii() {
            // The common case, counted without decoding characters.
            other += part.len() as u64;
            continue;
        }
        for c in part.chars() {
            if is_cjk(c) {
                cjk += 1;
            } else {
                other += 1;
            }
        }
    }
    u32::try_from(cjk + other.div_ceil(4)).unwrap_or(u32::MAX)
}

/// Chinese, Japanese and Korean characters: one model token each in the estimate.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11ff}'     // Hangul Jamo
        | '\u{2e80}'..='\u{2fdf}'   // CJK radicals
        | '\u{3000}'..='\u{303f}'   // CJK symbols and punctuation
        | '\u{3040}'..='\u{30ff}'   // Hiragana, Katakana
        | '\u{3100}'..='\u{31ff}'   // Bopomofo, Hangul compatibility, Katakana extensions
        | '\u{3400}'..='\u{4dbf}'   // CJK extension A
        | '\u{4e00}'..='\u{9fff}'   // CJK unified ideographs
        | '\u{a960}'..='\u{a97f}'   // Hangul Jamo extended A
        | '\u{ac00}'..='\u{d7ff}'   // Hangul syllables and Jamo extended B
        | '\u{f900}'..='\u{faff}'   // CJK compatibility ideographs
        | '\u{ff00}'..='\u{ffef}'   // full-width and half-width forms
        | '\u{20000}'..='\u{3ffff}' // CJK extensions B and later
    )
}

/// What a quoted search answer is asked for.
#[derive(Debug, Clone, Copy)]
pub struct QuoteRequest<'a> {
    /// The query, as typed.
    pub query: &'a str,
    /// Lines of each preview (said in the answer's guidance line).
    pub preview_lines: usize,
    /// Stop adding results before their tokens would pass this many.
    pub token_budget: Option<usize>,
    /// How long the search took, when the caller can tell.
    pub took_ms: Option<f64>,
    /// What the next step is called for the reader (`get_document with its path and
    /// sectionId = the id: line`, or `get_section with the id`).
    pub read_more: &'a str,
}

/// One result kept in a quoted answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    /// Its index in the response's results.
    pub index: usize,
    /// Tokens of its quoted block.
    pub tokens: usize,
    /// Tokens of its whole section.
    pub section_tokens: usize,
}

/// A search answer quoted for an agent: the text, and which results it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotedAnswer {
    /// What the agent reads.
    pub text: String,
    /// The results quoted, in order.
    pub kept: Vec<Kept>,
    /// Tokens of all the blocks.
    pub used: usize,
    /// Results left out by the token budget.
    pub left_out: usize,
}

/// The mode's name as an agent passes it.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Auto => "auto",
        Mode::Keyword => "keyword",
        Mode::Semantic => "semantic",
        Mode::Hybrid => "hybrid",
    }
}

/// A search answer for an agent: a summary line, "did you mean", guidance, then each result
/// quoted (with the document's summary once, before its first result, and the section's
/// size) while the token budget lasts. `count` counts a text's tokens; `section_tokens` says
/// what reading a result's whole section costs.
pub fn quote_search(
    response: &SearchResponse,
    req: &QuoteRequest<'_>,
    count: &dyn Fn(&str) -> usize,
    section_tokens: &dyn Fn(&SearchHit) -> usize,
) -> QuotedAnswer {
    let mut blocks: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    let mut summarised: Vec<&str> = Vec::new();
    let mut used = 0;
    let mut first_too_big = None;
    for (i, hit) in response.results.iter().enumerate() {
        let summary = hit
            .description
            .as_deref()
            .filter(|d| !d.trim().is_empty() && !summarised.contains(&hit.path.as_str()));
        let whole = section_tokens(hit);
        let block = quote_with(
            i + 1,
            hit,
            Extras {
                summary,
                section_tokens: Some(whole),
                excerpt: true,
            },
        );
        let tokens = count(&block);
        if req
            .token_budget
            .is_some_and(|budget| used + tokens > budget)
        {
            if i == 0 {
                first_too_big = Some(tokens);
            }
            break;
        }
        used += tokens;
        if summary.is_some() {
            summarised.push(hit.path.as_str());
        }
        kept.push(Kept {
            index: i,
            tokens,
            section_tokens: whole,
        });
        blocks.push(block);
    }
    let left_out = response.results.len() - blocks.len();

    let mut text = String::new();
    let _ = write!(
        text,
        "{}{} results for {} ({}",
        response.total,
        if response.total_exact { "" } else { "+" },
        quoted(req.query.trim()),
        mode_name(response.mode)
    );
    if let Some(ms) = req.took_ms {
        let _ = write!(text, ", {} ms", fixed(ms, 1));
    }
    let _ = write!(text, "); showing {}", blocks.len());
    match req.token_budget {
        Some(budget) => {
            let _ = writeln!(text, ", {used} of a {budget}-token budget");
        }
        None => {
            let _ = writeln!(text, ", {used} tokens");
        }
    }
    if !response.suggestions.is_empty() {
        let _ = writeln!(text, "Did you mean: {}", response.suggestions.join(", "));
    }
    if let Some(tokens) = first_too_big {
        let _ = writeln!(
            text,
            "The first result alone needs {tokens} tokens: raise tokenBudget or lower previewLines."
        );
    } else if left_out > 0 && req.token_budget.is_some() {
        let _ = writeln!(
            text,
            "{left_out} more results did not fit in the token budget: raise tokenBudget, or lower previewLines to see more of them."
        );
    }
    if !blocks.is_empty() {
        let _ = writeln!(
            text,
            "Each preview is only the first {} lines of its section (\"… (N more lines)\" counts the rest; Tokens is the size of the whole section). To read a whole section, call {}.",
            req.preview_lines, req.read_more
        );
    }
    for block in &blocks {
        text.push('\n');
        text.push_str(block);
    }
    QuotedAnswer {
        text,
        kept,
        used,
        left_out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit() -> SearchHit {
        SearchHit {
            id: "7f3a09c2d1e4b5a6".into(),
            path: "guide/pagination.md".into(),
            url: "/guide/pagination#cursor".into(),
            anchor: Some("cursor".into()),
            heading: "Cursor".into(),
            heading_path: vec!["Pagination".into(), "Cursor".into()],
            depth: 2,
            section_number: 3,
            start_line: 15,
            end_line: 20,
            score: 7.314,
            preview: "## Cursor\n```js\nnext()\n```".into(),
            more_lines: 2,
            highlights: Vec::new(),
            excerpt: String::new(),
            excerpt_highlights: Vec::new(),
            excerpt_line: 0,
            title: "Pagination".into(),
            description: Some("Pages.".into()),
            token_estimate: 12,
            version: None,
            other_versions: Vec::new(),
        }
    }

    #[test]
    fn numbers_and_queries_print_as_format_would() {
        for (x, d) in [
            (7.314, 2),
            (0.0, 2),
            (12.5, 1),
            (3.0, 1),
            (0.456, 1),
            (-1.25, 2),
            (1e-9, 2),
        ] {
            assert_eq!(
                fixed(x, d),
                format!("{x:.*}", d as usize).replace("-0.00", "0.00"),
                "{x}"
            );
        }
        for q in [
            "plain",
            "with \"quotes\"",
            "back\\slash",
            "tab\tand\nline",
            "日本語",
        ] {
            assert_eq!(quoted(q), format!("{q:?}"));
        }
    }

    #[test]
    fn a_copied_section_links_its_heading_path() {
        let mut h = hit();
        h.heading_path = vec!["Pagination".into(), "Cursor [beta]".into()];
        let view = SectionView {
            hit: h,
            text: "## Cursor [beta]\nUse `next()`.\n\n".into(),
        };
        assert_eq!(
            section_markdown(&view, "https://example.com/guide/pagination#cursor"),
            "[Pagination › Cursor \\[beta\\]](<https://example.com/guide/pagination#cursor>) \
             · guide/pagination.md, lines 15–20\n\n## Cursor [beta]\nUse `next()`.\n"
        );
    }

    #[test]
    fn the_cli_quote_has_no_extras() {
        let q = quote(1, &hit());
        assert_eq!(
            q,
            "1. guide/pagination.md > Pagination > Cursor\n\
             Level: H2 | Section: 3 | Line: 15-20 | Score: 7.31\n\
             ````markdown\n## Cursor\n```js\nnext()\n```\n… (2 more lines)\n````\n\
             id: 7f3a09c2d1e4b5a6\n"
        );
        assert_eq!(q, quote_with(1, &hit(), Extras::default()));
    }

    #[test]
    fn a_match_past_the_preview_is_quoted_with_its_line() {
        let mut h = hit();
        h.excerpt = "…the cursor moves on.".into();
        h.excerpt_highlights = vec![[5, 11]];
        h.excerpt_line = 19;
        let with = Extras {
            excerpt: true,
            ..Extras::default()
        };
        let q = quote_with(1, &h, with);
        assert!(
            q.contains("\nMatched at line 19: …the cursor moves on.\n````markdown"),
            "{q}"
        );
        // Within the preview (lines 15-18 shown), or not asked for: nothing added.
        h.excerpt_line = 16;
        assert!(!quote_with(1, &h, with).contains("Matched"));
        h.excerpt_line = 19;
        assert_eq!(quote_with(1, &h, Extras::default()), quote(1, &h));
        assert!(!quote(1, &h).contains("Matched"));
    }

    #[test]
    fn extras_add_the_size_and_put_the_summary_before_the_preview() {
        let q = quote_with(
            2,
            &hit(),
            Extras {
                summary: Some(" Pages. "),
                section_tokens: Some(40),
                excerpt: false,
            },
        );
        assert!(q.starts_with(
            "2. guide/pagination.md > Pagination > Cursor\n\
             Level: H2 | Section: 3 | Line: 15-20 | Score: 7.31 | Tokens: 40\n\
             Summary: Pages.\n````markdown\n"
        ));
        assert!(q.ends_with("id: 7f3a09c2d1e4b5a6\n"));
    }
}
