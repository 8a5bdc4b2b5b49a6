//! Hostile and degenerate input: no panic, sensible output, bounded time; and a property test
//! of the line-range invariants on arbitrary Markdown-ish text.

use std::time::{Duration, Instant};

use midashi_core::section::{Document, Warning};
use midashi_markdown::{parse_document, Options, SlugStyle, MAX_HEADINGS, MAX_HEADING_BYTES};
use proptest::prelude::*;

/// Generous: debug builds on a shared 2-core machine.
const BOUND: Duration = Duration::from_secs(20);

fn timed(src: &str) -> (Document, Vec<Warning>) {
    let t = Instant::now();
    let out = parse_document("x.md", src, &Options::default());
    assert!(t.elapsed() < BOUND, "took {:?}", t.elapsed());
    check_invariants(&out.0, src);
    out
}

/// What every document must satisfy, whatever its input.
fn check_invariants(doc: &Document, src: &str) {
    let line_count = src.split_inclusive('\n').count().max(1) as u32;
    let s = &doc.sections;
    assert!(!s.is_empty());
    assert_eq!(s[0].depth, 0);
    assert_eq!(s[0].start_line, 1);
    for (i, sec) in s.iter().enumerate() {
        assert_eq!(sec.order as usize, i);
        assert!(
            sec.start_line <= sec.own_end_line && sec.own_end_line <= sec.end_line,
            "{sec:?}"
        );
        assert!(
            sec.start_line >= 1 && sec.end_line <= line_count,
            "{sec:?} of {line_count}"
        );
        assert!(sec.section_number >= 1);
        if sec.depth == 0 {
            assert_eq!(sec.parent, None);
            assert_eq!(sec.anchor, None);
            continue;
        }
        assert!((1..=6).contains(&sec.depth));
        let parent = s
            .iter()
            .position(|p| Some(p.id) == sec.parent)
            .expect("parent exists");
        assert!(parent < i);
        let p = &s[parent];
        assert!(p.depth < sec.depth);
        assert!(
            p.start_line <= sec.start_line && sec.end_line <= p.end_line,
            "{p:?}\n{sec:?}"
        );
        assert!(p.own_end_line < sec.start_line || p.own_end_line == p.start_line);
        assert_eq!(sec.heading_path.first(), Some(&doc.title));
        assert!(sec.heading.len() <= MAX_HEADING_BYTES);
        assert!(sec.anchor.is_some());
    }
    let ids: std::collections::HashSet<_> = s.iter().map(|s| s.id).collect();
    assert_eq!(ids.len(), s.len(), "ids are unique");

    // The sections' own ranges tile the file: in document order, each starts after the
    // previous one's own text ends (a section with no text of its own before its first
    // child, e.g. the document node of a file starting with a heading, is just its start
    // line, shared with that child), and every non-blank line is in one of them.
    for w in s.windows(2) {
        let empty_parent =
            w[0].own_end_line == w[0].start_line && w[1].start_line == w[0].start_line;
        assert!(
            w[1].start_line > w[0].own_end_line || empty_parent,
            "{:?}\n{:?}",
            w[0],
            w[1]
        );
    }
    for (i, line) in src.split_inclusive('\n').enumerate() {
        let line_no = i as u32 + 1;
        if line.trim_start_matches('\u{feff}').trim().is_empty() {
            continue;
        }
        assert!(
            s.iter()
                .any(|sec| sec.start_line <= line_no && line_no <= sec.own_end_line),
            "line {line_no} {line:?} is in no section"
        );
    }
}

#[test]
fn deeply_nested_lists_and_quotes() {
    let n = 10_000;
    for src in [
        format!("{}deep\n", "- ".repeat(n)),
        format!("{}deep\n", "1. ".repeat(n)),
        format!("{}deep\n", "> ".repeat(n)),
        format!("{}deep\n", ">".repeat(n)),
        format!("# T\n\n{}x{}\n", "[".repeat(n), "]".repeat(n)),
        format!("# T\n\n{}x{}\n", "*".repeat(n), "*".repeat(n)),
        format!("# T\n\n{}\n", "<div>".repeat(n)),
        format!("# T\n\n{}\n", "`".repeat(n)),
    ] {
        let (doc, _) = timed(&src);
        assert!(doc.sections.len() <= 2);
    }
    // Quote and list nesting over many lines.
    let src: String = (0..2_000)
        .map(|i| format!("{}- item {i}\n", "  ".repeat(i)))
        .collect();
    let (doc, _) = timed(&src);
    assert!(doc.sections[0].text.contains("item 1999"));
    let src: String = (0..2_000)
        .map(|i| format!("{} line {i}\n", ">".repeat(i)))
        .collect();
    timed(&src);
}

#[test]
fn megabyte_heading_is_truncated() {
    let src = format!("# {}\n\ntext\n", "a".repeat(1 << 20));
    let (doc, warnings) = timed(&src);
    let h = &doc.sections[1];
    assert_eq!(h.heading.len(), MAX_HEADING_BYTES);
    assert!(h
        .anchor
        .as_ref()
        .is_some_and(|a| a.len() <= MAX_HEADING_BYTES));
    assert_eq!(h.text, "text");
    assert!(warnings
        .iter()
        .any(|w| w.message.contains("truncated") && w.line == Some(1)));
    // Multi-byte text is cut at a character boundary.
    let src = format!("## {}\n", "見".repeat(1000));
    let (doc, _) = timed(&src);
    assert!(doc.sections[1].heading.len() <= MAX_HEADING_BYTES);
    assert!(doc.sections[1].heading.chars().all(|c| c == '見'));
}

#[test]
fn too_many_headings_are_folded() {
    let extra = 50;
    let src: String = (0..MAX_HEADINGS + extra)
        .map(|i| format!("## Heading {i}\n\nbody {i}\n\n"))
        .collect();
    let (doc, warnings) = timed(&src);
    assert_eq!(doc.sections.len(), MAX_HEADINGS + 1);
    let last = doc.sections.last().unwrap();
    assert_eq!(last.heading, format!("Heading {}", MAX_HEADINGS - 1));
    // The folded headings and their text stay searchable, in the last section kept.
    assert!(last
        .text
        .contains(&format!("Heading {}", MAX_HEADINGS + extra - 1)));
    assert!(last
        .text
        .contains(&format!("body {}", MAX_HEADINGS + extra - 1)));
    let w = warnings
        .iter()
        .find(|w| w.message.contains("folded"))
        .expect("warning");
    assert!(w.message.starts_with(&extra.to_string()), "{}", w.message);
    assert_eq!(w.line, Some(4 * MAX_HEADINGS as u32 + 1));
    // Anchors stay unique even with thousands of near-duplicates.
    let src: String = (0..5_000).map(|_| "## Same\n").collect();
    let (doc, _) = timed(&src);
    assert_eq!(
        doc.sections.last().unwrap().anchor.as_deref(),
        Some("same-4999")
    );
}

#[test]
fn odd_line_endings_and_bytes() {
    for src in [
        "",
        "\n",
        "\r\n\r\n",
        "\u{feff}",
        "#",
        "# \n#\n##",
        "---",
        "---\n---\n",
        "+++\n+++",
        "---\ntitle: [\n",
        "Setext\r\n===\r\n",
        "a\rb\r# c\r",
        "\0# nul\0\n",
        ":::\n:::: tip\n::: \n",
        "> ::: tip T\n> body\n> :::\n",
        "[^x]: foot\n\n# H [^x]\n",
        "<script>\n# not\n",
        "<!--\n# not\n",
        "# <script>alert(1)</script> ok\n",
    ] {
        timed(src);
    }
    let (doc, _) = timed("<script>\n# not\n");
    assert_eq!(doc.sections.len(), 1);
}

#[test]
fn every_style_survives_hostile_headings() {
    for style in [SlugStyle::Github, SlugStyle::Vitepress, SlugStyle::Mdbook] {
        let opts = Options {
            slug: style,
            ..Options::default()
        };
        let src = "# \u{0}\u{1f}\u{300}\n## -_-\n## 1\n## \u{feff}\n## ---\n";
        let (doc, _) = parse_document("x.md", src, &opts);
        check_invariants(&doc, src);
    }
}

/// Markdown-ish text: headings, fences, lists, quotes, HTML, containers, frontmatter
/// delimiters, line-ending variants and arbitrary characters.
fn markdownish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("# ".to_string()),
        Just("## ".to_string()),
        Just("###### ".to_string()),
        Just("####### ".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\r".to_string()),
        Just("\n\n".to_string()),
        Just("===\n".to_string()),
        Just("---\n".to_string()),
        Just("+++\n".to_string()),
        Just("```\n".to_string()),
        Just("~~~\n".to_string()),
        Just("    ".to_string()),
        Just("- ".to_string()),
        Just("1. ".to_string()),
        Just("> ".to_string()),
        Just("<div>".to_string()),
        Just("</div>".to_string()),
        Just("<script>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("::: tip T\n".to_string()),
        Just(":::\n".to_string()),
        Just(" {#id}".to_string()),
        Just("| a | b |\n|---|---|\n".to_string()),
        Just("[^1]".to_string()),
        Just("[^1]: ".to_string()),
        Just("`".to_string()),
        Just("*".to_string()),
        Just("[x](y)".to_string()),
        Just("\u{feff}".to_string()),
        "[a-zA-Z0-9 ]{1,12}",
        "\\PC{1,6}",
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn never_panics_and_ranges_nest(src in markdownish()) {
        for style in [SlugStyle::Github, SlugStyle::Vitepress, SlugStyle::Mdbook] {
            let opts = Options { slug: style, ..Options::default() };
            let (doc, _) = parse_document("dir/p.md", &src, &opts);
            check_invariants(&doc, &src);
        }
    }
}

/// Found by the fuzzer (fuzz/regressions/markdown-lone-cr-nesting.bin): a lone CR ends a line
/// for CommonMark but not for the LF line numbers we quote, so two headings can share a line;
/// section ranges must still nest.
#[test]
fn headings_sharing_a_line_keep_ranges_nested() {
    let bytes = include_bytes!("../../../fuzz/regressions/markdown-lone-cr-nesting.bin");
    let fuzzed = String::from_utf8_lossy(bytes);
    for text in [fuzzed.as_ref(), "# A\n## B\r# C\rtext\n## D\n"] {
        let (doc, _) =
            midashi_markdown::parse_document("cr.md", text, &midashi_markdown::Options::default());
        let lines = text.split_inclusive('\n').count().max(1) as u32;
        for (i, sec) in doc.sections.iter().enumerate() {
            assert!(sec.start_line >= 1 && sec.end_line <= lines, "{sec:?}");
            assert!(sec.start_line <= sec.own_end_line && sec.own_end_line <= sec.end_line);
            if let Some(pid) = sec.parent {
                let p = doc.sections[..i].iter().find(|p| p.id == pid).unwrap();
                assert!(
                    p.start_line <= sec.start_line && sec.end_line <= p.end_line,
                    "{p:?} / {sec:?}"
                );
            }
        }
    }
}
