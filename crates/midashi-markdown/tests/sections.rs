//! The section model on small, hand-written documents: structure, lines, text, anchors,
//! hints and warnings.

use midashi_core::section::{Document, Section, SectionId, Warning};
use midashi_markdown::{parse_document, Options, SlugStyle};

fn parse_with(path: &str, src: &str, style: SlugStyle) -> (Document, Vec<Warning>) {
    let opts = Options {
        slug: style,
        ..Options::default()
    };
    parse_document(path, src, &opts)
}

fn parse(src: &str) -> Document {
    parse_with("guide/page.md", src, SlugStyle::Github).0
}

fn by_heading<'a>(doc: &'a Document, heading: &str) -> &'a Section {
    doc.sections
        .iter()
        .find(|s| s.depth > 0 && s.heading == heading)
        .unwrap_or_else(|| panic!("no section {heading:?}"))
}

#[test]
fn tree_order_numbers_and_breadcrumbs() {
    let src = "\
Intro text.

# Guide

Welcome.

## Install

### From source

#### Deep

## Use

### Skipped level?

# Appendix
";
    let doc = parse(src);
    let s = &doc.sections;
    assert_eq!(doc.title, "Guide");
    let got: Vec<(u8, &str, u32, u32)> = s
        .iter()
        .map(|s| (s.depth, s.heading.as_str(), s.order, s.section_number))
        .collect();
    assert_eq!(
        got,
        [
            (0, "Guide", 0, 1),
            (1, "Guide", 1, 1),
            (2, "Install", 2, 1),
            (3, "From source", 3, 1),
            (4, "Deep", 4, 1),
            (2, "Use", 5, 2),
            (3, "Skipped level?", 6, 1),
            (1, "Appendix", 7, 2),
        ]
    );
    assert_eq!(s[0].parent, None);
    assert_eq!(s[1].parent, Some(s[0].id));
    assert_eq!(s[4].parent, Some(s[3].id));
    assert_eq!(s[5].parent, Some(s[1].id));
    assert_eq!(s[7].parent, Some(s[0].id));
    // The first H1 is the title: not repeated in breadcrumbs.
    assert_eq!(s[1].heading_path, ["Guide"]);
    assert_eq!(
        s[4].heading_path,
        ["Guide", "Install", "From source", "Deep"]
    );
    assert_eq!(s[7].heading_path, ["Guide", "Appendix"]);
    assert_eq!(s[0].heading_path, ["Guide"]);
    assert_eq!(s[0].text, "Intro text.");
    assert_eq!(s[1].text, "Welcome.");
    assert_eq!(s[0].anchor, None);
    assert_eq!(s[2].anchor.as_deref(), Some("install"));
}

#[test]
fn skipped_levels_hang_under_the_nearest_shallower_heading() {
    let doc = parse("# A\n\n### C\n\n## B\n\n###### F\n");
    let s = &doc.sections;
    assert_eq!(s[2].parent, Some(s[1].id)); // H3 under H1
    assert_eq!(s[3].parent, Some(s[1].id)); // H2 under H1, a sibling of the H3
    assert_eq!((s[2].section_number, s[3].section_number), (1, 1)); // counted per depth
    assert_eq!(s[4].parent, Some(s[3].id));
}

#[test]
fn ids_follow_paths_and_occurrences_not_content() {
    let a = parse("# T\n\n## Setup\n\none\n\n## Setup\n\ntwo\n");
    let b = parse("# T\n\nnew intro\n\n## Setup\n\nchanged\n\n## Setup\n\nalso changed\n");
    let ids = |d: &Document| d.sections.iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(&a), ids(&b));
    let s = &a.sections;
    assert_eq!(s[0].id, SectionId::new("guide/page.md", &[], 0));
    assert_eq!(s[1].id, SectionId::new("guide/page.md", &["T".into()], 0));
    let setup = vec!["T".to_string(), "Setup".to_string()];
    assert_eq!(s[2].id, SectionId::new("guide/page.md", &setup, 0));
    assert_eq!(s[3].id, SectionId::new("guide/page.md", &setup, 1));
    assert_eq!(s[3].anchor.as_deref(), Some("setup-1"));
    assert_ne!(
        s[2].id,
        parse_with("other.md", "# T\n\n## Setup\n", SlugStyle::Github)
            .0
            .sections[2]
            .id
    );
}

#[test]
fn line_ranges_are_exact() {
    let src = "\
# Title
intro

## A
a text


### A1
a1 text

Setext
heading
-------
body

## B


";
    let doc = parse(src);
    let lines = |h: &str| {
        let s = by_heading(&doc, h);
        (s.start_line, s.own_end_line, s.end_line)
    };
    assert_eq!(lines("Title"), (1, 2, 16));
    assert_eq!(lines("A"), (4, 5, 9));
    assert_eq!(lines("A1"), (8, 9, 9));
    assert_eq!(lines("Setext heading"), (11, 14, 14));
    assert_eq!(lines("B"), (16, 16, 16));
    let root = &doc.sections[0];
    assert_eq!(
        (root.start_line, root.own_end_line, root.end_line),
        (1, 1, 16)
    );
}

#[test]
fn crlf_and_bom_keep_lines() {
    let src = "\u{feff}---\r\ntitle: Hello\r\n---\r\n# H1\r\ntext\r\n\r\n## H2\r\nmore\r\n";
    let doc = parse(src);
    assert_eq!(doc.title, "Hello");
    assert_eq!(doc.source, src);
    let h1 = by_heading(&doc, "H1");
    assert_eq!((h1.start_line, h1.own_end_line, h1.end_line), (4, 5, 8));
    assert_eq!(h1.heading_path, ["Hello", "H1"]);
    let h2 = by_heading(&doc, "H2");
    assert_eq!((h2.start_line, h2.end_line), (7, 8));
    assert_eq!(h2.text, "more");
    // A BOM before a heading does not hide it.
    let doc = parse("\u{feff}# Title\n");
    assert_eq!(
        (doc.title.as_str(), doc.sections[1].start_line),
        ("Title", 1)
    );
}

#[test]
fn headings_in_code_and_html_are_not_headings() {
    let src = "\
# Real

```md
# not a heading
```

    # indented code

<div>
# not a heading either
</div>

~~~
## nor this
~~~
";
    let doc = parse(src);
    assert_eq!(doc.sections.len(), 2);
    let s = &doc.sections[1];
    assert_eq!(s.code, "# not a heading\n# indented code\n## nor this");
    assert_eq!(s.text, "# not a heading either");
}

#[test]
fn mid_document_dashes_are_not_frontmatter() {
    let doc = parse("# T\n\n---\n## Kept\n---\n\ntext\n");
    let kept = by_heading(&doc, "Kept");
    assert_eq!(kept.start_line, 4);
}

#[test]
fn own_text_kinds() {
    let src = r#"# Doc

Para with **bold**, `code span`, [link text](https://x.example) and ![alt text](i.png).

- item one
- item [two](#two)
  1. nested

| Col A | Col B |
|-------|-------|
| a1    | b1    |

> quoted words
>
> > [!NOTE]
> > alert body

Footnote ref[^1].

[^1]: The footnote text.

::: tip Custom Title
Tip body with <Badge type="warning" text="attr-only" /> and <span class="x">span text</span>.
:::

:::details
Hidden details.
:::

<VueSchoolLink href="https://example.invalid" title="Watch a free lesson"/>

<script setup>
import { ref } from 'vue'
const secret = ref('do not index')
</script>

<style scoped>
.hidden { color: red }
</style>

Inline <script>alert("x")</script> after.

<!-- a comment -->

```js
const x = 1
```

- [x] done task
"#;
    let doc = parse(src);
    let s = &doc.sections[1];
    let t = &s.text;
    for want in [
        "Para with bold, code span, link text and alt text.",
        "item one",
        "item two",
        "nested",
        "Col A Col B",
        "a1 b1",
        "quoted words",
        "alert body",
        "Footnote ref.",
        "The footnote text.",
        "Custom Title",
        "Tip body with and span text.",
        "Hidden details.",
        "Inline after.",
        "done task",
    ] {
        assert!(t.contains(want), "{want:?} missing from:\n{t}");
    }
    for unwanted in [
        ":::",
        "tip",
        "attr-only",
        "Watch",
        "secret",
        "hidden",
        "alert(",
        "comment",
        "https",
        "i.png",
        "[!NOTE]",
        "const x",
    ] {
        assert!(!t.contains(unwanted), "{unwanted:?} leaked into:\n{t}");
    }
    assert_eq!(s.code, "const x = 1");
}

#[test]
fn cjk_paragraph_lines_are_glued() {
    let doc = parse("# 見出し\n\nこれは一つの\n段落です。\nEnglish\nwords\n");
    assert_eq!(doc.sections[1].text, "これは一つの段落です。 English words");
}

#[test]
fn heading_text_drops_markup_keeps_code() {
    let src = "## The `Option<T>` *enum* <Badge text=\"new\"/> [link](x) ![img](y.png) {#opt}\n";
    let doc = parse(src);
    let s = &doc.sections[1];
    assert_eq!(s.heading, "The Option<T> enum link img");
    assert_eq!(s.anchor.as_deref(), Some("opt"));
    // Without the explicit id, image alt text is not slugged (as the generators do).
    let doc = parse("## The `Option<T>` *enum* <Badge text=\"new\"/> [link](x) ![img](y.png)\n");
    assert_eq!(
        doc.sections[1].anchor.as_deref(),
        Some("the-optiont-enum--link-")
    );
}

#[test]
fn anchors_per_style() {
    let src = "# Über Größe\n\n## 3.x Migration\n\n## Q & A\n\n## Q & A\n\n## `v-model`: 使い方\n";
    let anchors = |style| {
        parse_with("a.md", src, style)
            .0
            .sections
            .iter()
            .filter_map(|s| s.anchor.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        anchors(SlugStyle::Github),
        [
            "über-größe",
            "3x-migration",
            "q--a",
            "q--a-1",
            "v-model-使い方"
        ]
    );
    assert_eq!(
        anchors(SlugStyle::Vitepress),
        [
            "uber-große",
            "_3-x-migration",
            "q-a",
            "q-a-1",
            "v-model-使い方"
        ]
    );
    assert_eq!(
        anchors(SlugStyle::Mdbook),
        [
            "Über-größe",
            "3x-migration",
            "q--a",
            "q--a-1",
            "v-model-使い方"
        ]
    );
}

#[test]
fn duplicate_explicit_anchors_warn() {
    let (doc, warnings) = parse_with(
        "dup.md",
        "# A {#same}\n\n## B {#same}\n\n## same\n",
        SlugStyle::Vitepress,
    );
    let a: Vec<_> = doc
        .sections
        .iter()
        .filter_map(|s| s.anchor.as_deref())
        .collect();
    assert_eq!(a, ["same", "same", "same-1"]);
    let w: Vec<_> = warnings
        .iter()
        .filter(|w| w.message.contains("duplicate anchor"))
        .collect();
    assert_eq!(w.len(), 1, "{warnings:?}");
    assert_eq!((w[0].path.as_str(), w[0].line), ("dup.md", Some(3)));
    assert!(w[0].message.contains("line 1"), "{}", w[0].message);
}

#[test]
fn frontmatter_hints() {
    let src = "---\ntitle: Front Title\ndescription: What it is\nkeywords: [alpha, beta]\ntags: one, two\nlang: ja\n---\n# Heading\n";
    let (doc, warnings) = parse_with("7.4/Module/page.md", src, SlugStyle::Github);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(doc.title, "Front Title");
    let h = &doc.sections[1].hints;
    assert_eq!(h.title.as_deref(), Some("Front Title"));
    assert_eq!(h.description.as_deref(), Some("What it is"));
    assert_eq!(h.keywords, ["alpha", "beta"]);
    assert_eq!(h.tags, ["one", "two"]);
    assert_eq!(h.lang.as_deref(), Some("ja"));
    assert_eq!(h.category.as_deref(), Some("Module"));
    assert_eq!(h.version.as_deref(), Some("7.4"));
    assert_eq!(doc.sections[1].heading_path, ["Front Title", "Heading"]);
    assert_eq!(doc.sections[1].start_line, 8);
    assert_eq!(doc.sections[0].text, "", "frontmatter is not text");

    let toml = "+++\ntitle = \"Toml\"\nsummary = \"Sum\"\ncategory = \"cat\"\nversion = \"2.0\"\n+++\nBody.\n";
    let (doc, _) = parse_with("x/y.md", toml, SlugStyle::Github);
    let h = &doc.sections[0].hints;
    assert_eq!(doc.title, "Toml");
    assert_eq!(h.description.as_deref(), Some("Sum"));
    assert_eq!(
        (h.category.as_deref(), h.version.as_deref()),
        (Some("cat"), Some("2.0"))
    );
    assert_eq!(doc.sections[0].text, "Body.");
}

#[test]
fn invalid_frontmatter_warns_and_indexes() {
    let src = "---\ntitle: ok\nkeywords: [unclosed\n---\n# Still Here\n\ntext\n";
    let (doc, warnings) = parse_with("bad.md", src, SlugStyle::Github);
    assert_eq!(doc.title, "Still Here");
    assert_eq!(doc.sections.len(), 2);
    let w = warnings
        .iter()
        .find(|w| w.message.contains("frontmatter"))
        .expect("a warning");
    assert_eq!(w.path, "bad.md");
    assert!(matches!(w.line, Some(2..=4)), "{w:?}");

    let (_, warnings) = parse_with("bad.md", "+++\ntitle = \n+++\n", SlugStyle::Github);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].line, Some(2));
}

#[test]
fn empty_and_frontmatter_only_files() {
    let doc = parse("");
    assert_eq!(doc.sections.len(), 1);
    let root = &doc.sections[0];
    assert_eq!(doc.title, "page");
    assert_eq!(
        (root.start_line, root.own_end_line, root.end_line),
        (1, 1, 1)
    );
    assert_eq!(root.heading_path, ["page"]);

    let doc = parse("---\ntitle: Only\ntags: [t]\n---\n");
    assert_eq!(doc.sections.len(), 1);
    assert_eq!(doc.title, "Only");
    assert_eq!(doc.sections[0].hints.tags, ["t"]);
    assert_eq!(doc.sections[0].end_line, 4);
    assert_eq!(doc.sections[0].text, "");
}

#[test]
fn title_falls_back_to_the_first_heading_then_the_file_stem() {
    let (doc, _) = parse_with("dir/ch01-02-hello.md", "## Only H2\n", SlugStyle::Mdbook);
    assert_eq!(doc.title, "Only H2");
    assert_eq!(doc.sections[1].heading_path, ["Only H2"]);
    assert_eq!(doc.url, "/dir/ch01-02-hello.html");
    let (doc, _) = parse_with("dir/ch01-02-hello.md", "no headings\n", SlugStyle::Mdbook);
    assert_eq!(doc.title, "ch01-02-hello");
}

#[test]
fn long_sections_warn() {
    let body = "word ".repeat(400);
    let (doc, warnings) = parse_with(
        "long.md",
        &format!("# T\n\n## Long\n\n{body}\n"),
        SlugStyle::Github,
    );
    let long = by_heading(&doc, "Long");
    assert!(long.token_estimate > 256);
    let w = warnings
        .iter()
        .find(|w| w.message.contains("windows"))
        .expect("warning");
    assert_eq!(w.line, Some(3));
    let opts = Options {
        max_section_tokens: 10_000,
        ..Options::default()
    };
    assert!(
        parse_document("long.md", &format!("## Long\n\n{body}"), &opts)
            .1
            .is_empty()
    );
}

#[test]
fn token_estimates() {
    let doc = parse("# abcd\n\nefgh ijk\n\n```\ncode\n```\n");
    // heading 4 + text 8 + code 4 chars = 16 / 4.
    assert_eq!(doc.sections[1].token_estimate, 4);
    let doc = parse("# 日本\n\n日本語\n");
    assert_eq!(doc.sections[1].token_estimate, 5);
}
