//! `build-index <docs> --out <dir> --site`: a static, searchable docs site from the same
//! Markdown the index was built from.
//!
//! ```text
//! <dir>/index.html, <dir>/guide/intro.html, …   one page per document (+ a landing page)
//! <dir>/assets/site.css                         light/dark stylesheet
//! <dir>/search/                                 the index, the widget (midashi.js, worker.js,
//!                                               wasm/), and midashi-inline.js + midashi-file.js
//!                                               for pages opened from file://
//! ```
//!
//! Page bodies come from `midashi_markdown::render_html`, whose heading ids are the index's
//! anchors, so a search result's `url` (page + `#anchor`) lands on its heading. A page's file
//! is its document's URL with `.html` added where the URL has no extension; the widget is told
//! so (`html-links`) and follows results to those files, on a server and on file:// alike.

mod assets;
mod escape;
mod layout;
pub mod sidebar;
mod strings;

pub use crate::lang::site_lang;
pub use assets::default_assets_dir;

use crate::error::{CliError, Result};
use crate::output::write_atomic;
use midashi_core::format::entry::ENTRY_FILE_NAME;
use midashi_core::format::{FileKind, Manifest};
use midashi_core::section::Document;
use sidebar::PageEntry;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// How the site is made.
#[derive(Debug, Clone)]
pub struct SiteOptions {
    /// The Markdown options the index was built with (slug style and base URL), so that the
    /// rendered pages' heading ids are the index's anchors.
    pub markdown: midashi_markdown::Options,
    /// The site's name, in the header and the page titles.
    pub title: String,
    /// Language of pages that do not say theirs (frontmatter `lang`, or a `ja/` folder).
    pub lang: String,
    /// The docs folder: its images (png, jpg, gif, webp, avif) are copied next to the pages.
    /// SVG is not copied: opened directly, an SVG file can run script on the site's origin.
    pub docs_root: Option<PathBuf>,
}

/// What [`write_site`] wrote.
#[derive(Debug, Clone, Default)]
pub struct SiteReport {
    /// HTML pages written (documents and the landing page).
    pub pages: usize,
    /// Images copied from the docs folder.
    pub images: usize,
    /// Bytes written in all (pages, assets, the file:// bundle).
    pub bytes: u64,
    /// Documents skipped, with why (two documents wanting the same page file).
    pub skipped: Vec<String>,
    /// Whether the semantic module was copied (hybrid search in the widget).
    pub semantic: bool,
    /// Things the user should know (e.g. why the site is keyword-only).
    pub notes: Vec<String>,
}

/// Writes the site into `out`: pages, stylesheet, widget and the file:// bundle. The index
/// itself (`index_files`) must be written to `out/search/` by the caller (with
/// `output::write_index`, atomically); it is read here to choose the widget's modules.
/// `inline_files`, a sharded index's single-file copy (`BuildOutput::keyword_single`), is
/// what a page opened from file:// is given, since it can fetch no shard (else
/// `index_files`). `assets_dir` holds the widget's built files (`bundle/` and `wasm/`, i.e.
/// `web/dist`).
pub fn write_site(
    out: &Path,
    docs: &[Document],
    index_files: &[(String, Vec<u8>)],
    inline_files: Option<&[(String, Vec<u8>)]>,
    assets_dir: &Path,
    options: &SiteOptions,
) -> Result<SiteReport> {
    assets::check(assets_dir)?;
    let mut report = SiteReport::default();
    let search = out.join("search");
    fs::create_dir_all(&search).map_err(CliError::io(&search))?;
    copy_widget(assets_dir, &search, index_files, &mut report)?;
    let inline = assets::inline_script(inline_files.unwrap_or(index_files), assets_dir)?;
    report.bytes += inline.len() as u64;
    write_atomic(&search.join("midashi-inline.js"), inline.as_bytes())?;
    let css_dir = out.join("assets");
    fs::create_dir_all(&css_dir).map_err(CliError::io(&css_dir))?;
    write_atomic(&css_dir.join("site.css"), assets::SITE_CSS.as_bytes())?;
    report.bytes += assets::SITE_CSS.len() as u64;

    // Which file each document becomes; a later document that wants a taken file is skipped.
    let mut taken = BTreeSet::new();
    let mut pages: Vec<(PageEntry, &Document)> = Vec::new();
    for doc in docs {
        let file = page_file(&doc.url, &options.markdown.base_url, &doc.path);
        if !taken.insert(file.clone()) {
            report.skipped.push(format!(
                "{}: its page {file} is already written for another document",
                doc.path
            ));
            continue;
        }
        pages.push((
            PageEntry {
                file,
                source: doc.path.clone(),
                title: if doc.title.trim().is_empty() {
                    doc.path.clone()
                } else {
                    doc.title.clone()
                },
            },
            doc,
        ));
    }
    let entries: Vec<PageEntry> = pages.iter().map(|(p, _)| p.clone()).collect();
    // Folder → (title, file) of its index page, for breadcrumbs.
    let folder_index: BTreeMap<String, (String, String)> = entries
        .iter()
        .filter_map(|p| {
            let (dir, name) = p.source.rsplit_once('/').unwrap_or(("", p.source.as_str()));
            let lower = name.to_ascii_lowercase();
            (lower.starts_with("index.") || lower.starts_with("readme."))
                .then(|| (dir.to_string(), (p.title.clone(), p.file.clone())))
        })
        .collect();

    for (entry, doc) in &pages {
        let root = root_prefix(&entry.file);
        let mut body = String::new();
        if !doc.sections.iter().any(|s| s.depth == 1) {
            // No H1 in the source (title from frontmatter or the file name): show the title.
            body.push_str(&format!("<h1>{}</h1>\n", escape::html(&entry.title)));
        }
        body.push_str(&rewrite_md_links(&midashi_markdown::render_html(
            &doc.source,
            doc,
            &options.markdown,
        )));
        let dirs: Vec<&str> = entry.source.split('/').collect();
        let mut crumbs = Vec::new();
        for i in 0..dirs.len().saturating_sub(1) {
            let dir = dirs[..=i].join("/");
            match folder_index.get(&dir) {
                Some((title, file)) if file != &entry.file => {
                    crumbs.push((title.clone(), Some(file.clone())))
                }
                Some((title, _)) => crumbs.push((title.clone(), None)),
                None => crumbs.push((dirs[i].to_string(), None)),
            }
        }
        let hints = doc.sections.first().map(|s| &s.hints);
        // Frontmatter `lang`, else the locale folder (`ja/…`, midashi-markdown's hints), else
        // the site's.
        let lang = hints
            .and_then(|h| h.lang.clone())
            .unwrap_or_else(|| options.lang.clone());
        let html = layout::render(&layout::Page {
            lang: &lang,
            title: &entry.title,
            site_title: &options.title,
            description: hints.and_then(|h| h.description.as_deref()),
            root: &root,
            crumbs,
            sidebar: &sidebar::render(&entries, Some(&entry.file), &root),
            body: &body,
        });
        let path = out.join(&entry.file);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(CliError::io(parent))?;
        }
        write_atomic(&path, html.as_bytes())?;
        report.pages += 1;
        report.bytes += html.len() as u64;
    }

    if !taken.contains("index.html") {
        let mut body = format!(
            "<h1>{}</h1>\n<ul class=\"page-list\">",
            escape::html(&options.title)
        );
        for p in &entries {
            body.push_str(&format!(
                "<li><a href=\"./{}\">{}</a></li>",
                escape::html(&escape::url_path(&p.file)),
                escape::html(&p.title)
            ));
        }
        body.push_str("</ul>");
        let html = layout::render(&layout::Page {
            lang: &options.lang,
            title: &options.title,
            site_title: &options.title,
            description: None,
            root: "./",
            crumbs: Vec::new(),
            sidebar: &sidebar::render(&entries, Some("index.html"), "./"),
            body: &body,
        });
        write_atomic(&out.join("index.html"), html.as_bytes())?;
        report.pages += 1;
        report.bytes += html.len() as u64;
    }

    if let Some(docs_root) = &options.docs_root {
        let (n, bytes) = copy_images(docs_root, out)?;
        report.images = n;
        report.bytes += bytes;
    }
    Ok(report)
}

/// Relative links between Markdown files (`guide/intro.md#setup`, as authors write them so
/// that they work on a forge) point at the generated pages instead (`guide/intro.html#setup`;
/// an `index.md`/`README.md` becomes its folder's `index.html`). Only `href="…"` values that
/// have no scheme and do not start with `/` or `#` are touched; the HTML is render_html's,
/// whose attribute values are already escaped, so the `.md` suffix is found verbatim.
pub fn rewrite_md_links(html: &str) -> String {
    const ATTR: &str = "href=\"";
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find(ATTR) {
        let (head, tail) = rest.split_at(i + ATTR.len());
        out.push_str(head);
        let Some(end) = tail.find('"') else {
            rest = tail;
            break;
        };
        out.push_str(&rewrite_link(&tail[..end]));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn rewrite_link(value: &str) -> String {
    let split = value.find(['#', '?']).unwrap_or(value.len());
    let (path, suffix) = value.split_at(split);
    let has_scheme = path
        .split_once(':')
        .is_some_and(|(scheme, _)| !scheme.is_empty() && !scheme.contains('/'));
    if path.is_empty() || path.starts_with('/') || has_scheme {
        return value.to_string();
    }
    let lower = path.to_ascii_lowercase();
    let Some(ext) = [".md", ".markdown"]
        .into_iter()
        .find(|ext| lower.ends_with(ext))
    else {
        return value.to_string();
    };
    let stem = &path[..path.len() - ext.len()];
    let (dir, name) = stem.rsplit_once('/').unwrap_or(("", stem));
    let page = if name.eq_ignore_ascii_case("index") || name.eq_ignore_ascii_case("readme") {
        "index.html".to_string()
    } else {
        format!("{name}.html")
    };
    if dir.is_empty() {
        format!("{page}{suffix}")
    } else {
        format!("{dir}/{page}{suffix}")
    }
}

/// The relative prefix from a page file to the site root: `./` at the top, `../` one down.
fn root_prefix(file: &str) -> String {
    let depth = file.matches('/').count();
    if depth == 0 {
        "./".into()
    } else {
        "../".repeat(depth)
    }
}

/// Decodes `%XX` escapes (a URL path back to a file name); invalid escapes stay as they are.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| char::from(b).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The page file of a document: its URL without the base URL, `index.html` for a folder URL,
/// `.html` added when the last segment has no extension. A URL that is not under the base
/// URL, or that would leave the site folder, falls back to the source path with `.html`.
pub fn page_file(url: &str, base_url: &str, source_path: &str) -> String {
    let url = url.split(['#', '?']).next().unwrap_or("");
    let rel = url
        .strip_prefix(base_url)
        .or_else(|| url.strip_prefix('/'))
        .map(|r| percent_decode(r.trim_start_matches('/')));
    let fallback = || {
        let stem = source_path
            .strip_suffix(".md")
            .or_else(|| source_path.strip_suffix(".markdown"))
            .unwrap_or(source_path);
        format!("{stem}.html")
    };
    let Some(rel) = rel else { return fallback() };
    let safe = rel.split('/').enumerate().all(|(i, seg)| {
        let last = i == rel.split('/').count() - 1;
        seg != ".."
            && seg != "."
            && (last || !seg.is_empty())
            && !seg.contains('\\')
            && !seg.contains('\0')
    }) && !rel.contains("://");
    if !safe {
        return fallback();
    }
    if rel.is_empty() || rel.ends_with('/') {
        return format!("{rel}index.html");
    }
    let last = rel.rsplit('/').next().unwrap_or(&rel);
    if last.ends_with(".html") || last.ends_with(".htm") {
        rel
    } else {
        // "guide/intro" or "guide/v1.2" → ".html" appended (a dot alone is not an extension
        // we serve as a page).
        format!("{rel}.html")
    }
}

/// Copies the docs folder's images to the same relative paths under `out`.
fn copy_images(docs_root: &Path, out: &Path) -> Result<(usize, u64)> {
    const EXTS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "avif"];
    let out_abs = fs::canonicalize(out).ok();
    let mut n = 0;
    let mut bytes = 0;
    let walker = walkdir::WalkDir::new(docs_root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            let inside_out = out_abs
                .as_ref()
                .is_some_and(|o| fs::canonicalize(e.path()).is_ok_and(|p| p.starts_with(o)));
            e.depth() == 0 || !(name.starts_with('.') || name == "node_modules" || inside_out)
        });
    for entry in walker.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let ext = entry
            .path()
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !ext.is_some_and(|e| EXTS.contains(&e.as_str())) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(docs_root) else {
            continue;
        };
        let dst = out.join(rel);
        if let Some(parent) = dst.parent() {
            fs::create_dir_all(parent).map_err(CliError::io(parent))?;
        }
        let data = fs::read(entry.path()).map_err(CliError::io(entry.path()))?;
        bytes += data.len() as u64;
        write_atomic(&dst, &data)?;
        n += 1;
    }
    Ok((n, bytes))
}

/// Copies the widget beside an index in `search`: the keyword module (with every language's
/// stemmer when the pages need one), the full engine, and the semantic module when the
/// index ships a model (one with a static table needs none).
fn copy_widget(
    assets_dir: &Path,
    search: &Path,
    index_files: &[(String, Vec<u8>)],
    report: &mut SiteReport,
) -> Result<()> {
    let manifest = index_files
        .iter()
        .find(|(n, _)| n == ENTRY_FILE_NAME)
        .and_then(|(_, b)| Manifest::decode(b).ok());
    let languages = manifest.as_ref().is_some_and(assets::needs_languages);
    report.bytes += assets::copy_widget(assets_dir, search, languages)?;
    // A static table's leg runs in the keyword module: no semantic module to copy.
    if manifest
        .as_ref()
        .is_some_and(|m| m.file(FileKind::Table).is_some())
    {
        report.semantic = true;
    } else if manifest.is_some_and(|m| m.file(FileKind::Model).is_some()) {
        match assets::copy_semantic(assets_dir, search)? {
            Some(bytes) => {
                report.bytes += bytes;
                report.semantic = true;
            }
            None => report.notes.push(format!(
                "the index has vectors but {} has no semantic module: the site searches by keyword only \
                 (build it with scripts/build-wasm-embed.sh, then npm run build:widget)",
                assets_dir.display()
            )),
        }
    }
    Ok(())
}

/// Puts the widget beside an index written into a built site (`midashi dist`), so that the
/// site's pages need only `<script type="module" src="/search/midashi.js">` and
/// `<midashi-search index="/search/">`. Returns what to tell the user.
pub fn add_widget(
    search: &Path,
    index_files: &[(String, Vec<u8>)],
    assets: Option<&Path>,
) -> Result<Vec<String>> {
    let assets_dir = match assets {
        Some(dir) => dir.to_path_buf(),
        None => default_assets_dir()?,
    };
    assets::check(&assets_dir)?;
    let mut report = SiteReport::default();
    copy_widget(&assets_dir, search, index_files, &mut report)?;
    let mut notes = report.notes;
    notes.push(format!(
        "widget: {} ({} search), {:.1} MB",
        search.join("midashi.js").display(),
        if report.semantic { "hybrid" } else { "keyword" },
        report.bytes as f64 / 1e6
    ));
    Ok(notes)
}

/// The site's home page: `index.md`/`README.md` (or a built site's `index.html`) at the top.
pub fn home(docs: &[Document]) -> Option<&Document> {
    docs.iter()
        .find(|d| !d.path.contains('/') && sidebar::is_index(&d.path))
}

/// The site's name: its home page's title, else its folder's name (unless that is a generic
/// `docs`/`src`/`dist`), else "Documentation".
pub fn site_title(input: &Path, docs: &[Document]) -> String {
    home(docs)
        .map(|d| d.title.trim().to_string())
        .filter(|t| !t.is_empty())
        .or_else(|| {
            fs::canonicalize(input)
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .filter(|n| {
                    !n.is_empty()
                        && !matches!(
                            n.as_str(),
                            "docs" | "src" | "dist" | "build" | "site" | "public"
                        )
                })
        })
        .unwrap_or_else(|| "Documentation".into())
}

/// Each document's page file, as [`write_site`] writes them (a document wanting a taken file
/// has no page).
pub fn pages<'a>(docs: &'a [Document], base_url: &str) -> Vec<crate::llms::Page<'a>> {
    let mut taken = BTreeSet::new();
    docs.iter()
        .filter_map(|doc| {
            let file = page_file(&doc.url, base_url, &doc.path);
            taken
                .insert(file.clone())
                .then_some(crate::llms::Page { doc, file })
        })
        .collect()
}

/// What `--site` renders with: the output folder, the widget's built files (default
/// web/dist) and how pages link (slug style, base URL), as the build command was given them.
pub struct SiteArgs<'a> {
    /// Where the site is written (the index is in its `search/`).
    pub out: &'a Path,
    /// The output folder as the user named it, for the report (the site is written aside
    /// and moved there when complete).
    pub shown_out: &'a Path,
    /// The widget's built files (`bundle/` and `wasm/`).
    pub assets: Option<&'a Path>,
    /// Anchor style of headings.
    pub slug: midashi_markdown::SlugStyle,
    /// URL prefix of the pages.
    pub base_url: &'a str,
    /// The site's language (`--lang`); `None`: found from the docs ([`site_lang`]).
    pub lang: Option<&'a str>,
}

/// `build-index <docs> --out <dir> --site`: the site around an index just written to
/// `<dir>/search/` (called by the build command), with a short report.
pub fn build_site(
    input: &Path,
    args: &SiteArgs<'_>,
    docs: &[Document],
    index_files: &[(String, Vec<u8>)],
    inline_files: Option<&[(String, Vec<u8>)]>,
) -> Result<()> {
    if !input.is_dir() {
        return Err(CliError::Usage(
            "--site needs a folder of Markdown, not a records file".into(),
        ));
    }
    let assets_dir = match args.assets {
        Some(dir) => dir.to_path_buf(),
        None => default_assets_dir()?,
    };
    let title = site_title(input, docs);
    let options = SiteOptions {
        markdown: midashi_markdown::Options {
            slug: args.slug,
            base_url: args.base_url.to_string(),
            ..midashi_markdown::Options::default()
        },
        lang: site_lang(docs, args.lang),
        title,
        docs_root: Some(input.to_path_buf()),
    };
    let report = write_site(
        args.out,
        docs,
        index_files,
        inline_files,
        &assets_dir,
        &options,
    )?;
    println!(
        // Any static server will do; scripts/serve.mjs is only in a checkout, not in the npm
        // package this also runs from.
        "Site: {} pages, {} images, {:.1} MB in {} (open index.html, or serve the folder over HTTP, e.g. `python3 -m http.server -d {}`)",
        report.pages,
        report.images,
        report.bytes as f64 / 1e6,
        args.shown_out.display(),
        args.shown_out.display()
    );
    println!(
        "  search: {}",
        if report.semantic {
            "keyword + semantic (hybrid for a question once its files have loaded)"
        } else {
            "keyword"
        }
    );
    for s in &report.skipped {
        println!("  skipped {s}");
    }
    for n in &report.notes {
        println!("  note: {n}");
    }
    Ok(())
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
