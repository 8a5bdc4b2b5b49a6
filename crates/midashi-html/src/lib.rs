//! A built site's HTML pages in, Midashi sections out.
//!
//! [`parse_page`] reads one page as a browser would (html5ever), finds its content region
//! (`[data-midashi-body]`, else `<main>`, `[role=main]`, `<body>`; a single `<article>`
//! inside it is preferred, so a theme's table of contents beside the article stays out),
//! leaves out navigation, headers without headings, footers, asides, scripts, forms and
//! anything marked `data-midashi-ignore`, and turns what is left into:
//!
//! - a **Markdown-like text of the page** (`#` headings, paragraphs, `- ` list items, fenced
//!   code, `| a | b |` table rows, `> ` quotes): the document's `source`, which previews,
//!   `get`, the MCP server and quotes read. A section's `start_line`/`end_line` are lines of
//!   this text, not of the HTML file (whose lines mean nothing after minification).
//! - a **section tree** in the shape the Markdown sectioner gives: depth 0 is the page,
//!   depths 1–6 its headings, whose `id`s are the anchors. A heading without an `id` is
//!   linked with a text fragment (`#:~:text=…`), which browsers scroll to without any script,
//!   and a warning says so.
//!
//! Page controls: `data-midashi-ignore` on `<html>` or `<body>`, `<meta name="robots"
//! content="noindex">` and redirect pages skip the page; `<html lang>` sets its language;
//! `<meta name="description">`, `<meta name="keywords">`, `<meta name="midashi:category">`,
//! `midashi:tags`, `midashi:version` and `data-midashi-filter="tags:a,b"` set its hints.

mod blocks;
mod page;
mod tree;
mod url;

pub use url::page_url_of_html;

use midashi_core::section::{Document, Warning};

/// How pages are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// URL prefix of the site, e.g. `"/"` or `"/docs/"` (a missing trailing `/` is added).
    pub base_url: String,
    /// Sections estimated above this many tokens get a warning (the embedder splits them).
    pub max_section_tokens: u32,
    /// Index the site's "page not found" page too (`404.html`, `404/index.html`), which
    /// every generator writes and no visitor searches for: left out by default.
    pub keep_error_pages: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            base_url: "/".into(),
            max_section_tokens: 256,
            keep_error_pages: false,
        }
    }
}

/// Whether `path` (under the site's root) is the site's "page not found" page.
pub fn is_error_page(path: &str) -> bool {
    let path = path.trim_start_matches("./");
    let name = path.rsplit('/').next().unwrap_or(path);
    let page = if name.eq_ignore_ascii_case("index.html") {
        path.rsplit('/').nth(1).unwrap_or("")
    } else {
        name.strip_suffix(".html")
            .or_else(|| name.strip_suffix(".htm"))
            .unwrap_or("")
    };
    page == "404"
}

/// What became of one page.
#[derive(Debug)]
pub enum Outcome {
    /// The page, as sections, with what looked wrong.
    Page(Document, Vec<Warning>),
    /// The page is not indexed, and why (a control asked so, a redirect, no text).
    Skipped(String),
}

/// Reads one HTML page. `path` is its path under the site's root (`/` separators); it makes
/// the page's URL (`a/b/index.html` → `{base}a/b/`, `a.html` → `{base}a.html`) and feeds the
/// section ids. Never panics: malformed HTML is read as browsers read it.
pub fn parse_page(path: &str, html: &str, opts: &Options) -> Outcome {
    if !opts.keep_error_pages && is_error_page(path) {
        return Outcome::Skipped(
            "the site's \"page not found\" page (--keep-error-pages indexes it)".into(),
        );
    }
    let dom = scraper::Html::parse_document(html);
    let page = match page::read(&dom, path) {
        Ok(p) => p,
        Err(reason) => return Outcome::Skipped(reason),
    };
    let blocks = blocks::collect(page.region);
    if blocks.iter().all(|b| b.text.trim().is_empty()) {
        return Outcome::Skipped("no text in its content region".into());
    }
    let url = page_url_of_html(path, &opts.base_url);
    let (doc, warnings) = tree::assemble(path, &url, &page, blocks, opts);
    Outcome::Page(doc, warnings)
}
