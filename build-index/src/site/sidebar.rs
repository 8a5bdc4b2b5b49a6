//! The sidebar: the docs folder as a tree of links. Folders are headings (the title of their
//! `index.md`/`README.md` when they have one, else the folder name), pages are links labelled
//! with their document titles. Every label is escaped; every href is percent-encoded.

use super::escape::{html, url_path};
use std::collections::BTreeMap;

/// One page of the site, as the sidebar needs it.
#[derive(Debug, Clone)]
pub struct PageEntry {
    /// Output file, relative to the site root (`guide/intro.html`).
    pub file: String,
    /// Source path, relative to the docs root (`guide/intro.md`).
    pub source: String,
    /// Document title.
    pub title: String,
}

#[derive(Default)]
struct Folder<'a> {
    /// Index pages (`index.md`, `README.md`) first, then the rest, each in path order.
    pages: Vec<&'a PageEntry>,
    folders: BTreeMap<String, Folder<'a>>,
}

/// Whether a document is its folder's index page (`index.md`, `README.md`, a built site's
/// `index.html`).
pub fn is_index(source: &str) -> bool {
    let name = source
        .rsplit('/')
        .next()
        .unwrap_or(source)
        .to_ascii_lowercase();
    matches!(
        name.as_str(),
        "index.md"
            | "readme.md"
            | "index.markdown"
            | "readme.markdown"
            | "index.html"
            | "index.htm"
    )
}

/// The folder tree of `pages`.
fn tree(pages: &[PageEntry]) -> Folder<'_> {
    let mut root = Folder::default();
    for p in pages {
        let mut node = &mut root;
        let parts: Vec<&str> = p.source.split('/').collect();
        for dir in &parts[..parts.len().saturating_sub(1)] {
            node = node.folders.entry((*dir).to_string()).or_default();
        }
        node.pages.push(p);
    }
    fn sort(f: &mut Folder<'_>) {
        f.pages.sort_by(|a, b| {
            is_index(&b.source)
                .cmp(&is_index(&a.source))
                .then(a.source.cmp(&b.source))
        });
        f.folders.values_mut().for_each(sort);
    }
    sort(&mut root);
    root
}

/// The pages in the sidebar's order (a folder's index page, its other pages, then its
/// subfolders, each by path), each with the title of its top-level folder (`None` at the root):
/// the order `llms.txt` and `llms-full.txt` list pages in.
pub fn reading_order(pages: &[PageEntry]) -> Vec<(&PageEntry, Option<String>)> {
    fn walk<'a>(f: &Folder<'a>, top: Option<&str>, out: &mut Vec<(&'a PageEntry, Option<String>)>) {
        for p in &f.pages {
            out.push((p, top.map(str::to_string)));
        }
        for (name, sub) in &f.folders {
            let label = top
                .map(str::to_string)
                .unwrap_or_else(|| folder_label(sub, name).to_string());
            walk(sub, Some(&label), out);
        }
    }
    let t = tree(pages);
    let mut out = Vec::new();
    walk(&t, None, &mut out);
    out
}

/// A folder's name for people: its index page's title, else its folder name.
fn folder_label<'a>(sub: &Folder<'a>, name: &'a str) -> &'a str {
    sub.pages
        .first()
        .filter(|p| is_index(&p.source))
        .map(|p| p.title.as_str())
        .unwrap_or(name)
}

/// The sidebar's HTML for the page `current` (output file), whose links go through `root`
/// (the relative prefix from that page to the site root, e.g. `../`).
pub fn render(pages: &[PageEntry], current: Option<&str>, root: &str) -> String {
    let t = tree(pages);
    let mut out = String::new();
    render_folder(&t, current, root, &mut out, 0);
    out
}

fn render_folder(
    f: &Folder<'_>,
    current: Option<&str>,
    root: &str,
    out: &mut String,
    depth: usize,
) {
    out.push_str(if depth == 0 {
        "<ul class=\"nav\">"
    } else {
        "<ul>"
    });
    for p in &f.pages {
        let here = current == Some(p.file.as_str());
        out.push_str(&format!(
            "<li><a href=\"{}{}\"{}>{}</a></li>",
            html(root),
            html(&url_path(&p.file)),
            if here { " aria-current=\"page\"" } else { "" },
            html(&p.title)
        ));
    }
    for (name, sub) in &f.folders {
        // A folder's own index page names it (and is its first link).
        let label = folder_label(sub, name);
        let open = current.is_some_and(|c| sub_contains(sub, c));
        out.push_str(&format!(
            "<li class=\"folder\"><details{}><summary>{}</summary>",
            if open || depth == 0 { " open" } else { "" },
            html(label)
        ));
        render_folder(sub, current, root, out, depth + 1);
        out.push_str("</details></li>");
    }
    out.push_str("</ul>");
}

fn sub_contains(f: &Folder<'_>, file: &str) -> bool {
    f.pages.iter().any(|p| p.file == file) || f.folders.values().any(|s| sub_contains(s, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(source: &str, title: &str) -> PageEntry {
        PageEntry {
            file: source.replace(".md", ".html"),
            source: source.into(),
            title: title.into(),
        }
    }

    #[test]
    fn folders_nest_index_pages_come_first_and_labels_are_escaped() {
        let pages = vec![
            page("cli/search.md", "search"),
            page("cli/index.md", "The <CLI>"),
            page("index.md", "Home"),
            page("ja/index.md", "日本語"),
        ];
        let html = render(&pages, Some("cli/search.html"), "../");
        assert!(html.starts_with("<ul class=\"nav\"><li><a href=\"../index.html\">Home</a></li>"));
        assert!(html.contains("<summary>The &lt;CLI&gt;</summary><ul><li><a href=\"../cli/index.html\">The &lt;CLI&gt;</a>"));
        assert!(html.contains("href=\"../cli/search.html\" aria-current=\"page\">search</a>"));
        assert!(html.contains("<summary>日本語</summary>"));
        assert!(!html.contains("<CLI>"));
    }
}
