//! The page HTML: heading ids are the index's anchors, containers are rendered, and hostile
//! Markdown cannot inject markup, scripts or dangerous URLs.

use midashi_markdown::{parse_document, render_html, Options, SlugStyle};

fn render(src: &str, style: SlugStyle) -> (String, Vec<String>) {
    let opts = Options {
        slug: style,
        ..Options::default()
    };
    let (doc, _) = parse_document("page.md", src, &opts);
    let anchors = doc
        .sections
        .iter()
        .filter_map(|s| s.anchor.clone())
        .collect();
    (render_html(src, &doc, &opts), anchors)
}

/// Every tag in `html`: (name, [(attribute, value)]).
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("tags are closed");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        let tag = tag.trim_start_matches('/').trim_end_matches('/');
        let (name, mut attrs_src) = tag.split_once(' ').unwrap_or((tag, ""));
        let mut attrs = Vec::new();
        while let Some(eq) = attrs_src.find("=\"") {
            let attr = attrs_src[..eq].trim().to_string();
            let after = &attrs_src[eq + 2..];
            let close = after.find('"').expect("quoted attribute");
            attrs.push((attr, after[..close].to_string()));
            attrs_src = &after[close + 1..];
        }
        assert!(attrs_src.trim().is_empty(), "unquoted attribute in <{tag}>");
        out.push((name.to_ascii_lowercase(), attrs));
    }
    out
}

const ALLOWED: &[&str] = &[
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "a",
    "img",
    "em",
    "strong",
    "del",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
    "div",
    "details",
    "summary",
    "sup",
    "section",
    "input",
];

fn assert_safe(html: &str) {
    for (name, attrs) in tags(html) {
        assert!(ALLOWED.contains(&name.as_str()), "tag <{name}> in:\n{html}");
        for (attr, value) in attrs {
            assert!(!attr.starts_with("on"), "<{name} {attr}> in:\n{html}");
            assert!(
                [
                    "id", "class", "href", "src", "alt", "title", "type", "disabled", "checked",
                    "start", "style"
                ]
                .contains(&attr.as_str()),
                "<{name} {attr}> in:\n{html}"
            );
            if attr == "href" || attr == "src" {
                let v: String = value
                    .to_ascii_lowercase()
                    .chars()
                    .filter(|c| !c.is_whitespace() && !c.is_control())
                    .collect();
                assert!(
                    !["javascript:", "data:", "vbscript:"]
                        .iter()
                        .any(|p| v.starts_with(p)),
                    "<{name} {attr}={value:?}>"
                );
            }
        }
    }
}

#[test]
fn hostile_markdown_renders_inert() {
    let src = r#"---
title: "<script>alert('fm')</script>"
---
# Title <script>alert(1)</script> {#safe onclick=alert(1) .x}

## <img src=x onerror=alert(2)> in a heading

Text <img src=x onerror=alert(3)> and <a href="javascript:alert(4)">raw link</a>.

<script>
alert(5)
</script>

<div onmouseover="alert(6)">block</div>

[click](javascript:alert(7)) [mixed]( JaVaScRiPt:alert(8) ) [tab](java	script:alert(9))
![img](data:image/svg+xml;base64,PHN2Zz4=) ![ok](pic.png "t\"itle")
<javascript:alert(10)> <https://ok.example/>

[ref]: javascript:alert(11)
See [ref].

::: tip <img src=x onerror=alert(12)>
inside
:::
:::

```html
<script>alert(13)</script>
```
"#;
    let (html, anchors) = render(src, SlugStyle::Github);
    assert_safe(&html);
    assert!(!html.contains("alert('fm')"), "frontmatter is not rendered");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(
        html.contains("&lt;img src=x onerror=alert(3)&gt;"),
        "{html}"
    );
    assert!(html.contains("alert(5)"), "script text shown as text");
    assert!(html.contains("<a href=\"https://ok.example/\">"), "{html}");
    assert!(html.contains("<img src=\"pic.png\""), "{html}");
    assert!(html.contains("<div class=\"custom-block tip\">"), "{html}");
    assert!(
        html.contains("<p class=\"custom-block-title\">&lt;img src=x onerror=alert(12)&gt;</p>"),
        "{html}"
    );
    // Ids are the anchors of the index.
    let ids: Vec<String> = tags(&html)
        .into_iter()
        .filter(|(n, _)| n.starts_with('h') && n.len() == 2)
        .filter_map(|(_, a)| a.into_iter().find(|(k, _)| k == "id").map(|(_, v)| v))
        .collect();
    assert_eq!(ids, anchors);
    assert_eq!(ids[0], "safe");
    // Balanced containers despite the stray closing line.
    assert_eq!(html.matches("<div").count(), html.matches("</div>").count());
}

#[test]
fn ids_containers_and_structure() {
    let src = "# Intro\n\n## Setup\n\n## Setup\n\n:::details More\nhidden\n:::\n\n::: warning\nwarn\n:::\n";
    let (html, anchors) = render(src, SlugStyle::Vitepress);
    assert_eq!(anchors, ["intro", "setup", "setup-1"]);
    assert!(html.starts_with("<h1 id=\"intro\">Intro</h1>\n"), "{html}");
    assert!(html.contains("<h2 id=\"setup-1\">Setup</h2>"), "{html}");
    assert!(html.contains(
        "<details class=\"custom-block details\"><summary>More</summary>\n<p>hidden</p>\n</details>"
    ), "{html}");
    assert!(
        html.contains("<div class=\"custom-block warning\">\n<p>warn</p>\n</div>"),
        "{html}"
    );
    assert!(!html.contains(":::"));
}

#[test]
fn stale_documents_are_reparsed_for_ids() {
    let opts = Options::default();
    let (old, _) = parse_document("p.md", "# A\n\n## B\n", &opts);
    let html = render_html("# A\n\nnew\n\n## C\n\n## B\n", &old, &opts);
    assert!(
        html.contains("<h2 id=\"c\">C</h2>") && html.contains("<h2 id=\"b\">B</h2>"),
        "{html}"
    );
}

#[test]
fn real_pages_render_with_their_anchors() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora");
    if !root.is_dir() {
        println!("NOTICE: {} not found: skipped", root.display());
        return;
    }
    for (rel, style) in [
        (
            "vue-docs-ja/guide/essentials/computed.md",
            SlugStyle::Vitepress,
        ),
        (
            "vue-docs-en/guide/reusability/custom-directives.md",
            SlugStyle::Vitepress,
        ),
        ("rust-book/ch06-02-match.md", SlugStyle::Mdbook),
        (
            "powershell-docs/7.4/Microsoft.PowerShell.Core/About/about_If.md",
            SlugStyle::Github,
        ),
    ] {
        let Ok(src) = std::fs::read_to_string(root.join(rel)) else {
            println!("NOTICE: {rel} missing: skipped");
            continue;
        };
        let (html, anchors) = render(&src, style);
        assert_safe(&html);
        for a in &anchors {
            assert!(html.contains(&format!(" id=\"{a}\">")), "{rel}: #{a}");
        }
    }
}
