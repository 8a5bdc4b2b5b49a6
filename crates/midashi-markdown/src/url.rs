//! Page URLs: where the site generator serves a Markdown file.

use crate::{Options, SlugStyle};

/// The URL of the page built from `path` (relative to the docs root), without anchor.
///
/// `guide/intro.md` → `{base}guide/intro.html`; `index.md` and `README.md` → their folder
/// (`guide/`), except for mdBook, which serves them as `guide/index.html`.
pub fn page_url(path: &str, opts: &Options) -> String {
    let mut url = opts.base_url.trim().to_string();
    if !url.ends_with('/') {
        url.push('/');
    }
    let path = path.replace('\\', "/");
    let path = path.trim_start_matches("./").trim_start_matches('/');
    let (dir, file) = match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => ("", path),
    };
    let stem = strip_extension(file);
    let is_index = stem.eq_ignore_ascii_case("index") || stem.eq_ignore_ascii_case("readme");
    push_encoded(&mut url, dir);
    match (is_index, opts.slug) {
        (true, SlugStyle::Mdbook) => url.push_str("index.html"),
        (true, _) => {}
        (false, _) => {
            push_encoded(&mut url, stem);
            url.push_str(".html");
        }
    }
    url
}

fn strip_extension(file: &str) -> &str {
    for ext in [".md", ".markdown", ".mdx"] {
        if file.len() > ext.len() && file[file.len() - ext.len()..].eq_ignore_ascii_case(ext) {
            // The extension is ASCII, so this is a char boundary.
            return &file[..file.len() - ext.len()];
        }
    }
    file
}

/// Percent-encodes the few characters that would break a URL path; other non-ASCII text is
/// left as is (browsers accept IRIs and show them readably). Shared with the HTML reader,
/// whose page URLs come from file paths too.
pub fn push_encoded(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            ' ' | '"' | '#' | '%' | '<' | '>' | '?' | '`' | '{' | '}' => {
                out.push_str(&format!("%{:02X}", c as u32));
            }
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(style: SlugStyle, base: &str) -> Options {
        Options {
            slug: style,
            base_url: base.into(),
            ..Options::default()
        }
    }

    #[test]
    fn pages_folders_and_readmes() {
        let o = opts(SlugStyle::Vitepress, "/");
        assert_eq!(page_url("guide/intro.md", &o), "/guide/intro.html");
        assert_eq!(page_url("guide/index.md", &o), "/guide/");
        assert_eq!(page_url("index.md", &o), "/");
        assert_eq!(page_url("guide/README.md", &o), "/guide/");
        let o = opts(SlugStyle::Github, "/docs");
        assert_eq!(page_url("a b/c#d.md", &o), "/docs/a%20b/c%23d.html");
        assert_eq!(page_url("./ja/ガイド.md", &o), "/docs/ja/ガイド.html");
        let o = opts(SlugStyle::Mdbook, "/book/");
        assert_eq!(page_url("README.md", &o), "/book/index.html");
        assert_eq!(page_url("ch01/README.md", &o), "/book/ch01/index.html");
        assert_eq!(page_url("ch01-00.md", &o), "/book/ch01-00.html");
        assert_eq!(
            page_url("7.4\\Module\\Get-Item.md", &o),
            "/book/7.4/Module/Get-Item.html"
        );
    }
}
