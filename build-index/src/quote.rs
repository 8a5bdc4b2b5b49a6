//! Results quoted the way agents and people read them: `path > heading`, one metadata line,
//! a fenced Markdown preview, and the id to fetch the rest.

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

/// One result in the quoted format (`rank` is 1-based).
pub fn quote(rank: usize, hit: &SearchHit) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{rank}. {}", breadcrumb(hit));
    let _ = writeln!(
        out,
        "Level: {} | Section: {} | Line: {}-{} | Score: {:.2}",
        level(hit.depth),
        hit.section_number,
        hit.start_line,
        hit.end_line,
        hit.score
    );
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
