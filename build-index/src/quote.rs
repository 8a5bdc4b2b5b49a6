//! Results quoted the way agents and people read them: `path > heading`, one metadata line,
//! a fenced Markdown preview, and the id to fetch the rest.

use midashi_core::answer::{DocumentView, SectionView};
use midashi_core::SearchHit;
use std::fmt::Write;

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
}

/// One result in the quoted format (`rank` is 1-based).
pub fn quote(rank: usize, hit: &SearchHit) -> String {
    quote_with(rank, hit, Extras::default())
}

/// One result in the quoted format with `extras` (`rank` is 1-based).
pub fn quote_with(rank: usize, hit: &SearchHit, extras: Extras<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{rank}. {}", breadcrumb(hit));
    let _ = write!(out, "{} | Score: {:.2}", place(hit), hit.score);
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
            title: "Pagination".into(),
            description: Some("Pages.".into()),
            token_estimate: 12,
            version: None,
            other_versions: Vec::new(),
        }
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
    fn extras_add_the_size_and_put_the_summary_before_the_preview() {
        let q = quote_with(
            2,
            &hit(),
            Extras {
                summary: Some(" Pages. "),
                section_tokens: Some(40),
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
