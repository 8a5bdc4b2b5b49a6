//! The site's face for AI tools, written by the build next to the pages: `llms.txt` (the
//! llms.txt proposal: the site's title, a summary, then its pages as a linked list with one-line
//! descriptions, grouped by top-level folder), `llms-full.txt` (every page's Markdown in
//! reading order, up to a size limit) and `<page>.md` beside each page (the proposal's
//! convention: the page's URL with `.md` appended, `index.html.md` for a folder's page).
//!
//! A page's Markdown is its source without frontmatter for Markdown input, and for a built
//! site the Markdown-like text Midashi indexed (headings, lists, fenced code, table rows), so
//! what an agent reads is what the index quotes. Everything is deterministic: same docs, same
//! bytes (no dates, reading order fixed by paths).

use crate::error::Result;
use crate::output::write_atomic;
use crate::site::sidebar::{reading_order, PageEntry};
use midashi_core::section::Document;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

/// The sentence that marks an `llms.txt` as Midashi's own: one without it (a generator
/// plugin's) is never overwritten.
const MADE_BY: &str = "Made by Midashi from the site's pages";

/// Longest one-line description, in characters.
const DESCRIPTION_CHARS: usize = 160;

/// What the site says about itself at the top of `llms.txt`.
#[derive(Debug, Clone)]
pub struct SiteInfo {
    /// The site's name (the `# ` line).
    pub title: String,
    /// The blockquote summary, when the home page has a description.
    pub description: Option<String>,
    /// URL prefix of the pages (`--base-url`), for the links.
    pub base_url: String,
    /// The most bytes `llms-full.txt` may hold; pages that would pass it are left out whole.
    pub full_limit: u64,
}

/// One page: its document and its file, relative to the site root (`guide/intro.html`).
#[derive(Debug, Clone)]
pub struct Page<'a> {
    /// The document the page shows.
    pub doc: &'a Document,
    /// The page's file under the site root.
    pub file: String,
}

/// The files, rendered (before they are written).
#[derive(Debug, Clone, PartialEq)]
pub struct Files {
    /// `llms.txt`.
    pub llms: String,
    /// `llms-full.txt`.
    pub full: String,
    /// Pages in `llms-full.txt`.
    pub full_pages: usize,
    /// `(file, Markdown)` of each page's copy, in reading order.
    pub copies: Vec<(String, String)>,
}

/// What [`write`] did, for the build report.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Pages listed in `llms.txt` (each with its `.md` copy).
    pub pages: usize,
    /// Pages in `llms-full.txt`, and its bytes.
    pub full_pages: usize,
    /// Bytes of `llms-full.txt`.
    pub full_bytes: usize,
    /// Bytes of `llms.txt`.
    pub llms_bytes: usize,
    /// Why `llms.txt` was not written, when it was not.
    pub kept: Option<String>,
}

/// The Markdown copy's file of a page: the page's file with `.md` appended.
pub fn copy_file(page_file: &str) -> String {
    format!("{page_file}.md")
}

/// A page's Markdown: its source without frontmatter (Markdown input) or the text Midashi
/// read from its HTML, with the title as a `# ` heading when the text has none.
fn markdown(doc: &Document) -> String {
    let body = midashi_markdown::body_of(&doc.source).trim_end();
    let has_h1 = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with("# "));
    let mut out = String::new();
    if !has_h1 && !doc.title.trim().is_empty() {
        let _ = writeln!(out, "# {}\n", doc.title.trim());
    }
    out.push_str(body);
    out.push('\n');
    out
}

/// One line about a page: its description, else the first sentence of its first prose.
fn describe(doc: &Document) -> Option<String> {
    let from_hints = doc
        .sections
        .first()
        .and_then(|s| s.hints.description.as_deref())
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    let line = from_hints.or_else(|| {
        doc.sections
            .iter()
            .map(|s| s.text.trim())
            .find(|t| !t.is_empty())
            .map(first_sentence)
    })?;
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(if line.chars().count() > DESCRIPTION_CHARS {
        let cut: String = line.chars().take(DESCRIPTION_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        line
    })
}

/// Up to the first sentence end (`. `, `。`, `! `, `? `), else the whole first line.
fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut end = line.len();
    for (i, c) in line.char_indices() {
        let next = line[i + c.len_utf8()..].chars().next();
        if matches!(c, '。' | '！' | '？')
            || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace))
        {
            end = i + c.len_utf8();
            break;
        }
    }
    line[..end].to_string()
}

/// A link target under the base URL, percent-encoded where a URL needs it.
fn link(base_url: &str, file: &str) -> String {
    let mut out = base_url.to_string();
    if !out.ends_with('/') {
        out.push('/');
    }
    midashi_markdown::push_encoded(&mut out, file);
    out
}

/// Text for a Markdown link label: brackets escaped, one line.
fn label(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

/// Renders the three kinds of file for `pages` (any order: they are put in reading order).
pub fn render(pages: &[Page<'_>], site: &SiteInfo) -> Files {
    let entries: Vec<PageEntry> = pages
        .iter()
        .map(|p| PageEntry {
            file: p.file.clone(),
            source: p.doc.path.clone(),
            title: if p.doc.title.trim().is_empty() {
                p.doc.path.clone()
            } else {
                p.doc.title.trim().to_string()
            },
        })
        .collect();
    let by_file: HashMap<&str, &Page<'_>> = pages.iter().map(|p| (p.file.as_str(), p)).collect();
    let ordered = reading_order(&entries);

    let mut llms = String::new();
    let _ = writeln!(llms, "# {}\n", label(&site.title));
    if let Some(d) = site.description.as_deref().filter(|d| !d.trim().is_empty()) {
        let _ = writeln!(
            llms,
            "> {}\n",
            d.split_whitespace().collect::<Vec<_>>().join(" ")
        );
    }
    let _ = writeln!(
        llms,
        "{MADE_BY}: each link is a page's Markdown (the page's URL with `.md` appended); \
         llms-full.txt has them all in this order.\n"
    );
    let mut group: Option<String> = None;
    let mut copies = Vec::new();
    for (entry, folder_title) in &ordered {
        let Some(page) = by_file.get(entry.file.as_str()) else {
            continue;
        };
        let heading = folder_title.clone().unwrap_or_else(|| "Docs".to_string());
        if group.as_deref() != Some(heading.as_str()) {
            let _ = writeln!(
                llms,
                "{}## {}\n",
                if group.is_some() { "\n" } else { "" },
                label(&heading)
            );
            group = Some(heading);
        }
        let md_file = copy_file(&entry.file);
        let _ = write!(
            llms,
            "- [{}]({})",
            label(&entry.title),
            link(&site.base_url, &md_file)
        );
        if let Some(d) = describe(page.doc) {
            let _ = write!(llms, ": {d}");
        }
        llms.push('\n');
        copies.push((md_file, markdown(page.doc)));
    }

    // llms-full.txt: whole pages while they fit, then a line saying what was left out.
    let mut full = String::new();
    let mut full_pages = 0;
    let mut left_out = 0;
    for ((entry, _), (_, md)) in ordered.iter().zip(&copies) {
        let block = format!(
            "{}<!-- {} -->\n\n{}",
            if full.is_empty() { "" } else { "\n---\n\n" },
            link(&site.base_url, &entry.file),
            md
        );
        if (full.len() + block.len()) as u64 > site.full_limit {
            left_out += 1;
            continue;
        }
        full.push_str(&block);
        full_pages += 1;
    }
    if left_out > 0 {
        let _ = write!(
            full,
            "\n---\n\n{left_out} more pages did not fit in this file's size limit; llms.txt links \
             each page's Markdown.\n"
        );
    }
    Files {
        llms,
        full,
        full_pages,
        copies,
    }
}

/// Writes `llms.txt`, `llms-full.txt` and the pages' Markdown copies under `root`. An
/// `llms.txt` that Midashi did not write (a generator plugin's) is kept, with its
/// `llms-full.txt`; the copies are still written.
pub fn write(root: &Path, pages: &[Page<'_>], site: &SiteInfo) -> Result<Report> {
    let files = render(pages, site);
    let mut report = Report {
        pages: files.copies.len(),
        ..Report::default()
    };
    for (file, md) in &files.copies {
        let path = root.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(crate::error::CliError::io(parent))?;
        }
        write_atomic(&path, md.as_bytes())?;
    }
    let existing = std::fs::read_to_string(root.join("llms.txt")).ok();
    if existing.as_deref().is_some_and(|t| !t.contains(MADE_BY)) {
        report.kept = Some(
            "llms.txt and llms-full.txt kept: the site has its own llms.txt (not Midashi's)".into(),
        );
        return Ok(report);
    }
    write_atomic(&root.join("llms.txt"), files.llms.as_bytes())?;
    write_atomic(&root.join("llms-full.txt"), files.full.as_bytes())?;
    report.llms_bytes = files.llms.len();
    report.full_bytes = files.full.len();
    report.full_pages = files.full_pages;
    Ok(report)
}

/// The report's lines about what [`write`] did.
pub fn describe_report(report: &Report, root: &Path) -> Vec<String> {
    let mut lines = vec![format!(
        "Markdown   {} pages as <page>.md under {}",
        report.pages,
        root.display()
    )];
    match &report.kept {
        Some(why) => lines.push(why.clone()),
        None => {
            lines.push(format!(
                "llms.txt   {} pages, {} bytes",
                report.pages, report.llms_bytes
            ));
            lines.push(format!(
                "llms-full.txt {} of {} pages, {} bytes",
                report.full_pages, report.pages, report.full_bytes
            ));
        }
    }
    lines
}

/// Parses a size: bytes, or with a `K`/`KB`/`M`/`MB` suffix (powers of 1000).
pub fn parse_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim().to_ascii_uppercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("MB").or_else(|| t.strip_suffix('M')) {
        (n, 1_000_000)
    } else if let Some(n) = t.strip_suffix("KB").or_else(|| t.strip_suffix('K')) {
        (n, 1_000)
    } else {
        (t.strip_suffix('B').unwrap_or(&t), 1)
    };
    num.trim()
        .parse::<u64>()
        .map(|n| n.saturating_mul(mult))
        .map_err(|_| format!("{s:?} is not a size: give bytes, or e.g. 500KB, 10MB"))
}

#[cfg(test)]
mod tests;
