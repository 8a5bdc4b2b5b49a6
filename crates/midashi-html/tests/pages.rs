//! Pages shaped as the generators write them: the content region, the anchors, what is left
//! out, the Markdown-like text and its line numbers.

use midashi_html::{parse_page, Options, Outcome};

fn page(path: &str, html: &str) -> midashi_core::section::Document {
    match parse_page(path, html, &Options::default()) {
        Outcome::Page(doc, _) => doc,
        Outcome::Skipped(why) => panic!("{path} skipped: {why}"),
    }
}

fn skipped(html: &str) -> String {
    match parse_page("x.html", html, &Options::default()) {
        Outcome::Page(doc, _) => panic!("indexed: {doc:?}"),
        Outcome::Skipped(why) => why,
    }
}

const VITEPRESS: &str = r##"<!DOCTYPE html><html lang="en-US" dir="ltr"><head><title>Computed Properties | Vue.js</title>
<meta name="description" content="Derived state"></head><body><div id="app"><header class="VPNav"><a class="title">Vue.js</a><nav><a href="/guide/">Guide</a> Sidebar words</nav></header>
<aside class="VPSidebar"><nav><a href="/x">Sidebar link text</a></nav></aside>
<div class="VPContent"><div class="VPDoc"><div class="aside"><nav class="VPDocAsideOutline">On this page Outline words</nav></div>
<main class="main"><div class="vp-doc"><div><h1 id="computed-properties" tabindex="-1">Computed Properties <a class="header-anchor" href="#computed-properties" aria-label="Permalink to &quot;Computed Properties&quot;">&#8203;</a></h1>
<p>In-template expressions are <strong>very</strong> convenient.</p>
<h2 id="basic-example" tabindex="-1">Basic Example <a class="header-anchor" href="#basic-example">&#8203;</a></h2>
<p>Here we have an <code>author</code> object:</p>
<div class="language-js vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">js</span><pre class="shiki"><code><span class="line"><span>const author = reactive({</span></span>
<span class="line"><span>  name: 'John Doe'</span></span>
<span class="line"><span>})</span></span></code></pre></div>
<ul><li>First point</li><li>Second <em>point</em><ul><li>Nested</li></ul></li></ul>
<h3 id="computed-caching-vs-methods" tabindex="-1">Computed Caching vs. Methods</h3>
<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>
<h2 id="writable-computed">Writable Computed</h2><p>Getters only by default.</p>
</div></div></main><footer class="VPDocFooter">Edit this page on GitHub Previous page</footer></div></div></div></body></html>"##;

#[test]
fn vitepress_page_keeps_its_content_and_leaves_the_theme_out() {
    let doc = page("guide/essentials/computed.html", VITEPRESS);
    assert_eq!(doc.url, "/guide/essentials/computed.html");
    assert_eq!(doc.title, "Computed Properties");
    let anchors: Vec<_> = doc
        .sections
        .iter()
        .map(|s| {
            (
                s.depth,
                s.anchor.clone().unwrap_or_default(),
                s.heading.clone(),
            )
        })
        .collect();
    assert_eq!(
        anchors,
        vec![
            (0, String::new(), "Computed Properties".into()),
            (
                1,
                "computed-properties".into(),
                "Computed Properties".into()
            ),
            (2, "basic-example".into(), "Basic Example".into()),
            (
                3,
                "computed-caching-vs-methods".into(),
                "Computed Caching vs. Methods".into()
            ),
            (2, "writable-computed".into(), "Writable Computed".into()),
        ]
    );
    let all: String = doc
        .sections
        .iter()
        .map(|s| format!("{} {} {}\n", s.heading, s.text, s.code))
        .collect();
    for theme in [
        "Sidebar",
        "Outline",
        "Edit this page",
        "Copy Code",
        "Vue.js",
    ] {
        assert!(!all.contains(theme), "{theme:?} leaked into {all}");
    }
    let basic = &doc.sections[2];
    assert!(
        basic.text.contains("Here we have an author object:"),
        "{basic:?}"
    );
    assert!(basic.text.contains("First point"));
    assert!(basic.code.contains("name: 'John Doe'"));
    assert!(
        !basic.text.lines().any(|l| l.trim() == "js"),
        "{}",
        basic.text
    );
    let lines: Vec<&str> = doc.source.lines().collect();
    // Lines are 1-based lines of the Markdown-like text.
    assert_eq!(lines[basic.start_line as usize - 1], "## Basic Example");
    let quoted = lines[basic.start_line as usize - 1..basic.end_line as usize].join("\n");
    assert!(
        quoted.contains("Here we have an `author` object:"),
        "{quoted}"
    );
    assert!(
        quoted.contains("```js\nconst author = reactive({\n  name: 'John Doe'\n})\n```"),
        "{quoted}"
    );
    assert!(
        quoted.contains("- First point\n- Second point\n  - Nested"),
        "{quoted}"
    );
    assert!(quoted.contains("| A | B |\n| 1 | 2 |"), "{quoted}");
    assert!(!quoted.contains("Writable"), "{quoted}");
    assert_eq!(doc.sections[1].hints.lang.as_deref(), Some("en-US"));
    assert_eq!(
        doc.sections[1].hints.description.as_deref(),
        Some("Derived state")
    );
    assert_eq!(doc.sections[1].hints.category.as_deref(), Some("guide"));
}

#[test]
fn docusaurus_article_is_preferred_over_its_table_of_contents() {
    let html = r##"<html lang="ja"><head><title>はじめに | My Site</title></head><body>
<nav class="navbar">Navbar</nav><div class="main-wrapper"><main class="docMainContainer"><div class="row"><div class="col">
<article><nav class="theme-doc-breadcrumbs">Breadcrumbs</nav><div class="theme-doc-markdown markdown"><header><h1>はじめに</h1></header>
<p>これは説明です。</p><h2 class="anchor" id="インストール">インストール<a href="#インストール" class="hash-link" aria-label="Direct link to インストール" title="Direct link to インストール">&#8203;</a></h2>
<p>npm で入れます。</p></div><footer class="theme-doc-footer">Edit this page</footer></article>
<nav class="pagination-nav">Next Page</nav></div><div class="col col--3"><div class="tableOfContents"><ul><li><a href="#インストール">TOC entry</a></li></ul></div></div></div></main></div></body></html>"##;
    let doc = page("docs/intro/index.html", html);
    assert_eq!(doc.url, "/docs/intro/");
    assert_eq!(doc.title, "はじめに");
    let install = doc
        .sections
        .iter()
        .find(|s| s.heading == "インストール")
        .unwrap();
    assert_eq!(install.anchor.as_deref(), Some("インストール"));
    assert_eq!(install.text, "npm で入れます。");
    assert_eq!(install.hints.lang.as_deref(), Some("ja"));
    assert!(!doc.source.contains("TOC entry") && !doc.source.contains("Breadcrumbs"));
}

#[test]
fn starlight_and_mdbook_headings() {
    // Starlight: the permalink sits beside the heading, with screen-reader text.
    let html = r##"<html lang="en"><body><main><div class="content-panel"><h1 id="_top">Getting Started</h1></div>
<div class="sl-markdown-content"><div class="sl-heading-wrapper level-h2"><h2 id="configure">Configure</h2><a class="sl-anchor-link" href="#configure"><span aria-hidden="true"><svg></svg></span><span class="sr-only">Section titled “Configure”</span></a></div>
<p>Edit the config.</p><figure class="frame"><pre data-language="sh"><code><div class="ec-line"><div class="code">npm i</div></div><div class="ec-line"><div class="code">npm run dev</div></div></code></pre></figure></div></main></body></html>"##;
    let doc = page("guides/start/index.html", html);
    let configure = doc
        .sections
        .iter()
        .find(|s| s.heading == "Configure")
        .unwrap();
    assert_eq!(configure.text, "Edit the config.");
    assert_eq!(configure.code, "npm i\nnpm run dev");
    assert!(
        doc.source.contains("```sh\nnpm i\nnpm run dev\n```"),
        "{}",
        doc.source
    );

    // mdBook: the whole heading is its own permalink.
    let html = r##"<html lang="en"><body><nav id="sidebar">Chapter list</nav><div id="content"><main>
<h1 id="hello-world"><a class="header" href="#hello-world">Hello, World!</a></h1><p>Now that you’ve installed Rust.</p>
<h2 id="anatomy"><a class="header" href="#anatomy">Anatomy of a Rust Program</a></h2><p>Let’s review.</p></main>
<nav class="nav-wrapper">Previous chapter</nav></div></body></html>"##;
    let doc = page("ch01-02-hello-world.html", html);
    assert_eq!(doc.url, "/ch01-02-hello-world.html");
    let headings: Vec<_> = doc.sections.iter().map(|s| s.heading.as_str()).collect();
    assert_eq!(
        headings,
        [
            "Hello, World!",
            "Hello, World!",
            "Anatomy of a Rust Program"
        ]
    );
    assert!(!doc.source.contains("Chapter list") && !doc.source.contains("Previous chapter"));
}

#[test]
fn controls_skip_pages_and_regions() {
    assert!(
        skipped(r#"<html data-midashi-ignore><body><p>x</p></body></html>"#).contains("<html>")
    );
    assert!(
        skipped(r#"<html><body data-midashi-ignore><p>x</p></body></html>"#).contains("<body>")
    );
    assert!(skipped(
        r#"<html><head><meta name="robots" content="noindex"></head><body><p>x</p></body></html>"#
    )
    .contains("noindex"));
    assert!(skipped(r#"<html><head><meta http-equiv="refresh" content="0; url=/x"></head><body>Redirecting</body></html>"#).contains("redirect"));
    assert!(skipped("<html><body><nav>only nav</nav></body></html>").contains("no text"));
    // The "page not found" page every generator writes: left out unless asked for.
    let not_found = "<html><head><title>404</title></head><body><main><h1>Page not found</h1><p>Try the search.</p></main></body></html>";
    for path in ["404.html", "404/index.html", "ja/404.html"] {
        assert!(
            matches!(parse_page(path, not_found, &Options::default()), Outcome::Skipped(w) if w.contains("not found")),
            "{path}"
        );
        let keep = Options {
            keep_error_pages: true,
            ..Options::default()
        };
        assert!(
            matches!(parse_page(path, not_found, &keep), Outcome::Page(..)),
            "{path}"
        );
    }
    for path in [
        "guide/404-errors.html",
        "http/status-404/index.html",
        "a404.html",
    ] {
        assert!(!midashi_html::is_error_page(path), "{path}");
    }

    let html = r#"<html><head><meta name="midashi:tags" content="a, b"></head><body><div class="theme">Theme text</div>
<div data-midashi-body><h2>No Id Here</h2><p>Kept. <span data-midashi-ignore>Dropped.</span></p>
<span data-midashi-filter="category:Reference"></span></div></body></html>"#;
    let (doc, warnings) = match parse_page("ref.html", html, &Options::default()) {
        Outcome::Page(d, w) => (d, w),
        Outcome::Skipped(w) => panic!("{w}"),
    };
    assert!(!doc.source.contains("Theme text") && !doc.source.contains("Dropped"));
    let s = doc.sections.iter().find(|s| s.depth == 2).unwrap();
    assert_eq!(s.anchor.as_deref(), Some(":~:text=No%20Id%20Here"));
    assert!(warnings.iter().any(|w| w.message.contains("has no id")));
    assert_eq!(s.hints.tags, ["a", "b"]);
    assert_eq!(s.hints.category.as_deref(), Some("Reference"));
}

#[test]
fn hostile_pages_do_not_panic() {
    let deep = "<div>".repeat(5_000) + "deep text" + &"</div>".repeat(5_000);
    let doc = page(
        "deep.html",
        &format!("<html><body><main>{deep}</main></body></html>"),
    );
    assert!(doc.sections[0].text.contains("deep text"));
    for html in [
        "",
        "<",
        "<html",
        "<h1></h1>",
        "<main><pre></pre></main>",
        "\u{0}\u{FFFF}<p>x",
    ] {
        let _ = parse_page("x.html", html, &Options::default());
    }
}
