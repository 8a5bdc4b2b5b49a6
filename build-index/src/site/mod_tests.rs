//! Tests of the site's pages: file names, links and what each page holds.

use super::*;

#[test]
fn page_files_follow_the_urls() {
    assert_eq!(
        page_file("/guide/intro", "/", "guide/intro.md"),
        "guide/intro.html"
    );
    assert_eq!(
        page_file("/guide/intro.html#x", "/", "guide/intro.md"),
        "guide/intro.html"
    );
    assert_eq!(
        page_file("/guide/", "/", "guide/index.md"),
        "guide/index.html"
    );
    assert_eq!(page_file("/", "/", "index.md"), "index.html");
    assert_eq!(page_file("/docs/a/b", "/docs/", "a/b.md"), "a/b.html");
    assert_eq!(page_file("/ja/%E3%81%AF", "/", "ja/は.md"), "ja/は.html");
    assert_eq!(page_file("/v1.2", "/", "v1.2.md"), "v1.2.html");
}

#[test]
fn page_files_never_leave_the_site() {
    assert_eq!(page_file("/../../etc/passwd", "/", "x.md"), "x.html");
    assert_eq!(page_file("https://evil.invalid/x", "/", "x.md"), "x.html");
    assert_eq!(page_file("/a//b", "/", "a/b.md"), "a/b.html");
}

#[test]
fn markdown_links_point_at_pages() {
    let html = r##"<a href="cli/search.md#json">a</a> <a href="../ja/README.md">b</a> <a href="https://x.invalid/a.md">c</a> <a href="/abs.md">d</a> <a href="#top">e</a> <a href="img.png">f</a>"##;
    assert_eq!(
        rewrite_md_links(html),
        r##"<a href="cli/search.html#json">a</a> <a href="../ja/index.html">b</a> <a href="https://x.invalid/a.md">c</a> <a href="/abs.md">d</a> <a href="#top">e</a> <a href="img.png">f</a>"##
    );
}

#[test]
fn root_prefixes() {
    assert_eq!(root_prefix("index.html"), "./");
    assert_eq!(root_prefix("a/b.html"), "../");
    assert_eq!(root_prefix("a/b/c.html"), "../../");
}
